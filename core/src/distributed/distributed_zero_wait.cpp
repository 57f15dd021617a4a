// The domino search's exact bounds over shares (distributed_zero_wait.h).
#include "distributed_zero_wait.h"

#include "perwiz/checked_time.h"
#include "perwiz/internal/replay_program.h"
#include "perwiz/internal/wire.h"
#include "perwiz/release.h"
#include "perwiz/trace_io.h"

#include <algorithm>
#include <bit>
#include <limits>
#include <string>

namespace perwiz {
namespace {

constexpr TimeNs kNo = std::numeric_limits<TimeNs>::min();
constexpr std::uint64_t kUnplaced = std::numeric_limits<std::uint64_t>::max();
void relax(TimeNs& t, TimeNs v) { t = std::max(t, v); }

class ZeroWaitOverShares {
 public:
  ZeroWaitOverShares(Replayer& rp, std::uint32_t ranks, const SweepLinks& links, const SweepOrder& order,
                     ProcessGroup& group)
      : p_(internal::ReplayerAccess::program(rp)), v_(internal::ReplayerAccess::effective(rp)),
        res_(internal::ReplayerAccess::resultsForWriting(rp)), links_(links), order_(order), group_(group), R_(ranks),
        U_(p_.units), N_(p_.nodes()) {
    rf_ = std::min(links.own.first, p_.ranks);
    rl_ = std::min(links.own.last, p_.ranks);
    U0_ = p_.rankBegin[rf_];
    U1_ = p_.rankBegin[rl_];
    ownerOf_.resize(R_);
    for (std::uint32_t q = 0; q < group.size(); ++q) {
      const RankRange s = rankShare(R_, q, group.size());
      for (std::uint32_t r = s.first; r < s.last; ++r) ownerOf_[r] = q;
    }
  }

  std::vector<TimeNs> solve(TimeNs t, const std::vector<EventRef>& calls) {
    positions();
    ghostPositions();
    tails();
    std::vector<std::uint32_t> unit(calls.size(), kNone32);  // the own query units
    for (std::size_t i = 0; i < calls.size(); ++i) {
      const EventRef& e = calls[i];
      if (e.computation || e.rank < rf_ || e.rank >= rl_ || e.index >= p_.callCount(e.rank) ||
          p_.isNested(e.rank, e.index))
        continue;
      unit[i] = p_.unitOfCall(e.rank, e.index);
    }
    gatherQueries(unit);
    jumps();
    combineTables();
    return answers(t, unit);
  }

 private:
  bool own(std::uint32_t u) const { return u >= U0_ && u < U1_; }
  bool isProxy(std::uint32_t u) const { return links_.proxyRank != kNone32 && p_.rankOf(u) == links_.proxyRank; }
  TimeNs enterOf(std::uint32_t u) const {  // a ghost's or proxy's leave slot holds its enter
    if (!own(u)) return res_.leave[u];
    return p_.isFirst(u) ? v_.gap[u] : satAdd(res_.leave[u - 1], v_.gap[u]);
  }
  // Arrays over the local units that are no own ones (ghosts, the proxy rank): index of u.
  std::uint32_t other(std::uint32_t u) const { return u < U0_ ? u : u - (U1_ - U0_); }
  // An own unit's return's position from its place in the sweep's order (4 B per own unit).
  std::uint64_t posL(std::uint32_t u) const {
    const std::uint32_t j = seq_[u - U0_];
    const auto b =
        std::upper_bound(order_.roundStart.begin(), order_.roundStart.end(), j) - order_.roundStart.begin() - 1;
    return 1 + 2 * (blockOff_[static_cast<std::size_t>(b)] + j);
  }
  std::uint64_t posE(std::uint32_t u) const {  // E(u): right after L(u − 1); a first enter before all
    if (!own(u)) return posOther_[other(u)];
    return p_.isFirst(u) ? 0 : posL(u - 1) + 1;
  }
  std::uint64_t posOf(std::uint32_t src) const { return src < U_ ? posE(src) : posN_[src - U_]; }
  TimeNs tailL(std::uint32_t u) const {
    if (p_.isSentinel(u)) return 0;
    return tailE_[u + 1] == kNo ? kNo : satAdd(v_.gap[u + 1], tailE_[u + 1]);
  }
  bool used(std::uint32_t k) const { return (v_.depFlags[k] & dep::kUse) == dep::kUse; }
  const std::vector<TimeNs>& memberWeights(std::uint32_t n) {
    p_.nodeMemberWeights(
        n, [&](std::uint32_t u) { return enterOf(u); }, weight_);
    return weight_;
  }
  std::size_t blocks() const { return order_.roundStart.size() - 1; }

  // Every item's global position: blocks (round, process) in that order, 2 positions per item.
  void positions() {
    const std::size_t B = blocks();
    wire::Writer w;
    for (std::size_t b = 0; b < B; ++b) w.u32(order_.roundStart[b + 1] - order_.roundStart[b]);
    const std::vector<std::string> all = group_.allGather(w.take());
    std::vector<std::uint64_t> base(B, 0);
    std::uint64_t total = 0;
    std::vector<wire::Reader> rd;
    for (const std::string& s : all) rd.emplace_back(s, "zero-wait order");
    for (std::size_t b = 0; b < B; ++b)
      for (std::uint32_t q = 0; q < group_.size(); ++q) {
        if (q == group_.rank()) base[b] = total;
        total += rd[q].u32();
      }
    seq_.assign(U1_ - U0_, 0);
    posOther_.assign(U_ - (U1_ - U0_), kUnplaced);
    posN_.assign(N_, kUnplaced);
    blockOff_.assign(B + 1, 0);
    for (std::size_t b = 0; b < B; ++b) {
      blockOff_[b] = base[b] - order_.roundStart[b];
      for (std::uint32_t j = order_.roundStart[b]; j < order_.roundStart[b + 1]; ++j) {
        const std::uint32_t item = order_.items[j];
        if (item & SweepOrder::kNode)
          posN_[item & ~SweepOrder::kNode] = 1 + 2 * (blockOff_[b] + j);
        else if (item & SweepOrder::kEnter)
          posOther_[other(item & ~SweepOrder::kEnter)] = 1 + 2 * (blockOff_[b] + j);
        else
          seq_[item - U0_] = j;
      }
    }
    end_ = 1 + 2 * total;
  }

  // A ghost's enter takes its owner's position; the reverse maps for the tails' messages.
  void ghostPositions() {
    const std::uint32_t P = group_.size();
    std::vector<wire::Writer> out(P);
    exportAt_.assign(P, {});
    for (const auto& e : links_.exports) {
      out[e.process].u32(e.index);
      out[e.process].u64(posE(e.unit));
      if (exportAt_[e.process].size() <= e.index) exportAt_[e.process].resize(e.index + 1, kNone32);
      exportAt_[e.process][e.index] = e.unit;
    }
    for (std::uint32_t k = 0; k < links_.proxyDests.size(); ++k) {
      const auto& d = links_.proxyDests[k];
      if (exportAt_[d.process].size() <= d.index) exportAt_[d.process].resize(d.index + 1, kNone32);
      exportAt_[d.process][d.index] = SweepLinks::kProxy | k;
    }
    std::vector<std::string> bufs(P);
    for (std::uint32_t q = 0; q < P; ++q) bufs[q] = out[q].take();
    const std::vector<std::string> in = group_.exchange(std::move(bufs));
    importAt_.assign(U_ - (U1_ - U0_), kNone32);
    proxySources_.assign(links_.proxySenders.size(), {});
    for (std::uint32_t q = 0; q < P; ++q) {
      if (q == group_.rank()) continue;
      for (std::uint32_t i = 0; i < links_.imports[q].size(); ++i) {
        const std::uint32_t entry = links_.imports[q][i];
        if (entry & SweepLinks::kProxy)
          proxySources_[entry & ~SweepLinks::kProxy].emplace_back(q, i);
        else
          importAt_[other(entry)] = i;
      }
      wire::Reader rd(in[q], "zero-wait ghost positions");
      while (!rd.done()) {
        const std::uint32_t i = rd.u32();
        const std::uint64_t at = rd.u64();
        if (i >= links_.imports[q].size() || (links_.imports[q][i] & SweepLinks::kProxy))
          throw GroupError("zero-wait times: process " + std::to_string(q) + " placed an unknown ghost");
        posOther_[other(links_.imports[q][i])] = at;
      }
    }
    // The own members of each proxy this process sends.
    links_.proxyMemberLists(memberBegin_, members_);
  }

  void touch(std::uint32_t u) {
    if (!own(u) && !isProxy(u) && !touched_[other(u)]) {
      touched_[other(u)] = 1;
      touchedList_.push_back(u);
    }
  }

  // One item of the backward pass: the serial tails() for a unit's return and a node.
  void tailOf(std::uint32_t item) {
    if (item & SweepOrder::kEnter) return;  // a proxy's tail is final: sent after the round
    if (item & SweepOrder::kNode) {
      const std::uint32_t n = item & ~SweepOrder::kNode;
      if (tailN_[n] == kNo) return;
      const std::vector<TimeNs>& w = memberWeights(n);
      for (std::uint32_t j = p_.nodeBegin[n]; j < p_.nodeBegin[n + 1]; ++j) {
        const std::uint32_t m = p_.nodeMembers[j];
        relax(tailE_[m], satAdd(w[j - p_.nodeBegin[n]], tailN_[n]));
        touch(m);
      }
      return;
    }
    const std::uint32_t u = item;
    const TimeNs tl = tailL(u);
    if (tl == kNo) return;
    relax(tailE_[u], satAdd(v_.local[u], tl));
    if (v_.noWait[u]) return;
    for (std::uint32_t k = p_.depBegin[u]; k < p_.depBegin[u + 1]; ++k) {
      if (!used(k)) continue;
      const std::uint32_t s = p_.depSrc[k];
      const TimeNs x = satAdd(satAdd(v_.depOff[k], v_.local[u]), tl);
      if (s < U_) {
        relax(tailE_[s], x);
        touch(s);
      } else {
        relax(tailN_[s - U_], x);
      }
    }
  }

  // Longest distances to the end, last round first; after each round the ghosts' tails go to
  // their owners and the completed proxies' to their senders.
  void tails() {
    const std::uint32_t P = group_.size();
    tailE_.assign(U_, kNo);
    tailN_.assign(N_, kNo);
    touched_.assign(U_ - (U1_ - U0_), 0);
    proxyTail_.assign(links_.proxyDests.size(), kNo);
    proxyPos_.assign(links_.proxyDests.size(), kUnplaced);
    for (std::size_t b = blocks(); b-- > 0;) {
      std::vector<wire::Writer> out(P);
      for (std::uint32_t j = order_.roundStart[b + 1]; j-- > order_.roundStart[b];) {
        const std::uint32_t item = order_.items[j];
        tailOf(item);
        if (!(item & SweepOrder::kEnter)) continue;
        const std::uint32_t g = item & ~SweepOrder::kEnter;
        if (tailE_[g] == kNo) continue;
        for (const auto& [q, i] : proxySources_[g - p_.rankBegin[links_.proxyRank]]) {
          out[q].u32(i);
          out[q].i64(tailE_[g]);
          out[q].u64(posOther_[other(g)]);
        }
      }
      for (std::uint32_t u : touchedList_) {
        touched_[other(u)] = 0;
        if (tailE_[u] == kNo || importAt_[other(u)] == kNone32) continue;
        wire::Writer& w = out[ownerOf_[p_.rankOf(u)]];
        w.u32(importAt_[other(u)]);
        w.i64(tailE_[u]);
        w.u64(0);
      }
      touchedList_.clear();
      std::vector<std::string> bufs(P);
      for (std::uint32_t q = 0; q < P; ++q) bufs[q] = out[q].take();
      const std::vector<std::string> in = group_.exchange(std::move(bufs));
      for (std::uint32_t q = 0; q < P; ++q) {
        if (q == group_.rank()) continue;
        wire::Reader rd(in[q], "zero-wait tails");
        while (!rd.done()) {
          const std::uint32_t i = rd.u32();
          const TimeNs tail = rd.i64();
          const std::uint64_t at = rd.u64();
          const std::uint32_t e = i < exportAt_[q].size() ? exportAt_[q][i] : kNone32;
          if (e == kNone32)
            throw GroupError("zero-wait times: process " + std::to_string(q) + " sent a tail for unknown ghost " +
                             std::to_string(i));
          if (!(e & SweepLinks::kProxy)) {
            relax(tailE_[e], tail);
            continue;
          }
          const std::uint32_t k = e & ~SweepLinks::kProxy;  // members → the proxy on q: weight 0
          relax(proxyTail_[k], tail);
          proxyPos_[k] = at;
          const std::uint32_t x = links_.proxyDests[k].proxy;
          for (std::uint32_t m = memberBegin_[x]; m < memberBegin_[x + 1]; ++m) relax(tailE_[members_[m]], tail);
        }
      }
    }
  }

  // The queries' positions (each once, ascending) from every process.
  void gatherQueries(const std::vector<std::uint32_t>& unit) {
    wire::Writer w;
    for (std::uint32_t u : unit)
      if (u != kNone32) w.u64(posL(u));
    std::vector<std::pair<std::uint64_t, std::uint32_t>> all;  // (position, owner)
    const std::vector<std::string> in = group_.allGather(w.take());
    for (std::uint32_t q = 0; q < in.size(); ++q) {
      wire::Reader rd(in[q], "zero-wait queries");
      while (!rd.done()) all.emplace_back(rd.u64(), q);
    }
    std::sort(all.begin(), all.end());
    all.erase(std::unique(all.begin(), all.end()), all.end());
    query_.resize(all.size());
    owner_.resize(all.size());
    for (std::size_t i = 0; i < all.size(); ++i) query_[i] = all[i].first, owner_[i] = all[i].second;
  }
  std::size_t below(std::uint64_t x) const {
    return static_cast<std::size_t>(std::lower_bound(query_.begin(), query_.end(), x) - query_.begin());
  }
  // Raises the queries strictly between `from` and `to` to `length`: a range maximum over a
  // segment tree of 2K entries (the serial sparse table's K log K would be 99 MB on each process
  // for the 620,079 queries at 10^8 events).
  void jump(std::uint64_t from, std::uint64_t to, TimeNs length) {
    std::size_t lo = below(from + 1) + K_, hi = below(to) + K_;
    for (; lo < hi; lo >>= 1, hi >>= 1) {
      if (lo & 1) relax(tree_[lo++], length);
      if (hi & 1) relax(tree_[--hi], length);
    }
  }

  // Every edge into this process's vertices, and its members' edges into proxies elsewhere.
  void jumps() {
    K_ = query_.size();
    tree_.assign(2 * K_, kNo);
    if (K_ == 0) return;
    for (std::uint32_t u = U0_; u < U1_; ++u) {
      const TimeNs tl = tailL(u);
      if (tl == kNo) continue;
      const std::uint64_t at = posL(u);
      jump(posE(u), at, satAdd(satAdd(enterOf(u), v_.local[u]), tl));
      if (v_.noWait[u]) continue;
      for (std::uint32_t k = p_.depBegin[u]; k < p_.depBegin[u + 1]; ++k) {
        if (!used(k)) continue;
        const std::uint32_t s = p_.depSrc[k];
        const TimeNs from = s < U_ ? enterOf(s) : res_.nodeVal[s - U_];
        jump(posOf(s), at, satAdd(satAdd(satAdd(from, v_.depOff[k]), v_.local[u]), tl));
      }
    }
    for (std::uint32_t n = 0; n < N_; ++n) {
      if (posN_[n] == kUnplaced || tailN_[n] == kNo) continue;
      const std::vector<TimeNs>& w = memberWeights(n);
      for (std::uint32_t j = p_.nodeBegin[n]; j < p_.nodeBegin[n + 1]; ++j) {
        const std::uint32_t m = p_.nodeMembers[j];
        jump(posE(m), posN_[n], satAdd(satAdd(enterOf(m), w[j - p_.nodeBegin[n]]), tailN_[n]));
      }
    }
    for (std::uint32_t k = 0; k < links_.proxyDests.size(); ++k) {
      if (proxyTail_[k] == kNo) continue;
      const std::uint32_t x = links_.proxyDests[k].proxy;
      for (std::uint32_t m = memberBegin_[x]; m < memberBegin_[x + 1]; ++m)
        jump(posE(members_[m]), proxyPos_[k], satAdd(enterOf(members_[m]), proxyTail_[k]));
    }
    for (std::uint32_t r = rf_; r < rl_; ++r) {
      const std::uint32_t last = p_.rankBegin[r + 1] - 1;
      jump(posL(last), end_, res_.leave[last]);
    }
  }

  // The processes' tables max-combined, then pushed down to level 0 (the serial jumps()' end).
  // Each process's tree pushed down to its leaves (pushing down and the maximum over the
  // processes commute), then each query's entry to its owner, which takes the maximum: 8 B per
  // query sent by each process, not its tree.
  void combineTables() {
    if (K_ == 0) return;
    for (std::size_t i = 1; i < K_; ++i) {
      relax(tree_[2 * i], tree_[i]);
      relax(tree_[2 * i + 1], tree_[i]);
    }
    table_.assign(tree_.begin() + static_cast<std::ptrdiff_t>(K_), tree_.end());
    releaseMemory(tree_);
    const std::uint32_t P = group_.size();
    std::vector<wire::Writer> out(P);
    for (std::size_t i = 0; i < K_; ++i)
      if (owner_[i] != group_.rank()) out[owner_[i]].i64(table_[i]);
    std::vector<std::string> bufs(P);
    for (std::uint32_t q = 0; q < P; ++q) bufs[q] = out[q].take();
    const std::vector<std::string> in = group_.exchange(std::move(bufs));
    for (std::uint32_t q = 0; q < P; ++q) {
      if (q == group_.rank()) continue;
      wire::Reader rd(in[q], "zero-wait tables");
      for (std::size_t i = 0; i < K_; ++i)
        if (owner_[i] == group_.rank()) relax(table_[i], rd.i64());
    }
  }

  // T' = the longer of: through L(u) by its local cost only, and around L(u); each from its
  // owner, on every process.
  std::vector<TimeNs> answers(TimeNs t, const std::vector<std::uint32_t>& unit) {
    wire::Writer w;
    for (std::size_t i = 0; i < unit.size(); ++i) {
      const std::uint32_t u = unit[i];
      if (u == kNone32) continue;
      w.u32(static_cast<std::uint32_t>(i));
      w.i64(std::max(satAdd(satAdd(enterOf(u), v_.local[u]), tailL(u)), table_[below(posL(u))]));
    }
    std::vector<TimeNs> out(unit.size(), t);
    for (const std::string& b : group_.allGather(w.take())) {
      wire::Reader rd(b, "zero-wait answers");
      while (!rd.done()) {
        const std::uint32_t i = rd.u32();
        if (i >= out.size()) throw GroupError("zero-wait times: an answer out of range");
        out[i] = rd.i64();
      }
    }
    return out;
  }

  const ReplayProgram& p_;
  const EffectiveProgram v_;
  ReplayResults res_;
  const SweepLinks& links_;
  const SweepOrder& order_;
  ProcessGroup& group_;
  const std::uint32_t R_, U_, N_;
  std::uint32_t rf_ = 0, rl_ = 0, U0_ = 0, U1_ = 0;
  std::vector<std::uint32_t> ownerOf_;  // per rank of the trace
  // Positions: per own unit its place in the order (posL), per other local unit its enter's,
  // per node copy, per block (round, this process) what its places add.
  std::vector<std::uint32_t> seq_;
  std::vector<std::uint64_t> posOther_, posN_, blockOff_;
  std::uint64_t end_ = 0;
  std::vector<std::vector<std::uint32_t>> exportAt_;  // per process, per index: unit or kProxy | dest
  std::vector<std::uint32_t> importAt_;               // per other unit: a ghost's index from its owner
  std::vector<std::vector<std::pair<std::uint32_t, std::uint32_t>>> proxySources_;  // per proxy-rank call
  std::vector<std::uint32_t> memberBegin_, members_;                                // per proxy sent: its own members
  std::vector<TimeNs> tailE_, tailN_, proxyTail_, weight_;
  std::vector<std::uint64_t> proxyPos_;
  std::vector<std::uint8_t> touched_;
  std::vector<std::uint32_t> touchedList_;
  std::vector<std::uint64_t> query_;
  std::vector<std::uint32_t> owner_;  // per query: the process holding its unit
  std::size_t K_ = 0;
  std::vector<TimeNs> tree_, table_;  // the jumps' segment tree; its leaves, combined
};

}  // namespace

std::vector<TimeNs> zeroWaitTimesDistributed(Replayer& replayer, std::uint32_t ranks, const SweepLinks& links,
                                             const SweepOrder& order, TimeNs t, const std::vector<EventRef>& calls,
                                             ProcessGroup& group) {
  return ZeroWaitOverShares(replayer, ranks, links, order, group).solve(t, calls);
}

}  // namespace perwiz
