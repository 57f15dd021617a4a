// GUI tests: Files: sessions, unsaved changes, drag and drop, recent files, the export dialogs and the predicted
// trace's format.
#include "gui_test_support.h"

using namespace perwiz::gui_test;

class TestGuiFiles : public QObject {
  Q_OBJECT

 private slots:
  // Issue #40 item 8: file dialogs start in the last folder a file was chosen in (kept across
  // runs) while it exists, else in the trace's folder, else home.
  void dialogsStartInTheLastFolderUsed() {
    QSettings().remove(QStringLiteral("files/lastFolder"));
    QTemporaryDir traces, reports;
    QVERIFY(traces.isValid() && reports.isValid());
    const QString trace = traces.filePath(QStringLiteral("t.alog"));
    QCOMPARE(gui::dialogFolder(trace, false), QFileInfo(trace).absolutePath());
    QCOMPARE(gui::dialogFolder(trace, true), QFileInfo(trace).absolutePath());
    QCOMPARE(gui::dialogFolder(QStringLiteral("/nonexistent/dir/t.alog"), false), QDir::homePath());
    const QString sub = reports.filePath(QStringLiteral("out"));
    QVERIFY(QDir().mkpath(sub));
    gui::rememberDialogFolder(QDir(sub).filePath(QStringLiteral("picture.png")));
    QCOMPARE(gui::dialogFolder(trace, true), QFileInfo(QDir(sub).filePath(QStringLiteral("x"))).absolutePath());
    QCOMPARE(gui::dialogFolder(trace, false), QFileInfo(QDir(sub).filePath(QStringLiteral("x"))).absolutePath());
    QVERIFY(QDir(sub).removeRecursively());  // gone: the trace's folder again
    QCOMPARE(gui::dialogFolder(trace, false), QFileInfo(trace).absolutePath());
    QSettings().remove(QStringLiteral("files/lastFolder"));
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
      // The docks' layout goes with the session (issue #40 item 8): the Charts dock shown,
      // the Hypotheses dock closed.
      w.findChild<QDockWidget*>(QStringLiteral("chartsDock"))->show();
      w.findChild<QDockWidget*>(QStringLiteral("hypothesisDock"))->hide();
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
    QCOMPARE(data.view.mode, ui::TimelineMode::Lanes);

    QVERIFY(!data.view.docks.isEmpty());

    MainWindow w2;
    QVERIFY(w2.findChild<QDockWidget*>(QStringLiteral("chartsDock"))->isHidden());
    QVERIFY(!w2.findChild<QDockWidget*>(QStringLiteral("hypothesisDock"))->isHidden());
    w2.openSession(path);
    QVERIFY(waitReady(w2));
    QVERIFY(!w2.findChild<QDockWidget*>(QStringLiteral("chartsDock"))->isHidden());
    QVERIFY(w2.findChild<QDockWidget*>(QStringLiteral("hypothesisDock"))->isHidden());
    QVERIFY(w2.session()->document()->entries() == expected);
    QCOMPARE(w2.predictedTimeShown(), shown);
    QCOMPARE(w2.timeline()->mode(), ui::TimelineMode::Lanes);
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
    QVERIFY(w.requestHypothesis(HypothesisKind::ZeroWait,
                                TimelineItem{TimelineItem::Kind::Event, call.rank, call.event, 0, false}));
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
      if (auto* d = qobject_cast<QDialog*>(modal);
          d && step == 0 && d->objectName() == QStringLiteral("exportImageDialog")) {
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
    const QByteArray before = [&] {
      QFile g(out);
      g.open(QIODevice::ReadOnly);
      return g.readAll();
    }();
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
};

namespace {
const RegisterTests<TestGuiFiles> registered("files");
}  // namespace

#include "test_gui_files.moc"
