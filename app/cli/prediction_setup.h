// Options shared by the commands that replay a trace (predict, critical-path): the network
// model, the cost mode, an optional scenario file, the parallel region, and the printing of a
// critical path.
#pragma once

#include "perwiz/critical_path.h"
#include "perwiz/replay.h"

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <functional>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

namespace perwiz::cli {

using Json = nlohmann::ordered_json;

struct ReplayOptions {
  std::string model;     // preset or file; "" = scenario's or default
  std::string costs;     // "measured" / "model"; "" = scenario's or measured
  std::string scenario;  // scenario JSON file
  std::string region;    // parallel region name (default: PRGN* states)
};

void addReplayOptions(CLI::App* app, ReplayOptions& o);

// The hypothesis flags of predict and compare: --zero-wait, --zero-event, --balance-compute,
// --balance-volume.
struct HypothesisFlags {
  std::vector<std::string> zeroWait, zeroEvent;
  std::vector<std::uint32_t> balanceCompute, balanceVolume;
};
void addHypothesisOptions(CLI::App* app, HypothesisFlags& h);
// The flags' hypotheses appended to `s` (UsageError for a malformed RANK:INDEX).
void addHypotheses(Scenario& s, const HypothesisFlags& h);

// Loads the trace named by `path` and applies --region (UsageError if no such state).
// `report`: progress and warnings on stderr (perwiz-mpi: process 0's only).
Trace loadForReplay(const std::string& path, const ReplayOptions& o, bool report = true);

// Scenario from --scenario, then --model and --costs on top. Bad files raise TraceError.
Scenario scenarioFromOptions(const ReplayOptions& o);

// A replay of `trace` (read from `path`) under `scenario`; a hypothesis that does not fit the
// trace is a UsageError naming the problem, a prediction beyond the int64 ns range a TraceError
// naming what took it there (Replayer::overflow).
std::unique_ptr<Replayer> replayerFor(const Trace& trace, Scenario scenario, const std::string& path);

// A --zero-wait / --zero-event argument: "RANK:INDEX", or "RANK:cINDEX" (the computation before
// call INDEX) where `computationAllowed`; a UsageError naming the flag otherwise.
EventRef eventArg(const std::string& flag, const std::string& text, bool computationAllowed);
// --compensate-ns (given: `nsGiven`, value `ns`) and --compensate-from-trace as a hypothesis of
// `s`, predicting `path`; UsageError for both at once or a negative overhead.
void addCompensation(Scenario& s, bool nsGiven, std::int64_t ns, bool fromTrace, const std::string& path);
// 100 · delta / base (0 when base is 0).
double percentOf(TimeNs delta, TimeNs base);
// predict --json's "per_rank": every rank's measured and predicted end, or with more than 4096
// ranks and not `all`, the 4096 latest-ending (`omitted` receives how many were left out).
Json perRankJson(std::uint32_t ranks, const std::function<TimeNs(std::uint32_t)>& measuredEnd,
                 const std::function<TimeNs(std::uint32_t)>& predictedEnd, bool all, std::size_t& omitted);
// predict --json's summary keys, one list for perwiz-cli and perwiz-mpi: trace, format, ranks,
// mpi_calls, model, costs, hypotheses, measured_ns, predicted_ns, change_ns, change_percent,
// speedup, per_rank (and per_rank_omitted when ranks were left out).
Json predictionJson(const std::string& path, const std::string& format, std::uint64_t ranks, std::uint64_t mpiCalls,
                    const Scenario& scenario, TimeNs measured, TimeNs predicted, Json perRank, std::size_t omitted);
// predict's lines "measured T:" and "predicted T:" (change, percent, speedup).
void printTimes(std::ostream& out, TimeNs measured, TimeNs predicted);

std::string callName(const Trace& t, std::uint32_t rank, std::uint32_t mpiIndex);
// The names a critical path's output gives: a function of totals.perFunction, and a listed
// segment's call or its partner's (perwiz-mpi has no trace holding every rank: it names them
// from the processes' answers).
struct PathNames {
  std::function<std::string(std::uint32_t function)> function;
  std::function<std::string(std::size_t segment, bool partner)> call;
};
PathNames pathNames(const Trace& t, const CriticalPath& cp);
Json criticalPathJson(const PathNames& names, const CriticalPath& cp);
Json criticalPathSummaryJson(const PathNames& names, const CriticalPath& cp, std::size_t top = 10);
void printCriticalPath(std::ostream& out, const PathNames& names, const CriticalPath& cp, std::size_t limit);
// The full listing: length, call ids and every segment (grows with the path).
Json criticalPathJson(const Trace& t, const CriticalPath& cp);
// The bounded summary: length, counts, time by kind and the `top` functions and ranks.
Json criticalPathSummaryJson(const Trace& t, const CriticalPath& cp, std::size_t top = 10);
void printCriticalPath(std::ostream& out, const Trace& t, const CriticalPath& cp, std::size_t limit);

}  // namespace perwiz::cli
