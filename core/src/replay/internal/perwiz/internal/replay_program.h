// The replay program: a measured trace compiled for fast forward sweeps (internal).
//
// A *unit* is a top-level MPI call of a rank (MPI calls nested inside another MPI call follow
// their parent) or the rank's end sentinel, whose gap is the computation after the last call.
// Units are numbered rank after rank; everything per unit lives in flat arrays so that a sweep
// touches memory in order. A dependency says "this unit cannot return before the source's
// predicted time plus an offset"; a source is a unit's enter time or a gather node (the latest
// enter of a collective's members). The schedule is a topological order of units and nodes
// that respects every dependency the replay may ever activate.
#pragma once

#include "perwiz/checked_time.h"
#include "perwiz/compact_offsets.h"
#include "perwiz/index_iterator.h"
#include "perwiz/replay.h"
#include "perwiz/internal/overlay.h"
#include "perwiz/internal/replayer_access.h"
#include "perwiz/internal/small_times.h"

#include <algorithm>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <span>
#include <vector>

namespace perwiz {

struct CleanCuts;  // clean_cuts.h

namespace dep {
inline constexpr std::uint8_t kActive = 1;     // the protocol makes this dependency real
inline constexpr std::uint8_t kScheduled = 2;  // the schedule respects it (not cut by a cycle)
inline constexpr std::uint8_t kSyncSend = 4;   // a rendezvous send's wait for its receiver
inline constexpr std::uint8_t kSkewed = 8;     // offset shortened to fit the measured times
inline constexpr std::uint8_t kLateRecv = 16;  // a receive completed by a later call (Wait/Test)
inline constexpr std::uint8_t kLateSend = 32;  // a send completed by a later call (Wait/Test)
inline constexpr std::uint8_t kUse = kActive | kScheduled;
}  // namespace dep

// A point-to-point message (a matched pair) or an unmatched endpoint.
struct ReplayMessage {
  std::uint32_t step = kNone32;  // parallel step containing the send's post call
  std::uint32_t units[4] = {kNone32, kNone32, kNone32, kNone32};  // units whose costs use it
};

struct ReplayProgram {
  const Trace* trace = nullptr;  // the measured trace (outlives the program)
  std::uint32_t ranks = 0;
  std::uint32_t units = 0;
  std::vector<std::uint32_t> rankBegin;  // size ranks+1; last unit of a rank = its sentinel
  std::vector<TimeNs> rankEnd;           // per rank: the measured end (its sentinel's times)
  // Units and MPI calls map onto each other by arithmetic (no array per unit or per call): the
  // k-th top-level call of a rank is unit rankBegin[r] + k, and a call nested inside another
  // one follows its parent. Per rank, the MPI indices of its nested calls, sorted (empty in
  // almost every trace).
  std::vector<std::vector<std::uint32_t>> nested;
  std::vector<std::uint64_t> sentinelBits;  // bit u: unit u is a rank's end sentinel

  // Measured enter or leave of every unit, read from the trace (the sentinel's: the rank's end).
  class MeasuredColumn {
   public:
    MeasuredColumn(const ReplayProgram* p, bool leave) : p_(p), leave_(leave) {}
    TimeNs operator[](std::size_t u) const { return in(p_->rankOf(static_cast<std::uint32_t>(u)), static_cast<std::uint32_t>(u)); }
    // The same for a unit known to be rank r's (no search for the rank).
    TimeNs in(std::uint32_t r, std::uint32_t u) const {
      if (p_->isSentinel(u)) return p_->rankEnd[r];
      const RankTrace& rt = p_->trace->ranks[r];
      const std::uint32_t e = rt.mpiCalls[p_->callIn(r, u)];
      return leave_ ? rt.leave[e] : rt.enter[e];
    }
    using iterator = IndexIterator<MeasuredColumn, TimeNs>;
    iterator begin() const { return {this, 0}; }
    iterator end() const { return {this, p_->units}; }

   private:
    const ReplayProgram* p_;
    bool leave_;
  };
  const MeasuredColumn measEnter{this, false}, measLeave{this, true};

  SmallTimes gap0;    // measured computation before the unit
  SmallTimes local0;  // local cost in the program's cost mode
  // Measured waiting time: kept in cost mode "model" only; in "measured" the local cost is
  // what is left of the call beside it (local0 = leave − enter − wait), so it is derived.
  std::vector<TimeNs> wait0;
  TimeNs waitOf(std::uint32_t u) const { return wait0.empty() ? measLeave[u] - measEnter[u] - local0[u] : wait0[u]; }
  TimeNs waitIn(std::uint32_t r, std::uint32_t u) const {
    return wait0.empty() ? measLeave.in(r, u) - measEnter.in(r, u) - local0[u] : wait0[u];
  }
  // Cost mode "model" only: 1 where local0 is the network model's price, not a measurement
  // (compensation leaves those alone: they hold no instrumentation). Empty in "measured".
  std::vector<std::uint8_t> modelLocal;

  // MPI calls of rank r (nested ones included).
  std::uint32_t callCount(std::uint32_t r) const { return static_cast<std::uint32_t>(trace->ranks[r].mpiCalls.size()); }
  bool isNested(std::uint32_t r, std::uint32_t call) const {
    return !nested[r].empty() && std::binary_search(nested[r].begin(), nested[r].end(), call);
  }
  // The unit of MPI call `call` of rank r (its parent's for a nested call).
  std::uint32_t unitOfCall(std::uint32_t r, std::uint32_t call) const {
    const auto& n = nested[r];
    if (n.empty()) return rankBegin[r] + call;
    const auto it = std::lower_bound(n.begin(), n.end(), call);
    const std::uint32_t before = static_cast<std::uint32_t>(it - n.begin());  // nested calls before it
    const bool self = it != n.end() && *it == call;
    return rankBegin[r] + call - before - (self ? 1 : 0);
  }
  // The MPI index of unit u of rank r; kNone32 for the sentinel.
  std::uint32_t callIn(std::uint32_t r, std::uint32_t u) const {
    if (isSentinel(u)) return kNone32;
    const std::uint32_t k = u - rankBegin[r];
    const auto& n = nested[r];
    if (n.empty()) return k;
    // The j-th nested call (0-based) has n[j] - j top-level calls before it: those with
    // n[j] - j <= k come before the k-th top-level call (n[j] - j never decreases).
    std::uint32_t lo = 0, hi = static_cast<std::uint32_t>(n.size());
    while (lo < hi) {
      const std::uint32_t mid = lo + (hi - lo) / 2;
      if (n[mid] - mid <= k) lo = mid + 1;
      else hi = mid;
    }
    return k + lo;
  }
  std::uint32_t callOf(std::uint32_t u) const { return callIn(rankOf(u), u); }
  // The first unit of rank r whose measured enter is after t (upper) or at or after t (lower);
  // the rank's end is its sentinel's enter, so the sentinel is found for any t up to the end.
  std::uint32_t firstEnteredAfter(std::uint32_t r, TimeNs t) const {
    return search(r, [&](std::uint32_t u) { return measEnter.in(r, u) <= t; });
  }
  std::uint32_t firstEnteredAtOrAfter(std::uint32_t r, TimeNs t) const {
    return search(r, [&](std::uint32_t u) { return measEnter.in(r, u) < t; });
  }
  template <class Before>
  std::uint32_t search(std::uint32_t r, Before before) const {
    std::uint32_t lo = rankBegin[r], hi = rankBegin[r + 1];
    while (lo < hi) {
      const std::uint32_t mid = lo + (hi - lo) / 2;
      if (before(mid)) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
  // The MPI index a unit stands for in "RANK:INDEX" names: the sentinel's is the call count
  // (its gap is "RANK:cINDEX", the computation after the last call).
  std::uint32_t indexIn(std::uint32_t r, std::uint32_t u) const { return isSentinel(u) ? callCount(r) : callIn(r, u); }

  // Dependencies, CSR by unit.
  CompactOffsets depBegin;              // size units+1 (about 2 B per unit)
  std::vector<std::uint32_t> depSrc;    // < units: unit enter; else gather node units+n
  SmallTimes depOff0;
  std::vector<std::uint8_t> depFlags0;

  // Gather nodes (collective instances), CSR.
  std::vector<std::uint32_t> nodeBegin;
  std::vector<std::uint32_t> nodeMembers;
  // Queue nodes (cost mode "model", NetworkModel::collectiveQueue > 0; empty otherwise): per
  // node the time q each non-root member's message holds the root's link, and the root's unit.
  // Such a node's value is not the latest enter but the time that link has carried every
  // message, each from its member's arrival (nodeValue below; docs/model.md §3).
  std::vector<TimeNs> nodeQueue;
  std::vector<std::uint32_t> nodeRoot;
  bool queued(std::uint32_t n) const { return !nodeQueue.empty() && nodeQueue[n] > 0; }
  // The value of node n from its members' enter times: max over members, or for a queue node
  //   max(E_root + (m − 1)·q, max over non-roots i of E_i + c_i·q),  c_i = #{non-roots j : E_j ≥ E_i}
  // (the root posts its receives at its enter; a message crosses the link after every one that
  // arrived no earlier, as with a FIFO). `critical` receives the member the value comes from
  // (the first on a tie; the root where its term is the largest).
  template <class Enter>
  TimeNs nodeValue(std::uint32_t n, const Enter& enter, std::uint32_t* critical = nullptr) const;
  // The weights of node n's member edges in the DAG at these enters, in nodeMembers order, so
  // that nodeValue = max over members of (enter + weight): 0 for a plain node; for a queue
  // node (m − 1)·q for the root and c_i·q for a non-root.
  template <class Enter>
  void nodeMemberWeights(std::uint32_t n, const Enter& enter, std::vector<TimeNs>& out) const;

  // Topological schedule of units and nodes.
  std::vector<std::uint32_t> schedule;

  // For incremental updates only, built on first need (prepareIncremental(); thread-safe, so
  // forks that share the program may ask at once): who reads a source's time (CSR over
  // units+nodes -> units and nodes) and each item's position in the schedule.
  void prepareIncremental(ReplayControl* control = nullptr) const;
  mutable CompactOffsets consumerBegin;  // size items+1
  mutable std::vector<std::uint32_t> consumers;
  mutable CompactIndex position;  // about 2 B per item
  // The clean cuts (clean_cuts.h): where a change that moved every rank alike shifts the rest.
  mutable std::shared_ptr<const CleanCuts> cleanCuts;
  mutable std::once_flag incrementalOnce_;

  // The links between units and messages, built on first need (prepareLinks(); thread-safe;
  // at construction in cost mode "model", which prices each unit's roles): the communication
  // roles of each unit (CSR) and the message behind each dependency (kNone32 for collective
  // ones). A prediction whose message sizes never change (the CLI's) never needs them.
  void prepareLinks() const;
  mutable std::vector<std::uint32_t> roleBegin;
  mutable std::vector<CommRole> roleKind;
  mutable std::vector<std::uint32_t> roleMsg;
  mutable std::vector<std::uint32_t> depMsg;
  mutable std::vector<ReplayMessage> messages;  // per message: its parallel step and units
  mutable std::once_flag linksOnce_;
  // The same roles for one rank without the links: read from the trace's endpoints on each
  // call and kept nowhere (the lower bounds' send/receive split; thread-safe, one call per
  // rank may run at once). onRole(unit, role), a unit's roles in the order roleKind holds them.
  void forEachRole(std::uint32_t rank, const std::function<void(std::uint32_t, CommRole)>& onRole) const;
  // Per message: its size (the effective sizes' base), packed at the end of the build like the
  // durations (almost every trace sends a few sizes: a bit or two each).
  SmallTimes messageBytes;
  std::uint64_t bytesOf(std::uint32_t m) const { return static_cast<std::uint64_t>(messageBytes[m]); }

  std::uint32_t nodes() const { return static_cast<std::uint32_t>(nodeBegin.size()) - 1; }
  std::uint32_t items() const { return units + nodes(); }
  bool isSentinel(std::uint32_t u) const { return (sentinelBits[u >> 6] >> (u & 63)) & 1; }
  // The first unit of a rank follows the previous rank's end sentinel.
  bool isFirst(std::uint32_t u) const { return u == 0 || isSentinel(u - 1); }
  // The rank of unit u: the rank holding the first unit of u's block of 2^kRankBlockBits units,
  // then forward (a step or two: ranks hold thousands of units; a rank of fewer is skipped).
  static constexpr unsigned kRankBlockBits = 12;
  std::vector<std::uint32_t> rankOfBlock;
  std::uint32_t rankOf(std::uint32_t u) const {
    std::uint32_t r = rankOfBlock[u >> kRankBlockBits];
    while (rankBegin[r + 1] <= u) ++r;
    return r;
  }
};

// One bit per unit (the units a hypothesis lets wait for nothing), read like a bool array.
struct UnitBits {
  const std::uint64_t* words = nullptr;
  bool operator[](std::size_t u) const { return (words[u >> 6] >> (u & 63)) & 1; }
};

struct EffectiveProgram {
  ChunkedOverlay<TimeNs, SmallTimes>::Reader gap;
  ChunkedOverlay<TimeNs, SmallTimes>::Reader local;
  ChunkedOverlay<TimeNs, SmallTimes>::Reader depOff;
  std::span<const std::uint8_t> depFlags;
  UnitBits noWait;
};

// The replay's rule for unit u (docs/model.md §2): its predicted enter, raised to every active
// and scheduled dependency's source time plus offset (unless the unit waits for nothing, a
// zero-wait), plus its local cost. `v` holds the effective values (Effective, or the sweep's
// readers); `src(s)` is a source's time: a unit's predicted enter or a gather node's value.
// The serial sweep and the distributed one (distributed_sweep.h) both compute a unit by it.
template <class V, class Src>
TimeNs leaveRule(const ReplayProgram& p, std::uint32_t u, TimeNs enter, bool noWait, const V& v, const Src& src) {
  TimeNs ready = enter;
  if (!noWait)
    for (std::uint32_t d = p.depBegin[u]; d < p.depBegin[u + 1]; ++d)
      if ((v.depFlags[d] & dep::kUse) == dep::kUse) ready = std::max(ready, satAdd(src(p.depSrc[d]), v.depOff[d]));
  return satAdd(ready, v.local[u]);
}

// Each world rank's position in communicator `c` (its members in their order, then the ranks
// outside it in rank order): the order of a collective's members in the replay program.
inline std::vector<std::uint32_t> communicatorPositions(const Communicator& c, std::uint32_t ranks) {
  std::vector<std::uint32_t> pos(ranks, kNone32);
  const auto& wr = c.worldRanks;
  for (std::size_t i = 0; i < wr.size(); ++i)
    if (wr[i] >= 0 && static_cast<std::uint32_t>(wr[i]) < ranks && pos[static_cast<std::uint32_t>(wr[i])] == kNone32)
      pos[static_cast<std::uint32_t>(wr[i])] = static_cast<std::uint32_t>(i);
  for (std::uint32_t r = 0; r < ranks; ++r)
    if (pos[r] == kNone32) pos[r] = static_cast<std::uint32_t>(wr.size() + r);
  return pos;
}

// The schedule's rule for a stall (every unfinished rank waits): from rank `start` (the first
// unfinished one) follow `blocker(r)` (the rank r's blocked dependency waits for) into the
// cycle, and cut the dependency of its first rank whose blocked dependency is inactive (the
// current protocol does not use it), else of the first whose is a rendezvous send's, else of
// the cycle's first rank. `flags(r)`: r's blocked dependency's flags; ranks are below `ranks`.
// Returns the victim rank. The serial buildSchedule and perwiz-mpi's scheduleDistributed
// (distributed_sweep.h) both cut by it.
template <class Blocker, class Flags>
std::uint32_t cycleVictim(std::uint32_t ranks, std::uint32_t start, const Blocker& blocker, const Flags& flags) {
  std::vector<std::uint8_t> seen(ranks, 0);
  std::uint32_t r = start;
  while (!seen[r]) {
    seen[r] = 1;
    r = blocker(r);
  }
  std::vector<std::uint32_t> cycle{r};
  for (std::uint32_t x = blocker(r); x != r; x = blocker(x)) cycle.push_back(x);
  auto pick = [&](auto pred) -> std::uint32_t {
    for (std::uint32_t x : cycle)
      if (pred(flags(x))) return x;
    return kNone32;
  };
  std::uint32_t victim = pick([](std::uint8_t f) { return !(f & dep::kActive); });
  if (victim == kNone32) victim = pick([](std::uint8_t f) { return (f & dep::kSyncSend) != 0; });
  return victim != kNone32 ? victim : cycle.front();
}

// Compiles `trace` for `model` in cost mode `costs`; fills `report`. `leave` (if given)
// receives an array of one value per unit to hold the replay's results (its values are the
// measured leaves; a full replay overwrites them).
// `control` (may be null) is looked at between ranks and schedule steps (ReplayControl).
void buildReplayProgram(const Trace& trace, const NetworkModel& model, CostMode costs, ReplayProgram& program,
                        ReplayReport& report, std::vector<TimeNs>* leave = nullptr, ReplayControl* control = nullptr);

template <class Enter>
TimeNs ReplayProgram::nodeValue(std::uint32_t n, const Enter& enter, std::uint32_t* critical) const {
  const std::uint32_t b = nodeBegin[n], e = nodeBegin[n + 1];
  if (!queued(n) && !critical) {  // the sweep's case: the latest enter
    TimeNs t = 0;
    for (std::uint32_t i = b; i < e; ++i) t = std::max(t, enter(nodeMembers[i]));
    return t;
  }
  if (!queued(n)) {
    TimeNs t = 0;
    std::uint32_t who = b < e ? nodeMembers[b] : kNone32;
    for (std::uint32_t i = b; i < e; ++i)
      if (const TimeNs x = enter(nodeMembers[i]); x > t) t = x, who = nodeMembers[i];
    if (critical) *critical = who;
    return t;
  }
  const TimeNs q = nodeQueue[n];
  const std::uint32_t root = nodeRoot[n];
  thread_local std::vector<std::pair<TimeNs, std::uint32_t>> arrivals;  // non-roots, latest first
  arrivals.clear();
  for (std::uint32_t i = b; i < e; ++i)
    if (nodeMembers[i] != root) arrivals.emplace_back(enter(nodeMembers[i]), nodeMembers[i]);
  // Latest first; equal enters in member (communicator) order, so that the critical one is the first.
  std::stable_sort(arrivals.begin(), arrivals.end(), [](const auto& x, const auto& y) { return x.first > y.first; });
  TimeNs t = satAdd(enter(root), static_cast<TimeNs>(arrivals.size()) * q);
  std::uint32_t who = root;
  for (std::size_t i = 0; i < arrivals.size();) {
    std::size_t j = i;  // a group of equal enters: each has all of them behind it
    while (j < arrivals.size() && arrivals[j].first == arrivals[i].first) ++j;
    if (const TimeNs x = satAdd(arrivals[i].first, static_cast<TimeNs>(j) * q); x > t) t = x, who = arrivals[i].second;
    i = j;
  }
  if (critical) *critical = who;
  return t;
}

template <class Enter>
void ReplayProgram::nodeMemberWeights(std::uint32_t n, const Enter& enter, std::vector<TimeNs>& out) const {
  const std::uint32_t b = nodeBegin[n], e = nodeBegin[n + 1];
  out.assign(e - b, 0);
  if (!queued(n)) return;
  const TimeNs q = nodeQueue[n];
  std::vector<TimeNs> sorted;  // the non-roots' enters, ascending
  for (std::uint32_t i = b; i < e; ++i)
    if (nodeMembers[i] != nodeRoot[n]) sorted.push_back(enter(nodeMembers[i]));
  std::sort(sorted.begin(), sorted.end());
  for (std::uint32_t i = b; i < e; ++i) {
    if (nodeMembers[i] == nodeRoot[n]) {
      out[i - b] = static_cast<TimeNs>(sorted.size()) * q;
    } else {
      const auto atOrAfter = sorted.end() - std::lower_bound(sorted.begin(), sorted.end(), enter(nodeMembers[i]));
      out[i - b] = static_cast<TimeNs>(atOrAfter) * q;
    }
  }
}

}  // namespace perwiz
