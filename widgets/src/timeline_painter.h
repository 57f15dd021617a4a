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

#include <QThreadPool>

#include <memory>
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
  bool viewLabel = true;            // name the view in the plot's corner (the screen)
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
  // A lane's labels before they are placed: each box wide enough to name, its depth and its
  // visible columns; and per column the deepest depth drawn + 1 (0: nothing), so that a label
  // goes into its box's own visible part only, never over a nested box (placeLabels).
  struct LabelCandidate {
    int c0, c1, top, bottom, depth;
    std::uint32_t fn;
  };
  std::vector<LabelCandidate> candidates;
  std::vector<std::uint8_t> cover;  // written once the lane has a candidate (cleared by placeLabels)
  TimelineFrameStats stats;
};

// The colours of a frame, per function and lane style: built once per trace (and font of
// functions), not per frame.
struct ColorTables {
  std::uint64_t traceVersion = ~std::uint64_t{0};  // TimelineData::traceVersion() they were built for
  std::vector<QRgb> fnNormal, fnFaded;  // opaque colours per function
  // Summary-mark colours per [style][fn * kMarkLevels + level]: the function's colour with the
  // alpha that a column's busy fraction gives, quantised to kMarkLevels steps (a table load per
  // column instead of two premultiplications; the steps are below what the eye tells apart).
  static constexpr int kMarkLevels = 33;
  std::vector<QRgb> markColor[3];
  // Box colours per function: [style][fn] fill and edge (premultiplied).
  std::vector<QRgb> boxFill[3], boxEdge[3];
  QRgb bandColor[3][3] = {};  // [style][background, even, odd]
  void build(const TimelineData& data);
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
  PaintCache() {
    rowThread.setMaxThreadCount(1);
    rowThread.setExpiryTimeout(-1);
  }
  ColorTables colors;
  // One thread kept across frames (no thread started per frame) that paints the upper half
  // of the rows while the calling thread paints the lower half.
  QThreadPool rowThread;
  // Step bands of the frames before, per lane kind (measured 0, predicted 1): the band colour
  // index (0 none, 1 even, 2 odd step) of each column of each row, kept while the steps' times
  // (TimelineData::stepTimes: not kept alive by this), the time range and the width stay: a
  // toggle's provisional and final frames share the predicted times and both the measured
  // ones, and a band costs a few cache misses per column (issue #40: 15 % of a toggle at 10^8).
  struct Bands {
    std::weak_ptr<const void> times;
    TimeNs begin = 0;
    double nsPerPx = 0;
    int columns = 0;
    std::vector<std::vector<std::uint8_t>> rows;  // [row][column]
    std::vector<std::uint8_t> valid;              // [row]
  } bands[2];
  // The bands of the view before per lane kind: a frame in another mode can have another width
  // (Lanes' taller rows bring a scroll bar), and the undo of the last hypothesis goes back to
  // Measured and the next one to Lanes: each comes back to its own bands.
  Bands otherBands[2];
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
