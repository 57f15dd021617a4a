#include "overhead_spans.h"

namespace perwiz::gui {

std::vector<std::vector<std::pair<TimeNs, TimeNs>>> overheadSpans(const Trace& trace,
                                                                 const OverheadAnalysis& analysis) {
  std::vector<std::vector<std::pair<TimeNs, TimeNs>>> spans(trace.rankCount());
  for (std::uint32_t r = 0; r < trace.rankCount() && r < analysis.overheadOfCall.size(); ++r) {
    const RankTrace& rt = trace.ranks[r];
    const auto& oh = analysis.overheadOfCall[r];
    for (std::size_t i = 0; i < oh.size() && i < rt.mpiCalls.size(); ++i) {
      if (oh[i] <= 0) continue;
      const std::uint32_t e = rt.mpiCalls[i];
      spans[r].emplace_back(rt.leave[e] - oh[i], rt.leave[e]);
    }
  }
  return spans;
}

}  // namespace perwiz::gui
