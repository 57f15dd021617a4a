// Loads the GUI translation (and Qt's own) for a language: "ja", or "" for the system locale.
#pragma once

#include <QString>

namespace perwiz::gui {

// Installs translators on the application; returns true if a PerWiz translation was loaded.
// English (the source language) needs none.
bool installTranslations(const QString& language);

}  // namespace perwiz::gui
