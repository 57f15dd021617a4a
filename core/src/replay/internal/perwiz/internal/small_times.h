// Durations and offsets in 4 bytes each (internal; the replay program's gaps, local costs and
// dependency offsets, the memory budget of docs/performance.md).
//
// Almost every such value lies within ±1 s: a computation between two MPI calls, a call's own
// cost, a network delay. A value in [-2^30, 2^31) ns is stored as an int32; any other one is
// *wide*: its int32 slot holds INT32_MIN + k and the value is the k-th entry of a side table.
// Reads of direct values cost one load and one compare. Writes may come from several threads
// at once for distinct indices (the builder fills each rank's range on its own thread); wide
// values are then added under a lock, and read under it until seal().
//
// seal() ends the writes and packs the values (about 2 B each instead of 4, the engine's
// budget at 10^8 events): in blocks of 64, an int32 base per block (its smallest value) and
// each value's offset above it in w bits, w (1..32) chosen per block as the width that stores
// it in the fewest bits, a value left out costing 16 B: such a value (its offset needs more
// than w bits) is an escape, its offset the marker 2^w - 1 and its value in a table sorted by
// index. A block of 64 values of w bits is exactly w 64-bit words, so a block's width is the
// difference of two neighbouring blocks' first words. A write after seal() unpacks again.
#pragma once

#include "perwiz/bit_pack.h"
#include "perwiz/trace.h"

#include <algorithm>
#include <bit>
#include <climits>
#include <cstdint>
#include <cstring>
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
    dropPacked();
    values_.assign(n, 0);
    wide_.clear();
    if (v != 0)
      for (std::size_t i = 0; i < n; ++i) set(i, v);
  }
  void resize(std::size_t n) {
    if (sealed_) unpack();
    values_.resize(n, 0);
  }
  std::size_t size() const { return sealed_ ? count_ : values_.size(); }
  bool empty() const { return size() == 0; }
  bool packed() const { return sealed_; }
  // Bytes held (elements only).
  std::size_t bytes() const {
    return values_.capacity() * 4 + wide_.capacity() * 8 + blocks_.capacity() * sizeof(Block) + bits_.capacity() * 8 +
           escapes_.capacity() * sizeof(escapes_[0]);
  }

  TimeNs operator[](std::size_t i) const {
    if (sealed_) [[likely]]
      return packedAt(i);
    const std::int32_t x = values_[i];
    if (x >= kMinDirect) [[likely]]
      return x;
    return wide(static_cast<std::size_t>(static_cast<std::int64_t>(x) - INT32_MIN));
  }

  void set(std::size_t i, TimeNs v) {
    if (sealed_) [[unlikely]]
      unpack();
    if (v >= kMinDirect && v <= kMaxDirect) [[likely]] {
      values_[i] = static_cast<std::int32_t>(v);
      return;
    }
    setWide(i, v);
  }

  // No more writes (until the next one, which unpacks): the values are packed.
  void seal();

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
    std::lock_guard<std::mutex> lock(mutex_);
    return wide_[k];
  }

  static constexpr unsigned kBlockBits = 6;
  static constexpr std::size_t kBlock = std::size_t{1} << kBlockBits;
  struct Block {
    std::int32_t base;   // the block's smallest value (clamped to int32)
    std::uint32_t word;  // its first word in bits_ (the next block's minus this: its width)
  };
  TimeNs packedAt(std::size_t i) const {
    const Block* b = blocks_.data() + (i >> kBlockBits);
    const unsigned w = b[1].word - b[0].word;
    const std::uint64_t bit = std::uint64_t{b[0].word} * 64 + (i & (kBlock - 1)) * w;
    const std::uint64_t x = bitpack::read(bits_.data(), bit, w);
    const std::uint64_t mask = (std::uint64_t{1} << w) - 1;
    if (x != mask) [[likely]]
      return TimeNs{b->base} + static_cast<TimeNs>(x);
    return escapeAt(i);
  }
  [[gnu::noinline]] TimeNs escapeAt(std::size_t i) const {
    const auto it =
        std::lower_bound(escapes_.begin(), escapes_.end(), i,
                         [](const std::pair<std::size_t, TimeNs>& e, std::size_t k) { return e.first < k; });
    return it->second;  // an escape marker always has its entry
  }
  void unpack();
  void dropPacked() {
    sealed_ = false;
    count_ = 0;
    blocks_ = {};
    bits_ = {};
    escapes_ = {};
  }

  // Before seal(): every value, direct or the index of a wide one.
  std::vector<std::int32_t> values_;
  std::vector<TimeNs> wide_;
  mutable std::mutex mutex_;
  // After seal(): packed (blocks_ has one more entry, the end's first word).
  bool sealed_ = false;
  std::size_t count_ = 0;
  std::vector<Block> blocks_;
  std::vector<std::uint64_t> bits_;  // offsets, then one zero word (8-byte reads)
  std::vector<std::pair<std::size_t, TimeNs>> escapes_;
};

}  // namespace perwiz
