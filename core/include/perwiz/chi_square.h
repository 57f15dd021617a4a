// The χ² goodness-of-fit test as Kluge et al. use it (§7): the statistic (eq. 8), the upper
// limit from the χ² distribution (a table for ν ≤ 30, the Wilson–Hilferty approximation, eq. 9,
// above), and the merging of sparse classes the test needs.
#pragma once

#include <cstdint>
#include <functional>
#include <limits>
#include <vector>

namespace perwiz {

// Degrees of freedom up to which the paper reads the upper limit from a table; above it uses
// the approximation (eq. 9). We read the "table" from Boost.Math's exact χ² quantile.
inline constexpr std::uint32_t kChiSquareTableMaxDof = 30;

// χ̂² = Σ (B_i − E_i)² / E_i (eq. 8). Sizes must match; classes with E_i = 0 are skipped
// (mergeSparseClasses never produces them).
double chiSquareStatistic(const std::vector<double>& observed, const std::vector<double>& expected);

// Upper limit of χ² with ν degrees of freedom at significance α: the (1 − α) quantile.
// ν ≤ 30: Boost's exact quantile (the paper's table); ν > 30: wilsonHilfertyCritical.
double chiSquareCritical(std::uint32_t dof, double significance);
// Eq. 9: χ²_ν ≈ ν (1 − 2/(9ν) + z_α √(2/(9ν)))³ with z_α the standard normal (1 − α) quantile
// (Boost's normal quantile instead of the paper's table).
double wilsonHilfertyCritical(std::uint32_t dof, double significance);

// One class of the χ² test after merging: histogram classes [first, last] of the error
// (in windows); last == kOpenEnd for the open tail class "k ≥ first".
struct ChiSquareClass {
  static constexpr std::uint64_t kOpenEnd = std::numeric_limits<std::uint64_t>::max();
  std::uint64_t first = 0;
  std::uint64_t last = 0;
  double observed = 0;  // B_i: samples in these histogram classes
  double expected = 0;  // E_i = N · P(first ≤ k ≤ last) under the fitted model
  bool operator==(const ChiSquareClass&) const = default;
};

// Merges adjacent histogram classes so that every test class expects at least `minExpected`
// samples (Sachs' rule of thumb, 5, for the paper's reference [12]). Walks k = 0, 1, … adding
// classes to the current group until its expectation reaches the minimum; once the rest of the
// distribution (k ≥ next) expects less than the minimum it becomes the open tail, joined to the
// last group if it is itself too small. The expectations therefore sum to N exactly.
//   cdf(k): the model's P(K ≤ k); observedIn(first, last): samples in classes [first, last]
//   (last may be kOpenEnd); n: the sample size.
// A model too narrow for even one class of `minExpected` gives one class (k ≥ 0).
//   classAt(p), optional: the smallest k with cdf(k) ≥ p. With it each test class costs a few
//   evaluations instead of one per histogram class — a wide model (long waits in the sample
//   make k̄ large) spans millions of histogram classes but at most n / minExpected test classes.
std::vector<ChiSquareClass> mergeSparseClasses(
    const std::function<double(std::uint64_t)>& cdf,
    const std::function<double(std::uint64_t, std::uint64_t)>& observedIn, std::uint64_t n,
    double minExpected = 5.0, const std::function<std::uint64_t(double)>& classAt = {});

}  // namespace perwiz
