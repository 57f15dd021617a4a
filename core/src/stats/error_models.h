// The two error models of Kluge et al. §5 over histogram classes of one window (internal):
// maximum-likelihood fits from the mean class and the q_max quantile class.
#pragma once

#include "perwiz/duration_fit.h"

namespace perwiz::stats_detail {

// Poisson (eq. 3): L = Π p_k^f_k is largest at λ = k̄, the mean class.
ModelFit fitPoisson(double meanClass);
// Discretised exponential (eq. 6), p_k = e^(−λki)(1 − e^(−λi)), a geometric law in k with
// ratio r = e^(−λi): log L = Σ f_k (k ln r + ln(1 − r)) is largest at r = k̄ / (1 + k̄), so
// λ = ln(1 + 1/k̄) / i. Not defined for k̄ = 0 (fitted = false).
ModelFit fitExponential(double meanClass, TimeNs windowNs);

// Smallest class k with cdf(k) ≥ q (q < 1).
std::uint64_t quantileClass(const ModelFit& fit, TimeNs windowNs, double q);

}  // namespace perwiz::stats_detail
