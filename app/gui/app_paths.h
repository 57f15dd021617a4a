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

// The folder a file dialog starts in: the last one a file was opened from or saved to (kept
// across runs), if it still exists; else the folder of `near` (e.g. the trace's), if it exists
// and, for a save, is writable; else the home folder. `save` asks for a folder to write into.
QString dialogFolder(const QString& near, bool save);
// `path` was chosen in a file dialog: its folder is the next dialog's (dialogFolder).
void rememberDialogFolder(const QString& path);

}  // namespace perwiz::gui
