// The parts of an exported image around the timeline (TimelineView::render, exportSize): the
// header of title and notes, and the layout of rows, legend and axis for export options.
#pragma once

#include "timeline_layout.h"

#include "perwiz/widgets/timeline_view.h"

#include <QFont>

class QPainter;

namespace perwiz::ui {

class TimelineData;

// The header of an export: the title (bold, larger) and the notes, wrapped to the width.
struct ExportHeader {
  QFont titleFont, noteFont;
  int height = 0;  // 0: no header
};
ExportHeader exportHeader(const QFont& base, const TimelineExportOptions& o, int width);
void drawExportHeader(QPainter& painter, const ExportHeader& header, const TimelineExportOptions& o, const QRect& target);

// Rows (a lane at least kMinExportLanePx; a Lanes row holds two), axis and legend (at most
// kExportLegendLines lines) of an export; area, range and font are the caller's.
constexpr int kExportLegendLines = 4;
LayoutInput exportLayoutInput(const TimelineData& data, TimelineMode mode, const TimelineExportOptions& o);

}  // namespace perwiz::ui
