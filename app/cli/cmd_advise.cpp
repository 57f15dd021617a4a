// `perwiz-cli advise TRACE [--top N] [--model …] [--json]`: what to fix first (paper F1, F3):
// domino paths, the best single wait zeroings, the longest-wait choice, the step table and the
// lower bounds of every parallel region.
#include "advice_output.h"
#include "prediction_setup.h"

#include "perwiz/advisor.h"
#include "perwiz/replay.h"
#include "perwiz/trace_io.h"

#include <iostream>
#include <memory>

namespace perwiz::cli {
namespace {

int runAdvise(const AdviseOptions& o) {
  Scenario scenario = scenarioFromOptions(o.replay);
  const Trace trace = loadForReplay(o.path, o.replay);
  const std::unique_ptr<Replayer> replayer = replayerFor(trace, std::move(scenario), o.path);
  const Advice a = computeAdvice(*replayer, o);
  if (o.json)
    std::cout << jsonText(adviceJson(a, trace, o.path)) << '\n';
  else
    printAdvice(a, trace, o.path);
  return kExitOk;
}

}  // namespace

Command addAdviseCommand(CLI::App& parent) {
  auto o = std::make_shared<AdviseOptions>();
  CLI::App* app = parent.add_subcommand("advise", "What to fix first: domino paths, candidates, steps, bounds");
  addAdviseOptions(app, *o);
  return {app, [o] { return runAdvise(*o); }};
}

}  // namespace perwiz::cli
