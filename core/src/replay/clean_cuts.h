// Clean cuts of a replay program: where a change that moved every rank by the same amount
// moves everything after it by that amount (internal; docs/model.md, "Uniform shifts").
//
// A cut is a collective instance with one member on every rank: B_k is every unit up to and
// including rank r's member m_r, on every rank, and every gather node whose members are all in
// B_k. The cut is *clean* when nothing outside B_k reads a time of B_k except the chain read
// of a rank's next enter from its member's leave: no message, collective or queue crosses it.
// The replay is a composition of max and of additions of constants (leaveRule, nodeValue), so
// when every m_r's predicted leave moved by the same Δ and no constant outside B_k changed,
// every time outside B_k moved by exactly Δ (by induction in schedule order).
#pragma once

#include "perwiz/internal/replay_program.h"

#include "perwiz/rank_parallel.h"

#include <atomic>
#include <cstdint>
#include <vector>

namespace perwiz {

struct CleanCuts {
  std::vector<std::uint32_t> node;      // the cut's gather node (one member on every rank)
  std::vector<std::uint32_t> firstPos;  // the lowest schedule position of its members
  std::vector<std::uint32_t> endPos;    // one past the highest: B_k's units all lie before it
  std::size_t size() const { return node.size(); }
};

// The clean cuts of `p` in schedule order (firstPos and endPos ascending). Needs p.position
// (prepareIncremental). About 4 bytes per rank and candidate cut while it runs; the result is
// 12 bytes per clean cut. Ranks in parallel.
CleanCuts findCleanCuts(const ReplayProgram& p);

// Follows an incremental sweep (which visits schedule positions in ascending order) from one
// clean cut to the next and tells, once every position before a cut's endPos is computed,
// whether every rank's member of the cut moved by the same Δ.
class CutWatch {
 public:
  CutWatch(const ReplayProgram& p, const CleanCuts& cuts) : p_(p), cuts_(cuts) {}
  // Watches the first cut whose members all lie at or after `position` (none computed yet)
  // and whose B_k holds every unit whose constants changed (`lastTouched[r]`: rank r's last
  // such unit, kNone32 if none; `lastTouchedPos`: the highest schedule position of them):
  // the members' predicted leaves as they are now are the "before" of the check. No such
  // cut: end() is past everything.
  void start(std::uint32_t position, const std::vector<std::uint32_t>& lastTouched, std::uint32_t lastTouchedPos,
             const std::vector<TimeNs>& leave);
  // One past the watched cut's last member: check() once the sweep reaches it.
  std::uint32_t end() const { return end_; }
  // Whether every member moved by the same Δ (into *delta); otherwise watches the next cut
  // whose members all lie at or after `position` (the next position the sweep computes).
  bool check(std::uint32_t position, const std::vector<TimeNs>& leave, TimeNs* delta);
  // The watched cut's member on each rank (valid after check() returned true).
  const std::vector<std::uint32_t>& frontier() const { return frontier_; }

 private:
  void arm(std::size_t k, const std::vector<TimeNs>& leave);
  const ReplayProgram& p_;
  const CleanCuts& cuts_;
  std::size_t k_ = 0;
  std::uint32_t end_ = kNone32;
  std::vector<std::uint32_t> frontier_;
  std::vector<TimeNs> before_;
};

// After check() found Δ at a cut (members `frontier`, one per rank; `end` its endPos): adds Δ
// to every unit after its rank's member and every node outside B_k at schedule positions from
// `end` on (those before it were computed); a node of B_k at or after `end` is recomputed by
// `node(n)`. Ranks in parallel. Returns the number of items shifted.
template <class Node>
std::uint64_t shiftAfterCut(const ReplayProgram& p, const std::vector<std::uint32_t>& frontier, std::uint32_t end,
                            TimeNs delta, std::vector<TimeNs>& leave, std::vector<TimeNs>& nodeVal, const Node& node);

}  // namespace perwiz

namespace perwiz {

template <class Node>
std::uint64_t shiftAfterCut(const ReplayProgram& p, const std::vector<std::uint32_t>& frontier, std::uint32_t end,
                            TimeNs delta, std::vector<TimeNs>& leave, std::vector<TimeNs>& nodeVal, const Node& node) {
  std::atomic<std::uint64_t> shifted{0};
  if (delta != 0) forEachRank(p.ranks, p.units, [&](std::uint32_t r) {
    // Positions grow along a rank (each unit reads its predecessor's leave): the units after
    // the member that the sweep already computed are a prefix.
    std::uint32_t u = frontier[r] + 1;
    const std::uint32_t last = p.rankBegin[r + 1];
    while (u < last && p.position[u] < end) ++u;
    for (std::uint32_t v = u; v < last; ++v) leave[v] = satAdd(leave[v], delta);
    shifted.fetch_add(last - u, std::memory_order_relaxed);
  });
  std::uint64_t nodes = 0;
  for (std::uint32_t n = 0; n < p.nodes(); ++n) {
    if (p.position[p.units + n] < end || p.nodeBegin[n] == p.nodeBegin[n + 1]) continue;
    const std::uint32_t m = p.nodeMembers[p.nodeBegin[n]];  // all members on one side of a clean cut
    if (m > frontier[p.rankOf(m)]) {
      if (delta == 0) continue;
      nodeVal[n] = satAdd(nodeVal[n], delta);
      ++nodes;
    } else {
      nodeVal[n] = node(n);
    }
  }
  return shifted.load() + nodes;
}

}  // namespace perwiz
