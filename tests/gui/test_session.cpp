// The GUI's model side without a window (app/gui/analysis_session.h, issue #18): toggle, undo,
// reload, save and reopen, superseded predictions and refusals, checked against the core engine.
#include "analysis_session.h"
#include "prediction_worker.h"  // its test hook
#include "scenario_document.h"
#include "units.h"

#include "perwiz/generator.h"
#include "perwiz/replay.h"
#include "perwiz/trace_builder.h"
#include "perwiz/trace_io.h"
#include "perwiz/widgets/timeline_model.h"

#include <QGuiApplication>
#include <QElapsedTimer>
#include <QFile>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QUndoStack>

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <thread>

namespace perwiz::gui {
namespace {

// Runs the event loop until `done` (false after `ms`).
template <class Done>
bool waitFor(Done done, int ms = 30000) {
  QElapsedTimer t;
  t.start();
  while (!done()) {
    if (t.elapsed() > ms) return false;
    QCoreApplication::processEvents(QEventLoop::AllEvents, 20);
  }
  return true;
}

QString generatedTrace(const QTemporaryDir& dir, const QString& name, std::uint32_t ranks, std::uint64_t seed) {
  GeneratorSpec spec;
  spec.ranks = ranks;
  spec.steps = 40;
  spec.imbalance = 0.3;
  spec.seed = seed;
  TraceBuilder b(name.toStdString(), "generated");
  generateTrace(spec, b);
  const QString path = dir.filePath(name + QStringLiteral(".otf2"));
  saveTrace(b.take(), path.toStdString());
  return path;
}

// The predicted T the core engine gives for `hs` (the session must show the same).
TimeNs corePrediction(const Trace& trace, std::vector<Hypothesis> hs) {
  Scenario s;
  s.hypotheses = std::move(hs);
  return Replayer(trace, s).predictedTime();
}

// The MPI call with the longest measured wait: zeroing it changes T.
Hypothesis longestWait(const Trace& trace) {
  const Replayer rp(trace, Scenario{});
  Hypothesis best{HypothesisKind::ZeroWait, {}, 0};
  TimeNs longest = -1;
  for (std::uint32_t r = 0; r < trace.rankCount(); ++r)
    for (std::uint32_t i = 0; i < trace.ranks[r].mpiCalls.size(); ++i)
      if (const TimeNs w = rp.measuredWait(r, i); w > longest) {
        longest = w;
        best.event = EventRef{r, i, false};
      }
  return best;
}

class SessionTest : public ::testing::Test {
 protected:
  bool load(AnalysisSession& s, const QString& path) {
    QSignalSpy loaded(&s, &AnalysisSession::traceLoaded);
    s.openTrace(path);
    return waitFor([&] { return loaded.count() > 0; }) && waitFor([&] { return s.isPredictionCurrent(); });
  }
  QTemporaryDir dir_;
};

TEST_F(SessionTest, ToggleAndUndoPredictWhatTheEngineDoes) {
  ASSERT_TRUE(dir_.isValid());
  AnalysisSession s;
  ASSERT_TRUE(load(s, generatedTrace(dir_, QStringLiteral("a"), 8, 3)));
  const Trace& t = *s.trace();
  // No hypothesis: the prediction is the measurement (identity replay).
  EXPECT_EQ(s.prediction()->predictedTime, s.prediction()->measuredTime);
  const Hypothesis h = longestWait(t);
  QString why;
  ASSERT_TRUE(s.requestHypothesis(h, &why)) << why.toStdString();
  EXPECT_EQ(s.undoStack()->count(), 1);
  EXPECT_FALSE(s.isPredictionCurrent());  // a re-simulation is pending until the worker answers
  ASSERT_TRUE(waitFor([&] { return s.isPredictionCurrent(); }));
  const TimeNs zeroed = corePrediction(t, {h});
  EXPECT_LT(zeroed, s.prediction()->measuredTime);
  // The wait the user had covers the engine's update (it starts before and ends after it).
  EXPECT_GE(s.lastLatencySeconds(), s.prediction()->seconds);
  EXPECT_GT(s.prediction()->seconds, 0.0);
  EXPECT_EQ(s.prediction()->predictedTime, zeroed);
  // Undo: back to the measurement; redo: the same prediction again.
  s.undoStack()->undo();
  ASSERT_TRUE(waitFor([&] { return s.isPredictionCurrent(); }));
  EXPECT_EQ(s.prediction()->predictedTime, s.prediction()->measuredTime);
  s.undoStack()->redo();
  ASSERT_TRUE(waitFor([&] { return s.isPredictionCurrent(); }));
  EXPECT_EQ(s.prediction()->predictedTime, zeroed);
  // The history holds T of each undo state: the measurement, then the zeroed wait.
  ASSERT_EQ(s.history().states().size(), 2);
  EXPECT_EQ(s.history().states()[0].predictedNs.value_or(-1), s.prediction()->measuredTime);
  EXPECT_EQ(s.history().states()[1].predictedNs.value_or(-1), zeroed);
}

// Export Predicted Trace writes from a copy of the engine taken when it starts: a change made
// while it writes is predicted at once (the export held the engine's lock for its whole write
// before issue #39, so the next prediction waited for the file), and the file holds the
// prediction that was shown when the export started, not the newer one.
TEST_F(SessionTest, APredictionCompletesWhileAnExportRuns) {
  ASSERT_TRUE(dir_.isValid());
  AnalysisSession s;
  ASSERT_TRUE(load(s, generatedTrace(dir_, QStringLiteral("e"), 8, 5)));
  const Trace& t = *s.trace();
  const Hypothesis h = longestWait(t);
  ASSERT_TRUE(s.requestHypothesis(h));
  ASSERT_TRUE(waitFor([&] { return s.isPredictionCurrent(); }));
  const TimeNs exported = s.prediction()->predictedTime;
  ASSERT_EQ(exported, corePrediction(t, {h}));

  // The export's thread stops before writing until the test lets it go.
  std::atomic<bool> writing{false}, release{false};
  s.setBeforeExportWrite([&] {
    writing = true;
    while (!release) std::this_thread::sleep_for(std::chrono::milliseconds(2));
  });
  QSignalSpy finished(&s, &AnalysisSession::exportFinished);
  const QString out = dir_.filePath(QStringLiteral("e-predicted.otf2"));
  QString why;
  ASSERT_TRUE(s.exportPredictedTrace(out, &why)) << why.toStdString();
  EXPECT_TRUE(s.isExporting());
  EXPECT_FALSE(s.exportPredictedTrace(dir_.filePath(QStringLiteral("second.otf2")), &why));  // one at a time
  ASSERT_TRUE(waitFor([&] { return writing.load(); }));

  // While the export waits: a second hypothesis is predicted to the end.
  Hypothesis other = h;
  for (std::uint32_t r = 0; r < t.rankCount() && other == h; ++r)
    if (!t.ranks[r].mpiCalls.empty()) other = Hypothesis{HypothesisKind::ZeroEvent, EventRef{r, 0, false}, 0};
  ASSERT_FALSE(other == h);
  ASSERT_TRUE(s.requestHypothesis(other, &why)) << why.toStdString();
  EXPECT_TRUE(waitFor([&] { return s.isPredictionCurrent(); }, 20000)) << "the prediction waited for the export";
  EXPECT_EQ(s.prediction()->predictedTime, corePrediction(t, {h, other}));
  EXPECT_EQ(finished.count(), 0);
  EXPECT_TRUE(s.isExporting());

  release = true;
  ASSERT_TRUE(waitFor([&] { return finished.count() > 0; }));
  EXPECT_EQ(finished.at(0).at(0).toString(), out);
  EXPECT_TRUE(finished.at(0).at(1).toString().isEmpty()) << finished.at(0).at(1).toString().toStdString();
  EXPECT_FALSE(s.isExporting());
  // The file is the prediction shown when the export started: its last leave is that T.
  const Trace written = loadTrace(out.toStdString());
  EXPECT_EQ(written.rankCount(), t.rankCount());
  EXPECT_EQ(written.endTime, exported);
  const std::vector<std::string> recorded = scenariosRecordedIn(written);
  ASSERT_EQ(recorded.size(), 1u);
  EXPECT_NE(recorded[0].find(h.event.toString()), std::string::npos) << recorded[0];
  EXPECT_EQ(recorded[0].find("zero-event"), std::string::npos) << recorded[0];
}

// The overhead analysis is a job of the session too: one at a time, the latest request's
// result handed back (a superseded one dropped), equal to the core's analyzeOverhead.
TEST_F(SessionTest, TheOverheadAnalysisRunsInTheSessionAndTheLatestRequestWins) {
  ASSERT_TRUE(dir_.isValid());
  AnalysisSession s;
  ASSERT_TRUE(load(s, generatedTrace(dir_, QStringLiteral("o"), 8, 9)));
  QSignalSpy analysed(&s, &AnalysisSession::overheadAnalysed);
  s.runOverheadAnalysis(0.5, nullptr);
  s.runOverheadAnalysis(0.9, nullptr);  // supersedes the first
  EXPECT_TRUE(s.isAnalysingOverhead());
  ASSERT_TRUE(waitFor([&] { return analysed.count() > 0 && !s.isAnalysingOverhead(); }));
  ASSERT_EQ(analysed.count(), 1);
  const auto result = analysed.at(0).at(0).value<std::shared_ptr<const OverheadResult>>();
  ASSERT_TRUE(result && result->analysis) << (result ? result->error.toStdString() : "no result");
  EXPECT_EQ(result->trace, s.trace());
  OverheadOptions o;
  o.fit.quantile = 0.9;
  const OverheadAnalysis core = analyzeOverhead(*s.trace(), o);
  EXPECT_DOUBLE_EQ(result->analysis->quantile, core.quantile);
  EXPECT_EQ(result->analysis->total.overheadNs, core.total.overheadNs);
  EXPECT_EQ(result->analysis->total.calls, core.total.calls);
}

TEST_F(SessionTest, RefusalsLeaveTheScenarioAlone) {
  ASSERT_TRUE(dir_.isValid());
  AnalysisSession s;
  QString why;
  EXPECT_FALSE(s.requestHypothesis(Hypothesis{HypothesisKind::ZeroWait, EventRef{0, 0, false}, 0}, &why));
  EXPECT_FALSE(why.isEmpty());  // no trace loaded
  ASSERT_TRUE(load(s, generatedTrace(dir_, QStringLiteral("b"), 4, 5)));
  why.clear();
  EXPECT_FALSE(s.requestHypothesis(Hypothesis{HypothesisKind::ZeroWait, EventRef{99, 0, false}, 0}, &why));
  EXPECT_NE(why.indexOf(QStringLiteral("ranks")), -1) << why.toStdString();
  why.clear();
  EXPECT_FALSE(s.requestHypothesis(Hypothesis{HypothesisKind::BalanceCompute, {}, 100000}, &why));
  EXPECT_NE(why.indexOf(QStringLiteral("parallel steps")), -1) << why.toStdString();
  EXPECT_EQ(s.undoStack()->count(), 0);
  // The same hypothesis twice: the second is refused as already applied.
  const Hypothesis h = longestWait(*s.trace());
  ASSERT_TRUE(s.requestHypothesis(h, &why));
  EXPECT_FALSE(s.requestHypothesis(h, &why));
  EXPECT_EQ(s.undoStack()->count(), 1);
}

TEST_F(SessionTest, ANewerChangeSupersedesTheRunningPrediction) {
  ASSERT_TRUE(dir_.isValid());
  AnalysisSession s;
  ASSERT_TRUE(load(s, generatedTrace(dir_, QStringLiteral("c"), 8, 7)));
  const Trace& t = *s.trace();
  QSignalSpy ready(&s, &AnalysisSession::predictionReady);
  // Three changes without waiting in between: the session shows the last one's prediction.
  const Hypothesis a = longestWait(t);
  const Hypothesis b{HypothesisKind::BalanceCompute, {}, 1};
  const Hypothesis c{HypothesisKind::BalanceCompute, {}, 2};
  ASSERT_TRUE(s.requestHypothesis(a));
  ASSERT_TRUE(s.requestHypothesis(b));
  ASSERT_TRUE(s.requestHypothesis(c));
  // Until their prediction arrives, the three are pending (shown so at once, never queued
  // silently).
  auto pending = s.pendingHypotheses();
  std::sort(pending.begin(), pending.end());
  std::vector<Hypothesis> abc{a, b, c};
  std::sort(abc.begin(), abc.end());
  EXPECT_EQ(pending, abc);
  const quint64 last = s.generation();
  ASSERT_TRUE(waitFor([&] { return s.isPredictionCurrent(); }));
  EXPECT_EQ(s.prediction()->generation, last);
  EXPECT_EQ(s.prediction()->predictedTime, corePrediction(t, {a, b, c}));
  EXPECT_TRUE(s.pendingHypotheses().empty());
  // Every result that arrived belongs to one of the three changes, in order; none came after
  // the current one.
  quint64 previous = 0;
  for (const auto& args : ready) {
    const auto r = args.at(0).value<std::shared_ptr<const PredictionResult>>();
    EXPECT_GT(r->generation, previous);
    EXPECT_LE(r->generation, last);
    previous = r->generation;
  }
}

// The snapshot after each toggle equals the core engine's prediction of the scenario on every
// rank, every event and every call; ranks the toggle did not move are the previous snapshot's
// arrays, shared, not copied.
TEST_F(SessionTest, SnapshotsShareTheRanksAToggleDidNotMove) {
  ASSERT_TRUE(dir_.isValid());
  AnalysisSession s;
  ASSERT_TRUE(load(s, generatedTrace(dir_, QStringLiteral("share"), 12, 5)));
  const Trace& t = *s.trace();
  const std::uint32_t R = std::uint32_t(t.rankCount());
  std::vector<Hypothesis> hs;
  bool shared = false;
  // Zero the computation before the last call of each of three ranks (it moves that rank's
  // end only), then balance a step (it moves many).
  for (std::uint32_t r : {2u, 7u, 11u}) {
    hs.push_back(Hypothesis{HypothesisKind::ZeroEvent, {r, std::uint32_t(t.ranks[r].mpiCalls.size() - 1), true}, 0});
  }
  hs.push_back(Hypothesis{HypothesisKind::BalanceCompute, {}, 3});
  for (const Hypothesis& h : hs) {
    const auto before = s.prediction();
    ASSERT_TRUE(s.requestHypothesis(h));
    ASSERT_TRUE(waitFor([&] { return s.isPredictionCurrent(); }));
    const auto now = s.prediction();
    Scenario sc;
    sc.hypotheses = s.document()->enabledHypotheses();
    const Replayer core(t, sc);
    const Replayer::EventTimes times = core.predictedEventTimes();
    std::uint32_t same = 0;
    for (std::uint32_t r = 0; r < R; ++r) {
      const PredictedRank& pr = *now->times->ranks[r];
      ASSERT_EQ(pr.enters(), times.enter[r]) << h.toString() << " rank " << r;
      ASSERT_EQ(pr.leaves(), times.leave[r]) << h.toString() << " rank " << r;
      ASSERT_EQ(pr.calls(), t.ranks[r].mpiCalls.size());
      for (std::uint32_t i = 0; i < pr.calls(); ++i) {
        ASSERT_EQ(pr.call(i, t.ranks[r].mpiCalls[i]).wait, core.predicted(r, i).wait);
        ASSERT_EQ(pr.call(i, t.ranks[r].mpiCalls[i]).leave, core.predicted(r, i).leave);
      }
      if (now->times->ranks[r] == before->times->ranks[r]) ++same;
    }
    EXPECT_EQ(same, R - now->changedRanks) << h.toString();
    if (now->changedRanks < R) shared = true;
    EXPECT_EQ(now->times->end, times.end);
  }
  EXPECT_TRUE(shared);  // at least one toggle copied fewer ranks than the trace has
}

// Cancel during the engine's construction: the worker stops, reports it, keeps no engine and
// shows no result; the next change (or Predict Again) predicts from scratch.
TEST_F(SessionTest, CancelStopsTheFirstPredictionAndAChangePredictsAgain) {
  ASSERT_TRUE(dir_.isValid());
  AnalysisSession s;
  const QString path = generatedTrace(dir_, QStringLiteral("cancel"), 6, 3);
  // Hold the worker just before its first construction until the cancel has been sent: then
  // the construction starts with the cancel flag set and stops at its first check.
  std::atomic<bool> release{false}, reached{false};
  s.worker()->setBeforeBuild([&] {
    reached = true;
    while (!release) std::this_thread::yield();
  });
  QSignalSpy cancelled(&s, &AnalysisSession::predictionCancelled);
  QSignalSpy ready(&s, &AnalysisSession::predictionReady);
  QSignalSpy loaded(&s, &AnalysisSession::traceLoaded);
  s.openTrace(path);
  ASSERT_TRUE(waitFor([&] { return loaded.count() > 0 && reached.load(); }));
  s.cancelPrediction();
  release = true;
  ASSERT_TRUE(waitFor([&] { return cancelled.count() > 0; }));
  EXPECT_EQ(ready.count(), 0);
  EXPECT_FALSE(s.isPredictionCurrent());
  EXPECT_FALSE(s.worker()->hasReplayer());
  s.worker()->setBeforeBuild(nullptr);
  // Predict Again: the whole prediction, equal to the core engine's.
  s.predictAgain();
  ASSERT_TRUE(waitFor([&] { return s.isPredictionCurrent(); }));
  EXPECT_EQ(s.prediction()->predictedTime, corePrediction(*s.trace(), {}));
  // A change: pending until its result arrives.
  const Hypothesis h = longestWait(*s.trace());
  ASSERT_TRUE(s.requestHypothesis(h));
  EXPECT_EQ(s.pendingHypotheses(), std::vector<Hypothesis>{h});
  ASSERT_TRUE(waitFor([&] { return s.isPredictionCurrent(); }));
  EXPECT_TRUE(s.pendingHypotheses().empty());
  EXPECT_EQ(s.prediction()->predictedTime, corePrediction(*s.trace(), {h}));
}

// The first result is shown before the index of incremental changes is built (issue #40: 26 s
// at 10^8 events); a change requested meanwhile waits for it and is exact; another trace
// requested meanwhile stops it.
TEST_F(SessionTest, TheFirstResultComesBeforeThePreparationForChanges) {
  ASSERT_TRUE(dir_.isValid());
  AnalysisSession s;
  std::atomic<bool> release{false};
  std::atomic<int> reached{0};
  s.worker()->setBeforePrepare([&] {
    ++reached;
    while (!release) std::this_thread::yield();
  });
  QSignalSpy loaded(&s, &AnalysisSession::traceLoaded);
  s.openTrace(generatedTrace(dir_, QStringLiteral("first"), 6, 5));
  ASSERT_TRUE(waitFor([&] { return loaded.count() > 0 && reached.load() == 1; }));
  // Held before preparing: the first result is already there.
  ASSERT_TRUE(waitFor([&] { return s.isPredictionCurrent(); }));
  EXPECT_EQ(s.prediction()->predictedTime, corePrediction(*s.trace(), {}));
  EXPECT_EQ(s.worker()->stage(), PredictionWorker::Stage::Preparing);
  EXPECT_FALSE(s.worker()->idle());
  // A change waits for the preparation, then is the engine's.
  const Hypothesis h = longestWait(*s.trace());
  ASSERT_TRUE(s.requestHypothesis(h));
  release = true;
  ASSERT_TRUE(waitFor([&] { return s.isPredictionCurrent(); }));
  EXPECT_EQ(s.prediction()->predictedTime, corePrediction(*s.trace(), {h}));
  ASSERT_TRUE(waitFor([&] { return s.worker()->idle(); }));
  EXPECT_EQ(reached.load(), 1);  // prepared once: the change's result needs no second preparation

  // Another trace while preparing: the preparation stops at once (ReplayControl::cancel) and
  // the new trace's engine is built and prepared.
  release = false;
  loaded.clear();
  s.openTrace(generatedTrace(dir_, QStringLiteral("second"), 5, 6));
  // The worker reaches the preparation right after publishing the second trace's first result,
  // which reaches the session through the event loop: wait for both (reading the result as soon
  // as the hook was reached found none now and then on a loaded machine).
  ASSERT_TRUE(waitFor([&] { return reached.load() == 2 && s.prediction() != nullptr; }));
  const quint64 second = s.prediction()->generation;
  loaded.clear();
  s.openTrace(generatedTrace(dir_, QStringLiteral("third"), 7, 8));
  ASSERT_TRUE(waitFor([&] { return loaded.count() > 0; }));
  release = true;
  ASSERT_TRUE(
      waitFor([&] { return s.isPredictionCurrent() && s.prediction()->generation > second && s.worker()->idle(); }));
  EXPECT_EQ(s.trace()->rankCount(), 7u);
  EXPECT_EQ(s.prediction()->predictedTime, corePrediction(*s.trace(), {}));
  EXPECT_EQ(reached.load(), 3);
  s.worker()->setBeforePrepare(nullptr);
}

TEST_F(SessionTest, ReloadForgetsTheOldTraceAndItsScenario) {
  ASSERT_TRUE(dir_.isValid());
  AnalysisSession s;
  ASSERT_TRUE(load(s, generatedTrace(dir_, QStringLiteral("d"), 8, 9)));
  ASSERT_TRUE(s.requestHypothesis(longestWait(*s.trace())));
  ASSERT_TRUE(waitFor([&] { return s.isPredictionCurrent(); }));
  QSignalSpy changed(&s, &AnalysisSession::traceChanged);
  ASSERT_TRUE(load(s, generatedTrace(dir_, QStringLiteral("e"), 4, 11)));
  ASSERT_EQ(changed.count(), 1);
  EXPECT_TRUE(changed.at(0).at(1).toBool());  // a new file
  EXPECT_EQ(s.trace()->rankCount(), 4u);
  EXPECT_EQ(s.undoStack()->count(), 0);
  EXPECT_TRUE(s.document()->entries().empty());
  EXPECT_EQ(s.prediction()->trace, s.trace());
  EXPECT_EQ(s.prediction()->predictedTime, s.prediction()->measuredTime);
  // A file that is not a trace: a clear error, the loaded trace stays.
  const QString bad = dir_.filePath(QStringLiteral("bad.alog"));
  QFile f(bad);
  ASSERT_TRUE(f.open(QIODevice::WriteOnly));
  f.write("not a trace\n");
  f.close();
  QSignalSpy failed(&s, &AnalysisSession::loadFailed);
  s.openTrace(bad);
  ASSERT_TRUE(waitFor([&] { return failed.count() > 0; }));
  EXPECT_NE(failed.at(0).at(0).toString().indexOf(QStringLiteral("bad.alog")), -1);
  EXPECT_EQ(s.trace()->rankCount(), 4u);
}

// The loader prepares the view's base and measured drawing with the trace (off the GUI
// thread), handed out once in traceChanged (the session does not keep them alive). That a view
// uses them as they are: Timeline.PreparedTimelineIsUsedForItsOwnTraceOnly.
TEST_F(SessionTest, TheLoaderPreparesTheTimeline) {
  ASSERT_TRUE(dir_.isValid());
  AnalysisSession s;
  ui::PreparedTimeline taken, again;
  std::shared_ptr<const Trace> shown;
  QObject::connect(&s, &AnalysisSession::traceChanged, &s, [&](const std::shared_ptr<const Trace>& t, bool) {
    taken = s.takePreparedTimeline();
    again = s.takePreparedTimeline();
    shown = t;
  });
  ASSERT_TRUE(load(s, generatedTrace(dir_, QStringLiteral("p"), 6, 17)));
  ASSERT_TRUE(taken.base && taken.measured);
  EXPECT_EQ(shown, s.trace());
  EXPECT_FALSE(again.base || again.measured);
  EXPECT_FALSE(s.takePreparedTimeline().base);
}

TEST_F(SessionTest, SaveAndReopenRestoreScenarioAndView) {
  ASSERT_TRUE(dir_.isValid());
  const QString trace = generatedTrace(dir_, QStringLiteral("f"), 8, 13);
  const QString file = dir_.filePath(QStringLiteral("f.perwiz"));
  Hypothesis kept, disabled{HypothesisKind::BalanceCompute, {}, 3};
  TimeNs predicted = 0;
  {
    AnalysisSession s;
    ASSERT_TRUE(load(s, trace));
    kept = longestWait(*s.trace());
    ASSERT_TRUE(s.requestHypothesis(kept));
    ASSERT_TRUE(s.requestHypothesis(disabled));
    s.setHypothesisEnabled(disabled, false);
    ASSERT_TRUE(waitFor([&] { return s.isPredictionCurrent(); }));
    predicted = s.prediction()->predictedTime;
    EXPECT_FALSE(s.undoStack()->isClean());
    QString error;
    ASSERT_TRUE(s.saveSessionTo(file, SessionView{ui::TimelineMode::Lanes, 1000, 2000000}, &error))
        << error.toStdString();
    EXPECT_TRUE(s.undoStack()->isClean());
    EXPECT_EQ(s.sessionPath(), QFileInfo(file).absoluteFilePath());
  }
  AnalysisSession s;
  QSignalSpy view(&s, &AnalysisSession::sessionViewRequested);
  QSignalSpy loaded(&s, &AnalysisSession::traceLoaded);
  QString error;
  ASSERT_TRUE(s.openSession(file, &error)) << error.toStdString();
  ASSERT_TRUE(waitFor([&] { return loaded.count() > 0 && s.isPredictionCurrent(); }));
  ASSERT_EQ(view.count(), 1);
  const auto v = view.at(0).at(0).value<SessionView>();
  EXPECT_EQ(v.mode, ui::TimelineMode::Lanes);
  EXPECT_EQ(v.beginNs, 1000);
  EXPECT_EQ(v.endNs, 2000000);
  ASSERT_EQ(s.document()->entries().size(), 2u);
  EXPECT_EQ(s.document()->enabledHypotheses(), std::vector<Hypothesis>{kept});
  EXPECT_EQ(s.document()->disabledHypotheses(), std::vector<Hypothesis>{disabled});
  EXPECT_EQ(s.prediction()->predictedTime, predicted);
  EXPECT_EQ(s.prediction()->predictedTime, corePrediction(*s.trace(), {kept}));
  // A session file that does not exist: refused with the reason, nothing loads.
  EXPECT_FALSE(s.openSession(dir_.filePath(QStringLiteral("missing.perwiz")), &error));
  EXPECT_NE(error.indexOf(QStringLiteral("missing.perwiz")), -1) << error.toStdString();
}

// The network model is part of what the session shows and undoes (issue #40 item 1): a change is
// one undoable step that the prediction follows, the prediction names the model it used, and a
// newly opened trace starts from the default model with measured local costs, saying so,
// instead of inheriting the last trace's model silently.
TEST_F(SessionTest, TheNetworkModelIsUndoableNamedAndNotInheritedByTheNextTrace) {
  ASSERT_TRUE(dir_.isValid());
  const QString first = generatedTrace(dir_, QStringLiteral("m1"), 8, 21);
  const QString second = generatedTrace(dir_, QStringLiteral("m2"), 8, 22);
  AnalysisSession s;
  ASSERT_TRUE(load(s, first));
  const QString defaultText = describeNetwork(nullptr, CostMode::Measured);
  EXPECT_EQ(s.prediction()->network, defaultText);
  EXPECT_TRUE(defaultText.contains(QString::fromStdString(defaultNetworkModel()->name())));
  const Hypothesis h = longestWait(*s.trace());
  ASSERT_TRUE(s.requestHypothesis(h));
  ASSERT_TRUE(waitFor([&] { return s.isPredictionCurrent(); }));
  const TimeNs withDefault = s.prediction()->predictedTime;

  // Another preset and model costs: one step, predicted as perwiz-cli would.
  std::shared_ptr<const NetworkModel> other(networkPreset("ethernet-table5"));
  ASSERT_TRUE(other);
  const int steps = s.undoStack()->count();
  s.setNetwork(other, CostMode::Model);
  EXPECT_EQ(s.undoStack()->count(), steps + 1);
  s.setNetwork(other, CostMode::Model);  // the same again: no step
  EXPECT_EQ(s.undoStack()->count(), steps + 1);
  ASSERT_TRUE(waitFor([&] { return s.isPredictionCurrent(); }));
  Scenario core{other, CostMode::Model, {h}};
  EXPECT_EQ(s.prediction()->predictedTime, Replayer(*s.trace(), core).predictedTime());
  EXPECT_EQ(s.prediction()->network, describeNetwork(other.get(), CostMode::Model));
  EXPECT_TRUE(s.prediction()->network.contains(QStringLiteral("ethernet-table5")));
  EXPECT_TRUE(s.prediction()->network.contains(QStringLiteral("model local costs")));
  EXPECT_EQ(s.networkDescription(), s.prediction()->network);

  // Undo: the default model is back, and so is its prediction.
  s.undoStack()->undo();
  ASSERT_TRUE(waitFor([&] { return s.isPredictionCurrent(); }));
  EXPECT_EQ(s.prediction()->network, defaultText);
  EXPECT_EQ(s.prediction()->predictedTime, withDefault);
  s.undoStack()->redo();
  ASSERT_TRUE(waitFor([&] { return s.isPredictionCurrent(); }));
  EXPECT_EQ(s.prediction()->network, describeNetwork(other.get(), CostMode::Model));

  // The next trace starts from the default, and the user is told.
  QSignalSpy said(&s, &AnalysisSession::message);
  ASSERT_TRUE(load(s, second));
  EXPECT_TRUE(s.document()->isDefaultNetwork());
  EXPECT_EQ(s.document()->costs(), CostMode::Measured);
  EXPECT_EQ(s.prediction()->network, defaultText);
  EXPECT_EQ(s.prediction()->predictedTime, corePrediction(*s.trace(), {}));
  bool told = false;
  for (const auto& args : said) told = told || args.at(0).toString().contains(defaultText);
  EXPECT_TRUE(told);
}

// Hypotheses in words (issue #40 item 6): the call with its rank, index and measured enter; the
// step with its region and measured begin; without the trace, the short form.
TEST(HypothesisText, InWordsWithWhatTheyNameInTheTrace) {
  TraceBuilder b("words", "test");
  b.begin({2, {}});
  const auto send = b.defineFunction({"MPI_Send", EventKind::MpiCall, MpiOp::Send, ""});
  const auto recv = b.defineFunction({"MPI_Recv", EventKind::MpiCall, MpiOp::Recv, ""});
  const auto iter = b.defineFunction({"iter", EventKind::UserState, MpiOp::None, ""});
  for (std::uint32_t r = 0; r < 2; ++r) b.enter(r, 500, iter);
  b.enter(0, 1000, send);
  b.send(0, 1000, 1, 0, 7, 64, 0);
  b.leave(0, 1100, send);
  b.enter(1, 1500, recv);
  b.recv(1, 2300, 0, 0, 7, 64, 0);
  b.leave(1, 2300, recv);
  for (std::uint32_t r = 0; r < 2; ++r) b.leave(r, 3000, iter);
  b.end();
  Trace t = b.take();
  ASSERT_TRUE(declareParallelRegion(t, "iter"));
  ASSERT_EQ(t.steps.size(), 1u);
  const Hypothesis wait{HypothesisKind::ZeroWait, EventRef{1, 0, false}, 0};
  const Hypothesis call{HypothesisKind::ZeroEvent, EventRef{0, 0, false}, 0};
  const Hypothesis before{HypothesisKind::ZeroEvent, EventRef{1, 0, true}, 0};
  const Hypothesis balance{HypothesisKind::BalanceCompute, {}, 0};
  const Hypothesis volume{HypothesisKind::BalanceVolume, {}, 0};
  // formatDuration: 1500 ns is "1.500 µs", 500 ns is "500 ns".
  EXPECT_EQ(hypothesisText(wait, &t).toStdString(), "zero the wait of MPI_Recv on rank 1 (call 0, at 1.500 µs)");
  EXPECT_EQ(hypothesisText(call, &t).toStdString(), "remove MPI_Send on rank 0 (call 0, at 1.000 µs)");
  EXPECT_EQ(hypothesisText(before, &t).toStdString(),
            "remove the computation before MPI_Recv on rank 1 (call 0, at 1.500 µs)");
  EXPECT_EQ(hypothesisText(balance, &t).toStdString(), "balance the computation of step 0 (iter, at 500 ns)");
  EXPECT_EQ(hypothesisText(volume, &t).toStdString(), "balance the message volume of step 0 (iter, at 500 ns)");
  EXPECT_EQ(hypothesisText(wait, nullptr), hypothesisText(wait));
  EXPECT_EQ(hypothesisText(wait).toStdString(), "zero-wait 1:0");
  // A call the trace does not have: the short form, not a wrong name.
  const Hypothesis absent{HypothesisKind::ZeroWait, EventRef{1, 9, false}, 0};
  EXPECT_EQ(hypothesisText(absent, &t), hypothesisText(absent));
  // T unchanged is said in words, not as "±0.0 %".
  EXPECT_EQ(formatChange(1000, 1000).toStdString(), "no change");
  EXPECT_EQ(formatChange(1000000, 1000001).toStdString(), "+<0.05 %");
}

// The view's mode is one of the timeline's modes; a file naming another is refused with the
// file, the mode and the ones there are (a session this program wrote always has one of them).
TEST_F(SessionTest, AnUnknownViewModeIsRefusedByName) {
  ASSERT_TRUE(dir_.isValid());
  SessionData data;
  data.trace = dir_.filePath(QStringLiteral("t.otf2"));
  data.view = {ui::TimelineMode::Overlay, 5, 50};
  const QString file = dir_.filePath(QStringLiteral("v.perwiz"));
  QString error;
  ASSERT_TRUE(saveSession(file, data, &error)) << error.toStdString();
  SessionData back;
  ASSERT_TRUE(loadSession(file, back, &error)) << error.toStdString();
  EXPECT_EQ(back.view, data.view);
  QFile f(file);
  ASSERT_TRUE(f.open(QIODevice::ReadOnly));
  QByteArray text = f.readAll();
  f.close();
  ASSERT_NE(text.indexOf("\"overlay\""), -1);
  text.replace("\"overlay\"", "\"sideways\"");
  ASSERT_TRUE(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
  f.write(text);
  f.close();
  EXPECT_FALSE(loadSession(file, back, &error));
  for (const char* part : {"v.perwiz", "sideways", "measured, predicted, overlay, lanes"})
    EXPECT_NE(error.indexOf(QLatin1String(part)), -1) << error.toStdString();
}

}  // namespace
}  // namespace perwiz::gui

int main(int argc, char** argv) {
  if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) qputenv("QT_QPA_PLATFORM", "offscreen");
  QGuiApplication app(argc, argv);
  QCoreApplication::setOrganizationName(QStringLiteral("PerWiz-tests"));
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}

namespace perwiz::gui {
namespace {

// A toggle that moves every rank alike past a collective is shown at once with a provisional
// drawing (the previous tables moved by the shift) and then with the exact one, built right
// after it for the same times, where the moved ranks hold more events than the worker's
// threshold (2 * 10^7 by default; 0 here); the times are the engine's in both. Below the
// threshold the first drawing is the exact one (issue #40 item 2).
TEST_F(SessionTest, AShiftIsDrawnAtOnceThenExactly) {
  ASSERT_TRUE(dir_.isValid());
  GeneratorSpec spec;
  spec.ranks = 8;
  spec.steps = 60;
  spec.messagesPerStep = 15;  // about 2,000 events per rank, as a view draws them from tables
  spec.imbalance = 0.6;
  spec.nonBlocking = true;
  TraceBuilder b("shift", "generated");
  generateTrace(spec, b);
  const QString path = dir_.filePath(QStringLiteral("shift.otf2"));
  saveTrace(b.take(), path.toStdString());
  AnalysisSession s;
  QObject::connect(&s, &AnalysisSession::traceChanged, &s, [&](const std::shared_ptr<const Trace>&, bool) {
    // As MainWindow::onTraceChanged: the view takes the prepared timeline and the worker
    // draws over its base.
    s.setTimelineBase(s.takePreparedTimeline().base);
  });
  QSignalSpy ready(&s, &AnalysisSession::predictionReady);
  QSignalSpy refined(&s, &AnalysisSession::predictionRefined);
  ASSERT_TRUE(load(s, path));
  ASSERT_TRUE(waitFor([&] { return s.prediction() && s.prediction()->drawing; }));
  {  // the default threshold: exact at once, no refinement
    const Hypothesis h{HypothesisKind::BalanceCompute, {}, 0};
    const int readyBefore = ready.count();
    ASSERT_TRUE(s.requestHypothesis(h));
    ASSERT_TRUE(waitFor([&] { return s.isPredictionCurrent() && ready.count() > readyBefore; }));
    EXPECT_GT(s.prediction()->shifted, 0u);
    EXPECT_FALSE(s.prediction()->provisional);
    ASSERT_TRUE(s.prediction()->drawing);
    EXPECT_FALSE(ui::isProvisional(*s.prediction()->drawing));
    s.undoStack()->undo();
    ASSERT_TRUE(waitFor([&] { return s.isPredictionCurrent() && ready.count() > readyBefore + 1; }));
    EXPECT_EQ(refined.count(), 0);
  }
  s.worker()->setProvisionalDrawingEvents(0);
  for (int round = 0; round < 3; ++round) {
    const Hypothesis h{HypothesisKind::BalanceCompute, {}, 0};
    const int readyBefore = ready.count(), refinedBefore = refined.count();
    if (round % 2 == 0) ASSERT_TRUE(s.requestHypothesis(h));
    else s.undoStack()->undo();
    ASSERT_TRUE(waitFor([&] { return s.isPredictionCurrent() && ready.count() > readyBefore; }));
    // The result shown first (the refined one may have come in the same turn of the loop).
    const auto shown = ready.at(readyBefore).at(0).value<std::shared_ptr<const PredictionResult>>();
    ASSERT_TRUE(shown) << round;
    EXPECT_GT(shown->shifted, 0u) << round;
    EXPECT_TRUE(shown->provisional) << round;
    ASSERT_TRUE(shown->drawing && ui::isProvisional(*shown->drawing)) << round;
    ASSERT_TRUE(waitFor([&] { return refined.count() > refinedBefore; })) << round;
    const auto exact = s.prediction();
    EXPECT_TRUE(exact->refined);
    EXPECT_EQ(exact->times, shown->times);  // the same snapshot, another drawing
    EXPECT_EQ(exact->generation, shown->generation);
    ASSERT_TRUE(exact->drawing);
    EXPECT_FALSE(ui::isProvisional(*exact->drawing));
    Scenario sc;
    sc.hypotheses = s.document()->enabledHypotheses();
    const Replayer core(*s.trace(), sc);
    const Replayer::EventTimes times = core.predictedEventTimes();
    std::uint32_t sharing = 0;
    for (std::uint32_t r = 0; r < s.trace()->rankCount(); ++r) {
      const PredictedRank& pr = *exact->times->ranks[r];
      ASSERT_EQ(pr.enters(), times.enter[r]) << round << " rank " << r;
      ASSERT_EQ(pr.leaves(), times.leave[r]) << round << " rank " << r;
      for (std::uint32_t c = 0; c < pr.calls(); ++c)
        ASSERT_EQ(pr.wait(c), core.predicted(r, c).wait) << round << " rank " << r;
      if (pr.tail) ++sharing;
    }
    // Every rank moved by the shift shares the arrays it moves (spare arrays are for the
    // changes that recompute whole ranks).
    EXPECT_EQ(sharing, s.trace()->rankCount()) << round;
  }
}

}  // namespace
}  // namespace perwiz::gui
