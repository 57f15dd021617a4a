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
  ChunkedOverlay(const ChunkedOverlay& o) { *this = o; }
  ChunkedOverlay& operator=(const ChunkedOverlay& o) {
    if (this == &o) return *this;
    init(o.base_, o.size_);
    for (std::size_t c = 0; c < o.chunks_.size(); ++c)
      if (o.chunks_[c]) std::copy_n(o.chunks_[c].get(), valuesIn(c), fresh(c));
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
    releaseMemory(recent_);
    releaseMemory(written_);
    owned_ = 0;
  }
  bool copied() const { return owned_ > 0; }
  std::size_t size() const { return size_; }
  // Bytes of the chunks copied so far.
  std::size_t ownBytes() const { return owned_ * kChunk * sizeof(T); }

  T operator[](std::size_t i) const { return reader()[i]; }

  // Frees the chunks written since the last call that hold the base's values again (values set
  // back): only those are compared.
  void releaseUnchanged() {
    for (const std::uint32_t c : recent_) {
      written_[c] = 0;
      const T* own = chunks_[c].get();
      if (!own) continue;
      const std::size_t begin = std::size_t{c} << kShift;
      bool same = true;
      for (std::size_t k = 0; k < valuesIn(c) && same; ++k)
        same = own[k] == (base_ ? static_cast<T>((*base_)[begin + k]) : T{});
      if (!same) continue;
      chunks_[c].reset();
      --owned_;
    }
    recent_.clear();
    if (owned_ == 0) {
      releaseMemory(chunks_);
      releaseMemory(written_);
    }
  }

  // A cheap copyable view for the sweeps (an overlay read through a Reader has a base or has
  // been written where it is read).
  struct Reader {
    const std::unique_ptr<T[]>* chunks = nullptr;  // per chunk: its own values, or null (the base's)
    const Base* base = nullptr;
    T operator[](std::size_t i) const {
      if (chunks) {
        if (const T* c = chunks[i >> kShift].get()) return c[i & (kChunk - 1)];
      }
      return base ? static_cast<T>((*base)[i]) : T{};
    }
  };
  Reader reader() const { return {owned_ > 0 ? chunks_.data() : nullptr, base_}; }

  void set(std::size_t i, T v) {
    const std::size_t c = i >> kShift;
    if (owned_ == 0 || !chunks_[c]) {
      if ((*this)[i] == v) return;  // unchanged: stay on the base
      T* out = fresh(c);
      const std::size_t begin = c << kShift;
      for (std::size_t k = 0; k < valuesIn(c); ++k) out[k] = base_ ? static_cast<T>((*base_)[begin + k]) : T{};
    }
    chunks_[c][i & (kChunk - 1)] = v;
    noteWritten(c);
  }

 private:
  std::size_t valuesIn(std::size_t c) const { return std::min(kChunk, size_ - (c << kShift)); }
  // Chunk c's storage, allocated and not yet written (it must be a chunk not owned so far).
  T* fresh(std::size_t c) {
    if (chunks_.empty()) chunks_.resize((size_ + kChunk - 1) >> kShift);
    chunks_[c] = std::make_unique_for_overwrite<T[]>(kChunk);
    noteWritten(c);
    ++owned_;
    return chunks_[c].get();
  }

  const Base* base_ = nullptr;
  std::size_t size_ = 0;
  std::vector<std::unique_ptr<T[]>> chunks_;  // empty until the first copy
  std::size_t owned_ = 0;
  // The chunks written since the last releaseUnchanged(): a flag per chunk and their list.
  void noteWritten(std::size_t c) {
    if (written_.empty()) written_.assign(chunks_.size(), 0);
    if (written_[c]) return;
    written_[c] = 1;
    recent_.push_back(static_cast<std::uint32_t>(c));
  }
  std::vector<std::uint8_t> written_;
  std::vector<std::uint32_t> recent_;
};

}  // namespace perwiz
