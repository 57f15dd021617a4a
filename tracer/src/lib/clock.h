// The tracer's clock, in nanoseconds.
//
// Open MPI: CLOCK_MONOTONIC, read through the vDSO (about 20 ns). It is one clock per machine,
// so ranks on one host need no alignment; ranks on other hosts are aligned to rank 0 by the
// converter from offsets measured at MPI_Init and MPI_Finalize (clock_sync.cpp).
// SMPI: MPI_Wtime, the simulated clock every rank shares (PMPI_ so that a tool wrapping
// MPI_Wtime does not see the tracer's reads). Each read injects smpi/wtime of simulated time
// (SimGrid's default 10 ns); the calibration at MPI_Init measures exactly that.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <ctime>

namespace perwiz::trace {

inline std::uint64_t now() {
#ifdef PERWIZ_TRACE_SMPI
  const double seconds = PMPI_Wtime();
  return seconds <= 0 ? 0 : static_cast<std::uint64_t>(seconds * 1e9 + 0.5);
#else
  timespec ts;
  ::clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<std::uint64_t>(ts.tv_sec) * 1000000000ull +
         static_cast<std::uint64_t>(ts.tv_nsec);
#endif
}

}  // namespace perwiz::trace
