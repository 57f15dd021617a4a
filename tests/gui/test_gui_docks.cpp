// GUI tests: The docks and dialogs: advisor, charts, network model, region picker, overhead, compensation.
#include "gui_test_support.h"

using namespace perwiz::gui_test;

class TestGuiDocks : public QObject {
  Q_OBJECT

 private slots:
  // Issue #41: File ▸ Compare With… on the bundled stencil pair, with the balance hypotheses:
  // the dock's figures are the core's (A′ is the prediction shown, B the balanced run), a step
  // row takes the timeline to that step, a rank row to the rank's run, an event row selects it.
  void comparisonDock() {
    const QString dir = QStringLiteral(PERWIZ_SAMPLES_DIR);
    MainWindow w;
    w.resize(1400, 860);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    w.openTrace(dir + QStringLiteral("/stencil_8"));
    QVERIFY(waitReady(w));
    const Trace& a = *w.session()->trace();
    QCOMPARE(a.steps.size(), std::size_t(10));
    std::vector<Hypothesis> hs;
    for (std::uint32_t k = 0; k < 10; ++k) hs.push_back({HypothesisKind::BalanceCompute, {}, k});
    QCOMPARE(w.session()->applyHypotheses(hs), 10);
    QVERIFY(waitReady(w));
    const QString pathB = dir + QStringLiteral("/stencil_8_balanced");
    // A run of another program is refused with the reason (no table); a comparison asked for
    // while another loads replaces it.
    QSignalSpy failed(w.session(), &perwiz::gui::AnalysisSession::comparisonFailed);
    w.compareWith(QStringLiteral(PERWIZ_SAMPLE));  // ring4.alog: another program
    QTRY_COMPARE_WITH_TIMEOUT(failed.count(), 1, 20000);
    QVERIFY2(failed.at(0).at(0).toString().contains(QStringLiteral("cannot be compared")),
             qPrintable(failed.at(0).at(0).toString()));
    QVERIFY(w.comparisonDock()->result() == nullptr);
    QCOMPARE(w.comparisonDock()->rankTable()->rowCount(), 0);
    QVERIFY(w.comparisonDock()->summary()->text().startsWith(QStringLiteral("No comparison")));
    w.compareWith(dir + QStringLiteral("/binary_swap_8"));
    w.compareWith(pathB);
    QVERIFY(w.comparisonDock()->isVisible());
    QTRY_VERIFY_WITH_TIMEOUT(w.comparisonDock()->result() != nullptr, 20000);
    const auto result = w.comparisonDock()->result();
    QVERIFY(result->error.isEmpty());
    QCOMPARE(result->pathB, QFileInfo(pathB).absoluteFilePath());  // the later request's
    const Trace b = loadTrace(pathB.toStdString());
    const Comparison& c = result->comparison;
    QCOMPARE(c.measuredA, a.endTime);
    QCOMPARE(c.measuredB, b.endTime);
    QVERIFY(c.predicted.has_value());
    QCOMPARE(*c.predicted, w.session()->prediction()->predictedTime);  // A′ is the prediction shown
    QCOMPARE(result->alignment->paired, a.eventCount());
    QVERIFY(w.comparisonDock()->summary()->text().contains(QStringLiteral("Predicted")));
    auto* ranks = w.comparisonDock()->rankTable();
    auto* steps = w.comparisonDock()->stepTable();
    QCOMPARE(ranks->rowCount(), 8);
    QCOMPARE(steps->rowCount(), 10);
    QCOMPARE(ranks->columnCount(), 6);  // rank, end A, end B, B − A, predicted, error
    QCOMPARE(ranks->item(3, 2)->text(), perwiz::gui::formatDuration(c.ranks[3].endB));

    // A step row: the timeline shows that step of A (its markers' span over the ranks).
    w.comparisonDock()->tabs()->setCurrentWidget(steps);
    const int row = 4;
    const std::uint32_t k = c.steps[row].stepA;
    TimeNs begin = a.endTime, end = 0;
    for (std::uint32_t r = 0; r < a.rankCount(); ++r) {
      begin = std::min(begin, a.stepBegin(k, r));
      end = std::max(end, a.stepEnd(k, r));
    }
    QTest::mouseClick(steps->viewport(), Qt::LeftButton, {}, steps->visualItemRect(steps->item(row, 1)).center());
    QTRY_COMPARE_WITH_TIMEOUT(w.timeline()->visibleBegin(), begin, 2000);
    QCOMPARE(w.timeline()->visibleEnd(), end);
    // B's timeline, under A's, follows: one time axis, one zoom.
    QVERIFY(w.timelineB()->isVisible());
    QCOMPARE(w.timelineB()->trace(), result->traceB.get());
    QCOMPARE(w.timelineB()->visibleBegin(), begin);
    QCOMPARE(w.timelineB()->visibleEnd(), end);
    // And A's follows B's.
    w.timelineB()->setVisibleRange(end, end + (end - begin));
    QCOMPARE(w.timeline()->visibleBegin(), end);
    QCOMPARE(w.timeline()->visibleEnd(), end + (end - begin));
    // An event row: the event is selected and in view.
    auto* events = w.comparisonDock()->eventTable();
    w.comparisonDock()->tabs()->setCurrentWidget(events);
    QVERIFY(events->rowCount() > 0);
    QTest::mouseClick(events->viewport(), Qt::LeftButton, {}, events->visualItemRect(events->item(0, 1)).center());
    const EventDifference& e = c.changed.empty() ? c.missed.front() : c.changed.front();
    QTRY_COMPARE_WITH_TIMEOUT(w.timeline()->selection().event, e.eventA, 2000);
    QCOMPARE(w.timeline()->selection().rank, e.rankA);
    QVERIFY(w.timeline()->visibleBegin() <= e.enterA && e.enterA < w.timeline()->visibleEnd());
    QCOMPARE(w.timelineB()->selection().event, e.eventB);  // its partner in B, selected too
    QCOMPARE(w.timelineB()->selection().rank, e.rankB);
    QCOMPARE(w.timelineB()->visibleBegin(), w.timeline()->visibleBegin());
    // Line up: B's view is shifted so that the event and its partner sit at one place; then
    // both runs from their start again.
    QVERIFY(w.comparisonDock()->lineUpButton()->isEnabled());
    QTest::mouseClick(w.comparisonDock()->lineUpButton(), Qt::LeftButton);
    const TimeNs shift = e.enterB - e.enterA;
    QVERIFY(shift != 0);
    QCOMPARE(w.timelineB()->visibleBegin(), w.timeline()->visibleBegin() + shift);
    w.timeline()->setVisibleRange(w.timeline()->visibleBegin() + 10, w.timeline()->visibleEnd() + 10);
    QCOMPARE(w.timelineB()->visibleBegin(), w.timeline()->visibleBegin() + shift);  // and stays so
    QTest::mouseClick(w.comparisonDock()->startTogetherButton(), Qt::LeftButton);
    QCOMPARE(w.timelineB()->visibleBegin(), w.timeline()->visibleBegin());

    // A new prediction (the ten hypotheses undone, one step) makes the comparison again: no A′.
    w.session()->undoStack()->undo();
    QVERIFY(waitReady(w));
    QVERIFY(w.session()->document()->entries().empty());
    QTRY_VERIFY_WITH_TIMEOUT(w.comparisonDock()->result() != result, 20000);
    QVERIFY(!w.comparisonDock()->result()->comparison.predicted.has_value());
    QCOMPARE(w.comparisonDock()->rankTable()->columnCount(), 4);
    QVERIFY(w.comparisonDock()->summary()->text().contains(QStringLiteral("No hypotheses")));
    // Redone: A′ again, the prediction shown.
    w.session()->undoStack()->redo();
    QVERIFY(waitReady(w));
    QTRY_VERIFY_WITH_TIMEOUT(w.comparisonDock()->result()->comparison.predicted.has_value(), 20000);
    QCOMPARE(*w.comparisonDock()->result()->comparison.predicted, w.session()->prediction()->predictedTime);
    QCOMPARE(w.comparisonDock()->result()->applied.size(), std::size_t(10));
    if (const QString shots = qEnvironmentVariable("PERWIZ_SCREENSHOT_DIR"); !shots.isEmpty()) {
      w.comparisonDock()->tabs()->setCurrentWidget(steps);
      QTest::qWait(200);
      w.grab().save(shots + QStringLiteral("/comparison.png"));
    }
    // Changes beyond a threshold are marked: the events the core finds beyond it.
    {
      CompareOptions mark;
      mark.markAbove = 100000;  // 100 µs
      const Comparison expected = compareTraces(a, b, alignTraces(a, b), nullptr, mark);
      QVERIFY(expected.markedCount > 0);
      w.comparisonDock()->markSpin()->setValue(100);
      QTRY_VERIFY_WITH_TIMEOUT(w.comparisonDock()->result()->comparison.markedCount == expected.markedCount, 20000);
      QCOMPARE(w.comparisonDock()->result()->comparison.marked, expected.marked);
      QVERIFY(w.comparisonDock()->summary()->text().contains(QString::number(expected.markedCount)));
      w.comparisonDock()->markSpin()->setValue(0);  // back to the largest changes
      QTRY_VERIFY_WITH_TIMEOUT(w.comparisonDock()->result()->comparison.marked.empty(), 20000);
    }
    // The image export holds both runs, A's header naming B and the three T.
    {
      ui::TimelineExportOptions options;
      options.width = 1200;
      perwiz::gui::describeExport(options, w.session()->tracePath(), w.session()->prediction()->applied, c.measuredA,
                                  *c.predicted, &a);
      const std::vector<perwiz::gui::ExportPart> parts = w.exportParts(options, true);
      QCOMPARE(parts.size(), std::size_t(2));
      QCOMPARE(parts[1].view, static_cast<const ui::TimelineView*>(w.timelineB()));
      QVERIFY(
          parts[0].options.notes.join(QLatin1Char('\n')).contains(QStringLiteral("Compared with stencil_8_balanced")));
      QVERIFY(parts[0].options.notes.join(QLatin1Char('\n')).contains(perwiz::gui::formatDuration(c.measuredB)));
      QVERIFY(parts[1].options.title.startsWith(QStringLiteral("B: stencil_8_balanced")));
      QTemporaryDir out;
      const QString png = out.filePath(QStringLiteral("comparison.png"));
      QString error;
      QVERIFY2(perwiz::gui::exportTimelineImage(parts, png, false, &error), qPrintable(error));
      const QImage image(png);
      QCOMPARE(image.height(), parts[0].view->exportSize(parts[0].options).height() +
                                   parts[1].view->exportSize(parts[1].options).height());
      if (const QString shots = qEnvironmentVariable("PERWIZ_SCREENSHOT_DIR"); !shots.isEmpty())
        image.save(shots + QStringLiteral("/comparison-export.png"));
    }
    // A session saved now brings the comparison back.
    QTemporaryDir tmp;
    const QString sessionPath = tmp.filePath(QStringLiteral("compare.perwiz"));
    QVERIFY(w.session()->saveSessionTo(sessionPath, {}));
    {
      MainWindow again;
      again.show();
      again.openSession(sessionPath);
      QTRY_VERIFY_WITH_TIMEOUT(again.comparisonDock()->result() != nullptr &&
                                   again.comparisonDock()->result()->comparison.predicted.has_value(),
                               20000);
      QCOMPARE(again.comparisonDock()->result()->pathB, QFileInfo(pathB).absoluteFilePath());
      QCOMPARE(*again.comparisonDock()->result()->comparison.predicted, *c.predicted);
      QVERIFY(again.timelineB()->isVisible());
    }
    // Another trace ends it.
    w.openTrace(dir + QStringLiteral("/binary_swap_8"));
    QVERIFY(waitReady(w));
    QVERIFY(w.comparisonDock()->result() == nullptr);
    QCOMPARE(w.comparisonDock()->rankTable()->rowCount(), 0);
    QVERIFY(!w.timelineB()->isVisible());
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
    QVERIFY(QTest::qWaitFor(
        [&] {
          auto o = w.advisorDock()->outcome();
          return o && o->finished;
        },
        60000));
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
      QVERIFY2(
          text.startsWith(top->child(0)->text(0) + QStringLiteral(" → ") + top->child(top->childCount() - 1)->text(0)),
          qPrintable(text));
    }
    // Gains: time saved and its share carry one sign ("+x (+y %)", "−x (−y %)").
    auto checkGain = [](const QString& g) {
      const bool plus = g.startsWith(QLatin1Char('+')), minus = g.startsWith(QChar(0x2212));
      QVERIFY2(plus    ? g.contains(QStringLiteral("(+"))
               : minus ? g.contains(QStringLiteral("(−"))
                       : !g.contains(QLatin1Char('+')),
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
    QVERIFY(QTest::qWaitFor(
        [&] {
          auto o = w.advisorDock()->outcome();
          return o && o->finished && o != outcome;
        },
        60000));
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
    QVERIFY(w.requestHypothesis(HypothesisKind::ZeroWait,
                                TimelineItem{TimelineItem::Kind::Event, call.rank, call.event, 0, false}));
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
    QVERIFY(QTest::qWaitFor(
        [&] {
          auto o = w.advisorDock()->outcome();
          return o && o->finished;
        },
        60000));
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
    QTest::mouseClick(history, Qt::LeftButton, {},
                      QPoint(int(history->xAxis->coordToPixel(0)), int(history->yAxis->coordToPixel(v0 / 2))));
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
    QCOMPARE(d.field(QStringLiteral("L"))->value(), 9.11);  // µs
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
        if (r == 0)
          b.send(r, t0 + 5000, t0 + 5100, 1, 64);
        else
          b.recv(r, t0 + 4500, t0 + 5200, 0, 64);
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
      QVERIFY(
          w.requestHypothesis(HypothesisKind::BalanceCompute, TimelineItem{TimelineItem::Kind::Step, 0, 0, 2, false}));
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
    QCOMPARE(qint64(dock->siteTable()->item(0, 4)->data(Qt::UserRole).toDouble()),
             qint64(core.sites[0].totals.overheadNs));
    // Histogram of the first class: one bar per histogram class with its count.
    QCOMPARE(dock->histogramClass(), 0);
    auto* bars = qobject_cast<QCPBars*>(dock->histogram()->plottable(0));
    QVERIFY(bars);
    QVERIFY(core.classes[0].fit);
    const ErrorHistogram& h = core.classes[0].fit->histogram;
    QCOMPARE(bars->data()->size(), int(h.counts.size()));
    for (int k = 0; k < bars->data()->size(); ++k)
      QCOMPARE(bars->data()->at(k)->value, double(h.counts[std::size_t(k)]));
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
};

namespace {
const RegisterTests<TestGuiDocks> registered("docks");
}  // namespace

#include "test_gui_docks.moc"
