// Message records shared by the point-to-point wrappers (C and Fortran).
#pragma once

#include "comm_table.h"
#include "requests.h"
#include "state.h"

#include <mpi.h>

namespace perwiz::trace {

inline std::uint64_t bytesOf(int count, MPI_Datatype type) {
  if (count <= 0 || type == MPI_DATATYPE_NULL) return 0;
  int size = 0;
  PMPI_Type_size(type, &size);
  return static_cast<std::uint64_t>(count) * static_cast<std::uint64_t>(size > 0 ? size : 0);
}

// The comm-local source of a completed receive. In a one-rank communicator it can only be 0:
// SimGrid 3.32 reports another number there (on MPI_COMM_SELF, the rank's process id).
inline std::int32_t sourceIn(const CommInfo& c, const MPI_Status& status) {
  return c.size == 1 ? 0 : status.MPI_SOURCE;
}

// A send (blocking, or the post of a non-blocking one) to `peer` in `comm`.
inline void recordSend(RecordKind kind, std::uint64_t time, MPI_Comm comm, int peer, int tag,
                       int count, MPI_Datatype type, std::uint64_t request = 0) {
  if (peer == MPI_PROC_NULL) return;
  const CommInfo* c = commInfo(comm);
  if (!c || c->inter) return;
  append(kind, time, 0, c->id, peer, tag, bytesOf(count, type), request);
}

// A completed blocking receive, from its status (wildcards already resolved there).
inline void recordReceive(std::uint64_t time, MPI_Comm comm, const MPI_Status& status) {
  if (status.MPI_SOURCE == MPI_PROC_NULL || status.MPI_SOURCE < 0) return;
  const CommInfo* c = commInfo(comm);
  if (!c || c->inter) return;
  append(RecordKind::Recv, time, 0, c->id, sourceIn(*c, status), status.MPI_TAG,
         receivedBytes(status));
}

// After a successful PMPI_Isend & co: tracks the request and records the post at `time`.
inline void recordIsend(std::uint64_t time, MPI_Request request, MPI_Comm comm, int peer,
                        int tag, int count, MPI_Datatype type) {
  if (peer == MPI_PROC_NULL) return;
  const CommInfo* c = commInfo(comm);
  if (!c || c->inter) return;
  const std::uint64_t id = trackRequest(request, RequestKind::Isend, c->id, c->size == 1);
  if (id != 0) append(RecordKind::Isend, time, 0, c->id, peer, tag, bytesOf(count, type), id);
}

inline void recordIrecv(std::uint64_t time, MPI_Request request, MPI_Comm comm, int source) {
  if (source == MPI_PROC_NULL) return;
  const CommInfo* c = commInfo(comm);
  if (!c || c->inter) return;
  const std::uint64_t id = trackRequest(request, RequestKind::Irecv, c->id, c->size == 1);
  if (id != 0) append(RecordKind::IrecvRequest, time, 0, c->id, 0, 0, 0, id);
}

}  // namespace perwiz::trace
