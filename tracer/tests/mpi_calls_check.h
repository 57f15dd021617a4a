// What a trace of programs/mpi_calls.c must hold, derived from the program (P ranks, N steps),
// and the checks the Open MPI, LD_PRELOAD, SMPI and ALOG tests share.
#pragma once

#include "perwiz/trace.h"

#include <map>
#include <string>

namespace perwiz::tracer_test {

struct CallsRun {
  int ranks = 4;
  int steps = 3;
  bool cancel = true;  // the program ran MPI_Cancel (not under SMPI)
  bool hostExchange = true;  // the tracer's start exchanged host names (MPI_Allgather; not under SMPI)
  std::map<std::pair<int, std::string>, int> loopCounts;  // the program's "count" lines
};

// Expected number of calls of each MPI function on `rank` (absent: none).
std::map<std::string, int> expectedCalls(const CallsRun& run, int rank);

// Whether MPI call `event` of `rank` is the tracer's own: inside its USER region
// perwiz_trace_start or perwiz_trace_finish.
bool tracerOwnCall(const Trace& trace, std::uint32_t rank, std::uint32_t event);

// Counts of every call on every rank, PRGN steps, all messages matched and their partners
// (wildcards resolved, MPI_PROC_NULL and the cancelled receive leaving no message), the
// recorded overhead. withComms: the trace keeps communicators and collective records (OTF2), so
// sub-communicator partners, MPI_COMM_SELF and collective roots/sizes are checked too.
void checkCallsTrace(const Trace& trace, const CallsRun& run, bool withComms);

}  // namespace perwiz::tracer_test
