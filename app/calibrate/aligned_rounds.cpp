// The aligned repetition loop (see aligned_rounds.h).
#include "aligned_rounds.h"

#include <algorithm>
#include <vector>

namespace perwiz::calibrate {
namespace {

constexpr int kCalibrationRounds = 10;
constexpr double kMinLead = 2e-6;  // seconds, added to the calibrated lead
constexpr double kMaxLead = 0.1;   // the lead stops doubling here (a 100 ms hiccup is rare)

// The report after a round, maxima over the ranks: {end on the global clock, 1 if late, the
// longest timed call}.
struct Report {
  double end = 0, late = 0, longest = 0;
};
Report report(MPI_Comm comm, double end, bool late, double longest) {
  const double in[3] = {end, late ? 1.0 : 0.0, longest};
  double out[3];
  MPI_Allreduce(in, out, 3, MPI_DOUBLE, MPI_MAX, comm);
  return {out[0], out[1], out[2]};
}

}  // namespace

AlignedRounds::AlignedRounds(MPI_Comm comm, const GlobalClock& clock) : comm_(comm), clock_(clock) {
  // The time a report takes, slowest member decides, median over a few rounds: on a busy or
  // oversubscribed machine one round can be descheduled for milliseconds, which would make every
  // later round that much longer; a late round doubles the lead anyway.
  std::vector<double> longest;
  for (int i = 0; i < kCalibrationRounds; ++i) {
    const double t0 = clock_.now();
    report(comm_, t0, false, 0);
    double mine = clock_.now() - t0, slowest = 0;
    MPI_Allreduce(&mine, &slowest, 1, MPI_DOUBLE, MPI_MAX, comm_);
    longest.push_back(slowest);
  }
  std::nth_element(longest.begin(), longest.begin() + kCalibrationRounds / 2, longest.end());
  baseLead_ = 3 * longest[kCalibrationRounds / 2] + kMinLead;
}

RoundsResult AlignedRounds::run(int warmup, int wanted,
                                const std::function<void(int, std::vector<TimedCall>&)>& round,
                                std::vector<TimedCall>& kept) {
  RoundsResult result;
  const int maxRounds = wanted + 3 * (warmup + wanted) + 8;
  double lead = baseLead_, window = baseLead_;
  Report r = report(comm_, clock_.now(), false, 0);
  double start = r.end + lead;
  std::vector<TimedCall> durations;
  for (int i = 0; i < maxRounds && result.kept < wanted; ++i) {
    durations.clear();
    const bool onTime = clock_.waitUntil(start);
    round(i, durations);
    double longest = 0;
    for (const TimedCall& c : durations) longest = std::max(longest, c.seconds);
    clock_.waitUntil(start + window);  // the round's messages have all arrived
    r = report(comm_, clock_.now(), !onTime, longest);
    // The next window: twice this round's longest call (one descheduled call widens only the
    // next window, not all of them).
    window = std::max(baseLead_, 2 * r.longest);
    if (r.late > 0) {
      lead = std::min(2 * lead, kMaxLead);
      if (i >= warmup) ++result.late;
    } else {
      lead = std::max(baseLead_, 0.75 * lead);
      if (i >= warmup) {
        ++result.kept;
        kept.insert(kept.end(), durations.begin(), durations.end());
      }
    }
    start = r.end + lead;
  }
  return result;
}

}  // namespace perwiz::calibrate
