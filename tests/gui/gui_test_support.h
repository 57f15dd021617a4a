// What the GUI tests share (tests/gui/test_gui_*.cpp): helpers, and the test classes' runner.
#pragma once

#include "advisor_dock.h"
#include "app_paths.h"
#include "analysis_session.h"
#include "advisor_runner.h"
#include "charts_dock.h"
#include "comparison_dock.h"
#include "overhead_dock.h"
#include "overhead_spans.h"

#include <qcustomplot.h>
#include "hypothesis_commands.h"
#include "network_model_dialog.h"
#include "region_picker_dialog.h"
#include "test_traces.h"
#include "export_image.h"
#include "headless_export.h"
#include "i18n.h"
#include "inspector_dock.h"
#include "main_window.h"
#include "prediction_worker.h"
#include "session_file.h"
#include "units.h"
#include "cli_runner.h"

#include "perwiz/advisor.h"
#include "perwiz/generator.h"
#include "perwiz/overhead_detection.h"
#include "perwiz/trace_builder.h"
#include "perwiz/loggp_models.h"
#include "perwiz/replay.h"
#include "perwiz/trace_io.h"
#include "perwiz/widgets/timeline_view.h"

#include <QDialogButtonBox>
#include <QRegularExpression>
#include <QTabBar>
#include <QDockWidget>
#include <QAbstractButton>
#include <QFile>
#include <QFileDialog>
#include <QInputDialog>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QTimer>
#include <QToolButton>
#include <QImage>
#include <QListWidget>
#include <QTextLayout>
#include <QMenu>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QMenuBar>
#include <QMimeData>
#include <QPushButton>
#include <QRadioButton>
#include <QSpinBox>
#include <QSettings>
#include <QStatusBar>
#include <QTabWidget>
#include <QTableWidget>
#include <QTreeWidget>
#include <QProcess>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QUndoStack>
#include <QXmlStreamReader>
#include <QtTest>

#include <functional>
#include <map>

namespace perwiz::gui_test {

using namespace perwiz;
using perwiz::gui::MainWindow;
using perwiz::ui::TimelineItem;

inline const QString kSample = QStringLiteral(PERWIZ_SAMPLE);

// Drags `path` onto the window and drops it, as a file manager does; true when the window
// accepted the drag and loaded the trace.
inline bool dropFile(MainWindow& w, const QString& path) {
  QMimeData mime;
  mime.setUrls({QUrl::fromLocalFile(path)});
  QDragEnterEvent enter(QPoint(50, 50), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
  QApplication::sendEvent(&w, &enter);
  if (!enter.isAccepted()) return false;
  QDropEvent drop(QPointF(50, 50), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
  QSignalSpy loaded(&w, &MainWindow::traceLoaded);
  QApplication::sendEvent(&w, &drop);
  return loaded.wait(10000);
}

inline TimeNs corePrediction(const Trace& trace, std::vector<Hypothesis> hs) {
  Scenario s;
  s.hypotheses = std::move(hs);
  Replayer r(trace, s);
  return r.predictedTime();
}

// A generated trace with imbalanced computation before each Allreduce, saved as OTF2 named
// `name`.otf2 under `dir`.
inline QString generatedTrace(const QTemporaryDir& dir, const QString& name, std::uint32_t ranks, std::uint32_t steps,
                              double imbalance, std::uint64_t seed) {
  GeneratorSpec spec;
  spec.ranks = ranks;
  spec.steps = steps;
  spec.imbalance = imbalance;
  spec.seed = seed;
  TraceBuilder b(name.toStdString(), "generated");
  generateTrace(spec, b);
  const QString path = dir.filePath(name + QStringLiteral(".otf2"));
  saveTrace(b.take(), path.toStdString());
  return path;
}

// An 8-rank generated trace with imbalanced computation before each Allreduce (so the
// Allreduce durations vary and some count as overhead), saved as OTF2 under `dir`.
inline QString imbalancedTrace(const QTemporaryDir& dir) {
  return generatedTrace(dir, QStringLiteral("imbalanced"), 8, 120, 0.3, 11);
}


// `perwiz ARGS` offscreen: its exit code (-100 timed out, -101 crashed) and stderr.
inline int runHeadless(const QStringList& args, QString* err = nullptr) {
  QProcess p;
  QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
  env.insert(QStringLiteral("QT_QPA_PLATFORM"), QStringLiteral("offscreen"));
  p.setProcessEnvironment(env);
  p.start(QStringLiteral(PERWIZ_GUI_BIN), args);
  if (!p.waitForFinished(60000)) return -100;
  if (err) *err = QString::fromLocal8Bit(p.readAllStandardError());
  return p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -101;
}

inline bool waitReady(MainWindow& w) {
  return QTest::qWaitFor(
      [&] { return w.session()->trace().get() && !w.session()->isLoading() && w.session()->isPredictionCurrent(); },
      20000);
}

// A window of `size`, shown, with `trace` loaded and its first prediction in.
inline bool openShown(MainWindow& w, const QString& trace, QSize size) {
  w.resize(size);
  w.show();
  if (!QTest::qWaitForWindowExposed(&w)) return false;
  w.openTrace(trace);
  return waitReady(w);
}

// The MPI call with the longest measured wait whose zeroing changes T.
struct Call {
  std::uint32_t rank = 0, mpi = 0, event = 0;
};
inline Call callWithLongestWait(const Trace& trace) {
  Replayer r(trace, Scenario{});
  Call best;
  TimeNs bestWait = -1;
  for (std::uint32_t rank = 0; rank < trace.rankCount(); ++rank)
    for (std::uint32_t i = 0; i < trace.ranks[rank].mpiCalls.size(); ++i)
      if (r.measuredWait(rank, i) > bestWait) {
        bestWait = r.measuredWait(rank, i);
        best = {rank, i, trace.ranks[rank].mpiCalls[i]};
      }
  return best;
}

// Types a path into a (Qt, not native) file dialog's name field and presses Enter.
inline void typeFileName(QFileDialog* dialog, const QString& path) {
  auto* edit = dialog->findChild<QLineEdit*>(QStringLiteral("fileNameEdit"));
  QVERIFY(edit);
  edit->setText(path);
  QTest::keyClick(edit, Qt::Key_Return);
}

// Each test class registers itself by name (test_gui_main.cpp runs the one named on its
// command line, or all of them).
std::map<QString, std::function<int(const QStringList&)>>& testClasses();
template <class T>
struct RegisterTests {
  explicit RegisterTests(const char* name) {
    testClasses()[QString::fromLatin1(name)] = [](const QStringList& args) {
      T t;
      return QTest::qExec(&t, args);
    };
  }
};

}  // namespace perwiz::gui_test
