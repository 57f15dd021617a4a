// A column of int64 nanosecond times stored in about 4 B per value (the model's 32 B/event
// budget).
//
// Values are kept in blocks of 256: one int64 base per block (the block's smallest value) and
// a uint32 offset per value. A value more than 2^32 - 2 ns (4.29 s) above its block's base, or
// set below it after the block was sealed, is an *escape*: its offset is the marker 0xFFFFFFFF
// and the value sits in a side table sorted by index. Enter times of a rank are sorted, so
// escapes there are rare gaps; leave times of long outer states (main, a region spanning the
// run) are the usual escapes — a few per rank. The last, incomplete block is kept as plain
// values until it fills, so appending never re-encodes.
//
// The interface is the read side of std::vector<TimeNs> (size, operator[], iteration,
// front/back) plus push_back, set() and the bulk operations the builder needs; operator[]
// returns by value. Self-contained (no pointers into other columns), so RankTrace stays
// copyable and movable.
#pragma once

#include "perwiz/index_iterator.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
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
  static constexpr std::uint32_t kEscape = 0xFFFFFFFFu;

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

  std::size_t size() const { return off_.size() + tail_.size(); }
  bool empty() const { return size() == 0; }

  TimeNs operator[](std::size_t i) const {
    if (i >= off_.size()) return tail_[i - off_.size()];
    const std::uint32_t o = off_[i];
    if (o != kEscape) [[likely]]
      return base_[i >> kBlockBits] + static_cast<TimeNs>(o);
    return escapeAt(i);
  }
  TimeNs at(std::size_t i) const;  // throws std::out_of_range
  TimeNs front() const { return (*this)[0]; }
  TimeNs back() const { return (*this)[size() - 1]; }

  // Replaces the values with values[0, n), encoded block by block (faster than n push_backs;
  // the capacity is kept where it suffices).
  void assignArray(const TimeNs* values, std::size_t n);

  void push_back(TimeNs v) {
    if (off_.size() % kBlock != 0) [[unlikely]]
      unsealLastBlock();
    tail_.push_back(v);
    if (tail_.size() == kBlock) sealTail();
  }
  // Replaces value i.
  void set(std::size_t i, TimeNs v);
  // Adds `delta` to every value (the builder's clock shift).
  void addToAll(TimeNs delta);

  void reserve(std::size_t n);
  // Values the column holds without growing (sealed ones; the last block's plain values are
  // kept apart).
  std::size_t capacity() const { return off_.capacity(); }
  // Where the sealed values' offsets are stored (whether a column reuses memory: tests).
  const void* storage() const { return off_.data(); }
  // Bytes held with the capacity (elements only).
  std::size_t capacityBytes() const;
  // Empties the column and gives it room for `n` values, its pages touched: the next n
  // push_back calls run without page faults (spare arrays written while the user waits).
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
  void encodeBlock(std::size_t block, const TimeNs* values, std::size_t n);

  std::vector<TimeNs> base_;          // per sealed block: its smallest value
  std::vector<std::uint32_t> off_;    // per sealed value: value - base, or kEscape
  std::vector<std::pair<std::uint32_t, TimeNs>> escapes_;  // sorted by index
  std::vector<TimeNs> tail_;          // values after the sealed ones (< kBlock of them)
};

}  // namespace perwiz
