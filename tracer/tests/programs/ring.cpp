// A C++ program for the tracer tests: N steps of a non-blocking exchange with both ring
// neighbours and an Allreduce, then rank r sends r+1 messages to the next rank. Starts with
// MPI_Init_thread. Counts per rank (test_programs.cpp): Init_thread 1, Irecv 2N, Isend 2N + r+1,
// Waitall N + 1, Allreduce N, Recv prev+1, Finalize 1; N steps.
#include <mpi.h>

#include "perwiz/prgn.h"

#include <cstdlib>
#include <vector>

int main(int argc, char** argv) {
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int steps = argc > 1 ? std::atoi(argv[1]) : 3;
  const int next = (rank + 1) % size, prev = (rank + size - 1) % size;
  std::vector<double> out(256, rank), left(256), right(256);
  for (int s = 0; s < steps; ++s) {
    PRGN_BEGIN();
    MPI_Request rq[4];
    MPI_Irecv(left.data(), 256, MPI_DOUBLE, prev, 0, MPI_COMM_WORLD, &rq[0]);
    MPI_Irecv(right.data(), 256, MPI_DOUBLE, next, 1, MPI_COMM_WORLD, &rq[1]);
    MPI_Isend(out.data(), 256, MPI_DOUBLE, next, 0, MPI_COMM_WORLD, &rq[2]);
    MPI_Isend(out.data(), 256, MPI_DOUBLE, prev, 1, MPI_COMM_WORLD, &rq[3]);
    MPI_Waitall(4, rq, MPI_STATUSES_IGNORE);
    double sum = 0, mine = left[0] + right[0];
    MPI_Allreduce(&mine, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    PRGN_END();
  }
  std::vector<MPI_Request> sends(rank + 1);
  for (int i = 0; i <= rank; ++i)
    MPI_Isend(out.data(), 8, MPI_DOUBLE, next, 2, MPI_COMM_WORLD, &sends[i]);
  for (int i = 0; i <= prev; ++i)
    MPI_Recv(left.data(), 8, MPI_DOUBLE, prev, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  MPI_Waitall(rank + 1, sends.data(), MPI_STATUSES_IGNORE);
  MPI_Finalize();
  return 0;
}
