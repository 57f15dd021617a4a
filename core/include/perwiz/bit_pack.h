// Offsets packed in w bits each (1 <= w <= 32), little-endian in 64-bit words: what TimeColumn
// (the model's times) and the replay engine's SmallTimes share. Public (like TimeColumn) so
// that both reach it.
//
// An offset d fits w bits when d + 1 < 2^w: 2^w - 1 marks a value kept elsewhere (an escape).
// A block's width is the one that stores its offsets in the fewest bits, an escape costing
// 16 B (128 bits).
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>

namespace perwiz::bitpack {

// The bits that hold d + 1 (65 when d + 1 overflows): d fits any width from it on.
inline unsigned bitsFor(std::uint64_t d) {
  return d == ~std::uint64_t{0} ? 65u : 64u - unsigned(std::countl_zero(d + 1));
}

// The cheapest width for a block of `slots` offsets of which count[b] need b bits (b in 0..65).
inline unsigned cheapestWidth(const std::uint32_t (&count)[66], std::size_t slots) {
  std::uint64_t outside = 0;  // offsets that need more than the width
  for (unsigned b = 2; b < 66; ++b) outside += count[b];
  unsigned w = 1;
  std::uint64_t best = slots + outside * 128;
  for (unsigned c = 2; c <= 32; ++c) {
    outside -= count[c];
    if (const std::uint64_t cost = std::uint64_t{c} * slots + outside * 128; cost < best) best = cost, w = c;
  }
  return w;
}

// The 8 bytes at p, little-endian (an unaligned load).
inline std::uint64_t load64(const unsigned char* p) {
  std::uint64_t x;
  std::memcpy(&x, p, 8);
  return x;
}

// The w-bit offset at bit `bit` of `words` (little-endian; the words must extend 8 bytes past
// the byte holding `bit`: a packed array ends with a zero word).
inline std::uint64_t read(const std::uint64_t* words, std::uint64_t bit, unsigned w) {
  std::uint64_t x;
  std::memcpy(&x, reinterpret_cast<const unsigned char*>(words) + (bit >> 3), 8);
  return (x >> (bit & 7)) & ((std::uint64_t{1} << w) - 1);
}

// Writes offsets of w bits from a word on, gathering them in a register: a word at a time.
class Writer {
 public:
  Writer(std::uint64_t* out, unsigned w) : out_(out), w_(w) {}
  void put(std::uint64_t d) {
    acc_ |= d << fill_;
    fill_ += w_;
    if (fill_ >= 64) {
      *out_++ = acc_;
      fill_ -= 64;
      acc_ = fill_ > 0 ? d >> (w_ - fill_) : 0;
    }
  }
  void finish() {
    if (fill_ > 0) *out_ = acc_;
  }

 private:
  std::uint64_t* out_;
  std::uint64_t acc_ = 0;
  unsigned w_, fill_ = 0;
};

}  // namespace perwiz::bitpack
