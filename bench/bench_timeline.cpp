// Timeline painting benchmarks (issue #5): one frame of the TimelineView (paintEvent through
// QWidget::render into an offscreen QImage, 1600 x 1000) on a generated trace of ~10^6 events
// on 256 ranks, for the full range and zoomed to 1 % and 0.01 % of it, in Measured, Overlay and
// Lanes mode (target: <= 16 ms per frame); the preparation (setTrace / setPrediction: the
// per-rank LOD pyramids) and the export of the whole trace with render().
//
// Counters: boxes drawn one by one, summary marks, arrows, labels per frame (painting grows
// with these, not with the event count).
//
//   build-w/bench/bench_timeline [--benchmark_filter=Frame] ; PERWIZ_BENCH_EVENTS=N to resize
#include "bench_data.h"
#include "perwiz/generator.h"
#include "perwiz/replay.h"
#include "perwiz/trace_builder.h"
#include "perwiz/widgets/timeline_view.h"

#include <QApplication>
#include <QImage>
#include <QPainter>

#include <benchmark/benchmark.h>

#include <cstdlib>
#include <fstream>
#include <malloc.h>
#include <memory>
#include <unistd.h>

namespace {

using namespace perwiz;
using perwiz::ui::TimelineMode;
using perwiz::ui::TimelineView;

constexpr int kWidth = 1600, kHeight = 1000;

std::uint64_t targetEvents() { return bench::targetEvents(1000000); }

// 256 ranks, ring Isend/Irecv/Waitall, an Allreduce and a PRGN_step per step, 20 % imbalance.
std::shared_ptr<const Trace> benchTrace() {
  static std::shared_ptr<const Trace> trace = [] {
    // The load benchmark's solver shape (bench::benchSpec) on 256 ranks.
    GeneratorSpec s = bench::benchSpec(targetEvents());
    s.ranks = 256;
    s = specForEventCount(s, targetEvents());
    TraceBuilder b("bench", "generated");
    generateTrace(s, b);
    return std::make_shared<const Trace>(b.take());
  }();
  return trace;
}

std::shared_ptr<const PredictedTimes> benchPrediction() {
  static std::shared_ptr<const PredictedTimes> times = [] {
    Scenario sc;
    sc.hypotheses.push_back(Hypothesis{HypothesisKind::BalanceCompute, {}, 0});
    Replayer rp(*benchTrace(), sc);
    return predictedTimes(rp);
  }();
  return times;
}

TimelineView& view() {
  static TimelineView* v = [] {
    auto* w = new TimelineView;
    w->resize(kWidth, kHeight);
    w->setTrace(benchTrace());
    w->setPrediction(benchPrediction());
    return w;
  }();
  return *v;
}

void counters(benchmark::State& state, const TimelineView& v) {
  const auto st = v.lastFrameStats();
  state.counters["events"] = double(v.trace()->eventCount());
  state.counters["boxes"] = st.boxes;
  state.counters["marks"] = st.marks;
  state.counters["arrows"] = st.arrows;
  state.counters["texts"] = st.texts;
  state.counters["lanes"] = st.rows;
}

// Arg 0: 1/zoom of the time range (1 = everything, 100 = 1 %, 10000 = 0.01 %); arg 1: mode.
void BM_Frame(benchmark::State& state) {
  TimelineView& v = view();
  v.setMode(TimelineMode(state.range(1)));
  const TimeNs total = v.trace()->endTime;
  const TimeNs span = std::max<TimeNs>(total / state.range(0), 100);
  const TimeNs begin = total * 4 / 10;  // a window in the middle of the run
  if (state.range(0) == 1) v.fitAll();
  else v.setVisibleRange(begin, begin + span);
  QImage img(kWidth, kHeight, QImage::Format_ARGB32_Premultiplied);
  TimeNs nudge = 0;
  for (auto _ : state) {
    // Moving the range by 1 ns makes every frame a cold one (no reuse of the last frame's pixels).
    nudge ^= 1;
    if (state.range(0) == 1) v.setVisibleRange(nudge, total - 1 + nudge);
    else v.setVisibleRange(begin + nudge, begin + span + nudge);
    v.render(&img);  // QWidget::render -> paintEvent
    benchmark::DoNotOptimize(img.constBits());
  }
  counters(state, v);
  state.counters["paint_ms"] = v.lastFrameStats().milliseconds;
  state.SetLabel(std::to_string(v.trace()->eventCount()) + " events, " + std::to_string(v.trace()->rankCount()) +
                 " ranks");
}
BENCHMARK(BM_Frame)
    ->ArgNames({"zoom", "mode"})
    ->ArgsProduct({{1, 10, 23, 100, 10000}, {int(TimelineMode::Measured), int(TimelineMode::Overlay), int(TimelineMode::Lanes)}})
    ->Unit(benchmark::kMillisecond);

// Repaint without a change of view (selection, hover): the plot pixels are reused.
void BM_Repaint(benchmark::State& state) {
  TimelineView& v = view();
  v.setMode(TimelineMode::Overlay);
  v.fitAll();
  QImage img(kWidth, kHeight, QImage::Format_ARGB32_Premultiplied);
  v.render(&img);
  std::uint32_t e = 0;
  for (auto _ : state) {
    ui::TimelineItem it;
    it.kind = ui::TimelineItem::Kind::Event;
    it.rank = e % 256;
    it.event = (e * 7) % 100;
    ++e;
    v.setSelection(it);
    v.render(&img);
  }
  counters(state, v);
  state.counters["cached"] = v.lastFrameStats().cached;
}
BENCHMARK(BM_Repaint)->Unit(benchmark::kMillisecond);

// Panning at 1 %: every frame a different window (no reuse between frames).
void BM_FramePan(benchmark::State& state) {
  TimelineView& v = view();
  v.setMode(TimelineMode::Measured);
  const TimeNs total = v.trace()->endTime;
  const TimeNs span = total / 100;
  QImage img(kWidth, kHeight, QImage::Format_ARGB32_Premultiplied);
  TimeNs begin = 0;
  for (auto _ : state) {
    v.setVisibleRange(begin, begin + span);
    v.render(&img);
    begin = (begin + span / 7) % (total - span);
  }
  counters(state, v);
}
BENCHMARK(BM_FramePan)->Unit(benchmark::kMillisecond);

// Export of the whole trace: render() at 1600 px wide, 4 px rows.
void BM_Export(benchmark::State& state) {
  TimelineView& v = view();
  v.setMode(TimelineMode::Measured);
  ui::TimelineExportOptions o;
  o.width = kWidth;
  o.rowHeight = 4;
  QImage img(v.exportSize(o), QImage::Format_ARGB32_Premultiplied);
  for (auto _ : state) {
    QPainter p(&img);
    v.render(p, img.rect(), o);
  }
  counters(state, v);
  state.counters["height"] = img.height();
}
BENCHMARK(BM_Export)->Unit(benchmark::kMillisecond);

double residentMB() {
  std::ifstream statm("/proc/self/statm");
  std::uint64_t size = 0, resident = 0;
  statm >> size >> resident;
  return double(resident) * double(sysconf(_SC_PAGESIZE)) / 1048576.0;
}

// setTrace: roles, nesting, the measured LOD pyramids, steps and the arrow index. rss_MB: the
// resident memory the view's prepared data adds (first setTrace).
void BM_SetTrace(benchmark::State& state) {
  auto t = benchTrace();
  malloc_trim(0);
  const double before = residentMB();
  TimelineView v;
  v.resize(kWidth, kHeight);
  v.setTrace(t);
  state.counters["rss_MB"] = residentMB() - before;
  for (auto _ : state) v.setTrace(t);
  state.counters["events"] = double(t->eventCount());
  state.counters["events/s"] = benchmark::Counter(double(t->eventCount()), benchmark::Counter::kIsIterationInvariantRate);
}
BENCHMARK(BM_SetTrace)->Unit(benchmark::kMillisecond)->UseRealTime();

// setPrediction: the predicted drawing's LOD, steps and arrows.
void BM_SetPrediction(benchmark::State& state) {
  auto t = benchTrace();
  auto p = benchPrediction();
  TimelineView v;
  v.resize(kWidth, kHeight);
  v.setTrace(t);
  for (auto _ : state) {
    v.setPrediction(nullptr);  // a drawing from scratch (no ranks shared with a previous one)
    v.setPrediction(p);
  }
}
BENCHMARK(BM_SetPrediction)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace

int main(int argc, char** argv) {
  if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) qputenv("QT_QPA_PLATFORM", "offscreen");
  QApplication app(argc, argv);
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
