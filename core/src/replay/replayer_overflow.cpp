// What passed the int64 range of times, said in the user's words (docs/model.md, "Limits").
#include "replayer_impl.h"

#include "perwiz/checked_time.h"

namespace perwiz {

// The sweeps saturate at kTimeOverflow. Times only grow along a rank (gaps and local costs
// are never negative), so a saturated time anywhere saturates its rank's end and T: one check
// of T after a sweep finds it. The diagnosis then looks for the first schedule item that
// saturated: its inputs fit, so one of its own terms (a gap, a local cost, a message's
// offset) or their sum is what went past the limit.
std::string Replayer::Impl::callLabel(std::uint32_t u) const {
  const std::uint32_t r = p.rankOf(u);
  if (p.isSentinel(u)) return "the end of rank " + std::to_string(r);
  const std::uint32_t i = p.callOf(u);
  return "call " + std::to_string(r) + ":" + std::to_string(i) + " (" + trace.fn(r, trace.ranks[r].mpiCalls[i]).name +
         ")";
}

std::string Replayer::Impl::messageLabel(std::uint32_t m) const {
  const ReplayMessage& msg = p.messages[m];
  const std::uint32_t from = msg.units[0], to = msg.units[2];
  std::string out = "the message of " + std::to_string(bytes[m]) + " bytes";
  if (from != kNone32) out += " sent by " + callLabel(from);
  if (to != kNone32) out += std::string(from != kNone32 ? "," : "") + " received by " + callLabel(to);
  return out;
}

namespace {

std::string ns(TimeNs t) { return overflowed(t) ? std::string("more than 2^63 ns") : std::to_string(t) + " ns"; }

}  // namespace

std::string Replayer::Impl::overflowAt(std::uint32_t u, bool gapOnly) const {
  const std::string where = "the predicted time exceeds the int64 range (2^63 ns, 292 years) at " + callLabel(u) + ": ";
  if (gapOnly) return where + "the computation of " + ns(gap[u]) + " before it passes the limit";
  p.prepareLinks();
  if (!noWaitOf(u))
    for (std::uint32_t d = p.depBegin[u]; d < p.depBegin[u + 1]; ++d) {
      if ((depFlags[d] & dep::kUse) != dep::kUse || !overflowed(satAdd(srcValue(p.depSrc[d], values()), depOff[d])))
        continue;
      const std::uint32_t m = p.depMsg[d];
      if (m == kNone32) break;
      return where + "it waits for " + messageLabel(m) + ", which network model '" + model().name() +
             "' delivers after " + ns(depOff[d]);
    }
  std::string cost = "its local cost of " + ns(local[u]);
  if (p.modelLocal.size() > u && p.modelLocal[u]) {
    cost += " (the price network model '" + model().name() + "' puts on ";
    std::uint32_t biggest = kNone32;
    for (std::uint32_t i = p.roleBegin[u]; i < p.roleBegin[u + 1]; ++i)
      if (biggest == kNone32 || bytes[p.roleMsg[i]] > bytes[biggest]) biggest = p.roleMsg[i];
    cost += biggest != kNone32 ? messageLabel(biggest) : std::string("the collective");
    cost += ")";
  }
  return where + "its start plus " + cost + " passes the limit";
}

std::string Replayer::Impl::overflowProblem() const {
  if (!overflowed(predictedT)) return "";
  for (std::uint32_t r = 0; r < p.ranks; ++r)
    if (overflowed(enterOf(p.rankBegin[r]))) return overflowAt(p.rankBegin[r], true);
  for (const std::uint32_t item : p.schedule) {
    if (item >= p.units) continue;  // a gather takes its members' times: never the first
    if (overflowed(leave[item])) return overflowAt(item, false);
    if (!isLastOfRank(item) && overflowed(enterOf(item + 1))) return overflowAt(item + 1, true);
  }
  return "the predicted time exceeds the int64 range (2^63 ns, 292 years)";
}

}  // namespace perwiz
