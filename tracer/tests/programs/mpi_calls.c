/* Calls every function libperwiz-trace wraps, a known number of times, for the tracer tests
 * (tracer/tests/test_tracer.cpp derives the expected counts from the number of ranks P and of
 * steps N; the few calls whose count depends on timing, such as MPI_Test loops, are counted
 * here and printed as "count <rank> <function> <n>" lines; for MPI_Wait the line gives the
 * waits beyond the fixed ones, on requests a loop left active).
 *
 *   mpi_calls N [nocancel]      N parallel steps (default 3); nocancel skips MPI_Cancel (SMPI)
 *   mpi_calls testall-early     only an MPI_Testall loop whose send completes calls before its
 *                               receive (the partner sends 1 ms late)
 *
 * Every rank has a partner r^1 (P must be even). Built for Open MPI (linked with the tracer, and
 * untraced for LD_PRELOAD) and for SMPI. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "perwiz/prgn.h"

static int rank, size, partner;
static int testCount, testallCount, testanyCount, testsomeCount, waitsomeCount, iprobeCount;
static int extraWaits; /* MPI_Wait calls on requests a completion loop left active */

/* SimGrid 3.32's MPI_Testany/Testsome report "no active request" while a completed Isend's
 * request is still set: wait for what is left, as any program would have to. */
static void finishRemaining(MPI_Request rq[2]) {
  for (int i = 0; i < 2; ++i)
    if (rq[i] != MPI_REQUEST_NULL) {
      MPI_Wait(&rq[i], MPI_STATUS_IGNORE);
      ++extraWaits;
    }
}

/* N steps of the parallel region: a ring Sendrecv, a non-blocking exchange with a wildcard
 * receive, an Allreduce; a named marker nested inside each step. */
static void steps(int n) {
  const int next = (rank + 1) % size, prev = (rank + size - 1) % size;
  double x = rank, y = 0, z = 0;
  for (int it = 0; it < n; ++it) {
    PRGN_BEGIN();
    MPI_Sendrecv(&x, 1, MPI_DOUBLE, next, 1, &y, 1, MPI_DOUBLE, prev, 1, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    PRGN_BEGIN_NAMED("inner");
    MPI_Request rq[2];
    MPI_Irecv(&y, 1, MPI_DOUBLE, MPI_ANY_SOURCE, 2, MPI_COMM_WORLD, &rq[0]);
    MPI_Isend(&x, 1, MPI_DOUBLE, next, 2, MPI_COMM_WORLD, &rq[1]);
    MPI_Waitall(2, rq, MPI_STATUSES_IGNORE);
    PRGN_END_NAMED("inner");
    MPI_Allreduce(&x, &z, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    PRGN_END();
  }
}

/* Rank r > 0 sends r+1 messages of r+1 doubles to rank 0, which receives them all with
 * MPI_ANY_SOURCE / MPI_ANY_TAG and MPI_STATUS_IGNORE. */
static void wildcards(void) {
  double buf[64] = {0};
  if (rank == 0) {
    int total = 0;
    for (int r = 1; r < size; ++r) total += r + 1;
    for (int i = 0; i < total; ++i)
      MPI_Recv(buf, 64, MPI_DOUBLE, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  } else {
    for (int i = 0; i <= rank; ++i) MPI_Send(buf, rank + 1, MPI_DOUBLE, 0, 100 + rank, MPI_COMM_WORLD);
  }
}

/* A non-periodic shift (the ends talk to MPI_PROC_NULL), plus a send to and a receive from
 * MPI_PROC_NULL on every rank: no message records for those. */
static void procNull(void) {
  int a = rank, b = -1;
  const int up = rank + 1 < size ? rank + 1 : MPI_PROC_NULL;
  const int down = rank > 0 ? rank - 1 : MPI_PROC_NULL;
  MPI_Sendrecv(&a, 1, MPI_INT, up, 5, &b, 1, MPI_INT, down, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  MPI_Send(&a, 1, MPI_INT, MPI_PROC_NULL, 6, MPI_COMM_WORLD);
  MPI_Recv(&b, 1, MPI_INT, MPI_PROC_NULL, 6, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
}

/* Send modes between partners: the even rank sends, the odd one receives. */
static void sendModes(void) {
  int v = rank, w = 0;
  static char attached[1024];
  MPI_Request r;
  if (rank % 2 == 0) {
    MPI_Ssend(&v, 1, MPI_INT, partner, 10, MPI_COMM_WORLD);
    MPI_Buffer_attach(attached, sizeof attached);
    MPI_Bsend(&v, 1, MPI_INT, partner, 11, MPI_COMM_WORLD);
    void* detached;
    int detachedSize;
    MPI_Buffer_detach(&detached, &detachedSize);
    MPI_Barrier(MPI_COMM_WORLD); /* the receive for the Rsend is posted */
    MPI_Rsend(&v, 1, MPI_INT, partner, 12, MPI_COMM_WORLD);
    MPI_Issend(&v, 1, MPI_INT, partner, 13, MPI_COMM_WORLD, &r);
    MPI_Wait(&r, MPI_STATUS_IGNORE);
  } else {
    MPI_Recv(&w, 1, MPI_INT, partner, 10, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Recv(&w, 1, MPI_INT, partner, 11, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Irecv(&w, 1, MPI_INT, partner, 12, MPI_COMM_WORLD, &r);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Wait(&r, MPI_STATUS_IGNORE);
    MPI_Recv(&w, 1, MPI_INT, partner, 13, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  }
}

/* Each completion call on a receive and a send with the partner (tags 20..25). */
static void completions(void) {
  int out[2] = {rank, rank}, in[2];
  MPI_Request rq[2];
  int flag = 0, index = 0, outcount = 0, indices[2], done = 0;
  MPI_Status st[2];

  /* Waitany: exactly two calls. */
  MPI_Irecv(&in[0], 1, MPI_INT, partner, 20, MPI_COMM_WORLD, &rq[0]);
  MPI_Isend(&out[0], 1, MPI_INT, partner, 20, MPI_COMM_WORLD, &rq[1]);
  MPI_Waitany(2, rq, &index, MPI_STATUS_IGNORE);
  MPI_Waitany(2, rq, &index, &st[0]);
  finishRemaining(rq);

  /* Waitsome until both are done. */
  MPI_Irecv(&in[0], 1, MPI_INT, partner, 21, MPI_COMM_WORLD, &rq[0]);
  MPI_Isend(&out[0], 1, MPI_INT, partner, 21, MPI_COMM_WORLD, &rq[1]);
  for (done = 0; done < 2; done += outcount) {
    MPI_Waitsome(2, rq, &outcount, indices, MPI_STATUSES_IGNORE);
    ++waitsomeCount;
    if (outcount == MPI_UNDEFINED) break;
  }
  finishRemaining(rq);

  /* Test on the receive until it completes, then Wait on the send. */
  MPI_Irecv(&in[0], 1, MPI_INT, partner, 22, MPI_COMM_WORLD, &rq[0]);
  MPI_Isend(&out[0], 1, MPI_INT, partner, 22, MPI_COMM_WORLD, &rq[1]);
  for (flag = 0; !flag;) {
    MPI_Test(&rq[0], &flag, MPI_STATUS_IGNORE);
    ++testCount;
  }
  MPI_Wait(&rq[1], MPI_STATUS_IGNORE);

  /* Testall until both are done. */
  MPI_Irecv(&in[0], 1, MPI_INT, partner, 23, MPI_COMM_WORLD, &rq[0]);
  MPI_Isend(&out[0], 1, MPI_INT, partner, 23, MPI_COMM_WORLD, &rq[1]);
  for (flag = 0; !flag;) {
    MPI_Testall(2, rq, &flag, st);
    ++testallCount;
  }
  finishRemaining(rq);

  /* Testany until both are done (a call on two inactive requests would also count). */
  MPI_Irecv(&in[0], 1, MPI_INT, partner, 24, MPI_COMM_WORLD, &rq[0]);
  MPI_Isend(&out[0], 1, MPI_INT, partner, 24, MPI_COMM_WORLD, &rq[1]);
  for (done = 0; done < 2;) {
    MPI_Testany(2, rq, &index, &flag, MPI_STATUS_IGNORE);
    ++testanyCount;
    if (flag && index == MPI_UNDEFINED) break; /* nothing active any more */
    if (flag) ++done;
  }
  finishRemaining(rq);

  /* Testsome until both are done. */
  MPI_Irecv(&in[0], 1, MPI_INT, partner, 25, MPI_COMM_WORLD, &rq[0]);
  MPI_Isend(&out[0], 1, MPI_INT, partner, 25, MPI_COMM_WORLD, &rq[1]);
  for (done = 0; done < 2;) {
    MPI_Testsome(2, rq, &outcount, indices, st);
    ++testsomeCount;
    if (outcount == MPI_UNDEFINED) break;
    done += outcount;
  }
  finishRemaining(rq);
}

/* Probe and Iprobe before the receive; Sendrecv_replace around the ring; an Isend whose request
 * is freed; a receive that is cancelled. */
static void misc(int cancel) {
  int v = rank, flag = 0;
  MPI_Status st;
  MPI_Send(&v, 1, MPI_INT, partner, 30, MPI_COMM_WORLD);
  MPI_Probe(partner, 30, MPI_COMM_WORLD, &st);
  MPI_Recv(&v, 1, MPI_INT, partner, 30, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  MPI_Send(&v, 1, MPI_INT, partner, 31, MPI_COMM_WORLD);
  for (flag = 0; !flag; ++iprobeCount) MPI_Iprobe(MPI_ANY_SOURCE, 31, MPI_COMM_WORLD, &flag, &st);
  MPI_Recv(&v, 1, MPI_INT, st.MPI_SOURCE, 31, MPI_COMM_WORLD, MPI_STATUS_IGNORE);

  MPI_Sendrecv_replace(&v, 1, MPI_INT, (rank + 1) % size, 32, (rank + size - 1) % size, 32,
                       MPI_COMM_WORLD, MPI_STATUS_IGNORE);

  MPI_Request r;
  MPI_Isend(&v, 1, MPI_INT, partner, 33, MPI_COMM_WORLD, &r);
  MPI_Request_free(&r);
  MPI_Recv(&flag, 1, MPI_INT, partner, 33, MPI_COMM_WORLD, MPI_STATUS_IGNORE);

  if (cancel) {
    MPI_Irecv(&v, 1, MPI_INT, rank, 999, MPI_COMM_WORLD, &r); /* never sent */
    MPI_Cancel(&r);
    MPI_Wait(&r, &st);
  }
  MPI_Barrier(MPI_COMM_WORLD); /* everyone's freed Isend has been received */
}

/* Every collective on MPI_COMM_WORLD with fixed sizes (see test_tracer.cpp). */
static void collectives(void) {
  int n4[4] = {1, 2, 3, 4}, big[256], out[256];
  int counts[64], displs[64];
  for (int i = 0; i < size; ++i) {
    counts[i] = 2;
    displs[i] = 2 * i;
  }
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Bcast(n4, 4, MPI_INT, 1 % size, MPI_COMM_WORLD);
  MPI_Reduce(n4, out, 4, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
  MPI_Allreduce(MPI_IN_PLACE, n4, 4, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  MPI_Gather(n4, 2, MPI_INT, big, 2, MPI_INT, 0, MPI_COMM_WORLD);
  MPI_Gatherv(n4, 2, MPI_INT, big, counts, displs, MPI_INT, size - 1, MPI_COMM_WORLD);
  MPI_Scatter(big, 2, MPI_INT, out, 2, MPI_INT, 0, MPI_COMM_WORLD);
  MPI_Scatterv(big, counts, displs, MPI_INT, out, 2, MPI_INT, 0, MPI_COMM_WORLD);
  MPI_Allgather(n4, 2, MPI_INT, big, 2, MPI_INT, MPI_COMM_WORLD);
  MPI_Allgatherv(n4, 2, MPI_INT, big, counts, displs, MPI_INT, MPI_COMM_WORLD);
  MPI_Alltoall(big, 2, MPI_INT, out, 2, MPI_INT, MPI_COMM_WORLD);
  MPI_Alltoallv(big, counts, displs, MPI_INT, out, counts, displs, MPI_INT, MPI_COMM_WORLD);
  MPI_Reduce_scatter(big, out, counts, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  MPI_Scan(n4, out, 4, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  MPI_Exscan(n4, out, 4, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
}

/* Sub-communicators: by parity, in reverse rank order (key -rank), so comm-local ranks differ
 * from world ranks; a duplicate of MPI_COMM_WORLD reusing tag 1; MPI_COMM_SELF. */
static void subCommunicators(void) {
  MPI_Comm parity, dup;
  int v = rank, w = -1, local, n;
  MPI_Comm_split(MPI_COMM_WORLD, rank % 2, -rank, &parity);
  MPI_Comm_rank(parity, &local);
  MPI_Comm_size(parity, &n);
  MPI_Sendrecv(&v, 1, MPI_INT, (local + 1) % n, 50, &w, 1, MPI_INT, (local + n - 1) % n, 50,
               parity, MPI_STATUS_IGNORE);
  MPI_Bcast(&v, 1, MPI_INT, 0, parity);
  MPI_Reduce(&v, &w, 1, MPI_INT, MPI_SUM, 0, parity);
  MPI_Barrier(parity);
  MPI_Comm_free(&parity);

  MPI_Comm_dup(MPI_COMM_WORLD, &dup);
  MPI_Sendrecv(&v, 1, MPI_INT, partner, 1, &w, 1, MPI_INT, partner, 1, dup, MPI_STATUS_IGNORE);
  MPI_Comm_free(&dup);

  MPI_Sendrecv(&v, 1, MPI_INT, 0, 70, &w, 1, MPI_INT, 0, 70, MPI_COMM_SELF, MPI_STATUS_IGNORE);
}

/* Even ranks: a small (eager) Isend to the partner and an Irecv from it, then MPI_Testall until
 * both are done; odd ranks post theirs 1 ms later (simulated under SMPI), so the even rank's
 * send is done calls before its receive. Prints how many Testall calls it took. */
static void testallEarly(void) {
  int out = rank, in = -1, flag = 0;
  MPI_Request rq[2];
  MPI_Status st[2];
  if (rank % 2) usleep(1000);
  MPI_Irecv(&in, 1, MPI_INT, partner, 40, MPI_COMM_WORLD, &rq[0]);
  MPI_Isend(&out, 1, MPI_INT, partner, 40, MPI_COMM_WORLD, &rq[1]);
  for (flag = 0; !flag;) {
    MPI_Testall(2, rq, &flag, st);
    ++testallCount;
  }
  printf("count %d MPI_Testall %d\n", rank, testallCount);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  partner = rank ^ 1;
  if (argc > 1 && strcmp(argv[1], "testall-early") == 0) {
    if (size % 2 == 0) testallEarly();
    fflush(stdout);
    MPI_Finalize();
    return 0;
  }
  const int n = argc > 1 ? atoi(argv[1]) : 3;
  const int cancel = !(argc > 2 && strcmp(argv[2], "nocancel") == 0);
  if (size % 2 != 0) {
    if (rank == 0) fprintf(stderr, "mpi_calls: needs an even number of ranks\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  partner = rank ^ 1;
  steps(n);
  wildcards();
  procNull();
  sendModes();
  completions();
  misc(cancel);
  collectives();
  subCommunicators();
  printf("count %d MPI_Test %d\ncount %d MPI_Testall %d\ncount %d MPI_Testany %d\n"
         "count %d MPI_Testsome %d\ncount %d MPI_Waitsome %d\ncount %d MPI_Iprobe %d\n"
         "count %d MPI_Wait %d\n",
         rank, testCount, rank, testallCount, rank, testanyCount, rank, testsomeCount, rank,
         waitsomeCount, rank, iprobeCount, rank, extraWaits);
  fflush(stdout);
  MPI_Finalize();
  return 0;
}
