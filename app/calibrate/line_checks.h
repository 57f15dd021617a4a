// Shared by the LogGPS and LogGPO fits: a least-squares line over the sizes of one protocol,
// and the checks that keep a fitted line legal in a model file. Plain C++ (no MPI).
#pragma once

#include "stats.h"

#include <cmath>
#include <string>
#include <vector>

namespace perwiz::calibrate {

constexpr double kNsPerSecond = 1e9;

// The line through (bytes, time in ns) of the entries of `sizes` (each with a `bytes` member)
// that `pick(bytes)` selects; `value(entry)` gives the time in seconds (NaN entries are skipped).
template <class Sizes, class Pick, class Value>
LineFit fitSizes(const Sizes& sizes, Pick pick, Value value) {
  std::vector<double> x, y;
  for (const auto& s : sizes) {
    if (!pick(s.bytes)) continue;
    const double v = value(s);
    if (!std::isfinite(v)) continue;
    x.push_back(static_cast<double>(s.bytes));
    y.push_back(v * kNsPerSecond);
  }
  return fitLine(x, y);
}

// Below this magnitude (ns, ns/byte) a negative value is rounding in the fit, not a finding:
// it is set to 0 without a warning.
constexpr double kNegligible = 1e-6;

// The model files allow no negative number: noise can push an intercept or a slope below 0.
// Sets them to 0, with a warning naming `what` unless negligible.
void clampLine(LineFit& f, const std::string& what, std::vector<std::string>& warnings);

// Warns when a line rests on no size (`ifNone` says what happens then) or on a single one.
void requirePoints(const LineFit& f, const std::string& what, const std::string& ifNone,
                   std::vector<std::string>& warnings);

}  // namespace perwiz::calibrate
