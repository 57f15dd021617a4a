// What the timeline draws, prepared once per trace and per prediction: function roles and
// colours, rank nesting, the LOD summaries of the measured and the predicted drawing, step
// spans and the message index used for arrows.
#pragma once

#include "time_shading.h"
#include "timeline_lod.h"

#include "perwiz/replay.h"
#include "perwiz/trace.h"
#include "perwiz/widgets/timeline_view.h"

#include <QColor>
#include <QString>

#include <memory>
#include <vector>

namespace perwiz::ui {

// Matched messages grouped by channel (sender row, receiver row), by send time, so a frame can
// count the messages of a channel in a pixel-column bin with two binary searches.
struct ArrowIndex {
  struct Channel {
    std::uint32_t src = 0, dst = 0;
    std::uint32_t first = 0, last = 0;  // [first, last) into the arrays below
    TimeNs lag = 0;                     // max(recv - send, 0)
    TimeNs lead = 0;                    // max(send - recv, 0) (clock skew)
  };
  std::vector<Channel> channels;
  std::vector<TimeNs> send, recv;
  std::vector<std::uint32_t> sendEndpoint;  // index into the sender's messages table
};

// Steps present on one rank, in step order.
struct RankSteps {
  std::vector<std::uint32_t> step;
  std::vector<TimeNs> begin, end;
};

// One set of times (measured or predicted) with everything derived from it.
struct Drawing {
  bool valid = false;
  bool predicted = false;
  LodGrid grid;
  std::vector<RankTimes> times;
  std::vector<RankLod> lod;
  std::vector<RankSteps> steps;
  ArrowIndex arrows;
  TimeNs end = 0;
};

class TimelineData {
 public:
  void setTrace(std::shared_ptr<const Trace> trace);
  void setPrediction(std::shared_ptr<const Replayer::EventTimes> times);
  void setWaits(std::shared_ptr<const TimelineWaits> waits) { waits_ = std::move(waits); }
  void setMarked(std::shared_ptr<const TimeShading> marked, QString label) {
    ++version_;
    marked_ = std::move(marked);
    markedLabel_ = std::move(label);
  }
  const TimeShading* marked() const { return marked_.get(); }
  const QString& markedLabel() const { return markedLabel_; }

  const Trace* trace() const { return trace_.get(); }
  // Changes whenever the trace or the prediction does (for caches of painted pixels).
  std::uint64_t version() const { return version_; }
  std::uint32_t rankCount() const { return trace_ ? std::uint32_t(trace_->rankCount()) : 0; }
  bool hasPrediction() const { return predicted_.valid; }
  const Replayer::EventTimes* prediction() const { return prediction_.get(); }
  const TimelineWaits* waits() const { return waits_.get(); }
  const Drawing& drawing(bool predicted) const { return predicted && predicted_.valid ? predicted_ : measured_; }
  TimeNs end() const;  // latest leave of both drawings

  FnRole role(std::uint32_t fn) const { return roles_[fn]; }
  const std::vector<FnRole>& roles() const { return roles_; }
  const QColor& color(std::uint32_t fn) const { return colors_[fn]; }
  bool used(std::uint32_t fn) const { return used_[fn]; }  // appears in the trace (legend)
  std::uint32_t functionCount() const { return std::uint32_t(roles_.size()); }
  const RankShape& shape(std::uint32_t rank) const { return shapes_[rank]; }
  int maxDepth() const { return maxDepth_; }

  bool drawnEvent(std::uint32_t rank, std::uint32_t event) const;
  // MPI call index of an event ("RANK:INDEX"), kNone32 if it is not an MPI call.
  std::uint32_t mpiIndexOf(std::uint32_t rank, std::uint32_t event) const;
  // Time of a message endpoint in a drawing (predicted: moved with its call).
  TimeNs endpointTime(bool predicted, std::uint32_t rank, const MessageEndpoint& m) const;
  // Step span on a rank in a drawing; false if the rank lacks the step.
  bool stepSpan(bool predicted, std::uint32_t step, std::uint32_t rank, TimeNs& b, TimeNs& e) const;
  std::size_t bytes() const;  // memory of the derived data

 private:
  // `reuse` (the previous predicted drawing, with `reuseTimes` its times): a rank whose times did
  // not change keeps its level-of-detail tables when the grid is the same (a toggle moves only
  // the ranks downstream of it).
  void buildDrawing(Drawing& d, bool predicted, Drawing* reuse = nullptr,
                    const Replayer::EventTimes* reuseTimes = nullptr);

  // The matched messages as arrows, decoded once per trace by the measured build: each end's
  // rank, the event whose times it moves with (kNone32: none) and its measured time; grouped
  // by channel (sender, receiver) and by measured send time. A predicted build only maps the
  // two times.
  struct ArrowEnd {
    std::uint32_t rank = 0, event = kNone32;
    TimeNs time = 0;
  };
  struct ArrowSource {
    std::uint64_t key = 0;  // sender << 32 | receiver
    ArrowEnd send, recv;
    std::uint32_t endpoint = 0;  // the send's endpoint index
  };
  ArrowEnd arrowEnd(std::uint32_t rank, const MessageEndpoint& m) const;
  TimeNs predictedEnd(const ArrowEnd& e) const;
  std::vector<ArrowSource> arrowSources_;

  std::shared_ptr<const Trace> trace_;
  std::shared_ptr<const Replayer::EventTimes> prediction_;
  std::shared_ptr<const TimelineWaits> waits_;
  std::shared_ptr<const TimeShading> marked_;
  QString markedLabel_;
  std::vector<FnRole> roles_;
  std::vector<QColor> colors_;
  std::vector<bool> used_;
  std::vector<RankShape> shapes_;
  int maxDepth_ = 0;
  std::uint64_t version_ = 0;
  Drawing measured_, predicted_;
};

}  // namespace perwiz::ui
