/* The programs' own timing: the window between a barrier after MPI_Init and a barrier before
 * MPI_Finalize, maximised over ranks and printed by rank 0 as one line
 *
 *   NAME: ranks=8 backend=smpi <details> time_s=0.004123456789
 *
 * which scripts and the validation test read (docs/examples.md). */
#ifndef PERWIZ_EXAMPLES_REPORT_H
#define PERWIZ_EXAMPLES_REPORT_H

/* Barrier, then the start time. */
double report_start(void);
/* Barrier, then the elapsed time since START, maximised over ranks; rank 0 prints the line. */
void report_finish(const char *name, const char *details, double start);

#endif
