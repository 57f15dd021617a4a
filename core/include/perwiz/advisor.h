// The what-if advisor (paper §3 and §4, F1 and F3): what to fix first.
//
// * Domino paths (Fig. 3): chains of communication events whose wait zeroing shortens the
//   execution most, found by backtracking happened-before relations from each rank's end.
// * Candidates: every communication event ranked by the predicted T if its wait alone were
//   zeroed, and the "longest waiting time" choice the paper compares against.
// * Step ranking: σ of the per-rank computation in each parallel step and the predicted T if
//   that step alone (Table 3's Q4(k)) or all steps were balanced.
// * Lower bounds per parallel region (F3, Table 1): from the per-rank breakdown of calculation,
//   sending, receiving and waiting time only, for every combination of Q1 (zero waiting),
//   Q2 (balanced workload) and Q3 (balanced message amount).
//
// Every prediction goes through the incremental replay engine; independent predictions run on
// forks of it in parallel. Long runs report progress and can be cancelled.
#pragma once

#include "perwiz/scenario.h"
#include "perwiz/trace.h"
#include "perwiz/trace_io.h"

#include <atomic>
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

namespace perwiz {

class Replayer;      // perwiz/replay.h: the results below are plain data, readable without it
class ProcessGroup;  // perwiz/process_group.h
struct CriticalPath;  // perwiz/critical_path.h (the replay engine's: the GUI's views include this header)

struct AdvisorOptions {
  std::size_t topCandidates = 10;
  unsigned threads = 0;             // 0 = all cores (one for batches too small to gain)
  std::size_t maxDominoPaths = 64;  // cap on the round-robin search's leaves
  bool steps = true;                // compute the step table (one prediction per step)
  // At most this many step predictions (0: every step): the steps whose balancing could gain
  // the most by their bound (StepRow::gainBoundNs) are replayed; the others keep evaluated =
  // false. A trace of 3·10^5 steps would otherwise need 3·10^5 replays.
  std::size_t maxStepPredictions = 0;
  bool bounds = true;
  // Called from the calling thread with a fraction in [0, 1] and the stage's name.
  std::function<void(double, const std::string&)> progress;
  const std::atomic<bool>* cancel = nullptr;  // set to true to stop early (result.cancelled)
  // The base itself (the same object as the `base` argument), lent for the run: the calling
  // thread predicts on it as the helper threads do on their forks (each prediction withdraws
  // what it added), so the run holds one fork fewer (a fork: ~11 B per call, issue #42's peak
  // budget). The base is as before when the call returns; nothing else may read it meanwhile
  // (the CLI lends its own; the GUI, whose views read the base, does not).
  Replayer* lentBase = nullptr;
  // Processes that share the predictions (perwiz-mpi advise): each holds the whole trace and the
  // same base and calls advise() with the same options. Every batch's jobs are dealt round robin
  // among the processes and every result exchanged, so the searches run in step and every
  // process returns the advice one process alone gives. A collective operation; a cancel must
  // reach all or none. nullptr (or a group of one): this process alone.
  ProcessGroup* group = nullptr;
};

struct WaitCandidate {
  EventRef event;
  TimeNs waitNs = 0;       // the event's waiting time in the base prediction
  TimeNs predictedNs = 0;  // T if its wait alone were zeroed
};

struct DominoPath {
  std::vector<EventRef> events;  // by return time: the domino's first stone first
  EventRef zeroed;               // the waiting event whose wait zeroing gives predictedNs
  TimeNs predictedNs = 0;        // T if that wait is zeroed
  std::uint32_t fromRank = 0;    // the rank whose end the backtracking started from
};

struct DominoResult {
  TimeNs predictedNs = 0;          // the minimum T over all paths (= base T if none helps)
  std::vector<DominoPath> paths;   // every path reaching that minimum, deduplicated
  bool truncated = false;          // the round-robin search hit maxDominoPaths
};

struct StepRow {
  std::uint32_t step = 0;
  std::uint32_t ranks = 0;     // ranks present in the step
  TimeNs meanNs = 0;           // mean per-rank computation inside the step
  TimeNs maxNs = 0;
  TimeNs sigmaNs = 0;          // population standard deviation σ(t_k), rounded
  TimeNs predictedNs = 0;      // T if this step alone were balanced (when evaluated)
  // What balancing this step alone can gain at most: T − T' ≤ Σ over its ranks of
  // (computation − mean)⁺, since the old critical path keeps all its weights but the shrunk
  // computations, which it crosses at most once each (docs/model.md, "Step table").
  TimeNs gainBoundNs = 0;
  bool evaluated = true;       // false: not replayed (AdvisorOptions::maxStepPredictions)
};

// Per-rank breakdown of a parallel region (F3).
struct RegionBreakdown {
  TimeNs outside = 0;      // the rank's time outside the region
  TimeNs calculation = 0;  // computation inside the region
  TimeNs sending = 0;      // local cost of sending inside the region
  TimeNs receiving = 0;    // local cost of receiving (and collectives' share) inside
  TimeNs waiting = 0;      // waiting time inside the region
};

struct BoundRow {
  bool q1 = false, q2 = false, q3 = false;
  TimeNs predictedNs = 0;
  std::string assumptions() const;  // "", "Q1", "Q1+Q3", ...
};

struct RegionBounds {
  std::string region;                      // the region's state name
  std::vector<RegionBreakdown> perRank;
  std::vector<BoundRow> rows;              // the 8 rows of Table 1, "—" first
};

struct Advice {
  TimeNs measuredNs = 0;
  TimeNs baseNs = 0;  // predicted T of the base scenario (= measured with no hypothesis)
  DominoResult domino;
  std::vector<WaitCandidate> candidates;  // best first
  bool hasLongestWait = false;
  WaitCandidate longestWait;
  std::vector<StepRow> steps;
  TimeNs allStepsBalancedNs = 0;
  std::vector<RegionBounds> bounds;  // one per parallel region
  std::uint64_t predictions = 0;     // replays run (for the curious and the benchmarks)
  bool cancelled = false;
};

// Memory the advisor needs beyond `base` and its trace, in bytes, with `threads` prediction
// threads (0: all cores): each thread's fork of the base (predicted times, flags, the copies a
// hypothesis makes: 30 B per call) and the analyses' own arrays (the bounds of zeroWaitTimes,
// the critical path: 55 B per call). Measured in docs/performance.md.
std::uint64_t estimateAdvisorMemory(const Replayer& base, unsigned threads);

// Runs the whole advisor on `base` (its scenario is the starting point: usually no hypothesis).
Advice advise(const Replayer& base, const AdvisorOptions& options = {});

// The parts on their own (the GUI runs them separately).
DominoResult dominoPaths(const Replayer& base, const AdvisorOptions& options = {},
                         std::vector<WaitCandidate>* candidates = nullptr,
                         WaitCandidate* longestWait = nullptr, std::uint64_t* predictions = nullptr);
std::vector<StepRow> stepTable(const Replayer& base, const AdvisorOptions& options = {},
                               TimeNs* allBalanced = nullptr, std::uint64_t* predictions = nullptr);
std::vector<RegionBounds> lowerBounds(const Replayer& base);
// The same over the processes of `group` (a distributed advisor, issue #42): each computes its
// ranks `own` of `share` (a replay over them, and maybe more: DistributedSession) and gets every
// rank's breakdown and the rows lowerBounds() gives for the whole trace. A collective operation.
std::vector<RegionBounds> lowerBounds(const Replayer& share, RankRange own, ProcessGroup& group);

// lowerBounds()'s parts: the names of the regions the steps of `ranks` mark (sorted, each
// once); the breakdown of `ranks` in each region of `names` (`R` ranks per region, the others
// left zero; `in` [region × R]: the rank has a step there); the rows from every rank's.
std::vector<std::string> boundRegionNames(const Trace& t, RankRange ranks);
std::vector<RegionBounds> regionBreakdowns(const Replayer& base, const std::vector<std::string>& names, RankRange ranks,
                                           std::uint32_t R, std::vector<std::uint8_t>& in);
void boundRows(std::vector<RegionBounds>& regions, const std::vector<std::uint8_t>& in);

// A wait on the critical path (a message or skew segment whose call waits): the domino search's
// candidates, each call once, in the path's order.
struct CriticalWait {
  EventRef event;
  TimeNs wait = 0;
  EventRef partner;  // the call it waited for (its binding dependency's source)
  bool hasPartner = false;
  bool operator==(const CriticalWait&) const = default;
};
// The waits of `cp` (a critical path of `base` with its segments listed).
std::vector<CriticalWait> criticalWaits(const CriticalPath& cp, const Replayer& base);
// Of the calls of a critical path's message and skew segments (in the path's order, each with
// its wait), those that wait, each once: criticalWaits()' list (also over shares).
std::vector<CriticalWait> keepWaiting(const std::vector<CriticalWait>& segments);

// The base the searches read (dominoPaths, the ranking, stepTable): a Replayer on this process
// (advise()), or the shares of a group of processes (adviseOverShares, perwiz/distributed.h),
// where every call is a collective operation each process makes in the same order with the same
// arguments, and gets the same answer.
class AdvisorBase {
 public:
  struct Times {
    TimeNs enter = 0, leave = 0;  // predicted
  };
  virtual ~AdvisorBase() = default;
  virtual std::uint32_t rankCount() const = 0;
  virtual std::uint32_t callCount(std::uint32_t rank) const = 0;  // MPI calls of the rank
  virtual TimeNs predictedTime() const = 0;
  virtual std::vector<CriticalWait> criticalWaits() = 0;                              // of the base's critical path
  virtual std::vector<TimeNs> zeroWaitTimes(const std::vector<EventRef>& calls) = 0;  // execution_dag.h
  virtual std::vector<Times> times(const std::vector<EventRef>& calls) = 0;
  virtual WaitCandidate longestWait() = 0;  // as longestWait() below (waitNs <= 0: none)
  // The ranking's calls that wait but those `excluded`, each at the base's T (otherWaits below).
  virtual std::vector<WaitCandidate> otherWaits(std::size_t top, const std::vector<CriticalWait>& excluded) = 0;
  // The step table's columns and each step's least computation (stepRows below).
  virtual std::vector<StepRow> stepRows(std::vector<TimeNs>& least) = 0;
  // T of the base plus each job's hypotheses; false if cancelled (unfinished jobs -1). `stage`
  // and [from, to] for AdvisorOptions::progress.
  virtual bool predict(const std::vector<std::vector<Hypothesis>>& jobs, std::vector<TimeNs>& out,
                       const std::string& stage, double from, double to) = 0;
  virtual TimeNs allStepsBalanced() = 0;  // T with every step balanced
  virtual std::size_t batch() const = 0;  // how many predictions the searches ask for at once
  virtual bool cancelled() const = 0;
  virtual std::uint64_t predictions() const = 0;  // made so far
};

// dominoPaths() and stepTable() over a base of either kind.
DominoResult dominoPaths(AdvisorBase& base, const AdvisorOptions& options, std::vector<WaitCandidate>* candidates,
                         WaitCandidate* longestWait, std::uint64_t* predictions);
std::vector<StepRow> stepTable(AdvisorBase& base, const AdvisorOptions& options, TimeNs* allBalanced,
                               std::uint64_t* predictions);

// The ranking's calls off the critical path over the processes of `group`, each giving its ranks
// `own` of `share`: the `top` best (the lower T, the longer wait, the earlier call) of every call
// that waits but those `excluded` (the critical path's waits), each at T = t0 (zeroing a wait
// off the critical path leaves T). advise()'s candidates are the best of these and the critical
// path's waits with their predictions. A collective operation.
std::vector<WaitCandidate> otherWaits(const Replayer& share, RankRange own, ProcessGroup& group, std::size_t top,
                                      const std::vector<CriticalWait>& excluded, TimeNs t0);

// The longest predicted wait of the trace over the processes of `group`, each giving its ranks
// `own` of `share` (the first in rank and call order among equals, as advise()'s longestWait;
// predictedNs not set; waitNs 0 and no event when no call waits). A collective operation.
WaitCandidate longestWait(const Replayer& share, RankRange own, ProcessGroup& group);

// The step table's spread columns (step, ranks, mean, max, σ, gain bound; nothing predicted)
// over the processes of `group`, each giving its ranks `own` of `share`: every process gets
// stepTable()'s columns for the whole trace. A collective operation.
// With `least`, each step's least computation (stepRows()').
std::vector<StepRow> stepSpreads(const Replayer& share, RankRange own, ProcessGroup& group,
                                 std::vector<TimeNs>* least = nullptr);
// The same columns from every rank's computations ([step × R + rank], -1 where absent), and
// each step's least computation (`least`).
std::vector<StepRow> stepRows(const std::vector<TimeNs>& all, std::uint32_t n, std::size_t R,
                              std::vector<TimeNs>& least);

// The spread of one step's per-rank computation (Replayer::stepComputations(), −1 where a rank
// is not in the step): the one formula of σ(t_k) that the step table, the GUI's charts and the
// balance hypothesis's rounded mean share. Two passes in long double: mean = Σc / n, σ =
// √(Σ(c − mean)² / n) (population), both rounded to the nanosecond; balancedMean is the mean
// balance-compute gives every rank, the integer mean rounded half up: (2Σc + n) / 2n.
struct ComputationSpread {
  std::uint32_t ranks = 0;  // ranks present (c ≥ 0)
  TimeNs meanNs = 0, sigmaNs = 0, maxNs = 0, leastNs = 0, balancedMeanNs = 0;
};
ComputationSpread computationSpread(std::span<const TimeNs> perRank);

}  // namespace perwiz
