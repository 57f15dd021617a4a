/* A registration-like program (paper §5.1, Fig. 6(a)): the gradient of a similarity measure is
 * computed at control points; each point is handled by the group of ranks that hold its
 * neighbourhood, and the loop over points runs in the order the points were placed.
 *
 * The image is split into slabs, one per rank. The placed points, in placement order:
 *   1. the border slab's own points (rank 0 alone, --border-points of them): placed first
 *      because the strongest features lie there;
 *   2. the landmark on the boundary of slabs 0 and 1, group {0, 1}: rank 0 computes its partial
 *      gradient and MPI_Sends it to rank 1, which computes its own, MPI_Recvs and combines;
 *   3. --rows rows of points on the inner slab boundaries b = 1 … P−2, group {b, b+1}, red-black
 *      within a row (even boundaries, then odd ones): both members compute their partial
 *      gradient, swap it with MPI_Sendrecv and combine;
 *   4. the other slabs' own points (--interior per rank).
 * Every rank walks this list and handles the points whose group it belongs to (Fig. 6(a)).
 *
 * The order makes rank 1 wait at the landmark for rank 0's border points; late by that much, it
 * makes rank 2 wait at the next row, which makes rank 3 wait, … (the domino effect, paper Fig. 3):
 * every rank ends up late by the same amount. Zeroing rank 1's wait at the landmark removes the
 * whole chain in the prediction; --reorder is that modification in the code: the landmark is
 * processed first, rank 0's border points after it. docs/examples.md shows that the reordered run
 * is what the zero-wait hypothesis describes. The whole loop is one PRGN step ("PRGN_gradient"). */
#include "common/options.h"
#include "common/report.h"
#include "common/work.h"
#include "perwiz/prgn.h"

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

typedef enum { POINT_OWN, POINT_LANDMARK, POINT_BOUNDARY } point_kind;

typedef struct {
  point_kind kind;
  int a, b; /* the group: {a} for POINT_OWN, {a, b = a + 1} otherwise */
} point;

/* The placement order above (with --reorder: the landmark moved to the front). */
static point *place_points(int ranks, long rows, long border, long interior, int reorder, long *count) {
  const long boundaries = ranks > 2 ? ranks - 2 : 0;
  *count = border + 1 + rows * boundaries + interior * (ranks - 1);
  point *list = malloc((size_t)*count * sizeof *list), *p = list;
  if (!list) return NULL;
  const point landmark = {POINT_LANDMARK, 0, 1};
  if (reorder) *p++ = landmark;
  for (long i = 0; i < border; ++i) *p++ = (point){POINT_OWN, 0, 0};
  if (!reorder) *p++ = landmark;
  for (long row = 0; row < rows; ++row)
    for (int parity = 0; parity < 2; ++parity)
      for (int b = 1; b <= ranks - 2; ++b)
        if (b % 2 == parity) *p++ = (point){POINT_BOUNDARY, b, b + 1};
  for (int r = 1; r < ranks; ++r)
    for (long i = 0; i < interior; ++i) *p++ = (point){POINT_OWN, r, r};
  return list;
}

/* The partial gradient of this rank's neighbourhood of a point: some real arithmetic whose cost
 * is declared as point_ns (work.h). */
static void partial_gradient(double *g, long n, long point_index, int rank, double point_ns) {
  const work_span span = work_begin();
  for (long i = 0; i < n; ++i) g[i] = (double)((point_index * 31 + rank * 17 + i) % 101) * 0.01;
  work_end(span, point_ns);
}

/* Adds the partner's partial gradient; a tenth of a point's cost. */
static void combine(double *g, const double *other, long n, double point_ns) {
  const work_span span = work_begin();
  for (long i = 0; i < n; ++i) g[i] += other[i];
  work_end(span, point_ns / 10);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, ranks = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);

  long rows = 0, border = 0, interior = 4, bytes = 4096;
  double point_ns = 100000;
  int reorder = 0;
  const option_spec specs[] = {
      {"rows", OPT_INT, &rows, 0, 100000, "rows of points on each inner slab boundary (0: as many as ranks)"},
      {"border-points", OPT_INT, &border, 0, 1000000, "rank 0's own points, placed first (0: as many as rows)"},
      {"interior", OPT_INT, &interior, 0, 1000000, "own points of each other rank, placed last"},
      {"point-ns", OPT_DOUBLE, &point_ns, 0, 1e12, "cost of one partial gradient (ns); combining costs a tenth"},
      {"bytes", OPT_INT, &bytes, 8, 1 << 24, "size of a partial gradient message (bytes, rounded down to doubles)"},
      {"reorder", OPT_FLAG, &reorder, 0, 0, "process the landmark first (the fix for the waiting chain)"},
  };
  const int nspecs = (int)(sizeof specs / sizeof specs[0]);
  const char *summary = "Gradient at control points handled by groups of ranks, in placement order (one PRGN step).";
  int status = options_parse(argc, argv, "registration", summary, specs, nspecs, rank);
  if (status == 0 && ranks < 2) status = options_fail("registration", rank, "needs at least 2 ranks");
  if (status != 0) {
    MPI_Finalize();
    return status == 1 ? 0 : status;
  }
  if (rows == 0) rows = ranks;
  if (border == 0) border = rows;

  long count = 0;
  point *points = place_points(ranks, rows, border, interior, reorder, &count);
  const long n = bytes / 8;
  double *mine = malloc((size_t)n * sizeof *mine), *theirs = malloc((size_t)n * sizeof *theirs);
  if (!points || !mine || !theirs) {
    fprintf(stderr, "registration: rank %d: out of memory\n", rank);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }

  const double start = report_start();
  PRGN_BEGIN_NAMED("gradient");
  for (long i = 0; i < count; ++i) {
    const point *p = &points[i];
    if (rank != p->a && rank != p->b) continue;
    const int tag = (int)(i % 32768), partner = rank == p->a ? p->b : p->a;
    partial_gradient(mine, n, i, rank, point_ns);
    if (p->kind == POINT_LANDMARK) {
      /* rank 0 contributes, rank 1 (the slab holding the landmark) combines */
      if (rank == p->a)
        MPI_Send(mine, (int)n, MPI_DOUBLE, partner, tag, MPI_COMM_WORLD);
      else {
        MPI_Recv(theirs, (int)n, MPI_DOUBLE, partner, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        combine(mine, theirs, n, point_ns);
      }
    } else if (p->kind == POINT_BOUNDARY) {
      MPI_Sendrecv(mine, (int)n, MPI_DOUBLE, partner, tag, theirs, (int)n, MPI_DOUBLE, partner, tag, MPI_COMM_WORLD,
                   MPI_STATUS_IGNORE);
      combine(mine, theirs, n, point_ns);
    }
  }
  PRGN_END_NAMED("gradient");

  char details[200];
  snprintf(details, sizeof details, "order=%s rows=%ld border_points=%ld interior=%ld point_ns=%g bytes=%ld",
           reorder ? "reordered" : "placement", rows, border, interior, point_ns, n * 8);
  report_finish("registration", details, start);
  free(points);
  free(mine);
  free(theirs);
  MPI_Finalize();
  return 0;
}
