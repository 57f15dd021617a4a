// Forward sweep, hypotheses and incremental re-simulation (see replay.h, docs/model.md).
#include "perwiz/internal/replay_program.h"

#include "perwiz/internal/overhead_charges.h"
#include "perwiz/checked_time.h"
#include "perwiz/compensation.h"
#include "perwiz/rank_parallel.h"
#include "perwiz/release.h"
#include "clean_cuts.h"
#include "perwiz/internal/overlay.h"

#include <algorithm>
#include <limits>
#include <bit>
#include <map>
#include <set>
#include <unordered_map>

namespace perwiz {

struct Replayer::Impl {
  const Trace& trace;
  Scenario scenario;
  // The compiled program is read-only after construction and shared by forks.
  std::shared_ptr<ReplayProgram> prog = std::make_shared<ReplayProgram>();
  ReplayProgram& p = *prog;
  ReplayReport report;
  UpdateStats stats;

  // Effective (scenario-applied) program values: the program's own until a hypothesis
  // changes one (overlay.h). noWait is read by every sweep and kept whole (1 byte per unit).
  Overlay<TimeNs, SmallTimes> gap, local, depOff;
  Overlay<std::uint8_t> depFlags, zeroGap, zeroLocal;
  std::vector<std::uint8_t> noWait;
  // From balance-compute hypotheses: a map of the units of the balanced steps while they are
  // few (a per-unit array costs 8 bytes per unit, and its first touch was most of a toggle at
  // 10^7 events); an array once they are many (balancing every step touches every unit).
  struct GapDelta {
    std::unordered_map<std::uint32_t, TimeNs> few;
    std::vector<TimeNs> many;
    TimeNs operator[](std::uint32_t u) const {
      if (!many.empty()) return many[u];
      const auto it = few.find(u);
      return it == few.end() ? 0 : it->second;
    }
    void set(std::uint32_t u, TimeNs v, std::uint32_t units) {
      if (!many.empty()) {
        many[u] = v;
        return;
      }
      if (v == 0) {
        few.erase(u);
        return;
      }
      few[u] = v;
      if (few.size() > units / 16 + 64) {  // a map entry costs ~40 bytes: switch to the array
        many.assign(units, 0);
        for (const auto& [k, x] : few) many[k] = x;
        releaseMemory(few);
      }
    }
    void clear() {
      releaseMemory(few);
      releaseMemory(many);
    }
  } gapDelta;
  TimeNs gapDeltaOf(std::uint32_t u) const { return gapDelta[u]; }
  // Balance-compute means given from outside (ReplayerAccess::setStepMean), by step.
  std::map<std::uint32_t, TimeNs> stepMean;
  // Balance-volume means given from outside (ReplayerAccess::setVolumeMean), by step.
  std::map<std::uint32_t, std::uint64_t> volumeMean;
  // A compensation's overhead from the trace given from outside (ReplayerAccess::setRecordedOverhead).
  std::vector<TimeNs> recordedOverhead;
  std::vector<TimeNs> overheadOf(const Hypothesis& h) const {
    if (h.overheadFromTrace() && !recordedOverhead.empty()) return recordedOverhead;
    return compensationOverhead(trace, h.overheadNs, nullptr);
  }
  Overlay<std::uint64_t> bytes;                 // effective message sizes (base: messageBytes)
  // Overhead removed by a Compensate hypothesis; empty without one (docs/compensation.md).
  OverheadCharges charges;
  // Results: the predicted leave of every unit and the value of every gather node. A unit's
  // predicted enter is derived: its rank's previous leave plus its effective gap (enterOf).
  std::vector<TimeNs> leave, nodeVal;
  TimeNs predictedT = 0, measuredT = 0;
  std::vector<std::uint64_t> dirty;  // by schedule position

  Impl(const Trace& t, Scenario s) : trace(t), scenario(std::move(s)) {}

  const NetworkModel& model() const { return *scenario.model; }

  // ---- hypothesis bookkeeping ----
  std::uint32_t unitOf(const EventRef& e) const {
    if (e.rank >= p.ranks) return kNone32;
    const std::uint32_t calls = p.callCount(e.rank);
    if (e.computation) {
      if (e.index > calls) return kNone32;
      if (e.index == calls) return p.rankBegin[e.rank + 1] - 1;  // the sentinel's gap
      return p.isNested(e.rank, e.index) ? kNone32 : p.unitOfCall(e.rank, e.index);
    }
    if (e.index >= calls || p.isNested(e.rank, e.index)) return kNone32;
    return p.unitOfCall(e.rank, e.index);
  }

  std::string validate(const Hypothesis& h) const {
    if (h.overheadFromTrace() && !recordedOverhead.empty()) {  // given: only whether it is there twice
      std::vector<Hypothesis> both = scenario.hypotheses;
      both.push_back(h);
      return compensationConflict(both);
    }
    return validateHypothesis(trace, p.nested, h, scenario.hypotheses);
  }

  // Per-unit gap changes of balancing the computation of step k (docs/model.md).
  struct StepPart {
    std::uint32_t unit;
    TimeNs inside;  // computation of the unit's gap that lies inside the step's span
  };
  // Per rank: the gap parts of step k and their total; `present` counts ranks in the step.
  void stepParts(std::uint32_t k, std::vector<std::vector<StepPart>>& parts, std::vector<TimeNs>& total,
                 std::vector<std::uint8_t>& in, std::uint32_t& present) const {
    const ParallelStep& step = trace.steps[k];
    parts.assign(p.ranks, {});
    total.assign(p.ranks, 0);
    in.assign(p.ranks, 0);
    present = 0;
    for (std::uint32_t r = 0; r < p.ranks && r < step.ranks.size(); ++r) {
      const StepSpan& s = step.ranks[r];
      if (!s.present()) continue;
      ++present;
      in[r] = 1;
      const TimeNs sBegin = trace.ranks[r].enter[s.marker], sEnd = trace.ranks[r].leave[s.marker];
      forStepGaps(r, p.firstEnteredAtOrAfter(r, sBegin), sBegin, sEnd, [&](std::uint32_t u, TimeNs inside) {
        parts[r].push_back({u, inside});
        total[r] += inside;  // parts of one rank's measured time: they fit
      });
    }
  }
  // The gaps of rank r's units from `first` (its first unit entered at or after sBegin) that
  // lie in the step span [sBegin, sEnd): part(u, computation of u's gap inside the span).
  template <class Part>
  void forStepGaps(std::uint32_t r, std::uint32_t first, TimeNs sBegin, TimeNs sEnd, Part&& part) const {
    bool any = false;
    for (std::uint32_t u = first; u < p.rankBegin[r + 1]; ++u) {
      const TimeNs prev = p.isFirst(u) ? 0 : p.measLeave.in(r, u - 1);
      if (prev >= sEnd && any) break;
      part(u, std::max<TimeNs>(0, std::min(p.measEnter.in(r, u), sEnd) - std::max(prev, sBegin)));
      any = true;
      if (prev >= sEnd) break;
    }
  }

  // Per-unit gap changes of balancing the computation of step k (docs/model.md).
  std::vector<std::pair<std::uint32_t, TimeNs>> computeBalance(std::uint32_t k) const {
    std::vector<std::vector<StepPart>> parts;
    std::vector<TimeNs> total;
    std::vector<std::uint8_t> in;
    std::uint32_t present = 0;
    stepParts(k, parts, total, in, present);
    __int128 sum = 0;  // one rank's computation fits in int64, all of them need not
    for (std::uint32_t r = 0; r < p.ranks; ++r) sum += total[r];
    std::vector<std::pair<std::uint32_t, TimeNs>> out;
    if (present == 0) return out;
    const auto given = stepMean.find(k);  // the mean over every process's ranks (perwiz-mpi)
    const TimeNs mean = given != stepMean.end()
                            ? given->second
                            : static_cast<TimeNs>((static_cast<__int128>(sum) * 2 + present) / (2 * present));
    for (std::uint32_t r = 0; r < p.ranks; ++r) {
      if (parts[r].empty()) continue;
      if (total[r] == 0) {  // no computation to scale: the first gap of the step takes it all
        out.emplace_back(parts[r].front().unit, mean);
        continue;
      }
      // Cumulative rounding keeps the rank's new total exactly at the mean.
      __int128 prefix = 0;
      TimeNs scaledBefore = 0;
      for (const StepPart& part : parts[r]) {
        prefix += part.inside;
        const TimeNs scaled = static_cast<TimeNs>((prefix * mean * 2 + total[r]) / (2 * total[r]));
        const TimeNs delta = (scaled - scaledBefore) - part.inside;
        scaledBefore = scaled;
        if (delta != 0) out.emplace_back(part.unit, delta);
      }
    }
    return out;
  }

  std::vector<std::uint32_t> stepMessages(std::uint32_t k) const {
    std::vector<std::uint32_t> ids;
    p.prepareLinks();
    for (std::uint32_t m = 0; m < p.messages.size(); ++m)
      if (p.messages[m].step == k && p.messages[m].units[0] != kNone32) ids.push_back(m);
    return ids;
  }

  // Effective message sizes from the base sizes and the active balance-volume hypotheses.
  void applyVolume(std::uint32_t k, bool on, std::set<std::uint32_t>& touched) {
    const auto ids = stepMessages(k);
    if (ids.empty()) return;
    __int128 sum = 0;
    for (std::uint32_t m : ids) sum += p.messageBytes[m];
    const auto given = volumeMean.find(k);  // the mean over every process's messages (perwiz-mpi)
    const std::uint64_t mean = given != volumeMean.end()
                                   ? given->second
                                   : static_cast<std::uint64_t>((sum * 2 + ids.size()) / (2 * ids.size()));
    for (std::uint32_t m : ids) {
      bytes.set(m, on ? mean : p.messageBytes[m]);
      for (std::uint32_t u : p.messages[m].units)
        if (u != kNone32) touched.insert(u);
    }
  }

  // Recomputes the effective local cost, flags and dependency offsets of unit u.
  void refreshUnit(std::uint32_t u) {
    // Compensation takes each gap's and call's instrumentation overhead out after balancing
    // (which works on measured values); a cost the model priced has no instrumentation in it.
    const bool comp = !charges.empty();
    gap.set(u, zeroGap[u] ? 0 : std::max<TimeNs>(0, satSub(satAdd(p.gap0[u], gapDeltaOf(u)), comp ? charges.gap[u] : 0)));
    TimeNs l = p.local0[u];
    // Message sizes differ from the measured ones only under balance-volume hypotheses; then
    // the changed sizes reprice the unit's roles and its dependencies' offsets.
    const bool resized = bytes.copied();
    if (resized) {
      // The call's model cost with the changed sizes less the one with the measured sizes
      // (callCost: the roles of one call overlap, so the change is not per role).
      p.prepareLinks();
      std::vector<RoleUse> was, now;
      bool changed = false;
      for (std::uint32_t i = p.roleBegin[u]; i < p.roleBegin[u + 1]; ++i) {
        const std::uint32_t m = p.roleMsg[i];
        was.push_back({p.roleKind[i], p.messageBytes[m]});
        now.push_back({p.roleKind[i], bytes[m]});
        changed = changed || bytes[m] != p.messageBytes[m];
      }
      if (changed) l = satAdd(l, satSub(model().callCost(now), model().callCost(was)));
    }
    if (comp && !(p.modelLocal.size() > u && p.modelLocal[u])) l = satSub(l, charges.local[u]);
    local.set(u, zeroLocal[u] ? 0 : std::max<TimeNs>(0, l));
    for (std::uint32_t d = p.depBegin[u]; d < p.depBegin[u + 1]; ++d) {
      const std::uint32_t m = resized ? p.depMsg[d] : kNone32;
      std::uint8_t f = p.depFlags0[d];
      TimeNs off = p.depOff0[d];
      if (m != kNone32 && bytes[m] != p.messageBytes[m]) {
        if (f & dep::kSyncSend) {
          const CommRole role = (f & dep::kLateSend) ? CommRole::IsendComplete : CommRole::BlockingSend;
          off = satAdd(off, satSub(model().sendDelay(role, bytes[m]), model().sendDelay(role, p.messageBytes[m])));
          f = static_cast<std::uint8_t>(model().synchronous(bytes[m]) ? (f | dep::kActive) : (f & ~dep::kActive));
        } else {
          const CommRole role = (f & dep::kLateRecv) ? CommRole::IrecvComplete : CommRole::BlockingRecv;
          off = satAdd(off, satSub(model().receiveDelay(role, bytes[m]), model().receiveDelay(role, p.messageBytes[m])));
        }
      }
      depOff.set(d, off);
      depFlags.set(d, f);
    }
  }

  // ---- sweeps ----
  template <class V>
  TimeNs enterWith(std::uint32_t u, const V& v) const {
    return p.isFirst(u) ? v.gap[u] : satAdd(leave[u - 1], v.gap[u]);
  }
  TimeNs enterOf(std::uint32_t u) const { return enterWith(u, values()); }
  template <class V>
  TimeNs srcValue(std::uint32_t s, const V& v) const { return s < p.units ? enterWith(s, v) : nodeVal[s - p.units]; }

  // The effective values for the sweeps (readers of the overlays, taken once per sweep).
  struct Values {
    Overlay<TimeNs, SmallTimes>::Reader gap, local, depOff;
    const std::uint8_t* depFlags;
  };
  Values values() const { return {gap.reader(), local.reader(), depOff.reader(), depFlags.data()}; }
  // The program's own values, read directly: no hypothesis changed a gap, a local cost or an
  // offset (every prediction without hypotheses, and zero-wait ones). One branch less per read.
  struct BaseValues {
    const SmallTimes &gap, &local, &depOff;
    const std::uint8_t* depFlags;
  };

  template <class V>
  TimeNs computeLeave(std::uint32_t u, const V& v) const {
    return leaveRule(p, u, enterWith(u, v), noWait[u] != 0, v, [&](std::uint32_t s) { return srcValue(s, v); });
  }

  template <class V>
  TimeNs computeNode(std::uint32_t n, const V& v) const {
    return p.nodeValue(n, [&](std::uint32_t u) { return enterWith(u, v); });
  }

  bool isLastOfRank(std::uint32_t u) const { return p.isSentinel(u); }  // a rank ends with its sentinel

  // Recomputes every schedule item from position `from` on, in schedule order. The results
  // of the items before `from` must be current.
  void sweep(std::size_t from, std::size_t to = kNone32) {
    to = std::min(to, p.schedule.size());
    if (!gap.copied() && !local.copied() && !depOff.copied())
      sweepWith(from, to, BaseValues{p.gap0, p.local0, p.depOff0, depFlags.data()});
    else
      sweepWith(from, to, values());
  }

  template <class V>
  void sweepWith(std::size_t from, std::size_t to, const V& v) {
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

  // During construction (ReplayControl): the first full replay is the builder's last part.
  ReplayControl* control = nullptr;
  void checkControl(std::size_t position) const {
    if (control->cancel.load(std::memory_order_relaxed)) throw ReplayCancelled();
    const std::uint64_t n = std::max<std::size_t>(1, p.schedule.size());
    raiseProgress(control->permille, static_cast<std::uint32_t>(857 + 142 * position / n));
  }

  void allRanksChanged() {
    stats.ranks.resize(p.ranks);
    for (std::uint32_t r = 0; r < p.ranks; ++r) stats.ranks[r] = r;
  }

  void full() {
    sweep(0);
    stats.recomputed = p.items();
    stats.full = true;
    stats.shifted = 0;
    stats.shift = 0;
    stats.shiftAfterCall.clear();
    allRanksChanged();
    finishT();
  }

  void finishT() {
    predictedT = 0;
    for (std::uint32_t r = 0; r < p.ranks; ++r) predictedT = std::max(predictedT, leave[p.rankBegin[r + 1] - 1]);
  }

  void markItem(std::uint32_t item) {
    const std::uint32_t pos = p.position[item];
    dirty[pos >> 6] |= std::uint64_t{1} << (pos & 63);
  }
  void markConsumers(std::uint32_t src) {
    for (std::uint32_t i = p.consumerBegin[src]; i < p.consumerBegin[src + 1]; ++i) markItem(p.consumers[i]);
  }

  // Re-simulates after the effective values of `changed` units were refreshed; only items
  // downstream of a changed time are recomputed, in schedule order. When at least 3/4 of the
  // last 4096 schedule positions needed recomputing, the change is spreading to everything
  // (typically it reached a collective everybody waits for): the rest of the schedule is then
  // recomputed without marks, at the speed of a full replay (the marking walk costs about 3x
  // more per item), so that an update never costs much more than a full replay.
  static constexpr std::size_t kDenseWindowWords = 64;  // 4096 positions

  // At a clean cut (clean_cuts.h) the sweep has passed: if every rank's member moved by the
  // same Δ, everything after the cut moved by Δ: shifted instead of recomputed (Δ = 0: nothing
  // after it changes). Returns whether the update is complete.
  bool atCut(CutWatch& watch, std::uint32_t position, const Values& v) {
    while (position >= watch.end()) {
      TimeNs delta = 0;
      if (!watch.check(position, leave, &delta)) continue;  // now watching a later cut
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
  std::uint64_t denseFrom(std::size_t i, CutWatch& watch, const Values& v, bool* complete) {
    std::uint64_t n = 0;
    const std::size_t size = p.schedule.size();
    *complete = false;
    while (i < size) {
      if (i >= watch.end() && (*complete = atCut(watch, static_cast<std::uint32_t>(i), v))) break;
      const std::size_t to = std::min<std::size_t>(size, watch.end());
      sweep(i, to);
      n += to - i;
      i = to;
    }
    return n;
  }

  void incremental(const std::set<std::uint32_t>& changed) {
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
      markItem(u);       // its gap, local cost, waits or dependencies may have changed
      markConsumers(u);  // and with its gap its enter, which they read
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
        if ((pos >> 6) == w) bits |= std::uint64_t{1} << (pos & 63);
        else dirty[pos >> 6] |= std::uint64_t{1} << (pos & 63);
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

  // ---- overflow (docs/model.md, "Limits") ----
  // The sweeps saturate at kTimeOverflow. Times only grow along a rank (gaps and local costs
  // are never negative), so a saturated time anywhere saturates its rank's end and T: one check
  // of T after a sweep finds it. The diagnosis then looks for the first schedule item that
  // saturated: its inputs fit, so one of its own terms (a gap, a local cost, a message's
  // offset) or their sum is what went past the limit.
  std::string callLabel(std::uint32_t u) const {
    const std::uint32_t r = p.rankOf(u);
    if (p.isSentinel(u)) return "the end of rank " + std::to_string(r);
    const std::uint32_t i = p.callOf(u);
    return "call " + std::to_string(r) + ":" + std::to_string(i) + " (" +
           trace.fn(r, trace.ranks[r].mpiCalls[i]).name + ")";
  }

  std::string messageLabel(std::uint32_t m) const {
    const ReplayMessage& msg = p.messages[m];
    const std::uint32_t from = msg.units[0], to = msg.units[2];
    std::string out = "the message of " + std::to_string(bytes[m]) + " bytes";
    if (from != kNone32) out += " sent by " + callLabel(from);
    if (to != kNone32) out += std::string(from != kNone32 ? "," : "") + " received by " + callLabel(to);
    return out;
  }

  static std::string ns(TimeNs t) {
    return overflowed(t) ? std::string("more than 2^63 ns") : std::to_string(t) + " ns";
  }

  std::string overflowAt(std::uint32_t u, bool gapOnly) const {
    const std::string where = "the predicted time exceeds the int64 range (2^63 ns, 292 years) at " + callLabel(u) + ": ";
    if (gapOnly) return where + "the computation of " + ns(gap[u]) + " before it passes the limit";
    p.prepareLinks();
    if (!noWait[u])
      for (std::uint32_t d = p.depBegin[u]; d < p.depBegin[u + 1]; ++d) {
        if ((depFlags[d] & dep::kUse) != dep::kUse || !overflowed(satAdd(srcValue(p.depSrc[d], values()), depOff[d]))) continue;
        const std::uint32_t m = p.depMsg[d];
        if (m == kNone32) break;
        return where + "it waits for " + messageLabel(m) + ", which network model '" + model().name() +
               "' delivers after " + ns(depOff[d]);
      }
    std::string cost = "its local cost of " + ns(local[u]);
    if (p.modelLocal.size() > u && p.modelLocal[u]) {
      cost += " (the price network model '" + model().name() + "' puts on ";
      std::uint32_t biggest = kNone32;
      for (std::uint32_t i = p.roleBegin[u]; i < p.roleBegin[u + 1]; ++i)
        if (biggest == kNone32 || bytes[p.roleMsg[i]] > bytes[biggest]) biggest = p.roleMsg[i];
      cost += biggest != kNone32 ? messageLabel(biggest) : std::string("the collective");
      cost += ")";
    }
    return where + "its start plus " + cost + " passes the limit";
  }

  std::string overflowProblem() const {
    if (!overflowed(predictedT)) return "";
    for (std::uint32_t r = 0; r < p.ranks; ++r)
      if (overflowed(enterOf(p.rankBegin[r]))) return overflowAt(p.rankBegin[r], true);
    for (const std::uint32_t item : p.schedule) {
      if (item >= p.units) continue;  // a gather takes its members' times: never the first
      if (overflowed(leave[item])) return overflowAt(item, false);
      if (!isLastOfRank(item) && overflowed(enterOf(item + 1))) return overflowAt(item + 1, true);
    }
    return "the predicted time exceeds the int64 range (2^63 ns, 292 years)";
  }

  // Applies (on = true) or withdraws one hypothesis; returns the units whose values changed.
  std::set<std::uint32_t> apply(const Hypothesis& h, bool on) {
    std::set<std::uint32_t> touched;
    switch (h.kind) {
      case HypothesisKind::ZeroWait: {
        const std::uint32_t u = unitOf(h.event);
        touched.insert(u);
        break;
      }
      case HypothesisKind::ZeroEvent: {
        const std::uint32_t u = unitOf(h.event);
        if (h.event.computation) zeroGap.set(u, on);
        else zeroLocal.set(u, on);
        touched.insert(u);
        break;
      }
      case HypothesisKind::BalanceCompute:
        for (const auto& [u, delta] : computeBalance(h.step)) {
          gapDelta.set(u, on ? satAdd(gapDeltaOf(u), delta) : satSub(gapDeltaOf(u), delta), p.units);
          touched.insert(u);
        }
        break;
      case HypothesisKind::BalanceVolume:
        applyVolume(h.step, on, touched);
        break;
      case HypothesisKind::Compensate:
        // Touches every unit: the callers refresh them all and replay in full.
        charges = on ? chargeOverhead(trace, p, overheadOf(h)) : OverheadCharges{};
        break;
    }
    return touched;
  }

  // noWait is derived from the hypothesis set (zero-wait or zero-event on the call).
  void refreshNoWait(std::uint32_t u) {
    bool nw = zeroLocal[u] != 0;
    const auto& hs = scenario.hypotheses;
    if (!nw && !p.isSentinel(u) && !hs.empty()) {
      const std::uint32_t r = p.rankOf(u);
      const Hypothesis probe{HypothesisKind::ZeroWait, EventRef{r, p.callIn(r, u), false}, 0};
      nw = std::binary_search(hs.begin(), hs.end(), probe);
    }
    noWait[u] = nw;
  }

  void resetEffective() {
    gap.init(&p.gap0, p.units);
    local.init(&p.local0, p.units);
    depOff.init(&p.depOff0, p.depOff0.size());
    depFlags.init(&p.depFlags0, p.depFlags0.size());
    noWait.assign(p.units, 0);
    zeroGap.init(nullptr, p.units);
    zeroLocal.init(nullptr, p.units);
    gapDelta.clear();
    bytes.init(&p.messageBytes, p.messageBytes.size());
  }

  void rebuildFromHypotheses() {
    resetEffective();
    charges = OverheadCharges{};
    // The units to refresh, as a flat list (a set of every unit, when every step is balanced,
    // cost 40 bytes per unit); all of them once they are many.
    std::vector<std::uint32_t> touched;
    bool all = false;
    for (const Hypothesis& h : scenario.hypotheses) {
      const std::set<std::uint32_t> t = apply(h, true);
      if (!all) touched.insert(touched.end(), t.begin(), t.end());
      if (touched.size() > p.units / 4) {
        all = true;
        releaseMemory(touched);
      }
    }
    if (!charges.empty() || all) {
      refreshAll();
      return;
    }
    std::sort(touched.begin(), touched.end());
    touched.erase(std::unique(touched.begin(), touched.end()), touched.end());
    for (std::uint32_t u : touched) {
      refreshUnit(u);
      refreshNoWait(u);
    }
    full();
  }

  // After a change that touches every unit (compensation): refresh all, replay in full (an
  // incremental walk could not skip anything).
  void refreshAll() {
    for (std::uint32_t u = 0; u < p.units; ++u) {
      refreshUnit(u);
      refreshNoWait(u);
    }
    full();
  }

  // Incremental update after adding or withdrawing `h`.
  void update(const Hypothesis& h, bool on) {
    auto touched = apply(h, on);
    if (h.kind == HypothesisKind::Compensate) {
      refreshAll();
      return;
    }
    for (std::uint32_t u : touched) {
      refreshUnit(u);
      refreshNoWait(u);
    }
    incremental(touched);
  }
};

std::uint64_t estimateReplayMemory(const Trace& trace, CostMode costs) {
  // Per item, from bench_replay's heap counter (peak_heap_bytes_per_event 30.4 B on its trace
  // of 0.8 calls, 0.4 endpoints and 0.2 collective members per event; docs/performance.md)
  // with about 15 % to spare: a call 26 B (gap, local cost and offsets in 4 B each, schedule
  // entry, dependency index, predicted leave, the builder's share), an endpoint 20 B (its
  // dependency, its message's size, the builder's per-endpoint links), a collective member
  // 30 B (its dependency, gather membership and the builder's member list). Cost mode "model"
  // adds the links built at once (roles, the message of each dependency, message units and
  // steps: 24 B per endpoint) and per call the model's price, the measured wait and its flag
  // (26 B): `predict --costs model` at 10^7 events peaks 26.5 B/event above measured mode.
  constexpr std::uint64_t kPerCall = 26, kPerEndpoint = 20, kPerMember = 30, kBase = 1 << 20;
  constexpr std::uint64_t kModelPerCall = 26, kModelPerEndpoint = 24;
  std::uint64_t calls = 0, endpoints = 0, members = 0;
  for (const RankTrace& rt : trace.ranks) {
    calls += rt.mpiCalls.size() + 1;
    endpoints += rt.messages.size();
    members += rt.collectives.size();
  }
  const bool model = costs == CostMode::Model;
  return kBase + (kPerCall + (model ? kModelPerCall : 0)) * calls +
         (kPerEndpoint + (model ? kModelPerEndpoint : 0)) * endpoints + kPerMember * members;
}

Replayer::Replayer(const Trace& trace, Scenario scenario) : Replayer(trace, std::move(scenario), nullptr) {}

Replayer::Replayer(const Trace& trace, Scenario scenario, ReplayControl* control)
    : d(std::make_unique<Impl>(trace, std::move(scenario))) {
  if (!d->scenario.model) d->scenario.model = defaultNetworkModel();
  d->scenario.normalize();
  buildReplayProgram(trace, d->model(), d->scenario.costs, d->p, d->report, &d->leave, control);
  d->control = control;  // the first full replay below is followed too
  const std::uint32_t items = d->p.items();
  d->nodeVal.assign(d->p.nodes(), 0);
  d->dirty.assign((items + 63) / 64, 0);
  for (std::uint32_t r = 0; r < d->p.ranks; ++r)
    d->measuredT = std::max(d->measuredT, d->p.rankEnd[r]);
  // Hypotheses that do not fit this trace are dropped by setHypotheses' validation.
  auto hs = std::move(d->scenario.hypotheses);
  d->scenario.hypotheses.clear();
  std::string ignored;
  if (!setHypotheses(std::move(hs), &ignored)) {
    d->scenario.hypotheses.clear();
    d->rebuildFromHypotheses();
    d->report.notes.push_back("scenario hypotheses ignored: " + ignored);
  }
  d->control = nullptr;
  if (control) raiseProgress(control->permille, 1000);
}

Replayer::~Replayer() = default;

Replayer::Replayer(std::unique_ptr<Impl> impl) : d(std::move(impl)) {}

std::unique_ptr<Replayer> Replayer::fork() const {
  return std::unique_ptr<Replayer>(new Replayer(std::make_unique<Impl>(*d)));
}

const Trace& Replayer::trace() const { return d->trace; }
const Scenario& Replayer::scenario() const { return d->scenario; }
const ReplayReport& Replayer::report() const { return d->report; }
std::string Replayer::validate(const Hypothesis& h) const { return d->validate(h); }
const std::vector<std::vector<std::uint32_t>>& Replayer::nestedCalls() const { return d->p.nested; }
const UpdateStats& Replayer::lastUpdate() const { return d->stats; }

bool Replayer::add(const Hypothesis& hypothesis, std::string* error) {
  const Hypothesis h = hypothesis.canonical();
  const std::string problem = d->validate(h);
  if (!problem.empty()) {
    if (error) *error = problem;
    return false;
  }
  auto& hs = d->scenario.hypotheses;
  auto it = std::lower_bound(hs.begin(), hs.end(), h);
  if (it != hs.end() && *it == h) {
    d->stats = UpdateStats{};
    return true;  // already present: nothing changes
  }
  hs.insert(it, h);
  d->update(h, true);
  return true;
}

bool Replayer::remove(const Hypothesis& hypothesis, std::string* error) {
  const Hypothesis h = hypothesis.canonical();
  auto& hs = d->scenario.hypotheses;
  auto it = std::lower_bound(hs.begin(), hs.end(), h);
  if (it == hs.end() || !(*it == h)) {
    if (error) *error = "hypothesis not in the scenario: " + h.toString();
    return false;
  }
  hs.erase(it);
  // Balance-volume steps re-derive sizes from the remaining hypotheses (steps never share a
  // message, so withdrawing one step restores exactly its messages).
  d->update(h, false);
  return true;
}

bool Replayer::setHypotheses(std::vector<Hypothesis> hs, std::string* error) {
  // Each hypothesis alone (not against the current set), then the set: one compensation at most.
  auto current = std::move(d->scenario.hypotheses);
  d->scenario.hypotheses.clear();
  std::string problem;
  for (const Hypothesis& h : hs) {
    problem = d->validate(h);
    if (!problem.empty()) break;
  }
  if (problem.empty()) problem = compensationConflict(hs);
  if (!problem.empty()) {
    d->scenario.hypotheses = std::move(current);
    if (error) *error = problem;
    return false;
  }
  d->scenario.hypotheses = std::move(hs);
  d->scenario.normalize();
  d->rebuildFromHypotheses();
  return true;
}

void Replayer::replayFull() { d->full(); }
void Replayer::prepareUpdates(ReplayControl* control) {
  d->p.prepareIncremental(control);
  // Own copies of the values most hypotheses change, made now rather than at the first toggle.
  d->gap.materialize();
  d->local.materialize();
}

std::vector<TimeNs> Replayer::stepComputation(std::uint32_t step) const {
  std::vector<TimeNs> out;
  if (step >= d->trace.steps.size()) return out;
  std::vector<std::vector<Impl::StepPart>> parts;
  std::vector<TimeNs> total;
  std::vector<std::uint8_t> in;
  std::uint32_t present = 0;
  d->stepParts(step, parts, total, in, present);
  out.resize(total.size());
  for (std::size_t r = 0; r < total.size(); ++r) out[r] = in[r] ? total[r] : -1;
  return out;
}

std::vector<TimeNs> Replayer::stepComputations() const {
  const auto& p = d->p;
  const Trace& t = d->trace;
  const std::size_t K = t.steps.size(), R = p.ranks;
  std::vector<TimeNs> out(K * R, -1);
  forEachRank(p.ranks, t.eventCount(), [&](std::uint32_t r) {
    // The rank's steps by their begin: each one's first unit (firstEnteredAtOrAfter) is then at
    // or after the one before's, found by walking on instead of searching.
    std::vector<std::pair<TimeNs, std::uint32_t>> order;
    for (std::uint32_t k = 0; k < K; ++k)
      if (r < t.steps[k].ranks.size() && t.steps[k].ranks[r].present())
        order.emplace_back(t.ranks[r].enter[t.steps[k].ranks[r].marker], k);
    if (!std::is_sorted(order.begin(), order.end())) std::sort(order.begin(), order.end());
    std::uint32_t first = p.rankBegin[r];
    for (const auto& [sBegin, k] : order) {
      const TimeNs sEnd = t.ranks[r].leave[t.steps[k].ranks[r].marker];
      while (first < p.rankBegin[r + 1] && p.measEnter.in(r, first) < sBegin) ++first;
      TimeNs total = 0;
      d->forStepGaps(r, first, sBegin, sEnd, [&](std::uint32_t, TimeNs inside) { total += inside; });
      out[std::size_t(k) * R + r] = total;
    }
  });
  return out;
}

void internal::ReplayerAccess::setStepMean(Replayer& r, std::uint32_t step, TimeNs mean) { r.d->stepMean[step] = mean; }

std::vector<std::uint64_t> internal::ReplayerAccess::stepMessageSizes(const Replayer& rp, std::uint32_t step,
                                                                      std::uint32_t firstRank, std::uint32_t lastRank) {
  const Replayer::Impl& d = *rp.d;
  std::vector<std::uint64_t> out;
  for (std::uint32_t m : d.stepMessages(step)) {
    const std::uint32_t r = d.p.rankOf(d.p.messages[m].units[0]);
    if (r >= firstRank && r < lastRank) out.push_back(d.p.messageBytes[m]);
  }
  return out;
}

void internal::ReplayerAccess::setVolumeMean(Replayer& r, std::uint32_t step, std::uint64_t bytes) {
  r.d->volumeMean[step] = bytes;
}
void internal::ReplayerAccess::setRecordedOverhead(Replayer& r, std::vector<TimeNs> perRank) {
  r.d->recordedOverhead = std::move(perRank);
}

std::string Replayer::overflow() const { return d->overflowProblem(); }

TimeNs Replayer::measuredTime() const { return d->measuredT; }
TimeNs Replayer::predictedTime() const { return d->predictedT; }
TimeNs Replayer::measuredRankEnd(std::uint32_t rank) const { return d->p.rankEnd[rank]; }
TimeNs Replayer::predictedRankEnd(std::uint32_t rank) const { return d->leave[d->p.rankBegin[rank + 1] - 1]; }

PredictedCall Replayer::predicted(std::uint32_t rank, std::uint32_t mpiIndex) const {
  const auto& p = d->p;
  const std::uint32_t u = p.unitOfCall(rank, mpiIndex);
  if (p.isNested(rank, mpiIndex)) {  // follows its parent call
    const std::uint32_t e = d->trace.ranks[rank].mpiCalls[mpiIndex];
    const TimeNs a = mapTime(rank, d->trace.ranks[rank].enter[e]);
    const TimeNs b = mapTime(rank, d->trace.ranks[rank].leave[e]);
    return {a, b, 0};
  }
  const TimeNs enter = d->enterOf(u);
  const TimeNs wait = satSub(satSub(d->leave[u], enter), d->local[u]);
  return {enter, d->leave[u], std::max<TimeNs>(0, wait)};
}

TimeNs Replayer::measuredWait(std::uint32_t rank, std::uint32_t mpiIndex) const {
  const auto& p = d->p;
  if (p.isNested(rank, mpiIndex)) return 0;
  return p.waitIn(rank, p.unitOfCall(rank, mpiIndex));
}

std::uint64_t Replayer::callCount() const { return d->trace.mpiCallCount(); }

TimeNs Replayer::mapTime(std::uint32_t rank, TimeNs t) const {
  std::uint32_t hint = d->p.rankBegin[rank];
  return mapTimeFrom(rank, t, hint);
}

namespace {

// (a · b · 2 + c) / (2c), c > 0: a scaled by b / c, rounded half up (toward zero for a negative
// numerator, as C++ divides), computed in 128 bits. Without the 128-bit division (a libgcc call
// of some 40 ns, twice per mapped instant) where the result is known or the product fits in 64
// bits: the same value either way.
TimeNs scaleRounded(TimeNs a, TimeNs b, TimeNs c) {
  if (b == c && a >= 0) return a;  // (2ac + c) / 2c = a + 1/2, rounded down
  TimeNs prod;
  if (c <= std::numeric_limits<TimeNs>::max() / 2 && !__builtin_mul_overflow(a, b, &prod) &&
      !__builtin_mul_overflow(prod, TimeNs{2}, &prod) && !__builtin_add_overflow(prod, c, &prod))
    return prod / (2 * c);
  return static_cast<TimeNs>((static_cast<__int128>(a) * b * 2 + c) / (2 * static_cast<__int128>(c)));
}

}  // namespace

TimeNs Replayer::mapTimeFrom(std::uint32_t rank, TimeNs t, std::uint32_t& hint) const {
  const auto& p = d->p;
  // The first unit entered after t (galloping forward from the hint when the hint lies at or
  // before it, else a search of the whole rank); the unit before it may contain t.
  const std::uint32_t first = p.rankBegin[rank], end = p.rankBegin[rank + 1];
  std::uint32_t v;
  if (hint >= first && hint < end && (hint == first || p.measEnter.in(rank, hint - 1) <= t)) {
    std::uint32_t lo = hint, step = 1, hi = hint;
    while (hi < end && p.measEnter.in(rank, hi) <= t) {
      lo = hi + 1;
      hi = std::min<std::uint64_t>(end, std::uint64_t{hi} + step);
      step *= 2;
    }
    // Answer in [lo, hi]: the first unit of [lo, hi) entered after t, else hi.
    while (lo < hi) {
      const std::uint32_t mid = lo + (hi - lo) / 2;
      if (p.measEnter.in(rank, mid) <= t) lo = mid + 1;
      else hi = mid;
    }
    v = lo;
  } else {
    v = p.firstEnteredAfter(rank, t);
  }
  hint = v;
  if (v > p.rankBegin[rank]) {
    const std::uint32_t u = v - 1;
    const TimeNs uEnter = p.measEnter.in(rank, u);
    const TimeNs pEnter = d->enterOf(u);
    if (p.isSentinel(u)) return satAdd(pEnter, t - uEnter);  // after the rank's end
    const TimeNs uLeave = p.measLeave.in(rank, u);
    if (t <= uLeave) {
      // Inside call u: scaled to its predicted length, so that its start and its end map to the
      // predicted ones. (Keeping the offset from the start put an instant at the call's end —
      // a state entered right after it — inside the call when the prediction made it longer,
      // and the predicted trace went backwards in time.)
      const TimeNs m0 = t - uEnter, mLen = uLeave - uEnter;
      const TimeNs pLen = d->leave[u] - pEnter;
      if (mLen <= 0) return pEnter;
      return satAdd(pEnter, scaleRounded(m0, pLen, mLen));
    }
  }
  // In the computation gap before unit v: scale the gap to its predicted length.
  const TimeNs base = p.isFirst(v) ? 0 : p.measLeave.in(rank, v - 1);
  const TimeNs baseP = p.isFirst(v) ? 0 : d->leave[v - 1];
  const TimeNs g0 = p.measEnter.in(rank, v) - base;
  const TimeNs g1 = d->enterOf(v) - baseP;
  if (!d->charges.empty()) {
    // Compensated: each record's overhead collapses, the rest is scaled to the predicted gap
    // (the same length unless another hypothesis changed the gap or the overhead was clamped).
    TimeNs end = 0;
    const TimeNs k = compensatedGapOffset(d->charges, p, rank, v, t, &end);
    if (end <= 0) return baseP;
    return satAdd(baseP, scaleRounded(k, g1, end));
  }
  if (g0 <= 0) return baseP;
  return satAdd(baseP, scaleRounded(t - base, g1, g0));
}

const ReplayProgram& internal::ReplayerAccess::program(const Replayer& r) { return r.d->p; }
EffectiveProgram internal::ReplayerAccess::effective(const Replayer& r) {
  const Replayer::Impl& d = *r.d;
  return EffectiveProgram{d.gap.reader(), d.local.reader(), d.depOff.reader(), d.depFlags.view(), d.noWait};
}
std::vector<TimeNs> Replayer::predictedEnters() const {
  std::vector<TimeNs> out(d->p.units);
  for (std::uint32_t u = 0; u < d->p.units; ++u) out[u] = d->enterOf(u);
  return out;
}
TimeNs Replayer::predictedEnter(std::uint32_t unit) const { return d->enterOf(unit); }

void Replayer::predictedRank(std::uint32_t r, PredictedRank& out) const {
  const RankTrace& mt = d->trace.ranks[r];
  out.enter.resize(mt.size());
  out.leave.resize(mt.size());
  out.wait.resize(mt.mpiCalls.size());
  out.end = predictedRankPrefix(r, static_cast<std::uint32_t>(mt.size()), out);
}

TimeNs Replayer::predictedRankPrefix(std::uint32_t r, std::uint32_t events, PredictedRank& out) const {
  // One pass in event order: a top-level MPI call takes its unit's enter (the previous leave
  // plus the effective gap), leave and wait (as predicted()); any other instant, and a nested
  // call, is mapped with a search that starts where the previous one ended (as mapTime()).
  const auto& p = d->p;
  const RankTrace& mt = d->trace.ranks[r];
  const Impl::Values v = d->values();
  std::size_t call = 0;
  std::uint32_t hint = p.rankBegin[r];
  TimeNs end = 0;
  for (std::uint32_t e = 0; e < events; ++e) {
    const bool isCall = call < mt.mpiCalls.size() && mt.mpiCalls[call] == e;
    TimeNs en, le;
    if (isCall && !p.isNested(r, static_cast<std::uint32_t>(call))) {
      const std::uint32_t u = p.unitOfCall(r, static_cast<std::uint32_t>(call));
      en = d->enterWith(u, v);
      le = d->leave[u];
      out.wait[call] = std::max<TimeNs>(0, satSub(satSub(le, en), v.local[u]));
    } else {
      en = mapTimeFrom(r, mt.enter[e], hint);
      std::uint32_t leaveHint = hint;
      le = mapTimeFrom(r, mt.leave[e], leaveHint);
      if (isCall) out.wait[call] = 0;
    }
    out.enter[e] = en;
    out.leave[e] = le;
    if (isCall) ++call;
    end = std::max(end, le);
  }
  return end;
}

std::uint32_t Replayer::predictedRankShifted(std::uint32_t r, const PredictedRank& before, PredictedRank& out) const {
  const UpdateStats& st = d->stats;
  const RankTrace& mt = d->trace.ranks[r];
  if (st.shiftAfterCall.size() <= r) {
    predictedRank(r, out);
    return static_cast<std::uint32_t>(mt.size());
  }
  const std::uint32_t n = static_cast<std::uint32_t>(mt.size());
  out.enter.resize(n);
  out.leave.resize(n);
  out.wait.resize(mt.mpiCalls.size());
  // Events are in enter order: those entered at or after the collective call's measured leave
  // form a suffix, and so do the MPI calls among them.
  const TimeNs from = mt.leave[mt.mpiCalls[st.shiftAfterCall[r]]];
  std::uint32_t lo = mt.mpiCalls[st.shiftAfterCall[r]], hi = n;
  while (lo < hi) {
    const std::uint32_t mid = lo + (hi - lo) / 2;
    if (mt.enter[mid] < from) lo = mid + 1;
    else hi = mid;
  }
  const std::uint32_t e0 = lo;
  const std::size_t c0 = static_cast<std::size_t>(std::lower_bound(mt.mpiCalls.begin(), mt.mpiCalls.end(), e0) - mt.mpiCalls.begin());
  TimeNs end = predictedRankPrefix(r, e0, out);
  const TimeNs shift = st.shift;
  for (std::uint32_t e = e0; e < n; ++e) {
    out.enter[e] = satAdd(before.enter[e], shift);
    out.leave[e] = satAdd(before.leave[e], shift);
    end = std::max(end, out.leave[e]);
  }
  std::copy(before.wait.begin() + static_cast<std::ptrdiff_t>(c0), before.wait.end(), out.wait.begin() + static_cast<std::ptrdiff_t>(c0));
  out.end = end;
  return e0;
}

const std::vector<TimeNs>& Replayer::predictedLeaves() const { return d->leave; }
ReplayResults internal::ReplayerAccess::resultsForWriting(Replayer& r) { return {r.d->leave, r.d->nodeVal}; }
std::vector<std::uint8_t>& internal::ReplayerAccess::dependencyFlagsForWriting(Replayer& r) { return r.d->p.depFlags0; }

}  // namespace perwiz
