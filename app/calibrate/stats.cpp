// Medians, minima and ordinary least squares (see stats.h).
#include "stats.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace perwiz::calibrate {

Statistic statisticFromName(const std::string& name) {
  if (name == "median") return Statistic::Median;
  if (name == "min") return Statistic::Min;
  throw std::invalid_argument("unknown statistic '" + name + "' (expected median or min)");
}

std::string statisticName(Statistic s) { return s == Statistic::Min ? "min" : "median"; }

double median(std::vector<double> samples) {
  if (samples.empty()) return std::numeric_limits<double>::quiet_NaN();
  const std::size_t n = samples.size(), mid = n / 2;
  std::nth_element(samples.begin(), samples.begin() + mid, samples.end());
  const double upper = samples[mid];
  if (n % 2 == 1) return upper;
  // Even count: the mean of the two middle values; the lower one is the largest of the lower half.
  const double lower = *std::max_element(samples.begin(), samples.begin() + mid);
  return (lower + upper) / 2;
}

double summarize(std::vector<double> samples, Statistic s) {
  if (samples.empty()) return std::numeric_limits<double>::quiet_NaN();
  if (s == Statistic::Min) return *std::min_element(samples.begin(), samples.end());
  return median(std::move(samples));
}

double medianAbsoluteDeviation(const std::vector<double>& samples) {
  if (samples.size() < 2) return 0;
  const double m = median(samples);
  std::vector<double> dev;
  dev.reserve(samples.size());
  for (double v : samples) dev.push_back(std::fabs(v - m));
  return median(std::move(dev));
}

LineFit fitLine(const std::vector<double>& x, const std::vector<double>& y) {
  LineFit f;
  const std::size_t n = std::min(x.size(), y.size());
  f.points = n;
  if (n == 0) return f;
  // Centred sums: numerically stable when x spans bytes to megabytes.
  double mx = 0, my = 0;
  for (std::size_t i = 0; i < n; ++i) {
    mx += x[i];
    my += y[i];
  }
  mx /= static_cast<double>(n);
  my /= static_cast<double>(n);
  double sxx = 0, sxy = 0;
  for (std::size_t i = 0; i < n; ++i) {
    sxx += (x[i] - mx) * (x[i] - mx);
    sxy += (x[i] - mx) * (y[i] - my);
  }
  f.b = sxx > 0 ? sxy / sxx : 0.0;
  f.a = my - f.b * mx;
  for (std::size_t i = 0; i < n; ++i) {
    f.maxResidual = std::max(f.maxResidual, std::fabs(y[i] - (f.a + f.b * x[i])));
    f.maxValue = std::max(f.maxValue, std::fabs(y[i]));
  }
  return f;
}

}  // namespace perwiz::calibrate
