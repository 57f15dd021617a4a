// The model side of the GUI, without widgets (docs/gui.md, docs/architecture.md).
//
// An AnalysisSession owns the loaded trace, the scenario document and its undo stack, the
// background loader, the prediction worker and its thread, the advisor runner, the writing of
// predicted traces, the history of predicted T per undo state, and the current prediction
// snapshot, and the overhead analysis: every background job of the GUI starts, is superseded
// and is waited for here (docs/architecture.md, "Threads and who owns them"). Every change of the
// scenario is one undoable command pushed here (or refused with the reason); every result comes
// back as a signal carrying an immutable snapshot. Views read snapshots and send requests; none
// of them touches the worker. Tests drive it with QSignalSpy and no window.
#pragma once

#include "comparison_result.h"
#include "overhead_result.h"
#include "prediction_result.h"
#include "scenario_document.h"
#include "scenario_history.h"
#include "session_file.h"
#include "trace_loader.h"

#include <QElapsedTimer>
#include <QFutureWatcher>
#include <QObject>
#include <QTimer>
#include <QStringList>

#include <functional>
#include <memory>
#include <utility>
#include <optional>
#include <vector>

class QThread;
class QUndoStack;

namespace perwiz::gui {

class AdvisorRunner;
class PredictionWorker;
struct AdvisorOutcome;

// SessionView (session_file.h): what a session file records about the view; the window
// supplies and applies it.

class AnalysisSession : public QObject {
  Q_OBJECT

 public:
  explicit AnalysisSession(QObject* parent = nullptr);
  ~AnalysisSession() override;

  // ---- loading and session files ----
  // Starts a background load (a running one is cancelled).
  void openTrace(const QString& path);
  // Reads a .perwiz file and loads its trace; the scenario and view follow once it has loaded.
  // False (and *error) if the file cannot be read.
  bool openSession(const QString& path, QString* error = nullptr);
  bool saveSessionTo(const QString& path, const SessionView& view, QString* error = nullptr);
  void cancelLoad();
  bool isLoading() const;

  // ---- state ----
  const std::shared_ptr<const Trace>& trace() const { return trace_; }
  // The timeline the loader prepared for trace() (ui::prepareTimeline), once: a view showing
  // the trace takes it in its traceChanged slot (empty after a change of parallel region).
  ui::PreparedTimeline takePreparedTimeline() { return std::exchange(preparedTimeline_, {}); }
  QString tracePath() const { return tracePath_; }
  QString sessionPath() const { return sessionPath_; }
  QString parallelRegion() const { return region_; }
  ScenarioDocument* document() const { return doc_; }
  QUndoStack* undoStack() const { return undo_; }
  // Changes since the trace or session was opened or the session saved (the undo stack is not
  // at its clean state): closing or opening another file would drop them.
  bool isModified() const;
  const std::shared_ptr<const PredictionResult>& prediction() const { return prediction_; }
  // The shown prediction belongs to the latest scenario change (no re-simulation pending).
  bool isPredictionCurrent() const;
  quint64 generation() const { return requestedGeneration_; }
  // Wall time from the latest scenario change (a key press, an undo) to its prediction arriving
  // here, in seconds; -1 before the first.
  double lastLatencySeconds() const { return lastLatency_; }
  // Since the latest change was sent to the worker (the clock of the "from the change" waits).
  double secondsSinceChange() const { return static_cast<double>(requestClock_.nsecsElapsed()) / 1e9; }
  const ScenarioHistory& history() const { return history_; }
  AdvisorRunner* advisorRunner() const { return advisor_; }
  // The worker, for tests (its test hooks); views never use it.
  PredictionWorker* worker() const { return worker_; }

  // The timeline's per-trace data (TimelineView::base()) for the trace shown: the worker then
  // builds the predicted drawing too, off the GUI thread. nullptr: the view builds it.
  void setTimelineBase(std::shared_ptr<const ui::TimelineBase> base);
  // Where a prediction will be shown (the timeline's pixel columns, TimelineView::columnView),
  // asked at each request: the worker then brings the step bands in them.
  void setColumnsSource(std::function<ui::ColumnView()> source) { columnsSource_ = std::move(source); }
  // The view moved (zoom, scroll): the worker's background drawing waits for it to rest.
  void noteViewActivity();
  // Stops the running prediction (the engine's construction or a snapshot) within about
  // 0.1 s; the last prediction stays shown, not current. The next change predicts again, as
  // does predictAgain().
  void cancelPrediction();
  void predictAgain() { requestPrediction(); }
  // Hypotheses whose change the shown prediction does not include yet (enabled and not in
  // it, or in it and no longer enabled): shown as pending until their prediction arrives.
  std::vector<Hypothesis> pendingHypotheses() const;

  // ---- changes: each one undoable step, or refused (false and *why) ----
  bool requestHypothesis(const Hypothesis& h, QString* why = nullptr);
  // Measurement-overhead compensation; replaces an applied one of another value in one step.
  bool requestCompensation(std::int64_t overheadNsPerEvent, QString* why = nullptr);
  // Several hypotheses as one step (the advisor's Apply); returns how many were added.
  int applyHypotheses(const std::vector<Hypothesis>& hs, QStringList* refused = nullptr);
  void setHypothesisEnabled(const Hypothesis& h, bool enabled);
  void removeHypothesis(const Hypothesis& h);
  // The network model (null: the default) and cost mode, as one undoable step; nothing if
  // both are already in use.
  void setNetwork(std::shared_ptr<const NetworkModel> model, CostMode costs);
  // The model and cost mode the next prediction uses, in words (describeNetwork).
  QString networkDescription() const;
  // "" if h can be applied now, else why not.
  QString refusalFor(const Hypothesis& h) const;
  // Recomputes the parallel steps with `name` as the region; hypotheses are kept.
  bool setParallelRegion(const QString& name, QString* error = nullptr);

  // ---- the predicted trace ----
  // Writes the predicted trace of the prediction shown (prediction(), which must be current)
  // to `path` in the background, in the format its name says; exportFinished() reports the
  // end. The job works on a copy of the engine's state taken now: predictions go on while it
  // writes. False (and *why) when there is nothing to write, or a write already runs.
  bool exportPredictedTrace(const QString& path, QString* why = nullptr);
  bool isExporting() const { return exportWatcher_ != nullptr; }
  // Test hook: called on the export's thread before it writes.
  void setBeforeExportWrite(std::function<void()> fn) { beforeExportWrite_ = std::move(fn); }

  // ---- the overhead analysis ----
  // Statistical overhead detection (analyzeOverhead) of the trace shown, in the background,
  // with `quantile` and `profile` (null: t_max fitted per trace). One runs at a time: a
  // request while one runs replaces any waiting request and the running one's result is
  // dropped; overheadAnalysed() hands back the latest request's result. A new trace drops them.
  void runOverheadAnalysis(double quantile, std::shared_ptr<const OverheadProfile> profile);
  bool isAnalysingOverhead() const { return overheadWatcher_ != nullptr; }

  // ---- the advisor ----
  // Runs on the current scenario (after the pending prediction, if any).
  void runAdvisor();
  void cancelAdvisor();

  // ---- comparing with a second run (issue #41, docs/compare.md) ----
  // Loads the trace at `path` (B) in the background, aligns it with the trace shown (A) and
  // compares them, with the prediction shown as A′ when it has hypotheses: comparisonReady()
  // or comparisonFailed() follow. While a comparison is shown it is made again (B and the
  // alignment kept) for each current prediction. Another trace ends it.
  void compareWith(const QString& path);
  void endComparison();
  // Events whose duration changed by more than `ns` are marked (ComparisonResult's
  // comparison.marked); < 0: none beyond the largest changes. Makes a comparison shown again.
  void setComparisonMark(TimeNs ns);
  TimeNs comparisonMark() const { return markAbove_; }
  const std::shared_ptr<const ComparisonResult>& comparison() const { return comparison_; }
  bool isComparing() const { return comparisonWatcher_ != nullptr; }

 signals:
  void loadStarted(const QString& path);
  void loadProgress(int percent);
  void loadCancelled();
  void loadFailed(const QString& message);
  // A new trace is shown: a loaded file (`newFile`) or the same file with another parallel
  // region. The previous prediction and advice no longer apply.
  void traceChanged(const std::shared_ptr<const Trace>& trace, bool newFile);
  // Everything a load brings is in place (the session file's scenario applied, the first
  // prediction requested).
  void traceLoaded();
  // A session file was opened (its path, for the recent files).
  void sessionOpened(const QString& path);
  // A session file's view, to apply once its trace has loaded.
  void sessionViewRequested(const perwiz::gui::SessionView& view);
  void documentChanged();
  void predictionRequested();
  void predictionReady(const std::shared_ptr<const perwiz::gui::PredictionResult>& result);
  // The exact drawing of the prediction shown, after a provisional one (PredictionResult::refined).
  void predictionRefined(const std::shared_ptr<const perwiz::gui::PredictionResult>& result);
  void predictionFailed(const QString& message);
  // A prediction has run for more than 200 ms: its progress (0..1000) and what it does, about
  // every 100 ms until it ends (predictionProgress(-1, "") then).
  void predictionProgress(int permille, const QString& stage);
  void predictionCancelled();
  // The history of predicted T per undo state changed (labels or values).
  void historyChanged();
  // A hypothesis was added or enabled (the window shows the prediction then).
  void hypothesisApplied();
  void advisorWaiting();  // runs when the prediction is current
  void advisorProgress(double fraction, const QString& stage);
  void advisorUpdated(const std::shared_ptr<const perwiz::gui::AdvisorOutcome>& outcome);
  void advisorStopped();
  // A predicted trace was written to `path` (error empty) or not (error says why; nothing is
  // left at `path`).
  void exportFinished(const QString& path, const QString& error);
  void overheadAnalysed(const std::shared_ptr<const perwiz::gui::OverheadResult>& result);
  void comparisonStarted(const QString& pathB);
  void comparisonReady(const std::shared_ptr<const perwiz::gui::ComparisonResult>& result);
  void comparisonFailed(const QString& message);
  void comparisonEnded();
  void titleChanged();
  void message(const QString& text, int timeoutMs);
  void error(const QString& title, const QString& text);

 private:
  void onLoadFinished(const LoadResult& result);
  void onDocumentChanged();
  void onPrediction(const std::shared_ptr<const PredictionResult>& result);
  void onAdvisorOutcome(const std::shared_ptr<const AdvisorOutcome>& outcome);
  void requestPrediction();
  void pollProgress();
  void endProgress();  // the prediction stopped without a result (failed, cancelled)
  void syncHistory();  // the history's states from the undo stack's commands
  void applySession(const SessionData& session);
  void resetAdvisor();

  ScenarioDocument* doc_;
  QUndoStack* undo_;
  TraceLoader* loader_;
  QThread* workerThread_;
  PredictionWorker* worker_;
  AdvisorRunner* advisor_;
  bool advisorPending_ = false;  // run as soon as the prediction is current
  ScenarioHistory history_;
  std::shared_ptr<const NetworkModel> historyModel_;
  CostMode historyCosts_ = CostMode::Measured;

  std::shared_ptr<const Trace> trace_;
  QString tracePath_;
  QString region_;  // chosen parallel region ("" = the trace's own PRGN markers)
  QString sessionPath_;
  std::optional<SessionData> pendingSession_;  // applied when its trace has loaded
  QString pendingSessionPath_;
  std::shared_ptr<const PredictionResult> prediction_;
  quint64 requestedGeneration_ = 0;
  QElapsedTimer requestClock_;  // since the latest request
  double lastLatency_ = -1;
  bool resettingDocument_ = false;
  std::shared_ptr<const ui::TimelineBase> timelineBase_;
  std::function<ui::ColumnView()> columnsSource_;
  ui::PreparedTimeline preparedTimeline_;
  const Trace* baseTrace_ = nullptr;  // the trace timelineBase_ was set for
  QFutureWatcher<QString>* exportWatcher_ = nullptr;  // the predicted trace being written
  std::function<void()> beforeExportWrite_;
  QFutureWatcher<OverheadResult>* overheadWatcher_ = nullptr;  // the running overhead analysis
  quint64 overheadRequest_ = 0, overheadRunning_ = 0;          // the latest request, the one running
  std::optional<std::pair<double, std::shared_ptr<const OverheadProfile>>> overheadWaiting_;
  void startOverheadAnalysis(double quantile, std::shared_ptr<const OverheadProfile> profile);
  QTimer progressTimer_;
  bool progressShown_ = false;
  // The comparison shown, the job making one (B, its alignment, A′), and whether the prediction
  // changed meanwhile (the job then runs again when it ends).
  struct ComparisonJob {
    std::shared_ptr<const Trace> traceB;
    std::shared_ptr<const TraceAlignment> alignment;
    QString pathB;
  };
  void startComparison(ComparisonJob job);
  void dropComparisonJob();  // the running job's result is not wanted
  void onComparisonFinished();
  std::shared_ptr<const ComparisonResult> comparison_;
  QFutureWatcher<std::shared_ptr<const ComparisonResult>>* comparisonWatcher_ = nullptr;
  bool comparisonAgain_ = false;
  TimeNs markAbove_ = -1;
};

}  // namespace perwiz::gui

Q_DECLARE_METATYPE(perwiz::gui::SessionView)
