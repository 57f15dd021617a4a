#include "analysis_session.h"

#include "advisor_runner.h"
#include "hypothesis_commands.h"
#include "prediction_worker.h"
#include "parallel_region.h"
#include "units.h"

#include "perwiz/compensation.h"

#include <QFileInfo>
#include <QThread>
#include <QtConcurrent/QtConcurrentRun>
#include <QUndoStack>

#include <algorithm>

namespace perwiz::gui {

AnalysisSession::AnalysisSession(QObject* parent) : QObject(parent) {
  qRegisterMetaType<perwiz::gui::SessionView>();
  qRegisterMetaType<std::shared_ptr<const OverheadResult>>();
  qRegisterMetaType<std::shared_ptr<const ComparisonResult>>();
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

  connect(loader_, &TraceLoader::progress, this, &AnalysisSession::loadProgress);
  connect(loader_, &TraceLoader::finished, this, &AnalysisSession::onLoadFinished);
  connect(worker_, &PredictionWorker::resultReady, this, &AnalysisSession::onPrediction);
  connect(worker_, &PredictionWorker::failed, this, [this](const QString& message) {
    endProgress();
    emit predictionFailed(message);
  });
  connect(worker_, &PredictionWorker::cancelled, this, [this] {
    endProgress();
    emit predictionCancelled();
  });
  progressTimer_.setInterval(100);
  connect(&progressTimer_, &QTimer::timeout, this, &AnalysisSession::pollProgress);
  connect(doc_, &ScenarioDocument::changed, this, &AnalysisSession::onDocumentChanged);
  connect(undo_, &QUndoStack::indexChanged, this, [this] {
    syncHistory();
    emit historyChanged();
  });
  connect(undo_, &QUndoStack::cleanChanged, this, &AnalysisSession::titleChanged);
  connect(advisor_, &AdvisorRunner::progress, this, &AnalysisSession::advisorProgress);
  connect(advisor_, &AdvisorRunner::updated, this, &AnalysisSession::onAdvisorOutcome);
}

AnalysisSession::~AnalysisSession() {
  // The undo stack emits indexChanged while it is cleared, which must not reach listeners of
  // a half-destroyed session.
  disconnect(undo_, nullptr, this, nullptr);
  loader_->cancel();
  advisor_->cancel();
  advisor_->wait();  // it works on a fork of the worker's replayer
  if (exportWatcher_) exportWatcher_->waitForFinished();  // and so does a predicted trace's writing
  if (overheadWatcher_) overheadWatcher_->waitForFinished();
  if (comparisonWatcher_) comparisonWatcher_->waitForFinished();
  workerThread_->quit();
  workerThread_->wait();
}

// ---------------------------------------------------------------------------------------------
// The predicted trace

bool AnalysisSession::exportPredictedTrace(const QString& path, QString* why) {
  auto refuse = [&](const QString& reason) {
    if (why) *why = reason;
    return false;
  };
  if (!trace_ || !prediction_) return refuse(tr("There is no prediction to write yet."));
  if (!isPredictionCurrent()) return refuse(tr("Wait for the prediction of the current scenario, then export it."));
  if (exportWatcher_) return refuse(tr("A predicted trace is being written; wait for it to finish."));
  std::function<void()> write;
  try {
    write = worker_->predictedTraceWriter(prediction_->generation, path.toStdString());
  } catch (const std::exception& e) {
    return refuse(QString::fromStdString(e.what()));
  }
  exportWatcher_ = new QFutureWatcher<QString>(this);
  connect(exportWatcher_, &QFutureWatcher<QString>::finished, this, [this, path] {
    const QString error = exportWatcher_->result();
    exportWatcher_->deleteLater();
    exportWatcher_ = nullptr;
    emit exportFinished(path, error);
  });
  exportWatcher_->setFuture(QtConcurrent::run([write = std::move(write), before = beforeExportWrite_]() -> QString {
    try {
      if (before) before();
      write();
      return {};
    } catch (const std::exception& e) {
      return QString::fromStdString(e.what());
    }
  }));
  return true;
}

// ---------------------------------------------------------------------------------------------
// The overhead analysis

void AnalysisSession::runOverheadAnalysis(double quantile, std::shared_ptr<const OverheadProfile> profile) {
  if (!trace_) return;
  ++overheadRequest_;
  if (overheadWatcher_) {  // one at a time: this one starts when the running one ends
    overheadWaiting_.emplace(quantile, std::move(profile));
    return;
  }
  startOverheadAnalysis(quantile, std::move(profile));
}

void AnalysisSession::startOverheadAnalysis(double quantile, std::shared_ptr<const OverheadProfile> profile) {
  overheadRunning_ = overheadRequest_;
  overheadWatcher_ = new QFutureWatcher<OverheadResult>(this);
  connect(overheadWatcher_, &QFutureWatcher<OverheadResult>::finished, this, [this] {
    auto result = std::make_shared<const OverheadResult>(overheadWatcher_->result());
    overheadWatcher_->deleteLater();
    overheadWatcher_ = nullptr;
    const bool latest = overheadRunning_ == overheadRequest_ && result->trace == trace_;
    if (overheadWaiting_) {
      auto [q, p] = std::move(*overheadWaiting_);
      overheadWaiting_.reset();
      if (trace_) startOverheadAnalysis(q, std::move(p));
    }
    if (latest) emit overheadAnalysed(result);
  });
  overheadWatcher_->setFuture(QtConcurrent::run([trace = trace_, profile = std::move(profile), quantile] {
    OverheadResult r;
    r.trace = trace;
    r.fromProfile = profile != nullptr;
    try {
      OverheadOptions o;
      o.fit.quantile = quantile;
      o.profile = profile.get();
      r.analysis = std::make_shared<const OverheadAnalysis>(analyzeOverhead(*trace, o));
    } catch (const std::exception& e) {
      r.error = QString::fromStdString(e.what());
    }
    return r;
  }));
}

// ---------------------------------------------------------------------------------------------
// Loading and session files

void AnalysisSession::openTrace(const QString& path) {
  emit loadStarted(path);
  loader_->start(path);
}

void AnalysisSession::cancelLoad() { loader_->cancel(); }
bool AnalysisSession::isLoading() const { return loader_->isLoading(); }

bool AnalysisSession::openSession(const QString& path, QString* error) {
  SessionData data;
  if (!loadSession(path, data, error)) return false;
  pendingSession_ = data;
  pendingSessionPath_ = QFileInfo(path).absoluteFilePath();  // remembered once the trace loads
  openTrace(data.trace);
  return true;
}

void AnalysisSession::onLoadFinished(const LoadResult& result) {
  if (result.cancelled) {
    pendingSession_.reset();
    emit loadCancelled();
    return;
  }
  if (!result.trace) {
    pendingSession_.reset();
    emit loadFailed(result.error);
    return;
  }
  resetAdvisor();
  endComparison();  // of the trace before
  history_.clear();
  trace_ = result.trace;
  overheadWaiting_.reset();  // an overhead analysis asked for the old trace
  preparedTimeline_ = result.timeline;
  region_.clear();
  tracePath_ = QFileInfo(result.path).absoluteFilePath();
  prediction_.reset();
  timelineBase_.reset();
  emit traceChanged(trace_, true);
  preparedTimeline_ = {};  // taken by the view, or not wanted: not kept alive here
  undo_->clear();
  resettingDocument_ = true;
  doc_->setEntries({});
  // A trace starts from the default network model and measured local costs (a session brings
  // its own): never the last trace's model, silently.
  const bool inherited = !doc_->isDefaultNetwork();
  doc_->setNetwork(nullptr, CostMode::Measured);
  sessionPath_.clear();
  if (pendingSession_) {
    const SessionData session = *pendingSession_;
    pendingSession_.reset();
    applySession(session);
  } else if (inherited) {
    emit message(tr("New trace: the network model is back to the default, %1").arg(networkDescription()), 10000);
  }
  resettingDocument_ = false;
  onDocumentChanged();
  emit titleChanged();
  emit traceLoaded();
}

void AnalysisSession::applySession(const SessionData& session) {
  if (!session.region.isEmpty()) {
    QString error;
    if (!setParallelRegion(session.region, &error)) emit this->error(tr("Cannot open session"), error);
  }
  doc_->setNetwork(session.scenario.model, session.scenario.costs);
  std::vector<HypothesisEntry> entries;
  for (const auto& h : session.scenario.hypotheses) entries.push_back({h, !session.isDisabled(h)});
  doc_->setEntries(std::move(entries));
  emit sessionViewRequested(session.view);
  if (!session.compareWith.isEmpty()) compareWith(session.compareWith);
  sessionPath_ = pendingSessionPath_;
  emit sessionOpened(sessionPath_);
}

void AnalysisSession::setNetwork(std::shared_ptr<const NetworkModel> model, CostMode costs) {
  if (!model) model = defaultNetworkModel();
  const auto& current = doc_->model();
  if (current && sameNetworkModel(*current, *model) && doc_->costs() == costs) return;
  undo_->push(new SetNetworkCommand(doc_, std::move(model), costs));
}

QString AnalysisSession::networkDescription() const { return describeNetwork(doc_->model().get(), doc_->costs()); }

bool AnalysisSession::isModified() const { return trace_ && !undo_->isClean(); }

bool AnalysisSession::saveSessionTo(const QString& path, const SessionView& view, QString* error) {
  if (!trace_) {
    if (error) *error = tr("No trace loaded");
    return false;
  }
  SessionData data;
  data.trace = tracePath_;
  data.scenario = doc_->scenario(true);
  for (const auto& h : doc_->disabledHypotheses()) data.disabled << QString::fromStdString(h.toString());
  data.view = view;
  data.region = region_;
  if (comparison_) data.compareWith = comparison_->pathB;
  if (!gui::saveSession(path, data, error)) return false;
  sessionPath_ = QFileInfo(path).absoluteFilePath();
  undo_->setClean();
  emit titleChanged();
  return true;
}

bool AnalysisSession::setParallelRegion(const QString& name, QString* error) {
  if (!trace_) {
    if (error) *error = tr("No trace loaded");
    return false;
  }
  auto t = withParallelRegion(*trace_, name.toStdString(), error);
  if (!t) return false;
  resetAdvisor();
  // A comparison shown is made again: B gets the same region (its steps) when loaded anew.
  const QString comparedPath = comparison_ ? comparison_->pathB : QString();
  endComparison();
  prediction_.reset();
  trace_ = std::move(t);
  overheadWaiting_.reset();
  region_ = name;
  history_.forgetValues();
  emit traceChanged(trace_, false);
  emit message(tr("Parallel region '%1': %n step(s)", nullptr, static_cast<int>(trace_->steps.size())).arg(name), 5000);
  if (!resettingDocument_) requestPrediction();
  if (!comparedPath.isEmpty()) compareWith(comparedPath);
  return true;
}

// ---------------------------------------------------------------------------------------------
// Prediction

void AnalysisSession::onDocumentChanged() {
  // The history's values mean "T under this model and cost mode": a change forgets them.
  if (doc_->model() != historyModel_ || doc_->costs() != historyCosts_) {
    history_.forgetValues();
    historyModel_ = doc_->model();
    historyCosts_ = doc_->costs();
  }
  if (!resettingDocument_) requestPrediction();
  emit documentChanged();
}

void AnalysisSession::requestPrediction() {
  // A trace of threads only (no MPI rank) has nothing to replay: its threads are shown as
  // measured (trace.h, ThreadTrace) and the window says why no prediction is offered.
  if (!trace_ || trace_->rankCount() == 0) return;
  PredictionRequest r;
  r.trace = trace_;
  r.model = doc_->model();
  r.costs = doc_->costs();
  r.hypotheses = doc_->enabledHypotheses();
  r.generation = ++requestedGeneration_;
  if (timelineBase_ && baseTrace_ == trace_.get()) {
    r.base = timelineBase_;
    if (columnsSource_) r.columns = columnsSource_();
  }
  requestClock_.start();
  if (!progressTimer_.isActive()) progressTimer_.start();
  emit predictionRequested();
  worker_->request(std::move(r));
}

void AnalysisSession::setTimelineBase(std::shared_ptr<const ui::TimelineBase> base) {
  timelineBase_ = std::move(base);
  baseTrace_ = timelineBase_ ? trace_.get() : nullptr;
}

void AnalysisSession::noteViewActivity() { worker_->noteActivity(); }

void AnalysisSession::cancelPrediction() {
  if (isPredictionCurrent() || !trace_) return;
  worker_->cancel(requestedGeneration_);
}

void AnalysisSession::pollProgress() {
  const PredictionWorker::Stage stage = worker_->stage();
  const bool waiting = trace_ && requestedGeneration_ > 0 && !isPredictionCurrent();
  const bool running = waiting && stage != PredictionWorker::Stage::Idle;
  if (running && requestClock_.elapsed() >= 200) {
    const QString what = stage == PredictionWorker::Stage::Building    ? tr("Building the replay model")
                         : stage == PredictionWorker::Stage::Updating  ? tr("Re-simulating")
                         : stage == PredictionWorker::Stage::Preparing ? tr("Preparing for changes")
                                                                       : tr("Preparing the predicted timeline");
    progressShown_ = true;
    emit predictionProgress(worker_->progressPermille(), what);
    return;
  }
  if (!running && progressShown_) {
    progressShown_ = false;
    emit predictionProgress(-1, QString());
  }
  if (!waiting) progressTimer_.stop();
}

void AnalysisSession::endProgress() {
  progressTimer_.stop();
  if (progressShown_) emit predictionProgress(-1, QString());
  progressShown_ = false;
}

std::vector<Hypothesis> AnalysisSession::pendingHypotheses() const {
  // The engine holds hypotheses in canonical form; the document as the user made them.
  std::vector<Hypothesis> have;
  if (prediction_ && prediction_->trace == trace_) {
    have = prediction_->applied;
    have.insert(have.end(), prediction_->rejected.begin(), prediction_->rejected.end());
    for (Hypothesis& h : have) h = h.canonical();
    std::sort(have.begin(), have.end());
  }
  std::vector<Hypothesis> out;
  for (const HypothesisEntry& e : doc_->entries())
    if (e.enabled != std::binary_search(have.begin(), have.end(), e.hypothesis.canonical())) out.push_back(e.hypothesis);
  return out;
}

bool AnalysisSession::isPredictionCurrent() const {
  return prediction_ && prediction_->generation == requestedGeneration_;
}

void AnalysisSession::syncHistory() {
  QStringList labels;
  for (int i = 0; i < undo_->count(); ++i) labels << undo_->text(i);
  history_.syncStack(labels);
}

void AnalysisSession::onPrediction(const std::shared_ptr<const PredictionResult>& result) {
  if (!result || result->trace != trace_) return;  // from a trace no longer shown
  if (result->refined) {  // the exact drawing of the prediction shown: nothing else changed
    if (!prediction_ || prediction_->times != result->times) return;
    prediction_ = result;
    emit predictionRefined(result);
    return;
  }
  prediction_ = result;
  pollProgress();
  if (isPredictionCurrent()) {
    lastLatency_ = static_cast<double>(requestClock_.nsecsElapsed()) / 1e9;
    syncHistory();  // the states first, then this one's value
    history_.record(undo_->index(), result->predictedTime);
  }
  emit predictionReady(result);
  if (isPredictionCurrent()) emit historyChanged();
  // A comparison shown is made again with this prediction as A′ (B and the alignment kept).
  if (isPredictionCurrent() && comparisonWatcher_) {
    comparisonAgain_ = true;
  } else if (isPredictionCurrent() && comparison_) {
    const quint64 wanted = result->applied.empty() ? 0 : result->generation;
    if (comparison_->generation != wanted)
      startComparison({comparison_->traceB, comparison_->alignment, comparison_->pathB});
  }
  if (advisorPending_ && isPredictionCurrent()) {
    advisorPending_ = false;
    advisor_->start(requestedGeneration_, trace_);
  }
}

// ---------------------------------------------------------------------------------------------
// Changes

QString AnalysisSession::refusalFor(const Hypothesis& h) const {
  if (const HypothesisEntry* e = doc_->find(h); e && e->enabled)
    return tr("%1 is already applied").arg(QString::fromStdString(h.toString()));
  // Checked with the latest snapshot of this trace (its nested calls come with it), never with
  // the worker's live engine; before the first prediction the worker refuses what does not fit.
  if (trace_ && prediction_ && prediction_->trace == trace_ && prediction_->nestedCalls) {
    const std::string problem = validateHypothesis(*trace_, *prediction_->nestedCalls, h, doc_->enabledHypotheses());
    if (!problem.empty()) return QString::fromStdString(problem);
  }
  return {};
}

bool AnalysisSession::requestHypothesis(const Hypothesis& h, QString* why) {
  if (!trace_) {
    if (why) *why = tr("No trace loaded");
    return false;
  }
  if (const QString problem = refusalFor(h); !problem.isEmpty()) {
    if (why) *why = problem;
    return false;
  }
  if (doc_->find(h))
    undo_->push(new SetHypothesisEnabledCommand(doc_, h, true, trace_.get()));
  else
    undo_->push(new AddHypothesisCommand(doc_, h, trace_.get()));
  emit hypothesisApplied();
  return true;
}

bool AnalysisSession::requestCompensation(std::int64_t overheadNsPerEvent, QString* why) {
  if (!trace_) {
    if (why) *why = tr("No trace loaded");
    return false;
  }
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
  if (!old) return requestHypothesis(h, why);
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
  undo_->push(new RemoveHypothesisCommand(doc_, previous, trace_.get()));
  if (doc_->find(h))
    undo_->push(new SetHypothesisEnabledCommand(doc_, h, true, trace_.get()));
  else
    undo_->push(new AddHypothesisCommand(doc_, h, trace_.get()));
  undo_->endMacro();
  emit hypothesisApplied();
  return true;
}

int AnalysisSession::applyHypotheses(const std::vector<Hypothesis>& hs, QStringList* refused) {
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
  for (const Hypothesis& h : accepted) requestHypothesis(h, nullptr);
  if (accepted.size() > 1) undo_->endMacro();
  return static_cast<int>(accepted.size());
}

void AnalysisSession::setHypothesisEnabled(const Hypothesis& h, bool enabled) {
  const HypothesisEntry* e = doc_->find(h);
  if (e && e->enabled != enabled) undo_->push(new SetHypothesisEnabledCommand(doc_, h, enabled, trace_.get()));
}

void AnalysisSession::removeHypothesis(const Hypothesis& h) {
  if (const HypothesisEntry* e = doc_->find(h)) undo_->push(new RemoveHypothesisCommand(doc_, *e, trace_.get()));
}

// ---------------------------------------------------------------------------------------------
// Advisor

void AnalysisSession::runAdvisor() {
  if (!trace_) {
    emit message(tr("No trace loaded"), 4000);
    return;
  }
  if (isPredictionCurrent()) {
    advisorPending_ = false;
    advisor_->start(requestedGeneration_, trace_);
  } else {
    advisorPending_ = true;  // starts from the scenario being predicted now
    emit advisorWaiting();
  }
}

void AnalysisSession::cancelAdvisor() {
  advisorPending_ = false;
  advisor_->cancel();
  if (!advisor_->isRunning()) emit advisorStopped();
}

void AnalysisSession::resetAdvisor() {
  advisor_->cancel();
  advisorPending_ = false;
  emit advisorStopped();
}

void AnalysisSession::onAdvisorOutcome(const std::shared_ptr<const AdvisorOutcome>& outcome) {
  if (!outcome || outcome->trace != trace_) return;
  emit advisorUpdated(outcome);
}

}  // namespace perwiz::gui
