/* Ping-pong between ranks 0 and 1 for the tracer's overhead: run it untraced and with
 * LD_PRELOAD=libperwiz-trace.so (tracer/bench/run_pingpong.sh does both). Each round trip is
 * four wrapped calls on the critical path (rank 0's Send and Recv, rank 1's Recv and Send), so
 *   added time per wrapped call = (traced round trip - untraced round trip) / 4.
 *
 *   mpirun -np 2 pingpong [iterations=20000] [repetitions=11] [bytes=8]
 *
 * Prints the median and the fastest repetition's mean round trip in ns. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static int compare(const void* a, const void* b) {
  const double x = *(const double*)a, y = *(const double*)b;
  return (x > y) - (x < y);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  const int iterations = argc > 1 ? atoi(argv[1]) : 20000;
  const int repetitions = argc > 2 ? atoi(argv[2]) : 11;
  const int bytes = argc > 3 ? atoi(argv[3]) : 8;
  char* buf = calloc((size_t)bytes + 1, 1);
  double* rtt = calloc((size_t)repetitions, sizeof(double));
  for (int r = -1; r < repetitions; ++r) { /* r = -1: warm-up */
    MPI_Barrier(MPI_COMM_WORLD);
    const double t0 = MPI_Wtime();
    for (int i = 0; i < iterations; ++i) {
      if (rank == 0) {
        MPI_Send(buf, bytes, MPI_BYTE, 1, 0, MPI_COMM_WORLD);
        MPI_Recv(buf, bytes, MPI_BYTE, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      } else if (rank == 1) {
        MPI_Recv(buf, bytes, MPI_BYTE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Send(buf, bytes, MPI_BYTE, 0, 0, MPI_COMM_WORLD);
      }
    }
    if (r >= 0) rtt[r] = (MPI_Wtime() - t0) / iterations * 1e9;
  }
  if (rank == 0) {
    qsort(rtt, (size_t)repetitions, sizeof(double), compare);
    printf("round trip ns: median %.1f fastest %.1f (%d x %d iterations, %d bytes)\n",
           rtt[repetitions / 2], rtt[0], repetitions, iterations, bytes);
  }
  free(buf);
  free(rtt);
  MPI_Finalize();
  return 0;
}
