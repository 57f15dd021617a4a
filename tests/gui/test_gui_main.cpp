// The GUI tests' runner: `test_gui CLASS [QtTest options]` runs one class of test_gui_*.cpp
// (CTest runs each as its own test, so they run in parallel and fail apart), `test_gui` all.
#include "gui_test_support.h"

#include <cstdio>

namespace perwiz::gui_test {

std::map<QString, std::function<int(const QStringList&)>>& testClasses() {
  static std::map<QString, std::function<int(const QStringList&)>> classes;
  return classes;
}

}  // namespace perwiz::gui_test

int main(int argc, char** argv) {
  using namespace perwiz::gui_test;
  QApplication app(argc, argv);
  app.setAttribute(Qt::AA_Use96Dpi, true);
  QStandardPaths::setTestModeEnabled(true);
  QCoreApplication::setOrganizationName(QStringLiteral("PerWizTest"));
  QCoreApplication::setApplicationName(QStringLiteral("perwiz-test"));
  if (!QFile::exists(kSample)) {
    std::fprintf(stderr, "test_gui: the sample trace %s is missing\n", qPrintable(kSample));
    return 1;
  }
  QStringList all;
  for (const auto& [name, run] : testClasses()) all << name;
  QStringList args = QCoreApplication::arguments();
  QStringList names;
  if (args.size() > 1 && !args[1].startsWith(QLatin1Char('-')))
    names << args.takeAt(1);
  else
    names = all;
  int failed = 0;
  for (const QString& name : names) {
    const auto it = testClasses().find(name);
    if (it == testClasses().end()) {
      std::fprintf(stderr, "test_gui: no test class '%s' (classes: %s)\n", qPrintable(name),
                   qPrintable(all.join(QStringLiteral(", "))));
      return 2;
    }
    failed += it->second(args);
  }
  return failed;
}
