// Point-to-point message matching under MPI's non-overtaking rule.
#pragma once

#include "perwiz/trace.h"

#include <string>
#include <utility>
#include <vector>

namespace perwiz {

struct MatchReport {
  MessageStats stats;
  // (kind, message) pairs; the builder caps and stores them.
  std::vector<std::pair<std::string, std::string>> diagnostics;
};

// Pairs the i-th send with the i-th receive per (sender, receiver, communicator, tag), both
// sides in posting order (RankTrace::messages is kept in posting order). Wildcard receives are
// already resolved by the tracers (the recorded source and tag), so they join the queue of the
// actual source. Independent of file order. Sets matchRank/matchIndex on both endpoints.
MatchReport matchMessages(Trace& trace);

}  // namespace perwiz
