// The rank's raw files and user-defined regions (see state.h for the buffer itself).
#pragma once

#include "common/regions.h"

#include <cstddef>
#include <cstdint>

namespace perwiz::trace {

// Opens DIR/perwiz-raw/rank-<r>.evt and .def and allocates the buffer (`bytes` of it).
// Returns false and prints why on failure.
bool openRawFiles(const char* traceDir, std::size_t bufferBytes);
// Writes what is left and closes both files.
void closeRawFiles();

// Id of the USER region with this name, defined on first use (a definition line; allocates,
// but only once per distinct name). 0 if no id is left.
std::uint16_t userRegion(const char* name);

// The USER regions holding the tracer's own work at MPI_Init and MPI_Finalize, and the MPI
// calls it makes there (docs/tracer.md, "The tracer's start and finish").
inline constexpr const char* kStartRegionName = "perwiz_trace_start";
inline constexpr const char* kFinishRegionName = "perwiz_trace_finish";

// One of the tracer's own collectives on MPI_COMM_WORLD, recorded as a wrapper records the
// program's (Enter, Collective record, Leave), so that a replay prices it like any other.
// root: world rank or -1; sent, received: this member's bytes (wrap_coll.cpp).
void recordOwnCollective(Region region, std::uint64_t enter, std::uint64_t leave, int root,
                         std::uint64_t sent, std::uint64_t received);

// Cost of one recorded event (a clock read and a record write) in ns: the fastest of five
// bursts of 1000 dummy records, which are then discarded. Calibrates what the trace's events
// cost the program; stored in the trace for later compensation.
std::uint64_t measureEventCost();

}  // namespace perwiz::trace
