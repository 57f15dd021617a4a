// Statistical overhead detection (issue #7): analyzeOverhead() on a generated trace of ~10^6
// model events (target: well under a few seconds), and fitSample() on one class of 10^6
// durations (the worst case for one fit: the window's quartiles, the mean class and the
// histogram are each one pass, nothing is sorted). Inputs are generated in memory, not
// measured. Run: build/bench/bench_overhead (PERWIZ_BENCH_EVENTS overrides the size).
#include "bench_data.h"

#include "perwiz/duration_fit.h"
#include "perwiz/generator.h"
#include "perwiz/overhead_detection.h"
#include "perwiz/trace_builder.h"

#include <benchmark/benchmark.h>

#include <random>

namespace {

using namespace perwiz;

void BM_AnalyzeOverhead(benchmark::State& state) {
  const std::uint64_t events = bench::targetEvents(1'000'000);
  TraceBuilder builder("bench", "generated");
  generateTrace(bench::benchSpec(events), builder);
  const Trace trace = builder.take();
  OverheadAnalysis a;
  for (auto _ : state) {
    a = analyzeOverhead(trace);
    benchmark::DoNotOptimize(a.total.overheadNs);
  }
  state.counters["events"] = static_cast<double>(trace.eventCount());
  state.counters["calls"] = static_cast<double>(a.total.calls);
  state.counters["classes"] = static_cast<double>(a.classes.size());
}
BENCHMARK(BM_AnalyzeOverhead)->Unit(benchmark::kMillisecond);

void BM_FitOneMillionDurations(benchmark::State& state) {
  std::mt19937_64 rng(1);
  std::exponential_distribution<double> x(1.0 / 2000);
  std::vector<TimeNs> t(1'000'000);
  for (TimeNs& v : t) v = 5000 + static_cast<TimeNs>(x(rng));
  for (auto _ : state) {
    SampleFit f = fitSample(t);
    benchmark::DoNotOptimize(f.tMaxNs);
  }
}
BENCHMARK(BM_FitOneMillionDurations)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
