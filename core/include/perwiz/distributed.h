// Parallel replay over a group of processes (perwiz-mpi; docs/distributed.md).
//
// Every process reads its share of the ranks (LoadOptions::shareIndex), receives from the
// others the calls of their ranks that reach its own (ghost ranks), compiles the serial replay
// program over both, and computes its own ranks in rounds with the others
// (core/src/replay/distributed_sweep.h). The results equal the serial Replayer's to the
// nanosecond.
#pragma once

#include "perwiz/advisor.h"
#include "perwiz/critical_path.h"
#include "perwiz/process_group.h"
#include "perwiz/replay.h"
#include "perwiz/scenario.h"
#include "perwiz/trace_io.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace perwiz {

struct DistributedOptions {
  Scenario scenario;
  std::string region;  // parallel region (function name); "" = the PRGN* states
  LoadOptions load;    // its share fields are set from the group
  // The predicted critical path (perwiz-cli predict's): found by a backward walk handed between
  // the processes. Its listing (`pathListing`, `pathFirstSegments`, as criticalPath()) is
  // gathered on process 0.
  bool criticalPath = false;
  CriticalPathListing pathListing = CriticalPathListing::TotalsOnly;
  std::size_t pathFirstSegments = static_cast<std::size_t>(-1);
  // The predicted trace L' (perwiz-cli predict -o), written as OTF2 by the processes together
  // (each its ranks' event files, process 0 the definitions); "" = none. Checked before the
  // replay: another format, or a path where something exists, is refused on every process.
  std::string output;
};

struct DistributedPrediction {
  std::string format;
  std::uint32_t ranks = 0;
  std::uint64_t mpiCalls = 0;
  Scenario scenario;  // normalized, with its model
  TimeNs measured = 0, predicted = 0;
  std::vector<TimeNs> measuredEnd, predictedEnd;  // per rank, on every process
  std::uint64_t rounds = 0;      // of the sweep
  std::uint64_t scheduleRounds = 0;  // of the schedule's pass (0 when it was spared)
  std::uint64_t enterSent = 0;   // predicted enters sent between processes, all processes
  std::uint64_t ghostCalls = 0;  // calls held as ghosts, all processes
  std::uint64_t brokenCycles = 0;  // rendezvous dependencies cut from cycles (ReplayReport's)
  std::vector<std::string> notes;
  // The load's warnings of every process's share merged as mergeShareWarnings() does: on
  // every process.
  std::vector<Diagnostic> warnings;
  // With DistributedOptions::criticalPath: length and totals on every process, the listing on
  // process 0. totals.perFunction is indexed by pathFunctions; per listed segment the function
  // of its call and of its partner ("" where none).
  CriticalPath criticalPath;
  std::vector<std::string> pathFunctions, segmentFunction, partnerFunction;
  std::uint64_t pathRounds = 0;  // exchanges of the critical path's walk
};

// The warnings of a trace read in shares (`perShare[i]`: share i's load, in share order) as
// the whole trace's load would give them, so that a user of perwiz-mpi reads what perwiz-cli
// says (docs/distributed.md). `readWhole`: every share read the whole file and then kept its
// ranks (ALOG, OTF), so every share gives the same warnings: the first share's are the trace's.
// Otherwise (OTF2: a share reads the definitions and its own ranks' location files):
// - a warning several shares give (the definitions every share reads) once;
// - a count summary (no line, no position, a message "N rest") once, N the sum over the shares
//   of the summaries with the same file and rest: "2 RMA_WIN_CREATE records skipped" where each
//   of two shares skipped one;
// - a repeated anomaly ("N records in total: M", which a share gives from N = 1) as the whole
//   load gives it: M's first occurrence only (the first share's), the total only where it is
//   over 1.
// Warnings keep the order of their first occurrence, the summaries after the rest.
std::vector<Diagnostic> mergeShareWarnings(const std::vector<std::vector<Diagnostic>>& perShare, bool readWhole);

// Every process of `group` calls it with the same arguments. A problem on any process (a file
// it cannot read, a hypothesis that does not fit) is raised on every process as GroupError
// naming the process and the problem.
DistributedPrediction predictDistributed(const std::string& path, const DistributedOptions& options,
                                         ProcessGroup& group);

// What a session's evaluate() did, on this process (DistributedSession::evaluationStats).
struct EvaluationStats {
  std::uint64_t evaluations = 0;
  std::uint64_t recomputed = 0;  // own units recomputed (a unit may be recomputed more than once)
  std::uint64_t rounds = 0;      // exchanges
  std::uint64_t atCut = 0;       // evaluations that ended at a cut where every rank moved alike
  std::uint32_t cuts = 0;        // cuts usable (core/src/distributed/distributed_cuts.h)
};

// A share loaded, its ghosts exchanged and its replay program built once, for one prediction
// after the other (the distributed advisor's engine, issue #42): every process of `group`
// constructs it with the same arguments (the options' scenario is the base: it is swept at
// once, base() its result without the critical path or -o) and then calls predictWith() with the
// same hypotheses, each time a full sweep of every process's ranks. The steps' table is kept for
// balance-compute predictions.
class DistributedSession {
 public:
  DistributedSession(const std::string& path, const DistributedOptions& options, ProcessGroup& group);
  ~DistributedSession();
  DistributedSession(const DistributedSession&) = delete;
  DistributedSession& operator=(const DistributedSession&) = delete;
  const DistributedPrediction& base() const;
  // The predicted T of the base scenario plus `extra` (zero-wait, zero-event, balance-compute;
  // balance-volume and compensation only when the base scenario holds them: GroupError
  // otherwise). A collective operation; an error is raised on every process.
  TimeNs predictWith(const std::vector<Hypothesis>& extra);
  // The waits of the base's critical path (criticalWaits() of the serial replay), on every
  // process: the path walked across the processes, its message and skew segments' calls sent
  // from process 0, each wait from its owner (the base swept again first if the replay holds
  // another prediction).
  std::vector<CriticalWait> criticalWaits();
  // T of the base plus each job's hypotheses (zero-wait, zero-event, balance-compute; GroupError
  // for another kind), each recomputing from the base's results only what the job changes, on
  // every process (the serial advisor's predictions: PredictionPool). The replay holds the base's
  // results afterwards. Every process passes the same jobs.
  std::vector<TimeNs> evaluate(const std::vector<std::vector<Hypothesis>>& jobs);
  EvaluationStats evaluationStats() const;
  // zeroWaitTimes() (execution_dag.h) of the base over the processes' shares: per call, T with
  // its wait zeroed (the domino search's exact bounds), on every process; every process passes
  // the same calls. Sweeps the base again (the replay then holds its results).
  std::vector<TimeNs> zeroWaitTimes(const std::vector<EventRef>& calls);
  // This process's replay (its ranks and their ghosts; the last prediction's results) and ranks.
  const Replayer& replayer() const;
  RankRange ownRanks() const;
  ProcessGroup& group() const;
  // Sweeps the base again if the replay holds another prediction's results (predictWith()).
  void holdBase();

  struct Impl;

 private:
  std::unique_ptr<Impl> d;
};

// advise() over the processes' shares of a session (perwiz-mpi advise, issue #42): every process
// calls it with the same options and gets the Advice the serial advise() gives for the whole trace
// with those options, to the nanosecond (the searches' batches are options.threads predictions,
// as the serial pool's: give the same number). Predictions are the session's evaluate() (the
// all-steps-balanced one a full sweep); the domino search's bounds its zeroWaitTimes().
// options.lentBase, group and cancel are not read. A collective operation.
Advice adviseOverShares(DistributedSession& session, const AdvisorOptions& options);

// replayer.predictedTrace() written as OTF2 at `path` (X.otf2, or a directory) rank by rank by the
// processes' writer in a group of one: the same archive as saveTrace(predictedTrace(), path),
// byte for byte, holding one rank's copy of L' at a time instead of all of it. Nothing is ever
// overwritten; a failure throws, naming the file, and leaves nothing behind.
void writePredictedOtf2(const Replayer& replayer, const std::string& path);

}  // namespace perwiz
