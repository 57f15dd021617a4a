// .perwiz session files: {"perwiz_session":1, "trace": path, "scenario": <Scenario::toJson()>,
// "disabled": [hypothesis strings], "view": {"mode", "begin_ns", "end_ns", "docks" (base64 of
// QMainWindow::saveState, optional)}, "region" and "compare_with" (optional)}, written atomically.
#pragma once

#include "perwiz/scenario.h"
#include "perwiz/widgets/timeline_mode.h"

#include <QByteArray>
#include <QString>
#include <QStringList>

namespace perwiz::gui {

// What the window showed: the timeline's mode and visible range, and where its docks were.
struct SessionView {
  ui::TimelineMode mode = ui::TimelineMode::Measured;
  qint64 beginNs = 0, endNs = 0;  // 0, 0 = fit
  QByteArray docks = {};          // QMainWindow::saveState(); empty: the window's own layout
  bool operator==(const SessionView&) const = default;
};

struct SessionData {
  QString trace;         // absolute path (relative paths are resolved against the session's folder)
  Scenario scenario;     // all hypotheses, enabled and disabled
  QStringList disabled;  // Hypothesis::toString() of the disabled ones
  SessionView view;
  QString region;  // parallel region chosen for a trace without PRGN markers ("" = default)
  QString compareWith;  // the second run of a comparison shown (issue #41); "" = none
  bool isDisabled(const Hypothesis& h) const { return disabled.contains(QString::fromStdString(h.toString())); }
};

// Replaces an existing session only with a complete new one (output_file.h): if a write fails
// (full disk) the old file stays intact and *error names the file and the OS error.
bool saveSession(const QString& path, const SessionData& data, QString* error);
bool loadSession(const QString& path, SessionData& data, QString* error);

}  // namespace perwiz::gui
