// The tracer's life cycle inside MPI_Init, MPI_Finalize and MPI_Abort.
#pragma once

#include "common/regions.h"

#include <cstdint>

namespace perwiz::trace {

// After PMPI_Init(_thread) succeeded: the rank's state, the trace directory (rank 0 reserves
// it), raw files, clock alignment, the overhead calibration, then the Init call's own Enter
// (at enterTime, taken before PMPI_Init) and Leave records. program: for the default name.
void sessionStart(std::uint64_t enterTime, Region initRegion, const char* program);

// Inside MPI_Finalize, before PMPI_Finalize: the Finalize records, clock alignment, all raw
// files complete, then rank 0 runs the converter.
void sessionFinish();

// Inside MPI_Abort, before PMPI_Abort: flushes this rank and says what the trace will lack.
void sessionAbort(int errorcode);

}  // namespace perwiz::trace
