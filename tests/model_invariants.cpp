#include "model_invariants.h"

#include <algorithm>

namespace perwiz::test {
namespace {

std::string at(std::size_t r, const std::string& what) {
  return "rank " + std::to_string(r) + ": " + what;
}

}  // namespace

std::string modelViolation(const Trace& t) {
  if (t.comms.empty()) return "no MPI_COMM_WORLD";
  // Threads: events in enter order, no message, collective or MPI call index, a rank or none.
  for (std::size_t i = 0; i < t.threads.size(); ++i) {
    const ThreadTrace& th = t.threads[i];
    const RankTrace& rt = th.events;
    const std::string where = "thread " + std::to_string(i) + ": ";
    if (th.rank < -1 || th.rank >= static_cast<std::int64_t>(t.ranks.size())) return where + "rank out of range";
    if (i > 0 && static_cast<std::uint32_t>(th.rank) < static_cast<std::uint32_t>(t.threads[i - 1].rank))
      return where + "threads not ordered by rank";
    if (rt.leave.size() != rt.size() || rt.function.size() != rt.size() || rt.depth.size() != rt.size())
      return where + "event columns differ in length";
    if (!rt.messages.empty() || !rt.collectives.empty() || !rt.mpiCalls.empty())
      return where + "holds messages, collectives or an MPI call index";
    for (std::size_t e = 0; e < rt.size(); ++e) {
      if (e > 0 && rt.enter[e] < rt.enter[e - 1]) return where + "events not in enter order";
      if (rt.leave[e] < rt.enter[e]) return where + "leave before enter";
      if (rt.function[e] >= t.functions.size()) return where + "function index out of range";
      if (rt.leave[e] > t.endTime) return where + "event after the trace's end";
    }
  }
  for (std::size_t r = 0; r < t.ranks.size(); ++r) {
    const RankTrace& rt = t.ranks[r];
    const std::size_t n = rt.size();
    if (rt.leave.size() != n || rt.function.size() != n || rt.depth.size() != n)
      return at(r, "event columns differ in length");
    for (std::size_t e = 0; e < n; ++e) {
      if (e > 0 && rt.enter[e] < rt.enter[e - 1]) return at(r, "events not in enter order");
      if (rt.leave[e] < rt.enter[e]) return at(r, "leave before enter at event " + std::to_string(e));
      if (rt.function[e] >= t.functions.size()) return at(r, "function index out of range");
      if (rt.enter[e] < 0) return at(r, "negative time");
    }
    for (std::size_t i = 0; i < rt.mpiCalls.size(); ++i) {
      std::uint32_t e = rt.mpiCalls[i];
      if (e >= n || t.functions[rt.function[e]].kind != EventKind::MpiCall)
        return at(r, "MPI call index points at a non-call");
      if (i > 0 && e <= rt.mpiCalls[i - 1]) return at(r, "MPI call index not increasing");
    }
    for (std::size_t i = 0; i < rt.messages.size(); ++i) {
      const MessageEndpoint& m = rt.messages[i];
      if (m.event >= n || m.postEvent >= n) return at(r, "endpoint refers to no event");
      if (t.functions[rt.function[m.event]].kind != EventKind::MpiCall)
        return at(r, "endpoint completed by a non-call");
      if (m.comm >= t.comms.size()) return at(r, "endpoint on an undefined communicator");
      if (m.time < rt.enter[m.event] && m.event == m.postEvent)
        return at(r, "blocking endpoint recorded before its call");
      if (m.matched()) {
        if (m.matchRank >= t.ranks.size() ||
            m.matchIndex >= t.ranks[m.matchRank].messages.size())
          return at(r, "match out of range");
        const MessageEndpoint& o = t.ranks[m.matchRank].messages[m.matchIndex];
        if (o.matchRank != r || o.matchIndex != i) return at(r, "match is not symmetric");
        if (o.isSend == m.isSend) return at(r, "matched two sends or two receives");
        if (o.tag != m.tag || o.comm != m.comm) return at(r, "matched across tag or communicator");
        if (static_cast<std::size_t>(m.peer) != m.matchRank) return at(r, "match not on the peer rank");
      }
    }
    for (const CollectiveCall& c : rt.collectives) {
      if (c.event >= n) return at(r, "collective refers to no event");
      if (c.instance >= t.collectives.size()) return at(r, "collective without an instance");
      if (t.collectives[c.instance].comm != c.comm) return at(r, "collective instance on another comm");
    }
    for (std::size_t k = 0; k < t.steps.size(); ++k) {
      if (t.steps[k].ranks.size() != t.ranks.size()) return "step " + std::to_string(k) + ": wrong rank count";
      const StepSpan& s = t.steps[k].ranks[r];
      if (!s.present()) continue;
      if (s.marker >= n || s.lastEvent > n || s.lastEvent <= s.firstEvent())
        return at(r, "step " + std::to_string(k) + " has a bad event range");
      // The step's events are the marker and what is nested in it.
      for (std::uint32_t e = s.firstEvent() + 1; e < s.lastEvent; ++e)
        if (rt.depth[e] <= rt.depth[s.marker])
          return at(r, "step " + std::to_string(k) + " holds an event not nested in its marker");
    }
  }
  std::uint64_t matchedEnds = 0;
  for (const auto& rt : t.ranks)
    for (const auto& m : rt.messages) matchedEnds += m.matched();
  if (matchedEnds != 2 * t.messageStats.matched) return "matched count disagrees with the endpoints";
  TimeNs end = 0;
  for (const auto& rt : t.ranks)
    for (TimeNs l : rt.leave) end = std::max(end, l);
  for (const auto& th : t.threads)
    for (TimeNs l : th.events.leave) end = std::max(end, l);
  if (end != t.endTime) return "end time is not the latest leave (of ranks and threads)";
  return {};
}

}  // namespace perwiz::test
