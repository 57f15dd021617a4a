// The units of a replay program: one per top-level MPI call and one per rank's end, the
// computation before each, and each call split into local cost and wait (docs/model.md).
#include "program_builder.h"

#include "perwiz/checked_time.h"
#include "perwiz/release.h"

#include <stdexcept>
#include <string>

namespace perwiz {

void ProgramBuilder::buildUnits() {
  const std::uint32_t R = static_cast<std::uint32_t>(trace_.rankCount());
  p_.trace = &trace_;
  p_.ranks = R;
  p_.nested.assign(R, {});
  p_.rankEnd.assign(R, 0);
  std::vector<std::uint64_t> count(R, 0);
  // Per rank: which calls are top-level (units); a call that starts before the previous
  // top-level call returned lies inside it and follows it.
  eachRank(R, [&](std::uint32_t r) {
    const RankTrace& rt = trace_.ranks[r];
    TimeNs lastLeave = 0;
    std::uint32_t n = 0;
    for (std::uint32_t i = 0; i < rt.mpiCalls.size(); ++i) {
      const std::uint32_t e = rt.mpiCalls[i];
      const TimeNs en = rt.enter[e];
      if (n > 0 && en < lastLeave) {  // inside the previous top-level call
        p_.nested[r].push_back(i);
        continue;
      }
      ++n;
      lastLeave = rt.leave[e];
    }
    count[r] = std::uint64_t{n} + 1;  // and the rank's end sentinel
    TimeNs end = lastLeave;
    if (!rt.leave.empty()) end = std::max(end, rt.leave.maxValue());
    p_.rankEnd[r] = end;
  });
  p_.rankBegin.assign(R + 1, 0);
  std::uint64_t total = 0;
  for (std::uint32_t r = 0; r < R; ++r) {
    total += count[r];
    if (total >= kNone32)
      throw std::length_error("the trace has more than 2^32 - 2 MPI calls: too many for one replay");
    p_.rankBegin[r + 1] = static_cast<std::uint32_t>(total);
    report_.nestedCalls += p_.nested[r].size();
  }
  p_.units = static_cast<std::uint32_t>(total);
  p_.rankOfBlock.resize((std::size_t{p_.units} >> ReplayProgram::kRankBlockBits) + 1);
  for (std::uint32_t r = 0, b = 0; b < p_.rankOfBlock.size(); ++b) {
    const std::uint64_t first = std::uint64_t{b} << ReplayProgram::kRankBlockBits;
    while (r + 1 < R && p_.rankBegin[r + 1] <= first) ++r;
    p_.rankOfBlock[b] = r;
  }
  p_.sentinelBits.assign((std::size_t{p_.units} + 63) / 64, 0);
  for (std::uint32_t r = 0; r < R; ++r) {
    const std::uint32_t s = p_.rankBegin[r + 1] - 1;
    p_.sentinelBits[s >> 6] |= std::uint64_t{1} << (s & 63);
  }
  // The computation before each unit, and the measured leaves: for decompose(), then the
  // storage of the first replay's results (giveTimes). Measured enters are read from the
  // trace where needed (Program::measEnter), not copied.
  leave_.resize(p_.units);
  p_.gap0.resize(p_.units);
  eachRank(R, [&](std::uint32_t r) {
    const RankTrace& rt = trace_.ranks[r];
    const std::uint32_t sentinel = p_.rankBegin[r + 1] - 1;
    const auto& nest = p_.nested[r];
    std::size_t skip = 0;
    std::uint32_t u = p_.rankBegin[r];
    TimeNs prev = 0;
    for (std::uint32_t i = 0; i < rt.mpiCalls.size(); ++i) {
      if (skip < nest.size() && nest[skip] == i) {
        ++skip;
        continue;
      }
      const std::uint32_t e = rt.mpiCalls[i];
      p_.gap0.set(u, std::max<TimeNs>(0, rt.enter[e] - prev));
      prev = leave_[u] = rt.leave[e];
      ++u;
    }
    p_.gap0.set(sentinel, std::max<TimeNs>(0, p_.rankEnd[r] - prev));
    leave_[sentinel] = p_.rankEnd[r];
  });
}

// --- Split every measured call into local cost and waiting time. ---
void ProgramBuilder::decompose() {
  // Each gather's measured time (its members' latest enter), in parallel over 64 chunks.
  std::vector<TimeNs> nodeTime(p_.nodes(), 0);
  const std::uint32_t chunks = 64, per = (p_.nodes() + chunks - 1) / chunks;
  forEachRank(chunks, p_.nodeMembers.size(), [&](std::uint32_t c) {
    for (std::uint32_t n = c * per; n < std::min(p_.nodes(), (c + 1) * per); ++n) {
      TimeNs t = 0;
      for (std::uint32_t i = p_.nodeBegin[n]; i < p_.nodeBegin[n + 1]; ++i)
        t = std::max(t, p_.measEnter[p_.nodeMembers[i]]);
      nodeTime[n] = t;
    }
  });
  auto srcTime = [&](std::uint32_t s) { return s < p_.units ? p_.measEnter[s] : nodeTime[s - p_.units]; };
  p_.local0.assign(p_.units, 0);
  if (costs_ == CostMode::Model) p_.wait0.assign(p_.units, 0);
  if (costs_ == CostMode::Model) p_.modelLocal.assign(p_.units, 0);
  // Per rank in parallel: a unit writes only its own costs and its own dependencies.
  std::vector<std::uint64_t> skewed(p_.ranks, 0);
  eachRank(p_.ranks, [&](std::uint32_t r) {
    std::vector<RoleUse> roles;  // of the unit being priced (cost mode "model")
    for (std::uint32_t u = p_.rankBegin[r]; u < p_.rankBegin[r + 1]; ++u) {
      const TimeNs E = p_.measEnter.in(r, u), X = leave_[u];
      TimeNs ready = E;
      for (std::uint32_t d = p_.depBegin[u]; d < p_.depBegin[u + 1]; ++d)
        if ((p_.depFlags0[d] & dep::kUse) == dep::kUse)
          ready = std::max(ready, satAdd(srcTime(p_.depSrc[d]), p_.depOff0[d]));
      if (ready > X) {  // the partner's time lies after this call returned: clock skew
        // In cost mode "model" the offsets are the target network's, which may be slower than
        // the one measured (a retarget): a dependency is skew only where the partner's call,
        // less a negative offset, came after this call returned (docs/model.md §2.7).
        TimeNs kept = E;
        for (std::uint32_t d = p_.depBegin[u]; d < p_.depBegin[u + 1]; ++d) {
          if ((p_.depFlags0[d] & dep::kUse) != dep::kUse) continue;
          const TimeNs t = srcTime(p_.depSrc[d]);
          const TimeNs off = p_.depOff0[d];
          const TimeNs judged = costs_ == CostMode::Model ? std::min<TimeNs>(off, 0) : off;
          if (satAdd(t, judged) > X) {
            p_.depOff0.set(d, X - t);
            p_.depFlags0[d] |= dep::kSkewed;
            ++skewed[r];
            kept = X;  // the shortened dependency is ready when the call returned
          } else {
            kept = std::max(kept, satAdd(t, off));
          }
        }
        ready = std::min(kept, X);
      }
      const TimeNs wait = ready - E;
      if (costs_ == CostMode::Model) p_.wait0[u] = wait;
      const TimeNs measuredLocal = X - E - wait;
      if (costs_ == CostMode::Measured || p_.isSentinel(u)) {
        p_.local0.set(u, measuredLocal);
        continue;
      }
      const bool comm = p_.roleBegin[u + 1] > p_.roleBegin[u] || collectiveCost_[u] >= 0;
      if (!comm) {
        p_.local0.set(u, measuredLocal);  // not communication: keeps its measured cost
        continue;
      }
      p_.modelLocal[u] = 1;
      roles.clear();
      for (std::uint32_t i = p_.roleBegin[u]; i < p_.roleBegin[u + 1]; ++i)
        roles.push_back({p_.roleKind[i], p_.bytesOf(p_.roleMsg[i])});
      TimeNs cost = std::max<TimeNs>(collectiveCost_[u], 0);
      if (!roles.empty()) cost = satAdd(cost, model_->callCost(roles));
      p_.local0.set(u, cost);
    }
  });
  for (std::uint64_t n : skewed) report_.skewedDependencies += n;
}

void ProgramBuilder::summarize() {
  if (report_.skewedDependencies)
    report_.notes.push_back(std::to_string(report_.skewedDependencies) +
                            " dependencies had their partner's time after the call returned "
                            "(clock skew); their offsets were shortened to fit the measurement");
  if (report_.brokenCycles)
    report_.notes.push_back(std::to_string(report_.brokenCycles) +
                            " rendezvous dependencies formed a cycle (the run must have "
                            "buffered them); those sends no longer wait for their receivers");
  if (report_.nestedCalls)
    report_.notes.push_back(std::to_string(report_.nestedCalls) +
                            " MPI calls lie inside another MPI call and follow it");
  if (report_.unmatchedEndpoints)
    report_.notes.push_back(std::to_string(report_.unmatchedEndpoints) +
                            " message endpoints have no partner and keep their local cost only");
}

}  // namespace perwiz
