#include "trace_summary.h"

#include <algorithm>

namespace perwiz::cli {

RankSummary summarizeRank(const Trace& trace, std::uint32_t rank) {
  const RankTrace& r = trace.ranks[rank];
  RankSummary s;
  s.name = r.name;
  s.events = r.size();
  s.mpiCalls = r.mpiCalls.size();
  for (const MessageEndpoint& m : r.messages) (m.isSend ? s.sends : s.receives) += 1;
  s.collectives = r.collectives.size();

  // mpiCalls is in enter order, so the union of their intervals is one sweep.
  TimeNs coveredUntil = 0;
  bool any = false;
  for (std::uint32_t e : r.mpiCalls) {
    const TimeNs begin = r.enter[e], end = r.leave[e];
    if (!any || begin >= coveredUntil) {
      s.mpiBusyNs += end - begin;
      coveredUntil = end;
      any = true;
    } else if (end > coveredUntil) {
      s.mpiBusyNs += end - coveredUntil;
      coveredUntil = end;
    }
  }

  if (r.size() > 0) {
    s.firstEnter = r.enter.front();
    s.lastLeave = *std::max_element(r.leave.begin(), r.leave.end());
  }
  return s;
}

}  // namespace perwiz::cli
