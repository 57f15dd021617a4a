// `perwiz --export-image OUT TRACE|SESSION.perwiz [--scenario FILE] [--view MODE] [--region NAME]
// [--from TIME] [--to TIME] [--width PX] [--lane-height PX] [--no-header] [--force]`: load,
// replay, render to OUT without showing a window. A session brings its trace, its enabled
// hypotheses, network model, region, view mode and range; the options given override them.
// Returns the exit status: 0 ok, 1 bad input (or OUT exists without --force), 2 bad usage.
#pragma once

#include "perwiz/trace.h"
#include "perwiz/widgets/timeline_mode.h"

#include <QString>

#include <optional>
#include <string>

namespace perwiz::gui {

struct HeadlessExportArgs {
  QString out, trace, scenario;
  QString view;      // empty: lanes when there are hypotheses, else measured (a session: its own)
  QString region;    // --region: the parallel steps' state or region
  QString from, to;  // --from/--to: a time ("2.5s", "300ms", "12us", "800ns", ns) or an event "R:I"
  // TRACE's bytes as given on the command line: a file name need not be UTF-8, and QString
  // (UTF-16) cannot hold the bytes that are not. Empty: trace.toStdString().
  std::string traceBytes;
  int width = 1600;
  int laneHeight = 24;  // --lane-height (at least ui::kMinExportLanePx)
  bool header = true;   // --no-header: no title, hypotheses and times
  bool force = false;   // --force: replace OUT if it exists
};

int runHeadlessExport(const HeadlessExportArgs& args);

// A --from/--to value: a time with a unit (s, ms, us, µs, ns; a bare number is ns) or event
// RANK:INDEX of `trace` (its enter for --from, `end` false; its leave for --to). nullopt and
// *why when it is neither.
std::optional<TimeNs> parseExportTime(const QString& text, const Trace& trace, bool end, QString* why);

}  // namespace perwiz::gui
