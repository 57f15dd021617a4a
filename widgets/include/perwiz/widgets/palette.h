// Colours of the timeline: per function (the trace's own colour where it has one, else a
// Jumpshot-like palette keyed by the MPI operation), step bands and decorations.
#pragma once

#include "perwiz/trace.h"

#include <QColor>

#include <string_view>
#include <vector>

namespace perwiz::ui {

// A colour token of a trace: ALOG "colour:bitmap" (the part before ':' counts), an SVG/X11
// colour name ("forest green", "light_gray", "gray30"), or "#rrggbb". Invalid QColor if none.
QColor parseTraceColor(std::string_view token);
// Fixed palette for MPI calls: sends blue, receives green, waits red, collectives distinct.
QColor mpiOpColor(MpiOp op);
// The colour a function is drawn in (its own if valid and not near-white, else the palette;
// a non-blocking collective a lighter shade of its blocking family; alone, a user state gets a
// muted colour derived from its name).
QColor functionColor(const Function& f);
// The colours of every function of `trace` (the timeline, its legend and exports use these):
// as functionColor, except that the trace's user states and other MPI calls are numbered in
// the trace's order and spread over the hues (golden-ratio steps, three shades), so that
// functions of one trace never share a colour as names hashed to hues could.
std::vector<QColor> functionColors(const Trace& trace);

namespace colors {
inline const QColor background{255, 255, 255};
inline const QColor stepEven{226, 236, 250};   // bands of even parallel steps (0, 2, ...)
inline const QColor stepOdd{252, 239, 214};    // odd steps
inline const QColor rowLine{150, 150, 150};    // computation line
inline const QColor separator{232, 232, 232};  // between rows
inline const QColor grid{238, 238, 238};
inline const QColor arrow{20, 20, 20};
inline const QColor arrowFaded{160, 160, 160};
inline const QColor selection{0, 0, 0};
inline const QColor halo{255, 190, 0, 150};  // under the selection's outline or arrow
inline const QColor partner{230, 60, 0};
inline const QColor highlight{255, 0, 170};
inline const QColor text{30, 30, 30};
inline const QColor point{40, 40, 40};
inline const QColor marked{215, 25, 28};  // marked time (communication overhead)
}  // namespace colors

}  // namespace perwiz::ui
