// Point-to-point wrappers: blocking sends and receives, Sendrecv, posts of non-blocking calls,
// probes. Record placement follows Score-P (what core's OTF2 reader expects): a send record at
// the call's Enter time, before the PMPI call; a receive record after it, at the Leave time,
// with the source and tag of the status (so wildcards are resolved, also when the caller passed
// MPI_STATUS_IGNORE: the wrapper then passes a status of its own).
#include "call.h"
#include "p2p_records.h"

using namespace perwiz::trace;

namespace {

template <class PmpiSend>
int blockingSend(Region region, PmpiSend pmpi, const void* buf, int count, MPI_Datatype type,
                 int dest, int tag, MPI_Comm comm) {
  Call call(region);
  if (call) recordSend(RecordKind::Send, call.begin(), comm, dest, tag, count, type);
  return pmpi(buf, count, type, dest, tag, comm);
}

template <class PmpiIsend>
int nonBlockingSend(Region region, PmpiIsend pmpi, const void* buf, int count, MPI_Datatype type,
                    int dest, int tag, MPI_Comm comm, MPI_Request* request) {
  Call call(region);
  const int rc = pmpi(buf, count, type, dest, tag, comm, request);
  if (call && rc == MPI_SUCCESS)
    recordIsend(call.begin(), *request, comm, dest, tag, count, type);
  return rc;
}

}  // namespace

extern "C" {

int MPI_Send(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm) {
  return blockingSend(Region::Send, PMPI_Send, buf, count, type, dest, tag, comm);
}

int MPI_Ssend(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm) {
  return blockingSend(Region::Ssend, PMPI_Ssend, buf, count, type, dest, tag, comm);
}

int MPI_Bsend(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm) {
  return blockingSend(Region::Bsend, PMPI_Bsend, buf, count, type, dest, tag, comm);
}

int MPI_Rsend(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm) {
  return blockingSend(Region::Rsend, PMPI_Rsend, buf, count, type, dest, tag, comm);
}

int MPI_Recv(void* buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm,
             MPI_Status* status) {
  Call call(Region::Recv);
  if (!call) return PMPI_Recv(buf, count, type, source, tag, comm, status);
  MPI_Status own;
  MPI_Status* st = status == MPI_STATUS_IGNORE ? &own : status;
  const int rc = PMPI_Recv(buf, count, type, source, tag, comm, st);
  if (rc == MPI_SUCCESS && source != MPI_PROC_NULL) recordReceive(call.endTime(), comm, *st);
  return rc;
}

int MPI_Sendrecv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, int dest,
                 int sendtag, void* recvbuf, int recvcount, MPI_Datatype recvtype, int source,
                 int recvtag, MPI_Comm comm, MPI_Status* status) {
  Call call(Region::Sendrecv);
  if (!call)
    return PMPI_Sendrecv(sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount,
                         recvtype, source, recvtag, comm, status);
  recordSend(RecordKind::Send, call.begin(), comm, dest, sendtag, sendcount, sendtype);
  MPI_Status own;
  MPI_Status* st = status == MPI_STATUS_IGNORE ? &own : status;
  const int rc = PMPI_Sendrecv(sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount,
                               recvtype, source, recvtag, comm, st);
  if (rc == MPI_SUCCESS && source != MPI_PROC_NULL) recordReceive(call.endTime(), comm, *st);
  return rc;
}

int MPI_Sendrecv_replace(void* buf, int count, MPI_Datatype type, int dest, int sendtag,
                         int source, int recvtag, MPI_Comm comm, MPI_Status* status) {
  Call call(Region::Sendrecv_replace);
  if (!call)
    return PMPI_Sendrecv_replace(buf, count, type, dest, sendtag, source, recvtag, comm, status);
  recordSend(RecordKind::Send, call.begin(), comm, dest, sendtag, count, type);
  MPI_Status own;
  MPI_Status* st = status == MPI_STATUS_IGNORE ? &own : status;
  const int rc = PMPI_Sendrecv_replace(buf, count, type, dest, sendtag, source, recvtag, comm, st);
  if (rc == MPI_SUCCESS && source != MPI_PROC_NULL) recordReceive(call.endTime(), comm, *st);
  return rc;
}

int MPI_Isend(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
              MPI_Request* request) {
  return nonBlockingSend(Region::Isend, PMPI_Isend, buf, count, type, dest, tag, comm, request);
}

int MPI_Issend(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
               MPI_Request* request) {
  return nonBlockingSend(Region::Issend, PMPI_Issend, buf, count, type, dest, tag, comm, request);
}

int MPI_Ibsend(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
               MPI_Request* request) {
  return nonBlockingSend(Region::Ibsend, PMPI_Ibsend, buf, count, type, dest, tag, comm, request);
}

int MPI_Irsend(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
               MPI_Request* request) {
  return nonBlockingSend(Region::Irsend, PMPI_Irsend, buf, count, type, dest, tag, comm, request);
}

int MPI_Irecv(void* buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm,
              MPI_Request* request) {
  Call call(Region::Irecv);
  const int rc = PMPI_Irecv(buf, count, type, source, tag, comm, request);
  if (call && rc == MPI_SUCCESS) recordIrecv(call.endTime(), *request, comm, source);
  return rc;
}

int MPI_Probe(int source, int tag, MPI_Comm comm, MPI_Status* status) {
  Call call(Region::Probe);
  return PMPI_Probe(source, tag, comm, status);
}

int MPI_Iprobe(int source, int tag, MPI_Comm comm, int* flag, MPI_Status* status) {
  Call call(Region::Iprobe);
  return PMPI_Iprobe(source, tag, comm, flag, status);
}

}  // extern "C"
