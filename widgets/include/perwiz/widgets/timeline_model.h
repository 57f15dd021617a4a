// What the timeline draws, apart from the widget (Qt Gui, no widgets): the selected item, the
// per-trace base and the drawings prepared from one set of times. The GUI's session library
// (app/gui: the loader and the prediction worker build them off the GUI thread) uses this
// header and links perwiz_timeline_model only; perwiz/widgets/timeline_view.h is the widget.
#pragma once

#include "perwiz/predicted_times.h"
#include "perwiz/trace.h"
#include "perwiz/widgets/timeline_mode.h"

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <vector>

namespace perwiz::ui {

// What is selected or hovered: an event (any event of a rank, by its model index), a step, a
// message (its arrow), or nothing.
struct TimelineItem {
  enum class Kind { None, Event, Step, Message } kind = Kind::None;
  std::uint32_t rank = 0;   // Kind::Message: the sending rank
  std::uint32_t event = 0;  // model event index on the rank (Kind::Event); Kind::Message: the
                            // send endpoint's index in the sender's RankTrace::messages
  std::uint32_t step = 0;   // Kind::Step
  bool predicted = false;   // hit in the predicted drawing (Overlay/Lanes)
  bool operator==(const TimelineItem&) const = default;
};

// The two ends of a Kind::Message item: its send endpoint and, when matched, its receive
// endpoint and the receiving rank (neither when the item is no message of `trace`).
struct MessageEnds {
  std::optional<MessageEndpoint> send, recv;
  std::uint32_t recvRank = kNone32;
};
MessageEnds messageEnds(const Trace& trace, const TimelineItem& item);

// What a view prepares once per trace (function roles, rank nesting, the messages as arrows)
// and a drawing prepared from one set of times (level-of-detail tables, steps, arrows): both
// immutable, so that a worker thread can build the predicted drawing that the view then only
// swaps in (TimelineView::base(), setPrediction()).
class TimelineBase;
struct Drawing;
// What a prediction that shifted changed (UpdateStats::shiftAfterCall): every moved rank's
// events from firstEvent[r] on are the previous prediction's plus `delta`.
struct DrawingShift {
  TimeNs delta = 0;
  std::vector<std::uint32_t> firstEvent;  // per rank
  // False: the moved ranks' tables are built exactly (a drawing small enough to be final at
  // once); only the arrows and the step samples, which stay exact, take the shift.
  bool tables = true;
};
// The pixel columns a view last drew (TimelineView::columnView): a predicted drawing built for
// them carries every row's step band in them (Drawing::bandColumns), found by the prediction
// worker while the new times are in its cache, so that the frame after a change does not read
// them from the other core's (at 64 x 10^6 events that read was most of the frame: issue #40).
struct ColumnView {
  TimeNs begin = 0;
  double nsPerPx = 0;
  int columns = 0;
  // The rows drawn: those in slots [firstSlot, endSlot) (TimelineBase::slotOfRow; a trace of
  // 20,000 ranks shows a few dozen, and only those get a band).
  std::uint32_t firstSlot = 0, endSlot = 0;
  bool operator==(const ColumnView&) const = default;
  bool sameColumns(const ColumnView& o) const {
    return begin == o.begin && nsPerPx == o.nsPerPx && columns == o.columns;
  }
};
// The predicted drawing of `times` over `base`. A rank whose arrays `previous` (the drawing of
// the prediction before, or nullptr) shares keeps its level-of-detail tables: a toggle
// rebuilds the ranks it moved. With `shift` (the prediction moved every changed rank by the
// same amount past a cut), a moved rank rebuilds only its events before the cut and draws
// `previous`'s tables moved for the rest. Thread-safe; costs O(events of the moved ranks +
// messages), with a shift O(events before the cut + messages).
// At most this many pieces per rank in a drawing built with a shift (the earlier tables it
// moves stay alive with it; their times do not: a piece reads this drawing's).
inline constexpr std::size_t kMaxDrawingPieces = 4;
// Whether `d` moved earlier tables past a shift (drawn within a bucket of an exact build).
bool isProvisional(const Drawing& d);
// Arrays for the next predicted drawings to write into, their pages touched beforehand (idle
// time) rather than during a change: a build into fresh memory took two to three times one
// into memory it had (256 x 10^7 events: 290-350 ms against 105-135; touching fresh memory
// costs about 3.5 s per GB on the project's test machines; issue #40). Not thread-safe: one
// owner (the prediction worker), one build or fill at a time.
class DrawingSpares {
 public:
  DrawingSpares();
  ~DrawingSpares();
  DrawingSpares(const DrawingSpares&) = delete;
  DrawingSpares& operator=(const DrawingSpares&) = delete;
  // Gives every rank and channel of `like` (a predicted drawing) that has no spare arrays of
  // like's sizes, their pages touched. False (what was filled stays) when `stop` said so; it
  // is asked between ranks and channels.
  bool fill(const Drawing& like, const std::function<bool()>& stop);
  // Takes the arrays of `old` when nothing else holds it (`old` is then reset; else left as
  // it is, to try again later).
  void harvest(std::shared_ptr<const Drawing>& old);
  std::size_t bytes() const;
  void clear();
  struct Impl;
  Impl& impl() { return *d_; }

 private:
  std::unique_ptr<Impl> d_;
};

// `stop` (if set) is asked between ranks and between channels: true gives up and returns
// nullptr. `spares` (if set): the rebuilt ranks and channels take their arrays from it.
// `columns` (if set, columns > 0): the step bands in them (Drawing::bandColumns).
std::shared_ptr<const Drawing> buildDrawing(std::shared_ptr<const TimelineBase> base,
                                            std::shared_ptr<const PredictedTimes> times, const Drawing* previous,
                                            const DrawingShift* shift, const std::function<bool()>& stop,
                                            DrawingSpares* spares = nullptr, const ColumnView* columns = nullptr);

// A trace's base and measured drawing, prepared where the trace is read (a loader thread:
// O(events), ranks in parallel) so that TimelineView::setTrace only swaps them in. Empty
// members: the view builds them itself.
struct PreparedTimeline {
  std::shared_ptr<const TimelineBase> base;
  std::shared_ptr<const Drawing> measured;
};
PreparedTimeline prepareTimeline(std::shared_ptr<const Trace> trace);

}  // namespace perwiz::ui
