// The nearest drawn enclosing event of every event of a rank (RankShape::parent) in about 1 B
// per event instead of 4.
//
// Events come in blocks of 256. A block's events have few distinct parents (the region around
// a burst of MPI calls, `main`): each block keeps a small table of them and each event a 1-byte
// index into it. An event of a block with more than 254 distinct parents (a nesting chain) is
// *far*: its byte is the marker 255 and its parent sits in a side table sorted by index. The
// last, incomplete block is kept as plain values, so appending never re-encodes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace perwiz::ui {

class ParentColumn {
 public:
  static constexpr unsigned kBlockBits = 8;
  static constexpr std::size_t kBlock = std::size_t{1} << kBlockBits;

  std::uint32_t operator[](std::size_t i) const {
    if (i >= code_.size()) return pending_[i - code_.size()];
    const std::uint8_t c = code_[i];
    if (c != kFar) [[likely]]
      return table_[first_[i >> kBlockBits] + c];
    return far(i);
  }
  std::size_t size() const { return code_.size() + pending_.size(); }
  void push_back(std::uint32_t parent) {
    pending_.push_back(parent);
    if (pending_.size() == kBlock) sealBlock();
  }
  void reserve(std::size_t n) {
    code_.reserve(n);
    first_.reserve(n / kBlock + 1);
  }
  // Bytes held (capacity).
  std::size_t bytes() const {
    return code_.capacity() + (first_.capacity() + table_.capacity() + pending_.capacity()) * 4 +
           far_.capacity() * sizeof(far_[0]);
  }
  std::size_t farCount() const { return far_.size(); }

 private:
  static constexpr std::uint8_t kFar = 255;
  std::uint32_t far(std::size_t i) const;
  void sealBlock();

  std::vector<std::uint8_t> code_;                            // per sealed event
  std::vector<std::uint32_t> first_;                          // per sealed block: its table's start
  std::vector<std::uint32_t> table_;                          // the blocks' distinct parents
  std::vector<std::pair<std::uint32_t, std::uint32_t>> far_;  // (event, parent), by event
  std::vector<std::uint32_t> pending_;                        // the incomplete last block
};

}  // namespace perwiz::ui
