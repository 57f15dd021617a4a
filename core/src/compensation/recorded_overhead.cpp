// The overhead a compensation removes: the user's value for every rank, or what the tracer
// recorded per rank.
#include "perwiz/compensation.h"

namespace perwiz {

std::vector<TimeNs> recordedOverhead(const Trace& trace) {
  // The tracer records what one record costs (a clock read and a record write, trace.h); an
  // event is two records (enter, leave), so it costs twice that (a point, one record, half).
  std::vector<TimeNs> out(trace.rankCount());
  for (std::uint32_t r = 0; r < trace.rankCount(); ++r) {
    const TimeNs perRecord = recordedEventOverhead(trace, r);
    if (perRecord < 0) return {};  // a rank without it: the trace does not record the overhead
    out[r] = 2 * perRecord;
  }
  return out;
}

std::vector<TimeNs> compensationOverhead(const Trace& trace, std::int64_t overheadNs, std::string* error) {
  auto fail = [&](const std::string& problem) {
    if (error) *error = problem;
    return std::vector<TimeNs>{};
  };
  if (overheadNs == kOverheadFromTrace) {
    std::vector<TimeNs> recorded = recordedOverhead(trace);
    if (recorded.empty())
      return fail((trace.source.empty() ? std::string("the trace") : trace.source) +
                  " records no instrumentation overhead (compensate with an overhead in ns per event instead)");
    return recorded;
  }
  if (overheadNs < 0)
    return fail("compensate: the overhead must be 0 ns per event or more, not " + std::to_string(overheadNs));
  return std::vector<TimeNs>(trace.rankCount(), overheadNs);
}

}  // namespace perwiz
