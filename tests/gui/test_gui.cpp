// GUI tests (issue #5): the main window on the offscreen platform — background load, selection
// by clicking, hypotheses by key with undo, live prediction equal to the core's, sessions,
// headless export and the Japanese translation.
#include "advisor_dock.h"
#include "analysis_session.h"
#include "advisor_runner.h"
#include "charts_dock.h"
#include "overhead_dock.h"
#include "overhead_spans.h"

#include <qcustomplot.h>
#include "hypothesis_commands.h"
#include "network_model_dialog.h"
#include "region_picker_dialog.h"
#include "test_traces.h"
#include "export_image.h"
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
#include <QImage>
#include <QListWidget>
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

using namespace perwiz;
using perwiz::gui::MainWindow;
using perwiz::ui::TimelineItem;

namespace {

const QString kSample = QStringLiteral(PERWIZ_SAMPLE);

// Drags `path` onto the window and drops it, as a file manager does; true when the window
// accepted the drag and loaded the trace.
bool dropFile(MainWindow& w, const QString& path) {
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

TimeNs corePrediction(const Trace& trace, std::vector<Hypothesis> hs) {
  Scenario s;
  s.hypotheses = std::move(hs);
  Replayer r(trace, s);
  return r.predictedTime();
}

// An 8-rank generated trace with imbalanced computation before each Allreduce (so the
// Allreduce durations vary and some count as overhead), saved as OTF2 under `dir`.
QString imbalancedTrace(const QTemporaryDir& dir) {
  GeneratorSpec spec;
  spec.ranks = 8;
  spec.steps = 120;
  spec.imbalance = 0.3;
  spec.seed = 11;
  TraceBuilder b("imbalanced", "generated");
  generateTrace(spec, b);
  const QString path = dir.filePath(QStringLiteral("imbalanced.otf2"));
  saveTrace(b.take(), path.toStdString());
  return path;
}

// `perwiz ARGS` offscreen: its exit code (-100 timed out, -101 crashed) and stderr.
int runHeadless(const QStringList& args, QString* err = nullptr) {
  QProcess p;
  QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
  env.insert(QStringLiteral("QT_QPA_PLATFORM"), QStringLiteral("offscreen"));
  p.setProcessEnvironment(env);
  p.start(QStringLiteral(PERWIZ_GUI_BIN), args);
  if (!p.waitForFinished(60000)) return -100;
  if (err) *err = QString::fromLocal8Bit(p.readAllStandardError());
  return p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -101;
}

bool waitReady(MainWindow& w) {
  return QTest::qWaitFor(
      [&] { return w.session()->trace().get() && !w.session()->isLoading() && w.session()->isPredictionCurrent(); },
      20000);
}

// The MPI call with the longest measured wait whose zeroing changes T.
struct Call {
  std::uint32_t rank = 0, mpi = 0, event = 0;
};
Call callWithLongestWait(const Trace& trace) {
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

}  // namespace

class TestGui : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() {
    QStandardPaths::setTestModeEnabled(true);
    QCoreApplication::setOrganizationName(QStringLiteral("PerWizTest"));
    QCoreApplication::setApplicationName(QStringLiteral("perwiz-test"));
    QVERIFY(QFile::exists(kSample));
  }

  void loadErrorIsReported() {
    MainWindow w;
    QSignalSpy failed(&w, &MainWindow::loadFailed);
    w.openTrace(QStringLiteral("/nonexistent/trace.alog"));
    QVERIFY(failed.wait(10000));
    QVERIFY(w.lastError().contains(QStringLiteral("/nonexistent/trace.alog")));
    QVERIFY(w.session()->trace().get() == nullptr);
  }

  void clickSelectZeroWaitUndo() {
    MainWindow w;
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    w.activateWindow();
    QSignalSpy loaded(&w, &MainWindow::traceLoaded);
    w.openTrace(kSample);
    QVERIFY(loaded.wait(10000));
    QVERIFY(waitReady(w));
    const Trace& trace = *w.session()->trace().get();
    const TimeNs measured = w.measuredTimeShown();
    QCOMPARE(measured, trace.endTime);
    QCOMPARE(w.predictedTimeShown(), measured);  // no hypothesis, measured costs: identity

    const Call call = callWithLongestWait(trace);
    const QPointF centre = w.timeline()->eventCenter(call.rank, call.event);
    QVERIFY2(w.timeline()->rect().contains(centre.toPoint()), "event not visible");
    QTest::mouseClick(w.timeline(), Qt::LeftButton, {}, centre.toPoint());
    const TimelineItem sel = w.timeline()->selection();
    QCOMPARE(sel.kind, TimelineItem::Kind::Event);
    QCOMPARE(sel.rank, call.rank);
    QCOMPARE(sel.event, call.event);

    w.timeline()->setFocus();
    QTest::keyClick(w.timeline(), Qt::Key_Z);
    // The change shows at once, as pending, until its prediction arrives (the key's handler
    // has run; the worker's result cannot have been delivered without the event loop).
    QCOMPARE(w.session()->document()->entries().size(), std::size_t(1));
    auto* list = w.findChild<QListWidget*>(QStringLiteral("hypothesisList"));
    QVERIFY(list && list->count() == 1);
    QVERIFY2(list->item(0)->text().contains(QStringLiteral("pending")), qPrintable(list->item(0)->text()));
    QVERIFY(waitReady(w));
    QVERIFY2(!list->item(0)->text().contains(QStringLiteral("pending")), qPrintable(list->item(0)->text()));
    Hypothesis h;
    h.kind = HypothesisKind::ZeroWait;
    h.event = EventRef{call.rank, call.mpi, false};
    QCOMPARE(w.session()->document()->entries()[0].hypothesis, h);
    const TimeNs expected = corePrediction(trace, {h});
    QVERIFY(expected < measured);
    QCOMPARE(w.predictedTimeShown(), expected);
    QVERIFY(w.summaryText().contains(QStringLiteral("→")));

    // Undo restores the measured T; redo brings the hypothesis back.
    QVERIFY(w.session()->undoStack()->canUndo());
    w.session()->undoStack()->undo();
    QVERIFY(w.session()->document()->entries().empty());
    QVERIFY(waitReady(w));
    QCOMPARE(w.predictedTimeShown(), measured);
    w.session()->undoStack()->redo();
    QVERIFY(waitReady(w));
    QCOMPARE(w.predictedTimeShown(), expected);

    // Zero event on the same call (E) combines with it.
    QTest::keyClick(w.timeline(), Qt::Key_E);
    QTRY_COMPARE_WITH_TIMEOUT(w.session()->document()->entries().size(), std::size_t(2), 5000);
    QVERIFY(waitReady(w));
    Hypothesis e = h;
    e.kind = HypothesisKind::ZeroEvent;
    QCOMPARE(w.predictedTimeShown(), corePrediction(trace, {h, e}));
  }

  // Click a message arrow on the sample: the inspector names both calls and the bytes; Z
  // zeroes the wait of the call that completes the receive.
  void clickMessageArrowZeroesTheReceiversWait() {
    MainWindow w;
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    QSignalSpy loaded(&w, &MainWindow::traceLoaded);
    w.openTrace(kSample);
    QVERIFY(loaded.wait(10000));
    QVERIFY(waitReady(w));
    const Trace& trace = *w.session()->trace().get();
    // The matched message whose receive waited longest, drawn across at least one other row.
    const auto& waits = *w.session()->prediction()->measuredWaits;
    std::uint32_t sr = 0, se = kNone32, rr = 0, rcall = 0;
    TimeNs longest = -1;
    for (std::uint32_t r = 0; r < trace.rankCount(); ++r)
      for (std::uint32_t j = 0; j < trace.ranks[r].messages.size(); ++j) {
        const MessageEndpoint m = trace.ranks[r].messages[j];
        if (!m.isSend || !m.matched() || (m.matchRank > r ? m.matchRank - r : r - m.matchRank) < 2) continue;
        const MessageEndpoint o = trace.ranks[m.matchRank].messages[m.matchIndex];
        const int mpi = gui::mpiIndexOf(trace, m.matchRank, o.event);
        if (mpi < 0 || waits[m.matchRank][std::size_t(mpi)] <= longest) continue;
        longest = waits[m.matchRank][std::size_t(mpi)];
        sr = r;
        se = j;
        rr = m.matchRank;
        rcall = std::uint32_t(mpi);
      }
    QVERIFY2(se != kNone32 && longest > 0, "the sample has a waiting receive two rows away");
    const QPointF mid = w.timeline()->messagePoint(sr, se, 0.5);
    QVERIFY2(w.timeline()->rect().contains(mid.toPoint()), "arrow not visible");
    QTest::mouseClick(w.timeline(), Qt::LeftButton, {}, mid.toPoint());
    const TimelineItem sel = w.timeline()->selection();
    QCOMPARE(sel.kind, TimelineItem::Kind::Message);
    QCOMPARE(sel.rank, sr);
    QCOMPARE(sel.event, se);
    QStringList texts;
    for (QLabel* l : w.findChild<QDockWidget*>(QStringLiteral("inspectorDock"))->findChildren<QLabel*>()) texts << l->text();
    const QString all = texts.join(QLatin1Char('|'));
    QVERIFY2(all.contains(QStringLiteral("Message %1 → %2").arg(sr).arg(rr)), qPrintable(all));
    QVERIFY2(all.contains(QStringLiteral("Sender call:")) && all.contains(QStringLiteral("Receiver call:")), qPrintable(all));
    QVERIFY2(all.contains(QString::number(trace.ranks[sr].messages[se].bytes)), qPrintable(all));
    QVERIFY2(all.contains(gui::formatDuration(longest)), qPrintable(all));  // the receiver's wait
    if (const QString shots = qEnvironmentVariable("PERWIZ_SCREENSHOT_DIR"); !shots.isEmpty()) {
      QTest::qWait(200);
      QVERIFY(w.grab().save(QDir(shots).filePath(QStringLiteral("message-selected.png"))));
    }
    w.timeline()->setFocus();
    QTest::keyClick(w.timeline(), Qt::Key_Z);
    QCOMPARE(w.session()->document()->entries().size(), std::size_t(1));
    Hypothesis h;
    h.kind = HypothesisKind::ZeroWait;
    h.event = EventRef{rr, rcall, false};
    QCOMPARE(w.session()->document()->entries()[0].hypothesis, h);
    QVERIFY(waitReady(w));
    QCOMPARE(w.predictedTimeShown(), corePrediction(trace, {h}));
  }

  // The first hypothesis shows measured and predicted side by side: lanes, or the comparison
  // view the user chose last (remembered across windows and runs).
  void firstHypothesisShowsTheRememberedComparisonView() {
    QSettings().remove(QStringLiteral("view/comparisonMode"));
    auto firstToggle = [&](MainWindow& w) {
      w.show();
      QSignalSpy loaded(&w, &MainWindow::traceLoaded);
      w.openTrace(kSample);
      QVERIFY(loaded.wait(10000));
      QVERIFY(waitReady(w));
      QCOMPARE(w.timeline()->mode(), ui::TimelineMode::Measured);
      const Call call = callWithLongestWait(*w.session()->trace().get());
      w.timeline()->setSelection(TimelineItem{TimelineItem::Kind::Event, call.rank, call.event, 0, false});
      w.timeline()->setFocus();
      QTest::keyClick(w.timeline(), Qt::Key_Z);
      QVERIFY(waitReady(w));
    };
    {
      MainWindow w;
      firstToggle(w);
      QCOMPARE(w.timeline()->mode(), ui::TimelineMode::Lanes);
      if (const QString shots = qEnvironmentVariable("PERWIZ_SCREENSHOT_DIR"); !shots.isEmpty()) {
        QTest::qWait(200);
        QVERIFY(w.grab().save(QDir(shots).filePath(QStringLiteral("first-hypothesis-lanes.png"))));
      }
      QAction* overlay = nullptr;
      for (QAction* a : w.findChildren<QAction*>())
        if (a->text() == QStringLiteral("&Overlay")) overlay = a;
      QVERIFY(overlay);
      overlay->trigger();
      QCOMPARE(w.timeline()->mode(), ui::TimelineMode::Overlay);
    }
    {
      MainWindow w;
      firstToggle(w);
      QCOMPARE(w.timeline()->mode(), ui::TimelineMode::Overlay);
    }
    QSettings().remove(QStringLiteral("view/comparisonMode"));
  }

  // Quit (close) and Open ask before unsaved hypotheses are dropped; the title shows the
  // session's name and the modified mark.
  void unsavedHypothesesAreNotDroppedSilently() {
    MainWindow w;
    w.show();
    QSignalSpy loaded(&w, &MainWindow::traceLoaded);
    w.openTrace(kSample);
    QVERIFY(loaded.wait(10000));
    QVERIFY(waitReady(w));
    QVERIFY(!w.isWindowModified());
    QCOMPARE(w.windowTitle(), QStringLiteral("ring4.alog[*] — PerWiz"));
    const Call call = callWithLongestWait(*w.session()->trace().get());
    w.timeline()->setSelection(TimelineItem{TimelineItem::Kind::Event, call.rank, call.event, 0, false});
    w.timeline()->setFocus();
    QTest::keyClick(w.timeline(), Qt::Key_Z);
    QVERIFY(waitReady(w));
    QVERIFY(w.isWindowModified());
    // The question that comes up is answered by clicking `button`; records what it asked.
    QString asked;
    auto answer = [&](QMessageBox::StandardButton button) {
      QTimer::singleShot(0, [&asked, button] {
        auto* box = qobject_cast<QMessageBox*>(QApplication::activeModalWidget());
        if (!box) return;
        asked = box->text();
        box->button(button)->click();
      });
    };
    answer(QMessageBox::Cancel);
    QVERIFY(!w.close());  // Cancel: the window stays, with its hypothesis
    QVERIFY2(asked.contains(QStringLiteral("hypotheses")), qPrintable(asked));
    QVERIFY(w.isVisible());
    QCOMPARE(w.session()->document()->entries().size(), std::size_t(1));
    asked.clear();
    QAction* open = nullptr;
    for (QAction* a : w.findChildren<QAction*>())
      if (a->text() == QStringLiteral("&Open Trace…")) open = a;
    QVERIFY(open);
    answer(QMessageBox::Cancel);
    open->trigger();  // asks first; Cancel: no file dialog, nothing dropped
    QVERIFY2(asked.contains(QStringLiteral("hypotheses")), qPrintable(asked));
    QCOMPARE(w.session()->document()->entries().size(), std::size_t(1));
    // Saved: the title names the session, no mark, and closing asks nothing.
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("unsaved.perwiz"));
    QVERIFY(w.saveSessionTo(path));
    QVERIFY(!w.isWindowModified());
    QCOMPARE(w.windowTitle(), QStringLiteral("%1[*] (ring4.alog) — PerWiz").arg(QFileInfo(path).fileName()));
    asked.clear();
    QVERIFY(w.close());
    QVERIFY(asked.isEmpty());
  }

  // Export Predicted Trace suggests the input's own format: an OTF2 archive for an OTF2 input.
  void exportPredictedTraceSuggestsTheInputsFormat() {
    MainWindow w;
    w.show();
    QSignalSpy loaded(&w, &MainWindow::traceLoaded);
    w.openTrace(QStringLiteral(PERWIZ_SAMPLE_OTF2));
    QVERIFY(loaded.wait(10000));
    QVERIFY(waitReady(w));
    QString suggested;
    auto* timer = new QTimer(&w);
    timer->setInterval(20);
    QObject::connect(timer, &QTimer::timeout, [&suggested, timer] {
      auto* files = qobject_cast<QFileDialog*>(QApplication::activeModalWidget());
      if (!files) return;
      suggested = files->selectedFiles().value(0);
      timer->stop();
      files->reject();
    });
    timer->start();
    w.findChild<QAction*>(QStringLiteral("exportPredictedTrace"))->trigger();
    QVERIFY2(suggested.endsWith(QStringLiteral("binary_swap_8-predicted.otf2")), qPrintable(suggested));
  }

  // Help ▸ Keyboard and Mouse lists the keys; View ▸ a dock brings it to the front of its tabs.
  void keyboardHelpAndDocksComeToTheFront() {
    MainWindow w;
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    w.findChild<QAction*>(QStringLiteral("keyboardHelp"))->trigger();
    auto* box = w.findChild<QMessageBox*>(QStringLiteral("keyboardHelp"));
    QVERIFY(box);
    for (const char* key : {"<b>Z</b>", "<b>P</b>", "<b>Esc</b>", "<b>← / →</b>", "message arrow"})
      QVERIFY2(box->text().contains(QString::fromUtf8(key)), key);
    box->close();
    auto* charts = w.findChild<QDockWidget*>(QStringLiteral("chartsDock"));
    QVERIFY(charts);
    charts->show();
    w.advisorDock()->show();
    QVERIFY(!w.tabifiedDockWidgets(charts).isEmpty());  // it shares its place with the advisor
    auto inFront = [&] {
      for (QTabBar* bar : w.findChildren<QTabBar*>())
        for (int i = 0; i < bar->count(); ++i)
          if (bar->tabText(i) == charts->windowTitle()) return bar->currentIndex() == i;
      return false;
    };
    // Behind the advisor's tab: View ▸ Charts brings it to the front (it used to hide it).
    w.advisorDock()->show();
    w.advisorDock()->raise();
    QTRY_VERIFY(!inFront());
    QAction* viewCharts = w.findChild<QAction*>(QStringLiteral("chartsDockAction"));
    QVERIFY(viewCharts && viewCharts->isChecked());
    viewCharts->trigger();
    QTRY_VERIFY(inFront());
    QVERIFY(!charts->isHidden());
    QVERIFY(viewCharts->isChecked());
    // In front: the same entry hides it; again: shown in front.
    viewCharts->trigger();
    QVERIFY(charts->isHidden());
    QVERIFY(!viewCharts->isChecked());
    viewCharts->trigger();
    QTRY_VERIFY(inFront());
  }

  void balanceStepByKey() {
    MainWindow w;
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    w.openTrace(kSample);
    QVERIFY(waitReady(w));
    const Trace& trace = *w.session()->trace().get();
    QVERIFY(!trace.steps.empty());
    // The step whose balancing changes T the most.
    std::uint32_t best = 0;
    TimeNs bestT = trace.endTime + 1;
    for (std::uint32_t k = 0; k < trace.steps.size(); ++k) {
      Hypothesis b;
      b.kind = HypothesisKind::BalanceCompute;
      b.step = k;
      const TimeNs t = corePrediction(trace, {b});
      if (t < bestT) bestT = t, best = k;
    }
    TimelineItem step;
    step.kind = TimelineItem::Kind::Step;
    step.step = best;
    w.timeline()->setSelection(step);
    w.timeline()->setFocus();
    QTest::keyClick(w.timeline(), Qt::Key_B);
    QTRY_COMPARE_WITH_TIMEOUT(w.session()->document()->entries().size(), std::size_t(1), 5000);
    QVERIFY(waitReady(w));
    QCOMPARE(w.session()->document()->entries()[0].hypothesis.kind, HypothesisKind::BalanceCompute);
    QCOMPARE(w.session()->document()->entries()[0].hypothesis.step, best);
    QCOMPARE(w.predictedTimeShown(), bestT);

    // V on the same step, then disable B from the dock's check box (undoable).
    QTest::keyClick(w.timeline(), Qt::Key_V);
    QTRY_COMPARE_WITH_TIMEOUT(w.session()->document()->entries().size(), std::size_t(2), 5000);
    QVERIFY(waitReady(w));
    Hypothesis b{HypothesisKind::BalanceCompute, {}, best};
    Hypothesis v{HypothesisKind::BalanceVolume, {}, best};
    QCOMPARE(w.predictedTimeShown(), corePrediction(trace, {b, v}));
    auto* list = w.findChild<QListWidget*>(QStringLiteral("hypothesisList"));
    QVERIFY(list);
    QCOMPARE(list->count(), 2);
    list->item(0)->setCheckState(Qt::Unchecked);  // entries are sorted: balance-compute first
    QVERIFY(!w.session()->document()->entries()[0].enabled);
    QVERIFY(waitReady(w));
    QCOMPARE(w.predictedTimeShown(), corePrediction(trace, {v}));
    w.session()->undoStack()->undo();
    QVERIFY(w.session()->document()->entries()[0].enabled);
    QVERIFY(waitReady(w));
    QCOMPARE(w.predictedTimeShown(), corePrediction(trace, {b, v}));
  }

  void sessionRoundTrip() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString path = dir.filePath(QStringLiteral("s.perwiz"));
    std::vector<gui::HypothesisEntry> expected;
    TimeNs shown = -1;
    {
      MainWindow w;
      w.openTrace(kSample);
      QVERIFY(waitReady(w));
      const Call call = callWithLongestWait(*w.session()->trace().get());
      Hypothesis z{HypothesisKind::ZeroWait, EventRef{call.rank, call.mpi, false}, 0};
      Hypothesis b{HypothesisKind::BalanceCompute, {}, 1};
      w.session()->undoStack()->push(new gui::AddHypothesisCommand(w.session()->document(), z));
      w.session()->undoStack()->push(new gui::AddHypothesisCommand(w.session()->document(), b));
      w.session()->undoStack()->push(new gui::SetHypothesisEnabledCommand(w.session()->document(), b, false));
      QVERIFY(waitReady(w));
      w.timeline()->setMode(ui::TimelineMode::Lanes);
      QString error;
      QVERIFY2(w.saveSessionTo(path, &error), qPrintable(error));
      expected = w.session()->document()->entries();
      shown = w.predictedTimeShown();
      QCOMPARE(shown, corePrediction(*w.session()->trace().get(), {z}));
    }
    gui::SessionData data;
    QString error;
    QVERIFY2(gui::loadSession(path, data, &error), qPrintable(error));
    QCOMPARE(data.disabled, QStringList{QStringLiteral("balance-compute step 1")});
    QCOMPARE(data.mode, QStringLiteral("lanes"));

    MainWindow w2;
    w2.openSession(path);
    QVERIFY(waitReady(w2));
    QVERIFY(w2.session()->document()->entries() == expected);
    QCOMPARE(w2.predictedTimeShown(), shown);
    QCOMPARE(w2.timeline()->mode(), ui::TimelineMode::Lanes);
  }

  // Threads (issue #37): a hybrid trace opens with its threads and predicts its ranks; a trace
  // of threads only opens, says why nothing is predicted, never starts a prediction, and its
  // headless export draws the measured view only.
  void threadsInTheWindowAndExports() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    auto write = [&](std::uint32_t ranks, const QString& name) {
      TraceBuilder b("hand", "test");
      b.begin({ranks, {}, {{"OMP 1", ranks ? 0 : -1}, {"OMP 2", ranks ? 0 : -1}}});
      const auto work = b.defineFunction({"work", EventKind::UserState, MpiOp::None, ""});
      const auto barrier = b.defineFunction({"MPI_Barrier", EventKind::MpiCall, MpiOp::Barrier, ""});
      for (std::uint32_t r = 0; r < ranks; ++r) {
        b.enter(r, 100, barrier);
        b.leave(r, 200 + 100 * r, barrier);
      }
      b.threadEnter(0, 0, work);
      b.threadLeave(0, 900, work);
      b.threadEnter(1, 50, work);
      b.threadLeave(1, 700, work);
      b.end();
      const QString path = dir.filePath(name);
      saveTrace(b.take(), path.toStdString());
      return path;
    };
    const QString hybrid = write(2, QStringLiteral("hybrid"));
    const QString only = write(0, QStringLiteral("only"));
    {
      MainWindow w;
      w.openTrace(hybrid);
      QVERIFY(waitReady(w));
      QCOMPARE(w.session()->trace().get()->threads.size(), std::size_t(2));
      QVERIFY(w.summaryText().contains(QStringLiteral("measured")));
      ui::TimelineExportOptions o;
      o.mode = ui::TimelineMode::Overlay;
      gui::describeExport(o, hybrid, {}, 300, 300, w.session()->trace().get());
      QVERIFY2(o.notes.join('|').contains(QStringLiteral("2 thread(s) under their ranks")), qPrintable(o.notes.join('|')));
    }
    {
      MainWindow w;
      w.openTrace(only);
      QVERIFY(QTest::qWaitFor([&] { return w.session()->trace().get() && !w.session()->isLoading(); }, 20000));
      QCOMPARE(w.session()->trace().get()->rankCount(), std::size_t(0));
      QCOMPARE(w.session()->trace().get()->threads.size(), std::size_t(2));
      QTest::qWait(300);
      QVERIFY2(w.summaryText().contains(QStringLiteral("No MPI rank")), qPrintable(w.summaryText()));
      QVERIFY(!w.session()->isPredictionCurrent());
      w.timeline()->grab();
      QCOMPARE(w.timeline()->lastFrameStats().rows, 2);
    }
    QString err;
    QCOMPARE(runHeadless({QStringLiteral("--export-image"), dir.filePath(QStringLiteral("m.png")), only}, &err), 0);
    QVERIFY(!QImage(dir.filePath(QStringLiteral("m.png"))).isNull());
    QCOMPARE(runHeadless({QStringLiteral("--export-image"), dir.filePath(QStringLiteral("o.png")), only, QStringLiteral("--view"),
                  QStringLiteral("overlay")}, &err), 1);
    QVERIFY2(err.contains(QStringLiteral("no MPI rank")), qPrintable(err));
    QVERIFY(!QFile::exists(dir.filePath(QStringLiteral("o.png"))));
  }

  // Issue #38 item 2: an image exported from a damaged file says so — the headless export
  // reports the load's warnings on stderr, and the image's header names their count.
  void headlessExportShowsLoadWarnings() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    QFile whole(kSample);
    QVERIFY(whole.open(QIODevice::ReadOnly));
    const QString cut = dir.filePath(QStringLiteral("cut.alog"));
    QFile out(cut);
    QVERIFY(out.open(QIODevice::WriteOnly));
    out.write(whole.read(2000));
    out.close();
    auto trace = std::make_shared<const Trace>(loadTrace(cut.toStdString()));
    const int n = int(trace->warnings.size());
    QVERIFY(n >= 4);
    QString err;
    QCOMPARE(runHeadless({QStringLiteral("--export-image"), dir.filePath(QStringLiteral("c.png")), cut}, &err), 0);
    QVERIFY2(err.contains(QStringLiteral("%1: loaded with %2 warnings").arg(cut).arg(n)), qPrintable(err));
    QVERIFY2(err.contains(QString::fromStdString(trace->warnings[0].toString())), qPrintable(err));
    QVERIFY2(err.contains(QStringLiteral("%1 more: the Warnings panel").arg(n - 3)), qPrintable(err));
    ui::TimelineExportOptions o;
    o.mode = ui::TimelineMode::Measured;
    gui::describeExport(o, cut, {}, trace->endTime, -1, trace.get());
    QVERIFY2(o.notes.contains(QStringLiteral("Loaded with %1 warning(s): the trace may be incomplete").arg(n)),
             qPrintable(o.notes.join('|')));
    // The whole file: no report, no such note.
    QCOMPARE(runHeadless({QStringLiteral("--export-image"), dir.filePath(QStringLiteral("w.png")), kSample}, &err), 0);
    QVERIFY2(!err.contains(QStringLiteral("loaded with")), qPrintable(err));
  }

  // Issue #38 item 7: a trace file name that is not UTF-8 ("no such file or directory" before:
  // QString replaced the byte). Run through the shell, since QProcess passes UTF-8 only.
  void headlessExportOfANonUtf8FileName() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const std::string trace = dir.path().toStdString() + "/ring\xff.alog";
    std::filesystem::copy_file(kSample.toStdString(), trace);
    const std::string png = dir.path().toStdString() + "/out.png";
    const perwiz::test::CliResult r =
        perwiz::test::runProgram(PERWIZ_GUI_BIN, std::filesystem::path(dir.path().toStdString()),
                                 {"--export-image", png, trace});
    QVERIFY2(r.status == 0, r.err.c_str());
    QVERIFY(!QImage(QString::fromStdString(png)).isNull());
  }

  void headlessExport() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    auto run = [](const QStringList& args, QString* err = nullptr) { return runHeadless(args, err); };
    const QString png = dir.filePath(QStringLiteral("t.png"));
    const QString svg = dir.filePath(QStringLiteral("t.svg"));
    const QString pdf = dir.filePath(QStringLiteral("t.pdf"));
    QString err;
    QCOMPARE(run({QStringLiteral("--export-image"), png, kSample}, &err), 0);
    QCOMPARE(run({QStringLiteral("--export-image"), svg, kSample, QStringLiteral("--view"), QStringLiteral("overlay")}), 0);
    QCOMPARE(run({QStringLiteral("--export-image"), pdf, kSample, QStringLiteral("--view"), QStringLiteral("predicted")}), 0);

    // PNG: the size render() asks for, and something drawn on the white background.
    auto trace = std::make_shared<const Trace>(loadTrace(kSample.toStdString()));
    ui::TimelineView view;
    view.setTrace(trace);
    // Headed by the trace's name and its measured run time (describeExport), unless --no-header.
    ui::TimelineExportOptions headed;
    headed.mode = ui::TimelineMode::Measured;
    gui::describeExport(headed, kSample, {}, trace->endTime, -1);
    QCOMPARE(headed.title, QStringLiteral("ring4.alog"));
    QCOMPARE(headed.notes, QStringList{QStringLiteral("Measured run time %1").arg(gui::formatDuration(trace->endTime))});
    const QSize wanted = view.exportSize(headed);
    const QSize plain = view.exportSize(ui::TimelineExportOptions{});
    QVERIFY(wanted.height() > plain.height());
    QImage image(png);
    QVERIFY(!image.isNull());
    QCOMPARE(image.size(), wanted);
    const QRgb background = qRgb(255, 255, 255);
    int drawn = 0;
    for (int y = 0; y < image.height(); y += 2)
      for (int x = 0; x < image.width(); x += 2)
        if ((image.pixel(x, y) & 0xFFFFFF) != (background & 0xFFFFFF)) ++drawn;
    QVERIFY2(drawn > 100, "the PNG is blank");

    // SVG: well-formed XML with rectangles.
    QFile svgFile(svg);
    QVERIFY(svgFile.open(QIODevice::ReadOnly));
    QXmlStreamReader xml(&svgFile);
    int rects = 0;
    while (!xml.atEnd())
      if (xml.readNext() == QXmlStreamReader::StartElement && xml.name() == QLatin1String("rect")) ++rects;
    QVERIFY2(!xml.hasError(), qPrintable(xml.errorString()));
    QVERIFY(rects > 0);

    // PDF.
    QFile pdfFile(pdf);
    QVERIFY(pdfFile.open(QIODevice::ReadOnly));
    QVERIFY(pdfFile.read(5) == "%PDF-");

    // With a scenario (the CLI's format); a scenario that does not fit is bad input.
    {
      Scenario sc;
      sc.hypotheses.push_back(Hypothesis{HypothesisKind::BalanceCompute, {}, 0});
      const QString scenarioPath = dir.filePath(QStringLiteral("s.json"));
      QFile f(scenarioPath);
      QVERIFY(f.open(QIODevice::WriteOnly));
      f.write(QByteArray::fromStdString(sc.toJson()));
      f.close();
      QCOMPARE(run({QStringLiteral("--export-image"), dir.filePath(QStringLiteral("o.png")), kSample,
                    QStringLiteral("--scenario"), scenarioPath, QStringLiteral("--view"), QStringLiteral("overlay")}, &err),
               0);
      // One more header line: the hypotheses, then measured → predicted.
      QCOMPARE(QImage(dir.filePath(QStringLiteral("o.png"))).width(), wanted.width());
      QVERIFY(QImage(dir.filePath(QStringLiteral("o.png"))).height() > wanted.height());
      // Lanes: two lanes of at least 14 px per rank.
      QCOMPARE(run({QStringLiteral("--export-image"), dir.filePath(QStringLiteral("l.png")), kSample,
                    QStringLiteral("--scenario"), scenarioPath, QStringLiteral("--view"), QStringLiteral("lanes"),
                    QStringLiteral("--lane-height"), QStringLiteral("14"), QStringLiteral("--no-header")}, &err),
               0);
      QVERIFY(QImage(dir.filePath(QStringLiteral("l.png"))).height() >= int(trace->rankCount()) * 2 * ui::kMinExportLanePx);
      sc.hypotheses = {Hypothesis{HypothesisKind::BalanceCompute, {}, 999}};
      const QString badPath = dir.filePath(QStringLiteral("bad.json"));
      QFile b(badPath);
      QVERIFY(b.open(QIODevice::WriteOnly));
      b.write(QByteArray::fromStdString(sc.toJson()));
      b.close();
      QCOMPARE(run({QStringLiteral("--export-image"), dir.filePath(QStringLiteral("b.png")), kSample,
                    QStringLiteral("--scenario"), badPath, QStringLiteral("--view"), QStringLiteral("overlay")}, &err),
               1);
      QVERIFY(err.contains(QStringLiteral("step 999")));
      QVERIFY(!QFile::exists(dir.filePath(QStringLiteral("b.png"))));
    }

    // Never overwrites; bad input 1; bad usage 2.
    const QByteArray before = [&] { QFile f(png); f.open(QIODevice::ReadOnly); return f.readAll(); }();
    QCOMPARE(run({QStringLiteral("--export-image"), png, kSample}, &err), 1);
    QVERIFY(err.contains(png));
    const QByteArray after = [&] { QFile f(png); f.open(QIODevice::ReadOnly); return f.readAll(); }();
    QCOMPARE(after, before);
    QVERIFY(err.contains(QStringLiteral("--force")));
    // --force replaces it; --no-header leaves the title out.
    QCOMPARE(run({QStringLiteral("--export-image"), png, kSample, QStringLiteral("--force"), QStringLiteral("--no-header")}, &err), 0);
    QCOMPARE(QImage(png).size(), plain);
    QCOMPARE(run({QStringLiteral("--export-image"), dir.filePath(QStringLiteral("w.png")), kSample,
                  QStringLiteral("--lane-height"), QStringLiteral("10")}), 2);
    QCOMPARE(run({QStringLiteral("--force")}), 2);  // needs --export-image
    QCOMPARE(run({QStringLiteral("--export-image"), dir.filePath(QStringLiteral("x.png")),
                  QStringLiteral("/nonexistent.alog")}, &err), 1);
    QVERIFY(err.contains(QStringLiteral("/nonexistent.alog")));
    QCOMPARE(run({QStringLiteral("--export-image"), dir.filePath(QStringLiteral("x.bmp")), kSample}), 2);
    QCOMPARE(run({QStringLiteral("--export-image"), dir.filePath(QStringLiteral("y.png"))}), 2);
    QCOMPARE(run({QStringLiteral("--export-image"), dir.filePath(QStringLiteral("z.png")), kSample,
                  QStringLiteral("--view"), QStringLiteral("sideways")}), 2);
  }

  // A prediction past the int64 ns range is an error naming the trace, never a result: one
  // message of 2^63 - 1 bytes priced by myrinet-table5 (a per-byte term) in model cost mode. The
  // background worker reports it through failed() and delivers no snapshot; the headless export
  // exits 1 with the reason and writes no image.
  void overflowingPredictionIsAnError() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString tracePath = dir.filePath(QStringLiteral("huge.alog"));
    {
      QFile f(tracePath);
      QVERIFY(f.open(QIODevice::WriteOnly));
      f.write("-13 0 9 10 0 0 : MPI_Send\n-13 0 15 16 0 0 : MPI_Recv\n"
              "9 0 0 0 0 10\n-101 0 0 1 0 11 0 9223372036854775807\n10 0 0 0 0 12\n"
              "15 1 0 0 0 10\n-102 1 0 0 0 30 0 9223372036854775807\n16 1 0 0 0 31\n");
    }
    auto trace = std::make_shared<const Trace>(loadTrace(tracePath.toStdString()));
    std::shared_ptr<const NetworkModel> model = networkPreset("myrinet-table5");
    QVERIFY(model);

    gui::PredictionWorker worker;
    QSignalSpy failed(&worker, &gui::PredictionWorker::failed);
    QSignalSpy ready(&worker, &gui::PredictionWorker::resultReady);
    gui::PredictionRequest req;
    req.trace = trace;
    req.model = model;
    req.costs = CostMode::Model;
    worker.request(req);
    QVERIFY(failed.wait(20000));
    const QString message = failed.first().first().toString();
    QVERIFY2(message.contains(tracePath) && message.contains(QStringLiteral("int64 range")) &&
                 message.contains(QStringLiteral("9223372036854775807 bytes")),
             qPrintable(message));
    QCOMPARE(ready.count(), 0);
    // The measured costs keep the message's measured time: a result again.
    req.costs = CostMode::Measured;
    worker.request(req);
    QVERIFY(ready.wait(20000));

    Scenario sc;
    sc.model = model;
    sc.costs = CostMode::Model;
    const QString scenarioPath = dir.filePath(QStringLiteral("model.json"));
    {
      QFile f(scenarioPath);
      QVERIFY(f.open(QIODevice::WriteOnly));
      f.write(QByteArray::fromStdString(sc.toJson()));
    }
    QProcess p;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("QT_QPA_PLATFORM"), QStringLiteral("offscreen"));
    p.setProcessEnvironment(env);
    const QString png = dir.filePath(QStringLiteral("huge.png"));
    p.start(QStringLiteral(PERWIZ_GUI_BIN), {QStringLiteral("--export-image"), png, tracePath,
                                             QStringLiteral("--scenario"), scenarioPath,
                                             QStringLiteral("--view"), QStringLiteral("overlay")});
    QVERIFY(p.waitForFinished(60000));
    const QString err = QString::fromLocal8Bit(p.readAllStandardError());
    QCOMPARE(p.exitCode(), 1);
    QVERIFY2(err.contains(tracePath) && err.contains(QStringLiteral("int64 range")), qPrintable(err));
    QVERIFY(!QFile::exists(png));
  }

  // With PERWIZ_SCREENSHOT_DIR set: the window with a hypothesis applied, in Overlay.
  // The advisor dock runs on the shown scenario in the background; its tables equal the core
  // advisor's answers; a row highlights its event, Apply adds it (one undo step).
  void advisorDock() {
    MainWindow w;
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    w.openTrace(kSample);
    QVERIFY(waitReady(w));
    const Trace& trace = *w.session()->trace().get();
    QSignalSpy updated(&w, &MainWindow::advisorUpdated);
    w.runAdvisor();
    QVERIFY(QTest::qWaitFor([&] { auto o = w.advisorDock()->outcome(); return o && o->finished; }, 60000));
    const auto outcome = w.advisorDock()->outcome();
    QVERIFY(outcome->error.isEmpty());
    QVERIFY(!outcome->cancelled);
    QVERIFY(outcome->hasDomino && outcome->hasSteps && outcome->hasBounds);
    QVERIFY(updated.count() >= 3);  // staged: domino, steps, then everything

    // The same answers as the core advisor on a fresh replayer of the same scenario.
    Replayer fresh(trace, Scenario{});
    std::vector<WaitCandidate> candidates;
    WaitCandidate longest;
    const DominoResult domino = dominoPaths(fresh, {}, &candidates, &longest);
    QCOMPARE(outcome->domino.predictedNs, domino.predictedNs);
    QCOMPARE(outcome->domino.paths.size(), domino.paths.size());
    QCOMPARE(outcome->candidates.size(), candidates.size());
    QCOMPARE(outcome->longestWait.event, longest.event);
    QCOMPARE(outcome->steps.size(), trace.steps.size());
    auto* dock = w.advisorDock();
    QCOMPARE(dock->dominoTree()->topLevelItemCount(), static_cast<int>(domino.paths.size()));
    QCOMPARE(dock->candidateTable()->rowCount(), static_cast<int>(candidates.size()));
    QCOMPARE(dock->stepTable()->rowCount(), static_cast<int>(trace.steps.size()));
    QCOMPARE(dock->boundsTable()->rowCount(), static_cast<int>(outcome->bounds.size() * 8));
    QVERIFY(!candidates.empty());
    // A domino row names its path, first → last event (its children, cause first).
    for (int i = 0; i < dock->dominoTree()->topLevelItemCount(); ++i) {
      const QTreeWidgetItem* top = dock->dominoTree()->topLevelItem(i);
      QVERIFY(top->childCount() > 0);
      const QString text = top->text(0);
      QVERIFY2(text.startsWith(top->child(0)->text(0) + QStringLiteral(" → ") + top->child(top->childCount() - 1)->text(0)),
               qPrintable(text));
    }
    // Gains: time saved and its share carry one sign ("+x (+y %)", "−x (−y %)").
    auto checkGain = [](const QString& g) {
      const bool plus = g.startsWith(QLatin1Char('+')), minus = g.startsWith(QChar(0x2212));
      QVERIFY2(plus ? g.contains(QStringLiteral("(+")) : minus ? g.contains(QStringLiteral("(−")) : !g.contains(QLatin1Char('+')),
               qPrintable(g));
    };
    for (QTableWidget* table : {dock->candidateTable(), dock->stepTable(), dock->boundsTable()})
      for (int row = 0; row < table->rowCount(); ++row) checkGain(table->item(row, table->columnCount() - 1)->text());

    // Select the best candidate: its call is highlighted and scrolled to; Apply adds zero-wait.
    dock->tabs()->setCurrentIndex(1);
    dock->candidateTable()->selectRow(0);
    const WaitCandidate best = candidates.front();
    const auto event = trace.ranks[best.event.rank].mpiCalls[best.event.index];
    QVERIFY(dock->applyButton()->isEnabled());
    QTest::mouseClick(dock->applyButton(), Qt::LeftButton);
    QTRY_COMPARE_WITH_TIMEOUT(w.session()->document()->entries().size(), std::size_t(1), 5000);
    Hypothesis h{HypothesisKind::ZeroWait, best.event, 0};
    QCOMPARE(w.session()->document()->entries()[0].hypothesis, h);
    QVERIFY(waitReady(w));
    QCOMPARE(w.predictedTimeShown(), best.predictedNs);  // the advisor's number is the engine's
    QCOMPARE(w.predictedTimeShown(), corePrediction(trace, {h}));
    (void)event;

    // The advice is now stale; running again starts from the new scenario.
    w.runAdvisor();
    QVERIFY(QTest::qWaitFor([&] { auto o = w.advisorDock()->outcome(); return o && o->finished && o != outcome; }, 60000));
    QCOMPARE(w.advisorDock()->outcome()->baseNs, corePrediction(trace, {h}));

    // A step row selects the step on the timeline; Apply balances it; undo removes it.
    dock->tabs()->setCurrentIndex(2);
    dock->stepTable()->selectRow(0);
    const std::uint32_t step = dock->stepTable()->item(0, 0)->data(Qt::UserRole).toUInt();
    QCOMPARE(w.timeline()->selection().kind, TimelineItem::Kind::Step);
    QCOMPARE(w.timeline()->selection().step, step);
    QTest::mouseClick(dock->applyButton(), Qt::LeftButton);
    QTRY_COMPARE_WITH_TIMEOUT(w.session()->document()->entries().size(), std::size_t(2), 5000);
    QVERIFY(waitReady(w));
    Hypothesis b{HypothesisKind::BalanceCompute, {}, step};
    QCOMPARE(w.predictedTimeShown(), corePrediction(trace, {h, b}));
    w.session()->undoStack()->undo();
    QCOMPARE(w.session()->document()->entries().size(), std::size_t(1));

    // A domino path row highlights all its events.
    dock->tabs()->setCurrentIndex(0);
    if (dock->dominoTree()->topLevelItemCount() > 0) {
      QSignalSpy highlight(dock, &gui::AdvisorDock::highlightRequested);
      dock->dominoTree()->topLevelItem(0)->setSelected(true);
      QVERIFY(highlight.count() >= 1);
      const auto events = highlight.last().at(0).value<std::vector<EventRef>>();
      QCOMPARE(events.size(), w.advisorDock()->outcome()->domino.paths[0].events.size());
    }
  }

  // The charts: predicted T per state of the hypothesis set (a bar per undo state, clicking one
  // goes back to it), σ per step with the advisor's gain, measured and predicted rank ends.
  void chartsDock() {
    MainWindow w;
    w.resize(1400, 980);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    w.openTrace(kSample);
    QVERIFY(waitReady(w));
    const Trace& trace = *w.session()->trace().get();
    auto* charts = w.chartsDock();
    charts->show();
    charts->raise();
    const Call call = callWithLongestWait(trace);
    Hypothesis z{HypothesisKind::ZeroWait, EventRef{call.rank, call.mpi, false}, 0};
    QVERIFY(w.requestHypothesis(HypothesisKind::ZeroWait, TimelineItem{TimelineItem::Kind::Event, call.rank, call.event, 0, false}));
    QVERIFY(waitReady(w));
    TimelineItem step{TimelineItem::Kind::Step, 0, 0, 1, false};
    QVERIFY(w.requestHypothesis(HypothesisKind::BalanceCompute, step));
    QVERIFY(waitReady(w));
    Hypothesis b{HypothesisKind::BalanceCompute, {}, 1};

    // Three states: start, + zero-wait, + balance; each bar is the core's prediction.
    const auto& states = w.session()->history().states();
    QCOMPARE(states.size(), 3);
    QCOMPARE(*states[0].predictedNs, trace.endTime - trace.startTime);
    QCOMPARE(*states[1].predictedNs, corePrediction(trace, {z}));
    QCOMPARE(*states[2].predictedNs, corePrediction(trace, {z, b}));
    QCustomPlot* history = charts->historyPlot();
    int bars = 0;
    for (int i = 0; i < history->plottableCount(); ++i)
      if (auto* pb = qobject_cast<QCPBars*>(history->plottable(i))) bars += pb->dataCount();
    QCOMPARE(bars, 3);

    // Rank ends: one measured and one predicted bar per rank; the predicted ends' maximum is T.
    QCustomPlot* ranks = charts->rankPlot();
    QCOMPARE(ranks->plottableCount(), 2);
    auto* predictedEnds = qobject_cast<QCPBars*>(ranks->plottable(1));
    QVERIFY(predictedEnds);
    QCOMPARE(predictedEnds->dataCount(), static_cast<int>(trace.rankCount()));
    double maxEnd = 0;
    for (auto it = predictedEnds->data()->constBegin(); it != predictedEnds->data()->constEnd(); ++it)
      maxEnd = std::max(maxEnd, it->value);
    const gui::TimeUnit u = gui::timeUnitFor(static_cast<double>(trace.endTime - trace.startTime));
    QVERIFY(std::abs(maxEnd * u.divisor - static_cast<double>(w.predictedTimeShown())) < 1.0);
    // Every rank labelled (the ticker used to thin them to the even ranks).
    auto* rankTicks = dynamic_cast<QCPAxisTickerText*>(ranks->xAxis->ticker().data());
    QVERIFY(rankTicks);
    QCOMPARE(rankTicks->ticks().size(), static_cast<int>(trace.rankCount()));
    for (std::uint32_t r = 0; r < trace.rankCount(); ++r) QCOMPARE(rankTicks->ticks().value(r), QString::number(r));

    // Steps: σ for every step before the advisor ran; with its table, a gain bar set too.
    charts->tabs()->setCurrentIndex(1);
    QCustomPlot* steps = charts->stepPlot();
    auto* sigma = qobject_cast<QCPBars*>(steps->plottable(0));
    QVERIFY(sigma);
    QCOMPARE(sigma->dataCount(), static_cast<int>(trace.steps.size()));
    w.runAdvisor();
    QVERIFY(QTest::qWaitFor([&] { auto o = w.advisorDock()->outcome(); return o && o->finished; }, 60000));
    charts->show();
    charts->raise();
    charts->tabs()->setCurrentIndex(1);
    QCOMPARE(steps->plottableCount(), 2);
    const auto& rows = w.advisorDock()->outcome()->steps;
    auto* gain = qobject_cast<QCPBars*>(steps->plottable(1));
    QCOMPARE(gain->dataCount(), static_cast<int>(rows.size()));
    sigma = qobject_cast<QCPBars*>(steps->plottable(0));  // the plot was rebuilt

    // Clicking the bar of step 2 selects that step on the timeline.
    steps->replot();
    QTest::qWait(50);
    // Grouped with the gain bars, σ's bar of step k spans about [k − 0.4, k] (width 0.4 each).
    const double px = steps->xAxis->coordToPixel(1.8);
    const double value = (sigma->data()->constBegin() + 2)->value;
    QPointF at(px, steps->yAxis->coordToPixel(value / 2));
    QTest::mouseClick(steps, Qt::LeftButton, {}, at.toPoint());
    QTest::mouseRelease(steps, Qt::LeftButton, {}, at.toPoint());
    QTRY_COMPARE_WITH_TIMEOUT(w.timeline()->selection().kind, TimelineItem::Kind::Step, 2000);
    QCOMPARE(w.timeline()->selection().step, 2u);

    // Clicking the first history bar goes back to the start (two undos).
    charts->tabs()->setCurrentIndex(0);
    history->replot();
    QTest::qWait(50);
    auto* firstBars = qobject_cast<QCPBars*>(history->plottable(0));
    const double v0 = (firstBars->data()->constBegin())->value;
    QTest::mouseClick(history, Qt::LeftButton, {}, QPoint(int(history->xAxis->coordToPixel(0)), int(history->yAxis->coordToPixel(v0 / 2))));
    QTRY_COMPARE_WITH_TIMEOUT(w.session()->undoStack()->index(), 0, 2000);
    QVERIFY(w.session()->document()->entries().empty());
  }

  // The network model dialog: presets fill the fields, edits make the model, files round-trip
  // through the core's JSON, bad files are refused with the file named.
  void networkModelDialog() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    std::shared_ptr<const NetworkModel> start(networkPreset("myrinet-score"));
    gui::NetworkModelDialog d(start, CostMode::Measured);
    QCOMPARE(d.kindBox()->currentText(), QStringLiteral("LogGPS"));
    QCOMPARE(d.field(QStringLiteral("L"))->value(), 9.11);   // µs
    QCOMPARE(d.field(QStringLiteral("o"))->value(), 2.15);
    QCOMPARE(d.field(QStringLiteral("S"))->value(), 16383.0);
    QCOMPARE(d.presetBox()->currentText(), QStringLiteral("myrinet-score"));
    QCOMPARE(d.model()->toJson(), start->toJson());  // unedited: exactly the preset

    d.choosePreset(QStringLiteral("ethernet-table5"));
    QCOMPARE(d.field(QStringLiteral("L"))->value(), 69.35);
    QCOMPARE(d.field(QStringLiteral("os.b"))->value(), 0.0901);
    QCOMPARE(d.model()->toJson(), networkPreset("ethernet-table5")->toJson());

    // An edit: L = 12.5 µs is 12500 ns in the model; the preset label goes back to custom.
    d.field(QStringLiteral("L"))->setValue(12.5);
    QCOMPARE(d.presetBox()->currentIndex(), 0);
    auto edited = std::dynamic_pointer_cast<const LogGpsModel>(d.model());
    QVERIFY(edited);
    QCOMPARE(edited->params().L, 12500.0);
    // The spin boxes cannot go negative.
    d.field(QStringLiteral("o"))->setValue(-3);
    QCOMPARE(d.field(QStringLiteral("o"))->value(), 0.0);

    // LogGPO preset and progress strategy.
    d.choosePreset(QStringLiteral("loggpo-myrinet"));
    QCOMPARE(d.kindBox()->currentText(), QStringLiteral("LogGPO"));
    QCOMPARE(d.model()->toJson(), networkPreset("loggpo-myrinet")->toJson());
    d.progressBox()->setCurrentIndex(1);
    auto gpo = std::dynamic_pointer_cast<const LogGpoModel>(d.model());
    QVERIFY(gpo);
    QCOMPARE(gpo->params().progress, ProgressStrategy::Independent);

    // Save and load back.
    const QString file = dir.filePath(QStringLiteral("net.json"));
    QString error;
    QVERIFY2(d.saveFile(file, &error), qPrintable(error));
    gui::NetworkModelDialog d2(start, CostMode::Model);
    QCOMPARE(d2.costMode(), CostMode::Model);
    QVERIFY2(d2.loadFile(file, &error), qPrintable(error));
    QCOMPARE(d2.model()->toJson(), d.model()->toJson());

    // A bad file.
    const QString bad = dir.filePath(QStringLiteral("bad.json"));
    QFile b(bad);
    QVERIFY(b.open(QIODevice::WriteOnly));
    b.write("{\"model\": \"LogGPS\", \"L_us\": -1}");
    b.close();
    QVERIFY(!d2.loadFile(bad, &error));
    QVERIFY2(error.contains(bad), qPrintable(error));
    QCOMPARE(d2.model()->toJson(), d.model()->toJson());  // unchanged

    // Calibrated files of issue #20 keep every key through the dialog (they were dropped: a
    // perwiz-calibrate-smpi model became at-send with binomial collectives). LogGPS:
    LogGpsParams gps;
    gps.name = "smpi-gps";
    gps.L = 20243.8;
    gps.o = 10;
    gps.G = 4.25218;
    gps.S = 65535;
    gps.recvOverhead = {0, 1.21567};
    gps.eagerAtReceive = true;
    gps.halfDuplex = true;
    gps.smpiCollectives = true;
    const QString gpsFile = dir.filePath(QStringLiteral("gps.json"));
    QVERIFY2(saveNetworkModel(LogGpsModel(gps), gpsFile.toStdString(), nullptr), "save");
    QVERIFY2(d2.loadFile(gpsFile, &error), qPrintable(error));
    QCOMPARE(d2.choice(QStringLiteral("eager"))->currentData().toString(), QStringLiteral("at-receive"));
    QCOMPARE(d2.choice(QStringLiteral("duplex"))->currentData().toString(), QStringLiteral("half"));
    QCOMPARE(d2.choice(QStringLiteral("collectives"))->currentData().toString(), QStringLiteral("smpi"));
    QCOMPARE(d2.model()->toJson(), LogGpsModel(gps).toJson());
    d2.choice(QStringLiteral("collectives"))->setCurrentIndex(0);  // back to binomial trees
    QVERIFY(!std::dynamic_pointer_cast<const LogGpsModel>(d2.model())->params().smpiCollectives);
    // LogGPO, with its rendezvous O_i(k):
    LogGpoParams gpoP;
    gpoP.name = "smpi-gpo";
    gpoP.L = 20243.8;
    gpoP.G = 4.25218;
    gpoP.Octrl = 10;
    gpoP.Oi = {20, 0};
    gpoP.Oc = {0, 1.21567};
    gpoP.OiRendezvous = LinearCost{76000.7, 0};
    gpoP.S = 65535;
    gpoP.progress = ProgressStrategy::Independent;
    gpoP.eagerAtReceive = true;
    gpoP.smpiCollectives = true;
    const QString gpoFile = dir.filePath(QStringLiteral("gpo.json"));
    QVERIFY2(saveNetworkModel(LogGpoModel(gpoP), gpoFile.toStdString(), nullptr), "save");
    QVERIFY2(d2.loadFile(gpoFile, &error), qPrintable(error));
    QVERIFY(d2.ownRendezvousInit()->isChecked());
    QCOMPARE(d2.field(QStringLiteral("gpo.Oir.a"))->value(), 76.0007);
    QCOMPARE(d2.choice(QStringLiteral("gpo.eager"))->currentData().toString(), QStringLiteral("at-receive"));
    QCOMPARE(d2.choice(QStringLiteral("gpo.duplex"))->currentData().toString(), QStringLiteral("full"));
    QCOMPARE(d2.model()->toJson(), LogGpoModel(gpoP).toJson());
    d2.ownRendezvousInit()->setChecked(false);  // O_i(k) for every size again
    QVERIFY(!std::dynamic_pointer_cast<const LogGpoModel>(d2.model())->params().OiRendezvous);
  }

  // A trace without PRGN markers: the region picker lists its user states with the steps each
  // would give; choosing one makes steps that B can balance; sessions remember the choice.
  void regionPicker() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    // Two ranks, three "iter" states each with two nested "inner" states, a message per iter.
    test::Tb b(2);
    for (int k = 0; k < 3; ++k) {
      const TimeNs t0 = 1000 + k * 10000;
      for (test::Rank r = 0; r < 2; ++r) {
        b.open(r, t0, "iter");
        b.state(r, t0 + 100, t0 + 200, "inner");
        b.state(r, t0 + 300, t0 + 400 + 1000 * r * (k + 1), "inner");
        if (r == 0) b.send(r, t0 + 5000, t0 + 5100, 1, 64);
        else b.recv(r, t0 + 4500, t0 + 5200, 0, 64);
        b.close(r, t0 + 9000, "iter");
      }
    }
    const Trace t = b.take();
    QVERIFY(t.steps.empty());
    const auto cands = gui::regionCandidates(t);
    QCOMPARE(cands.size(), std::size_t(2));
    QCOMPARE(cands[0].name, std::string("inner"));  // 6 outermost per rank
    QCOMPARE(cands[0].steps, 6u);
    QCOMPARE(cands[0].occurrences, 12u);
    QCOMPARE(cands[1].name, std::string("iter"));
    QCOMPARE(cands[1].steps, 3u);
    QCOMPARE(cands[1].occurrences, 6u);
    QCOMPARE(cands[1].ranks, 2u);

    gui::RegionPickerDialog picker(t);
    QCOMPARE(picker.table()->rowCount(), 2);
    picker.filter()->setText(QStringLiteral("it"));
    QVERIFY(picker.table()->isRowHidden(0));
    QVERIFY(!picker.table()->isRowHidden(1));
    picker.table()->selectRow(1);
    QCOMPARE(picker.chosenName(), QStringLiteral("iter"));

    const QString path = dir.filePath(QStringLiteral("noprgn.alog"));
    saveTrace(t, path.toStdString());
    const QString session = dir.filePath(QStringLiteral("r.perwiz"));
    TimeNs balanced = -1;
    {
      MainWindow w;
      w.openTrace(path);
      QVERIFY(waitReady(w));
      QVERIFY(w.session()->trace().get()->steps.empty());
      QString error;
      QVERIFY(!w.session()->setParallelRegion(QStringLiteral("nothing"), &error));
      QVERIFY(error.contains(QStringLiteral("nothing")));
      QVERIFY2(w.session()->setParallelRegion(QStringLiteral("iter"), &error), qPrintable(error));
      QCOMPARE(w.session()->trace().get()->steps.size(), std::size_t(3));
      QVERIFY(waitReady(w));
      QVERIFY(w.requestHypothesis(HypothesisKind::BalanceCompute, TimelineItem{TimelineItem::Kind::Step, 0, 0, 2, false}));
      QVERIFY(waitReady(w));
      Trace withSteps = t;
      QVERIFY(declareParallelRegion(withSteps, "iter"));
      balanced = corePrediction(withSteps, {Hypothesis{HypothesisKind::BalanceCompute, {}, 2}});
      QCOMPARE(w.predictedTimeShown(), balanced);
      QVERIFY2(w.saveSessionTo(session, &error), qPrintable(error));
    }
    MainWindow w2;
    w2.openSession(session);
    QVERIFY(waitReady(w2));
    QCOMPARE(w2.session()->parallelRegion(), QStringLiteral("iter"));
    QCOMPARE(w2.session()->trace().get()->steps.size(), std::size_t(3));
    QCOMPARE(w2.predictedTimeShown(), balanced);
  }

  // Dropping a trace file on the window opens it; it then appears in the recent files, whose
  // menu entry opens it again.
  void dropAndRecentFiles() {
    QSettings().remove(QStringLiteral("recentFiles"));
    MainWindow w;
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    QVERIFY(dropFile(w, kSample));
    QVERIFY(w.session()->trace().get() != nullptr);
    const QString abs = QFileInfo(kSample).absoluteFilePath();
    QCOMPARE(QSettings().value(QStringLiteral("recentFiles")).toStringList().value(0), abs);

    // A non-file drop is refused.
    QMimeData text;
    text.setText(QStringLiteral("hello"));
    QDragEnterEvent refused(QPoint(50, 50), Qt::CopyAction, &text, Qt::LeftButton, Qt::NoModifier);
    refused.setAccepted(false);
    QApplication::sendEvent(&w, &refused);
    QVERIFY(!refused.isAccepted());

    // A second window finds it in File > Open Recent.
    MainWindow w2;
    auto* file = w2.findChild<QMenu*>(QStringLiteral("fileMenu"));
    QVERIFY(file);
    QMenu* recent = nullptr;
    for (QAction* a : file->actions())
      if (a->menu() && !a->menu()->actions().isEmpty() && a->menu()->actions().first()->toolTip() == abs)
        recent = a->menu();
    QVERIFY2(recent, "the sample is not in Open Recent");
    QSignalSpy loaded2(&w2, &MainWindow::traceLoaded);
    recent->actions().first()->trigger();
    QVERIFY(loaded2.wait(10000));
    QCOMPARE(w2.session()->trace().get()->rankCount(), w.session()->trace().get()->rankCount());
  }

  // An OTF (version 1) trace opens like the others (issue #17): dropped on the window, then
  // listed in the recent files under its anchor X.otf.
  void dropOtfTrace() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString otf = dir.filePath(QStringLiteral("sample.otf"));
    const Trace original = loadTrace(kSample.toStdString());
    saveTrace(original, otf.toStdString());
    QSettings().remove(QStringLiteral("recentFiles"));
    MainWindow w;
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    QVERIFY(dropFile(w, otf));
    QVERIFY(w.session()->trace().get() != nullptr);
    QCOMPARE(QString::fromStdString(w.session()->trace().get()->format), QStringLiteral("otf"));
    QCOMPARE(w.session()->trace().get()->rankCount(), original.rankCount());
    QCOMPARE(w.session()->trace().get()->eventCount(), original.eventCount());
    QCOMPARE(QSettings().value(QStringLiteral("recentFiles")).toStringList().value(0),
             QFileInfo(otf).absoluteFilePath());
    QVERIFY(waitReady(w));
  }

  // File > Export Image… and Export Predicted Trace…, answered like a user would: the range
  // question, then the file dialog. An existing trace is never overwritten.
  void exportDialogs() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    MainWindow w;
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    w.openTrace(kSample);
    QVERIFY(waitReady(w));
    const Call call = callWithLongestWait(*w.session()->trace().get());
    QVERIFY(w.requestHypothesis(HypothesisKind::ZeroWait, TimelineItem{TimelineItem::Kind::Event, call.rank, call.event, 0, false}));
    QVERIFY(waitReady(w));

    // Answers modal dialogs as they appear, in order.
    QStringList seen;
    auto answer = [&](std::function<bool(QWidget*)> handler) {
      auto* timer = new QTimer(&w);
      timer->setInterval(20);
      QObject::connect(timer, &QTimer::timeout, [timer, handler, &seen] {
        QWidget* modal = QApplication::activeModalWidget();
        if (!modal) return;
        seen << QString::fromLatin1(modal->metaObject()->className());
        if (handler(modal)) timer->deleteLater();
      });
      timer->start();
    };

    const QString svg = dir.filePath(QStringLiteral("view.svg"));
    int step = 0;
    answer([&](QWidget* modal) {
      if (auto* d = qobject_cast<QDialog*>(modal); d && step == 0 && d->objectName() == QStringLiteral("exportImageDialog")) {
        // The whole trace, lanes, 18 px lanes, with the header.
        auto* range = d->findChild<QComboBox*>(QStringLiteral("exportRange"));
        auto* view = d->findChild<QComboBox*>(QStringLiteral("exportView"));
        auto* lane = d->findChild<QSpinBox*>(QStringLiteral("exportLaneHeight"));
        if (!range || !view || !lane) return false;
        range->setCurrentIndex(0);
        view->setCurrentIndex(view->findData(int(ui::TimelineMode::Lanes)));
        lane->setValue(18);
        d->accept();
        step = 1;
        return false;
      }
      if (auto* files = qobject_cast<QFileDialog*>(modal); files && step == 1) {
        typeFileName(files, svg);
        return true;
      }
      return false;
    });
    w.findChild<QAction*>(QStringLiteral("exportImage"))->trigger();
    QVERIFY2(QFile::exists(svg), qPrintable(seen.join(QLatin1Char(',')) + QLatin1Char(' ') + w.lastError()));
    QFile f(svg);
    QVERIFY(f.open(QIODevice::ReadOnly));
    const QByteArray content = f.readAll();
    QVERIFY(content.contains("<svg"));
    QVERIFY(content.contains("rank 0"));
    QVERIFY(content.contains("ring4.alog"));  // the title
    QVERIFY(!content.contains("PERWIZ_"));    // no internal names

    // The predicted trace: written in the background; loading it gives the predicted T.
    const QString out = dir.filePath(QStringLiteral("predicted.alog"));
    answer([&](QWidget* modal) {
      auto* files = qobject_cast<QFileDialog*>(modal);
      if (!files) return false;
      typeFileName(files, out);
      return true;
    });
    w.findChild<QAction*>(QStringLiteral("exportPredictedTrace"))->trigger();
    QTRY_VERIFY2_WITH_TIMEOUT(QFile::exists(out) && QFileInfo(out).size() > 0,
                              qPrintable(seen.join(QLatin1Char(',')) + QLatin1Char(' ') + w.lastError()), 10000);
    // Written in the background: done when the window reports it.
    QTRY_VERIFY_WITH_TIMEOUT(w.statusBar()->currentMessage().contains(out), 10000);
    const Trace predicted = loadTrace(out.toStdString());
    QCOMPARE(predicted.endTime - predicted.startTime, w.predictedTimeShown());

    // Exporting onto an existing trace is refused with a message; the file is untouched.
    const QByteArray before = [&] { QFile g(out); g.open(QIODevice::ReadOnly); return g.readAll(); }();
    bool warned = false;
    answer([&](QWidget* modal) {
      if (auto* files = qobject_cast<QFileDialog*>(modal)) {
        typeFileName(files, out);
        return false;
      }
      if (auto* box = qobject_cast<QMessageBox*>(modal)) {
        warned = box->text().contains(out);
        box->accept();
        return true;
      }
      return false;
    });
    w.findChild<QAction*>(QStringLiteral("exportPredictedTrace"))->trigger();
    QVERIFY(warned);
    QFile g(out);
    QVERIFY(g.open(QIODevice::ReadOnly));
    QCOMPARE(g.readAll(), before);
  }

  // The overhead dock shows the core's analysis: tables, the class histogram with its fit and
  // t_max, row selection highlighting the calls, and the overhead strip on the timeline.
  void overheadDock() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString path = imbalancedTrace(dir);
    MainWindow w;
    w.resize(1400, 980);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    w.openTrace(path);
    QVERIFY(waitReady(w));
    gui::OverheadDock* dock = w.overheadDock();
    QSignalSpy done(dock, &gui::OverheadDock::analysisFinished);
    dock->quantileBox()->setValue(0.9);
    dock->show();  // showing it starts the analysis
    QVERIFY(done.wait(20000));
    const auto a = dock->analysis();
    QVERIFY(a);
    // The same numbers as the core's own analysis with q_max = 0.9.
    OverheadOptions o;
    o.fit.quantile = 0.9;
    const OverheadAnalysis core = analyzeOverhead(*w.session()->trace().get(), o);
    QCOMPARE(a->total.overheadNs, core.total.overheadNs);
    QVERIFY(core.total.overheadNs > 0);
    QCOMPARE(dock->siteTable()->rowCount(), int(core.sites.size()));
    QCOMPARE(dock->classTable()->rowCount(), int(core.classes.size()));
    QCOMPARE(dock->rankTable()->rowCount(), 8);
    QCOMPARE(dock->siteTable()->item(0, 1)->text(), QString::fromStdString(core.sites[0].function));
    QCOMPARE(qint64(dock->siteTable()->item(0, 4)->data(Qt::UserRole).toDouble()), qint64(core.sites[0].totals.overheadNs));
    // Histogram of the first class: one bar per histogram class with its count.
    QCOMPARE(dock->histogramClass(), 0);
    auto* bars = qobject_cast<QCPBars*>(dock->histogram()->plottable(0));
    QVERIFY(bars);
    QVERIFY(core.classes[0].fit);
    const ErrorHistogram& h = core.classes[0].fit->histogram;
    QCOMPARE(bars->data()->size(), int(h.counts.size()));
    for (int k = 0; k < bars->data()->size(); ++k) QCOMPARE(bars->data()->at(k)->value, double(h.counts[std::size_t(k)]));
    QVERIFY(dock->histogram()->graphCount() >= 1);  // the fitted model(s)
    // Selecting a class highlights its calls with overhead, largest first.
    QSignalSpy highlight(dock, &gui::OverheadDock::highlightRequested);
    dock->tabs()->setCurrentWidget(dock->classTable());
    dock->classTable()->selectRow(0);
    QCOMPARE(highlight.count(), 1);
    const auto events = highlight.takeFirst().at(0).value<std::vector<EventRef>>();
    QVERIFY(!events.empty());
    TimeNs prev = std::numeric_limits<TimeNs>::max();
    for (const EventRef& e : events) {
      QCOMPARE(core.classOfCall[e.rank][e.index], 0u);
      const TimeNs oh = core.overheadOfCall[e.rank][e.index];
      QVERIFY(oh > 0 && oh <= prev);
      prev = oh;
    }
    // The inspector shows a selected call's overhead and its class's t_max.
    {
      const EventRef top = events.front();
      const std::uint32_t ev = w.session()->trace().get()->ranks[top.rank].mpiCalls[top.index];
      w.timeline()->scrollTo(TimelineItem{TimelineItem::Kind::Event, top.rank, ev, 0, false});
      QTest::mouseClick(w.timeline(), Qt::LeftButton, {}, w.timeline()->eventCenter(top.rank, ev).toPoint());
      const QString expected = QStringLiteral("%1 (usual maximum t_max %2)")
                                   .arg(gui::formatDuration(core.overheadOfCall[top.rank][top.index]),
                                        gui::formatDuration(core.classes[0].tMaxNs));
      bool shown = false;
      for (QLabel* l : w.findChildren<QLabel*>()) shown = shown || l->text() == expected;
      QVERIFY2(shown, qPrintable(expected));
      if (const QString shots = qEnvironmentVariable("PERWIZ_SCREENSHOT_DIR"); !shots.isEmpty()) {
        QTest::qWait(200);
        QVERIFY(w.grab().save(QDir(shots).filePath(QStringLiteral("inspector-overhead.png"))));
      }
    }
    // Timeline strip: off until asked; then it marks exactly the calls' overhead time.
    QCOMPARE(w.timeline()->markedTimeTotal(), TimeNs(0));
    dock->timelineBox()->setChecked(true);
    TimeNs expected = 0;
    for (const auto& rank : gui::overheadSpans(*w.session()->trace().get(), core))
      for (const auto& [b, e] : rank) expected += e - b;  // calls on a rank do not overlap here
    QCOMPARE(expected, core.total.overheadNs);
    QCOMPARE(w.timeline()->markedTimeTotal(), expected);
    // A new quantile re-analyses: q_max = 1 accepts every duration, no overhead left.
    dock->quantileBox()->setValue(1.0);
    dock->analyse();
    QVERIFY(done.wait(20000));
    QCOMPARE(dock->analysis()->total.overheadNs, TimeNs(0));
    QCOMPARE(w.timeline()->markedTimeTotal(), TimeNs(0));
    // A bad profile file is refused with its name.
    QString error;
    QVERIFY(!dock->setProfileFile(dir.filePath(QStringLiteral("missing.json")), &error));
    QVERIFY(error.contains(QStringLiteral("missing.json")));

    const QString shots = qEnvironmentVariable("PERWIZ_SCREENSHOT_DIR");
    if (!shots.isEmpty()) {
      dock->quantileBox()->setValue(0.9);
      dock->analyse();
      QVERIFY(done.wait(20000));
      dock->timelineBox()->setChecked(false);
      dock->timelineBox()->setChecked(true);
      dock->tabs()->setCurrentWidget(dock->classTable());
      dock->showClass(0);
      w.timeline()->setHighlighted({});
      w.timeline()->setVisibleRange(0, w.session()->trace().get()->endTime / 8);
      QTest::qWait(200);
      QVERIFY(w.grab().save(QDir(shots).filePath(QStringLiteral("overhead-dock.png"))));
    }
  }

  // Compensation from the Prediction menu's API: the shown T equals the core's; a new value
  // replaces the applied one in one undo step; a trace without recorded overhead refuses
  // "from the trace".
  void compensation() {
    MainWindow w;
    w.openTrace(kSample);
    QVERIFY(waitReady(w));
    const Trace& trace = *w.session()->trace().get();
    QVERIFY(w.requestCompensation(500));
    QVERIFY(waitReady(w));
    QCOMPARE(w.predictedTimeShown(), corePrediction(trace, {Hypothesis::compensate(500)}));
    QVERIFY(w.predictedTimeShown() < w.measuredTimeShown());  // 500 ns less per event
    QVERIFY(w.requestCompensation(800));
    QVERIFY(waitReady(w));
    QCOMPARE(w.predictedTimeShown(), corePrediction(trace, {Hypothesis::compensate(800)}));
    int compensations = 0;
    for (const auto& e : w.session()->document()->entries())
      compensations += e.hypothesis.kind == HypothesisKind::Compensate;
    QCOMPARE(compensations, 1);
    w.session()->undoStack()->undo();  // back to 500 in one step
    QVERIFY(waitReady(w));
    QCOMPARE(w.predictedTimeShown(), corePrediction(trace, {Hypothesis::compensate(500)}));
    QString why;
    QVERIFY(!w.requestCompensation(500, &why));  // already applied
    QVERIFY(!why.isEmpty());
    why.clear();
    QVERIFY(!w.requestCompensation(kOverheadFromTrace, &why));
    QVERIFY2(why.contains(QStringLiteral("overhead")), qPrintable(why));
    const int undoCount = w.session()->undoStack()->count();
    QVERIFY(!w.requestCompensation(-5, &why));  // negative: refused, the stack untouched
    QCOMPARE(w.session()->undoStack()->count(), undoCount);
    QVERIFY(waitReady(w));
    QCOMPARE(w.predictedTimeShown(), corePrediction(trace, {Hypothesis::compensate(500)}));  // unchanged

    // Through the menu's dialog, answered like a user: 650 ns per event replaces 500.
    bool answered = false;
    auto* timer = new QTimer(&w);
    timer->setInterval(20);
    QObject::connect(timer, &QTimer::timeout, [&, timer] {
      auto* d = qobject_cast<QDialog*>(QApplication::activeModalWidget());
      if (!d) return;
      timer->stop();
      auto radios = d->findChildren<QRadioButton*>();
      QCOMPARE(radios.size(), 2);
      QVERIFY(!radios[0]->isEnabled());  // ring4.alog records no overhead
      QVERIFY(radios[1]->isChecked());
      d->findChild<QSpinBox*>()->setValue(650);
      const QString shots = qEnvironmentVariable("PERWIZ_SCREENSHOT_DIR");
      if (!shots.isEmpty()) QVERIFY(d->grab().save(QDir(shots).filePath(QStringLiteral("compensation-dialog.png"))));
      d->accept();
      answered = true;
    });
    timer->start();
    w.findChild<QAction*>(QStringLiteral("compensateOverhead"))->trigger();
    QVERIFY(answered);
    QVERIFY(waitReady(w));
    QCOMPARE(w.predictedTimeShown(), corePrediction(trace, {Hypothesis::compensate(650)}));
  }

  void screenshot() {
    grabWindow(QStringLiteral("perwiz-window.png"));
    grabWindow(QStringLiteral("perwiz-advisor.png"), true);
    grabCharts();
    grabDialogs();
  }

  // Last: the translators stay installed.
  void japaneseMenus() {
    QVERIFY(gui::installTranslations(QStringLiteral("ja")));
    MainWindow w;
    auto* file = w.findChild<QMenu*>(QStringLiteral("fileMenu"));
    QVERIFY(file);
    QCOMPARE(file->title(), QString::fromUtf8("ファイル(&F)"));
    auto* view = w.findChild<QMenu*>(QStringLiteral("viewMenu"));
    QVERIFY(view);
    QCOMPARE(view->title(), QString::fromUtf8("表示(&V)"));
    // Qt's own strings too (qtbase's translations): a dialog's Cancel.
    QDialogButtonBox buttons(QDialogButtonBox::Ok | QDialogButtonBox::Cancel);
    const QString cancel = buttons.button(QDialogButtonBox::Cancel)->text();
    QVERIFY2(!cancel.contains(QStringLiteral("Cancel")), qPrintable(cancel));
    // No visible English left: every menu entry, dock title, label, button and table header of
    // the window with the sample loaded and a prediction shown. A string counts as English when
    // it holds a word of three or more Latin letters that is not a name (of the program, a
    // format, a model, an MPI call or a file).
    QSignalSpy loaded(&w, &MainWindow::traceLoaded);
    w.show();
    w.openTrace(kSample);
    QVERIFY(loaded.wait(10000));
    QVERIFY(waitReady(w));
    const QRegularExpression word(QStringLiteral("[A-Za-z]{3,}"));
    const QRegularExpression name(QStringLiteral("^(PerWiz|MPI\\w*|ALOG|OTF2?|LogGPS|LogGPO|LogGP|PNG|SVG|PDF|JSON|ALLREDUCE|RECV|SEND|ring|alog|perwiz|Jumpshot|Vampir|Ctrl|Shift|Esc)$"));
    QStringList english;
    // Tokens with a digit, '_', '.' or '-' are identifiers (file, preset and symbol names).
    const QRegularExpression identifier(QStringLiteral("[0-9_.\\-]"));
    auto check = [&](const QString& text, const QString& where) {
      QString t = text;
      t.remove(QLatin1Char('&'));
      for (const QString& token : t.split(QRegularExpression(QStringLiteral("[\\s,;:()\\[\\]/…]+")), Qt::SkipEmptyParts)) {
        if (identifier.match(token).hasMatch()) continue;
        for (auto it = word.globalMatch(token); it.hasNext();)
          if (!name.match(it.next().captured()).hasMatch()) {
            english << where + QStringLiteral(": ") + text;
            return;
          }
      }
    };
    for (QMenu* m : w.findChildren<QMenu*>()) {
      check(m->title(), QStringLiteral("menu"));
      for (QAction* a : m->actions())
        if (!a->isSeparator() && !a->menu() && !a->text().contains(QLatin1Char('/')) && !a->text().endsWith(QLatin1String(".alog")))
          check(a->text(), QStringLiteral("action"));
    }
    for (QDockWidget* d : w.findChildren<QDockWidget*>()) check(d->windowTitle(), QStringLiteral("dock"));
    for (QAbstractButton* b : w.findChildren<QAbstractButton*>())
      if (b->isVisibleTo(&w)) check(b->text(), QStringLiteral("button"));
    for (QLabel* l : w.findChildren<QLabel*>())
      if (l->isVisibleTo(&w) && !l->text().contains(QStringLiteral("ring4"))) check(l->text(), QStringLiteral("label"));
    for (QTabBar* t : w.findChildren<QTabBar*>())
      for (int i = 0; i < t->count(); ++i) check(t->tabText(i), QStringLiteral("tab"));
    for (QTableWidget* t : w.findChildren<QTableWidget*>())
      for (int c = 0; c < t->columnCount(); ++c)
        if (auto* h = t->horizontalHeaderItem(c)) check(h->text(), QStringLiteral("column"));
    QVERIFY2(english.isEmpty(), qPrintable(english.join(QLatin1Char('\n'))));
    grabWindow(QStringLiteral("perwiz-window-ja.png"));
    grabWindow(QStringLiteral("perwiz-advisor-ja.png"), true);
  }

 private:
  void grabDialogs() {
    const QString dir = qEnvironmentVariable("PERWIZ_SCREENSHOT_DIR");
    if (dir.isEmpty()) return;
    gui::NetworkModelDialog d(std::shared_ptr<const NetworkModel>(networkPreset("myrinet-table5")), CostMode::Model);
    d.show();
    QVERIFY(QTest::qWaitForWindowExposed(&d));
    QVERIFY(d.grab().save(QDir(dir).filePath(QStringLiteral("network-model-dialog.png"))));
    d.choosePreset(QStringLiteral("loggpo-myrinet"));
    d.adjustSize();
    QTest::qWait(50);
    QVERIFY(d.grab().save(QDir(dir).filePath(QStringLiteral("network-model-dialog-loggpo.png"))));
    const Trace t = loadTrace(kSample.toStdString());
    gui::RegionPickerDialog picker(t);
    picker.show();
    QVERIFY(QTest::qWaitForWindowExposed(&picker));
    QVERIFY(picker.grab().save(QDir(dir).filePath(QStringLiteral("region-picker.png"))));
  }

  // The three charts after two hypotheses and an advisor run, one PNG each.
  void grabCharts() {
    const QString dir = qEnvironmentVariable("PERWIZ_SCREENSHOT_DIR");
    if (dir.isEmpty()) return;
    MainWindow w;
    w.resize(1400, 980);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    w.openTrace(kSample);
    QVERIFY(waitReady(w));
    const Call call = callWithLongestWait(*w.session()->trace().get());
    QVERIFY(w.requestHypothesis(HypothesisKind::ZeroWait, TimelineItem{TimelineItem::Kind::Event, call.rank, call.event, 0, false}));
    QVERIFY(waitReady(w));
    QVERIFY(w.requestHypothesis(HypothesisKind::BalanceCompute, TimelineItem{TimelineItem::Kind::Step, 0, 0, 2, false}));
    QVERIFY(waitReady(w));
    w.runAdvisor();
    QVERIFY(QTest::qWaitFor([&] { auto o = w.advisorDock()->outcome(); return o && o->finished; }, 60000));
    auto* charts = w.chartsDock();
    charts->show();
    charts->raise();
    const char* names[3] = {"charts-history.png", "charts-steps.png", "charts-rank-ends.png"};
    for (int i = 0; i < 3; ++i) {
      charts->tabs()->setCurrentIndex(i);
      QTest::qWait(100);
      QVERIFY(charts->grab().save(QDir(dir).filePath(QString::fromLatin1(names[i]))));
    }
  }

  // Types a path into a (Qt, not native) file dialog's name field and presses Enter.
  static void typeFileName(QFileDialog* dialog, const QString& path) {
    auto* edit = dialog->findChild<QLineEdit*>(QStringLiteral("fileNameEdit"));
    QVERIFY(edit);
    edit->setText(path);
    QTest::keyClick(edit, Qt::Key_Return);
  }

  void grabWindow(const QString& name, bool advisor = false) {
    const QString dir = qEnvironmentVariable("PERWIZ_SCREENSHOT_DIR");
    if (dir.isEmpty()) return;
    MainWindow w;
    w.resize(1400, 800);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    w.openTrace(kSample);
    QVERIFY(waitReady(w));
    const Call call = callWithLongestWait(*w.session()->trace().get());
    TimelineItem step;
    step.kind = TimelineItem::Kind::Step;
    step.step = 2;
    QVERIFY(w.requestHypothesis(HypothesisKind::BalanceCompute, step));
    QVERIFY(waitReady(w));
    QTest::mouseClick(w.timeline(), Qt::LeftButton, {}, w.timeline()->eventCenter(call.rank, call.event).toPoint());
    QVERIFY(w.requestHypothesis(HypothesisKind::ZeroWait, w.timeline()->selection()));
    QVERIFY(waitReady(w));
    if (advisor) {
      w.resize(1400, 980);
      w.runAdvisor();
      QVERIFY(QTest::qWaitFor([&] { auto o = w.advisorDock()->outcome(); return o && o->finished; }, 60000));
      w.advisorDock()->dominoTree()->topLevelItem(0)->setSelected(true);
    }
    QTest::qWait(200);
    QVERIFY(w.grab().save(QDir(dir).filePath(name)));
  }
};

QTEST_MAIN(TestGui)
#include "test_gui.moc"
