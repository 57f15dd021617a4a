// Statistical detection of communication overhead (Kluge et al.): the χ² test, the fits on
// samples drawn from known distributions, the paper's rules on inputs worked by hand, t_oh and
// its totals on hand-built traces, the profile T_f(p, b), and `perwiz-cli overhead`.
#include "cli_runner.h"
#include "test_support.h"
#include "test_traces.h"

#include "perwiz/chi_square.h"
#include "perwiz/duration_fit.h"
#include "perwiz/overhead_detection.h"
#include "perwiz/overhead_profile.h"
#include "perwiz/trace_io.h"

#include <boost/math/distributions/chi_squared.hpp>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <sys/wait.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <random>
#include <sstream>

namespace fs = std::filesystem;
using namespace perwiz;
using perwiz::test::Rank;
using perwiz::test::Tb;

namespace {

// Poisson CDF by its series, P(K ≤ k) = e^(−λ) Σ_{i ≤ k} λ^i / i!, for expectations by hand.
double poissonCdf(double lambda, int k) {
  double term = std::exp(-lambda), sum = 0;
  for (int i = 0; i <= k; ++i) {
    sum += term;
    term *= lambda / (i + 1);
  }
  return sum;
}

// Observed counts of a small histogram, for mergeSparseClasses.
std::function<double(std::uint64_t, std::uint64_t)> countsIn(const std::vector<double>& h) {
  return [h](std::uint64_t first, std::uint64_t last) {
    double s = 0;
    for (std::uint64_t k = first; k < h.size() && k <= last; ++k) s += h[k];
    return s;
  };
}

std::vector<TimeNs> shuffled(std::vector<TimeNs> v, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::shuffle(v.begin(), v.end(), rng);
  return v;
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// χ² statistic, upper limit, merging of classes (§7)

TEST(ChiSquare, StatisticOfAHandExample) {
  // Σ (B − E)² / E = (15² + 5² + 5² + 15²) / 25 = 500 / 25 = 20.
  EXPECT_DOUBLE_EQ(chiSquareStatistic({10, 20, 30, 40}, {25, 25, 25, 25}), 20.0);
  EXPECT_THROW(chiSquareStatistic({1, 2}, {1}), std::invalid_argument);
}

TEST(ChiSquare, CriticalValueForTwoDegreesOfFreedomIsClosedForm) {
  // χ²₂ is exponential with mean 2: P(X > x) = e^(−x/2) = α  →  x = −2 ln α.
  for (double alpha : {0.05, 0.01, 0.1})
    EXPECT_NEAR(chiSquareCritical(2, alpha), -2 * std::log(alpha), 1e-9) << alpha;
  // The table value every textbook prints for ν = 2, α = 0.05.
  EXPECT_NEAR(chiSquareCritical(2, 0.05), 5.991, 5e-4);
}

TEST(ChiSquare, AboveThirtyDegreesTheApproximationIsUsed) {
  const double z = 1.6448536269514722;  // standard normal 0.95 quantile
  for (std::uint32_t nu : {31u, 40u, 50u, 200u}) {
    // Eq. 9 by hand: ν (1 − 2/(9ν) + z √(2/(9ν)))³.
    const double a = 2.0 / (9.0 * nu);
    const double byHand = nu * std::pow(1 - a + z * std::sqrt(a), 3);
    EXPECT_NEAR(wilsonHilfertyCritical(nu, 0.05), byHand, 1e-9 * byHand) << nu;
    EXPECT_DOUBLE_EQ(chiSquareCritical(nu, 0.05), wilsonHilfertyCritical(nu, 0.05)) << nu;
    // Against Boost's exact quantile: Wilson–Hilferty is within 0.1 % from ν = 30 on.
    const double exact = boost::math::quantile(boost::math::chi_squared_distribution<double>(nu), 0.95);
    EXPECT_NEAR(wilsonHilfertyCritical(nu, 0.05), exact, 1e-3 * exact) << nu;
  }
  // Up to 30 the exact quantile (the paper's table).
  EXPECT_DOUBLE_EQ(chiSquareCritical(30, 0.05),
                   boost::math::quantile(boost::math::chi_squared_distribution<double>(30), 0.95));
  EXPECT_THROW(chiSquareCritical(0, 0.05), std::invalid_argument);
  EXPECT_THROW(chiSquareCritical(3, 1.5), std::invalid_argument);
}

TEST(ChiSquare, SparseClassesAreMergedUntilEachExpectsFive) {
  // Poisson λ = 3, N = 20: E_k = 20 p_k = 1.00, 2.99, 4.48, 4.48, 3.36, …
  //   [0, 2]: 1.00 + 2.99 + 4.48 = 8.46 ≥ 5 (what is left, 20·(1 − 0.4232) = 11.5, is ≥ 5);
  //   then k = 3 alone expects 4.48 < 5, k = 4 would close it at 7.84 but leaves only
  //   20·(1 − 0.8153) = 3.69 < 5 behind, so [3, ∞) becomes the tail with 11.54.
  const double lambda = 3;
  const std::vector<double> hist = {1, 3, 4, 5, 3, 2, 1, 1};  // 20 samples
  const auto classes = mergeSparseClasses([&](std::uint64_t k) { return poissonCdf(lambda, int(k)); },
                                          countsIn(hist), 20);
  ASSERT_EQ(classes.size(), 2u);
  EXPECT_EQ(classes[0].first, 0u);
  EXPECT_EQ(classes[0].last, 2u);
  EXPECT_NEAR(classes[0].expected, 20 * poissonCdf(lambda, 2), 1e-9);
  EXPECT_EQ(classes[0].observed, 1 + 3 + 4);
  EXPECT_EQ(classes[1].first, 3u);
  EXPECT_EQ(classes[1].last, ChiSquareClass::kOpenEnd);
  EXPECT_NEAR(classes[1].expected, 20 * (1 - poissonCdf(lambda, 2)), 1e-9);
  EXPECT_EQ(classes[1].observed, 5 + 3 + 2 + 1 + 1);

  // λ = 1, N = 20: E = 7.36, 7.36, then the rest 20·(1 − 0.7358) = 5.28 is one tail class.
  const auto wide = mergeSparseClasses([](std::uint64_t k) { return poissonCdf(1, int(k)); },
                                       countsIn({8, 7, 3, 2}), 20);
  ASSERT_EQ(wide.size(), 3u);
  EXPECT_EQ(wide[0].last, 0u);
  EXPECT_EQ(wide[1].first, 1u);
  EXPECT_EQ(wide[1].last, 1u);
  EXPECT_EQ(wide[2].first, 2u);
  EXPECT_NEAR(wide[2].expected, 20 * (1 - poissonCdf(1, 1)), 1e-9);
  EXPECT_EQ(wide[2].observed, 5);
  double sum = 0;
  for (const auto& c : wide) sum += c.expected;
  EXPECT_NEAR(sum, 20, 1e-9);

  // Fewer samples than one class needs: a single class k ≥ 0.
  const auto one = mergeSparseClasses([](std::uint64_t k) { return poissonCdf(1, int(k)); }, countsIn({2, 1}), 3);
  ASSERT_EQ(one.size(), 1u);
  EXPECT_EQ(one[0].observed, 3);
}

TEST(ChiSquare, JumpingToEachClassBoundGivesTheSameClassesAsTheWalk) {
  // classAt(p) = smallest k with P(K ≤ k) ≥ p, by the same series.
  for (double lambda : {3.0, 50.0}) {
    auto cdf = [&](std::uint64_t k) { return poissonCdf(lambda, int(k)); };
    auto classAt = [&](double p) {
      std::uint64_t k = 0;
      while (cdf(k) < p) ++k;
      return k;
    };
    auto none = [](std::uint64_t, std::uint64_t) { return 0.0; };
    for (std::uint64_t n : {20u, 1000u}) {
      const auto walked = mergeSparseClasses(cdf, none, n);
      EXPECT_EQ(mergeSparseClasses(cdf, none, n, 5.0, classAt), walked) << lambda << " " << n;
      if (n == 1000) {
        EXPECT_GT(walked.size(), 3u);  // a real test, not one class
      }
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Fits on samples drawn from known distributions (§5, §6)

TEST(DurationFit, PoissonErrorsAreFittedAsPoisson) {
  // A µs timer: t = 50 µs + k µs, k ~ Poisson(4). The tick (gcd of the errors) is 1000 ns, and
  // the Freedman–Diaconis width (2·IQR·N^(−1/3) ≈ 2·3 µs / 12.6 < 1 µs) stays below it, so the
  // window is one tick and the histogram counts k − min(k) (min(k) = 0 here: P(k = 0) = e^−4,
  // 2000 draws).
  const double lambda = 4;
  const std::size_t n = 2000;
  std::mt19937_64 rng(11);
  std::poisson_distribution<int> k(lambda);
  std::vector<TimeNs> t;
  for (std::size_t i = 0; i < n; ++i) t.push_back(50'000 + 1000 * TimeNs{k(rng)});
  const SampleFit fit = fitSample(t);
  EXPECT_EQ(fit.histogram.minNs, 50'000);
  EXPECT_EQ(fit.histogram.resolutionNs, 1000);
  EXPECT_EQ(fit.histogram.windowNs, 1000);
  // The MLE λ̂ = k̄ has standard error √(λ/N) = 0.045; allow 4 of them.
  EXPECT_NEAR(fit.poisson.lambda, lambda, 4 * std::sqrt(lambda / n));
  EXPECT_EQ(fit.chosen, ErrorModel::Poisson);
  EXPECT_EQ(fit.poisson.verdict, FitVerdict::Accepted) << fit.poisson.chiSquare << " > " << fit.poisson.critical;
  EXPECT_EQ(fit.exponential.verdict, FitVerdict::Rejected);
  EXPECT_LT(fit.poisson.chiSquare, fit.exponential.chiSquare);
  // t_max = min(S) + (k_q + 1)·w − tick, k_q the fitted 0.95 quantile (8 for λ near 4:
  // P(K ≤ 7) = 0.949, P(K ≤ 8) = 0.979 at λ = 4).
  int kq = 0;
  while (poissonCdf(fit.poisson.lambda, kq) < 0.95) ++kq;
  EXPECT_EQ(fit.poisson.quantileClass, static_cast<std::uint64_t>(kq));
  EXPECT_EQ(fit.tMaxNs, 50'000 + (kq + 1) * 1000 - 1000);
}

TEST(DurationFit, ExponentialErrorsAreFittedAsExponential) {
  // t = 20 µs + ⌊X⌋ ns, X ~ Exp(rate 1/2000 per ns). The discretised exponential of any window
  // is geometric, so the MLE is exact; its standard error is λ/√N.
  const double rate = 1.0 / 2000;
  const std::size_t n = 2000;
  std::mt19937_64 rng(5);
  std::exponential_distribution<double> x(rate);
  std::vector<TimeNs> t;
  for (std::size_t i = 0; i < n; ++i) t.push_back(20'000 + static_cast<TimeNs>(x(rng)));
  const SampleFit fit = fitSample(t);
  EXPECT_NEAR(fit.exponential.lambda, rate, 4 * rate / std::sqrt(double(n)));
  EXPECT_EQ(fit.chosen, ErrorModel::Exponential);
  EXPECT_EQ(fit.exponential.verdict, FitVerdict::Accepted)
      << fit.exponential.chiSquare << " > " << fit.exponential.critical;
  EXPECT_EQ(fit.poisson.verdict, FitVerdict::Rejected);
  // t_err,max ends the class holding the continuous quantile −ln(1 − q)/λ̂: within one window.
  const double xq = -std::log(0.05) / fit.exponential.lambda;
  const TimeNs w = fit.histogram.windowNs;
  EXPECT_GE(static_cast<double>(fit.tMaxNs - fit.histogram.minNs + 1), xq);
  EXPECT_LE(static_cast<double>(fit.tMaxNs - fit.histogram.minNs), xq + w);
  // The histogram holds every sample, and the fitted pmf sums to 1 over the classes.
  std::uint64_t counted = fit.histogram.overflow;
  for (auto c : fit.histogram.counts) counted += c;
  EXPECT_EQ(counted, n);
  double mass = 0;
  for (std::uint64_t k = 0; k < 10'000; ++k) mass += fit.exponential.pmf(k, w);
  EXPECT_NEAR(mass, 1, 1e-9);
}

TEST(DurationFit, UniformAndBimodalSamplesFailBothTests) {
  std::mt19937_64 rng(3);
  std::uniform_int_distribution<TimeNs> u(0, 9999);
  std::vector<TimeNs> uniform;
  for (int i = 0; i < 2000; ++i) uniform.push_back(10'000 + u(rng));
  // Two clusters 5 µs apart, each 100 ns · Poisson(5).
  std::poisson_distribution<int> k(5);
  std::vector<TimeNs> bimodal;
  for (int i = 0; i < 2000; ++i) bimodal.push_back(1'000 + (i % 2) * 5'000 + 100 * TimeNs{k(rng)});
  for (const auto* sample : {&uniform, &bimodal}) {
    const SampleFit fit = fitSample(*sample);
    EXPECT_EQ(fit.poisson.verdict, FitVerdict::Rejected);
    EXPECT_EQ(fit.exponential.verdict, FitVerdict::Rejected);
    // §7: all models rejected. We keep the lower χ̂² (flagged) rather than no answer.
    EXPECT_EQ(fit.chosen, fit.poisson.chiSquare <= fit.exponential.chiSquare ? ErrorModel::Poisson
                                                                           : ErrorModel::Exponential);
    EXPECT_EQ(fit.tMaxNs, fit.histogram.minNs + fit.chosenFit().errMaxNs);
  }
}

TEST(DurationFit, LongWaitsKeepTheFitSmall) {
  // 990 calls of 1 µs + Poisson(3) ns and 10 that waited a second: 1 ns window, k̄ ≈ 10^7. The
  // exponential then spreads over ~10^8 histogram classes; the test classes stay ≤ N/5 and the
  // kept histogram ≤ 65536 classes, the long waits counted in `overflow`.
  std::mt19937_64 rng(9);
  std::poisson_distribution<int> k(3);
  std::vector<TimeNs> t;
  for (int i = 0; i < 990; ++i) t.push_back(1000 + k(rng));
  for (int i = 0; i < 10; ++i) t.push_back(1'000'000'000);
  const SampleFit f = fitSample(shuffled(t, 2));
  EXPECT_EQ(f.histogram.windowNs, 1);
  EXPECT_LE(f.histogram.counts.size(), 65536u);
  EXPECT_EQ(f.histogram.overflow, 10u);
  for (const ModelFit* m : {&f.poisson, &f.exponential}) {
    EXPECT_LE(m->classes.size(), 1000u / 5);
    double observed = 0;
    for (const auto& c : m->classes) observed += c.observed;
    EXPECT_EQ(observed, 1000);  // every sample lands in one test class
    EXPECT_EQ(m->verdict, FitVerdict::Rejected);
  }
}

// ---------------------------------------------------------------------------------------------
// The paper's rules on tiny samples worked by hand

// Errors {0, 0, 0, 1, 1, 2} ns over min(S) = 1000, window 1 ns: k̄ = 4/6 = 2/3.
const std::vector<TimeNs> kTiny = {1002, 1000, 1001, 1000, 1000, 1001};

TEST(PaperRules, MinimumOfTheSampleIsTheBase) {
  FitOptions o;
  o.fixedWindowNs = 1;
  const SampleFit a = fitSample(kTiny, o);
  EXPECT_EQ(a.histogram.minNs, 1000);
  EXPECT_EQ(a.histogram.counts[0], 3u);
  EXPECT_EQ(a.histogram.counts[1], 2u);
  EXPECT_EQ(a.histogram.counts[2], 1u);
  EXPECT_NEAR(a.histogram.meanClass, 2.0 / 3, 1e-12);
  // Poisson λ = 2/3: P(K ≤ 1) = e^(−2/3)(1 + 2/3) = 0.856 < 0.95 ≤ P(K ≤ 2) = 0.970, so
  // k_q = 2 and t_err,max = (2 + 1)·1 − 1 = 2 ns: t_max = 1000 + 2.
  EXPECT_NEAR(a.poisson.lambda, 2.0 / 3, 1e-12);
  EXPECT_EQ(a.poisson.quantileClass, 2u);
  EXPECT_EQ(a.poisson.errMaxNs, 2);
  // Exponential: ratio r = k̄/(1 + k̄) = 0.4, λ = ln(1/r)/w = ln 2.5 per ns;
  // 1 − 0.4^(k+1) ≥ 0.95 ⇔ k + 1 ≥ ln 0.05 / ln 0.4 = 3.27, so k_q = 3, t_err,max = 3.
  EXPECT_NEAR(a.exponential.lambda, std::log(2.5), 1e-12);
  EXPECT_EQ(a.exponential.quantileClass, 3u);
  EXPECT_EQ(a.exponential.errMaxNs, 3);
  // Six samples cannot fill two classes of 5: one class, χ̂² = 0 for both, untestable; the tie
  // goes to Poisson.
  EXPECT_EQ(a.poisson.verdict, FitVerdict::Untestable);
  EXPECT_EQ(a.poisson.classes.size(), 1u);
  EXPECT_EQ(a.chosen, ErrorModel::Poisson);
  EXPECT_EQ(a.tMaxNs, 1002);
  // Eq. 2 is relative to min(S): shifting the sample shifts t_max and nothing else.
  std::vector<TimeNs> later = kTiny;
  for (TimeNs& t : later) t += 500;
  const SampleFit b = fitSample(later, o);
  EXPECT_EQ(b.tMaxNs, 1502);
  EXPECT_EQ(b.poisson.lambda, a.poisson.lambda);
}

TEST(PaperRules, WindowIsNeverBelowTheTimerResolution) {
  // Timer resolution 4 ns: every error falls into class 0, k̄ = 0, both "fits" are the point
  // mass (exponential undefined) and t_max = min + (0 + 1)·4 − 1 = 1003.
  FitOptions o;
  o.minWindowNs = 4;
  const SampleFit f = fitSample(kTiny, o);
  EXPECT_EQ(f.histogram.windowNs, 4);
  EXPECT_EQ(f.histogram.meanClass, 0);
  EXPECT_FALSE(f.exponential.fitted);
  EXPECT_EQ(f.chosen, ErrorModel::Poisson);
  EXPECT_EQ(f.tMaxNs, 1003);
  o.fixedWindowNs = 2;  // a fixed window below the resolution is refused
  EXPECT_NE(validateFitOptions(o), "");
  EXPECT_THROW(fitSample(kTiny, o), std::invalid_argument);
}

TEST(PaperRules, AutomaticWindowIsFreedmanDiaconisOnTheTick) {
  // Errors 0, 3, 6, …, 2997 (tick 3 ns), N = 1000: the quartiles at positions 249 and 749 are
  // 747 and 2247, IQR = 1500, 2·1500·1000^(−1/3) = 300 ns = 100 ticks.
  std::vector<TimeNs> e;
  for (TimeNs i = 0; i < 1000; ++i) e.push_back(3 * i);
  std::vector<TimeNs> copy = e;
  EXPECT_EQ(chooseWindow(copy, 3, 1), 300);
  // A resolution of 1000 ns is not a multiple of the 3 ns tick: the window rounds up to one.
  copy = e;
  EXPECT_EQ(chooseWindow(copy, 3, 1000), 1002);
  // fitSample finds the tick itself.
  std::vector<TimeNs> t;
  for (TimeNs x : e) t.push_back(7 + x);
  EXPECT_EQ(fitSample(shuffled(t, 1)).histogram.windowNs, 300);
  EXPECT_EQ(fitSample(shuffled(t, 1)).histogram.resolutionNs, 3);
}

TEST(PaperRules, QuantileRangeAndItsEffect) {
  FitOptions o;
  for (double q : {0.79, 1.01, -1.0, std::nan("")}) {
    o.quantile = q;
    EXPECT_NE(validateFitOptions(o), "") << q;
  }
  for (double q : {0.8, 0.95, 1.0}) {
    o.quantile = q;
    EXPECT_EQ(validateFitOptions(o), "") << q;
  }
  o.fixedWindowNs = 1;
  // q_max = 0.8 on the tiny sample: P(K ≤ 0) = e^(−2/3) = 0.513 < 0.8 ≤ P(K ≤ 1) = 0.856: k_q = 1.
  o.quantile = 0.8;
  EXPECT_EQ(fitSample(kTiny, o).tMaxNs, 1001);
  // q_max = 1 accepts every duration.
  o.quantile = 1;
  EXPECT_EQ(fitSample(kTiny, o).tMaxNs, kUnboundedNs);
}

TEST(PaperRules, TheLowerChiSquareIsKept) {
  // Exponential-looking errors (ns): 40 in class 0, 20 in 1, 10 in 2, 5 in 3, 3 in 4, 2 in 5 with
  // a 1 ns window. Both fits are tested on their own merged classes and the lower χ̂² wins.
  std::vector<TimeNs> t;
  const int counts[] = {40, 20, 10, 5, 3, 2};
  for (int k = 0; k < 6; ++k)
    for (int i = 0; i < counts[k]; ++i) t.push_back(100 + k);
  FitOptions o;
  o.fixedWindowNs = 1;
  const SampleFit f = fitSample(t, o);
  // k̄ = (20 + 20 + 15 + 12 + 10) / 80 = 77/80.
  EXPECT_NEAR(f.histogram.meanClass, 77.0 / 80, 1e-12);
  ASSERT_TRUE(f.exponential.fitted);
  const ErrorModel lower =
      f.exponential.chiSquare < f.poisson.chiSquare ? ErrorModel::Exponential : ErrorModel::Poisson;
  EXPECT_EQ(f.chosen, lower);
  EXPECT_EQ(f.chosen, ErrorModel::Exponential);  // halving counts is geometric, not Poisson
  // ν = test classes − 1 − 1 (λ is estimated).
  EXPECT_EQ(f.exponential.dof + 2, f.exponential.classes.size());
  // The statistic is eq. 8 over the merged classes.
  double chi = 0;
  for (const auto& c : f.exponential.classes) chi += (c.observed - c.expected) * (c.observed - c.expected) / c.expected;
  EXPECT_NEAR(f.exponential.chiSquare, chi, 1e-9);
}

// ---------------------------------------------------------------------------------------------
// t_oh and the totals on hand-built traces

namespace {

// Rank 0 sends three 8-byte messages to rank 1, two inside state "solve"; both then meet in a
// barrier. Durations: sends 50, 300, 250; receives 190, 290, 260; barriers 100 each.
Trace sendRecvTrace() {
  Tb b(2);
  b.open(0, 0, "solve");
  b.send(0, 10, 60, 1);
  b.send(0, 100, 400, 1);
  b.close(0, 1000, "solve");
  b.send(0, 1100, 1350, 1);
  b.barrier(0, 2000, 2100);
  b.open(1, 0, "solve");
  b.recv(1, 10, 200, 0);
  b.recv(1, 210, 500, 0);
  b.close(1, 1000, "solve");
  b.recv(1, 1100, 1360, 0);
  b.barrier(1, 2000, 2100);
  return b.take();
}

OverheadProfile handProfile() {
  // T_Send(2, 8) = 100 ns, T_Recv(2, 8) = 200 ns; no barrier (it is fitted).
  OverheadProfile p;
  std::string problem;
  p.functions.push_back(*makeProfileFunction("MPI_Recv", {{2, 8, 200, std::nullopt}}, &problem));
  p.functions.push_back(*makeProfileFunction("MPI_Send", {{2, 8, 100, std::nullopt}}, &problem));
  return p;
}

}  // namespace

TEST(OverheadAnalysis, OverheadAndTotalsOnAHandBuiltTrace) {
  const Trace trace = sendRecvTrace();
  const OverheadProfile profile = handProfile();
  OverheadOptions o;
  o.profile = &profile;
  const OverheadAnalysis a = analyzeOverhead(trace, o);

  // t_oh = max(t − t_max, 0): sends 50, 300, 250 against 100 → 0, 200, 150;
  // receives 190, 290, 260 against 200 → 0, 90, 60; barriers 100 against their own fit, whose
  // sample {100, 100} has no spread: t_max = 100 → 0.
  ASSERT_EQ(a.overheadOfCall.size(), 2u);
  EXPECT_EQ(a.overheadOfCall[0], (std::vector<TimeNs>{0, 200, 150, 0}));
  EXPECT_EQ(a.overheadOfCall[1], (std::vector<TimeNs>{0, 90, 60, 0}));
  EXPECT_EQ(a.total.overheadNs, 200 + 150 + 90 + 60);
  EXPECT_EQ(a.total.calls, 8u);
  EXPECT_EQ(a.total.timeNs, 50 + 300 + 250 + 190 + 290 + 260 + 100 + 100);

  // Per call site (enclosing state + function), largest first:
  // solve/Send 200, top/Send 150, solve/Recv 90, top/Recv 60, top/Barrier 0.
  ASSERT_EQ(a.sites.size(), 5u);
  const std::vector<std::tuple<std::string, std::string, TimeNs, std::uint64_t>> sites = {
      {"solve", "MPI_Send", 200, 2}, {kTopLevelSite, "MPI_Send", 150, 1}, {"solve", "MPI_Recv", 90, 2},
      {kTopLevelSite, "MPI_Recv", 60, 1}, {kTopLevelSite, "MPI_Barrier", 0, 2}};
  for (std::size_t i = 0; i < sites.size(); ++i) {
    EXPECT_EQ(a.sites[i].region, std::get<0>(sites[i])) << i;
    EXPECT_EQ(a.sites[i].function, std::get<1>(sites[i])) << i;
    EXPECT_EQ(a.sites[i].totals.overheadNs, std::get<2>(sites[i])) << i;
    EXPECT_EQ(a.sites[i].totals.calls, std::get<3>(sites[i])) << i;
  }
  // Per function: Send 350, Recv 150, Barrier 0. Per rank: 0 → 350, 1 → 150.
  ASSERT_EQ(a.functions.size(), 3u);
  EXPECT_EQ(a.functions[0].function, "MPI_Send");
  EXPECT_EQ(a.functions[0].totals.overheadNs, 350);
  EXPECT_EQ(a.functions[0].totals.timeNs, 600);
  EXPECT_EQ(a.functions[1].function, "MPI_Recv");
  EXPECT_EQ(a.functions[1].totals.overheadNs, 150);
  EXPECT_EQ(a.functions[2].function, "MPI_Barrier");
  ASSERT_EQ(a.ranks.size(), 2u);
  EXPECT_EQ(a.ranks[0].rank, 0u);
  EXPECT_EQ(a.ranks[0].totals.overheadNs, 350);
  EXPECT_EQ(a.ranks[1].rank, 1u);
  EXPECT_EQ(a.ranks[1].totals.overheadNs, 150);

  // Classes: (Send, p = 2, b = 8) and (Recv, 2, 8) from the profile; (Barrier, 2, 0) fitted.
  ASSERT_EQ(a.classes.size(), 3u);
  const CallClassOverhead& send = a.classes[a.classOfCall[0][0]];
  EXPECT_EQ(send.function, "MPI_Send");
  EXPECT_EQ(send.processes, 2u);
  EXPECT_EQ(send.bytes, 8u);
  EXPECT_EQ(send.source, ThresholdSource::Profile);
  EXPECT_EQ(send.tMaxNs, 100);
  EXPECT_EQ(send.minNs, 50);
  EXPECT_FALSE(send.fit.has_value());
  const CallClassOverhead& barrier = a.classes[a.classOfCall[1][3]];
  EXPECT_EQ(barrier.function, "MPI_Barrier");
  EXPECT_EQ(barrier.processes, 2u);
  EXPECT_EQ(barrier.bytes, 0u);
  EXPECT_EQ(barrier.source, ThresholdSource::Fit);
  ASSERT_TRUE(barrier.fit.has_value());
  EXPECT_EQ(barrier.tMaxNs, 100);

  // By event index: rank 0's second send is event 2 (event 0 is the state).
  EXPECT_EQ(a.overheadAtEvent(trace, 0, trace.ranks[0].mpiCalls[1]), 200);
  EXPECT_EQ(a.overheadAtEvent(trace, 0, 0), 0);  // the state itself
}

TEST(OverheadAnalysis, FittedClassInATrace) {
  // One rank, seven barriers of 1000, 1000, 1000, 1001, 1001, 1002, 1010 ns; window 1 ns.
  // Errors {0,0,0,1,1,2,10}: k̄ = 14/7 = 2. Poisson λ = 2: P(K ≤ 4) = 0.947 < 0.95 ≤
  // P(K ≤ 5) = 0.983, k_q = 5, t_max = 1000 + 6·1 − 1 = 1005. (The exponential gives k_q = 7;
  // seven samples make one test class, χ̂² = 0 for both, and the tie goes to Poisson.)
  Tb b(1);
  TimeNs at = 0;
  for (TimeNs d : {1000, 1001, 1000, 1010, 1002, 1000, 1001}) {
    b.barrier(0, at, at + d);
    at += 5000;
  }
  const Trace trace = b.take();
  OverheadOptions o;
  o.fit.fixedWindowNs = 1;
  const OverheadAnalysis a = analyzeOverhead(trace, o);
  ASSERT_EQ(a.classes.size(), 1u);
  EXPECT_EQ(a.classes[0].processes, 1u);
  EXPECT_EQ(a.classes[0].tMaxNs, 1005);
  EXPECT_EQ(a.classes[0].fit->exponential.quantileClass, 7u);
  EXPECT_EQ(a.overheadOfCall[0], (std::vector<TimeNs>{0, 0, 0, 5, 0, 0, 0}));
  EXPECT_EQ(a.total.overheadNs, 5);
}

TEST(OverheadAnalysis, NonCommunicationCallsAreNotAnalysed) {
  Tb b(1);
  b.call(0, 0, 10'000, "MPI_Init");
  b.call(0, 10'000, 10'010, "MPI_Comm_rank");
  b.barrier(0, 20'000, 20'100);
  b.call(0, 30'000, 40'000, "MPI_Finalize");
  const Trace trace = b.take();
  const OverheadAnalysis a = analyzeOverhead(trace);
  EXPECT_EQ(a.total.calls, 1u);
  EXPECT_EQ(a.classOfCall[0], (std::vector<std::uint32_t>{kNone32, kNone32, 0, kNone32}));
  EXPECT_EQ(overheadFunctionName({"SEND", EventKind::MpiCall, MpiOp::Send, ""}), "MPI_Send");
  OverheadOptions bad;
  bad.fit.quantile = 0.5;
  EXPECT_THROW(analyzeOverhead(trace, bad), std::invalid_argument);
}

// ---------------------------------------------------------------------------------------------
// The profile T_f(p, b) (§8)

namespace {
// T(4, 100) = 1000, T(4, 200) = 1400, T(8, 100) = 2000, T(8, 200) = 3000.
ProfileFunction grid() {
  std::string problem;
  auto f = makeProfileFunction("MPI_Allreduce",
                               {{8, 200, 3000, {}}, {4, 100, 1000, {}}, {8, 100, 2000, {}}, {4, 200, 1400, {}}},
                               &problem);
  EXPECT_TRUE(f) << problem;
  return *f;
}
}  // namespace

TEST(Profile, BilinearInterpolationBetweenFourBasePoints) {
  const ProfileFunction f = grid();
  EXPECT_EQ(f.processes, (std::vector<std::uint32_t>{4, 8}));
  EXPECT_EQ(f.bytes, (std::vector<std::uint64_t>{100, 200}));
  // Base points come back exactly.
  EXPECT_EQ(evaluateProfile(f, 8, 100).tMaxNs, 2000);
  // (6, 150): u = v = 1/2, the mean of the corners (1000 + 1400 + 2000 + 3000)/4 = 1850.
  EXPECT_EQ(evaluateProfile(f, 6, 150).tMaxNs, 1850);
  // (5, 125): u = v = 1/4: 9/16·1000 + 3/16·1400 + 3/16·2000 + 1/16·3000 = 1387.5 → 1388.
  const ProfileValue v = evaluateProfile(f, 5, 125);
  EXPECT_EQ(v.tMaxNs, 1388);
  EXPECT_TRUE(v.insideGrid);
}

TEST(Profile, OutsideTheGridPIsClampedAndBExtrapolated) {
  const ProfileFunction f = grid();
  // p = 16 > 8: clamped to 8; b = 150 halfway: (2000 + 3000)/2.
  ProfileValue v = evaluateProfile(f, 16, 150);
  EXPECT_EQ(v.tMaxNs, 2500);
  EXPECT_FALSE(v.insideGrid);
  // p = 2 < 4: clamped to 4.
  EXPECT_EQ(evaluateProfile(f, 2, 100).tMaxNs, 1000);
  // b = 400 at p = 4: the line through (100, 1000) and (200, 1400): 1000 + 3·400 = 2200.
  v = evaluateProfile(f, 4, 400);
  EXPECT_EQ(v.tMaxNs, 2200);
  EXPECT_FALSE(v.insideGrid);
  // b = 0 at p = 8: 2000 − 1·1000 = 1000.
  EXPECT_EQ(evaluateProfile(f, 8, 0).tMaxNs, 1000);
  // Never below 0: at p = 4 through (100, 100) and (200, 1000), b = 0 gives 100 − 900 → 0.
  std::string problem;
  auto steep = makeProfileFunction("MPI_Send", {{4, 100, 100, {}}, {4, 200, 1000, {}}}, &problem);
  ASSERT_TRUE(steep) << problem;
  EXPECT_EQ(evaluateProfile(*steep, 4, 0).tMaxNs, 0);
  // A single base point is constant everywhere.
  auto single = makeProfileFunction("MPI_Send", {{8, 4, 777, {}}}, &problem);
  ASSERT_TRUE(single);
  EXPECT_EQ(evaluateProfile(*single, 3, 1'000'000).tMaxNs, 777);
}

TEST(Profile, BasePointsOfThePaper) {
  EXPECT_EQ(profileBaseProcessCounts(16), (std::vector<std::uint32_t>{2, 3, 4, 6, 8, 12, 16}));
  EXPECT_EQ(profileBaseProcessCounts(1), std::vector<std::uint32_t>{});
  std::vector<std::uint64_t> toThousand = {1};
  for (std::uint64_t d : {10, 100})
    for (std::uint64_t m = 1; m <= 9; ++m) toThousand.push_back(m * d);
  toThousand.push_back(1000);
  EXPECT_EQ(profileBaseMessageSizes(1000), toThousand);
  // Default up to 4 MiB: 1, five full decades of nine (10 … 900000), 10^6 … 4·10^6, 4194304.
  const auto sizes = profileBaseMessageSizes();
  EXPECT_EQ(sizes.size(), 1u + 5 * 9 + 4 + 1);
  EXPECT_EQ(sizes[sizes.size() - 2], 4'000'000u);
  EXPECT_EQ(sizes.back(), 4u << 20);
}

TEST(Profile, BuiltFromSamplesRoundTripsThroughJson) {
  // Two p × two b, each sample a fixed-shape error pattern over a different minimum.
  std::vector<ProfileSample> samples;
  for (std::uint32_t p : {2u, 4u})
    for (std::uint64_t b : {1u, 1000u}) {
      ProfileSample s{"MPI_Allreduce", p, b, {}};
      for (TimeNs t : kTiny) s.durations.push_back(t + 100 * p + TimeNs(b));
      samples.push_back(s);
    }
  FitOptions o;
  o.fixedWindowNs = 1;
  const OverheadProfile profile = buildOverheadProfile(samples, o, "test machine");
  ASSERT_EQ(profile.functions.size(), 1u);
  const ProfileFunction& f = profile.functions[0];
  ASSERT_EQ(f.points.size(), 4u);
  // Every point is the tiny sample's t_max (min + 2) over its own minimum 1000 + 100p + b.
  EXPECT_EQ(f.points[0].tMaxNs, 1000 + 200 + 1 + 2);
  EXPECT_EQ(f.points[3].tMaxNs, 1000 + 400 + 1000 + 2);
  ASSERT_TRUE(f.points[0].fit);
  EXPECT_EQ(f.points[0].fit->model, ErrorModel::Poisson);
  EXPECT_EQ(f.points[0].fit->samples, kTiny.size());

  const fs::path dir = perwiz::test::freshDir("overhead_profile");
  const std::string path = (dir / "profile.json").string();
  std::string error;
  ASSERT_TRUE(saveOverheadProfile(profile, path, &error)) << error;
  EXPECT_FALSE(saveOverheadProfile(profile, path, &error));  // never overwritten
  EXPECT_NE(error.find("exists"), std::string::npos) << error;
  auto loaded = loadOverheadProfile(path, &error);
  ASSERT_TRUE(loaded) << error;
  EXPECT_EQ(*loaded, profile);

  // At q_max = 0.8 the tiny sample's class is k_q = 1 (PaperRules.QuantileRangeAndItsEffect):
  // every point becomes min + 1; back at 0.95 it is the profile itself.
  std::string why;
  auto at80 = profileAtQuantile(profile, 0.8, &why);
  ASSERT_TRUE(at80) << why;
  EXPECT_EQ(at80->quantile, 0.8);
  EXPECT_EQ(at80->functions[0].points[0].tMaxNs, 1000 + 200 + 1 + 1);
  EXPECT_EQ(*profileAtQuantile(*at80, 0.95, &why), profile);
  EXPECT_EQ(profileAtQuantile(profile, 1.0, &why)->functions[0].points[3].tMaxNs, kUnboundedNs);
  EXPECT_FALSE(profileAtQuantile(profile, 0.5, &why));

  // Samples that do not form a grid, or repeat a point, are refused with the point named.
  samples.pop_back();
  try {
    buildOverheadProfile(samples, o);
    ADD_FAILURE() << "incomplete grid accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("p=4, b=1000 is missing"), std::string::npos) << e.what();
  }
  samples.push_back(samples.front());
  EXPECT_THROW(buildOverheadProfile(samples, o), std::invalid_argument);
}

TEST(Profile, BadFilesNameTheFileAndTheProblem) {
  const fs::path dir = perwiz::test::freshDir("overhead_profile_bad");
  struct Case {
    const char* name;
    std::string text;
    const char* problem;
  };
  const std::string head = R"("format": "perwiz-overhead-profile", "version": 1, "quantile": 0.95)";
  const std::vector<Case> cases = {
      {"not_json", "{ nope", "invalid JSON"},
      {"array", "[1, 2]", "expected a JSON object"},
      {"network_model", R"({"model": "LogGPS", "L_us": 9.11, "o_us": 2.15, "S_bytes": 16383})",
       "this is a LogGPS network model file (key 'model'), not an overhead profile; give it to --model"},
      {"format", R"({"format": "other", "version": 1, "quantile": 0.95, "functions": []})", "expected 'perwiz-overhead-profile'"},
      {"version", R"({"format": "perwiz-overhead-profile", "version": 9, "quantile": 0.95, "functions": []})", "version 9"},
      {"quantile", R"({"format": "perwiz-overhead-profile", "version": 1, "quantile": 0.5, "functions": []})", "quantile 0.5 is outside [0.8, 1]"},
      {"no_functions", "{" + head + "}", "missing key 'functions'"},
      {"no_tmax", "{" + head + R"(, "functions": [{"name": "MPI_Send", "points": [{"p": 2, "b": 1}]}]})",
       "functions[0].points[0]: missing key 't_max_ns'"},
      {"negative", "{" + head + R"(, "functions": [{"name": "MPI_Send", "points": [{"p": 2, "b": 1, "t_max_ns": -5}]}]})",
       "'t_max_ns' must be an integer"},
      {"p_zero", "{" + head + R"(, "functions": [{"name": "MPI_Send", "points": [{"p": 0, "b": 1, "t_max_ns": 5}]}]})",
       "'p' must be an integer in [1"},
      {"hole", "{" + head + R"(, "functions": [{"name": "MPI_Send", "points": [{"p": 2, "b": 1, "t_max_ns": 5},
           {"p": 4, "b": 10, "t_max_ns": 7}]}]})", "p=2, b=10 is missing"},
      {"twice", "{" + head + R"(, "functions": [{"name": "MPI_Send", "points": [{"p": 2, "b": 1, "t_max_ns": 5}]},
           {"name": "MPI_Send", "points": [{"p": 2, "b": 1, "t_max_ns": 5}]}]})", "appears twice"},
      {"model", "{" + head + R"(, "functions": [{"name": "MPI_Send", "points": [{"p": 2, "b": 1, "t_max_ns": 5,
           "fit": {"samples": 3, "t_min_ns": 1, "window_ns": 1, "resolution_ns": 1, "model": "normal", "lambda": 1,
                   "chi2": 0, "dof": 0, "critical": 0, "verdict": "accepted"}}]}]})", "unknown model 'normal'"},
  };
  for (const Case& c : cases) {
    const std::string path = perwiz::test::writeFile(dir / (std::string(c.name) + ".json"), c.text).string();
    std::string error;
    EXPECT_FALSE(loadOverheadProfile(path, &error)) << c.name;
    EXPECT_EQ(error.rfind(path + ": ", 0), 0u) << c.name << ": " << error;
    EXPECT_NE(error.find(c.problem), std::string::npos) << c.name << ": " << error;
  }
  std::string error;
  EXPECT_FALSE(loadOverheadProfile((dir / "absent.json").string(), &error));
  EXPECT_NE(error.find("absent.json: cannot open"), std::string::npos) << error;
  EXPECT_FALSE(loadOverheadProfile(dir.string(), &error));
  EXPECT_NE(error.find("is a directory"), std::string::npos) << error;
}

// ---------------------------------------------------------------------------------------------
// perwiz-cli overhead

namespace {

using perwiz::test::CliResult;
using perwiz::test::readAll;

// Runs perwiz-cli with the arguments, stdout and stderr captured in `dir`.
CliResult cli(const fs::path& dir, const std::vector<std::string>& args) {
  return perwiz::test::runProgram(PERWIZ_CLI, dir, args);
}

// Four ranks in a ring, 60 steps: Sendrecv of 1 KiB with durations 2 µs + Poisson(3) · 100 ns,
// every tenth one late by 40 µs, and an Allreduce of 3 µs + exponential noise.
Trace noisyRing() {
  Tb b(4);
  std::mt19937_64 rng(42);
  std::poisson_distribution<int> poisson(3);
  std::exponential_distribution<double> expo(1.0 / 500);
  std::vector<TimeNs> clock(4, 0);
  for (int step = 0; step < 60; ++step) {
    for (Rank r = 0; r < 4; ++r) {
      const TimeNs d = 2000 + 100 * TimeNs{poisson(rng)} + (step % 10 == 3 && r == 1 ? 40'000 : 0);
      b.sendrecv(r, clock[r], clock[r] + d, (r + 1) % 4, 1024, (r + 3) % 4, 1024);
      clock[r] += d + 1000;
    }
    for (Rank r = 0; r < 4; ++r) {
      const TimeNs d = 3000 + static_cast<TimeNs>(expo(rng));
      b.coll(r, clock[r], clock[r] + d, MpiOp::Allreduce, -1, 8);
      clock[r] += d + 1000;
    }
  }
  return b.take();
}

}  // namespace

TEST(OverheadCli, JsonMatchesTheCoreApi) {
  const fs::path dir = perwiz::test::freshDir("overhead_cli");
  const std::string tracePath = (dir / "ring.otf2").string();
  saveTrace(noisyRing(), tracePath);

  const CliResult r = cli(dir, {"overhead", tracePath, "--json", "--quantile", "0.9", "--events"});
  ASSERT_EQ(r.status, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  for (const char* key : {"trace", "quantile", "significance", "min_window_ns", "window_ns", "profile", "site_kind",
                          "total", "by_site", "by_function", "by_rank", "classes", "events"})
    EXPECT_TRUE(j.contains(key)) << key;

  // The same analysis through the API, on the trace as the CLI read it.
  const Trace trace = loadTrace(tracePath);
  OverheadOptions o;
  o.fit.quantile = 0.9;
  const OverheadAnalysis a = analyzeOverhead(trace, o);
  EXPECT_EQ(j["quantile"], 0.9);
  EXPECT_EQ(j["total"]["overhead_ns"], a.total.overheadNs);
  EXPECT_EQ(j["total"]["calls"], a.total.calls);
  EXPECT_GT(a.total.overheadNs, 0);  // the late Sendrecvs
  ASSERT_EQ(j["classes"].size(), a.classes.size());
  for (std::size_t i = 0; i < a.classes.size(); ++i) {
    const nlohmann::json& c = j["classes"][i];
    EXPECT_EQ(c["function"], a.classes[i].function);
    EXPECT_EQ(c["p"], a.classes[i].processes);
    EXPECT_EQ(c["b"], a.classes[i].bytes);
    EXPECT_EQ(c["t_max_ns"], a.classes[i].tMaxNs);
    EXPECT_EQ(c["overhead_ns"], a.classes[i].totals.overheadNs);
    EXPECT_EQ(c["source"], "fit");
    ASSERT_TRUE(a.classes[i].fit);
    EXPECT_EQ(c["fit"]["chosen"], errorModelName(a.classes[i].fit->chosen));
    EXPECT_EQ(c["fit"]["window_ns"], a.classes[i].fit->histogram.windowNs);
    EXPECT_DOUBLE_EQ(c["fit"]["poisson"]["lambda"].get<double>(), a.classes[i].fit->poisson.lambda);
    EXPECT_DOUBLE_EQ(c["fit"]["poisson"]["chi2"].get<double>(), a.classes[i].fit->poisson.chiSquare);
  }
  // Sendrecv (p = 4, b = 2 KiB both ways) and Allreduce (p = 4, b = 8).
  ASSERT_EQ(a.classes.size(), 2u);
  EXPECT_EQ(a.classes[0].function, "MPI_Sendrecv");
  EXPECT_EQ(a.classes[0].bytes, 2048u);
  ASSERT_EQ(j["by_rank"].size(), 4u);
  for (std::size_t i = 0; i < 4; ++i) {
    EXPECT_EQ(j["by_rank"][i]["rank"], a.ranks[i].rank);
    EXPECT_EQ(j["by_rank"][i]["overhead_ns"], a.ranks[i].totals.overheadNs);
  }
  EXPECT_EQ(j["by_rank"][0]["rank"], 1);  // the late rank comes first
  ASSERT_EQ(j["by_site"].size(), a.sites.size());
  EXPECT_EQ(j["by_site"][0]["region"], kTopLevelSite);
  EXPECT_EQ(j["by_site"][0]["function"], "MPI_Sendrecv");
  ASSERT_EQ(j["events"].size(), a.total.calls);
  EXPECT_EQ(j["events"][0]["id"], "0:0");
  EXPECT_EQ(j["events"][0]["overhead_ns"], a.overheadOfCall[0][0]);

  const CliResult text = cli(dir, {"overhead", tracePath});
  ASSERT_EQ(text.status, 0) << text.err;
  for (const char* heading : {"by call site", "by function", "by rank", "classes", "MPI_Sendrecv"})
    EXPECT_NE(text.out.find(heading), std::string::npos) << heading;
}

TEST(OverheadCli, ProfileReplacesTheFit) {
  const fs::path dir = perwiz::test::freshDir("overhead_cli_profile");
  const std::string tracePath = (dir / "hand.otf2").string();
  saveTrace(sendRecvTrace(), tracePath);
  const std::string profilePath = (dir / "profile.json").string();
  std::string error;
  ASSERT_TRUE(saveOverheadProfile(handProfile(), profilePath, &error)) << error;
  const CliResult r = cli(dir, {"overhead", tracePath, "--profile", profilePath, "--json"});
  ASSERT_EQ(r.status, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  // As in OverheadAnalysis.OverheadAndTotalsOnAHandBuiltTrace: 200 + 150 + 90 + 60.
  EXPECT_EQ(j["total"]["overhead_ns"], 500);
  EXPECT_EQ(j["profile"]["file"], profilePath);
  EXPECT_EQ(j["by_function"][0]["function"], "MPI_Send");
  EXPECT_EQ(j["by_function"][0]["overhead_ns"], 350);
  for (const auto& c : j["classes"])
    EXPECT_EQ(c["source"], c["function"] == "MPI_Barrier" ? "fit" : "profile") << c.dump();
}

TEST(Profile, WithoutFitsItCannotChangeQuantile) {
  std::string why;
  EXPECT_FALSE(profileAtQuantile(handProfile(), 0.9, &why));
  EXPECT_NE(why.find("MPI_Recv: point p=2, b=8 has no fitted model"), std::string::npos) << why;
}

TEST(OverheadCli, BadQuantileAndBadProfileAreReported) {
  const fs::path dir = perwiz::test::freshDir("overhead_cli_bad");
  const std::string tracePath = (dir / "hand.otf2").string();
  saveTrace(sendRecvTrace(), tracePath);

  CliResult r = cli(dir, {"overhead", tracePath, "--quantile", "0.5"});
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("quantile 0.5 is outside [0.8, 1]"), std::string::npos) << r.err;
  r = cli(dir, {"overhead", tracePath, "--quantile", "abc"});
  EXPECT_EQ(r.status, 2);
  EXPECT_TRUE(r.out.empty());

  // A profile without fitted models cannot be moved to another quantile.
  const std::string handPath = (dir / "hand.json").string();
  std::string error;
  ASSERT_TRUE(saveOverheadProfile(handProfile(), handPath, &error)) << error;
  r = cli(dir, {"overhead", tracePath, "--profile", handPath, "--quantile", "0.9"});
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find(handPath + ": MPI_Recv: point p=2, b=8 has no fitted model"), std::string::npos) << r.err;

  const std::string missing = (dir / "missing.json").string();
  r = cli(dir, {"overhead", tracePath, "--profile", missing});
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find(missing + ": cannot open profile file"), std::string::npos) << r.err;
  const std::string broken = perwiz::test::writeFile(dir / "broken.json", "{\"format\": 3}").string();
  r = cli(dir, {"overhead", tracePath, "--profile", broken});
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find(broken + ": 'format' must be a string"), std::string::npos) << r.err;

  r = cli(dir, {"overhead", (dir / "no-trace.alog").string()});
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("no-trace.alog"), std::string::npos) << r.err;
}
