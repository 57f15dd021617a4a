// What touching memory costs on the machine at hand (issue #40, docs/performance.md "GUI at
// scale"): the first write to fresh anonymous pages against a write to pages already resident.
// On a paravirtualised guest the first touch can cost tens of times the second, which decides
// whether a structure should be recycled rather than allocated afresh.
#include <benchmark/benchmark.h>

#include <sys/mman.h>

#include <cstring>

namespace {

constexpr std::size_t kBytes = std::size_t{256} << 20;

void* mapFresh() {
  void* p = mmap(nullptr, kBytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  return p == MAP_FAILED ? nullptr : p;
}

// A memset of 256 MiB of fresh pages (mapped, then written once): the page faults and the
// zeroing of every page are in it.
void BM_FirstTouch(benchmark::State& state) {
  for (auto _ : state) {
    state.PauseTiming();
    void* p = mapFresh();
    state.ResumeTiming();
    if (!p) {
      state.SkipWithError("mmap failed");
      return;
    }
    std::memset(p, 1, kBytes);
    benchmark::DoNotOptimize(p);
    state.PauseTiming();
    munmap(p, kBytes);
    state.ResumeTiming();
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * kBytes));
}
BENCHMARK(BM_FirstTouch)->Unit(benchmark::kMillisecond)->UseRealTime();

// The same memset of the same pages once they are resident.
void BM_ResidentTouch(benchmark::State& state) {
  void* p = mapFresh();
  if (!p) {
    state.SkipWithError("mmap failed");
    return;
  }
  std::memset(p, 1, kBytes);
  for (auto _ : state) {
    std::memset(p, 2, kBytes);
    benchmark::DoNotOptimize(p);
    benchmark::ClobberMemory();
  }
  munmap(p, kBytes);
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * kBytes));
}
BENCHMARK(BM_ResidentTouch)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
