// `perwiz-cli overhead TRACE [--quantile Q] [--profile FILE] [--json]`: statistical detection of
// communication overhead (Kluge et al.; docs/overhead.md). Per (function, p, b) class a t_max
// from a Poisson / exponential fit of the class's durations (or from a profile), per call
// t_oh = max(t − t_max, 0), and the totals by call site, function and rank.
#include "cli_common.h"
#include "progress.h"

#include "perwiz/overhead_detection.h"
#include "perwiz/trace_io.h"

#include <nlohmann/json.hpp>

#include <iomanip>
#include <iostream>
#include <memory>
#include <optional>
#include <sstream>

namespace perwiz::cli {
namespace {

// Keys keep their insertion order; their names are an interface (docs/overhead.md).
using Json = nlohmann::ordered_json;

struct OverheadCliOptions {
  std::string path;
  std::string profile;
  FitOptions fit;
  std::size_t top = 20;
  bool json = false, histograms = false, events = false;
  bool quantileGiven = false;
};

Json nsOrNull(TimeNs t) { return t == kUnboundedNs ? Json(nullptr) : Json(t); }

Json totalsJson(const OverheadTotals& t) {
  return {{"calls", t.calls}, {"time_ns", t.timeNs}, {"overhead_ns", t.overheadNs}};
}

Json withTotals(Json head, const OverheadTotals& t) {
  head["calls"] = t.calls;
  head["time_ns"] = t.timeNs;
  head["overhead_ns"] = t.overheadNs;
  return head;
}

Json modelJson(const ModelFit& m) {
  Json j{{"fitted", m.fitted}};
  if (!m.fitted) return j;
  j["lambda"] = m.lambda;
  j["chi2"] = m.chiSquare;
  j["dof"] = m.dof;
  j["critical"] = m.critical;
  j["verdict"] = fitVerdictName(m.verdict);
  j["test_classes"] = m.classes.size();
  j["quantile_class"] = m.errMaxNs == kUnboundedNs ? Json(nullptr) : Json(m.quantileClass);
  j["t_err_max_ns"] = nsOrNull(m.errMaxNs);
  return j;
}

Json fitJson(const SampleFit& f, bool histogram) {
  const ErrorHistogram& h = f.histogram;
  Json j{{"samples", h.samples},
         {"window_ns", h.windowNs},
         {"resolution_ns", h.resolutionNs},
         {"mean_class", h.meanClass},
         {"chosen", errorModelName(f.chosen)},
         {"verdict", fitVerdictName(f.chosenFit().verdict)},
         {"poisson", modelJson(f.poisson)},
         {"exponential", modelJson(f.exponential)}};
  if (histogram) j["histogram"] = {{"counts", h.counts}, {"overflow", h.overflow}};
  return j;
}

Json overheadJson(const Trace& trace, const OverheadAnalysis& a, const OverheadCliOptions& o,
                  const std::optional<OverheadProfile>& profile) {
  Json classes = Json::array();
  for (const CallClassOverhead& c : a.classes) {
    Json j = withTotals({{"function", c.function}, {"p", c.processes}, {"b", c.bytes}}, c.totals);
    j["t_min_ns"] = c.minNs;
    j["t_max_ns"] = nsOrNull(c.tMaxNs);
    j["source"] = thresholdSourceName(c.source);
    j["outside_profile_grid"] = c.outsideProfileGrid;
    j["fit"] = c.fit ? fitJson(*c.fit, o.histograms) : Json(nullptr);
    classes.push_back(std::move(j));
  }
  Json sites = Json::array(), functions = Json::array(), ranks = Json::array();
  for (const SiteOverhead& s : a.sites)
    sites.push_back(withTotals({{"region", s.region}, {"function", s.function}}, s.totals));
  for (const FunctionOverhead& f : a.functions)
    functions.push_back(withTotals({{"function", f.function}}, f.totals));
  for (const RankOverhead& r : a.ranks) ranks.push_back(withTotals({{"rank", r.rank}}, r.totals));
  Json j{{"trace", o.path},
         {"quantile", a.quantile},
         {"significance", o.fit.significance},
         {"min_window_ns", o.fit.minWindowNs},
         {"window_ns", o.fit.fixedWindowNs > 0 ? Json(o.fit.fixedWindowNs) : Json("auto")},
         {"profile", profile ? Json{{"file", o.profile},
                                    {"quantile", profile->quantile},
                                    {"description", profile->description}}
                             : Json(nullptr)},
         {"site_kind", "enclosing-state"},
         {"total", totalsJson(a.total)},
         {"by_site", sites},
         {"by_function", functions},
         {"by_rank", ranks},
         {"classes", classes}};
  if (o.events) {
    Json events = Json::array();
    for (std::uint32_t r = 0; r < trace.rankCount(); ++r)
      for (std::size_t i = 0; i < a.classOfCall[r].size(); ++i) {
        if (a.classOfCall[r][i] == kNone32) continue;
        const std::uint32_t e = trace.ranks[r].mpiCalls[i];
        events.push_back({{"id", eventId(r, static_cast<std::uint32_t>(i))},
                          {"class", a.classOfCall[r][i]},
                          {"duration_ns", trace.ranks[r].leave[e] - trace.ranks[r].enter[e]},
                          {"overhead_ns", a.overheadOfCall[r][i]}});
      }
    j["events"] = std::move(events);
  }
  j["warnings"] = warningsJson(trace);
  return j;
}

std::string percent(TimeNs part, TimeNs whole) {
  std::ostringstream s;
  s << std::fixed << std::setprecision(1) << (whole > 0 ? 100.0 * static_cast<double>(part) / static_cast<double>(whole) : 0.0)
    << " %";
  return s.str();
}

std::string maxText(TimeNs t) { return t == kUnboundedNs ? "unbounded" : humanDuration(t); }

// A left-aligned text table with right-aligned numbers after the first `textColumns` columns.
void printTable(std::ostream& out, const std::vector<std::vector<std::string>>& rows, std::size_t textColumns) {
  std::vector<std::size_t> width;
  for (const auto& row : rows)
    for (std::size_t c = 0; c < row.size(); ++c) {
      if (width.size() <= c) width.push_back(0);
      width[c] = std::max(width[c], row[c].size());
    }
  for (const auto& row : rows) {
    out << "  ";
    for (std::size_t c = 0; c < row.size(); ++c) {
      if (c < textColumns) out << std::left << std::setw(static_cast<int>(width[c])) << row[c];
      else out << std::right << std::setw(static_cast<int>(width[c])) << row[c];
      out << (c + 1 < row.size() ? "  " : "\n");
    }
  }
}

std::vector<std::string> totalsCells(const OverheadTotals& t, TimeNs all) {
  return {humanDuration(t.overheadNs), percent(t.overheadNs, all), std::to_string(t.calls), humanDuration(t.timeNs)};
}

std::string modelCell(const ModelFit& m) {
  if (!m.fitted) return "-";
  std::ostringstream s;
  s << std::setprecision(4) << "λ=" << m.lambda << " χ²=" << m.chiSquare;
  if (m.verdict != FitVerdict::Untestable) s << " (limit " << m.critical << ")";
  s << " " << fitVerdictName(m.verdict);
  return s.str();
}

void printText(std::ostream& out, const Trace& trace, const OverheadAnalysis& a, const OverheadCliOptions& o,
               const std::optional<OverheadProfile>& profile) {
  const TimeNs all = a.total.overheadNs;
  out << "trace: " << o.path << " (" << trace.rankCount() << " ranks, " << a.total.calls
      << " communication calls taking " << humanDuration(a.total.timeNs) << ")\n";
  out << "overhead: " << humanDuration(all) << " (" << percent(all, a.total.timeNs)
      << " of the communication time), q_max = " << a.quantile << ", χ² significance "
      << o.fit.significance << "\n";
  if (profile)
    out << "profile: " << o.profile << " (q_max " << profile->quantile << ")"
        << (profile->description.empty() ? "" : ": " + profile->description) << "\n";
  out << "call sites: the enclosing user state or region (the trace keeps no source locations)\n";
  auto limited = [&](std::size_t n) { return std::min(n, o.top); };

  std::vector<std::vector<std::string>> rows{{"region", "function", "overhead", "share", "calls", "time"}};
  for (std::size_t i = 0; i < limited(a.sites.size()); ++i) {
    std::vector<std::string> row{a.sites[i].region, a.sites[i].function};
    for (auto& cell : totalsCells(a.sites[i].totals, all)) row.push_back(cell);
    rows.push_back(std::move(row));
  }
  out << "\nby call site\n";
  printTable(out, rows, 2);

  rows = {{"function", "overhead", "share", "calls", "time"}};
  for (std::size_t i = 0; i < limited(a.functions.size()); ++i) {
    std::vector<std::string> row{a.functions[i].function};
    for (auto& cell : totalsCells(a.functions[i].totals, all)) row.push_back(cell);
    rows.push_back(std::move(row));
  }
  out << "\nby function\n";
  printTable(out, rows, 1);

  rows = {{"rank", "overhead", "share", "calls", "time"}};
  for (std::size_t i = 0; i < limited(a.ranks.size()); ++i) {
    std::vector<std::string> row{std::to_string(a.ranks[i].rank)};
    for (auto& cell : totalsCells(a.ranks[i].totals, all)) row.push_back(cell);
    rows.push_back(std::move(row));
  }
  out << "\nby rank\n";
  printTable(out, rows, 1);

  rows = {{"function", "p", "b", "calls", "min", "t_max", "overhead", "source", "window", "chosen",
           "poisson", "exponential"}};
  for (std::size_t i = 0; i < limited(a.classes.size()); ++i) {
    const CallClassOverhead& c = a.classes[i];
    std::vector<std::string> row{c.function, std::to_string(c.processes), std::to_string(c.bytes),
                                 std::to_string(c.totals.calls), humanDuration(c.minNs), maxText(c.tMaxNs),
                                 humanDuration(c.totals.overheadNs)};
    if (c.fit) {
      row.insert(row.end(), {"fit", humanDuration(c.fit->histogram.windowNs),
                             std::string(errorModelName(c.fit->chosen)), modelCell(c.fit->poisson),
                             modelCell(c.fit->exponential)});
    } else {
      row.insert(row.end(), {c.outsideProfileGrid ? "profile (outside grid)" : "profile", "-", "-", "-", "-"});
    }
    rows.push_back(std::move(row));
  }
  out << "\nclasses (function, processes p, bytes b)\n";
  printTable(out, rows, 1);
  if (o.top < std::max({a.sites.size(), a.functions.size(), a.ranks.size(), a.classes.size()}))
    out << "\n(tables cut at --top " << o.top << " rows)\n";
}

int runOverhead(const OverheadCliOptions& o) {
  // Bad options are usage errors (status 2), found before the trace is read.
  if (std::string problem = validateFitOptions(o.fit); !problem.empty()) throw UsageError(problem);
  std::optional<OverheadProfile> profile;
  if (!o.profile.empty()) {
    std::string error;
    profile = loadOverheadProfile(o.profile, &error);
    const std::string prefix = o.profile + ": ";
    if (!profile) throw TraceError(o.profile, error.rfind(prefix, 0) == 0 ? error.substr(prefix.size()) : error);
    // --quantile applies to the profile too: its points keep the fitted model behind t_max.
    if (o.quantileGiven && profile->quantile != o.fit.quantile) {
      profile = profileAtQuantile(*profile, o.fit.quantile, &error);
      if (!profile) throw UsageError(o.profile + ": " + error + " (omit --quantile to use its own t_max)");
    }
  }
  const Trace trace = loadReported(o.path);
  OverheadOptions options;
  options.fit = o.fit;
  options.profile = profile ? &*profile : nullptr;
  std::optional<ProgressPhase> phase(std::in_place, "fitting the durations");
  const OverheadAnalysis a = analyzeOverhead(trace, options);
  phase.reset();
  if (o.json)
    std::cout << jsonText(overheadJson(trace, a, o, profile)) << '\n';
  else
    printText(std::cout, trace, a, o, profile);
  return kExitOk;
}

}  // namespace

Command addOverheadCommand(CLI::App& parent) {
  auto o = std::make_shared<OverheadCliOptions>();
  CLI::App* app = parent.add_subcommand(
      "overhead", "Communication overhead per call site, function and rank (statistical t_max per class)");
  app->add_option("TRACE", o->path, "input trace (ALOG or OTF2)")->required();
  CLI::Option* q = app->add_option("--quantile", o->fit.quantile, "q_max in [0.8, 1] (default 0.95)");
  app->add_option("--profile", o->profile, "overhead profile JSON (docs/overhead.md) instead of fitting");
  app->add_option("--significance", o->fit.significance, "significance of the χ² test (default 0.05)");
  app->add_option("--timer-resolution-ns", o->fit.minWindowNs, "smallest histogram window (default 1 ns)");
  app->add_option("--window-ns", o->fit.fixedWindowNs, "fixed histogram window (default: automatic)");
  app->add_option("--top", o->top, "rows per table (text output, default 20)");
  app->add_flag("--json", o->json, "machine-readable output");
  app->add_flag("--histograms", o->histograms, "JSON: include each class's histogram counts");
  app->add_flag("--events", o->events, "JSON: include every analysed call with its overhead");
  return {app, [o, q] {
            o->quantileGiven = q->count() > 0;
            return runOverhead(*o);
          }};
}

}  // namespace perwiz::cli
