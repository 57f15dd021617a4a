// The forward sweep: a full replay in schedule order, and the incremental one that recomputes
// only what a change reaches and shifts what lies after a clean cut (see replay.h, docs/model.md).
#include "replayer_impl.h"

#include "clean_cuts.h"
#include "perwiz/checked_time.h"

#include <algorithm>
#include <bit>

namespace perwiz {

template <class V>
TimeNs Replayer::Impl::computeLeave(std::uint32_t u, const V& v) const {
  return leaveRule(p, u, enterWith(u, v), noWaitOf(u), v, [&](std::uint32_t s) { return srcValue(s, v); });
}

template <class V>
TimeNs Replayer::Impl::computeNode(std::uint32_t n, const V& v) const {
  return p.nodeValue(n, [&](std::uint32_t u) { return enterWith(u, v); });
}

// Recomputes every schedule item from position `from` on, in schedule order. The results
// of the items before `from` must be current.
void Replayer::Impl::sweep(std::size_t from, std::size_t to) {
  to = std::min(to, p.schedule.size());
  if (!gap.copied() && !local.copied() && !depOff.copied())
    sweepWith(from, to, BaseValues{p.gap0, p.local0, p.depOff0, depFlags.data()});
  else
    sweepWith(from, to, values());
}

template <class V>
void Replayer::Impl::sweepWith(std::size_t from, std::size_t to, const V& v) {
  for (std::size_t i = from; i < to; ++i) {
    if ((i & 0xFFFF) == 0 && control) checkControl(i);
    const std::uint32_t item = p.schedule[i];
    if (item < p.units) {
      const std::uint32_t u = item;
      leave[u] = computeLeave(u, v);
    } else {
      nodeVal[item - p.units] = computeNode(item - p.units, v);
    }
  }
}

void Replayer::Impl::checkControl(std::size_t position) const {
  if (control->cancel.load(std::memory_order_relaxed)) throw ReplayCancelled();
  const std::uint64_t n = std::max<std::size_t>(1, p.schedule.size());
  raiseProgress(control->permille, static_cast<std::uint32_t>(857 + 142 * position / n));
}

void Replayer::Impl::allRanksChanged() {
  stats.ranks.resize(p.ranks);
  for (std::uint32_t r = 0; r < p.ranks; ++r) stats.ranks[r] = r;
}

void Replayer::Impl::full() {
  sweep(0);
  stats.recomputed = p.items();
  stats.full = true;
  stats.shifted = 0;
  stats.shift = 0;
  stats.shiftAfterCall.clear();
  allRanksChanged();
  finishT();
}

void Replayer::Impl::finishT() {
  predictedT = 0;
  const Evaluation* e = evaluation && evaluation->cut ? evaluation : nullptr;
  for (std::uint32_t r = 0; r < p.ranks; ++r) {
    const std::uint32_t last = p.rankBegin[r + 1] - 1;
    TimeNs end = leave[last];
    // An evaluation that stopped at a clean cut: the rank's last unit is where shiftAfterCut
    // would have put it (beyond the member and not computed before `end`: moved by Δ).
    if (e && last > e->frontier[r] && p.position[last] >= e->end) end = satAdd(end, e->delta);
    predictedT = std::max(predictedT, end);
  }
}

void Replayer::Impl::restoreLog() {
  const auto& log = evaluation->log;
  for (auto it = log.rbegin(); it != log.rend(); ++it) {
    if (it->first < p.units)
      leave[it->first] = it->second;
    else
      nodeVal[it->first - p.units] = it->second;
  }
}

void Replayer::Impl::markItem(std::uint32_t item) {
  const std::uint32_t pos = p.position[item];
  dirty[pos >> 6] |= std::uint64_t{1} << (pos & 63);
}

void Replayer::Impl::markConsumers(std::uint32_t src) {
  for (std::uint32_t i = p.consumerBegin[src]; i < p.consumerBegin[src + 1]; ++i) markItem(p.consumers[i]);
}

// At a clean cut (clean_cuts.h) the sweep has passed: if every rank's member moved by the
// same Δ, everything after the cut moved by Δ: shifted instead of recomputed (Δ = 0: nothing
// after it changes). Returns whether the update is complete.
bool Replayer::Impl::atCut(CutWatch& watch, std::uint32_t position, const Values& v) {
  while (position >= watch.end()) {
    TimeNs delta = 0;
    if (!watch.check(position, leave, &delta)) continue;  // now watching a later cut
    if (evaluation && !evaluation->overflow) {            // T only: the shift is left to finishT's ends
      evaluation->cut = true;
      evaluation->frontier = watch.frontier();
      evaluation->end = watch.end();
      evaluation->delta = delta;
      stats.shift = delta;
      return true;
    }
    stats.shifted = shiftAfterCut(p, watch.frontier(), watch.end(), delta, leave, nodeVal,
                                  [&](std::uint32_t n) { return computeNode(n, v); });
    stats.shift = delta;
    if (delta != 0) {
      stats.shiftAfterCall.resize(p.ranks);
      for (std::uint32_t r = 0; r < p.ranks; ++r) stats.shiftAfterCall[r] = p.callIn(r, watch.frontier()[r]);
    }
    return true;
  }
  return false;
}

// The plain sweep from schedule position i on, stopping at a clean cut where the rest only
// shifts (*complete). Returns the items computed.
std::uint64_t Replayer::Impl::denseFrom(std::size_t i, CutWatch& watch, const Values& v, bool* complete) {
  std::uint64_t n = 0;
  const std::size_t size = p.schedule.size();
  *complete = false;
  while (i < size) {
    if (i >= watch.end() && (*complete = atCut(watch, static_cast<std::uint32_t>(i), v))) break;
    const std::size_t to = std::min<std::size_t>(size, watch.end());
    if (evaluation)
      for (std::size_t k = i; k < to; ++k) logItem(p.schedule[k]);
    sweep(i, to);
    n += to - i;
    i = to;
  }
  return n;
}

namespace {
// Re-simulates after the effective values of `changed` units were refreshed; only items
// downstream of a changed time are recomputed, in schedule order. When at least 3/4 of the
// last 4096 schedule positions needed recomputing, the change is spreading to everything
// (typically it reached a collective everybody waits for): the rest of the schedule is then
// recomputed without marks, at the speed of a full replay (the marking walk costs about 3x
// more per item), so that an update never costs much more than a full replay.
constexpr std::size_t kDenseWindowWords = 64;  // 4096 positions
}  // namespace

void Replayer::Impl::incremental(const std::set<std::uint32_t>& changed) {
  p.prepareIncremental();
  const Values v = values();
  std::uint64_t recomputed = 0;
  stats.shifted = 0;
  stats.shift = 0;
  stats.shiftAfterCall.clear();
  // Ranks with a changed input or a changed leave (UpdateStats::ranks).
  std::vector<std::uint8_t> moved(p.ranks, 0);
  bool dense = false;
  std::vector<std::uint32_t> lastTouched(p.ranks, kNone32);
  std::uint32_t lastTouchedPos = 0;
  for (std::uint32_t u : changed) {  // ascending
    markItem(u);                     // its gap, local cost, waits or dependencies may have changed
    markConsumers(u);                // and with its gap its enter, which they read
    const std::uint32_t r = p.rankOf(u);
    moved[r] = 1;
    lastTouched[r] = u;
    lastTouchedPos = std::max(lastTouchedPos, p.position[u]);
  }
  // A saturated prediction does not shift (its times are not times): no watch then.
  CutWatch watch(p, *p.cleanCuts);
  if (!changed.empty() && !overflowed(predictedT)) watch.start(0, lastTouched, lastTouchedPos, leave);
  bool complete = false;
  // Marks that fall into the word being processed go to `bits`, a register, so that finding
  // the next item does not wait for the stores of the marks (their addresses come from
  // position[], often a cache miss); other words are marked in memory.
  std::uint64_t windowStart = 0;  // `recomputed` at the start of the current window
  for (std::size_t w = 0; w < dirty.size(); ++w) {
    if (w % kDenseWindowWords == 0 && w > 0) {
      if ((recomputed - windowStart) * 4 >= kDenseWindowWords * 64 * 3) {
        std::fill(dirty.begin() + static_cast<std::ptrdiff_t>(w), dirty.end(), 0);
        const std::uint64_t swept = denseFrom(w << 6, watch, v, &complete);
        recomputed += swept;
        // Which ranks moved is not tracked by the plain sweep: all may have (unless it
        // stopped at once at a cut where nothing moved any more).
        dense = swept > 0 || !complete || stats.shift != 0;
        break;
      }
      windowStart = recomputed;
    }
    std::uint64_t bits = dirty[w];
    if (!bits) continue;
    dirty[w] = 0;
    auto mark = [&](std::uint32_t item) {
      const std::uint32_t pos = p.position[item];
      if ((pos >> 6) == w)
        bits |= std::uint64_t{1} << (pos & 63);
      else
        dirty[pos >> 6] |= std::uint64_t{1} << (pos & 63);
    };
    auto markAll = [&](std::uint32_t src) {
      for (std::uint32_t i = p.consumerBegin[src]; i < p.consumerBegin[src + 1]; ++i) mark(p.consumers[i]);
    };
    while (bits) {
      const int bit = std::countr_zero(bits);
      const std::uint32_t at = static_cast<std::uint32_t>((w << 6) + static_cast<std::size_t>(bit));
      if (at >= watch.end() && (complete = atCut(watch, at, v))) break;
      bits &= bits - 1;
      const std::uint32_t item = p.schedule[at];
      ++recomputed;
      if (item < p.units) {
        const std::uint32_t u = item;
        const TimeNs l = computeLeave(u, v);
        if (l != leave[u]) {
          if (evaluation) logItem(u);
          leave[u] = l;
          moved[p.rankOf(u)] = 1;
          if (!isLastOfRank(u)) {  // the next unit's enter moved
            mark(u + 1);
            markAll(u + 1);
          }
        }
      } else {
        const std::uint32_t n = item - p.units;
        const TimeNs t = computeNode(n, v);
        if (t != nodeVal[n]) {
          if (evaluation) logItem(item);
          nodeVal[n] = t;
          markAll(item);
        }
      }
    }
    if (complete) {  // the rest shifted (or stayed): no mark after the cut is needed
      std::fill(dirty.begin() + static_cast<std::ptrdiff_t>(w), dirty.end(), 0);
      if (stats.shift != 0) dense = true;
      break;
    }
  }
  stats.recomputed = recomputed;
  stats.full = false;
  if (dense) {
    allRanksChanged();
  } else {
    stats.ranks.clear();
    for (std::uint32_t r = 0; r < p.ranks; ++r)
      if (moved[r]) stats.ranks.push_back(r);
  }
  finishT();
}

}  // namespace perwiz
