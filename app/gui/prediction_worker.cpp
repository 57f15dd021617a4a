#include "prediction_worker.h"
#include "units.h"

#include <chrono>

#include "perwiz/advisor.h"
#include "perwiz/rank_parallel.h"
#include "perwiz/replay.h"
#include "perwiz/trace_io.h"

#include <QElapsedTimer>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <stdexcept>

namespace perwiz::gui {

namespace {
// Thrown out of a snapshot's per-rank work when a newer request or a cancel came first.
struct Interrupted {};
}  // namespace

// The engine and what the worker keeps beside it (under replayerMutex_).
struct PredictionWorker::Engine {
  std::shared_ptr<const Trace> trace;   // declared first: destroyed after the engine using it
  std::unique_ptr<Replayer> replayer;
  std::shared_ptr<const NetworkModel> model;
  CostMode costs = CostMode::Measured;
  quint64 generation = 0;  // of the request whose hypotheses the engine holds
  std::shared_ptr<const std::vector<TimeColumn>> measuredWaits;  // [rank][mpiIndex]
  std::shared_ptr<const std::vector<double>> stepSigma;
  std::shared_ptr<const std::vector<std::vector<std::uint32_t>>> nested;
  std::vector<double> measuredEnd;
  std::vector<Hypothesis> rejected;
  QStringList errors;
  // Ranks the engine moved since the last published snapshot (all, before the first).
  std::vector<std::uint8_t> moved;
  // The last snapshot's times and drawing: a new snapshot shares every rank it did not move.
  std::shared_ptr<const PredictedTimes> lastTimes;
  std::shared_ptr<const ui::Drawing> lastDrawing;
  // The drawing lastDrawing replaced (harvested into drawingSpares once the view lets it go),
  // and the arrays the next drawing writes into (ui::DrawingSpares).
  std::shared_ptr<const ui::Drawing> olderDrawing;
  ui::DrawingSpares drawingSpares;
  // Per rank, the array the last snapshot replaced: written over by the next change of the
  // rank when nobody holds it any more (pages it already has instead of fresh ones: a fresh
  // 10^7-event snapshot costs about 1 s of page faults, a reused one a tenth of that). Kept
  // only while they take an eighth of the memory left (roomForTimeSpares).
  std::vector<std::shared_ptr<const PredictedRank>> older;
  bool prepared = false;  // prepareUpdates() done (its index is also built at the first update)

  // Spare drawings are kept only while two more snapshots fit in `available`, and only up to
  // kSpareDrawingEvents events: beyond, a change moves ranks by a uniform shift (the drawing
  // shares the previous one's arrays) or is drawn provisionally first, and the spares went
  // unused (64 × 10^8, issue #40: the toggles' final frames 0.84–0.91 s without them, 0.90–0.98
  // s with them on the same machine; 0.18 GB more at the peak).
  static constexpr std::uint64_t kSpareDrawingEvents = 50'000'000;
  bool roomForSpares(std::uint64_t available) const {
    return trace->eventCount() <= kSpareDrawingEvents && available / 2 > snapshotBytes();
  }
  // Spare times serve the changes that recompute whole ranks (a shift shares the arrays it
  // moves, PredictedRank::tail): they are kept only while they take at most an eighth of the
  // memory left (at 64 ranks × 10^8 events they would be 2.2 GB; issue #40's 8 GB).
  bool roomForTimeSpares(std::uint64_t available) const { return available / 8 > snapshotBytes(); }

  std::uint64_t snapshotBytes() const {
    // 16 B per event (predicted enter and leave), 8 B per MPI call (its wait).
    return 16 * trace->eventCount() + 8 * trace->mpiCallCount() + 4096 * trace->rankCount();
  }

  // Engine updates since the last published snapshot: after exactly one that ended in a
  // uniform shift (UpdateStats::shiftAfterCall), a moved rank's new times are the last
  // snapshot's shifted past the cut (Replayer::predictedRankShifted), a copy instead of a mapping.
  std::uint32_t updatesSinceSnapshot = 0;

  // Rank r's prediction for the next snapshot (ranks in parallel, one thread each). A shifted
  // rank shares the previous arrays past the cut (PredictedRank::tail: no copy); another moved
  // rank is written into its spare when nobody reads it any more (use_count() is a relaxed
  // load: the fence orders our writes after the other threads' last reads, which their
  // release published), else into fresh memory. `first`: the first event the shift moved.
  std::shared_ptr<PredictedRank> predictRank(std::uint32_t r, bool shifted, std::uint32_t& first) {
    const bool shares = shifted && r < replayer->lastUpdate().shiftAfterCall.size();
    const bool spare = !shares && older[r] && older[r].use_count() == 1;
    if (spare) std::atomic_thread_fence(std::memory_order_acquire);
    std::shared_ptr<PredictedRank> out =
        spare ? std::const_pointer_cast<PredictedRank>(std::move(older[r])) : std::make_shared<PredictedRank>();
    if (spare) older[r].reset();
    if (shifted)
      first = replayer->predictedRankShifted(r, lastTimes->ranks[r], *out);
    else
      replayer->predictedRank(r, *out);
    return out;
  }

  void noteUpdate() {
    for (std::uint32_t r : replayer->lastUpdate().ranks) moved[r] = 1;
    ++updatesSinceSnapshot;
  }

  static std::unique_ptr<Engine> build(const PredictionRequest& req, ReplayControl* control) {
    auto e = std::make_unique<Engine>();
    Scenario s;
    s.model = req.model;
    s.costs = req.costs;
    // Refused with the estimate rather than killed by the kernel part-way: beside the engine,
    // a snapshot holds the per-event times (about 8 bytes per event, 4 per call) and its
    // drawing indexes them (about 5 per event), and the next one is written while it is shown.
    requireMemory(req.trace->source, estimateReplayMemory(*req.trace) + 40 * req.trace->eventCount(),
                  "predict its timeline");
    e->replayer = std::make_unique<Replayer>(*req.trace, s, control);
    e->trace = req.trace;
    e->model = req.model;
    e->costs = req.costs;
    const Trace& t = *req.trace;
    const std::uint32_t R = std::uint32_t(t.rankCount());
    auto waits = std::make_shared<std::vector<TimeColumn>>(R);
    forEachRank(R, t.eventCount(), [&](std::uint32_t r) {
      const auto n = t.ranks[r].mpiCalls.size();
      (*waits)[r].reserve(n);
      for (std::uint32_t i = 0; i < n; ++i) (*waits)[r].push_back(e->replayer->measuredWait(r, i));
    });
    e->measuredWaits = std::move(waits);
    // σ of each step's per-rank computation (the charts), from the measured trace: a step's
    // balance hypothesis uses the same numbers. All steps in one pass per rank (a search per
    // step and rank took 2 s at 256 ranks × 10^7 events).
    auto sigmas = std::make_shared<std::vector<double>>();
    const std::vector<TimeNs> computation = e->replayer->stepComputations();
    for (std::size_t k = 0; k < t.steps.size(); ++k)
      sigmas->push_back(double(computationSpread({computation.data() + k * R, R}).sigmaNs));  // the advisor's σ
    e->stepSigma = std::move(sigmas);
    e->nested = std::make_shared<const std::vector<std::vector<std::uint32_t>>>(e->replayer->nestedCalls());
    e->measuredEnd.assign(R, 0);
    for (std::uint32_t r = 0; r < R; ++r)
      if (!t.ranks[r].leave.empty())
        e->measuredEnd[r] = std::max(e->measuredEnd[r], double(t.ranks[r].leave.maxValue() - t.startTime));
    e->moved.assign(R, 1);
    e->older.resize(R);
    return e;
  }
};

PredictionWorker::PredictionWorker() : control_(std::make_unique<ReplayControl>()) {
  qRegisterMetaType<std::shared_ptr<const PredictionResult>>();
}

PredictionWorker::~PredictionWorker() = default;

void PredictionWorker::request(PredictionRequest r) {
  bool schedule = false;
  {
    std::lock_guard lock(pendingMutex_);
    // An engine being built for another trace, model or cost mode is of no use any more.
    if (building_ && (r.trace != buildingTrace_ || r.model != buildingModel_ || r.costs != buildingCosts_))
      control_->cancel = true;
    pending_ = std::move(r);
    if (!scheduled_) scheduled_ = schedule = true;
  }
  wake_.notify_all();
  if (schedule) QMetaObject::invokeMethod(this, &PredictionWorker::process, Qt::QueuedConnection);
}

void PredictionWorker::cancel(quint64 generation) {
  {
    std::lock_guard lock(pendingMutex_);
    if (pending_ && pending_->generation <= generation) pending_.reset();
    if (running_ && runningGeneration_ <= generation) {
      cancelRunning_ = true;
      if (building_) control_->cancel = true;
    }
  }
  wake_.notify_all();
}

int PredictionWorker::progressPermille() const {
  switch (stage_.load()) {
    case Stage::Building:
    case Stage::Preparing: return static_cast<int>(control_->permille.load());
    case Stage::Snapshot: return snapshotPermille_.load();
    default: return 0;
  }
}

bool PredictionWorker::interrupted() {
  std::lock_guard lock(pendingMutex_);
  return pending_.has_value() || cancelRunning_;
}

bool PredictionWorker::sleepUnlessInterrupted(std::chrono::milliseconds d) {
  std::unique_lock lock(pendingMutex_);
  return wake_.wait_for(lock, d, [&] { return pending_.has_value() || cancelRunning_; });
}

bool PredictionWorker::idle() const {
  std::lock_guard lock(pendingMutex_);
  return !running_ && !pending_;
}

bool PredictionWorker::hasReplayer() const {
  std::lock_guard lock(replayerMutex_);
  return engine_ != nullptr;
}

std::function<void()> PredictionWorker::predictedTraceWriter(quint64 generation, std::string path) const {
  // The fork refers to the trace: members are destroyed in reverse order, the fork first.
  struct Job {
    std::shared_ptr<const Trace> trace;
    std::unique_ptr<const Replayer> fork;
    std::string path;
  };
  auto job = std::make_shared<Job>();
  {
    std::lock_guard lock(replayerMutex_);
    if (!engine_) throw std::runtime_error("the prediction is not ready yet");
    if (engine_->generation != generation)
      throw std::runtime_error("the scenario changed since the prediction shown; export it again");
    job->trace = engine_->trace;
    job->fork = engine_->replayer->fork();
  }
  job->path = std::move(path);
  return [job] { saveTrace(job->fork->predictedTrace(), job->path); };
}

std::unique_ptr<Replayer> PredictionWorker::forkReplayer(std::shared_ptr<const Trace>* trace) const {
  std::lock_guard lock(replayerMutex_);
  if (!engine_) return nullptr;
  if (trace) *trace = engine_->trace;
  return engine_->replayer->fork();
}

// The next request, or false once none waits (the worker then goes idle).
bool PredictionWorker::takeRequest(PredictionRequest& req) {
  std::lock_guard lock(pendingMutex_);
  if (!pending_) {
    scheduled_ = false;
    running_ = false;
    return false;
  }
  req = std::move(*pending_);
  pending_.reset();
  running_ = true;
  runningGeneration_ = req.generation;
  cancelRunning_ = false;
  return true;
}

bool PredictionWorker::startControlled(std::shared_ptr<const Trace> trace, std::shared_ptr<const NetworkModel> model,
                                       CostMode costs) {
  std::lock_guard lock(pendingMutex_);
  if (cancelRunning_) return false;
  control_->cancel = false;
  control_->permille = 0;
  building_ = true;
  buildingTrace_ = std::move(trace);
  buildingModel_ = std::move(model);
  buildingCosts_ = costs;
  return true;
}

void PredictionWorker::endControlled() {
  std::lock_guard lock(pendingMutex_);
  building_ = false;
  buildingTrace_.reset();
  buildingModel_.reset();
}

bool PredictionWorker::waitForQuietView() {
  using Clock = std::chrono::steady_clock;
  for (;;) {
    if (interrupted()) return false;
    if (Clock::now() - lastActivity() >= std::chrono::milliseconds(300)) return true;
    if (sleepUnlessInterrupted(std::chrono::milliseconds(10))) return false;
  }
}

// The engine for the request's trace, network model and cost mode: the one there, or one built
// afresh. False: the request was cancelled before the build started.
bool PredictionWorker::ensureEngine(const PredictionRequest& req) {
  {
    std::lock_guard lock(replayerMutex_);
    const bool rebuild =
        !engine_ || req.trace != engine_->trace || req.model != engine_->model || req.costs != engine_->costs;
    if (!rebuild) return true;
    engine_.reset();  // its memory first: the new engine may need it
  }
  if (!startControlled(req.trace, req.model, req.costs)) return false;
  stage_ = Stage::Building;
  if (beforeBuild_) beforeBuild_();
  std::unique_ptr<Engine> fresh;
  std::exception_ptr error;
  try {
    fresh = Engine::build(req, control_.get());
  } catch (...) {
    error = std::current_exception();
  }
  endControlled();
  stage_ = Stage::Idle;
  if (error) std::rethrow_exception(error);
  std::lock_guard lock(replayerMutex_);
  engine_ = std::move(fresh);
  return true;
}

// The engine's hypotheses become the request's: the others withdrawn, the new ones added one by
// one (those it refuses are noted with the reason).
void PredictionWorker::applyHypotheses(const PredictionRequest& req) {
  std::vector<Hypothesis> desired = req.hypotheses;
  std::sort(desired.begin(), desired.end());
  desired.erase(std::unique(desired.begin(), desired.end()), desired.end());
  std::lock_guard lock(replayerMutex_);
  Engine& e = *engine_;
  const std::vector<Hypothesis> current = e.replayer->scenario().hypotheses;  // sorted
  std::vector<Hypothesis> drop, take;
  std::set_difference(current.begin(), current.end(), desired.begin(), desired.end(), std::back_inserter(drop));
  std::set_difference(desired.begin(), desired.end(), current.begin(), current.end(), std::back_inserter(take));
  e.rejected.clear();
  e.errors.clear();
  for (const auto& h : drop) {
    e.replayer->remove(h);
    e.noteUpdate();
  }
  for (const auto& h : take) {
    std::string why;
    if (!e.replayer->add(h, &why)) {
      e.rejected.push_back(h);
      e.errors << QString::fromStdString(h.toString() + ": " + why);
    } else {
      e.noteUpdate();
    }
  }
  e.generation = req.generation;
}

void PredictionWorker::process() {
  PredictionRequest req;
  while (takeRequest(req)) {
    emit busy();
    QElapsedTimer timer;
    timer.start();
    try {
      if (!req.trace) {
        std::lock_guard lock(replayerMutex_);
        engine_.reset();
        continue;
      }
      if (!ensureEngine(req)) {
        emit cancelled();
        continue;
      }
      stage_ = Stage::Updating;
      applyHypotheses(req);
      stage_ = Stage::Idle;
      const double engineSeconds = double(timer.nsecsElapsed()) / 1e9;
      if (interrupted()) {  // a newer request waits: show only its result
        std::lock_guard lock(pendingMutex_);
        if (!pending_) emit cancelled();
        continue;
      }
      // A prediction past the int64 ns range is not a result (docs/model.md, "Limits"): report
      // why and keep the last snapshot on screen; undoing the hypothesis brings a result back.
      std::string overflow;
      {
        std::lock_guard lock(replayerMutex_);
        overflow = engine_->replayer->overflow();
      }
      if (!overflow.empty()) {
        emit failed(QString::fromStdString(req.trace->source + ": " + overflow));
        continue;
      }
      auto result = snapshot(req.generation, engineSeconds, req.base, req.columns);
      if (!result) {
        std::lock_guard lock(pendingMutex_);
        if (!pending_) emit cancelled();
        continue;
      }
      const bool provisional = result->provisional;
      emit resultReady(result);
      if (provisional && !oneShot_) refine(result, req.base, req.columns);
      if (!oneShot_ && prepareUpdates()) {
        prepareSpares();
        prepareDrawingSpares();
      }
    } catch (const ReplayCancelled&) {
      stage_ = Stage::Idle;
      std::lock_guard lock(pendingMutex_);
      if (!pending_) emit cancelled();  // else superseded: the loop goes on with the newer one
    } catch (const std::exception& e) {
      stage_ = Stage::Idle;
      emit failed(QString::fromStdString(e.what()));
    }
  }
}

void PredictionWorker::refine(const std::shared_ptr<const PredictionResult>& provisional,
                              const std::shared_ptr<const ui::TimelineBase>& base, const ui::ColumnView& columns) {
  // At once, on every core: the provisional frame is marked as such and the user waits for
  // this one (issue #40). Only zooming or scrolling (noteActivity) comes first: the build
  // waits for 300 ms without one and starts again after one, so that the frames of a zoom
  // do not share the cores with it; a newer request ends it (it then draws from the
  // provisional drawing).
  using Clock = std::chrono::steady_clock;
  std::shared_ptr<const ui::Drawing> exact;
  while (!exact) {
    if (!waitForQuietView()) return;
    std::lock_guard lock(replayerMutex_);
    Engine& e = *engine_;
    if (!base || e.lastTimes != provisional->times) return;  // not the engine's last snapshot
    const auto started = Clock::now();
    // Over the provisional drawing: only its ranks drawn from pieces are built again; the other
    // ranks and the arrows (exact already) are its own.
    exact = ui::buildDrawing(
        base, provisional->times, provisional->drawing.get(), nullptr,
        [&] { return interrupted() || lastActivity() > started; }, &e.drawingSpares, &columns);
    if (exact) {
      e.olderDrawing = std::move(e.lastDrawing);
      e.lastDrawing = exact;
    }
  }
  auto r = std::make_shared<PredictionResult>(*provisional);
  r->drawing = std::move(exact);
  r->provisional = false;
  r->refined = true;
  emit resultReady(std::move(r));
}

bool PredictionWorker::prepareUpdates() {
  // Every toggle is an incremental update. Its index (who reads whose time: 0.9 s at 10^7
  // events, 26 s at 10^8) is built after the first result is shown rather than before (issue
  // #40): a key pressed meanwhile waits for it as it waited for the first result. The index is
  // shared with forks and built without the engine's lock, so that an export or the advisor can
  // fork the engine meanwhile; another trace, model or cost mode requested stops it.
  if (engine_->prepared) return true;
  if (!startControlled(engine_->trace, engine_->model, engine_->costs))
    return false;  // request() stops it for another engine
  stage_ = Stage::Preparing;
  if (beforePrepare_) beforePrepare_();
  bool done = true;
  try {
    engine_->replayer->prepareIndex(control_.get());  // engine_ is replaced on this thread only
    std::lock_guard lock(replayerMutex_);
    engine_->replayer->prepareUpdates(control_.get());  // the rest of it (today nothing more), under the lock
    engine_->prepared = true;
  } catch (const ReplayCancelled&) {
    done = false;  // prepared at the next toggle or for the next engine
  }
  endControlled();
  stage_ = Stage::Idle;
  return done;
}

void PredictionWorker::prepareSpares() {
  // While idle after a result: a spare array per rank, its pages touched, for the next change
  // of each rank to write into (fresh pages cost a snapshot about as much again as the copy),
  // while two more snapshots fit in the memory left. Background work: it waits while the view
  // zooms or scrolls (noteActivity; its page faults would take a core from the frames), without
  // holding the engine's lock, and a new request stops it at the next rank.
  const std::uint64_t available = availableMemory();
  for (std::uint32_t r = 0;; ++r) {
    if (!waitForQuietView()) return;
    std::lock_guard lock(replayerMutex_);
    if (!engine_) return;
    Engine& e = *engine_;
    const Trace& t = *e.trace;
    if (r >= t.rankCount() || !timeSpares_ || !e.roomForTimeSpares(available)) return;
    if (e.older[r]) continue;
    auto spare = std::make_shared<PredictedRank>();
    spare->prepare(t.ranks[r].size(), t.ranks[r].mpiCalls.size());
    e.older[r] = std::move(spare);
  }
}

void PredictionWorker::prepareDrawingSpares() {
  // The same for the predicted drawing's arrays (ui::DrawingSpares): the replaced drawing's
  // once the view let it go, then fresh ones the size of the last drawing's, their pages
  // touched, for the next drawing to write into (a drawing into fresh memory took two to three
  // times one into memory it had: the first toggle that moved every rank, issue #40). On this
  // thread only (drawingSpares is the worker's), without the engine's lock.
  using Clock = std::chrono::steady_clock;
  std::shared_ptr<const ui::Drawing> like;
  ui::DrawingSpares* spares = nullptr;
  {
    std::lock_guard lock(replayerMutex_);
    if (!engine_ || !engine_->roomForSpares(availableMemory())) return;
    like = engine_->lastDrawing;
    spares = &engine_->drawingSpares;
  }
  if (!like) return;
  for (;;) {
    if (!waitForQuietView()) return;
    {
      // By now the view shows the last drawing and has let the one before go.
      std::lock_guard lock(replayerMutex_);
      engine_->drawingSpares.harvest(engine_->olderDrawing);
    }
    const auto started = Clock::now();
    if (spares->fill(*like, [&] { return interrupted() || lastActivity() > started; })) return;
  }
}

std::shared_ptr<const PredictionResult> PredictionWorker::snapshot(quint64 generation, double seconds,
                                                                   const std::shared_ptr<const ui::TimelineBase>& base,
                                                                   const ui::ColumnView& columns) {
  std::lock_guard lock(replayerMutex_);
  Engine& e = *engine_;
  const Trace& t = *e.trace;
  const std::uint32_t R = std::uint32_t(t.rankCount());
  QElapsedTimer timer;
  timer.start();
  stage_ = Stage::Snapshot;
  snapshotPermille_ = 0;
  struct StageReset {
    std::atomic<Stage>& s;
    ~StageReset() { s = Stage::Idle; }
  } reset{stage_};

  // The drawing before the last one, if the view let it go, gives its arrays to the next
  // drawing; it is dropped either way before the copy: it holds its times (Drawing::source),
  // whose arrays the copy below reuses when nothing else holds them.
  e.drawingSpares.harvest(e.olderDrawing);
  e.olderDrawing.reset();
  std::vector<std::uint32_t> copy;
  for (std::uint32_t r = 0; r < R; ++r)
    if (e.moved[r] || !e.lastTimes) copy.push_back(r);
  auto times = std::make_shared<PredictedTimes>();
  times->ranks = e.lastTimes ? e.lastTimes->ranks : std::vector<std::shared_ptr<const PredictedRank>>(R);
  const std::uint64_t available = availableMemory();
  const bool keepOlder = e.roomForSpares(available), keepOlderTimes = timeSpares_ && e.roomForTimeSpares(available);
  const bool shifted = e.lastTimes && e.updatesSinceSnapshot == 1 && !e.replayer->lastUpdate().shiftAfterCall.empty();
  // The drawing then moves the previous one's tables past the cut (ui::DrawingShift), which
  // keeps earlier drawings' tables alive until the exact drawing replaces it: one per piece at
  // most, so only while that many more fit in the memory left; and only where an exact drawing
  // of the moved ranks would take long (provisionalEvents_). An exact drawing costs about 11 ns
  // per event on two cores (BM_SetPrediction), so below 2 * 10^7 events it is built at once and
  // the first frame of a change is its final one (issue #40).
  std::uint64_t movedEvents = 0;
  for (std::uint32_t r : copy) movedEvents += t.ranks[r].size();
  // Below that the arrows and step samples still take the shift (exact: shiftedChannel).
  ui::DrawingShift drawShift;
  if (shifted) {
    drawShift.delta = e.replayer->lastUpdate().shift;
    drawShift.firstEvent.assign(R, 0);
    drawShift.tables = movedEvents > provisionalEvents_ &&
                       available / ui::kMaxDrawingPieces > e.snapshotBytes();  // tables are smaller than times
  }
  std::atomic<std::uint32_t> done{0};
  try {
    forEachRank(std::uint32_t(copy.size()), t.eventCount(), [&](std::uint32_t i) {
        if (interrupted()) throw Interrupted{};
        const std::uint32_t r = copy[i];
        std::uint32_t first = 0;
        std::shared_ptr<PredictedRank> out = e.predictRank(r, shifted, first);
        if (!drawShift.firstEvent.empty()) drawShift.firstEvent[r] = first;
        times->ranks[r] = std::move(out);
        snapshotPermille_ = static_cast<int>(++done * 800 / std::max<std::size_t>(1, copy.size()));
    });
  } catch (const Interrupted&) {
    return nullptr;  // the moved ranks stay marked for the next snapshot
  }
  for (const auto& rank : times->ranks) times->end = std::max(times->end, rank->end);

  std::shared_ptr<const ui::Drawing> drawing;
  if (base && interrupted()) return nullptr;
  QElapsedTimer drawTimer;
  drawTimer.start();
  if (base)
    drawing = ui::buildDrawing(base, times, e.lastDrawing.get(), drawShift.firstEvent.empty() ? nullptr : &drawShift,
                               {}, keepOlder ? &e.drawingSpares : nullptr, &columns);
  if (!keepOlder) e.drawingSpares.clear();
  const double drawingSeconds = double(drawTimer.nsecsElapsed()) / 1e9;
  snapshotPermille_ = 1000;

  // Published: the replaced arrays become the spares of their ranks.
  for (std::uint32_t r : copy) {
    if (!keepOlderTimes)
      e.older[r].reset();
    else if (e.lastTimes && !e.older[r])
      e.older[r] = e.lastTimes->ranks[r];  // a rank that used its spare
    e.moved[r] = 0;
  }
  e.updatesSinceSnapshot = 0;
  e.lastTimes = times;
  e.olderDrawing = std::move(e.lastDrawing);
  e.lastDrawing = drawing;

  auto r = std::make_shared<PredictionResult>();
  r->generation = generation;
  r->trace = e.trace;
  r->times = times;
  r->drawing = std::move(drawing);
  r->measuredWaits = e.measuredWaits;
  r->measuredTime = e.replayer->measuredTime();
  r->predictedTime = e.replayer->predictedTime();
  r->applied = e.replayer->scenario().hypotheses;
  r->network = describeNetwork(e.model.get(), e.costs);
  r->rejected = e.rejected;
  r->errors = e.errors;
  r->full = e.replayer->lastUpdate().full;
  r->recomputed = e.replayer->lastUpdate().recomputed;
  r->shifted = e.replayer->lastUpdate().shifted;
  r->provisional = r->drawing && ui::isProvisional(*r->drawing);
  r->changedRanks = std::uint32_t(copy.size());
  r->seconds = seconds;
  for (const auto& n : e.replayer->report().notes) r->notes << QString::fromStdString(n);
  r->stepSigmaNs = e.stepSigma;
  r->nestedCalls = e.nested;
  r->measuredEnd = e.measuredEnd;
  r->predictedEnd.resize(R);
  for (std::uint32_t k = 0; k < R; ++k) r->predictedEnd[k] = double(times->ranks[k]->end - t.startTime);
  r->snapshotSeconds = double(timer.nsecsElapsed()) / 1e9;
  r->drawingSeconds = drawingSeconds;
  return r;
}

std::shared_ptr<const PredictionResult> PredictionWorker::predictOnce(std::shared_ptr<const Trace> trace,
                                                                      const Scenario& scenario,
                                                                      std::shared_ptr<const ui::TimelineBase> base) {
  PredictionWorker w;
  w.oneShot_ = true;
  PredictionRequest req;
  req.trace = std::move(trace);
  req.model = scenario.model;
  req.costs = scenario.costs;
  req.hypotheses = scenario.hypotheses;
  req.generation = 1;
  req.base = std::move(base);
  std::shared_ptr<const PredictionResult> out;
  QString error;
  QObject::connect(&w, &PredictionWorker::resultReady, [&](std::shared_ptr<const PredictionResult> r) { out = std::move(r); });
  QObject::connect(&w, &PredictionWorker::failed, [&](const QString& m) { error = m; });
  {
    std::lock_guard lock(w.pendingMutex_);
    w.pending_ = std::move(req);
    w.scheduled_ = true;
  }
  w.process();  // on this thread: the signals above are direct calls
  if (!out) throw std::runtime_error(error.isEmpty() ? "no prediction" : error.toStdString());
  return out;
}

}  // namespace perwiz::gui
