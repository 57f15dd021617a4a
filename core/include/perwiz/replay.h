// The LogGPS replay: predicted times of every event under a scenario (paper §4, docs/model.md).
//
// Replayer turns a measured trace into a replay program once: every top-level MPI call is
// split into its local cost and its waiting time, and its waits become dependencies on the
// partner's call time plus an offset from the network model. A forward sweep over a fixed
// topological schedule then gives predicted enter, leave and wait of every call. Hypotheses
// change local costs, computation gaps, dependencies or message sizes; adding or removing one
// re-simulates only the events whose times can change.
//
// With no hypothesis in cost mode `measured` the prediction equals the measured trace exactly.
#pragma once

#include "perwiz/predicted_times.h"
#include "perwiz/scenario.h"
#include "perwiz/trace.h"

#include <atomic>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace perwiz {

namespace internal {
struct ReplayerAccess;
}

// What the replay had to assume about the measured trace.
struct ReplayReport {
  std::uint64_t skewedDependencies = 0;  // partner's time after this call returned (clock skew)
  std::uint64_t brokenCycles = 0;        // rendezvous dependencies dropped to break a cycle
  std::uint64_t nestedCalls = 0;         // MPI calls inside another MPI call (follow their parent)
  std::uint64_t unmatchedEndpoints = 0;  // endpoints without a partner: local cost only
  std::vector<std::string> notes;        // human-readable summary lines
};

struct UpdateStats {
  std::uint64_t recomputed = 0;  // schedule items recomputed by the last update
  bool full = false;             // the last update was a full replay
  // Ranks whose predicted times the last update may have changed, ascending (every rank after
  // a full replay): the others kept every predicted time.
  std::vector<std::uint32_t> ranks;
  // Items the update did not recompute but shifted: past a collective over every rank where
  // every rank had moved by the same `shift` ns, every later time moves by exactly that much
  // (the replay is max-plus; docs/model.md, "Uniform shifts"). 0 when it recomputed all.
  std::uint64_t shifted = 0;
  TimeNs shift = 0;
  // With a non-zero shift, per rank the MPI index of its call in that collective: every event
  // of the rank that the measurement enters at or after the call's leave moved by `shift`
  // (enter and leave), and every call after it kept its wait. Empty otherwise.
  std::vector<std::uint32_t> shiftAfterCall;
};

// Lets another thread follow and stop the construction of a Replayer (compiling the trace and
// the first full replay: seconds at 10^8 events). The builder looks at `cancel` between ranks
// of each phase and every few thousand schedule steps, and then throws ReplayCancelled.
struct ReplayControl {
  std::atomic<bool> cancel{false};
  std::atomic<std::uint32_t> permille{0};  // progress of the construction (or prepareUpdates), 0..1000
};
// Sets `a` to `v` if that raises it (progress only grows, whichever thread reports).
inline void raiseProgress(std::atomic<std::uint32_t>& a, std::uint32_t v) {
  std::uint32_t cur = a.load(std::memory_order_relaxed);
  while (cur < v && !a.compare_exchange_weak(cur, v, std::memory_order_relaxed)) {
  }
}
class ReplayCancelled : public std::runtime_error {
 public:
  ReplayCancelled() : std::runtime_error("prediction cancelled") {}
};

class Replayer {
 public:
  Replayer(const Trace& trace, Scenario scenario);
  // The same, followed and cancellable through `control` (may be null): throws ReplayCancelled
  // when control->cancel is set during the construction.
  Replayer(const Trace& trace, Scenario scenario, ReplayControl* control);
  ~Replayer();
  Replayer(const Replayer&) = delete;
  Replayer& operator=(const Replayer&) = delete;

  // An independent engine in the same state that shares this one's compiled program (no
  // recompilation; costs only the per-unit times). For analyses that run many predictions in
  // parallel or in the background. The trace must outlive every fork.
  std::unique_ptr<Replayer> fork() const;

  const Trace& trace() const;
  const Scenario& scenario() const;
  const ReplayReport& report() const;

  // Hypothesis checks against this trace; "" if valid, else the problem.
  std::string validate(const Hypothesis& h) const;
  // Per rank, the MPI indices of the calls that lie inside another MPI call (sorted; they
  // follow their parent and take no hypothesis of their own). Usually all empty.
  const std::vector<std::vector<std::uint32_t>>& nestedCalls() const;
  // Incremental updates; return false with *error set if the hypothesis is invalid (add) or
  // not present (remove). Results equal a full replay of the new scenario.
  bool add(const Hypothesis& h, std::string* error = nullptr);
  bool remove(const Hypothesis& h, std::string* error = nullptr);
  // T with `h` added, the replayer left as it was: what add(h), predictedTime(), remove(h)
  // give, at the cost of the add's recomputation up to the first clean cut only (the advisor's
  // candidates): the items it overwrites are logged and put back, and the shift after the cut
  // is not made (T is the cut's Δ added to the ends beyond it). -1 (and *error) for a
  // hypothesis add() refuses; predictedTime() for one already in the scenario.
  TimeNs predictWith(const Hypothesis& h, std::string* error = nullptr);
  // Replaces all hypotheses and replays in full.
  bool setHypotheses(std::vector<Hypothesis> hs, std::string* error = nullptr);
  void replayFull();
  // Prepares for interactive use: builds the index that incremental add() and remove() use
  // (who reads whose time, schedule positions: about 12 bytes per call; shared with forks,
  // thread-safe). Done on first need otherwise; a prediction that never changes its scenario
  // (the CLI) never needs it.
  // `control` (may be null) can stop it as it stops a construction (ReplayCancelled; the
  // replayer stays valid and prepares again at the next call).
  void prepareUpdates(ReplayControl* control = nullptr);
  // The index part of prepareUpdates alone: const and thread-safe, so it may run while other
  // threads read this replayer (fork() it, query it); prepareUpdates then only makes the own
  // copies. `control` as for prepareUpdates.
  void prepareIndex(ReplayControl* control = nullptr) const;
  const UpdateStats& lastUpdate() const;
  // Bytes this replayer holds for the computation gaps, local costs and offsets its scenario
  // changed: copied from the program in chunks of 2 Ki items (16 KiB) at the first change in
  // each, so a hypothesis on a few calls or one step holds a few chunks per rank, and only
  // scenarios that change every unit (compensation) hold a copy of all (8 bytes per unit each).
  std::uint64_t changedValueBytes() const;
  // Gives back the chunks of those copies whose values are the program's own again (after a
  // hypothesis was withdrawn): a long series of add/remove or predictWith then holds only what
  // the current scenario changes, not a chunk for every place an earlier one touched (the
  // advisor's step ranking, one balanced step after the other, ended with a copy of every gap
  // per prediction thread: 53 MB each at 10^7 events). Costs a comparison of each copied value.
  void releaseUnchangedCopies();

  // Measured computation of each rank inside parallel step `step` (the quantity that
  // balance-compute equalises); -1 for ranks without the step. Empty if no such step.
  std::vector<TimeNs> stepComputation(std::uint32_t step) const;
  // The same for every step at once: [step * rankCount + rank]. One pass per rank over its
  // calls (ranks in parallel) instead of a search per step and rank: O(calls + steps · ranks)
  // time, 8 bytes per step and rank.
  std::vector<TimeNs> stepComputations() const;

  // "" when every predicted time fits in int64 ns; otherwise why the prediction does not, naming
  // the call and what took it past the limit (a message and the network model's price of it, a
  // computation, a local cost). Such a prediction is not a result: its times are saturated at
  // kTimeOverflow (checked_time.h). Callers report this instead (docs/model.md, "Limits").
  std::string overflow() const;

  TimeNs measuredTime() const;   // latest measured leave over all ranks
  TimeNs predictedTime() const;  // T: latest predicted leave over all ranks
  TimeNs measuredRankEnd(std::uint32_t rank) const;
  TimeNs predictedRankEnd(std::uint32_t rank) const;
  // Per MPI call ("RANK:INDEX").
  PredictedCall predicted(std::uint32_t rank, std::uint32_t mpiIndex) const;
  TimeNs measuredWait(std::uint32_t rank, std::uint32_t mpiIndex) const;
  std::uint64_t callCount() const;

  // Predicted time of any measured instant on a rank (for user states, points, endpoints).
  TimeNs mapTime(std::uint32_t rank, TimeNs measured) const;
  // The same for instants visited in (mostly) increasing time order on one rank: `hint` (start
  // it at 0) keeps where the last search ended, so a walk over a rank costs O(1) per instant.
  TimeNs mapTimeFrom(std::uint32_t rank, TimeNs measured, std::uint32_t& hint) const;
  // Predicted enter and leave of every event of the measured trace (same indices), e.g. for
  // the predicted trace (the GUI reads predictedTimes(): per-rank arrays it can share).
  struct EventTimes {
    std::vector<std::vector<TimeNs>> enter, leave;  // [rank][event]
    TimeNs end = 0;                                 // latest predicted leave
  };
  EventTimes predictedEventTimes() const;
  // One rank's predicted times and calls into `out` (reusing its vectors' memory). Ranks are
  // independent: several threads may fill different ranks at once.
  void predictedRank(std::uint32_t rank, PredictedRank& out) const;
  // The same after an update that shifted (lastUpdate().shiftAfterCall not empty), from
  // `before`, the rank's prediction just before that update: the events the shift moved are
  // `before`'s times plus the shift. With `share`, `out` owns only the values before the cut
  // (and those `before` owned past it) and reads the others from before's arrays
  // (PredictedRank::tail: no copy of the moved events); else it owns a copy of every value.
  // Without a shift, predictedRank(). `out` must not be `before`. Returns the first event the
  // shift moved (the rank's event count without a shift).
  std::uint32_t predictedRankShifted(std::uint32_t rank, const std::shared_ptr<const PredictedRank>& before,
                                     PredictedRank& out, bool share = true) const;
  // The predicted trace L': the measured trace with every time replaced by its prediction
  // and a "PerWiz scenario" point event at time 0 on rank 0 carrying the scenario JSON.
  Trace predictedTrace() const;
  // One rank of L' without the scenario point: its measured rank with every time replaced by
  // its prediction (the same function indices). Ranks are independent: several threads may
  // fill different ranks at once.
  void predictedRankTrace(std::uint32_t rank, RankTrace& out) const;
  // (writePredictedOtf2 in perwiz/distributed.h writes it as OTF2 rank by rank.)

  // Per replay unit. The replay keeps the leaves; an enter is derived (the rank's previous
  // leave plus the effective gap), so predictedEnters() builds a copy: for tests and tools,
  // predictedEnter() for one unit.
  std::vector<TimeNs> predictedEnters() const;
  TimeNs predictedEnter(std::uint32_t unit) const;
  const std::vector<TimeNs>& predictedLeaves() const;

 private:
  // The replay program, its results and the means perwiz-mpi gives from outside, for core's
  // advisor, compensation and distributed replay only (perwiz/internal/replayer_access.h).
  friend struct internal::ReplayerAccess;
  struct Impl;
  explicit Replayer(std::unique_ptr<Impl> impl);
  // predictedRank's times and waits of the rank's first `events` events; returns their latest leave.
  TimeNs predictedRankPrefix(std::uint32_t rank, std::uint32_t events, PredictedRank& out) const;
  std::unique_ptr<Impl> d;
};

// The replayer's current prediction as the views read it: every rank (predictedRank), in
// parallel.
std::shared_ptr<const PredictedTimes> predictedTimes(const Replayer& replayer);

// Peak memory a Replayer of `trace` needs beyond the trace itself, in bytes: its compiled
// program, results and construction temporaries, from the trace's counts (MPI calls, message
// endpoints, collective members) and the bytes per item measured in docs/performance.md. The
// index for incremental updates, the links built on first need (balance-volume) and the copies
// that hypotheses make are not included; cost mode "model" builds the links at once.
std::uint64_t estimateReplayMemory(const Trace& trace, CostMode costs = CostMode::Measured);

// Name of the point event that records the scenario in a predicted trace.
inline constexpr const char* kScenarioEventName = "PerWiz scenario";
// The scenario JSON texts recorded in a trace, oldest first (a prediction of a prediction
// carries two); empty for a measured trace.
std::vector<std::string> scenariosRecordedIn(const Trace& trace);

}  // namespace perwiz
