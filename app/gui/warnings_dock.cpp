#include "warnings_dock.h"

#include <QPlainTextEdit>

namespace perwiz::gui {

WarningsDock::WarningsDock(QWidget* parent) : QDockWidget(tr("Warnings"), parent) {
  setObjectName(QStringLiteral("warningsDock"));
  text_ = new QPlainTextEdit(this);
  text_->setReadOnly(true);
  text_->setLineWrapMode(QPlainTextEdit::NoWrap);
  setWidget(text_);
}

void WarningsDock::setWarnings(const std::vector<Diagnostic>& warnings, const QStringList& notes) {
  QStringList lines;
  for (const auto& w : warnings) lines << QString::fromStdString(w.toString());
  if (!notes.isEmpty()) {
    if (!lines.isEmpty()) lines << QString();
    lines << tr("Replay notes:");
    lines << notes;
  }
  if (lines.isEmpty()) lines << tr("No warnings.");
  text_->setPlainText(lines.join(QLatin1Char('\n')));
}

}  // namespace perwiz::gui
