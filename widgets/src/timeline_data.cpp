#include "timeline_data.h"

#include "palette.h"

#include <algorithm>
#include <thread>

namespace perwiz::ui {

namespace {

// Runs fn(i) for i in [0, n) on a few threads.
template <class Fn>
void parallelFor(std::size_t n, Fn&& fn) {
  const std::size_t threads = std::min<std::size_t>(std::max(1u, std::thread::hardware_concurrency()), 8);
  if (n < 8 || threads <= 1) {
    for (std::size_t i = 0; i < n; ++i) fn(i);
    return;
  }
  std::vector<std::thread> pool;
  for (std::size_t t = 0; t < threads; ++t)
    pool.emplace_back([&, t] {
      for (std::size_t i = t; i < n; i += threads) fn(i);
    });
  for (auto& th : pool) th.join();
}

// Maps a measured instant inside [e, x] to the predicted [pe, px], keeping its distance to
// the nearer end.
TimeNs mapInside(TimeNs t, TimeNs e, TimeNs x, TimeNs pe, TimeNs px) {
  if (t - e <= x - t) return std::min(pe + (t - e), std::max(px, pe));
  return std::max(px - (x - t), pe);
}

}  // namespace

void TimelineData::setTrace(std::shared_ptr<const Trace> trace) {
  ++version_;
  trace_ = std::move(trace);
  prediction_.reset();
  waits_.reset();
  marked_.reset();
  markedLabel_.clear();
  roles_.clear();
  colors_.clear();
  used_.clear();
  shapes_.clear();
  maxDepth_ = 0;
  measured_ = Drawing{};
  predicted_ = Drawing{};
  arrowSources_.clear();
  if (!trace_) return;
  const Trace& t = *trace_;
  roles_.resize(t.functions.size());
  colors_.resize(t.functions.size());
  used_.assign(t.functions.size(), false);
  for (std::size_t f = 0; f < t.functions.size(); ++f) {
    const Function& fn = t.functions[f];
    roles_[f] = fn.kind == EventKind::MpiCall ? FnRole::Mpi
                : fn.kind == EventKind::Point ? FnRole::Point
                                              : FnRole::State;
    colors_[f] = functionColor(fn);
  }
  for (std::uint32_t f : t.regionFunctions)
    if (f < roles_.size()) roles_[f] = FnRole::Marker;
  shapes_.resize(t.rankCount());
  parallelFor(t.rankCount(), [&](std::size_t r) { shapes_[r] = buildShape(t.ranks[r], roles_); });
  for (const RankTrace& r : t.ranks)
    for (std::uint32_t f : r.function) used_[f] = true;
  for (const RankShape& s : shapes_) maxDepth_ = std::max<int>(maxDepth_, s.maxDepth);
  buildDrawing(measured_, false);
}

void TimelineData::setPrediction(std::shared_ptr<const Replayer::EventTimes> times) {
  ++version_;
  const std::shared_ptr<const Replayer::EventTimes> previous = std::move(prediction_);
  Drawing old = std::move(predicted_);
  prediction_.reset();
  predicted_ = Drawing{};
  if (!trace_ || !times) return;
  // Same event indices as the trace, or nothing.
  if (times->enter.size() != trace_->rankCount() || times->leave.size() != trace_->rankCount())
    return;
  for (std::uint32_t r = 0; r < trace_->rankCount(); ++r)
    if (times->enter[r].size() != trace_->ranks[r].size() ||
        times->leave[r].size() != trace_->ranks[r].size())
      return;
  prediction_ = std::move(times);
  const bool reusable = previous && old.valid && old.lod.size() == trace_->rankCount();
  buildDrawing(predicted_, true, reusable ? &old : nullptr, reusable ? previous.get() : nullptr);
}

TimeNs TimelineData::end() const {
  TimeNs e = measured_.end;
  if (predicted_.valid) e = std::max(e, predicted_.end);
  return e;
}

void TimelineData::buildDrawing(Drawing& d, bool predicted, Drawing* reuse, const Replayer::EventTimes* reuseTimes) {
  const Trace& t = *trace_;
  const std::uint32_t ranks = std::uint32_t(t.rankCount());
  d.predicted = predicted;
  d.times.resize(ranks);
  std::uint64_t maxEvents = 0;
  d.end = 0;
  for (std::uint32_t r = 0; r < ranks; ++r) {
    const RankTrace& rt = t.ranks[r];
    RankTimes& rtimes = d.times[r];
    rtimes.enter = predicted ? TimeView(prediction_->enter[r].data()) : TimeView(rt.enter);
    rtimes.leave = predicted ? TimeView(prediction_->leave[r].data()) : TimeView(rt.leave);
    rtimes.function = rt.function.data();
    rtimes.size = std::uint32_t(rt.size());
    maxEvents = std::max<std::uint64_t>(maxEvents, rt.size());
    // A prediction carries its latest leave (EventTimes::end); the measured trace its endTime
    // and the leaves.
    if (!predicted)
      for (std::uint32_t i = 0; i < rtimes.size; ++i) d.end = std::max(d.end, rtimes.leave[i]);
  }
  d.end = std::max(d.end, predicted ? prediction_->end : t.endTime);
  d.grid = makeGrid(d.end + 1, maxEvents, ranks);
  d.lod.resize(ranks);
  const bool sameGrid = reuse && reuseTimes && reuse->grid.w0 == d.grid.w0 && reuse->grid.levels == d.grid.levels;
  parallelFor(ranks, [&](std::size_t r) {
    if (sameGrid && reuseTimes->enter[r] == prediction_->enter[r] && reuseTimes->leave[r] == prediction_->leave[r])
      d.lod[r] = std::move(reuse->lod[r]);  // this rank's times did not move
    else
      d.lod[r] = buildLod(d.grid, d.times[r], shapes_[r], roles_);
  });

  // Steps per rank.
  d.steps.assign(ranks, {});
  for (std::uint32_t k = 0; k < t.steps.size(); ++k)
    for (std::uint32_t r = 0; r < ranks && r < t.steps[k].ranks.size(); ++r) {
      const StepSpan& s = t.steps[k].ranks[r];
      if (!s.present()) continue;
      TimeNs b = t.stepBegin(k, r), e = t.stepEnd(k, r);
      if (predicted && s.marker < t.ranks[r].size()) {
        b = d.times[r].enter[s.marker];
        e = d.times[r].leave[s.marker];
      }
      d.steps[r].step.push_back(k);
      d.steps[r].begin.push_back(b);
      d.steps[r].end.push_back(std::max(b, e));
    }

  // Arrows: matched sends grouped by (sender, receiver), by send time.
  struct Msg {
    std::uint64_t key;
    TimeNs send, recv;
    std::uint32_t endpoint;
  };
  std::vector<Msg> msgs;
  if (!predicted) {
    arrowSources_.clear();
    for (std::uint32_t r = 0; r < ranks; ++r) {
      const auto& table = t.ranks[r].messages;
      for (std::uint32_t m = 0; m < table.size(); ++m) {
        const MessageEndpoint& ep = table[m];
        if (!ep.isSend || !ep.matched() || ep.matchRank >= ranks) continue;
        const auto& other = t.ranks[ep.matchRank].messages;
        if (ep.matchIndex >= other.size()) continue;
        arrowSources_.push_back({(std::uint64_t(r) << 32) | ep.matchRank, arrowEnd(r, ep), arrowEnd(ep.matchRank, other[ep.matchIndex]), m});
      }
    }
    std::stable_sort(arrowSources_.begin(), arrowSources_.end(), [](const ArrowSource& a, const ArrowSource& b) {
      return a.key != b.key ? a.key < b.key : a.send.time < b.send.time;
    });
    arrowSources_.shrink_to_fit();
  }
  msgs.resize(arrowSources_.size());
  parallelFor(1 + arrowSources_.size() / 65536, [&](std::size_t chunk) {
    const std::size_t first = chunk * 65536, last = std::min(arrowSources_.size(), first + 65536);
    for (std::size_t i = first; i < last; ++i) {
      const ArrowSource& a = arrowSources_[i];
      msgs[i] = {a.key, predicted ? predictedEnd(a.send) : a.send.time, predicted ? predictedEnd(a.recv) : a.recv.time,
                 a.endpoint};
    }
  });
  // Predicted: each channel by its predicted send times (almost always still in order).
  for (std::size_t i = 0; predicted && i < msgs.size();) {
    std::size_t j = i + 1;
    while (j < msgs.size() && msgs[j].key == msgs[i].key) ++j;
    auto bySend = [](const Msg& a, const Msg& b) { return a.send < b.send; };
    if (!std::is_sorted(msgs.begin() + std::ptrdiff_t(i), msgs.begin() + std::ptrdiff_t(j), bySend))
      std::stable_sort(msgs.begin() + std::ptrdiff_t(i), msgs.begin() + std::ptrdiff_t(j), bySend);
    i = j;
  }
  ArrowIndex& ai = d.arrows;
  ai = ArrowIndex{};
  ai.send.reserve(msgs.size());
  ai.recv.reserve(msgs.size());
  ai.sendEndpoint.reserve(msgs.size());
  for (std::size_t i = 0; i < msgs.size(); ++i) {
    if (i == 0 || msgs[i].key != msgs[i - 1].key) {
      ArrowIndex::Channel c;
      c.src = std::uint32_t(msgs[i].key >> 32);
      c.dst = std::uint32_t(msgs[i].key);
      c.first = std::uint32_t(i);
      ai.channels.push_back(c);
    }
    ArrowIndex::Channel& c = ai.channels.back();
    c.last = std::uint32_t(i + 1);
    c.lag = std::max(c.lag, msgs[i].recv - msgs[i].send);
    c.lead = std::max(c.lead, msgs[i].send - msgs[i].recv);
    ai.send.push_back(msgs[i].send);
    ai.recv.push_back(msgs[i].recv);
    ai.sendEndpoint.push_back(msgs[i].endpoint);
  }
  d.valid = true;
}

bool TimelineData::drawnEvent(std::uint32_t rank, std::uint32_t event) const {
  if (!trace_ || rank >= trace_->rankCount() || event >= trace_->ranks[rank].size()) return false;
  const FnRole r = roles_[trace_->ranks[rank].function[event]];
  return r != FnRole::Marker;
}

std::uint32_t TimelineData::mpiIndexOf(std::uint32_t rank, std::uint32_t event) const {
  if (!trace_ || rank >= trace_->rankCount()) return kNone32;
  const auto& calls = trace_->ranks[rank].mpiCalls;
  const auto it = std::lower_bound(calls.begin(), calls.end(), event);
  return it != calls.end() && *it == event ? std::uint32_t(it - calls.begin()) : kNone32;
}

TimeNs TimelineData::predictedEnd(const ArrowEnd& e) const {
  if (e.event == kNone32) return e.time;
  const RankTrace& rt = trace_->ranks[e.rank];
  return mapInside(e.time, rt.enter[e.event], rt.leave[e.event], prediction_->enter[e.rank][e.event],
                   prediction_->leave[e.rank][e.event]);
}

TimelineData::ArrowEnd TimelineData::arrowEnd(std::uint32_t rank, const MessageEndpoint& m) const {
  // A send moves with the call that posts it, a receive with the one that completes it.
  std::uint32_t ev = m.isSend ? m.postEvent : m.event;
  if (ev == kNone32) ev = m.isSend ? m.event : m.postEvent;
  if (ev != kNone32 && ev >= trace_->ranks[rank].size()) ev = kNone32;
  return ArrowEnd{rank, ev, m.time};
}

TimeNs TimelineData::endpointTime(bool predicted, std::uint32_t rank, const MessageEndpoint& m) const {
  if (!predicted || !prediction_) return m.time;
  return predictedEnd(arrowEnd(rank, m));
}

bool TimelineData::stepSpan(bool predicted, std::uint32_t step, std::uint32_t rank, TimeNs& b,
                            TimeNs& e) const {
  const RankSteps& s = drawing(predicted).steps.at(rank);
  const auto it = std::lower_bound(s.step.begin(), s.step.end(), step);
  if (it == s.step.end() || *it != step) return false;
  const std::size_t i = std::size_t(it - s.step.begin());
  b = s.begin[i];
  e = s.end[i];
  return true;
}

std::size_t TimelineData::bytes() const {
  std::size_t b = 0;
  for (const RankShape& s : shapes_)
    b += s.parent.capacity() * 4 + s.depth.capacity() + s.points.capacity() * 4;
  for (const Drawing* d : {&measured_, &predicted_}) {
    for (const RankLod& l : d->lod) b += l.bytes();
    b += d->arrows.send.capacity() * 20;
    for (const RankSteps& s : d->steps) b += s.step.capacity() * 20;
  }
  b += arrowSources_.capacity() * sizeof(ArrowSource);
  return b;
}

}  // namespace perwiz::ui
