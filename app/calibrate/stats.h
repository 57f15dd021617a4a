// Robust per-size statistics and least-squares lines for perwiz-calibrate (docs/calibrate.md).
// Plain C++ (no MPI): shared by the Open MPI and the SMPI builds and unit-tested alone.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace perwiz::calibrate {

// How the repetitions of one measurement are summarised. The median is the default: it is what
// a typical call in a trace costs (the model predicts traces), and one descheduled repetition on
// a shared machine cannot move it. The minimum is the classic "best case" of latency benchmarks;
// it is offered for quiet dedicated machines. Under SMPI both are the same number.
enum class Statistic { Median, Min };

Statistic statisticFromName(const std::string& name);  // "median" | "min"; throws on others
std::string statisticName(Statistic s);

// The summary of `samples` (seconds or any unit); NaN for an empty sample.
double summarize(std::vector<double> samples, Statistic s);
double median(std::vector<double> samples);
// The median absolute deviation from the median (the samples' spread, robust to outliers); 0
// for fewer than two samples.
double medianAbsoluteDeviation(const std::vector<double>& samples);

// y = a + b·x fitted by ordinary least squares.
struct LineFit {
  double a = 0;          // intercept
  double b = 0;          // slope
  std::size_t points = 0;
  double maxResidual = 0;  // largest |y − (a + b·x)| over the points (same unit as y)
  double maxValue = 0;     // largest |y| over the points
  bool valid() const { return points > 0; }
};

// Needs at least one point; one point (or all x equal) gives a flat line through the mean y.
LineFit fitLine(const std::vector<double>& x, const std::vector<double>& y);

}  // namespace perwiz::calibrate
