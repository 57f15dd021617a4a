// Two runs of one program side by side (issue #41): an alignment of their events, and the
// differences it shows — of T, of each rank's end, of each parallel step, of each function's
// time, and the events that changed most. With a prediction of the first run (A′, the same
// events as A with predicted times) the same metrics say how far the prediction was from the
// run re-measured after the fix (B). Qt-free; perwiz-cli compare and the GUI read it.
//
// The alignment pairs ranks by number (or a mapping) and, within a pair, the two event streams
// so that the same MPI call or region in both runs is one pair (docs/compare.md): a longest
// common subsequence of the events' function names found by a linear walk that resynchronises
// after each difference at the nearest place where the next kResyncRun events agree (the
// smallest number of events skipped on both sides, as an edit-distance diff would choose
// there). Identical streams cost one comparison per event; a difference costs in proportion to
// its size, not to the trace. Memory: 4 B per event of A (its partner in B).
#pragma once

#include "perwiz/predicted_times.h"
#include "perwiz/trace.h"

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace perwiz {

// One pair of ranks and its events' pairing.
struct RankAlignment {
  std::uint32_t rankA = 0, rankB = 0;
  std::vector<std::uint32_t> toB;  // per event of A: its partner in B, kNone32 if only in A
  std::uint64_t paired = 0, onlyA = 0, onlyB = 0;
  // The events of B without a partner in A, ascending (from the gaps of toB, which is increasing
  // where set). `eventsB`: the rank's event count in B.
  std::vector<std::uint32_t> onlyInB(std::uint32_t eventsB) const;
};

struct TraceAlignment {
  std::vector<RankAlignment> ranks;                 // paired ranks, in A's rank order
  std::vector<std::uint32_t> unpairedA, unpairedB;  // ranks of either without a partner
  std::uint64_t eventsA = 0, eventsB = 0;           // of the paired ranks
  std::uint64_t paired = 0, onlyA = 0, onlyB = 0;
  // Paired events over the larger side's events (1 for identical streams).
  double pairedShare() const;
};

// Events that must agree after a difference before the streams count as in step again.
inline constexpr std::uint32_t kResyncRun = 8;

// Pairs the ranks (by number unless `rankMap` lists (rank of A, rank of B) pairs) and aligns
// each pair's events, ranks in parallel. Functions are the same when their names are.
// Throws std::invalid_argument for a map naming a rank that does not exist or twice.
TraceAlignment alignTraces(const Trace& a, const Trace& b,
                           const std::vector<std::pair<std::uint32_t, std::uint32_t>>& rankMap = {});

// Why the two traces cannot be compared ("" if they can): no paired ranks, or too few events
// paired for the runs to be of one program (`minShare` of pairedShare()).
std::string alignmentProblem(const TraceAlignment& al, double minShare = 0.5);

// ---- the differences ----

struct CompareOptions {
  std::size_t top = 20;  // events listed per list (changed, missed, only in A/B)
  // With markAbove >= 0: every paired event whose duration changed by more than markAbove ns
  // (|B − A|) is marked (Comparison::marked), the first markLimit of them rank by rank.
  TimeNs markAbove = -1;
  std::size_t markLimit = 100000;
};

// A paired event: (rank, event) in A and in B.
struct EventPair {
  std::uint32_t rankA = 0, eventA = 0, rankB = 0, eventB = 0;
  bool operator==(const EventPair&) const = default;
};

// One rank pair: ends (latest leave), and with a prediction its predicted end.
struct RankDifference {
  std::uint32_t rankA = 0, rankB = 0;
  TimeNs endA = 0, endB = 0, endPredicted = 0;
  std::uint64_t onlyA = 0, onlyB = 0;
};

// One parallel step of A and its partner in B (the step whose region marker is paired with
// A's on the first rank that has both): its span from the earliest enter to the latest leave
// of its markers over the paired ranks.
struct StepDifference {
  std::uint32_t stepA = 0, stepB = 0;
  TimeNs a = 0, b = 0, predicted = 0;
};

// A function's time summed over the events of it (inclusive: leave − enter), by name.
struct FunctionDifference {
  std::string name;
  TimeNs a = 0, b = 0, predicted = 0;
  std::uint64_t countA = 0, countB = 0;
  std::uint32_t rankA = kNone32, rankB = kNone32;  // kNone32: all ranks (the overall totals)
};

// A paired event: its function, position and times in A, B and A′.
struct EventDifference {
  std::uint32_t rankA = 0, eventA = 0, rankB = 0, eventB = 0;
  std::string function;
  std::uint32_t mpiIndex = kNone32;  // its MPI call number on rank A ("RANK:INDEX"), if one
  std::uint32_t step = kNone32;      // A's parallel step holding it, if one
  TimeNs enterA = 0, durationA = 0, enterB = 0, durationB = 0, enterPredicted = 0, durationPredicted = 0;
};

// An event of one run only.
struct EventEdit {
  bool inB = false;  // false: only in A (removed), true: only in B (inserted)
  std::uint32_t rank = 0, event = 0;
  std::string function;
  TimeNs enter = 0, duration = 0;
};

struct Comparison {
  TimeNs measuredA = 0, measuredB = 0;
  std::optional<TimeNs> predicted;  // T of A′, with a prediction
  std::vector<RankDifference> ranks;
  std::vector<StepDifference> steps;              // A's steps with a partner, in A's order
  std::uint32_t stepsA = 0, stepsB = 0;           // parallel steps of each trace
  std::vector<FunctionDifference> functions;      // overall, by name (union of both traces)
  std::vector<FunctionDifference> functionRanks;  // per (function, rank pair): the `top` largest |b − a|
  std::vector<EventDifference> changed;           // the `top` paired events with the largest |durationB − durationA|
  std::vector<EventDifference> missed;            // with a prediction: the largest |durationB − durationPredicted|
  std::vector<EventEdit> edits;                   // the first `top` events of either run only, rank by rank
  std::vector<EventPair> marked;  // CompareOptions::markAbove: the events beyond it (the first markLimit)
  std::uint64_t markedCount = 0;  // all of them
};

// The differences of an alignment of `a` and `b` (alignTraces). With `predicted` (A′: a
// prediction of `a`, Replayer / predictedTimes) every metric also gives its predicted value.
Comparison compareTraces(const Trace& a, const Trace& b, const TraceAlignment& al,
                         const PredictedTimes* predicted = nullptr, const CompareOptions& options = {});

}  // namespace perwiz
