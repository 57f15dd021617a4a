#include "perwiz/time_column.h"

#include "perwiz/bit_pack.h"
#include "perwiz/release.h"

#include <array>
#include <bit>
#include <cstring>
#include <utility>
#include <limits>
#include <stdexcept>
#include <string>

namespace perwiz {
namespace {
using TimeNs = TimeColumn::TimeNs;
bool byIndex(const std::pair<std::uint32_t, TimeNs>& e, std::uint32_t i) { return e.first < i; }

// Eight offsets of W bits take W bytes: a group that starts on a byte has every value at a
// byte and shift known here, so the compiler unrolls a group into loads, shifts and masks by
// constants (about three times the speed of a loop over a width it only knows at run time).
template <unsigned W>
void unpackGroups(const unsigned char* p, std::size_t groups, TimeNs base, TimeNs* out) {
  constexpr std::uint64_t mask = (std::uint64_t{1} << W) - 1;
  for (std::size_t g = 0; g < groups; ++g, p += W, out += 8) {
    [&]<std::size_t... J>(std::index_sequence<J...>) {
      ((out[J] = base + static_cast<TimeNs>((bitpack::load64(p + (J * W >> 3)) >> (J * W & 7)) & mask)), ...);
    }
    (std::make_index_sequence<8>{});
  }
}
using Unpack = void (*)(const unsigned char*, std::size_t, TimeNs, TimeNs*);
template <std::size_t... W>
constexpr std::array<Unpack, 33> unpackers(std::index_sequence<W...>) {
  return {nullptr, &unpackGroups<unsigned(W + 1)>...};
}
constexpr std::array<Unpack, 33> kUnpack = unpackers(std::make_index_sequence<32>{});
}  // namespace

TimeNs TimeColumn::at(std::size_t i) const {
  if (i >= size())
    throw std::out_of_range("TimeColumn: index " + std::to_string(i) + " of " +
                            std::to_string(size()));
  return (*this)[i];
}

void TimeColumn::decode(std::size_t first, std::size_t n, TimeNs* out) const {
  const std::size_t last = first + n;
  std::size_t i = first;
  const auto* bytes = reinterpret_cast<const unsigned char*>(bits_.data());
  while (i < last && i < sealed_) {
    const Block& b = blocks_[i >> kBlockBits];
    const unsigned w = b.width();
    const std::size_t end = std::min({last, sealed_, ((i >> kBlockBits) + 1) << kBlockBits});
    const std::size_t from = i;
    TimeNs* const at = out;
    // Offsets one by one up to a multiple of eight in the block (a group starts on a byte:
    // blocks start at a word), then in groups of eight, then one by one again.
    auto one = [&] {
      *out++ = b.base + static_cast<TimeNs>(bitpack::read(bits_.data(), b.firstBit() + (i & (kBlock - 1)) * w, w));
      ++i;
    };
    while (i < end && (i & 7) != 0) one();
    if (const std::size_t groups = (end - i) / 8; groups > 0) {
      kUnpack[w](bytes + ((b.firstBit() + (i & (kBlock - 1)) * w) >> 3), groups, b.base, out);
      out += groups * 8;
      i += groups * 8;
    }
    while (i < end) one();
    // Escapes (offsets 2^w - 1) read as base + 2^w - 1 above: their values, from the side list.
    for (auto e = std::lower_bound(escapes_.begin(), escapes_.end(), static_cast<std::uint32_t>(from), byIndex);
         e != escapes_.end() && e->first < end; ++e)
      at[e->first - from] = e->second;
  }
  for (; i < last; ++i) *out++ = tail_[i - sealed_];
}

TimeNs TimeColumn::escapeAt(std::size_t i) const {
  auto it = std::lower_bound(escapes_.begin(), escapes_.end(), static_cast<std::uint32_t>(i), byIndex);
  return it->second;  // present by construction: an escape offset always has its entry
}

void TimeColumn::store(std::uint64_t bit, unsigned w, std::uint64_t value) {
  unsigned char* p = reinterpret_cast<unsigned char*>(bits_.data()) + (bit >> 3);
  std::uint64_t x;
  std::memcpy(&x, p, 8);
  const unsigned s = static_cast<unsigned>(bit & 7);
  x = (x & ~(((std::uint64_t{1} << w) - 1) << s)) | (value << s);
  std::memcpy(p, &x, 8);
}

void TimeColumn::encodeBlock(const TimeNs* values, std::size_t n) {
  TimeNs base = values[0];
  for (std::size_t k = 1; k < n; ++k) base = std::min(base, values[k]);
  // The width that stores the block in the fewest bits (bit_pack.h).
  std::uint32_t count[66] = {};
  for (std::size_t k = 0; k < n; ++k)
    ++count[bitpack::bitsFor(static_cast<std::uint64_t>(values[k]) - static_cast<std::uint64_t>(base))];
  const unsigned w = bitpack::cheapestWidth(count, n);
  // Blocks start at a word: the offsets are gathered in a register and written a word at a time.
  const std::uint64_t first = usedBits_;
  usedBits_ += (std::uint64_t{w} * n + 63) / 64 * 64;
  bits_.resize(static_cast<std::size_t>(usedBits_ / 64 + 1), 0);  // and one zero word
  blocks_.push_back({base, first << 6 | w});
  const std::size_t firstIndex = sealed_;
  const std::uint64_t marker = (std::uint64_t{1} << w) - 1;
  bitpack::Writer out(bits_.data() + first / 64, w);
  for (std::size_t k = 0; k < n; ++k) {
    // Unsigned difference: exact even when values span more than int64's range.
    std::uint64_t d = static_cast<std::uint64_t>(values[k]) - static_cast<std::uint64_t>(base);
    if (d >= marker) [[unlikely]] {
      d = marker;
      // Blocks are sealed in index order, so appending keeps escapes_ sorted.
      escapes_.emplace_back(static_cast<std::uint32_t>(firstIndex + k), values[k]);
    }
    out.put(d);
  }
  out.finish();
  sealed_ += n;
}

void TimeColumn::assignArray(const TimeNs* values, std::size_t n) {
  clear();
  reserve(n);
  const std::size_t whole = n / kBlock * kBlock;
  for (std::size_t k = 0; k < whole; k += kBlock) encodeBlock(values + k, kBlock);
  tail_.assign(values + whole, values + n);
}

void TimeColumn::sealTail() {
  encodeBlock(tail_.data(), tail_.size());
  tail_.clear();  // keeps its capacity for the next block
}

void TimeColumn::unsealLastBlock() {
  // The last block was sealed while incomplete (shrink_to_fit); take it back as plain values.
  const std::size_t first = (blocks_.size() - 1) * kBlock;
  std::vector<TimeNs> values;
  values.reserve(kBlock);
  for (std::size_t i = first; i < sealed_; ++i) values.push_back((*this)[i]);
  // Zero its bits (those above the used ones stay zero) and drop it.
  usedBits_ = blocks_.back().firstBit();
  const std::size_t word = static_cast<std::size_t>(usedBits_ / 64);
  bits_[word] &= (std::uint64_t{1} << (usedBits_ % 64)) - 1;
  std::fill(bits_.begin() + static_cast<std::ptrdiff_t>(word) + 1, bits_.end(), 0);
  bits_.resize(word + 2);
  blocks_.pop_back();
  sealed_ = first;
  auto it = std::lower_bound(escapes_.begin(), escapes_.end(), static_cast<std::uint32_t>(first), byIndex);
  escapes_.erase(it, escapes_.end());
  tail_ = std::move(values);
}

void TimeColumn::set(std::size_t i, TimeNs v) {
  if (i >= sealed_) {
    tail_[i - sealed_] = v;
    return;
  }
  const Block& b = blocks_[i >> kBlockBits];
  const unsigned w = b.width();
  const std::uint64_t marker = (std::uint64_t{1} << w) - 1;
  const std::uint64_t bit = b.firstBit() + (i & (kBlock - 1)) * w;
  const std::uint64_t d = static_cast<std::uint64_t>(v) - static_cast<std::uint64_t>(b.base);
  const bool fits = v >= b.base && d < marker;
  auto it = std::lower_bound(escapes_.begin(), escapes_.end(), static_cast<std::uint32_t>(i), byIndex);
  const bool wasEscape = bitpack::read(bits_.data(), bit, w) == marker;
  if (fits) {
    store(bit, w, d);
    if (wasEscape) escapes_.erase(it);
  } else if (wasEscape) {
    it->second = v;
  } else {
    store(bit, w, marker);
    escapes_.insert(it, {static_cast<std::uint32_t>(i), v});
  }
}

void TimeColumn::addToAll(TimeNs delta) {
  for (Block& b : blocks_) b.base += delta;
  for (auto& e : escapes_) e.second += delta;
  for (TimeNs& t : tail_) t += delta;
}

void TimeColumn::reserve(std::size_t n) {
  // Room for the widest offsets: capacity never written is not resident.
  bits_.reserve(n / (64 / kMaxWidth) + 2);
  blocks_.reserve(n / kBlock + 1);
  if (n >= kBlock) tail_.reserve(kBlock);
}

void TimeColumn::reserveTouched(std::size_t n) {
  const std::size_t held = bits_.size();
  clear();
  reserve(n);
  const std::size_t want = held > 0 ? held + held / 8 + 1 : n / (64 / kMaxWidth) + 2;
  bits_.resize(std::min(want, bits_.capacity()), 0);  // writes every word: pages touched
  clear();                                            // keeps the capacity
  if (n > 0) blocks_.resize(n / kBlock + 1), blocks_.clear();
}

std::size_t TimeColumn::capacityBytes() const {
  return blocks_.capacity() * sizeof(Block) + bits_.capacity() * sizeof(std::uint64_t) +
         escapes_.capacity() * sizeof(escapes_[0]) + tail_.capacity() * sizeof(TimeNs);
}

void TimeColumn::clear() {
  blocks_.clear();
  bits_.clear();
  usedBits_ = 0;
  sealed_ = 0;
  escapes_.clear();
  tail_.clear();
}

void TimeColumn::seal() {
  if (!tail_.empty()) encodeBlock(tail_.data(), tail_.size());
  releaseMemory(tail_);
}

void TimeColumn::shrink_to_fit() {
  seal();
  blocks_.shrink_to_fit();
  bits_.shrink_to_fit();
  escapes_.shrink_to_fit();
}

TimeNs TimeColumn::maxValue() const {
  TimeNs best = std::numeric_limits<TimeNs>::min();
  for (std::size_t b = 0; b < blocks_.size(); ++b) {
    const std::size_t first = b * kBlock, last = std::min(sealed_, first + kBlock);
    const unsigned w = blocks_[b].width();
    const std::uint64_t marker = (std::uint64_t{1} << w) - 1;
    std::uint64_t hi = 0, bit = blocks_[b].firstBit();
    bool any = false;
    for (std::size_t i = first; i < last; ++i, bit += w) {
      const std::uint64_t o = bitpack::read(bits_.data(), bit, w);
      if (o != marker) {
        hi = std::max(hi, o);
        any = true;
      }
    }
    if (any) best = std::max(best, blocks_[b].base + static_cast<TimeNs>(hi));
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
  return blocks_.size() * sizeof(Block) + bits_.size() * sizeof(std::uint64_t) + escapes_.size() * sizeof(escapes_[0]) +
         tail_.size() * sizeof(TimeNs);
}

bool TimeColumn::operator==(const TimeColumn& o) const {
  if (size() != o.size()) return false;
  for (std::size_t i = 0; i < size(); ++i)
    if ((*this)[i] != o[i]) return false;
  return true;
}

}  // namespace perwiz
