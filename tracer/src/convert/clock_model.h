// A rank's clock aligned to rank 0's: local + offset(local), the offset interpolated linearly
// between the measurements at MPI_Init and MPI_Finalize and held constant outside them (with
// one measurement: constant; with none: 0, the rank shares rank 0's clock).
#pragma once

#include "raw_reader.h"

#include <cstdint>
#include <vector>

namespace perwiz::trace {

class ClockModel {
 public:
  explicit ClockModel(const std::vector<ClockPoint>& points) : points_(points) {}

  std::int64_t offset(std::uint64_t local) const {
    if (points_.empty()) return 0;
    const ClockPoint& a = points_.front();
    const ClockPoint& b = points_.back();
    if (points_.size() == 1 || local <= a.local || b.local <= a.local) return a.offset;
    if (local >= b.local) return b.offset;
    const __int128 span = static_cast<__int128>(b.local - a.local);
    const __int128 delta = static_cast<__int128>(b.offset) - a.offset;
    return a.offset + static_cast<std::int64_t>(delta * static_cast<__int128>(local - a.local) / span);
  }

  std::int64_t aligned(std::uint64_t local) const {
    return static_cast<std::int64_t>(local) + offset(local);
  }

 private:
  std::vector<ClockPoint> points_;
};

}  // namespace perwiz::trace
