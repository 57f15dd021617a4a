// Fuzz target: .perwiz session files (app/gui/session_file.cpp, loadSession). session_file.cpp
// needs Qt Core only (QFile, QSaveFile, QJsonDocument, QCoreApplication::translate without an
// application object), so it is compiled into the fuzzer as it is and linked with Qt6::Core;
// the GUI library is not needed. Qt itself is not instrumented: coverage and ASan checks cover
// session_file.cpp and the core code it calls (scenarioFromJson), and Qt's JSON parser runs
// as the GUI runs it. A loaded session must save and load again to the same data.
#include "session_file.h"

#include "fuzz_common.h"

using namespace perwiz;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string path = fuzz::writeScratch("input.perwiz", data, size);
  gui::SessionData s;
  QString error;
  if (!gui::loadSession(QString::fromStdString(path), s, &error)) {
    if (error.isEmpty()) fuzz::fail("loadSession refused the input without a reason");
    return 0;
  }
  const QString again = QString::fromStdString((fuzz::scratchDir() / "again.perwiz").string());
  if (!gui::saveSession(again, s, &error)) fuzz::fail("saveSession failed: " + error.toStdString());
  gui::SessionData t;
  if (!gui::loadSession(again, t, &error)) fuzz::fail("a saved session does not load: " + error.toStdString());
  if (t.trace != s.trace || t.scenario.toJson() != s.scenario.toJson() || t.disabled != s.disabled ||
      t.view != s.view || t.region != s.region)
    fuzz::fail("a session changed in a save and load");
  return 0;
}
