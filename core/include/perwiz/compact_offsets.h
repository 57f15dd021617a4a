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
  bool wide() const { return !wide_.empty(); }
  std::size_t bytes() const { return base_.capacity() * 4 + off_.capacity() * 2 + wide_.capacity() * 4; }

 private:
  std::vector<std::uint32_t> base_;  // per block: its first offset
  std::vector<std::uint16_t> off_;   // per entry: offset - its block's base
  std::vector<std::uint32_t> wide_;  // all offsets, when a block spans more than 65,535
};

}  // namespace perwiz
