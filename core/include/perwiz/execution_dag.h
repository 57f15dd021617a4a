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
