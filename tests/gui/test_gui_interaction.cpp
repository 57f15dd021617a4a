// GUI tests: Clicks and keys on the timeline: selection, zero-wait, balance, undo, the comparison view, docks and
// keyboard help, threads, an overflowing prediction.
#include "gui_test_support.h"

using namespace perwiz::gui_test;

class TestGuiInteraction : public QObject {
  Q_OBJECT

 private slots:
  void loadErrorIsReported() {
    MainWindow w;
    QSignalSpy failed(&w, &MainWindow::loadFailed);
    w.openTrace(QStringLiteral("/nonexistent/trace.alog"));
    QVERIFY(failed.wait(10000));
    QVERIFY(w.lastError().contains(QStringLiteral("/nonexistent/trace.alog")));
    QVERIFY(w.session()->trace().get() == nullptr);
  }

  // Issue #40 item 1: the model in use is in sight (the status bar's model button), a preset
  // chosen from the menu is one undoable step, and the next trace opened starts from the default.
  void networkModelIsShownAndNotInherited() {
    MainWindow w;
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    w.openTrace(kSample);
    QVERIFY(waitReady(w));
    auto* button = w.findChild<QToolButton*>(QStringLiteral("networkModel"));
    QVERIFY(button);
    const QString defaultText = gui::describeNetwork(nullptr, CostMode::Measured);
    QCOMPARE(button->text(), QStringLiteral("Model: %1").arg(defaultText));
    QAction* preset = nullptr;
    for (QAction* a : w.findChildren<QAction*>())
      if (a->data().toString() == QStringLiteral("ethernet-table5")) preset = a;
    QVERIFY(preset);
    preset->trigger();
    QVERIFY(waitReady(w));
    QVERIFY2(button->text().contains(QStringLiteral("ethernet-table5")), qPrintable(button->text()));
    QCOMPARE(w.session()->prediction()->network, w.session()->networkDescription());
    QVERIFY(w.session()->undoStack()->canUndo());
    w.session()->undoStack()->undo();
    QVERIFY(waitReady(w));
    QCOMPARE(button->text(), QStringLiteral("Model: %1").arg(defaultText));
    w.session()->undoStack()->redo();
    QVERIFY(waitReady(w));
    QVERIFY(button->text().contains(QStringLiteral("ethernet-table5")));
    // Another trace: the default again (the undone change is not a modification to save).
    QSignalSpy loaded(&w, &MainWindow::traceLoaded);
    w.openTrace(QStringLiteral(PERWIZ_SAMPLE_OTF2));
    QVERIFY(loaded.wait(20000));
    QVERIFY(waitReady(w));
    QCOMPARE(button->text(), QStringLiteral("Model: %1").arg(defaultText));
    QCOMPARE(w.session()->prediction()->network, defaultText);
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
    // The status line times what the user waited for: from the change to the final frame,
    // once the timeline painted the result (issue #40 item 2), not to the result's arrival.
    auto* status = w.findChild<QLabel*>(QStringLiteral("statusText"));
    QVERIFY(status);
    w.timeline()->repaint();
    QVERIFY2(status->text().contains(QStringLiteral("from the change to the final frame")), qPrintable(status->text()));
    QCOMPARE(status->toolTip(), status->text());  // the whole line, where the bar cuts it
    Hypothesis h;
    h.kind = HypothesisKind::ZeroWait;
    h.event = EventRef{call.rank, call.mpi, false};
    QCOMPARE(w.session()->document()->entries()[0].hypothesis, h);
    // Named in words with the call it zeroes (issue #40 item 6), its short id in the tooltip.
    const std::uint32_t ev = trace.ranks[call.rank].mpiCalls[call.mpi];
    const QString words = QStringLiteral("zero the wait of %1 on rank %2 (call %3, at %4)")
                              .arg(QString::fromStdString(trace.fn(call.rank, ev).name))
                              .arg(call.rank)
                              .arg(call.mpi)
                              .arg(gui::formatDuration(trace.ranks[call.rank].enter[ev]));
    QCOMPARE(list->item(0)->text(), words);
    QVERIFY2(list->item(0)->toolTip().contains(QString::fromStdString(h.toString())),
             qPrintable(list->item(0)->toolTip()));
    QCOMPARE(w.session()->undoStack()->undoText(), QStringLiteral("Add %1").arg(words));
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
    for (QLabel* l : w.findChild<QDockWidget*>(QStringLiteral("inspectorDock"))->findChildren<QLabel*>())
      texts << l->text();
    const QString all = texts.join(QLatin1Char('|'));
    QVERIFY2(all.contains(QStringLiteral("Message %1 → %2").arg(sr).arg(rr)), qPrintable(all));
    QVERIFY2(all.contains(QStringLiteral("Sender call:")) && all.contains(QStringLiteral("Receiver call:")),
             qPrintable(all));
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
      // The last hypothesis undone: back to the measured view (issue #40 item 4).
      w.session()->undoStack()->undo();
      QVERIFY(waitReady(w));
      QCOMPARE(w.session()->document()->entries().size(), std::size_t(0));
      QCOMPARE(w.timeline()->mode(), ui::TimelineMode::Measured);
    }
    {
      MainWindow w;
      firstToggle(w);
      QCOMPARE(w.timeline()->mode(), ui::TimelineMode::Overlay);
      // The next trace opens in the measured view, not in the last one's comparison.
      QSignalSpy loaded(&w, &MainWindow::traceLoaded);
      w.openTrace(QStringLiteral(PERWIZ_SAMPLE_OTF2));
      QVERIFY(loaded.wait(20000));
      QVERIFY(waitReady(w));
      QCOMPARE(w.timeline()->mode(), ui::TimelineMode::Measured);
    }
    QSettings().remove(QStringLiteral("view/comparisonMode"));
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
      QVERIFY2(o.notes.join('|').contains(QStringLiteral("2 thread(s) under their ranks")),
               qPrintable(o.notes.join('|')));
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
    QCOMPARE(runHeadless({QStringLiteral("--export-image"), dir.filePath(QStringLiteral("o.png")), only,
                          QStringLiteral("--view"), QStringLiteral("overlay")},
                         &err),
             1);
    QVERIFY2(err.contains(QStringLiteral("no MPI rank")), qPrintable(err));
    QVERIFY(!QFile::exists(dir.filePath(QStringLiteral("o.png"))));
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
      f.write(
          "-13 0 9 10 0 0 : MPI_Send\n-13 0 15 16 0 0 : MPI_Recv\n"
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
    p.start(QStringLiteral(PERWIZ_GUI_BIN),
            {QStringLiteral("--export-image"), png, tracePath, QStringLiteral("--scenario"), scenarioPath,
             QStringLiteral("--view"), QStringLiteral("overlay")});
    QVERIFY(p.waitForFinished(60000));
    const QString err = QString::fromLocal8Bit(p.readAllStandardError());
    QCOMPARE(p.exitCode(), 1);
    QVERIFY2(err.contains(tracePath) && err.contains(QStringLiteral("int64 range")), qPrintable(err));
    QVERIFY(!QFile::exists(png));
  }
};

namespace {
const RegisterTests<TestGuiInteraction> registered("interaction");
}  // namespace

#include "test_gui_interaction.moc"
