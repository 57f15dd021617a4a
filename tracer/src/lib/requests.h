// Non-blocking requests the tracer follows from their post (Isend, Irecv, ...) to the call that
// completes them (Wait*, Test*), where the completion record is written:
// MpiIsendComplete(id) for a send, MpiIrecv(source, tag, bytes, id) for a receive (the status
// tells source, tag and size only then), or Cancelled(id) when the request was cancelled.
// Requests the tracer did not post (persistent, to/from MPI_PROC_NULL, before MPI_Init) are
// simply not found and complete without a record.
//
// One handle value may stand for several pending requests: Open MPI 4.1 returns the shared
// &ompi_request_empty for a small MPI_Isend it completed at once, so a rank can hold several
// "outstanding" Isends with the same handle. Each handle therefore keeps a FIFO of requests,
// and every completion of that handle takes the oldest.
#pragma once

#include "handle_map.h"
#include "state.h"

#include <mpi.h>

#include <cstdint>

namespace perwiz::trace {

enum class RequestKind : std::uint8_t { Isend = 1, Irecv = 2 };

struct RequestInfo {
  std::uint64_t id;
  std::uint32_t comm;
  RequestKind kind;
  bool cancelRequested;  // MPI_Cancel was called: check the status for a cancellation
  bool singleRank;       // one-rank communicator: the source is 0 whatever the status says
};

// Any request followed at all (the completion wrappers skip their bookkeeping otherwise).
bool requestsOutstanding();

// A new request; returns its id (0 if it could not be tracked: memory exhausted).
std::uint64_t trackRequest(MPI_Request request, RequestKind kind, std::uint32_t comm,
                           bool singleRank);

// The oldest request with this handle, or null.
RequestInfo* findRequest(std::uint64_t key);

// The oldest request with this key completed with `status`: writes its completion record at
// `time` and forgets it. No-op for handles not followed.
void requestCompleted(std::uint64_t key, const MPI_Status& status, std::uint64_t time);

// Forgets the oldest request with this key (MPI_Request_free); false if there is none.
bool takeRequest(std::uint64_t key, RequestInfo& info);

// Scratch space for calls on request arrays, grown (rarely) to the largest array seen; null
// if memory is exhausted.
std::uint64_t* scratchKeys(int count);
MPI_Status* scratchStatuses(int count);

// Bytes of a message described by a status (0 if unknown).
std::uint64_t receivedBytes(const MPI_Status& status);

}  // namespace perwiz::trace
