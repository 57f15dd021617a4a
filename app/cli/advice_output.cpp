#include "advice_output.h"

#include "progress.h"

#include "perwiz/memory_budget.h"

#include <algorithm>
#include <iomanip>
#include <iostream>
#include <sstream>
#include <thread>

namespace perwiz::cli {
namespace {

std::string delta(TimeNs predicted, TimeNs base) {
  std::ostringstream s;
  s << std::fixed << std::setprecision(1)
    << (base > 0 ? 100.0 * static_cast<double>(predicted - base) / static_cast<double>(base) : 0.0) << " %";
  return s.str();
}

Json ids(const std::vector<EventRef>& events) {
  Json a = Json::array();
  for (const EventRef& e : events) a.push_back(e.toString());
  return a;
}

}  // namespace

Advice computeAdvice(Replayer& base, const AdviseOptions& o, ProcessGroup* group, bool showProgress) {
  AdvisorOptions ao;
  ao.topCandidates = o.top;
  ao.lentBase = &base;  // nothing else reads it meanwhile: one fork fewer
  // Each prediction thread holds a fork of the replay: use fewer threads when all of them do
  // not fit, and refuse with the estimate when one does not (never killed part-way).
  unsigned threads = o.threads ? o.threads : std::max(1u, std::thread::hardware_concurrency());
  const std::uint64_t available = availableMemory();
  while (threads > 1 && estimateAdvisorMemory(base, threads) > available) --threads;
  requireMemory(o.path, estimateAdvisorMemory(base, threads),
                "advise on it (" + std::to_string(threads) + " prediction thread" + (threads > 1 ? "s" : "") + ")",
                available);
  // (0 keeps the pool's own choice: all cores, one for batches too small to gain.)
  ao.threads = o.threads == 0 && threads == std::max(1u, std::thread::hardware_concurrency()) ? 0 : threads;
  ao.maxStepPredictions = o.maxStepPredictions;
  ao.group = group;
  TerminalProgress& progress = TerminalProgress::get();
  if (showProgress && progress.on())
    ao.progress = [&progress](double f, const std::string& stage) { progress.phase(stage, f); };
  Advice a = advise(base, ao);
  progress.done();
  return a;
}

std::vector<EventRef> namedCalls(const Advice& a) {
  std::vector<EventRef> out;
  for (const WaitCandidate& c : a.candidates) out.push_back(c.event);
  if (a.hasLongestWait) out.push_back(a.longestWait.event);
  return out;
}

AdviceFacts adviceFacts(const Advice& a, const Trace& trace) {
  AdviceFacts f;
  f.ranks = trace.rankCount();
  f.mpiCalls = trace.mpiCallCount();
  f.warnings = trace.warnings;
  for (const EventRef& e : namedCalls(a)) f.functions[e] = callName(trace, e.rank, e.index);
  return f;
}

namespace {
std::string functionOf(const AdviceFacts& f, const EventRef& e) {
  const auto it = f.functions.find(e);
  return it == f.functions.end() ? std::string() : it->second;
}
}  // namespace

Json adviceJson(const Advice& a, const AdviceFacts& facts, const std::string& path) {
  Json paths = Json::array();
  Json pathDetail = Json::array();
  for (const DominoPath& d : a.domino.paths) {
    paths.push_back(ids(d.events));
    pathDetail.push_back({{"events", ids(d.events)},
                          {"zeroed", d.zeroed.toString()},
                          {"predicted_ns", d.predictedNs},
                          {"from_rank", d.fromRank}});
  }
  Json cands = Json::array();
  for (const WaitCandidate& c : a.candidates)
    cands.push_back({{"event", c.event.toString()},
                     {"function", functionOf(facts, c.event)},
                     {"predicted_ns", c.predictedNs},
                     {"wait_ns", c.waitNs}});
  // Every evaluated step (all of them unless --max-step-predictions left some out; those are
  // counted, with the largest gain any of them could have).
  Json steps = Json::array();
  std::uint64_t skipped = 0;
  TimeNs skippedBound = 0;
  for (const StepRow& s : a.steps) {
    if (!s.evaluated) {
      ++skipped;
      skippedBound = std::max(skippedBound, s.gainBoundNs);
      continue;
    }
    steps.push_back({{"step", s.step},
                     {"sigma_ns", s.sigmaNs},
                     {"predicted_ns", s.predictedNs},
                     {"mean_ns", s.meanNs},
                     {"max_ns", s.maxNs},
                     {"ranks", s.ranks},
                     {"gain_bound_ns", s.gainBoundNs}});
  }
  Json regions = Json::array();
  for (const RegionBounds& rb : a.bounds) {
    Json rows = Json::array();
    for (const BoundRow& row : rb.rows) {
      Json assume = Json::array();
      if (row.q1) assume.push_back("Q1");
      if (row.q2) assume.push_back("Q2");
      if (row.q3) assume.push_back("Q3");
      rows.push_back({{"assume", assume}, {"predicted_ns", row.predictedNs}});
    }
    Json perRank = Json::array();
    for (std::size_t r = 0; r < rb.perRank.size(); ++r) {
      const RegionBreakdown& b = rb.perRank[r];
      perRank.push_back({{"rank", r},
                         {"outside_ns", b.outside},
                         {"calculation_ns", b.calculation},
                         {"sending_ns", b.sending},
                         {"receiving_ns", b.receiving},
                         {"waiting_ns", b.waiting}});
    }
    regions.push_back({{"region", rb.region}, {"bounds", rows}, {"per_rank", perRank}});
  }
  Json j{{"trace", path},
         {"measured_ns", a.measuredNs},
         {"base_ns", a.baseNs},
         {"domino",
          {{"predicted_ns", a.domino.predictedNs},
           {"paths", paths},
           {"detail", pathDetail},
           {"truncated", a.domino.truncated}}},
         {"candidates", cands},
         {"longest_wait", a.hasLongestWait ? Json{{"event", a.longestWait.event.toString()},
                                                  {"function", functionOf(facts, a.longestWait.event)},
                                                  {"predicted_ns", a.longestWait.predictedNs},
                                                  {"wait_ns", a.longestWait.waitNs}}
                                           : Json(nullptr)},
         {"steps", steps},
         {"steps_total", a.steps.size()},
         {"steps_not_evaluated", skipped},
         {"steps_not_evaluated_gain_bound_ns", skippedBound},
         {"all_steps_balanced_ns", a.allStepsBalancedNs},
         {"bounds", regions.empty() ? Json::array() : regions[0]["bounds"]},
         {"regions", regions},
         {"predictions", a.predictions}};
  j["warnings"] = warningsJson(facts.warnings);
  return j;
}

namespace {

// The step table: up to 40 rows in step order; more: the 40 that gain the most (--json lists
// every one).
void printSteps(const Advice& a) {
  std::vector<const StepRow*> rows;
  std::uint64_t skipped = 0;
  TimeNs skippedBound = 0;
  for (const StepRow& s : a.steps) {
    if (s.evaluated)
      rows.push_back(&s);
    else {
      ++skipped;
      skippedBound = std::max(skippedBound, s.gainBoundNs);
    }
  }
  const std::size_t shown = std::min<std::size_t>(rows.size(), 40);
  if (rows.size() > shown) {
    std::partial_sort(rows.begin(), rows.begin() + static_cast<std::ptrdiff_t>(shown), rows.end(),
                      [](const StepRow* x, const StepRow* y) {
                        return x->predictedNs != y->predictedNs ? x->predictedNs < y->predictedNs : x->step < y->step;
                      });
    rows.resize(shown);
  }
  std::cout << "\nParallel steps (balance the computation of one step; Table 3)"
            << (shown < a.steps.size() - skipped ? ", the " + std::to_string(shown) + " that gain the most"
                                                 : std::string())
            << ":\n  step      sigma           T\n";
  for (const StepRow* s : rows)
    std::cout << "  " << std::setw(4) << s->step << "  " << std::setw(12) << humanDuration(s->sigmaNs) << "  "
              << std::setw(12) << humanDuration(s->predictedNs) << " (" << delta(s->predictedNs, a.baseNs) << ")\n";
  if (a.steps.size() - skipped > shown)
    std::cout << "  ... " << (a.steps.size() - skipped - shown) << " more evaluated steps (--json lists them)\n";
  if (skipped)
    std::cout << "  " << skipped << " of " << a.steps.size() << " steps not replayed (--max-step-predictions); "
              << "balancing any one of them gains at most " << humanDuration(skippedBound) << "\n";
  std::cout << "  all steps balanced: T " << humanDuration(a.allStepsBalancedNs) << " ("
            << delta(a.allStepsBalancedNs, a.baseNs) << ")\n";
}

}  // namespace

void printAdvice(const Advice& a, const AdviceFacts& facts, const std::string& path) {
  std::cout << "trace: " << path << " (" << facts.ranks << " ranks, " << facts.mpiCalls << " MPI calls), measured T "
            << humanDuration(a.measuredNs) << '\n';
  if (a.baseNs != a.measuredNs) std::cout << "base scenario T " << humanDuration(a.baseNs) << '\n';
  std::cout << "\nDomino paths (zero the first wait of a path; Fig. 3):\n";
  if (a.domino.paths.empty()) std::cout << "  none: no single wait zeroing shortens the run\n";
  for (const DominoPath& d : a.domino.paths) {
    std::cout << "  T " << humanDuration(d.predictedNs) << " (" << delta(d.predictedNs, a.baseNs) << ") zero "
              << d.zeroed.toString() << ": ";
    for (std::size_t i = 0; i < d.events.size(); ++i) std::cout << (i ? " -> " : "") << d.events[i].toString();
    std::cout << '\n';
  }
  std::cout << "\nBest single wait zeroings:\n";
  for (const WaitCandidate& c : a.candidates)
    std::cout << "  " << std::left << std::setw(10) << c.event.toString() << std::setw(16) << functionOf(facts, c.event)
              << std::right << " wait " << std::setw(12) << humanDuration(c.waitNs) << "  T "
              << humanDuration(c.predictedNs) << " (" << delta(c.predictedNs, a.baseNs) << ")\n";
  if (a.hasLongestWait)
    std::cout << "\nLongest wait: " << a.longestWait.event.toString() << ' ' << functionOf(facts, a.longestWait.event)
              << " waits " << humanDuration(a.longestWait.waitNs) << "; zeroing it gives T "
              << humanDuration(a.longestWait.predictedNs) << " (" << delta(a.longestWait.predictedNs, a.baseNs)
              << ")\n";
  if (!a.steps.empty()) printSteps(a);
  for (const RegionBounds& rb : a.bounds) {
    std::cout << "\nLower bounds for region " << rb.region
              << " (Q1 zero waiting, Q2 balanced workload, Q3 balanced messages; Table 1):\n";
    for (const BoundRow& row : rb.rows)
      std::cout << "  " << std::left << std::setw(10) << (row.assumptions().empty() ? "-" : row.assumptions())
                << std::right << std::setw(14) << humanDuration(row.predictedNs) << '\n';
  }
  std::cout << "\n" << a.predictions << " predictions\n";
}

void addAdviseOptions(CLI::App* app, AdviseOptions& o) {
  app->add_option("TRACE", o.path, "input trace (ALOG, OTF or OTF2)")->required();
  addReplayOptions(app, o.replay);
  app->add_option("--top", o.top, "number of single wait zeroings to list (default 10)");
  app->add_option("--threads", o.threads, "prediction threads (default: all cores)");
  app->add_option("--max-step-predictions", o.maxStepPredictions,
                  "replay at most N steps for the step table, those whose balancing could gain the most "
                  "(default 1000; 0: every step)");
  app->add_flag("--quiet", o.quiet, "no progress on stderr (also without a terminal or with --json)");
  app->add_flag("--json", o.json, "machine-readable output");
}

}  // namespace perwiz::cli
