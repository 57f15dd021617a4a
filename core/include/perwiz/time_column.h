// A column of int64 nanosecond times stored in about 3 B per value (the model's 32 B/event
// budget).
//
// Values are kept in blocks of 256: one int64 base per block (the block's smallest value), a
// bit width w (1..32) chosen per block, and the offset of each value above the base packed in
// w bits. A block's width is the one that stores it in the fewest bytes, counting 16 B for
// every value it leaves out: such a value (its offset needs more than w bits, or it was set
// below the base after the block was sealed) is an *escape*: its offset is the marker
// 2^w - 1 and the value sits in a side table sorted by index. Enter times of a rank are sorted
// and close together (a block of 256 enters spanning 8 ms takes 23 bits each); leave times of
// long outer states (main, a region spanning the run) are the usual escapes — a few per rank.
// The last, incomplete block is kept as plain values until it fills, so appending never
// re-encodes.
//
// The interface is the read side of std::vector<TimeNs> (size, operator[], iteration,
// front/back) plus push_back, set() and the bulk operations the builder needs; operator[]
// returns by value. Self-contained (no pointers into other columns), so RankTrace stays
// copyable and movable.
#pragma once

#include "perwiz/bit_pack.h"
#include "perwiz/index_iterator.h"

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <iterator>
#include <type_traits>
#include <utility>
#include <vector>

namespace perwiz {

class TimeColumn {
 public:
  using TimeNs = std::int64_t;
  using value_type = TimeNs;
  using size_type = std::size_t;
  static constexpr unsigned kBlockBits = 8;
  static constexpr std::size_t kBlock = std::size_t{1} << kBlockBits;
  static constexpr unsigned kMaxWidth = 32;  // bits per offset at most
  static_assert(std::endian::native == std::endian::little, "TimeColumn reads packed offsets little-endian");

  TimeColumn() = default;
  TimeColumn(std::initializer_list<TimeNs> values) { assign(values.begin(), values.end()); }
  explicit TimeColumn(const std::vector<TimeNs>& values) { assign(values.begin(), values.end()); }
  TimeColumn& operator=(std::initializer_list<TimeNs> values) {
    assign(values.begin(), values.end());
    return *this;
  }
  TimeColumn& operator=(const std::vector<TimeNs>& values) {
    assign(values.begin(), values.end());
    return *this;
  }

  template <class It>
  void assign(It first, It last) {
    clear();
    if constexpr (std::is_base_of_v<std::forward_iterator_tag,
                                    typename std::iterator_traits<It>::iterator_category>)
      reserve(static_cast<std::size_t>(std::distance(first, last)));
    for (; first != last; ++first) push_back(*first);
  }

  std::size_t size() const { return sealed_ + tail_.size(); }
  bool empty() const { return size() == 0; }

  TimeNs operator[](std::size_t i) const {
    if (i >= sealed_) return tail_[i - sealed_];
    const Block& b = blocks_[i >> kBlockBits];
    const unsigned w = b.width();
    const std::uint64_t bit = b.firstBit() + (i & (kBlock - 1)) * w;
    const std::uint64_t o = bitpack::read(bits_.data(), bit, w);
    if (o != (std::uint64_t{1} << w) - 1) [[likely]]
      return b.base + static_cast<TimeNs>(o);
    return escapeAt(i);
  }
  TimeNs at(std::size_t i) const;  // throws std::out_of_range
  // Values [first, first + n) into out: a block at a time, for sequential readers (about
  // twice as fast as n reads).
  void decode(std::size_t first, std::size_t n, TimeNs* out) const;
  TimeNs front() const { return (*this)[0]; }
  TimeNs back() const { return (*this)[size() - 1]; }

  // Replaces the values with values[0, n), encoded block by block (faster than n push_backs;
  // the capacity is kept where it suffices).
  void assignArray(const TimeNs* values, std::size_t n);

  void push_back(TimeNs v) {
    if (sealed_ % kBlock != 0) [[unlikely]]
      unsealLastBlock();
    tail_.push_back(v);
    if (tail_.size() == kBlock) sealTail();
  }
  // Replaces value i.
  void set(std::size_t i, TimeNs v);
  // Adds `delta` to every value (the builder's clock shift).
  void addToAll(TimeNs delta);

  void reserve(std::size_t n);
  // Values the column holds without growing, at the widest offsets (sealed ones; the last
  // block's plain values are kept apart).
  std::size_t capacity() const { return bits_.capacity() > 1 ? (bits_.capacity() - 1) * 64 / kMaxWidth : 0; }
  // Where the sealed values' offsets are stored (whether a column reuses memory: tests).
  const void* storage() const { return bits_.data(); }
  // Bytes held with the capacity (elements only).
  std::size_t capacityBytes() const;
  // Empties the column and gives it room for `n` values, its pages touched: the next n
  // push_back calls run without page faults (spare arrays written while the user waits).
  // Touched: as many bytes as the values it held took (and an eighth more), or 4 B per value
  // if it held none.
  void reserveTouched(std::size_t n);
  void clear();
  // Encodes the incomplete last block (end of building; capacity reserved but never written
  // is not resident, so it is kept rather than copied away).
  void seal();
  // seal() and give back spare capacity.
  void shrink_to_fit();

  std::vector<TimeNs> toVector() const;
  // The largest value (numeric_limits::min() when empty), block by block without decoding
  // value by value.
  TimeNs maxValue() const;
  // Bytes held (elements only, as Trace::residentBytes counts).
  std::size_t residentBytes() const;
  std::size_t escapes() const { return escapes_.size(); }

  bool operator==(const TimeColumn& o) const;
  friend bool operator==(const TimeColumn& a, const std::vector<TimeNs>& b) {
    return a.size() == b.size() && std::equal(b.begin(), b.end(), a.begin());
  }

  using const_iterator = IndexIterator<TimeColumn, TimeNs>;
  using iterator = const_iterator;
  const_iterator begin() const { return {this, 0}; }
  const_iterator end() const { return {this, size()}; }

 private:
  TimeNs escapeAt(std::size_t i) const;
  void sealTail();
  void unsealLastBlock();
  void encodeBlock(const TimeNs* values, std::size_t n);
  void store(std::uint64_t bit, unsigned w, std::uint64_t value);

  struct Block {
    TimeNs base;         // the smallest value when sealed
    std::uint64_t word;  // first bit << 6 | width
    unsigned width() const { return static_cast<unsigned>(word & 63); }
    std::uint64_t firstBit() const { return word >> 6; }
  };
  std::vector<Block> blocks_;                              // per sealed block
  std::vector<std::uint64_t> bits_;                        // packed offsets, then one zero word (8-byte reads)
  std::uint64_t usedBits_ = 0;                             // bits_ holds offsets below this bit, zeros above
  std::size_t sealed_ = 0;                                 // sealed values
  std::vector<std::pair<std::uint32_t, TimeNs>> escapes_;  // sorted by index
  std::vector<TimeNs> tail_;                               // values after the sealed ones (< kBlock of them)
};

}  // namespace perwiz
