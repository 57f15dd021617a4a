// Durations and offsets in 4 bytes each (internal; the replay program's gaps, local costs and
// dependency offsets, the memory budget of docs/performance.md).
//
// Almost every such value lies within ±1 s: a computation between two MPI calls, a call's own
// cost, a network delay. A value in [-2^30, 2^31) ns is stored as an int32; any other one is
// *wide*: its int32 slot holds INT32_MIN + k and the value is the k-th entry of a side table.
// Reads of direct values cost one load and one compare. Writes may come from several threads
// at once for distinct indices (the builder fills each rank's range on its own thread); wide
// values are then added under a lock, and read under it until seal(), after which the table no
// longer changes and is read without one.
#pragma once

#include "perwiz/trace.h"

#include <climits>
#include <cstdint>
#include <mutex>
#include <stdexcept>
#include <vector>

namespace perwiz {

class SmallTimes {
 public:
  static constexpr std::int64_t kMinDirect = -(std::int64_t{1} << 30);
  static constexpr std::int64_t kMaxDirect = INT32_MAX;

  SmallTimes() = default;
  SmallTimes(const SmallTimes&) = delete;
  SmallTimes& operator=(const SmallTimes&) = delete;

  void assign(std::size_t n, TimeNs v) {
    values_.assign(n, 0);
    wide_.clear();
    sealed_ = false;
    if (v != 0)
      for (std::size_t i = 0; i < n; ++i) set(i, v);
  }
  void resize(std::size_t n) { values_.resize(n, 0); }
  std::size_t size() const { return values_.size(); }
  bool empty() const { return values_.empty(); }
  std::size_t wideCount() const { return wide_.size(); }

  TimeNs operator[](std::size_t i) const {
    const std::int32_t x = values_[i];
    if (x >= kMinDirect) [[likely]]
      return x;
    return wide(static_cast<std::size_t>(static_cast<std::int64_t>(x) - INT32_MIN));
  }

  void set(std::size_t i, TimeNs v) {
    if (v >= kMinDirect && v <= kMaxDirect) [[likely]] {
      values_[i] = static_cast<std::int32_t>(v);
      return;
    }
    setWide(i, v);
  }

  // No more writes: reads of wide values need no lock from now on.
  void seal() {
    wide_.shrink_to_fit();
    sealed_ = true;
  }

  std::vector<TimeNs> toVector() const {
    std::vector<TimeNs> out(size());
    for (std::size_t i = 0; i < out.size(); ++i) out[i] = (*this)[i];
    return out;
  }

 private:
  [[gnu::noinline]] void setWide(std::size_t i, TimeNs v) {
    std::lock_guard<std::mutex> lock(mutex_);
    const std::int32_t x = values_[i];
    if (x < kMinDirect) {  // already wide: its entry takes the new value
      wide_[static_cast<std::size_t>(static_cast<std::int64_t>(x) - INT32_MIN)] = v;
      return;
    }
    if (wide_.size() >= (std::size_t{1} << 30))
      throw std::length_error("more than 2^30 durations beyond 1 s in one replay program");
    values_[i] = static_cast<std::int32_t>(INT32_MIN + static_cast<std::int64_t>(wide_.size()));
    wide_.push_back(v);
  }

  [[gnu::noinline]] TimeNs wide(std::size_t k) const {
    if (sealed_) return wide_[k];
    std::lock_guard<std::mutex> lock(mutex_);
    return wide_[k];
  }

  std::vector<std::int32_t> values_;
  std::vector<TimeNs> wide_;
  mutable std::mutex mutex_;
  bool sealed_ = false;
};

}  // namespace perwiz
