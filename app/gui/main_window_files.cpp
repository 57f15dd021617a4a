// The main window's file dialogs, session files, exports, recent files and drops (main_window.h).
#include "main_window.h"

#include "app_paths.h"

#include "analysis_session.h"

#include "export_dialog.h"
#include "export_image.h"
#include "perwiz/widgets/timeline_mode.h"
#include "units.h"

#include "perwiz/compensation.h"
#include "perwiz/trace_io.h"

#include <QCloseEvent>
#include <QDialog>
#include <QDialogButtonBox>
#include <QDir>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QInputDialog>
#include <QLabel>
#include <QMenu>
#include <QMessageBox>
#include <QMimeData>
#include <QRadioButton>
#include <QSettings>
#include <QSpinBox>
#include <QStatusBar>
#include <QVBoxLayout>

namespace perwiz::gui {

namespace {
constexpr int kMaxRecent = 8;
const char* kRecentKey = "recentFiles";
}  // namespace

void MainWindow::openTrace(const QString& path) { session_->openTrace(path); }

bool MainWindow::mayDropChanges() {
  if (!session_->isModified()) return true;
  QMessageBox box(QMessageBox::Question, tr("Unsaved Hypotheses"),
                  tr("The hypotheses of this session have changed since it was last saved. Save them first?"),
                  QMessageBox::Save | QMessageBox::Discard | QMessageBox::Cancel, this);
  box.setObjectName(QStringLiteral("unsavedChanges"));
  box.setDefaultButton(QMessageBox::Save);
  switch (box.exec()) {
    case QMessageBox::Save:
      saveSession();
      return !session_->isModified();  // saved (not cancelled in the file dialog, no error)
    case QMessageBox::Discard: return true;
    default: return false;
  }
}

void MainWindow::openDialog() {
  if (!mayDropChanges()) return;
  const QString path =
      QFileDialog::getOpenFileName(this, tr("Open Trace"), dialogFolder(session_->tracePath(), false),
                                   tr("Traces (*.alog *.log *.otf *.otf2);;PerWiz sessions (*.perwiz);;All files (*)"));
  if (path.isEmpty()) return;
  rememberDialogFolder(path);
  if (path.endsWith(QLatin1String(".perwiz"), Qt::CaseInsensitive))
    openSession(path);
  else
    openTrace(path);
}

void MainWindow::openSessionDialog() {
  if (!mayDropChanges()) return;
  const QString path =
      QFileDialog::getOpenFileName(this, tr("Open Session"), dialogFolder(session_->tracePath(), false),
                                   tr("PerWiz sessions (*.perwiz);;All files (*)"));
  if (path.isEmpty()) return;
  rememberDialogFolder(path);
  openSession(path);
}

void MainWindow::openSession(const QString& path) {
  QString error;
  if (!session_->openSession(path, &error)) showError(tr("Cannot open session"), error);
}

bool MainWindow::saveSessionTo(const QString& path, QString* error) {
  SessionView view;
  view.mode = timeline_->mode();
  view.beginNs = timeline_->visibleBegin();
  view.endNs = timeline_->visibleEnd();
  view.docks = saveState();
  return session_->saveSessionTo(path, view, error);
}

void MainWindow::saveAndReport(const QString& path) {
  QString error;
  if (!saveSessionTo(path, &error))
    showError(tr("Cannot save session"), error);
  else
    statusBar()->showMessage(tr("Saved %1").arg(path), 4000);
}

void MainWindow::saveSession() {
  const QString path = session_->sessionPath();
  if (path.isEmpty()) {
    saveSessionAs();
    return;
  }
  saveAndReport(path);
}

void MainWindow::saveSessionAs() {
  if (!session_->trace()) return;
  const QString tracePath = session_->tracePath();
  QString suggestion = session_->sessionPath();
  if (suggestion.isEmpty())
    suggestion = QDir(dialogFolder(tracePath, true))
                     .absoluteFilePath(QFileInfo(tracePath).completeBaseName() + QStringLiteral(".perwiz"));
  QString path = QFileDialog::getSaveFileName(this, tr("Save Session"), suggestion,
                                              tr("PerWiz sessions (*.perwiz)"));
  if (path.isEmpty()) return;
  rememberDialogFolder(path);
  if (QFileInfo(path).suffix().isEmpty()) {
    path += QStringLiteral(".perwiz");
    if (QFileInfo::exists(path) &&
        QMessageBox::question(this, tr("Save Session"), tr("%1 already exists. Replace it?").arg(path)) !=
            QMessageBox::Yes)
      return;
  }
  saveAndReport(path);
}

void MainWindow::exportImageDialog() {
  if (!session_->trace()) return;
  const QString tracePath = session_->tracePath();
  const auto& prediction = session_->prediction();
  ExportChoice choice;
  choice.options.mode = timeline_->mode();
  choice.options.width = std::max(1600, timeline_->width());
  if (!askExportChoice(this, prediction != nullptr, choice)) return;
  QString selectedFilter;
  const QString pngFilter = tr("PNG image (*.png)"), svgFilter = tr("SVG image (*.svg)"),
                pdfFilter = tr("PDF document (*.pdf)");
  QString path = QFileDialog::getSaveFileName(
      this, tr("Export Image"),
      QDir(dialogFolder(tracePath, true))
          .absoluteFilePath(QFileInfo(tracePath).completeBaseName() + QStringLiteral(".png")),
      pngFilter + QStringLiteral(";;") + svgFilter + QStringLiteral(";;") + pdfFilter, &selectedFilter);
  if (path.isEmpty()) return;
  rememberDialogFolder(path);
  if (imageFormatFor(path) == ImageFormat::Unknown) {
    path += selectedFilter == svgFilter ? QStringLiteral(".svg")
            : selectedFilter == pdfFilter ? QStringLiteral(".pdf")
                                          : QStringLiteral(".png");
    if (QFileInfo::exists(path) &&
        QMessageBox::question(this, tr("Export Image"), tr("%1 already exists. Replace it?").arg(path)) !=
            QMessageBox::Yes)
      return;
  }
  if (choice.header)
    describeExport(choice.options, tracePath, prediction ? prediction->applied : std::vector<Hypothesis>{},
                   prediction ? prediction->measuredTime : session_->trace()->endTime,
                   prediction ? prediction->predictedTime : -1, session_->trace().get(),
                   prediction ? prediction->network : QString());
  QString error;
  if (!exportTimelineImage(exportParts(choice.options, choice.header), path, true, &error))
    showError(tr("Cannot export image"), error);
  else
    statusBar()->showMessage(tr("Exported %1").arg(path), 4000);
}

void MainWindow::exportPredictedTraceDialog() {
  if (!session_->trace() || !session_->prediction()) return;
  if (!session_->isPredictionCurrent()) {
    report(tr("Wait for the prediction of the current scenario, then export it"));
    return;
  }
  const QString tracePath = session_->tracePath();
  // The input's own format by default (an OTF2 archive gives an OTF2 archive): the reader's
  // name of it, kept in the trace.
  const std::string& format = session_->trace()->format;
  const QString alogFilter = tr("ALOG trace (*.alog)"), otfFilter = tr("OTF trace (*.otf)"),
                otf2Filter = tr("OTF2 archive (*.otf2)");
  QString filter = format == "otf2" ? otf2Filter : format == "otf" ? otfFilter : alogFilter;
  const QString ext = QStringLiteral(".") + QString::fromStdString(format == "otf2" || format == "otf" ? format : "alog");
  const QString suggestion =
      QDir(dialogFolder(tracePath, true))
          .absoluteFilePath(QFileInfo(tracePath).completeBaseName() + QStringLiteral("-predicted") + ext);
  const QString path = QFileDialog::getSaveFileName(this, tr("Export Predicted Trace"), suggestion,
                                                    alogFilter + QStringLiteral(";;") + otfFilter + QStringLiteral(";;") + otf2Filter,
                                                    &filter, QFileDialog::DontConfirmOverwrite);
  if (path.isEmpty()) return;
  rememberDialogFolder(path);
  if (QFileInfo::exists(path)) {
    QMessageBox::warning(this, tr("Export Predicted Trace"),
                         tr("%1 already exists. PerWiz never overwrites a trace; choose another name.").arg(path));
    return;
  }
  QString why;
  if (!session_->exportPredictedTrace(path, &why)) {
    showError(tr("Cannot export the predicted trace"), why);
    return;
  }
  setStatusText(tr("Writing the predicted trace…"));
}

// ---------------------------------------------------------------------------------------------
// Recent files, title, errors, drag and drop

void MainWindow::addRecent(const QString& path) {
  QSettings settings;
  QStringList files = settings.value(QLatin1String(kRecentKey)).toStringList();
  files.removeAll(path);
  files.prepend(path);
  while (files.size() > kMaxRecent) files.removeLast();
  settings.setValue(QLatin1String(kRecentKey), files);
  updateRecentMenu();
}

void MainWindow::updateRecentMenu() {
  recentMenu_->clear();
  const QStringList files = QSettings().value(QLatin1String(kRecentKey)).toStringList();
  for (const QString& f : files) {
    auto* a = recentMenu_->addAction(QFileInfo(f).fileName());
    a->setToolTip(f);
    a->setStatusTip(f);
    connect(a, &QAction::triggered, this, [this, f] {
      if (!mayDropChanges()) return;
      if (f.endsWith(QLatin1String(".perwiz"), Qt::CaseInsensitive))
        openSession(f);
      else
        openTrace(f);
    });
  }
  recentMenu_->setEnabled(!files.isEmpty());
  if (!files.isEmpty()) {
    recentMenu_->addSeparator();
    recentMenu_->addAction(tr("Clear Recent Files"), this, [this] {
      QSettings().remove(QLatin1String(kRecentKey));
      updateRecentMenu();
    });
  }
}

void MainWindow::updateTitle() {
  // "[*]" is where Qt shows the modified mark (setWindowModified).
  const QString trace = QFileInfo(session_->tracePath()).fileName();
  const QString sessionFile = QFileInfo(session_->sessionPath()).fileName();
  if (trace.isEmpty())
    setWindowTitle(tr("PerWiz"));
  else if (sessionFile.isEmpty())
    setWindowTitle(tr("%1[*] — PerWiz").arg(trace));
  else
    setWindowTitle(tr("%1[*] (%2) — PerWiz").arg(sessionFile, trace));
  setWindowModified(session_->isModified());
}

void MainWindow::dragEnterEvent(QDragEnterEvent* event) {
  const auto urls = event->mimeData()->urls();
  if (!urls.isEmpty() && urls.first().isLocalFile()) event->acceptProposedAction();
}

void MainWindow::dropEvent(QDropEvent* event) {
  const auto urls = event->mimeData()->urls();
  if (urls.isEmpty() || !urls.first().isLocalFile()) return;
  const QString path = urls.first().toLocalFile();
  if (!mayDropChanges()) return;
  if (path.endsWith(QLatin1String(".perwiz"), Qt::CaseInsensitive))
    openSession(path);
  else
    openTrace(path);
  event->acceptProposedAction();
}

void MainWindow::compensationDialog() {
  const auto& trace = session_->trace();
  if (!trace) return;
  TimeNs recorded = -1;  // per record, when every rank has it
  for (std::uint32_t r = 0; r < trace->rankCount(); ++r) {
    const TimeNs o = recordedEventOverhead(*trace, r);
    if (o < 0) {
      recorded = -1;
      break;
    }
    recorded = std::max(recorded, o);
  }
  QDialog d(this);
  d.setWindowTitle(tr("Compensate Measurement Overhead"));
  // Wide enough for its title in the title bar (a word-wrapped text would make it narrower).
  d.setMinimumWidth(std::max(480, d.fontMetrics().horizontalAdvance(d.windowTitle()) * 3 / 2 + 120));
  auto* layout = new QVBoxLayout(&d);
  auto* text = new QLabel(tr("Every traced event cost the program some time for its measurement. Compensation "
                             "removes it from every rank and propagates the delays along messages and "
                             "collectives (Malony et al.), giving the uninstrumented run."),
                          &d);
  text->setWordWrap(true);
  layout->addWidget(text);
  auto* fromTrace = new QRadioButton(recorded >= 0 ? tr("Overhead recorded by the tracer (%1 per record)").arg(formatDuration(recorded))
                                                   : tr("Overhead recorded by the tracer (this trace has none)"),
                                     &d);
  fromTrace->setEnabled(recorded >= 0);
  auto* given = new QRadioButton(tr("Overhead per event:"), &d);
  auto* ns = new QSpinBox(&d);
  ns->setRange(0, 100000000);
  ns->setSuffix(tr(" ns"));
  ns->setValue(recorded >= 0 ? int(2 * recorded) : 500);
  auto* row = new QHBoxLayout;
  row->addWidget(given);
  row->addWidget(ns);
  row->addStretch(1);
  layout->addWidget(fromTrace);
  layout->addLayout(row);
  (recorded >= 0 ? fromTrace : given)->setChecked(true);
  connect(given, &QRadioButton::toggled, ns, &QWidget::setEnabled);
  ns->setEnabled(given->isChecked());
  auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, &d);
  connect(buttons, &QDialogButtonBox::accepted, &d, &QDialog::accept);
  connect(buttons, &QDialogButtonBox::rejected, &d, &QDialog::reject);
  layout->addWidget(buttons);
  if (d.exec() != QDialog::Accepted) return;
  QString why;
  if (!requestCompensation(fromTrace->isChecked() ? kOverheadFromTrace : std::int64_t(ns->value()), &why))
    report(why);
}

void MainWindow::closeEvent(QCloseEvent* event) {
  if (!mayDropChanges()) {
    event->ignore();
    return;
  }
  session_->cancelLoad();
  event->accept();
}

}  // namespace perwiz::gui
