// What-if advisor benchmarks for issue #4: "a domino path" — dominoPaths() with the top-10
// candidates and the longest-wait choice, as perwiz-cli advise and the GUI run it — on
// generated traces of ~5,000 events (target: <= 50 ms) and ~10^6 events (target: <= 10 s),
// on all cores and on one. For information (no target): the base Replayer's construction
// (which a user pays once before any advice), the critical path alone, the step table and the
// whole advise() at 10^6 events.
//
// Two trace shapes, generated in memory and not measured:
//  * solver: bench::benchSpec (64 ranks, ring Isend/Irecv/Waitall, an Allreduce per step,
//    20 % imbalance). The Allreduce absorbs most changes (a collective-heavy trace may
//    flatter the numbers);
//  * p2p: 64 ranks, ring Sendrecv (blocking), no collective, 60 % imbalance. Every wait
//    feeds the next step's exchange, so changes travel along the ring.
//
// Counters: predictions (replays run), cp_waits (distinct calls with a wait on the critical
// path: what the pruning keeps), paths, threads (the pool's threads; with threads = 0 a batch
// too small to gain runs on the calling thread alone), gain_pct (what the best path saves).
// Commands and numbers: docs/performance.md, "Advisor".
#include "bench_data.h"

#include "perwiz/advisor.h"
#include "perwiz/critical_path.h"
#include "perwiz/execution_dag.h"
#include "perwiz/generator.h"
#include "perwiz/replay.h"
#include "perwiz/trace_builder.h"

#include <benchmark/benchmark.h>
#include <chrono>
#include <cstdlib>
#include <stdexcept>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <thread>
#include <utility>

namespace {

using namespace perwiz;

constexpr std::uint64_t kSmall = 5'000;
constexpr std::uint64_t kLarge = 1'000'000;

enum class Shape { Solver, P2P };

GeneratorSpec specFor(Shape shape, std::uint64_t events) {
  if (shape == Shape::Solver) return bench::benchSpec(events);
  GeneratorSpec s;
  s.ranks = 64;
  s.seed = 42;
  s.imbalance = 0.6;
  s.pattern = P2PPattern::Ring;
  s.nonBlocking = false;  // MPI_Sendrecv
  s.messageBytes = 4096;
  s.collective = MpiOp::None;
  return specForEventCount(s, events);
}

// One trace and its base Replayer per (shape, size), kept for the whole run.
struct Input {
  std::unique_ptr<Trace> trace;
  std::unique_ptr<Replayer> base;
  std::size_t criticalWaits = 0;  // distinct calls with a wait > 0 on the critical path
};

const Input& input(Shape shape, std::uint64_t events) {
  static std::map<std::pair<Shape, std::uint64_t>, Input> cache;
  Input& in = cache[{shape, events}];
  if (!in.trace) {
    TraceBuilder builder("bench", "generated");
    generateTrace(specFor(shape, events), builder);
    in.trace = std::make_unique<Trace>(builder.take());
    in.base = std::make_unique<Replayer>(*in.trace, Scenario{});
    std::set<std::pair<std::uint32_t, std::uint32_t>> waits;
    for (const CriticalSegment& s : criticalPath(*in.base, CriticalPathListing::Segments).segments)
      if (s.kind == CriticalSegment::Kind::Message && in.base->predicted(s.rank, s.index).wait > 0)
        waits.emplace(s.rank, s.index);
    in.criticalWaits = waits.size();
  }
  return in;
}

unsigned threadsUsed(unsigned requested) {
  return requested ? requested : std::max(1u, std::thread::hardware_concurrency());
}

void commonCounters(benchmark::State& state, const Input& in) {
  state.counters["events"] = static_cast<double>(in.trace->eventCount());
  state.counters["calls"] = static_cast<double>(in.base->callCount());
  state.counters["cp_waits"] = static_cast<double>(in.criticalWaits);
}

// The base Replayer (program compilation + first full replay): paid once per trace.
void BM_BaseReplayer(benchmark::State& state, Shape shape) {
  const Input& in = input(shape, bench::targetEvents(static_cast<std::uint64_t>(state.range(0))));
  for (auto _ : state) {
    Replayer r(*in.trace, Scenario{});
    benchmark::DoNotOptimize(r.predictedTime());
  }
  commonCounters(state, in);
}

// The critical path of the base prediction (the backward walk of critical_path.h): the
// pruning's first step, part of every dominoPaths() call.
void BM_CriticalPath(benchmark::State& state, Shape shape) {
  const Input& in = input(shape, bench::targetEvents(static_cast<std::uint64_t>(state.range(0))));
  std::size_t segments = 0;
  for (auto _ : state) {
    const CriticalPath cp = criticalPath(*in.base, CriticalPathListing::Segments);
    segments = cp.segments.size();
    benchmark::DoNotOptimize(cp.length);
  }
  commonCounters(state, in);
  state.counters["segments"] = static_cast<double>(segments);
}

// dominoPaths() with candidates and the longest wait: range(0) events, range(1) threads
// (0 = all cores).
void BM_DominoPaths(benchmark::State& state, Shape shape) {
  const Input& in = input(shape, bench::targetEvents(static_cast<std::uint64_t>(state.range(0))));
  AdvisorOptions options;
  options.threads = static_cast<unsigned>(state.range(1));
  DominoResult result;
  std::vector<WaitCandidate> candidates;
  WaitCandidate longest;
  std::uint64_t predictions = 0;
  for (auto _ : state) {
    predictions = 0;
    result = dominoPaths(*in.base, options, &candidates, &longest, &predictions);
    benchmark::DoNotOptimize(result.predictedNs);
  }
  commonCounters(state, in);
  state.counters["threads"] = threadsUsed(options.threads);
  state.counters["predictions"] = static_cast<double>(predictions);
  state.counters["paths"] = static_cast<double>(result.paths.size());
  state.counters["truncated"] = result.truncated;
  state.counters["candidates"] = static_cast<double>(candidates.size());
  // How much the best domino path predicts to save, relative to the base T.
  const double t0 = static_cast<double>(in.base->predictedTime());
  state.counters["gain_pct"] = 100.0 * (t0 - static_cast<double>(result.predictedNs)) / t0;
  state.counters["longest_gain_pct"] = 100.0 * (t0 - static_cast<double>(longest.predictedNs)) / t0;
}

// The step table: one balance-compute prediction per parallel step, plus all steps at once.
void BM_StepTable(benchmark::State& state, Shape shape) {
  const Input& in = input(shape, bench::targetEvents(static_cast<std::uint64_t>(state.range(0))));
  AdvisorOptions options;
  options.threads = static_cast<unsigned>(state.range(1));
  std::uint64_t predictions = 0;
  std::size_t rows = 0;
  for (auto _ : state) {
    predictions = 0;
    TimeNs all = 0;
    rows = stepTable(*in.base, options, &all, &predictions).size();
    benchmark::DoNotOptimize(all);
  }
  commonCounters(state, in);
  state.counters["threads"] = threadsUsed(options.threads);
  state.counters["predictions"] = static_cast<double>(predictions);
  state.counters["steps"] = static_cast<double>(rows);
}

// The whole advisor: domino paths, candidates, longest wait, step table, lower bounds.
void BM_Advise(benchmark::State& state, Shape shape) {
  const Input& in = input(shape, bench::targetEvents(static_cast<std::uint64_t>(state.range(0))));
  AdvisorOptions options;
  options.threads = static_cast<unsigned>(state.range(1));
  Advice a;
  for (auto _ : state) {
    a = advise(*in.base, options);
    benchmark::DoNotOptimize(a.baseNs);
  }
  commonCounters(state, in);
  state.counters["threads"] = threadsUsed(options.threads);
  state.counters["predictions"] = static_cast<double>(a.predictions);
  state.counters["paths"] = static_cast<double>(a.domino.paths.size());
}

// Issue #42: `perwiz-cli advise T` against `perwiz-cli predict T` on the bench shape's OTF2
// archive (bench::otf2Archive), each the whole command as the user runs it (a child process,
// wall time): target advise <= 5 x predict. 10^7 events; 10^8 with PERWIZ_BENCH_ADVISE_1E8=1
// (about 3 minutes, 11 GB).
double commandSeconds(const std::string& command) {
  const auto t0 = std::chrono::steady_clock::now();
  if (std::system((command + " > /dev/null").c_str()) != 0) throw std::runtime_error("failed: " + command);
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

void BM_AdviseCommand(benchmark::State& state) {
  const std::string archive = bench::otf2Archive(static_cast<std::uint64_t>(state.range(0)));
  const std::string cli = PERWIZ_CLI;
  double predict = 0, advise = 0;
  for (auto _ : state) {
    predict = commandSeconds(cli + " predict " + archive);
    advise = commandSeconds(cli + " advise --quiet " + archive);
    state.SetIterationTime(advise);
  }
  state.counters["predict_s"] = predict;
  state.counters["advise_s"] = advise;
  state.counters["advise_over_predict"] = advise / predict;
}

using benchmark::kMillisecond;

BENCHMARK_CAPTURE(BM_BaseReplayer, solver, Shape::Solver)->Arg(kSmall)->Arg(kLarge)->Unit(kMillisecond);
BENCHMARK_CAPTURE(BM_BaseReplayer, p2p, Shape::P2P)->Arg(kSmall)->Arg(kLarge)->Unit(kMillisecond);
BENCHMARK_CAPTURE(BM_CriticalPath, solver, Shape::Solver)->Arg(kSmall)->Arg(kLarge)->Unit(kMillisecond);
BENCHMARK_CAPTURE(BM_CriticalPath, p2p, Shape::P2P)->Arg(kSmall)->Arg(kLarge)->Unit(kMillisecond);

BENCHMARK_CAPTURE(BM_DominoPaths, solver, Shape::Solver)
    ->ArgNames({"events", "threads"})
    ->Args({kSmall, 0})->Args({kSmall, 1})
    ->Unit(kMillisecond);
BENCHMARK_CAPTURE(BM_DominoPaths, p2p, Shape::P2P)
    ->ArgNames({"events", "threads"})
    ->Args({kSmall, 0})->Args({kSmall, 1})
    ->Unit(kMillisecond);
BENCHMARK_CAPTURE(BM_DominoPaths, solver, Shape::Solver)
    ->ArgNames({"events", "threads"})
    ->Args({kLarge, 0})->Args({kLarge, 1})
    ->Unit(kMillisecond)->Iterations(1);
BENCHMARK_CAPTURE(BM_DominoPaths, p2p, Shape::P2P)
    ->ArgNames({"events", "threads"})
    ->Args({kLarge, 0})->Args({kLarge, 1})
    ->Unit(kMillisecond)->Iterations(1);

BENCHMARK_CAPTURE(BM_StepTable, solver, Shape::Solver)
    ->ArgNames({"events", "threads"})->Args({kLarge, 0})->Args({kLarge, 1})
    ->Unit(kMillisecond)->Iterations(1);
BENCHMARK_CAPTURE(BM_StepTable, p2p, Shape::P2P)
    ->ArgNames({"events", "threads"})->Args({kLarge, 0})->Args({kLarge, 1})
    ->Unit(kMillisecond)->Iterations(1);
BENCHMARK_CAPTURE(BM_Advise, solver, Shape::Solver)
    ->ArgNames({"events", "threads"})->Args({kLarge, 0})->Args({kLarge, 1})
    ->Unit(kMillisecond)->Iterations(1);
BENCHMARK(BM_AdviseCommand)
    ->ArgName("events")
    ->Apply([](benchmark::internal::Benchmark* b) {
      b->Arg(10'000'000);
      if (std::getenv("PERWIZ_BENCH_ADVISE_1E8")) b->Arg(100'000'000);
    })
    ->Iterations(1)
    ->UseManualTime()
    ->Unit(kMillisecond);
BENCHMARK_CAPTURE(BM_Advise, p2p, Shape::P2P)
    ->ArgNames({"events", "threads"})->Args({kLarge, 0})->Args({kLarge, 1})
    ->Unit(kMillisecond)->Iterations(1);

}  // namespace

BENCHMARK_MAIN();
