// Two runs side by side (issue #41): `perwiz-cli compare` on two generated 10^7-event traces
// that differ in 1 % of their events (a zero-length state before every 200th MPI call of each
// rank, at other calls in each: 0.5 % only in A, 0.5 % only in B). The target: the whole
// comparison (both loads, the alignment, the differences) in at most 2x the time of loading
// both, with at most 16 B per event beyond the two models at its peak.
//
//   ./build/bench/bench_compare            (PERWIZ_BENCH_EVENTS=N for another size)
#include "bench_data.h"

#include "perwiz/compare.h"
#include "perwiz/trace_io.h"

#include <benchmark/benchmark.h>

#include <chrono>
#include <fstream>
#include <optional>
#include <string>

namespace perwiz {
namespace {

constexpr std::uint64_t kEvents = 10'000'000;
constexpr std::uint64_t kEvery = 200;

std::pair<std::string, std::string> inputs() {
  const std::uint64_t events = bench::targetEvents(kEvents);
  return {bench::otf2Variant(events, kEvery, 0), bench::otf2Variant(events, kEvery, kEvery / 2)};
}

// The peak resident set since the last reset (VmHWM), and its reset (clear_refs 5).
std::uint64_t peakResidentBytes() {
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("VmHWM:", 0) == 0) return std::stoull(line.substr(6)) * 1024;
  return 0;
}
void resetPeak() { std::ofstream("/proc/self/clear_refs") << "5"; }

// What the comparison is set against: loading both traces.
void BM_CompareLoadBoth(benchmark::State& state) {
  const auto [a, b] = inputs();
  std::uint64_t events = 0;
  for (auto _ : state) {
    std::optional<Trace> ta(loadTrace(a)), tb(loadTrace(b));
    events = ta->eventCount() + tb->eventCount();
    benchmark::DoNotOptimize(ta->endTime + tb->endTime);
    state.PauseTiming();  // freeing is not part of it
    ta.reset();
    tb.reset();
    state.ResumeTiming();
  }
  state.counters["events"] = double(events);
}
BENCHMARK(BM_CompareLoadBoth)->Unit(benchmark::kMillisecond)->Iterations(3)->UseRealTime();

// The whole comparison: both loads, the alignment and the differences (what the user waits for;
// perwiz-cli compare adds only its printing).
void BM_Compare(benchmark::State& state) {
  const auto [a, b] = inputs();
  std::uint64_t events = 0;
  double share = 0, extraPerEvent = 0, modelPerEvent = 0, alignSeconds = 0;
  for (auto _ : state) {
    std::optional<Trace> loadedA(loadTrace(a)), loadedB(loadTrace(b));
    const Trace& ta = *loadedA;
    const Trace& tb = *loadedB;
    const std::uint64_t before = bench::residentSetBytes();
    resetPeak();
    const auto t0 = std::chrono::steady_clock::now();
    const TraceAlignment al = alignTraces(ta, tb);
    const Comparison c = compareTraces(ta, tb, al);
    alignSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    const std::uint64_t peak = peakResidentBytes();
    benchmark::DoNotOptimize(c.measuredB);
    events = ta.eventCount() + tb.eventCount();
    share = al.pairedShare();
    extraPerEvent = (double(peak) - double(before)) / double(events);
    modelPerEvent = double(ta.residentBytes() + tb.residentBytes()) / double(events);
    state.PauseTiming();
    loadedA.reset();
    loadedB.reset();
    state.ResumeTiming();
  }
  state.counters["events"] = double(events);
  state.counters["paired_share"] = share;
  state.counters["align_and_compare_s"] = alignSeconds;
  state.counters["extra_peak_bytes_per_event"] = extraPerEvent;
  state.counters["model_bytes_per_event"] = modelPerEvent;
}
BENCHMARK(BM_Compare)->Unit(benchmark::kMillisecond)->Iterations(3)->UseRealTime();

}  // namespace
}  // namespace perwiz

BENCHMARK_MAIN();
