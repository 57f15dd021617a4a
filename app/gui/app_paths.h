// Where the GUI finds its bundled files (installed share dir first, then the source tree).
#pragma once

#include <QString>

namespace perwiz::gui {

// resources/samples/binary_swap_8 (the binary-swap compositing case study, 8 ranks, traced by
// libperwiz-trace under SMPI): <prefix>/share/perwiz/samples next to the binary's prefix,
// else the source tree (compile definition PERWIZ_SOURCE_SAMPLE). Empty if neither exists.
QString sampleTracePath();
// Directory of installed .qm files (<prefix>/share/perwiz/translations), may not exist.
QString installedTranslationsDir();

}  // namespace perwiz::gui
