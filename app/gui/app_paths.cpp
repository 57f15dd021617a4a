#include "app_paths.h"

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>
#include <QSettings>

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

namespace {
constexpr const char* kLastFolderKey = "files/lastFolder";

bool usable(const QString& dir, bool save) {
  const QFileInfo info(dir);
  return !dir.isEmpty() && info.isDir() && (!save || info.isWritable());
}
}  // namespace

QString dialogFolder(const QString& near, bool save) {
  const QString last = QSettings().value(QLatin1String(kLastFolderKey)).toString();
  if (usable(last, save)) return last;
  if (!near.isEmpty()) {
    const QString dir = QFileInfo(near).absolutePath();  // a trace file's folder, an archive's parent
    if (usable(dir, save)) return dir;
  }
  return QDir::homePath();
}

void rememberDialogFolder(const QString& path) {
  if (path.isEmpty()) return;
  QSettings().setValue(QLatin1String(kLastFolderKey), QFileInfo(path).absolutePath());
}

}  // namespace perwiz::gui
