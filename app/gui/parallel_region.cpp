#include "parallel_region.h"

#include <QCoreApplication>

#include <algorithm>

namespace perwiz::gui {

std::vector<RegionCandidate> regionCandidates(const Trace& trace) {
  const std::size_t F = trace.functions.size();
  std::vector<RegionCandidate> c(F);
  std::vector<char> usable(F, 0);
  for (std::size_t f = 0; f < F; ++f) {
    c[f].name = trace.functions[f].name;
    usable[f] = trace.functions[f].kind == EventKind::UserState;
  }
  // Per rank: occurrences, and outermost ones (not inside another of the same name), which is
  // what declareParallelRegion counts as steps.
  std::vector<std::uint32_t> outer(F), open(F);
  std::vector<std::pair<TimeNs, std::uint32_t>> ends;  // (leave, function) of open states
  for (const RankTrace& rt : trace.ranks) {
    std::fill(outer.begin(), outer.end(), 0);
    std::fill(open.begin(), open.end(), 0);
    ends.clear();
    for (std::size_t e = 0; e < rt.size(); ++e) {
      const std::uint32_t f = rt.function[e];
      if (f >= F || !usable[f]) continue;
      while (!ends.empty() && ends.back().first <= rt.enter[e]) {
        --open[ends.back().second];
        ends.pop_back();
      }
      ++c[f].occurrences;
      if (open[f] == 0) ++outer[f];
      ++open[f];
      ends.emplace_back(rt.leave[e], f);
      std::sort(ends.begin(), ends.end(), [](auto& a, auto& b) { return a.first > b.first; });
    }
    for (std::size_t f = 0; f < F; ++f)
      if (outer[f] > 0) {
        c[f].steps = std::max(c[f].steps, outer[f]);
        ++c[f].ranks;
      }
  }
  std::vector<RegionCandidate> out;
  for (std::size_t f = 0; f < F; ++f)
    if (usable[f] && c[f].occurrences > 0) out.push_back(c[f]);
  std::stable_sort(out.begin(), out.end(), [](const RegionCandidate& a, const RegionCandidate& b) {
    return a.steps != b.steps ? a.steps > b.steps : a.name < b.name;
  });
  return out;
}

std::shared_ptr<const Trace> withParallelRegion(const Trace& trace, const std::string& name, QString* error) {
  auto copy = std::make_shared<Trace>(trace);
  if (!declareParallelRegion(*copy, name)) {
    if (error)
      *error = QCoreApplication::translate("RegionPicker", "The trace has no state or region named '%1'")
                   .arg(QString::fromStdString(name));
    return nullptr;
  }
  return copy;
}

}  // namespace perwiz::gui
