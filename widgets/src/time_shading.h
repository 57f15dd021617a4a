// Time spans marked on each rank (communication overhead from the statistical detection, or any
// other per-call time a view wants to show), indexed so that a frame asks "how much of this pixel
// column is marked?" in O(columns · log(spans per column)), not O(spans).
//
// Per rank the spans are sorted, merged where they overlap (nested calls) and stored with a
// prefix sum of their lengths: the marked time before t is C(t) = cum[k] + clamp(t − begin[k])
// for the first span k that ends after t, and a column [t0, t1) holds C(t1) − C(t0).
#pragma once

#include "perwiz/trace.h"

#include <cstdint>
#include <utility>
#include <vector>

namespace perwiz::ui {

class TimeShading {
 public:
  // spans[rank] = [begin, end) pairs in any order; empty or reversed pairs are dropped.
  explicit TimeShading(const std::vector<std::vector<std::pair<TimeNs, TimeNs>>>& spans);

  std::uint32_t rankCount() const { return std::uint32_t(ranks_.size()); }
  TimeNs total() const { return total_; }  // marked time of all ranks (after merging)
  TimeNs rankTotal(std::uint32_t rank) const;
  // Marked time of `rank` in [0, t).
  TimeNs markedBefore(std::uint32_t rank, TimeNs t) const;
  // out[c] = fraction (0..1) of column c, [begin + c·nsPerPx, begin + (c+1)·nsPerPx), that is
  // marked, for c in [0, columns). Returns false (out untouched) when nothing is in view.
  bool columnFractions(std::uint32_t rank, TimeNs begin, double nsPerPx, int columns, float* out) const;

 private:
  struct Rank {
    std::vector<TimeNs> begin, end, cum;  // cum[k] = marked time of spans before k
  };
  // C(t) with the search for k starting at `hint` (columns ask in increasing t).
  TimeNs before(const Rank& r, TimeNs t, std::size_t& hint) const;
  std::vector<Rank> ranks_;
  TimeNs total_ = 0;
};

}  // namespace perwiz::ui
