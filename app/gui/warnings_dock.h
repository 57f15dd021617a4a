// Reader warnings of the loaded trace (Trace::warnings), one Diagnostic per line.
#pragma once

#include "perwiz/trace.h"

#include <QDockWidget>

class QPlainTextEdit;

namespace perwiz::gui {

class WarningsDock : public QDockWidget {
  Q_OBJECT

 public:
  explicit WarningsDock(QWidget* parent = nullptr);
  void setWarnings(const std::vector<Diagnostic>& warnings, const QStringList& notes);

 private:
  QPlainTextEdit* text_;
};

}  // namespace perwiz::gui
