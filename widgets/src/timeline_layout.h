// Geometry of a timeline frame: where the rank labels, the rows, the axis and the legend go,
// and the mapping time <-> x, rank -> y (lanes, nesting insets). Shared by the screen, export
// and hit testing so they always agree.
#pragma once

#include "perwiz/trace.h"
#include "perwiz/widgets/timeline_view.h"

#include <QFont>
#include <QRect>

#include <algorithm>
#include <cmath>
#include <cstdint>

namespace perwiz::ui {

class TimelineData;

// Which drawing a lane shows and how.
enum class LaneStyle : std::uint8_t {
  Normal,   // full colours
  Faded,    // measured under an overlay
  Outline,  // predicted over the measured one: translucent fill, outlined
};
struct LaneSpec {
  bool predicted = false;
  LaneStyle style = LaneStyle::Normal;
};
// The lanes drawn per rank for a mode (Overlay gives two at the same place).
int lanesFor(TimelineMode mode, bool hasPrediction, LaneSpec out[2]);
// Whether the drawing `predicted` is on screen in `mode`; if not, the one that is.
bool shownDrawing(TimelineMode mode, bool hasPrediction, bool predicted);

struct TimelineLayout {
  QRect area, labels, plot, axis, legend;
  TimeNs begin = 0, end = 1;
  int rowHeight = 20;
  int scrollY = 0;  // pixels of rows scrolled above plot.top()
  std::uint32_t rows = 0;
  bool lanes = false;  // rows split into a measured (top) and a predicted (bottom) lane
  int maxDepth = 0;
  int legendLines = 0;

  double nsPerPx() const { return double(end - begin) / double(std::max(1, plot.width())); }
  double x(TimeNs t) const { return plot.left() + double(t - begin) / nsPerPx(); }
  // x(t) kept within a margin of the plot: safe to round to int and to hand to QPainter
  // (a deep zoom puts far events ~1e11 px away).
  double xc(TimeNs t) const {
    return std::clamp(x(t), double(plot.left() - kMargin), double(plot.left() + plot.width() + kMargin));
  }
  int xi(TimeNs t) const { return int(std::lround(xc(t))); }
  static constexpr int kMargin = 4096;
  TimeNs time(double px) const { return begin + TimeNs((px - plot.left()) * nsPerPx()); }
  int rowTop(std::uint32_t r) const { return plot.top() + int(r) * rowHeight - scrollY; }
  int contentHeight() const { return int(rows) * rowHeight; }
  std::uint32_t firstVisibleRow() const;
  std::uint32_t endVisibleRow() const;  // exclusive
  int rowAt(double y) const;            // -1 outside the rows

  struct Span {
    int top = 0, bottom = 0;  // [top, bottom)
    int height() const { return bottom - top; }
    int center() const { return (top + bottom) / 2; }
  };
  Span lane(std::uint32_t r, bool predicted) const;
  bool inPredictedLane(double y) const;  // Lanes mode: bottom half of its row
  // Vertical extent of a box of drawn nesting depth `depth` in a lane.
  Span box(const Span& lane, int depth) const;
  Span tick(const Span& lane) const;  // point-event ticks
};

struct LayoutInput {
  QRect area;
  TimeNs begin = 0, end = 1;
  TimelineMode mode = TimelineMode::Measured;
  int rowHeight = 0;  // 0: fit the rows to the area (screen), else fixed (export)
  int scrollY = 0;
  bool axis = true;
  bool legend = true;
  int legendMaxLines = 3;  // 0 = as many as needed
  QFont font;
};
TimelineLayout computeLayout(const TimelineData& data, const LayoutInput& in);

}  // namespace perwiz::ui
