// Measurement-overhead compensation (Malony, Shende, Morris, Wolf: "Compensation of
// Measurement Overhead in Parallel Performance Profiling", IJHPCA 2007; docs/compensation.md).
//
// In the replay, compensation is a hypothesis (HypothesisKind::Compensate, scenario.h): every
// event's overhead is taken out of the computation gaps and call costs it lies in, and the
// replay re-derives every wait. This header has what surrounds it: the per-rank overhead a
// compensation uses, the paper's delay algorithm as an independent reference (the tests show
// that the replay equals it), and the "local" compensation the paper shows to fail.
#pragma once

#include "perwiz/network_model.h"
#include "perwiz/scenario.h"
#include "perwiz/trace.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace perwiz {

// The per-event instrumentation overhead each rank's tracer recorded in the trace (twice the
// per-record cost of trace.h's recordedEventOverhead: an event is an enter and a leave record);
// empty unless every rank records it (then only an overhead given by the user can be compensated).
// Only ranks [first, last) are read (perwiz-mpi: a process holds the records of its own); the
// others get 0.
std::vector<TimeNs> recordedOverhead(const Trace& trace, std::uint32_t first = 0, std::uint32_t last = UINT32_MAX);

// Per-rank overhead of a Compensate hypothesis's value on `trace`: `overheadNs` for every rank,
// or the recorded values for kOverheadFromTrace. Empty with *error set if the value is negative
// or the trace records no overhead ("<trace source> records no instrumentation overhead").
// Ranks outside [first, last) are neither read nor checked (0 for them).
std::vector<TimeNs> compensationOverhead(const Trace& trace, std::int64_t overheadNs, std::string* error,
                                         std::uint32_t first = 0, std::uint32_t last = UINT32_MAX);

// The paper's algorithm run post mortem over the measured trace, independently of the replay's
// sweep: each rank carries its delay x (how much earlier it would be without instrumentation),
// which grows by the overhead of every record it passes; every dependency carries the
// partner's x at its call (the piggybacked delay); a call that waited w keeps
//   x' = min(x + w, min over its dependencies d of (x_d + slack_d))
// (the paper's x2 = min(x1, x2 + w); slack_d ≥ 0 is how much earlier than the end of the wait
// dependency d was satisfied in the measurement, 0 for the one that ended it), and a
// collective's gather passes the minimum delay of its members (each plus its slack). Only the
// cost mode "measured" and no other hypothesis: it is the reference the replay is tested
// against.
struct DelayCompensation {
  struct Call {
    TimeNs enter = 0, leave = 0;             // compensated times
    TimeNs wait = 0;                          // compensated wait w'
    TimeNs delayEnter = 0, delayLeave = 0;   // x when the call is entered and when it returns
  };
  std::vector<std::vector<Call>> calls;  // [rank][MPI call index]; nested calls: their parent's
  std::vector<TimeNs> rankEnd;           // compensated end of each rank
  std::vector<TimeNs> rankDelay;         // each rank's x at its end
  TimeNs end = 0;                        // compensated T
};
DelayCompensation compensateByDelays(const Trace& trace, const std::vector<TimeNs>& overheadPerRank,
                                     std::shared_ptr<const NetworkModel> model = nullptr);

// What compensation amounts to per rank, for reports: traced events, the overhead the rank's
// own events cost (events × o), and the paper's "local" compensation of §2 — the rank's end
// less its own overhead, with no delay taken from or given to other ranks.
struct RankInstrumentation {
  TimeNs overheadNs = 0;        // per event
  std::uint64_t events = 0;
  TimeNs ownOverhead = 0;       // events × overheadNs
  TimeNs measuredEnd = 0;
  TimeNs localOnlyEnd = 0;      // measuredEnd − ownOverhead (never below 0)
};
std::vector<RankInstrumentation> rankOverheads(const Trace& trace, const std::vector<TimeNs>& overheadPerRank);

}  // namespace perwiz
