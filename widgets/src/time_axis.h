// The time axis: "nice" tick spacing (1, 2, 5 x 10^k ns) and time formatting in ns/µs/ms/s.
#pragma once

#include "perwiz/trace.h"

#include <QString>

#include <vector>

namespace perwiz::ui {

// "12.5 µs", "3 ms", "1.25 s": `t` in the largest unit below it, with enough decimals to show
// `resolution` (ns; 0 = three significant decimals at most).
QString formatTime(TimeNs t, TimeNs resolution = 0);
// A duration as every front end writes it (perwiz::formatDuration: "3.200 µs").
inline QString formatDuration(TimeNs d) { return QString::fromStdString(perwiz::formatDuration(d)); }

struct AxisTick {
  TimeNs time = 0;
  QString label;  // empty for minor ticks
};

struct AxisTicks {
  TimeNs step = 1;          // between major ticks
  TimeNs minorStep = 1;
  TimeNs base = 0;          // labels are relative to base when it is non-zero
  QString baseLabel;        // e.g. "12.3456 s +"; empty when labels are absolute
  std::vector<AxisTick> major, minor;
};

// Ticks for [begin, end) over `pixels`, major ticks at least `minSpacingPx` apart.
AxisTicks computeTicks(TimeNs begin, TimeNs end, double pixels, double minSpacingPx);

}  // namespace perwiz::ui
