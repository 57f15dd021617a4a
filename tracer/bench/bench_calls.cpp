// The tracer's cost per wrapped call, in one process (Google Benchmark; MPI singleton, one rank):
// each benchmark runs the same operation through the traced entry point (MPI_...) and directly
// through the untraced one (PMPI_...); the difference is what the tracer adds per call,
// including its share of buffer flushes (records go to a real trace in a scratch directory).
//
//   build/tracer/bench/bench_tracer_calls [--benchmark_repetitions=5]
//
// Messages go to MPI_COMM_SELF, so the MPI part is a memory copy and the difference stands out.
#include <benchmark/benchmark.h>
#include <mpi.h>

#include "perwiz/prgn.h"

#include <cstdlib>
#include <filesystem>
#include <string>
#include <unistd.h>

namespace {

int gPayload[2];

void Sendrecv(benchmark::State& state, bool traced) {
  int in[2];
  for (auto _ : state) {
    if (traced)
      MPI_Sendrecv(gPayload, 2, MPI_INT, 0, 1, in, 2, MPI_INT, 0, 1, MPI_COMM_SELF, MPI_STATUS_IGNORE);
    else
      PMPI_Sendrecv(gPayload, 2, MPI_INT, 0, 1, in, 2, MPI_INT, 0, 1, MPI_COMM_SELF, MPI_STATUS_IGNORE);
  }
  state.SetItemsProcessed(state.iterations());  // items = wrapped calls
}

// Irecv + Isend + Waitall: three wrapped calls and two requests followed per iteration.
void NonBlocking(benchmark::State& state, bool traced) {
  int in[2];
  MPI_Request rq[2];
  for (auto _ : state) {
    if (traced) {
      MPI_Irecv(in, 2, MPI_INT, 0, 2, MPI_COMM_SELF, &rq[0]);
      MPI_Isend(gPayload, 2, MPI_INT, 0, 2, MPI_COMM_SELF, &rq[1]);
      MPI_Waitall(2, rq, MPI_STATUSES_IGNORE);
    } else {
      PMPI_Irecv(in, 2, MPI_INT, 0, 2, MPI_COMM_SELF, &rq[0]);
      PMPI_Isend(gPayload, 2, MPI_INT, 0, 2, MPI_COMM_SELF, &rq[1]);
      PMPI_Waitall(2, rq, MPI_STATUSES_IGNORE);
    }
  }
  state.SetItemsProcessed(3 * state.iterations());
}

void Allreduce(benchmark::State& state, bool traced) {
  double x = 1, y = 0;
  for (auto _ : state) {
    if (traced) MPI_Allreduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_SELF);
    else PMPI_Allreduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_SELF);
  }
  state.SetItemsProcessed(state.iterations());
}

// A PRGN_BEGIN/PRGN_END pair: two records, no MPI work.
void MarkerPair(benchmark::State& state) {
  for (auto _ : state) {
    PRGN_BEGIN();
    PRGN_END();
  }
  state.SetItemsProcessed(state.iterations());
}

BENCHMARK_CAPTURE(Sendrecv, pmpi, false);
BENCHMARK_CAPTURE(Sendrecv, traced, true);
BENCHMARK_CAPTURE(NonBlocking, pmpi, false);
BENCHMARK_CAPTURE(NonBlocking, traced, true);
BENCHMARK_CAPTURE(Allreduce, pmpi, false);
BENCHMARK_CAPTURE(Allreduce, traced, true);
BENCHMARK(MarkerPair);

}  // namespace

int main(int argc, char** argv) {
  // The run's trace goes to a scratch directory (unless the caller chose one) and is removed.
  std::string scratch;
  if (!std::getenv("PERWIZ_TRACE_DIR")) {
    char dir[] = "/tmp/perwiz-bench-XXXXXX";
    if (::mkdtemp(dir)) {
      scratch = dir;
      ::setenv("PERWIZ_TRACE_DIR", dir, 1);
      ::setenv("PERWIZ_TRACE_QUIET", "1", 1);
    }
  }
  MPI_Init(&argc, &argv);
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  MPI_Finalize();
  if (!scratch.empty()) std::filesystem::remove_all(scratch);
  return 0;
}
