// Runs many independent predictions on forks of one replay engine, on all cores (internal).
#pragma once

#include "perwiz/advisor.h"
#include "perwiz/replay.h"

#include <memory>
#include <vector>

namespace perwiz {

class PredictionPool {
 public:
  PredictionPool(const Replayer& base, const AdvisorOptions& options);
  // T for each job: the base scenario plus the job's hypotheses (added incrementally, then
  // withdrawn). Returns false if cancelled (unfinished jobs get -1).
  bool run(const std::vector<std::vector<Hypothesis>>& jobs, std::vector<TimeNs>& out,
           const std::string& stage, double progressFrom = 0, double progressTo = 1);
  std::uint64_t predictions() const { return predictions_; }
  std::size_t threads() const { return forks_.size(); }
  const Replayer& base() const { return base_; }
  bool cancelled() const;

 private:
  TimeNs predictOn(Replayer& r, const std::vector<Hypothesis>& job);
  const Replayer& base_;
  const AdvisorOptions& options_;
  std::vector<std::unique_ptr<Replayer>> forks_;
  std::uint64_t predictions_ = 0;
};

}  // namespace perwiz
