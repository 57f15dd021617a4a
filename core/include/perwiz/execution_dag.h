// The execution as a happened-before DAG (paper §2.2), built with Boost.Graph.
//
// The reference for the critical path (criticalPath() in critical_path.h walks the replay's
// results instead and is what the tools use): tests check that both agree. It holds a graph of
// every replayed call, so it is meant for tests and small traces.
//
// Vertices are the start and the return of every replayed MPI call, one gather vertex per
// collective, and a source at time 0; edges carry the scenario's weights (computation gaps,
// local costs, message offsets). The longest path from the source is the predicted execution
// time, and the events along it are the critical path.
#pragma once

#include "perwiz/critical_path.h"
#include "perwiz/replay.h"

#include <cstdint>
#include <string>
#include <vector>

namespace perwiz {

// T if the waiting time of each listed MPI call alone were zeroed (one zero-wait hypothesis
// added to the replayer's scenario), for all of them at once, without replaying: O(vertices +
// edges + calls·log calls). Zeroing call u's wait removes the dependency edges into u's return
// vertex L(u), so the new longest path either passes L(u) through u's local cost, or avoids
// L(u); in a topological order, a path that avoids L(u) jumps over L(u)'s position with exactly
// one edge (x, y), and the longest such path is dist(x) + w(x, y) + tail(y) maximised over
// those edges (dist: longest from the start, tail: longest to an end; neither can pass
// through L(u)). Exact, equal to a replay with the hypothesis. Calls that cannot be zeroed
// (computation, nested or out of range) give predictedTime().
std::vector<TimeNs> zeroWaitTimes(const Replayer& replayer, const std::vector<EventRef>& calls);

class ExecutionDag {
 public:
  explicit ExecutionDag(const Replayer& replayer);
  ~ExecutionDag();
  std::size_t vertexCount() const;
  std::size_t edgeCount() const;
  bool acyclic() const;  // topological sort succeeds
  CriticalPath criticalPath() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> d;
  const Replayer& replayer_;
};

}  // namespace perwiz
