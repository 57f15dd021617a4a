// Hypotheses to effective values: which units a hypothesis changes and their new gaps, local
// costs, dependency offsets and message sizes (see replay.h, docs/model.md).
#include "replayer_impl.h"

#include "perwiz/checked_time.h"
#include "perwiz/compensation.h"
#include "perwiz/predicted_times.h"

#include <algorithm>

namespace perwiz {

// ---- hypothesis bookkeeping ----
std::uint32_t Replayer::Impl::unitOf(const EventRef& e) const {
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

std::string Replayer::Impl::validate(const Hypothesis& h) const {
  if (h.overheadFromTrace() && !recordedOverhead.empty()) {  // given: only whether it is there twice
    std::vector<Hypothesis> both = scenario.hypotheses;
    both.push_back(h);
    return compensationConflict(both);
  }
  return validateHypothesis(trace, p.nested, h, scenario.hypotheses);
}

std::vector<TimeNs> Replayer::Impl::overheadOf(const Hypothesis& h) const {
  if (h.overheadFromTrace() && !recordedOverhead.empty()) return recordedOverhead;
  return compensationOverhead(trace, h.overheadNs, nullptr);
}

// Per rank: the gap parts of step k and their total; `present` counts ranks in the step.
void Replayer::Impl::stepParts(std::uint32_t k, std::vector<std::vector<StepPart>>& parts, std::vector<TimeNs>& total,
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

// Per-unit gap changes of balancing the computation of step k (docs/model.md).
std::vector<std::pair<std::uint32_t, TimeNs>> Replayer::Impl::computeBalance(std::uint32_t k) const {
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

std::vector<std::uint32_t> Replayer::Impl::stepMessages(std::uint32_t k) const {
  std::vector<std::uint32_t> ids;
  p.prepareLinks();
  for (std::uint32_t m = 0; m < p.messages.size(); ++m)
    if (p.messages[m].step == k && p.messages[m].units[0] != kNone32) ids.push_back(m);
  return ids;
}

// Effective message sizes from the base sizes and the active balance-volume hypotheses.
void Replayer::Impl::applyVolume(std::uint32_t k, bool on, std::set<std::uint32_t>& touched) {
  const auto ids = stepMessages(k);
  if (ids.empty()) return;
  __int128 sum = 0;
  for (std::uint32_t m : ids) sum += p.bytesOf(m);
  const auto given = volumeMean.find(k);  // the mean over every process's messages (perwiz-mpi)
  const std::uint64_t mean =
      given != volumeMean.end() ? given->second : static_cast<std::uint64_t>((sum * 2 + ids.size()) / (2 * ids.size()));
  for (std::uint32_t m : ids) {
    bytes.set(m, on ? mean : p.bytesOf(m));
    for (std::uint32_t u : p.messages[m].units)
      if (u != kNone32) touched.insert(u);
  }
}

// Recomputes the effective local cost, flags and dependency offsets of unit u.
void Replayer::Impl::refreshUnit(std::uint32_t u) {
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
      was.push_back({p.roleKind[i], p.bytesOf(m)});
      now.push_back({p.roleKind[i], bytes[m]});
      changed = changed || bytes[m] != p.bytesOf(m);
    }
    if (changed) l = satAdd(l, satSub(model().callCost(now), model().callCost(was)));
  }
  if (comp && !(p.modelLocal.size() > u && p.modelLocal[u])) l = satSub(l, charges.local[u]);
  local.set(u, zeroLocal[u] ? 0 : std::max<TimeNs>(0, l));
  for (std::uint32_t d = p.depBegin[u]; d < p.depBegin[u + 1]; ++d) {
    const std::uint32_t m = resized ? p.depMsg[d] : kNone32;
    std::uint8_t f = p.depFlags0[d];
    TimeNs off = p.depOff0[d];
    if (m != kNone32 && bytes[m] != p.bytesOf(m)) {
      if (f & dep::kSyncSend) {
        const CommRole role = (f & dep::kLateSend) ? CommRole::IsendComplete : CommRole::BlockingSend;
        off = satAdd(off, satSub(model().sendDelay(role, bytes[m]), model().sendDelay(role, p.bytesOf(m))));
        f = static_cast<std::uint8_t>(model().synchronous(bytes[m]) ? (f | dep::kActive) : (f & ~dep::kActive));
      } else {
        const CommRole role = (f & dep::kLateRecv) ? CommRole::IrecvComplete : CommRole::BlockingRecv;
        off = satAdd(off, satSub(model().receiveDelay(role, bytes[m]), model().receiveDelay(role, p.bytesOf(m))));
      }
    }
    depOff.set(d, off);
    depFlags.set(d, f);
  }
}

// Applies (on = true) or withdraws one hypothesis; returns the units whose values changed.
std::set<std::uint32_t> Replayer::Impl::apply(const Hypothesis& h, bool on) {
  std::set<std::uint32_t> touched;
  switch (h.kind) {
    case HypothesisKind::ZeroWait: {
      const std::uint32_t u = unitOf(h.event);
      touched.insert(u);
      break;
    }
    case HypothesisKind::ZeroEvent: {
      const std::uint32_t u = unitOf(h.event);
      if (h.event.computation)
        zeroGap.set(u, on);
      else
        zeroLocal.set(u, on);
      touched.insert(u);
      break;
    }
    case HypothesisKind::BalanceCompute:
      for (const auto& [u, delta] : computeBalance(h.step)) {
        gapDelta.set(u, on ? satAdd(gapDeltaOf(u), delta) : satSub(gapDeltaOf(u), delta), p.units);
        touched.insert(u);
      }
      break;
    case HypothesisKind::BalanceVolume: applyVolume(h.step, on, touched); break;
    case HypothesisKind::Compensate:
      // Touches every unit: the callers refresh them all and replay in full.
      charges = on ? chargeOverhead(trace, p, overheadOf(h)) : OverheadCharges{};
      break;
  }
  return touched;
}

// noWait is derived from the hypothesis set (zero-wait or zero-event on the call).
void Replayer::Impl::refreshNoWait(std::uint32_t u) {
  bool nw = zeroLocal[u] != 0;
  const auto& hs = scenario.hypotheses;
  if (!nw && !p.isSentinel(u) && !hs.empty()) {
    const std::uint32_t r = p.rankOf(u);
    const Hypothesis probe{HypothesisKind::ZeroWait, EventRef{r, p.callIn(r, u), false}, 0};
    nw = std::binary_search(hs.begin(), hs.end(), probe);
  }
  const std::uint64_t bit = std::uint64_t{1} << (u & 63);
  noWait[u >> 6] = nw ? noWait[u >> 6] | bit : noWait[u >> 6] & ~bit;
}

void Replayer::Impl::resetEffective() {
  gap.init(&p.gap0, p.units);
  local.init(&p.local0, p.units);
  depOff.init(&p.depOff0, p.depOff0.size());
  depFlags.init(&p.depFlags0, p.depFlags0.size());
  noWait.assign((std::size_t{p.units} + 63) / 64, 0);
  zeroGap.init(nullptr, p.units);
  zeroLocal.init(nullptr, p.units);
  gapDelta.clear();
  bytes.init(&p.messageBytes, p.messageBytes.size());
}

void Replayer::Impl::rebuildFromHypotheses() {
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
void Replayer::Impl::refreshAll() {
  for (std::uint32_t u = 0; u < p.units; ++u) {
    refreshUnit(u);
    refreshNoWait(u);
  }
  full();
}

// Incremental update after adding or withdrawing `h`.
void Replayer::Impl::unapply(const Hypothesis& h) {
  for (std::uint32_t u : apply(h, false)) {
    refreshUnit(u);
    refreshNoWait(u);
  }
}

void Replayer::Impl::update(const Hypothesis& h, bool on) {
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

}  // namespace perwiz
