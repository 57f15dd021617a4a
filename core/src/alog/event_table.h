// Lookups keyed by ALOG event type, used once per data record: a dense array for the small
// non-negative types every real file uses, a hash map for the rest (negative or huge types).
#pragma once

#include "perwiz/trace.h"

#include <cstdint>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace perwiz::alog {

// What a data record of one event type does on its process.
struct EventAction {
  std::uint32_t leave = kNone32;  // ends a state (function index)
  std::uint32_t enter = kNone32;  // starts a state
  std::uint32_t point = kNone32;  // a lone event
};

class EventTable {
 public:
  // The action of a type, created empty on first use.
  EventAction& at(std::int64_t type) {
    if (isDense(type)) {
      auto i = static_cast<std::size_t>(type);
      if (i >= dense_.size()) dense_.resize(i + 1);
      return dense_[i];
    }
    return sparse_[type];
  }
  // The action of a type; an empty one for types never set.
  const EventAction& find(std::int64_t type) const {
    if (isDense(type)) {
      auto i = static_cast<std::size_t>(type);
      return i < dense_.size() ? dense_[i] : kNothing;
    }
    auto it = sparse_.find(type);
    return it == sparse_.end() ? kNothing : it->second;
  }

 private:
  static constexpr std::int64_t kDenseLimit = 1 << 16;
  static bool isDense(std::int64_t type) { return type >= 0 && type < kDenseLimit; }
  static inline const EventAction kNothing{};
  std::vector<EventAction> dense_;
  std::unordered_map<std::int64_t, EventAction> sparse_;
};

// The set of event types seen, with the same dense/sparse split.
class EventTypeSet {
 public:
  void insert(std::int64_t type) {
    if (type >= 0 && type < kDenseLimit) {
      auto i = static_cast<std::size_t>(type);
      if (i >= dense_.size()) dense_.resize(i + 1, false);
      dense_[i] = true;
    } else {
      sparse_.insert(type);
    }
  }
  bool contains(std::int64_t type) const {
    if (type >= 0 && type < kDenseLimit) {
      auto i = static_cast<std::size_t>(type);
      return i < dense_.size() && dense_[i];
    }
    return sparse_.count(type) != 0;
  }
  void insertAll(const EventTypeSet& other) {
    if (other.dense_.size() > dense_.size()) dense_.resize(other.dense_.size(), false);
    for (std::size_t i = 0; i < other.dense_.size(); ++i)
      if (other.dense_[i]) dense_[i] = true;
    sparse_.insert(other.sparse_.begin(), other.sparse_.end());
  }
  // All members, unordered.
  std::vector<std::int64_t> values() const {
    std::vector<std::int64_t> out(sparse_.begin(), sparse_.end());
    for (std::size_t i = 0; i < dense_.size(); ++i)
      if (dense_[i]) out.push_back(static_cast<std::int64_t>(i));
    return out;
  }

 private:
  static constexpr std::int64_t kDenseLimit = 1 << 16;
  std::vector<bool> dense_;
  std::unordered_set<std::int64_t> sparse_;
};

}  // namespace perwiz::alog
