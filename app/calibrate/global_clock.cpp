// Clock offsets to rank 0 (see global_clock.h).
#include "global_clock.h"

#include "pair_bench.h"

#include <cmath>
#include <limits>
#include <vector>

namespace perwiz::calibrate {
namespace {

constexpr int kTagClock = 31;

bool wtimeIsGlobal(MPI_Comm comm) {
  int* value = nullptr;
  int flag = 0;
  MPI_Comm_get_attr(comm, MPI_WTIME_IS_GLOBAL, &value, &flag);
  return flag && value && *value != 0;
}

}  // namespace

GlobalClock::GlobalClock(MPI_Comm comm, int pings) {
  int rank = 0, size = 0;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  // Every rank reads the same attribute of the same communicator; rank 0's answer decides so
  // that all ranks take the same branch.
  int global = wtimeIsGlobal(comm) ? 1 : 0;
  MPI_Bcast(&global, 1, MPI_INT, 0, comm);
  global_ = global != 0;
  if (global_) return;

  // Rank 0 pings each other rank in turn; the others wait for their turn.
  if (rank == 0) {
    std::vector<double> offsets(static_cast<std::size_t>(size), 0.0);
    for (int r = 1; r < size; ++r) {
      double bestRtt = std::numeric_limits<double>::infinity(), best = 0;
      for (int i = 0; i < pings; ++i) {
        double remote = 0;
        const double t0 = MPI_Wtime();
        MPI_Send(nullptr, 0, MPI_BYTE, r, kTagClock, comm);
        MPI_Recv(&remote, 1, MPI_DOUBLE, r, kTagClock, comm, MPI_STATUS_IGNORE);
        const double t1 = MPI_Wtime();
        if (t1 - t0 < bestRtt) {
          bestRtt = t1 - t0;
          best = remote - (t0 + t1) / 2;
        }
      }
      offsets[static_cast<std::size_t>(r)] = best;
      maxAbsOffset_ = std::max(maxAbsOffset_, std::abs(best));
    }
    for (int r = 1; r < size; ++r)
      MPI_Send(&offsets[static_cast<std::size_t>(r)], 1, MPI_DOUBLE, r, kTagClock, comm);
  } else {
    for (int i = 0; i < pings; ++i) {
      MPI_Recv(nullptr, 0, MPI_BYTE, 0, kTagClock, comm, MPI_STATUS_IGNORE);
      const double stamp = MPI_Wtime();
      MPI_Send(&stamp, 1, MPI_DOUBLE, 0, kTagClock, comm);
    }
    MPI_Recv(&offset_, 1, MPI_DOUBLE, 0, kTagClock, comm, MPI_STATUS_IGNORE);
  }
}

bool GlobalClock::waitUntil(double t) const {
  const double start = now();
  if (start > t) return false;
#ifdef PERWIZ_CALIBRATE_SMPI
  // Simulated time only passes in MPI calls and sleeps: spinning on MPI_Wtime would never end.
  sleepSeconds(t - start);
#else
  // Far from t, sleep most of the way: on a machine with more ranks than cores a spinning rank
  // would keep the others (which may still be in the previous report) from running. The last
  // kSpinSeconds are spun, which covers the usual oversleep of nanosleep (tens of µs).
  constexpr double kSpinSeconds = 200e-6;
  if (t - start > 2 * kSpinSeconds) sleepSeconds(t - start - kSpinSeconds);
  while (now() < t) {
  }
#endif
  return true;
}

}  // namespace perwiz::calibrate
