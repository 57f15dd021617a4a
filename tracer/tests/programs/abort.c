/* A run that ends in MPI_Abort, for the tracer tests: every rank exchanges N ring messages, then
 * rank 1 calls MPI_Abort(MPI_COMM_WORLD, 3) while the others wait for a message from it that
 * never comes. Per rank before the abort: Init 1, Sendrecv N, Barrier 1; rank 1: Abort 1;
 * the others: a Recv still open. */
#include <mpi.h>
#include <stdlib.h>

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
  if (rank == 1) MPI_Abort(MPI_COMM_WORLD, 3);
  MPI_Recv(&v, 1, MPI_INT, 1, 99, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  MPI_Finalize();
  return 0;
}
