// Repetitions that start at the same instant on every rank (the profile mode's measurement
// loop; docs/calibrate.md, "Overhead profile"). Compiled by each MPI wrapper.
//
// Why: a call's duration includes waiting for partners that are late. The profile is meant to
// hold the time of a call "under ideal conditions" (Kluge et al. §3), so every member calls at
// the same moment and no repetition carries the imbalance of the previous one. This is the
// window-based synchronisation of SKaMPI and ReproMPI. A round:
//   1. every rank waits without calling MPI until the agreed start time (global clock);
//   2. it runs its timed call;
//   3. it waits until start + W, W being twice the longest call of the previous round, so that the report below never competes with a message of the round still on the
//      wire (an eager send returns before its data has arrived);
//   4. one MPI_Allreduce(MAX) reports {end time, late?, longest call} of every rank; the next
//      round starts at the latest end + lead.
// A rank that reaches step 1 after the start time makes the round late: the round still runs
// (the calls must match) but its durations are discarded and the lead doubles. Long calls are
// never discarded (that would cut the tail the fit measures); they only widen the next W.
// The lead starts at 3 times the median time of a report in a short calibration, plus 2 µs, so
// the report is over on every rank before the next start; it doubles after a late round and
// shrinks by a quarter (not below its start) after an on-time one. W is at least that starting lead and
// otherwise twice the previous round's longest call, so warm-up rounds size it for the first
// kept one.
#pragma once

#include "global_clock.h"

#include <mpi.h>

#include <functional>
#include <vector>

namespace perwiz::calibrate {

// One duration measured in a round: which of the pattern's functions (index into
// patternFunctions) and how long it took (seconds).
struct TimedCall {
  int function = 0;
  double seconds = 0;
};

struct RoundsResult {
  int kept = 0;  // rounds that started on time on every rank (their durations are kept)
  int late = 0;  // rounds discarded because some rank was late
};

class AlignedRounds {
 public:
  // Collective over `comm` (calibrates the lead). `clock` must be built on a communicator whose
  // rank 0 is `comm`'s rank 0 (the same reference clock).
  AlignedRounds(MPI_Comm comm, const GlobalClock& clock);

  // Collective: runs `warmup` rounds whose durations are dropped, then rounds until `wanted`
  // were on time or `wanted` + 3·(warmup + wanted) + 8 rounds ran. `round(i, out)` runs round i
  // (i counts every round run, warm-up and late ones included) and appends its durations to
  // `out`. Durations of kept rounds are appended to `kept`.
  RoundsResult run(int warmup, int wanted,
                   const std::function<void(int round, std::vector<TimedCall>& out)>& round,
                   std::vector<TimedCall>& kept);

  double baseLead() const { return baseLead_; }

 private:
  MPI_Comm comm_;
  const GlobalClock& clock_;
  double baseLead_ = 0;
};

}  // namespace perwiz::calibrate
