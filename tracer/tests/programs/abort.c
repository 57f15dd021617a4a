/* A run that does not finish, for the tracer tests: every rank exchanges N ring messages, then
 * rank 1 calls MPI_Abort(MPI_COMM_WORLD, 3) -- or, with "segv", crashes on a null pointer --
 * while the others wait for a message from it that never comes. Per rank before that: Init 1,
 * Sendrecv N, Barrier 1; rank 1: Abort 1 (not with segv); the others: a Recv still open.
 *
 *   abort N [segv] */
#include <mpi.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size, v = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int n = argc > 1 ? atoi(argv[1]) : 4;
  for (int i = 0; i < n; ++i)
    MPI_Sendrecv(&rank, 1, MPI_INT, (rank + 1) % size, 0, &v, 1, MPI_INT, (rank + size - 1) % size,
                 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 1) {
    if (argc > 2 && strcmp(argv[2], "segv") == 0) *(volatile int*)0 = 1;
    MPI_Abort(MPI_COMM_WORLD, 3);
  }
  MPI_Recv(&v, 1, MPI_INT, 1, 99, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  MPI_Finalize();
  return 0;
}
