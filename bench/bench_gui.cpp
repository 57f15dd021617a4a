// The GUI end to end (issue #18): the real MainWindow offscreen, on a generated OTF2 trace
// (ring Isend/Irecv/Waitall, an Allreduce and a PRGN_step per step, 30 % compute imbalance):
//
//   first_paint_s        openTrace() until the loaded trace's first frame is painted
//   predictions_ready_s  openTrace() until the first prediction is shown
//   overlay_first_frame_ms  the first frame of the overlay view (the view a first hypothesis
//                        switches to), timed before the toggles
//   toggle_worst_ms      a hypothesis key or its undo, until the prediction of the new scenario
//   toggle_median_ms     is shown and the timeline has painted its final frame (every predicted
//                        box drawn from the exact drawing; after a provisional frame, the next
//                        one, issue #40); 20 toggles each of: Z on the
//   early_worst_ms       longest-waiting call among the first 2 % of every rank's calls (everything
//   late_worst_ms        downstream moves), Z on the longest-waiting among the last 2 % of the
//   balance_worst_ms     last rank's calls, B on the second parallel step (every rank moves)
//   first_frame_worst_ms the first frame after the key, final or provisional
//   provisional_frames   toggles whose first frame was provisional (marked on screen)
//   moved_ranks_max/median  ranks the toggles' snapshots copied and redrew
//   zoom_worst_ms        one wheel step (zoom in or out) until the frame is painted; 40 steps
//   cancel_ms            the trace opened again; Cancel pressed once the engine's construction is
//                        a tenth done, until the worker reports that it stopped (-1: missed)
//   peak_rss_mb          the process's peak resident set so far (getrusage)
//
// Frames are painted with QWidget::repaint() right after the change is visible to the window
// (offscreen there is no vsync; on a screen the frame would follow at the next one). Undo goes
// through the window's undo stack (Ctrl+Z's action). One iteration per size; sizes are
// 64 ranks x 10^6 events and 256 ranks x 10^7 (PERWIZ_BENCH_EVENTS scales the first); 64 ranks x
// 10^8 with the B toggles only (--benchmark_filter=64x1e8).
//
//   QT_QPA_PLATFORM=offscreen build/bench/bench_gui [--benchmark_filter=64x]
#include "bench_data.h"
#include "main_window.h"
#include "comparison_dock.h"

#include "perwiz/generator.h"
#include "perwiz/trace_builder.h"
#include "perwiz/trace_io.h"

#include "analysis_session.h"
#include "prediction_worker.h"  // its stage, for the progress check

#include <QApplication>
#include <QSignalSpy>
#include <QElapsedTimer>
#include <QTest>
#include <QTimer>
#include <QUndoStack>
#include <QWheelEvent>

#include <benchmark/benchmark.h>

#include <atomic>

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <vector>

namespace {

using namespace perwiz;
using perwiz::gui::MainWindow;

std::string guiTracePath(std::uint32_t ranks, std::uint64_t events) {
  return std::string(PERWIZ_BENCH_DATA) + "/gui-" + std::to_string(ranks) + "x" + std::to_string(events) + ".otf2";
}

std::string guiTrace(std::uint32_t ranks, std::uint64_t events) {
  const std::string path = guiTracePath(ranks, events);
  if (std::filesystem::exists(path)) return path;
  std::filesystem::create_directories(PERWIZ_BENCH_DATA);
  GeneratorSpec s = bench::benchSpec(events);
  s.ranks = ranks;
  s.imbalance = 0.3;
  s = specForEventCount(s, events);
  TraceBuilder b("gui", "generated");
  generateTrace(s, b);
  saveTrace(b.take(), path);
  return path;
}

// Runs the event loop until `done` or `ms` passed; false on timeout. It sleeps until an event
// arrives (a result from the worker thread is a queued call); a 50 ms timer bounds the wait
// between checks of the timeout.
template <class Done>
bool spin(Done done, int ms) {
  QElapsedTimer t;
  t.start();
  QTimer wake;
  wake.start(50);
  while (!done()) {
    if (t.elapsed() > ms) return false;
    QCoreApplication::processEvents(QEventLoop::AllEvents | QEventLoop::WaitForMoreEvents);
  }
  return true;
}

double peakRssMb() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_maxrss) * 1024 / 1e6;
}

// The resident set now (MB), for the verbose phase lines.
double rssMb() {
  long pages = 0, resident = 0;
  if (FILE* f = std::fopen("/proc/self/statm", "r")) {
    if (std::fscanf(f, "%ld %ld", &pages, &resident) != 2) resident = 0;
    std::fclose(f);
  }
  return static_cast<double>(resident) * static_cast<double>(sysconf(_SC_PAGESIZE)) / 1e6;
}

double percentile(std::vector<double> v, double q) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[static_cast<std::size_t>(q * static_cast<double>(v.size() - 1) + 0.5)];
}

// The timeline item of MPI call `index` of `rank`.
ui::TimelineItem callItem(const Trace& t, std::uint32_t rank, std::uint32_t index) {
  ui::TimelineItem it;
  it.kind = ui::TimelineItem::Kind::Event;
  it.rank = rank;
  it.event = t.ranks[rank].mpiCalls[std::min<std::size_t>(index, t.ranks[rank].mpiCalls.size() - 1)];
  return it;
}

void BM_GuiSession(benchmark::State& state) {
  const auto ranks = static_cast<std::uint32_t>(state.range(0));
  const auto events = static_cast<std::uint64_t>(state.range(1));
  // Balance only (range 2 = 1): the B toggles, without the Z ones, the zooms and the cancel
  // (which opens the file a second time), for 10^8 events.
  const bool balanceOnly = state.range(2) != 0;
  const bool generated = !std::filesystem::exists(guiTracePath(ranks, events));
  const std::string path = guiTrace(ranks, events);
  if (generated && events >= 100000000) {  // the generator's peak would be this run's peak RSS
    for (auto _ : state) state.SkipWithError("the trace was generated in this run: run again to measure");
    return;
  }
  for (auto _ : state) {
    MainWindow w;
    w.resize(1600, 1000);
    w.show();
    // PERWIZ_BENCH_PROVISIONAL_EVENTS: the worker's threshold for provisional drawings
    // (PredictionWorker::setProvisionalDrawingEvents), to time both ways of drawing a change.
    if (const char* v = std::getenv("PERWIZ_BENCH_PROVISIONAL_EVENTS"))
      w.session()->worker()->setProvisionalDrawingEvents(std::strtoull(v, nullptr, 10));
    // PERWIZ_BENCH_TIME_SPARES=0: no spare time arrays (PredictionWorker::setTimeSpares), so that
    // every shift shares the arrays it moves, at any size.
    if (const char* v = std::getenv("PERWIZ_BENCH_TIME_SPARES"))
      w.session()->worker()->setTimeSpares(std::atoi(v) != 0);
    QElapsedTimer clock;
    clock.start();
    w.openTrace(QString::fromStdString(path));
    if (!spin([&] { return w.session()->trace().get() != nullptr && !w.session()->isLoading(); }, 600000)) {
      state.SkipWithError("the trace did not load");
      return;
    }
    w.timeline()->repaint();
    const double firstPaint = static_cast<double>(clock.nsecsElapsed()) / 1e9;
    if (std::getenv("PERWIZ_BENCH_VERBOSE"))
      std::fprintf(stderr, "first paint %.1f s, RSS %.0f MB (peak %.0f MB)\n", firstPaint, rssMb(), peakRssMb());
    if (!spin([&] { return w.session()->isPredictionCurrent(); }, 1800000)) {
      state.SkipWithError("no first prediction");
      return;
    }
    w.timeline()->repaint();
    const double ready = static_cast<double>(clock.nsecsElapsed()) / 1e9;
    if (std::getenv("PERWIZ_BENCH_VERBOSE")) {
      const gui::PredictionResult& p = *w.session()->prediction();
      std::fprintf(
          stderr,
          "first prediction %.1f s: engine %.1f s, snapshot %.1f s (drawing %.1f s); RSS %.0f MB (peak %.0f MB)\n",
          ready, p.seconds, p.snapshotSeconds, p.drawingSeconds, rssMb(), peakRssMb());
    }
    // After its first result the worker prepares for changes (the index of incremental
    // updates: 0.9 s at 10^7 events, 26 s at 10^8; then spare arrays), which a key pressed
    // meanwhile waits for: timed apart (interactive_s), the toggles start after it.
    spin([&] { return w.session()->worker()->idle(); }, 1800000);
    const double interactive = static_cast<double>(clock.nsecsElapsed()) / 1e9;
    if (std::getenv("PERWIZ_BENCH_VERBOSE"))
      std::fprintf(stderr, "interactive %.1f s; RSS %.0f MB (peak %.0f MB)\n", interactive, rssMb(), peakRssMb());
    // The first prediction's other repaints (charts and docks, queued) are done long before a
    // user's first key: they run here, not in the first toggle's time.
    spin([] { return false; }, 300);
    // The user selects calls by clicking the timeline, which so holds the keyboard focus before
    // the first key (taking it repaints the view for its focus frame).
    w.timeline()->setFocus();
    spin([] { return false; }, 100);

    // The overlay's first frame is timed apart so that the toggles measure toggling. The first
    // toggle is drawn in it; an undo of the last hypothesis takes the view back to Measured and
    // the next hypothesis to the comparison view the user chose (MainWindow::comparisonMode:
    // Lanes unless set otherwise), so the later toggles are drawn in that one.
    QElapsedTimer o;
    o.start();
    w.timeline()->setMode(ui::TimelineMode::Overlay);
    w.timeline()->repaint();
    const double overlayFirst = static_cast<double>(o.nsecsElapsed()) / 1e6;

    // Toggles: Z on the selected call, then its undo.
    const Trace& t = *w.session()->trace().get();  // until the cancel below opens the file again
    const double eventCount = static_cast<double>(t.eventCount());
    std::vector<double> toggles;
    bool ok = true;
    std::vector<std::uint32_t> moved;  // ranks each toggle's snapshot copied
    std::vector<double> firstFrames;   // the first frame of each toggle, final or provisional
    int provisionalFrames = 0;
    double keyHandled = 0;
    // When the worker published its last result (its thread, at the emit), for the verbose lines.
    std::atomic<std::int64_t> publishedNs{0};
    QElapsedTimer sinceStart;
    sinceStart.start();
    const QMetaObject::Connection publishedAt = QObject::connect(w.session()->worker(), &gui::PredictionWorker::resultReady, w.session()->worker(),
                     [&](const std::shared_ptr<const gui::PredictionResult>&) { publishedNs = sinceStart.nsecsElapsed(); },
                     Qt::DirectConnection);
    std::int64_t keyAt = 0;
    auto verbose = [&](const char* what, double arrived) {
      if (!std::getenv("PERWIZ_BENCH_VERBOSE")) return;
      const gui::PredictionResult& p = *w.session()->prediction();
      std::fprintf(
          stderr,
          "%s: engine %.1f ms (%llu items, %llu shifted), snapshot %.1f ms (drawing %.1f ms, %u ranks), result shown "
          "%.1f ms (key handled %.1f ms, published %.1f ms), first frame %.1f ms, final frame %.1f ms (its paint %.1f "
          "ms)\n",
          what, p.seconds * 1e3, static_cast<unsigned long long>(p.recomputed),
          static_cast<unsigned long long>(p.shifted), p.snapshotSeconds * 1e3, p.drawingSeconds * 1e3, p.changedRanks,
          arrived, keyHandled, double(publishedNs.load() - keyAt) / 1e6, firstFrames.back(), toggles.back(),
          w.timeline()->lastFrameStats().milliseconds);
    };
    // The result shown, then the final frame: a frame drawn from a provisional drawing (marked
    // on screen) is followed by the exact drawing's frame, which is what the user waits for.
    auto finalFrame = [&](QElapsedTimer& k, const char* what) {
      ok = ok && spin([&] { return w.session()->isPredictionCurrent(); }, 600000);
      if (!ok) return;
      const double arrived = static_cast<double>(k.nsecsElapsed()) / 1e6;
      w.timeline()->repaint();
      firstFrames.push_back(static_cast<double>(k.nsecsElapsed()) / 1e6);
      if (w.timeline()->lastFrameStats().provisional) {
        ++provisionalFrames;
        if (const char* dir = std::getenv("PERWIZ_BENCH_SCREENSHOT"))
          w.grab().save(QString::fromUtf8(dir) + QStringLiteral("/toggle-provisional.png"));
        ok = spin([&] { return w.session()->prediction()->refined; }, 600000);
        w.timeline()->repaint();
      }
      toggles.push_back(static_cast<double>(k.nsecsElapsed()) / 1e6);
      moved.push_back(w.session()->prediction()->changedRanks);
      verbose(what, arrived);
    };
    auto toggleOn = [&](const ui::TimelineItem& item, Qt::Key key) {
      w.timeline()->setSelection(item);
      // PERWIZ_BENCH_TOGGLES=N: N of each instead of 10 (for a profiler: more toggles than load).
      const int rounds = std::getenv("PERWIZ_BENCH_TOGGLES") ? std::atoi(std::getenv("PERWIZ_BENCH_TOGGLES")) : 10;
      for (int i = 0; i < rounds && ok; ++i) {
        QElapsedTimer k;
        k.start();
        keyAt = sinceStart.nsecsElapsed();
        if (std::getenv("PERWIZ_BENCH_EVENTS_OVER")) std::fprintf(stderr, "key\n");
        QTest::keyClick(w.timeline(), key);
        keyHandled = static_cast<double>(k.nsecsElapsed()) / 1e6;
        finalFrame(k, "toggle");
        if (const char* dir = std::getenv("PERWIZ_BENCH_SCREENSHOT"); dir && key == Qt::Key_B && i == 0)
          w.grab().save(QString::fromUtf8(dir) + QStringLiteral("/toggle-final.png"));
        k.restart();
        keyAt = sinceStart.nsecsElapsed();
        w.session()->undoStack()->undo();
        keyHandled = static_cast<double>(k.nsecsElapsed()) / 1e6;
        finalFrame(k, "undo");
      }
    };
    // Early: Z on the call with the longest measured wait among the first 2 % of every rank's
    // calls (its wait removed, everything downstream moves); late: the same among the last 2 %
    // of the last rank's calls; balance: B on the second parallel step (every rank moves).
    const auto& waits = *w.session()->prediction()->measuredWaits;
    auto longestWait = [&](std::uint32_t r0, std::uint32_t r1, double from, double to) {
      ui::TimelineItem best = callItem(t, r0, 0);
      TimeNs longest = -1;
      for (std::uint32_t r = r0; r < r1; ++r) {
        const auto n = waits[r].size();
        for (auto i = std::size_t(from * double(n)); i < std::size_t(to * double(n)); ++i)
          if (waits[r][i] > longest) {
            longest = waits[r][i];
            best = callItem(t, r, std::uint32_t(i));
          }
      }
      return best;
    };
    if (!balanceOnly) toggleOn(longestWait(0, ranks, 0.0, 0.02), Qt::Key_Z);
    const std::vector<double> early = toggles;
    if (!balanceOnly) toggleOn(longestWait(ranks - 1, ranks, 0.98, 1.0), Qt::Key_Z);
    const std::vector<double> late(toggles.begin() + static_cast<std::ptrdiff_t>(early.size()), toggles.end());
    ui::TimelineItem step;
    step.kind = ui::TimelineItem::Kind::Step;
    step.step = std::min<std::uint32_t>(1, std::uint32_t(t.steps.size()) - 1);
    toggleOn(step, Qt::Key_B);
    const std::vector<double> balance(toggles.begin() + static_cast<std::ptrdiff_t>(early.size() + late.size()), toggles.end());
    if (!ok) {
      state.SkipWithError("a toggle's prediction did not arrive");
      return;
    }

    QObject::disconnect(publishedAt);

    // Wheel zoom at 60 % of the plot: 20 steps in (to about 1 % of the trace), 20 out.
    std::vector<double> zooms;
    const QPointF at(w.timeline()->width() * 0.6, w.timeline()->height() * 0.5);
    for (int i = 0; i < (balanceOnly ? 0 : 40); ++i) {
      const int delta = i < 20 ? 120 : -120;
      QWheelEvent wheel(at, w.timeline()->mapToGlobal(at), QPoint(), QPoint(0, delta), Qt::NoButton,
                        Qt::NoModifier, Qt::NoScrollPhase, false);
      QElapsedTimer k;
      k.start();
      QCoreApplication::sendEvent(w.timeline(), &wheel);
      w.timeline()->repaint();
      zooms.push_back(static_cast<double>(k.nsecsElapsed()) / 1e6);
      if (std::getenv("PERWIZ_BENCH_VERBOSE")) {
        const auto st = w.timeline()->lastFrameStats();
        std::fprintf(stderr, "zoom %d: %.1f ms (paint %.1f ms, %d boxes, %d marks, %d arrows, span %.3g ns)\n", i,
                     zooms.back(), st.milliseconds, st.boxes, st.marks, st.arrows,
                     double(w.timeline()->visibleEnd() - w.timeline()->visibleBegin()));
      }
    }

    // Cancel: the same file opened again; once the engine's construction is a tenth done, the
    // status bar's Cancel (AnalysisSession::cancelPrediction) until the worker reports it stopped.
    double cancelMs = -1;
    if (!balanceOnly) {
      QSignalSpy cancelled(w.session(), &gui::AnalysisSession::predictionCancelled);
      w.openTrace(QString::fromStdString(path));
      auto* worker = w.session()->worker();
      if (spin([&] {
            return worker->stage() == gui::PredictionWorker::Stage::Building && worker->progressPermille() >= 100;
          }, 600000)) {
        QElapsedTimer k;
        k.start();
        w.session()->cancelPrediction();
        if (spin([&] { return cancelled.count() > 0; }, 60000)) cancelMs = static_cast<double>(k.nsecsElapsed()) / 1e6;
      }
    }

    if (std::getenv("PERWIZ_BENCH_VERBOSE")) {  // every toggle, in order (early ones first)
      for (double ms : toggles) std::fprintf(stderr, "%.1f ", ms);
      std::fprintf(stderr, "\n");
    }
    state.counters["first_paint_s"] = firstPaint;
    state.counters["overlay_first_frame_ms"] = overlayFirst;
    state.counters["predictions_ready_s"] = ready;
    state.counters["interactive_s"] = interactive;
    state.counters["toggle_worst_ms"] = *std::max_element(toggles.begin(), toggles.end());
    state.counters["toggle_median_ms"] = percentile(toggles, 0.5);
    state.counters["first_frame_worst_ms"] = *std::max_element(firstFrames.begin(), firstFrames.end());
    state.counters["provisional_frames"] = provisionalFrames;
    auto worst = [](const std::vector<double>& v) { return v.empty() ? -1.0 : *std::max_element(v.begin(), v.end()); };
    state.counters["early_worst_ms"] = worst(early);
    state.counters["late_worst_ms"] = worst(late);
    state.counters["balance_worst_ms"] = *std::max_element(balance.begin(), balance.end());
    state.counters["moved_ranks_max"] = *std::max_element(moved.begin(), moved.end());
    state.counters["moved_ranks_median"] = percentile(std::vector<double>(moved.begin(), moved.end()), 0.5);
    state.counters["zoom_worst_ms"] = worst(zooms);
    state.counters["zoom_median_ms"] = zooms.empty() ? -1.0 : percentile(zooms, 0.5);
    state.counters["cancel_ms"] = cancelMs;
    state.counters["peak_rss_mb"] = peakRssMb();
    state.counters["events"] = eventCount;
  }
}
BENCHMARK(BM_GuiSession)
    ->Name("BM_GuiSession/64x1e6")
    ->Args({64, static_cast<std::int64_t>(bench::targetEvents(1000000)), 0})
    ->Iterations(1)
    ->Unit(benchmark::kSecond);
BENCHMARK(BM_GuiSession)
    ->Name("BM_GuiSession/256x1e7")
    ->Args({256, 10000000, 0})
    ->Iterations(1)
    ->Unit(benchmark::kSecond);
// 10^8 events: load, first prediction, B's final frame, peak RSS (issue #40). The trace is
// generated once into build/bench/data (about 2 GB); the run needs about 16 GB.
BENCHMARK(BM_GuiSession)
    ->Name("BM_GuiSession/64x1e8")
    ->Args({64, 100000000, 1})
    ->Iterations(1)
    ->Unit(benchmark::kSecond);

// Issue #41: a second run beside a 10^7-event trace (bench shape, 64 ranks; B differs from A in
// 1 % of its events, bench_compare's pair). Times File > Compare With... to the comparison shown
// (compare_ready_s) and the wheel zoom with both runs on screen: 20 steps in, 20 out, each until
// both views are painted (zoom_worst_ms, zoom_median_ms; target <= 33 ms).
void BM_GuiCompare(benchmark::State& state) {
  const std::uint64_t events = bench::targetEvents(10000000);
  const std::string a = bench::otf2Variant(events, 200, 0), b = bench::otf2Variant(events, 200, 100);
  for (auto _ : state) {
    MainWindow w;
    w.resize(1600, 1000);
    w.show();
    w.openTrace(QString::fromStdString(a));
    if (!spin(
            [&] {
              return w.session()->trace().get() && !w.session()->isLoading() && w.session()->isPredictionCurrent();
            },
            600000)) {
      state.SkipWithError("the trace did not load");
      return;
    }
    spin([&] { return w.session()->worker()->idle(); }, 600000);
    QElapsedTimer clock;
    clock.start();
    w.compareWith(QString::fromStdString(b));
    if (!spin([&] { return w.comparisonDock()->result() != nullptr && w.timelineB()->isVisible(); }, 600000)) {
      state.SkipWithError("no comparison");
      return;
    }
    w.timeline()->repaint();
    w.timelineB()->repaint();
    const double ready = static_cast<double>(clock.nsecsElapsed()) / 1e9;
    spin([] { return false; }, 300);
    std::vector<double> zooms;
    const QPointF at(w.timeline()->width() * 0.6, w.timeline()->height() * 0.5);
    for (int i = 0; i < 40; ++i) {
      QWheelEvent wheel(at, w.timeline()->mapToGlobal(at), QPoint(), QPoint(0, i < 20 ? 120 : -120), Qt::NoButton,
                        Qt::NoModifier, Qt::NoScrollPhase, false);
      QElapsedTimer k;
      k.start();
      QCoreApplication::sendEvent(w.timeline(), &wheel);  // B's view follows A's range
      w.timeline()->repaint();
      w.timelineB()->repaint();
      zooms.push_back(static_cast<double>(k.nsecsElapsed()) / 1e6);
      if (std::getenv("PERWIZ_BENCH_VERBOSE"))
        std::fprintf(stderr, "zoom %d: %.1f ms (A %.1f ms, B %.1f ms)\n", i, zooms.back(),
                     w.timeline()->lastFrameStats().milliseconds, w.timelineB()->lastFrameStats().milliseconds);
    }
    if (w.timelineB()->visibleBegin() != w.timeline()->visibleBegin()) {
      state.SkipWithError("B's view did not follow A's zoom");
      return;
    }
    state.counters["compare_ready_s"] = ready;
    state.counters["zoom_worst_ms"] = *std::max_element(zooms.begin(), zooms.end());
    state.counters["zoom_median_ms"] = percentile(zooms, 0.5);
    state.counters["paired_share"] = w.comparisonDock()->result()->alignment->pairedShare();
    state.counters["peak_rss_mb"] = peakRssMb();
  }
}
BENCHMARK(BM_GuiCompare)->Name("BM_GuiCompare/64x1e7")->Iterations(1)->Unit(benchmark::kSecond);

// PERWIZ_BENCH_EVENTS_OVER=MS: every event the GUI thread took longer than MS to handle,
// with its type and receiver (to find what delays a frame).
class TimedApplication : public QApplication {
 public:
  using QApplication::QApplication;
  bool notify(QObject* receiver, QEvent* event) override {
    if (overMs_ < 0) return QApplication::notify(receiver, event);
    // Named before the delivery, which may delete the receiver (DeferredDelete).
    const int type = event->type();
    const char* cls = receiver->metaObject()->className();
    const QString name = receiver->objectName();
    QElapsedTimer t;
    t.start();
    const bool r = QApplication::notify(receiver, event);
    const double ms = static_cast<double>(t.nsecsElapsed()) / 1e6;
    if (ms > overMs_) std::fprintf(stderr, "  event %d to %s (%s): %.1f ms\n", type, cls, qPrintable(name), ms);
    return r;
  }

 private:
  double overMs_ = qEnvironmentVariableIsSet("PERWIZ_BENCH_EVENTS_OVER") ? qEnvironmentVariable("PERWIZ_BENCH_EVENTS_OVER").toDouble() : -1;
};

}  // namespace

int main(int argc, char** argv) {
  qputenv("QT_QPA_PLATFORM", qgetenv("QT_QPA_PLATFORM").isEmpty() ? QByteArray("offscreen") : qgetenv("QT_QPA_PLATFORM"));
  TimedApplication app(argc, argv);
  QCoreApplication::setOrganizationName(QStringLiteral("PerWiz-bench"));
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
