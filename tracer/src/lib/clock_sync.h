// Clock alignment across ranks.
//
// Every rank writes its host (MPI_Get_processor_name). Ranks on rank 0's host share its clock
// (CLOCK_MONOTONIC is one clock per machine) and need nothing; for every other rank, rank 0
// measures the offset between the two clocks at MPI_Init and again at MPI_Finalize (16
// ping-pongs, the one with the shortest round trip wins: offset = midpoint of rank 0's send and
// receive times - the rank's reply time) and the rank writes "clock init|final <local> <offset>";
// the converter interpolates linearly between the two. PERWIZ_CLOCK_SYNC=always measures every
// rank (e.g. to check the method on one machine), =never none. Under SMPI the simulated clock is
// global: nothing is measured.
#pragma once

namespace perwiz::trace {

// Collective over MPI_COMM_WORLD (inside MPI_Init and MPI_Finalize: nothing of the program's
// can be pending). The host exchange at "init" is recorded as an MPI_Allgather of the tracer's
// start; the ping-pongs are not (they are in the start and finish regions' own time).
// when: "init" or "final".
void syncClocks(const char* when);

}  // namespace perwiz::trace
