// MainWindow's comparison with a second run (issue #41): File ▸ Compare With…, the Comparison
// dock fed by the session's snapshots, and a row's place shown on the timeline.
#include "main_window.h"

#include "analysis_session.h"
#include "app_paths.h"
#include "comparison_dock.h"

#include "perwiz/widgets/timeline_view.h"

#include <QAction>
#include <QFileDialog>
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
  connect(s, &AnalysisSession::comparisonStarted, comparisonDock_, &ComparisonDock::showLoading);
  connect(s, &AnalysisSession::comparisonReady, comparisonDock_, &ComparisonDock::showResult);
  connect(s, &AnalysisSession::comparisonFailed, this, [this](const QString& message) {
    comparisonDock_->showError(message);
    statusBar()->showMessage(message, 8000);
  });
  connect(s, &AnalysisSession::comparisonEnded, comparisonDock_, &ComparisonDock::clear);
  connect(comparisonDock_, &ComparisonDock::compareRequested, this, &MainWindow::compareDialog);
  connect(comparisonDock_, &ComparisonDock::endRequested, s, &AnalysisSession::endComparison);
  connect(comparisonDock_, &ComparisonDock::placeRequested, this, &MainWindow::goToPlace);
}

void MainWindow::goToPlace(const ComparisonPlace& place) {
  if (place.end > place.begin) timeline_->setVisibleRange(place.begin, place.end);
  if (place.event != kNone32) {
    const ui::TimelineItem item{ui::TimelineItem::Kind::Event, place.rank, place.event, 0, false};
    timeline_->setSelection(item);
    timeline_->scrollTo(item);
  }
}

}  // namespace perwiz::gui
