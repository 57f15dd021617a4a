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
#include <vector>

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
  // Rows (ranks, then threads: TimelineBase) are drawn in slots top down; a thread's slot is
  // under its rank's. Without threads a row is its slot.
  const std::vector<std::uint32_t>* rowOfSlot = nullptr;  // the base's (empty: identity)
  const std::vector<std::uint32_t>* slotOfRow = nullptr;
  std::uint32_t rowIn(std::uint32_t slot) const {
    return rowOfSlot && slot < rowOfSlot->size() ? (*rowOfSlot)[slot] : slot;
  }
  std::uint32_t slotOf(std::uint32_t row) const {
    return slotOfRow && row < slotOfRow->size() ? (*slotOfRow)[row] : row;
  }
  int rowTop(std::uint32_t r) const { return plot.top() + int(slotOf(r)) * rowHeight - scrollY; }
  int slotTop(std::uint32_t s) const { return plot.top() + int(s) * rowHeight - scrollY; }
  int contentHeight() const { return int(rows) * rowHeight; }
  // Visible slots [firstVisibleRow, endVisibleRow): rowIn() gives their rows.
  std::uint32_t firstVisibleRow() const;
  std::uint32_t endVisibleRow() const;  // exclusive
  bool rowVisible(std::uint32_t row) const {
    const std::uint32_t s = slotOf(row);
    return s >= firstVisibleRow() && s < endVisibleRow();
  }
  int rowAt(double y) const;            // the row drawn at y; -1 outside the rows

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
