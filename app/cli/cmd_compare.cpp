// `perwiz-cli compare A B [hypotheses | --scenario FILE] [--model] [--costs] [--region]
// [--rank-map LIST] [--top N] [--min-paired SHARE] [--json]`: two runs side by side (issue #41).
// Aligns B's events with A's and prints the differences of T, each rank's end, each parallel
// step and each function's time, the events that changed most and those of one run only. With
// hypotheses, A is first predicted under them (A′) and every figure is also given for A′ against
// B: did the fix deliver what was predicted, and where did the run differ from the prediction?
#include "cli_common.h"
#include "progress.h"
#include "prediction_setup.h"

#include "perwiz/compare.h"
#include "perwiz/trace_io.h"

#include <algorithm>
#include <iomanip>
#include <iostream>
#include <memory>
#include <optional>
#include <sstream>

namespace perwiz::cli {
namespace {

struct CompareCliOptions {
  std::string pathA, pathB, rankMap;
  HypothesisFlags hypotheses;
  ReplayOptions replay;
  std::size_t top = 10;
  double minPaired = 0.5;
  bool json = false;
};

// "0:0,1:3": (rank of A, rank of B) pairs.
std::vector<std::pair<std::uint32_t, std::uint32_t>> parseRankMap(const std::string& text) {
  std::vector<std::pair<std::uint32_t, std::uint32_t>> pairs;
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ',')) {
    const auto colon = item.find(':');
    try {
      std::size_t usedA = 0, usedB = 0;
      if (colon == std::string::npos) throw std::invalid_argument(item);
      const unsigned long a = std::stoul(item.substr(0, colon), &usedA);
      const unsigned long b = std::stoul(item.substr(colon + 1), &usedB);
      if (usedA != colon || usedB != item.size() - colon - 1 || a >= kNone32 || b >= kNone32)
        throw std::invalid_argument(item);
      pairs.emplace_back(std::uint32_t(a), std::uint32_t(b));
    } catch (const std::exception&) {
      throw UsageError("--rank-map: '" + item + "' is not RANK_A:RANK_B (e.g. --rank-map 0:0,1:2)");
    }
  }
  if (pairs.empty()) throw UsageError("--rank-map: no RANK_A:RANK_B pair given");
  return pairs;
}

std::string signedDuration(TimeNs ns) { return (ns > 0 ? "+" : "") + humanDuration(ns); }
std::string percent(TimeNs delta, TimeNs base) {
  std::ostringstream s;
  s << std::showpos << std::fixed << std::setprecision(1) << percentOf(delta, base) << " %";
  return s.str();
}
std::string callId(const EventDifference& e) {
  return std::to_string(e.rankA) + ":" +
         (e.mpiIndex != kNone32 ? std::to_string(e.mpiIndex) : "e" + std::to_string(e.eventA));
}

// One event in words: "MPI_Recv 3:120 in step 12 (B: 3:e845)".
std::string eventWords(const EventDifference& e) {
  std::string s = e.function + " " + callId(e);
  if (e.step != kNone32) s += " in step " + std::to_string(e.step);
  if (e.rankB != e.rankA || e.eventB != e.eventA)
    s += " (B: " + std::to_string(e.rankB) + ":e" + std::to_string(e.eventB) + ")";
  return s;
}

Json eventJson(const EventDifference& e, bool predicted) {
  Json j = {{"rank_a", e.rankA},
            {"event_a", e.eventA},
            {"rank_b", e.rankB},
            {"event_b", e.eventB},
            {"function", e.function},
            {"call", callId(e)},
            {"step", e.step == kNone32 ? Json(nullptr) : Json(e.step)},
            {"enter_a_ns", e.enterA},
            {"duration_a_ns", e.durationA},
            {"enter_b_ns", e.enterB},
            {"duration_b_ns", e.durationB},
            {"duration_diff_ns", e.durationB - e.durationA}};
  if (predicted) {
    j["enter_predicted_ns"] = e.enterPredicted;
    j["duration_predicted_ns"] = e.durationPredicted;
    j["prediction_error_ns"] = e.durationPredicted - e.durationB;
  }
  return j;
}

constexpr std::size_t kJsonRanks = 4096, kJsonSteps = 1000, kJsonFunctions = 1000;

Json comparisonJson(const CompareCliOptions& o, const Trace& a, const Trace& b, const TraceAlignment& al,
                    const Comparison& c, const Scenario* scenario) {
  const bool p = c.predicted.has_value();
  Json j = {{"trace_a", o.pathA},
            {"trace_b", o.pathB},
            {"format_a", a.format},
            {"format_b", b.format},
            {"ranks_a", a.rankCount()},
            {"ranks_b", b.rankCount()},
            {"events_a", al.eventsA},
            {"events_b", al.eventsB},
            {"paired_events", al.paired},
            {"only_in_a", al.onlyA},
            {"only_in_b", al.onlyB},
            {"paired_share", al.pairedShare()},
            {"unpaired_ranks_a", al.unpairedA},
            {"unpaired_ranks_b", al.unpairedB},
            {"measured_a_ns", c.measuredA},
            {"measured_b_ns", c.measuredB},
            {"change_ns", c.measuredB - c.measuredA},
            {"change_percent", percentOf(c.measuredB - c.measuredA, c.measuredA)}};
  if (p && scenario) {
    Json hs = Json::array();
    for (const auto& h : scenario->hypotheses) hs.push_back(h.toString());
    j["model"] = scenario->model->name();
    j["costs"] = costModeName(scenario->costs);
    j["hypotheses"] = std::move(hs);
    j["predicted_ns"] = *c.predicted;
    j["prediction_error_ns"] = *c.predicted - c.measuredB;
    j["prediction_error_percent"] = percentOf(*c.predicted - c.measuredB, c.measuredB);
  }
  // Bounded: at most kJsonRanks ranks (the largest differences), kJsonSteps steps, kJsonFunctions functions.
  auto bounded = [](auto items, std::size_t limit, auto key, std::size_t& omitted) {
    omitted = items.size() > limit ? items.size() - limit : 0;
    if (omitted) {
      std::stable_sort(items.begin(), items.end(), [&](const auto& x, const auto& y) { return key(x) > key(y); });
      items.resize(limit);
    }
    return items;
  };
  auto gap = [p](TimeNs a, TimeNs b, TimeNs pr) {
    return p ? std::max(std::abs(pr - b), std::abs(b - a)) : std::abs(b - a);
  };
  std::size_t omitted = 0;
  Json ranks = Json::array();
  for (const RankDifference& r : bounded(
           c.ranks, kJsonRanks, [&](const RankDifference& r) { return gap(r.endA, r.endB, r.endPredicted); },
           omitted)) {
    Json x = {{"rank_a", r.rankA},          {"rank_b", r.rankB},    {"end_a_ns", r.endA},  {"end_b_ns", r.endB},
              {"diff_ns", r.endB - r.endA}, {"only_in_a", r.onlyA}, {"only_in_b", r.onlyB}};
    if (p) {
      x["predicted_end_ns"] = r.endPredicted;
      x["prediction_error_ns"] = r.endPredicted - r.endB;
    }
    ranks.push_back(std::move(x));
  }
  j["per_rank"] = std::move(ranks);
  j["per_rank_omitted"] = omitted;
  Json steps = Json::array();
  for (const StepDifference& s : bounded(
           c.steps, kJsonSteps, [&](const StepDifference& s) { return gap(s.a, s.b, s.predicted); }, omitted)) {
    Json x = {{"step_a", s.stepA}, {"step_b", s.stepB}, {"a_ns", s.a}, {"b_ns", s.b}, {"diff_ns", s.b - s.a}};
    if (p) {
      x["predicted_ns"] = s.predicted;
      x["prediction_error_ns"] = s.predicted - s.b;
    }
    steps.push_back(std::move(x));
  }
  j["steps_a"] = c.stepsA;
  j["steps_b"] = c.stepsB;
  j["per_step"] = std::move(steps);
  j["per_step_omitted"] = omitted;
  auto functionJson = [p](const FunctionDifference& f) {
    Json x = {{"function", f.name},   {"a_ns", f.a},         {"b_ns", f.b},
              {"diff_ns", f.b - f.a}, {"count_a", f.countA}, {"count_b", f.countB}};
    if (f.rankA != kNone32) {
      x["rank_a"] = f.rankA;
      x["rank_b"] = f.rankB;
    }
    if (p) {
      x["predicted_ns"] = f.predicted;
      x["prediction_error_ns"] = f.predicted - f.b;
    }
    return x;
  };
  Json functions = Json::array();
  for (const auto& f : bounded(
           c.functions, kJsonFunctions, [](const FunctionDifference& f) { return std::abs(f.b - f.a); }, omitted))
    functions.push_back(functionJson(f));
  j["per_function"] = std::move(functions);
  j["per_function_omitted"] = omitted;
  Json byRank = Json::array();
  for (const auto& f : c.functionRanks) byRank.push_back(functionJson(f));
  j["per_function_rank"] = std::move(byRank);
  Json changed = Json::array(), missed = Json::array(), edits = Json::array();
  for (const auto& e : c.changed) changed.push_back(eventJson(e, p));
  for (const auto& e : c.missed) missed.push_back(eventJson(e, p));
  for (const auto& e : c.edits)
    edits.push_back({{"in", e.inB ? "b" : "a"},
                     {"rank", e.rank},
                     {"event", e.event},
                     {"function", e.function},
                     {"enter_ns", e.enter},
                     {"duration_ns", e.duration}});
  j["changed_events"] = std::move(changed);
  if (p) j["prediction_misses"] = std::move(missed);
  j["one_run_only"] = std::move(edits);
  Json warnings = warningsJson(a);
  for (auto& w : warningsJson(b)) warnings.push_back(std::move(w));
  j["warnings"] = std::move(warnings);
  return j;
}

void printComparison(const CompareCliOptions& o, const Trace& a, const Trace& b, const TraceAlignment& al,
                     const Comparison& c, const Scenario* scenario) {
  std::cout << "A:            " << o.pathA << " (" << a.format << ", " << a.rankCount() << " ranks, " << al.eventsA
            << " events)\n";
  std::cout << "B:            " << o.pathB << " (" << b.format << ", " << b.rankCount() << " ranks, " << al.eventsB
            << " events)\n";
  std::cout << "alignment:    " << al.ranks.size() << " rank pairs, " << al.paired << " events paired, " << al.onlyA
            << " only in A, " << al.onlyB << " only in B\n";
  if (!al.unpairedA.empty() || !al.unpairedB.empty())
    std::cout << "note: " << al.unpairedA.size() << " rank(s) of A and " << al.unpairedB.size()
              << " of B have no partner (give --rank-map to pair them)\n";
  std::cout << "measured T:   A " << humanDuration(c.measuredA) << ", B " << humanDuration(c.measuredB) << " ("
            << signedDuration(c.measuredB - c.measuredA) << ", " << percent(c.measuredB - c.measuredA, c.measuredA)
            << ")\n";
  const bool p = c.predicted.has_value();
  if (p && scenario) {
    std::cout << "hypotheses:   ";
    for (std::size_t i = 0; i < scenario->hypotheses.size(); ++i)
      std::cout << (i ? "; " : "") << scenario->hypotheses[i].toString();
    std::cout << " (model " << scenario->model->name() << ", costs " << costModeName(scenario->costs) << ")\n";
    std::cout << "predicted T:  " << humanDuration(*c.predicted) << "; B re-measured " << humanDuration(c.measuredB)
              << ": prediction error " << signedDuration(*c.predicted - c.measuredB) << " ("
              << percent(*c.predicted - c.measuredB, c.measuredB) << ")\n";
  }
  const std::size_t top = o.top;
  auto rankList = c.ranks;
  std::stable_sort(rankList.begin(), rankList.end(), [&](const RankDifference& x, const RankDifference& y) {
    return p ? std::abs(x.endPredicted - x.endB) > std::abs(y.endPredicted - y.endB)
             : std::abs(x.endB - x.endA) > std::abs(y.endB - y.endA);
  });
  std::cout << "ranks (" << (p ? "largest prediction errors" : "largest differences") << "):\n";
  for (std::size_t i = 0; i < std::min(top, rankList.size()); ++i) {
    const RankDifference& r = rankList[i];
    std::cout << "  rank " << r.rankA << (r.rankB != r.rankA ? "/" + std::to_string(r.rankB) : "") << "  end A "
              << humanDuration(r.endA) << ", B " << humanDuration(r.endB) << " (" << signedDuration(r.endB - r.endA)
              << ")";
    if (p)
      std::cout << ", predicted " << humanDuration(r.endPredicted) << " (error "
                << signedDuration(r.endPredicted - r.endB) << ")";
    std::cout << '\n';
  }
  if (!c.steps.empty() || c.stepsA + c.stepsB > 0) {
    auto stepList = c.steps;
    std::stable_sort(stepList.begin(), stepList.end(), [&](const StepDifference& x, const StepDifference& y) {
      return p ? std::abs(x.predicted - x.b) > std::abs(y.predicted - y.b) : std::abs(x.b - x.a) > std::abs(y.b - y.a);
    });
    std::cout << "parallel steps: " << c.stepsA << " in A, " << c.stepsB << " in B, " << c.steps.size()
              << " paired; largest " << (p ? "prediction errors" : "differences") << ":\n";
    for (std::size_t i = 0; i < std::min(top, stepList.size()); ++i) {
      const StepDifference& s = stepList[i];
      std::cout << "  step " << s.stepA << (s.stepB != s.stepA ? "/" + std::to_string(s.stepB) : "") << "  A "
                << humanDuration(s.a) << ", B " << humanDuration(s.b) << " (" << signedDuration(s.b - s.a) << ")";
      if (p)
        std::cout << ", predicted " << humanDuration(s.predicted) << " (error " << signedDuration(s.predicted - s.b)
                  << ")";
      std::cout << '\n';
    }
  }
  std::cout << "functions (time summed over calls, largest differences):\n";
  for (std::size_t i = 0; i < std::min(top, c.functions.size()); ++i) {
    const FunctionDifference& f = c.functions[i];
    std::cout << "  " << f.name << "  A " << humanDuration(f.a) << " (" << f.countA << "), B " << humanDuration(f.b)
              << " (" << f.countB << "): " << signedDuration(f.b - f.a);
    if (p)
      std::cout << "; predicted " << humanDuration(f.predicted) << " (error " << signedDuration(f.predicted - f.b)
                << ")";
    std::cout << '\n';
  }
  std::cout << "events whose duration changed most:\n";
  if (c.changed.empty()) std::cout << "  none: every paired event took as long in both runs\n";
  for (std::size_t i = 0; i < std::min(top, c.changed.size()); ++i) {
    const EventDifference& e = c.changed[i];
    std::cout << "  " << eventWords(e) << ": " << humanDuration(e.durationA) << " in A, " << humanDuration(e.durationB)
              << " in B (" << signedDuration(e.durationB - e.durationA) << ")\n";
  }
  if (p) {
    std::cout << "where the prediction missed most:\n";
    if (c.missed.empty()) std::cout << "  nowhere: every paired event took as long as predicted\n";
    for (std::size_t i = 0; i < std::min(top, c.missed.size()); ++i) {
      const EventDifference& e = c.missed[i];
      std::cout << "  " << eventWords(e) << ": predicted " << humanDuration(e.durationPredicted) << ", re-measured "
                << humanDuration(e.durationB) << " (the prediction "
                << (e.durationPredicted < e.durationB ? "short by " : "long by ")
                << humanDuration(std::abs(e.durationB - e.durationPredicted)) << ")\n";
    }
  }
  if (!c.edits.empty()) {
    std::cout << "events of one run only (" << al.onlyA << " in A, " << al.onlyB << " in B; the first "
              << c.edits.size() << "):\n";
    for (const EventEdit& e : c.edits)
      std::cout << "  only in " << (e.inB ? "B: " : "A: ") << e.function << " on rank " << e.rank << " (event "
                << e.event << ") at " << humanDuration(e.enter) << ", " << humanDuration(e.duration) << '\n';
  }
}

int runCompare(const CompareCliOptions& o) {
  Scenario scenario = scenarioFromOptions(o.replay);
  addHypotheses(scenario, o.hypotheses);
  scenario.normalize();
  const bool predict = !scenario.hypotheses.empty();
  const std::vector<std::pair<std::uint32_t, std::uint32_t>> map =
      o.rankMap.empty() ? std::vector<std::pair<std::uint32_t, std::uint32_t>>{} : parseRankMap(o.rankMap);
  const Trace a = loadForReplay(o.pathA, o.replay);
  const Trace b = loadForReplay(o.pathB, o.replay);
  TraceAlignment al;
  try {
    const ProgressPhase phase("aligning the runs");
    al = alignTraces(a, b, map);
  } catch (const std::invalid_argument& e) {
    throw UsageError(std::string("--rank-map: ") + e.what());
  }
  if (const std::string why = alignmentProblem(al, o.minPaired); !why.empty())
    throw TraceError(o.pathB, "cannot be compared with " + o.pathA + ": " + why);
  std::unique_ptr<Replayer> replayer;
  std::shared_ptr<const PredictedTimes> predicted;
  if (predict) {
    replayer = replayerFor(a, scenario, o.pathA);
    predicted = predictedTimes(*replayer);
  }
  CompareOptions co;
  co.top = o.top;
  std::optional<ProgressPhase> phase(std::in_place, "comparing");
  const Comparison c = compareTraces(a, b, al, predicted.get(), co);
  phase.reset();
  const Scenario* used = replayer ? &replayer->scenario() : nullptr;
  if (o.json)
    std::cout << jsonText(comparisonJson(o, a, b, al, c, used)) << '\n';
  else
    printComparison(o, a, b, al, c, used);
  return kExitOk;
}

}  // namespace

Command addCompareCommand(CLI::App& parent) {
  auto o = std::make_shared<CompareCliOptions>();
  CLI::App* app =
      parent.add_subcommand("compare",
                            "Two runs side by side: align B with A and show where they differ; with hypotheses, the "
                            "prediction of A under them against B, the run after the fix (docs/compare.md)");
  app->add_option("A", o->pathA, "the first run's trace (the one predicted under the hypotheses)")->required();
  app->add_option("B", o->pathB, "the second run's trace (e.g. re-measured after the fix)")->required();
  addHypothesisOptions(app, o->hypotheses);
  addReplayOptions(app, o->replay);
  app->add_option(
      "--rank-map", o->rankMap,
      "RA:RB,...: pair rank RA of A with rank RB of B (default: by number; ranks not listed stay unpaired)");
  app->add_option("--top", o->top, "list at most N ranks, steps, functions and events per list (default 10)")
      ->check(CLI::Range(1, 100000));
  app->add_option("--min-paired", o->minPaired,
                  "SHARE: refuse (exit 1) when fewer of the events pair up (default 0.5: different programs)")
      ->check(CLI::Range(0.0, 1.0));
  app->add_flag("--json", o->json, "machine-readable output of bounded size (keys: docs/compare.md)");
  return {app, [o] { return runCompare(*o); }};
}

}  // namespace perwiz::cli
