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

#include <algorithm>
#include <cstddef>
#include <memory>
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

// An Overlay that copies the base chunk by chunk (2^11 items) at the first write into each: a
// hypothesis that changes a few units (zero-event, balancing one step) holds a chunk per unit
// range it touches, not a copy of every unit (8 bytes per unit: 0.6 GB at 10^8 events, and its
// first touch seconds on a machine where fresh memory is slow; docs/performance.md). For the
// program's per-unit and per-dependency durations (base: SmallTimes); reads cost one more load.
template <class T, class Base>
class ChunkedOverlay {
 public:
  static constexpr unsigned kShift = 11;
  static constexpr std::size_t kChunk = std::size_t{1} << kShift;

  ChunkedOverlay() = default;
  ChunkedOverlay(const ChunkedOverlay& o) : base_(o.base_), size_(o.size_) { copyChunksOf(o); }
  ChunkedOverlay& operator=(const ChunkedOverlay& o) {
    if (this != &o) {
      base_ = o.base_;
      size_ = o.size_;
      copyChunksOf(o);
    }
    return *this;
  }

  // `base` (may be null: all zeros) must outlive the overlay; `size` items.
  void init(const Base* base, std::size_t size) {
    base_ = base;
    size_ = size;
    reset();
  }
  void reset() {  // back to the base
    releaseMemory(chunks_);
    releaseMemory(ptrs_);
    owned_ = 0;
  }
  bool copied() const { return owned_ > 0; }
  std::size_t size() const { return size_; }
  // Bytes of the chunks copied so far.
  std::size_t ownBytes() const { return owned_ * kChunk * sizeof(T); }

  T operator[](std::size_t i) const { return reader()[i]; }

  // A cheap copyable view for the sweeps (an overlay read through a Reader has a base or has
  // been written where it is read).
  struct Reader {
    const T* const* chunks = nullptr;  // per chunk: its own values, or null (the base's)
    const Base* base = nullptr;
    T operator[](std::size_t i) const {
      if (chunks) {
        if (const T* c = chunks[i >> kShift]) return c[i & (kChunk - 1)];
      }
      return base ? static_cast<T>((*base)[i]) : T{};
    }
  };
  Reader reader() const { return {owned_ > 0 ? ptrs_.data() : nullptr, base_}; }

  // Copies every chunk now (a later first write then costs no copy).
  void materialize() {
    for (std::size_t c = 0; c < chunkCount(); ++c) own(c);
  }

  void set(std::size_t i, T v) {
    const std::size_t c = i >> kShift;
    if (owned_ == 0 || !ptrs_[c]) {
      if ((*this)[i] == v) return;  // unchanged: stay on the base
      own(c);
    }
    chunks_[c][i & (kChunk - 1)] = v;
  }

 private:
  std::size_t chunkCount() const { return (size_ + kChunk - 1) >> kShift; }
  T* own(std::size_t c) {
    if (chunks_.empty()) {
      chunks_.resize(chunkCount());
      ptrs_.assign(chunkCount(), nullptr);
    }
    if (!chunks_[c]) {
      const std::size_t begin = c << kShift, n = std::min(kChunk, size_ - begin);
      chunks_[c] = std::make_unique_for_overwrite<T[]>(kChunk);
      T* out = chunks_[c].get();
      for (std::size_t k = 0; k < n; ++k) out[k] = base_ ? static_cast<T>((*base_)[begin + k]) : T{};
      ptrs_[c] = out;
      ++owned_;
    }
    return chunks_[c].get();
  }
  void copyChunksOf(const ChunkedOverlay& o) {
    reset();
    if (o.owned_ == 0) return;
    chunks_.resize(o.chunks_.size());
    ptrs_.assign(o.ptrs_.size(), nullptr);
    for (std::size_t c = 0; c < o.chunks_.size(); ++c) {
      if (!o.chunks_[c]) continue;
      chunks_[c] = std::make_unique_for_overwrite<T[]>(kChunk);
      std::copy_n(o.chunks_[c].get(), std::min(kChunk, size_ - (c << kShift)), chunks_[c].get());
      ptrs_[c] = chunks_[c].get();
    }
    owned_ = o.owned_;
  }

  const Base* base_ = nullptr;
  std::size_t size_ = 0;
  std::vector<std::unique_ptr<T[]>> chunks_;
  std::vector<const T*> ptrs_;  // chunks_' pointers, for the Reader
  std::size_t owned_ = 0;
};

}  // namespace perwiz
