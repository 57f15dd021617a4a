// The distributed forward sweep (distributed_sweep.h).
#include "distributed_sweep.h"

#include "ghosts.h"
#include "perwiz/internal/wire.h"
#include "perwiz/internal/replay_program.h"

#include <algorithm>
#include <array>
#include <unordered_map>
#include <deque>
#include <string>

namespace perwiz {

SweepLinks sweepLinks(const Replayer& replayer, const Trace& trace, std::uint32_t me, std::uint32_t processes,
                      bool everyMember, const ImportedGhosts& imported) {
  const ReplayProgram& p = internal::ReplayerAccess::program(replayer);
  const std::uint32_t R = std::min(static_cast<std::uint32_t>(trace.rankCount()), imported.proxyRank);
  SweepLinks links;
  links.own = rankShare(R, me, processes);
  links.imports.assign(processes, {});
  links.proxyRank = imported.proxyRank;
  if (imported.proxyRank != kNone32)
    links.proxySenders.assign(p.rankBegin[imported.proxyRank + 1] - p.rankBegin[imported.proxyRank] - 1, 0);
  std::vector<std::uint8_t> top;
  std::vector<std::uint32_t> proxyOf(trace.collectives.size(), kNone32);  // by local instance
  for (std::uint32_t q = 0; q < processes; ++q) {
    if (q == me) continue;
    const RankRange dest = rankShare(R, q, processes);
    std::uint32_t index = 0;
    for (std::uint32_t r = links.own.first; r < links.own.last; ++r) {
      top.clear();
      const std::vector<std::uint32_t> calls = ghostCalls(trace, r, dest, everyMember, &top);
      for (std::size_t i = 0; i < calls.size(); ++i)
        if (top[i]) links.exports.push_back({p.unitOfCall(r, calls[i]), q, index++});
    }
    for (const Proxy& x : ghostProxies(trace, links.own, dest, everyMember)) {
      if (proxyOf[x.instance] == kNone32) {
        proxyOf[x.instance] = links.proxies();
        links.proxyMembers.push_back(0);
      }
      links.proxyDests.push_back({proxyOf[x.instance], q, index++});
    }
    // A ghost rank's units are its selected top-level calls, in order; its sentinel is not one.
    for (std::uint32_t s = dest.first; s < dest.last; ++s)
      for (std::uint32_t u = p.rankBegin[s]; u + 1 < p.rankBegin[s + 1]; ++u) links.imports[q].push_back(u);
    if (q < imported.proxyCall.size())
      for (std::uint32_t c : imported.proxyCall[q]) {
        links.imports[q].push_back(SweepLinks::kProxy | c);
        ++links.proxySenders[c];
      }
  }
  // Each own collective call in a proxy counts towards it, by unit along its rank.
  links.memberships.assign(links.own.size(), {});
  for (std::uint32_t r = links.own.first; r < links.own.last; ++r) {
    const RankTrace& rt = trace.ranks[r];
    for (std::size_t i = 0; i < rt.collectives.size(); ++i) {
      const CollectiveCall c = rt.collectives[i];
      if (!collectiveInProxy(c, everyMember) || c.instance >= proxyOf.size() || proxyOf[c.instance] == kNone32) continue;
      const std::uint32_t k = mpiCallOfEvent(rt, c.event);
      if (k == kNone32) continue;
      links.memberships[r - links.own.first].emplace_back(p.unitOfCall(r, k), proxyOf[c.instance]);
      ++links.proxyMembers[proxyOf[c.instance]];
    }
  }
  std::sort(links.exports.begin(), links.exports.end(), [](const SweepLinks::Export& a, const SweepLinks::Export& b) {
    return a.unit != b.unit ? a.unit < b.unit : a.process < b.process;
  });
  std::stable_sort(links.proxyDests.begin(), links.proxyDests.end(),
                   [](const SweepLinks::ProxyDest& a, const SweepLinks::ProxyDest& b) { return a.proxy < b.proxy; });
  return links;
}

void SweepLinks::proxyMemberLists(std::vector<std::uint32_t>& begin, std::vector<std::uint32_t>& members) const {
  begin.assign(proxies() + 1, 0);
  for (const auto& list : memberships)
    for (const auto& m : list) ++begin[m.second + 1];
  for (std::uint32_t x = 0; x < proxies(); ++x) begin[x + 1] += begin[x];
  members.assign(begin.back(), 0);
  std::vector<std::uint32_t> fill(begin.begin(), begin.end() - 1);
  for (const auto& list : memberships)
    for (const auto& m : list) members[fill[m.second]++] = m.first;
}

namespace {

class Sweep {
 public:
  // `schedule`: decide which dependencies the schedule keeps (the serial buildSchedule's
  // cuts), not values; `trace` names the collectives in a stall's exchange.
  Sweep(Replayer& rp, const SweepLinks& links, ProcessGroup& group, const Trace* trace = nullptr,
        SweepOrder* order = nullptr)
      : p_(internal::ReplayerAccess::program(rp)), v_(internal::ReplayerAccess::effective(rp)),
        res_(internal::ReplayerAccess::resultsForWriting(rp)), links_(links), group_(group),
        schedule_(trace != nullptr), trace_(trace), order_(order),
        flags0_(trace ? internal::ReplayerAccess::dependencyFlagsForWriting(rp).data() : nullptr),
        collectives_(p_, trace ? *trace : rp.trace(), links.own,
                     links.proxyRank != kNone32 ? links.proxyRank : p_.ranks) {
    rf_ = std::min(links.own.first, p_.ranks);
    rl_ = std::min(links.own.last, p_.ranks);
    U0_ = p_.rankBegin[rf_];
    U1_ = p_.rankBegin[rl_];
    known_.assign((std::size_t{p_.units} + 63) / 64, 0);
    nodeSeen_.assign(p_.nodes(), 0);
    nodeDone_.assign(p_.nodes(), 0);
    const std::uint32_t n = rl_ - rf_;
    cursor_.assign(n, 0);
    depCursor_.resize(n);
    exportCursor_.resize(n);
    exportEnd_.resize(n);
    queued_.assign(n, 0);
    waiters_.assign(n, {});
    proxyMissing_ = links.proxyMembers;
    proxyLatest_.assign(links.proxies(), 0);
    memberCursor_.assign(n, 0);
    proxyPending_ = links.proxySenders;
    proxyValue_.assign(links.proxySenders.size(), 0);
    proxyDestBegin_.assign(links.proxies() + 1, 0);
    for (const auto& d : links.proxyDests) ++proxyDestBegin_[d.proxy + 1];
    for (std::uint32_t x = 0; x < links.proxies(); ++x) proxyDestBegin_[x + 1] += proxyDestBegin_[x];
    out_.assign(group.size(), {});
    if (order_) {
      if (p_.units >= SweepOrder::kEnter || p_.nodes() >= SweepOrder::kEnter)
        throw GroupError("distributed sweep: more than 2^30 units or gather nodes on one process");
      order_->items.clear();
      order_->roundStart.assign(1, 0);
    }
  }

  SweepStats run() {
    const std::uint32_t P = group_.size();
    startRound();
    for (std::uint32_t r = rf_; r < rl_; ++r) {
      const std::uint32_t i = r - rf_;
      const std::uint32_t first = p_.rankBegin[r];
      depCursor_[i] = p_.depBegin[first];
      const auto byUnit = [](const SweepLinks::Export& e, std::uint32_t u) { return e.unit < u; };
      exportCursor_[i] = static_cast<std::uint32_t>(
          std::lower_bound(links_.exports.begin(), links_.exports.end(), first, byUnit) - links_.exports.begin());
      exportEnd_[i] = static_cast<std::uint32_t>(
          std::lower_bound(links_.exports.begin(), links_.exports.end(), p_.rankBegin[r + 1], byUnit) -
          links_.exports.begin());
      becameKnown(i, first);
      wake(i);
    }
    for (;;) {
      while (!queue_.empty()) {
        const std::uint32_t i = queue_.front();
        queue_.pop_front();
        queued_[i] = 0;
        advance(i);
      }
      bool done = true;
      for (std::uint32_t i = 0; i < rl_ - rf_; ++i) done = done && finished(i);
      const bool did = computed_ > 0 || sentThisRound_ > 0;
      for (std::uint32_t q = 0; q < P; ++q) out_[q].bytes()[0] = static_cast<char>((done ? 1 : 0) | (did ? 2 : 0));
      std::vector<std::string> out(P);
      for (std::uint32_t q = 0; q < P; ++q) out[q] = out_[q].take();
      const std::vector<std::string> in = group_.exchange(std::move(out));
      ++stats_.rounds;
      if (order_) order_->roundStart.push_back(static_cast<std::uint32_t>(order_->items.size()));
      bool allDone = true, anyDid = false;
      for (std::uint32_t q = 0; q < P; ++q) {
        wire::Reader rd(in[q], "distributed sweep");
        const std::uint8_t status = rd.u8();
        allDone = allDone && (status & 1);
        anyDid = anyDid || (status & 2);
        while (!rd.done()) {
          const std::uint32_t index = rd.u32();
          const TimeNs enter = rd.i64();
          if (q == group_.rank() || index >= links_.imports[q].size())
            throw GroupError("distributed sweep: process " + std::to_string(q) + " sent an enter for unknown ghost " +
                             std::to_string(index));
          const std::uint32_t entry = links_.imports[q][index];
          if (entry & SweepLinks::kProxy) {  // one process's latest member: the latest of all
            const std::uint32_t c = entry & ~SweepLinks::kProxy;
            proxyValue_[c] = std::max(proxyValue_[c], enter);
            if (--proxyPending_[c] > 0) continue;
            const std::uint32_t g = p_.rankBegin[links_.proxyRank] + c;
            if (!schedule_) res_.leave[g] = proxyValue_[c];
            if (order_) order_->items.push_back(SweepOrder::kEnter | g);  // fixed at the next round's start
            setKnown(g);
            continue;
          }
          if (!schedule_) res_.leave[entry] = enter;  // a ghost's leave slot holds its enter (its leave is never read)
          setKnown(entry);
        }
      }
      if (allDone) break;
      if (!anyDid && schedule_) {
        // Every unfinished rank waits: cut a dependency as the serial schedule would.
        startRound();
        cutCycle();
        for (std::uint32_t i : external_) wake(i);
        external_.clear();
        continue;
      }
      if (!anyDid)
        throw SweepCycle("the trace's dependencies form a cycle across the processes' ranks that the schedule did "
                         "not cut: stopped after " + std::to_string(stats_.rounds) + " rounds");
      startRound();
      for (std::uint32_t i : external_) wake(i);
      external_.clear();
    }
    return stats_;
  }

 private:
  bool isLocal(std::uint32_t u) const { return u >= U0_ && u < U1_; }
  bool known(std::uint32_t u) const { return (known_[u >> 6] >> (u & 63)) & 1; }
  void setKnown(std::uint32_t u) { known_[u >> 6] |= std::uint64_t{1} << (u & 63); }
  bool finished(std::uint32_t i) const { return cursor_[i] == p_.rankBegin[rf_ + i + 1] - p_.rankBegin[rf_ + i]; }

  // A unit's predicted enter: a local one's from its rank's previous leave (the serial
  // sweep's enterWith), a ghost's as received.
  TimeNs enterOf(std::uint32_t u) const {
    if (!isLocal(u)) return res_.leave[u];
    return p_.isFirst(u) ? v_.gap[u] : satAdd(res_.leave[u - 1], v_.gap[u]);
  }
  TimeNs srcValue(std::uint32_t s) const { return s < p_.units ? enterOf(s) : res_.nodeVal[s - p_.units]; }

  // Node n's value once every member's enter is known; else false and the first member
  // still unknown in `missing` (members are checked once each: known enters stay known).
  bool nodeReady(std::uint32_t n, std::uint32_t& missing) {
    if (nodeDone_[n]) return true;
    const std::uint32_t b = p_.nodeBegin[n], e = p_.nodeBegin[n + 1];
    std::uint32_t& seen = nodeSeen_[n];
    while (b + seen < e && known(p_.nodeMembers[b + seen])) ++seen;
    if (b + seen < e) {
      missing = p_.nodeMembers[b + seen];
      return false;
    }
    if (!schedule_) res_.nodeVal[n] = p_.nodeValue(n, [&](std::uint32_t u) { return enterOf(u); });
    if (order_) order_->items.push_back(SweepOrder::kNode | n);
    nodeDone_[n] = 1;
    return true;
  }

  void startRound() {
    computed_ = 0;
    sentThisRound_ = 0;
    for (auto& w : out_) {
      w = wire::Writer();
      w.u8(0);  // the status byte, written at the round's end
    }
  }

  void wake(std::uint32_t i) {
    if (!queued_[i] && !finished(i)) {
      queued_[i] = 1;
      queue_.push_back(i);
    }
  }

  // Waits for unit or member `u`: a local one's rank wakes this one when it advances; a
  // ghost arrives at a round's end.
  void blockOn(std::uint32_t i, std::uint32_t u) {
    if (isLocal(u)) waiters_[p_.rankOf(u) - rf_].push_back(i);
    else external_.push_back(i);
  }

  // Unit u (of local rank index i) has its enter known: send it to its readers, and a proxy it
  // completes (the latest enter of this process's members) to the proxy's.
  void becameKnown(std::uint32_t i, std::uint32_t u) {
    setKnown(u);
    const auto& members = links_.memberships[i];
    for (std::uint32_t& m = memberCursor_[i]; m < members.size() && members[m].first == u; ++m) {
      const std::uint32_t x = members[m].second;
      proxyLatest_[x] = std::max(proxyLatest_[x], schedule_ ? TimeNs{0} : enterOf(u));
      if (--proxyMissing_[x] > 0) continue;
      for (std::uint32_t k = proxyDestBegin_[x]; k < proxyDestBegin_[x + 1]; ++k) {
        wire::Writer& w = out_[links_.proxyDests[k].process];
        w.u32(links_.proxyDests[k].index);
        w.i64(proxyLatest_[x]);
        ++sentThisRound_;
        ++stats_.enterSent;
      }
    }
    std::uint32_t& c = exportCursor_[i];
    if (c < exportEnd_[i] && links_.exports[c].unit == u) {
      const TimeNs enter = schedule_ ? 0 : enterOf(u);
      for (; c < exportEnd_[i] && links_.exports[c].unit == u; ++c) {
        wire::Writer& w = out_[links_.exports[c].process];
        w.u32(links_.exports[c].index);
        w.i64(enter);
        ++sentThisRound_;
        ++stats_.enterSent;
      }
    }
  }

  // ---- the schedule's cycle cut (schedule mode) ----

  // The collective instance of unit u's call (kNone32 if it is none's).
  std::uint32_t instanceOf(std::uint32_t u) const {
    const std::uint32_t r = p_.rankOf(u);
    const RankTrace& rt = trace_->ranks[r];
    const std::uint32_t e = rt.mpiCalls[p_.callIn(r, u)];
    const auto it = std::lower_bound(rt.collectives.begin(), rt.collectives.end(), e,
                                     [](const CollectiveCall& c, std::uint32_t ev) { return c.event < ev; });
    if (it == rt.collectives.end()) return kNone32;
    const CollectiveCall c = *it;
    return c.event == e ? c.instance : kNone32;
  }

  // This process's first own member of (comm, sequence), in communicator order, whose enter is
  // not known yet: (position, rank), or kNone32s.
  std::pair<std::uint32_t, std::uint32_t> firstUnknownMember(std::uint32_t comm, std::uint32_t sequence) {
    std::pair<std::uint32_t, std::uint32_t> best{kNone32, kNone32};
    collectives_.forEachMember(comm, sequence, [&](std::uint32_t u) {
      if (known(u)) return;
      const std::uint32_t r = p_.rankOf(u);
      const std::uint32_t pos = collectives_.position(comm, r);
      if (pos < best.first) best = {pos, r};
    });
    return best;
  }

  // Every unfinished rank of every process waits (a stall of the whole group): cut one
  // dependency by the serial rule (replay_program.cpp, breakCycle) on the same state. Each
  // process names, per unfinished rank, the rank its blocked dependency waits for (for a gather:
  // the first member, in communicator order, whose enter is unknown, asking the others where a
  // proxy stands for theirs) and the dependency's flags; every process then finds the same
  // cycle from the first unfinished rank, and the victim's owner cuts it.
  void cutCycle() {
    struct Blocked {
      std::uint32_t rank;
      std::uint8_t flags;
      std::uint32_t blocker;  // a rank, or kNone32 for a gather to be decided
      std::uint32_t comm, sequence, position;
      bool ask;
    };
    wire::Writer w;
    for (std::uint32_t i = 0; i < rl_ - rf_; ++i) {
      if (finished(i)) continue;
      const std::uint32_t u = p_.rankBegin[rf_ + i] + cursor_[i], d = depCursor_[i];
      const std::uint32_t s = p_.depSrc[d];
      w.u32(rf_ + i);
      w.u8(flags0_[d]);
      if (s < p_.units) {
        w.u8('U');
        w.u32(p_.rankOf(s));
        continue;
      }
      const std::uint32_t n = s - p_.units;
      const std::uint32_t inst = instanceOf(u);
      if (inst == kNone32 || inst >= trace_->collectives.size())
        throw GroupError("distributed schedule: a gather without a collective instance");
      const std::uint32_t comm = trace_->collectives[inst].comm;
      std::uint32_t pos = kNone32, rank = kNone32;
      bool ask = false;
      for (std::uint32_t k = p_.nodeBegin[n]; k < p_.nodeBegin[n + 1]; ++k) {
        const std::uint32_t m = p_.nodeMembers[k];
        if (known(m)) continue;
        const std::uint32_t r = p_.rankOf(m);
        if (r == links_.proxyRank) {
          ask = true;
          continue;
        }
        const std::uint32_t at = collectives_.position(comm, r);
        if (at < pos) pos = at, rank = r;
      }
      w.u8('N');
      w.u32(comm);
      w.u32(trace_->collectives[inst].sequence);
      w.u32(pos);
      w.u32(rank);
      w.u8(ask ? 1 : 0);
    }
    std::vector<Blocked> all;
    std::vector<std::pair<std::uint32_t, std::uint32_t>> asked;  // (comm, sequence)
    for (const std::string& b : group_.allGather(w.take())) {
      wire::Reader rd(b, "distributed schedule");
      while (!rd.done()) {
        Blocked x{};
        x.rank = rd.u32();
        x.flags = rd.u8();
        if (rd.u8() == 'U') {
          x.blocker = rd.u32();
        } else {
          x.comm = rd.u32();
          x.sequence = rd.u32();
          x.position = rd.u32();
          x.blocker = rd.u32();
          x.ask = rd.u8() != 0;
          if (x.ask) asked.emplace_back(x.comm, x.sequence);
        }
        all.push_back(x);
      }
    }
    std::sort(asked.begin(), asked.end());
    asked.erase(std::unique(asked.begin(), asked.end()), asked.end());
    if (!asked.empty()) {
      // Every process's first unknown member of each asked gather.
      wire::Writer a;
      for (const auto& [comm, seq] : asked) {
        const auto m = firstUnknownMember(comm, seq);
        a.u32(m.first);
        a.u32(m.second);
      }
      std::vector<std::pair<std::uint32_t, std::uint32_t>> first(asked.size(), {kNone32, kNone32});
      for (const std::string& b : group_.allGather(a.take())) {
        wire::Reader rd(b, "distributed schedule");
        for (auto& f : first) {
          const std::uint32_t pos = rd.u32(), rank = rd.u32();
          if (pos < f.first) f = {pos, rank};
        }
      }
      for (Blocked& x : all) {
        if (!x.ask) continue;
        const auto k = std::lower_bound(asked.begin(), asked.end(), std::make_pair(x.comm, x.sequence)) - asked.begin();
        if (first[k].first < x.position) x.position = first[k].first, x.blocker = first[k].second;
      }
    }
    std::sort(all.begin(), all.end(), [](const Blocked& a, const Blocked& b) { return a.rank < b.rank; });
    if (all.empty()) throw GroupError("distributed schedule: a stall without a waiting rank");
    auto find = [&](std::uint32_t r) -> const Blocked* {
      const auto it = std::lower_bound(all.begin(), all.end(), r, [](const Blocked& b, std::uint32_t x) { return b.rank < x; });
      return it != all.end() && it->rank == r ? &*it : nullptr;
    };
    // A gather with no unknown member waits for nothing named: its rank stands for itself.
    auto blocker = [&](std::uint32_t r) {
      const Blocked* b = find(r);
      if (!b) throw GroupError("distributed schedule: rank " + std::to_string(r) + " waits for a finished rank");
      return b->blocker == kNone32 ? r : b->blocker;
    };
    const std::uint32_t victim = cycleVictim(links_.proxyRank != kNone32 ? links_.proxyRank : p_.ranks,
                                             all.front().rank, blocker,
                                             [&](std::uint32_t r) { return find(r)->flags; });
    if (find(victim)->flags & dep::kActive) ++stats_.brokenCycles;
    if (victim < rf_ || victim >= rl_) return;
    const std::uint32_t i = victim - rf_;
    flags0_[depCursor_[i]] = static_cast<std::uint8_t>(flags0_[depCursor_[i]] & ~dep::kScheduled);
    wake(i);
  }

  void advance(std::uint32_t i) {
    const std::uint32_t r = rf_ + i;
    const std::uint32_t base = p_.rankBegin[r], end = p_.rankBegin[r + 1];
    std::uint32_t u = base + cursor_[i], d = depCursor_[i];
    const auto src = [&](std::uint32_t s) { return srcValue(s); };
    while (u < end) {
      const bool noWait = !schedule_ && v_.noWait[u] != 0;
      if (!noWait)
        for (const std::uint32_t last = p_.depBegin[u + 1]; d < last; ++d) {
          if (schedule_ ? !(flags0_[d] & dep::kScheduled) : (v_.depFlags[d] & dep::kUse) != dep::kUse) continue;
          const std::uint32_t s = p_.depSrc[d];
          std::uint32_t missing = s;
          if (s < p_.units ? known(s) : nodeReady(s - p_.units, missing)) continue;
          cursor_[i] = u - base;
          depCursor_[i] = d;
          blockOn(i, missing);
          return;
        }
      if (!schedule_) res_.leave[u] = leaveRule(p_, u, enterOf(u), noWait, v_, src);
      if (order_) order_->items.push_back(u);
      ++computed_;
      ++u;
      d = p_.depBegin[u];
      if (u < end) becameKnown(i, u);
      if (!waiters_[i].empty()) {
        waking_.swap(waiters_[i]);
        for (std::uint32_t w : waking_) wake(w);
        waking_.clear();
      }
    }
    cursor_[i] = u - base;
    depCursor_[i] = d;
  }

  const ReplayProgram& p_;
  const EffectiveProgram v_;
  ReplayResults res_;
  const SweepLinks& links_;
  ProcessGroup& group_;
  const bool schedule_;
  const Trace* trace_;
  SweepOrder* order_;
  std::uint8_t* flags0_;
  OwnCollectives collectives_;
  std::uint32_t rf_ = 0, rl_ = 0, U0_ = 0, U1_ = 0;
  std::vector<std::uint64_t> known_;  // bit u: unit u's predicted enter is known here
  std::vector<std::uint32_t> nodeSeen_;
  std::vector<std::uint8_t> nodeDone_;
  std::vector<std::uint32_t> cursor_, depCursor_, exportCursor_, exportEnd_;  // per local rank
  std::vector<std::uint8_t> queued_;
  std::vector<std::vector<std::uint32_t>> waiters_;
  std::vector<std::uint32_t> proxyMissing_, proxyDestBegin_, memberCursor_;  // proxies this process sends
  std::vector<TimeNs> proxyLatest_;
  std::vector<std::uint32_t> proxyPending_;  // proxy-rank calls: processes yet to send
  std::vector<TimeNs> proxyValue_;
  std::vector<std::uint32_t> external_, waking_;
  std::deque<std::uint32_t> queue_;
  std::vector<wire::Writer> out_;
  std::uint64_t computed_ = 0, sentThisRound_ = 0;
  SweepStats stats_;
};

}  // namespace

std::uint32_t OwnCollectives::position(std::uint32_t comm, std::uint32_t rank) {
  if (comm >= trace_.comms.size()) return rank;
  auto [it, fresh] = positions_.try_emplace(comm);
  if (fresh) it->second = communicatorPositions(trace_.comms[comm], ranks_);
  return rank < it->second.size() ? it->second[rank] : kNone32;
}

std::uint32_t OwnCollectives::find(std::uint32_t comm, std::uint32_t sequence) {
  if (!built_) {
    built_ = true;
    for (std::uint32_t r = own_.first; r < own_.last && r < trace_.ranks.size(); ++r) {
      const RankTrace& rt = trace_.ranks[r];
      for (const CollectiveCall& c : rt.collectives) {
        const std::uint32_t k = mpiCallOfEvent(rt, c.event);
        if (k != kNone32 && c.instance != kNone32) members_.emplace_back(c.instance, p_.unitOfCall(r, k));
      }
    }
    std::sort(members_.begin(), members_.end());
    instances_.reserve(trace_.collectives.size());
    for (std::uint32_t i = 0; i < trace_.collectives.size(); ++i)
      instances_.push_back({trace_.collectives[i].comm, trace_.collectives[i].sequence, i});
    std::sort(instances_.begin(), instances_.end());
  }
  const std::array<std::uint32_t, 3> key{comm, sequence, 0};
  const auto at = std::lower_bound(instances_.begin(), instances_.end(), key);
  return at != instances_.end() && (*at)[0] == comm && (*at)[1] == sequence ? (*at)[2] : kNone32;
}

SweepStats sweepDistributed(Replayer& replayer, const SweepLinks& links, ProcessGroup& group, SweepOrder* order) {
  return Sweep(replayer, links, group, nullptr, order).run();
}

SweepStats scheduleDistributed(Replayer& replayer, const Trace& trace, const SweepLinks& links, ProcessGroup& group) {
  // Every dependency of the own units starts scheduled, as in the serial builder; the replay
  // program built here cut its own cycles over an incomplete view of the other ranks.
  const ReplayProgram& p = internal::ReplayerAccess::program(replayer);
  std::vector<std::uint8_t>& flags = internal::ReplayerAccess::dependencyFlagsForWriting(replayer);
  const std::uint32_t rf = std::min(links.own.first, p.ranks), rl = std::min(links.own.last, p.ranks);
  for (std::uint32_t d = p.depBegin[p.rankBegin[rf]]; d < p.depBegin[p.rankBegin[rl]]; ++d)
    flags[d] = static_cast<std::uint8_t>(flags[d] | dep::kScheduled);
  return Sweep(replayer, links, group, &trace).run();
}

}  // namespace perwiz
