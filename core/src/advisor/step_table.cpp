// Step ranking (paper §3.2, Table 3): σ(t_k) of the per-rank computation in each parallel
// step, and the predicted T if step k alone, or every step, were balanced (σ(t_k) = 0).
#include "prediction_pool.h"

#include <cmath>

namespace perwiz {

std::vector<StepRow> stepTable(const Replayer& base, const AdvisorOptions& options, TimeNs* allBalanced,
                               std::uint64_t* predictions) {
  const std::uint32_t n = static_cast<std::uint32_t>(base.trace().steps.size());
  std::vector<StepRow> rows(n);
  std::vector<std::vector<Hypothesis>> jobs(n);
  for (std::uint32_t k = 0; k < n; ++k) {
    StepRow& row = rows[k];
    row.step = k;
    const std::vector<TimeNs> comp = base.stepComputation(k);
    long double sum = 0;
    for (TimeNs c : comp)
      if (c >= 0) {
        ++row.ranks;
        sum += c;
        row.maxNs = std::max(row.maxNs, c);
      }
    if (row.ranks) {
      const long double mean = sum / row.ranks;
      long double var = 0;
      for (TimeNs c : comp)
        if (c >= 0) var += (c - mean) * (c - mean);
      row.meanNs = static_cast<TimeNs>(std::llround(static_cast<double>(mean)));
      row.sigmaNs = static_cast<TimeNs>(std::llround(std::sqrt(static_cast<double>(var / row.ranks))));
    }
    jobs[k] = {Hypothesis{HypothesisKind::BalanceCompute, {}, k}};
  }
  PredictionPool pool(base, options);
  std::vector<TimeNs> t;
  pool.run(jobs, t, "step ranking", 0, 1);
  for (std::uint32_t k = 0; k < n; ++k) rows[k].predictedNs = t[k];
  if (allBalanced) {
    *allBalanced = base.predictedTime();
    if (n > 0 && !pool.cancelled()) {
      // One full replay with every step balanced (cheaper than n incremental additions).
      auto all = base.fork();
      std::vector<Hypothesis> hs = base.scenario().hypotheses;
      for (std::uint32_t k = 0; k < n; ++k) hs.push_back({HypothesisKind::BalanceCompute, {}, k});
      all->setHypotheses(std::move(hs));
      *allBalanced = all->predictedTime();
      if (predictions) ++*predictions;
    }
  }
  if (predictions) *predictions += pool.predictions();
  return rows;
}

}  // namespace perwiz
