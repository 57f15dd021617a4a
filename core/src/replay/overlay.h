// Per-item values that equal a base array until a hypothesis changes one (internal).
//
// The replay's effective values (computation gaps, local costs, dependency offsets and flags,
// message sizes) equal the compiled program's for most scenarios: zero-wait hypotheses change
// none of them, and a prediction without hypotheses none at all. An Overlay reads the base
// until the first write that changes a value, and only then copies it (one array, not one per
// fork or per scenario). Without a base it reads as zeros until first written.
#pragma once

#include "perwiz/release.h"

#include <cstddef>
#include <span>
#include <vector>

namespace perwiz {

template <class T>
class Overlay {
 public:
  // `base` (may be null: all zeros) must outlive the overlay; `size` items.
  void init(const std::vector<T>* base, std::size_t size) {
    base_ = base;
    size_ = size;
    releaseMemory(own_);
  }
  void reset() { releaseMemory(own_); }  // back to the base
  bool copied() const { return !own_.empty(); }
  std::size_t size() const { return size_; }

  T operator[](std::size_t i) const { return !own_.empty() ? own_[i] : base_ ? (*base_)[i] : T{}; }
  // The values, contiguous; null only for an unwritten overlay without a base.
  const T* data() const { return !own_.empty() ? own_.data() : base_ ? base_->data() : nullptr; }
  std::span<const T> view() const { return data() ? std::span<const T>(data(), size_) : std::span<const T>(); }

  // Makes the own copy now (a later first write then costs no copy).
  void materialize() {
    if (!own_.empty() || size_ == 0) return;
    if (base_) own_ = *base_;
    else own_.assign(size_, T{});
  }

  void set(std::size_t i, T v) {
    if (own_.empty()) {
      if ((*this)[i] == v) return;  // unchanged: stay on the base
      if (base_) own_ = *base_;
      else own_.assign(size_, T{});
    }
    own_[i] = v;
  }

 private:
  const std::vector<T>* base_ = nullptr;
  std::size_t size_ = 0;
  std::vector<T> own_;
};

}  // namespace perwiz
