// Per-item values that equal a base array until a hypothesis changes one (internal).
//
// The replay's effective values (computation gaps, local costs, dependency offsets and flags,
// message sizes) equal the compiled program's for most scenarios: zero-wait hypotheses change
// none of them, and a prediction without hypotheses none at all. An Overlay reads the base
// until the first write that changes a value, and only then copies it into a plain array (one
// array, not one per fork or per scenario). Without a base it reads as zeros until first
// written. The base is a std::vector<T> or any container with size() and operator[] by value
// (SmallTimes, the program's 4-byte durations).
#pragma once

#include "perwiz/release.h"

#include <cstddef>
#include <span>
#include <type_traits>
#include <vector>

namespace perwiz {

template <class T, class Base = std::vector<T>>
class Overlay {
 public:
  // `base` (may be null: all zeros) must outlive the overlay; `size` items.
  void init(const Base* base, std::size_t size) {
    base_ = base;
    size_ = size;
    releaseMemory(own_);
  }
  void reset() { releaseMemory(own_); }  // back to the base
  bool copied() const { return !own_.empty(); }
  std::size_t size() const { return size_; }

  T operator[](std::size_t i) const { return !own_.empty() ? own_[i] : base_ ? static_cast<T>((*base_)[i]) : T{}; }

  // A cheap copyable view for the sweeps: the own copy if there is one, else the base (an
  // overlay read through a Reader has a base or has been written).
  struct Reader {
    const T* own = nullptr;
    const Base* base = nullptr;
    T operator[](std::size_t i) const { return own ? own[i] : static_cast<T>((*base)[i]); }
  };
  Reader reader() const { return {own_.empty() ? nullptr : own_.data(), base_}; }

  // The values, contiguous (a std::vector base only); null only for an unwritten overlay
  // without a base.
  const T* data() const
    requires std::is_same_v<Base, std::vector<T>>
  {
    return !own_.empty() ? own_.data() : base_ ? base_->data() : nullptr;
  }
  std::span<const T> view() const
    requires std::is_same_v<Base, std::vector<T>>
  {
    return data() ? std::span<const T>(data(), size_) : std::span<const T>();
  }

  // Makes the own copy now (a later first write then costs no copy).
  void materialize() {
    if (!own_.empty() || size_ == 0) return;
    copyBase();
  }

  void set(std::size_t i, T v) {
    if (own_.empty()) {
      if ((*this)[i] == v) return;  // unchanged: stay on the base
      copyBase();
    }
    own_[i] = v;
  }

 private:
  void copyBase() {
    if (!base_) {
      own_.assign(size_, T{});
      return;
    }
    own_.resize(size_);
    for (std::size_t i = 0; i < size_; ++i) own_[i] = static_cast<T>((*base_)[i]);
  }

  const Base* base_ = nullptr;
  std::size_t size_ = 0;
  std::vector<T> own_;
};

}  // namespace perwiz
