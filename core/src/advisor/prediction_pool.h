// Runs many independent predictions on forks of one replay engine, on all cores (internal).
#pragma once

#include "perwiz/advisor.h"
#include "perwiz/replay.h"

#include <memory>
#include <vector>

namespace perwiz {

// T with every parallel step balanced on top of r's scenario: one full replay on r, which
// keeps those hypotheses.
TimeNs allStepsBalanced(Replayer& r);

class PredictionPool {
 public:
  PredictionPool(const Replayer& base, const AdvisorOptions& options);
  // T for each job: the base scenario plus the job's hypotheses (added incrementally, then
  // withdrawn). Returns false if cancelled (unfinished jobs get -1). With a group
  // (AdvisorOptions::group) this process runs jobs rank, rank + P, ... and every process gets
  // every result.
  bool run(const std::vector<std::vector<Hypothesis>>& jobs, std::vector<TimeNs>& out,
           const std::string& stage, double progressFrom = 0, double progressTo = 1);
  std::uint64_t predictions() const { return predictions_; }
  std::size_t threads() const { return threads_; }
  const Replayer& base() const { return base_; }
  bool cancelled() const;
  // A fork of the base for one more prediction of the caller's own, after the batches (it is
  // the first thread's: no fork more when the pool has one). Run no batch after changing it.
  Replayer& spareFork();

 private:
  TimeNs predictOn(Replayer& r, const std::vector<Hypothesis>& job);
  // run() on this process's threads alone.
  bool runHere(const std::vector<std::vector<Hypothesis>>& jobs, std::vector<TimeNs>& out, const std::string& stage,
               double progressFrom, double progressTo);
  // Thread t's replayer: the lent base for the calling thread (t = 0) when there is one, else a fork.
  Replayer& worker(std::size_t t) { return t == 0 && lent_ ? *lent_ : *forks_[lent_ ? t - 1 : t]; }
  const Replayer& base_;
  const AdvisorOptions& options_;
  Replayer* lent_ = nullptr;  // AdvisorOptions::lentBase
  // The base scenario's hypotheses, copied: the lent base's own change while helpers read these.
  std::vector<Hypothesis> present_;
  std::size_t threads_ = 1;
  // Made at the first batch that needs them, not before: the searches' own arrays (the
  // critical path, zeroWaitTimes' passes over the program) are freed by then, so the command's
  // peak holds one or the other, not both (issue #42's budget).
  std::vector<std::unique_ptr<Replayer>> forks_;
  std::uint64_t predictions_ = 0;
};

// The advisor's base on this process: a Replayer, its predictions on a PredictionPool.
class ReplayerBase final : public AdvisorBase {
 public:
  ReplayerBase(const Replayer& base, const AdvisorOptions& options) : base_(base), pool_(base, options) {}
  std::uint32_t rankCount() const override { return static_cast<std::uint32_t>(base_.trace().rankCount()); }
  std::uint32_t callCount(std::uint32_t rank) const override {
    return static_cast<std::uint32_t>(base_.trace().ranks[rank].mpiCalls.size());
  }
  TimeNs predictedTime() const override { return base_.predictedTime(); }
  std::vector<CriticalWait> criticalWaits() override;
  std::vector<TimeNs> zeroWaitTimes(const std::vector<EventRef>& calls) override;
  std::vector<Times> times(const std::vector<EventRef>& calls) override;
  WaitCandidate longestWait() override;
  std::vector<WaitCandidate> otherWaits(std::size_t top, const std::vector<CriticalWait>& excluded) override;
  std::vector<StepRow> stepRows(std::vector<TimeNs>& least) override {
    return perwiz::stepRows(base_.stepComputations(), static_cast<std::uint32_t>(base_.trace().steps.size()),
                            base_.trace().rankCount(), least);
  }
  bool predict(const std::vector<std::vector<Hypothesis>>& jobs, std::vector<TimeNs>& out, const std::string& stage,
               double from, double to) override {
    return pool_.run(jobs, out, stage, from, to);
  }
  TimeNs allStepsBalanced() override { return perwiz::allStepsBalanced(pool_.spareFork()); }
  std::size_t batch() const override { return pool_.threads(); }
  bool cancelled() const override { return pool_.cancelled(); }
  std::uint64_t predictions() const override { return pool_.predictions(); }

 private:
  const Replayer& base_;
  PredictionPool pool_;
};

}  // namespace perwiz
