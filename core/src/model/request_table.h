// Outstanding non-blocking requests of one rank: request id -> endpoint or posting call.
//
// Programs keep few requests in flight, so a short vector searched from the newest end beats
// a hash map (no node allocation per request); a rank that accumulates many (requests freed
// without completion) spills into a hash map so lookups stay O(1).
#pragma once

#include <cstdint>
#include <unordered_map>
#include <vector>

namespace perwiz {

class RequestTable {
 public:
  // Inserts or overwrites; returns false if the request was already outstanding.
  bool put(std::uint64_t request, std::uint32_t value) {
    if (spilled_) return map_.insert_or_assign(request, value).second;
    for (auto& e : small_)
      if (e.first == request) {
        e.second = value;
        return false;
      }
    small_.emplace_back(request, value);
    if (small_.size() > kSmall) {
      spilled_ = true;
      map_.insert(small_.begin(), small_.end());
      small_.clear();
    }
    return true;
  }

  // Removes the request; returns false if it was not outstanding.
  bool take(std::uint64_t request, std::uint32_t& value) {
    if (spilled_) {
      auto it = map_.find(request);
      if (it == map_.end()) return false;
      value = it->second;
      map_.erase(it);
      return true;
    }
    for (std::size_t i = small_.size(); i-- > 0;)
      if (small_[i].first == request) {
        value = small_[i].second;
        small_[i] = small_.back();
        small_.pop_back();
        return true;
      }
    return false;
  }

  std::size_t size() const { return spilled_ ? map_.size() : small_.size(); }
  bool empty() const { return size() == 0; }

 private:
  static constexpr std::size_t kSmall = 32;
  std::vector<std::pair<std::uint64_t, std::uint32_t>> small_;
  std::unordered_map<std::uint64_t, std::uint32_t> map_;
  bool spilled_ = false;
};

}  // namespace perwiz
