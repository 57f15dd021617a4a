// Fitting the error of one sample of call durations (Kluge et al. §4–7).
//
// A sample S = {t_1 … t_N} holds the durations of one MPI function on one (p, b) class. Each
// t = t_min + t_err (eq. 1) with min(S) standing for t_min. The errors t − min(S) are sorted into
// a histogram of equal windows; a Poisson (eq. 3) and a discretised exponential (eqs. 5–6) are
// fitted by maximum likelihood (eq. 7), each is tested with χ² (eq. 8, 9), the one with the lower
// χ̂² is kept, and its q_max quantile gives t_max = min(S) + t_err,max (eq. 2).
//
// Everything a view needs (histogram, fitted pmf, t_max) is here, so a GUI draws a class's
// histogram with the fitted distribution without statistics of its own. docs/overhead.md has
// the rules with their reasons (window, quantile class, rejected fits).
#pragma once

#include "perwiz/chi_square.h"
#include "perwiz/trace.h"

#include <cstdint>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace perwiz {

// t_max of q_max = 1: every duration is accepted (the quantile of both models is infinite).
inline constexpr TimeNs kUnboundedNs = std::numeric_limits<TimeNs>::max();

enum class ErrorModel : std::uint8_t { Poisson, Exponential };
std::string_view errorModelName(ErrorModel model);  // "poisson", "exponential"
std::optional<ErrorModel> parseErrorModel(std::string_view name);

enum class FitVerdict : std::uint8_t {
  Accepted,    // χ̂² ≤ upper limit
  Rejected,    // χ̂² > upper limit (the paper: new sample or new model; we keep it, flagged)
  Untestable,  // fewer than one degree of freedom after merging sparse classes
};
std::string_view fitVerdictName(FitVerdict verdict);  // "accepted", "rejected", "untestable"

struct FitOptions {
  double quantile = 0.95;      // q_max, the paper's reasonable range 0.8 ≤ q_max ≤ 1
  double significance = 0.05;  // α of the χ² test
  TimeNs minWindowNs = 1;      // the timer resolution: windows are never smaller (§6)
  TimeNs fixedWindowNs = 0;    // > 0: use this window instead of the automatic one
  double minExpected = 5.0;    // χ² classes are merged until each expects this many samples
};
// "" when the options are usable, else what is wrong ("quantile 0.5 is outside [0.8, 1]").
std::string validateFitOptions(const FitOptions& options);

// The histogram of t − min(S) in windows: class k holds errors in [k·w, (k+1)·w).
struct ErrorHistogram {
  TimeNs minNs = 0;         // min(S)
  TimeNs windowNs = 1;      // w
  TimeNs resolutionNs = 1;  // the sample's tick: gcd of the errors (1 ns when all are 0)
  std::vector<std::uint64_t> counts;  // classes 0 … counts.size()−1 (≤ 65536; see overflow)
  std::uint64_t overflow = 0;         // samples in classes ≥ counts.size() (long waits)
  std::uint64_t maxClass = 0;         // the largest occupied class
  std::uint64_t samples = 0;          // N
  double meanClass = 0;               // k̄ = Σ k_i / N, the sufficient statistic of both fits
  // Left edge of class k in ns since the trace start: min(S) + k·w (for plots).
  TimeNs classStartNs(std::uint64_t k) const { return minNs + static_cast<TimeNs>(k) * windowNs; }
};

// One model fitted to the histogram and its χ² test.
struct ModelFit {
  ErrorModel model = ErrorModel::Poisson;
  bool fitted = false;  // false: undefined for this sample (exponential when every error is 0)
  // The paper's λ: Poisson mean in windows (eq. 3); exponential rate per ns (eq. 4, 6).
  double lambda = 0;
  std::vector<ChiSquareClass> classes;  // the test classes after merging
  double chiSquare = 0;                 // χ̂²
  std::uint32_t dof = 0;                // test classes − 1 − 1 fitted parameter
  double critical = 0;                  // upper limit at α (0 when untestable)
  FitVerdict verdict = FitVerdict::Untestable;
  std::uint64_t quantileClass = 0;      // k_q: smallest k with P(K ≤ k) ≥ q_max
  TimeNs errMaxNs = 0;                  // t_err,max = (k_q + 1)·w − resolution; kUnboundedNs for q = 1

  // P(K = k) and P(K ≤ k) of the fitted model over classes of `windowNs` (the histogram's).
  double pmf(std::uint64_t k, TimeNs windowNs) const;
  double cdf(std::uint64_t k, TimeNs windowNs) const;
};

// The result for one sample.
struct SampleFit {
  ErrorHistogram histogram;
  ModelFit poisson;
  ModelFit exponential;
  ErrorModel chosen = ErrorModel::Poisson;  // the lower χ̂² (§7)
  double quantile = 0.95;
  TimeNs tMaxNs = 0;  // min(S) + t_err,max of the chosen model; kUnboundedNs for q = 1

  const ModelFit& chosenFit() const { return chosen == ErrorModel::Poisson ? poisson : exponential; }
  // Expected count of class k under a model (N · pmf), for drawing it over the histogram.
  double expectedCount(ErrorModel model, std::uint64_t k) const;
};

// Fits one sample (any order; it is not sorted). Throws std::invalid_argument for an empty
// sample or invalid options (validateFitOptions).
SampleFit fitSample(std::span<const TimeNs> durations, const FitOptions& options = {});

// The automatic window (docs/overhead.md): the Freedman–Diaconis width 2·IQR·N^(−1/3) of the
// errors, rounded down to a multiple of the resolution, at least the resolution and at least
// minWindowNs (rounded up to a multiple of the resolution). `errors` is reordered (nth_element).
TimeNs chooseWindow(std::vector<TimeNs>& errors, TimeNs resolutionNs, TimeNs minWindowNs);

// Upper end of the q-quantile class as an error: (k_q + 1)·w − resolution (the last tick that
// still falls into class k_q), or kUnboundedNs when q = 1.
TimeNs errorAtQuantileClass(std::uint64_t quantileClass, TimeNs windowNs, TimeNs resolutionNs);

}  // namespace perwiz
