// The overhead a compensation removes: the user's value for every rank, or what the tracer
// recorded per rank.
#include "perwiz/checked_time.h"
#include "perwiz/compensation.h"

namespace perwiz {

std::vector<TimeNs> recordedOverhead(const Trace& trace, std::uint32_t first, std::uint32_t last) {
  // The tracer records what one record costs (a clock read and a record write, trace.h); an
  // event is two records (enter, leave), so it costs twice that (a point, one record, half).
  std::vector<TimeNs> out(trace.rankCount());
  for (std::uint32_t r = first; r < last && r < trace.rankCount(); ++r) {
    const TimeNs perRecord = recordedEventOverhead(trace, r);
    if (perRecord < 0) return {};  // a rank without it: the trace does not record the overhead
    out[r] = satMul(2, perRecord);  // a value that does not fit is refused by compensationOverhead
  }
  return out;
}

std::vector<TimeNs> compensationOverhead(const Trace& trace, std::int64_t overheadNs, std::string* error,
                                         std::uint32_t first, std::uint32_t last) {
  auto fail = [&](const std::string& problem) {
    if (error) *error = problem;
    return std::vector<TimeNs>{};
  };
  std::vector<TimeNs> perRank;
  if (overheadNs == kOverheadFromTrace) {
    perRank = recordedOverhead(trace, first, last);
    if (perRank.empty())
      return fail((trace.source.empty() ? std::string("the trace") : trace.source) +
                  " records no instrumentation overhead (compensate with an overhead in ns per event instead)");
  } else {
    if (overheadNs < 0)
      return fail("compensate: the overhead must be 0 ns per event or more, not " + std::to_string(overheadNs));
    perRank.assign(trace.rankCount(), 0);
    for (std::uint32_t r = first; r < last && r < trace.rankCount(); ++r) perRank[r] = overheadNs;
  }
  // A rank's overhead in all (at most o per event) must be a time (docs/model.md, "Limits"):
  // beyond it the charges' sums would overflow, so the value is refused, naming it.
  for (std::uint32_t r = first; r < last && r < perRank.size(); ++r) {
    TimeNs total = 0;
    const auto events = static_cast<TimeNs>(trace.ranks[r].size());
    if (checkedMul(perRank[r], events, &total) && total != kTimeOverflow) continue;
    const std::string what = overheadNs == kOverheadFromTrace
                                 ? (trace.source.empty() ? std::string("the trace") : trace.source) +
                                       " records an overhead of " + std::to_string(recordedEventOverhead(trace, r)) +
                                       " ns per record on rank " + std::to_string(r)
                                 : "compensate " + std::to_string(overheadNs) + " ns per event";
    return fail(what + ": rank " + std::to_string(r) + "'s " + std::to_string(events) +
                " events would carry more than 2^63 ns (292 years) of overhead, beyond any time a trace can hold");
  }
  return perRank;
}

}  // namespace perwiz
