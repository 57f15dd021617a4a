/* PerWiz parallel-region markers (paper §2.1, Fig. 1).
 *
 *   PRGN_BEGIN();  ... one step of the parallel region ...  PRGN_END();
 *   PRGN_BEGIN_NAMED("stage"); ... PRGN_END_NAMED("stage");    -> region "PRGN_stage"
 *
 * The markers go through MPI_Pcontrol, the MPI standard's hook for profiling libraries: without
 * the tracer (plain run, or another tool) they are no-ops, so a program marked once runs
 * unchanged everywhere, and the tracer sees them both when linked and when LD_PRELOADed.
 * The trace shows each marker pair as a user region whose name starts with "PRGN", which is
 * what PerWiz's readers take as the parallel region (docs/trace-model.md). */
#ifndef PERWIZ_PRGN_H
#define PERWIZ_PRGN_H

#include <mpi.h>

/* MPI_Pcontrol levels the tracer understands; chosen far from 0/1/2, which tools use to
 * switch tracing off/on/flush. The variadic argument is the region name (const char *). */
#define PERWIZ_PCONTROL_PRGN_BEGIN 7301
#define PERWIZ_PCONTROL_PRGN_END 7302

#ifdef SMPI_H
/* SimGrid's SMPI (3.32) aborts the simulation in MPI_Pcontrol ("not yet implemented"), so under
 * SMPI the markers call the tracer's entry point through a weak reference instead: null (no-op)
 * when the program is not linked with libperwiz-trace. */
#ifdef __cplusplus
extern "C" {
#endif
int perwiz_pcontrol(int level, const char *name) __attribute__((weak));
#ifdef __cplusplus
}
#endif
#define PERWIZ_PRGN_MARK(level, name) (perwiz_pcontrol ? perwiz_pcontrol((level), (name)) : 0)
#else
#define PERWIZ_PRGN_MARK(level, name) MPI_Pcontrol((level), (name))
#endif

#define PRGN_BEGIN_NAMED(name) PERWIZ_PRGN_MARK(PERWIZ_PCONTROL_PRGN_BEGIN, (const char *)(name))
#define PRGN_END_NAMED(name) PERWIZ_PRGN_MARK(PERWIZ_PCONTROL_PRGN_END, (const char *)(name))
#define PRGN_BEGIN() PRGN_BEGIN_NAMED((const char *)0)
#define PRGN_END() PRGN_END_NAMED((const char *)0)

#endif
