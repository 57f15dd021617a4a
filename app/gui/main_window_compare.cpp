// MainWindow's comparison with a second run (issue #41): File ▸ Compare With…, the Comparison
// dock fed by the session's snapshots, and a row's place shown on the timeline.
#include "main_window.h"

#include "analysis_session.h"
#include "app_paths.h"
#include "comparison_dock.h"
#include "units.h"

#include "perwiz/widgets/timeline_view.h"

#include <QAction>
#include <QFileDialog>
#include <QFileInfo>
#include <QLabel>
#include <QStatusBar>

namespace perwiz::gui {

void MainWindow::createCompareAction() {
  compareAct_ = new QAction(tr("&Compare With…"), this);
  compareAct_->setObjectName(QStringLiteral("compareWithAction"));
  compareAct_->setStatusTip(tr("Open a second run of the program (e.g. after the fix) and compare it with this one"));
  compareAct_->setEnabled(false);
  connect(compareAct_, &QAction::triggered, this, &MainWindow::compareDialog);
}

void MainWindow::compareWith(const QString& path) {
  comparisonDock_->show();
  comparisonDock_->raise();
  session_->compareWith(path);
}

void MainWindow::compareDialog() {
  if (!session_->trace()) return;
  const QString path =
      QFileDialog::getOpenFileName(this, tr("Compare With"), dialogFolder(session_->tracePath(), false),
                                   tr("Traces (*.alog *.log *.otf *.otf2);;All files (*)"));
  if (path.isEmpty()) return;
  rememberDialogFolder(path);
  compareWith(path);
}

void MainWindow::connectComparison() {
  auto* s = session_;
  connect(s, &AnalysisSession::traceChanged, this, [this] { compareAct_->setEnabled(true); });
  connect(s, &AnalysisSession::comparisonStarted, this, [this](const QString& pathB) {
    comparisonDock_->showLoading(pathB);  // also for a session that brings a comparison
    comparisonDock_->show();
    comparisonDock_->raise();
  });
  connect(s, &AnalysisSession::comparisonReady, this, &MainWindow::showComparison);
  connect(s, &AnalysisSession::comparisonFailed, this, [this](const QString& message) {
    comparisonDock_->showError(message);
    endComparisonView();
    statusBar()->showMessage(message, 8000);
  });
  connect(s, &AnalysisSession::comparisonEnded, this, [this] {
    comparisonDock_->clear();
    endComparisonView();
  });
  // One time axis, one zoom: each view follows the other's range (B's shifted by shiftB_).
  auto follow = [this](ui::TimelineView* to, int sign) {
    return [this, to, sign](TimeNs begin, TimeNs end) {
      if (syncingRange_ || timelineBox_->isHidden()) return;
      syncingRange_ = true;
      to->setVisibleRange(begin + sign * shiftB_, end + sign * shiftB_);
      syncingRange_ = false;
    };
  };
  connect(timeline_, &ui::TimelineView::visibleRangeChanged, this, follow(timelineB_, 1));
  connect(timelineB_, &ui::TimelineView::visibleRangeChanged, this, follow(timeline_, -1));
  connect(comparisonDock_, &ComparisonDock::shiftRequested, this, &MainWindow::shiftB);
  connect(comparisonDock_, &ComparisonDock::markRequested, s, &AnalysisSession::setComparisonMark);
  connect(comparisonDock_, &ComparisonDock::compareRequested, this, &MainWindow::compareDialog);
  connect(comparisonDock_, &ComparisonDock::endRequested, s, &AnalysisSession::endComparison);
  connect(comparisonDock_, &ComparisonDock::placeRequested, this, &MainWindow::goToPlace);
}

void MainWindow::showComparison(const std::shared_ptr<const ComparisonResult>& result) {
  comparisonDock_->showResult(result);
  if (timelineB_->trace() != result->traceB.get()) {  // a new second run: its own timeline
    timelineB_->setTrace(result->traceB, result->timelineB);
    timelineBox_->show();
  }
  const Comparison& c = result->comparison;
  runLabelA_->setText(
      c.predicted
          ? tr("A: %1 — measured %2; predicted under %n hypothesis(es) %3", nullptr, int(result->applied.size()))
                .arg(QFileInfo(session_->tracePath()).fileName(), formatDuration(c.measuredA),
                     formatDuration(*c.predicted))
          : tr("A: %1 — measured %2").arg(QFileInfo(session_->tracePath()).fileName(), formatDuration(c.measuredA)));
  runLabelB_->setText(
      tr("B: %1 — re-measured %2").arg(QFileInfo(result->pathB).fileName(), formatDuration(c.measuredB)));
  runLabelA_->show();
  runLabelB_->show();
  // One time axis: each view reaches the other run's end (and A′'s).
  const TimeNs endA = std::max(result->comparison.measuredA, result->comparison.predicted.value_or(0));
  timeline_->setAxisEnd(result->comparison.measuredB);
  timelineB_->setAxisEnd(endA);
  shiftB(shiftB_);  // B's range (and its label's shift)
  // Marked in both runs: the events beyond the dock's threshold, else those that changed most.
  std::vector<ui::TimelineItem> inA, inB;
  auto mark = [&](std::uint32_t rankA, std::uint32_t eventA, std::uint32_t rankB, std::uint32_t eventB) {
    inA.push_back({ui::TimelineItem::Kind::Event, rankA, eventA, 0, false});
    inB.push_back({ui::TimelineItem::Kind::Event, rankB, eventB, 0, false});
  };
  if (session_->comparisonMark() >= 0)
    for (const EventPair& m : result->comparison.marked) mark(m.rankA, m.eventA, m.rankB, m.eventB);
  else
    for (const EventDifference& e : result->comparison.changed) mark(e.rankA, e.eventA, e.rankB, e.eventB);
  timelineB_->setHighlighted(inB);
  timeline_->setHighlighted(inA);
}

void MainWindow::shiftB(TimeNs shiftNs) {
  shiftB_ = shiftNs;
  runLabelB_->setText(runLabelB_->text().section(QStringLiteral(" — shifted"), 0, 0) +
                      (shiftNs == 0
                           ? QString()
                           : tr(" — shifted by %1 to line up with A")
                                 .arg((shiftNs > 0 ? QStringLiteral("+") : QString()) + formatDuration(shiftNs))));
  syncingRange_ = true;
  timelineB_->setVisibleRange(timeline_->visibleBegin() + shiftB_, timeline_->visibleEnd() + shiftB_);
  syncingRange_ = false;
}

void MainWindow::endComparisonView() {
  shiftB_ = 0;
  if (timelineBox_->isHidden()) return;
  timelineBox_->hide();
  runLabelA_->hide();
  runLabelB_->hide();
  timelineB_->setTrace(nullptr);
  timeline_->setHighlighted({});
  timeline_->setAxisEnd(0);
}

std::vector<ExportPart> MainWindow::exportParts(ui::TimelineExportOptions options, bool header) const {
  const auto& result = session_->comparison();
  if (!result || timelineBox_->isHidden()) return {{timeline_, options}};
  const Comparison& c = result->comparison;
  ui::TimelineExportOptions b = options;
  b.mode = ui::TimelineMode::Measured;
  b.notes.clear();
  b.title.clear();
  if (header) {
    options.notes << tr("Compared with %1 (B): %2 of the events paired")
                         .arg(QFileInfo(result->pathB).fileName())
                         .arg(result->alignment->paired);
    options.notes << (c.predicted ? tr("T: A %1, A′ %2, B %3; the prediction is off by %4")
                                        .arg(formatDuration(c.measuredA), formatDuration(*c.predicted),
                                             formatDuration(c.measuredB),
                                             (*c.predicted > c.measuredB ? QStringLiteral("+") : QString()) +
                                                 formatDuration(*c.predicted - c.measuredB))
                                  : tr("T: A %1, B %2").arg(formatDuration(c.measuredA), formatDuration(c.measuredB)));
    b.title = tr("B: %1 — re-measured %2").arg(QFileInfo(result->pathB).fileName(), formatDuration(c.measuredB));
  }
  return {{timeline_, options}, {timelineB_, b}};
}

void MainWindow::goToPlace(const ComparisonPlace& place) {
  if (place.end > place.begin) timeline_->setVisibleRange(place.begin, place.end);  // B follows
  if (place.event != kNone32) {
    const ui::TimelineItem item{ui::TimelineItem::Kind::Event, place.rank, place.event, 0, false};
    timeline_->setSelection(item);
    timeline_->scrollTo(item);
  }
  if (place.eventB != kNone32 && !timelineBox_->isHidden()) {
    const ui::TimelineItem item{ui::TimelineItem::Kind::Event, place.rankB, place.eventB, 0, false};
    timelineB_->setSelection(item);
    timelineB_->scrollTo(item);
  }
}

}  // namespace perwiz::gui
