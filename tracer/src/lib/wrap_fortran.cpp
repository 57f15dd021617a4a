// Fortran entry points (mpif.h, `use mpi`, Open MPI's `use mpi_f08`): each converts handles,
// sentinels, statuses and 1-based indices and calls the tracer's C wrapper, so recording
// happens in one place. See fortran_support.h for why.
//
// Every function is exported under the names Fortran compilers use (mpi_send, mpi_send_,
// mpi_send__, MPI_SEND) and, for Open MPI, its f08 names (mpi_send_f08_, ompi_send_f).
#include "call.h"
#include "fortran_support.h"
#include "markers.h"
#include "session.h"

#include "perwiz/prgn.h"

#include <cstdlib>
#include <cstring>

using namespace perwiz::trace;

// Open MPI's `use mpi_f08` layer: programs call mpi_send_f08_ (same arguments by reference; the
// handles are one-integer derived types and the status is MPI_STATUS_SIZE integers; a missing
// optional ierror is null), which calls ompi_send_f. Defining both makes a linked tracer needed
// (with --as-needed a library that defines nothing the program calls is dropped) and catches
// the inner call when it is preloaded.
#ifdef PERWIZ_TRACE_SMPI
#define PERWIZ_OMPI_ALIAS(impl, name, f08)
#else
#define PERWIZ_OMPI_ALIAS(impl, name, f08)                        \
  extern "C" decltype(impl) name __attribute__((alias(#impl))); \
  extern "C" decltype(impl) f08 __attribute__((alias(#impl)));
#endif

#define PERWIZ_FORTRAN(impl, lower, upper)                                   \
  extern "C" decltype(impl) lower __attribute__((alias(#impl)));             \
  extern "C" decltype(impl) lower##_ __attribute__((alias(#impl)));          \
  extern "C" decltype(impl) lower##__ __attribute__((alias(#impl)));         \
  extern "C" decltype(impl) upper __attribute__((alias(#impl)));             \
  PERWIZ_OMPI_ALIAS(impl, o##lower##_f, lower##_f08_)

using F = MPI_Fint;

namespace {

static_assert(sizeof(MPI_Fint) == sizeof(int), "Fortran INTEGER arrays are passed as int arrays");

void setErr(F* ierr, int rc) {
  if (ierr) *ierr = rc;
}

MPI_Comm comm(const F* c) { return PMPI_Comm_f2c(*c); }
MPI_Datatype type(const F* t) { return PMPI_Type_f2c(*t); }
MPI_Op op(const F* o) { return PMPI_Op_f2c(*o); }

// SimGrid 3.32 does not implement MPI_Status_c2f; its Fortran status is the C one, as ints.
void statusToFortran(MPI_Status* c, F* f) {
#ifdef PERWIZ_TRACE_SMPI
  static_assert(sizeof(MPI_Status) == kFortranStatusSize * sizeof(F));
  std::memcpy(f, c, sizeof(MPI_Status));
#else
  PMPI_Status_c2f(c, f);
#endif
}

// A C status for the C call, copied back if the caller wants it.
struct StatusOut {
  explicit StatusOut(F* f) : fortran(f), ignored(fortranStatusIgnored(f)) {}
  MPI_Status* c() { return ignored ? MPI_STATUS_IGNORE : &status; }
  void copyBack(int rc) {
    if (!ignored && rc == MPI_SUCCESS) statusToFortran(&status, fortran);
  }
  F* fortran;
  bool ignored;
  MPI_Status status;
};

// Scratch arrays for request-array calls (grown to the largest array seen, never shrunk).
template <class T>
T* scratch(int count, int slot) {
  static T* arrays[2] = {nullptr, nullptr};
  static int sizes[2] = {0, 0};
  if (count <= sizes[slot]) return arrays[slot];
  auto* bigger = static_cast<T*>(std::realloc(arrays[slot], sizeof(T) * static_cast<std::size_t>(count)));
  if (!bigger) return nullptr;
  arrays[slot] = bigger;
  sizes[slot] = count;
  return bigger;
}

MPI_Request* cRequests(const F* requests, int count) {
  MPI_Request* c = scratch<MPI_Request>(count > 0 ? count : 1, 0);
  if (c)
    for (int i = 0; i < count; ++i) c[i] = PMPI_Request_f2c(requests[i]);
  return c;
}

void fRequests(const MPI_Request* c, F* requests, int count) {
  for (int i = 0; i < count; ++i) requests[i] = PMPI_Request_c2f(c[i]);
}

// Statuses for `count` requests: null means ignored.
MPI_Status* cStatuses(const F* statuses, int count) {
  if (fortranStatusesIgnored(statuses)) return MPI_STATUSES_IGNORE;
  return scratch<MPI_Status>(count > 0 ? count : 1, 1);
}

void fStatuses(MPI_Status* c, F* statuses, int count) {
  if (c == MPI_STATUSES_IGNORE) return;
  for (int i = 0; i < count; ++i) statusToFortran(&c[i], statuses + i * kFortranStatusSize);
}

F fLogical(int flag) { return flag ? 1 : 0; }  // gfortran's .TRUE. is 1

}  // namespace

// --- environment ---------------------------------------------------------------------------

// Open MPI's Fortran MPI_INIT is PMPI_Init without arguments (ompi_init_f), done here directly:
// with --as-needed a program whose MPI calls all resolve to the tracer may not even load
// libmpi_mpifh. SMPI's sets up its Fortran layer too, so its own entry runs.
extern "C" void perwiz_f_init(F* ierr) {
  const std::uint64_t enter = now();
  F rc = MPI_ERR_OTHER;
#ifdef PERWIZ_TRACE_SMPI
  if (FortranErrFn real = libraryFortran("mpi_init_")) real(&rc);
#else
  int argc = 0;
  char** argv = nullptr;
  rc = PMPI_Init(&argc, &argv);
#endif
  setErr(ierr, rc);
  if (rc == MPI_SUCCESS) sessionStart(enter, Region::Init, nullptr);
}
PERWIZ_FORTRAN(perwiz_f_init, mpi_init, MPI_INIT)

extern "C" void perwiz_f_init_thread(F* required, F* provided, F* ierr) {
  const std::uint64_t enter = now();
  int argc = 0;
  char** argv = nullptr;
  int p = 0;
  const int rc = PMPI_Init_thread(&argc, &argv, *required, &p);
  *provided = p;
  setErr(ierr, rc);
  if (rc == MPI_SUCCESS) sessionStart(enter, Region::Init_thread, nullptr);
}
PERWIZ_FORTRAN(perwiz_f_init_thread, mpi_init_thread, MPI_INIT_THREAD)

extern "C" void perwiz_f_finalize(F* ierr) {
  sessionFinish();
  F rc = MPI_SUCCESS;
#ifdef PERWIZ_TRACE_SMPI
  FortranErrFn real = libraryFortran("mpi_finalize_");
  if (real) real(&rc);
  else rc = PMPI_Finalize();
#else
  rc = PMPI_Finalize();
#endif
  setErr(ierr, rc);
}
PERWIZ_FORTRAN(perwiz_f_finalize, mpi_finalize, MPI_FINALIZE)

extern "C" void perwiz_f_abort(F* c, F* errorcode, F* ierr) {
  setErr(ierr, MPI_Abort(comm(c), *errorcode));
}
PERWIZ_FORTRAN(perwiz_f_abort, mpi_abort, MPI_ABORT)

// MPI_PCONTROL(7301) / (7302): unnamed markers (the named ones come through perwiz_prgn).
extern "C" void perwiz_f_pcontrol(F* level) {
  if (*level == PERWIZ_PCONTROL_PRGN_BEGIN || *level == PERWIZ_PCONTROL_PRGN_END)
    prgnMarker(*level == PERWIZ_PCONTROL_PRGN_BEGIN, nullptr);
  else
    PMPI_Pcontrol(*level);
}
PERWIZ_FORTRAN(perwiz_f_pcontrol, mpi_pcontrol, MPI_PCONTROL)

// --- point-to-point ------------------------------------------------------------------------

#define PERWIZ_F_SEND(fn, cname, upper)                                                        \
  extern "C" void perwiz_f_##fn(void* buf, F* count, F* t, F* dest, F* tag, F* c, F* ierr) {  \
    setErr(ierr, cname(fortranBuffer(buf), *count, type(t), *dest, *tag, comm(c)));            \
  }                                                                                            \
  PERWIZ_FORTRAN(perwiz_f_##fn, mpi_##fn, upper)

PERWIZ_F_SEND(send, MPI_Send, MPI_SEND)
PERWIZ_F_SEND(ssend, MPI_Ssend, MPI_SSEND)
PERWIZ_F_SEND(bsend, MPI_Bsend, MPI_BSEND)
PERWIZ_F_SEND(rsend, MPI_Rsend, MPI_RSEND)

#define PERWIZ_F_ISEND(fn, cname, upper)                                                     \
  extern "C" void perwiz_f_##fn(void* buf, F* count, F* t, F* dest, F* tag, F* c, F* request, \
                                F* ierr) {                                                    \
    MPI_Request r = MPI_REQUEST_NULL;                                                         \
    const int rc = cname(fortranBuffer(buf), *count, type(t), *dest, *tag, comm(c), &r);      \
    if (rc == MPI_SUCCESS) *request = PMPI_Request_c2f(r);                                    \
    setErr(ierr, rc);                                                                         \
  }                                                                                           \
  PERWIZ_FORTRAN(perwiz_f_##fn, mpi_##fn, upper)

PERWIZ_F_ISEND(isend, MPI_Isend, MPI_ISEND)
PERWIZ_F_ISEND(issend, MPI_Issend, MPI_ISSEND)
PERWIZ_F_ISEND(ibsend, MPI_Ibsend, MPI_IBSEND)
PERWIZ_F_ISEND(irsend, MPI_Irsend, MPI_IRSEND)

extern "C" void perwiz_f_recv(void* buf, F* count, F* t, F* source, F* tag, F* c, F* status,
                              F* ierr) {
  StatusOut st(status);
  const int rc = MPI_Recv(fortranBuffer(buf), *count, type(t), *source, *tag, comm(c), st.c());
  st.copyBack(rc);
  setErr(ierr, rc);
}
PERWIZ_FORTRAN(perwiz_f_recv, mpi_recv, MPI_RECV)

extern "C" void perwiz_f_irecv(void* buf, F* count, F* t, F* source, F* tag, F* c, F* request,
                               F* ierr) {
  MPI_Request r = MPI_REQUEST_NULL;
  const int rc = MPI_Irecv(fortranBuffer(buf), *count, type(t), *source, *tag, comm(c), &r);
  if (rc == MPI_SUCCESS) *request = PMPI_Request_c2f(r);
  setErr(ierr, rc);
}
PERWIZ_FORTRAN(perwiz_f_irecv, mpi_irecv, MPI_IRECV)

extern "C" void perwiz_f_sendrecv(void* sendbuf, F* sendcount, F* sendtype, F* dest, F* sendtag,
                                  void* recvbuf, F* recvcount, F* recvtype, F* source,
                                  F* recvtag, F* c, F* status, F* ierr) {
  StatusOut st(status);
  const int rc = MPI_Sendrecv(fortranBuffer(sendbuf), *sendcount, type(sendtype), *dest, *sendtag,
                              fortranBuffer(recvbuf), *recvcount, type(recvtype), *source,
                              *recvtag, comm(c), st.c());
  st.copyBack(rc);
  setErr(ierr, rc);
}
PERWIZ_FORTRAN(perwiz_f_sendrecv, mpi_sendrecv, MPI_SENDRECV)

extern "C" void perwiz_f_sendrecv_replace(void* buf, F* count, F* t, F* dest, F* sendtag,
                                          F* source, F* recvtag, F* c, F* status, F* ierr) {
  StatusOut st(status);
  const int rc = MPI_Sendrecv_replace(fortranBuffer(buf), *count, type(t), *dest, *sendtag,
                                      *source, *recvtag, comm(c), st.c());
  st.copyBack(rc);
  setErr(ierr, rc);
}
PERWIZ_FORTRAN(perwiz_f_sendrecv_replace, mpi_sendrecv_replace, MPI_SENDRECV_REPLACE)

extern "C" void perwiz_f_probe(F* source, F* tag, F* c, F* status, F* ierr) {
  StatusOut st(status);
  const int rc = MPI_Probe(*source, *tag, comm(c), st.c());
  st.copyBack(rc);
  setErr(ierr, rc);
}
PERWIZ_FORTRAN(perwiz_f_probe, mpi_probe, MPI_PROBE)

extern "C" void perwiz_f_iprobe(F* source, F* tag, F* c, F* flag, F* status, F* ierr) {
  StatusOut st(status);
  int f = 0;
  const int rc = MPI_Iprobe(*source, *tag, comm(c), &f, st.c());
  *flag = fLogical(f);
  if (f) st.copyBack(rc);
  setErr(ierr, rc);
}
PERWIZ_FORTRAN(perwiz_f_iprobe, mpi_iprobe, MPI_IPROBE)

// --- completion ----------------------------------------------------------------------------

extern "C" void perwiz_f_wait(F* request, F* status, F* ierr) {
  MPI_Request r = PMPI_Request_f2c(*request);
  StatusOut st(status);
  const int rc = MPI_Wait(&r, st.c());
  if (rc == MPI_SUCCESS) *request = PMPI_Request_c2f(r);
  st.copyBack(rc);
  setErr(ierr, rc);
}
PERWIZ_FORTRAN(perwiz_f_wait, mpi_wait, MPI_WAIT)

extern "C" void perwiz_f_test(F* request, F* flag, F* status, F* ierr) {
  MPI_Request r = PMPI_Request_f2c(*request);
  StatusOut st(status);
  int f = 0;
  const int rc = MPI_Test(&r, &f, st.c());
  *flag = fLogical(f);
  if (rc == MPI_SUCCESS) *request = PMPI_Request_c2f(r);
  if (f) st.copyBack(rc);
  setErr(ierr, rc);
}
PERWIZ_FORTRAN(perwiz_f_test, mpi_test, MPI_TEST)

extern "C" void perwiz_f_waitall(F* count, F* requests, F* statuses, F* ierr) {
  MPI_Request* r = cRequests(requests, *count);
  MPI_Status* st = cStatuses(statuses, *count);
  if (!r || (!st && !fortranStatusesIgnored(statuses))) return setErr(ierr, MPI_ERR_NO_MEM);
  const int rc = MPI_Waitall(*count, r, st);
  fRequests(r, requests, *count);
  fStatuses(st, statuses, *count);
  setErr(ierr, rc);
}
PERWIZ_FORTRAN(perwiz_f_waitall, mpi_waitall, MPI_WAITALL)

extern "C" void perwiz_f_testall(F* count, F* requests, F* flag, F* statuses, F* ierr) {
  MPI_Request* r = cRequests(requests, *count);
  MPI_Status* st = cStatuses(statuses, *count);
  if (!r || (!st && !fortranStatusesIgnored(statuses))) return setErr(ierr, MPI_ERR_NO_MEM);
  int f = 0;
  const int rc = MPI_Testall(*count, r, &f, st);
  *flag = fLogical(f);
  fRequests(r, requests, *count);
  if (f) fStatuses(st, statuses, *count);
  setErr(ierr, rc);
}
PERWIZ_FORTRAN(perwiz_f_testall, mpi_testall, MPI_TESTALL)

extern "C" void perwiz_f_waitany(F* count, F* requests, F* index, F* status, F* ierr) {
  MPI_Request* r = cRequests(requests, *count);
  if (!r) return setErr(ierr, MPI_ERR_NO_MEM);
  StatusOut st(status);
  int i = MPI_UNDEFINED;
  const int rc = MPI_Waitany(*count, r, &i, st.c());
  fRequests(r, requests, *count);
  *index = i == MPI_UNDEFINED ? MPI_UNDEFINED : i + 1;
  st.copyBack(rc);
  setErr(ierr, rc);
}
PERWIZ_FORTRAN(perwiz_f_waitany, mpi_waitany, MPI_WAITANY)

extern "C" void perwiz_f_testany(F* count, F* requests, F* index, F* flag, F* status, F* ierr) {
  MPI_Request* r = cRequests(requests, *count);
  if (!r) return setErr(ierr, MPI_ERR_NO_MEM);
  StatusOut st(status);
  int i = MPI_UNDEFINED;
  int f = 0;
  const int rc = MPI_Testany(*count, r, &i, &f, st.c());
  fRequests(r, requests, *count);
  *index = i == MPI_UNDEFINED ? MPI_UNDEFINED : i + 1;
  *flag = fLogical(f);
  if (f) st.copyBack(rc);
  setErr(ierr, rc);
}
PERWIZ_FORTRAN(perwiz_f_testany, mpi_testany, MPI_TESTANY)

#define PERWIZ_F_SOME(fn, cname, upper)                                                          \
  extern "C" void perwiz_f_##fn(F* incount, F* requests, F* outcount, F* indices, F* statuses,  \
                                F* ierr) {                                                       \
    MPI_Request* r = cRequests(requests, *incount);                                              \
    MPI_Status* st = cStatuses(statuses, *incount);                                              \
    if (!r || (!st && !fortranStatusesIgnored(statuses))) return setErr(ierr, MPI_ERR_NO_MEM);   \
    int out = 0;                                                                                 \
    const int rc = cname(*incount, r, &out, indices, st);                                        \
    fRequests(r, requests, *incount);                                                            \
    *outcount = out;                                                                             \
    if (out != MPI_UNDEFINED) {                                                                  \
      for (int k = 0; k < out; ++k) ++indices[k];                                                \
      fStatuses(st, statuses, out);                                                              \
    }                                                                                            \
    setErr(ierr, rc);                                                                            \
  }                                                                                              \
  PERWIZ_FORTRAN(perwiz_f_##fn, mpi_##fn, upper)

PERWIZ_F_SOME(waitsome, MPI_Waitsome, MPI_WAITSOME)
PERWIZ_F_SOME(testsome, MPI_Testsome, MPI_TESTSOME)

extern "C" void perwiz_f_request_free(F* request, F* ierr) {
  MPI_Request r = PMPI_Request_f2c(*request);
  const int rc = MPI_Request_free(&r);
  if (rc == MPI_SUCCESS) *request = PMPI_Request_c2f(r);
  setErr(ierr, rc);
}
PERWIZ_FORTRAN(perwiz_f_request_free, mpi_request_free, MPI_REQUEST_FREE)

extern "C" void perwiz_f_cancel(F* request, F* ierr) {
  MPI_Request r = PMPI_Request_f2c(*request);
  setErr(ierr, MPI_Cancel(&r));
}
PERWIZ_FORTRAN(perwiz_f_cancel, mpi_cancel, MPI_CANCEL)

// --- collectives ---------------------------------------------------------------------------

extern "C" void perwiz_f_barrier(F* c, F* ierr) { setErr(ierr, MPI_Barrier(comm(c))); }
PERWIZ_FORTRAN(perwiz_f_barrier, mpi_barrier, MPI_BARRIER)

extern "C" void perwiz_f_bcast(void* buf, F* count, F* t, F* root, F* c, F* ierr) {
  setErr(ierr, MPI_Bcast(fortranBuffer(buf), *count, type(t), *root, comm(c)));
}
PERWIZ_FORTRAN(perwiz_f_bcast, mpi_bcast, MPI_BCAST)

extern "C" void perwiz_f_reduce(void* sendbuf, void* recvbuf, F* count, F* t, F* o, F* root,
                                F* c, F* ierr) {
  setErr(ierr, MPI_Reduce(fortranBuffer(sendbuf), fortranBuffer(recvbuf), *count, type(t), op(o),
                          *root, comm(c)));
}
PERWIZ_FORTRAN(perwiz_f_reduce, mpi_reduce, MPI_REDUCE)

#define PERWIZ_F_ALLREDUCE(fn, cname, upper)                                                \
  extern "C" void perwiz_f_##fn(void* sendbuf, void* recvbuf, F* count, F* t, F* o, F* c,   \
                                F* ierr) {                                                  \
    setErr(ierr, cname(fortranBuffer(sendbuf), fortranBuffer(recvbuf), *count, type(t), op(o), \
                       comm(c)));                                                           \
  }                                                                                         \
  PERWIZ_FORTRAN(perwiz_f_##fn, mpi_##fn, upper)

PERWIZ_F_ALLREDUCE(allreduce, MPI_Allreduce, MPI_ALLREDUCE)
PERWIZ_F_ALLREDUCE(scan, MPI_Scan, MPI_SCAN)
PERWIZ_F_ALLREDUCE(exscan, MPI_Exscan, MPI_EXSCAN)

#define PERWIZ_F_ROOTED(fn, cname, upper)                                                     \
  extern "C" void perwiz_f_##fn(void* sendbuf, F* sendcount, F* sendtype, void* recvbuf,      \
                                F* recvcount, F* recvtype, F* root, F* c, F* ierr) {          \
    setErr(ierr, cname(fortranBuffer(sendbuf), *sendcount, type(sendtype),                     \
                       fortranBuffer(recvbuf), *recvcount, type(recvtype), *root, comm(c)));  \
  }                                                                                           \
  PERWIZ_FORTRAN(perwiz_f_##fn, mpi_##fn, upper)

PERWIZ_F_ROOTED(gather, MPI_Gather, MPI_GATHER)
PERWIZ_F_ROOTED(scatter, MPI_Scatter, MPI_SCATTER)

#define PERWIZ_F_ALL(fn, cname, upper)                                                        \
  extern "C" void perwiz_f_##fn(void* sendbuf, F* sendcount, F* sendtype, void* recvbuf,      \
                                F* recvcount, F* recvtype, F* c, F* ierr) {                   \
    setErr(ierr, cname(fortranBuffer(sendbuf), *sendcount, type(sendtype),                     \
                       fortranBuffer(recvbuf), *recvcount, type(recvtype), comm(c)));         \
  }                                                                                           \
  PERWIZ_FORTRAN(perwiz_f_##fn, mpi_##fn, upper)

PERWIZ_F_ALL(allgather, MPI_Allgather, MPI_ALLGATHER)
PERWIZ_F_ALL(alltoall, MPI_Alltoall, MPI_ALLTOALL)

extern "C" void perwiz_f_gatherv(void* sendbuf, F* sendcount, F* sendtype, void* recvbuf,
                                 F* recvcounts, F* displs, F* recvtype, F* root, F* c, F* ierr) {
  setErr(ierr, MPI_Gatherv(fortranBuffer(sendbuf), *sendcount, type(sendtype),
                           fortranBuffer(recvbuf), recvcounts, displs, type(recvtype), *root,
                           comm(c)));
}
PERWIZ_FORTRAN(perwiz_f_gatherv, mpi_gatherv, MPI_GATHERV)

extern "C" void perwiz_f_scatterv(void* sendbuf, F* sendcounts, F* displs, F* sendtype,
                                  void* recvbuf, F* recvcount, F* recvtype, F* root, F* c,
                                  F* ierr) {
  setErr(ierr, MPI_Scatterv(fortranBuffer(sendbuf), sendcounts, displs, type(sendtype),
                            fortranBuffer(recvbuf), *recvcount, type(recvtype), *root, comm(c)));
}
PERWIZ_FORTRAN(perwiz_f_scatterv, mpi_scatterv, MPI_SCATTERV)

extern "C" void perwiz_f_allgatherv(void* sendbuf, F* sendcount, F* sendtype, void* recvbuf,
                                    F* recvcounts, F* displs, F* recvtype, F* c, F* ierr) {
  setErr(ierr, MPI_Allgatherv(fortranBuffer(sendbuf), *sendcount, type(sendtype),
                              fortranBuffer(recvbuf), recvcounts, displs, type(recvtype), comm(c)));
}
PERWIZ_FORTRAN(perwiz_f_allgatherv, mpi_allgatherv, MPI_ALLGATHERV)

extern "C" void perwiz_f_alltoallv(void* sendbuf, F* sendcounts, F* sdispls, F* sendtype,
                                   void* recvbuf, F* recvcounts, F* rdispls, F* recvtype, F* c,
                                   F* ierr) {
  setErr(ierr, MPI_Alltoallv(fortranBuffer(sendbuf), sendcounts, sdispls, type(sendtype),
                             fortranBuffer(recvbuf), recvcounts, rdispls, type(recvtype), comm(c)));
}
PERWIZ_FORTRAN(perwiz_f_alltoallv, mpi_alltoallv, MPI_ALLTOALLV)

extern "C" void perwiz_f_reduce_scatter(void* sendbuf, void* recvbuf, F* recvcounts, F* t, F* o,
                                        F* c, F* ierr) {
  setErr(ierr, MPI_Reduce_scatter(fortranBuffer(sendbuf), fortranBuffer(recvbuf), recvcounts,
                                  type(t), op(o), comm(c)));
}
PERWIZ_FORTRAN(perwiz_f_reduce_scatter, mpi_reduce_scatter, MPI_REDUCE_SCATTER)

// --- communicators -------------------------------------------------------------------------

extern "C" void perwiz_f_comm_split(F* c, F* color, F* key, F* newcomm, F* ierr) {
  MPI_Comm n = MPI_COMM_NULL;
  const int rc = MPI_Comm_split(comm(c), *color, *key, &n);
  if (rc == MPI_SUCCESS) *newcomm = PMPI_Comm_c2f(n);
  setErr(ierr, rc);
}
PERWIZ_FORTRAN(perwiz_f_comm_split, mpi_comm_split, MPI_COMM_SPLIT)

extern "C" void perwiz_f_comm_dup(F* c, F* newcomm, F* ierr) {
  MPI_Comm n = MPI_COMM_NULL;
  const int rc = MPI_Comm_dup(comm(c), &n);
  if (rc == MPI_SUCCESS) *newcomm = PMPI_Comm_c2f(n);
  setErr(ierr, rc);
}
PERWIZ_FORTRAN(perwiz_f_comm_dup, mpi_comm_dup, MPI_COMM_DUP)

extern "C" void perwiz_f_comm_create(F* c, F* group, F* newcomm, F* ierr) {
  MPI_Comm n = MPI_COMM_NULL;
  const int rc = MPI_Comm_create(comm(c), PMPI_Group_f2c(*group), &n);
  if (rc == MPI_SUCCESS) *newcomm = PMPI_Comm_c2f(n);
  setErr(ierr, rc);
}
PERWIZ_FORTRAN(perwiz_f_comm_create, mpi_comm_create, MPI_COMM_CREATE)

extern "C" void perwiz_f_comm_free(F* c, F* ierr) {
  MPI_Comm n = comm(c);
  const int rc = MPI_Comm_free(&n);
  if (rc == MPI_SUCCESS) *c = PMPI_Comm_c2f(n);
  setErr(ierr, rc);
}
PERWIZ_FORTRAN(perwiz_f_comm_free, mpi_comm_free, MPI_COMM_FREE)
