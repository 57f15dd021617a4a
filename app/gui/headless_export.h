// `perwiz --export-image OUT TRACE [--scenario FILE] [--view MODE] [--width PX] [--lane-height PX]
// [--no-header] [--force]`: load, replay, render to OUT without showing a window. Returns the
// exit status: 0 ok, 1 bad input (or OUT exists without --force), 2 bad usage.
#pragma once

#include "perwiz/widgets/timeline_mode.h"

#include <QString>

#include <string>

namespace perwiz::gui {

struct HeadlessExportArgs {
  QString out, trace, scenario, view = QStringLiteral("measured");
  // TRACE's bytes as given on the command line: a file name need not be UTF-8, and QString
  // (UTF-16) cannot hold the bytes that are not. Empty: trace.toStdString().
  std::string traceBytes;
  bool wholeTrace = true;
  int width = 1600;
  int laneHeight = 24;  // --lane-height (at least ui::kMinExportLanePx)
  bool header = true;   // --no-header: no title, hypotheses and times
  bool force = false;   // --force: replace OUT if it exists
};

int runHeadlessExport(const HeadlessExportArgs& args);

}  // namespace perwiz::gui
