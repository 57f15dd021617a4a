/* Computation that costs a given time, the same way under Open MPI and under SimGrid SMPI.
 *
 * The case studies must show the *same* timing structure on a real run and in a simulated one,
 * and their SMPI runs must be deterministic (docs/examples.md). So every program computes its
 * real result (compositing, gradients, stencil sweeps) and then declares what that work costs,
 * proportionally to the work actually done (e.g. the opaque pixels it composited):
 *
 *   work_span s = work_begin();
 *   ... the real loop ...
 *   work_end(s, n_done * cost_ns);
 *
 * - SMPI (compiled by smpicc; run with --cfg=smpi/simulate-computation:no so host CPU time does
 *   not leak into the simulated clock): work_end charges exactly that many nanoseconds to the
 *   simulated host with smpi_execute_flops().
 * - Open MPI: work_end waits until `ns` have passed since work_begin (sleeping, then spinning
 *   the last 200 µs), so the real loop's own time counts towards the same total. */
#ifndef PERWIZ_EXAMPLES_WORK_H
#define PERWIZ_EXAMPLES_WORK_H

#include <mpi.h>

typedef struct {
  double start_s; /* native: monotonic clock at work_begin; SMPI: unused */
} work_span;

work_span work_begin(void);
void work_end(work_span span, double ns);
/* Shorthand for work_end(work_begin(), ns): pure cost with no real loop worth timing. */
void work_charge(double ns);
/* "smpi" or "native": which clock the costs go to (printed by the programs). */
const char *work_backend(void);

#endif
