// The χ² test of Kluge et al. §7: statistic, upper limit (table or eq. 9) and class merging.
#include "perwiz/chi_square.h"

#include <boost/math/distributions/chi_squared.hpp>
#include <boost/math/distributions/normal.hpp>

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace perwiz {

double chiSquareStatistic(const std::vector<double>& observed, const std::vector<double>& expected) {
  if (observed.size() != expected.size())
    throw std::invalid_argument("chiSquareStatistic: observed and expected differ in size");
  double sum = 0;
  for (std::size_t i = 0; i < observed.size(); ++i) {
    if (expected[i] <= 0) continue;
    const double d = observed[i] - expected[i];
    sum += d * d / expected[i];
  }
  return sum;
}

namespace {
void checkArguments(std::uint32_t dof, double significance) {
  if (dof == 0) throw std::invalid_argument("χ² upper limit needs at least one degree of freedom");
  if (!(significance > 0 && significance < 1))
    throw std::invalid_argument("χ² significance must lie in (0, 1)");
}
}  // namespace

double wilsonHilfertyCritical(std::uint32_t dof, double significance) {
  checkArguments(dof, significance);
  const double z = boost::math::quantile(boost::math::normal_distribution<double>(), 1 - significance);
  const double nu = dof;
  const double a = 2.0 / (9.0 * nu);
  const double base = 1 - a + z * std::sqrt(a);
  return nu * base * base * base;
}

double chiSquareCritical(std::uint32_t dof, double significance) {
  checkArguments(dof, significance);
  if (dof > kChiSquareTableMaxDof) return wilsonHilfertyCritical(dof, significance);
  return boost::math::quantile(boost::math::chi_squared_distribution<double>(dof), 1 - significance);
}

std::vector<ChiSquareClass> mergeSparseClasses(
    const std::function<double(std::uint64_t)>& cdf,
    const std::function<double(std::uint64_t, std::uint64_t)>& observedIn, std::uint64_t n,
    double minExpected, const std::function<std::uint64_t(double)>& classAt) {
  // A model whose mass never settles (a broken cdf) must not loop for ever: after this many
  // steps the rest becomes the tail. Real fits end long before (docs/overhead.md).
  constexpr std::uint64_t kMaxSteps = 10'000'000;
  const double total = static_cast<double>(n);
  std::vector<ChiSquareClass> groups;
  std::uint64_t start = 0;
  double before = 0;  // P(K < start)
  std::uint64_t k = 0;
  for (std::uint64_t step = 0;; ++step) {
    if (classAt) {
      // Jump to the first k at which the group expects the minimum; the checks below are the
      // same as on the walk one class at a time (the tail only shrinks as k grows).
      const double target = before + minExpected / total;
      if (target < 1) k = std::max(k, classAt(target));
      while (k > start && total * (cdf(k - 1) - before) >= minExpected) --k;
    }
    const double upTo = cdf(k);
    // The rest (k' > k) expects too little to stand alone: this group takes it as the open tail.
    if (total * (1 - upTo) < minExpected || step >= kMaxSteps) {
      groups.push_back({start, ChiSquareClass::kOpenEnd, observedIn(start, ChiSquareClass::kOpenEnd),
                        total * (1 - before)});
      break;
    }
    if (total * (upTo - before) >= minExpected) {
      groups.push_back({start, k, observedIn(start, k), total * (upTo - before)});
      start = k + 1;
      before = upTo;
    }
    ++k;
  }
  return groups;
}

}  // namespace perwiz
