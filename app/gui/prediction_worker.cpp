#include "prediction_worker.h"

#include "perwiz/trace_io.h"

#include <QElapsedTimer>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <stdexcept>

namespace perwiz::gui {

PredictionWorker::PredictionWorker() {
  qRegisterMetaType<std::shared_ptr<const PredictionResult>>();
}
PredictionWorker::~PredictionWorker() = default;

void PredictionWorker::request(PredictionRequest r) {
  bool schedule = false;
  {
    std::lock_guard lock(pendingMutex_);
    pending_ = std::move(r);
    if (!scheduled_) scheduled_ = schedule = true;
  }
  if (schedule) QMetaObject::invokeMethod(this, &PredictionWorker::process, Qt::QueuedConnection);
}

std::string PredictionWorker::validate(const Hypothesis& h) const {
  std::lock_guard lock(replayerMutex_);
  if (!replayer_) return "the prediction is not ready yet";
  return replayer_->validate(h);
}

bool PredictionWorker::hasReplayer() const {
  std::lock_guard lock(replayerMutex_);
  return replayer_ != nullptr;
}

Trace PredictionWorker::predictedTrace() const {
  std::lock_guard lock(replayerMutex_);
  if (!replayer_) throw std::runtime_error("the prediction is not ready yet");
  return replayer_->predictedTrace();
}

std::unique_ptr<Replayer> PredictionWorker::forkReplayer(std::shared_ptr<const Trace>* trace) const {
  std::lock_guard lock(replayerMutex_);
  if (!replayer_) return nullptr;
  if (trace) *trace = trace_;
  return replayer_->fork();
}

void PredictionWorker::process() {
  for (;;) {
    PredictionRequest req;
    {
      std::lock_guard lock(pendingMutex_);
      if (!pending_) {
        scheduled_ = false;
        return;
      }
      req = std::move(*pending_);
      pending_.reset();
    }
    emit busy();
    QElapsedTimer timer;
    timer.start();
    try {
      if (!req.trace) {
        std::lock_guard lock(replayerMutex_);
        replayer_.reset();
        trace_.reset();
        continue;
      }
      const bool rebuild = !replayer_ || req.trace != trace_ || req.model != model_ || req.costs != costs_;
      if (rebuild) {
        Scenario s;
        s.model = req.model;
        s.costs = req.costs;
        // Refused with the estimate rather than killed by the kernel part-way (the snapshot
        // copies per-event times beside the engine: about 48 bytes per event).
        requireMemory(req.trace->source, estimateReplayMemory(*req.trace) + 48 * req.trace->eventCount(),
                      "predict its timeline");
        auto fresh = std::make_unique<Replayer>(*req.trace, s);
        fresh->prepareUpdates();  // every toggle is an incremental update: prepare it now
        auto waits = std::make_shared<std::vector<std::vector<TimeNs>>>(req.trace->rankCount());
        for (std::uint32_t r = 0; r < req.trace->rankCount(); ++r) {
          const auto n = req.trace->ranks[r].mpiCalls.size();
          (*waits)[r].resize(n);
          for (std::uint32_t i = 0; i < n; ++i) (*waits)[r][i] = fresh->measuredWait(r, i);
        }
        // σ of each step's per-rank computation (the charts), from the measured trace: a
        // step's balance hypothesis uses the same numbers.
        auto sigmas = std::make_shared<std::vector<double>>();
        for (std::uint32_t k = 0; k < req.trace->steps.size(); ++k) {
          const std::vector<TimeNs> c = fresh->stepComputation(k);
          double sum = 0, sq = 0, n = 0;
          for (TimeNs v : c)
            if (v >= 0) sum += double(v), sq += double(v) * double(v), n += 1;
          const double mean = n > 0 ? sum / n : 0;
          sigmas->push_back(n > 0 ? std::sqrt(std::max(0.0, sq / n - mean * mean)) : 0);
        }
        std::vector<double> ends(req.trace->rankCount(), 0);
        for (std::uint32_t r = 0; r < req.trace->rankCount(); ++r)
          if (!req.trace->ranks[r].leave.empty())
            ends[r] = std::max(ends[r], double(req.trace->ranks[r].leave.maxValue() - req.trace->startTime));
        std::lock_guard lock(replayerMutex_);
        stepSigma_ = std::move(sigmas);
        nested_ = std::make_shared<const std::vector<std::vector<std::uint32_t>>>(fresh->nestedCalls());
        measuredEnd_ = std::move(ends);
        recent_.reset();  // snapshots of the old replayer are not written over any more
        older_.reset();
        replayer_ = std::move(fresh);  // the old replayer goes before the trace it refers to
        trace_ = req.trace;
        model_ = req.model;
        costs_ = req.costs;
        measuredWaits_ = std::move(waits);
      }
      std::vector<Hypothesis> desired = req.hypotheses;
      std::sort(desired.begin(), desired.end());
      desired.erase(std::unique(desired.begin(), desired.end()), desired.end());
      {
        std::lock_guard lock(replayerMutex_);
        const std::vector<Hypothesis> current = replayer_->scenario().hypotheses;  // sorted
        std::vector<Hypothesis> drop, take;
        std::set_difference(current.begin(), current.end(), desired.begin(), desired.end(),
                            std::back_inserter(drop));
        std::set_difference(desired.begin(), desired.end(), current.begin(), current.end(),
                            std::back_inserter(take));
        rejected_.clear();
        errors_.clear();
        for (const auto& h : drop) replayer_->remove(h);
        for (const auto& h : take) {
          std::string error;
          if (!replayer_->add(h, &error)) {
            rejected_.push_back(h);
            errors_ << QString::fromStdString(h.toString() + ": " + error);
          }
        }
      }
      {
        std::lock_guard lock(pendingMutex_);
        if (pending_) continue;  // a newer request waits: show only its result
      }
      // A prediction past the int64 ns range is not a result (docs/model.md, "Limits"): report
      // why and keep the last snapshot on screen; undoing the hypothesis brings a result back.
      std::string overflow;
      {
        std::lock_guard lock(replayerMutex_);
        overflow = replayer_->overflow();
      }
      if (!overflow.empty()) {
        emit failed(QString::fromStdString(req.trace->source + ": " + overflow));
        continue;
      }
      emit resultReady(snapshot(req.generation, timer.nsecsElapsed() / 1e9));
      {
        std::lock_guard lock(pendingMutex_);
        if (pending_) continue;
      }
      prepareSpare();
    } catch (const std::exception& e) {
      emit failed(QString::fromStdString(e.what()));
    }
  }
}

std::uint64_t PredictionWorker::snapshotBytes() const {
  if (!trace_) return 0;
  // 16 B per event (predicted enter and leave), 40 B per MPI call (its PredictedCall, its
  // measured and predicted wait).
  return 16 * trace_->eventCount() + 40 * trace_->mpiCallCount() + 4096 * trace_->rankCount();
}

bool PredictionWorker::roomForSpare() const { return availableMemory() / 2 > snapshotBytes(); }

void PredictionWorker::prepareSpare() {
  std::lock_guard lock(replayerMutex_);
  if (older_ || !replayer_ || !measuredWaits_ || !roomForSpare()) return;
  auto spare = std::make_shared<PredictionResult>();
  fill(*spare, 0, 0);  // writes every page the next snapshot will reuse
  older_ = std::move(spare);
}

std::shared_ptr<const PredictionResult> PredictionWorker::snapshot(quint64 generation, double seconds) {
  std::lock_guard lock(replayerMutex_);
  // Reuse the older snapshot's memory when only this worker still holds it; otherwise a fresh one.
  // (use_count() is a relaxed load; the acquire fence in fill() orders our writes after the
  // other threads' last reads, which their reference release published.)
  std::shared_ptr<PredictionResult> r;
  if (older_ && older_.use_count() == 1 && older_->trace == trace_) r = std::move(older_);
  else r = std::make_shared<PredictionResult>();
  older_ = std::move(recent_);
  recent_ = r;
  fill(*r, generation, seconds);
  if (older_ && !roomForSpare()) older_.reset();  // memory is short: no spare (fresh pages again)
  return r;
}

void PredictionWorker::fill(PredictionResult& r, quint64 generation, double seconds) const {
  // Its times and waits are written over when only this snapshot holds them (a view may still
  // hold the previous ones), else replaced by fresh ones.
  auto times = std::const_pointer_cast<Replayer::EventTimes>(r.times);
  r.times.reset();
  if (!times || times.use_count() != 1) times = std::make_shared<Replayer::EventTimes>();
  auto waits = std::const_pointer_cast<ui::TimelineWaits>(r.waits);
  r.waits.reset();
  if (!waits || waits.use_count() != 1) waits = std::make_shared<ui::TimelineWaits>();
  std::atomic_thread_fence(std::memory_order_acquire);
  r.generation = generation;
  r.trace = trace_;
  replayer_->predictedEventTimes(*times);
  r.times = times;
  r.calls.resize(trace_->rankCount());
  for (std::uint32_t rank = 0; rank < trace_->rankCount(); ++rank) {
    const auto n = trace_->ranks[rank].mpiCalls.size();
    r.calls[rank].resize(n);
    for (std::uint32_t i = 0; i < n; ++i) r.calls[rank][i] = replayer_->predicted(rank, i);
  }
  r.measuredWaits = measuredWaits_;
  waits->measured = *measuredWaits_;
  waits->predicted.resize(r.calls.size());
  for (std::size_t rank = 0; rank < r.calls.size(); ++rank) {
    auto& out = waits->predicted[rank];
    out.resize(r.calls[rank].size());
    for (std::size_t i = 0; i < out.size(); ++i) out[i] = r.calls[rank][i].wait;
  }
  r.waits = std::move(waits);
  r.measuredTime = replayer_->measuredTime();
  r.predictedTime = replayer_->predictedTime();
  r.rejected = rejected_;
  r.errors = errors_;
  r.full = replayer_->lastUpdate().full;
  r.recomputed = replayer_->lastUpdate().recomputed;
  r.seconds = seconds;
  r.notes.clear();
  for (const auto& n : replayer_->report().notes) r.notes << QString::fromStdString(n);
  r.stepSigmaNs = stepSigma_;
  r.nestedCalls = nested_;
  r.measuredEnd = measuredEnd_;
  r.predictedEnd.assign(trace_->rankCount(), 0);
  for (std::size_t rank = 0; rank < r.times->leave.size(); ++rank)
    for (TimeNs l : r.times->leave[rank])
      r.predictedEnd[rank] = std::max(r.predictedEnd[rank], double(l - trace_->startTime));
}

}  // namespace perwiz::gui
