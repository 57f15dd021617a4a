// The main window's actions, menus and status bar (main_window.h).
#include "main_window.h"

#include "analysis_session.h"

#include "advisor_dock.h"
#include "charts_dock.h"
#include "comparison_dock.h"
#include "hypothesis_dock.h"
#include "inspector_dock.h"
#include "overhead_dock.h"
#include "warnings_dock.h"

#include <QAction>
#include <QDockWidget>
#include <QTabBar>
#include <QSettings>
#include <QActionGroup>
#include <QCoreApplication>
#include <QLabel>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QProgressBar>
#include <QStatusBar>
#include <QToolButton>
#include <QUndoStack>

namespace perwiz::gui {

void MainWindow::createActions() {
  openAct_ = new QAction(tr("&Open Trace…"), this);
  openAct_->setShortcut(QKeySequence::Open);
  openAct_->setStatusTip(tr("Open an ALOG or OTF2 trace"));
  connect(openAct_, &QAction::triggered, this, &MainWindow::openDialog);

  createCompareAction();
  openSessionAct_ = new QAction(tr("Open &Session…"), this);
  connect(openSessionAct_, &QAction::triggered, this, &MainWindow::openSessionDialog);
  saveSessionAct_ = new QAction(tr("&Save Session"), this);
  saveSessionAct_->setShortcut(QKeySequence::Save);
  connect(saveSessionAct_, &QAction::triggered, this, &MainWindow::saveSession);
  saveSessionAsAct_ = new QAction(tr("Save Session &As…"), this);
  saveSessionAsAct_->setShortcut(QKeySequence::SaveAs);
  connect(saveSessionAsAct_, &QAction::triggered, this, &MainWindow::saveSessionAs);
  exportImageAct_ = new QAction(tr("&Export Image…"), this);
  exportImageAct_->setShortcut(QKeySequence(tr("Ctrl+E")));
  exportImageAct_->setObjectName(QStringLiteral("exportImage"));
  connect(exportImageAct_, &QAction::triggered, this, &MainWindow::exportImageDialog);
  exportTraceAct_ = new QAction(tr("Export &Predicted Trace…"), this);
  exportTraceAct_->setObjectName(QStringLiteral("exportPredictedTrace"));
  connect(exportTraceAct_, &QAction::triggered, this, &MainWindow::exportPredictedTraceDialog);
  quitAct_ = new QAction(tr("&Quit"), this);
  quitAct_->setShortcut(QKeySequence::Quit);
  connect(quitAct_, &QAction::triggered, this, &QWidget::close);

  undoAct_ = session_->undoStack()->createUndoAction(this, tr("&Undo"));
  undoAct_->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_Z));
  redoAct_ = session_->undoStack()->createRedoAction(this, tr("&Redo"));
  redoAct_->setShortcuts({QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_Z), QKeySequence(Qt::CTRL | Qt::Key_Y)});

  modeGroup_ = new QActionGroup(this);
  const QString modeNames[4] = {tr("&Measured"), tr("&Predicted"), tr("&Overlay"), tr("&Lanes")};
  const QString modeTips[4] = {tr("The trace as measured"), tr("The prediction only"),
                               tr("Predicted boxes over the measured ones"),
                               tr("Each rank split into a measured and a predicted lane")};
  for (int i = 0; i < 4; ++i) {
    modeActs_[i] = new QAction(modeNames[i], this);
    modeActs_[i]->setCheckable(true);
    modeActs_[i]->setStatusTip(modeTips[i]);
    modeActs_[i]->setShortcut(QKeySequence(Qt::CTRL | static_cast<Qt::Key>(Qt::Key_1 + i)));
    modeGroup_->addAction(modeActs_[i]);
    const auto mode = static_cast<ui::TimelineMode>(i);
    connect(modeActs_[i], &QAction::triggered, this, [this, mode] { chooseMode(mode); });
  }
  modeActs_[0]->setChecked(true);
  fitAct_ = new QAction(tr("&Fit"), this);
  fitAct_->setShortcut(QKeySequence(Qt::Key_F));
  fitAct_->setStatusTip(tr("Show the whole trace"));
  connect(fitAct_, &QAction::triggered, timeline_, &ui::TimelineView::fitAll);

  auto hypothesisAction = [this](const QString& text, Qt::Key key, HypothesisKind kind, const QString& tip) {
    auto* a = new QAction(text, this);
    if (key != Qt::Key_unknown) a->setShortcut(QKeySequence(key));
    a->setStatusTip(tip);
    connect(a, &QAction::triggered, this, [this, kind] {
      QString why;
      if (!requestHypothesis(kind, timeline_->selection(), &why)) report(why);
    });
    return a;
  };
  zeroWaitAct_ = hypothesisAction(tr("Zero &Wait"), Qt::Key_Z, HypothesisKind::ZeroWait,
                                  tr("The selected call's waiting time becomes zero"));
  zeroEventAct_ = hypothesisAction(tr("Zero &Event"), Qt::Key_E, HypothesisKind::ZeroEvent,
                                   tr("The selected call takes no time"));
  balanceComputeAct_ = hypothesisAction(tr("&Balance Computation"), Qt::Key_B, HypothesisKind::BalanceCompute,
                                        tr("Every rank's computation in the selected parallel step becomes the mean"));
  balanceVolumeAct_ = hypothesisAction(tr("Balance Message &Volume"), Qt::Key_V, HypothesisKind::BalanceVolume,
                                       tr("Every message of the selected parallel step gets the mean size"));
  zeroComputationAct_ = new QAction(tr("Zero &Computation Before"), this);
  zeroComputationAct_->setStatusTip(tr("The computation before the selected call takes no time"));
  connect(zeroComputationAct_, &QAction::triggered, this, [this] {
    QString why;
    if (!requestZeroComputation(timeline_->selection(), &why)) report(why);
  });

  compensateAct_ = new QAction(tr("Compensate Measurement &Overhead…"), this);
  compensateAct_->setObjectName(QStringLiteral("compensateOverhead"));
  compensateAct_->setStatusTip(tr("Remove the tracer's per-event overhead from every rank and propagate the delays along messages"));
  connect(compensateAct_, &QAction::triggered, this, &MainWindow::compensationDialog);

  runAdvisorAct_ = new QAction(tr("Run &Advisor"), this);
  runAdvisorAct_->setShortcut(QKeySequence(tr("Ctrl+R")));
  runAdvisorAct_->setStatusTip(tr("Rank what to fix first: domino paths, waits, steps and bounds"));
  connect(runAdvisorAct_, &QAction::triggered, this, &MainWindow::runAdvisor);

  networkModelAct_ = new QAction(tr("Network &Model…"), this);
  networkModelAct_->setShortcut(QKeySequence(tr("Ctrl+M")));
  networkModelAct_->setStatusTip(tr("LogGPS, LogGP or LogGPO parameters, presets, files and the cost mode"));
  connect(networkModelAct_, &QAction::triggered, this, &MainWindow::editNetworkModel);
  regionAct_ = new QAction(tr("Parallel &Region…"), this);
  regionAct_->setStatusTip(tr("Choose the state or region whose executions are the parallel steps"));
  connect(regionAct_, &QAction::triggered, this, &MainWindow::chooseParallelRegion);

  modelGroup_ = new QActionGroup(this);
  for (const auto& name : networkPresetNames()) {
    auto* a = new QAction(QString::fromStdString(name), this);
    a->setCheckable(true);
    a->setData(QString::fromStdString(name));
    modelGroup_->addAction(a);
    connect(a, &QAction::triggered, this, [this, name] {
      session_->setNetwork(std::shared_ptr<const NetworkModel>(networkPreset(name)), session_->document()->costs());
    });
  }
  costGroup_ = new QActionGroup(this);
  const std::pair<CostMode, QString> costs[2] = {{CostMode::Measured, tr("Measured Local Costs")},
                                                 {CostMode::Model, tr("Model Local Costs")}};
  for (const auto& [mode, text] : costs) {
    auto* a = new QAction(text, this);
    a->setCheckable(true);
    a->setData(static_cast<int>(mode));
    costGroup_->addAction(a);
    connect(a, &QAction::triggered, this,
            [this, mode = mode] { session_->setNetwork(session_->document()->model(), mode); });
  }
}

void MainWindow::createMenus() {
  fileMenu_ = menuBar()->addMenu(tr("&File"));
  fileMenu_->setObjectName(QStringLiteral("fileMenu"));
  fileMenu_->addAction(openAct_);
  recentMenu_ = fileMenu_->addMenu(tr("Open &Recent"));
  fileMenu_->addAction(compareAct_);
  fileMenu_->addSeparator();
  fileMenu_->addAction(openSessionAct_);
  fileMenu_->addAction(saveSessionAct_);
  fileMenu_->addAction(saveSessionAsAct_);
  fileMenu_->addSeparator();
  fileMenu_->addAction(exportImageAct_);
  fileMenu_->addAction(exportTraceAct_);
  fileMenu_->addSeparator();
  fileMenu_->addAction(quitAct_);
  updateRecentMenu();

  editMenu_ = menuBar()->addMenu(tr("&Edit"));
  editMenu_->setObjectName(QStringLiteral("editMenu"));
  editMenu_->addAction(undoAct_);
  editMenu_->addAction(redoAct_);

  viewMenu_ = menuBar()->addMenu(tr("&View"));
  viewMenu_->setObjectName(QStringLiteral("viewMenu"));
  for (auto* a : modeActs_) viewMenu_->addAction(a);
  viewMenu_->addSeparator();
  viewMenu_->addAction(fitAct_);
  viewMenu_->addSeparator();
  for (QDockWidget* dock : std::initializer_list<QDockWidget*>{inspector_, hypotheses_, advisorDock_, chartsDock_,
                                                               overheadDock_, comparisonDock_, warningsDock_}) {
    // From the menu, a dock comes to the front of its tab group: shown and raised when hidden,
    // raised (not hidden) when it sits behind another tab; only a dock in front is hidden. (Its
    // own toggleViewAction would hide a dock that is behind a tab.)
    QAction* toggle = dock->toggleViewAction();
    auto* a = new QAction(toggle->text(), this);
    a->setObjectName(dock->objectName() + QStringLiteral("Action"));
    a->setCheckable(true);
    a->setChecked(toggle->isChecked());
    connect(toggle, &QAction::toggled, a, &QAction::setChecked);
    connect(a, &QAction::triggered, dock, [this, dock, a] {
      bool behind = false;
      if (!dock->isHidden() && !tabifiedDockWidgets(dock).isEmpty())
        for (QTabBar* bar : findChildren<QTabBar*>())
          for (int i = 0; i < bar->count(); ++i)
            if (bar->tabText(i) == dock->windowTitle() && bar->currentIndex() != i) behind = true;
      if (dock->isHidden() || behind) {
        dock->show();
        dock->raise();
      } else {
        dock->hide();
      }
      a->setChecked(!dock->isHidden());  // trigger() flipped it before this ran
    });
    viewMenu_->addAction(a);
  }

  predictionMenu_ = menuBar()->addMenu(tr("&Prediction"));
  predictionMenu_->setObjectName(QStringLiteral("predictionMenu"));
  predictionMenu_->addAction(zeroWaitAct_);
  predictionMenu_->addAction(zeroEventAct_);
  predictionMenu_->addAction(zeroComputationAct_);
  predictionMenu_->addAction(balanceComputeAct_);
  predictionMenu_->addAction(balanceVolumeAct_);
  predictionMenu_->addAction(compensateAct_);
  predictionMenu_->addSeparator();
  predictionMenu_->addAction(runAdvisorAct_);
  auto* again = predictionMenu_->addAction(tr("Predict A&gain"));
  again->setObjectName(QStringLiteral("predictAgain"));
  again->setShortcut(QKeySequence(Qt::Key_F5));
  again->setStatusTip(tr("Predict the current scenario again (after a cancelled prediction)"));
  connect(again, &QAction::triggered, session_, &AnalysisSession::predictAgain);
  predictionMenu_->addSeparator();
  predictionMenu_->addAction(networkModelAct_);
  predictionMenu_->addAction(regionAct_);
  auto* models = predictionMenu_->addMenu(tr("Network Model &Presets"));
  models->addActions(modelGroup_->actions());
  auto* costs = predictionMenu_->addMenu(tr("&Cost Mode"));
  costs->addActions(costGroup_->actions());

  helpMenu_ = menuBar()->addMenu(tr("&Help"));
  helpMenu_->setObjectName(QStringLiteral("helpMenu"));
  auto* keys = helpMenu_->addAction(tr("&Keyboard and Mouse"), this, [this] {
    auto* box = new QMessageBox(QMessageBox::Information, tr("Keyboard and Mouse"),
                                tr("<table cellspacing='4'>"
                                   "<tr><td><b>Click</b></td><td>select a message arrow, an MPI call or a step band</td></tr>"
                                   "<tr><td><b>Z</b></td><td>zero the wait (of a call, or of the receive of a message)</td></tr>"
                                   "<tr><td><b>E</b></td><td>zero the selected call</td></tr>"
                                   "<tr><td><b>B / V</b></td><td>balance the step's computation / message volume</td></tr>"
                                   "<tr><td><b>P</b></td><td>go to the partner call (repeat to walk a collective)</td></tr>"
                                   "<tr><td><b>← / →</b></td><td>previous / next event on the rank</td></tr>"
                                   "<tr><td><b>↑ / ↓</b></td><td>the event at the same time on the rank above / below</td></tr>"
                                   "<tr><td><b>Esc</b></td><td>clear the selection</td></tr>"
                                   "<tr><td><b>Wheel, W / S</b></td><td>zoom in / out</td></tr>"
                                   "<tr><td><b>Drag, A / D</b></td><td>pan; a right drag zooms to the range</td></tr>"
                                   "<tr><td><b>F</b></td><td>fit the whole trace</td></tr>"
                                   "<tr><td><b>Ctrl+1 … 4</b></td><td>measured, predicted, overlay, lanes</td></tr>"
                                   "<tr><td><b>Ctrl+Z / Ctrl+Shift+Z</b></td><td>undo / redo a hypothesis</td></tr>"
                                   "<tr><td><b>F5</b></td><td>predict again</td></tr></table>"),
                                QMessageBox::Ok, this);
    box->setObjectName(QStringLiteral("keyboardHelp"));
    box->setAttribute(Qt::WA_DeleteOnClose);
    box->open();
  });
  keys->setObjectName(QStringLiteral("keyboardHelp"));
  keys->setShortcut(QKeySequence::HelpContents);
  helpMenu_->addAction(tr("&About PerWiz"), this, [this] {
    QMessageBox::about(this, tr("About PerWiz"),
                       tr("<p><b>PerWiz</b> %1</p><p>What-if performance prediction for MPI traces: "
                          "how much faster would the program be if this wait, this event or this "
                          "parallel step were fixed?</p><p>After the PerWiz method of Ino et al. "
                          "(LogGPS replay of the measured execution).</p>")
                           .arg(QCoreApplication::applicationVersion()));
  });
}

void MainWindow::createStatusBar() {
  statusText_ = new QLabel(this);
  statusText_->setObjectName(QStringLiteral("statusText"));
  progress_ = new QProgressBar(this);
  progress_->setRange(0, 100);
  progress_->setMaximumWidth(200);
  progress_->setVisible(false);
  cancelButton_ = new QToolButton(this);
  cancelButton_->setText(tr("Cancel"));
  cancelButton_->setObjectName(QStringLiteral("cancelLoad"));
  cancelButton_->setVisible(false);
  cancelButton_->setToolTip(tr("Stop loading or predicting"));
  connect(cancelButton_, &QToolButton::clicked, this, [this] {
    if (session_->isLoading()) session_->cancelLoad();
    else session_->cancelPrediction();
  });
  warningsButton_ = new QToolButton(this);
  warningsButton_->setAutoRaise(true);
  warningsButton_->setVisible(false);
  connect(warningsButton_, &QToolButton::clicked, this, [this] {
    warningsDock_->show();
    warningsDock_->raise();
  });
  // The network model and cost mode in use, always in sight (a click edits them).
  networkButton_ = new QToolButton(this);
  networkButton_->setAutoRaise(true);
  networkButton_->setObjectName(QStringLiteral("networkModel"));
  networkButton_->setToolTip(tr("The network model and cost mode of the prediction (Ctrl+M to change)"));
  connect(networkButton_, &QToolButton::clicked, this, &MainWindow::editNetworkModel);
  summary_ = new QLabel(this);
  summary_->setObjectName(QStringLiteral("predictionSummary"));
  QFont bold = summary_->font();
  bold.setBold(true);
  summary_->setFont(bold);
  statusBar()->addPermanentWidget(statusText_);
  // A temporary message ("Loaded …", "Wrote …") has the line to itself while it shows: the
  // status text would otherwise be written over its end.
  connect(statusBar(), &QStatusBar::messageChanged, statusText_,
          [this](const QString& message) { statusText_->setVisible(message.isEmpty()); });
  statusBar()->addPermanentWidget(progress_);
  statusBar()->addPermanentWidget(cancelButton_);
  statusBar()->addPermanentWidget(warningsButton_);
  statusBar()->addPermanentWidget(networkButton_);
  statusBar()->addPermanentWidget(summary_);
}

namespace {
constexpr const char* kComparisonModeKey = "view/comparisonMode";  // a TimelineMode
}  // namespace

ui::TimelineMode MainWindow::comparisonMode() {
  const int m = QSettings().value(QLatin1String(kComparisonModeKey), static_cast<int>(ui::TimelineMode::Lanes)).toInt();
  if (m == static_cast<int>(ui::TimelineMode::Overlay) || m == static_cast<int>(ui::TimelineMode::Predicted))
    return static_cast<ui::TimelineMode>(m);
  return ui::TimelineMode::Lanes;
}

void MainWindow::chooseMode(ui::TimelineMode mode) {
  setMode(mode);
  if (mode != ui::TimelineMode::Measured)
    QSettings().setValue(QLatin1String(kComparisonModeKey), static_cast<int>(mode));
}

void MainWindow::setMode(ui::TimelineMode mode) {
  timeline_->setMode(mode);
  modeActs_[static_cast<int>(mode)]->setChecked(true);
}

}  // namespace perwiz::gui
