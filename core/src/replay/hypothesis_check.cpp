// Whether a hypothesis fits a trace (replay.h, validateHypothesis): the rules Replayer::validate
// applies, from the trace and its nested MPI calls alone.
#include "perwiz/compensation.h"
#include "perwiz/replay.h"

#include <algorithm>

namespace perwiz {

std::string validateHypothesis(const Trace& trace, const std::vector<std::vector<std::uint32_t>>& nested,
                               const Hypothesis& h, const std::vector<Hypothesis>& applied) {
  switch (h.kind) {
    case HypothesisKind::ZeroWait:
    case HypothesisKind::ZeroEvent: {
      const EventRef& e = h.event;
      if (e.rank >= trace.rankCount())
        return "event " + e.toString() + ": the trace has " + std::to_string(trace.rankCount()) + " ranks";
      const std::size_t calls = trace.ranks[e.rank].mpiCalls.size();
      if (e.index > calls || (!e.computation && e.index == calls))
        return "event " + e.toString() + ": rank " + std::to_string(e.rank) + " has " + std::to_string(calls) +
               " MPI calls";
      if (h.kind == HypothesisKind::ZeroWait && e.computation)
        return "event " + e.toString() + ": computation has no waiting time; use zero-event";
      // A call inside another MPI call follows it (the computation after the last call, index
      // == calls, is the rank's end and never nested).
      if (e.index < calls && e.rank < nested.size() &&
          std::binary_search(nested[e.rank].begin(), nested[e.rank].end(), e.index))
        return "event " + e.toString() + " lies inside another MPI call; name the outer call";
      return "";
    }
    case HypothesisKind::BalanceCompute:
    case HypothesisKind::BalanceVolume:
      if (h.step >= trace.steps.size())
        return "step " + std::to_string(h.step) + ": the trace has " + std::to_string(trace.steps.size()) +
               " parallel steps (0-based)";
      return "";
    case HypothesisKind::Compensate: {
      std::string problem;
      if (compensationOverhead(trace, h.overheadNs, &problem).empty() && !problem.empty()) return problem;
      std::vector<Hypothesis> both = applied;
      both.push_back(h);
      return compensationConflict(both);
    }
  }
  return "unknown hypothesis";
}

}  // namespace perwiz
