// The critical path of a prediction: the chain of computation, local call costs and message
// waits that determines the predicted execution time (paper §2.2, docs/model.md).
//
// Found by a backward walk over the replay's own results: from the rank that ends last, each
// predicted return is explained either by the call's start plus its local cost (program order,
// preferred on a tie) or by the dependency whose source time plus offset gave it; each start by
// the previous return plus the computation gap. No graph of the execution is built: the walk
// costs O(length of the path + dependencies of the calls on it) time and, without the listing,
// O(ranks + functions) memory — so it runs on any trace the replay runs on.
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
    // A dependency on the partner `fromRank:fromIndex` whose time lies after call `index`
    // returned (the ranks' clocks disagree; the replay shortened its offset below zero to
    // fit): end < begin, the path steps back in time. Never counted as a wait.
    Skew,
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

// Where the path's time goes, always filled (bounded by ranks + functions, not by the trace).
struct CriticalPathTotals {
  TimeNs computationNs = 0;  // Computation segments
  TimeNs callNs = 0;         // Call segments (local cost of a call on the path)
  TimeNs waitNs = 0;         // Message segments (a partner's time plus the offset and local cost), >= 0
  TimeNs skewNs = 0;         // Skew segments: <= 0; computation + call + wait + skew = length
  std::uint64_t segments = 0;     // segments on the path (listed or not)
  std::uint64_t calls = 0;        // Call and Message segments: MPI calls whose return is on the path
  std::vector<TimeNs> perRank;      // [rank]: time of the segments on that rank
  std::vector<TimeNs> perFunction;  // [Trace::functions index]: Call and Message time in that function
};

// The kind of a segment from a partner's time `begin` to the call's return `end`.
inline CriticalSegment::Kind waitOrSkew(TimeNs begin, TimeNs end) {
  return end < begin ? CriticalSegment::Kind::Skew : CriticalSegment::Kind::Message;
}

struct CriticalPath {
  TimeNs length = 0;                       // equals Replayer::predictedTime()
  CriticalPathTotals totals;
  // The full listing, only when asked for (it grows with the trace):
  std::vector<CriticalSegment> segments;   // in time order (Segments, Full)
  std::vector<std::string> callIds;        // MPI calls on the path, in time order, unique (Full)
};

enum class CriticalPathListing : std::uint8_t {
  TotalsOnly,  // length and totals
  Segments,    // and the segments
  Full,        // and the call ids
};

// The critical path of the replayer's current prediction. With `firstSegments`, only that many
// of the earliest segments are listed (and no call ids): what a text report prints.
CriticalPath criticalPath(const Replayer& replayer, CriticalPathListing listing = CriticalPathListing::Full,
                          std::size_t firstSegments = static_cast<std::size_t>(-1));

// CriticalPath::callIds of a listing in time order: the MPI calls on it, each once, the partner
// of a wait before the waiting call.
std::vector<std::string> criticalCallIds(const std::vector<CriticalSegment>& segments);

// The happened-before DAG of the prediction (paper §2.2) without building it: vertices are a
// source, the start and return of every replayed call and one gather per collective; edges the
// computation gaps, local costs, used dependencies and gather memberships. `acyclic` checks that
// every edge points forward in the replay's schedule (so the DAG has a topological order).
struct DagShape {
  std::uint64_t vertices = 0;
  std::uint64_t edges = 0;
  bool acyclic = true;
};
DagShape dagShape(const Replayer& replayer);

}  // namespace perwiz
