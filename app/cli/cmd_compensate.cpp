// `perwiz-cli compensate TRACE --overhead-ns N | --from-trace [-o OUT] [--json]`: removes the
// tracer's instrumentation overhead from every rank and propagates the delays along messages
// and collectives (Malony et al.; docs/compensation.md). Prints measured and compensated T, the
// paper's "local" compensation beside it, and each rank's delay; -o writes the compensated trace
// (never overwriting).
#include "cli_common.h"
#include "prediction_setup.h"

#include "perwiz/compensation.h"
#include "perwiz/trace_io.h"

#include <iomanip>
#include <iostream>
#include <memory>
#include <sstream>
#include <stdexcept>

namespace perwiz::cli {
namespace {

struct CompensateOptions {
  std::string path, out;
  std::int64_t overheadNs = 0;
  CLI::Option* overheadOpt = nullptr;
  bool fromTrace = false;
  ReplayOptions replay;  // only --model and --region are offered
  bool json = false;
};

double percent(TimeNs delta, TimeNs base) {
  return base > 0 ? 100.0 * static_cast<double>(delta) / static_cast<double>(base) : 0.0;
}

int runCompensate(const CompensateOptions& o) {
  const bool given = o.overheadOpt->count() > 0;
  if (given == o.fromTrace)
    throw UsageError("compensate " + o.path + ": give exactly one of --overhead-ns N and --from-trace");
  if (given && o.overheadNs < 0)
    throw UsageError("--overhead-ns " + std::to_string(o.overheadNs) + ": the overhead per event must be 0 ns or more (compensating " + o.path + ")");
  if (!o.out.empty()) refuseToOverwrite(o.out);

  const Trace trace = loadForReplay(o.path, o.replay);
  const std::int64_t value = o.fromTrace ? kOverheadFromTrace : o.overheadNs;
  std::string problem;
  const std::vector<TimeNs> perRank = compensationOverhead(trace, value, &problem);
  if (!problem.empty()) {
    // A value no trace can hold (its total over a rank's events passes 2^63 ns): the option is wrong.
    if (given) throw UsageError("--overhead-ns: " + problem + " (compensating " + o.path + ")");
    if (!recordedOverhead(trace).empty()) throw std::runtime_error(problem);  // an absurd recorded value
    // the trace lacks the recorded overhead: bad input (status 1)
    throw std::runtime_error(o.path + " records no instrumentation overhead (the tracer did not measure its own "
                             "cost; give --overhead-ns N instead)");
  }

  Scenario scenario = scenarioFromOptions(o.replay);
  scenario.costs = CostMode::Measured;  // compensation corrects measured costs
  scenario.hypotheses = {Hypothesis::compensate(value)};
  const std::unique_ptr<Replayer> rp = replayerFor(trace, std::move(scenario), o.path);
  if (!o.out.empty()) {
    const Trace compensated = rp->predictedTrace();
    writeOutput(o.out, [&] { saveTrace(compensated, o.out); });
  }

  const std::vector<RankInstrumentation> ranks = rankOverheads(trace, perRank);
  std::uint64_t events = 0;
  TimeNs localOnly = 0;
  bool uniform = true;
  for (const RankInstrumentation& r : ranks) {
    events += r.events;
    localOnly = std::max(localOnly, r.localOnlyEnd);
    uniform = uniform && r.overheadNs == ranks.front().overheadNs;
  }
  const TimeNs measured = rp->measuredTime(), compensated = rp->predictedTime();
  const ReplayReport& rep = rp->report();

  if (o.json) {
    Json perRankJson = Json::array();
    for (std::uint32_t r = 0; r < ranks.size(); ++r)
      perRankJson.push_back({{"rank", r},
                             {"overhead_ns", ranks[r].overheadNs},
                             {"events", ranks[r].events},
                             {"own_overhead_ns", ranks[r].ownOverhead},
                             {"measured_end_ns", rp->measuredRankEnd(r)},
                             {"compensated_end_ns", rp->predictedRankEnd(r)},
                             {"delay_ns", rp->measuredRankEnd(r) - rp->predictedRankEnd(r)},
                             {"local_only_end_ns", ranks[r].localOnlyEnd}});
    Json j{{"trace", o.path},
           {"format", trace.format},
           {"ranks", trace.rankCount()},
           {"model", rp->scenario().model->name()},
           {"overhead_source", o.fromTrace ? "trace" : "user"},
           {"overhead_ns", uniform && !ranks.empty() ? Json(ranks.front().overheadNs) : Json(nullptr)},
           {"events", events},
           {"measured_ns", measured},
           {"compensated_ns", compensated},
           {"change_ns", compensated - measured},
           {"change_percent", percent(compensated - measured, measured)},
           {"local_only_ns", localOnly},
           {"per_rank", std::move(perRankJson)},
           {"notes", rep.notes},
           {"output", o.out.empty() ? Json(nullptr) : Json(o.out)}};
    Json earlier = Json::array();  // the trace is itself a prediction (maybe compensated already)
    for (const auto& text : scenariosRecordedIn(trace)) earlier.push_back(Json::parse(text, nullptr, false));
    j["earlier_scenarios"] = std::move(earlier);
    j["warnings"] = warningsJson(trace);
    std::cout << jsonText(j) << '\n';
    return kExitOk;
  }

  std::cout << "trace:          " << o.path << " (" << trace.format << ", " << trace.rankCount() << " ranks, "
            << events << " events)\n";
  std::cout << "overhead:       ";
  if (uniform && !ranks.empty()) std::cout << humanDuration(ranks.front().overheadNs) << " per event";
  else std::cout << "per rank (below)";
  std::cout << (o.fromTrace ? ", recorded by the tracer\n" : ", given\n");
  std::cout << "measured T:     " << humanDuration(measured) << '\n';
  std::ostringstream change;
  change << std::fixed << std::setprecision(1) << percent(compensated - measured, measured) << " %";
  std::cout << "compensated T:  " << humanDuration(compensated) << "  (-" << humanDuration(measured - compensated)
            << ", " << change.str() << ")\n";
  std::cout << "local only T:   " << humanDuration(localOnly)
            << "  (each rank less its own overhead, no delay propagated: the paper's failing scheme)\n";
  constexpr std::size_t kRowsShown = 32;
  std::cout << "rank   events  overhead/event   measured end  compensated end          delay\n";
  for (std::uint32_t r = 0; r < ranks.size() && r < kRowsShown; ++r)
    std::cout << std::setw(4) << r << std::setw(9) << ranks[r].events << std::setw(16)
              << humanDuration(ranks[r].overheadNs) << std::setw(15) << humanDuration(rp->measuredRankEnd(r))
              << std::setw(17) << humanDuration(rp->predictedRankEnd(r)) << std::setw(15)
              << humanDuration(rp->measuredRankEnd(r) - rp->predictedRankEnd(r)) << '\n';
  if (ranks.size() > kRowsShown) std::cout << "  ... " << ranks.size() - kRowsShown << " more ranks (--json lists all)\n";
  for (const auto& n : rep.notes) std::cout << "note: " << n << '\n';
  for (const auto& text : scenariosRecordedIn(trace))
    std::cout << "note: this trace is itself a prediction" << (text.find("\"compensate\"") != std::string::npos ? " and already compensated" : "")
              << ", made with " << text << '\n';
  if (!o.out.empty()) std::cout << "compensated trace written to " << o.out << '\n';
  return kExitOk;
}

}  // namespace

Command addCompensateCommand(CLI::App& parent) {
  auto o = std::make_shared<CompensateOptions>();
  CLI::App* app = parent.add_subcommand(
      "compensate", "Remove the instrumentation overhead from TRACE and propagate the delays (see docs/compensation.md)");
  app->add_option("TRACE", o->path, "input trace (ALOG or OTF2)")->required();
  o->overheadOpt = app->add_option("--overhead-ns", o->overheadNs, "instrumentation overhead in ns per traced event");
  app->add_flag("--from-trace", o->fromTrace, "use the overhead per event the tracer recorded in TRACE");
  std::string presets;
  for (const auto& n : networkPresetNames()) presets += (presets.empty() ? "" : ", ") + n;
  app->add_option("--model", o->replay.model, "network model: a preset (" + presets + ") or a JSON file");
  app->add_option("--region", o->replay.region,
                  "state whose instances are the parallel steps (default: states named PRGN*)");
  app->add_option("-o,--output", o->out, "write the compensated trace (.alog/.log: ALOG, .otf: OTF, .otf2 or dir: OTF2)")
      ->check(writablePath());
  app->add_flag("--json", o->json, "machine-readable output");
  return {app, [o] { return runCompensate(*o); }};
}

}  // namespace perwiz::cli
