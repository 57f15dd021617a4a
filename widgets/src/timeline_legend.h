// The legend: the functions on screen (MPI calls first), step bands, arrows, and the styles
// of the measured and predicted drawings.
#pragma once

#include "perwiz/widgets/timeline_view.h"

#include <QColor>
#include <QString>

#include <vector>

class QFontMetrics;
class QPainter;
class QRect;

namespace perwiz::ui {

class TextCache;
class TimelineData;

struct LegendEntry {
  enum class Kind { Box, Outline, Faded, Band, Arrow, Tick } kind = Kind::Box;
  QColor color;
  QString label;
};

// `visible[f]` != 0 for the functions to list; nullptr lists every function of the trace.
std::vector<LegendEntry> legendEntries(const TimelineData& data, TimelineMode mode,
                                       const std::vector<char>* visible);
// Lines the legend of every function takes at `width` (capped at maxLines unless 0).
int legendLineCount(const TimelineData& data, TimelineMode mode, const QFontMetrics& fm,
                    int width, int maxLines);
// Paints entries flowing into `rect`; returns the number of texts drawn.
int paintLegend(QPainter& p, const QRect& rect, const std::vector<LegendEntry>& entries,
                int maxLines, TextCache* text = nullptr);

}  // namespace perwiz::ui
