// zeroWaitTimes (execution_dag.h) over a group of processes: the domino search's exact T' of
// zeroing each of some calls' waits, from the DAG that the processes' shares form together
// (docs/distributed.md, "The domino search's bounds"; the serial method: docs/model.md §8.1).
//
// The serial passes need a topological order of every vertex, the longest distance of each to
// the end (tail) and, for every edge, the queries it jumps over. Over shares:
// - the order is the distributed sweep's (SweepOrder): by (round, process, item), 2 positions per
//   item (L(u) and E(u + 1)); a ghost's enter takes its owner's position (sent once);
// - the tails are swept backwards round by round, last round first: a ghost's tail goes to its
//   owner after each round (its owner fixed it in an earlier round), a proxy's to the processes
//   whose members it gathers, with its position;
// - each process jumps the edges into its own vertices (and its members' edges into a proxy) into
//   a segment tree over the gathered queries (2K entries: the serial K log K table would be 99 MB
//   on every process at 10^8 events), pushes it down and sends each query's entry to its owner,
//   which takes the maximum and answers.
// Per own unit 16 B (its place in the order and its distance to the end) and the order's 4 B;
// per ghost 13 B.
// A gather node is computed where its readers are (one vertex per copy, the same members and
// value): the paths, and so their lengths, are the serial DAG's.
#pragma once

#include "distributed_sweep.h"

#include "perwiz/process_group.h"
#include "perwiz/replay.h"

#include <vector>

namespace perwiz {

// T' per call (as zeroWaitTimes(); T where the call is not a replayed unit), on every process.
// `replayer` holds the sweep's results that recorded `order`; `t` is its predicted T. Every
// process of `group` calls it with the same calls (a collective operation).
std::vector<TimeNs> zeroWaitTimesDistributed(Replayer& replayer, std::uint32_t ranks, const SweepLinks& links,
                                             const SweepOrder& order, TimeNs t, const std::vector<EventRef>& calls,
                                             ProcessGroup& group);

}  // namespace perwiz
