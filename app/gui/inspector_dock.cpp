#include "inspector_dock.h"

#include "units.h"

#include "perwiz/mpi_ops.h"

#include <QFormLayout>
#include <QGridLayout>
#include <QLabel>
#include <QPushButton>
#include <QScrollArea>
#include <QVBoxLayout>

#include <algorithm>

namespace perwiz::gui {

int mpiIndexOf(const Trace& trace, std::uint32_t rank, std::uint32_t event) {
  if (rank >= trace.rankCount()) return -1;
  const auto& calls = trace.ranks[rank].mpiCalls;
  auto it = std::lower_bound(calls.begin(), calls.end(), event);
  return it != calls.end() && *it == event ? static_cast<int>(it - calls.begin()) : -1;
}

ui::TimelineItem callOf(const Trace& trace, const ui::TimelineItem& item) {
  if (item.kind != ui::TimelineItem::Kind::Message) return item;
  const ui::MessageEnds m = ui::messageEnds(trace, item);
  ui::TimelineItem out;
  if (!m.recv || m.recv->event == kNone32) return out;
  out.kind = ui::TimelineItem::Kind::Event;
  out.rank = m.recvRank;
  out.event = m.recv->event;
  out.predicted = item.predicted;
  return out;
}

int stepOf(const Trace& trace, std::uint32_t rank, std::uint32_t event) {
  for (std::size_t k = 0; k < trace.steps.size(); ++k) {
    const auto& spans = trace.steps[k].ranks;
    if (rank >= spans.size() || !spans[rank].present()) continue;
    const auto& s = spans[rank];
    if (s.marker == event || (event >= s.firstEvent() && event < s.lastEvent)) return static_cast<int>(k);
  }
  return -1;
}

InspectorDock::InspectorDock(QWidget* parent) : QDockWidget(tr("Inspector"), parent) {
  setObjectName(QStringLiteral("inspectorDock"));
  auto* w = new QWidget(this);
  auto* v = new QVBoxLayout(w);
  v->setContentsMargins(6, 6, 6, 6);
  title_ = new QLabel(w);
  title_->setWordWrap(true);
  QFont f = title_->font();
  f.setBold(true);
  title_->setFont(f);
  form_ = new QWidget(w);
  layout_ = new QFormLayout(form_);
  layout_->setContentsMargins(0, 0, 0, 0);
  v->addWidget(title_);
  v->addWidget(form_);

  auto* grid = new QGridLayout;
  zeroWait_ = new QPushButton(tr("Zero wait (Z)"), w);
  zeroWait_->setToolTip(tr("Assume the partner is in time: this call's waiting time becomes zero"));
  zeroEvent_ = new QPushButton(tr("Zero event (E)"), w);
  zeroEvent_->setToolTip(tr("This call takes no time at all"));
  zeroComputation_ = new QPushButton(tr("Zero computation before"), w);
  zeroComputation_->setToolTip(tr("The computation before this call takes no time"));
  balanceCompute_ = new QPushButton(tr("Balance computation (B)"), w);
  balanceCompute_->setToolTip(tr("Every rank's computation in this parallel step becomes the step mean"));
  balanceVolume_ = new QPushButton(tr("Balance volume (V)"), w);
  balanceVolume_->setToolTip(tr("Every message sent in this parallel step gets the step's mean size"));
  grid->addWidget(zeroWait_, 0, 0);
  grid->addWidget(zeroEvent_, 0, 1);
  grid->addWidget(zeroComputation_, 1, 0, 1, 2);
  grid->addWidget(balanceCompute_, 2, 0);
  grid->addWidget(balanceVolume_, 2, 1);
  v->addStretch();

  // The rows scroll; the hypothesis buttons stay at the dock's bottom, in view however many
  // rows a call has (issue #40 item 8).
  auto* scroll = new QScrollArea;
  scroll->setWidgetResizable(true);
  scroll->setFrameShape(QFrame::NoFrame);
  scroll->setWidget(w);
  auto* outer = new QWidget(this);
  auto* o = new QVBoxLayout(outer);
  o->setContentsMargins(0, 0, 0, 0);
  o->setSpacing(2);
  o->addWidget(scroll, 1);
  grid->setContentsMargins(6, 0, 6, 6);
  o->addLayout(grid);
  setWidget(outer);

  connect(zeroWait_, &QPushButton::clicked, this, [this] { emit hypothesisRequested(HypothesisKind::ZeroWait, item_); });
  connect(zeroEvent_, &QPushButton::clicked, this, [this] { emit hypothesisRequested(HypothesisKind::ZeroEvent, item_); });
  connect(zeroComputation_, &QPushButton::clicked, this, [this] { emit zeroComputationRequested(item_); });
  connect(balanceCompute_, &QPushButton::clicked, this,
          [this] { emit hypothesisRequested(HypothesisKind::BalanceCompute, item_); });
  connect(balanceVolume_, &QPushButton::clicked, this,
          [this] { emit hypothesisRequested(HypothesisKind::BalanceVolume, item_); });
  inspect(nullptr, {}, nullptr);
}

void InspectorDock::clearRows() {
  while (layout_->rowCount() > 0) layout_->removeRow(0);
}

void InspectorDock::addRow(const QString& label, const QString& value) {
  auto* l = new QLabel(value, form_);
  l->setTextInteractionFlags(Qt::TextSelectableByMouse);
  l->setWordWrap(true);
  // A wrapped value takes the lines it needs (a form row otherwise keeps one line's height).
  l->setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Minimum);
  layout_->addRow(label, l);
}

void InspectorDock::inspect(const Trace* trace, const ui::TimelineItem& item,
                            const std::shared_ptr<const PredictionResult>& prediction) {
  item_ = item;
  clearRows();
  if (trace && item.kind == ui::TimelineItem::Kind::Message) {
    showMessage(*trace, item, prediction);
    return;
  }
  const bool haveTrace = trace != nullptr;
  const bool isEvent = haveTrace && item.kind == ui::TimelineItem::Kind::Event && item.rank < trace->rankCount() &&
                       item.event < trace->ranks[item.rank].size();
  const int mpi = isEvent ? mpiIndexOf(*trace, item.rank, item.event) : -1;
  int step = -1;
  if (haveTrace && item.kind == ui::TimelineItem::Kind::Step && item.step < trace->steps.size())
    step = static_cast<int>(item.step);
  else if (isEvent)
    step = stepOf(*trace, item.rank, item.event);
  const bool predictionFits = prediction && haveTrace && prediction->trace.get() == trace && prediction->times;

  zeroWait_->setEnabled(mpi >= 0);
  zeroEvent_->setEnabled(mpi >= 0);
  zeroComputation_->setEnabled(mpi >= 0);
  balanceCompute_->setEnabled(step >= 0);
  balanceVolume_->setEnabled(step >= 0);

  if (isEvent) {
    showCall(*trace, item, mpi, step, predictionFits ? prediction : nullptr);
  } else if (step >= 0) {
    showStepSpans(*trace, static_cast<std::uint32_t>(step), predictionFits ? prediction : nullptr);
  } else {
    title_->setText(haveTrace ? tr("Nothing selected") : tr("No trace loaded"));
    if (haveTrace) addRow(QString(), tr("Click an event, a message arrow or a parallel step in the timeline."));
  }
}

// An event: its times, messages and collectives, step, overhead and predicted times.
// `prediction`: null unless it is the shown trace's.
void InspectorDock::showCall(const Trace& trace, const ui::TimelineItem& item, int mpi, int step,
                             const std::shared_ptr<const PredictionResult>& prediction) {
  const bool predictionFits = prediction != nullptr;
  const RankTrace& rt = trace.ranks[item.rank];
  const Function& fn = trace.fn(item.rank, item.event);
  title_->setText(QString::fromStdString(fn.name));
  const TimeNs enter = rt.enter[item.event], leave = rt.leave[item.event];
  QString kind = fn.kind == EventKind::MpiCall     ? tr("MPI call")
                 : fn.kind == EventKind::UserState ? tr("user state")
                                                   : tr("point event");
  addRow(tr("Kind:"), kind);
  addRow(tr("Rank:"), QString::number(item.rank));
  if (mpi >= 0) addRow(tr("Event:"), QString::fromStdString(eventId(item.rank, static_cast<std::uint32_t>(mpi))));
  addRow(tr("Measured enter:"), formatDuration(enter));
  addRow(tr("Measured leave:"), formatDuration(leave));
  addRow(tr("Duration:"), formatDuration(leave - enter));
  if (mpi >= 0 && predictionFits && prediction->measuredWaits) {
    const TimeNs wait = (*prediction->measuredWaits)[item.rank][static_cast<std::size_t>(mpi)];
    addRow(tr("Measured wait:"), formatDuration(wait));
    addRow(tr("Local cost:"), formatDuration(leave - enter - wait));
  }
  addPartnerRows(trace, item);
  if (step >= 0) addRow(tr("Parallel step:"), QString::number(step));
  if (mpi >= 0 && overhead_ && item.rank < overhead_->classOfCall.size() &&
      static_cast<std::size_t>(mpi) < overhead_->classOfCall[item.rank].size()) {
    const std::uint32_t c = overhead_->classOfCall[item.rank][static_cast<std::size_t>(mpi)];
    if (c < overhead_->classes.size()) {
      const TimeNs tMax = overhead_->classes[c].tMaxNs;
      addRow(tr("Overhead:"),
             tr("%1 (usual maximum t_max %2)")
                 .arg(formatDuration(overhead_->overheadOfCall[item.rank][static_cast<std::size_t>(mpi)]),
                      tMax == kUnboundedNs ? QStringLiteral("∞") : formatDuration(tMax)));
    }
  }
  if (predictionFits) {
    if (mpi >= 0) {
      const PredictedCall p = prediction->times->ranks[item.rank]->call(static_cast<std::uint32_t>(mpi), item.event);
      addRow(tr("Predicted enter:"), formatDuration(p.enter));
      addRow(tr("Predicted leave:"), formatDuration(p.leave));
      addRow(tr("Predicted wait:"), formatDuration(p.wait));
    } else {
      addRow(tr("Predicted enter:"), formatDuration(prediction->times->ranks[item.rank]->enter(item.event)));
      addRow(tr("Predicted leave:"), formatDuration(prediction->times->ranks[item.rank]->leave(item.event)));
    }
    if (!prediction->network.isEmpty()) addRow(tr("Network model:"), prediction->network);
  }
}

// A parallel step: its ranks and measured and predicted spans.
void InspectorDock::showStepSpans(const Trace& trace, std::uint32_t step,
                                  const std::shared_ptr<const PredictionResult>& prediction) {
  const bool predictionFits = prediction != nullptr;
  const ParallelStep& s = trace.steps[static_cast<std::size_t>(step)];
  title_->setText(tr("Parallel step %1").arg(step));
  TimeNs begin = 0, end = 0, shortest = -1, longest = 0;
  int present = 0;
  for (std::uint32_t r = 0; r < s.ranks.size() && r < trace.rankCount(); ++r) {
    if (!s.ranks[r].present()) continue;
    const TimeNs sb = trace.stepBegin(static_cast<std::size_t>(step), r);
    const TimeNs se = trace.stepEnd(static_cast<std::size_t>(step), r);
    if (present == 0 || sb < begin) begin = sb;
    end = std::max(end, se);
    const TimeNs d = se - sb;
    shortest = shortest < 0 ? d : std::min(shortest, d);
    longest = std::max(longest, d);
    ++present;
  }
  addRow(tr("Ranks:"), QString::number(present));
  addRow(tr("Measured begin:"), formatDuration(begin));
  addRow(tr("Measured end:"), formatDuration(end));
  addRow(tr("Span per rank:"),
         tr("%1 … %2").arg(formatDuration(std::max<TimeNs>(shortest, 0)), formatDuration(longest)));
  if (predictionFits && prediction->times) {
    TimeNs pb = 0, pe = 0;
    bool first = true;
    for (std::uint32_t r = 0; r < s.ranks.size() && r < trace.rankCount(); ++r) {
      if (!s.ranks[r].present()) continue;
      const TimeNs b = prediction->times->ranks[r]->enter(s.ranks[r].marker);
      const TimeNs e = prediction->times->ranks[r]->leave(s.ranks[r].marker);
      pb = first ? b : std::min(pb, b);
      pe = first ? e : std::max(pe, e);
      first = false;
    }
    addRow(tr("Predicted begin:"), formatDuration(pb));
    addRow(tr("Predicted end:"), formatDuration(pe));
  }
}

// The messages completed or posted by the call, and its collectives.
void InspectorDock::addPartnerRows(const Trace& trace, const ui::TimelineItem& item) {
  const RankTrace& rt = trace.ranks[item.rank];
  QStringList partners;
  std::uint64_t bytes = 0;
  for (const auto& m : rt.messages) {
    if (m.event != item.event && m.postEvent != item.event) continue;
    bytes += m.bytes;
    const QString peer = m.peer >= 0 ? QString::number(m.peer) : tr("unknown");
    partners << (m.isSend ? tr("to rank %1: %2 B, tag %3") : tr("from rank %1: %2 B, tag %3"))
                    .arg(peer)
                    .arg(m.bytes)
                    .arg(m.tag);
  }
  for (const auto& c : rt.collectives) {
    if (c.event != item.event) continue;
    bytes += c.bytesSent;
    partners << tr("collective %1 on %2 ranks: %3 B sent, %4 B received")
                    .arg(QString::fromUtf8(mpiOpName(c.op).data(), static_cast<qsizetype>(mpiOpName(c.op).size())))
                    .arg(c.instance < trace.collectives.size() ? trace.collectives[c.instance].participants : 0)
                    .arg(c.bytesSent)
                    .arg(c.bytesReceived);
  }
  if (!partners.isEmpty()) {
    addRow(tr("Bytes:"), QString::number(bytes));
    addRow(tr("Partners:"), partners.join(QLatin1Char('\n')));
  }
}

void InspectorDock::showMessage(const Trace& trace, const ui::TimelineItem& item,
                                const std::shared_ptr<const PredictionResult>& prediction) {
  const auto [send, recv, rr] = ui::messageEnds(trace, item);
  const ui::TimelineItem call = callOf(trace, item);
  const int recvMpi = call.kind == ui::TimelineItem::Kind::Event ? mpiIndexOf(trace, call.rank, call.event) : -1;
  const int step = call.kind == ui::TimelineItem::Kind::Event ? stepOf(trace, call.rank, call.event) : -1;
  zeroWait_->setEnabled(recvMpi >= 0);
  zeroEvent_->setEnabled(false);
  zeroComputation_->setEnabled(false);
  balanceCompute_->setEnabled(step >= 0);
  balanceVolume_->setEnabled(step >= 0);
  if (!send) {
    title_->setText(tr("Nothing selected"));
    return;
  }
  title_->setText(recv ? tr("Message %1 → %2").arg(item.rank).arg(rr) : tr("Message from %1 (unmatched)").arg(item.rank));
  auto callText = [&](std::uint32_t r, std::uint32_t e) {
    if (e == kNone32 || e >= trace.ranks[r].size()) return tr("(none)");
    const int mpi = mpiIndexOf(trace, r, e);
    QString s = QString::fromStdString(trace.fn(r, e).name);
    if (mpi >= 0) s += QStringLiteral(" (%1)").arg(QString::fromStdString(eventId(r, static_cast<std::uint32_t>(mpi))));
    return s;
  };
  addRow(tr("Sender call:"), tr("%1 on rank %2, at %3").arg(callText(item.rank, send->postEvent)).arg(item.rank).arg(formatDuration(send->time)));
  if (recv) {
    addRow(tr("Receiver call:"), tr("%1 on rank %2, at %3").arg(callText(rr, recv->event)).arg(rr).arg(formatDuration(recv->time)));
    addRow(tr("Transfer:"), formatDuration(recv->time - send->time));
  }
  addRow(tr("Bytes:"), QString::number(send->bytes));
  addRow(tr("Tag:"), QString::number(send->tag));
  const bool predictionFits = prediction && prediction->trace.get() == &trace && prediction->times;
  if (recvMpi >= 0 && predictionFits && prediction->measuredWaits) {
    const TimeNs wait = (*prediction->measuredWaits)[call.rank][static_cast<std::size_t>(recvMpi)];
    addRow(tr("Receiver's wait:"), formatDuration(wait));
    const PredictedCall p = prediction->times->ranks[call.rank]->call(static_cast<std::uint32_t>(recvMpi), call.event);
    addRow(tr("Predicted wait:"), formatDuration(p.wait));
  }
  if (recvMpi >= 0) addRow(QString(), tr("Zero Wait (Z) removes the receiver's wait on this message."));
}

}  // namespace perwiz::gui
