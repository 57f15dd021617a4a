// Background re-simulation: a worker object on its own thread owns the Replayer. Requests
// (trace, network model, cost mode, enabled hypotheses) are coalesced — only the latest one
// waiting is applied — and applied incrementally with Replayer::add/remove; a new trace, model
// or cost mode rebuilds the replayer.
#pragma once

#include "perwiz/replay.h"
#include "perwiz/widgets/timeline_view.h"

#include <QObject>
#include <QStringList>

#include <memory>
#include <mutex>
#include <optional>
#include <vector>

namespace perwiz::gui {

struct PredictionRequest {
  std::shared_ptr<const Trace> trace;
  std::shared_ptr<const NetworkModel> model;
  CostMode costs = CostMode::Measured;
  std::vector<Hypothesis> hypotheses;  // the enabled ones
  quint64 generation = 0;
};

// An immutable snapshot of one prediction, safe to read on the GUI thread.
struct PredictionResult {
  quint64 generation = 0;
  std::shared_ptr<const Trace> trace;
  std::shared_ptr<const Replayer::EventTimes> times;
  std::vector<std::vector<PredictedCall>> calls;                      // [rank][mpiIndex]
  std::shared_ptr<const std::vector<std::vector<TimeNs>>> measuredWaits;  // [rank][mpiIndex]
  std::shared_ptr<const ui::TimelineWaits> waits;  // measured and predicted, for the timeline
  TimeNs measuredTime = 0;
  TimeNs predictedTime = 0;
  std::vector<Hypothesis> rejected;  // enabled hypotheses the replayer refused
  QStringList errors;                // and why
  bool full = false;
  quint64 recomputed = 0;
  double seconds = 0;  // wall time of the update
  QStringList notes;   // ReplayReport notes
  std::shared_ptr<const std::vector<double>> stepSigmaNs;  // σ(t_k) of each step's computation
  std::vector<double> measuredEnd, predictedEnd;            // per rank
  // Per rank, the MPI calls nested inside another (Replayer::nestedCalls): with the trace, what
  // validateHypothesis needs to refuse a hypothesis without asking the live engine.
  std::shared_ptr<const std::vector<std::vector<std::uint32_t>>> nestedCalls;
};

class PredictionWorker : public QObject {
  Q_OBJECT

 public:
  PredictionWorker();
  ~PredictionWorker() override;

  // Thread-safe: replaces any request still waiting and schedules processing.
  void request(PredictionRequest r);
  // Thread-safe: Replayer::validate on the current replayer ("" if valid); "not ready" text
  // if no replayer exists yet.
  std::string validate(const Hypothesis& h) const;
  bool hasReplayer() const;
  // Thread-safe: the predicted trace of the current state. Throws std::runtime_error if no
  // replayer exists.
  Trace predictedTrace() const;
  // Thread-safe: a fork of the current replayer (same trace, model, cost mode and applied
  // hypotheses) for background analyses such as the advisor; `trace` receives the trace it
  // refers to, which must be kept alive as long as the fork. nullptr if no replayer exists.
  std::unique_ptr<Replayer> forkReplayer(std::shared_ptr<const Trace>* trace) const;

 signals:
  void busy();
  void resultReady(std::shared_ptr<const perwiz::gui::PredictionResult> result);
  void failed(const QString& message);

 private:
  void process();
  std::shared_ptr<const PredictionResult> snapshot(quint64 generation, double seconds);
  // Writes the replayer's current state into `r` (caller holds replayerMutex_).
  void fill(PredictionResult& r, quint64 generation, double seconds) const;
  // After a replayer's first result, while no request waits: a second snapshot's memory, so
  // that the first toggle writes into pages it already has (fresh ones cost about 1 s of page
  // faults at 10^7 events; a reused snapshot is written in 0.14 s).
  void prepareSpare();
  // About how much memory one snapshot of the current trace takes (its times, calls, waits).
  std::uint64_t snapshotBytes() const;
  // A spare snapshot is kept only while at least two more would still fit in the memory left
  // (at 10^8 events a snapshot is about 5 GB: there the worker keeps none, as before).
  bool roomForSpare() const;

  mutable std::mutex replayerMutex_;  // guards replayer_ and what it refers to
  std::unique_ptr<Replayer> replayer_;
  std::shared_ptr<const Trace> trace_;
  std::shared_ptr<const NetworkModel> model_;
  CostMode costs_ = CostMode::Measured;
  std::shared_ptr<const std::vector<std::vector<TimeNs>>> measuredWaits_;
  std::shared_ptr<const std::vector<double>> stepSigma_;
  std::shared_ptr<const std::vector<std::vector<std::uint32_t>>> nested_;
  std::vector<double> measuredEnd_;
  std::vector<Hypothesis> rejected_;
  QStringList errors_;
  // The last two snapshots published. A snapshot nobody else holds any more (the views have
  // a newer one) is written over by the next, so that a toggle at 10^7 events writes into
  // pages it already has instead of some 400 MB of fresh ones.
  std::shared_ptr<PredictionResult> recent_, older_;

  std::mutex pendingMutex_;
  std::optional<PredictionRequest> pending_;
  bool scheduled_ = false;
};

}  // namespace perwiz::gui

Q_DECLARE_METATYPE(std::shared_ptr<const perwiz::gui::PredictionResult>)
