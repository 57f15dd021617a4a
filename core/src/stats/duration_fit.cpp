// Fitting one sample of call durations: window, histogram, both models, χ², t_max
// (Kluge et al. §4–7; the rules and their reasons are in docs/overhead.md).
#include "perwiz/duration_fit.h"

#include "error_models.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>

namespace perwiz {

std::string_view errorModelName(ErrorModel model) {
  return model == ErrorModel::Poisson ? "poisson" : "exponential";
}

std::optional<ErrorModel> parseErrorModel(std::string_view name) {
  if (name == "poisson") return ErrorModel::Poisson;
  if (name == "exponential") return ErrorModel::Exponential;
  return std::nullopt;
}

std::string_view fitVerdictName(FitVerdict verdict) {
  switch (verdict) {
    case FitVerdict::Accepted: return "accepted";
    case FitVerdict::Rejected: return "rejected";
    case FitVerdict::Untestable: return "untestable";
  }
  return "untestable";
}

std::string validateFitOptions(const FitOptions& o) {
  auto number = [](double v) {
    std::string s = std::to_string(v);
    while (s.size() > 1 && s.back() == '0' && s[s.size() - 2] != '.') s.pop_back();
    return s;
  };
  if (!(o.quantile >= 0.8 && o.quantile <= 1))
    return "quantile " + number(o.quantile) + " is outside [0.8, 1] (the paper's range for q_max)";
  if (!(o.significance > 0 && o.significance < 1))
    return "significance " + number(o.significance) + " is outside (0, 1)";
  if (o.minWindowNs < 1) return "minimum window " + std::to_string(o.minWindowNs) + " ns is below 1 ns";
  if (o.fixedWindowNs < 0) return "window " + std::to_string(o.fixedWindowNs) + " ns is negative";
  if (o.fixedWindowNs > 0 && o.fixedWindowNs < o.minWindowNs)
    return "window " + std::to_string(o.fixedWindowNs) + " ns is below the timer resolution " +
           std::to_string(o.minWindowNs) + " ns";
  if (!(o.minExpected > 0)) return "minimum expected class count must be positive";
  return "";
}

TimeNs chooseWindow(std::vector<TimeNs>& errors, TimeNs resolutionNs, TimeNs minWindowNs) {
  const TimeNs r = std::max<TimeNs>(resolutionNs, 1);
  // At least the timer resolution, as a whole number of ticks (windows that split ticks
  // unevenly would put 1 or 2 ticks into alternate classes, a pattern no model has).
  TimeNs window = std::max<TimeNs>(r, (std::max<TimeNs>(minWindowNs, 1) + r - 1) / r * r);
  if (errors.size() < 2) return window;
  // Freedman–Diaconis: 2·IQR·N^(−1/3), robust against the long waits that are the overhead.
  const std::size_t n = errors.size();
  const auto lowerAt = errors.begin() + static_cast<std::ptrdiff_t>((n - 1) / 4);
  const auto upperAt = errors.begin() + static_cast<std::ptrdiff_t>(3 * (n - 1) / 4);
  std::nth_element(errors.begin(), upperAt, errors.end());
  const TimeNs upper = *upperAt;
  std::nth_element(errors.begin(), lowerAt, upperAt);
  const TimeNs lower = *lowerAt;
  const double fd = 2.0 * static_cast<double>(upper - lower) / std::cbrt(static_cast<double>(n));
  const TimeNs ticks = static_cast<TimeNs>(fd / static_cast<double>(r));
  return std::max(window, ticks * r);
}

TimeNs errorAtQuantileClass(std::uint64_t quantileClass, TimeNs windowNs, TimeNs resolutionNs) {
  if (quantileClass == std::numeric_limits<std::uint64_t>::max()) return kUnboundedNs;
  const double end = static_cast<double>(quantileClass + 1) * static_cast<double>(windowNs);
  if (end >= static_cast<double>(kUnboundedNs) / 2) return kUnboundedNs;
  return static_cast<TimeNs>(quantileClass + 1) * windowNs - resolutionNs;
}

double SampleFit::expectedCount(ErrorModel model, std::uint64_t k) const {
  const ModelFit& f = model == ErrorModel::Poisson ? poisson : exponential;
  return static_cast<double>(histogram.samples) * f.pmf(k, histogram.windowNs);
}

namespace {

// The test classes of a model before counting: bounds depend on the model and N only.
std::vector<ChiSquareClass> testClasses(const ModelFit& fit, TimeNs window, std::uint64_t n,
                                        double minExpected) {
  auto classAt = [&](double p) -> std::uint64_t {
    try {
      return stats_detail::quantileClass(fit, window, p);
    } catch (const std::exception&) {  // Boost's evaluation limits: walk instead of jumping
      return 0;
    }
  };
  return mergeSparseClasses([&](std::uint64_t k) { return fit.cdf(k, window); },
                            [](std::uint64_t, std::uint64_t) { return 0.0; }, n, minExpected, classAt);
}

// Histogram classes kept densely: room to show the shape around every finite test-class bound
// and the quantile class (twice as far), at least 32, never more than the sample reaches, and
// at most 65536 (512 KiB) — long waits beyond stay in `overflow`.
std::uint64_t denseClassCount(const std::vector<ModelFit*>& fits,
                              const std::vector<std::vector<ChiSquareClass>>& classes,
                              std::uint64_t maxClass) {
  constexpr std::uint64_t kMinShown = 32, kMaxDense = std::uint64_t{1} << 16;
  std::uint64_t needed = 1;
  for (const auto& groups : classes)
    for (const ChiSquareClass& c : groups)
      needed = std::max(needed, (c.last == ChiSquareClass::kOpenEnd ? c.first : c.last) + 1);
  for (const ModelFit* f : fits)
    if (f->quantileClass != std::numeric_limits<std::uint64_t>::max())
      needed = std::max(needed, f->quantileClass + 1);
  const std::uint64_t wanted = needed > kMaxDense / 2 ? kMaxDense : std::max(kMinShown, 2 * needed);
  return std::min(maxClass + 1, wanted);
}

// B_i of every test class: from the dense histogram's prefix sums when it reaches the last
// bound, else one binary search per sample over the class starts.
std::vector<double> observedCounts(const std::vector<ChiSquareClass>& classes, const ErrorHistogram& h,
                                   const std::vector<std::uint64_t>& prefix, const std::vector<TimeNs>& errors) {
  std::vector<double> observed(classes.size(), 0);
  const std::uint64_t dense = h.counts.size();
  const ChiSquareClass& last = classes.back();
  const std::uint64_t reach = last.last == ChiSquareClass::kOpenEnd ? last.first : last.last + 1;
  if (reach <= dense || dense == h.maxClass + 1) {
    for (std::size_t i = 0; i < classes.size(); ++i) {
      const ChiSquareClass& c = classes[i];
      const std::uint64_t below = prefix[std::min(c.first, dense)];
      observed[i] = static_cast<double>(c.last == ChiSquareClass::kOpenEnd
                                            ? h.samples - below
                                            : prefix[std::min(c.last + 1, dense)] - below);
    }
    return observed;
  }
  std::vector<std::uint64_t> firsts;
  for (const ChiSquareClass& c : classes) firsts.push_back(c.first);
  for (TimeNs e : errors) {
    const auto k = static_cast<std::uint64_t>(e / h.windowNs);
    const auto at = std::upper_bound(firsts.begin(), firsts.end(), k) - firsts.begin() - 1;
    observed[static_cast<std::size_t>(at)] += 1;
  }
  return observed;
}

void testFit(ModelFit& fit, std::vector<ChiSquareClass> classes, const std::vector<double>& observed,
             double significance) {
  std::vector<double> expected;
  for (std::size_t i = 0; i < classes.size(); ++i) {
    classes[i].observed = observed[i];
    expected.push_back(classes[i].expected);
  }
  fit.chiSquare = chiSquareStatistic(observed, expected);
  // One parameter (λ) is estimated from the data: ν = classes − 1 − 1.
  fit.dof = classes.size() >= 3 ? static_cast<std::uint32_t>(classes.size() - 2) : 0;
  if (fit.dof == 0) {
    fit.verdict = FitVerdict::Untestable;
    fit.critical = 0;
  } else {
    fit.critical = chiSquareCritical(fit.dof, significance);
    fit.verdict = fit.chiSquare <= fit.critical ? FitVerdict::Accepted : FitVerdict::Rejected;
  }
  fit.classes = std::move(classes);
}

}  // namespace

SampleFit fitSample(std::span<const TimeNs> durations, const FitOptions& options) {
  if (durations.empty()) throw std::invalid_argument("cannot fit an empty sample");
  if (std::string problem = validateFitOptions(options); !problem.empty())
    throw std::invalid_argument(problem);

  SampleFit out;
  out.quantile = options.quantile;
  ErrorHistogram& h = out.histogram;
  h.samples = durations.size();
  h.minNs = *std::min_element(durations.begin(), durations.end());

  // Errors t − min(S) (eq. 1 with min(S) for t_min) and their common tick.
  std::vector<TimeNs> errors(durations.size());
  TimeNs tick = 0;
  for (std::size_t i = 0; i < durations.size(); ++i) {
    errors[i] = durations[i] - h.minNs;
    tick = std::gcd(tick, errors[i]);
  }
  if (tick == 0) tick = 1;
  h.windowNs = options.fixedWindowNs > 0 ? options.fixedWindowNs
                                         : chooseWindow(errors, tick, options.minWindowNs);
  // A fixed window need not be a multiple of the tick; gcd(tick, w) is then the step on which
  // errors and class bounds both lie.
  h.resolutionNs = std::gcd(tick, h.windowNs);

  // Mean class k̄: all both maximum-likelihood fits need (error_models.h).
  long double classSum = 0;
  for (TimeNs e : errors) {
    const auto k = static_cast<std::uint64_t>(e / h.windowNs);
    classSum += static_cast<long double>(k);
    h.maxClass = std::max(h.maxClass, k);
  }
  h.meanClass = static_cast<double>(classSum / static_cast<long double>(h.samples));

  out.poisson = stats_detail::fitPoisson(h.meanClass);
  out.exponential = stats_detail::fitExponential(h.meanClass, h.windowNs);
  std::vector<ModelFit*> fits;
  std::vector<std::vector<ChiSquareClass>> classes;
  for (ModelFit* f : {&out.poisson, &out.exponential}) {
    if (!f->fitted) continue;
    f->quantileClass = options.quantile >= 1
                           ? std::numeric_limits<std::uint64_t>::max()
                           : stats_detail::quantileClass(*f, h.windowNs, options.quantile);
    f->errMaxNs = errorAtQuantileClass(f->quantileClass, h.windowNs, h.resolutionNs);
    fits.push_back(f);
    classes.push_back(testClasses(*f, h.windowNs, h.samples, options.minExpected));
  }

  h.counts.assign(denseClassCount(fits, classes, h.maxClass), 0);
  for (TimeNs e : errors) {
    const auto k = static_cast<std::uint64_t>(e / h.windowNs);
    if (k < h.counts.size()) ++h.counts[k];
    else ++h.overflow;
  }
  std::vector<std::uint64_t> prefix(h.counts.size() + 1, 0);
  std::partial_sum(h.counts.begin(), h.counts.end(), prefix.begin() + 1);

  for (std::size_t i = 0; i < fits.size(); ++i) {
    const std::vector<double> observed = observedCounts(classes[i], h, prefix, errors);
    testFit(*fits[i], std::move(classes[i]), observed, options.significance);
  }

  // §7: the model with the lowest χ̂² (ties: Poisson, the paper's first model).
  out.chosen = ErrorModel::Poisson;
  if (out.exponential.fitted && out.exponential.chiSquare < out.poisson.chiSquare)
    out.chosen = ErrorModel::Exponential;
  const TimeNs errMax = out.chosenFit().errMaxNs;
  out.tMaxNs = errMax == kUnboundedNs || errMax > kUnboundedNs - h.minNs ? kUnboundedNs : h.minNs + errMax;
  return out;
}

}  // namespace perwiz
