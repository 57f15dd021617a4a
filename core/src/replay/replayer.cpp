// The public Replayer: construction, forks, hypotheses in and out, and the queries of the
// predicted times (see replay.h, docs/model.md; the jobs on its state: replayer_impl.h).
#include "replayer_impl.h"

#include "perwiz/checked_time.h"
#include "perwiz/compensation.h"
#include "perwiz/rank_parallel.h"
#include "clean_cuts.h"

#include <algorithm>
#include <limits>
#include <set>
#include <stdexcept>

namespace perwiz {

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
  for (std::uint32_t r = 0; r < d->p.ranks; ++r) d->measuredT = std::max(d->measuredT, d->p.rankEnd[r]);
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

TimeNs Replayer::predictWith(const Hypothesis& hypothesis, std::string* error) {
  const Hypothesis h = hypothesis.canonical();
  if (const std::string problem = d->validate(h); !problem.empty()) {
    if (error) *error = problem;
    return -1;
  }
  auto& hs = d->scenario.hypotheses;
  auto it = std::lower_bound(hs.begin(), hs.end(), h);
  if (it != hs.end() && *it == h) return d->predictedT;
  // A compensation replays in full (refreshAll): nothing to save by logging.
  if (h.kind == HypothesisKind::Compensate) {
    add(h);
    const TimeNs t = d->predictedT;
    remove(h);
    return t;
  }
  const TimeNs before = d->predictedT;
  const UpdateStats stats = d->stats;
  Impl::Evaluation e;
  // The log holds what the add recomputes (usually up to the next collective everybody
  // joins); bounded so that a change that spreads everywhere costs no more memory than a
  // second copy of the results: then the update and its undo are the ordinary ones.
  e.cap = std::max<std::size_t>(std::size_t{1} << 16, d->p.items() / 2);
  d->evaluation = &e;
  hs.insert(it, h);
  try {
    d->update(h, true);
  } catch (...) {
    d->evaluation = nullptr;
    throw;
  }
  const TimeNs t = d->predictedT;
  if (e.overflow) {  // an ordinary add was made: an ordinary remove
    d->evaluation = nullptr;
    remove(h);
    return t;
  }
  d->restoreLog();
  d->evaluation = nullptr;
  hs.erase(std::lower_bound(hs.begin(), hs.end(), h));
  d->unapply(h);
  d->predictedT = before;
  d->stats = stats;
  return t;
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
void Replayer::prepareIndex(ReplayControl* control) const { d->p.prepareIncremental(control); }
void Replayer::prepareUpdates(ReplayControl* control) {
  // The gaps and local costs a hypothesis changes are copied chunk by chunk at its first write
  // (ChunkedOverlay): a few MB for a toggle, so no copy of every unit is made ahead of it.
  prepareIndex(control);
}

void Replayer::releaseUnchangedCopies() {
  d->gap.releaseUnchanged();
  d->local.releaseUnchanged();
  d->depOff.releaseUnchanged();
}

std::uint64_t Replayer::changedValueBytes() const {
  return d->gap.ownBytes() + d->local.ownBytes() + d->depOff.ownBytes();
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
    if (r >= firstRank && r < lastRank) out.push_back(d.p.bytesOf(m));
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
      if (p.measEnter.in(rank, mid) <= t)
        lo = mid + 1;
      else
        hi = mid;
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
  return EffectiveProgram{d.gap.reader(), d.local.reader(), d.depOff.reader(), d.depFlags.view(),
                          UnitBits{d.noWait.data()}};
}
std::vector<TimeNs> Replayer::predictedEnters() const {
  std::vector<TimeNs> out(d->p.units);
  for (std::uint32_t u = 0; u < d->p.units; ++u) out[u] = d->enterOf(u);
  return out;
}
TimeNs Replayer::predictedEnter(std::uint32_t unit) const { return d->enterOf(unit); }

namespace {
// `out` without a tail and with empty columns that hold `events` and `calls` values without
// growing (a reused rank keeps its capacity); predictedRankPrefix appends to them.
void startOwnValues(PredictedRank& out, std::size_t events, std::size_t calls) {
  out.tail.reset();
  out.tailShift = 0;
  out.blockMaxLeave.clear();
  for (TimeColumn* c : {&out.ownEnter, &out.ownLeave, &out.ownWait}) c->clear();
  out.ownEnter.reserve(events);
  out.ownLeave.reserve(events);
  out.ownWait.reserve(calls);
}
}  // namespace

void Replayer::predictedRank(std::uint32_t r, PredictedRank& out) const {
  const RankTrace& mt = d->trace.ranks[r];
  startOwnValues(out, mt.size(), mt.mpiCalls.size());
  out.end = predictedRankPrefix(r, static_cast<std::uint32_t>(mt.size()), out);
  out.indexLeaves();
}

TimeNs Replayer::predictedRankPrefix(std::uint32_t r, std::uint32_t events, PredictedRank& out) const {
  // One pass in event order: a top-level MPI call takes its unit's enter (the previous leave
  // plus the effective gap), leave and wait (as predicted()); any other instant, and a nested
  // call, is mapped with a search that starts where the previous one ended (as mapTime()).
  // Appends to out's columns (empty on entry).
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
      out.ownWait.push_back(std::max<TimeNs>(0, satSub(satSub(le, en), v.local[u])));
    } else {
      en = mapTimeFrom(r, mt.enter[e], hint);
      std::uint32_t leaveHint = hint;
      le = mapTimeFrom(r, mt.leave[e], leaveHint);
      if (isCall) out.ownWait.push_back(0);
    }
    out.ownEnter.push_back(en);
    out.ownLeave.push_back(le);
    if (isCall) ++call;
    end = std::max(end, le);
  }
  return end;
}

std::uint32_t Replayer::predictedRankShifted(std::uint32_t r, const std::shared_ptr<const PredictedRank>& before,
                                             PredictedRank& out, bool share) const {
  const UpdateStats& st = d->stats;
  const RankTrace& mt = d->trace.ranks[r];
  if (st.shiftAfterCall.size() <= r) {
    predictedRank(r, out);
    return static_cast<std::uint32_t>(mt.size());
  }
  const std::uint32_t n = static_cast<std::uint32_t>(mt.size());
  // Events are in enter order: those entered at or after the collective call's measured leave
  // form a suffix, and so do the MPI calls among them.
  const TimeNs from = mt.leave[mt.mpiCalls[st.shiftAfterCall[r]]];
  std::uint32_t lo = mt.mpiCalls[st.shiftAfterCall[r]], hi = n;
  while (lo < hi) {
    const std::uint32_t mid = lo + (hi - lo) / 2;
    if (mt.enter[mid] < from)
      lo = mid + 1;
    else
      hi = mid;
  }
  const std::uint32_t e0 = lo;
  const std::size_t c0 =
      static_cast<std::size_t>(std::lower_bound(mt.mpiCalls.begin(), mt.mpiCalls.end(), e0) - mt.mpiCalls.begin());
  const PredictedRank& b = *before;
  const TimeNs shift = st.shift;
  // The values `out` owns: its own prefix, and `before`'s own values past the cut moved by the
  // shift; the rest is before's tail (or before itself) read with the shift added. Without
  // `share`, every value (a copy of before's past the cut).
  const std::size_t split = std::max<std::size_t>(e0, b.tail ? b.ownEnter.size() : 0);
  const std::size_t splitCall = std::max<std::size_t>(c0, b.tail ? b.ownWait.size() : 0);
  const std::size_t ownEvents = share ? split : n, ownCalls = share ? splitCall : mt.mpiCalls.size();
  startOwnValues(out, ownEvents, ownCalls);
  TimeNs end = predictedRankPrefix(r, e0, out);
  for (std::size_t e = e0; e < ownEvents; ++e) {
    out.ownEnter.push_back(satAdd(b.enter(e), shift));
    out.ownLeave.push_back(satAdd(b.leave(e), shift));
  }
  for (std::size_t c = c0; c < ownCalls; ++c) out.ownWait.push_back(b.wait(c));
  if (share) {
    out.tail = b.tail ? b.tail : before;
    out.tailShift = satAdd(b.tail ? b.tailShift : 0, shift);
  } else {
    out.indexLeaves();
  }
  out.end = std::max(end, out.maxLeaveFrom(e0));
  return e0;
}

const std::vector<TimeNs>& Replayer::predictedLeaves() const { return d->leave; }
ReplayResults internal::ReplayerAccess::resultsForWriting(Replayer& r) { return {r.d->leave, r.d->nodeVal}; }

std::vector<std::uint32_t> internal::ReplayerAccess::changeWithoutReplay(Replayer& r, const Hypothesis& hypothesis,
                                                                         bool on) {
  const Hypothesis h = hypothesis.canonical();
  if (h.kind == HypothesisKind::Compensate || h.kind == HypothesisKind::BalanceVolume)
    throw std::invalid_argument(h.toString() + ": not changed without a replay");
  if (const std::string problem = r.d->validate(h); !problem.empty()) throw std::invalid_argument(problem);
  auto& hs = r.d->scenario.hypotheses;
  const auto it = std::lower_bound(hs.begin(), hs.end(), h);
  const bool present = it != hs.end() && *it == h;
  if (present == on) return {};
  if (on)
    hs.insert(it, h);
  else
    hs.erase(it);
  const std::set<std::uint32_t> touched = r.d->apply(h, on);
  for (std::uint32_t u : touched) {
    r.d->refreshUnit(u);
    r.d->refreshNoWait(u);
  }
  return {touched.begin(), touched.end()};
}
std::vector<std::uint8_t>& internal::ReplayerAccess::dependencyFlagsForWriting(Replayer& r) { return r.d->p.depFlags0; }

}  // namespace perwiz
