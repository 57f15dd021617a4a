// Classification of MPI functions by name.
//
// Traces name MPI calls in many spellings: OTF2/Score-P "MPI_Send", MPE's automatic logging
// "SEND", wrappergen "MPI_Send", truncated CLOG names "SENDRECV_REPLAC", user states "Send".
// Everything downstream (matching, replay) needs to know what kind of call an event is, so the
// readers map every name to an MpiOp once, here.
#pragma once

#include <cstdint>
#include <string_view>

namespace perwiz {

enum class MpiOp : std::uint8_t {
  None = 0,  // not an MPI call (user state, point event)
  // point-to-point, blocking
  Send, Bsend, Ssend, Rsend, Recv, Sendrecv, SendrecvReplace,
  // point-to-point, non-blocking start
  Isend, Ibsend, Issend, Irsend, Irecv, Start, Startall,
  // completion
  Wait, Waitall, Waitany, Waitsome, Test, Testall, Testany, Testsome,
  Probe, Iprobe,
  // collectives (values mirror the OTF2_CollectiveOp set we use)
  Barrier, Bcast, Gather, Gatherv, Scatter, Scatterv, Allgather, Allgatherv, Alltoall,
  Alltoallv, Alltoallw, Allreduce, Reduce, ReduceScatter, ReduceScatterBlock, Scan, Exscan,
  // management
  Init, InitThread, Finalize,
  OtherMpi,  // any other MPI_ function (Comm_rank, Wtime, ...)
};

// What a call does with messages, for matching and (later) replay.
enum class CallClass : std::uint8_t {
  None,        // not MPI
  Send,        // blocking send family
  Recv,        // blocking receive
  SendRecv,    // Sendrecv(_replace)
  Isend,       // non-blocking send start
  Irecv,       // non-blocking receive start
  Completion,  // Wait*/Test*: completes requests
  Collective,
  Other,
};

// Maps a function/state name to an MpiOp. Accepts "MPI_Send", "PMPI_Send", "SEND", "Send",
// "mpi_send" and prefixes of names truncated by CLOG (at least 14 characters). Returns
// MpiOp::None for names that are not MPI functions and OtherMpi for unknown "MPI_" names.
MpiOp classifyMpiName(std::string_view name);

// True for names with the MPI profiling interface's prefix, "MPI_" or "PMPI_" (any case):
// names that are MPI calls whatever the tracer's other metadata says.
bool hasMpiPrefix(std::string_view name);

CallClass callClass(MpiOp op);
bool isCollective(MpiOp op);
bool isPointToPoint(MpiOp op);

// Canonical name, e.g. "MPI_Send"; "" for None, "MPI_?" for OtherMpi.
std::string_view mpiOpName(MpiOp op);

// OTF2_CollectiveOp <-> MpiOp (numbers are the OTF2 3.0 enum values). Returns MpiOp::None /
// -1 when there is no counterpart.
MpiOp mpiOpFromOtf2Collective(int otf2Op);
int otf2CollectiveFromMpiOp(MpiOp op);

}  // namespace perwiz
