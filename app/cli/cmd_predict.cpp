// `perwiz-cli predict TRACE [hypotheses] [--compensate-ns N | --compensate-from-trace] [--model]
// [--costs] [--scenario] [-o OUT] [--json]`:
// what-if prediction (paper §4, F2). Prints measured and predicted execution time, the change
// and the predicted critical path; -o writes the predicted trace L' (never overwriting).
#include "cli_common.h"
#include "progress.h"
#include "prediction_setup.h"

#include "perwiz/compensation.h"
#include "perwiz/distributed.h"
#include "perwiz/output_file.h"
#include "perwiz/trace_io.h"

#include <algorithm>
#include <iomanip>
#include <iostream>
#include <memory>
#include <optional>
#include <sstream>
#include <stdexcept>

namespace perwiz::cli {
namespace {

struct PredictOptions {
  std::string path, out, format, saveScenario;
  HypothesisFlags hypotheses;
  std::int64_t compensateNs = 0;  // --compensate-ns, if given (compensateOpt counts it)
  CLI::Option* compensateOpt = nullptr;
  bool compensateFromTrace = false;
  ReplayOptions replay;
  bool json = false;
  bool fullCriticalPath = false;  // --full-critical-path: every segment in --json
  bool allRanks = false;          // --all-ranks: per_rank for every rank in --json
};

int runPredict(const PredictOptions& o) {
  if (!o.out.empty()) refuseToOverwrite(o.out);
  if (!o.saveScenario.empty()) refuseToOverwrite(o.saveScenario);
  Scenario scenario = scenarioFromOptions(o.replay);
  addHypotheses(scenario, o.hypotheses);
  addCompensation(scenario, o.compensateOpt->count() > 0, o.compensateNs, o.compensateFromTrace, o.path);
  scenario.normalize();

  const Trace trace = loadForReplay(o.path, o.replay);
  if (o.compensateFromTrace && recordedOverhead(trace).empty())  // bad input (status 1), not usage
    throw std::runtime_error(o.path + " records no instrumentation overhead (the tracer did not measure its own "
                             "cost; give --compensate-ns N instead)");
  const std::unique_ptr<Replayer> replayer = replayerFor(trace, std::move(scenario), o.path);
  const Replayer& rp = *replayer;
  std::optional<ProgressPhase> phase(std::in_place, "critical path");
  const CriticalPath cp = criticalPath(rp, o.json && o.fullCriticalPath ? CriticalPathListing::Full
                                                                         : CriticalPathListing::Segments,
                                       o.json && o.fullCriticalPath ? static_cast<std::size_t>(-1) : 20);
  phase.reset();

  if (!o.saveScenario.empty()) {
    // Every write and the final flush checked; nothing under the name until it is complete.
    writeOutputFile(o.saveScenario, rp.scenario().toJson() + "\n");
  }
  if (!o.out.empty()) {
    // OTF2 rank by rank (one rank's copy of L' at a time); ALOG and OTF from L' built whole.
    writeOutput(o.out, [&] {
      if (outputFormatFor(o.out) == TraceFormat::Otf2)
        writePredictedOtf2(rp, o.out);
      else
        saveTrace(rp.predictedTrace(), o.out);
    });
  }

  const TimeNs measured = rp.measuredTime(), predicted = rp.predictedTime();
  const ReplayReport& rep = rp.report();
  if (o.json) {
    std::size_t omitted = 0;
    Json perRank = perRankJson(
        static_cast<std::uint32_t>(trace.rankCount()), [&](std::uint32_t r) { return rp.measuredRankEnd(r); },
        [&](std::uint32_t r) { return rp.predictedRankEnd(r); }, o.allRanks, omitted);
    Json j = predictionJson(o.path, trace.format, trace.rankCount(), trace.mpiCallCount(), rp.scenario(), measured,
                            predicted, std::move(perRank), omitted);
    j["critical_path_ns"] = cp.length;
    j["critical_path_summary"] = criticalPathSummaryJson(trace, cp);
    if (o.fullCriticalPath) {
      Json cpj = criticalPathJson(trace, cp);
      j["critical_path"] = std::move(cpj["critical_path"]);
      j["critical_path_segments"] = std::move(cpj["segments"]);
    }
    j["replay"] = {{"skewed_dependencies", rep.skewedDependencies},
                   {"broken_cycles", rep.brokenCycles},
                   {"nested_calls", rep.nestedCalls},
                   {"unmatched_endpoints", rep.unmatchedEndpoints},
                   {"notes", rep.notes}};
    j["output"] = o.out.empty() ? Json(nullptr) : Json(o.out);
    Json earlier = Json::array();  // the trace is itself a prediction: how it was made
    for (const auto& text : scenariosRecordedIn(trace)) earlier.push_back(Json::parse(text, nullptr, false));
    j["earlier_scenarios"] = std::move(earlier);
    j["warnings"] = warningsJson(trace);
    std::cout << jsonText(j) << '\n';
    return kExitOk;
  }
  std::cout << "trace:        " << o.path << " (" << trace.format << ", " << trace.rankCount() << " ranks, "
            << trace.mpiCallCount() << " MPI calls)\n";
  std::cout << "model:        " << rp.scenario().model->name() << " (" << rp.scenario().model->kind()
            << "), costs " << costModeName(rp.scenario().costs) << '\n';
  std::cout << "hypotheses:   ";
  if (rp.scenario().hypotheses.empty()) std::cout << "none";
  for (std::size_t i = 0; i < rp.scenario().hypotheses.size(); ++i)
    std::cout << (i ? "; " : "") << rp.scenario().hypotheses[i].toString();
  std::cout << '\n';
  printTimes(std::cout, measured, predicted);
  printCriticalPath(std::cout, trace, cp, 20);
  for (const auto& n : rep.notes) std::cout << "note: " << n << '\n';
  for (const auto& text : scenariosRecordedIn(trace))
    std::cout << "note: this trace is itself a prediction, made with " << text << '\n';
  if (!o.out.empty()) std::cout << "predicted trace written to " << o.out << '\n';
  return kExitOk;
}

}  // namespace

Command addPredictCommand(CLI::App& parent) {
  auto o = std::make_shared<PredictOptions>();
  CLI::App* app = parent.add_subcommand(
      "predict", "What-if prediction: replay TRACE under LogGPS with hypotheses (see docs/model.md)");
  app->add_option("TRACE", o->path, "input trace (ALOG or OTF2)")->required();
  addHypothesisOptions(app, o->hypotheses);
  o->compensateOpt = app->add_option(
      "--compensate-ns", o->compensateNs,
      "N: remove N ns of instrumentation overhead per traced event, propagating the delays (docs/compensation.md)");
  app->add_flag("--compensate-from-trace", o->compensateFromTrace,
                "remove the instrumentation overhead per event that the tracer recorded in TRACE");
  addReplayOptions(app, o->replay);
  app->add_option("-o,--output", o->out, "write the predicted trace L' (.alog/.log: ALOG, .otf: OTF, .otf2 or dir: OTF2)")
      ->check(writablePath());
  app->add_option("--save-scenario", o->saveScenario, "write the scenario's canonical JSON to this file")
      ->check(writablePath());
  app->add_flag("--json", o->json, "machine-readable output: a summary of bounded size (under 1 MB)");
  app->add_flag("--full-critical-path", o->fullCriticalPath,
                "with --json: also list every critical-path segment and call (grows with the trace)");
  app->add_flag("--all-ranks", o->allRanks,
                "with --json: per-rank end times of every rank (default: at most 4096, the latest ending)");
  return {app, [o] { return runPredict(*o); }};
}

}  // namespace perwiz::cli
