// Parallel steps (paper §2.1): the k-th execution of the parallel region on each rank forms
// step k. See docs/trace-model.md for the marker convention.
#include "perwiz/trace.h"

#include <algorithm>

namespace perwiz {

bool isDefaultRegionName(const std::string& name) { return name.rfind("PRGN", 0) == 0; }

void computeParallelSteps(Trace& trace, const std::vector<std::uint32_t>& regionFunctions) {
  trace.regionFunctions = regionFunctions;
  trace.steps.clear();
  if (regionFunctions.empty()) return;
  std::vector<char> isRegion(trace.functions.size(), 0);
  for (std::uint32_t f : regionFunctions)
    if (f < isRegion.size()) isRegion[f] = 1;
  const std::size_t nRanks = trace.ranks.size();
  for (std::size_t r = 0; r < nRanks; ++r) {
    const RankTrace& rt = trace.ranks[r];
    std::size_t k = 0;
    for (std::uint32_t e = 0; e < rt.size(); ++e) {
      if (!isRegion[rt.function[e]]) continue;
      // A region marker nested in another marker (a recursive region) belongs to the outer
      // step; only outermost markers start steps.
      if (k > 0) {
        const StepSpan& prev = trace.steps[k - 1].ranks[r];
        if (prev.present() && e < prev.lastEvent) continue;
      }
      if (trace.steps.size() <= k) {
        trace.steps.emplace_back();
        trace.steps.back().ranks.resize(nRanks);
      }
      StepSpan& s = trace.steps[k].ranks[r];
      s.marker = e;
      // Events are in enter order with nesting depth, so the events inside the marker are the
      // run after it that is nested deeper (exact even with equal timestamps).
      std::uint32_t last = e + 1;
      while (last < rt.size() && rt.depth[last] > rt.depth[e]) ++last;
      s.lastEvent = last;
      ++k;
    }
  }
}

bool declareParallelRegion(Trace& trace, const std::string& functionName) {
  std::vector<std::uint32_t> fns;
  for (std::uint32_t f = 0; f < trace.functions.size(); ++f)
    if (trace.functions[f].name == functionName && trace.functions[f].kind != EventKind::Point)
      fns.push_back(f);
  if (fns.empty()) return false;
  computeParallelSteps(trace, fns);
  return true;
}

}  // namespace perwiz
