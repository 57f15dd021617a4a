#include "timeline_layout.h"

#include "timeline_data.h"
#include "timeline_legend.h"

#include <QFontMetrics>

namespace perwiz::ui {

int lanesFor(TimelineMode mode, bool hasPrediction, LaneSpec out[2]) {
  if (!hasPrediction || mode == TimelineMode::Measured) {
    out[0] = {false, LaneStyle::Normal};
    return 1;
  }
  switch (mode) {
    case TimelineMode::Predicted: out[0] = {true, LaneStyle::Normal}; return 1;
    case TimelineMode::Overlay:
      out[0] = {false, LaneStyle::Faded};
      out[1] = {true, LaneStyle::Outline};
      return 2;
    case TimelineMode::Lanes:
      out[0] = {false, LaneStyle::Normal};
      out[1] = {true, LaneStyle::Normal};
      return 2;
    case TimelineMode::Measured: break;
  }
  out[0] = {false, LaneStyle::Normal};
  return 1;
}

bool shownDrawing(TimelineMode mode, bool hasPrediction, bool predicted) {
  if (!hasPrediction || mode == TimelineMode::Measured) return false;
  if (mode == TimelineMode::Predicted) return true;
  return predicted;
}

std::uint32_t TimelineLayout::firstVisibleRow() const {
  if (rowHeight <= 0) return 0;
  return std::min(rows, std::uint32_t(std::max(0, scrollY / rowHeight)));
}

std::uint32_t TimelineLayout::endVisibleRow() const {
  if (rowHeight <= 0) return 0;
  const int last = (scrollY + plot.height() + rowHeight - 1) / rowHeight;
  return std::min(rows, std::uint32_t(std::max(0, last)));
}

int TimelineLayout::rowAt(double y) const {
  if (y < plot.top() || y >= plot.top() + plot.height() || rowHeight <= 0) return -1;
  const int r = int((y - plot.top() + scrollY) / rowHeight);
  return r >= 0 && std::uint32_t(r) < rows ? int(rowIn(std::uint32_t(r))) : -1;
}

TimelineLayout::Span TimelineLayout::lane(std::uint32_t r, bool predicted) const {
  const int top = rowTop(r);
  const int sep = rowHeight >= 8 ? 1 : 0;
  if (!lanes) return {top, top + rowHeight - sep};
  const int half = (rowHeight - sep) / 2;
  if (!predicted) return {top, top + half};
  return {top + half, top + rowHeight - sep};
}

bool TimelineLayout::inPredictedLane(double y) const {
  if (!lanes) return false;
  const int r = rowAt(y);
  if (r < 0) return false;
  return y >= lane(std::uint32_t(r), true).top;
}

TimelineLayout::Span TimelineLayout::box(const Span& l, int depth) const {
  const int h = l.height();
  const int pad = h >= 12 ? 2 : (h >= 6 ? 1 : 0);
  const int inner = h - 2 * pad;
  int step = 0;
  if (maxDepth > 0) step = std::clamp(inner / (2 * (maxDepth + 2)), 0, 3);
  const int inset = std::min(depth, 63) * step;
  Span s{l.top + pad + inset, l.bottom - pad - inset};
  if (s.bottom <= s.top) s.bottom = s.top + 1;
  return s;
}

TimelineLayout::Span TimelineLayout::tick(const Span& l) const {
  const int h = l.height();
  return {l.top, l.top + std::max(2, h / 2)};
}

TimelineLayout computeLayout(const TimelineData& data, const LayoutInput& in) {
  TimelineLayout L;
  L.area = in.area;
  L.begin = in.begin;
  L.end = std::max(in.end, in.begin + 1);
  L.rows = data.rowCount();
  if (data.base() && !data.base()->rowOfSlot().empty()) {
    L.rowOfSlot = &data.base()->rowOfSlot();
    L.slotOfRow = &data.base()->slotOfRow();
  }
  L.maxDepth = data.maxDepth();
  LaneSpec specs[2];
  L.lanes = lanesFor(in.mode, data.hasPrediction(), specs) == 2 && in.mode == TimelineMode::Lanes;
  const QFontMetrics fm(in.font);

  // Wide enough for the names in bold (the selected rank's label).
  QFont bold = in.font;
  bold.setBold(true);
  const QFontMetrics boldFm(bold);
  int labelW = std::max(boldFm.horizontalAdvance(QStringLiteral("rank 00")), data.widestRankName(bold)) + 16;
  labelW = std::min(labelW, std::max(60, in.area.width() / 4));
  if (L.lanes) labelW += fm.horizontalAdvance(QStringLiteral("m")) + 6;

  const int axisH = in.axis ? fm.height() + 10 : 0;
  const int plotW = std::max(1, in.area.width() - labelW - 8);
  int legendH = 0;
  if (in.legend) {
    L.legendLines = legendLineCount(data, in.mode, fm, plotW + labelW, in.legendMaxLines);
    legendH = L.legendLines > 0 ? L.legendLines * (fm.height() + 4) + 6 : 0;
  }
  const int top = in.area.top() + 4;
  const int plotH = std::max(1, in.area.bottom() + 1 - top - axisH - legendH);
  // On screen a row is never lower than its rank's label (a Lanes row holds two lanes of 8 px
  // at least): every rank is named, and rows that do not fit scroll (issue #40 item 4).
  const int minRow = L.lanes ? std::max(fm.height() + 1, 16) : fm.height() + 1;
  if (in.rowHeight > 0) {
    L.rowHeight = in.rowHeight;
  } else {
    const int fit = L.rows ? plotH / int(L.rows) : plotH;
    L.rowHeight = std::clamp(fit, minRow, L.lanes ? 56 : 36);
  }
  L.labels = QRect(in.area.left(), top, labelW, plotH);
  L.plot = QRect(in.area.left() + labelW, top, plotW, plotH);
  L.axis = QRect(L.plot.left(), top + plotH, plotW, axisH);
  L.legend = QRect(in.area.left() + 4, top + plotH + axisH, in.area.width() - 8, legendH);
  L.scrollY = std::clamp(in.scrollY, 0, std::max(0, L.contentHeight() - plotH));
  return L;
}

}  // namespace perwiz::ui
