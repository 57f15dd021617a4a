/* A 2-D Jacobi stencil with a 1-D (row) decomposition: per iteration every rank posts
 * MPI_Irecv/MPI_Isend for its two halo rows, MPI_Waitall, updates its rows and MPI_Allreduces the
 * residual. One PRGN step per iteration ("PRGN_iteration"). With --overlap the rows that need no
 * halo are updated between posting and MPI_Waitall (the classic overlap; docs/examples.md says why
 * it is not the default: Open MPI's shared-memory transport moves a 4 KiB halo only when the
 * sender is back in MPI, which the replay cannot know).
 *
 * The first quarter of the rows is a refined band whose cells cost --hot-weight times as much
 * (think of a boundary layer solved with more sub-steps). The default split gives every rank the
 * same number of rows, so the ranks holding the band compute longer and the others wait in the
 * MPI_Allreduce. --balanced splits the rows by cost instead (prefix sums of the row weights);
 * when the total weight divides evenly (e.g. --n 512 with 8, 16 or 32 ranks) every rank gets
 * exactly the mean cost, which is what the balance-compute hypothesis assumes; the halo messages
 * are one row either way. */
#include "common/options.h"
#include "common/report.h"
#include "common/work.h"
#include "perwiz/prgn.h"

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static long row_weight(long y, long n, long hot) { return y < n / 4 ? hot : 1; }

/* First global row of every rank (first[ranks] = n). Even split: n / ranks rows each. Balanced:
 * rank r starts at the first row whose prefix weight reaches r * total / ranks. */
static void split_rows(long *first, int ranks, long n, long hot, int balanced) {
  if (!balanced) {
    for (int r = 0; r <= ranks; ++r) first[r] = n * r / ranks;
    return;
  }
  long total = 0;
  for (long y = 0; y < n; ++y) total += row_weight(y, n, hot);
  long y = 0, prefix = 0;
  for (int r = 0; r < ranks; ++r) {
    while (y < n && prefix * ranks < (long)r * total) prefix += row_weight(y++, n, hot);
    first[r] = y;
  }
  first[ranks] = n;
}

/* Jacobi update of local rows [lo, hi] (1-based, halo rows 0 and rows + 1); returns the squared
 * change. Columns 0 and n−1 are fixed walls. */
static double update(const double *u, double *v, long n, long lo, long hi) {
  double change = 0;
  for (long y = lo; y <= hi; ++y)
    for (long x = 1; x + 1 < n; ++x) {
      const long i = y * n + x;
      v[i] = 0.25 * (u[i - n] + u[i + n] + u[i - 1] + u[i + 1]);
      change += (v[i] - u[i]) * (v[i] - u[i]);
    }
  return change;
}

static double cost_ns(long first_global, long lo, long hi, long n, long hot, double cell_ns) {
  double units = 0;
  for (long y = lo; y <= hi; ++y) units += (double)row_weight(first_global + y - 1, n, hot);
  return units * (double)n * cell_ns;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, ranks = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);

  long n = 512, iters = 20, hot = 4;
  double cell_ns = 10;
  int balanced = 0, overlap = 0;
  const option_spec specs[] = {
      {"n", OPT_INT, &n, 4, 1 << 16, "grid side (cells)"},
      {"iters", OPT_INT, &iters, 1, 1000000, "Jacobi iterations"},
      {"cell-ns", OPT_DOUBLE, &cell_ns, 0, 1e9, "cost of updating one ordinary cell (ns)"},
      {"hot-weight", OPT_INT, &hot, 1, 1000, "cost factor of the cells in the refined band (first quarter of rows)"},
      {"balanced", OPT_FLAG, &balanced, 0, 0, "split the rows by cost instead of by count"},
      {"overlap", OPT_FLAG, &overlap, 0, 0, "update the inner rows between posting the halos and MPI_Waitall"},
  };
  const int nspecs = (int)(sizeof specs / sizeof specs[0]);
  const char *summary = "2-D Jacobi stencil, row decomposition, Isend/Irecv halos and an Allreduce per iteration.";
  int status = options_parse(argc, argv, "stencil", summary, specs, nspecs, rank);
  long *first = malloc((size_t)(ranks + 1) * sizeof *first);
  if (!first) {
    fprintf(stderr, "stencil: rank %d: out of memory\n", rank);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  if (status == 0) {
    split_rows(first, ranks, n, hot, balanced);
    for (int r = 0; r < ranks && status == 0; ++r)
      if (first[r + 1] - first[r] < 2) {
        char msg[160];
        snprintf(msg, sizeof msg, "--n %ld gives rank %d fewer than 2 rows with %d ranks; use a larger grid", n, r,
                 ranks);
        status = options_fail("stencil", rank, msg);
      }
  }
  if (status != 0) {
    free(first);
    MPI_Finalize();
    return status == 1 ? 0 : status;
  }

  const long rows = first[rank + 1] - first[rank], g0 = first[rank];
  const size_t cells = (size_t)(rows + 2) * (size_t)n;
  double *u = calloc(cells, sizeof *u), *v = calloc(cells, sizeof *v);
  if (!u || !v) {
    fprintf(stderr, "stencil: rank %d: out of memory for %ld rows of %ld cells\n", rank, rows, n);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  if (rank == 0) /* the hot wall above the first row */
    for (long x = 0; x < n; ++x) u[x] = v[x] = 1.0;
  const int up = rank > 0 ? rank - 1 : MPI_PROC_NULL, down = rank + 1 < ranks ? rank + 1 : MPI_PROC_NULL;

  const double start = report_start();
  double residual = 0;
  for (long it = 0; it < iters; ++it) {
    PRGN_BEGIN_NAMED("iteration");
    MPI_Request req[4];
    MPI_Irecv(u, (int)n, MPI_DOUBLE, up, 0, MPI_COMM_WORLD, &req[0]);
    MPI_Irecv(u + (rows + 1) * n, (int)n, MPI_DOUBLE, down, 1, MPI_COMM_WORLD, &req[1]);
    MPI_Isend(u + n, (int)n, MPI_DOUBLE, up, 1, MPI_COMM_WORLD, &req[2]);
    MPI_Isend(u + rows * n, (int)n, MPI_DOUBLE, down, 0, MPI_COMM_WORLD, &req[3]);

    double change = 0;
    if (overlap) { /* rows 2 … rows−1 need no halo: update them while the halos travel */
      const work_span span = work_begin();
      change = rows > 2 ? update(u, v, n, 2, rows - 1) : 0;
      work_end(span, rows > 2 ? cost_ns(g0, 2, rows - 1, n, hot, cell_ns) : 0);
      MPI_Waitall(4, req, MPI_STATUSES_IGNORE);
      const work_span edges = work_begin();
      change += update(u, v, n, 1, 1) + update(u, v, n, rows, rows);
      work_end(edges, cost_ns(g0, 1, 1, n, hot, cell_ns) + cost_ns(g0, rows, rows, n, hot, cell_ns));
    } else {
      MPI_Waitall(4, req, MPI_STATUSES_IGNORE);
      const work_span span = work_begin();
      change = update(u, v, n, 1, rows);
      work_end(span, cost_ns(g0, 1, rows, n, hot, cell_ns));
    }

    MPI_Allreduce(&change, &residual, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    /* keep the fixed halo values of the physical boundaries in the new array, then swap */
    if (rank == 0) memcpy(v, u, (size_t)n * sizeof *v);
    if (down == MPI_PROC_NULL) memcpy(v + (rows + 1) * n, u + (rows + 1) * n, (size_t)n * sizeof *v);
    double *t = u;
    u = v;
    v = t;
    PRGN_END_NAMED("iteration");
  }

  char details[200];
  snprintf(details, sizeof details, "split=%s overlap=%s n=%ld iters=%ld cell_ns=%g hot_weight=%ld residual=%.6e",
           balanced ? "balanced" : "even", overlap ? "yes" : "no", n, iters, cell_ns, hot, residual);
  report_finish("stencil", details, start);
  free(first);
  free(u);
  free(v);
  MPI_Finalize();
  return 0;
}
