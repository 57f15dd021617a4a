#include "advisor_dock.h"

#include "dock_tables.h"
#include "units.h"

#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>
#include <QTabWidget>
#include <QTableWidget>
#include <QTreeWidget>
#include <QVBoxLayout>

namespace perwiz::gui {

namespace {

constexpr int kRefRole = Qt::UserRole;       // "rank:index" of an MPI call, or a step number
constexpr int kPathRole = Qt::UserRole + 1;  // domino path index (top-level items)

// Time saved and its share of the base T, one sign for both: "+1.815 ms (+15.6 %)" when the
// prediction is faster, "−0.420 ms (−3.6 %)" when slower.
QString gainText(TimeNs base, TimeNs predicted) {
  const TimeNs gain = base - predicted;
  const QString sign = gain > 0 ? QStringLiteral("+") : gain < 0 ? QStringLiteral("−") : QString();
  const QString pct = base > 0 ? QStringLiteral("%1%2 %").arg(sign).arg(100.0 * std::abs(double(gain)) / double(base), 0, 'f', 1)
                               : QStringLiteral("—");
  return QStringLiteral("%1%2 (%3)").arg(sign, formatDuration(std::abs(gain)), pct);
}

QString refText(const EventRef& e) { return QStringLiteral("%1:%2").arg(e.rank).arg(e.index); }

EventRef refFrom(const QVariant& v) {
  EventRef e;
  parseEventRef(v.toString().toStdString(), e);
  return e;
}

}  // namespace

AdvisorDock::AdvisorDock(QWidget* parent) : QDockWidget(tr("Advisor"), parent) {
  setObjectName(QStringLiteral("advisorDock"));
  qRegisterMetaType<std::vector<EventRef>>();
  qRegisterMetaType<std::vector<Hypothesis>>();
  auto* body = new QWidget(this);
  auto* layout = new QVBoxLayout(body);
  layout->setContentsMargins(4, 4, 4, 4);

  auto* bar = new QHBoxLayout;
  run_ = new QPushButton(tr("Run Advisor"), body);
  run_->setObjectName(QStringLiteral("runAdvisor"));
  run_->setToolTip(tr("Find what to fix first, starting from the current scenario"));
  cancel_ = new QPushButton(tr("Cancel"), body);
  cancel_->setObjectName(QStringLiteral("cancelAdvisor"));
  cancel_->setEnabled(false);
  apply_ = new QPushButton(tr("Apply"), body);
  apply_->setObjectName(QStringLiteral("applyAdvice"));
  apply_->setToolTip(tr("Add the selected rows as hypotheses"));
  apply_->setEnabled(false);
  progress_ = new QProgressBar(body);
  progress_->setRange(0, 1000);
  progress_->setTextVisible(false);
  progress_->setMaximumHeight(12);
  progress_->setVisible(false);
  bar->addWidget(run_);
  bar->addWidget(cancel_);
  bar->addWidget(apply_);
  bar->addWidget(progress_, 1);
  layout->addLayout(bar);
  status_ = new QLabel(tr("Not run yet."), body);
  status_->setWordWrap(true);
  layout->addWidget(status_);

  tabs_ = new QTabWidget(body);
  layout->addWidget(tabs_, 1);

  auto* dominoPage = new QWidget(tabs_);
  auto* dl = new QVBoxLayout(dominoPage);
  dl->setContentsMargins(0, 0, 0, 0);
  dominoSummary_ = new QLabel(dominoPage);
  dominoSummary_->setWordWrap(true);
  domino_ = new QTreeWidget(dominoPage);
  domino_->setHeaderLabels({tr("Path / event"), tr("Wait"), tr("Predicted T"), tr("Gain")});
  domino_->setSelectionMode(QAbstractItemView::ExtendedSelection);
  domino_->setRootIsDecorated(true);
  dl->addWidget(dominoSummary_);
  dl->addWidget(domino_, 1);
  tabs_->addTab(dominoPage, tr("Domino Paths"));

  auto* candPage = new QWidget(tabs_);
  auto* cl = new QVBoxLayout(candPage);
  cl->setContentsMargins(0, 0, 0, 0);
  longestWait_ = new QLabel(candPage);
  longestWait_->setWordWrap(true);
  candidates_ = makeTable({tr("Event"), tr("Function"), tr("Wait"), tr("Predicted T"), tr("Gain")}, candPage);
  cl->addWidget(longestWait_);
  cl->addWidget(candidates_, 1);
  tabs_->addTab(candPage, tr("Candidates"));

  auto* stepPage = new QWidget(tabs_);
  auto* sl = new QVBoxLayout(stepPage);
  sl->setContentsMargins(0, 0, 0, 0);
  stepsSummary_ = new QLabel(stepPage);
  stepsSummary_->setWordWrap(true);
  steps_ = makeTable({tr("Step"), tr("Ranks"), tr("Mean"), tr("Max"), tr("σ"), tr("Predicted T"), tr("Gain")},
                     stepPage);
  sl->addWidget(stepsSummary_);
  sl->addWidget(steps_, 1);
  tabs_->addTab(stepPage, tr("Steps"));

  bounds_ = makeTable({tr("Region"), tr("Assumptions"), tr("Predicted T"), tr("Gain")}, tabs_);
  bounds_->setSelectionMode(QAbstractItemView::SingleSelection);
  bounds_->setToolTip(tr("Estimates from the per-rank breakdown: Q1 zero waiting, Q2 balanced "
                         "workload, Q3 balanced message amount (* above the measured T: see the cell)"));
  tabs_->addTab(bounds_, tr("Bounds"));

  setWidget(body);

  connect(run_, &QPushButton::clicked, this, &AdvisorDock::runRequested);
  connect(cancel_, &QPushButton::clicked, this, &AdvisorDock::cancelRequested);
  connect(apply_, &QPushButton::clicked, this, [this] {
    const auto hs = selectedHypotheses();
    if (!hs.empty()) emit applyRequested(hs);
  });
  connect(domino_, &QTreeWidget::itemSelectionChanged, this, &AdvisorDock::onSelectionChanged);
  connect(candidates_, &QTableWidget::itemSelectionChanged, this, &AdvisorDock::onSelectionChanged);
  connect(steps_, &QTableWidget::itemSelectionChanged, this, &AdvisorDock::onSelectionChanged);
  connect(bounds_, &QTableWidget::itemSelectionChanged, this, &AdvisorDock::onSelectionChanged);
  connect(tabs_, &QTabWidget::currentChanged, this, &AdvisorDock::onSelectionChanged);
  clear();
}

void AdvisorDock::clear() {
  outcome_.reset();
  stale_ = false;
  domino_->clear();
  candidates_->setRowCount(0);
  steps_->setRowCount(0);
  bounds_->setRowCount(0);
  dominoSummary_->setText(tr("Run the advisor to find the messages whose wait removal shortens the run most."));
  longestWait_->clear();
  stepsSummary_->clear();
  status_->setText(tr("Not run yet."));
  apply_->setEnabled(false);
}

void AdvisorDock::setRunning(bool running) {
  run_->setEnabled(!running);
  cancel_->setEnabled(running);
  progress_->setVisible(running);
  if (running) {
    progress_->setValue(0);
    status_->setText(tr("Running…"));
  }
}

void AdvisorDock::setProgress(double fraction, const QString& stage) {
  progress_->setValue(static_cast<int>(fraction * 1000));
  status_->setText(tr("Running: %1…").arg(stage));
}

void AdvisorDock::setStale(bool stale) {
  if (stale == stale_ || !outcome_) return;
  stale_ = stale;
  if (stale) status_->setText(tr("The scenario changed since this advice was computed: run again to update it."));
}

void AdvisorDock::showOutcome(const std::shared_ptr<const AdvisorOutcome>& outcome) {
  outcome_ = outcome;
  stale_ = false;
  if (!outcome) return clear();
  fillDomino();
  fillCandidates();
  fillSteps();
  fillBounds();
  if (!outcome->error.isEmpty())
    status_->setText(tr("The advisor failed: %1").arg(outcome->error));
  else if (outcome->cancelled)
    status_->setText(tr("Cancelled; the tables show what was finished."));
  else if (outcome->finished)
    status_->setText(tr("Base %1 (measured %2); %n prediction(s) run.", nullptr,
                        static_cast<int>(outcome->predictions))
                         .arg(formatDuration(outcome->baseNs), formatDuration(outcome->measuredNs)));
  onSelectionChanged();
}

QString AdvisorDock::eventLabel(const EventRef& e) const {
  if (!outcome_ || !outcome_->trace || e.rank >= outcome_->trace->rankCount()) return refText(e);
  const auto& calls = outcome_->trace->ranks[e.rank].mpiCalls;
  if (e.index >= calls.size()) return refText(e);
  return QStringLiteral("%1 %2").arg(refText(e), QString::fromStdString(outcome_->trace->fn(e.rank, calls[e.index]).name));
}

void AdvisorDock::fillDomino() {
  domino_->clear();
  const AdvisorOutcome& o = *outcome_;
  if (!o.hasDomino) {
    dominoSummary_->setText(o.finished ? tr("No domino paths (cancelled or failed).") : tr("Searching…"));
    return;
  }
  if (o.domino.paths.empty()) {
    dominoSummary_->setText(tr("No wait on the critical path can be removed with a gain: the run is "
                               "bound by computation and communication costs."));
    return;
  }
  dominoSummary_->setText(tr("Best: %1 → %2 (%3). Events are listed cause first.")
                              .arg(formatDuration(o.baseNs), formatDuration(o.domino.predictedNs),
                                   formatChange(o.baseNs, o.domino.predictedNs)) +
                          (o.domino.truncated ? tr(" The search stopped at its path limit.") : QString()));
  for (std::size_t p = 0; p < o.domino.paths.size(); ++p) {
    const DominoPath& path = o.domino.paths[p];
    auto* top = new QTreeWidgetItem(domino_);
    // The path itself, cause first: its first and last event (the zeroed wait is the first).
    const EventRef first = path.events.empty() ? path.zeroed : path.events.front();
    const EventRef last = path.events.empty() ? path.zeroed : path.events.back();
    top->setText(0, tr("%1 → %2 (%n event(s))", nullptr, static_cast<int>(path.events.size()))
                        .arg(eventLabel(first), eventLabel(last)));
    top->setToolTip(0, tr("Zero the wait of %1: the delay it caused runs along this path (started from rank %2).")
                           .arg(eventLabel(path.zeroed))
                           .arg(path.fromRank));
    top->setText(2, formatDuration(path.predictedNs));
    top->setText(3, gainText(o.baseNs, path.predictedNs));
    top->setData(0, kPathRole, static_cast<int>(p));
    top->setData(0, kRefRole, refText(path.zeroed));
    for (std::size_t k = 0; k < path.events.size(); ++k) {
      const EventRef& e = path.events[k];
      auto* child = new QTreeWidgetItem(top);
      child->setText(0, eventLabel(e));
      if (p < o.pathWaits.size() && k < o.pathWaits[p].size()) {
        child->setText(1, formatDuration(o.pathWaits[p][k]));
        child->setTextAlignment(1, Qt::AlignRight | Qt::AlignVCenter);
      }
      child->setData(0, kRefRole, refText(e));
      child->setData(0, kPathRole, -1);
    }
    top->setExpanded(p == 0);
  }
  for (int c = 0; c < domino_->columnCount(); ++c) domino_->resizeColumnToContents(c);
}

void AdvisorDock::fillCandidates() {
  candidates_->setRowCount(0);
  const AdvisorOutcome& o = *outcome_;
  if (!o.hasDomino) {
    longestWait_->clear();
    return;
  }
  if (o.hasLongestWait)
    longestWait_->setText(tr("Longest wait: %1, %2 → predicted %3 (%4).")
                              .arg(eventLabel(o.longestWait.event), formatDuration(o.longestWait.waitNs),
                                   formatDuration(o.longestWait.predictedNs),
                                   formatChange(o.baseNs, o.longestWait.predictedNs)));
  else
    longestWait_->setText(tr("No call waits in this scenario."));
  candidates_->setRowCount(static_cast<int>(o.candidates.size()));
  for (int row = 0; row < static_cast<int>(o.candidates.size()); ++row) {
    const WaitCandidate& c = o.candidates[row];
    auto* ev = cell(refText(c.event));
    ev->setData(kRefRole, refText(c.event));
    candidates_->setItem(row, 0, ev);
    QString fn;
    if (o.trace && c.event.rank < o.trace->rankCount() && c.event.index < o.trace->ranks[c.event.rank].mpiCalls.size())
      fn = QString::fromStdString(o.trace->fn(c.event.rank, o.trace->ranks[c.event.rank].mpiCalls[c.event.index]).name);
    candidates_->setItem(row, 1, cell(fn));
    candidates_->setItem(row, 2, cell(formatDuration(c.waitNs), true));
    candidates_->setItem(row, 3, cell(formatDuration(c.predictedNs), true));
    candidates_->setItem(row, 4, cell(gainText(o.baseNs, c.predictedNs), true));
  }
  candidates_->resizeColumnsToContents();
}

void AdvisorDock::fillSteps() {
  steps_->setRowCount(0);
  const AdvisorOutcome& o = *outcome_;
  if (!o.hasSteps) {
    stepsSummary_->setText(o.trace && o.trace->steps.empty()
                               ? tr("The trace has no parallel steps (no PRGN markers); choose a region "
                                    "with Prediction ▸ Parallel Region.")
                               : (o.finished ? QString() : tr("Waiting for the domino search…")));
    return;
  }
  if (o.steps.empty()) {
    stepsSummary_->setText(tr("The trace has no parallel steps (no PRGN markers); choose a region with "
                              "Prediction ▸ Parallel Region."));
    return;
  }
  stepsSummary_->setText(tr("All %n step(s) balanced → %1 (%2).", nullptr, static_cast<int>(o.steps.size()))
                             .arg(formatDuration(o.allStepsBalancedNs), formatChange(o.baseNs, o.allStepsBalancedNs)));
  // Most promising first: by predicted T, then by σ.
  std::vector<const StepRow*> rows;
  for (const auto& s : o.steps) rows.push_back(&s);
  std::stable_sort(rows.begin(), rows.end(), [](const StepRow* a, const StepRow* b) {
    return a->predictedNs != b->predictedNs ? a->predictedNs < b->predictedNs : a->sigmaNs > b->sigmaNs;
  });
  steps_->setRowCount(static_cast<int>(rows.size()));
  for (int row = 0; row < static_cast<int>(rows.size()); ++row) {
    const StepRow& s = *rows[row];
    auto* step = cell(QString::number(s.step), true);
    step->setData(kRefRole, s.step);
    steps_->setItem(row, 0, step);
    steps_->setItem(row, 1, cell(QString::number(s.ranks), true));
    steps_->setItem(row, 2, cell(formatDuration(s.meanNs), true));
    steps_->setItem(row, 3, cell(formatDuration(s.maxNs), true));
    steps_->setItem(row, 4, cell(formatDuration(s.sigmaNs), true));
    steps_->setItem(row, 5, cell(formatDuration(s.predictedNs), true));
    steps_->setItem(row, 6, cell(gainText(o.baseNs, s.predictedNs), true));
  }
  steps_->resizeColumnsToContents();
}

void AdvisorDock::fillBounds() {
  bounds_->setRowCount(0);
  const AdvisorOutcome& o = *outcome_;
  if (!o.hasBounds) return;
  int row = 0;
  for (const auto& region : o.bounds) {
    for (const auto& b : region.rows) {
      bounds_->insertRow(row);
      bounds_->setItem(row, 0, cell(QString::fromStdString(region.region)));
      const std::string a = b.assumptions();
      bounds_->setItem(row, 1, cell(a.empty() ? QStringLiteral("—") : QString::fromStdString(a)));
      auto* t = cell(formatDuration(b.predictedNs), true);
      if (b.predictedNs > o.baseNs) {
        // Q2/Q3 without Q1: a rank that did not wait gets the mean workload and keeps its waits;
        // the per-rank sums add what the execution overlapped.
        t->setText(t->text() + QStringLiteral(" *"));
        t->setToolTip(tr("Above the measured T: with the workload balanced but the waits kept, a rank that "
                         "did not wait gets more work while every rank keeps its waiting time. The "
                         "per-rank estimate adds them; combine with Q1 (zero waiting) for a bound."));
      }
      bounds_->setItem(row, 2, t);
      bounds_->setItem(row, 3, cell(gainText(o.baseNs, b.predictedNs), true));
      ++row;
    }
  }
  bounds_->resizeColumnsToContents();
}

std::vector<Hypothesis> AdvisorDock::selectedHypotheses() const {
  std::vector<Hypothesis> out;
  auto zeroWait = [&](const EventRef& e) {
    Hypothesis h;
    h.kind = HypothesisKind::ZeroWait;
    h.event = e;
    if (std::find(out.begin(), out.end(), h) == out.end()) out.push_back(h);
  };
  QWidget* page = tabs_->currentWidget();
  if (page && page->isAncestorOf(domino_)) {
    for (auto* item : domino_->selectedItems()) zeroWait(refFrom(item->data(0, kRefRole)));
  } else if (page && page->isAncestorOf(candidates_)) {
    for (auto* item : candidates_->selectedItems())
      if (item->column() == 0) zeroWait(refFrom(item->data(kRefRole)));
  } else if (page && page->isAncestorOf(steps_)) {
    for (auto* item : steps_->selectedItems())
      if (item->column() == 0) {
        Hypothesis h;
        h.kind = HypothesisKind::BalanceCompute;
        h.step = item->data(kRefRole).toUInt();
        out.push_back(h);
      }
  }
  return out;
}

void AdvisorDock::onSelectionChanged() {
  std::vector<EventRef> events;
  int step = -1;
  QWidget* page = tabs_->currentWidget();
  if (page && page->isAncestorOf(domino_)) {
    for (auto* item : domino_->selectedItems()) {
      const int p = item->data(0, kPathRole).toInt();
      if (p >= 0 && outcome_ && p < static_cast<int>(outcome_->domino.paths.size())) {
        const auto& path = outcome_->domino.paths[p];
        events.insert(events.end(), path.events.begin(), path.events.end());
      } else {
        events.push_back(refFrom(item->data(0, kRefRole)));
      }
    }
  } else if (page && page->isAncestorOf(candidates_)) {
    for (auto* item : candidates_->selectedItems())
      if (item->column() == 0) events.push_back(refFrom(item->data(kRefRole)));
  } else if (page && page->isAncestorOf(steps_)) {
    for (auto* item : steps_->selectedItems())
      if (item->column() == 0) {
        step = item->data(kRefRole).toInt();
        break;
      }
  }
  apply_->setEnabled(!selectedHypotheses().empty());
  emit highlightRequested(events, step);
}

}  // namespace perwiz::gui
