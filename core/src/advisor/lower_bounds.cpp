// Lower bounds per parallel region (paper §4 F3, Table 1): no DAG reconstruction, only each
// rank's breakdown of the region into calculation, sending, receiving and waiting time.
//
//   T(Q) = max over ranks r of  outside_r + calc'_r + comm'_r + wait'_r
//   calc'_r = mean over the region's ranks of calc   if Q2, else calc_r
//   comm'_r = mean over the region's ranks of (send + recv)   if Q3, else send_r + recv_r
//   wait'_r = 0 if Q1, else wait_r
// Ranks that never enter the region keep their end time. docs/model.md, "Lower bounds".
#include "perwiz/advisor.h"
#include "perwiz/process_group.h"
#include "perwiz/rank_parallel.h"
#include "perwiz/replay.h"
#include "perwiz/trace_io.h"

#include "perwiz/internal/replay_program.h"

#include <algorithm>
#include <cstring>
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

namespace {

// The function of rank r's marker of step k.
std::uint32_t markerFn(const Trace& t, std::size_t k, std::uint32_t r) {
  return t.ranks[r].function[t.steps[k].ranks[r].marker];
}

}  // namespace

std::vector<std::string> boundRegionNames(const Trace& t, RankRange ranks) {
  std::vector<std::string> names;
  std::vector<std::uint8_t> seen(t.functions.size(), 0);
  for (std::size_t k = 0; k < t.steps.size(); ++k)
    for (std::uint32_t r = ranks.first; r < t.steps[k].ranks.size() && r < ranks.last; ++r)
      if (t.steps[k].ranks[r].present() && !seen[markerFn(t, k, r)]) {
        seen[markerFn(t, k, r)] = 1;
        names.push_back(t.functions[markerFn(t, k, r)].name);
      }
  std::sort(names.begin(), names.end());
  names.erase(std::unique(names.begin(), names.end()), names.end());
  return names;
}

std::vector<RegionBounds> regionBreakdowns(const Replayer& base, const std::vector<std::string>& names, RankRange ranks,
                                           std::uint32_t R, std::vector<std::uint8_t>& in) {
  const Trace& t = base.trace();
  const ReplayProgram& p = internal::ReplayerAccess::program(base);
  constexpr std::size_t kNoRegion = ~std::size_t{0};
  std::vector<std::size_t> fnRegion(t.functions.size(), kNoRegion);
  for (std::size_t f = 0; f < fnRegion.size(); ++f) {
    const auto it = std::lower_bound(names.begin(), names.end(), t.functions[f].name);
    if (it != names.end() && *it == t.functions[f].name) fnRegion[f] = static_cast<std::size_t>(it - names.begin());
  }
  std::vector<RegionBounds> out(names.size());
  for (std::size_t g = 0; g < names.size(); ++g) {
    out[g].region = names[g];
    out[g].perRank.resize(R);
  }
  in.assign(out.size() * std::size_t{R}, 0);  // [region][rank]: has a step there
  // Per rank, in parallel: its step spans by region, each call's sending and receiving roles
  // read from the endpoints (ReplayProgram::forEachRole: no links kept), then the rank's
  // breakdown in every region. Nothing per step is kept for all ranks at once.
  std::uint64_t events = 0;
  for (std::uint32_t r = ranks.first; r < ranks.last; ++r) events += t.ranks[r].enter.size();
  forEachRank(ranks.size(), events, [&](std::uint32_t i) {
    const std::uint32_t r = ranks.first + i;
    std::vector<std::vector<std::pair<TimeNs, TimeNs>>> spansOf(out.size());
    for (std::size_t k = 0; k < t.steps.size(); ++k) {
      if (r >= t.steps[k].ranks.size() || !t.steps[k].ranks[r].present()) continue;
      const std::size_t g = fnRegion[markerFn(t, k, r)];
      if (g != kNoRegion) spansOf[g].emplace_back(t.stepBegin(k, r), t.stepEnd(k, r));
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
  return out;
}

void boundRows(std::vector<RegionBounds>& regions, const std::vector<std::uint8_t>& in) {
  for (std::size_t g = 0; g < regions.size(); ++g) {
    RegionBounds& rb = regions[g];
    const auto R = static_cast<std::uint32_t>(rb.perRank.size());
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
    rb.rows.clear();
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
}

std::vector<RegionBounds> lowerBounds(const Replayer& base) {
  const RankRange all{0, static_cast<std::uint32_t>(base.trace().rankCount())};
  std::vector<std::uint8_t> in;
  std::vector<RegionBounds> out = regionBreakdowns(base, boundRegionNames(base.trace(), all), all, all.last, in);
  boundRows(out, in);
  return out;
}

std::vector<RegionBounds> lowerBounds(const Replayer& share, RankRange own, ProcessGroup& group) {
  // The regions' names: every process's, in name order.
  std::string mine;
  for (const std::string& n : boundRegionNames(share.trace(), own)) mine += n + '\0';
  std::vector<std::string> names;
  for (const std::string& b : group.allGather(mine))
    for (std::size_t i = 0, j; i < b.size(); i = j + 1) {
      j = b.find('\0', i);
      names.push_back(b.substr(i, j - i));
    }
  std::sort(names.begin(), names.end());
  names.erase(std::unique(names.begin(), names.end()), names.end());
  // The trace's ranks: the last process's share ends with them (a share's trace may hold one
  // rank more, the proxy of collective instances, distributed_sweep.h).
  std::uint32_t R = 0;
  for (const std::string& b : group.allGather(std::string(reinterpret_cast<const char*>(&own.last), 4))) {
    std::uint32_t last = 0;
    if (b.size() == 4) std::memcpy(&last, b.data(), 4);
    R = std::max(R, last);
  }
  std::vector<std::uint8_t> in;
  std::vector<RegionBounds> out = regionBreakdowns(share, names, own, R, in);
  // Every process's ranks' breakdowns (5 values and the flag per region and rank), to every one.
  constexpr std::size_t kRecord = 4 + 5 * sizeof(TimeNs) + 1;
  std::string bytes(out.size() * own.size() * kRecord, '\0');
  char* w = bytes.data();
  auto put = [&](const void* v, std::size_t n) { std::memcpy(w, v, n), w += n; };
  for (std::size_t g = 0; g < out.size(); ++g)
    for (std::uint32_t r = own.first; r < own.last; ++r) {
      const RegionBreakdown& b = out[g].perRank[r];
      put(&r, 4);
      for (const TimeNs v : {b.outside, b.calculation, b.sending, b.receiving, b.waiting}) put(&v, sizeof v);
      put(&in[g * R + r], 1);
    }
  for (const std::string& b : group.allGather(bytes)) {
    if (b.size() % kRecord != 0 || (!out.empty() && b.size() / kRecord % out.size() != 0))
      throw GroupError("lower bounds: a process sent " + std::to_string(b.size()) + " bytes of breakdowns");
    const std::size_t perRegion = out.empty() ? 0 : b.size() / kRecord / out.size();
    const char* p = b.data();
    for (std::size_t g = 0; g < out.size(); ++g)
      for (std::size_t k = 0; k < perRegion; ++k) {
        std::uint32_t r;
        std::memcpy(&r, p, 4), p += 4;
        if (r >= R) throw GroupError("lower bounds: rank " + std::to_string(r) + " out of range");
        RegionBreakdown& d = out[g].perRank[r];
        for (TimeNs* v : {&d.outside, &d.calculation, &d.sending, &d.receiving, &d.waiting})
          std::memcpy(v, p, sizeof *v), p += sizeof *v;
        in[g * R + r] = static_cast<std::uint8_t>(*p++);
      }
  }
  boundRows(out, in);
  return out;
}

}  // namespace perwiz
