// The whole advisor in one call (advisor.h).
#include "prediction_pool.h"

namespace perwiz {

Advice advise(const Replayer& base, const AdvisorOptions& options) {
  Advice a;
  a.measuredNs = base.measuredTime();
  a.baseNs = base.predictedTime();
  WaitCandidate longest;
  a.domino = dominoPaths(base, options, &a.candidates, &longest, &a.predictions);
  a.hasLongestWait = longest.waitNs > 0;
  a.longestWait = longest;
  auto cancelled = [&] { return options.cancel && options.cancel->load(); };
  if (options.steps && !cancelled()) a.steps = stepTable(base, options, &a.allStepsBalancedNs, &a.predictions);
  if (options.bounds && !cancelled()) a.bounds = lowerBounds(base);
  a.cancelled = cancelled();
  if (options.progress && !a.cancelled) options.progress(1.0, "done");
  return a;
}

}  // namespace perwiz
