// Clean cuts over shares (distributed_cuts.h).
#include "distributed_cuts.h"

#include "ghosts.h"
#include "perwiz/internal/replay_program.h"
#include "perwiz/internal/wire.h"

#include <algorithm>
#include <limits>
#include <string>

namespace perwiz {

std::uint32_t SharedCuts::level(std::uint32_t i, std::uint32_t u) const {
  const std::uint32_t* f = member.data() + std::size_t{i} * count;
  return static_cast<std::uint32_t>(std::lower_bound(f, f + count, u) - f);
}

namespace {

// The first communicator holding every rank once, the same on every process (kNone32: none).
std::uint32_t allRankCommunicator(const Trace& trace, std::uint32_t R, ProcessGroup& group) {
  std::uint32_t found = kNone32;
  for (std::uint32_t c = 0; c < trace.comms.size() && found == kNone32; ++c) {
    const Communicator& comm = trace.comms[c];
    if (comm.isSelf || comm.worldRanks.size() != R) continue;
    std::vector<std::uint8_t> seen(R, 0);
    bool every = true;
    for (std::int32_t w : comm.worldRanks) {
      every = every && w >= 0 && static_cast<std::uint32_t>(w) < R && !seen[static_cast<std::uint32_t>(w)];
      if (every) seen[static_cast<std::uint32_t>(w)] = 1;
    }
    if (every) found = c;
  }
  wire::Writer w;
  w.u32(found);
  for (const std::string& b : group.allGather(w.take())) {
    wire::Reader rd(b, "cuts");
    if (rd.u32() != found) return kNone32;
  }
  return found;
}

// Per own rank its units in the communicator's instances 0, 1, ... (kNone32 for a member inside
// another call), up to the first instance it does not join in order; the candidates are the
// instances every rank of every process reaches.
std::vector<std::vector<std::uint32_t>> ownMembers(const ReplayProgram& p, const Trace& trace, RankRange own,
                                                   std::uint32_t comm, ProcessGroup& group, std::uint32_t& K) {
  std::vector<std::vector<std::uint32_t>> out(own.size());
  std::uint32_t reach = std::numeric_limits<std::uint32_t>::max();
  for (std::uint32_t r = own.first; r < own.last && comm != kNone32; ++r) {
    std::vector<std::uint32_t>& m = out[r - own.first];
    const RankTrace& rt = trace.ranks[r];
    for (const CollectiveCall& c : rt.collectives) {
      if (c.instance >= trace.collectives.size() || trace.collectives[c.instance].comm != comm) continue;
      if (trace.collectives[c.instance].sequence != m.size()) break;
      const std::uint32_t k = mpiCallOfEvent(rt, c.event);
      m.push_back(k == kNone32 || p.isNested(r, k) ? kNone32 : p.unitOfCall(r, k));
    }
    reach = std::min(reach, static_cast<std::uint32_t>(m.size()));
  }
  if (comm == kNone32) reach = 0;
  wire::Writer w;
  w.u32(reach);
  K = reach;
  for (const std::string& b : group.allGather(w.take())) {
    wire::Reader rd(b, "cuts");
    K = std::min(K, rd.u32());
  }
  for (auto& m : out) m.resize(K);
  return out;
}

struct Levels {
  std::vector<std::uint32_t> lo, hi;  // per local unit that is no own one: from its owner(s)
};

// Each exported unit's level, and each proxy's lowest and highest over its members, to the
// processes that hold them.
Levels exchangeLevels(const ReplayProgram& p, const SweepLinks& links, const SharedCuts& cuts, std::uint32_t rf,
                      ProcessGroup& group) {
  const std::uint32_t P = group.size();
  std::vector<wire::Writer> out(P);
  for (const auto& e : links.exports) {
    const std::uint32_t l = cuts.level(p.rankOf(e.unit) - rf, e.unit);
    out[e.process].u32(e.index);
    out[e.process].u32(l);
    out[e.process].u32(l);
  }
  std::vector<std::uint32_t> lo(links.proxies(), cuts.count), hi(links.proxies(), 0);
  for (const auto& list : links.memberships)
    for (const auto& [u, x] : list) {
      const std::uint32_t l = cuts.level(p.rankOf(u) - rf, u);
      lo[x] = std::min(lo[x], l);
      hi[x] = std::max(hi[x], l);
    }
  for (const auto& d : links.proxyDests) {
    out[d.process].u32(d.index);
    out[d.process].u32(lo[d.proxy]);
    out[d.process].u32(hi[d.proxy]);
  }
  std::vector<std::string> bufs(P);
  for (std::uint32_t q = 0; q < P; ++q) bufs[q] = out[q].take();
  const std::vector<std::string> in = group.exchange(std::move(bufs));
  Levels L;
  L.lo.assign(p.units, 0);  // unknown: crossing every cut (never expected)
  L.hi.assign(p.units, cuts.count);
  std::vector<std::uint8_t> first(p.units, 1);
  for (std::uint32_t q = 0; q < P; ++q) {
    if (q == group.rank()) continue;
    wire::Reader rd(in[q], "cut levels");
    while (!rd.done()) {
      const std::uint32_t i = rd.u32(), l = rd.u32(), h = rd.u32();
      if (i >= links.imports[q].size())
        throw GroupError("cuts: process " + std::to_string(q) + " sent a level out of range");
      const std::uint32_t entry = links.imports[q][i];
      const std::uint32_t u =
          entry & SweepLinks::kProxy ? p.rankBegin[links.proxyRank] + (entry & ~SweepLinks::kProxy) : entry;
      L.lo[u] = first[u] ? l : std::min(L.lo[u], l);  // a proxy gathers several processes' members
      L.hi[u] = first[u] ? h : std::max(L.hi[u], h);
      first[u] = 0;
    }
  }
  return L;
}

// The reads of the own units (and of the gather nodes they read) across each cut: forward
// (a later level reading an earlier one) and backward, as difference arrays over the cuts.
void countCrossings(const ReplayProgram& p, const EffectiveProgram& v, RankRange own, const SharedCuts& cuts,
                    const Levels& L, std::vector<std::int64_t>& forward, std::vector<std::int64_t>& backward) {
  const std::uint32_t K = cuts.count, U = p.units;
  forward.assign(std::size_t{K} + 1, 0);
  backward.assign(std::size_t{K} + 1, 0);
  auto levelsOf = [&](std::uint32_t u) -> std::pair<std::uint32_t, std::uint32_t> {
    if (own.contains(p.rankOf(u))) {
      const std::uint32_t l = cuts.level(p.rankOf(u) - own.first, u);
      return {l, l};
    }
    return {L.lo[u], L.hi[u]};
  };
  std::vector<std::uint32_t> nodeLevel(p.nodes(), kNone32);
  auto node = [&](std::uint32_t n) {
    if (nodeLevel[n] != kNone32) return nodeLevel[n];
    std::uint32_t ln = 0;
    for (std::uint32_t j = p.nodeBegin[n]; j < p.nodeBegin[n + 1]; ++j)
      ln = std::max(ln, levelsOf(p.nodeMembers[j]).second);
    for (std::uint32_t j = p.nodeBegin[n]; j < p.nodeBegin[n + 1]; ++j)
      if (const std::uint32_t lm = levelsOf(p.nodeMembers[j]).first; lm < ln) ++forward[lm], --forward[ln];
    return nodeLevel[n] = ln;
  };
  for (std::uint32_t r = own.first; r < own.last && r < p.ranks; ++r) {
    const std::uint32_t* f = cuts.member.data() + std::size_t{r - own.first} * K;
    std::uint32_t lu = 0;
    for (std::uint32_t u = p.rankBegin[r]; u < p.rankBegin[r + 1]; ++u) {
      while (lu < K && f[lu] < u) ++lu;
      for (std::uint32_t d = p.depBegin[u]; d < p.depBegin[u + 1]; ++d) {
        if ((v.depFlags[d] & dep::kUse) != dep::kUse) continue;  // fixed under the hypotheses evaluated
        const std::uint32_t s = p.depSrc[d];
        std::pair<std::uint32_t, std::uint32_t> ls;
        if (s < U) {
          ls = levelsOf(s);
        } else {
          const std::uint32_t ln = node(s - U);
          ls = {ln, ln};
        }
        if (ls.first < lu) ++forward[ls.first], --forward[lu];
        if (ls.second > lu) ++backward[lu], --backward[ls.second];
      }
    }
  }
}

}  // namespace

SharedCuts findSharedCuts(Replayer& replayer, const Trace& trace, const SweepLinks& links, ProcessGroup& group) {
  const ReplayProgram& p = internal::ReplayerAccess::program(replayer);
  const std::uint32_t R = links.proxyRank != kNone32 ? links.proxyRank : p.ranks;
  const RankRange own{std::min(links.own.first, p.ranks), std::min(links.own.last, p.ranks)};
  const std::uint32_t comm = allRankCommunicator(trace, R, group);
  SharedCuts all;
  const std::vector<std::vector<std::uint32_t>> members = ownMembers(p, trace, own, comm, group, all.count);
  const std::uint32_t K = all.count;
  std::vector<std::int64_t> forward, backward, unusable(std::size_t{K} + 1, 0);
  all.member.assign(std::size_t{own.size()} * K, 0);
  for (std::uint32_t i = 0; i < own.size(); ++i)
    for (std::uint32_t k = 0; k < K; ++k) {
      const std::uint32_t m = members[i][k];
      // A member inside another call: the cut is not used; its level still counts the cut.
      all.member[std::size_t{i} * K + k] = m != kNone32 ? m : (k > 0 ? all.member[std::size_t{i} * K + k - 1] : 0);
      if (m == kNone32) ++unusable[k], --unusable[k + 1];
    }
  const Levels L = exchangeLevels(p, links, all, own.first, group);
  countCrossings(p, internal::ReplayerAccess::effective(replayer), own, all, L, forward, backward);
  // Summed over the processes; usable where no read crosses either way.
  wire::Writer w;
  for (std::uint32_t k = 0; k <= K; ++k) {
    w.i64(forward[k]);
    w.i64(backward[k]);
    w.i64(unusable[k]);
  }
  std::vector<std::int64_t> sum(3 * (std::size_t{K} + 1), 0);
  for (const std::string& b : group.allGather(w.take())) {
    wire::Reader rd(b, "cut crossings");
    for (std::int64_t& x : sum) x += rd.i64();
  }
  SharedCuts out;
  std::vector<std::uint32_t> keep;
  std::int64_t open[3] = {0, 0, 0};
  for (std::uint32_t k = 0; k < K; ++k) {
    for (int j = 0; j < 3; ++j) open[j] += sum[3 * std::size_t{k} + j];
    if (open[0] == 0 && open[1] == 0 && open[2] == 0) keep.push_back(k);
  }
  out.count = static_cast<std::uint32_t>(keep.size());
  out.member.resize(std::size_t{own.size()} * out.count);
  for (std::uint32_t i = 0; i < own.size(); ++i)
    for (std::uint32_t j = 0; j < out.count; ++j)
      out.member[std::size_t{i} * out.count + j] = all.member[std::size_t{i} * K + keep[j]];
  return out;
}

}  // namespace perwiz
