/* exchange: the communication patterns of the model-cost validation (issue #20;
 * docs/validation-retarget.md). Each iteration is one parallel step: computation (with a
 * per-rank imbalance, or balanced), then one of
 *
 *   --pattern 0  ring:       MPI_Sendrecv to rank+1, from rank−1, then MPI_Allreduce of 8 bytes
 *   --pattern 1  halo:       MPI_Irecv/MPI_Isend to both neighbours of a periodic 1-D ring,
 *                            MPI_Waitall of the four requests, then MPI_Allreduce of 8 bytes
 *   --pattern 2  collective: MPI_Allreduce of --bytes, MPI_Bcast of --bytes from rank 0,
 *                            MPI_Barrier
 *
 * Computation of rank r in an iteration: compute_ns · (1 + imbalance · w(r)), w(r) a fixed
 * pseudo-random number in [−1, 1] of the rank (the same in every iteration, so a step's
 * imbalance is the program's, not noise); --balanced gives every rank the mean, compute_ns.
 * Balancing a step's computation in PerWiz predicts exactly that run. */
#include "common/options.h"
#include "common/report.h"
#include "common/work.h"
#include "perwiz/prgn.h"

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* w(r) in [−1, 1]: a hash of the rank, fixed for the run; the mean over the ranks is not 0, so
 * the balanced run uses the mean of the imbalanced computations (see mean_factor). */
static double weight(int r) {
  unsigned long x = (unsigned long)r * 2654435761ul + 12345ul;
  x ^= x >> 13;
  x *= 0x5bd1e995ul;
  x ^= x >> 15;
  return (double)(x % 2001ul) / 1000.0 - 1.0;
}

static double mean_factor(int ranks, double imbalance) {
  double sum = 0;
  for (int r = 0; r < ranks; ++r) sum += 1.0 + imbalance * weight(r);
  return sum / ranks;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, ranks = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);

  long pattern = 0, bytes = 65536, iters = 20;
  double compute_ns = 1e6, imbalance = 0.3;
  int balanced = 0;
  const option_spec specs[] = {
      {"pattern", OPT_INT, &pattern, 0, 2, "0 ring Sendrecv, 1 Isend/Irecv/Waitall halo, 2 collectives"},
      {"bytes", OPT_INT, &bytes, 1, 1 << 26, "message size (bytes) of the pattern's exchanges"},
      {"iters", OPT_INT, &iters, 1, 1000000, "iterations (parallel steps)"},
      {"compute-ns", OPT_DOUBLE, &compute_ns, 0, 1e12, "mean computation per rank and iteration (ns)"},
      {"imbalance", OPT_DOUBLE, &imbalance, 0, 0.99, "relative spread of the ranks' computation"},
      {"balanced", OPT_FLAG, &balanced, 0, 0, "every rank computes the mean of the imbalanced run"},
  };
  const int nspecs = (int)(sizeof specs / sizeof specs[0]);
  const char *summary = "Ring Sendrecv, halo Isend/Irecv/Waitall or collectives per step, with a computation "
                        "imbalance (the model-cost validation's workloads).";
  const int status = options_parse(argc, argv, "exchange", summary, specs, nspecs, rank);
  if (status != 0) {
    MPI_Finalize();
    return status == 1 ? 0 : status;
  }

  char *out = malloc((size_t)bytes * 2), *in = malloc((size_t)bytes * 2);
  if (!out || !in) {
    fprintf(stderr, "exchange: rank %d: out of memory for %ld-byte messages\n", rank, bytes);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  memset(out, rank & 0xff, (size_t)bytes * 2);
  const int right = (rank + 1) % ranks, left = (rank + ranks - 1) % ranks;
  const double mine = balanced ? compute_ns * mean_factor(ranks, imbalance) : compute_ns * (1.0 + imbalance * weight(rank));
  const int n = (int)bytes;

  const double start = report_start();
  double acc = 0, sum = 0;
  for (long it = 0; it < iters; ++it) {
    PRGN_BEGIN_NAMED("step");
    const work_span span = work_begin();
    for (int i = 0; i < 64; ++i) acc += (double)out[i % n] * 1e-9; /* a token of real work */
    work_end(span, mine);
    if (pattern == 0) {
      MPI_Sendrecv(out, n, MPI_BYTE, right, 0, in, n, MPI_BYTE, left, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      MPI_Allreduce(&acc, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    } else if (pattern == 1) {
      MPI_Request req[4];
      MPI_Irecv(in, n, MPI_BYTE, left, 0, MPI_COMM_WORLD, &req[0]);
      MPI_Irecv(in + n, n, MPI_BYTE, right, 1, MPI_COMM_WORLD, &req[1]);
      MPI_Isend(out, n, MPI_BYTE, right, 0, MPI_COMM_WORLD, &req[2]);
      MPI_Isend(out + n, n, MPI_BYTE, left, 1, MPI_COMM_WORLD, &req[3]);
      MPI_Waitall(4, req, MPI_STATUSES_IGNORE);
      MPI_Allreduce(&acc, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    } else {
      MPI_Allreduce(out, in, n, MPI_UNSIGNED_CHAR, MPI_MAX, MPI_COMM_WORLD);
      MPI_Bcast(in, n, MPI_BYTE, 0, MPI_COMM_WORLD);
      MPI_Barrier(MPI_COMM_WORLD);
    }
    PRGN_END_NAMED("step");
  }

  char details[200];
  snprintf(details, sizeof details, "pattern=%ld bytes=%ld iters=%ld compute_ns=%g imbalance=%g split=%s sum=%g",
           pattern, bytes, iters, compute_ns, imbalance, balanced ? "balanced" : "imbalanced", sum);
  report_finish("exchange", details, start);
  free(out);
  free(in);
  MPI_Finalize();
  return 0;
}
