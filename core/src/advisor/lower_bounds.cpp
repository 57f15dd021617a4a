// Lower bounds per parallel region (paper §4 F3, Table 1): no DAG reconstruction, only each
// rank's breakdown of the region into calculation, sending, receiving and waiting time.
//
//   T(Q) = max over ranks r of  outside_r + calc'_r + comm'_r + wait'_r
//   calc'_r = mean over the region's ranks of calc   if Q2, else calc_r
//   comm'_r = mean over the region's ranks of (send + recv)   if Q3, else send_r + recv_r
//   wait'_r = 0 if Q1, else wait_r
// Ranks that never enter the region keep their end time. docs/model.md, "Lower bounds".
#include "perwiz/advisor.h"
#include "perwiz/rank_parallel.h"
#include "perwiz/replay.h"

#include "perwiz/internal/replay_program.h"

#include <algorithm>
#include <map>

namespace perwiz {
namespace {

// Sum of the overlaps of [a, b) with sorted disjoint spans, advancing `k` monotonically.
TimeNs overlap(const std::vector<std::pair<TimeNs, TimeNs>>& spans, std::size_t& k, TimeNs a, TimeNs b) {
  while (k < spans.size() && spans[k].second <= a) ++k;
  TimeNs sum = 0;
  for (std::size_t j = k; j < spans.size() && spans[j].first < b; ++j)
    sum += std::max<TimeNs>(0, std::min(b, spans[j].second) - std::max(a, spans[j].first));
  return sum;
}

bool isSendRole(CommRole r) {
  return r == CommRole::BlockingSend || r == CommRole::IsendPost || r == CommRole::IsendComplete;
}

TimeNs roundedMean(TimeNs sum, std::uint32_t n) {
  return n ? static_cast<TimeNs>((static_cast<__int128>(sum) * 2 + n) / (2 * static_cast<__int128>(n))) : 0;
}

}  // namespace

std::string BoundRow::assumptions() const {
  std::string s;
  for (auto [on, name] : {std::pair{q1, "Q1"}, std::pair{q2, "Q2"}, std::pair{q3, "Q3"}})
    if (on) s += (s.empty() ? "" : "+") + std::string(name);
  return s;
}

std::vector<RegionBounds> lowerBounds(const Replayer& base) {
  const Trace& t = base.trace();
  const ReplayProgram& p = internal::ReplayerAccess::program(base);
  const std::uint32_t R = t.rankCount();
  // One region per name of the state that marks the parallel steps (in name order); each
  // marking function's region.
  constexpr std::size_t kNoRegion = ~std::size_t{0};
  auto markerFn = [&](std::size_t k, std::uint32_t r) { return t.ranks[r].function[t.steps[k].ranks[r].marker]; };
  std::vector<std::size_t> fnRegion(t.functions.size(), kNoRegion);
  std::map<std::string, std::size_t> byName;
  for (std::size_t k = 0; k < t.steps.size(); ++k)
    for (std::uint32_t r = 0; r < t.steps[k].ranks.size() && r < R; ++r)
      if (t.steps[k].ranks[r].present() && fnRegion[markerFn(k, r)] == kNoRegion) {
        fnRegion[markerFn(k, r)] = 0;
        byName.emplace(t.functions[markerFn(k, r)].name, 0);
      }
  std::vector<RegionBounds> out;
  for (auto& [name, g] : byName) {
    g = out.size();
    RegionBounds& rb = out.emplace_back();
    rb.region = name;
    rb.perRank.resize(R);
  }
  for (std::size_t f = 0; f < fnRegion.size(); ++f)
    if (fnRegion[f] != kNoRegion) fnRegion[f] = byName.at(t.functions[f].name);
  std::vector<std::uint8_t> in(out.size() * std::size_t{R}, 0);  // [region][rank]: has a step there
  // Per rank, in parallel: its step spans by region, each call's sending and receiving roles
  // read from the endpoints (ReplayProgram::forEachRole: no links kept), then the rank's
  // breakdown in every region. Nothing per step is kept for all ranks at once.
  forEachRank(R, t.eventCount(), [&](std::uint32_t r) {
    std::vector<std::vector<std::pair<TimeNs, TimeNs>>> spansOf(out.size());
    for (std::size_t k = 0; k < t.steps.size(); ++k) {
      if (r >= t.steps[k].ranks.size() || !t.steps[k].ranks[r].present()) continue;
      spansOf[fnRegion[markerFn(k, r)]].emplace_back(t.stepBegin(k, r), t.stepEnd(k, r));
    }
    const std::uint32_t first = p.rankBegin[r];
    std::vector<std::uint32_t> sends(p.rankBegin[r + 1] - first, 0), roles(sends.size(), 0);
    p.forEachRole(r, [&](std::uint32_t u, CommRole role) {
      sends[u - first] += isSendRole(role);
      ++roles[u - first];
    });
    for (std::size_t g = 0; g < out.size(); ++g) {
      auto& spans = spansOf[g];
      std::sort(spans.begin(), spans.end());
      in[g * R + r] = spans.empty() ? 0 : 1;
      RegionBreakdown& b = out[g].perRank[r];
      std::size_t k = 0;
      for (std::uint32_t u = first; u < p.rankBegin[r + 1]; ++u) {
        const TimeNs prev = p.isFirst(u) ? 0 : p.measLeave.in(r, u - 1);
        const TimeNs enter = p.measEnter.in(r, u);
        b.calculation += overlap(spans, k, prev, enter);
        if (p.isSentinel(u)) break;
        // The wait comes first in a call (the partner is late), its own cost after.
        const TimeNs waitEnd = enter + p.waitIn(r, u);
        b.waiting += overlap(spans, k, enter, waitEnd);
        const TimeNs local = overlap(spans, k, waitEnd, p.measLeave.in(r, u));
        // Calls without message roles (collectives, others) count half sending, half receiving.
        const std::uint32_t n = roles[u - first];
        const TimeNs sending = n ? local * sends[u - first] / n : local / 2;
        b.sending += sending;
        b.receiving += local - sending;
      }
      b.outside = p.rankEnd[r] - (b.calculation + b.sending + b.receiving + b.waiting);
    }
  });
  for (std::size_t g = 0; g < out.size(); ++g) {
    RegionBounds& rb = out[g];
    std::uint32_t present = 0;
    TimeNs calcSum = 0, commSum = 0;
    for (std::uint32_t r = 0; r < R; ++r) {
      if (!in[g * R + r]) continue;
      const RegionBreakdown& b = rb.perRank[r];
      ++present;
      calcSum += b.calculation;
      commSum += b.sending + b.receiving;
    }
    const TimeNs calcMean = roundedMean(calcSum, present), commMean = roundedMean(commSum, present);
    // Table 1's order: —, Q1, Q2, Q3, Q1∧Q2, Q1∧Q3, Q2∧Q3, Q1∧Q2∧Q3.
    const int masks[] = {0, 1, 2, 4, 3, 5, 6, 7};
    for (int m : masks) {
      BoundRow row{(m & 1) != 0, (m & 2) != 0, (m & 4) != 0, 0};
      TimeNs T = 0;
      for (std::uint32_t r = 0; r < R; ++r) {
        const RegionBreakdown& b = rb.perRank[r];
        TimeNs tr = b.outside + b.calculation + b.sending + b.receiving + b.waiting;
        if (in[g * R + r])
          tr = b.outside + (row.q2 ? calcMean : b.calculation) + (row.q3 ? commMean : b.sending + b.receiving) +
               (row.q1 ? 0 : b.waiting);
        T = std::max(T, tr);
      }
      row.predictedNs = T;
      rb.rows.push_back(row);
    }
  }
  return out;
}

}  // namespace perwiz
