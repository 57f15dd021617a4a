// The forward sweep of perwiz-mpi: every process computes its own ranks' units, in rounds.
//
// Each process holds a Replayer over its ranks plus ghost ranks (core/src/distributed/ghosts.h).
// A unit is computed by the serial rule (leaveRule, replay_program.h) once its inputs are
// known: its rank's previous leave, and the source of every dependency it uses — a unit's
// predicted enter (its own process's, or a ghost's received from the owner) or a gather node
// (Program::nodeValue over its members' enters, computed where it is needed).
//
// A round: every process advances each of its ranks as far as its known inputs allow (a rank
// blocked on another of its process's ranks is woken when that rank advances), then all
// processes exchange the enters the others read (ProcessGroup::exchange, one buffer per
// process: a status byte and (index, enter) pairs). No order can deadlock: a process only ever
// waits for a round's end, and a round in which no process computes or sends anything while
// some rank is unfinished means the trace's dependencies form a cycle (reported as an error).
// The results are the serial sweep's to the nanosecond: the same rule on the same inputs.
#pragma once

#include "perwiz/process_group.h"
#include "perwiz/replay.h"
#include "perwiz/trace_io.h"
#include "perwiz/internal/replayer_access.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <unordered_map>
#include <vector>

namespace perwiz {

struct SweepLinks {
  RankRange own;  // this process's ranks
  // This process's units whose enters other processes read, by unit: the reader and the
  // index in its imports from this process.
  struct Export {
    std::uint32_t unit, process, index;
  };
  std::vector<Export> exports;
  // The proxies this process sends (core/src/distributed/ghosts.h): per own rank its calls'
  // memberships (unit, proxy), by unit; per proxy its number of own members; where each goes.
  std::vector<std::vector<std::pair<std::uint32_t, std::uint32_t>>> memberships;
  std::vector<std::uint32_t> proxyMembers;
  struct ProxyDest {
    std::uint32_t proxy, process, index;
  };
  std::vector<ProxyDest> proxyDests;  // by proxy
  // Per process: what its values fill, by index: a ghost unit (its ranks' ghost units in rank
  // order), or kProxy | c, the c-th call of the proxy rank, after its ranks'.
  static constexpr std::uint32_t kProxy = 0x80000000u;
  std::vector<std::vector<std::uint32_t>> imports;
  std::uint32_t proxyRank = kNone32;        // importGhosts' proxy rank
  std::vector<std::uint32_t> proxySenders;  // per proxy-rank call: the processes that send it
  std::uint32_t proxies() const { return static_cast<std::uint32_t>(proxyMembers.size()); }
  // The own members of each proxy, from `memberships`: proxy x's units are
  // members[begin[x] .. begin[x + 1]).
  void proxyMemberLists(std::vector<std::uint32_t>& begin, std::vector<std::uint32_t>& members) const;
};

// The links of `replayer` (built over `trace`: this process's share `own` of the ranks plus
// ghost ranks and the proxy rank of importGhosts, `imported`) with the other processes of a
// group of `processes` (process q holds rankShare(R, q, processes), R the trace's ranks without
// the proxy rank). `everyMember` as given to exportGhosts.
struct ImportedGhosts;
SweepLinks sweepLinks(const Replayer& replayer, const Trace& trace, std::uint32_t me, std::uint32_t processes,
                      bool everyMember, const ImportedGhosts& imported);

// This process's own calls of each collective instance, found by (communicator, sequence) as
// the processes name instances to each other, and the communicators' member orders: what a
// process looks up to answer another's question about a gather (the schedule's stall,
// scheduleDistributed; the critical path's tie, distributed_critical_path.h). Built on the
// first question: 8 B per own collective call and 12 B per instance.
class OwnCollectives {
 public:
  // `ranks`: the trace's ranks (without the proxy rank).
  OwnCollectives(const ReplayProgram& p, const Trace& trace, RankRange own, std::uint32_t ranks)
      : p_(p), trace_(trace), own_(own), ranks_(ranks) {}
  // The units of the own calls of instance (comm, sequence); calls `fn(unit)` for each.
  template <class Fn>
  void forEachMember(std::uint32_t comm, std::uint32_t sequence, const Fn& fn) {
    const std::uint32_t instance = find(comm, sequence);
    if (instance == kNone32) return;
    for (auto m = std::lower_bound(members_.begin(), members_.end(), std::make_pair(instance, std::uint32_t{0}));
         m != members_.end() && m->first == instance; ++m)
      fn(m->second);
  }
  // A world rank's position in communicator `comm` (communicatorPositions, the replay program's
  // order of a collective's members).
  std::uint32_t position(std::uint32_t comm, std::uint32_t rank);

 private:
  std::uint32_t find(std::uint32_t comm, std::uint32_t sequence);
  const ReplayProgram& p_;
  const Trace& trace_;
  const RankRange own_;
  const std::uint32_t ranks_;
  bool built_ = false;
  std::vector<std::pair<std::uint32_t, std::uint32_t>> members_;  // (instance, unit), sorted
  std::vector<std::array<std::uint32_t, 3>> instances_;             // (comm, sequence, instance), sorted
  std::unordered_map<std::uint32_t, std::vector<std::uint32_t>> positions_;
};

struct SweepStats {
  std::uint64_t rounds = 0;
  std::uint64_t enterSent = 0;     // (index, enter) pairs this process sent
  std::uint64_t brokenCycles = 0;  // scheduleDistributed: active dependencies cut (every process)
};

// A cycle of active dependencies the sweep cannot pass (raised on every process alike): the
// schedule must cut it first (scheduleDistributed).
struct SweepCycle : GroupError {
  using GroupError::GroupError;
};

// The order in which a sweep fixed this process's vertices of the execution DAG, round by round
// (the distributed zeroWaitTimes' topological order, distributed_zero_wait.cpp): an own unit's
// return L(u) (and with it E(u + 1)), `kNode | n` a gather node's value computed here, `kEnter | g`
// a proxy-rank unit's enter completed by the round's exchange. A value from another process
// arrives only after a round, so ordered by (round, process, item) every edge points forward.
struct SweepOrder {
  static constexpr std::uint32_t kNode = 0x80000000u, kEnter = 0x40000000u;
  std::vector<std::uint32_t> items;
  std::vector<std::uint32_t> roundStart;  // per round its first item, and one past the last
};

// Computes every unit of this process's ranks into internal::ReplayerAccess::resultsForWriting(replayer); every process
// of `group` calls it (a collective operation). Throws SweepCycle on a dependency cycle.
// With `order`, records the order of the sweep (4 B per own unit).
SweepStats sweepDistributed(Replayer& replayer, const SweepLinks& links, ProcessGroup& group,
                            SweepOrder* order = nullptr);

// The serial schedule's cuts (replay_program.cpp, buildSchedule): every process of `group`
// calls it before sweepDistributed(), on a replayer without hypotheses. The same rounds, on
// whether each unit could be entered (every dependency counts, active or not) instead of
// values; when every unfinished rank of every process waits, the serial rule cuts one
// dependency of the same cycle (breakCycle: from the first unfinished rank, along the ranks
// each waits for; an inactive dependency first, then a rendezvous send's). The kScheduled flags
// of this process's units are set to the serial program's (those of ghost units are left), so
// that a hypothesis activating a dependency (balance-volume making a send rendezvous) finds the
// same schedule. `trace` is the replayer's.
SweepStats scheduleDistributed(Replayer& replayer, const Trace& trace, const SweepLinks& links, ProcessGroup& group);

}  // namespace perwiz
