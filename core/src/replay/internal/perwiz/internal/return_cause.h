// Which term of the replay's rule (leaveRule, replay_program.h) gave a unit its predicted
// leave: the critical path's step back from a return (docs/model.md §2.2). The serial walk
// (critical_path.cpp) and the distributed one (distributed_critical_path.cpp) both take it.
#pragma once

#include "perwiz/internal/replay_program.h"

#include "perwiz/checked_time.h"
#include "perwiz/critical_path.h"

namespace perwiz {

struct ReturnCause {
  enum class Kind : std::uint8_t {
    Local,  // program order: the call's own start plus its local cost (wins a tie)
    Unit,   // a dependency on unit `source` (its enter `value` plus the offset)
    Node,   // a dependency on gather node `source` (Program node index), of value `value`,
            // which took it from its member `member` (the first on a tie, Program::nodeValue)
  };
  Kind kind = Kind::Local;
  std::uint32_t source = kNone32;
  std::uint32_t member = kNone32;
  TimeNs value = 0;
};

// The cause of `leave`, unit u's predicted leave, given the predicted enter of every unit
// (`enter(unit)`). Dependencies are tried in order, the first that gives the leave wins. A
// result that matches no term (not the replay's) is reported as Local.
template <class Enter>
ReturnCause returnCause(const ReplayProgram& p, const EffectiveProgram& eff, std::uint32_t u, TimeNs leave,
                        const Enter& enter) {
  const TimeNs local = eff.local[u];
  if (satAdd(enter(u), local) >= leave || eff.noWait[u]) return {};
  for (std::uint32_t d = p.depBegin[u]; d < p.depBegin[u + 1]; ++d) {
    if ((eff.depFlags[d] & dep::kUse) != dep::kUse) continue;
    const std::uint32_t s = p.depSrc[d];
    if (s < p.units) {
      const TimeNs t = enter(s);
      if (satAdd(satAdd(t, eff.depOff[d]), local) == leave) return {ReturnCause::Kind::Unit, s, kNone32, t};
      continue;
    }
    const std::uint32_t n = s - p.units;
    std::uint32_t last = kNone32;
    const TimeNs t = p.nodeValue(n, enter, &last);
    if (satAdd(satAdd(t, eff.depOff[d]), local) == leave) return {ReturnCause::Kind::Node, n, last, t};
  }
  return {};
}

// Counts a segment of the path on own unit u in the totals (both walks); returns the function of
// u's call for a Call or Message segment (kNone32 for Computation).
inline std::uint32_t addToTotals(CriticalPathTotals& t, const ReplayProgram& p, const Trace& trace,
                                 CriticalSegment::Kind kind, std::uint32_t u, TimeNs ns) {
  const std::uint32_t r = p.rankOf(u);
  ++t.segments;
  if (kind == CriticalSegment::Kind::Skew) {  // apart from every share: time stepped back
    t.skewNs = satAdd(t.skewNs, ns);
    ++t.calls;
    return kNone32;
  }
  t.perRank[r] = satAdd(t.perRank[r], ns);
  switch (kind) {
    case CriticalSegment::Kind::Computation: t.computationNs = satAdd(t.computationNs, ns); return kNone32;
    case CriticalSegment::Kind::Call: t.callNs = satAdd(t.callNs, ns); break;
    case CriticalSegment::Kind::Message: t.waitNs = satAdd(t.waitNs, ns); break;
    case CriticalSegment::Kind::Skew: break;
  }
  ++t.calls;
  const RankTrace& rt = trace.ranks[r];
  const std::uint32_t f = rt.function[rt.mpiCalls[p.callIn(r, u)]];
  t.perFunction[f] = satAdd(t.perFunction[f], ns);
  return f;
}

}  // namespace perwiz
