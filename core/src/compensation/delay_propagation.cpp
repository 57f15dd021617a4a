// The paper's delay algorithm as a post-mortem reference (see perwiz/compensation.h). It reads
// the replay program only for the trace's structure (units, who waits for whom, the measured
// waits); the times it produces come from delays, never from the replay's sweep.
#include "perwiz/checked_time.h"
#include "perwiz/compensation.h"
#include "perwiz/replay.h"

#include "perwiz/internal/overhead_charges.h"

#include <algorithm>

namespace perwiz {

DelayCompensation compensateByDelays(const Trace& trace, const std::vector<TimeNs>& overheadPerRank,
                                     std::shared_ptr<const NetworkModel> model) {
  const Replayer rp(trace, Scenario{std::move(model), CostMode::Measured, {}});
  const ReplayProgram& p = internal::ReplayerAccess::program(rp);
  const OverheadCharges c = chargeOverhead(trace, p, overheadPerRank);
  // The measured times per unit (a reference algorithm: plain arrays keep it readable).
  const std::vector<TimeNs> mEnter(p.measEnter.begin(), p.measEnter.end());
  const std::vector<TimeNs> mLeave(p.measLeave.begin(), p.measLeave.end());

  // Measured time of a dependency's source: a call's enter, or a gather's last arrival.
  std::vector<TimeNs> nodeTime(p.nodes(), 0);
  for (std::uint32_t n = 0; n < p.nodes(); ++n)
    for (std::uint32_t i = p.nodeBegin[n]; i < p.nodeBegin[n + 1]; ++i)
      nodeTime[n] = std::max(nodeTime[n], mEnter[p.nodeMembers[i]]);
  auto srcTime = [&](std::uint32_t s) { return s < p.units ? mEnter[s] : nodeTime[s - p.units]; };

  // Overhead actually removed from a gap or a call: never more than its length.
  auto gapRemoved = [&](std::uint32_t u) { return std::min(p.gap0[u], c.gap[u]); };

  std::vector<TimeNs> xEnter(p.units, 0), xLeave(p.units, 0), xNode(p.nodes(), 0), waitC(p.units, 0);
  for (std::uint32_t r = 0; r < p.ranks; ++r) xEnter[p.rankBegin[r]] = gapRemoved(p.rankBegin[r]);
  auto srcDelay = [&](std::uint32_t s) { return s < p.units ? xEnter[s] : xNode[s - p.units]; };

  for (const std::uint32_t item : p.schedule) {
    if (item >= p.units) {  // a collective's gather: it completes with its least-delayed member
      const std::uint32_t n = item - p.units;
      TimeNs x = 0;
      bool any = false;
      for (std::uint32_t i = p.nodeBegin[n]; i < p.nodeBegin[n + 1]; ++i) {
        const std::uint32_t m = p.nodeMembers[i];
        const TimeNs candidate = xEnter[m] + (nodeTime[n] - mEnter[m]);
        x = any ? std::min(x, candidate) : candidate;
        any = true;
      }
      xNode[n] = x;
      continue;
    }
    const std::uint32_t u = item;
    const TimeNs ready = mEnter[u] + p.waitOf(u);  // when the measured wait ended
    // The receiver's own delay carried through its wait (x2 + w), against each partner's
    // piggybacked delay (x1), as late as the partner was binding (slack).
    TimeNs x = xEnter[u] + p.waitOf(u);
    for (std::uint32_t d = p.depBegin[u]; d < p.depBegin[u + 1]; ++d) {
      if ((p.depFlags0[d] & dep::kUse) != dep::kUse) continue;
      const std::uint32_t s = p.depSrc[d];
      const TimeNs slack = ready - (srcTime(s) + p.depOff0[d]);
      x = std::min(x, srcDelay(s) + slack);
    }
    waitC[u] = p.waitOf(u) - (x - xEnter[u]);  // the paper's w' = w + x2 − x2'
    xLeave[u] = x + std::min(p.local0[u], c.local[u]);
    if (!p.isSentinel(u)) xEnter[u + 1] = xLeave[u] + gapRemoved(u + 1);
  }

  DelayCompensation out;
  out.calls.resize(p.ranks);
  out.rankEnd.resize(p.ranks);
  out.rankDelay.resize(p.ranks);
  for (std::uint32_t r = 0; r < p.ranks; ++r) {
    out.calls[r].resize(p.callCount(r));
    for (std::uint32_t i = 0; i < p.callCount(r); ++i) {
      const std::uint32_t u = p.unitOfCall(r, i);
      out.calls[r][i] = {mEnter[u] - xEnter[u], mLeave[u] - xLeave[u], waitC[u], xEnter[u], xLeave[u]};
    }
    const std::uint32_t s = p.rankBegin[r + 1] - 1;
    out.rankEnd[r] = mLeave[s] - xLeave[s];
    out.rankDelay[r] = xLeave[s];
    out.end = std::max(out.end, out.rankEnd[r]);
  }
  return out;
}

std::vector<RankInstrumentation> rankOverheads(const Trace& trace, const std::vector<TimeNs>& overheadPerRank) {
  std::vector<RankInstrumentation> out(trace.rankCount());
  for (std::uint32_t r = 0; r < trace.rankCount(); ++r) {
    const RankTrace& rt = trace.ranks[r];
    RankInstrumentation& o = out[r];
    o.overheadNs = r < overheadPerRank.size() ? overheadPerRank[r] : 0;
    o.events = rt.size();
    o.ownOverhead = satMul(o.overheadNs, static_cast<TimeNs>(o.events));
    if (!rt.leave.empty()) o.measuredEnd = std::max(o.measuredEnd, rt.leave.maxValue());
    o.localOnlyEnd = std::max<TimeNs>(0, satSub(o.measuredEnd, o.ownOverhead));
  }
  return out;
}

}  // namespace perwiz
