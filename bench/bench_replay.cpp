// Replay benchmarks for issue #3:
//  * full replay (the forward sweep, Replayer::replayFull) of a generated 10^7-event trace
//    (target: >= 2·10^7 model events/s on one core), and the Replayer constructor (program
//    compilation + first full replay) on the same trace, with the program's memory per event;
//  * adding or removing one hypothesis on a 10^6-event trace (target: <= 50 ms to updated
//    results), with a full replay at 10^6 for comparison.
//
// Inputs are generated in memory (TraceBuilder) with bench::benchSpec, the spec of
// bench_load's files; generating and building the trace is setup and not measured.
#include "bench_data.h"

#include "perwiz/critical_path.h"
#include "perwiz/generator.h"
#include "perwiz/replay.h"
#include "perwiz/trace_builder.h"

#include <benchmark/benchmark.h>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <malloc.h>
#include <map>
#include <memory>
#include <new>
#include <string>

// Heap accounting for the memory counters: every operator new/delete of the process (the
// library is linked statically) adjusts the live byte count and its peak. One thread.
namespace heap {
std::uint64_t live = 0, peak = 0;
inline void* take(std::size_t n) {
  void* q = std::malloc(n ? n : 1);
  if (!q) throw std::bad_alloc();
  live += malloc_usable_size(q);
  if (live > peak) peak = live;
  return q;
}
inline void give(void* q) {
  if (!q) return;
  live -= malloc_usable_size(q);
  std::free(q);
}
}  // namespace heap

void* operator new(std::size_t n) { return heap::take(n); }
void* operator new[](std::size_t n) { return heap::take(n); }
void* operator new(std::size_t n, const std::nothrow_t&) noexcept {
  try { return heap::take(n); } catch (...) { return nullptr; }
}
void* operator new[](std::size_t n, const std::nothrow_t&) noexcept {
  try { return heap::take(n); } catch (...) { return nullptr; }
}
void operator delete(void* q) noexcept { heap::give(q); }
void operator delete[](void* q) noexcept { heap::give(q); }
void operator delete(void* q, std::size_t) noexcept { heap::give(q); }
void operator delete[](void* q, std::size_t) noexcept { heap::give(q); }

namespace {

using namespace perwiz;

constexpr std::uint64_t kFullEvents = 10'000'000;
constexpr std::uint64_t kUpdateEvents = 1'000'000;

// One in-memory trace per size, kept for the whole run (generation takes seconds).
const Trace& benchTrace(std::uint64_t events) {
  static std::map<std::uint64_t, std::unique_ptr<Trace>> cache;
  auto& slot = cache[events];
  if (!slot) {
    TraceBuilder builder("bench", "generated");
    generateTrace(bench::benchSpec(events), builder);
    slot = std::make_unique<Trace>(builder.take());
  }
  return *slot;
}

void setRates(benchmark::State& state, const Trace& t, const Replayer& r) {
  using benchmark::Counter;
  const double events = static_cast<double>(t.eventCount());
  const double calls = static_cast<double>(r.callCount());
  state.counters["events"] = events;
  state.counters["calls"] = calls;
  state.counters["events_per_s"] = Counter(events, Counter::kIsIterationInvariantRate);
  state.counters["calls_per_s"] = Counter(calls, Counter::kIsIterationInvariantRate);
}

// The forward sweep alone.
void BM_ReplayFull(benchmark::State& state) {
  const Trace& t = benchTrace(bench::targetEvents(static_cast<std::uint64_t>(state.range(0))));
  Replayer r(t, Scenario{});
  for (auto _ : state) {
    r.replayFull();
    benchmark::DoNotOptimize(r.predictedTime());
  }
  setRates(state, t, r);
  state.counters["items"] = static_cast<double>(r.lastUpdate().recomputed);  // units + gather nodes
}
BENCHMARK(BM_ReplayFull)->Arg(kFullEvents)->Arg(kUpdateEvents)->Unit(benchmark::kMillisecond)->Iterations(5);

// Program compilation + the first full replay; memory of the replay program.
//   heap_bytes_per_event: heap the Replayer keeps (program, effective values, results);
//   peak_heap_bytes_per_event: the most heap the constructor had allocated at once;
//   rss_bytes_per_event: resident-set growth over the construction (first iteration; large
//   blocks are mmapped and given back on free, see main, so the growth is the Replayer's).
void BM_ReplayConstruct(benchmark::State& state) {
  const Trace& t = benchTrace(bench::targetEvents(static_cast<std::uint64_t>(state.range(0))));
  std::int64_t rss = 0;
  std::uint64_t kept = 0, peak = 0;
  bool first = true;
  std::unique_ptr<Replayer> r;
  for (auto _ : state) {
    state.PauseTiming();
    r.reset();
    const std::uint64_t rssBefore = bench::residentSetBytes();
    const std::uint64_t heapBefore = heap::live;
    heap::peak = heap::live;
    state.ResumeTiming();
    r = std::make_unique<Replayer>(t, Scenario{});
    benchmark::DoNotOptimize(r->predictedTime());
    state.PauseTiming();
    if (first) rss = static_cast<std::int64_t>(bench::residentSetBytes()) - static_cast<std::int64_t>(rssBefore);
    first = false;
    kept = heap::live - heapBefore;
    peak = heap::peak - heapBefore;
    state.ResumeTiming();
  }
  setRates(state, t, *r);
  const double events = static_cast<double>(t.eventCount());
  state.counters["heap_bytes_per_event"] = static_cast<double>(kept) / events;
  state.counters["peak_heap_bytes_per_event"] = static_cast<double>(peak) / events;
  state.counters["rss_bytes_per_event"] = static_cast<double>(rss) / events;
  r.reset();
}
BENCHMARK(BM_ReplayConstruct)->Arg(kFullEvents)->Arg(kUpdateEvents)->Unit(benchmark::kMillisecond)->Iterations(3);

// The index incremental updates use (who reads whose time, schedule positions, the clean cuts
// of docs/model.md §6.1) and the own copies of gaps and local costs: what the GUI's worker
// builds before it shows its first result. Heap it keeps and its peak, per event.
void BM_PrepareUpdates(benchmark::State& state) {
  const Trace& t = benchTrace(bench::targetEvents(static_cast<std::uint64_t>(state.range(0))));
  std::uint64_t kept = 0, peak = 0;
  for (auto _ : state) {
    state.PauseTiming();
    auto r = std::make_unique<Replayer>(t, Scenario{});
    const std::uint64_t heapBefore = heap::live;
    heap::peak = heap::live;
    state.ResumeTiming();
    r->prepareUpdates();
    state.PauseTiming();
    kept = heap::live - heapBefore;
    peak = heap::peak - heapBefore;
    r.reset();
    state.ResumeTiming();
  }
  const double events = static_cast<double>(t.eventCount());
  state.counters["heap_bytes_per_event"] = static_cast<double>(kept) / events;
  state.counters["peak_heap_bytes_per_event"] = static_cast<double>(peak) / events;
}
BENCHMARK(BM_PrepareUpdates)->Arg(kUpdateEvents)->Arg(kFullEvents)->Unit(benchmark::kMillisecond)->Iterations(3);

// ---- one hypothesis added and removed again ----

enum class Which { ZeroWaitEarly, ZeroWaitLate, BalanceComputeFirst, BalanceComputeMiddle, BalanceVolumeMiddle };

// Zero-wait on one top-level call among a rank's first (early) or last (late) 8 MPI calls,
// about two steps: the candidate whose addition recomputes the most schedule items (the worst
// case). A zero-wait that a later collective absorbs changes only a handful of items; one on
// the rank that arrives last at the step's Allreduce moves everything downstream.
// (At 10^7 events the search tries a rank's first or last 4 calls: 8 made it take minutes.)
Hypothesis worstZeroWait(Replayer& r, const Trace& t, bool early) {
  Hypothesis best{HypothesisKind::ZeroWait, {}, 0};
  std::uint64_t most = 0;
  for (std::uint32_t rank = 0; rank < t.rankCount(); ++rank) {
    const std::uint32_t calls = static_cast<std::uint32_t>(t.ranks[rank].mpiCalls.size());
    const std::uint32_t window = std::min<std::uint32_t>(calls, t.eventCount() > 2'000'000 ? 4 : 8);
    const std::uint32_t from = early ? 0 : calls - window, to = early ? window : calls;
    for (std::uint32_t i = from; i < to; ++i) {
      const Hypothesis h{HypothesisKind::ZeroWait, EventRef{rank, i, false}, 0};
      if (r.measuredWait(rank, i) <= 0 || !r.validate(h).empty()) continue;
      r.add(h);
      const std::uint64_t n = r.lastUpdate().recomputed;
      r.remove(h);
      if (n > most) {
        most = n;
        best = h;
      }
    }
  }
  return best;
}

Hypothesis pick(Which which, Replayer& r, const Trace& t) {
  const std::uint32_t middle = static_cast<std::uint32_t>(t.steps.size() / 2);
  switch (which) {
    case Which::ZeroWaitEarly: return worstZeroWait(r, t, true);
    case Which::ZeroWaitLate: return worstZeroWait(r, t, false);
    case Which::BalanceComputeFirst: return {HypothesisKind::BalanceCompute, {}, 0};
    case Which::BalanceComputeMiddle: return {HypothesisKind::BalanceCompute, {}, middle};
    case Which::BalanceVolumeMiddle: return {HypothesisKind::BalanceVolume, {}, middle};
  }
  return {};
}

// range(0): events (10^6: the GUI's 16 ms target; 10^7: 100 ms, issue #16).
void BM_ReplayUpdate(benchmark::State& state, Which which) {
  using Clock = std::chrono::steady_clock;
  const Trace& t = benchTrace(bench::targetEvents(static_cast<std::uint64_t>(state.range(0))));
  Replayer r(t, Scenario{});
  r.prepareUpdates();  // as the GUI's prediction worker does after construction
  const Hypothesis h = pick(which, r, t);
  state.SetLabel(h.toString());
  double addMs = 0, removeMs = 0;
  std::uint64_t addItems = 0, removeItems = 0;
  std::string error;
  // The first add after the preparation apart (the GUI's first toggle): it copies the chunks
  // of the values it changes (the zero-wait candidates' search above has added some already).
  const auto f0 = Clock::now();
  if (!r.add(h, &error)) state.SkipWithError(error.c_str());
  const double firstAddMs = std::chrono::duration<double, std::milli>(Clock::now() - f0).count();
  r.remove(h);
  for (auto _ : state) {
    const auto t0 = Clock::now();
    if (!r.add(h, &error)) state.SkipWithError(error.c_str());
    const auto t1 = Clock::now();
    addItems = r.lastUpdate().recomputed;
    benchmark::DoNotOptimize(r.predictedTime());
    if (!r.remove(h, &error)) state.SkipWithError(error.c_str());
    const auto t2 = Clock::now();
    removeItems = r.lastUpdate().recomputed;
    benchmark::DoNotOptimize(r.predictedTime());
    addMs += std::chrono::duration<double, std::milli>(t1 - t0).count();
    removeMs += std::chrono::duration<double, std::milli>(t2 - t1).count();
  }
  // Not timed: the incremental results must equal a full replay of the same scenario.
  Scenario with;
  with.hypotheses = {h};
  const Replayer fresh(t, with);
  r.add(h);
  if (r.predictedEnters() != fresh.predictedEnters() || r.predictedLeaves() != fresh.predictedLeaves())
    state.SkipWithError("incremental result differs from a full replay");
  r.remove(h);
  const Replayer base(t, Scenario{});
  if (r.predictedEnters() != base.predictedEnters() || r.predictedLeaves() != base.predictedLeaves())
    state.SkipWithError("removing the hypothesis did not restore the full replay");
  using benchmark::Counter;
  state.counters["first_add_ms"] = firstAddMs;
  state.counters["add_ms"] = Counter(addMs, Counter::kAvgIterations);
  state.counters["remove_ms"] = Counter(removeMs, Counter::kAvgIterations);
  state.counters["add_recomputed"] = static_cast<double>(addItems);
  state.counters["remove_recomputed"] = static_cast<double>(removeItems);
  state.counters["events"] = static_cast<double>(t.eventCount());
}
BENCHMARK_CAPTURE(BM_ReplayUpdate, ZeroWaitEarly, Which::ZeroWaitEarly)->Arg(kUpdateEvents)->Arg(kFullEvents)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_ReplayUpdate, ZeroWaitLate, Which::ZeroWaitLate)->Arg(kUpdateEvents)->Arg(kFullEvents)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_ReplayUpdate, BalanceComputeStep0, Which::BalanceComputeFirst)->Arg(kUpdateEvents)->Arg(kFullEvents)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_ReplayUpdate, BalanceComputeMiddle, Which::BalanceComputeMiddle)->Arg(kUpdateEvents)->Arg(kFullEvents)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_ReplayUpdate, BalanceVolumeMiddle, Which::BalanceVolumeMiddle)->Arg(kUpdateEvents)->Arg(kFullEvents)->Unit(benchmark::kMillisecond);

// ---- the ring of issue #16 (the peer comparison with LogGOPSim) ----
// 1024 ranks x 1000 steps, each: computation, a blocking MPI_Send of 1 KiB to the next rank,
// an MPI_Recv from the previous one (3,072,000 events; LogGOPSim's schedule of the same has
// 3,072,000 operations and 1,024,000 messages, its "4,096,000 events"): `perwiz-cli generate
// ring.otf2 --ranks 1024 --steps 1000 --p2p send-recv --bytes 1024 --collective none`, built in
// memory here.
// Timed: the Replayer's construction (program and first full replay) and the critical path's
// totals, i.e. the replay part of `perwiz-cli predict` beyond loading the trace.
// Argument sealed: 1 the model as loaded (endpoints and collective calls bit-packed field by
// field, InternedTable::seal); 0 the same model with those tables unpacked into plain rows
// (24 B per endpoint, as before issue #42's packing): what reading packed rows costs.
void BM_RingReplay(benchmark::State& state) {
  static const Trace ring = [] {
    TraceBuilder builder("ring", "generated");
    generateTrace(bench::ringSpec(), builder);
    return builder.take();
  }();
  static const Trace unpacked = [] {
    Trace t = ring;
    for (RankTrace& r : t.ranks) {
      if (!r.messages.empty()) r.messages.setTime(0, r.messages[0].time);  // unpacks, same value
      if (!r.collectives.empty()) r.collectives.setEvent(0, r.collectives[0].event);
    }
    return t;
  }();
  const Trace& trace = state.range(0) ? ring : unpacked;
  TimeNs t = 0;
  for (auto _ : state) {
    Replayer r(trace, Scenario{});
    t = criticalPath(r, CriticalPathListing::Segments, 20).length;
    benchmark::DoNotOptimize(t);
  }
  state.counters["events"] = static_cast<double>(trace.eventCount());
  state.counters["events_per_s"] =
      benchmark::Counter(static_cast<double>(trace.eventCount()), benchmark::Counter::kIsIterationInvariantRate);
  state.counters["predicted_ms"] = static_cast<double>(t) / 1e6;
  state.counters["model_bytes_per_event"] =
      static_cast<double>(trace.residentBytes()) / static_cast<double>(trace.eventCount());
}
BENCHMARK(BM_RingReplay)->ArgName("sealed")->Arg(1)->Arg(0)->Unit(benchmark::kMillisecond)->Iterations(3);

}  // namespace

int main(int argc, char** argv) {
  // A fixed mmap threshold (glibc otherwise raises it to the size of the largest block freed,
  // up to 32 MiB, and later blocks stay in the heap): freed arrays leave the resident set, so
  // the resident-set growth over a construction is what that Replayer holds.
  mallopt(M_MMAP_THRESHOLD, 1 << 20);
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
