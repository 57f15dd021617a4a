// The critical path by a backward walk over the replay's results (critical_path.h).
#include "perwiz/critical_path.h"

#include "perwiz/internal/replay_program.h"
#include "perwiz/internal/return_cause.h"

#include "perwiz/checked_time.h"

#include <algorithm>
#include <unordered_set>

namespace perwiz {

std::string CriticalSegment::id() const {
  return std::to_string(rank) + (kind == Kind::Computation ? ":c" : ":") + std::to_string(index);
}

namespace {

class Walk {
 public:
  Walk(const Replayer& rp, CriticalPathListing listing, std::size_t first)
      : first_(first), rp_(rp), p_(internal::ReplayerAccess::program(rp)),
        eff_(internal::ReplayerAccess::effective(rp)), enter_{rp}, leave_(rp.predictedLeaves()),
        list_(listing != CriticalPathListing::TotalsOnly && first > 0),
        ids_(listing == CriticalPathListing::Full && first == static_cast<std::size_t>(-1)) {}

  CriticalPath run() {
    CriticalPath cp;
    cp.totals.perRank.assign(p_.ranks, 0);
    cp.totals.perFunction.assign(rp_.trace().functions.size(), 0);
    // The path ends at the rank whose end is latest (the first such rank on a tie).
    std::uint32_t u = kNone32;
    for (std::uint32_t r = 0; r < p_.ranks; ++r) {
      const std::uint32_t s = p_.rankBegin[r + 1] - 1;
      if (u == kNone32 || leave_[s] > leave_[u]) u = s;
    }
    if (u == kNone32) return cp;
    cp.length = leave_[u];
    cp_ = &cp;
    // Alternately explain the return of unit u (L) and its start (E).
    bool atReturn = true;
    for (;;) {
      if (atReturn) {
        u = explainReturn(u);
        atReturn = false;
        continue;
      }
      // E(u): the previous return plus the computation gap; the first start from time 0.
      const bool first = p_.isFirst(u);
      const TimeNs from = first ? 0 : leave_[u - 1];
      if (enter_(u) > from) emit(CriticalSegment::Kind::Computation, u, kNone32, from, enter_(u));
      if (first) break;
      --u;
      atReturn = true;
    }
    // Visited from the end: the earliest segments are the last ones found.
    if (cp.segments.size() > first_)
      cp.segments.erase(cp.segments.begin(), cp.segments.end() - static_cast<std::ptrdiff_t>(first_));
    std::reverse(cp.segments.begin(), cp.segments.end());
    if (ids_) cp.callIds = criticalCallIds(cp.segments);
    return cp;
  }

 private:
  std::uint32_t callIndex(std::uint32_t u) const {
    return p_.indexIn(p_.rankOf(u), u);
  }

  // Explains leave[u] (returnCause, the replay's rule); returns the unit whose start the path
  // continues from.
  std::uint32_t explainReturn(std::uint32_t u) {
    const ReturnCause c = returnCause(p_, eff_, u, leave_[u], enter_);
    switch (c.kind) {
      case ReturnCause::Kind::Local:
        if (!p_.isSentinel(u)) emit(CriticalSegment::Kind::Call, u, kNone32, enter_(u), leave_[u]);
        return u;
      case ReturnCause::Kind::Unit:
        emit(waitOrSkew(c.value, leave_[u]), u, c.source, c.value, leave_[u]);
        return c.source;
      case ReturnCause::Kind::Node:
        // A gather takes the time of its member that arrived last (the first such on a tie); a
        // queue node's, of the member whose message its root's link carried last.
        emit(waitOrSkew(enter_(c.member), leave_[u]), u, c.member, enter_(c.member), leave_[u]);
        return c.member;
    }
    return u;
  }

  void emit(CriticalSegment::Kind kind, std::uint32_t u, std::uint32_t from, TimeNs begin, TimeNs end) {
    addToTotals(cp_->totals, p_, rp_.trace(), kind, u, satSub(end, begin));
    const std::uint32_t r = p_.rankOf(u);
    if (!list_) return;
    CriticalSegment s;
    s.kind = kind;
    s.rank = r;
    s.index = callIndex(u);
    if (from != kNone32) {
      s.fromRank = p_.rankOf(from);
      s.fromIndex = callIndex(from);
    }
    s.begin = begin;
    s.end = end;
    auto& list = cp_->segments;
    // Only the earliest `first_` are kept: drop older finds in blocks (amortised O(1)).
    if (first_ != static_cast<std::size_t>(-1) && list.size() >= 2 * first_)
      list.erase(list.begin(), list.begin() + static_cast<std::ptrdiff_t>(first_));
    list.push_back(s);
  }

  const std::size_t first_;

  const Replayer& rp_;
  const ReplayProgram& p_;
  const EffectiveProgram eff_;
  // Predicted enters, derived by the replayer on demand (it keeps the leaves only).
  struct Enters {
    const Replayer& rp;
    TimeNs operator()(std::uint32_t u) const { return rp.predictedEnter(u); }
  } enter_;
  const std::vector<TimeNs>& leave_;
  const bool list_, ids_;
  CriticalPath* cp_ = nullptr;
};

}  // namespace

std::vector<std::string> criticalCallIds(const std::vector<CriticalSegment>& segments) {
  // Calls in time order, each once: the partner of a wait before the waiting call.
  std::vector<std::string> ids;
  std::unordered_set<std::uint64_t> seen;
  auto note = [&](std::uint32_t rank, std::uint32_t index) {
    if (seen.insert((std::uint64_t{rank} << 32) | index).second)
      ids.push_back(std::to_string(rank) + ":" + std::to_string(index));
  };
  for (const CriticalSegment& s : segments) {
    if (s.kind == CriticalSegment::Kind::Computation) continue;
    if ((s.kind == CriticalSegment::Kind::Message || s.kind == CriticalSegment::Kind::Skew) && s.fromRank != kNone32)
      note(s.fromRank, s.fromIndex);
    note(s.rank, s.index);
  }
  return ids;
}

CriticalPath criticalPath(const Replayer& replayer, CriticalPathListing listing, std::size_t firstSegments) {
  return Walk(replayer, listing, firstSegments).run();
}

DagShape dagShape(const Replayer& replayer) {
  const auto& p = internal::ReplayerAccess::program(replayer);
  const auto eff = internal::ReplayerAccess::effective(replayer);
  const std::uint32_t U = p.units;
  // Each item's position in the schedule (the incremental index has them too, with the
  // consumer lists this check does not need).
  std::vector<std::uint32_t> position(p.items(), kNone32);
  for (std::uint32_t i = 0; i < p.schedule.size(); ++i) position[p.schedule[i]] = i;
  DagShape shape;
  shape.vertices = 2 * std::uint64_t{U} + p.nodes() + 1;
  shape.edges = 2 * std::uint64_t{U} + p.nodeMembers.size();  // gap and local per unit, memberships
  // A start E(u) is fixed when the unit before it returns (first units: at once, -1); a return
  // and a gather at their own schedule positions.
  auto startPos = [&](std::uint32_t u) -> std::int64_t {
    return p.isFirst(u) ? std::int64_t{-1} : std::int64_t{position[u - 1]};
  };
  for (std::uint32_t u = 0; u < U; ++u) {
    if (eff.noWait[u]) continue;
    for (std::uint32_t d = p.depBegin[u]; d < p.depBegin[u + 1]; ++d) {
      if ((eff.depFlags[d] & dep::kUse) != dep::kUse) continue;
      ++shape.edges;
      const std::uint32_t s = p.depSrc[d];
      const std::int64_t from = s < U ? startPos(s) : std::int64_t{position[s]};
      if (from >= std::int64_t{position[u]}) shape.acyclic = false;
    }
  }
  for (std::uint32_t n = 0; n < p.nodes(); ++n)
    for (std::uint32_t i = p.nodeBegin[n]; i < p.nodeBegin[n + 1]; ++i)
      if (startPos(p.nodeMembers[i]) >= std::int64_t{position[U + n]}) shape.acyclic = false;
  return shape;
}

}  // namespace perwiz
