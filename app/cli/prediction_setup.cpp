#include "prediction_setup.h"

#include "progress.h"

#include <iostream>

#include "cli_common.h"

#include "perwiz/checked_time.h"
#include "perwiz/trace_io.h"

#include <algorithm>
#include <iomanip>
#include <ostream>
#include <sstream>

namespace perwiz::cli {

void addReplayOptions(CLI::App* app, ReplayOptions& o) {
  std::string presets;
  for (const auto& n : networkPresetNames()) presets += (presets.empty() ? "" : ", ") + n;
  app->add_option("--model", o.model, "network model: a preset (" + presets + ") or a JSON file");
  app->add_option("--costs", o.costs,
                  "local costs of communication: measured (default) or model (retarget to --model)")
      ->check(CLI::IsMember({"measured", "model"}));
  app->add_option("--scenario", o.scenario, "scenario JSON file (model, costs, hypotheses)");
  app->add_option("--region", o.region,
                  "state whose instances are the parallel steps (default: states named PRGN*)");
}

Trace loadForReplay(const std::string& path, const ReplayOptions& o, bool report) {
  Trace t = report ? loadReported(path) : loadTrace(path);
  // Threads (Trace::threads) are kept as measured; a trace of threads only has nothing to replay.
  if (t.rankCount() == 0 && !t.threads.empty())
    throw TraceError(path, "holds " + std::to_string(t.threads.size()) +
                               " threads and no MPI rank (a program without MPI): PerWiz predicts MPI ranks, so "
                               "there is nothing to predict; 'perwiz-cli info' and the GUI show the threads as measured");
  if (!t.threads.empty() && report)
    std::cerr << path << ": " << t.threads.size() << " thread(s) kept as measured: the replay predicts the "
              << t.rankCount() << " MPI rank(s)\n";
  if (!o.region.empty() && !declareParallelRegion(t, o.region))
    throw UsageError("--region " + o.region + ": no state of that name in " + path);
  return t;
}

namespace {
// Core messages already start with "FILE: "; TraceError adds that prefix itself.
TraceError inputError(const std::string& file, const std::string& message) {
  const std::string prefix = file + ": ";
  return TraceError(file, message.rfind(prefix, 0) == 0 ? message.substr(prefix.size()) : message);
}
}  // namespace

Scenario scenarioFromOptions(const ReplayOptions& o) {
  Scenario s;
  std::string error;
  if (!o.scenario.empty() && !loadScenario(o.scenario, s, &error)) throw inputError(o.scenario, error);
  if (!o.model.empty()) {
    auto m = loadNetworkModel(o.model, &error);
    if (!m) throw inputError(o.model, error);
    s.model = std::move(m);
  }
  if (!s.model) s.model = defaultNetworkModel();
  if (!o.costs.empty()) parseCostMode(o.costs, s.costs);
  return s;
}

std::unique_ptr<Replayer> replayerFor(const Trace& trace, Scenario scenario, const std::string& path) {
  // Built without hypotheses first so that one that does not fit is reported, not dropped.
  // Refused before it starts, with the estimate, rather than killed by the kernel part-way.
  requireMemory(path, estimateReplayMemory(trace, scenario.costs), "replay it (" + std::to_string(trace.mpiCallCount()) + " MPI calls)");
  auto hypotheses = std::move(scenario.hypotheses);
  scenario.hypotheses.clear();
  std::unique_ptr<Replayer> rp;
  {
    const ProgressPhase phase("replaying", 0);
    ReplayControl control;  // its progress on a terminal
    TerminalProgress::get().follow(&control.permille);
    rp = std::make_unique<Replayer>(trace, std::move(scenario), &control);
  }
  std::string problem;
  // (Without hypotheses the constructor's replay is the prediction: no second full replay.)
  const ProgressPhase phase("replaying with the hypotheses");
  if (!hypotheses.empty() && !rp->setHypotheses(std::move(hypotheses), &problem))
    throw UsageError(problem + " (in " + path + ")");
  // A prediction that left the int64 ns range is not a result (docs/model.md, "Limits").
  if (const std::string overflow = rp->overflow(); !overflow.empty()) throw TraceError(path, overflow);
  return rp;
}

void addCompensation(Scenario& s, bool nsGiven, std::int64_t ns, bool fromTrace, const std::string& path) {
  if (nsGiven && fromTrace)
    throw UsageError("--compensate-ns and --compensate-from-trace: give one (a scenario compensates once)");
  if (nsGiven && ns < 0)
    throw UsageError("--compensate-ns " + std::to_string(ns) + ": the overhead per event must be 0 ns or more (predicting " +
                     path + ")");
  if (nsGiven) s.hypotheses.push_back(Hypothesis::compensate(ns));
  if (fromTrace) s.hypotheses.push_back(Hypothesis::compensateFromTrace());
}

EventRef eventArg(const std::string& flag, const std::string& text, bool computationAllowed) {
  EventRef e;
  if (!parseEventRef(text, e))
    throw UsageError(flag + " " + text + ": expected RANK:INDEX" +
                     (computationAllowed ? " (or RANK:cINDEX for the computation before call INDEX)" : ""));
  if (e.computation && !computationAllowed)
    throw UsageError(flag + " " + text + ": computation has no waiting time; use --zero-event");
  return e;
}

double percentOf(TimeNs delta, TimeNs base) {
  return base > 0 ? 100.0 * static_cast<double>(delta) / static_cast<double>(base) : 0.0;
}

Json perRankJson(std::uint32_t count, const std::function<TimeNs(std::uint32_t)>& measuredEnd,
                 const std::function<TimeNs(std::uint32_t)>& predictedEnd, bool all, std::size_t& omitted) {
  // About 110 bytes per rank: the summary stays under 1 MB for any trace.
  constexpr std::size_t kPerRankLimit = 4096;
  std::vector<std::uint32_t> ranks(count);
  for (std::uint32_t r = 0; r < count; ++r) ranks[r] = r;
  omitted = 0;
  if (!all && ranks.size() > kPerRankLimit) {
    std::vector<TimeNs> end(count);
    for (std::uint32_t r = 0; r < count; ++r) end[r] = predictedEnd(r);
    std::partial_sort(ranks.begin(), ranks.begin() + kPerRankLimit, ranks.end(),
                      [&](std::uint32_t a, std::uint32_t b) { return end[a] != end[b] ? end[a] > end[b] : a < b; });
    omitted = ranks.size() - kPerRankLimit;
    ranks.resize(kPerRankLimit);
    std::sort(ranks.begin(), ranks.end());
  }
  Json perRank = Json::array();
  for (std::uint32_t r : ranks)
    perRank.push_back({{"rank", r}, {"measured_end_ns", measuredEnd(r)}, {"predicted_end_ns", predictedEnd(r)}});
  return perRank;
}

Json predictionJson(const std::string& path, const std::string& format, std::uint64_t ranks, std::uint64_t mpiCalls,
                    const Scenario& scenario, TimeNs measured, TimeNs predicted, Json perRank, std::size_t omitted) {
  Json j{{"trace", path},
         {"format", format},
         {"ranks", ranks},
         {"mpi_calls", mpiCalls},
         {"model", Json::parse(scenario.model->toJson())},
         {"costs", costModeName(scenario.costs)},
         {"hypotheses", Json::parse(scenario.toJson())["hypotheses"]},
         {"measured_ns", measured},
         {"predicted_ns", predicted},
         {"change_ns", predicted - measured},
         {"change_percent", percentOf(predicted - measured, measured)},
         {"speedup", predicted > 0 ? static_cast<double>(measured) / static_cast<double>(predicted) : 0.0},
         {"per_rank", std::move(perRank)}};
  if (omitted) j["per_rank_omitted"] = omitted;
  return j;
}

void printTimes(std::ostream& out, TimeNs measured, TimeNs predicted) {
  out << "measured T:   " << humanDuration(measured) << '\n';
  std::ostringstream change;
  change << std::fixed << std::setprecision(1) << percentOf(predicted - measured, measured) << " %";
  out << "predicted T:  " << humanDuration(predicted) << "  ("
      << (predicted == measured ? "unchanged"
                                : (predicted < measured ? "-" : "+") +
                                      humanDuration(predicted < measured ? measured - predicted : predicted - measured))
      << ", " << change.str();
  if (predicted > 0)
    out << ", speedup " << std::setprecision(3) << static_cast<double>(measured) / static_cast<double>(predicted) << "x";
  out << ")\n";
}

std::string callName(const Trace& t, std::uint32_t rank, std::uint32_t mpiIndex) {
  if (rank >= t.ranks.size()) return "";
  const auto& calls = t.ranks[rank].mpiCalls;
  if (mpiIndex >= calls.size()) return "";
  return t.fn(rank, calls[mpiIndex]).name;
}

namespace {
const char* kindName(CriticalSegment::Kind k) {
  switch (k) {
    case CriticalSegment::Kind::Computation: return "computation";
    case CriticalSegment::Kind::Call: return "call";
    case CriticalSegment::Kind::Message: return "wait";
    case CriticalSegment::Kind::Skew: return "skew";
  }
  return "";
}
}  // namespace

PathNames pathNames(const Trace& t, const CriticalPath& cp) {
  PathNames n;
  n.function = [&t](std::uint32_t f) { return t.functions[f].name; };
  n.call = [&t, &cp](std::size_t i, bool partner) {
    const CriticalSegment& s = cp.segments[i];
    return partner ? callName(t, s.fromRank, s.fromIndex) : callName(t, s.rank, s.index);
  };
  return n;
}

Json criticalPathJson(const Trace& t, const CriticalPath& cp) { return criticalPathJson(pathNames(t, cp), cp); }
Json criticalPathSummaryJson(const Trace& t, const CriticalPath& cp, std::size_t top) {
  return criticalPathSummaryJson(pathNames(t, cp), cp, top);
}
void printCriticalPath(std::ostream& out, const Trace& t, const CriticalPath& cp, std::size_t limit) {
  printCriticalPath(out, pathNames(t, cp), cp, limit);
}

Json criticalPathJson(const PathNames& names, const CriticalPath& cp) {
  Json segs = Json::array();
  for (std::size_t i = 0; i < cp.segments.size(); ++i) {
    const CriticalSegment& s = cp.segments[i];
    Json j{{"kind", kindName(s.kind)}, {"id", s.id()}, {"rank", s.rank}};
    if (s.kind != CriticalSegment::Kind::Computation) j["function"] = names.call(i, false);
    if (s.kind == CriticalSegment::Kind::Message || s.kind == CriticalSegment::Kind::Skew)
      j["waits_for"] = s.fromRank == kNone32 ? Json("collective")
                                              : Json(std::to_string(s.fromRank) + ":" + std::to_string(s.fromIndex));
    j["begin_ns"] = s.begin;
    j["end_ns"] = s.end;
    segs.push_back(std::move(j));
  }
  return Json{{"length_ns", cp.length}, {"critical_path", cp.callIds}, {"segments", std::move(segs)}};
}

namespace {
double share(TimeNs part, TimeNs whole) {
  return whole > 0 ? 100.0 * static_cast<double>(part) / static_cast<double>(whole) : 0.0;
}

// Indices of the `n` largest values (ties: lower index first), largest first; zeros left out.
std::vector<std::uint32_t> topIndices(const std::vector<TimeNs>& v, std::size_t n) {
  std::vector<std::uint32_t> idx;
  for (std::uint32_t i = 0; i < v.size(); ++i)
    if (v[i] > 0) idx.push_back(i);
  auto larger = [&](std::uint32_t a, std::uint32_t b) { return v[a] != v[b] ? v[a] > v[b] : a < b; };
  const std::size_t k = std::min(n, idx.size());
  std::partial_sort(idx.begin(), idx.begin() + static_cast<std::ptrdiff_t>(k), idx.end(), larger);
  idx.resize(k);
  return idx;
}
}  // namespace

Json criticalPathSummaryJson(const PathNames& names, const CriticalPath& cp, std::size_t top) {
  const CriticalPathTotals& tot = cp.totals;
  Json functions = Json::array();
  for (std::uint32_t f : topIndices(tot.perFunction, top))
    functions.push_back({{"function", names.function(f)}, {"ns", tot.perFunction[f]},
                         {"percent", share(tot.perFunction[f], cp.length)}});
  Json ranks = Json::array();
  for (std::uint32_t r : topIndices(tot.perRank, top))
    ranks.push_back({{"rank", r}, {"ns", tot.perRank[r]}, {"percent", share(tot.perRank[r], cp.length)}});
  return Json{{"length_ns", cp.length},
              {"segments", tot.segments},
              {"mpi_calls", tot.calls},
              {"computation_ns", tot.computationNs},
              {"call_ns", tot.callNs},
              {"wait_ns", tot.waitNs},
              {"skew_ns", tot.skewNs},
              {"top_functions", std::move(functions)},
              {"top_ranks", std::move(ranks)}};
}

void printCriticalPath(std::ostream& out, const PathNames& names, const CriticalPath& cp, std::size_t limit) {
  // A dependency whose partner's record lies after the call's return (the ranks' clocks
  // disagree; the replay shortened the dependency's offset to fit, below zero) steps back in
  // time: a Skew segment, apart from the waits, never a negative wait. The totals cover the
  // whole path, whatever the limit.
  const TimeNs skew = cp.totals.skewNs;
  out << "critical path: " << humanDuration(cp.length) << ", " << cp.totals.calls << " MPI calls, "
      << cp.totals.segments << " segments (computation " << humanDuration(cp.totals.computationNs) << ", calls "
      << humanDuration(cp.totals.callNs) << ", waits " << humanDuration(cp.totals.waitNs);
  if (skew < 0) out << ", clock skew -" << humanDuration(-skew);
  out << ")\n";
  std::size_t shown = 0;
  for (std::size_t i = 0; i < cp.segments.size(); ++i) {
    const CriticalSegment& s = cp.segments[i];
    if (shown++ == limit) break;
    const TimeNs len = satSub(s.end, s.begin);
    out << "  " << std::setw(12) << humanDuration(s.begin) << "  " << (len < 0 ? '-' : '+') << std::left
        << std::setw(12) << humanDuration(len < 0 ? -len : len) << std::right << ' ';
    // "RANK:INDEX Function for PARTNER"
    auto waitFor = [&] {
      return s.id() + ' ' + names.call(i, false) + " for " +
             (s.fromRank == kNone32 ? std::string("the collective's last member")
                                    : std::to_string(s.fromRank) + ":" + std::to_string(s.fromIndex) + ' ' +
                                          names.call(i, true));
    };
    switch (s.kind) {
      case CriticalSegment::Kind::Computation:
        out << "computation " << s.id() << '\n';
        break;
      case CriticalSegment::Kind::Call:
        out << "call        " << s.id() << ' ' << names.call(i, false) << '\n';
        break;
      case CriticalSegment::Kind::Message:
        out << "wait        " << waitFor() << '\n';
        break;
      case CriticalSegment::Kind::Skew:
        out << "clock skew  " << waitFor() << " (the partner's record is later than this call's return)\n";
        break;
    }
  }
  if (cp.totals.segments > std::min<std::uint64_t>(shown, limit))
    out << "  ... " << (cp.totals.segments - std::min<std::uint64_t>(shown, limit))
        << " more segments (critical-path --json lists all)\n";
  const auto functions = topIndices(cp.totals.perFunction, 5);
  if (!functions.empty()) {
    out << "  most time in:";
    for (std::size_t i = 0; i < functions.size(); ++i)
      out << (i ? "," : "") << ' ' << names.function(functions[i]) << ' ' << std::fixed << std::setprecision(1)
          << share(cp.totals.perFunction[functions[i]], cp.length) << " %";
    out << std::defaultfloat << '\n';
  }
  const auto ranks = topIndices(cp.totals.perRank, 5);
  if (!ranks.empty()) {
    out << "  on ranks:";
    for (std::size_t i = 0; i < ranks.size(); ++i)
      out << (i ? "," : "") << ' ' << ranks[i] << ' ' << std::fixed << std::setprecision(1)
          << share(cp.totals.perRank[ranks[i]], cp.length) << " %";
    out << std::defaultfloat << '\n';
  }
}

void addHypothesisOptions(CLI::App* app, HypothesisFlags& h) {
  app->add_option("--zero-wait", h.zeroWait, "RANK:INDEX: this MPI call's waiting time becomes zero")
      ->take_all()
      ->allow_extra_args(false);
  app->add_option("--zero-event", h.zeroEvent,
                  "RANK:INDEX (MPI call) or RANK:cINDEX (computation before call INDEX) takes no time")
      ->allow_extra_args(false);
  app->add_option("--balance-compute", h.balanceCompute,
                  "STEP (0-based): every rank's computation in the parallel step becomes the mean")
      ->allow_extra_args(false);
  app->add_option("--balance-volume", h.balanceVolume,
                  "STEP (0-based): every message in the parallel step gets the mean size")
      ->allow_extra_args(false);
}

void addHypotheses(Scenario& s, const HypothesisFlags& h) {
  for (const auto& z : h.zeroWait)
    s.hypotheses.push_back({HypothesisKind::ZeroWait, eventArg("--zero-wait", z, false), 0});
  for (const auto& z : h.zeroEvent)
    s.hypotheses.push_back({HypothesisKind::ZeroEvent, eventArg("--zero-event", z, true), 0});
  for (std::uint32_t k : h.balanceCompute) s.hypotheses.push_back({HypothesisKind::BalanceCompute, {}, k});
  for (std::uint32_t k : h.balanceVolume) s.hypotheses.push_back({HypothesisKind::BalanceVolume, {}, k});
}

}  // namespace perwiz::cli
