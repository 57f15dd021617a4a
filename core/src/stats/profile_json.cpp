// The JSON form of an overhead profile (docs/overhead.md, "Profile format"), with errors that
// name the file, the element and the problem.
#include "perwiz/overhead_profile.h"
#include "perwiz/output_file.h"
#include "perwiz/trace_io.h"

#include <nlohmann/json.hpp>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>

namespace perwiz {

namespace {

using Json = nlohmann::ordered_json;
constexpr const char* kFormat = "perwiz-overhead-profile";
constexpr int kVersion = 1;

Json tMaxJson(TimeNs t) { return t == kUnboundedNs ? Json(nullptr) : Json(t); }

// Thrown inside the parser, turned into the error message at its boundary.
struct ProfileProblem {
  std::string where, what;
};

const nlohmann::json& member(const nlohmann::json& object, const char* key, const std::string& where) {
  auto it = object.find(key);
  if (it == object.end()) throw ProfileProblem{where, std::string("missing key '") + key + "'"};
  return *it;
}

// An integer member in [min, max] (nlohmann reads non-negative numbers as unsigned).
template <class T>
T integer(const nlohmann::json& v, const char* key, const std::string& where, std::int64_t min,
          std::uint64_t max) {
  const nlohmann::json& x = member(v, key, where);
  bool ok = false;
  if (x.is_number_unsigned()) {
    const std::uint64_t u = x.get<std::uint64_t>();
    ok = u <= max && (min <= 0 || u >= static_cast<std::uint64_t>(min));
  } else if (x.is_number_integer()) {
    const std::int64_t i = x.get<std::int64_t>();
    ok = i >= min && (i < 0 || static_cast<std::uint64_t>(i) <= max);
  }
  if (!ok)
    throw ProfileProblem{where, std::string("'") + key + "' must be an integer in [" + std::to_string(min) +
                                    ", " + std::to_string(max) + "], not " + x.dump()};
  return x.is_number_unsigned() ? static_cast<T>(x.get<std::uint64_t>()) : static_cast<T>(x.get<std::int64_t>());
}

double number(const nlohmann::json& v, const char* key, const std::string& where) {
  const nlohmann::json& x = member(v, key, where);
  if (!x.is_number()) throw ProfileProblem{where, std::string("'") + key + "' must be a number, not " + x.dump()};
  return x.get<double>();
}

std::string text(const nlohmann::json& v, const char* key, const std::string& where) {
  const nlohmann::json& x = member(v, key, where);
  if (!x.is_string()) throw ProfileProblem{where, std::string("'") + key + "' must be a string, not " + x.dump()};
  return x.get<std::string>();
}

ProfilePointFit parseFit(const nlohmann::json& j, const std::string& where) {
  if (!j.is_object()) throw ProfileProblem{where, "must be an object"};
  constexpr TimeNs kMaxNs = kUnboundedNs;
  ProfilePointFit f;
  f.samples = integer<std::uint64_t>(j, "samples", where, 1, std::numeric_limits<std::uint64_t>::max());
  f.minNs = integer<TimeNs>(j, "t_min_ns", where, 0, kMaxNs);
  f.windowNs = integer<TimeNs>(j, "window_ns", where, 1, kMaxNs);
  f.resolutionNs = integer<TimeNs>(j, "resolution_ns", where, 1, kMaxNs);
  const std::string model = text(j, "model", where);
  auto m = parseErrorModel(model);
  if (!m) throw ProfileProblem{where, "unknown model '" + model + "' (poisson, exponential)"};
  f.model = *m;
  f.lambda = number(j, "lambda", where);
  f.chiSquare = number(j, "chi2", where);
  f.dof = integer<std::uint32_t>(j, "dof", where, 0, std::numeric_limits<std::uint32_t>::max());
  f.critical = number(j, "critical", where);
  const std::string verdict = text(j, "verdict", where);
  bool known = false;
  for (FitVerdict v : {FitVerdict::Accepted, FitVerdict::Rejected, FitVerdict::Untestable})
    if (fitVerdictName(v) == verdict) f.verdict = v, known = true;
  if (!known) throw ProfileProblem{where, "unknown verdict '" + verdict + "' (accepted, rejected, untestable)"};
  return f;
}

OverheadProfile parseProfile(const nlohmann::json& j) {
  if (!j.is_object()) throw ProfileProblem{"", "expected a JSON object (an overhead profile)"};
  // A network model file (perwiz-calibrate --mode loggps/loggpo) given where a profile belongs.
  if (!j.contains("format") && j.contains("model") && j["model"].is_string())
    throw ProfileProblem{"", "this is a " + j["model"].get<std::string>() +
                                 " network model file (key 'model'), not an overhead profile; give it to --model, "
                                 "and here a file of perwiz-calibrate --mode profile"};
  const std::string format = text(j, "format", "");
  if (format != kFormat) throw ProfileProblem{"", "'format' is '" + format + "', expected '" + kFormat + "'"};
  const int version = integer<int>(j, "version", "", 0, 1'000'000);
  if (version != kVersion)
    throw ProfileProblem{"", "version " + std::to_string(version) + " is not supported (this build reads " +
                                 std::to_string(kVersion) + ")"};
  OverheadProfile p;
  p.quantile = number(j, "quantile", "");
  p.significance = j.contains("significance") ? number(j, "significance", "") : 0.05;
  FitOptions check;
  check.quantile = p.quantile;
  check.significance = p.significance;
  if (std::string problem = validateFitOptions(check); !problem.empty()) throw ProfileProblem{"", problem};
  if (j.contains("description")) p.description = text(j, "description", "");
  const nlohmann::json& functions = member(j, "functions", "");
  if (!functions.is_array()) throw ProfileProblem{"", "'functions' must be an array"};
  for (std::size_t fi = 0; fi < functions.size(); ++fi) {
    const std::string where = "functions[" + std::to_string(fi) + "]";
    const nlohmann::json& fj = functions[fi];
    if (!fj.is_object()) throw ProfileProblem{where, "must be an object"};
    std::string name = text(fj, "name", where);
    const nlohmann::json& points = member(fj, "points", where);
    if (!points.is_array()) throw ProfileProblem{where, "'points' must be an array"};
    std::vector<ProfilePoint> parsed;
    for (std::size_t pi = 0; pi < points.size(); ++pi) {
      const std::string at = where + ".points[" + std::to_string(pi) + "]";
      const nlohmann::json& pj = points[pi];
      if (!pj.is_object()) throw ProfileProblem{at, "must be an object"};
      ProfilePoint pt;
      pt.processes = integer<std::uint32_t>(pj, "p", at, 1, std::numeric_limits<std::uint32_t>::max());
      pt.bytes = integer<std::uint64_t>(pj, "b", at, 0, std::numeric_limits<std::uint64_t>::max());
      const nlohmann::json& t = member(pj, "t_max_ns", at);
      pt.tMaxNs = t.is_null() ? kUnboundedNs : integer<TimeNs>(pj, "t_max_ns", at, 0, kUnboundedNs - 1);
      if (pj.contains("fit")) pt.fit = parseFit(pj["fit"], at + ".fit");
      parsed.push_back(std::move(pt));
    }
    if (p.find(name)) throw ProfileProblem{where, "function '" + name + "' appears twice"};
    std::string problem;
    auto f = makeProfileFunction(std::move(name), std::move(parsed), &problem);
    if (!f) throw ProfileProblem{where, problem};
    auto pos = std::lower_bound(p.functions.begin(), p.functions.end(), f->name,
                                [](const ProfileFunction& a, const std::string& n) { return a.name < n; });
    p.functions.insert(pos, std::move(*f));
  }
  return p;
}

void setError(std::string* error, std::string message) {
  if (error) *error = std::move(message);
}

}  // namespace

std::string overheadProfileToJson(const OverheadProfile& profile) {
  Json functions = Json::array();
  for (const ProfileFunction& f : profile.functions) {
    Json points = Json::array();
    for (const ProfilePoint& pt : f.points) {
      Json pj{{"p", pt.processes}, {"b", pt.bytes}, {"t_max_ns", tMaxJson(pt.tMaxNs)}};
      if (pt.fit) {
        const ProfilePointFit& m = *pt.fit;
        pj["fit"] = {{"samples", m.samples},         {"t_min_ns", m.minNs},
                     {"window_ns", m.windowNs},      {"resolution_ns", m.resolutionNs},
                     {"model", errorModelName(m.model)}, {"lambda", m.lambda},
                     {"chi2", m.chiSquare},          {"dof", m.dof},
                     {"critical", m.critical},       {"verdict", fitVerdictName(m.verdict)}};
      }
      points.push_back(std::move(pj));
    }
    functions.push_back({{"name", f.name}, {"points", std::move(points)}});
  }
  Json j{{"format", kFormat},
         {"version", kVersion},
         {"quantile", profile.quantile},
         {"significance", profile.significance},
         {"description", profile.description},
         {"functions", std::move(functions)}};
  return j.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
}

std::optional<OverheadProfile> overheadProfileFromJson(const std::string& textIn, const std::string& source,
                                                       std::string* error) {
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(textIn);
  } catch (const nlohmann::json::exception& e) {
    setError(error, source + ": invalid JSON: " + e.what());
    return std::nullopt;
  }
  try {
    return parseProfile(j);
  } catch (const ProfileProblem& p) {
    setError(error, source + ": " + (p.where.empty() ? "" : p.where + ": ") + p.what);
  } catch (const std::exception& e) {  // e.g. a number nlohmann cannot convert
    setError(error, source + ": " + e.what());
  }
  return std::nullopt;
}

std::optional<OverheadProfile> loadOverheadProfile(const std::string& path, std::string* error) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {
    setError(error, path + ": is a directory, not a profile file");
    return std::nullopt;
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    setError(error, path + ": cannot open profile file: " + std::strerror(errno));
    return std::nullopt;
  }
  std::ostringstream content;
  content << in.rdbuf();
  if (in.bad()) {
    setError(error, path + ": cannot read profile file");
    return std::nullopt;
  }
  return overheadProfileFromJson(content.str(), path, error);
}

bool saveOverheadProfile(const OverheadProfile& profile, const std::string& path, std::string* error) {
  const std::string content = overheadProfileToJson(profile) + "\n";
  std::error_code ec;
  if (std::filesystem::exists(std::filesystem::symlink_status(path, ec))) {
    setError(error, path + ": file exists; not overwritten");
    return false;
  }
  // The shared output path (output_file.h): every write checked, complete or absent (a short
  // write used to leave half a profile under the name), a file appearing meanwhile kept.
  try {
    writeOutputFile(path, content);
  } catch (const TraceError& e) {
    setError(error, e.what());
    return false;
  }
  return true;
}

}  // namespace perwiz
