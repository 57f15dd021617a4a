#include "main_window.h"

#include "analysis_session.h"

#include "advisor_dock.h"
#include "advisor_runner.h"
#include "charts_dock.h"
#include "comparison_dock.h"
#include "perwiz/widgets/timeline_mode.h"
#include "hypothesis_dock.h"
#include "inspector_dock.h"
#include "network_model_dialog.h"
#include "overhead_dock.h"
#include "overhead_spans.h"
#include "region_picker_dialog.h"
#include "units.h"
#include "warnings_dock.h"

#include <QAction>
#include <QActionGroup>
#include <QDir>
#include <QFileInfo>
#include <QLabel>
#include <QMenu>
#include <QMessageBox>
#include <QProgressBar>
#include <QStatusBar>
#include <QSplitter>
#include <QTimer>
#include <QVBoxLayout>
#include <QToolButton>
#include <QUndoStack>

namespace perwiz::gui {

MainWindow::MainWindow(QWidget* parent) : QMainWindow(parent) {
  setObjectName(QStringLiteral("perwizMainWindow"));
  setWindowIcon(QIcon(QStringLiteral(":/icons/perwiz.svg")));
  setAcceptDrops(true);
  resize(1400, 860);

  session_ = new AnalysisSession(this);
  timeline_ = new ui::TimelineView(this);
  timeline_->setObjectName(QStringLiteral("timeline"));
  // Under it, the second run of a comparison (issue #41), hidden until there is one.
  timelineB_ = new ui::TimelineView(this);
  timelineB_->setObjectName(QStringLiteral("timelineB"));
  auto* split = new QSplitter(Qt::Vertical, this);
  split->setObjectName(QStringLiteral("timelineSplit"));
  // Each run's timeline under a label naming it (shown with a comparison only).
  auto labelled = [split](QLabel*& label, QWidget* view, const char* name) {
    auto* box = new QWidget(split);
    auto* layout = new QVBoxLayout(box);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(0);
    label = new QLabel(box);
    label->setObjectName(QLatin1String(name));
    label->setStyleSheet(
        QStringLiteral("QLabel { font-weight: bold; padding: 2px 6px; background: palette(midlight); }"));
    label->hide();
    layout->addWidget(label);
    layout->addWidget(view, 1);
    split->addWidget(box);
    return box;
  };
  labelled(runLabelA_, timeline_, "runLabelA");
  timelineBox_ = labelled(runLabelB_, timelineB_, "runLabelB");
  split->setChildrenCollapsible(false);
  timelineBox_->hide();
  setCentralWidget(split);

  inspector_ = new InspectorDock(this);
  hypotheses_ = new HypothesisDock(this);
  warningsDock_ = new WarningsDock(this);
  advisorDock_ = new AdvisorDock(this);
  chartsDock_ = new ChartsDock(this);
  overheadDock_ = new OverheadDock(this);
  comparisonDock_ = new ComparisonDock(this);
  addDockWidget(Qt::RightDockWidgetArea, inspector_);
  addDockWidget(Qt::RightDockWidgetArea, hypotheses_);
  addDockWidget(Qt::BottomDockWidgetArea, advisorDock_);
  addDockWidget(Qt::BottomDockWidgetArea, chartsDock_);
  addDockWidget(Qt::BottomDockWidgetArea, overheadDock_);
  addDockWidget(Qt::BottomDockWidgetArea, comparisonDock_);
  tabifyDockWidget(advisorDock_, chartsDock_);
  tabifyDockWidget(chartsDock_, overheadDock_);
  tabifyDockWidget(overheadDock_, comparisonDock_);
  addDockWidget(Qt::BottomDockWidgetArea, warningsDock_);
  warningsDock_->hide();
  advisorDock_->hide();
  chartsDock_->hide();
  overheadDock_->hide();
  comparisonDock_->hide();
  resizeDocks({inspector_, hypotheses_}, {520, 240}, Qt::Vertical);
  resizeDocks({inspector_}, {340}, Qt::Horizontal);
  // A bottom dock shown for the first time takes 40 % of the window's height, so that the
  // advisor's paths, the charts and the overhead table are readable at the default 1400 x 860
  // (issue #40 item 8); later the user's size stays.
  for (QDockWidget* dock : {static_cast<QDockWidget*>(advisorDock_), static_cast<QDockWidget*>(chartsDock_),
                            static_cast<QDockWidget*>(overheadDock_), static_cast<QDockWidget*>(comparisonDock_)})
    connect(dock, &QDockWidget::visibilityChanged, this, [this, dock](bool visible) {
      if (!visible || dock->property("sized").toBool()) return;
      dock->setProperty("sized", true);
      QTimer::singleShot(0, this, [this, dock] {
        if (dock->isVisible() && dock->height() < height() * 2 / 5)
          resizeDocks({dock}, {height() * 2 / 5}, Qt::Vertical);
      });
    });

  createActions();
  createMenus();
  createStatusBar();
  connectParts();
  onDocumentChanged();
  inspector_->inspect(nullptr, {}, nullptr);
  updateTitle();
}

MainWindow::~MainWindow() {
  // The session outlives this destructor's body (QObject deletes children later): nothing it
  // emits while it shuts down may reach the half-destroyed window.
  disconnect(session_, nullptr, this, nullptr);
  disconnect(session_->undoStack(), nullptr, this, nullptr);
}

// ---------------------------------------------------------------------------------------------
// Wiring: requests from the views go to the session, its answers come back to the views.

void MainWindow::connectParts() {
  connectLoading();
  connectPrediction();
  connectJobs();
  connectComparison();
  connectViews();
}

// Loading a trace or a session: the progress bar, the status bar, the title.
void MainWindow::connectLoading() {
  auto* s = session_;
  connect(s, &AnalysisSession::loadStarted, this, [this](const QString& path) {
    statusBar()->showMessage(tr("Loading %1…").arg(QDir::toNativeSeparators(path)));
    progress_->setValue(0);
    progress_->setVisible(true);
    cancelButton_->setVisible(true);
  });
  connect(s, &AnalysisSession::loadProgress, progress_, &QProgressBar::setValue);
  connect(s, &AnalysisSession::loadCancelled, this, [this] {
    progress_->setVisible(false);
    cancelButton_->setVisible(false);
    statusBar()->showMessage(tr("Loading cancelled"), 5000);
  });
  connect(s, &AnalysisSession::loadFailed, this, [this](const QString& message) {
    progress_->setVisible(false);
    cancelButton_->setVisible(false);
    statusBar()->clearMessage();
    showError(tr("Cannot open trace"), message);
    emit loadFailed(message);
  });
  connect(s, &AnalysisSession::traceChanged, this, &MainWindow::onTraceChanged);
  connect(s, &AnalysisSession::traceLoaded, this, &MainWindow::onTraceLoaded);
  connect(s, &AnalysisSession::sessionViewRequested, this, &MainWindow::onSessionView);
  connect(s, &AnalysisSession::sessionOpened, this, &MainWindow::addRecent);
  connect(s, &AnalysisSession::documentChanged, this, &MainWindow::onDocumentChanged);
  connect(s, &AnalysisSession::titleChanged, this, &MainWindow::updateTitle);
  connect(s, &AnalysisSession::message, this,
          [this](const QString& text, int ms) { statusBar()->showMessage(text, ms); });
  connect(s, &AnalysisSession::error, this, &MainWindow::showError);
}

void MainWindow::onTraceLoaded() {
  const Trace& t = *session_->trace();
  inspector_->inspect(&t, timeline_->selection(), nullptr);
  const QString file = QFileInfo(session_->tracePath()).fileName();
  if (t.rankCount() == 0 && !t.threads.empty()) {
    // Nothing to predict: said where the prediction's numbers would be, and kept there.
    summary_->setText(
        tr("No MPI rank: %n thread(s) shown as measured, no prediction offered", nullptr, int(t.threads.size())));
    statusBar()->showMessage(
        tr("Loaded %1: %n thread(s) and no MPI rank (a program without MPI): PerWiz predicts MPI ranks, "
           "so the threads are shown as measured",
           nullptr, int(t.threads.size()))
            .arg(file));
  } else if (!t.threads.empty()) {
    statusBar()->showMessage(tr("Loaded %1: %2 ranks, %3 events; %n thread(s) under their ranks, shown as measured "
                                "(the prediction replays the ranks)",
                                nullptr, int(t.threads.size()))
                                 .arg(file)
                                 .arg(t.rankCount())
                                 .arg(t.eventCount()),
                             15000);
  } else {
    statusBar()->showMessage(tr("Loaded %1: %2 ranks, %3 events").arg(file).arg(t.rankCount()).arg(t.eventCount()),
                             5000);
  }
  emit traceLoaded();
}

// The prediction: pending changes, progress, the result, the history.
void MainWindow::connectPrediction() {
  auto* s = session_;
  connect(s, &AnalysisSession::predictionRequested, this, [this] {
    // A change made while a prediction runs supersedes it; until its own result arrives it is
    // shown as pending, never queued silently.
    const auto pending = session_->pendingHypotheses();
    hypotheses_->setPending(pending);
    setStatusText(pending.empty() ? tr("Predicting…")
                                  : tr("Predicting… (%n change(s) pending)", nullptr, int(pending.size())));
  });
  connect(s, &AnalysisSession::predictionProgress, this, [this](int permille, const QString& stage) {
    const bool show = permille >= 0;
    if (session_->isLoading()) return;  // the load owns the bar
    progress_->setVisible(show);
    cancelButton_->setVisible(show);
    if (!show) return;
    progress_->setValue(permille / 10);
    const auto pending = session_->pendingHypotheses();
    setStatusText(pending.empty() ? tr("%1…").arg(stage)
                                  : tr("%1… (%n change(s) pending)", nullptr, int(pending.size())).arg(stage));
  });
  connect(s, &AnalysisSession::predictionCancelled, this, [this] {
    progress_->setVisible(false);
    cancelButton_->setVisible(false);
    hypotheses_->setPending(session_->pendingHypotheses());
    setStatusText(tr("Prediction cancelled: the timeline shows the last prediction (F5 predicts again)"));
  });
  connect(s, &AnalysisSession::predictionReady, this, &MainWindow::onPrediction);
  connect(s, &AnalysisSession::predictionRefined, this, [this](const auto& r) { timeline_->setPrediction(r->times, r->drawing); });
  connect(timeline_, &ui::TimelineView::visibleRangeChanged, s, &AnalysisSession::noteViewActivity);
  connect(timeline_, &ui::TimelineView::framePainted, this, &MainWindow::onFramePainted);
  // A prediction is shown in the comparison view once there is a hypothesis (onPrediction).
  s->setColumnsSource([this] {
    const bool compare = timeline_->mode() == ui::TimelineMode::Measured && !session_->document()->entries().empty();
    return timeline_->columnView(compare ? std::optional(comparisonMode()) : std::nullopt);
  });
  connect(s, &AnalysisSession::predictionFailed, this,
          [this](const QString& message) { showError(tr("Prediction failed"), message); });
  connect(s, &AnalysisSession::historyChanged, this, &MainWindow::updateHistoryChart);
  connect(s, &AnalysisSession::hypothesisApplied, this, [this] {
    // The first hypothesis shows measured and predicted side by side (lanes, unless the user
    // chose another comparison view before: remembered across runs), with its result: one
    // frame, not a frame of the stale prediction first (onPrediction).
    if (timeline_->mode() == ui::TimelineMode::Measured) compareOnResult_ = true;
  });
}

// The session's other jobs: the advisor, the overhead analysis, the predicted trace's export.
void MainWindow::connectJobs() {
  auto* s = session_;
  connect(s, &AnalysisSession::advisorWaiting, this,
          [this] { advisorDock_->setProgress(0, tr("waiting for the prediction")); });
  connect(s, &AnalysisSession::advisorProgress, advisorDock_, &AdvisorDock::setProgress);
  connect(s, &AnalysisSession::advisorStopped, this, [this] { advisorDock_->setRunning(false); });
  connect(s, &AnalysisSession::advisorUpdated, this, &MainWindow::onAdvisorOutcome);
  connect(s, &AnalysisSession::exportFinished, this, [this](const QString& path, const QString& error) {
    setStatusText({});
    if (!error.isEmpty())
      showError(tr("Cannot export the predicted trace"), error);
    else
      statusBar()->showMessage(tr("Wrote %1").arg(path), 5000);
  });
  connect(advisorDock_, &AdvisorDock::runRequested, this, &MainWindow::runAdvisor);
  connect(advisorDock_, &AdvisorDock::cancelRequested, s, &AnalysisSession::cancelAdvisor);
  connect(advisorDock_, &AdvisorDock::highlightRequested, this, &MainWindow::highlightAdvice);
  connect(advisorDock_, &AdvisorDock::applyRequested, this, [this](const std::vector<Hypothesis>& hs) {
    QStringList refused;
    const int added = session_->applyHypotheses(hs, &refused);
    if (!refused.isEmpty())
      statusBar()->showMessage(refused.join(QStringLiteral("; ")), 8000);
    else if (added > 0)
      statusBar()->showMessage(tr("Added %n hypothesis(es)", nullptr, added), 4000);
  });
  connect(overheadDock_, &OverheadDock::highlightRequested, this, &MainWindow::highlightAdvice);
  connect(overheadDock_, &OverheadDock::analysisRequested, session_, &AnalysisSession::runOverheadAnalysis);
  connect(session_, &AnalysisSession::overheadAnalysed, overheadDock_, &OverheadDock::setResult);
  connect(overheadDock_, &OverheadDock::analysisFinished, this, [this] {
    inspector_->setOverhead(overheadDock_->analysis());
    inspector_->inspect(session_->trace().get(), inspector_->item(), session_->prediction());
  });
  connect(overheadDock_, &OverheadDock::timelineShadingChanged, this, [this](bool show) {
    const auto analysis = overheadDock_->analysis();
    const auto& trace = session_->trace();
    if (show && analysis && trace)
      timeline_->setMarkedTime(overheadSpans(*trace, *analysis), tr("overhead"));
    else
      timeline_->setMarkedTime({}, QString());
  });
}

// The views' requests: selections and hypotheses from the timeline, the inspector, the
// hypothesis list and the charts.
void MainWindow::connectViews() {
  auto* s = session_;
  auto request = [this](HypothesisKind kind, const ui::TimelineItem& item) {
    QString why;
    if (!requestHypothesis(kind, item, &why)) report(why);
  };
  connect(timeline_, &ui::TimelineView::selectionChanged, this, &MainWindow::onSelection);
  connect(timeline_, &ui::TimelineView::hypothesisRequested, this, request);
  connect(timeline_, &ui::TimelineView::contextMenuRequestedFor, this, &MainWindow::showContextMenu);
  connect(inspector_, &InspectorDock::hypothesisRequested, this, request);
  connect(inspector_, &InspectorDock::zeroComputationRequested, this, [this](const ui::TimelineItem& item) {
    QString why;
    if (!requestZeroComputation(item, &why)) report(why);
  });
  connect(hypotheses_, &HypothesisDock::enableRequested, s, &AnalysisSession::setHypothesisEnabled);
  connect(hypotheses_, &HypothesisDock::removeRequested, s, &AnalysisSession::removeHypothesis);
  connect(hypotheses_, &HypothesisDock::activated, this, [this](const Hypothesis& h) {
    const auto& trace = session_->trace();
    if (!trace || h.kind == HypothesisKind::Compensate) return;  // the whole trace: nothing to select
    ui::TimelineItem item;
    if (h.kind == HypothesisKind::BalanceCompute || h.kind == HypothesisKind::BalanceVolume) {
      item.kind = ui::TimelineItem::Kind::Step;
      item.step = h.step;
    } else if (h.event.rank < trace->rankCount()) {
      const auto& calls = trace->ranks[h.event.rank].mpiCalls;
      if (calls.empty()) return;
      item.kind = ui::TimelineItem::Kind::Event;
      item.rank = h.event.rank;
      item.event = calls[std::min<std::size_t>(h.event.index, calls.size() - 1)];
    }
    timeline_->setSelection(item);
    onSelection(item);
  });
  connect(chartsDock_, &ChartsDock::stepClicked, this, &MainWindow::showStep);
  connect(chartsDock_, &ChartsDock::rankClicked, this, [this](int rank) {
    const auto& trace = session_->trace();
    if (!trace || rank < 0 || static_cast<std::uint32_t>(rank) >= trace->rankCount() || trace->ranks[rank].size() == 0)
      return;
    ui::TimelineItem it;
    it.kind = ui::TimelineItem::Kind::Event;
    it.rank = static_cast<std::uint32_t>(rank);
    it.event = static_cast<std::uint32_t>(trace->ranks[rank].size() - 1);  // its last event
    timeline_->setSelection(it);
    timeline_->scrollTo(it);
    onSelection(it);
  });
  // A history bar takes the scenario back (or forward) to that state, through the undo stack.
  connect(chartsDock_, &ChartsDock::historyClicked, s->undoStack(), &QUndoStack::setIndex);
}

// ---------------------------------------------------------------------------------------------
// The session's answers

void MainWindow::onTraceChanged(const std::shared_ptr<const Trace>& trace, bool newFile) {
  const TimeNs begin = timeline_->visibleBegin(), end = timeline_->visibleEnd();
  advisorDock_->clear();
  shownSigmas_.reset();
  lastPredicted_ = -1;
  lastApplied_.clear();
  // A new trace starts in the measured view (a session then applies its own).
  if (newFile && timeline_->mode() != ui::TimelineMode::Measured) setMode(ui::TimelineMode::Measured);
  shownEntries_ = 0;
  timeline_->setPrediction(nullptr);
  timeline_->setMeasuredWaits(nullptr);
  timeline_->setTrace(trace, session_->takePreparedTimeline());
  session_->setTimelineBase(timeline_->base());  // the worker draws predictions over it
  if (!newFile) {  // another parallel region of the same file: keep the view
    if (end > begin) timeline_->setVisibleRange(begin, end);
    inspector_->inspect(trace.get(), {}, nullptr);
    return;
  }
  progress_->setVisible(false);
  cancelButton_->setVisible(false);
  chartsDock_->clear();
  timeline_->setHighlighted({});
  overheadDock_->setTrace(trace);
  inspector_->setOverhead(nullptr);
  const auto warnings = trace->warnings.size();
  warningsDock_->setWarnings(trace->warnings, {});
  warningsButton_->setText(tr("%n warning(s)", nullptr, static_cast<int>(warnings)));
  warningsButton_->setVisible(warnings > 0);
  warningsButton_->setToolTip(tr("Show the reader's warnings"));
  if (warnings == 0) warningsDock_->hide();
  addRecent(session_->tracePath());
  updateTitle();
}

void MainWindow::onSessionView(const SessionView& view) {
  if (!view.docks.isEmpty()) restoreState(view.docks);  // a state it cannot read changes nothing
  setMode(view.mode);
  if (view.endNs > view.beginNs) timeline_->setVisibleRange(view.beginNs, view.endNs);
}

void MainWindow::onDocumentChanged() {
  const ScenarioDocument& doc = *session_->document();
  hypotheses_->showDocument(doc, session_->trace());
  // The last hypothesis gone (removed or undone): back to the measured view, as before the first.
  if (shownEntries_ > 0 && doc.entries().empty() && timeline_->mode() != ui::TimelineMode::Measured)
    setMode(ui::TimelineMode::Measured);
  shownEntries_ = doc.entries().size();
  hypotheses_->setPending(session_->pendingHypotheses());
  const QString modelName = QString::fromStdString(doc.model()->name());
  for (auto* a : modelGroup_->actions()) a->setChecked(a->data().toString() == modelName);
  for (auto* a : costGroup_->actions()) a->setChecked(a->data().toInt() == static_cast<int>(doc.costs()));
  networkButton_->setText(tr("Model: %1").arg(session_->networkDescription()));
  if (const auto o = advisorDock_->outcome()) advisorDock_->setStale(o->generation != session_->generation());
}

void MainWindow::setStatusText(const QString& text) {
  statusText_->setText(text);
  statusText_->setToolTip(text);
}

void MainWindow::onFramePainted() {
  if (!awaitingFinalFrame_ || !session_->isPredictionCurrent()) return;
  if (timeline_->lastFrameStats().provisional) {
    setStatusText(tr("%1; drawing the exact prediction…").arg(resultStatus_));
    return;
  }
  awaitingFinalFrame_ = false;
  const QString waited = formatDuration(static_cast<TimeNs>(session_->secondsSinceChange() * 1e9));
  setStatusText(tr("%1 (%2 from the change to the final frame)").arg(resultStatus_, waited));
}

void MainWindow::onPrediction(const std::shared_ptr<const PredictionResult>& result) {
  const Trace& trace = *session_->trace();
  if (compareOnResult_ && session_->isPredictionCurrent()) {
    compareOnResult_ = false;
    if (timeline_->mode() == ui::TimelineMode::Measured && !session_->document()->entries().empty())
      setMode(comparisonMode());
  }
  timeline_->setPrediction(result->times, result->drawing);
  timeline_->setMeasuredWaits(result->measuredWaits);
  hypotheses_->setPending(session_->pendingHypotheses());
  summary_->setText(predictionSummary(result->measuredTime, result->predictedTime));
  summary_->setToolTip(result->notes.join(QLatin1Char('\n')));
  hypotheses_->setRejected(result->rejected, result->errors);
  if (!result->notes.isEmpty() || !trace.warnings.empty()) warningsDock_->setWarnings(trace.warnings, result->notes);
  inspector_->inspect(&trace, inspector_->item(), result);
  if (!result->errors.isEmpty()) statusBar()->showMessage(result->errors.join(QStringLiteral("; ")), 8000);
  if (session_->isPredictionCurrent()) {
    // The engine's time now; the whole wait the user had, from the change to the final frame,
    // once the timeline painted it (onFramePainted).
    const QString took = formatDuration(static_cast<TimeNs>(result->seconds * 1e9));
    resultStatus_ =
        result->full ? tr("Full replay in %1").arg(took)
        : result->shifted
            ? tr("Updated %1 events and shifted %2 in %3").arg(result->recomputed).arg(result->shifted).arg(took)
            : tr("Updated %1 events in %2").arg(result->recomputed).arg(took);
    // A change that leaves T as it was: said why, not left to read as an error bar.
    if (lastPredicted_ >= 0 && result->applied != lastApplied_ && result->predictedTime == lastPredicted_)
      resultStatus_ =
          tr("T unchanged: what the change removes is not on the critical path (another chain of "
             "calls and waits as long still ends the run)");
    setStatusText(resultStatus_);
    awaitingFinalFrame_ = true;
    lastPredicted_ = result->predictedTime;
    lastApplied_ = result->applied;
    chartsDock_->setRankEnds(result->measuredEnd, result->predictedEnd);
    if (result->stepSigmaNs && result->stepSigmaNs != shownSigmas_ &&
        !(advisorDock_->outcome() && advisorDock_->outcome()->hasSteps)) {
      chartsDock_->setStepSigmas(*result->stepSigmaNs);
      shownSigmas_ = result->stepSigmaNs;
    }
  }
  emit predictionUpdated();
}

void MainWindow::onAdvisorOutcome(const std::shared_ptr<const AdvisorOutcome>& outcome) {
  if (outcome->finished) advisorDock_->setRunning(false);
  advisorDock_->showOutcome(outcome);
  advisorDock_->setStale(outcome->generation != session_->generation());
  if (outcome->hasSteps) chartsDock_->setSteps(outcome->steps, static_cast<double>(outcome->baseNs));
  emit advisorUpdated();
}

void MainWindow::updateHistoryChart() {
  QVector<ChartsDock::HistoryPoint> points;
  for (const auto& s : session_->history().states())
    points.push_back({s.label, s.predictedNs ? static_cast<double>(*s.predictedNs) : -1.0});
  const auto& p = session_->prediction();
  chartsDock_->setHistory(points, session_->undoStack()->index(), p ? static_cast<double>(p->measuredTime) : 0.0);
}

// ---------------------------------------------------------------------------------------------
// Requests

void MainWindow::runAdvisor() {
  if (session_->trace()) {
    advisorDock_->show();
    advisorDock_->raise();
    advisorDock_->setRunning(true);
  }
  session_->runAdvisor();
}

void MainWindow::editNetworkModel() {
  ScenarioDocument* doc = session_->document();
  NetworkModelDialog dialog(doc->model(), doc->costs(), this);
  if (dialog.exec() != QDialog::Accepted) return;
  QString error;
  auto model = dialog.model(&error);
  if (!model) {
    showError(tr("Network Model"), error);
    return;
  }
  session_->setNetwork(model, dialog.costMode());
}

void MainWindow::chooseParallelRegion() {
  if (!session_->trace()) return;
  RegionPickerDialog dialog(*session_->trace(), this);
  if (dialog.exec() != QDialog::Accepted || dialog.chosenName().isEmpty()) return;
  QString error;
  if (!session_->setParallelRegion(dialog.chosenName(), &error)) showError(tr("Parallel Region"), error);
}

void MainWindow::showStep(int step) {
  const auto& trace = session_->trace();
  if (!trace || step < 0 || static_cast<std::size_t>(step) >= trace->steps.size()) return;
  ui::TimelineItem it;
  it.kind = ui::TimelineItem::Kind::Step;
  it.step = static_cast<std::uint32_t>(step);
  timeline_->setSelection(it);
  timeline_->scrollTo(it);
  onSelection(it);
}

void MainWindow::highlightAdvice(const std::vector<EventRef>& events, int step) {
  const auto& trace = session_->trace();
  if (!trace) return;
  std::vector<ui::TimelineItem> items;
  for (const EventRef& e : events) {
    if (e.rank >= trace->rankCount() || e.index >= trace->ranks[e.rank].mpiCalls.size()) continue;
    ui::TimelineItem it;
    it.kind = ui::TimelineItem::Kind::Event;
    it.rank = e.rank;
    it.event = trace->ranks[e.rank].mpiCalls[e.index];
    items.push_back(it);
  }
  timeline_->setHighlighted(items);
  if (step >= 0 && static_cast<std::size_t>(step) < trace->steps.size()) {
    showStep(step);
  } else if (!items.empty()) {
    timeline_->scrollTo(items.front());
  }
}

TimeNs MainWindow::predictedTimeShown() const {
  const auto& p = session_->prediction();
  return p ? p->predictedTime : -1;
}
TimeNs MainWindow::measuredTimeShown() const {
  const auto& p = session_->prediction();
  return p ? p->measuredTime : -1;
}
QString MainWindow::summaryText() const { return summary_->text(); }

void MainWindow::onSelection(const ui::TimelineItem& selected) {
  const auto& trace = session_->trace();
  inspector_->inspect(trace.get(), selected, session_->prediction());
  // A message stands for the call that completes its receive (Z zeroes the receiver's wait).
  const ui::TimelineItem item = trace ? callOf(*trace, selected) : selected;
  const bool message = selected.kind == ui::TimelineItem::Kind::Message;
  const bool event = trace && item.kind == ui::TimelineItem::Kind::Event;
  const bool mpi = event && mpiIndexOf(*trace, item.rank, item.event) >= 0;
  const bool step = trace && (item.kind == ui::TimelineItem::Kind::Step ||
                              (event && stepOf(*trace, item.rank, item.event) >= 0));
  zeroWaitAct_->setEnabled(mpi);
  zeroEventAct_->setEnabled(mpi && !message);
  zeroComputationAct_->setEnabled(mpi && !message);
  balanceComputeAct_->setEnabled(step);
  balanceVolumeAct_->setEnabled(step);
}

bool MainWindow::requestHypothesis(HypothesisKind kind, const ui::TimelineItem& selected, QString* why) {
  auto fail = [&](const QString& text) {
    if (why) *why = text;
    return false;
  };
  const auto& trace = session_->trace();
  if (!trace) return fail(tr("No trace loaded"));
  if (selected.kind == ui::TimelineItem::Kind::Message && kind != HypothesisKind::ZeroWait &&
      kind != HypothesisKind::BalanceCompute && kind != HypothesisKind::BalanceVolume)
    return fail(tr("Select the call itself to zero it"));
  const ui::TimelineItem item = callOf(*trace, selected);
  if (selected.kind == ui::TimelineItem::Kind::Message && item.kind == ui::TimelineItem::Kind::None)
    return fail(tr("This message has no matched receive"));
  Hypothesis h;
  h.kind = kind;
  if (h.targetsEvent()) {
    const int mpi = item.kind == ui::TimelineItem::Kind::Event ? mpiIndexOf(*trace, item.rank, item.event) : -1;
    if (mpi < 0) return fail(tr("Select an MPI call first"));
    h.event = EventRef{item.rank, static_cast<std::uint32_t>(mpi), false};
  } else {
    int step = -1;
    if (item.kind == ui::TimelineItem::Kind::Step)
      step = static_cast<int>(item.step);
    else if (item.kind == ui::TimelineItem::Kind::Event)
      step = stepOf(*trace, item.rank, item.event);
    if (step < 0) return fail(tr("Select a parallel step first"));
    h.step = static_cast<std::uint32_t>(step);
  }
  return session_->requestHypothesis(h, why);
}

bool MainWindow::requestZeroComputation(const ui::TimelineItem& item, QString* why) {
  const auto& trace = session_->trace();
  const int mpi = trace && item.kind == ui::TimelineItem::Kind::Event ? mpiIndexOf(*trace, item.rank, item.event) : -1;
  if (mpi < 0) {
    if (why) *why = trace ? tr("Select an MPI call first") : tr("No trace loaded");
    return false;
  }
  Hypothesis h;
  h.kind = HypothesisKind::ZeroEvent;
  h.event = EventRef{item.rank, static_cast<std::uint32_t>(mpi), true};
  return session_->requestHypothesis(h, why);
}

bool MainWindow::requestCompensation(std::int64_t overheadNsPerEvent, QString* why) {
  return session_->requestCompensation(overheadNsPerEvent, why);
}


void MainWindow::showContextMenu(const ui::TimelineItem& item, const QPoint& globalPos) {
  if (!session_->trace()) return;
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

void MainWindow::report(const QString& why) { statusBar()->showMessage(why, 6000); }

void MainWindow::showError(const QString& title, const QString& message) {
  lastError_ = message;
  auto* box = new QMessageBox(QMessageBox::Warning, title, message, QMessageBox::Ok, this);
  box->setAttribute(Qt::WA_DeleteOnClose);
  box->setObjectName(QStringLiteral("errorMessage"));
  box->open();
}

}  // namespace perwiz::gui
