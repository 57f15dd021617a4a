// The distributed forward sweep (distributed_sweep.h).
#include "distributed_sweep.h"

#include "../distributed/ghosts.h"
#include "../distributed/wire.h"
#include "replay_program.h"

#include <algorithm>
#include <deque>
#include <map>
#include <string>

namespace perwiz {

SweepLinks sweepLinks(const Replayer& replayer, const Trace& trace, std::uint32_t me, std::uint32_t processes,
                      bool everyMember, const ImportedGhosts& imported) {
  const Replayer::Program& p = replayer.program();
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

namespace {

class Sweep {
 public:
  Sweep(Replayer& rp, const SweepLinks& links, ProcessGroup& group)
      : p_(rp.program()), v_(rp.effective()), res_(rp.resultsForWriting()), links_(links), group_(group) {
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
            res_.leave[g] = proxyValue_[c];
            setKnown(g);
            continue;
          }
          res_.leave[entry] = enter;  // a ghost's leave slot holds its enter (its leave is never read)
          setKnown(entry);
        }
      }
      if (allDone) break;
      if (!anyDid)
        throw GroupError("the trace's dependencies form a cycle across the processes' ranks (the serial "
                         "perwiz-cli predict breaks such rendezvous cycles; perwiz-mpi does not yet): stopped after " +
                         std::to_string(stats_.rounds) + " rounds");
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
    res_.nodeVal[n] = p_.nodeValue(n, [&](std::uint32_t u) { return enterOf(u); });
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
      proxyLatest_[x] = std::max(proxyLatest_[x], enterOf(u));
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
      const TimeNs enter = enterOf(u);
      for (; c < exportEnd_[i] && links_.exports[c].unit == u; ++c) {
        wire::Writer& w = out_[links_.exports[c].process];
        w.u32(links_.exports[c].index);
        w.i64(enter);
        ++sentThisRound_;
        ++stats_.enterSent;
      }
    }
  }

  void advance(std::uint32_t i) {
    const std::uint32_t r = rf_ + i;
    const std::uint32_t base = p_.rankBegin[r], end = p_.rankBegin[r + 1];
    std::uint32_t u = base + cursor_[i], d = depCursor_[i];
    const auto src = [&](std::uint32_t s) { return srcValue(s); };
    while (u < end) {
      const bool noWait = v_.noWait[u] != 0;
      if (!noWait)
        for (const std::uint32_t last = p_.depBegin[u + 1]; d < last; ++d) {
          if ((v_.depFlags[d] & dep::kUse) != dep::kUse) continue;
          const std::uint32_t s = p_.depSrc[d];
          std::uint32_t missing = s;
          if (s < p_.units ? known(s) : nodeReady(s - p_.units, missing)) continue;
          cursor_[i] = u - base;
          depCursor_[i] = d;
          blockOn(i, missing);
          return;
        }
      res_.leave[u] = leaveRule(p_, u, enterOf(u), noWait, v_, src);
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

  const Replayer::Program& p_;
  const Replayer::Effective v_;
  Replayer::Results res_;
  const SweepLinks& links_;
  ProcessGroup& group_;
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

SweepStats sweepDistributed(Replayer& replayer, const SweepLinks& links, ProcessGroup& group) {
  return Sweep(replayer, links, group).run();
}

}  // namespace perwiz
