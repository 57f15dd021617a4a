#include "report.h"

#include "work.h"

#include <mpi.h>
#include <stdio.h>

double report_start(void) {
  MPI_Barrier(MPI_COMM_WORLD);
  return MPI_Wtime();
}

void report_finish(const char *name, const char *details, double start) {
  MPI_Barrier(MPI_COMM_WORLD);
  double elapsed = MPI_Wtime() - start, longest = 0;
  MPI_Reduce(&elapsed, &longest, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (rank == 0) {
    printf("%s: ranks=%d backend=%s %s time_s=%.9f\n", name, size, work_backend(), details, longest);
    fflush(stdout);
  }
}
