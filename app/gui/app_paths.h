// Where the GUI finds its bundled files: ../share/perwiz from the executable's directory (the
// install prefix's share dir; a build tree gets the same layout, app/gui/CMakeLists.txt).
#pragma once

#include <QString>

namespace perwiz::gui {

// resources/samples/binary_swap_8 (the binary-swap compositing case study, 8 ranks, traced by
// libperwiz-trace under SMPI) in <bindir>/../share/perwiz/samples. Empty if it is not there.
QString sampleTracePath();
// Directory of installed .qm files (<prefix>/share/perwiz/translations), may not exist.
QString installedTranslationsDir();

}  // namespace perwiz::gui
