// Communicators the rank has used: handle -> the tracer's id, size, the rank's own rank in it.
//
// Ids are per rank; each id's members (as world ranks) go to the definition file when the
// communicator is created (MPI_Comm_split/dup/create/..., wrapped in wrap_comm.cpp), in creation
// order. Creation is collective, so every member defines its communicators in the same order;
// the converter identifies "the k-th communicator with these members" across ranks. A
// communicator made by a call the tracer does not wrap is defined at its first use instead.
#pragma once

#include "common/regions.h"

#include <mpi.h>

#include <cstdint>

namespace perwiz::trace {

struct CommInfo {
  std::uint32_t id = 0;
  std::int32_t size = 0;
  std::int32_t rank = 0;  // this rank's rank in the communicator
  bool inter = false;     // intercommunicator: its records are skipped (not modelled)
};

// Defines MPI_COMM_WORLD (id 0) and MPI_COMM_SELF (id 1). After PMPI_Init.
void commTableStart();
void commTableStop();

// Info for a communicator, defining it on first use; null for MPI_COMM_NULL or on failure.
const CommInfo* commLookup(MPI_Comm comm);
extern CommInfo gWorldComm;
inline const CommInfo* commInfo(MPI_Comm comm) {
  return comm == MPI_COMM_WORLD ? &gWorldComm : commLookup(comm);
}

// A communicator just created by `creator` (no-op for MPI_COMM_NULL).
void commCreated(MPI_Comm comm, Region creator);
// Before MPI_Comm_free: the handle may be reused for another communicator.
void commFreed(MPI_Comm comm);

}  // namespace perwiz::trace
