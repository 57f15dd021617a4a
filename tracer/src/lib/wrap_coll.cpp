// Collective wrappers. Each writes one Collective record (core's MpiCollectiveEnd) after the
// PMPI call: operation (the call's region), communicator, root (comm-local, -1 for none) and
// the bytes of this member's significant send and receive buffers:
//
//   Barrier                  0 / 0
//   Bcast                    root b / 0, others 0 / b              b = count * type size
//   Reduce                   b / root b, others 0
//   Allreduce, Scan, Exscan  b / b
//   Gather(v)                own part / root: all parts, others 0
//   Scatter(v)               root: all parts, others 0 / own part
//   Allgather(v)             own part / all parts
//   Alltoall(v)              all parts sent / all parts received
//   Reduce_scatter           sum of recvcounts * size / own recvcount * size
//
// (MPI_IN_PLACE: the part the member contributes from its receive buffer counts as sent.) The
// model takes the larger of the two as the collective's message size (docs/model.md §3). Only
// arguments MPI calls significant are read: a non-root's receive type in Gather may be anything.
#include "call.h"
#include "p2p_records.h"

using namespace perwiz::trace;

namespace {

std::uint64_t typeSize(MPI_Datatype type) { return bytesOf(1, type); }

std::uint64_t sum(const int counts[], int n) {
  std::uint64_t s = 0;
  for (int i = 0; i < n; ++i) s += counts[i] > 0 ? static_cast<std::uint64_t>(counts[i]) : 0;
  return s;
}

void recordCollective(Call& call, Region region, const CommInfo* c, int root,
                      std::uint64_t sent, std::uint64_t received) {
  append(RecordKind::Collective, call.endTime(), regionId(region), c->id, root, 0, sent, received);
}

// Info for a collective's communicator if the call is recorded (intracommunicators only).
const CommInfo* collectiveComm(const Call& call, MPI_Comm comm) {
  if (!call) return nullptr;
  const CommInfo* c = commInfo(comm);
  return c && !c->inter ? c : nullptr;
}

}  // namespace

extern "C" {

int MPI_Barrier(MPI_Comm comm) {
  Call call(Region::Barrier);
  const int rc = PMPI_Barrier(comm);
  if (const CommInfo* c = collectiveComm(call, comm)) recordCollective(call, Region::Barrier, c, -1, 0, 0);
  return rc;
}

int MPI_Bcast(void* buf, int count, MPI_Datatype type, int root, MPI_Comm comm) {
  Call call(Region::Bcast);
  const int rc = PMPI_Bcast(buf, count, type, root, comm);
  if (const CommInfo* c = collectiveComm(call, comm)) {
    const std::uint64_t b = bytesOf(count, type);
    const bool isRoot = c->rank == root;
    recordCollective(call, Region::Bcast, c, root, isRoot ? b : 0, isRoot ? 0 : b);
  }
  return rc;
}

int MPI_Reduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op,
               int root, MPI_Comm comm) {
  Call call(Region::Reduce);
  const int rc = PMPI_Reduce(sendbuf, recvbuf, count, type, op, root, comm);
  if (const CommInfo* c = collectiveComm(call, comm)) {
    const std::uint64_t b = bytesOf(count, type);
    recordCollective(call, Region::Reduce, c, root, b, c->rank == root ? b : 0);
  }
  return rc;
}

int MPI_Allreduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op,
                  MPI_Comm comm) {
  Call call(Region::Allreduce);
  const int rc = PMPI_Allreduce(sendbuf, recvbuf, count, type, op, comm);
  if (const CommInfo* c = collectiveComm(call, comm)) {
    const std::uint64_t b = bytesOf(count, type);
    recordCollective(call, Region::Allreduce, c, -1, b, b);
  }
  return rc;
}

int MPI_Scan(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op,
             MPI_Comm comm) {
  Call call(Region::Scan);
  const int rc = PMPI_Scan(sendbuf, recvbuf, count, type, op, comm);
  if (const CommInfo* c = collectiveComm(call, comm)) {
    const std::uint64_t b = bytesOf(count, type);
    recordCollective(call, Region::Scan, c, -1, b, b);
  }
  return rc;
}

int MPI_Exscan(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op,
               MPI_Comm comm) {
  Call call(Region::Exscan);
  const int rc = PMPI_Exscan(sendbuf, recvbuf, count, type, op, comm);
  if (const CommInfo* c = collectiveComm(call, comm)) {
    const std::uint64_t b = bytesOf(count, type);
    recordCollective(call, Region::Exscan, c, -1, b, b);
  }
  return rc;
}

int MPI_Gather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
               int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm) {
  Call call(Region::Gather);
  const int rc =
      PMPI_Gather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm);
  if (const CommInfo* c = collectiveComm(call, comm)) {
    const bool isRoot = c->rank == root;
    const std::uint64_t part = isRoot ? bytesOf(recvcount, recvtype) : 0;
    const std::uint64_t sent = isRoot && sendbuf == MPI_IN_PLACE ? part : bytesOf(sendcount, sendtype);
    recordCollective(call, Region::Gather, c, root, sent, part * static_cast<std::uint64_t>(c->size));
  }
  return rc;
}

int MPI_Gatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
                MPI_Comm comm) {
  Call call(Region::Gatherv);
  const int rc = PMPI_Gatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs,
                              recvtype, root, comm);
  if (const CommInfo* c = collectiveComm(call, comm)) {
    const bool isRoot = c->rank == root;
    const std::uint64_t received = isRoot ? sum(recvcounts, c->size) * typeSize(recvtype) : 0;
    const std::uint64_t sent = isRoot && sendbuf == MPI_IN_PLACE
                                   ? bytesOf(recvcounts[c->rank], recvtype)
                                   : bytesOf(sendcount, sendtype);
    recordCollective(call, Region::Gatherv, c, root, sent, received);
  }
  return rc;
}

int MPI_Scatter(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm) {
  Call call(Region::Scatter);
  const int rc =
      PMPI_Scatter(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm);
  if (const CommInfo* c = collectiveComm(call, comm)) {
    const bool isRoot = c->rank == root;
    const std::uint64_t part = isRoot ? bytesOf(sendcount, sendtype) : 0;
    const std::uint64_t received =
        isRoot && recvbuf == MPI_IN_PLACE ? part : bytesOf(recvcount, recvtype);
    recordCollective(call, Region::Scatter, c, root, part * static_cast<std::uint64_t>(c->size),
                     received);
  }
  return rc;
}

int MPI_Scatterv(const void* sendbuf, const int sendcounts[], const int displs[],
                 MPI_Datatype sendtype, void* recvbuf, int recvcount, MPI_Datatype recvtype,
                 int root, MPI_Comm comm) {
  Call call(Region::Scatterv);
  const int rc = PMPI_Scatterv(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount,
                               recvtype, root, comm);
  if (const CommInfo* c = collectiveComm(call, comm)) {
    const bool isRoot = c->rank == root;
    const std::uint64_t sent = isRoot ? sum(sendcounts, c->size) * typeSize(sendtype) : 0;
    const std::uint64_t received = isRoot && recvbuf == MPI_IN_PLACE
                                       ? bytesOf(sendcounts[c->rank], sendtype)
                                       : bytesOf(recvcount, recvtype);
    recordCollective(call, Region::Scatterv, c, root, sent, received);
  }
  return rc;
}

int MPI_Allgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                  int recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  Call call(Region::Allgather);
  const int rc =
      PMPI_Allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
  if (const CommInfo* c = collectiveComm(call, comm)) {
    const std::uint64_t part = bytesOf(recvcount, recvtype);
    const std::uint64_t sent = sendbuf == MPI_IN_PLACE ? part : bytesOf(sendcount, sendtype);
    recordCollective(call, Region::Allgather, c, -1, sent, part * static_cast<std::uint64_t>(c->size));
  }
  return rc;
}

int MPI_Allgatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                   const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                   MPI_Comm comm) {
  Call call(Region::Allgatherv);
  const int rc = PMPI_Allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs,
                                 recvtype, comm);
  if (const CommInfo* c = collectiveComm(call, comm)) {
    const std::uint64_t sent = sendbuf == MPI_IN_PLACE ? bytesOf(recvcounts[c->rank], recvtype)
                                                       : bytesOf(sendcount, sendtype);
    recordCollective(call, Region::Allgatherv, c, -1, sent,
                     sum(recvcounts, c->size) * typeSize(recvtype));
  }
  return rc;
}

int MPI_Alltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                 int recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  Call call(Region::Alltoall);
  const int rc =
      PMPI_Alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
  if (const CommInfo* c = collectiveComm(call, comm)) {
    const auto n = static_cast<std::uint64_t>(c->size);
    const std::uint64_t received = n * bytesOf(recvcount, recvtype);
    const std::uint64_t sent = sendbuf == MPI_IN_PLACE ? received : n * bytesOf(sendcount, sendtype);
    recordCollective(call, Region::Alltoall, c, -1, sent, received);
  }
  return rc;
}

int MPI_Alltoallv(const void* sendbuf, const int sendcounts[], const int sdispls[],
                  MPI_Datatype sendtype, void* recvbuf, const int recvcounts[],
                  const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm) {
  Call call(Region::Alltoallv);
  const int rc = PMPI_Alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts,
                                rdispls, recvtype, comm);
  if (const CommInfo* c = collectiveComm(call, comm)) {
    const std::uint64_t received = sum(recvcounts, c->size) * typeSize(recvtype);
    const std::uint64_t sent =
        sendbuf == MPI_IN_PLACE ? received : sum(sendcounts, c->size) * typeSize(sendtype);
    recordCollective(call, Region::Alltoallv, c, -1, sent, received);
  }
  return rc;
}

int MPI_Reduce_scatter(const void* sendbuf, void* recvbuf, const int recvcounts[],
                       MPI_Datatype type, MPI_Op op, MPI_Comm comm) {
  Call call(Region::Reduce_scatter);
  const int rc = PMPI_Reduce_scatter(sendbuf, recvbuf, recvcounts, type, op, comm);
  if (const CommInfo* c = collectiveComm(call, comm)) {
    const std::uint64_t size = typeSize(type);
    recordCollective(call, Region::Reduce_scatter, c, -1, sum(recvcounts, c->size) * size,
                     bytesOf(recvcounts[c->rank], type));
  }
  return rc;
}

}  // extern "C"
