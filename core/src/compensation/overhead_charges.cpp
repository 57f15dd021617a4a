// Per-unit instrumentation overhead: a walk over each rank's records in nesting order (see
// overhead_charges.h for where a record's share lies and why).
#include "perwiz/internal/overhead_charges.h"

#include "perwiz/checked_time.h"

#include <algorithm>

namespace perwiz {
namespace {

class RankWalk {
 public:
  RankWalk(const Trace& t, const ReplayProgram& p, std::uint32_t r, TimeNs o, OverheadCharges& out)
      : trace_(t), p_(p), rank_(r), enterShare_(o / 2), leaveShare_(o - o / 2), out_(out), recs_(out.records[r]),
        cur_(p.rankBegin[r]) {
    out_.leaveShare[r] = leaveShare_;
  }

  void run() {
    const RankTrace& rt = trace_.ranks[rank_];
    std::uint32_t call = 0;  // next MPI call index
    for (std::uint32_t e = 0; e < rt.size(); ++e) {
      // Records come in nesting order: every open event at this depth or deeper has left.
      while (!open_.empty() && rt.depth[open_.back().event] >= rt.depth[e]) closeTop();
      const bool isCall = call < rt.mpiCalls.size() && rt.mpiCalls[call] == e;
      if (isCall && !p_.isNested(rank_, call)) {
        // The program decides which calls are units (replay_program.cpp: a call entered at or
        // after the previous unit's leave). The depths can say otherwise — a call left open
        // and closed at the trace's end is entered at the instant its open parent "leaves",
        // records re-sorted after a clock jump or improperly nested — and then the call the
        // walk still holds open has returned by the program's account: close it (and what is
        // open inside it) first, so that one unit call at most is open and its unit is cur_.
        while (callOpen_) closeTop();
        cur_ = p_.unitOfCall(rank_, call);
        inGap_ = false;
        out_.local[cur_] = satAdd(out_.local[cur_], enterShare_);
        open_.push_back({e, cur_});
        callOpen_ = true;
      } else if (trace_.kind(rank_, e) == EventKind::Point) {
        charge(enterShare_, rt.enter[e]);  // one record
      } else {
        charge(enterShare_, rt.enter[e]);
        open_.push_back({e, kNone32});
      }
      if (isCall) ++call;
      ++out_.events[rank_];
    }
    while (!open_.empty()) closeTop();
  }

 private:
  struct Open {
    std::uint32_t event;
    std::uint32_t unit;  // the unit of a top-level call, kNone32 for any other event
  };

  void closeTop() {
    const Open o = open_.back();
    open_.pop_back();
    if (o.unit != kNone32) {  // the call's leave share opens the next gap
      // The unit after a call's unit exists (a rank ends with its sentinel unit).
      callOpen_ = false;
      inGap_ = true;
      cur_ = o.unit + 1;
      out_.gap[cur_] = satAdd(out_.gap[cur_], leaveShare_);
    } else {
      charge(leaveShare_, trace_.ranks[rank_].leave[o.event]);
    }
  }

  void charge(TimeNs c, TimeNs time) {
    if (!inGap_) {
      out_.local[cur_] = satAdd(out_.local[cur_], c);
      return;
    }
    out_.gap[cur_] = satAdd(out_.gap[cur_], c);
    recs_.unit.push_back(cur_);
    recs_.time.push_back(time);
    recs_.after.push_back(out_.gap[cur_]);
  }

  const Trace& trace_;
  const ReplayProgram& p_;
  std::uint32_t rank_;
  TimeNs enterShare_, leaveShare_;
  OverheadCharges& out_;
  OverheadCharges::GapRecords& recs_;
  std::uint32_t cur_;  // the unit whose gap (inGap_) or call the walk is in
  bool inGap_ = true;
  bool callOpen_ = false;  // a top-level call (a unit) is on open_
  std::vector<Open> open_;
};

TimeNs gapStart(const ReplayProgram& p, std::uint32_t r, std::uint32_t v) {
  return p.isFirst(v) ? 0 : p.measLeave.in(r, v - 1);
}

// Overhead spent at the very start of gap v: the leave share of the call before it.
TimeNs gapLead(const OverheadCharges& c, const ReplayProgram& p, std::uint32_t v) {
  return p.isFirst(v) ? 0 : c.leaveShare[p.rankOf(v)];
}

// Compensated offset of the gap's end: the gap less its overhead, never below the offset of a
// record inside it (overhead larger than the time between records collapses, it never reverses).
TimeNs gapEndOffset(const OverheadCharges& c, const ReplayProgram& p, std::uint32_t v, TimeNs lastRecord) {
  return std::max({lastRecord, satSub(p.gap0[v], c.gap[v]), TimeNs{0}});
}

}  // namespace

OverheadCharges chargeOverhead(const Trace& trace, const ReplayProgram& p, const std::vector<TimeNs>& perRank) {
  OverheadCharges c;
  c.gap.assign(p.units, 0);
  c.local.assign(p.units, 0);
  c.events.assign(p.ranks, 0);
  c.leaveShare.assign(p.ranks, 0);
  c.records.resize(p.ranks);
  for (std::uint32_t r = 0; r < p.ranks; ++r) {
    RankWalk(trace, p, r, r < perRank.size() ? std::max<TimeNs>(perRank[r], 0) : 0, c).run();
    // A record's offset: the time since the gap's start less the overhead spent before it
    // (its own share comes after its timestamp), made non-decreasing.
    auto& g = c.records[r];
    g.offset.resize(g.time.size());
    for (std::size_t i = 0; i < g.time.size(); ++i) {
      const bool first = i == 0 || g.unit[i - 1] != g.unit[i];
      const TimeNs before = first ? gapLead(c, p, g.unit[i]) : g.after[i - 1];
      const TimeNs floor = first ? 0 : g.offset[i - 1];
      g.offset[i] = std::max(floor, satSub(satSub(g.time[i], gapStart(p, r, g.unit[i])), before));
    }
  }
  return c;
}

TimeNs compensatedGapOffset(const OverheadCharges& c, const ReplayProgram& p, std::uint32_t rank, std::uint32_t v,
                            TimeNs t, TimeNs* gapEnd) {
  const auto& g = c.records[rank];
  const std::size_t lo = static_cast<std::size_t>(std::lower_bound(g.unit.begin(), g.unit.end(), v) - g.unit.begin());
  const std::size_t hi = static_cast<std::size_t>(std::upper_bound(g.unit.begin(), g.unit.end(), v) - g.unit.begin());
  const TimeNs end = gapEndOffset(c, p, v, hi > lo ? g.offset[hi - 1] : 0);
  if (gapEnd) *gapEnd = end;
  // The last record at or before t (if any) and the next one: time runs at full speed once a
  // record's share is spent, and stands still while it is being spent.
  const auto times = g.time.begin();
  const std::size_t next = static_cast<std::size_t>(std::upper_bound(times + lo, times + hi, t) - times);
  const bool any = next > lo;
  const TimeNs spent = any ? g.after[next - 1] : gapLead(c, p, v);
  const TimeNs floor = any ? g.offset[next - 1] : 0;
  const TimeNs ceiling = next < hi ? g.offset[next] : end;
  return std::clamp(satSub(satSub(t, gapStart(p, rank, v)), spent), floor, std::max(floor, ceiling));
}

}  // namespace perwiz
