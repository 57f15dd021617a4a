// Per-unit instrumentation overhead: a walk over each rank's records in nesting order (see
// overhead_charges.h for where a record's share lies and why).
#include "overhead_charges.h"

#include <algorithm>

namespace perwiz {
namespace {

class RankWalk {
 public:
  RankWalk(const Trace& t, const Replayer::Program& p, std::uint32_t r, TimeNs o, OverheadCharges& out)
      : trace_(t), p_(p), rank_(r), enterShare_(o / 2), leaveShare_(o - o / 2), out_(out),
        recs_(out.records[r]), cur_(p.rankBegin[r]) {
    out_.leaveShare[r] = leaveShare_;
  }

  void run() {
    const RankTrace& rt = trace_.ranks[rank_];
    std::uint32_t call = 0;  // next MPI call index
    for (std::uint32_t e = 0; e < rt.size(); ++e) {
      // Records come in nesting order: every open event at this depth or deeper has left.
      while (!open_.empty() && rt.depth[open_.back().event] >= rt.depth[e]) closeTop();
      const bool isCall = call < rt.mpiCalls.size() && rt.mpiCalls[call] == e;
      if (isCall && !p_.nestedCall[rank_][call]) {
        // A top-level call ends its gap; its enter share is the call's first cost.
        cur_ = p_.unitOfCall[rank_][call];
        inGap_ = false;
        out_.local[cur_] += enterShare_;
        open_.push_back({e, true});
      } else if (trace_.kind(rank_, e) == EventKind::Point) {
        charge(enterShare_, rt.enter[e]);  // one record
      } else {
        charge(enterShare_, rt.enter[e]);
        open_.push_back({e, false});
      }
      if (isCall) ++call;
      ++out_.events[rank_];
    }
    while (!open_.empty()) closeTop();
  }

 private:
  struct Open {
    std::uint32_t event;
    bool unitCall;
  };

  void closeTop() {
    const Open o = open_.back();
    open_.pop_back();
    if (o.unitCall) {  // the call's leave share opens the next gap
      inGap_ = true;
      ++cur_;
      out_.gap[cur_] += leaveShare_;
    } else {
      charge(leaveShare_, trace_.ranks[rank_].leave[o.event]);
    }
  }

  void charge(TimeNs c, TimeNs time) {
    if (!inGap_) {
      out_.local[cur_] += c;
      return;
    }
    out_.gap[cur_] += c;
    recs_.unit.push_back(cur_);
    recs_.time.push_back(time);
    recs_.after.push_back(out_.gap[cur_]);
  }

  const Trace& trace_;
  const Replayer::Program& p_;
  std::uint32_t rank_;
  TimeNs enterShare_, leaveShare_;
  OverheadCharges& out_;
  OverheadCharges::GapRecords& recs_;
  std::uint32_t cur_;  // the unit whose gap (inGap_) or call the walk is in
  bool inGap_ = true;
  std::vector<Open> open_;
};

TimeNs gapStart(const Replayer::Program& p, std::uint32_t v) { return p.isFirst(v) ? 0 : p.measLeave[v - 1]; }

// Overhead spent at the very start of gap v: the leave share of the call before it.
TimeNs gapLead(const OverheadCharges& c, const Replayer::Program& p, std::uint32_t v) {
  return p.isFirst(v) ? 0 : c.leaveShare[p.unitRank[v]];
}

// Compensated offset of the gap's end: the gap less its overhead, never below the offset of a
// record inside it (overhead larger than the time between records collapses, it never reverses).
TimeNs gapEndOffset(const OverheadCharges& c, const Replayer::Program& p, std::uint32_t v, TimeNs lastRecord) {
  return std::max({lastRecord, p.gap0[v] - c.gap[v], TimeNs{0}});
}

}  // namespace

OverheadCharges chargeOverhead(const Trace& trace, const Replayer::Program& p, const std::vector<TimeNs>& perRank) {
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
      g.offset[i] = std::max(floor, g.time[i] - gapStart(p, g.unit[i]) - before);
    }
  }
  return c;
}

TimeNs compensatedGapOffset(const OverheadCharges& c, const Replayer::Program& p, std::uint32_t rank,
                            std::uint32_t v, TimeNs t, TimeNs* gapEnd) {
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
  return std::clamp(t - gapStart(p, v) - spent, floor, std::max(floor, ceiling));
}

}  // namespace perwiz
