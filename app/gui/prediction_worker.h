// Background re-simulation: a worker object on its own thread owns the replay engine. Requests
// (trace, network model, cost mode, enabled hypotheses) are coalesced — only the latest one
// waiting is applied — and applied incrementally; a new trace, model or cost mode rebuilds the
// engine. Each prediction is published as an immutable snapshot (PredictionResult): the
// predicted times per rank (shared with the snapshot before for every rank the update did not
// move), the timeline's predicted drawing built here, off the GUI thread, and the numbers for
// status, charts and inspector. Only this worker (and the advisor runner on a fork of its
// engine) includes the engine's header.
#pragma once

#include "prediction_result.h"

#include "perwiz/predicted_times.h"
#include "perwiz/scenario.h"
#include "perwiz/trace.h"
#include "perwiz/widgets/timeline_model.h"

#include <QObject>
#include <QStringList>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <vector>

namespace perwiz {
class Replayer;
struct ReplayControl;
}  // namespace perwiz

namespace perwiz::gui {

struct PredictionRequest {
  std::shared_ptr<const Trace> trace;
  std::shared_ptr<const NetworkModel> model;
  CostMode costs = CostMode::Measured;
  std::vector<Hypothesis> hypotheses;  // the enabled ones
  quint64 generation = 0;
  // The timeline's per-trace data (TimelineView::base()): with it the worker builds the
  // predicted drawing too. Ignored when it belongs to another trace.
  std::shared_ptr<const ui::TimelineBase> base;
  // The timeline's pixel columns as the result will be shown (TimelineView::columnView): the
  // predicted drawing brings its step bands in them. Empty (columns 0): none.
  ui::ColumnView columns;
};

class PredictionWorker : public QObject {
  Q_OBJECT

 public:
  PredictionWorker();
  ~PredictionWorker() override;

  // Thread-safe: replaces any request still waiting and schedules processing. A request for
  // another trace, model or cost mode cancels an engine still being built for the old one.
  void request(PredictionRequest r);
  // Events of the moved ranks above which a change is drawn provisionally first (the earlier
  // drawing's tables moved by the engine's shift, marked on screen) and exactly after it;
  // below, the exact drawing comes at once. Default kProvisionalDrawingEvents (2 * 10^7).
  void setProvisionalDrawingEvents(std::uint64_t events) { provisionalEvents_ = events; }
  static constexpr std::uint64_t kProvisionalDrawingEvents = 20'000'000;
  // Whether spare time arrays may be kept for the next change of each rank (default: while
  // they take at most an eighth of the memory left). Without them a shift shares the previous
  // prediction's arrays (PredictedRank::tail); for tests and benchmarks.
  void setTimeSpares(bool allowed) { timeSpares_ = allowed; }
  // The user zoomed or scrolled (any thread): background work (refine) waits for a quiet view.
  void noteActivity() { activity_.store(std::chrono::steady_clock::now().time_since_epoch().count(), std::memory_order_relaxed); }
  // Thread-safe: stops the prediction of every request up to `generation` within about 0.1 s
  // (the engine's construction or a snapshot; an engine update itself is not interrupted) and
  // drops such requests still waiting. A cancelled construction leaves no engine: the next
  // request builds one. Emits cancelled() once the running one has stopped.
  void cancel(quint64 generation);
  // Thread-safe: what the worker is doing (Stage) and the progress of that, 0..1000.
  // Preparing: the index of incremental updates, built after the first result.
  enum class Stage { Idle, Building, Updating, Snapshot, Preparing };
  Stage stage() const { return stage_.load(); }
  int progressPermille() const;
  bool hasReplayer() const;
  // Thread-safe: no request waits or runs and the work after a result (preparing for changes,
  // spare arrays) is done or stopped.
  bool idle() const;
  // Thread-safe: a job that writes the predicted trace of request `generation`'s prediction
  // (the snapshot on screen) to `path` (saveTrace: its format from the name; throws naming the
  // problem). It works on a fork of the engine taken here, under the engine's lock for that
  // copy only: the worker goes on predicting while the job runs on any thread. Throws
  // std::runtime_error now if no engine exists or it has moved on to another request.
  std::function<void()> predictedTraceWriter(quint64 generation, std::string path) const;
  // Thread-safe: a fork of the current engine (same trace, model, cost mode and applied
  // hypotheses) for background analyses such as the advisor; `trace` receives the trace it
  // refers to, which must be kept alive as long as the fork. nullptr if no engine exists.
  std::unique_ptr<Replayer> forkReplayer(std::shared_ptr<const Trace>* trace) const;

  // The same snapshot without a worker thread (headless export, tests): the prediction of
  // `scenario` on `trace`, with the drawing over `base` when given.
  // Test hook: called on the worker's thread just before an engine's construction starts.
  void setBeforeBuild(std::function<void()> fn) { beforeBuild_ = std::move(fn); }
  // Test hook: called on the worker's thread when it starts preparing for changes (after a
  // first result, Stage::Preparing).
  void setBeforePrepare(std::function<void()> fn) { beforePrepare_ = std::move(fn); }

  static std::shared_ptr<const PredictionResult> predictOnce(std::shared_ptr<const Trace> trace, const Scenario& scenario,
                                                             std::shared_ptr<const ui::TimelineBase> base);

 signals:
  void busy();
  // Progress of a long prediction (the engine's construction, then the snapshot), 0..1000;
  // emitted at most every 50 ms.
  void progress(int permille, const QString& stage);
  void resultReady(std::shared_ptr<const perwiz::gui::PredictionResult> result);
  void failed(const QString& message);
  void cancelled();

 private:
  struct Engine;
  void process();
  bool takeRequest(PredictionRequest& req);
  bool ensureEngine(const PredictionRequest& req);
  void applyHypotheses(const PredictionRequest& req);
  // The snapshot of the engine's state; nullptr when a newer request or a cancel came first.
  std::shared_ptr<const PredictionResult> snapshot(quint64 generation, double seconds,
                                                   const std::shared_ptr<const ui::TimelineBase>& base,
                                                   const ui::ColumnView& columns);
  bool interrupted();  // a newer request waits or cancel() was called
  // Sleeps up to `d` in the worker's idle work; true, at once, when a request or a cancel comes
  // meanwhile (a key pressed while it waits is not delayed by the sleep).
  bool sleepUnlessInterrupted(std::chrono::milliseconds d);
  bool prepareUpdates();  // false: stopped by a request for another engine, or a cancel
  // The engine's construction or preparation, followed and stopped through control_: false
  // when a cancel came first; request() stops it when it asks for another engine.
  bool startControlled(std::shared_ptr<const Trace> trace, std::shared_ptr<const NetworkModel> model, CostMode costs);
  void endControlled();
  // Idle work waits for the view to be quiet for 300 ms (noteActivity); false, at once, when a
  // request or a cancel comes first.
  bool waitForQuietView();
  void prepareSpares();
  void prepareDrawingSpares();
  std::chrono::steady_clock::time_point lastActivity() const {
    return std::chrono::steady_clock::time_point(std::chrono::steady_clock::duration(activity_.load(std::memory_order_relaxed)));
  }
  std::atomic<std::chrono::steady_clock::rep> activity_{0};
  std::atomic<std::uint64_t> provisionalEvents_{kProvisionalDrawingEvents};
  std::atomic<bool> timeSpares_{true};
  // After a provisional result: the exact drawing of the same times, published as a refined
  // result unless a newer request comes first.
  void refine(const std::shared_ptr<const PredictionResult>& provisional,
              const std::shared_ptr<const ui::TimelineBase>& base, const ui::ColumnView& columns);

  mutable std::mutex replayerMutex_;  // guards engine_ and what it refers to
  std::unique_ptr<Engine> engine_;

  mutable std::mutex pendingMutex_;
  std::condition_variable wake_;  // request() and cancel(), for sleepUnlessInterrupted
  std::optional<PredictionRequest> pending_;
  bool scheduled_ = false;
  bool running_ = false;       // a request is being processed
  quint64 runningGeneration_ = 0;
  bool cancelRunning_ = false;  // cancel() reached the request being processed
  // The engine's construction is followed and stopped through control_ (it lives as long as
  // the worker, so progressPermille() may read it any time). While a construction runs,
  // building_ holds what it is for (under pendingMutex_).
  std::unique_ptr<ReplayControl> control_;
  bool building_ = false;
  std::shared_ptr<const Trace> buildingTrace_;
  std::shared_ptr<const NetworkModel> buildingModel_;
  CostMode buildingCosts_ = CostMode::Measured;
  std::atomic<Stage> stage_{Stage::Idle};
  bool oneShot_ = false;
  std::function<void()> beforeBuild_, beforePrepare_;  // predictOnce: no second prediction follows
  std::atomic<int> snapshotPermille_{0};
};

}  // namespace perwiz::gui
