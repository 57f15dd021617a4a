// The whole advisor in one call (advisor.h).
#include "prediction_pool.h"

#include "perwiz/release.h"

#include <algorithm>
#include <string>
#include <thread>

namespace perwiz {

std::uint64_t estimateAdvisorMemory(const Replayer& base, unsigned threads) {
  if (threads == 0) threads = std::max(1u, std::thread::hardware_concurrency());
  // Measured at 10^8 events with two threads: 101 B per call above predict's peak; a fork
  // holds about 26 B per call (predicted enter and leave, flags, a gap copy when balancing).
  constexpr std::uint64_t kPerCall = 55, kPerCallPerThread = 30, kBase = 8 << 20;
  const std::uint64_t calls = base.callCount() + base.trace().rankCount();
  return kBase + calls * (kPerCall + kPerCallPerThread * threads);
}

Advice advise(const Replayer& base, const AdvisorOptions& options) {
  Advice a;
  a.measuredNs = base.measuredTime();
  a.baseNs = base.predictedTime();
  // Each part reports its own progress from 0 to 1; map the parts onto consecutive ranges so that
  // the fractions the caller sees never go back (the step table restarted at 0 after
  // the domino search had reported 1).
  const bool withSteps = options.steps && !base.trace().steps.empty();
  const double split = withSteps ? 0.8 : 1.0;
  AdvisorOptions part = options;
  auto range = [&](double from, double to) {
    if (options.progress)
      part.progress = [&options, from, to](double f, const std::string& stage) {
        options.progress(from + (to - from) * f, stage);
      };
  };
  auto cancelled = [&] { return options.cancel && options.cancel->load(); };
  // On a lent base the all-steps-balanced replay comes first, on the base itself, which a
  // second full replay then restores: no fork for it, and nothing of the searches' beside it
  // (with an imbalance every unit's gap changes: the changed gaps and their deltas are 16 B per
  // call; issue #42's peak budget).
  const bool lent = options.lentBase == &base;
  TimeNs allBalanced = a.baseNs;
  if (withSteps && lent && !cancelled()) {
    if (options.progress) options.progress(0, "all steps balanced");
    releaseFreedHeap();
    const std::vector<Hypothesis> original = base.scenario().hypotheses;
    allBalanced = allStepsBalanced(*options.lentBase);
    options.lentBase->setHypotheses(original);
    ++a.predictions;
  }
  range(0, split);
  WaitCandidate longest;
  a.domino = dominoPaths(base, part, &a.candidates, &longest, &a.predictions);
  a.hasLongestWait = longest.waitNs > 0;
  a.longestWait = longest;
  range(split, 1);
  if (options.steps && !cancelled()) {
    a.steps = stepTable(base, part, lent ? nullptr : &a.allStepsBalancedNs, &a.predictions);
    if (lent) a.allStepsBalancedNs = allBalanced;
  }
  if (options.bounds && !cancelled()) a.bounds = lowerBounds(base);
  a.cancelled = cancelled();
  if (options.progress && !a.cancelled) options.progress(1.0, "done");
  return a;
}

}  // namespace perwiz
