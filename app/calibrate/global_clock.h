// One time base for all ranks: rank 0's MPI_Wtime. The profile mode starts every repetition at
// the same instant on all ranks (aligned_rounds.h), which needs the ranks to agree on "now".
// Compiled with mpicxx and with smpicxx (where MPI_Wtime is the simulated, global clock).
#pragma once

#include <mpi.h>

namespace perwiz::calibrate {

class GlobalClock {
 public:
  // Collective over `comm`, whose rank 0 is the reference. If MPI says MPI_Wtime is global
  // (MPI_WTIME_IS_GLOBAL: SMPI, some clusters) the offsets are 0; otherwise each rank's offset
  // to rank 0 is estimated from `pings` ping-pongs (Cristian's method: rank 0 stamps the send
  // and the return of a ping, the other rank stamps its reply; the round with the shortest
  // round trip gives offset = reply stamp − midpoint, accurate to half that round trip's
  // asymmetry).
  explicit GlobalClock(MPI_Comm comm, int pings = 16);

  // Rank 0's clock, read on this rank (seconds).
  double now() const { return MPI_Wtime() - offset_; }
  // Returns once now() ≥ t, without calling MPI (nothing progresses meanwhile). False if the
  // rank arrived after t. Under SMPI the rank sleeps in simulated time; under a real MPI it
  // spins on the clock (a sleep would overshoot by tens of µs and let caches go cold).
  bool waitUntil(double t) const;

  bool isGlobal() const { return global_; }
  double offset() const { return offset_; }
  // The largest |offset| over the ranks (seconds), known on rank 0.
  double maxAbsOffset() const { return maxAbsOffset_; }

 private:
  bool global_ = false;
  double offset_ = 0;
  double maxAbsOffset_ = 0;
};

}  // namespace perwiz::calibrate
