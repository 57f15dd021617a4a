#include "timeline_data.h"

#include "perwiz/widgets/palette.h"

#include "perwiz/rank_parallel.h"

#include <QFontMetrics>

#include <algorithm>
#include <atomic>
#include <numeric>
#include <tuple>
#include <utility>

namespace perwiz::ui {

// ---- TimelineBase ----

TimelineBase::TimelineBase(std::shared_ptr<const Trace> trace) : trace_(std::move(trace)) {
  const Trace& t = *trace_;
  roles_.resize(t.functions.size());
  for (std::size_t f = 0; f < t.functions.size(); ++f) {
    const Function& fn = t.functions[f];
    roles_[f] = fn.kind == EventKind::MpiCall ? FnRole::Mpi
                : fn.kind == EventKind::Point ? FnRole::Point
                                              : FnRole::State;
  }
  for (std::uint32_t f : t.regionFunctions)
    if (f < roles_.size()) roles_[f] = FnRole::Marker;
  rows_ = std::uint32_t(t.rankCount() + t.threads.size());
  if (!t.threads.empty()) {
    // Each rank's threads right under it (Trace::threads is ordered by rank); rank -1 last.
    std::size_t th = 0;
    for (std::uint32_t r = 0; r < t.rankCount(); ++r) {
      rowOfSlot_.push_back(r);
      for (; th < t.threads.size() && t.threads[th].rank == std::int32_t(r); ++th)
        rowOfSlot_.push_back(std::uint32_t(t.rankCount() + th));
    }
    for (std::size_t i = 0; i < t.threads.size(); ++i)
      if (t.threads[i].rank < 0 || std::uint32_t(t.threads[i].rank) >= t.rankCount())
        rowOfSlot_.push_back(std::uint32_t(t.rankCount() + i));
    for (std::size_t i = th; i < t.threads.size(); ++i)  // (a thread out of order: never lost)
      if (t.threads[i].rank >= 0 && std::uint32_t(t.threads[i].rank) < t.rankCount() &&
          std::find(rowOfSlot_.begin(), rowOfSlot_.end(), std::uint32_t(t.rankCount() + i)) == rowOfSlot_.end())
        rowOfSlot_.push_back(std::uint32_t(t.rankCount() + i));
    slotOfRow_.assign(rows_, 0);
    for (std::uint32_t s = 0; s < rowOfSlot_.size(); ++s) slotOfRow_[rowOfSlot_[s]] = s;
    for (const ThreadTrace& x : t.threads)
      if (x.events.size()) threadsEnd_ = std::max(threadsEnd_, x.events.leave.maxValue());
  }
  shapes_.resize(rows_);
  // Each row's shape and the functions it uses (ORed below: the legend lists those).
  std::vector<std::vector<bool>> usedBy(rows_);
  forEachRank(rows_, t.eventCount() + t.threadEventCount(), [&](std::uint32_t r) {
    const RankTrace& events = rowEvents(r);
    shapes_[r] = buildShape(events, roles_);
    std::vector<bool>& u = usedBy[r];
    u.assign(t.functions.size(), false);
    for (std::uint32_t f : events.function)
      if (f < u.size()) u[f] = true;
  });
  used_.assign(t.functions.size(), false);
  for (const auto& u : usedBy)
    for (std::size_t f = 0; f < u.size(); ++f)
      if (u[f]) used_[f] = true;
  for (const RankShape& s : shapes_) maxDepth_ = std::max<int>(maxDepth_, s.maxDepth);

  // Arrows: matched sends grouped by (sender, receiver), by send time. Each sender's sends
  // fill their own slice of the table, counted first, and are sorted there: ranks in parallel
  // (one sort of all the sends was a third of the time before the first paint at 10^7 events).
  const std::uint32_t ranks = std::uint32_t(t.rankCount());
  auto matchedSend = [&](const MessageEndpoint& ep) {
    return ep.isSend && ep.matched() && ep.matchRank < ranks && ep.matchIndex < t.ranks[ep.matchRank].messages.size();
  };
  std::vector<std::size_t> from(ranks + 1, 0);
  forEachRank(ranks, t.eventCount(), [&](std::uint32_t r) {
    std::size_t n = 0;
    for (const MessageEndpoint& ep : t.ranks[r].messages) n += matchedSend(ep);
    from[r + 1] = n;
  });
  for (std::uint32_t r = 0; r < ranks; ++r) from[r + 1] += from[r];
  arrowCount_ = from[ranks];
  arrowSources_ = std::make_unique_for_overwrite<ArrowSource[]>(arrowCount_);
  ArrowSource* const all = arrowSources_.get();
  std::vector<std::vector<ChannelRange>> channelsOf(ranks);
  std::vector<std::vector<FarArrow>> farOf(ranks);
  forEachRank(ranks, t.eventCount(), [&](std::uint32_t r) {
    // One sender's sends: by receiver, then by send time (the sort keys beside each source,
    // which keeps neither).
    struct Keyed {
      std::uint32_t dst;
      TimeNs sendTime;
      ArrowEnd send, recv;
      std::uint32_t endpoint;
    };
    std::vector<Keyed> keyed;
    keyed.reserve(from[r + 1] - from[r]);
    const auto& messages = t.ranks[r].messages;
    for (std::uint32_t m = 0; m < messages.size(); ++m) {
      const MessageEndpoint ep = messages[m];
      if (!matchedSend(ep)) continue;
      const ArrowEnd s = arrowEnd(r, ep), d = arrowEnd(ep.matchRank, t.ranks[ep.matchRank].messages[ep.matchIndex]);
      keyed.push_back({ep.matchRank, ep.time, s, d, m});
    }
    std::stable_sort(keyed.begin(), keyed.end(), [](const Keyed& a, const Keyed& b) {
      return a.dst != b.dst ? a.dst < b.dst : a.sendTime < b.sendTime;
    });
    const std::uint32_t first = std::uint32_t(from[r]);
    auto fits = [](TimeNs v) { return v > ArrowSource::kFar && v <= std::numeric_limits<std::int32_t>::max(); };
    for (std::uint32_t i = 0; i < keyed.size(); ++i) {
      const Keyed& k = keyed[i];
      const bool near = fits(k.send.value) && fits(k.recv.value);
      all[first + i] = {near ? std::int32_t(k.send.value) : ArrowSource::kFar,
                        near ? std::int32_t(k.recv.value) : ArrowSource::kFar, k.send.event, k.recv.event, k.endpoint};
      if (!near) farOf[r].push_back({first + i, {k.send.value, k.recv.value}});
      if (i == 0 || keyed[i].dst != keyed[i - 1].dst) channelsOf[r].push_back({r, keyed[i].dst, first + i, first + i});
      channelsOf[r].back().last = first + i + 1;
    }
  });
  for (auto& list : channelsOf) channels_.insert(channels_.end(), list.begin(), list.end());
  for (auto& list : farOf) far_.insert(far_.end(), list.begin(), list.end());  // by index: slices in rank order
  for (ChannelRange& c : channels_) {
    c.monotone = true;
    for (std::uint32_t i = c.first; i < c.last && c.monotone; ++i) {
      const ArrowSource& a = all[i];
      c.monotone = a.sendEvent != kNone32 && a.recvEvent != kNone32 &&
                   (i == c.first || (a.sendEvent >= all[i - 1].sendEvent && a.recvEvent >= all[i - 1].recvEvent));
    }
  }

  stepsOf_.resize(rows_);  // threads have none
  for (std::uint32_t r = 0; r < ranks; ++r)
    stepsOf_[r].reserve(t.steps.size());  // at most: capacity never written is not resident
  for (std::uint32_t k = 0; k < t.steps.size(); ++k)
    for (std::uint32_t r = 0; r < ranks && r < t.steps[k].ranks.size(); ++r)
      if (t.steps[k].ranks[r].present() && t.steps[k].ranks[r].marker < t.ranks[r].size())
        stepsOf_[r].push_back({k, t.steps[k].ranks[r].marker});
}

const std::pair<TimeNs, TimeNs>& TimelineBase::farValues(std::size_t i) const {
  const auto it = std::lower_bound(far_.begin(), far_.end(), std::uint32_t(i),
                                   [](const auto& f, std::uint32_t k) { return f.first < k; });
  return it->second;  // present by construction: a kFar value always has its entry
}

TimelineBase::ArrowEnd TimelineBase::arrowEnd(std::uint32_t rank, const MessageEndpoint& m) const {
  // A send moves with the call that posts it, a receive with the one that completes it.
  std::uint32_t ev = m.isSend ? m.postEvent : m.event;
  if (ev == kNone32) ev = m.isSend ? m.event : m.postEvent;
  if (ev != kNone32 && ev >= trace_->ranks[rank].size()) ev = kNone32;
  if (ev == kNone32) return {kNone32, m.time};
  const TimeNs e = trace_->ranks[rank].enter[ev], x = trace_->ranks[rank].leave[ev];
  return {ev, m.time - e <= x - m.time ? m.time - e : -(x - m.time) - 1};
}

TimeNs TimelineBase::measuredEnd(std::uint32_t rank, const ArrowEnd& e) const {
  if (e.event == kNone32) return e.value;
  const RankTrace& rt = trace_->ranks[rank];
  return e.value >= 0 ? rt.enter[e.event] + e.value : rt.leave[e.event] + e.value + 1;
}

TimeNs TimelineBase::predictedEnd(std::uint32_t rank, const ArrowEnd& e, const PredictedTimes& p) const {
  // A measured instant inside [e, x] maps into the predicted [pe, px] keeping its distance to
  // the nearer end (ArrowEnd::value), clamped to the predicted event.
  if (e.event == kNone32) return e.value;
  const PredictedRank& pr = *p.ranks[rank];
  const TimeNs pe = pr.enter(e.event), px = pr.leave(e.event);
  if (e.value >= 0) return std::min(pe + e.value, std::max(px, pe));
  return std::max(px + e.value + 1, pe);
}

std::size_t TimelineBase::bytes() const {
  std::size_t b = 0;
  for (const RankShape& s : shapes_) b += s.parent.bytes() + s.depth.capacity() + s.points.capacity() * 4;
  for (const auto& s : stepsOf_) b += s.bytes();
  return b + arrowCount_ * sizeof(ArrowSource) + far_.capacity() * sizeof(far_[0]) +
         channels_.capacity() * sizeof(ChannelRange);
}

// ---- drawings ----

std::size_t Drawing::bytes() const {
  std::size_t b = 0;
  for (const auto& l : lod)
    if (l) b += l->bytes();
  for (const auto& c : arrows.channels) {  // arrays another drawing shares are counted in each
    if (!c) continue;
    b += sizeof(ArrowChannel) + c->pieces.capacity() * sizeof(ArrowPiece);
    for (const ArrowPiece& p : c->pieces)
      b += p.arrays->send.capacityBytes() + p.arrays->recv.capacityBytes() + p.arrays->order.capacity() * 4;
  }
  b += steps.capacity() * sizeof(RankSteps);
  for (const auto& c : bandColumns) b += c.capacity();
  return b;
}

bool isProvisional(const Drawing& d) {
  return std::any_of(d.pieces.begin(), d.pieces.end(), [](const auto& p) { return p != nullptr; });
}

std::pair<int, int> queryDrawingLane(const Drawing& d, std::uint32_t r, const RankShape& shape, const std::vector<FnRole>& roles,
                                     const LaneQuery& q, ColumnMark* marks, std::vector<std::uint32_t>& boxes) {
  const std::vector<LodPiece>* pieces = r < d.pieces.size() ? d.pieces[r].get() : nullptr;
  if (!pieces || d.grid.levelFor(q.nsPerPx) < 0)  // exact tables, or a frame that reads the times
    return queryLane(d.grid, *d.lod[r], d.times[r], shape, roles, q, marks, boxes);
  // Each piece's tables in its own time, moved by its shift; the boxes it names are drawn with
  // this drawing's times.
  int m0 = q.columns, m1 = 0;
  for (const LodPiece& p : *pieces) {
    const RankTimes& now = d.times[r];
    const RankTimes pt{now.enter.shifted(-p.shift), now.leave.shifted(-p.shift), now.function, now.size};
    LaneQuery pq = q;
    pq.begin = q.begin - p.shift;
    pq.end = q.end - p.shift;
    pq.clipBegin = p.clipBegin;
    pq.firstEvent = p.firstEvent;
    pq.endEvent = p.endEvent;
    const auto [a, b] = queryLane(d.grid, *p.lod, pt, shape, roles, pq, marks, boxes);
    m0 = std::min(m0, a);
    m1 = std::max(m1, b);
  }
  return {m0, m1};
}

namespace {

// A moved rank of a drawing built with a shift: LOD tables of its own for the events before
// the cut, and `previous`'s pieces (`before`) or exact tables moved by the shift for the rest.
// Returns the first piece's tables (with the whole rank's active span) and the pieces.
std::pair<std::shared_ptr<const RankLod>, std::shared_ptr<const std::vector<LodPiece>>> shiftedRank(
    const TimelineBase& base, const LodGrid& grid, std::uint32_t r, const RankTimes& times,
    const Drawing& previous, const std::vector<LodPiece>* before, const DrawingShift& shift) {
  const std::uint32_t e0 = std::min(shift.firstEvent[r], times.size);
  RankTimes head = times;
  head.size = e0;
  RankLod own = buildLod(grid, head, base.shape(r), base.roles(), true);
  auto list = std::make_shared<std::vector<LodPiece>>();
  list->push_back({nullptr, 0, 0, e0, std::numeric_limits<TimeNs>::min()});
  auto moveOn = [&](const LodPiece& p) {
    if (p.endEvent <= e0) return;
    const std::uint32_t first = std::max(p.firstEvent, e0);
    const TimeNs moved = p.shift + shift.delta;  // the earlier time of an event is its time now minus this
    list->push_back({p.lod, moved, first, p.endEvent, std::max(p.clipBegin, times.enter[first] - moved)});
  };
  if (before) {
    for (const LodPiece& p : *before) moveOn(p);
  } else {
    moveOn({previous.lod[r], 0, 0, times.size, std::numeric_limits<TimeNs>::min()});
  }
  // The rank's active span: the head's start (or the first moved piece's), the last piece's end.
  const bool headDrawn = own.lastLeave > own.firstEnter || own.firstEnter != 0;
  for (std::size_t i = 1; i < list->size(); ++i) {
    const LodPiece& p = (*list)[i];
    if (!headDrawn && i == 1) own.firstEnter = p.lod->firstEnter + p.shift;
    own.lastLeave = std::max(own.lastLeave, p.lod->lastLeave + p.shift);
  }
  auto lod = std::make_shared<const RankLod>(std::move(own));
  list->front().lod = lod;
  return {std::move(lod), std::move(list)};
}

// The arrows [lo, hi) of channel `cr` (indices along the channel) with the times of
// `prediction` (the measured ones without), by send time. Written in place: no temporary per
// message (a shift moves every rank, and fresh memory costs a page fault per 4 KiB).
// `recycle` (if set and not empty): arrays written over instead of fresh ones.
std::shared_ptr<const ArrowArrays> channelArrays(const TimelineBase& base, const TimelineBase::ChannelRange& cr,
                                                 std::uint32_t lo, std::uint32_t hi, const PredictedTimes* prediction,
                                                 ArrowArrays* recycle = nullptr) {
  const std::uint32_t n = hi - lo;
  auto a =
      recycle ? std::make_shared<ArrowArrays>(std::exchange(*recycle, ArrowArrays{})) : std::make_shared<ArrowArrays>();
  a->order.clear();
  a->lag = a->lead = 0;
  a->first = cr.first + lo;
  // The times in plain arrays of this thread first, then encoded into the columns (which keep
  // a recycled column's capacity) block by block.
  thread_local std::vector<TimeNs> send, recv, tmp;
  send.resize(n);
  recv.resize(n);
  bool sorted = true;
  for (std::uint32_t i = 0; i < n; ++i) {
    const TimelineBase::ArrowEnd ms = base.arrowSend(a->first + i), mr = base.arrowRecv(a->first + i);
    const TimeNs s = prediction ? base.predictedEnd(cr.src, ms, *prediction) : base.measuredEnd(cr.src, ms);
    const TimeNs r = prediction ? base.predictedEnd(cr.dst, mr, *prediction) : base.measuredEnd(cr.dst, mr);
    send[i] = s;
    recv[i] = r;
    a->lag = std::max(a->lag, r - s);
    a->lead = std::max(a->lead, s - r);
    sorted = sorted && (i == 0 || send[i - 1] <= s);
  }
  // Predicted: by predicted send time (almost always still the measured order).
  if (!sorted) {
    a->order.resize(n);
    std::iota(a->order.begin(), a->order.end(), 0u);
    std::stable_sort(a->order.begin(), a->order.end(),
                     [&](std::uint32_t x, std::uint32_t y) { return send[x] < send[y]; });
    tmp.resize(n);
    for (std::uint32_t i = 0; i < n; ++i) tmp[i] = send[a->order[i]];
    send.swap(tmp);
    for (std::uint32_t i = 0; i < n; ++i) tmp[i] = recv[a->order[i]];
    recv.swap(tmp);
  }
  a->send.assignArray(send.data(), n);
  a->recv.assignArray(recv.data(), n);
  if (n > (std::size_t{1} << 20)) {  // a channel of 10^6 arrows: give the scratch back
    std::vector<TimeNs>().swap(send);
    std::vector<TimeNs>().swap(recv);
    std::vector<TimeNs>().swap(tmp);
  }
  return a;
}

// A channel whose two ranks a shift moved (every event from firstEvent[r] on is the previous
// prediction's plus delta): its arrows before the first one with both ends past the cuts are
// computed, the rest are `before`'s pieces moved by delta. Exact: along a monotone channel the
// moved arrows are a suffix, and they keep their order. False (nothing written) where it would
// not be: the computed head out of send order or after the moved part, pieces of `before` not
// in the base's order, too many pieces.
bool shiftedChannel(const TimelineBase& base, const TimelineBase::ChannelRange& cr, const ArrowChannel& before,
                    const DrawingShift& shift, const PredictedTimes& prediction, ArrowChannel& out) {
  const auto& sources = base.arrowSources();
  const std::uint32_t n = cr.last - cr.first;
  const std::uint32_t fs = shift.firstEvent[cr.src], fd = shift.firstEvent[cr.dst];
  std::uint32_t lo = 0, hi = n;  // the first arrow whose two ends moved
  while (lo < hi) {
    const std::uint32_t mid = lo + (hi - lo) / 2;
    const TimelineBase::ArrowSource& m = sources[cr.first + mid];
    if (m.sendEvent >= fs && m.recvEvent >= fd)
      hi = mid;
    else
      lo = mid + 1;
  }
  const std::uint32_t k = lo;
  std::vector<ArrowPiece> pieces;
  if (k > 0) {
    auto head = channelArrays(base, cr, 0, k, &prediction);
    if (!head->order.empty()) return false;
    pieces.push_back({std::move(head), 0, 0, k});
  }
  for (const ArrowPiece& p : before.pieces) {  // indices along the channel: arrays->first - cr.first + i
    if (!p.arrays->order.empty()) return false;
    const std::uint32_t off = p.arrays->first - cr.first;
    if (off + p.hi <= k) continue;
    pieces.push_back({p.arrays, p.shift + shift.delta, std::max(p.lo, k > off ? k - off : 0u), p.hi});
  }
  if (pieces.size() > kMaxDrawingPieces) return false;
  if (k > 0 && pieces.size() > 1 && pieces[0].send(pieces[0].hi - 1) > pieces[1].send(pieces[1].lo)) return false;
  out.lag = out.lead = 0;
  for (const ArrowPiece& p : pieces) {
    out.lag = std::max(out.lag, p.arrays->lag);
    out.lead = std::max(out.lead, p.arrays->lead);
  }
  out.pieces = std::move(pieces);
  return true;
}

}  // namespace

// ---- spares ----

DrawingSpares::DrawingSpares() : d_(std::make_unique<Impl>()) {}
DrawingSpares::~DrawingSpares() = default;

void DrawingSpares::clear() { *d_ = Impl{}; }

void DrawingSpares::Impl::fit(const Drawing& d) {
  if (lod.size() < d.lod.size()) lod.resize(d.lod.size());
  if (arrows.size() < d.arrows.channels.size()) arrows.resize(d.arrows.channels.size());
}

// Ranks only: threads are drawn as measured, their tables shared by every drawing and never
// rebuilt into a spare.
std::size_t DrawingSpares::Impl::ranksOf(const Drawing& d) {
  return d.base ? std::min<std::size_t>(d.base->rankCount(), d.lod.size()) : d.lod.size();
}

std::size_t DrawingSpares::bytes() const {
  std::size_t b = 0;
  for (const RankLod& l : d_->lod) b += l.bytes();
  for (const ArrowArrays& a : d_->arrows) b += a.send.capacityBytes() + a.recv.capacityBytes();
  return b;
}

bool DrawingSpares::fill(const Drawing& like, const std::function<bool()>& stop) {
  Impl& s = *d_;
  s.fit(like);
  // Value-initialised, then cleared where only the capacity counts: every page is touched.
  for (std::uint32_t r = 0; r < Impl::ranksOf(like); ++r) {
    if (!like.lod[r] || like.lod[r]->levels.empty() || s.lodOf(r)) continue;
    if (stop && stop()) return false;
    const RankLod& l = *like.lod[r];
    RankLod x;
    x.levels.resize(l.levels.size());
    for (std::size_t k = 0; k < l.levels.size(); ++k) x.levels[k].resize(l.levels[k].size());
    x.classes.resize(l.classes.size());
    for (std::size_t k = 0; k < l.classes.size(); ++k) {
      x.classes[k].resize(l.classes[k].size());
      x.classes[k].clear();
    }
    s.lod[r] = std::move(x);
  }
  std::size_t sinceAsked = 0;  // arrows filled since `stop` was asked
  for (std::uint32_t c = 0; c < like.arrows.channels.size(); ++c) {
    if (!like.arrows.channels[c] || s.arrowsOf(c)) continue;
    std::size_t n = 0;
    for (const ArrowPiece& p : like.arrows.channels[c]->pieces) n += p.hi - p.lo;
    if (n == 0) continue;
    // Asked every 64 Ki arrows (2 MiB touched, a few ms here) or 64 channels: at 10^8 events a
    // channel can hold 10^5 arrows, and a key pressed meanwhile waits for the fill to stop.
    if (stop && (sinceAsked + n > (std::size_t{1} << 16) || (c & 63) == 0)) {
      if (stop()) return false;
      sinceAsked = 0;
    }
    sinceAsked += n;
    s.arrows[c].send.reserveTouched(n);
    s.arrows[c].recv.reserveTouched(n);
  }
  return true;
}

void DrawingSpares::harvest(std::shared_ptr<const Drawing>& old) {
  if (!old || old.use_count() != 1) return;
  // Nobody else reads it (use_count() is a relaxed load: the fence orders our writes after
  // the other threads' last reads, which their release of it published).
  std::atomic_thread_fence(std::memory_order_acquire);
  Impl& s = *d_;
  Drawing& d = const_cast<Drawing&>(*old);
  s.fit(d);
  for (std::uint32_t r = 0; r < Impl::ranksOf(d); ++r)
    if (d.lod[r] && d.lod[r].use_count() == 1 && !s.lodOf(r) && (d.pieces.empty() || !d.pieces[r])) {
      std::atomic_thread_fence(std::memory_order_acquire);
      s.lod[r] = std::move(const_cast<RankLod&>(*d.lod[r]));
    }
  for (std::uint32_t c = 0; c < d.arrows.channels.size(); ++c) {
    const auto& ch = d.arrows.channels[c];
    if (!ch || ch.use_count() != 1 || ch->pieces.size() != 1 || s.arrowsOf(c)) continue;
    const auto& arrays = ch->pieces[0].arrays;
    if (arrays.use_count() != 1) continue;
    std::atomic_thread_fence(std::memory_order_acquire);
    s.arrows[c] = std::move(const_cast<ArrowArrays&>(*arrays));
  }
  old.reset();
}

namespace {
// Whether a prediction has the trace's ranks and event indices (a drawing of it is possible).
bool sameEvents(const PredictedTimes& p, const Trace& t) {
  if (p.ranks.size() != t.rankCount()) return false;
  for (std::uint32_t r = 0; r < t.rankCount(); ++r)
    if (!p.ranks[r] || p.ranks[r]->events() != t.ranks[r].size()) return false;
  return true;
}

// A prediction's times of one rank as a drawing reads them.
TimeView predictedView(const PredictedRank& p, bool enter) {
  const TimeColumn& own = enter ? p.ownEnter : p.ownLeave;
  if (!p.tail) return TimeView(own);
  return TimeView(own, own.size(), enter ? p.tail->ownEnter : p.tail->ownLeave, p.tailShift);
}
// A drawing's times (a rank's the prediction's, a thread's the measured ones), its end and its
// grid.
void placeTimes(Drawing& d, const TimelineBase& base, const PredictedTimes* prediction) {
  // Rows: the ranks, then the threads, whose times are the measured ones in every drawing.
  const std::uint32_t rows = base.rowCount();
  const Trace& t = base.trace();
  const bool predicted = prediction != nullptr;
  const std::uint32_t ranks = std::uint32_t(t.rankCount());
  d.times.resize(rows);
  std::uint64_t maxEvents = 0;
  d.end = 0;
  for (std::uint32_t r = 0; r < rows; ++r) {
    const RankTrace& rt = base.rowEvents(r);
    RankTimes& rtimes = d.times[r];
    const bool moved = predicted && r < ranks;
    rtimes.enter = moved ? predictedView(*prediction->ranks[r], true) : TimeView(rt.enter);
    rtimes.leave = moved ? predictedView(*prediction->ranks[r], false) : TimeView(rt.leave);
    rtimes.function = rt.function.data();
    rtimes.size = std::uint32_t(rt.size());
    maxEvents = std::max<std::uint64_t>(maxEvents, rt.size());
  }
  // A prediction carries its latest leave (PredictedTimes::end); the measured trace its
  // endTime and the leaves (ranks in parallel).
  if (!predicted) {
    std::vector<TimeNs> lastLeave(ranks, 0);
    forEachRank(ranks, t.eventCount(), [&](std::uint32_t r) {
      const RankTimes& rtimes = d.times[r];
      TimeNs m = 0;
      for (std::uint32_t i = 0; i < rtimes.size; ++i) m = std::max(m, rtimes.leave[i]);
      lastLeave[r] = m;
    });
    for (TimeNs m : lastLeave) d.end = std::max(d.end, m);
  }
  d.end = std::max(d.end, predicted ? std::max(prediction->end, base.threadsEnd()) : t.endTime);
  d.grid = makeGrid(d.end + 1, maxEvents, rows);
}

}  // namespace

std::shared_ptr<const Drawing> buildDrawing(std::shared_ptr<const TimelineBase> basePtr,
                                            std::shared_ptr<const PredictedTimes> prediction, const Drawing* reuse,
                                            const DrawingShift* shift, const std::function<bool()>& stop,
                                            DrawingSpares* spares, const ColumnView* columns) {
  struct Stopped {};
  if (!basePtr) return nullptr;
  const TimelineBase& base = *basePtr;
  const Trace& t = base.trace();
  const bool predicted = prediction != nullptr;
  const std::uint32_t ranks = std::uint32_t(t.rankCount());
  if (predicted && !sameEvents(*prediction, t)) return nullptr;
  auto out = std::make_shared<Drawing>();
  Drawing& d = *out;
  d.base = std::move(basePtr);
  d.source = prediction;
  d.predicted = predicted;
  const std::uint32_t rows = base.rowCount();
  placeTimes(d, base, prediction.get());
  d.lod.resize(rows);
  d.steps.resize(rows);
  const bool sameBase = reuse && predicted && reuse->source && reuse->base == d.base && reuse->lod.size() == rows;
  const bool sameGrid = sameBase && reuse->grid.w0 == d.grid.w0 && reuse->grid.levels == d.grid.levels;
  // The exact drawing of a provisional one's own times (its refinement): only the ranks drawn
  // from pieces are built; every other rank and every channel (a shifted channel is exact,
  // shiftedChannel) is the provisional drawing's.
  const bool refining = sameGrid && reuse->source == prediction && !shift;
  auto piecesOf = [&](std::uint32_t r) -> const std::vector<LodPiece>* {
    return reuse && r < reuse->pieces.size() ? reuse->pieces[r].get() : nullptr;
  };
  // A rank did not move when the prediction shares its arrays with the previous one (a
  // thread never moves).
  auto kept = [&](std::uint32_t r) {
    if (refining) return piecesOf(r) == nullptr;
    return sameBase && (r >= ranks || reuse->source->ranks[r] == prediction->ranks[r]);
  };
  const bool shifted = sameGrid && shift && shift->tables && shift->firstEvent.size() == ranks;
  if (shifted || (sameGrid && !refining && !reuse->pieces.empty())) d.pieces.resize(rows);
  if (columns && columns->columns > 0) {
    d.bandView = *columns;
    d.bandColumns.resize(rows);
  }
  const bool sameBands = sameBase && !d.bandColumns.empty() && reuse->bandView.sameColumns(d.bandView) &&
                         reuse->bandColumns.size() == rows;
  auto shown = [&](std::uint32_t r) {  // the row's slot is one the view draws
    const std::uint32_t slot = r < base.slotOfRow().size() ? base.slotOfRow()[r] : r;
    return slot >= d.bandView.firstSlot && slot < d.bandView.endSlot;
  };
  try {
    forEachRank(rows, t.eventCount() + t.threadEventCount(), [&](std::uint32_t r) {
      if (stop && stop()) throw Stopped{};
      const std::vector<LodPiece>* before = sameGrid ? piecesOf(r) : nullptr;
      if (sameGrid && kept(r)) {
        d.lod[r] = reuse->lod[r];  // same arrays, same tables
        if (before) d.pieces[r] = reuse->pieces[r];
      } else if (shifted && r < ranks && (before ? before->size() : 1) < kMaxDrawingPieces) {
        std::tie(d.lod[r], d.pieces[r]) = shiftedRank(base, d.grid, r, d.times[r], *reuse, before, *shift);
      } else {
        RankLod* recycle = spares && r < ranks ? spares->impl().lodOf(r) : nullptr;
        d.lod[r] =
            std::make_shared<const RankLod>(buildLod(d.grid, d.times[r], base.shape(r), base.roles(), false, recycle));
      }
      // A rank that did not move, and any rank of a refinement: the previous drawing's steps
      // (the same times, samples kept); a shifted rank: its samples past the cut moved.
      if (sameBase && (refining || kept(r)))
        d.steps[r] = reuse->steps[r];
      else if (shift && sameBase && r < ranks && shift->firstEvent.size() == ranks)
        d.steps[r] = RankSteps(base.stepsOf(r), d.times[r], reuse->steps[r], shift->firstEvent[r], shift->delta);
      else
        d.steps[r] = RankSteps(base.stepsOf(r), d.times[r]);
      // The band in the view's columns: the previous drawing's where the rank's times are the
      // same, else found now, while this thread has just read (or written) them.
      if (!d.bandColumns.empty()) {
        if (sameBands && (refining || kept(r)) && !reuse->bandColumns[r].empty())
          d.bandColumns[r] = reuse->bandColumns[r];
        else if (shown(r))
          stepBandClasses(d.steps[r], d.bandView, d.bandColumns[r]);
      }
    });

    // Arrows: the base's channels with this drawing's times; a channel whose two ranks did not
    // move is the previous drawing's.
    const auto& sources = base.arrowSources();
    const auto& channels = base.channels();
    const bool sameChannels = sameBase && reuse->arrows.channels.size() == channels.size();
    // With a shift, a channel whose two ranks moved takes the previous drawing's arrows past the
    // cut, moved (shiftedChannel), where that is exact.
    const bool arrowShift = sameChannels && shift && shift->firstEvent.size() == ranks;
    d.arrows.channels.resize(channels.size());
    forEachRank(std::uint32_t(channels.size()), sources.size(), [&](std::uint32_t c) {
      if (stop && (c & 63) == 0 && stop()) throw Stopped{};
      const TimelineBase::ChannelRange& cr = channels[c];
      if (sameChannels && (refining || (kept(cr.src) && kept(cr.dst)))) {
        d.arrows.channels[c] = reuse->arrows.channels[c];
        return;
      }
      auto ch = std::make_shared<ArrowChannel>();
      ch->src = cr.src;
      ch->dst = cr.dst;
      if (!(arrowShift && cr.monotone && !kept(cr.src) && !kept(cr.dst) &&
            shiftedChannel(base, cr, *reuse->arrows.channels[c], *shift, *prediction, *ch))) {
        ArrowArrays* recycle = spares && predicted ? spares->impl().arrowsOf(c) : nullptr;
        ch->pieces.assign(
            1, {channelArrays(base, cr, 0, cr.last - cr.first, prediction.get(), recycle), 0, 0, cr.last - cr.first});
        ch->lag = ch->pieces[0].arrays->lag;
        ch->lead = ch->pieces[0].arrays->lead;
      }
      d.arrows.channels[c] = std::move(ch);
    });
  } catch (const Stopped&) {
    return nullptr;
  }
  d.valid = true;
  return out;
}

// ---- TimelineData ----

int TimelineData::widestRankName(const QFont& font) const {
  if (nameWidthVersion_ != traceVersion_ || nameWidthFont_ != font.key()) {
    const QFontMetrics fm(font);
    nameWidth_ = 0;
    if (const Trace* t = trace()) {
      for (const RankTrace& r : t->ranks) nameWidth_ = std::max(nameWidth_, fm.horizontalAdvance(QString::fromStdString(r.name)));
      for (const ThreadTrace& th : t->threads)  // indented under their rank
        nameWidth_ = std::max(nameWidth_, fm.horizontalAdvance(QStringLiteral("  ") + QString::fromStdString(th.events.name)));
    }
    nameWidthVersion_ = traceVersion_;
    nameWidthFont_ = font.key();
  }
  return nameWidth_;
}

PreparedTimeline prepareTimeline(std::shared_ptr<const Trace> trace) {
  PreparedTimeline p;
  if (!trace) return p;
  p.base = std::make_shared<const TimelineBase>(std::move(trace));
  p.measured = buildDrawing(p.base, nullptr);
  return p;
}

void TimelineData::setTrace(std::shared_ptr<const Trace> trace, PreparedTimeline prepared) {
  ++version_;
  ++traceVersion_;
  ++measuredVersion_;
  base_.reset();
  prediction_.reset();
  predicted_.reset();
  waits_.reset();
  marked_.reset();
  markedLabel_.clear();
  colors_.clear();
  measured_ = std::make_shared<const Drawing>();
  if (!trace) return;
  if (!prepared.base || !prepared.measured || prepared.base->tracePtr() != trace || prepared.measured->base != prepared.base)
    prepared = prepareTimeline(trace);
  base_ = std::move(prepared.base);
  measured_ = std::move(prepared.measured);
  const Trace& t = *trace;
  colors_ = functionColors(t);
}

void TimelineData::setPrediction(std::shared_ptr<const PredictedTimes> times, std::shared_ptr<const Drawing> drawing) {
  ++version_;
  const std::shared_ptr<const Drawing> previous = std::move(predicted_);
  prediction_.reset();
  predicted_.reset();
  if (!base_ || !times) return;
  // buildDrawing checks that the times have the trace's event indices (no drawing otherwise);
  // a drawing made elsewhere for these times over this base passed that check already.
  if (drawing && drawing->valid && drawing->base == base_ && drawing->source == times)
    predicted_ = std::move(drawing);
  else
    predicted_ = buildDrawing(base_, times, previous.get());
  if (predicted_) prediction_ = std::move(times);
}

std::optional<TimeNs> TimelineData::measuredWait(std::uint32_t rank, std::uint32_t call) const {
  if (!waits_ || rank >= waits_->size() || call >= (*waits_)[rank].size()) return std::nullopt;
  return (*waits_)[rank][call];
}

std::optional<TimeNs> TimelineData::predictedWait(std::uint32_t rank, std::uint32_t call) const {
  if (!prediction_ || rank >= prediction_->ranks.size() || call >= prediction_->ranks[rank]->calls())
    return std::nullopt;
  return prediction_->ranks[rank]->wait(call);
}

TimeNs TimelineData::end() const {
  TimeNs e = measured_->end;
  if (predicted_) e = std::max(e, predicted_->end);
  return e;
}

bool TimelineData::drawnEvent(std::uint32_t rank, std::uint32_t event) const {
  if (!base_ || rank >= rowCount() || event >= base_->rowEvents(rank).size()) return false;
  return role(base_->rowEvents(rank).function[event]) != FnRole::Marker;
}

std::uint32_t TimelineData::mpiIndexOf(std::uint32_t rank, std::uint32_t event) const {
  const Trace* t = trace();
  if (!t || rank >= t->rankCount()) return kNone32;
  const auto& calls = t->ranks[rank].mpiCalls;
  const auto it = std::lower_bound(calls.begin(), calls.end(), event);
  return it != calls.end() && *it == event ? std::uint32_t(it - calls.begin()) : kNone32;
}

TimeNs TimelineData::endpointTime(bool predicted, std::uint32_t rank, const MessageEndpoint& m) const {
  if (!predicted || !prediction_) return m.time;
  return base_->predictedEnd(rank, base_->arrowEnd(rank, m), *prediction_);
}

bool TimelineData::stepSpan(bool predicted, std::uint32_t step, std::uint32_t rank, TimeNs& b,
                            TimeNs& e) const {
  const RankSteps& s = drawing(predicted).steps.at(rank);
  const std::size_t i = s.find(step);
  if (i == s.size()) return false;
  b = s.begin(i);
  e = s.end(i);
  return true;
}

std::size_t TimelineData::bytes() const {
  std::size_t b = base_ ? base_->bytes() : 0;
  b += measured_->bytes();
  if (predicted_) b += predicted_->bytes();
  return b;
}

MessageEnds messageEnds(const Trace& trace, const TimelineItem& item) {
  MessageEnds out;
  if (item.kind != TimelineItem::Kind::Message || item.rank >= trace.rankCount()) return out;
  const auto& ms = trace.ranks[item.rank].messages;
  if (item.event >= ms.size()) return out;
  const MessageEndpoint m = ms[item.event];
  if (!m.isSend) return out;
  out.send = m;
  if (m.matched() && m.matchRank < trace.rankCount() && m.matchIndex < trace.ranks[m.matchRank].messages.size()) {
    out.recv = trace.ranks[m.matchRank].messages[m.matchIndex];
    out.recvRank = m.matchRank;
  }
  return out;
}

}  // namespace perwiz::ui
