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
// Every rank's channels are grouped and its receives matched in parallel (forEachRank); a
// trace where some endpoint finds no partner, completes before it or differs in size is matched
// again by matchMessagesInOneThread, whose report lists the problems in a fixed order.
MatchReport matchMessages(Trace& trace);

// The same matching in one thread: channels in order of their first endpoint (ranks in order,
// endpoints in posting order), each channel's problems in its order. matchMessages() gives the
// same matches and stats (tests/test_message_matching.cpp checks both paths against the
// partners a test made).
MatchReport matchMessagesInOneThread(Trace& trace);

}  // namespace perwiz
