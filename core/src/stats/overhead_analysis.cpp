// Overhead of every communication call (Kluge et al. §4, §10): t_max per class from a fit of
// the class's durations or from a profile, t_oh = max(t − t_max, 0), totals per site, function
// and rank.
#include "perwiz/overhead_detection.h"

#include "call_classes.h"

#include <algorithm>
#include <stdexcept>
#include <unordered_map>

namespace perwiz {

std::string_view thresholdSourceName(ThresholdSource source) {
  return source == ThresholdSource::Profile ? "profile" : "fit";
}

TimeNs OverheadAnalysis::overheadAtEvent(const Trace& trace, std::uint32_t rank, std::uint32_t event) const {
  if (rank >= trace.rankCount() || rank >= overheadOfCall.size()) return 0;
  const std::vector<std::uint32_t>& calls = trace.ranks[rank].mpiCalls;
  auto it = std::lower_bound(calls.begin(), calls.end(), event);
  if (it == calls.end() || *it != event) return 0;
  const auto i = static_cast<std::size_t>(it - calls.begin());
  return i < overheadOfCall[rank].size() ? overheadOfCall[rank][i] : 0;
}

namespace {

struct ClassKey {
  std::uint32_t name;
  std::uint32_t processes;
  std::uint64_t bytes;
  bool operator==(const ClassKey&) const = default;
};
struct ClassKeyHash {
  std::size_t operator()(const ClassKey& k) const {
    std::uint64_t h = k.bytes * 0x9E3779B97F4A7C15ull;
    h ^= (std::uint64_t{k.name} << 32 | k.processes) + 0x7F4A7C159E3779B9ull + (h << 6) + (h >> 2);
    return static_cast<std::size_t>(h);
  }
};

void add(OverheadTotals& t, TimeNs duration, TimeNs overhead) {
  ++t.calls;
  t.timeNs += duration;
  t.overheadNs += overhead;
}

// Largest overhead first; then longest time; then the caller's tie-breaker.
template <class T, class Less>
void sortByOverhead(std::vector<T>& v, Less tieBreak) {
  std::sort(v.begin(), v.end(), [&](const T& a, const T& b) {
    if (a.totals.overheadNs != b.totals.overheadNs) return a.totals.overheadNs > b.totals.overheadNs;
    if (a.totals.timeNs != b.totals.timeNs) return a.totals.timeNs > b.totals.timeNs;
    return tieBreak(a, b);
  });
}

}  // namespace

OverheadAnalysis analyzeOverhead(const Trace& trace, const OverheadOptions& options) {
  if (std::string problem = validateFitOptions(options.fit); !problem.empty())
    throw std::invalid_argument(problem);
  const stats_detail::CallTable table = stats_detail::describeCalls(trace);

  OverheadAnalysis out;
  out.quantile = options.fit.quantile;
  const std::size_t ranks = trace.rankCount();
  out.classOfCall.resize(ranks);
  out.overheadOfCall.resize(ranks);

  // 1. Classes and their samples (durations in call order; fitSample does not need them sorted).
  std::unordered_map<ClassKey, std::uint32_t, ClassKeyHash> classIds;
  std::vector<ClassKey> keys;
  std::vector<std::vector<TimeNs>> samples;
  for (std::uint32_t r = 0; r < ranks; ++r) {
    const RankTrace& rank = trace.ranks[r];
    out.classOfCall[r].assign(rank.mpiCalls.size(), kNone32);
    out.overheadOfCall[r].assign(rank.mpiCalls.size(), 0);
    for (std::size_t i = 0; i < rank.mpiCalls.size(); ++i) {
      const stats_detail::CallDescription& d = table.calls[r][i];
      if (d.name == kNone32) continue;
      const ClassKey key{d.name, d.processes, d.bytes};
      auto [it, added] = classIds.emplace(key, static_cast<std::uint32_t>(keys.size()));
      if (added) {
        keys.push_back(key);
        samples.emplace_back();
      }
      const std::uint32_t e = rank.mpiCalls[i];
      samples[it->second].push_back(rank.leave[e] - rank.enter[e]);
      out.classOfCall[r][i] = it->second;
    }
  }

  // 2. t_max per class: the profile where it has the function, else the class's own fit.
  std::vector<CallClassOverhead> classes(keys.size());
  for (std::size_t c = 0; c < keys.size(); ++c) {
    CallClassOverhead& cls = classes[c];
    cls.function = table.names[keys[c].name];
    cls.processes = keys[c].processes;
    cls.bytes = keys[c].bytes;
    cls.minNs = *std::min_element(samples[c].begin(), samples[c].end());
    const ProfileFunction* fromProfile = options.profile ? options.profile->find(cls.function) : nullptr;
    if (fromProfile) {
      const ProfileValue v = evaluateProfile(*fromProfile, cls.processes, static_cast<double>(cls.bytes));
      cls.source = ThresholdSource::Profile;
      cls.tMaxNs = v.tMaxNs;
      cls.outsideProfileGrid = !v.insideGrid;
    } else {
      cls.fit = fitSample(samples[c], options.fit);
      cls.source = ThresholdSource::Fit;
      cls.tMaxNs = cls.fit->tMaxNs;
    }
  }
  samples.clear();
  samples.shrink_to_fit();

  // 3. t_oh per call and the totals.
  std::unordered_map<std::uint64_t, std::uint32_t> siteIds;  // (region, name) -> sites index
  std::vector<FunctionOverhead> functions(table.names.size());
  for (std::size_t n = 0; n < table.names.size(); ++n) functions[n].function = table.names[n];
  out.ranks.resize(ranks);
  for (std::uint32_t r = 0; r < ranks; ++r) {
    const RankTrace& rank = trace.ranks[r];
    out.ranks[r].rank = r;
    for (std::size_t i = 0; i < rank.mpiCalls.size(); ++i) {
      const std::uint32_t c = out.classOfCall[r][i];
      if (c == kNone32) continue;
      const std::uint32_t e = rank.mpiCalls[i];
      const TimeNs t = rank.leave[e] - rank.enter[e];
      const TimeNs tMax = classes[c].tMaxNs;
      const TimeNs oh = t > tMax ? t - tMax : 0;  // t ≤ t_max → 0, else t − t_max (§4)
      out.overheadOfCall[r][i] = oh;
      const stats_detail::CallDescription& d = table.calls[r][i];
      add(classes[c].totals, t, oh);
      add(functions[d.name].totals, t, oh);
      add(out.ranks[r].totals, t, oh);
      add(out.total, t, oh);
      const std::uint64_t siteKey = std::uint64_t{d.region} << 32 | d.name;
      auto [it, added] = siteIds.emplace(siteKey, static_cast<std::uint32_t>(out.sites.size()));
      if (added)
        out.sites.push_back({d.region == kNone32 ? kTopLevelSite : trace.functions[d.region].name,
                             table.names[d.name], {}});
      add(out.sites[it->second].totals, t, oh);
    }
  }
  for (FunctionOverhead& f : functions)
    if (f.totals.calls > 0) out.functions.push_back(std::move(f));

  // 4. Sorted by overhead; classes renumbered in classOfCall to their sorted positions.
  std::vector<std::uint32_t> order(classes.size());
  for (std::uint32_t c = 0; c < order.size(); ++c) order[c] = c;
  std::sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) {
    const CallClassOverhead &x = classes[a], &y = classes[b];
    if (x.totals.overheadNs != y.totals.overheadNs) return x.totals.overheadNs > y.totals.overheadNs;
    if (x.totals.timeNs != y.totals.timeNs) return x.totals.timeNs > y.totals.timeNs;
    if (x.function != y.function) return x.function < y.function;
    return x.processes != y.processes ? x.processes < y.processes : x.bytes < y.bytes;
  });
  std::vector<std::uint32_t> position(classes.size());
  out.classes.reserve(classes.size());
  for (std::uint32_t pos = 0; pos < order.size(); ++pos) {
    position[order[pos]] = pos;
    out.classes.push_back(std::move(classes[order[pos]]));
  }
  for (auto& rankClasses : out.classOfCall)
    for (std::uint32_t& c : rankClasses)
      if (c != kNone32) c = position[c];

  sortByOverhead(out.sites, [](const SiteOverhead& a, const SiteOverhead& b) {
    return a.region != b.region ? a.region < b.region : a.function < b.function;
  });
  sortByOverhead(out.functions, [](const FunctionOverhead& a, const FunctionOverhead& b) {
    return a.function < b.function;
  });
  sortByOverhead(out.ranks, [](const RankOverhead& a, const RankOverhead& b) { return a.rank < b.rank; });
  return out;
}

}  // namespace perwiz
