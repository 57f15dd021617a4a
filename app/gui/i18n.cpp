#include "i18n.h"

#include "app_paths.h"

#include <QCoreApplication>
#include <QLibraryInfo>
#include <QLocale>
#include <QTranslator>

namespace perwiz::gui {

bool installTranslations(const QString& language) {
  const QLocale locale = language.isEmpty() ? QLocale::system() : QLocale(language);
  if (locale.language() == QLocale::English || locale.language() == QLocale::C) return false;
  auto* app = QCoreApplication::instance();
  auto* own = new QTranslator(app);
  // Embedded (":/i18n", built from translations/*.ts) first, then the installed share dir.
  bool loaded = own->load(locale, QStringLiteral("perwiz"), QStringLiteral("_"), QStringLiteral(":/i18n")) ||
                own->load(locale, QStringLiteral("perwiz"), QStringLiteral("_"), installedTranslationsDir());
  if (loaded) {
    QCoreApplication::installTranslator(own);
    QLocale::setDefault(locale);
  } else {
    delete own;
  }
  auto* qt = new QTranslator(app);
  if (qt->load(locale, QStringLiteral("qtbase"), QStringLiteral("_"),
               QLibraryInfo::path(QLibraryInfo::TranslationsPath)))
    QCoreApplication::installTranslator(qt);
  else
    delete qt;
  return loaded;
}

}  // namespace perwiz::gui
