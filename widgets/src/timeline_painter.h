// Drawing of a timeline frame, shared by the screen (paintEvent) and export (render()):
// step bands, computation lines, event boxes and LOD summary marks (through a Canvas: pixels
// on raster devices, rectangles on vector ones), message arrows aggregated per pixel-column
// bin, the selection and its partners, rank labels, the time axis and the legend.
#pragma once

#include "timeline_layout.h"
#include "text_cache.h"
#include "timeline_lod.h"

#include "perwiz/widgets/timeline_view.h"

#include <QImage>
#include <QRect>
#include <QString>

#include <vector>

class QPainter;

namespace perwiz::ui {

class TimelineData;

struct PaintState {
  TimelineMode mode = TimelineMode::Measured;
  TimelineItem selection;
  std::vector<TimelineItem> partners;
  std::vector<TimelineItem> highlighted;
  int legendMaxLines = 3;
  bool legendAllFunctions = false;  // list every function (export of the whole trace)
};

struct BoxLabel {
  QRect rect;
  std::uint32_t fn = 0;
};

// What one painting thread needs for its rows.
struct PaintScratch {
  std::vector<ColumnMark> marks;  // kept zeroed between lanes
  std::vector<QRgb> colors, colors2;
  std::vector<QRgb> band[2];  // step-band colour per column of each lane of the current row
  std::vector<std::uint8_t> group;  // depth group of each marked column
  std::vector<float> fractions;     // marked share of each column (overhead strip)
  std::vector<int> pointCols;       // columns holding a point event
  std::vector<std::uint32_t> boxes;
  std::vector<char> visibleFns;
  std::vector<BoxLabel> labels;
  TimelineFrameStats stats;
};

// Buffers kept between frames so painting does not allocate, and the plot pixels of the last
// frame: a repaint that changes neither the data nor the view (selection, hover, tooltips)
// reuses them and only draws the decorations again.
struct PaintCache {
  struct Key {
    const void* data = nullptr;
    std::uint64_t version = 0;
    TimeNs begin = 0, end = 0;
    QRect plot;
    int rowHeight = 0, scrollY = 0, mode = -1;
    bool lanes = false;
    bool operator==(const Key&) const = default;
  };
  bool reuse = true;  // false: always paint the rows (benchmarks of cold frames)
  bool valid = false;
  Key key;
  std::vector<BoxLabel> labels;  // of the cached frame
  std::vector<char> visibleFns;
  TimelineFrameStats rowStats;
  QImage image;
  PaintScratch scratch[2];
  TextCache text;
  std::vector<int> nameWidth;  // of every function, in the painter's font
  const void* nameWidthKey = nullptr;
  QString nameWidthFont;
};

void paintTimeline(QPainter& p, const TimelineData& data, const TimelineLayout& layout,
                   const PaintState& state, PaintCache& cache, TimelineFrameStats& stats);

// Box of an event in a drawing, in layout coordinates (at least 3 px wide); empty if the rank
// or event does not exist.
QRectF eventBox(const TimelineData& data, const TimelineLayout& layout, std::uint32_t rank,
                std::uint32_t event, bool predicted);

}  // namespace perwiz::ui
