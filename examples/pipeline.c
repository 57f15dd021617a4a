/* A late-sender pipeline: blocks of data travel down a chain of ranks 0 → 1 → … → P−1, and
 * every rank applies its own filter to every block (cost --block-ns per block).
 *
 * By default a rank filters a block *before* forwarding it (the natural way to write it), so
 * rank r+1 receives block i only after rank r has filtered it: each rank's first MPI_Recv waits
 * for the filters of all the ranks before it (late sender; the pipeline takes (P−1) filter times
 * to fill). Each rank filters the raw block it received, not its predecessor's output, so the
 * forward can go first: --forward-first sends the block on as soon as it arrives and then filters
 * it, and the pipeline fills in (P−1) transfer times. docs/examples.md relates this to the
 * zero-wait hypothesis on the receives. One PRGN step per block ("PRGN_block"). */
#include "common/options.h"
#include "common/report.h"
#include "common/work.h"
#include "perwiz/prgn.h"

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

/* Rank r's filter: some real arithmetic whose cost is declared as block_ns (work.h). */
static void filter(const double *in, double *out, long n, int rank, double block_ns) {
  const work_span span = work_begin();
  for (long i = 0; i < n; ++i) out[i] = in[i] * 0.5 + (double)rank;
  work_end(span, block_ns);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, ranks = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);

  long blocks = 32, bytes = 4096;
  double block_ns = 200000;
  int forward_first = 0;
  const option_spec specs[] = {
      {"blocks", OPT_INT, &blocks, 1, 1000000, "blocks sent down the chain"},
      {"block-bytes", OPT_INT, &bytes, 8, 1 << 26, "size of a block (bytes, rounded down to doubles)"},
      {"block-ns", OPT_DOUBLE, &block_ns, 0, 1e12, "cost of filtering one block on one rank (ns)"},
      {"forward-first", OPT_FLAG, &forward_first, 0, 0, "forward each block before filtering it (the fix)"},
  };
  const int nspecs = (int)(sizeof specs / sizeof specs[0]);
  const char *summary = "Blocks forwarded down a chain of ranks, each rank filtering each block (one PRGN step per block).";
  int status = options_parse(argc, argv, "pipeline", summary, specs, nspecs, rank);
  if (status == 0 && ranks < 2) status = options_fail("pipeline", rank, "needs at least 2 ranks");
  if (status != 0) {
    MPI_Finalize();
    return status == 1 ? 0 : status;
  }

  const long n = bytes / 8;
  double *block = malloc((size_t)n * sizeof *block), *out = malloc((size_t)n * sizeof *out);
  if (!block || !out) {
    fprintf(stderr, "pipeline: rank %d: out of memory\n", rank);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  const int prev = rank > 0 ? rank - 1 : MPI_PROC_NULL, next = rank + 1 < ranks ? rank + 1 : MPI_PROC_NULL;

  const double start = report_start();
  for (long b = 0; b < blocks; ++b) {
    PRGN_BEGIN_NAMED("block");
    const int tag = (int)(b % 32768);
    if (rank == 0)
      for (long i = 0; i < n; ++i) block[i] = (double)(b + i);
    else
      MPI_Recv(block, (int)n, MPI_DOUBLE, prev, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    if (forward_first && next != MPI_PROC_NULL) MPI_Send(block, (int)n, MPI_DOUBLE, next, tag, MPI_COMM_WORLD);
    filter(block, out, n, rank, block_ns);
    if (!forward_first && next != MPI_PROC_NULL) MPI_Send(block, (int)n, MPI_DOUBLE, next, tag, MPI_COMM_WORLD);
    PRGN_END_NAMED("block");
  }

  char details[160];
  snprintf(details, sizeof details, "order=%s blocks=%ld block_ns=%g bytes=%ld",
           forward_first ? "forward-first" : "filter-first", blocks, block_ns, n * 8);
  report_finish("pipeline", details, start);
  free(block);
  free(out);
  MPI_Finalize();
  return 0;
}
