// The begin array of a CSR (n + 1 non-decreasing offsets: the replay program's dependencies per
// unit, the consumers per item) in about 2 B per entry instead of 4. The replay engine's;
// public (like TimeColumn) so that tests reach it.
//
// Entries come in blocks of 64: one uint32 base per block (its first entry) and a uint16 per
// entry above it. Almost every block spans far fewer than 65,536 offsets (a unit has a few
// dependencies); if one does not, the whole array is kept plain (`wide_`), so a read is always
// one branch that never changes and two loads.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace perwiz {

class CompactOffsets {
 public:
  static constexpr unsigned kBlockBits = 6;
  static constexpr std::size_t kBlock = std::size_t{1} << kBlockBits;

  CompactOffsets() = default;
  explicit CompactOffsets(const std::vector<std::uint32_t>& begin) { assign(begin); }

  std::uint32_t operator[](std::size_t i) const {
    if (wide_.empty()) [[likely]]
      return base_[i >> kBlockBits] + off_[i];
    return wide_[i];
  }
  std::size_t size() const { return wide_.empty() ? off_.size() : wide_.size(); }
  bool empty() const { return size() == 0; }
  std::uint32_t back() const { return (*this)[size() - 1]; }

  // Takes the offsets (non-decreasing).
  void assign(const std::vector<std::uint32_t>& begin) {
    base_.clear();
    off_.clear();
    wide_.clear();
    const std::size_t n = begin.size();
    for (std::size_t b = 0; b < n; b += kBlock) {
      const std::size_t last = b + kBlock < n ? b + kBlock : n;
      if (begin[last - 1] - begin[b] > 0xFFFFu) {  // a block too wide: all plain
        base_.clear();
        off_.clear();
        wide_ = begin;
        return;
      }
    }
    base_.resize((n + kBlock - 1) / kBlock);
    off_.resize(n);
    for (std::size_t i = 0; i < n; ++i) {
      if ((i & (kBlock - 1)) == 0) base_[i >> kBlockBits] = begin[i];
      off_[i] = static_cast<std::uint16_t>(begin[i] - base_[i >> kBlockBits]);
    }
  }
  // The offsets of n lists of count[0], ..., count[n - 1] entries (n + 1 offsets from 0),
  // without a plain array of them (unless a block spans more than 65,535).
  template <class Counts>
  void assignCounts(const Counts& count) {
    base_.clear();
    off_.clear();
    wide_.clear();
    const std::size_t n = count.size() + 1;
    auto offsets = [&](auto&& put) {  // put(i, offset i) for i in [0, n)
      std::uint32_t at = 0;
      for (std::size_t i = 0; i < n; ++i) {
        put(i, at);
        if (i + 1 < n) at += count[i];
      }
    };
    bool tooWide = false;
    std::uint32_t first = 0;
    offsets([&](std::size_t i, std::uint32_t v) {
      if ((i & (kBlock - 1)) == 0) first = v;
      tooWide = tooWide || v - first > 0xFFFFu;
    });
    if (tooWide) {
      wide_.resize(n);
      offsets([&](std::size_t i, std::uint32_t v) { wide_[i] = v; });
      return;
    }
    base_.resize((n + kBlock - 1) / kBlock);
    off_.resize(n);
    offsets([&](std::size_t i, std::uint32_t v) {
      if ((i & (kBlock - 1)) == 0) base_[i >> kBlockBits] = v;
      off_[i] = static_cast<std::uint16_t>(v - base_[i >> kBlockBits]);
    });
  }
  bool wide() const { return !wide_.empty(); }
  std::size_t bytes() const { return base_.capacity() * 4 + off_.capacity() * 2 + wide_.capacity() * 4; }

 private:
  std::vector<std::uint32_t> base_;  // per block: its first offset
  std::vector<std::uint16_t> off_;   // per entry: offset - its block's base
  std::vector<std::uint32_t> wide_;  // all offsets, when a block spans more than 65,535
};

// A uint32 per entry in about 2.1 B, for values close to their neighbours' but in no order:
// the replay program's schedule position of each item (a rank's units follow each other in
// the schedule, a few ranks' worth of positions apart). Entries come in blocks of 32: a
// uint32 base per block (its smallest value) and a uint16 per entry above it; a block that
// spans more than 65,535 keeps its 32 values plain in a side array (its base's top bit set,
// the rest its place there). Filled without a temporary array of the values: first every
// block's range (set(...) called as `range`), then the values (`put`).
class CompactIndex {
 public:
  static constexpr unsigned kBlockBits = 5;
  static constexpr std::size_t kBlock = std::size_t{1} << kBlockBits;
  static constexpr std::uint32_t kWide = 0x80000000u;

  std::uint32_t operator[](std::size_t i) const {
    if (!plain_.empty()) [[unlikely]]
      return plain_[i];
    const std::uint32_t b = base_[i >> kBlockBits];
    if (!(b & kWide)) [[likely]]
      return b + off_[i];
    return wide_[(std::size_t{b & ~kWide} << kBlockBits) + (i & (kBlock - 1))];
  }
  std::size_t size() const { return plain_.empty() ? off_.size() : plain_.size(); }
  bool empty() const { return size() == 0; }

  // Fills n entries: `each(f)` calls f(index, value) once for every entry (in any order); it
  // is called twice. A value of 2^31 or more makes the whole array plain (4 B per entry).
  template <class Each>
  void fill(std::size_t n, const Each& each) {
    const std::size_t blocks = (n + kBlock - 1) / kBlock;
    std::vector<std::uint32_t> lo(blocks, 0xFFFFFFFFu), hi(blocks, 0);
    bool big = false;
    each([&](std::size_t i, std::uint32_t v) {
      lo[i >> kBlockBits] = lo[i >> kBlockBits] < v ? lo[i >> kBlockBits] : v;
      hi[i >> kBlockBits] = hi[i >> kBlockBits] > v ? hi[i >> kBlockBits] : v;
      big = big || v >= kWide;
    });
    base_.clear();
    off_.clear();
    wide_.clear();
    plain_.clear();
    if (big) {
      lo = {};
      hi = {};
      plain_.assign(n, 0);
      each([&](std::size_t i, std::uint32_t v) { plain_[i] = v; });
      return;
    }
    base_.assign(blocks, 0);
    std::size_t wideBlocks = 0;
    for (std::size_t b = 0; b < blocks; ++b)
      base_[b] = lo[b] > hi[b] ? 0 : hi[b] - lo[b] > 0xFFFFu ? kWide | std::uint32_t(wideBlocks++) : lo[b];
    lo = {};
    hi = {};
    off_.assign(n, 0);
    wide_.assign(wideBlocks * kBlock, 0);
    each([&](std::size_t i, std::uint32_t v) {
      const std::uint32_t b = base_[i >> kBlockBits];
      if (!(b & kWide))
        off_[i] = static_cast<std::uint16_t>(v - b);
      else
        wide_[(std::size_t{b & ~kWide} << kBlockBits) + (i & (kBlock - 1))] = v;
    });
  }
  std::size_t wideBlocks() const { return wide_.size() / kBlock; }
  bool plain() const { return !plain_.empty(); }
  std::size_t bytes() const {
    return base_.capacity() * 4 + off_.capacity() * 2 + (wide_.capacity() + plain_.capacity()) * 4;
  }

 private:
  std::vector<std::uint32_t> base_;   // per block: its smallest value, or kWide | its place in wide_
  std::vector<std::uint16_t> off_;    // per entry: value - its block's base
  std::vector<std::uint32_t> wide_;   // the values of the blocks too wide, 32 each
  std::vector<std::uint32_t> plain_;  // every value, when one is 2^31 or more
};

}  // namespace perwiz
