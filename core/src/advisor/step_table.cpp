// Step ranking (paper §3.2, Table 3): σ(t_k) of the per-rank computation in each parallel
// step, and the predicted T if step k alone, or every step, were balanced (σ(t_k) = 0).
#include "prediction_pool.h"

#include "perwiz/process_group.h"
#include "perwiz/release.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <span>

namespace perwiz {

ComputationSpread computationSpread(std::span<const TimeNs> perRank) {
  ComputationSpread out;
  long double sum = 0;
  __int128 total = 0;
  out.leastNs = std::numeric_limits<TimeNs>::max();
  for (TimeNs c : perRank)
    if (c >= 0) {
      ++out.ranks;
      sum += c;
      total += c;
      out.maxNs = std::max(out.maxNs, c);
      out.leastNs = std::min(out.leastNs, c);
    }
  if (out.ranks == 0) {
    out.leastNs = 0;
    return out;
  }
  const long double mean = sum / out.ranks;
  long double var = 0;
  for (TimeNs c : perRank)
    if (c >= 0) var += (c - mean) * (c - mean);
  out.meanNs = static_cast<TimeNs>(std::llround(static_cast<double>(mean)));
  out.sigmaNs = static_cast<TimeNs>(std::llround(std::sqrt(static_cast<double>(var / out.ranks))));
  // The mean balancing uses (replayer.cpp, computeBalance): the rounded integer mean.
  out.balancedMeanNs = static_cast<TimeNs>((total * 2 + out.ranks) / (2 * static_cast<__int128>(out.ranks)));
  return out;
}

TimeNs allStepsBalanced(Replayer& r) {
  // One full replay with every step balanced (cheaper than n incremental additions).
  std::vector<Hypothesis> hs = r.scenario().hypotheses;
  const std::uint32_t n = static_cast<std::uint32_t>(r.trace().steps.size());
  for (std::uint32_t k = 0; k < n; ++k) hs.push_back({HypothesisKind::BalanceCompute, {}, k});
  r.setHypotheses(std::move(hs));
  return r.predictedTime();
}

std::vector<StepRow> stepRows(const std::vector<TimeNs>& all, std::uint32_t n, std::size_t R,
                              std::vector<TimeNs>& least) {
  std::vector<StepRow> rows(n);
  least.assign(n, 0);
  for (std::uint32_t k = 0; k < n; ++k) {
    StepRow& row = rows[k];
    row.step = k;
    const std::span<const TimeNs> comp(all.data() + std::size_t(k) * R, R);
    const ComputationSpread spread = computationSpread(comp);
    row.ranks = spread.ranks;
    row.meanNs = spread.meanNs;
    row.sigmaNs = spread.sigmaNs;
    row.maxNs = spread.maxNs;
    least[k] = spread.ranks ? spread.leastNs : std::numeric_limits<TimeNs>::max();
    for (TimeNs c : comp)
      if (c > spread.balancedMeanNs) row.gainBoundNs += c - spread.balancedMeanNs;
  }
  return rows;
}

std::vector<StepRow> stepSpreads(const Replayer& share, RankRange own, ProcessGroup& group,
                                 std::vector<TimeNs>* least) {
  // The steps and ranks of the trace: the most any process has, the end of the last share.
  std::string mine(8, '\0');
  const auto steps = static_cast<std::uint32_t>(share.trace().steps.size());
  std::memcpy(mine.data(), &steps, 4);
  std::memcpy(mine.data() + 4, &own.last, 4);
  std::uint32_t n = 0, R = 0;
  for (const std::string& b : group.allGather(mine)) {
    std::uint32_t k = 0, last = 0;
    if (b.size() == 8) std::memcpy(&k, b.data(), 4), std::memcpy(&last, b.data() + 4, 4);
    n = std::max(n, k), R = std::max(R, last);
  }
  // Each process's ranks' computations in the steps of block q (steps [n q / P, n (q + 1) / P))
  // to process q, which computes the rows of its block from every rank's; then every block's
  // rows to every process (a step's σ sums its ranks in rank order: the serial long doubles).
  const std::uint32_t P = group.size(), me = group.rank();
  auto block = [&](std::uint32_t q) { return std::make_pair(n * std::uint64_t{q} / P, n * std::uint64_t{q + 1} / P); };
  std::vector<std::string> out(P);
  {
    const std::vector<TimeNs> here = share.stepComputations();
    const std::size_t shareRanks = share.trace().rankCount();
    for (std::uint32_t q = 0; q < P; ++q) {
      const auto [k0, k1] = block(q);
      std::string& bytes = out[q];
      bytes.assign(reinterpret_cast<const char*>(&own.first), 4);
      bytes.reserve(4 + (k1 - k0) * own.size() * sizeof(TimeNs));
      for (std::uint64_t k = k0; k < k1; ++k)
        for (std::uint32_t r = own.first; r < own.last; ++r) {
          const TimeNs c = k < steps ? here[k * shareRanks + r] : -1;
          bytes.append(reinterpret_cast<const char*>(&c), sizeof c);
        }
    }
  }
  const auto [k0, k1] = block(me);
  const std::size_t m = k1 - k0;
  std::vector<TimeNs> all(m * R, -1);
  {
    const std::vector<std::string> in = group.exchange(std::move(out));
    for (std::uint32_t q = 0; q < in.size(); ++q) {
      std::uint32_t first = 0;
      if (in[q].size() >= 4) std::memcpy(&first, in[q].data(), 4);
      const std::size_t count = in[q].size() < 4 || m == 0 ? 0 : (in[q].size() - 4) / sizeof(TimeNs) / m;
      const RankRange theirs{first, static_cast<std::uint32_t>(first + count)};
      if (in[q].size() < 4 || in[q].size() != 4 + m * count * sizeof(TimeNs) || theirs.last > R)
        throw GroupError("step spreads: process " + std::to_string(q) + " sent " + std::to_string(in[q].size()) +
                         " bytes");
      const char* p = in[q].data() + 4;
      for (std::size_t k = 0; k < m; ++k)
        for (std::uint32_t r = theirs.first; r < theirs.last; ++r, p += sizeof(TimeNs))
          std::memcpy(&all[k * R + r], p, sizeof(TimeNs));
    }
  }
  std::vector<TimeNs> blockLeast;
  const std::vector<StepRow> ours = stepRows(all, static_cast<std::uint32_t>(m), R, blockLeast);
  releaseMemory(all);
  std::string rowBytes;
  for (std::size_t i = 0; i < m; ++i) {
    const StepRow& row = ours[i];
    const TimeNs fields[6] = {row.ranks, row.meanNs, row.maxNs, row.sigmaNs, row.gainBoundNs, blockLeast[i]};
    rowBytes.append(reinterpret_cast<const char*>(fields), sizeof fields);
  }
  std::vector<StepRow> rows(n);
  std::vector<TimeNs> leastAll(n, 0);
  const std::vector<std::string> blocks = group.allGather(rowBytes);
  for (std::uint32_t q = 0; q < P; ++q) {
    const auto [b0, b1] = block(q);
    if (blocks[q].size() != (b1 - b0) * 6 * sizeof(TimeNs))
      throw GroupError("step spreads: process " + std::to_string(q) + " sent " + std::to_string(blocks[q].size()) +
                       " bytes of rows");
    for (std::uint64_t k = b0; k < b1; ++k) {
      TimeNs f[6];
      std::memcpy(f, blocks[q].data() + (k - b0) * sizeof f, sizeof f);
      StepRow& row = rows[k];
      row.step = static_cast<std::uint32_t>(k);
      row.ranks = static_cast<std::uint32_t>(f[0]);
      row.meanNs = f[1], row.maxNs = f[2], row.sigmaNs = f[3], row.gainBoundNs = f[4];
      leastAll[k] = f[5];
    }
  }
  if (least) *least = std::move(leastAll);
  return rows;
}

std::vector<StepRow> stepTable(AdvisorBase& base, const AdvisorOptions& options, TimeNs* allBalanced,
                               std::uint64_t* predictions) {
  std::vector<TimeNs> least;  // the least per-rank computation of each step
  // One pass per rank, not a search per step.
  std::vector<StepRow> rows = base.stepRows(least);
  const auto n = static_cast<std::uint32_t>(rows.size());
  // Which steps to replay: a step whose ranks all compute the same is unchanged by balancing
  // (T' = T, no replay); of the others, all, or the `maxStepPredictions` with the largest bound.
  std::vector<std::uint32_t> chosen;
  for (std::uint32_t k = 0; k < n; ++k) {
    StepRow& row = rows[k];
    if (row.ranks == 0 || least[k] == row.maxNs) {
      row.predictedNs = base.predictedTime();
      continue;
    }
    chosen.push_back(k);
  }
  if (options.maxStepPredictions && chosen.size() > options.maxStepPredictions) {
    auto larger = [&](std::uint32_t a, std::uint32_t b) {
      return rows[a].gainBoundNs != rows[b].gainBoundNs ? rows[a].gainBoundNs > rows[b].gainBoundNs : a < b;
    };
    std::nth_element(chosen.begin(), chosen.begin() + static_cast<std::ptrdiff_t>(options.maxStepPredictions) - 1,
                     chosen.end(), larger);
    for (auto it = chosen.begin() + static_cast<std::ptrdiff_t>(options.maxStepPredictions); it != chosen.end(); ++it)
      rows[*it].evaluated = false;
    chosen.resize(options.maxStepPredictions);
    std::sort(chosen.begin(), chosen.end());
  }
  std::vector<std::vector<Hypothesis>> jobs(chosen.size());
  for (std::size_t i = 0; i < chosen.size(); ++i) jobs[i] = {Hypothesis{HypothesisKind::BalanceCompute, {}, chosen[i]}};
  const std::uint64_t before = base.predictions();
  std::vector<TimeNs> t;
  base.predict(jobs, t, "step ranking", 0, 1);
  for (std::size_t i = 0; i < chosen.size(); ++i) rows[chosen[i]].predictedNs = t[i];
  if (predictions) *predictions += base.predictions() - before;
  if (allBalanced) {
    *allBalanced = base.predictedTime();
    if (n > 0 && !base.cancelled()) {
      *allBalanced = base.allStepsBalanced();
      if (predictions) ++*predictions;
    }
  }
  return rows;
}

std::vector<StepRow> stepTable(const Replayer& base, const AdvisorOptions& options, TimeNs* allBalanced,
                               std::uint64_t* predictions) {
  // The all-steps replay reuses the pool's first fork (a fork of its own beside the pool's
  // took advise's peak 25 B/event higher: issue #42).
  ReplayerBase b(base, options);
  return stepTable(b, options, allBalanced, predictions);
}

}  // namespace perwiz
