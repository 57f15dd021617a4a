// A random-access iterator over a container that returns values by index (TimeColumn,
// InternedTable): `*it` is `c[i]`, a value, not a reference. Enough for range-for and the
// standard algorithms that only read (lower_bound, partition_point, equal, max_element).
#pragma once

#include <cstddef>
#include <iterator>

namespace perwiz {

template <class Container, class Value>
class IndexIterator {
 public:
  using iterator_category = std::random_access_iterator_tag;
  using value_type = Value;
  using difference_type = std::ptrdiff_t;
  using pointer = void;
  using reference = Value;

  IndexIterator() = default;
  IndexIterator(const Container* c, std::size_t i) : c_(c), i_(i) {}
  Value operator*() const { return (*c_)[i_]; }
  Value operator[](difference_type n) const { return (*c_)[i_ + static_cast<std::size_t>(n)]; }
  IndexIterator& operator++() { ++i_; return *this; }
  IndexIterator operator++(int) { auto t = *this; ++i_; return t; }
  IndexIterator& operator--() { --i_; return *this; }
  IndexIterator operator--(int) { auto t = *this; --i_; return t; }
  IndexIterator& operator+=(difference_type n) { i_ += static_cast<std::size_t>(n); return *this; }
  IndexIterator& operator-=(difference_type n) { i_ -= static_cast<std::size_t>(n); return *this; }
  friend IndexIterator operator+(IndexIterator a, difference_type n) { return a += n; }
  friend IndexIterator operator+(difference_type n, IndexIterator a) { return a += n; }
  friend IndexIterator operator-(IndexIterator a, difference_type n) { return a -= n; }
  friend difference_type operator-(const IndexIterator& a, const IndexIterator& b) {
    return static_cast<difference_type>(a.i_) - static_cast<difference_type>(b.i_);
  }
  friend bool operator==(const IndexIterator& a, const IndexIterator& b) { return a.i_ == b.i_; }
  friend auto operator<=>(const IndexIterator& a, const IndexIterator& b) { return a.i_ <=> b.i_; }
  std::size_t index() const { return i_; }

 private:
  const Container* c_ = nullptr;
  std::size_t i_ = 0;
};

}  // namespace perwiz
