// One frame of the timeline (internal to widgets/): the per-frame state and drawing steps that
// paintTimeline (timeline_painter.cpp) runs. Rows, bands and lane contents:
// timeline_frame_rows.cpp; labels, arrows, selection, rank labels and the axis:
// timeline_frame_marks.cpp.
#pragma once

#include "timeline_painter.h"

#include "perwiz/widgets/palette.h"
#include "pixel_canvas.h"
#include "time_axis.h"
#include "timeline_data.h"
#include "timeline_legend.h"

#include <QColor>
#include <QPainter>

#include <vector>

namespace perwiz::ui::frame_detail {

constexpr int kArrowBudget = 6000;    // arrows (aggregated or not) per frame, all drawings
constexpr int kArrowHeadsUpTo = 1500;  // draw heads when there are at most this many
constexpr int kBoxLabels = 250;

QColor mix(const QColor& a, const QColor& b, double t);
QColor styled(const QColor& c, LaneStyle s);
// Cuts the segment a-b to the x range the layout keeps coordinates in (see xc()).
void clipToMargin(QPointF& a, QPointF& b, const TimelineLayout& L);
void drawArrow(QPainter& p, const QPointF& a, const QPointF& b);

struct Frame {
  QPainter& p;
  const TimelineData& data;
  const TimelineLayout& L;
  const PaintState& state;
  PaintCache& cache;
  TimelineFrameStats& stats;
  Canvas* canvas = nullptr;
  LaneSpec specs[2] = {};
  int lanes = 1;
  int W = 0;
  std::vector<BoxLabel> labels{};
  int fontHeight = 0;
  const ColorTables* colors = nullptr;  // the cache's, built once per trace
  static constexpr int kMarkLevels = ColorTables::kMarkLevels;

  std::vector<AxisTick> gridTicks{};

  void rows(std::uint32_t from, std::uint32_t to, PaintScratch& w);
  void bands(std::uint32_t r, int lane, PaintScratch& w);
  void content(std::uint32_t r, int lane, PaintScratch& w);
  void paintBoxes(const LaneSpec& spec, const RankTimes& t, const RankShape& shape, const TimelineLayout::Span& lane,
                  QRgb* record, PaintScratch& w);
  void paintMarks(const LaneSpec& spec, const TimelineLayout::Span& lane, int laneIndex, int m0, int m1, QRgb* record,
                  PaintScratch& w);
  // The lane's label candidates placed into their boxes' own visible parts (w.labels).
  void placeLabels(PaintScratch& w);
  void markedStrip(std::uint32_t r, PaintScratch& w);
  void arrows(const LaneSpec& spec);
  void selection();
  void rankLabels();
  void viewLabel(TimelineMode mode);
  void cornerLabel(const QString& text, int row, const QColor& edge, const QColor& fill, const QColor& ink);
  // Whether this frame draws predicted boxes from a provisional drawing's moved tables.
  bool provisionalShown(TimelineMode mode) const;
  void axis(const AxisTicks& ticks);
  void boxLabels();
  int laneY(std::uint32_t r, bool predicted) const {
    return L.lane(r, predicted && L.lanes).center();
  }
};

}  // namespace perwiz::ui::frame_detail
