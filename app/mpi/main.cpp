// perwiz-mpi: the what-if prediction of perwiz-cli predict, replayed by P processes in parallel
// (docs/distributed.md):
//
//   mpirun -np P perwiz-mpi predict TRACE [hypotheses] [--model M] [--costs C] [--scenario F]
//                                         [--compensate-ns N | --compensate-from-trace]
//                                         [--region R] [-o OUT.otf2]
//                                         [--json [--all-ranks] [--full-critical-path]]
//   mpirun -np P perwiz-mpi critical-path TRACE [--model M] [--costs C] [--scenario F] [--region R]
//                                               [--limit N] [--json]
//   mpirun -np P perwiz-mpi advise TRACE [--top N] [--threads T] [--max-step-predictions N]
//                                        [--model M] [--costs C] [--scenario F] [--region R] [--json]
//
// Every process reads its share of the ranks and replays them; process 0 prints the result, in
// perwiz-cli predict's (advise's) format. advise runs the advisor's searches in step on every
// process over the shares (adviseOverShares); give --threads as to perwiz-cli advise (the
// searches' batches) for the same output. An error on any process is
// printed by every process, naming the process and the problem (exit status 1; 2 for bad usage); a process that fails
// outside the agreed checkpoints aborts the run after printing its problem (MPI_Abort).
#include "advice_output.h"
#include "cli_common.h"
#include "prediction_setup.h"
#include "mpi_group.h"

#include "perwiz/distributed.h"
#include "perwiz/trace_io.h"

#include <mpi.h>

#include <algorithm>
#include <iomanip>
#include <iostream>
#include <map>
#include <memory>
#include <sstream>

using namespace perwiz;
using namespace perwiz::cli;

namespace {

struct Options {
  std::string path;
  std::vector<std::string> zeroWait, zeroEvent;
  std::vector<std::uint32_t> balanceCompute, balanceVolume;
  std::int64_t compensateNs = 0;  // --compensate-ns, if given (compensateOpt counts it)
  CLI::Option* compensateOpt = nullptr;
  bool compensateFromTrace = false;
  ReplayOptions replay;
  std::string out;
  bool json = false, allRanks = false, fullCriticalPath = false;
  std::size_t limit = 50;  // critical-path: segments printed
};

// The names of a distributed critical path's functions and listed calls.
PathNames namesOf(const DistributedPrediction& d) {
  PathNames n;
  n.function = [&d](std::uint32_t f) { return d.pathFunctions.at(f); };
  n.call = [&d](std::size_t i, bool partner) { return partner ? d.partnerFunction.at(i) : d.segmentFunction.at(i); };
  return n;
}

void print(const Options& o, const DistributedPrediction& d, std::uint32_t processes) {
  const TimeNs measured = d.measured, predicted = d.predicted;
  if (o.json) {
    std::size_t omitted = 0;
    Json perRank = perRankJson(
        d.ranks, [&](std::uint32_t r) { return d.measuredEnd[r]; }, [&](std::uint32_t r) { return d.predictedEnd[r]; },
        o.allRanks, omitted);
    Json j = predictionJson(o.path, d.format, d.ranks, d.mpiCalls, d.scenario, measured, predicted, std::move(perRank),
                            omitted);
    j["replay"] = {{"broken_cycles", d.brokenCycles}};
    j["output"] = o.out.empty() ? Json(nullptr) : Json(o.out);
    j["critical_path_ns"] = d.criticalPath.length;
    j["critical_path_summary"] = criticalPathSummaryJson(namesOf(d), d.criticalPath);
    if (o.fullCriticalPath) {
      Json cpj = criticalPathJson(namesOf(d), d.criticalPath);
      j["critical_path"] = std::move(cpj["critical_path"]);
      j["critical_path_segments"] = std::move(cpj["segments"]);
    }
    j["warnings"] = warningsJson(d.warnings);
    j["distributed"] = {{"processes", processes},
                        {"rounds", d.rounds},
                        {"schedule_rounds", d.scheduleRounds},
                        {"enters_sent", d.enterSent},
                        {"ghost_calls", d.ghostCalls},
                        {"critical_path_rounds", d.pathRounds}};
    std::cout << jsonText(j) << '\n';
    return;
  }
  std::cout << "trace:        " << o.path << " (" << d.format << ", " << d.ranks << " ranks, " << d.mpiCalls
            << " MPI calls)\n";
  std::cout << "model:        " << d.scenario.model->name() << " (" << d.scenario.model->kind() << "), costs "
            << costModeName(d.scenario.costs) << '\n';
  std::cout << "hypotheses:   ";
  if (d.scenario.hypotheses.empty()) std::cout << "none";
  for (std::size_t i = 0; i < d.scenario.hypotheses.size(); ++i)
    std::cout << (i ? "; " : "") << d.scenario.hypotheses[i].toString();
  std::cout << '\n';
  printTimes(std::cout, measured, predicted);
  printCriticalPath(std::cout, namesOf(d), d.criticalPath, 20);
  if (!o.out.empty()) std::cout << "predicted trace written to " << o.out << '\n';
  std::cout << "replayed by:  " << processes << " processes, " << d.rounds << " rounds, " << d.enterSent
            << " predicted enters exchanged\n";
}

// perwiz-cli critical-path's output (without its "dag" shape): the measured path.
void printPath(const Options& o, const DistributedPrediction& d) {
  if (o.json) {
    Json j{{"trace", o.path}, {"measured_ns", d.measured}};
    Json cpj = criticalPathJson(namesOf(d), d.criticalPath);
    for (auto& [k, v] : cpj.items()) j[k] = v;
    j["summary"] = criticalPathSummaryJson(namesOf(d), d.criticalPath);
    j["warnings"] = warningsJson(d.warnings);
    std::cout << jsonText(j) << '\n';
    return;
  }
  std::cout << "trace: " << o.path << " (" << d.ranks << " ranks, measured T " << humanDuration(d.measured) << ")\n";
  printCriticalPath(std::cout, namesOf(d), d.criticalPath, o.limit);
}

int runCriticalPath(const Options& o, mpi::MpiGroup& group) {
  DistributedOptions d;
  d.scenario = scenarioFromOptions(o.replay);
  d.scenario.hypotheses.clear();  // the measured path: no what-if
  d.scenario.normalize();
  d.region = o.replay.region;
  d.criticalPath = true;
  d.pathListing = o.json ? CriticalPathListing::Full : CriticalPathListing::Segments;
  d.pathFirstSegments = o.json ? static_cast<std::size_t>(-1) : o.limit;
  const DistributedPrediction result = predictDistributed(o.path, d, group);
  if (group.rank() == 0) {
    reportWarnings(result.warnings, o.path);
    printPath(o, result);
  }
  return kExitOk;
}

// The functions of the calls advise's output names, each from the process holding its rank.
std::map<EventRef, std::string> gatherFunctions(const std::vector<EventRef>& calls, const DistributedSession& session) {
  const Trace& t = session.replayer().trace();
  std::ostringstream mine;
  for (std::size_t i = 0; i < calls.size(); ++i)
    if (session.ownRanks().contains(calls[i].rank))
      mine << i << ' ' << callName(t, calls[i].rank, calls[i].index) << '\n';
  std::map<EventRef, std::string> out;
  for (const std::string& b : session.group().allGather(mine.str())) {
    std::istringstream in(b);
    std::size_t i = 0;
    std::string name;
    while (in >> i && std::getline(in >> std::ws, name))
      if (i < calls.size()) out[calls[i]] = name;
  }
  return out;
}

// perwiz-cli advise's output from the processes' shares (adviseOverShares): each process loads
// its ranks, the searches run in step on every process, process 0 prints.
int runAdvise(const AdviseOptions& o, mpi::MpiGroup& group) {
  DistributedOptions d;
  d.scenario = scenarioFromOptions(o.replay);
  d.region = o.replay.region;
  DistributedSession session(o.path, d, group);
  AdvisorOptions ao;
  ao.topCandidates = o.top;
  ao.threads = o.threads;  // the searches' batches: the serial pool's with the same --threads
  ao.maxStepPredictions = o.maxStepPredictions;
  const Advice a = adviseOverShares(session, ao);
  AdviceFacts facts;
  facts.ranks = session.base().ranks;
  facts.mpiCalls = session.base().mpiCalls;
  facts.warnings = session.base().warnings;
  facts.functions = gatherFunctions(namedCalls(a), session);
  if (group.rank() != 0) return kExitOk;
  if (o.json)
    std::cout << jsonText(adviceJson(a, facts, o.path)) << '\n';
  else
    printAdvice(a, facts, o.path);
  return kExitOk;
}

int run(const Options& o, mpi::MpiGroup& group) {
  DistributedOptions d;
  d.output = o.out;
  d.scenario = scenarioFromOptions(o.replay);
  d.region = o.replay.region;
  for (const auto& z : o.zeroWait)
    d.scenario.hypotheses.push_back({HypothesisKind::ZeroWait, eventArg("--zero-wait", z, false), 0});
  for (const auto& z : o.zeroEvent)
    d.scenario.hypotheses.push_back({HypothesisKind::ZeroEvent, eventArg("--zero-event", z, true), 0});
  for (std::uint32_t k : o.balanceCompute) d.scenario.hypotheses.push_back({HypothesisKind::BalanceCompute, {}, k});
  for (std::uint32_t k : o.balanceVolume) d.scenario.hypotheses.push_back({HypothesisKind::BalanceVolume, {}, k});
  addCompensation(d.scenario, o.compensateOpt->count() > 0, o.compensateNs, o.compensateFromTrace, o.path);
  d.scenario.normalize();
  // The predicted critical path, as perwiz-cli predict lists it: the first 20 segments in the
  // text, every one with --json --full-critical-path, the summary only otherwise.
  d.criticalPath = true;
  d.pathListing = o.json ? (o.fullCriticalPath ? CriticalPathListing::Full : CriticalPathListing::TotalsOnly)
                         : CriticalPathListing::Segments;
  d.pathFirstSegments = o.json ? static_cast<std::size_t>(-1) : 20;
  const DistributedPrediction result = predictDistributed(o.path, d, group);
  if (group.rank() == 0) {
    reportWarnings(result.warnings, o.path);
    print(o, result, group.size());
  }
  return kExitOk;
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int status = kExitOk;
  {
    mpi::MpiGroup group;
    const std::string who = "perwiz-mpi (process " + std::to_string(group.rank()) + " of " +
                            std::to_string(group.size()) + "): ";
    CLI::App app{"perwiz-mpi: what-if prediction replayed by the processes of an MPI run (docs/distributed.md)"};
    app.require_subcommand(1);
    Options o;
    CLI::App* predict = app.add_subcommand("predict", "perwiz-cli predict, every process replaying its share of the ranks");
    predict->add_option("TRACE", o.path, "input trace (OTF2: each process reads its ranks' files; ALOG and OTF: "
                                         "every process reads the file and keeps its ranks)")
        ->required();
    predict->add_option("--zero-wait", o.zeroWait, "RANK:INDEX: this MPI call's waiting time becomes zero")
        ->allow_extra_args(false);
    predict->add_option("--zero-event", o.zeroEvent,
                        "RANK:INDEX (MPI call) or RANK:cINDEX (computation before call INDEX) takes no time")
        ->allow_extra_args(false);
    predict->add_option("--balance-compute", o.balanceCompute,
                        "STEP (0-based): every rank's computation in the parallel step becomes the mean")
        ->allow_extra_args(false);
    predict->add_option("--balance-volume", o.balanceVolume,
                        "STEP (0-based): every message in the parallel step gets the mean size")
        ->allow_extra_args(false);
    o.compensateOpt = predict->add_option(
        "--compensate-ns", o.compensateNs,
        "remove N ns of instrumentation overhead per traced event (perwiz-cli predict's compensation)");
    predict->add_flag("--compensate-from-trace", o.compensateFromTrace,
                      "remove the overhead the tracer recorded per rank (PERWIZ_EVENT_OVERHEAD_NS)");
    addReplayOptions(predict, o.replay);
    predict->add_option("-o,--output", o.out,
                        "write the predicted trace L' as OTF2 (X.otf2 or a directory), each process its ranks");
    predict->add_flag("--json", o.json, "machine-readable output (perwiz-cli predict's keys, plus \"distributed\")");
    predict->add_flag("--all-ranks", o.allRanks, "with --json: every rank's end times (default: at most 4096)");
    predict->add_flag("--full-critical-path", o.fullCriticalPath,
                      "with --json: also list every critical-path segment and call (grows with the trace)");
    CLI::App* path = app.add_subcommand(
        "critical-path", "perwiz-cli critical-path (the measured critical path), walked across the processes");
    path->add_option("TRACE", o.path, "input trace (as for predict)")->required();
    addReplayOptions(path, o.replay);
    path->add_option("--limit", o.limit, "segments to print (text output)");
    path->add_flag("--json", o.json, "machine-readable output (perwiz-cli critical-path's keys without \"dag\")");
    AdviseOptions advice;
    CLI::App* adviseCommand =
        app.add_subcommand("advise", "perwiz-cli advise, every process holding its share of the ranks");
    addAdviseOptions(adviseCommand, advice);
    try {
      app.parse(argc, argv);
      status = path->parsed()            ? runCriticalPath(o, group)
               : adviseCommand->parsed() ? runAdvise(advice, group)
                                         : run(o, group);
    } catch (const CLI::ParseError& e) {
      // Every process parses the same arguments: process 0 speaks for all.
      if (group.rank() == 0) status = app.exit(e);
      else status = e.get_exit_code() == 0 ? kExitOk : kExitBadUsage;
      if (status != kExitOk) status = kExitBadUsage;
    } catch (const UsageError& e) {
      std::cerr << who + "usage: " + e.what() + "\n" << std::flush;  // every process checks the same arguments
      status = kExitBadUsage;
    } catch (const GroupError& e) {
      std::cerr << who + e.what() + "\n" << std::flush;  // raised on every process alike
      status = kExitBadInput;
    } catch (const std::exception& e) {
      // This process alone: the others may be waiting for it in a collective.
      std::cerr << who + e.what() + "\n" << std::flush;
      MPI_Abort(MPI_COMM_WORLD, kExitBadInput);
    }
  }
  MPI_Finalize();
  return status;
}
