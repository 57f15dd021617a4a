/* See work.h. smpicc's <mpi.h> includes <smpi/smpi.h>, which defines SMPI_H: that is how the
 * same source picks the simulated clock under SMPI and a timed wait under Open MPI. */
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
#include <errno.h>
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

/* Sleep until shortly before the deadline, then spin. On an oversubscribed machine (8 ranks on
 * 2 cores) a spinning rank competes with the ranks that have real work; when its deadline passes
 * while it is descheduled it finishes a whole time slice late, and one such delay per step adds
 * up (stencil, 4 ranks on 2 cores, 100 iterations: 450 ms spinning against 270 ms sleeping, for
 * 262 ms of declared cost). A sleeping rank leaves the cores to the others and, woken by its
 * timer, is scheduled promptly; the last SPIN_S are spun for precision. */
#define SPIN_S 200e-6

void work_end(work_span span, double ns) {
  const double until = span.start_s + ns * 1e-9, wake = until - SPIN_S;
  if (wake > now_s()) {
    struct timespec t;
    t.tv_sec = (time_t)wake;
    t.tv_nsec = (long)((wake - (double)t.tv_sec) * 1e9);
    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &t, NULL) == EINTR) {
    }
  }
  while (now_s() < until) {
  }
}

const char *work_backend(void) { return "native"; }
#endif

void work_charge(double ns) { work_end(work_begin(), ns); }
