// A Replayer's insides for core's own subsystems (perwiz_replay_internal): the compiled replay
// program and its effective values (the advisor's lower bounds, the critical path and the
// execution DAG, compensation), the results' storage and dependency flags a sweep computed
// outside the class writes (perwiz-mpi's distributed sweep), and the means perwiz-mpi gives
// from outside (balance-compute and balance-volume over every process's ranks, a compensation
// from the trace's recorded overhead). Not part of the public API (perwiz/replay.h).
#pragma once

#include "perwiz/replay.h"

#include <cstdint>
#include <vector>

namespace perwiz {

struct ReplayProgram;     // replay_program.h
struct EffectiveProgram;  // the program with the scenario applied (same header)

// The results' storage, for a sweep computed outside the Replayer (the distributed sweep).
// predictedTime() and the end times still read the Replayer's last own sweep.
struct ReplayResults {
  std::vector<TimeNs>& leave;    // per unit
  std::vector<TimeNs>& nodeVal;  // per gather node
};

namespace internal {

struct ReplayerAccess {
  static const ReplayProgram& program(const Replayer& r);
  static EffectiveProgram effective(const Replayer& r);
  static ReplayResults resultsForWriting(Replayer& r);
  // The dependency flags of the program (kScheduled), for a schedule decided outside the
  // Replayer (perwiz-mpi's). setHypotheses() afterwards rebuilds the effective values from them.
  static std::vector<std::uint8_t>& dependencyFlagsForWriting(Replayer& r);
  // The mean computation per rank that balance-compute of `step` gives every rank, instead of
  // the mean over this trace's ranks (perwiz-mpi: each process holds some ranks; the mean is
  // over all of them, the serial formula over every process's sums). Takes effect for
  // hypotheses applied after it.
  static void setStepMean(Replayer& r, std::uint32_t step, TimeNs mean);
  // The sizes of the messages of `step` that balance-volume averages whose send lies on ranks
  // [firstRank, lastRank); and the mean size balance-volume of `step` gives its messages instead
  // of the mean over this trace's (the serial formula over every process's sums). Take effect
  // for hypotheses applied after them.
  static std::vector<std::uint64_t> stepMessageSizes(const Replayer& r, std::uint32_t step, std::uint32_t firstRank,
                                                     std::uint32_t lastRank);
  static void setVolumeMean(Replayer& r, std::uint32_t step, std::uint64_t bytes);
  // The per-rank overhead (ns per event) a compensation from the trace removes, read by each
  // process from its own ranks (the others' records are not there). Takes effect for
  // hypotheses applied after it.
  static void setRecordedOverhead(Replayer& r, std::vector<TimeNs> perRank);
  // Adds (`on`) or withdraws hypothesis `h` (zero-wait, zero-event, balance-compute) in the
  // scenario and the effective values only, replaying nothing (the distributed evaluation
  // recomputes what it changed itself): the units whose values it changed, ascending. Throws
  // std::invalid_argument naming the problem where `h` does not fit.
  static std::vector<std::uint32_t> changeWithoutReplay(Replayer& r, const Hypothesis& h, bool on);
};

}  // namespace internal
}  // namespace perwiz
