/* See work.h. smpicc's <mpi.h> includes <smpi/smpi.h>, which defines SMPI_H: that is how the
 * same source picks the simulated clock under SMPI and a busy-wait under Open MPI. */
#include "work.h"

#ifdef SMPI_H
#include <simgrid/host.h>

work_span work_begin(void) {
  work_span s = {0.0};
  return s;
}

void work_end(work_span span, double ns) {
  (void)span;
  if (ns <= 0) return;
  /* The platform file gives each host's speed in flop/s; ns * speed / 1e9 flops take exactly
   * ns on it, whatever speed the platform declares. */
  smpi_execute_flops(ns * 1e-9 * sg_host_get_speed(sg_host_self()));
}

const char *work_backend(void) { return "smpi"; }

#else
#include <time.h>

static double now_s(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

work_span work_begin(void) {
  work_span s = {now_s()};
  return s;
}

void work_end(work_span span, double ns) {
  /* Busy-wait rather than sleep: a sleeping rank gives its core away and wakes up late, which
   * on an oversubscribed machine would turn microseconds of cost into milliseconds. */
  const double until = span.start_s + ns * 1e-9;
  while (now_s() < until) {
  }
}

const char *work_backend(void) { return "native"; }
#endif

void work_charge(double ns) { work_end(work_begin(), ns); }
