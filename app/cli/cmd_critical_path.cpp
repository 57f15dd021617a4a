// `perwiz-cli critical-path TRACE [--json]`: the measured critical path — the longest path of
// the happened-before DAG (docs/model.md §1), i.e. the chain of computation, calls and message
// waits that determines the execution time. --json lists every segment (it grows with the
// trace); the text lists the first --limit.
#include "cli_common.h"
#include "progress.h"
#include "prediction_setup.h"

#include <iostream>
#include <memory>
#include <optional>

namespace perwiz::cli {
namespace {

struct CriticalPathOptions {
  std::string path;
  ReplayOptions replay;
  bool json = false;
  std::size_t limit = 50;
};

int runCriticalPath(const CriticalPathOptions& o) {
  Scenario scenario = scenarioFromOptions(o.replay);
  scenario.hypotheses.clear();  // the measured path: no what-if
  const Trace trace = loadForReplay(o.path, o.replay);
  const std::unique_ptr<Replayer> replayer = replayerFor(trace, std::move(scenario), o.path);
  const Replayer& rp = *replayer;
  std::optional<ProgressPhase> phase(std::in_place, "critical path");
  if (o.json) {
    const CriticalPath cp = criticalPath(rp, CriticalPathListing::Full);
    phase.reset();
    Json j{{"trace", o.path}, {"measured_ns", rp.measuredTime()}};
    Json cpj = criticalPathJson(trace, cp);
    for (auto& [k, v] : cpj.items()) j[k] = v;
    j["summary"] = criticalPathSummaryJson(trace, cp);
    const DagShape dag = dagShape(rp);
    j["dag"] = {{"vertices", dag.vertices}, {"edges", dag.edges}, {"acyclic", dag.acyclic}};
    j["warnings"] = warningsJson(trace);
    std::cout << jsonText(j) << '\n';
    return kExitOk;
  }
  const CriticalPath cp = criticalPath(rp, CriticalPathListing::Segments, o.limit);
  phase.reset();
  std::cout << "trace: " << o.path << " (" << trace.rankCount() << " ranks, measured T "
            << humanDuration(rp.measuredTime()) << ")\n";
  printCriticalPath(std::cout, trace, cp, o.limit);
  return kExitOk;
}

}  // namespace

Command addCriticalPathCommand(CLI::App& parent) {
  auto o = std::make_shared<CriticalPathOptions>();
  CLI::App* app = parent.add_subcommand("critical-path", "The measured critical path of a trace");
  app->add_option("TRACE", o->path, "input trace (ALOG or OTF2)")->required();
  addReplayOptions(app, o->replay);
  app->add_option("--limit", o->limit, "segments to print (text output)");
  app->add_flag("--json", o->json, "machine-readable output");
  return {app, [o] { return runCriticalPath(*o); }};
}

}  // namespace perwiz::cli
