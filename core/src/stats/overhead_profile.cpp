// The profile T_f(p, b) of Kluge et al. §8: base points, the grid, bilinear interpolation, and
// building a profile from measured samples.
#include "perwiz/overhead_profile.h"

#include "error_models.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <stdexcept>

namespace perwiz {

const ProfileFunction* OverheadProfile::find(std::string_view function) const {
  auto it = std::lower_bound(functions.begin(), functions.end(), function,
                             [](const ProfileFunction& f, std::string_view n) { return f.name < n; });
  return it != functions.end() && it->name == function ? &*it : nullptr;
}

namespace {
std::string pointName(const std::string& function, std::uint32_t p, std::uint64_t b) {
  return function + ": point p=" + std::to_string(p) + ", b=" + std::to_string(b);
}
}  // namespace

std::optional<ProfileFunction> makeProfileFunction(std::string name, std::vector<ProfilePoint> points,
                                                   std::string* problem) {
  auto fail = [&](std::string message) -> std::optional<ProfileFunction> {
    if (problem) *problem = std::move(message);
    return std::nullopt;
  };
  if (name.empty()) return fail("a function without a name");
  if (points.empty()) return fail(name + ": no points");
  ProfileFunction f;
  f.name = std::move(name);
  for (const ProfilePoint& pt : points) {
    if (pt.processes == 0) return fail(pointName(f.name, pt.processes, pt.bytes) + ": p must be at least 1");
    if (pt.tMaxNs < 0) return fail(pointName(f.name, pt.processes, pt.bytes) + ": t_max is negative");
    f.processes.push_back(pt.processes);
    f.bytes.push_back(pt.bytes);
  }
  std::sort(f.processes.begin(), f.processes.end());
  f.processes.erase(std::unique(f.processes.begin(), f.processes.end()), f.processes.end());
  std::sort(f.bytes.begin(), f.bytes.end());
  f.bytes.erase(std::unique(f.bytes.begin(), f.bytes.end()), f.bytes.end());
  std::sort(points.begin(), points.end(), [](const ProfilePoint& a, const ProfilePoint& b) {
    return a.processes != b.processes ? a.processes < b.processes : a.bytes < b.bytes;
  });
  for (std::size_t i = 1; i < points.size(); ++i)
    if (points[i].processes == points[i - 1].processes && points[i].bytes == points[i - 1].bytes)
      return fail(pointName(f.name, points[i].processes, points[i].bytes) + " appears twice");
  // Bilinear interpolation needs all four corners of every cell: a full p × b grid.
  if (points.size() != f.processes.size() * f.bytes.size()) {
    std::size_t i = 0;
    for (std::uint32_t p : f.processes)
      for (std::uint64_t b : f.bytes) {
        if (i >= points.size() || points[i].processes != p || points[i].bytes != b)
          return fail(pointName(f.name, p, b) + " is missing (the points must form a full grid of p × b)");
        ++i;
      }
  }
  f.points = std::move(points);
  return f;
}

std::vector<std::uint32_t> profileBaseProcessCounts(std::uint32_t maxProcesses) {
  std::vector<std::uint32_t> out;
  for (std::uint64_t power = 2; power <= maxProcesses; power *= 2) {
    out.push_back(static_cast<std::uint32_t>(power));
    const std::uint64_t between = power + power / 2;  // 1.5 · 2^n
    if (between <= maxProcesses) out.push_back(static_cast<std::uint32_t>(between));
  }
  return out;
}

std::vector<std::uint64_t> profileBaseMessageSizes(std::uint64_t maxBytes) {
  std::vector<std::uint64_t> out;
  if (maxBytes == 0) return out;
  out.push_back(1);
  for (std::uint64_t decade = 10; decade <= maxBytes; decade *= 10) {
    for (std::uint64_t m = 1; m <= 9 && m * decade <= maxBytes; ++m) out.push_back(m * decade);
    if (decade > maxBytes / 10) break;  // the next decade would overflow or exceed
  }
  if (out.back() != maxBytes) out.push_back(maxBytes);
  return out;
}

namespace {

// Index i of the cell [axis[i], axis[i+1]] used for x, and x's fraction within it; outside the
// axis the fraction lies outside [0, 1] (extrapolation) unless `clamp` pins it to the ends.
template <class T>
std::pair<std::size_t, double> locate(const std::vector<T>& axis, double x, bool clamp, bool* inside) {
  if (axis.size() == 1) {
    if (x != static_cast<double>(axis[0])) *inside = false;
    return {0, 0.0};
  }
  const double lo = static_cast<double>(axis.front()), hi = static_cast<double>(axis.back());
  if (x < lo || x > hi) {
    *inside = false;
    if (clamp) x = std::clamp(x, lo, hi);
  }
  // First base point above x, kept inside so that the cell always has two ends.
  auto above = std::upper_bound(axis.begin(), axis.end(), x,
                                [](double v, const T& a) { return v < static_cast<double>(a); });
  std::size_t i = static_cast<std::size_t>(above - axis.begin());
  i = std::clamp<std::size_t>(i, 1, axis.size() - 1) - 1;
  const double a = static_cast<double>(axis[i]), b = static_cast<double>(axis[i + 1]);
  return {i, (x - a) / (b - a)};
}

}  // namespace

ProfileValue evaluateProfile(const ProfileFunction& f, double processes, double bytes) {
  ProfileValue out;
  const auto [i, u] = locate(f.processes, processes, /*clamp=*/true, &out.insideGrid);
  const auto [j, v] = locate(f.bytes, bytes, /*clamp=*/false, &out.insideGrid);
  const std::size_t nb = f.bytes.size();
  bool unbounded = false;  // a corner measured with q_max = 1
  auto at = [&](std::size_t pi, std::size_t bj) {
    pi = std::min(pi, f.processes.size() - 1);
    bj = std::min(bj, nb - 1);
    const TimeNs t = f.points[pi * nb + bj].tMaxNs;
    unbounded = unbounded || t == kUnboundedNs;
    return static_cast<double>(t);
  };
  // T = (1−u)(1−v)·T00 + (1−u)v·T01 + u(1−v)·T10 + uv·T11
  const double t = (1 - u) * (1 - v) * at(i, j) + (1 - u) * v * at(i, j + 1) +
                   u * (1 - v) * at(i + 1, j) + u * v * at(i + 1, j + 1);
  if (unbounded || t >= static_cast<double>(kUnboundedNs)) out.tMaxNs = kUnboundedNs;
  else out.tMaxNs = t <= 0 ? 0 : static_cast<TimeNs>(std::llround(t));
  return out;
}

OverheadProfile buildOverheadProfile(const std::vector<ProfileSample>& samples, const FitOptions& options,
                                     std::string description) {
  if (std::string problem = validateFitOptions(options); !problem.empty())
    throw std::invalid_argument(problem);
  OverheadProfile profile;
  profile.quantile = options.quantile;
  profile.significance = options.significance;
  profile.description = std::move(description);
  std::map<std::string, std::vector<ProfilePoint>> byFunction;
  for (const ProfileSample& s : samples) {
    if (s.durations.empty())
      throw std::invalid_argument(pointName(s.function, s.processes, s.bytes) + ": empty sample");
    const SampleFit fit = fitSample(s.durations, options);
    const ModelFit& m = fit.chosenFit();
    ProfilePoint pt{s.processes, s.bytes, fit.tMaxNs,
                    ProfilePointFit{fit.histogram.samples, fit.histogram.minNs, fit.histogram.windowNs,
                                    fit.histogram.resolutionNs, fit.chosen, m.lambda, m.chiSquare,
                                    m.dof, m.critical, m.verdict}};
    byFunction[s.function].push_back(std::move(pt));
  }
  for (auto& [name, points] : byFunction) {
    std::string problem;
    auto f = makeProfileFunction(name, std::move(points), &problem);
    if (!f) throw std::invalid_argument(problem);
    profile.functions.push_back(std::move(*f));
  }
  return profile;
}

std::optional<OverheadProfile> profileAtQuantile(const OverheadProfile& profile, double quantile,
                                                 std::string* problem) {
  FitOptions check;
  check.quantile = quantile;
  if (std::string bad = validateFitOptions(check); !bad.empty()) {
    if (problem) *problem = bad;
    return std::nullopt;
  }
  OverheadProfile out = profile;
  out.quantile = quantile;
  for (ProfileFunction& f : out.functions)
    for (ProfilePoint& pt : f.points) {
      if (!pt.fit) {
        if (problem)
          *problem = pointName(f.name, pt.processes, pt.bytes) +
                     " has no fitted model, so its t_max cannot be recomputed at another quantile";
        return std::nullopt;
      }
      const ProfilePointFit& m = *pt.fit;
      ModelFit fit;
      fit.model = m.model;
      fit.lambda = m.lambda;
      fit.fitted = m.model == ErrorModel::Poisson ? m.lambda >= 0 : m.lambda > 0;
      const std::uint64_t k = quantile >= 1 ? std::numeric_limits<std::uint64_t>::max()
                                            : stats_detail::quantileClass(fit, m.windowNs, quantile);
      const TimeNs err = errorAtQuantileClass(k, m.windowNs, m.resolutionNs);
      pt.tMaxNs = err == kUnboundedNs || err > kUnboundedNs - m.minNs ? kUnboundedNs : m.minNs + err;
    }
  return out;
}

}  // namespace perwiz
