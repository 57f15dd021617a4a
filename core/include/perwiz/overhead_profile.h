// The profile T_f : (p, b) → t_max of Kluge et al. §8: t_max per MPI function measured on base
// points of process count p and message size b, bilinear interpolation between them.
//
// A profile measured once on a machine (by perwiz-calibrate, which only has to collect the
// samples and call buildOverheadProfile) replaces the per-trace fit. The JSON format is in
// docs/overhead.md.
#pragma once

#include "perwiz/duration_fit.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace perwiz {

// The fitted model that gave a point's t_max (kept so that the profile explains itself).
struct ProfilePointFit {
  std::uint64_t samples = 0;
  TimeNs minNs = 0;
  TimeNs windowNs = 1;
  TimeNs resolutionNs = 1;
  ErrorModel model = ErrorModel::Poisson;
  double lambda = 0;
  double chiSquare = 0;
  std::uint32_t dof = 0;
  double critical = 0;
  FitVerdict verdict = FitVerdict::Untestable;
  bool operator==(const ProfilePointFit&) const = default;
};

struct ProfilePoint {
  std::uint32_t processes = 0;  // p
  std::uint64_t bytes = 0;      // b
  TimeNs tMaxNs = 0;            // T_f(p, b)
  std::optional<ProfilePointFit> fit;  // absent in hand-written profiles
  bool operator==(const ProfilePoint&) const = default;
};

// One function's base points. They form a full grid: every p of `processes` with every b of
// `bytes`; `points` is in p-major order (points[i · bytes.size() + j] is (processes[i], bytes[j])).
struct ProfileFunction {
  std::string name;  // canonical MPI name ("MPI_Allreduce"), as overhead detection names calls
  std::vector<std::uint32_t> processes;  // ascending, distinct
  std::vector<std::uint64_t> bytes;      // ascending, distinct
  std::vector<ProfilePoint> points;
  bool operator==(const ProfileFunction&) const = default;
};

struct OverheadProfile {
  double quantile = 0.95;      // q_max the points were computed with
  double significance = 0.05;  // α of their χ² tests
  std::string description;     // free text: machine, MPI library, date
  std::vector<ProfileFunction> functions;  // by name, ascending
  const ProfileFunction* find(std::string_view function) const;
  bool operator==(const OverheadProfile&) const = default;
};

// Orders `points` into a ProfileFunction and checks that they form a full grid with positive p.
// On failure returns nullopt and sets *problem ("MPI_Send: point p=8, b=100 is missing").
std::optional<ProfileFunction> makeProfileFunction(std::string name, std::vector<ProfilePoint> points,
                                                   std::string* problem);

// The base points the paper recommends (§8): p = 2^n and 1.5·2^n (n ≥ 1: 2, 3, 4, 6, 8, 12, …)
// up to maxProcesses; b = 1, 10, 20 … 100, 200 … 1000, … up to maxBytes, plus maxBytes itself
// (default 4 MiB = 4194304, after 4000000).
std::vector<std::uint32_t> profileBaseProcessCounts(std::uint32_t maxProcesses);
std::vector<std::uint64_t> profileBaseMessageSizes(std::uint64_t maxBytes = 4u << 20);

// T_f(p, b) (§8): bilinear interpolation between the four surrounding base points.
// Outside the grid: p is clamped to [p_min, p_max] (costs grow roughly with log p; a straight
// line through the last two points would overshoot); b is extrapolated linearly from the two
// nearest base sizes (transfer time is latency + size / bandwidth, linear in b). The result is
// rounded to ns and never below 0. A single p or b value makes that direction constant.
struct ProfileValue {
  TimeNs tMaxNs = 0;
  bool insideGrid = true;  // false: clamped or extrapolated
};
ProfileValue evaluateProfile(const ProfileFunction& function, double processes, double bytes);

// A sample measured on one base point (what perwiz-calibrate collects).
struct ProfileSample {
  std::string function;
  std::uint32_t processes = 0;
  std::uint64_t bytes = 0;
  std::vector<TimeNs> durations;
};
// Fits every sample (fitSample) and builds the profile. Throws std::invalid_argument naming the
// function and point if a sample is empty, a point appears twice or the grid is incomplete.
OverheadProfile buildOverheadProfile(const std::vector<ProfileSample>& samples,
                                     const FitOptions& options = {}, std::string description = "");

// The profile at another q_max: every point's t_max recomputed from its fitted model
// (t_min + t_err,max of the new quantile class). Points without a fit cannot be: then nullopt and
// *problem names the first one. Throws nothing; q outside [0.8, 1] is a problem too.
std::optional<OverheadProfile> profileAtQuantile(const OverheadProfile& profile, double quantile,
                                                 std::string* problem);

// JSON (docs/overhead.md). On error: nullopt / false, and *error names `source` or `path` and
// the problem. saveOverheadProfile refuses to overwrite an existing file.
std::string overheadProfileToJson(const OverheadProfile& profile);
std::optional<OverheadProfile> overheadProfileFromJson(const std::string& text, const std::string& source,
                                                       std::string* error);
std::optional<OverheadProfile> loadOverheadProfile(const std::string& path, std::string* error);
bool saveOverheadProfile(const OverheadProfile& profile, const std::string& path, std::string* error);

}  // namespace perwiz
