// The execution as a happened-before DAG (paper §2.2), built with Boost.Graph.
//
// Vertices are the start and the return of every replayed MPI call, one gather vertex per
// collective, and a source at time 0; edges carry the scenario's weights (computation gaps,
// local costs, message offsets). The longest path from the source is the predicted execution
// time, and the events along it are the critical path.
#pragma once

#include "perwiz/replay.h"

#include <cstdint>
#include <string>
#include <vector>

namespace perwiz {

struct CriticalSegment {
  enum class Kind : std::uint8_t {
    Computation,  // computation before MPI call `index` ("RANK:cINDEX")
    Call,         // local cost of MPI call `index` ("RANK:INDEX")
    Message,      // waiting in call `index` for the partner `fromRank:fromIndex`
  };
  Kind kind = Kind::Computation;
  std::uint32_t rank = 0;
  std::uint32_t index = 0;
  std::uint32_t fromRank = kNone32;   // Message: the partner call whose time was waited for
  std::uint32_t fromIndex = kNone32;  // for a collective: its member that arrived last
  TimeNs begin = 0;
  TimeNs end = 0;
  std::string id() const;  // "R:I" or "R:cI"
};

struct CriticalPath {
  TimeNs length = 0;                       // equals Replayer::predictedTime()
  std::vector<CriticalSegment> segments;   // in time order
  std::vector<std::string> callIds;        // MPI calls on the path, in time order, unique
};

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
