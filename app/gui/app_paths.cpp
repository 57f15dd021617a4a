#include "app_paths.h"

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>

namespace perwiz::gui {

static QString shareDir() {
  return QDir(QCoreApplication::applicationDirPath()).absoluteFilePath(QStringLiteral("../share/perwiz"));
}

QString sampleTracePath() {
  const QString installed = QDir::cleanPath(shareDir() + QStringLiteral("/samples/binary_swap_8/traces.otf2"));
  if (QFileInfo::exists(installed)) return installed;
  return {};
}

QString installedTranslationsDir() { return QDir::cleanPath(shareDir() + QStringLiteral("/translations")); }

}  // namespace perwiz::gui
