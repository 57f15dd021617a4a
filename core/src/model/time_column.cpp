#include "perwiz/time_column.h"

#include "perwiz/release.h"

#include <limits>
#include <stdexcept>
#include <string>

namespace perwiz {
namespace {
using TimeNs = TimeColumn::TimeNs;
bool byIndex(const std::pair<std::uint32_t, TimeNs>& e, std::uint32_t i) { return e.first < i; }
}  // namespace

TimeNs TimeColumn::at(std::size_t i) const {
  if (i >= size())
    throw std::out_of_range("TimeColumn: index " + std::to_string(i) + " of " +
                            std::to_string(size()));
  return (*this)[i];
}

TimeNs TimeColumn::escapeAt(std::size_t i) const {
  auto it = std::lower_bound(escapes_.begin(), escapes_.end(), static_cast<std::uint32_t>(i), byIndex);
  return it->second;  // present by construction: an escape offset always has its entry
}

void TimeColumn::encodeBlock(std::size_t block, const TimeNs* values, std::size_t n) {
  TimeNs base = values[0];
  for (std::size_t k = 1; k < n; ++k) base = std::min(base, values[k]);
  base_.push_back(base);
  const std::size_t first = block * kBlock;
  off_.resize(first + n);
  std::uint32_t* const out = off_.data() + first;
  for (std::size_t k = 0; k < n; ++k) {
    // Unsigned difference: exact even when values span more than int64's range.
    const std::uint64_t d = static_cast<std::uint64_t>(values[k]) - static_cast<std::uint64_t>(base);
    if (d < kEscape) [[likely]] {
      out[k] = static_cast<std::uint32_t>(d);
    } else {
      out[k] = kEscape;
      // Blocks are sealed in index order, so appending keeps escapes_ sorted.
      escapes_.emplace_back(static_cast<std::uint32_t>(first + k), values[k]);
    }
  }
}

void TimeColumn::assignArray(const TimeNs* values, std::size_t n) {
  clear();
  reserve(n);
  const std::size_t whole = n / kBlock * kBlock;
  for (std::size_t k = 0; k < whole; k += kBlock) encodeBlock(k / kBlock, values + k, kBlock);
  tail_.assign(values + whole, values + n);
}

void TimeColumn::sealTail() {
  encodeBlock(base_.size(), tail_.data(), tail_.size());
  tail_.clear();  // keeps its capacity for the next block
}

void TimeColumn::unsealLastBlock() {
  // The last block was sealed while incomplete (shrink_to_fit); take it back as plain values.
  const std::size_t block = base_.size() - 1;
  const std::size_t first = block * kBlock;
  std::vector<TimeNs> values;
  values.reserve(kBlock);
  for (std::size_t i = first; i < off_.size(); ++i) values.push_back((*this)[i]);
  off_.resize(first);
  base_.pop_back();
  auto it = std::lower_bound(escapes_.begin(), escapes_.end(), static_cast<std::uint32_t>(first), byIndex);
  escapes_.erase(it, escapes_.end());
  tail_ = std::move(values);
}

void TimeColumn::set(std::size_t i, TimeNs v) {
  if (i >= off_.size()) {
    tail_[i - off_.size()] = v;
    return;
  }
  const TimeNs base = base_[i >> kBlockBits];
  const std::uint64_t d = static_cast<std::uint64_t>(v) - static_cast<std::uint64_t>(base);
  const bool fits = v >= base && d < kEscape;
  auto it = std::lower_bound(escapes_.begin(), escapes_.end(), static_cast<std::uint32_t>(i), byIndex);
  const bool wasEscape = off_[i] == kEscape;
  if (fits) {
    off_[i] = static_cast<std::uint32_t>(d);
    if (wasEscape) escapes_.erase(it);
  } else if (wasEscape) {
    it->second = v;
  } else {
    off_[i] = kEscape;
    escapes_.insert(it, {static_cast<std::uint32_t>(i), v});
  }
}

void TimeColumn::addToAll(TimeNs delta) {
  for (TimeNs& b : base_) b += delta;
  for (auto& e : escapes_) e.second += delta;
  for (TimeNs& t : tail_) t += delta;
}

void TimeColumn::reserve(std::size_t n) {
  off_.reserve(n);
  base_.reserve(n / kBlock + 1);
  if (n >= kBlock) tail_.reserve(kBlock);
}

void TimeColumn::reserveTouched(std::size_t n) {
  clear();
  reserve(n);
  for (std::size_t i = 0; i < n; ++i) push_back(0);
  clear();  // keeps the capacity
}

std::size_t TimeColumn::capacityBytes() const {
  return base_.capacity() * sizeof(TimeNs) + off_.capacity() * sizeof(std::uint32_t) +
         escapes_.capacity() * sizeof(escapes_[0]) + tail_.capacity() * sizeof(TimeNs);
}

void TimeColumn::clear() {
  base_.clear();
  off_.clear();
  escapes_.clear();
  tail_.clear();
}

void TimeColumn::seal() {
  if (!tail_.empty()) encodeBlock(base_.size(), tail_.data(), tail_.size());
  releaseMemory(tail_);
}

void TimeColumn::shrink_to_fit() {
  seal();
  base_.shrink_to_fit();
  off_.shrink_to_fit();
  escapes_.shrink_to_fit();
}

TimeNs TimeColumn::maxValue() const {
  TimeNs best = std::numeric_limits<TimeNs>::min();
  const std::size_t sealed = off_.size();
  for (std::size_t b = 0; b * kBlock < sealed; ++b) {
    const std::size_t first = b * kBlock, last = std::min(sealed, first + kBlock);
    std::uint32_t hi = 0;
    bool any = false;
    for (std::size_t i = first; i < last; ++i) {
      const std::uint32_t o = off_[i];
      if (o != kEscape) {
        hi = std::max(hi, o);
        any = true;
      }
    }
    if (any) best = std::max(best, base_[b] + static_cast<TimeNs>(hi));
  }
  for (const auto& e : escapes_) best = std::max(best, e.second);
  for (TimeNs t : tail_) best = std::max(best, t);
  return best;
}

std::vector<TimeNs> TimeColumn::toVector() const {
  std::vector<TimeNs> v;
  v.reserve(size());
  for (std::size_t i = 0; i < size(); ++i) v.push_back((*this)[i]);
  return v;
}

std::size_t TimeColumn::residentBytes() const {
  return base_.size() * sizeof(TimeNs) + off_.size() * sizeof(std::uint32_t) +
         escapes_.size() * sizeof(escapes_[0]) + tail_.size() * sizeof(TimeNs);
}

bool TimeColumn::operator==(const TimeColumn& o) const {
  if (size() != o.size()) return false;
  for (std::size_t i = 0; i < size(); ++i)
    if ((*this)[i] != o[i]) return false;
  return true;
}

}  // namespace perwiz
