#include "timeline_lod.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>

namespace perwiz::ui {

namespace {

bool drawn(FnRole r) { return r == FnRole::Mpi || r == FnRole::State; }

struct Open {
  std::uint32_t event;
  TimeNs leave;  // clamped to the enclosing event's
};

// The open events of a sweep: a stack whose push stays inline (a std::vector's emplace_back
// was an out-of-line call per event, a tenth of a LOD build).
class OpenStack {
 public:
  OpenStack() : v_(64) {}
  bool empty() const { return n_ == 0; }
  Open& back() { return v_[n_ - 1]; }
  void pop_back() { --n_; }
  void push_back(const Open& o) {
    if (n_ == v_.size()) [[unlikely]]
      v_.resize(2 * n_);
    v_[n_++] = o;
  }

 private:
  std::vector<Open> v_;
  std::size_t n_ = 0;
};

// Walks the drawn events [from, times.size) in enter order with `stack` holding the events
// open before `from` (outermost first). seg(owner, t0, t1) gets every stretch of [clipBegin,
// clipEnd) owned by the deepest open event; ev(i, enter, leave) every event entered before
// clipEnd, with its own times (read once here).
template <class Seg, class Ev>
void sweep(const RankTimes& t, const std::vector<FnRole>& roles, std::uint32_t from,
           OpenStack& stack, TimeNs clipBegin, TimeNs clipEnd, Seg&& seg, Ev&& ev) {
  TimeNs cur = clipBegin;
  auto emit = [&](std::uint32_t owner, TimeNs a, TimeNs b) {
    a = std::max(a, clipBegin);
    b = std::min(b, clipEnd);
    if (b > a) seg(owner, a, b);
  };
  // The times decoded a chunk at a time (compact columns decode a block faster than value by
  // value: the sweep is most of a drawing).
  constexpr std::uint32_t kChunk = 256;
  TimeNs enters[kChunk], leaves[kChunk];
  std::uint32_t chunk = from, chunkEnd = from;
  for (std::uint32_t i = from; i < t.size; ++i) {
    if (i >= chunkEnd) {
      chunk = i;
      chunkEnd = std::min(t.size, i + kChunk);
      t.enter.decode(i, chunkEnd - i, enters);
      t.leave.decode(i, chunkEnd - i, leaves);
    }
    if (!drawn(roles[t.function[i]])) continue;
    const TimeNs e = enters[i - chunk];
    if (e >= clipEnd) break;
    while (!stack.empty() && stack.back().leave <= e) {
      emit(stack.back().event, cur, stack.back().leave);
      cur = std::max(cur, stack.back().leave);
      stack.pop_back();
    }
    if (!stack.empty()) emit(stack.back().event, cur, e);
    cur = std::max(cur, e);
    const TimeNs x = leaves[i - chunk];
    const TimeNs l = stack.empty() ? x : std::min(x, stack.back().leave);
    stack.push_back({i, std::max(l, e)});
    ev(i, e, x);
  }
  while (!stack.empty()) {
    emit(stack.back().event, cur, stack.back().leave);
    cur = std::max(cur, stack.back().leave);
    stack.pop_back();
  }
}

struct Acc {
  double busy = 0;
  double top = 0;
  std::uint32_t fn = LodBucket::kEmpty;
  std::uint8_t depth = 63;
  bool point = false;
  void add(std::uint32_t f, double b, double tp, std::uint8_t d) {
    busy += b;
    if (f == fn) top += tp;
    else if (tp > top) { fn = f; top = tp; }
    depth = std::min(depth, d);
  }
  void merge(const Acc& o) {
    if (o.fn != LodBucket::kEmpty) add(o.fn, o.busy, o.top, o.depth);
    else busy += o.busy;
    point = point || o.point;
  }
};

// v of a bucket as 1/65535 of its width; scale = 65535 / width.
std::uint16_t frac16(double v, double scale) { return std::uint16_t(std::clamp(v * scale + 0.5, 0.0, 65535.0)); }

}  // namespace

RankShape buildShape(const RankTrace& rank, const std::vector<FnRole>& roles) {
  RankShape s;
  const std::size_t n = rank.size();
  s.parent.reserve(n);
  s.depth.assign(n, 0);
  std::vector<std::uint32_t> lastAtDepth;  // raw nesting: last event entered at each depth
  for (std::uint32_t i = 0; i < n; ++i) {
    const std::uint8_t d = rank.depth[i];
    if (lastAtDepth.size() <= d) lastAtDepth.resize(d + 1u, kNone32);
    std::uint32_t p = d > 0 ? lastAtDepth[d - 1] : kNone32;
    // Skip region markers and points: the drawn parent is the nearest drawn ancestor.
    while (p != kNone32 && !drawn(roles[rank.function[p]])) p = s.parent[p];
    s.parent.push_back(p);
    const FnRole role = roles[rank.function[i]];
    s.depth[i] = p == kNone32 ? 0 : std::uint8_t(std::min(s.depth[p] + 1, 62));
    if (drawn(role)) s.maxDepth = std::max(s.maxDepth, s.depth[i]);
    if (role == FnRole::Point) s.points.push_back(i);
    lastAtDepth[d] = i;
  }
  return s;
}

int LodGrid::classOf(TimeNs d) const {
  // w0 is a power of two (makeGrid): a shift, not a 64-bit division, per event.
  const TimeNs q = (w0 & (w0 - 1)) == 0 ? (d >> (std::countr_zero(std::uint64_t(w0)) + 2)) : d / (4 * w0);
  if (q <= 0) return 0;
  return std::min(int(std::bit_width(std::uint64_t(q))), levels);
}

int LodGrid::levelFor(double nsPerPx) const {
  // Level 0 serves down to half a bucket per pixel (its buckets then split over two columns):
  // only deeper frames sweep the events themselves.
  if (nsPerPx * 2 < double(w0)) return -1;
  if (nsPerPx < double(w0)) return 0;
  const double q = nsPerPx / double(w0);
  const int l = int(std::bit_width(std::uint64_t(std::min(q, 9.0e18)))) - 1;
  return std::min(l, levels - 1);
}

LodGrid makeGrid(TimeNs duration, std::uint64_t maxEventsPerRank, std::size_t ranks) {
  // About two events per level-0 bucket: finer buckets cost more to build than they save (a
  // frame finer than level 0 sweeps the events in view, fewer than about one per pixel column).
  std::uint64_t n0 = std::bit_ceil(std::max<std::uint64_t>(256, maxEventsPerRank / 2));
  // At most 2^22 level-0 buckets over all ranks (8 B each, 64 MB per drawing with the levels
  // above): a frame zoomed to a few thousand buckets per rank still reads buckets, not events.
  while (n0 > 256 && n0 * std::max<std::size_t>(ranks, 1) > (std::uint64_t(1) << 22)) n0 /= 2;
  LodGrid g;
  const std::uint64_t need = (std::uint64_t(std::max<TimeNs>(duration, 1)) + n0 - 1) / n0;
  g.w0 = TimeNs(std::bit_ceil(std::max<std::uint64_t>(need, 1)));
  g.levels = int(std::bit_width(n0));  // n0 = 2^(levels-1): the top level is one bucket
  return g;
}

std::size_t RankLod::bytes() const {
  std::size_t b = 0;
  for (const auto& l : levels) b += l.capacity() * sizeof(LodBucket);
  for (const auto& c : classes) b += c.capacity() * sizeof(std::uint32_t);
  return b;
}

namespace {

// The class lists, the classes' longest durations and the span of the drawn events, gathered
// event by event during the sweep of buildLod (one pass over the times, not two: a LOD build
// reads little else, and the times of 10^8 events are 1.6 GB).
class Classes {
 public:
  Classes(const LodGrid& grid, RankLod& lod) : grid_(grid), lod_(lod) {
    lod.classes.resize(grid.levels + 1);
    for (auto& c : lod.classes) c.clear();  // (a recycled table's: its capacity kept)
    lod.classMaxDuration.assign(grid.levels + 1, 0);
    lod.firstEnter = std::numeric_limits<TimeNs>::max();
    lod.lastLeave = std::numeric_limits<TimeNs>::min();
  }
  // Drawn event i, entered at e and left at x: its class.
  int add(std::uint32_t i, TimeNs e, TimeNs x) {
    const TimeNs d = std::max<TimeNs>(x - e, 0);
    const int k = grid_.classOf(d);
    // Class 0 (narrow at level 0: almost every event) is never drawn from its list: a frame at
    // level L draws the classes above L as boxes, and a frame below level 0 sweeps the events.
    if (k != 0) lod_.classes[k].push_back(i);
    lod_.classMaxDuration[k] = std::max(lod_.classMaxDuration[k], d);
    lod_.firstEnter = std::min(lod_.firstEnter, e);
    lod_.lastLeave = std::max(lod_.lastLeave, x);
    return k;
  }
  // The lists by enter (they were filled in event order).
  void finish(const RankTimes& t) {
    if (lod_.firstEnter > lod_.lastLeave) lod_.firstEnter = lod_.lastLeave = 0;
    for (auto& c : lod_.classes) {
      auto byEnter = [&](std::uint32_t a, std::uint32_t b) { return t.enter[a] < t.enter[b]; };
      if (!std::is_sorted(c.begin(), c.end(), byEnter)) std::stable_sort(c.begin(), c.end(), byEnter);
    }
  }

 private:
  const LodGrid& grid_;
  RankLod& lod_;
};

// Level l of the pyramid (`size` buckets) from the accumulators of that level.
void emitLevel(const LodGrid& grid, const Acc* cur, int l, std::size_t size, RankLod& lod) {
  const double scale = 65535.0 / double(grid.bucketWidth(l));  // a product per value, not a quotient
  auto& out = lod.levels[l];
  out.resize(size);
  for (std::size_t b = 0; b < size; ++b) {
    const Acc& a = cur[b];
    LodBucket& o = out[b];
    o.packed = (a.fn & LodBucket::kFnMask) | (std::uint32_t(std::min<int>(a.depth, 63)) << 22) |
               (a.point ? LodBucket::kPointBit : 0u);
    if (a.busy == 0 && a.top == 0) {  // an empty bucket (most, zoomed out on sparse ranks)
      o.busy = o.top = 0;
      continue;
    }
    o.busy = frac16(a.busy, scale);
    o.top = frac16(a.top, scale);
    if (a.busy > 0 && o.busy == 0) o.busy = 1;  // keep the mark of a very short call
    if (a.top > 0 && o.top == 0) o.top = 1;
  }
}

}  // namespace

RankLod buildLod(const LodGrid& grid, const RankTimes& t, const RankShape& shape, const std::vector<FnRole>& roles,
                 bool trim, RankLod* recycle) {
  RankLod lod;
  if (recycle) lod = std::exchange(*recycle, RankLod{});  // its arrays keep their capacity below
  Classes classes(grid, lod);
  // The build's working arrays, kept by the thread from rank to rank (fresh ones cost their
  // allocation and the kernel's zeroed pages: a sixth of a build at 10^6 events).
  struct Direct {
    std::uint32_t bucket, fn;
    double length;
    std::uint8_t depth;
  };
  struct Scratch {
    std::vector<std::uint8_t> cls;  // each drawn event's class, set as the sweep enters it
    std::vector<Acc> cur;
    std::vector<std::vector<Direct>> direct;
  };
  thread_local Scratch scratch;
  std::vector<std::uint8_t>& cls = scratch.cls;
  cls.resize(t.size);

  // Segments of narrow events into the level where they become narrow: level 0 (almost every
  // event) into one array of accumulators, which then becomes each level above in place (a
  // bucket merges its two children); the few segments of wider events wait in lists of their
  // level and are merged after the children (as a dense array per level would, at a fraction
  // of its memory).
  std::size_t n0 = std::size_t(1) << (grid.levels - 1);
  // The points of these events (shape.points is the whole rank's, in event order).
  const auto pointsEnd = std::lower_bound(shape.points.begin(), shape.points.end(), t.size);
  if (trim) {
    TimeNs last = std::numeric_limits<TimeNs>::min();  // the drawn events' last leave
    for (std::uint32_t i = 0; i < t.size; ++i)
      if (drawn(roles[t.function[i]])) last = std::max(last, t.leave[i]);
    for (auto it = shape.points.begin(); it != pointsEnd; ++it) last = std::max(last, t.enter[*it]);
    n0 = std::min<std::size_t>(n0, std::size_t(std::max<TimeNs>(last, 0) / grid.w0) + 1);
  }
  // Level l's buckets: n0 halved l times, rounded up (n0 is a power of two unless trimmed).
  auto sizeAt = [&](int l) { return std::max<std::size_t>((n0 + (std::size_t(1) << l) - 1) >> l, 1); };
  std::vector<Acc>& curs = scratch.cur;
  curs.assign(n0, Acc{});
  Acc* cur = curs.data();
  std::vector<std::vector<Direct>>& direct = scratch.direct;
  if (direct.size() < std::size_t(grid.levels)) direct.resize(std::size_t(grid.levels));
  for (auto& d : direct) d.clear();
  OpenStack stack;
  const bool pow2 = (grid.w0 & (grid.w0 - 1)) == 0;
  const int shift0 = std::countr_zero(std::uint64_t(grid.w0));
  sweep(
      t, roles, 0, stack, std::numeric_limits<TimeNs>::min() / 2, std::numeric_limits<TimeNs>::max() / 2,
      [&](std::uint32_t owner, TimeNs a, TimeNs b) {
        const int k = cls[owner];
        if (k >= grid.levels) return;
        const std::uint32_t fn = t.function[owner];
        const std::uint8_t dep = shape.depth[owner];
        a = std::max<TimeNs>(a, 0);
        if (k == 0 && pow2) {  // almost every segment: a narrow event's, in one or two buckets
          for (TimeNs x = a; x < b;) {
            const std::size_t bi = std::min<std::size_t>(std::size_t(x >> shift0), n0 - 1);
            const TimeNs y = std::min(b, std::max(TimeNs(bi + 1) << shift0, x + 1));
            cur[bi].add(fn, double(y - x), double(y - x), dep);
            x = y;
          }
          return;
        }
        const TimeNs bw = grid.bucketWidth(k);
        const std::size_t size = sizeAt(k);
        for (TimeNs x = a; x < b;) {
          const std::size_t q = pow2 ? std::size_t(x >> (shift0 + k)) : std::size_t(x / bw);
          const std::size_t bi = std::min<std::size_t>(q, size - 1);
          const TimeNs bEnd = std::max(TimeNs(bi + 1) * bw, x + 1);
          const TimeNs y = std::min(b, bEnd);
          if (k == 0)
            cur[bi].add(fn, double(y - x), double(y - x), dep);
          else
            direct[k].push_back({std::uint32_t(bi), fn, double(y - x), dep});
          x = y;
        }
      },
      [&](std::uint32_t i, TimeNs e, TimeNs x) { cls[i] = std::uint8_t(classes.add(i, e, x)); });
  classes.finish(t);
  for (auto it = shape.points.begin(); it != pointsEnd; ++it) {
    const std::uint32_t p = *it;
    const std::size_t bi = std::min<std::size_t>(std::size_t(std::max<TimeNs>(t.enter[p], 0) / grid.w0), n0 - 1);
    cur[bi].point = true;
  }
  lod.levels.resize(grid.levels);
  emitLevel(grid, cur, 0, n0, lod);
  for (int l = 1; l < grid.levels; ++l) {
    const std::size_t prev = sizeAt(l - 1), size = sizeAt(l);
    for (std::size_t b = 0; b < size; ++b) {  // in place: bucket b reads 2b and 2b + 1 >= b
      Acc m = cur[2 * b];
      if (2 * b + 1 < prev) m.merge(cur[2 * b + 1]);
      cur[b] = m;
    }
    auto& d = direct[l];
    std::stable_sort(d.begin(), d.end(), [](const Direct& x, const Direct& y) { return x.bucket < y.bucket; });
    for (std::size_t i = 0; i < d.size();) {
      Acc own;
      std::size_t j = i;
      for (; j < d.size() && d[j].bucket == d[i].bucket; ++j) own.add(d[j].fn, d[j].length, d[j].length, d[j].depth);
      cur[d[i].bucket].merge(own);
      i = j;
    }
    emitLevel(grid, cur, l, size, lod);
  }
  return lod;
}

std::pair<int, int> queryLane(const LodGrid& grid, const RankLod& lod, const RankTimes& t,
                              const RankShape& shape, const std::vector<FnRole>& roles,
                              const LaneQuery& q, ColumnMark* marks,
                              std::vector<std::uint32_t>& boxes) {
  const double px = q.nsPerPx;
  const double invPx = 1.0 / px;
  const int level = grid.levelFor(px);
  int touched0 = q.columns, touched1 = 0;
  auto touch = [&](int c0, int c1) {
    touched0 = std::min(touched0, c0);
    touched1 = std::max(touched1, c1);
  };
  auto addSpan = [&](double x0, double x1, std::uint32_t fn, double busyNs, double topNs,
                     std::uint8_t depth, double invWidth = 0) {
    // Spreads busy/top time over the columns [x0, x1) in proportion to the overlap (invWidth:
    // 1 / (x1 - x0) when the caller knows it).
    if (x1 <= 0 || x0 >= q.columns) return;
    const int c0 = x0 > 0 ? int(x0) : 0;
    const int c1 = std::min(q.columns, x1 > int(x1) ? int(x1) + 1 : int(x1));
    if (c0 >= c1) return;
    touch(c0, c1);
    if (c1 - c0 == 1 && x0 >= c0) {  // inside one column (most narrow events): all of it
      if (x1 > x0) marks[c0].add(fn, float(busyNs), float(topNs), depth);
      return;
    }
    const double inv = invWidth > 0 ? invWidth : 1.0 / std::max(x1 - x0, 1e-9);
    for (int c = c0; c < c1; ++c) {
      const double f = (std::min(x1, double(c + 1)) - std::max(x0, double(c))) * inv;
      if (f > 0) marks[c].add(fn, float(busyNs * f), float(topNs * f), depth);
    }
  };
  auto markPoint = [&](double x) {
    const int c = int(std::floor(x));
    if (c >= 0 && c < q.columns) {
      marks[c].point = true;
      touch(c, c + 1);
    }
  };
  if (level >= 0) {
    // bw <= px: every bucket goes whole to the column holding its centre (no column is left
    // without one), an error below one bucket width. Level 0 at px < bw <= 2 px: a bucket is
    // split over the columns it covers, in proportion.
    const TimeNs bw = grid.bucketWidth(level);
    const bool split = double(bw) > px;
    const auto& buckets = lod.levels[level];
    const std::size_t b0 = std::size_t(std::max<TimeNs>(q.begin, 0) / bw);
    const std::size_t b1 = std::min(buckets.size(), std::size_t(std::max<TimeNs>(q.end, 0) / bw) + 1);
    const float scale = float(double(bw) / 65535.0);
    const double step = double(bw) * invPx;
    const double invStep = 1.0 / step;
    double xc = (double(TimeNs(b0) * bw - q.begin) + 0.5 * double(bw)) * invPx;  // bucket centre
    int first = -1, last = -1;
    for (std::size_t b = b0; b < b1; ++b, xc += step) {
      const LodBucket& k = buckets[b];
      if (k.busy == 0 && !k.point()) continue;
      if (TimeNs(b + 1) * bw <= q.clipBegin) continue;
      if (split) {
        // The bucket [x0, x1) is 1 to 2 columns wide (its width known: no division per bucket).
        const double x0 = xc - 0.5 * step, x1 = x0 + step;
        if (k.busy) addSpan(x0, x1, k.fn(), double(k.busy) * scale, double(k.top) * scale, std::uint8_t(k.depth()), invStep);
        if (k.point()) markPoint(xc);
        continue;
      }
      int c;
      if (xc >= 0 && xc < q.columns) {
        c = int(xc);
      } else {  // centre outside the view: only a bucket overlapping it counts
        const double x0 = xc - 0.5 * step, x1 = xc + 0.5 * step;
        if (x1 <= 0 || x0 >= q.columns) continue;
        c = xc < 0 ? 0 : q.columns - 1;
      }
      if (first < 0) first = c;
      last = c;
      if (k.busy) marks[c].add(k.fn(), float(k.busy) * scale, float(k.top) * scale, std::uint8_t(k.depth()));
      if (k.point()) marks[c].point = true;
    }
    if (first >= 0) touch(first, last + 1);
    for (int c = level + 1; c <= grid.levels; ++c) {
      const auto& cls = lod.classes[c];
      if (cls.empty()) continue;
      const TimeNs from = q.begin - lod.classMaxDuration[c];
      auto it = std::partition_point(cls.begin(), cls.end(),
                                     [&](std::uint32_t i) { return t.enter[i] < from; });
      for (; it != cls.end() && t.enter[*it] < q.end; ++it)
        if (t.leave[*it] > q.begin && *it >= q.firstEvent && *it < q.endEvent) boxes.push_back(*it);
    }
    return {touched0, touched1};
  }

  // Deep zoom: sweep the events in view (and the ones open at q.begin).
  const TimeNs thr = TimeNs(std::ceil(3.0 * px));
  const TimeView en = t.enter;
  const std::uint32_t first = en.partitionPoint(t.size, [&](TimeNs e) { return e < q.begin; });
  OpenStack stack;
  if (first > 0) {
    std::vector<std::uint32_t> chain;
    for (std::uint32_t j = first - 1; j != kNone32; j = shape.parent[j])
      if (drawn(roles[t.function[j]]) && t.leave[j] > q.begin) chain.push_back(j);
    for (auto it = chain.rbegin(); it != chain.rend(); ++it) {
      TimeNs l = t.leave[*it];
      if (!stack.empty()) l = std::min(l, stack.back().leave);
      stack.push_back({*it, l});
      if (t.leave[*it] - t.enter[*it] >= thr) boxes.push_back(*it);
    }
  }
  sweep(
      t, roles, first, stack, q.begin, q.end,
      [&](std::uint32_t owner, TimeNs a, TimeNs b) {
        if (t.leave[owner] - t.enter[owner] >= thr) return;
        const double ns = double(b - a);
        addSpan(double(a - q.begin) * invPx, double(b - q.begin) * invPx, t.function[owner], ns, ns,
                shape.depth[owner]);
      },
      [&](std::uint32_t i, TimeNs e, TimeNs x) {
        if (x - e >= thr) boxes.push_back(i);
      });
  auto pIt = std::partition_point(shape.points.begin(), shape.points.end(),
                                  [&](std::uint32_t i) { return en[i] < q.begin; });
  for (; pIt != shape.points.end() && en[*pIt] < q.end; ++pIt)
    markPoint(double(en[*pIt] - q.begin) * invPx);
  return {touched0, touched1};
}

}  // namespace perwiz::ui
