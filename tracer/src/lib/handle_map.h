// A small open-addressing hash map from MPI handles (communicators, requests) to the tracer's
// bookkeeping. Lookups and erasures never allocate; an insertion allocates only when the table
// has to grow (rare: the number of live handles, not of calls, decides it), so the wrappers'
// hot path stays allocation-free. Linear probing with backward-shift deletion: no tombstones,
// so a long run of Isend/Wait pairs never degrades the table.
#pragma once

#include <cstdint>
#include <cstdlib>
#include <cstring>

namespace perwiz::trace {

// MPI handles are pointers (Open MPI, SMPI) or integers (MPICH); both fit in 64 bits.
template <class Handle>
inline std::uint64_t handleKey(Handle h) {
  static_assert(sizeof(Handle) <= sizeof(std::uint64_t), "MPI handle wider than 64 bits");
  std::uint64_t key = 0;
  std::memcpy(&key, &h, sizeof h);
  return key;
}

template <class Value>
class HandleMap {
 public:
  HandleMap() = default;
  HandleMap(const HandleMap&) = delete;
  HandleMap& operator=(const HandleMap&) = delete;
  ~HandleMap() { std::free(slots_); }

  std::size_t size() const { return size_; }

  Value* find(std::uint64_t key) {
    if (size_ == 0) return nullptr;
    for (std::size_t i = home(key);; i = (i + 1) & mask_) {
      Slot& s = slots_[i];
      if (!s.used) return nullptr;
      if (s.key == key) return &s.value;
    }
  }

  // The value for key, default-initialised if new (an existing entry is reset: a handle value
  // the MPI library reuses for a new object replaces the stale entry). Null only if memory is
  // exhausted.
  Value* insert(std::uint64_t key) {
    if ((size_ + 1) * 2 > capacity() && !grow()) return nullptr;
    for (std::size_t i = home(key);; i = (i + 1) & mask_) {
      Slot& s = slots_[i];
      if (!s.used) {
        s.used = true;
        s.key = key;
        ++size_;
      } else if (s.key != key) {
        continue;
      }
      s.value = Value{};
      return &s.value;
    }
  }

  bool erase(std::uint64_t key) {
    if (size_ == 0) return false;
    std::size_t i = home(key);
    for (;; i = (i + 1) & mask_) {
      if (!slots_[i].used) return false;
      if (slots_[i].key == key) break;
    }
    // Backward shift: move later members of the probe run into the hole when their home slot
    // does not lie strictly between the hole and their position.
    std::size_t hole = i;
    for (std::size_t j = (i + 1) & mask_; slots_[j].used; j = (j + 1) & mask_) {
      const std::size_t h = home(slots_[j].key);
      const bool movable = hole <= j ? (h <= hole || h > j) : (h <= hole && h > j);
      if (movable) {
        slots_[hole] = slots_[j];
        hole = j;
      }
    }
    slots_[hole].used = false;
    --size_;
    return true;
  }

 private:
  struct Slot {
    std::uint64_t key;
    Value value;
    bool used;
  };

  std::size_t capacity() const { return slots_ ? mask_ + 1 : 0; }

  std::size_t home(std::uint64_t key) const {
    // Handles are aligned pointers or small integers: mix before masking.
    return static_cast<std::size_t>((key * 0x9E3779B97F4A7C15ull) >> 20) & mask_;
  }

  bool grow() {
    const std::size_t newCapacity = capacity() ? capacity() * 2 : 256;
    auto* fresh = static_cast<Slot*>(std::calloc(newCapacity, sizeof(Slot)));
    if (!fresh) return false;
    Slot* old = slots_;
    const std::size_t oldCapacity = capacity();
    slots_ = fresh;
    mask_ = newCapacity - 1;
    size_ = 0;
    for (std::size_t i = 0; i < oldCapacity; ++i)
      if (old[i].used) {
        for (std::size_t j = home(old[i].key);; j = (j + 1) & mask_)
          if (!slots_[j].used) {
            slots_[j] = old[i];
            ++size_;
            break;
          }
      }
    std::free(old);
    return true;
  }

  Slot* slots_ = nullptr;
  std::size_t mask_ = 0;
  std::size_t size_ = 0;
};

}  // namespace perwiz::trace
