#include "comparison_dock.h"

#include "dock_tables.h"
#include "units.h"

#include <QFileInfo>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QSpinBox>
#include <QTabWidget>
#include <QVBoxLayout>

#include <algorithm>
#include <limits>

namespace perwiz::gui {
namespace {

constexpr int kRow = Qt::UserRole;  // index into the result's list the row shows

// "+1.234 ms" / "−0.420 ms" / "0 ns".
QString signedDuration(TimeNs ns) {
  if (ns == 0) return formatDuration(0);
  return (ns > 0 ? QStringLiteral("+") : QString(QChar(0x2212))) + formatDuration(ns > 0 ? ns : -ns);
}

void setRow(QTableWidget* t, int row, const QStringList& texts, int index) {
  for (int c = 0; c < texts.size(); ++c) {
    auto* item = cell(texts[c], c > 0);
    item->setData(kRow, index);
    t->setItem(row, c, item);
  }
}

// With a prediction, a row's last two cells: A′'s value and its error against B.
void addPrediction(QStringList& cells, bool predicted, TimeNs value, TimeNs b) {
  if (predicted) cells << formatDuration(value) << signedDuration(value - b);
}

// A step's span in A: its markers' earliest enter and latest leave over the ranks.
std::pair<TimeNs, TimeNs> stepSpan(const Trace& t, std::uint32_t k) {
  TimeNs b = std::numeric_limits<TimeNs>::max(), e = std::numeric_limits<TimeNs>::min();
  for (std::uint32_t r = 0; r < t.steps[k].ranks.size() && r < t.rankCount(); ++r)
    if (t.steps[k].ranks[r].present()) {
      b = std::min(b, t.stepBegin(k, r));
      e = std::max(e, t.stepEnd(k, r));
    }
  return b <= e ? std::pair(b, e) : std::pair(TimeNs{0}, TimeNs{0});
}

}  // namespace

ComparisonDock::ComparisonDock(QWidget* parent) : QDockWidget(tr("Comparison"), parent) {
  setObjectName(QStringLiteral("comparisonDock"));
  qRegisterMetaType<ComparisonPlace>();
  auto* body = new QWidget(this);
  auto* layout = new QVBoxLayout(body);
  layout->setContentsMargins(4, 4, 4, 4);
  auto* bar = new QHBoxLayout;
  compare_ = new QPushButton(tr("Compare With…"), body);
  compare_->setObjectName(QStringLiteral("compareWith"));
  compare_->setToolTip(tr("Open a second run of the program (e.g. after the fix) beside this one"));
  end_ = new QPushButton(tr("End Comparison"), body);
  end_->setObjectName(QStringLiteral("endComparison"));
  end_->setEnabled(false);
  lineUp_ = new QPushButton(tr("Line Up Event"), body);
  lineUp_->setObjectName(QStringLiteral("lineUpEvent"));
  lineUp_->setToolTip(tr("Shift B's timeline so that the selected event and its partner in B line up"));
  lineUp_->setEnabled(false);
  together_ = new QPushButton(tr("Start Together"), body);
  together_->setObjectName(QStringLiteral("startTogether"));
  together_->setToolTip(tr("Both runs from their start (no shift)"));
  together_->setEnabled(false);
  bar->addWidget(compare_);
  bar->addWidget(end_);
  bar->addWidget(lineUp_);
  bar->addWidget(together_);
  // Mark changes beyond a threshold (µs; 0: the largest changes only).
  mark_ = new QSpinBox(body);
  mark_->setObjectName(QStringLiteral("markChanges"));
  mark_->setRange(0, 100000000);
  mark_->setSuffix(tr(" µs"));
  mark_->setPrefix(tr("mark changes above "));
  mark_->setSpecialValueText(tr("mark the largest changes"));
  mark_->setToolTip(tr("Mark on both timelines every event whose duration changed by more than this"));
  bar->addWidget(mark_);
  bar->addStretch(1);
  layout->addLayout(bar);
  summary_ = new QLabel(tr("No second run yet: File ▸ Compare With… opens one."), body);
  summary_->setWordWrap(true);
  summary_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  layout->addWidget(summary_);
  tabs_ = new QTabWidget(body);
  ranks_ = makeTable({}, tabs_);
  steps_ = makeTable({}, tabs_);
  functions_ = makeTable({}, tabs_);
  events_ = makeTable({}, tabs_);
  tabs_->addTab(ranks_, tr("Ranks"));
  tabs_->addTab(steps_, tr("Steps"));
  tabs_->addTab(functions_, tr("Functions"));
  tabs_->addTab(events_, tr("Events"));
  layout->addWidget(tabs_, 1);
  setWidget(body);
  for (QTableWidget* t : {ranks_, steps_, functions_, events_}) {
    t->setSelectionMode(QAbstractItemView::SingleSelection);
    connect(t, &QTableWidget::cellClicked, this, [this, t](int row, int) { onCellClicked(t, row); });
  }
  connect(compare_, &QPushButton::clicked, this, &ComparisonDock::compareRequested);
  connect(lineUp_, &QPushButton::clicked, this, [this] { emit shiftRequested(selectedShift_); });
  connect(together_, &QPushButton::clicked, this, [this] { emit shiftRequested(0); });
  connect(mark_, &QSpinBox::valueChanged, this,
          [this](int us) { emit markRequested(us == 0 ? TimeNs{-1} : TimeNs{us} * 1000); });
  connect(end_, &QPushButton::clicked, this, &ComparisonDock::endRequested);
}

void ComparisonDock::clear() {
  result_.reset();
  for (QTableWidget* t : {ranks_, steps_, functions_, events_}) t->setRowCount(0);
  summary_->setText(tr("No second run yet: File ▸ Compare With… opens one."));
  end_->setEnabled(false);
  lineUp_->setEnabled(false);
  together_->setEnabled(false);
}

void ComparisonDock::showLoading(const QString& pathB) {
  summary_->setText(tr("Comparing with %1…").arg(QFileInfo(pathB).fileName()));
  end_->setEnabled(true);
}

void ComparisonDock::showError(const QString& message) {
  clear();
  summary_->setText(tr("No comparison: %1").arg(message));
}

void ComparisonDock::showResult(const std::shared_ptr<const ComparisonResult>& result) {
  result_ = result;
  end_->setEnabled(true);
  together_->setEnabled(true);
  lineUp_->setEnabled(false);  // until an event row is chosen
  fill();
}

void ComparisonDock::fill() {
  if (!result_) return;
  const Comparison& c = result_->comparison;
  const TraceAlignment& al = *result_->alignment;
  const bool p = c.predicted.has_value();
  QString text = tr("B: %1 — %2 of %3 events paired, %4 only in A, %5 only in B.")
                     .arg(QFileInfo(result_->pathB).fileName())
                     .arg(al.paired)
                     .arg(std::max(al.eventsA, al.eventsB))
                     .arg(al.onlyA)
                     .arg(al.onlyB);
  text += QLatin1Char('\n') +
          tr("T: A %1, B %2 (%3).")
              .arg(formatDuration(c.measuredA), formatDuration(c.measuredB), signedDuration(c.measuredB - c.measuredA));
  if (p)
    text += QLatin1Char('\n') +
            tr("Predicted (A′, %n hypothesis(es)): %1; B re-measured %2: the prediction is off by %3 (%4).", nullptr,
               int(result_->applied.size()))
                .arg(formatDuration(*c.predicted), formatDuration(c.measuredB),
                     signedDuration(*c.predicted - c.measuredB), formatChange(c.measuredB, *c.predicted));
  else
    text += QLatin1Char('\n') + tr("No hypotheses: add some to set their prediction against B.");
  if (c.markedCount > 0)
    text += QLatin1Char('\n') +
            tr("%1 events changed by more than %2 (marked%3).")
                .arg(c.markedCount)
                .arg(formatDuration(TimeNs{mark_->value()} * 1000))
                .arg(c.marked.size() < c.markedCount ? tr(": the first %1").arg(c.marked.size()) : QString());
  if (!al.unpairedA.empty() || !al.unpairedB.empty())
    text += QLatin1Char('\n') +
            tr("%1 rank(s) of A and %2 of B have no partner.").arg(al.unpairedA.size()).arg(al.unpairedB.size());
  summary_->setText(text);
  fillRanks(p);
  fillSteps(p);
  fillFunctions(p);
  fillEvents(p);
}

void ComparisonDock::startTable(QTableWidget* t, QStringList headers, bool predicted, int rows) {
  if (predicted) headers << tr("Predicted") << tr("Error");
  t->clear();
  t->setColumnCount(int(headers.size()));
  t->setHorizontalHeaderLabels(headers);
  t->setRowCount(rows);
}

void ComparisonDock::fillRanks(bool p) {
  const QStringList h{tr("Rank"), tr("End A"), tr("End B"), tr("B − A")};
  const auto& rs = result_->comparison.ranks;
  startTable(ranks_, h, p, int(rs.size()));
  for (int i = 0; i < int(rs.size()); ++i) {
    const RankDifference& r = rs[i];
    QStringList t{r.rankA == r.rankB ? QString::number(r.rankA) : QStringLiteral("%1 / %2").arg(r.rankA).arg(r.rankB),
                  formatDuration(r.endA), formatDuration(r.endB), signedDuration(r.endB - r.endA)};
    addPrediction(t, p, r.endPredicted, r.endB);
    setRow(ranks_, i, t, i);
  }
  ranks_->resizeColumnsToContents();
}

void ComparisonDock::fillSteps(bool p) {
  const QStringList h{tr("Step"), tr("A"), tr("B"), tr("B − A")};
  const auto& ss = result_->comparison.steps;
  startTable(steps_, h, p, int(ss.size()));
  for (int i = 0; i < int(ss.size()); ++i) {
    const StepDifference& s = ss[i];
    QStringList t{s.stepA == s.stepB ? QString::number(s.stepA) : QStringLiteral("%1 / %2").arg(s.stepA).arg(s.stepB),
                  formatDuration(s.a), formatDuration(s.b), signedDuration(s.b - s.a)};
    addPrediction(t, p, s.predicted, s.b);
    setRow(steps_, i, t, i);
  }
  steps_->resizeColumnsToContents();
}

void ComparisonDock::fillFunctions(bool p) {
  const QStringList h{tr("Function"), tr("A"), tr("B"), tr("B − A"), tr("Calls A"), tr("Calls B")};
  const auto& fs = result_->comparison.functions;
  startTable(functions_, h, p, int(fs.size()));
  for (int i = 0; i < int(fs.size()); ++i) {
    const FunctionDifference& f = fs[i];
    QStringList t{QString::fromStdString(f.name), formatDuration(f.a),       formatDuration(f.b),
                  signedDuration(f.b - f.a),      QString::number(f.countA), QString::number(f.countB)};
    addPrediction(t, p, f.predicted, f.b);
    setRow(functions_, i, t, i);
  }
  functions_->resizeColumnsToContents();
}

void ComparisonDock::fillEvents(bool p) {
  // The events that changed most, then (with a prediction) where the prediction missed most.
  const QStringList h{tr("Event"), tr("Step"), tr("A"), tr("B"), tr("B − A")};
  const auto& changed = result_->comparison.changed;
  const auto& missed = result_->comparison.missed;
  startTable(events_, h, p, int(changed.size() + (p ? missed.size() : 0)));
  auto row = [&](int at, const EventDifference& e, int index, const QString& tag) {
    const QString call = e.mpiIndex != kNone32 ? QStringLiteral("%1:%2").arg(e.rankA).arg(e.mpiIndex)
                                               : QStringLiteral("%1:e%2").arg(e.rankA).arg(e.eventA);
    QStringList t{tag + QString::fromStdString(e.function) + QLatin1Char(' ') + call,
                  e.step == kNone32 ? QString() : QString::number(e.step), formatDuration(e.durationA),
                  formatDuration(e.durationB), signedDuration(e.durationB - e.durationA)};
    addPrediction(t, p, e.durationPredicted, e.durationB);
    setRow(events_, at, t, index);
  };
  for (int i = 0; i < int(changed.size()); ++i) row(i, changed[i], i, tr("changed: "));
  if (p)
    for (int i = 0; i < int(missed.size()); ++i)
      row(int(changed.size()) + i, missed[i], int(changed.size()) + i, tr("missed: "));
  events_->resizeColumnsToContents();
}

void ComparisonDock::onCellClicked(QTableWidget* table, int row) {
  if (!result_ || !table->item(row, 0)) return;
  const int index = table->item(row, 0)->data(kRow).toInt();
  const Trace& a = *result_->traceA;
  const Comparison& c = result_->comparison;
  ComparisonPlace place;
  if (table == ranks_) {
    const RankDifference& r = c.ranks[index];
    place.rank = r.rankA;
    place.begin = 0;
    place.end = std::max(r.endA, TimeNs{1});
  } else if (table == steps_) {
    const auto [b, e] = stepSpan(a, c.steps[index].stepA);
    const std::uint32_t k = c.steps[index].stepA;
    for (std::uint32_t r = 0; r < a.steps[k].ranks.size(); ++r)
      if (a.steps[k].ranks[r].present()) {
        place.rank = r;
        break;
      }
    place.begin = b;
    place.end = std::max(e, b + 1);
  } else if (table == events_) {
    const EventDifference& e =
        index < int(c.changed.size()) ? c.changed[index] : c.missed[index - int(c.changed.size())];
    place.rank = e.rankA;
    place.event = e.eventA;
    place.rankB = e.rankB;
    place.eventB = e.eventB;
    selectedShift_ = e.enterB - e.enterA;
    lineUp_->setEnabled(true);
    const TimeNs margin = std::max<TimeNs>(e.durationA, 1000);  // the event and as much around it
    place.begin = std::max<TimeNs>(0, e.enterA - margin);
    place.end = e.enterA + e.durationA + margin;
  } else {
    return;  // a function has no one place
  }
  emit placeRequested(place);
}

}  // namespace perwiz::gui
