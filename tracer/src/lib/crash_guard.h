// What happens to the records of a run that does not reach MPI_Finalize.
//
// A rank killed by a signal (mpirun sends SIGTERM to the other ranks when one calls MPI_Abort;
// SIGINT, SIGSEGV, ...) writes its buffer to its raw file in the signal handler (write(2) is
// async-signal-safe and records are published only when complete), notes the signal in its
// definition file and then dies the way it would have. A process that exits without
// MPI_Finalize does the same from an atexit handler. SIGKILL cannot be caught: such a rank loses
// the records since its last buffer flush, which the converter reports.
//
// Not under SMPI: all ranks share one process there, and a signal ends the whole simulation.
#pragma once

namespace perwiz::trace {

void installCrashGuard();
void removeCrashGuard();

}  // namespace perwiz::trace
