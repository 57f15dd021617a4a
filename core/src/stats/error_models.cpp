// Poisson and discretised exponential error models (Kluge et al. §5, §6) on Boost.Math.
#include "error_models.h"

#include <boost/math/distributions/exponential.hpp>
#include <boost/math/distributions/poisson.hpp>
#include <boost/math/policies/policy.hpp>

#include <cmath>

namespace perwiz {

namespace {
namespace bm = boost::math;
// Smallest k with P(K ≤ k) ≥ q: Boost rounds its continuous quantile of a discrete law up.
using RoundUp = bm::policies::policy<bm::policies::discrete_quantile<bm::policies::integer_round_up>>;
}  // namespace

double ModelFit::pmf(std::uint64_t k, TimeNs windowNs) const {
  if (!fitted) return 0;
  if (model == ErrorModel::Poisson) {
    if (lambda <= 0) return k == 0 ? 1 : 0;  // λ = 0: the Poisson limit, all mass at 0
    return bm::pdf(bm::poisson_distribution<double>(lambda), static_cast<double>(k));
  }
  // Eq. 5: F((k+1)·i) − F(k·i) of the continuous exponential.
  const bm::exponential_distribution<double> f(lambda);
  const double w = static_cast<double>(windowNs);
  return bm::cdf(bm::complement(f, static_cast<double>(k) * w)) -
         bm::cdf(bm::complement(f, static_cast<double>(k + 1) * w));
}

double ModelFit::cdf(std::uint64_t k, TimeNs windowNs) const {
  if (!fitted) return 0;
  if (model == ErrorModel::Poisson) {
    if (lambda <= 0) return 1;
    return bm::cdf(bm::poisson_distribution<double>(lambda), static_cast<double>(k));
  }
  return bm::cdf(bm::exponential_distribution<double>(lambda),
                 static_cast<double>(k + 1) * static_cast<double>(windowNs));
}

namespace stats_detail {

ModelFit fitPoisson(double meanClass) {
  ModelFit fit;
  fit.model = ErrorModel::Poisson;
  fit.fitted = true;
  fit.lambda = meanClass;
  return fit;
}

ModelFit fitExponential(double meanClass, TimeNs windowNs) {
  ModelFit fit;
  fit.model = ErrorModel::Exponential;
  if (meanClass <= 0) return fit;  // every error in class 0: no finite rate maximises L
  fit.fitted = true;
  fit.lambda = std::log1p(1 / meanClass) / static_cast<double>(windowNs);
  return fit;
}

std::uint64_t quantileClass(const ModelFit& fit, TimeNs windowNs, double q) {
  if (!fit.fitted) return 0;
  if (fit.model == ErrorModel::Poisson) {
    if (fit.lambda <= 0) return 0;
    const double k = bm::quantile(bm::poisson_distribution<double, RoundUp>(fit.lambda), q);
    return static_cast<std::uint64_t>(k);
  }
  // Class k ends at (k+1)·i: the first class whose end reaches the continuous quantile x_q.
  const double x = bm::quantile(bm::exponential_distribution<double>(fit.lambda), q);
  const double ends = std::ceil(x / static_cast<double>(windowNs));
  std::uint64_t k = ends >= 1 ? static_cast<std::uint64_t>(ends) - 1 : 0;
  // Rounding of x / i may land one class off; the definition (cdf(k) ≥ q, cdf(k−1) < q) decides.
  while (fit.cdf(k, windowNs) < q) ++k;
  while (k > 0 && fit.cdf(k - 1, windowNs) >= q) --k;
  return k;
}

}  // namespace stats_detail
}  // namespace perwiz
