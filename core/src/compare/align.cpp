// The alignment of two traces' events (perwiz/compare.h, docs/compare.md): ranks paired, then
// each pair's event streams walked together, resynchronised after each difference.
#include "perwiz/compare.h"

#include "perwiz/rank_parallel.h"

#include <algorithm>
#include <stdexcept>
#include <string_view>
#include <unordered_map>

namespace perwiz {
namespace {

// A's function numbers in B's numbering (the same name), kNone32 where B has no such function.
std::vector<std::uint32_t> functionMap(const Trace& a, const Trace& b) {
  std::unordered_map<std::string_view, std::uint32_t> byName;
  for (std::uint32_t f = 0; f < b.functions.size(); ++f) byName.emplace(b.functions[f].name, f);
  std::vector<std::uint32_t> map(a.functions.size(), kNone32);
  for (std::uint32_t f = 0; f < a.functions.size(); ++f)
    if (auto it = byName.find(a.functions[f].name); it != byName.end()) map[f] = it->second;
  return map;
}

// One rank pair's walk. Events are the same when their functions are (by name).
class RankAligner {
 public:
  RankAligner(const RankTrace& a, const RankTrace& b, const std::vector<std::uint32_t>& fmap)
      : fa_(a.function.data()), fb_(b.function.data()), n_(std::uint32_t(a.size())), m_(std::uint32_t(b.size())),
        fmap_(fmap.data()) {}

  void run(RankAlignment& out) {
    out.toB.assign(n_, kNone32);
    std::uint32_t i = 0, j = 0;
    while (i < n_ && j < m_) {
      if (same(i, j)) {
        out.toB[i++] = j++;
        ++out.paired;
        continue;
      }
      const auto [di, dj] = resync(i, j);
      out.onlyA += di;
      out.onlyB += dj;
      i += di;
      j += dj;
    }
    out.onlyA += n_ - i;
    out.onlyB += m_ - j;
  }

 private:
  static constexpr std::uint32_t kNear = 32;         // differences up to this size: tried one by one
  static constexpr std::uint32_t kWindow = 1 << 16;  // larger ones: searched in windows this long

  bool same(std::uint32_t i, std::uint32_t j) const { return fmap_[fa_[i]] == fb_[j]; }

  // The streams are in step at (i, j): the next kResyncRun events agree, or both end together
  // before that.
  bool inStep(std::uint32_t i, std::uint32_t j) const {
    for (std::uint32_t t = 0; t < kResyncRun; ++t, ++i, ++j) {
      if (i == n_ || j == m_) return i == n_ && j == m_;
      if (!same(i, j)) return false;
    }
    return true;
  }

  // (events of A, events of B) to skip from a difference at (i, j): the fewest in all after
  // which the streams are in step, the fewer of A first on a tie.
  std::pair<std::uint32_t, std::uint32_t> resync(std::uint32_t i, std::uint32_t j) const {
    for (std::uint32_t c = 1; c <= kNear; ++c)
      for (std::uint32_t di = 0; di <= c; ++di) {
        const std::uint32_t dj = c - di;
        if (di <= n_ - i && dj <= m_ - j && inStep(i + di, j + dj)) return {di, dj};
      }
    return farResync(i, j);
  }

  // Hash of the kResyncRun events from i of A (in B's numbering) or from j of B.
  std::uint64_t gramA(std::uint32_t i) const {
    std::uint64_t h = 0;
    for (std::uint32_t t = 0; t < kResyncRun; ++t) h = (h ^ fmap_[fa_[i + t]]) * 0x9E3779B97F4A7C15ull;
    return h;
  }
  std::uint64_t gramB(std::uint32_t j) const {
    std::uint64_t h = 0;
    for (std::uint32_t t = 0; t < kResyncRun; ++t) h = (h ^ fb_[j + t]) * 0x9E3779B97F4A7C15ull;
    return h;
  }

  // A larger difference: the first place of each run of kResyncRun events of B in the next
  // kWindow events, then A's runs in order until no closer resynchronisation can follow. Where
  // none is found in the window both sides skip it (runs of different programs: the share of
  // paired events tells, alignmentProblem).
  std::pair<std::uint32_t, std::uint32_t> farResync(std::uint32_t i, std::uint32_t j) const {
    const std::uint32_t restA = n_ - i, restB = m_ - j;
    if (restA < kResyncRun || restB < kResyncRun) return {restA, restB};
    const std::uint32_t endB = j + std::min(restB, kWindow) - kResyncRun + 1;
    std::unordered_map<std::uint64_t, std::uint32_t> firstAt;
    firstAt.reserve(endB - j);
    for (std::uint32_t y = j; y < endB; ++y) firstAt.emplace(gramB(y), y);
    std::uint64_t best = ~std::uint64_t{0};
    std::pair<std::uint32_t, std::uint32_t> skip{std::min(restA, kWindow), std::min(restB, kWindow)};
    const std::uint32_t endA = i + std::min(restA, kWindow) - kResyncRun + 1;
    for (std::uint32_t x = i; x < endA && x - i < best; ++x) {
      const auto it = firstAt.find(gramA(x));
      if (it == firstAt.end() || !inStep(x, it->second)) continue;
      const std::uint64_t cost = std::uint64_t{x - i} + (it->second - j);
      if (cost < best) {
        best = cost;
        skip = {x - i, it->second - j};
      }
    }
    return skip;
  }

  const std::uint32_t* fa_;
  const std::uint32_t* fb_;
  std::uint32_t n_, m_;
  const std::uint32_t* fmap_;
};

std::vector<std::pair<std::uint32_t, std::uint32_t>> pairRanks(
    const Trace& a, const Trace& b, const std::vector<std::pair<std::uint32_t, std::uint32_t>>& rankMap) {
  const std::uint32_t na = std::uint32_t(a.rankCount()), nb = std::uint32_t(b.rankCount());
  if (rankMap.empty()) {
    std::vector<std::pair<std::uint32_t, std::uint32_t>> pairs;
    for (std::uint32_t r = 0; r < std::min(na, nb); ++r) pairs.emplace_back(r, r);
    return pairs;
  }
  std::vector<bool> usedA(na, false), usedB(nb, false);
  for (const auto& [ra, rb] : rankMap) {
    if (ra >= na)
      throw std::invalid_argument("rank " + std::to_string(ra) + " of the first trace does not exist (it has " +
                                  std::to_string(na) + " ranks)");
    if (rb >= nb)
      throw std::invalid_argument("rank " + std::to_string(rb) + " of the second trace does not exist (it has " +
                                  std::to_string(nb) + " ranks)");
    if (usedA[ra] || usedB[rb])
      throw std::invalid_argument("rank " + std::to_string(usedA[ra] ? ra : rb) + " of the " +
                                  (usedA[ra] ? "first" : "second") + " trace is paired twice");
    usedA[ra] = usedB[rb] = true;
  }
  auto pairs = rankMap;
  std::sort(pairs.begin(), pairs.end());
  return pairs;
}

}  // namespace

std::vector<std::uint32_t> RankAlignment::onlyInB(std::uint32_t eventsB) const {
  std::vector<std::uint32_t> out;
  std::uint32_t next = 0;  // the first event of B not yet accounted for
  for (const std::uint32_t j : toB) {
    if (j == kNone32) continue;
    for (; next < j; ++next) out.push_back(next);
    next = j + 1;
  }
  for (; next < eventsB; ++next) out.push_back(next);
  return out;
}

double TraceAlignment::pairedShare() const {
  const std::uint64_t larger = std::max(eventsA, eventsB);
  return larger == 0 ? 1.0 : double(paired) / double(larger);
}

TraceAlignment alignTraces(const Trace& a, const Trace& b,
                           const std::vector<std::pair<std::uint32_t, std::uint32_t>>& rankMap) {
  TraceAlignment al;
  const auto pairs = pairRanks(a, b, rankMap);
  std::vector<bool> pairedA(a.rankCount(), false), pairedB(b.rankCount(), false);
  al.ranks.resize(pairs.size());
  for (std::size_t k = 0; k < pairs.size(); ++k) {
    al.ranks[k].rankA = pairs[k].first;
    al.ranks[k].rankB = pairs[k].second;
    pairedA[pairs[k].first] = pairedB[pairs[k].second] = true;
    al.eventsA += a.ranks[pairs[k].first].size();
    al.eventsB += b.ranks[pairs[k].second].size();
  }
  for (std::uint32_t r = 0; r < a.rankCount(); ++r)
    if (!pairedA[r]) al.unpairedA.push_back(r);
  for (std::uint32_t r = 0; r < b.rankCount(); ++r)
    if (!pairedB[r]) al.unpairedB.push_back(r);
  const std::vector<std::uint32_t> fmap = functionMap(a, b);
  forEachRank(std::uint32_t(pairs.size()), al.eventsA + al.eventsB, [&](std::uint32_t k) {
    RankAlignment& ra = al.ranks[k];
    RankAligner(a.ranks[ra.rankA], b.ranks[ra.rankB], fmap).run(ra);
  });
  for (const RankAlignment& ra : al.ranks) {
    al.paired += ra.paired;
    al.onlyA += ra.onlyA;
    al.onlyB += ra.onlyB;
  }
  return al;
}

std::string alignmentProblem(const TraceAlignment& al, double minShare) {
  if (al.ranks.empty()) return "the traces have no ranks in common";
  if (al.eventsA + al.eventsB == 0) return "";
  if (al.pairedShare() < minShare) {
    const auto percent = [](double share) { return std::to_string(int(share * 100.0 + 0.5)) + " %"; };
    return "only " + percent(al.pairedShare()) + " of the events pair up (" + std::to_string(al.paired) + " of " +
           std::to_string(std::max(al.eventsA, al.eventsB)) +
           "): the runs do not look like runs of one program (at least " + percent(minShare) + " needed)";
  }
  return "";
}

}  // namespace perwiz
