// Clean cuts of a replay program (clean_cuts.h).
#include "clean_cuts.h"

#include "perwiz/checked_time.h"
#include "perwiz/rank_parallel.h"
#include "perwiz/release.h"

#include <algorithm>
#include <mutex>

namespace perwiz {

namespace {

// The number of entries of ascending f[0, n) below s, searched from `hint` outwards (the
// answer is usually near it: a dependency reads a time of its own step).
std::uint32_t countBelow(const std::uint32_t* f, std::uint32_t n, std::uint32_t s, std::uint32_t hint) {
  hint = std::min(hint, n);
  std::uint32_t lo, hi;  // every entry before lo is below s, every entry from hi on is not
  if (hint < n && f[hint] < s) {
    lo = hint + 1;
    hi = lo;
    for (std::uint32_t step = 1; hi < n && f[hi] < s; step *= 2) {
      lo = hi + 1;
      hi = static_cast<std::uint32_t>(std::min<std::uint64_t>(n, std::uint64_t{hi} + step));
    }
  } else {
    hi = hint;
    lo = hint;
    for (std::uint32_t step = 1; lo > 0 && f[lo - 1] >= s; step *= 2) {
      hi = lo - 1;
      lo = lo > step ? lo - step : 0;
    }
  }
  return static_cast<std::uint32_t>(std::lower_bound(f + lo, f + hi, s) - f);
}

}  // namespace

CleanCuts findCleanCuts(const ReplayProgram& p) {
  CleanCuts out;
  const std::uint32_t R = p.ranks, N = p.nodes();
  if (R == 0 || N == 0) return out;

  // Candidates: nodes with exactly one member on every rank, ordered by their member on rank
  // 0, kept only where every rank meets them in that order (collectives on two communicators
  // of all ranks may interleave differently per rank).
  std::vector<std::uint32_t> stamp(R, kNone32), byRank(R);
  std::vector<std::pair<std::uint32_t, std::uint32_t>> cand;  // (member on rank 0, node)
  for (std::uint32_t n = 0; n < N; ++n) {
    const std::uint32_t b = p.nodeBegin[n], e = p.nodeBegin[n + 1];
    if (e - b != R) continue;
    bool every = true;
    std::uint32_t zero = kNone32;
    for (std::uint32_t i = b; i < e && every; ++i) {
      const std::uint32_t r = p.rankOf(p.nodeMembers[i]);
      every = stamp[r] != n;
      stamp[r] = n;
      if (r == 0) zero = p.nodeMembers[i];
    }
    if (every) cand.emplace_back(zero, n);
  }
  std::sort(cand.begin(), cand.end());
  std::vector<std::uint32_t> cuts;           // candidate nodes kept, in order
  std::vector<std::uint32_t> last(R, 0);     // the last kept candidate's member per rank, plus 1
  for (const auto& [zero, n] : cand) {
    bool ordered = true;
    for (std::uint32_t i = p.nodeBegin[n]; i < p.nodeBegin[n + 1]; ++i) {
      const std::uint32_t m = p.nodeMembers[i], r = p.rankOf(m);
      byRank[r] = m;
      ordered = ordered && m + 1 > last[r];
    }
    if (!ordered) continue;
    for (std::uint32_t r = 0; r < R; ++r) last[r] = byRank[r] + 1;
    cuts.push_back(n);
  }
  const std::uint32_t K = static_cast<std::uint32_t>(cuts.size());
  if (K == 0) return out;
  // Per rank, its members of the cuts in order: F[r * K + k] = m_r of cut k (written from the
  // nodes: no second table of them, which at 64 x 10^8 was 0.16 GB above the GUI's resident set).
  std::vector<std::uint32_t> F(std::size_t{R} * K);
  for (std::uint32_t k = 0; k < K; ++k)
    for (std::uint32_t i = p.nodeBegin[cuts[k]]; i < p.nodeBegin[cuts[k] + 1]; ++i) {
      const std::uint32_t m = p.nodeMembers[i];
      F[std::size_t{p.rankOf(m)} * K + k] = m;
    }
  // The level of unit u of rank r: how many cuts it lies after (u is in B_k iff level <= k).
  auto level = [&](std::uint32_t r, std::uint32_t u, std::uint32_t hint) {
    return countBelow(F.data() + std::size_t{r} * K, K, u, hint);
  };

  // A read of a time of level a by an item of level b > a crosses cuts a .. b-1 (a read of
  // enter(s) belongs to s; a node's level is its latest member's). Counted in a difference
  // array over the cuts; the chain read of leave[u-1] by u is the one read allowed to cross.
  std::vector<std::int64_t> crossing(std::size_t{K} + 1, 0);
  std::mutex merge;
  std::vector<std::uint32_t> nodeLevel(N, 0);
  {
    std::vector<std::int64_t> local(std::size_t{K} + 1, 0);
    for (std::uint32_t n = 0; n < N; ++n) {
      std::uint32_t ln = 0, hint = 0;
      for (std::uint32_t i = p.nodeBegin[n]; i < p.nodeBegin[n + 1]; ++i) {
        const std::uint32_t m = p.nodeMembers[i];
        hint = level(p.rankOf(m), m, hint);
        ln = std::max(ln, hint);
      }
      nodeLevel[n] = ln;
      for (std::uint32_t i = p.nodeBegin[n]; i < p.nodeBegin[n + 1]; ++i) {
        const std::uint32_t m = p.nodeMembers[i];
        const std::uint32_t lm = level(p.rankOf(m), m, ln);
        if (lm < ln) ++local[lm], --local[ln];
      }
    }
    crossing.swap(local);
  }
  forEachRank(R, p.units, [&](std::uint32_t r) {
    std::vector<std::int64_t> local(std::size_t{K} + 1, 0);
    const std::uint32_t* f = F.data() + std::size_t{r} * K;
    std::uint32_t lu = 0;
    for (std::uint32_t u = p.rankBegin[r]; u < p.rankBegin[r + 1]; ++u) {
      while (lu < K && f[lu] < u) ++lu;
      for (std::uint32_t d = p.depBegin[u]; d < p.depBegin[u + 1]; ++d) {
        const std::uint32_t s = p.depSrc[d];
        const std::uint32_t ls = s < p.units ? level(p.rankOf(s), s, lu) : nodeLevel[s - p.units];
        if (ls < lu) ++local[ls], --local[lu];
      }
    }
    std::lock_guard lock(merge);
    for (std::size_t k = 0; k <= K; ++k) crossing[k] += local[k];
  });

  std::int64_t open = 0;
  for (std::uint32_t k = 0; k < K; ++k) {
    open += crossing[k];
    if (open != 0) continue;
    std::uint32_t lo = kNone32, hi = 0;
    for (std::uint32_t r = 0; r < R; ++r) {
      const std::uint32_t pos = p.position[F[std::size_t{r} * K + k]];
      lo = std::min(lo, pos);
      hi = std::max(hi, pos);
    }
    out.node.push_back(cuts[k]);
    out.firstPos.push_back(lo);
    out.endPos.push_back(hi + 1);
  }
  return out;
}

void CutWatch::start(std::uint32_t position, const std::vector<std::uint32_t>& lastTouched, std::uint32_t lastTouchedPos,
                     const std::vector<TimeNs>& leave) {
  // A unit of B_k lies before endPos_k: the cuts ending at or before the last touched position
  // cannot hold it. From the first other one, the first whose members follow every rank's last
  // touched unit.
  std::size_t k = static_cast<std::size_t>(
      std::upper_bound(cuts_.endPos.begin(), cuts_.endPos.end(), lastTouchedPos) - cuts_.endPos.begin());
  k = std::max(k, static_cast<std::size_t>(std::lower_bound(cuts_.firstPos.begin(), cuts_.firstPos.end(), position) -
                                           cuts_.firstPos.begin()));
  for (; k < cuts_.size(); ++k) {
    arm(k, leave);
    bool holds = true;
    for (std::uint32_t r = 0; r < p_.ranks && holds; ++r) holds = lastTouched[r] == kNone32 || lastTouched[r] <= frontier_[r];
    if (holds) return;
  }
  arm(cuts_.size(), leave);
}

void CutWatch::arm(std::size_t k, const std::vector<TimeNs>& leave) {
  k_ = k;
  if (k >= cuts_.size()) {
    end_ = kNone32;
    return;
  }
  const std::uint32_t n = cuts_.node[k];
  frontier_.resize(p_.ranks);
  before_.resize(p_.ranks);
  for (std::uint32_t i = p_.nodeBegin[n]; i < p_.nodeBegin[n + 1]; ++i) {
    const std::uint32_t m = p_.nodeMembers[i], r = p_.rankOf(m);
    frontier_[r] = m;
    before_[r] = leave[m];
  }
  end_ = cuts_.endPos[k];
}

bool CutWatch::check(std::uint32_t position, const std::vector<TimeNs>& leave, TimeNs* delta) {
  // Times that saturated (kTimeOverflow) do not shift: no uniform move is claimed for them.
  bool uniform = true;
  TimeNs d = 0;
  for (std::uint32_t r = 0; r < p_.ranks && uniform; ++r) {
    const TimeNs was = before_[r], now = leave[frontier_[r]];
    if (overflowed(was) || overflowed(now)) uniform = false;
    else if (r == 0) d = now - was;
    else uniform = now - was == d;
  }
  if (uniform) {
    *delta = d;
    return true;
  }
  const auto it = std::lower_bound(cuts_.firstPos.begin() + static_cast<std::ptrdiff_t>(k_ + 1), cuts_.firstPos.end(), position);
  arm(static_cast<std::size_t>(it - cuts_.firstPos.begin()), leave);
  return false;
}

}  // namespace perwiz
