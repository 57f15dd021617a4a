#include "main_window.h"

#include "advisor_dock.h"
#include "advisor_runner.h"
#include "charts_dock.h"
#include "network_model_dialog.h"
#include "overhead_dock.h"
#include "overhead_spans.h"
#include "region_picker_dialog.h"
#include "export_image.h"
#include "headless_export.h"
#include "hypothesis_commands.h"
#include "hypothesis_dock.h"
#include "inspector_dock.h"
#include "units.h"
#include "warnings_dock.h"

#include "perwiz/compensation.h"
#include "perwiz/trace_io.h"

#include <QAction>
#include <QActionGroup>
#include <QDialog>
#include <QDialogButtonBox>
#include <QHBoxLayout>
#include <QRadioButton>
#include <QSpinBox>
#include <QVBoxLayout>
#include <QApplication>
#include <QCloseEvent>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QFutureWatcher>
#include <QInputDialog>
#include <QLabel>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QProgressBar>
#include <QSettings>
#include <QStatusBar>
#include <QThread>
#include <QToolButton>
#include <QUndoStack>
#include <QtConcurrent/QtConcurrentRun>

namespace perwiz::gui {

namespace {
constexpr int kMaxRecent = 8;
const char* kRecentKey = "recentFiles";
}  // namespace

MainWindow::MainWindow(QWidget* parent) : QMainWindow(parent) {
  setObjectName(QStringLiteral("perwizMainWindow"));
  setWindowIcon(QIcon(QStringLiteral(":/icons/perwiz.svg")));
  setAcceptDrops(true);
  resize(1400, 860);

  timeline_ = new ui::TimelineView(this);
  timeline_->setObjectName(QStringLiteral("timeline"));
  setCentralWidget(timeline_);

  inspector_ = new InspectorDock(this);
  hypotheses_ = new HypothesisDock(this);
  warningsDock_ = new WarningsDock(this);
  advisorDock_ = new AdvisorDock(this);
  chartsDock_ = new ChartsDock(this);
  overheadDock_ = new OverheadDock(this);
  addDockWidget(Qt::RightDockWidgetArea, inspector_);
  addDockWidget(Qt::RightDockWidgetArea, hypotheses_);
  addDockWidget(Qt::BottomDockWidgetArea, advisorDock_);
  addDockWidget(Qt::BottomDockWidgetArea, chartsDock_);
  addDockWidget(Qt::BottomDockWidgetArea, overheadDock_);
  tabifyDockWidget(advisorDock_, chartsDock_);
  tabifyDockWidget(chartsDock_, overheadDock_);
  addDockWidget(Qt::BottomDockWidgetArea, warningsDock_);
  warningsDock_->hide();
  advisorDock_->hide();
  chartsDock_->hide();
  overheadDock_->hide();
  resizeDocks({inspector_, hypotheses_}, {520, 240}, Qt::Vertical);
  resizeDocks({inspector_}, {340}, Qt::Horizontal);

  doc_ = new ScenarioDocument(this);
  undo_ = new QUndoStack(this);
  loader_ = new TraceLoader(this);

  workerThread_ = new QThread(this);
  workerThread_->setObjectName(QStringLiteral("perwiz-prediction"));
  worker_ = new PredictionWorker;
  worker_->moveToThread(workerThread_);
  connect(workerThread_, &QThread::finished, worker_, &QObject::deleteLater);
  workerThread_->start();
  advisor_ = new AdvisorRunner(worker_, this);

  createActions();
  createMenus();
  createStatusBar();
  connectParts();
  onDocumentChanged();
  inspector_->show(nullptr, {}, nullptr);
  updateTitle();
}

MainWindow::~MainWindow() {
  // Child objects outlive this destructor's body (QObject deletes them later); the undo stack
  // emits indexChanged while it is cleared, which must not reach the half-destroyed window.
  disconnect(undo_, nullptr, this, nullptr);
  loader_->cancel();
  advisor_->cancel();
  advisor_->wait();  // it works on a fork of the worker's replayer
  workerThread_->quit();
  workerThread_->wait();
}

// ---------------------------------------------------------------------------------------------
// Construction

void MainWindow::createActions() {
  openAct_ = new QAction(tr("&Open Trace…"), this);
  openAct_->setShortcut(QKeySequence::Open);
  openAct_->setStatusTip(tr("Open an ALOG or OTF2 trace"));
  connect(openAct_, &QAction::triggered, this, &MainWindow::openDialog);

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

  undoAct_ = undo_->createUndoAction(this, tr("&Undo"));
  undoAct_->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_Z));
  redoAct_ = undo_->createRedoAction(this, tr("&Redo"));
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
    connect(modeActs_[i], &QAction::triggered, this, [this, mode] { setMode(mode); });
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
      if (!requestHypothesis(kind, timeline_->selection(), &why)) statusBar()->showMessage(why, 6000);
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
    if (!requestZeroComputation(timeline_->selection(), &why)) statusBar()->showMessage(why, 6000);
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
      doc_->setModel(std::shared_ptr<const NetworkModel>(networkPreset(name)));
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
    connect(a, &QAction::triggered, this, [this, mode = mode] { doc_->setCosts(mode); });
  }
}

void MainWindow::createMenus() {
  fileMenu_ = menuBar()->addMenu(tr("&File"));
  fileMenu_->setObjectName(QStringLiteral("fileMenu"));
  fileMenu_->addAction(openAct_);
  recentMenu_ = fileMenu_->addMenu(tr("Open &Recent"));
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
  viewMenu_->addAction(inspector_->toggleViewAction());
  viewMenu_->addAction(hypotheses_->toggleViewAction());
  viewMenu_->addAction(advisorDock_->toggleViewAction());
  viewMenu_->addAction(chartsDock_->toggleViewAction());
  viewMenu_->addAction(overheadDock_->toggleViewAction());
  viewMenu_->addAction(warningsDock_->toggleViewAction());

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
  predictionMenu_->addSeparator();
  predictionMenu_->addAction(networkModelAct_);
  predictionMenu_->addAction(regionAct_);
  auto* models = predictionMenu_->addMenu(tr("Network Model &Presets"));
  models->addActions(modelGroup_->actions());
  auto* costs = predictionMenu_->addMenu(tr("&Cost Mode"));
  costs->addActions(costGroup_->actions());

  helpMenu_ = menuBar()->addMenu(tr("&Help"));
  helpMenu_->setObjectName(QStringLiteral("helpMenu"));
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
  progress_ = new QProgressBar(this);
  progress_->setRange(0, 100);
  progress_->setMaximumWidth(200);
  progress_->setVisible(false);
  cancelButton_ = new QToolButton(this);
  cancelButton_->setText(tr("Cancel"));
  cancelButton_->setObjectName(QStringLiteral("cancelLoad"));
  cancelButton_->setVisible(false);
  connect(cancelButton_, &QToolButton::clicked, loader_, &TraceLoader::cancel);
  warningsButton_ = new QToolButton(this);
  warningsButton_->setAutoRaise(true);
  warningsButton_->setVisible(false);
  connect(warningsButton_, &QToolButton::clicked, this, [this] {
    warningsDock_->show();
    warningsDock_->raise();
  });
  summary_ = new QLabel(this);
  summary_->setObjectName(QStringLiteral("predictionSummary"));
  QFont bold = summary_->font();
  bold.setBold(true);
  summary_->setFont(bold);
  statusBar()->addPermanentWidget(statusText_);
  statusBar()->addPermanentWidget(progress_);
  statusBar()->addPermanentWidget(cancelButton_);
  statusBar()->addPermanentWidget(warningsButton_);
  statusBar()->addPermanentWidget(summary_);
}

void MainWindow::connectParts() {
  connect(loader_, &TraceLoader::progress, progress_, &QProgressBar::setValue);
  connect(loader_, &TraceLoader::finished, this, &MainWindow::onLoadFinished);
  connect(worker_, &PredictionWorker::resultReady, this, &MainWindow::onPrediction);
  connect(worker_, &PredictionWorker::failed, this,
          [this](const QString& message) { showError(tr("Prediction failed"), message); });
  connect(doc_, &ScenarioDocument::changed, this, &MainWindow::onDocumentChanged);
  connect(timeline_, &ui::TimelineView::selectionChanged, this, &MainWindow::onSelection);
  connect(timeline_, &ui::TimelineView::hypothesisRequested, this,
          [this](HypothesisKind kind, const ui::TimelineItem& item) {
            QString why;
            if (!requestHypothesis(kind, item, &why)) statusBar()->showMessage(why, 6000);
          });
  connect(timeline_, &ui::TimelineView::contextMenuRequestedFor, this, &MainWindow::showContextMenu);
  connect(inspector_, &InspectorDock::hypothesisRequested, this,
          [this](HypothesisKind kind, const ui::TimelineItem& item) {
            QString why;
            if (!requestHypothesis(kind, item, &why)) statusBar()->showMessage(why, 6000);
          });
  connect(inspector_, &InspectorDock::zeroComputationRequested, this, [this](const ui::TimelineItem& item) {
    QString why;
    if (!requestZeroComputation(item, &why)) statusBar()->showMessage(why, 6000);
  });
  connect(hypotheses_, &HypothesisDock::enableRequested, this, [this](const Hypothesis& h, bool enabled) {
    const HypothesisEntry* e = doc_->find(h);
    if (e && e->enabled != enabled) undo_->push(new SetHypothesisEnabledCommand(doc_, h, enabled));
  });
  connect(hypotheses_, &HypothesisDock::removeRequested, this, [this](const Hypothesis& h) {
    if (const HypothesisEntry* e = doc_->find(h)) undo_->push(new RemoveHypothesisCommand(doc_, *e));
  });
  connect(advisorDock_, &AdvisorDock::runRequested, this, &MainWindow::runAdvisor);
  connect(advisorDock_, &AdvisorDock::cancelRequested, this, [this] {
    advisorPending_ = false;
    advisor_->cancel();
    if (!advisor_->isRunning()) advisorDock_->setRunning(false);
  });
  connect(advisorDock_, &AdvisorDock::highlightRequested, this, &MainWindow::highlightAdvice);
  connect(advisorDock_, &AdvisorDock::applyRequested, this, [this](const std::vector<Hypothesis>& hs) {
    QStringList refused;
    const int added = applyHypotheses(hs, &refused);
    if (!refused.isEmpty())
      statusBar()->showMessage(refused.join(QStringLiteral("; ")), 8000);
    else if (added > 0)
      statusBar()->showMessage(tr("Added %n hypothesis(es)", nullptr, added), 4000);
  });
  connect(advisor_, &AdvisorRunner::progress, advisorDock_, &AdvisorDock::setProgress);
  connect(chartsDock_, &ChartsDock::stepClicked, this, &MainWindow::showStep);
  connect(overheadDock_, &OverheadDock::highlightRequested, this, &MainWindow::highlightAdvice);
  connect(overheadDock_, &OverheadDock::analysisFinished, this, [this] {
    inspector_->setOverhead(overheadDock_->analysis());
    inspector_->show(trace_.get(), inspector_->item(), prediction_);
  });
  connect(overheadDock_, &OverheadDock::timelineShadingChanged, this, [this](bool show) {
    const auto analysis = overheadDock_->analysis();
    if (show && analysis && trace_) timeline_->setMarkedTime(overheadSpans(*trace_, *analysis), tr("overhead"));
    else timeline_->setMarkedTime({}, QString());
  });
  connect(chartsDock_, &ChartsDock::rankClicked, this, [this](int rank) {
    if (!trace_ || rank < 0 || static_cast<std::uint32_t>(rank) >= trace_->rankCount() ||
        trace_->ranks[rank].size() == 0)
      return;
    ui::TimelineItem it;
    it.kind = ui::TimelineItem::Kind::Event;
    it.rank = static_cast<std::uint32_t>(rank);
    it.event = static_cast<std::uint32_t>(trace_->ranks[rank].size() - 1);  // its last event
    timeline_->setSelection(it);
    timeline_->scrollTo(it);
    onSelection(it);
  });
  // A history bar takes the scenario back (or forward) to that state, through the undo stack.
  connect(chartsDock_, &ChartsDock::historyClicked, undo_, &QUndoStack::setIndex);
  connect(undo_, &QUndoStack::indexChanged, this, [this] { updateHistoryChart(); });
  connect(advisor_, &AdvisorRunner::updated, this, &MainWindow::onAdvisorOutcome);
  connect(hypotheses_, &HypothesisDock::activated, this, [this](const Hypothesis& h) {
    if (!trace_) return;
    ui::TimelineItem item;
    if (h.kind == HypothesisKind::Compensate) return;  // the whole trace: nothing to select
    if (h.kind == HypothesisKind::BalanceCompute || h.kind == HypothesisKind::BalanceVolume) {
      item.kind = ui::TimelineItem::Kind::Step;
      item.step = h.step;
    } else if (h.event.rank < trace_->rankCount()) {
      const auto& calls = trace_->ranks[h.event.rank].mpiCalls;
      if (calls.empty()) return;
      item.kind = ui::TimelineItem::Kind::Event;
      item.rank = h.event.rank;
      item.event = calls[std::min<std::size_t>(h.event.index, calls.size() - 1)];
    }
    timeline_->setSelection(item);
    onSelection(item);
  });
}

// ---------------------------------------------------------------------------------------------
// Loading

void MainWindow::openTrace(const QString& path) {
  statusBar()->showMessage(tr("Loading %1…").arg(QDir::toNativeSeparators(path)));
  progress_->setValue(0);
  progress_->setVisible(true);
  cancelButton_->setVisible(true);
  loader_->start(path);
}

bool MainWindow::isLoading() const { return loader_->isLoading(); }

void MainWindow::onLoadFinished(const LoadResult& result) {
  progress_->setVisible(false);
  cancelButton_->setVisible(false);
  if (result.cancelled) {
    pendingSession_.reset();
    statusBar()->showMessage(tr("Loading cancelled"), 5000);
    return;
  }
  if (!result.trace) {
    pendingSession_.reset();
    statusBar()->clearMessage();
    showError(tr("Cannot open trace"), result.error);
    emit loadFailed(result.error);
    return;
  }
  advisor_->cancel();
  advisorPending_ = false;
  advisorDock_->setRunning(false);
  advisorDock_->clear();
  chartsDock_->clear();
  history_.clear();
  timeline_->setHighlighted({});
  trace_ = result.trace;
  region_.clear();
  tracePath_ = QFileInfo(result.path).absoluteFilePath();
  prediction_.reset();
  timeline_->setPrediction(nullptr);
  timeline_->setWaits(nullptr);
  timeline_->setTrace(trace_);
  overheadDock_->setTrace(trace_);
  inspector_->setOverhead(nullptr);
  undo_->clear();
  resettingDocument_ = true;
  doc_->setEntries({});
  sessionPath_.clear();
  if (pendingSession_) {
    const SessionData session = *pendingSession_;
    pendingSession_.reset();
    applySession(session);
  }
  resettingDocument_ = false;
  onDocumentChanged();

  const auto warnings = trace_->warnings.size();
  warningsDock_->setWarnings(trace_->warnings, {});
  warningsButton_->setText(tr("%n warning(s)", nullptr, static_cast<int>(warnings)));
  warningsButton_->setVisible(warnings > 0);
  warningsButton_->setToolTip(tr("Show the reader's warnings"));
  if (warnings == 0) warningsDock_->hide();
  addRecent(tracePath_);
  updateTitle();
  inspector_->show(trace_.get(), timeline_->selection(), nullptr);
  statusBar()->showMessage(tr("Loaded %1: %2 ranks, %3 events").arg(QFileInfo(tracePath_).fileName())
                               .arg(trace_->rankCount())
                               .arg(trace_->eventCount()),
                           5000);
  emit traceLoaded();
}

// ---------------------------------------------------------------------------------------------
// Prediction

void MainWindow::onDocumentChanged() {
  hypotheses_->showDocument(*doc_);
  const QString modelName = QString::fromStdString(doc_->model()->name());
  for (auto* a : modelGroup_->actions()) a->setChecked(a->data().toString() == modelName);
  for (auto* a : costGroup_->actions()) a->setChecked(a->data().toInt() == static_cast<int>(doc_->costs()));
  // The history's values mean "T under this model and cost mode": a change forgets them.
  if (doc_->model() != historyModel_ || doc_->costs() != historyCosts_) {
    history_.forgetValues();
    historyModel_ = doc_->model();
    historyCosts_ = doc_->costs();
  }
  if (!resettingDocument_) requestPrediction();
  if (const auto o = advisorDock_->outcome()) advisorDock_->setStale(o->generation != requestedGeneration_);
}

void MainWindow::requestPrediction() {
  if (!trace_) return;
  PredictionRequest r;
  r.trace = trace_;
  r.model = doc_->model();
  r.costs = doc_->costs();
  r.hypotheses = doc_->enabledHypotheses();
  r.generation = ++requestedGeneration_;
  statusText_->setText(tr("Predicting…"));
  worker_->request(std::move(r));
}

void MainWindow::onPrediction(const std::shared_ptr<const PredictionResult>& result) {
  if (!result || result->trace != trace_) return;  // from a trace no longer shown
  prediction_ = result;
  timeline_->setPrediction(result->times);
  timeline_->setWaits(result->waits);
  summary_->setText(predictionSummary(result->measuredTime, result->predictedTime));
  summary_->setToolTip(result->notes.join(QLatin1Char('\n')));
  hypotheses_->setRejected(result->rejected, result->errors);
  if (!result->notes.isEmpty() || !trace_->warnings.empty())
    warningsDock_->setWarnings(trace_->warnings, result->notes);
  inspector_->show(trace_.get(), inspector_->item(), prediction_);
  if (isPredictionCurrent()) {
    const QString took = formatDuration(static_cast<TimeNs>(result->seconds * 1e9));
    statusText_->setText(result->full ? tr("Full replay in %1").arg(took)
                                      : tr("Updated %1 events in %2").arg(result->recomputed).arg(took));
  }
  if (!result->errors.isEmpty()) statusBar()->showMessage(result->errors.join(QStringLiteral("; ")), 8000);
  if (isPredictionCurrent()) {
    updateHistoryChart();  // the states first, then this one's value
    history_.record(undo_->index(), result->predictedTime);
    updateHistoryChart();
    chartsDock_->setRankEnds(result->measuredEnd, result->predictedEnd);
    if (result->stepSigmaNs && !(advisorDock_->outcome() && advisorDock_->outcome()->hasSteps))
      chartsDock_->setStepSigmas(*result->stepSigmaNs);
  }
  if (advisorPending_ && isPredictionCurrent()) {
    advisorPending_ = false;
    advisor_->start(requestedGeneration_, trace_);
  }
  emit predictionUpdated();
}

// ---------------------------------------------------------------------------------------------
// Advisor

void MainWindow::runAdvisor() {
  if (!trace_) {
    statusBar()->showMessage(tr("No trace loaded"), 4000);
    return;
  }
  advisorDock_->show();
  advisorDock_->raise();
  advisorDock_->setRunning(true);
  if (isPredictionCurrent()) {
    advisorPending_ = false;
    advisor_->start(requestedGeneration_, trace_);
  } else {
    advisorPending_ = true;  // starts from the scenario being predicted now
    advisorDock_->setProgress(0, tr("waiting for the prediction"));
  }
}

void MainWindow::onAdvisorOutcome(const std::shared_ptr<const AdvisorOutcome>& outcome) {
  if (!outcome || outcome->trace != trace_) return;
  if (outcome->finished) advisorDock_->setRunning(false);
  advisorDock_->showOutcome(outcome);
  advisorDock_->setStale(outcome->generation != requestedGeneration_);
  if (outcome->hasSteps) chartsDock_->setSteps(outcome->steps, static_cast<double>(outcome->baseNs));
  emit advisorUpdated();
}

void MainWindow::editNetworkModel() {
  NetworkModelDialog dialog(doc_->model(), doc_->costs(), this);
  if (dialog.exec() != QDialog::Accepted) return;
  QString error;
  auto model = dialog.model(&error);
  if (!model) {
    showError(tr("Network Model"), error);
    return;
  }
  doc_->setModel(model);
  doc_->setCosts(dialog.costMode());
}

void MainWindow::chooseParallelRegion() {
  if (!trace_) return;
  RegionPickerDialog dialog(*trace_, this);
  if (dialog.exec() != QDialog::Accepted || dialog.chosenName().isEmpty()) return;
  QString error;
  if (!setParallelRegion(dialog.chosenName(), &error)) showError(tr("Parallel Region"), error);
}

bool MainWindow::setParallelRegion(const QString& name, QString* error) {
  if (!trace_) {
    if (error) *error = tr("No trace loaded");
    return false;
  }
  auto t = withParallelRegion(*trace_, name.toStdString(), error);
  if (!t) return false;
  const TimeNs begin = timeline_->visibleBegin(), end = timeline_->visibleEnd();
  advisor_->cancel();
  advisorPending_ = false;
  advisorDock_->setRunning(false);
  advisorDock_->clear();
  prediction_.reset();
  trace_ = std::move(t);
  region_ = name;
  timeline_->setPrediction(nullptr);
  timeline_->setWaits(nullptr);
  timeline_->setTrace(trace_);
  if (end > begin) timeline_->setVisibleRange(begin, end);
  history_.forgetValues();
  inspector_->show(trace_.get(), {}, nullptr);
  statusBar()->showMessage(tr("Parallel region '%1': %n step(s)", nullptr, static_cast<int>(trace_->steps.size())).arg(name),
                           5000);
  if (!resettingDocument_) requestPrediction();
  return true;
}

void MainWindow::updateHistoryChart() {
  QStringList labels;
  for (int i = 0; i < undo_->count(); ++i) labels << undo_->text(i);
  history_.syncStack(labels);
  QVector<ChartsDock::HistoryPoint> points;
  for (const auto& s : history_.states())
    points.push_back({s.label, s.predictedNs ? static_cast<double>(*s.predictedNs) : -1.0});
  chartsDock_->setHistory(points, undo_->index(), prediction_ ? static_cast<double>(prediction_->measuredTime) : 0.0);
}

void MainWindow::showStep(int step) {
  if (!trace_ || step < 0 || static_cast<std::size_t>(step) >= trace_->steps.size()) return;
  ui::TimelineItem it;
  it.kind = ui::TimelineItem::Kind::Step;
  it.step = static_cast<std::uint32_t>(step);
  timeline_->setSelection(it);
  timeline_->scrollTo(it);
  onSelection(it);
}

void MainWindow::highlightAdvice(const std::vector<EventRef>& events, int step) {
  if (!trace_) return;
  std::vector<ui::TimelineItem> items;
  for (const EventRef& e : events) {
    if (e.rank >= trace_->rankCount() || e.index >= trace_->ranks[e.rank].mpiCalls.size()) continue;
    ui::TimelineItem it;
    it.kind = ui::TimelineItem::Kind::Event;
    it.rank = e.rank;
    it.event = trace_->ranks[e.rank].mpiCalls[e.index];
    items.push_back(it);
  }
  timeline_->setHighlighted(items);
  if (step >= 0 && static_cast<std::size_t>(step) < trace_->steps.size()) {
    ui::TimelineItem it;
    it.kind = ui::TimelineItem::Kind::Step;
    it.step = static_cast<std::uint32_t>(step);
    timeline_->setSelection(it);
    timeline_->scrollTo(it);
    onSelection(it);
  } else if (!items.empty()) {
    timeline_->scrollTo(items.front());
  }
}

int MainWindow::applyHypotheses(const std::vector<Hypothesis>& hs, QStringList* refused) {
  // Refusals first, so that the undo stack gets one macro of real changes (or nothing).
  std::vector<Hypothesis> accepted;
  for (const Hypothesis& h : hs) {
    const QString why = refusalFor(h);
    if (why.isEmpty() && std::find(accepted.begin(), accepted.end(), h) == accepted.end())
      accepted.push_back(h);
    else if (!why.isEmpty() && refused)
      *refused << QStringLiteral("%1: %2").arg(QString::fromStdString(h.toString()), why);
  }
  if (accepted.empty()) return 0;
  if (accepted.size() > 1)
    undo_->beginMacro(tr("Apply %n hypothesis(es)", nullptr, static_cast<int>(accepted.size())));
  for (const Hypothesis& h : accepted) pushHypothesis(h, nullptr);
  if (accepted.size() > 1) undo_->endMacro();
  return static_cast<int>(accepted.size());
}

bool MainWindow::isPredictionCurrent() const {
  return prediction_ && prediction_->generation == requestedGeneration_;
}
TimeNs MainWindow::predictedTimeShown() const { return prediction_ ? prediction_->predictedTime : -1; }
TimeNs MainWindow::measuredTimeShown() const { return prediction_ ? prediction_->measuredTime : -1; }
QString MainWindow::summaryText() const { return summary_->text(); }

void MainWindow::onSelection(const ui::TimelineItem& item) {
  inspector_->show(trace_.get(), item, prediction_);
  const bool event = trace_ && item.kind == ui::TimelineItem::Kind::Event;
  const bool mpi = event && mpiIndexOf(*trace_, item.rank, item.event) >= 0;
  const bool step = trace_ && (item.kind == ui::TimelineItem::Kind::Step ||
                               (event && stepOf(*trace_, item.rank, item.event) >= 0));
  zeroWaitAct_->setEnabled(mpi);
  zeroEventAct_->setEnabled(mpi);
  zeroComputationAct_->setEnabled(mpi);
  balanceComputeAct_->setEnabled(step);
  balanceVolumeAct_->setEnabled(step);
}

bool MainWindow::requestHypothesis(HypothesisKind kind, const ui::TimelineItem& item, QString* why) {
  auto fail = [&](const QString& text) {
    if (why) *why = text;
    return false;
  };
  if (!trace_) return fail(tr("No trace loaded"));
  Hypothesis h;
  h.kind = kind;
  if (h.targetsEvent()) {
    const int mpi = item.kind == ui::TimelineItem::Kind::Event ? mpiIndexOf(*trace_, item.rank, item.event) : -1;
    if (mpi < 0) return fail(tr("Select an MPI call first"));
    h.event = EventRef{item.rank, static_cast<std::uint32_t>(mpi), false};
  } else {
    int step = -1;
    if (item.kind == ui::TimelineItem::Kind::Step)
      step = static_cast<int>(item.step);
    else if (item.kind == ui::TimelineItem::Kind::Event)
      step = stepOf(*trace_, item.rank, item.event);
    if (step < 0) return fail(tr("Select a parallel step first"));
    h.step = static_cast<std::uint32_t>(step);
  }
  return pushHypothesis(h, why);
}

bool MainWindow::requestZeroComputation(const ui::TimelineItem& item, QString* why) {
  const int mpi = trace_ && item.kind == ui::TimelineItem::Kind::Event ? mpiIndexOf(*trace_, item.rank, item.event) : -1;
  if (mpi < 0) {
    if (why) *why = trace_ ? tr("Select an MPI call first") : tr("No trace loaded");
    return false;
  }
  Hypothesis h;
  h.kind = HypothesisKind::ZeroEvent;
  h.event = EventRef{item.rank, static_cast<std::uint32_t>(mpi), true};
  return pushHypothesis(h, why);
}

QString MainWindow::refusalFor(const Hypothesis& h) const {
  if (worker_->hasReplayer()) {
    const std::string problem = worker_->validate(h);
    if (!problem.empty()) return QString::fromStdString(problem);
  }
  if (const HypothesisEntry* e = doc_->find(h); e && e->enabled)
    return tr("%1 is already applied").arg(QString::fromStdString(h.toString()));
  return {};
}

bool MainWindow::requestCompensation(std::int64_t overheadNsPerEvent, QString* why) {
  const Hypothesis h = overheadNsPerEvent == kOverheadFromTrace ? Hypothesis::compensateFromTrace()
                                                                : Hypothesis::compensate(overheadNsPerEvent);
  // A scenario holds one compensation: a new value replaces the applied one (one undo step).
  const HypothesisEntry* old = nullptr;
  for (const HypothesisEntry& e : doc_->entries())
    if (e.hypothesis.kind == HypothesisKind::Compensate && e.enabled) old = &e;
  if (old && old->hypothesis == h) {
    if (why) *why = tr("%1 is already applied").arg(QString::fromStdString(h.toString()));
    return false;
  }
  if (!old) return pushHypothesis(h, why);
  // Check the value before touching the undo stack (the replacement must not fail half-way).
  std::string problem;
  if (compensationOverhead(*trace_, h.overheadNs, &problem).empty()) {
    if (why) *why = QString::fromStdString(problem);
    return false;
  }
  // The worker still holds the old compensation until the change reaches it, so its validate()
  // would see two: the value was checked above, push the pair directly.
  const HypothesisEntry previous = *old;
  undo_->beginMacro(tr("Compensate"));
  undo_->push(new RemoveHypothesisCommand(doc_, previous));
  if (doc_->find(h)) undo_->push(new SetHypothesisEnabledCommand(doc_, h, true));
  else undo_->push(new AddHypothesisCommand(doc_, h));
  undo_->endMacro();
  if (timeline_->mode() == ui::TimelineMode::Measured) setMode(ui::TimelineMode::Overlay);
  return true;
}

void MainWindow::compensationDialog() {
  if (!trace_) return;
  TimeNs recorded = -1;  // per record, when every rank has it
  for (std::uint32_t r = 0; r < trace_->rankCount(); ++r) {
    const TimeNs o = recordedEventOverhead(*trace_, r);
    if (o < 0) {
      recorded = -1;
      break;
    }
    recorded = std::max(recorded, o);
  }
  QDialog d(this);
  d.setWindowTitle(tr("Compensate Measurement Overhead"));
  auto* layout = new QVBoxLayout(&d);
  auto* text = new QLabel(tr("Every traced event cost the program some time for its measurement. Compensation "
                             "removes it from every rank and propagates the delays along messages and "
                             "collectives (Malony et al.), giving the uninstrumented run."),
                          &d);
  text->setWordWrap(true);
  layout->addWidget(text);
  auto* fromTrace = new QRadioButton(recorded >= 0 ? tr("Overhead recorded by the tracer (%1 per record)").arg(formatDuration(recorded))
                                                   : tr("Overhead recorded by the tracer (this trace has none)"),
                                     &d);
  fromTrace->setEnabled(recorded >= 0);
  auto* given = new QRadioButton(tr("Overhead per event:"), &d);
  auto* ns = new QSpinBox(&d);
  ns->setRange(0, 100000000);
  ns->setSuffix(tr(" ns"));
  ns->setValue(recorded >= 0 ? int(2 * recorded) : 500);
  auto* row = new QHBoxLayout;
  row->addWidget(given);
  row->addWidget(ns);
  row->addStretch(1);
  layout->addWidget(fromTrace);
  layout->addLayout(row);
  (recorded >= 0 ? fromTrace : given)->setChecked(true);
  connect(given, &QRadioButton::toggled, ns, &QWidget::setEnabled);
  ns->setEnabled(given->isChecked());
  auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, &d);
  connect(buttons, &QDialogButtonBox::accepted, &d, &QDialog::accept);
  connect(buttons, &QDialogButtonBox::rejected, &d, &QDialog::reject);
  layout->addWidget(buttons);
  if (d.exec() != QDialog::Accepted) return;
  QString why;
  if (!requestCompensation(fromTrace->isChecked() ? kOverheadFromTrace : std::int64_t(ns->value()), &why))
    statusBar()->showMessage(why, 8000);
}

bool MainWindow::pushHypothesis(const Hypothesis& h, QString* why) {
  if (const QString problem = refusalFor(h); !problem.isEmpty()) {
    if (why) *why = problem;
    return false;
  }
  if (doc_->find(h)) {
    undo_->push(new SetHypothesisEnabledCommand(doc_, h, true));
  } else {
    undo_->push(new AddHypothesisCommand(doc_, h));
  }
  if (timeline_->mode() == ui::TimelineMode::Measured) setMode(ui::TimelineMode::Overlay);
  return true;
}

void MainWindow::setMode(ui::TimelineMode mode) {
  timeline_->setMode(mode);
  modeActs_[static_cast<int>(mode)]->setChecked(true);
}

void MainWindow::showContextMenu(const ui::TimelineItem& item, const QPoint& globalPos) {
  if (!trace_) return;
  if (item.kind != ui::TimelineItem::Kind::None && !(item == timeline_->selection())) {
    timeline_->setSelection(item);
    onSelection(item);
  }
  QMenu menu(this);
  menu.addAction(zeroWaitAct_);
  menu.addAction(zeroEventAct_);
  menu.addAction(zeroComputationAct_);
  menu.addSeparator();
  menu.addAction(balanceComputeAct_);
  menu.addAction(balanceVolumeAct_);
  menu.addSeparator();
  menu.addAction(fitAct_);
  menu.exec(globalPos);
}

// ---------------------------------------------------------------------------------------------
// Files

void MainWindow::openDialog() {
  const QString dir = tracePath_.isEmpty() ? QString() : QFileInfo(tracePath_).absolutePath();
  const QString path = QFileDialog::getOpenFileName(
      this, tr("Open Trace"), dir,
      tr("Traces (*.alog *.log *.otf *.otf2);;PerWiz sessions (*.perwiz);;All files (*)"));
  if (path.isEmpty()) return;
  if (path.endsWith(QLatin1String(".perwiz"), Qt::CaseInsensitive))
    openSession(path);
  else
    openTrace(path);
}

void MainWindow::openSessionDialog() {
  const QString path = QFileDialog::getOpenFileName(this, tr("Open Session"), QString(),
                                                    tr("PerWiz sessions (*.perwiz);;All files (*)"));
  if (!path.isEmpty()) openSession(path);
}

void MainWindow::openSession(const QString& path) {
  SessionData data;
  QString error;
  if (!loadSession(path, data, &error)) {
    showError(tr("Cannot open session"), error);
    return;
  }
  pendingSession_ = data;
  pendingSessionPath_ = QFileInfo(path).absoluteFilePath();  // remembered once the trace loads
  openTrace(data.trace);
}

void MainWindow::applySession(const SessionData& session) {
  if (!session.region.isEmpty()) {
    QString error;
    if (!setParallelRegion(session.region, &error)) showError(tr("Cannot open session"), error);
  }
  doc_->setModel(session.scenario.model);
  doc_->setCosts(session.scenario.costs);
  std::vector<HypothesisEntry> entries;
  for (const auto& h : session.scenario.hypotheses)
    entries.push_back({h, !session.disabled.contains(QString::fromStdString(h.toString()))});
  doc_->setEntries(std::move(entries));
  ui::TimelineMode mode;
  if (parseViewMode(session.mode, mode)) setMode(mode);
  if (session.endNs > session.beginNs) timeline_->setVisibleRange(session.beginNs, session.endNs);
  sessionPath_ = pendingSessionPath_;
  addRecent(sessionPath_);
}

bool MainWindow::saveSessionTo(const QString& path, QString* error) {
  if (!trace_) {
    if (error) *error = tr("No trace loaded");
    return false;
  }
  SessionData data;
  data.trace = tracePath_;
  data.scenario = doc_->scenario(true);
  for (const auto& h : doc_->disabledHypotheses()) data.disabled << QString::fromStdString(h.toString());
  data.mode = viewModeName(timeline_->mode());
  data.beginNs = timeline_->visibleBegin();
  data.endNs = timeline_->visibleEnd();
  data.region = region_;
  if (!gui::saveSession(path, data, error)) return false;
  sessionPath_ = QFileInfo(path).absoluteFilePath();
  undo_->setClean();
  updateTitle();
  return true;
}

void MainWindow::saveSession() {
  if (sessionPath_.isEmpty()) {
    saveSessionAs();
    return;
  }
  QString error;
  if (!saveSessionTo(sessionPath_, &error))
    showError(tr("Cannot save session"), error);
  else
    statusBar()->showMessage(tr("Saved %1").arg(sessionPath_), 4000);
}

void MainWindow::saveSessionAs() {
  if (!trace_) return;
  QString suggestion = sessionPath_;
  if (suggestion.isEmpty()) suggestion = QFileInfo(tracePath_).absoluteDir().absoluteFilePath(
                                             QFileInfo(tracePath_).completeBaseName() + QStringLiteral(".perwiz"));
  QString path = QFileDialog::getSaveFileName(this, tr("Save Session"), suggestion,
                                              tr("PerWiz sessions (*.perwiz)"));
  if (path.isEmpty()) return;
  if (QFileInfo(path).suffix().isEmpty()) {
    path += QStringLiteral(".perwiz");
    if (QFileInfo::exists(path) &&
        QMessageBox::question(this, tr("Save Session"), tr("%1 already exists. Replace it?").arg(path)) !=
            QMessageBox::Yes)
      return;
  }
  QString error;
  if (!saveSessionTo(path, &error))
    showError(tr("Cannot save session"), error);
  else
    statusBar()->showMessage(tr("Saved %1").arg(path), 4000);
}

void MainWindow::exportImageDialog() {
  if (!trace_) return;
  bool ok = false;
  const QStringList ranges = {tr("Whole trace"), tr("Current view")};
  const QString range = QInputDialog::getItem(this, tr("Export Image"), tr("Range:"), ranges, 0, false, &ok);
  if (!ok) return;
  QString selectedFilter;
  const QString pngFilter = tr("PNG image (*.png)"), svgFilter = tr("SVG image (*.svg)"),
                pdfFilter = tr("PDF document (*.pdf)");
  QString path = QFileDialog::getSaveFileName(
      this, tr("Export Image"),
      QFileInfo(tracePath_).absoluteDir().absoluteFilePath(QFileInfo(tracePath_).completeBaseName() +
                                                           QStringLiteral(".png")),
      pngFilter + QStringLiteral(";;") + svgFilter + QStringLiteral(";;") + pdfFilter, &selectedFilter);
  if (path.isEmpty()) return;
  if (imageFormatFor(path) == ImageFormat::Unknown) {
    path += selectedFilter == svgFilter ? QStringLiteral(".svg")
            : selectedFilter == pdfFilter ? QStringLiteral(".pdf")
                                          : QStringLiteral(".png");
    if (QFileInfo::exists(path) &&
        QMessageBox::question(this, tr("Export Image"), tr("%1 already exists. Replace it?").arg(path)) !=
            QMessageBox::Yes)
      return;
  }
  ui::TimelineExportOptions options;
  options.wholeTrace = range == ranges[0];
  options.width = std::max(1600, timeline_->width());
  QString error;
  if (!exportTimelineImage(*timeline_, path, options, true, &error))
    showError(tr("Cannot export image"), error);
  else
    statusBar()->showMessage(tr("Exported %1").arg(path), 4000);
}

void MainWindow::exportPredictedTraceDialog() {
  if (!trace_ || !worker_->hasReplayer()) return;
  const QString suggestion = QFileInfo(tracePath_).absoluteDir().absoluteFilePath(
      QFileInfo(tracePath_).completeBaseName() + QStringLiteral("-predicted.alog"));
  const QString path = QFileDialog::getSaveFileName(this, tr("Export Predicted Trace"), suggestion,
                                                    tr("ALOG trace (*.alog);;OTF trace (*.otf);;OTF2 archive (*.otf2)"), nullptr,
                                                    QFileDialog::DontConfirmOverwrite);
  if (path.isEmpty()) return;
  if (QFileInfo::exists(path)) {
    QMessageBox::warning(this, tr("Export Predicted Trace"),
                         tr("%1 already exists. PerWiz never overwrites a trace; choose another name.").arg(path));
    return;
  }
  statusText_->setText(tr("Writing the predicted trace…"));
  auto* watcher = new QFutureWatcher<QString>(this);
  connect(watcher, &QFutureWatcher<QString>::finished, this, [this, watcher, path] {
    const QString error = watcher->result();
    watcher->deleteLater();
    statusText_->clear();
    if (!error.isEmpty())
      showError(tr("Cannot export the predicted trace"), error);
    else
      statusBar()->showMessage(tr("Wrote %1").arg(path), 5000);
  });
  PredictionWorker* worker = worker_;
  watcher->setFuture(QtConcurrent::run([worker, path]() -> QString {
    try {
      const Trace predicted = worker->predictedTrace();
      saveTrace(predicted, path.toStdString());
      return {};
    } catch (const std::exception& e) {
      return QString::fromStdString(e.what());
    }
  }));
}

// ---------------------------------------------------------------------------------------------
// Recent files, title, errors, drag and drop

void MainWindow::addRecent(const QString& path) {
  QSettings settings;
  QStringList files = settings.value(QLatin1String(kRecentKey)).toStringList();
  files.removeAll(path);
  files.prepend(path);
  while (files.size() > kMaxRecent) files.removeLast();
  settings.setValue(QLatin1String(kRecentKey), files);
  updateRecentMenu();
}

void MainWindow::updateRecentMenu() {
  recentMenu_->clear();
  const QStringList files = QSettings().value(QLatin1String(kRecentKey)).toStringList();
  for (const QString& f : files) {
    auto* a = recentMenu_->addAction(QFileInfo(f).fileName());
    a->setToolTip(f);
    a->setStatusTip(f);
    connect(a, &QAction::triggered, this, [this, f] {
      if (f.endsWith(QLatin1String(".perwiz"), Qt::CaseInsensitive))
        openSession(f);
      else
        openTrace(f);
    });
  }
  recentMenu_->setEnabled(!files.isEmpty());
  if (!files.isEmpty()) {
    recentMenu_->addSeparator();
    recentMenu_->addAction(tr("Clear Recent Files"), this, [this] {
      QSettings().remove(QLatin1String(kRecentKey));
      updateRecentMenu();
    });
  }
}

void MainWindow::updateTitle() {
  if (tracePath_.isEmpty())
    setWindowTitle(tr("PerWiz"));
  else
    setWindowTitle(tr("%1 — PerWiz").arg(QFileInfo(tracePath_).fileName()));
}

void MainWindow::showError(const QString& title, const QString& message) {
  lastError_ = message;
  auto* box = new QMessageBox(QMessageBox::Warning, title, message, QMessageBox::Ok, this);
  box->setAttribute(Qt::WA_DeleteOnClose);
  box->setObjectName(QStringLiteral("errorMessage"));
  box->open();
}

void MainWindow::dragEnterEvent(QDragEnterEvent* event) {
  const auto urls = event->mimeData()->urls();
  if (!urls.isEmpty() && urls.first().isLocalFile()) event->acceptProposedAction();
}

void MainWindow::dropEvent(QDropEvent* event) {
  const auto urls = event->mimeData()->urls();
  if (urls.isEmpty() || !urls.first().isLocalFile()) return;
  const QString path = urls.first().toLocalFile();
  if (path.endsWith(QLatin1String(".perwiz"), Qt::CaseInsensitive))
    openSession(path);
  else
    openTrace(path);
  event->acceptProposedAction();
}

void MainWindow::closeEvent(QCloseEvent* event) {
  loader_->cancel();
  event->accept();
}

}  // namespace perwiz::gui
