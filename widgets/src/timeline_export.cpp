#include "timeline_export.h"

#include "timeline_data.h"

#include <QFontMetrics>
#include <QPainter>

#include <algorithm>

namespace perwiz::ui {

ExportHeader exportHeader(const QFont& base, const TimelineExportOptions& o, int width) {
  ExportHeader h;
  h.titleFont = base;
  h.titleFont.setBold(true);
  h.titleFont.setPointSizeF(base.pointSizeF() > 0 ? base.pointSizeF() * 1.25 : 12);
  h.noteFont = base;
  if (o.title.isEmpty() && o.notes.isEmpty()) return h;
  const int w = std::max(50, width - 16);
  int y = 6;
  if (!o.title.isEmpty()) y += QFontMetrics(h.titleFont).boundingRect(QRect(0, 0, w, 1 << 20), Qt::TextWordWrap, o.title).height() + 4;
  for (const QString& n : o.notes)
    y += QFontMetrics(h.noteFont).boundingRect(QRect(0, 0, w, 1 << 20), Qt::TextWordWrap, n).height() + 2;
  h.height = y + 6;
  return h;
}

// An exported legend stops at kExportLegendLines ("+N more": a trace of 300 regions would
// otherwise be a page of legend under a strip); the view's styles come first.
LayoutInput exportLayoutInput(const TimelineData& data, TimelineMode mode, const TimelineExportOptions& o) {
  LayoutInput in;
  in.mode = mode;
  const int lane = std::max(kMinExportLanePx, o.rowHeight);
  LaneSpec specs[2];
  const bool lanes = mode == TimelineMode::Lanes && lanesFor(mode, data.hasPrediction(), specs) == 2;
  in.rowHeight = lanes ? 2 * lane : lane;
  in.axis = o.axis;
  in.legend = o.legend;
  in.legendMaxLines = kExportLegendLines;
  return in;
}

void drawExportHeader(QPainter& painter, const ExportHeader& header, const TimelineExportOptions& o, const QRect& target) {
  if (header.height <= 0) return;
  const int w = std::max(50, target.width() - 16);
  int y = target.top() + 6;
  painter.save();
  painter.setPen(QColor(20, 20, 20));
  if (!o.title.isEmpty()) {
    painter.setFont(header.titleFont);
    const QRect r = painter.boundingRect(QRect(target.left() + 8, y, w, 1 << 20), Qt::TextWordWrap, o.title);
    painter.drawText(r, Qt::TextWordWrap, o.title);
    y += r.height() + 4;
  }
  painter.setFont(header.noteFont);
  painter.setPen(QColor(60, 60, 60));
  for (const QString& n : o.notes) {
    const QRect r = painter.boundingRect(QRect(target.left() + 8, y, w, 1 << 20), Qt::TextWordWrap, n);
    painter.drawText(r, Qt::TextWordWrap, n);
    y += r.height() + 2;
  }
  painter.restore();
}

}  // namespace perwiz::ui
