// Per-rank multi-resolution summaries of the timeline (level of detail).
//
// A rank's drawn events (MPI calls and user states; region markers are drawn as step bands and
// point events as ticks) are flattened into "segments": stretches of time owned by the deepest
// event covering them. An event is *narrow* at pyramid level L when it is shorter than
// 4 bucket widths of that level; a narrow event is never drawn as a box at that scale, its
// segments are summed into the level's buckets instead (busy time, dominant function, shallowest
// depth, point flag). Level L+1 buckets are the merge of two level-L buckets plus the events that
// become narrow at L+1. Wide events sit in per-level class lists (sorted by enter) so a frame
// finds the boxes it has to draw with a binary search per class.
//
// A frame at ns-per-pixel `px` uses the level with bucket width bw <= px < 2 bw: every pixel
// column reads 1-3 buckets, and the boxes it draws are the events of the classes above L (all
// at least 2 px wide). Below level 0 (deep zoom) the few events in view are swept directly.
#pragma once

#include "parent_column.h"

#include "perwiz/trace.h"

#include <cstdint>
#include <limits>
#include <utility>
#include <vector>

namespace perwiz::ui {

// How a function is drawn.
enum class FnRole : std::uint8_t { Mpi, State, Point, Marker };

// Times of one rank's events: a plain array or a compact column (the model's, a prediction's),
// optionally read with an offset (shifted()); a prediction's times may have a head of their
// own for the first events (PredictedRank's own values before a shared tail).
class TimeView {
 public:
  TimeView() = default;
  TimeView(const TimeNs* raw) { rest_.raw = raw; }
  TimeView(const TimeColumn& column) { rest_.col = &column; }
  // Times [0, split) from `head`, the others from `rest` plus `restOffset`.
  TimeView(const TimeColumn& head, std::size_t split, const TimeColumn& rest, TimeNs restOffset) : split_(split) {
    head_.col = &head;
    rest_.col = &rest;
    rest_.offset = restOffset;
  }
  TimeNs operator[](std::size_t i) const {
    const Part& p = i < split_ ? head_ : rest_;
    return (p.raw ? p.raw[i] : (*p.col)[i]) + p.offset;
  }
  // Times [first, first + n) into out, for sequential readers (a column decodes a block at a
  // time instead of value by value).
  void decode(std::size_t first, std::size_t n, TimeNs* out) const {
    for (std::size_t i = first, last = first + n; i < last;) {
      const Part& p = i < split_ ? head_ : rest_;
      const std::size_t end = i < split_ ? std::min(last, split_) : last;
      if (p.raw) {
        for (std::size_t k = i; k < end; ++k) *out++ = p.raw[k] + p.offset;
      } else {
        p.col->decode(i, end - i, out);
        if (p.offset != 0)
          for (std::size_t k = 0; k < end - i; ++k) out[k] += p.offset;
        out += end - i;
      }
      i = end;
    }
  }
  // A hint that time i is read soon (plain arrays only).
  void prefetch(std::size_t i) const {
    const Part& p = i < split_ ? head_ : rest_;
    if (p.raw) __builtin_prefetch(p.raw + i);
  }
  // The same times read `by` later (or earlier, when negative).
  TimeView shifted(TimeNs by) const {
    TimeView v = *this;
    v.head_.offset += by;
    v.rest_.offset += by;
    return v;
  }
  // The first index in [0, n) whose time fails `pred` (the times partitioned by it).
  template <class Pred>
  std::uint32_t partitionPoint(std::uint32_t n, Pred pred) const {
    std::uint32_t lo = 0, hi = n;
    while (lo < hi) {
      const std::uint32_t mid = lo + (hi - lo) / 2;
      if (pred((*this)[mid])) lo = mid + 1; else hi = mid;
    }
    return lo;
  }

 private:
  struct Part {
    const TimeNs* raw = nullptr;
    const TimeColumn* col = nullptr;
    TimeNs offset = 0;
  };
  Part head_, rest_;
  std::size_t split_ = 0;
};

// Times of one rank's events in one drawing (measured or predicted).
struct RankTimes {
  TimeView enter;
  TimeView leave;
  const std::uint32_t* function = nullptr;
  std::uint32_t size = 0;
};

// Structure of a rank shared by the measured and predicted drawings.
struct RankShape {
  ParentColumn parent;                // nearest drawn (non-marker) enclosing event, or kNone32
  std::vector<std::uint8_t> depth;    // drawn nesting depth (region markers do not count)
  std::vector<std::uint32_t> points;  // point events, in event order
  std::uint8_t maxDepth = 0;
};
RankShape buildShape(const RankTrace& rank, const std::vector<FnRole>& roles);

// Bucket width of level 0 (a power of two, ns) and number of levels, common to all ranks of a
// drawing.
struct LodGrid {
  TimeNs w0 = 1;
  int levels = 1;
  TimeNs bucketWidth(int level) const { return w0 << level; }
  TimeNs narrowBelow(int level) const { return 4 * bucketWidth(level); }
  // Class of an event of duration `d`: the first level where it is narrow, `levels` if none.
  int classOf(TimeNs d) const;
  // Level for a frame at `nsPerPx`; -1 below level 0 (sweep directly).
  int levelFor(double nsPerPx) const;
};
LodGrid makeGrid(TimeNs duration, std::uint64_t maxEventsPerRank, std::size_t ranks);

// 8 bytes: function (22 bits), shallowest depth (6 bits), point flag; busy and top-function
// time in 1/65535 of the bucket width.
struct LodBucket {
  std::uint32_t packed = kEmpty;
  std::uint16_t busy = 0;
  std::uint16_t top = 0;
  static constexpr std::uint32_t kFnMask = (1u << 22) - 1;
  static constexpr std::uint32_t kEmpty = kFnMask;  // no function, depth 0, no point
  static constexpr std::uint32_t kPointBit = 1u << 28;
  std::uint32_t fn() const { return packed & kFnMask; }
  std::uint32_t depth() const { return (packed >> 22) & 63u; }
  bool point() const { return packed & kPointBit; }
};

struct RankLod {
  std::vector<std::vector<LodBucket>> levels;        // [level][bucket]
  std::vector<std::vector<std::uint32_t>> classes;   // [class][i] event indices, by enter (class 0 left empty: never read)
  std::vector<TimeNs> classMaxDuration;              // per class
  TimeNs firstEnter = 0, lastLeave = 0;               // active span (computation line)
  std::size_t bytes() const;
};
// `trim`: the level arrays end at the last bucket the events reach (a piece of a rank's
// events, e.g. the part before a shift; buildDrawing), instead of covering the whole grid.
// `recycle` (if set): a table whose arrays are written over (their memory reused) instead of
// fresh ones; it is left empty.
RankLod buildLod(const LodGrid& grid, const RankTimes& times, const RankShape& shape, const std::vector<FnRole>& roles,
                 bool trim = false, RankLod* recycle = nullptr);

// One pixel column of a summary: busy ns of narrow events, the dominant function, the
// shallowest depth, whether it holds a point event.
struct ColumnMark {
  float busy = 0;
  float top = 0;
  std::uint32_t fn = LodBucket::kEmpty;
  std::uint8_t depth = 255;
  bool point = false;
  void add(std::uint32_t f, float busyNs, float topNs, std::uint8_t d) {
    busy += busyNs;
    if (f == fn) top += topNs;
    else if (topNs > top) { fn = f; top = topNs; }
    if (d < depth) depth = d;
  }
};

// What one lane of one frame shows: the columns [0, columns) starting at time `begin`.
struct LaneQuery {
  TimeNs begin = 0, end = 0;
  double nsPerPx = 1;
  int columns = 0;
  // Only what lies at or after clipBegin (buckets that end after it) and boxes of the events
  // [firstEvent, endEvent): one piece of a provisional drawing (Drawing::pieces).
  TimeNs clipBegin = std::numeric_limits<TimeNs>::min();
  std::uint32_t firstEvent = 0, endEvent = 0xFFFFFFFFu;
};

// Adds the summary of the narrow events to marks[0, columns) (which the caller keeps zeroed)
// and appends the events to draw as boxes to `boxes` (unsorted). Returns the columns touched,
// [first, second).
std::pair<int, int> queryLane(const LodGrid& grid, const RankLod& lod, const RankTimes& times,
               const RankShape& shape, const std::vector<FnRole>& roles, const LaneQuery& q,
               ColumnMark* marks, std::vector<std::uint32_t>& boxes);

}  // namespace perwiz::ui
