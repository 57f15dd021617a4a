// Building, writing and summarising the overhead profile (see profile_output.h).
#include "profile_output.h"

#include "output_file.h"
#include "profile_points.h"

#include <nlohmann/json.hpp>

#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <map>
#include <sstream>
#include <system_error>
#include <tuple>

namespace perwiz::calibrate {
namespace {

using Json = nlohmann::ordered_json;
using PointKey = std::tuple<std::string, std::uint32_t, std::uint64_t>;  // function, p, b

// The rounds behind every (function, p, b) of the profile: a pattern's rounds serve each of the
// functions it times.
std::map<PointKey, PointRounds> roundsByFunction(const ProfileRun& run) {
  std::map<PointKey, PointRounds> out;
  for (const PointRounds& r : run.rounds)
    for (const std::string& f : patternFunctions(profilePatternFromName(r.pattern)))
      out[{f, r.processes, r.bytes}] = r;
  return out;
}

Json nsOrNull(TimeNs ns) { return ns == kUnboundedNs ? Json(nullptr) : Json(ns); }

std::vector<std::string> warnings(const ProfileRun& run, const CalibrateOptions& o) {
  std::vector<std::string> out;
  int late = 0;
  for (const PointRounds& r : run.rounds) {
    late += r.late;
    if (r.kept < o.repetitions)
      out.push_back(r.pattern + " p=" + std::to_string(r.processes) + " b=" +
                    std::to_string(r.bytes) + ": only " + std::to_string(r.kept) + " of " +
                    std::to_string(o.repetitions) + " rounds started on time on every rank");
  }
  if (late > 0)
    out.push_back(std::to_string(late) +
                  " rounds were discarded and repeated because a rank reached the agreed start "
                  "late (a busy machine)");
  return out;
}

std::string fixed(double v, int decimals) {
  char text[64];
  std::snprintf(text, sizeof text, "%.*f", decimals, v);
  return text;
}

}  // namespace

FitOptions profileFitOptions(const CalibrateOptions& o) {
  FitOptions f;
  f.quantile = o.quantile;
  f.minWindowNs = o.timerResolutionNs;
  return f;
}

OverheadProfile buildProfile(const ProfileRun& run, const CalibrateOptions& o) {
  return buildOverheadProfile(run.samples, profileFitOptions(o), run.description);
}

void writeProfile(const OverheadProfile& profile, const std::string& path, bool force) {
  std::string error;
  if (!force) {
    if (!saveOverheadProfile(profile, path, &error)) throw OutputError(error);
    return;
  }
  // saveOverheadProfile creates its file exclusively: write a temporary file beside the target
  // and rename it over the old profile, so that a failed run never leaves half a profile.
  const std::string temporary = path + ".tmp." + std::to_string(::getpid());
  if (!saveOverheadProfile(profile, temporary, &error)) {
    std::error_code ignored;
    std::filesystem::remove(temporary, ignored);
    throw OutputError(path + ": cannot write the profile: " + error);
  }
  std::error_code ec;
  std::filesystem::rename(temporary, path, ec);
  if (ec) {
    std::error_code ignored;
    std::filesystem::remove(temporary, ignored);
    throw OutputError(path + ": cannot replace the profile: " + ec.message());
  }
}

std::string profileSummaryJson(const CalibrateOptions& o, const ProfileRun& run,
                               const OverheadProfile& profile) {
  const auto rounds = roundsByFunction(run);
  Json points = Json::array();
  for (const ProfileFunction& f : profile.functions)
    for (const ProfilePoint& pt : f.points) {
      Json j{{"function", f.name}, {"p", pt.processes}, {"b", pt.bytes}};
      if (auto it = rounds.find({f.name, pt.processes, pt.bytes}); it != rounds.end()) {
        j["part_bytes"] = it->second.partBytes;
        j["rounds_kept"] = it->second.kept;
        j["rounds_late"] = it->second.late;
      }
      if (pt.fit) {
        j["samples"] = pt.fit->samples;
        j["t_min_ns"] = pt.fit->minNs;
        j["window_ns"] = pt.fit->windowNs;
        j["model"] = std::string(errorModelName(pt.fit->model));
        j["verdict"] = std::string(fitVerdictName(pt.fit->verdict));
      }
      j["t_max_ns"] = nsOrNull(pt.tMaxNs);
      points.push_back(std::move(j));
    }
  Json j;
  j["mode"] = "profile";
  j["ranks"] = Json{{"world", run.worldSize}, {"process_counts", run.processCounts}};
  j["functions"] = o.functions.empty() ? profileFunctionNames() : o.functions;
  j["repetitions"] = o.repetitions;
  j["warmup"] = o.warmup;
  j["max_bytes"] = o.maxBytes;
  j["quantile"] = o.quantile;
  j["timer_resolution_ns"] = o.timerResolutionNs;
  j["wtick_s"] = run.wtick;
  j["clock"] = Json{{"global", run.globalClock}, {"max_offset_us", run.maxOffsetUs}};
  j["description"] = run.description;
  j["points"] = std::move(points);
  j["output"] = o.output.empty() ? Json(nullptr) : Json(o.output);
  j["warnings"] = warnings(run, o);
  return j.dump(2, ' ', false, Json::error_handler_t::replace);
}

std::string profileSummaryText(const CalibrateOptions& o, const ProfileRun& run,
                               const OverheadProfile& profile) {
  std::ostringstream out;
  out << "perwiz-calibrate: overhead profile T_f(p, b) on " << run.worldSize << " ranks, p = ";
  for (std::size_t i = 0; i < run.processCounts.size(); ++i)
    out << (i ? ", " : "") << run.processCounts[i];
  out << "; " << o.repetitions << " rounds per point (+" << o.warmup << " warm-up), q_max "
      << o.quantile << "; clock "
      << (run.globalClock ? std::string("global")
                          : "offsets to rank 0 up to " + fixed(run.maxOffsetUs, 3) + " µs")
      << "\n\n";
  out << "function          p          b  samples     t_min µs     t_max µs  model        verdict\n";
  for (const ProfileFunction& f : profile.functions)
    for (const ProfilePoint& pt : f.points) {
      char row[200];
      const double tMin = pt.fit ? static_cast<double>(pt.fit->minNs) / 1000 : 0;
      const std::string tMax = pt.tMaxNs == kUnboundedNs
                                   ? std::string("unbounded")
                                   : fixed(static_cast<double>(pt.tMaxNs) / 1000, 3);
      std::snprintf(row, sizeof row, "%-14s %4u %10llu %8llu %12.3f %12s  %-12s %s\n",
                    f.name.c_str(), pt.processes, static_cast<unsigned long long>(pt.bytes),
                    static_cast<unsigned long long>(pt.fit ? pt.fit->samples : 0), tMin,
                    tMax.c_str(),
                    pt.fit ? std::string(errorModelName(pt.fit->model)).c_str() : "",
                    pt.fit ? std::string(fitVerdictName(pt.fit->verdict)).c_str() : "");
      out << row;
    }
  for (const std::string& w : warnings(run, o)) out << "warning: " << w << "\n";
  if (!o.output.empty()) out << "profile written to " << o.output << "\n";
  return out.str();
}

}  // namespace perwiz::calibrate
