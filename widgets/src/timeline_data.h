// What the timeline draws, prepared once per trace and per prediction: function roles and
// colours, rank nesting, the LOD summaries of the measured and the predicted drawing, step
// spans and the message index used for arrows.
#pragma once

#include "time_shading.h"
#include "timeline_lod.h"

#include "perwiz/predicted_times.h"
#include "perwiz/trace.h"
#include "perwiz/widgets/timeline_model.h"

#include <QColor>
#include <QFont>
#include <QString>

#include <algorithm>
#include <limits>
#include <memory>
#include <optional>
#include <span>
#include <tuple>
#include <utility>
#include <vector>

namespace perwiz::ui {

// Arrows of one channel computed together, by send time: their send and receive times and
// each one's base source (TimelineBase::arrowSources) first + i, or first + order[i] where a
// prediction reordered the sends (`order` is empty in the base's order: every measured and
// almost every predicted channel).
struct ArrowArrays {
  TimeColumn send, recv;  // compact (about 4 B per time: arrows are 2 per message at 10^8 events)
  std::uint32_t first = 0;
  std::vector<std::uint32_t> order;
  TimeNs lag = 0;   // max(recv - send, 0)
  TimeNs lead = 0;  // max(send - recv, 0) (clock skew)
  std::uint32_t source(std::size_t i) const { return first + (order.empty() ? std::uint32_t(i) : order[i]); }
};
// Arrows [lo, hi) of `arrays`, drawn `shift` ns later: a provisional drawing moves the earlier
// drawing's arrows past a shift instead of computing them again (like its LOD pieces).
struct ArrowPiece {
  std::shared_ptr<const ArrowArrays> arrays;
  TimeNs shift = 0;
  std::uint32_t lo = 0, hi = 0;
  TimeNs send(std::uint32_t i) const { return arrays->send[i] + shift; }
  TimeNs recv(std::uint32_t i) const { return arrays->recv[i] + shift; }
  // The first of [from, hi) sending at or after t.
  std::uint32_t firstSendingFrom(TimeNs t, std::uint32_t from) const {
    const auto& s = arrays->send;
    return std::uint32_t(std::lower_bound(s.begin() + from, s.begin() + hi, t - shift) - s.begin());
  }
};
// Matched messages of one channel (sender row, receiver row), by send time, so a frame can
// count the messages of a channel in a pixel-column bin with two binary searches: one piece,
// or several (in send order) in a provisional drawing.
struct ArrowChannel {
  std::uint32_t src = 0, dst = 0;
  TimeNs lag = 0, lead = 0;  // over the pieces
  std::vector<ArrowPiece> pieces;
};
// Every channel; a predicted drawing shares the channels whose two ranks did not move.
struct ArrowIndex {
  std::vector<std::shared_ptr<const ArrowChannel>> channels;
};

// Rank r's part of a parallel step: the step and its region-marker event.
struct StepOnRank {
  std::uint32_t step = 0, marker = kNone32;
};

// The steps present on one rank, in step order, with their markers: 4 B a step while the rank
// has every step from the first (the step is then its index: the usual case), 8 B otherwise.
class StepList {
 public:
  void reserve(std::size_t n) { markers_.reserve(n); }
  void push_back(const StepOnRank& s) {
    if (dense_ && s.step != markers_.size()) {
      dense_ = false;
      steps_.reserve(markers_.capacity());
      for (std::uint32_t i = 0; i < markers_.size(); ++i) steps_.push_back(i);
    }
    if (!dense_) steps_.push_back(s.step);
    markers_.push_back(s.marker);
  }
  std::size_t size() const { return markers_.size(); }
  std::uint32_t step(std::size_t i) const { return dense_ ? std::uint32_t(i) : steps_[i]; }
  std::uint32_t marker(std::size_t i) const { return markers_[i]; }
  StepOnRank operator[](std::size_t i) const { return {step(i), marker(i)}; }
  // The index of step `k`, or size().
  std::size_t find(std::uint32_t k) const {
    if (dense_) return k < size() ? k : size();
    const auto it = std::lower_bound(steps_.begin(), steps_.end(), k);
    return it != steps_.end() && *it == k ? std::size_t(it - steps_.begin()) : size();
  }
  std::size_t bytes() const { return (markers_.capacity() + steps_.capacity()) * sizeof(std::uint32_t); }

 private:
  bool dense_ = true;
  std::vector<std::uint32_t> markers_, steps_;
};

// The steps present on one rank, in step order, as one drawing places them: each spans its
// marker's enter to leave in the drawing's times, read through them. A drawing so stores
// nothing per step but the end of every kSample-th one (0.5 B per step): a prediction's steps
// cost almost nothing to build and are exact at once (also in a provisional drawing, whose
// times are exact). The samples keep a search for a time in cache: each probe of the times
// themselves costs up to three cache misses (the list, the marker's enter and leave), and a
// frame at full view of 10^8 events searched once per pixel column of every lane.
class RankSteps {
 public:
  static constexpr std::size_t kSample = 16;
  RankSteps() = default;
  RankSteps(const StepList& list, const RankTimes& times) : list_(&list), times_(times) {
    sampled_.reserve(list.size() / kSample + 1);
    for (std::size_t i = kSample - 1; i < list.size(); i += kSample) sampled_.push_back(end(i));
  }
  // The same list over times whose events from `firstEvent` on are those of `before` (over
  // the same list) moved by `delta`: their samples are before's moved, no read of the times.
  RankSteps(const StepList& list, const RankTimes& times, const RankSteps& before, std::uint32_t firstEvent,
            TimeNs delta)
      : list_(&list), times_(times) {
    sampled_.reserve(list.size() / kSample + 1);
    const bool same = before.list_ == &list && before.sampled_.size() == list.size() / kSample;
    for (std::size_t i = kSample - 1, j = 0; i < list.size(); i += kSample, ++j)
      sampled_.push_back(same && list.marker(i) >= firstEvent ? before.sampled_[j] + delta : end(i));
  }
  std::size_t size() const { return list_ ? list_->size() : 0; }
  std::uint32_t step(std::size_t i) const { return list_->step(i); }
  TimeNs begin(std::size_t i) const { return times_.enter[list_->marker(i)]; }
  TimeNs end(std::size_t i) const { return span(i).second; }
  // Step i's begin and end with one read of each time.
  std::pair<TimeNs, TimeNs> span(std::size_t i) const {
    const std::uint32_t m = list_->marker(i);
    const TimeNs b = times_.enter[m];
    return {b, std::max(b, times_.leave[m])};
  }
  // The first of [from, size()) ending after t (ends are sorted), or size(): the samples give
  // its block of kSample steps, a binary search of the block the step.
  std::size_t firstEndingAfter(TimeNs t, std::size_t from = 0) const {
    // Sample j is the end of step (j + 1)·kSample − 1: the first sample ending after t bounds
    // the answer from above, the one before it (ending at or before t) from below.
    const std::size_t j = std::size_t(std::upper_bound(sampled_.begin(), sampled_.end(), t) - sampled_.begin());
    const std::size_t blockEnd = std::min(size(), (j + 1) * kSample);
    if (from >= blockEnd) return from;  // every step from `from` on ends after t
    std::size_t lo = std::max(from, j * kSample), hi = blockEnd;
    while (lo < hi) {
      const std::size_t mid = lo + (hi - lo) / 2;
      if (end(mid) <= t) lo = mid + 1; else hi = mid;
    }
    return lo;
  }
  // The index of step `k`, or size().
  std::size_t find(std::uint32_t k) const { return list_ ? list_->find(k) : 0; }

 private:
  const StepList* list_ = nullptr;
  RankTimes times_;
  std::vector<TimeNs> sampled_;  // end of steps kSample - 1, 2·kSample - 1, ...
};

// The step band of `W` pixel columns showing [begin, ...) at `nsPerPx`: each column takes the
// step under its centre (exact for steps of a pixel or more; narrower ones alias, which a
// background can afford). Calls fill(c0, c1, i) for consecutive runs covering [0, W), i the
// step's index in `rs` or rs.size() for none. The steps must not overlap (begins and ends
// sorted). O(columns + steps in view) integer comparisons, with a binary search where many
// steps share a column (at full view of 10^7 events a lane holds thousands of steps for 1,500
// columns).
template <class Fill>
void forStepColumns(const RankSteps& rs, TimeNs begin, double nsPerPx, int W, Fill fill) {
  const std::size_t n = rs.size();
  // Column c's centre is begin + (c + 1/2)·nsPerPx; a step [b, e) holds it iff
  // b <= begin + floor((c + 1/2)·nsPerPx) < e (b and e are integers).
  auto centre = [&](int c) { return begin + TimeNs((c + 0.5) * nsPerPx); };  // (truncation is floor here: >= 0)
  const double inv = 1.0 / nsPerPx;
  auto firstAtOrAfter = [&](TimeNs t) {  // the first column whose centre is at or after t, or W
    const double x = double(t - begin) * inv - 0.5;
    int c = x <= 0 ? 0 : x >= W ? W : int(x);
    while (c > 0 && centre(c - 1) >= t) --c;  // the estimate, made exact
    while (c < W && centre(c) < t) ++c;
    return c;
  };
  // The steps in view, by the samples: a few per column are walked one by one (each a read of
  // two times), more are skipped by a search per column (RankSteps::firstEndingAfter: the
  // samples, then up to four probes of the times).
  std::size_t i = rs.firstEndingAfter(centre(0));
  if (i == n) {
    fill(0, W, n);
    return;
  }
  const std::size_t inView = rs.firstEndingAfter(centre(W - 1), i) - i;
  const std::size_t walk = inView <= std::size_t(W) * 4 ? 8 : 1;
  auto [b, e] = rs.span(i);
  for (int c = 0; c < W;) {
    const TimeNs t = centre(c);
    if (e <= t) {  // the first step after i ending after t
      std::size_t k = 0;
      do {
        if (++i == n) break;
        std::tie(b, e) = rs.span(i);
      } while (e <= t && ++k < walk);
      if (i < n && e <= t) {
        i = rs.firstEndingAfter(t, i + 1);
        if (i < n) std::tie(b, e) = rs.span(i);
      }
      if (i == n) {
        fill(c, W, n);
        return;
      }
    }
    if (b > t) {  // a gap before step i
      const int next = firstAtOrAfter(b);
      fill(c, next, n);
      c = next;
      continue;
    }
    const int next = std::max(c + 1, firstAtOrAfter(e));  // step i holds t: c + 1 at least
    fill(c, next, i);
    c = next;
  }
}

// A rank's step band in the columns of `v`: per column 0 (no step), 1 or 2 (an even or odd
// step), into `out` (v.columns values).
inline void stepBandClasses(const RankSteps& rs, const ColumnView& v, std::vector<std::uint8_t>& out) {
  out.resize(std::size_t(std::max(v.columns, 0)));
  if (v.columns <= 0) return;
  forStepColumns(rs, v.begin, v.nsPerPx, v.columns, [&](int c0, int c1, std::size_t i) {
    std::fill(out.begin() + c0, out.begin() + c1, std::uint8_t(i < rs.size() ? 1 + (rs.step(i) & 1u) : 0));
  });
}

// Per trace, immutable once built, shared by the view and the prediction worker (which builds
// predicted drawings with it off the GUI thread): function roles, rank nesting and the matched
// messages as arrows.
class TimelineBase {
 public:
  explicit TimelineBase(std::shared_ptr<const Trace> trace);

  const Trace& trace() const { return *trace_; }
  const std::shared_ptr<const Trace>& tracePtr() const { return trace_; }
  const std::vector<FnRole>& roles() const { return roles_; }
  // Rows: the ranks [0, rankCount), then the threads (Trace::threads), drawn as measured. A
  // row's place on screen (its slot) puts each thread right under its rank; threads of no
  // rank come last.
  std::uint32_t rowCount() const { return rows_; }
  std::uint32_t rankCount() const { return std::uint32_t(trace_->rankCount()); }
  bool isThread(std::uint32_t row) const { return row >= rankCount(); }
  const RankTrace& rowEvents(std::uint32_t row) const {
    return row < rankCount() ? trace_->ranks[row] : trace_->threads[row - rankCount()].events;
  }
  // Slot -> row and row -> slot; both empty when they are the identity (no threads).
  const std::vector<std::uint32_t>& rowOfSlot() const { return rowOfSlot_; }
  const std::vector<std::uint32_t>& slotOfRow() const { return slotOfRow_; }
  TimeNs threadsEnd() const { return threadsEnd_; }  // latest leave of the threads (0: none)
  const RankShape& shape(std::uint32_t rank) const { return shapes_[rank]; }
  int maxDepth() const { return maxDepth_; }
  std::size_t bytes() const;

  // The matched messages as arrows, decoded once per trace, grouped by channel (sender,
  // receiver: channels()) and by measured send time. Each end is the event whose times it
  // moves with and where it lies in it (ArrowEnd); a drawing maps the two ends with its times.
  // 20 B a message (it was 56 with each end's rank and time, which the channel and the trace
  // give, then 32 with 64-bit values: 0.7 GB less at 2 x 10^7 messages). Plain data without
  // initialisers: the table is allocated uninitialised and each sender fills its own slice,
  // ranks in parallel.
  struct ArrowEnd {
    std::uint32_t event;  // kNone32 when the end does not move with an event
    // With an event: the measured instant's distance from its enter (>= 0) or, when it lies
    // nearer the leave, -(distance from the leave) - 1 (< 0: an instant at the leave stays at
    // the leave of a moved event; -0 would read as the enter). Without one: the instant itself.
    TimeNs value;
  };
  struct ArrowSource {
    // ArrowEnd::value of each end, or kFar when it does not fit 32 bits (an instant more than
    // 2.1 s from both ends of its event, or one without an event): then the pair is in the
    // base's far table. Read the ends with arrowSend/arrowRecv.
    std::int32_t sendValue, recvValue;
    std::uint32_t sendEvent, recvEvent;
    std::uint32_t endpoint;  // the send's endpoint index
    static constexpr std::int32_t kFar = std::numeric_limits<std::int32_t>::min();
  };
  static_assert(sizeof(ArrowSource) == 20);
  std::span<const ArrowSource> arrowSources() const { return {arrowSources_.get(), arrowCount_}; }
  ArrowEnd arrowSend(std::size_t i) const {
    const ArrowSource& a = arrowSources_[i];
    return {a.sendEvent, a.sendValue != ArrowSource::kFar ? TimeNs(a.sendValue) : farValues(i).first};
  }
  ArrowEnd arrowRecv(std::size_t i) const {
    const ArrowSource& a = arrowSources_[i];
    return {a.recvEvent, a.recvValue != ArrowSource::kFar ? TimeNs(a.recvValue) : farValues(i).second};
  }
  // Channels of arrowSources(): [first, last) ranges of one (sender, receiver) each.
  struct ChannelRange {
    std::uint32_t src = 0, dst = 0, first = 0, last = 0;
    // Both ends of every arrow move with an event and the events do not go back along the
    // channel: the arrows a shift moves (both ends at or past their rank's cut) are a suffix.
    bool monotone = false;
  };
  const std::vector<ChannelRange>& channels() const { return channels_; }
  // Whether function `fn` appears in the trace (the legend lists those).
  bool used(std::uint32_t fn) const { return used_[fn]; }
  // Steps present on a rank, in step order, with their markers.
  const StepList& stepsOf(std::uint32_t rank) const { return stepsOf_[rank]; }
  ArrowEnd arrowEnd(std::uint32_t rank, const MessageEndpoint& m) const;
  // An arrow end of `rank` at its measured time (exactly the endpoint's), and in a prediction:
  // moved with its event, keeping its distance to the nearer end (within the event).
  TimeNs measuredEnd(std::uint32_t rank, const ArrowEnd& e) const;
  TimeNs predictedEnd(std::uint32_t rank, const ArrowEnd& e, const PredictedTimes& p) const;

 private:
  std::shared_ptr<const Trace> trace_;
  std::vector<FnRole> roles_;
  std::uint32_t rows_ = 0;
  std::vector<std::uint32_t> rowOfSlot_, slotOfRow_;
  TimeNs threadsEnd_ = 0;
  std::vector<RankShape> shapes_;  // per row
  std::vector<bool> used_;
  int maxDepth_ = 0;
  std::unique_ptr<ArrowSource[]> arrowSources_;
  std::size_t arrowCount_ = 0;
  // The values of the arrows with a far end, by arrow index: (its index, (send, recv)).
  using FarArrow = std::pair<std::uint32_t, std::pair<TimeNs, TimeNs>>;
  std::vector<FarArrow> far_;
  const std::pair<TimeNs, TimeNs>& farValues(std::size_t i) const;
  std::vector<ChannelRange> channels_;
  std::vector<StepList> stepsOf_;
};

// One piece of a provisional predicted rank (buildDrawing with a DrawingShift): the LOD tables
// `lod` of an earlier prediction for the events [firstEvent, endEvent), which this drawing's
// times place exactly `shift` ns later than that prediction did (the engine's uniform shift,
// docs/model.md §6.1), clipped to what lies at or after clipBegin (in the earlier time). The
// tables are read with this drawing's times moved back by `shift`, so a piece keeps no earlier
// times alive: their arrays are free for the next snapshot to reuse.
struct LodPiece {
  std::shared_ptr<const RankLod> lod;
  TimeNs shift = 0;
  std::uint32_t firstEvent = 0, endEvent = 0;
  TimeNs clipBegin = std::numeric_limits<TimeNs>::min();
};

// One set of times (measured or predicted) with everything derived from it; immutable once
// built (a predicted one is built by the prediction worker and shared with the view).
struct Drawing {
  bool valid = false;
  bool predicted = false;
  std::shared_ptr<const TimelineBase> base;       // what it was built over
  std::shared_ptr<const PredictedTimes> source;  // predicted: the times `times` point into
  LodGrid grid;
  std::vector<RankTimes> times;
  // Per rank, shared with the previous drawing where the rank did not move.
  std::vector<std::shared_ptr<const RankLod>> lod;
  // Per rank when provisional (else empty or null): the summaries are pieces, the first built
  // from the rank's events before the shift, the others earlier drawings' tables moved by the
  // shift (lod[r] is then the first piece's, with the whole rank's active span). Drawn within a
  // bucket width of a fresh build; frames finer than level 0 read the exact times.
  std::vector<std::shared_ptr<const std::vector<LodPiece>>> pieces;
  std::vector<RankSteps> steps;  // per rank, read through `times`
  // Per row, the step band in `bandView`'s columns (stepBandClasses) when the drawing was built
  // for a view (buildDrawing's `columns`), else empty.
  ColumnView bandView;
  std::vector<std::vector<std::uint8_t>> bandColumns;
  ArrowIndex arrows;
  TimeNs end = 0;
  std::size_t bytes() const;
};

// The measured drawing of `base` (times == nullptr) or the predicted one of `times`. A rank
// whose times `previous` (the drawing of the prediction before) shares keeps its level-of-
// detail tables when the grid is the same: a toggle rebuilds only the ranks it moved. With
// `shift` (the prediction shifted every moved rank past a cut, relative to `previous`'s), a
// moved rank's tables are built for the events before the cut only and `previous`'s are moved
// by the shift for the rest (Drawing::pieces), at most kMaxDrawingPieces pieces per rank.
// queryLane over rank r of `d`, piece by piece where it is provisional.
std::pair<int, int> queryDrawingLane(const Drawing& d, std::uint32_t r, const RankShape& shape, const std::vector<FnRole>& roles,
                                     const LaneQuery& q, ColumnMark* marks, std::vector<std::uint32_t>& boxes);
std::shared_ptr<const Drawing> buildDrawing(std::shared_ptr<const TimelineBase> base,
                                            std::shared_ptr<const PredictedTimes> times,
                                            const Drawing* previous = nullptr, const DrawingShift* shift = nullptr,
                                            const std::function<bool()>& stop = {}, DrawingSpares* spares,
                                            const ColumnView* columns);

// What DrawingSpares holds: per rank a table and per channel arrow arrays to write over.
struct DrawingSpares::Impl {
  std::vector<RankLod> lod;         // per row; no levels: none
  std::vector<ArrowArrays> arrows;  // per channel; no capacity: none
  RankLod* lodOf(std::uint32_t r) { return r < lod.size() && !lod[r].levels.empty() ? &lod[r] : nullptr; }
  ArrowArrays* arrowsOf(std::uint32_t c) {
    return c < arrows.size() && arrows[c].send.capacity() > 0 ? &arrows[c] : nullptr;
  }
  void fit(const Drawing& d);                    // a slot per row and channel of d
  static std::size_t ranksOf(const Drawing& d);  // the rows that take spares
};

class TimelineData {
 public:
  void setTrace(std::shared_ptr<const Trace> trace, PreparedTimeline prepared = {});
  // A predicted drawing made elsewhere (the worker) is used as is when it was built for these
  // times over this data's base; otherwise it is built here.
  void setPrediction(std::shared_ptr<const PredictedTimes> times, std::shared_ptr<const Drawing> drawing = nullptr);
  void setMeasuredWaits(std::shared_ptr<const std::vector<TimeColumn>> waits) { waits_ = std::move(waits); }
  void setMarked(std::shared_ptr<const TimeShading> marked, QString label) {
    ++version_;
    ++measuredVersion_;
    marked_ = std::move(marked);
    markedLabel_ = std::move(label);
  }
  const TimeShading* marked() const { return marked_.get(); }
  const QString& markedLabel() const { return markedLabel_; }

  const std::shared_ptr<const TimelineBase>& base() const { return base_; }
  const Trace* trace() const { return base_ ? &base_->trace() : nullptr; }
  // Changes whenever the trace or the prediction does (for caches of painted pixels).
  std::uint64_t version() const { return version_; }
  // Changes whenever what a Measured frame shows does (the trace, the marked time): a new
  // prediction leaves it, so that a Measured view keeps its painted pixels.
  std::uint64_t measuredVersion() const { return measuredVersion_; }
  // Changes whenever the trace does (for what depends on it only, like colour tables).
  std::uint64_t traceVersion() const { return traceVersion_; }
  std::uint32_t rankCount() const { return base_ ? std::uint32_t(base_->trace().rankCount()) : 0; }
  std::uint32_t rowCount() const { return base_ ? base_->rowCount() : 0; }  // ranks, then threads
  bool hasPrediction() const { return predicted_ != nullptr; }
  const PredictedTimes* prediction() const { return prediction_.get(); }
  // Measured wait of MPI call `call` of `rank` (nullptr when unknown) and its predicted wait.
  std::optional<TimeNs> measuredWait(std::uint32_t rank, std::uint32_t call) const;
  std::optional<TimeNs> predictedWait(std::uint32_t rank, std::uint32_t call) const;
  const Drawing& drawing(bool predicted) const { return predicted && predicted_ ? *predicted_ : *measured_; }
  // What the step bands of drawing(predicted) are read from: the prediction's times (shared by
  // a provisional drawing and its refinement) or the measured drawing. Only its identity matters.
  std::shared_ptr<const void> stepTimes(bool predicted) const {
    if (predicted && predicted_)
      return predicted_->source ? std::shared_ptr<const void>(predicted_->source) : predicted_;
    return measured_;
  }
  TimeNs end() const;  // latest leave of both drawings

  FnRole role(std::uint32_t fn) const { return base_->roles()[fn]; }
  const std::vector<FnRole>& roles() const { return base_->roles(); }
  const QColor& color(std::uint32_t fn) const { return colors_[fn]; }
  bool used(std::uint32_t fn) const { return base_->used(fn); }  // appears in the trace (legend)
  std::uint32_t functionCount() const { return std::uint32_t(colors_.size()); }
  const RankShape& shape(std::uint32_t rank) const { return base_->shape(rank); }
  int maxDepth() const { return base_ ? base_->maxDepth() : 0; }

  bool drawnEvent(std::uint32_t rank, std::uint32_t event) const;
  // MPI call index of an event ("RANK:INDEX"), kNone32 if it is not an MPI call.
  std::uint32_t mpiIndexOf(std::uint32_t rank, std::uint32_t event) const;
  // Time of a message endpoint in a drawing (predicted: moved with its call).
  TimeNs endpointTime(bool predicted, std::uint32_t rank, const MessageEndpoint& m) const;
  // Step span on a rank in a drawing; false if the rank lacks the step.
  bool stepSpan(bool predicted, std::uint32_t step, std::uint32_t rank, TimeNs& b, TimeNs& e) const;
  std::size_t bytes() const;  // memory of the derived data
  // Width of the widest rank name in `font` (every layout asks; measuring every name each time
  // shaped text for every rank on every frame and mouse move). Cached per trace and font; a
  // view's data is used on its thread only.
  int widestRankName(const QFont& font) const;

 private:
  std::shared_ptr<const TimelineBase> base_;
  std::shared_ptr<const PredictedTimes> prediction_;
  std::shared_ptr<const std::vector<TimeColumn>> waits_;
  std::shared_ptr<const TimeShading> marked_;
  QString markedLabel_;
  std::vector<QColor> colors_;
  std::uint64_t version_ = 0, traceVersion_ = 0, measuredVersion_ = 0;
  std::shared_ptr<const Drawing> measured_ = std::make_shared<const Drawing>();
  std::shared_ptr<const Drawing> predicted_;
  mutable QString nameWidthFont_;
  mutable std::uint64_t nameWidthVersion_ = ~std::uint64_t(0);
  mutable int nameWidth_ = 0;
};

}  // namespace perwiz::ui
