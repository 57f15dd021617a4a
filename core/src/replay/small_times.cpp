// SmallTimes' packing and unpacking (internal/small_times.h).
#include "perwiz/internal/small_times.h"

#include "perwiz/bit_pack.h"
#include "perwiz/rank_parallel.h"
#include "perwiz/release.h"

namespace perwiz {

namespace {
std::uint64_t offsetOf(TimeNs v, std::int32_t base) {
  return static_cast<std::uint64_t>(v) - static_cast<std::uint64_t>(TimeNs{base});
}
}  // namespace

void SmallTimes::seal() {
  if (sealed_) return;
  const std::size_t n = values_.size();
  const std::size_t nBlocks = (n + kBlock - 1) / kBlock;
  // Parts of whole blocks packed in parallel: first every block's base and width (the width
  // that stores it in the fewest bits, an escape costing 16 B = 128 bits), then, once the
  // words are laid out, the bits in an array of exactly their size. A block writes only its
  // own words.
  constexpr std::size_t kPartBlocks = 4096;
  const auto parts = static_cast<std::uint32_t>((nBlocks + kPartBlocks - 1) / kPartBlocks);
  std::vector<Block> blocks(nBlocks + 1);
  std::vector<std::uint8_t> width(nBlocks);
  forEachRank(parts, n, [&](std::uint32_t part) {
    for (std::size_t b = part * kPartBlocks; b < std::min(nBlocks, (part + 1) * kPartBlocks); ++b) {
      const std::size_t first = b * kBlock, m = std::min(kBlock, n - first);
      TimeNs lo = (*this)[first];
      for (std::size_t k = 1; k < m; ++k) lo = std::min(lo, (*this)[first + k]);
      const auto base = static_cast<std::int32_t>(std::clamp<TimeNs>(lo, INT32_MIN, INT32_MAX));
      std::uint32_t count[66] = {};
      for (std::size_t k = 0; k < m; ++k) ++count[bitpack::bitsFor(offsetOf((*this)[first + k], base))];
      blocks[b].base = base;
      width[b] = static_cast<std::uint8_t>(bitpack::cheapestWidth(count, kBlock));
    }
  });
  std::uint64_t words = 0;
  for (std::size_t b = 0; b < nBlocks; ++b) {
    blocks[b].word = static_cast<std::uint32_t>(words);
    words += width[b];  // 64 values of w bits: w words (a short last block too)
    if (words >= UINT32_MAX) throw std::length_error("SmallTimes: more than 2^32 words to pack");
  }
  blocks[nBlocks] = {0, static_cast<std::uint32_t>(words)};
  releaseMemory(width);
  std::vector<std::uint64_t> bits(words + 1, 0);  // and one zero word: reads take 8 bytes
  std::vector<std::vector<std::pair<std::size_t, TimeNs>>> partEscapes(parts);
  forEachRank(parts, n, [&](std::uint32_t part) {
    for (std::size_t b = part * kPartBlocks; b < std::min(nBlocks, (part + 1) * kPartBlocks); ++b) {
      const unsigned w = blocks[b + 1].word - blocks[b].word;
      const std::uint64_t marker = (std::uint64_t{1} << w) - 1;
      const std::size_t first = b * kBlock, m = std::min(kBlock, n - first);
      // The offsets gathered in a register and written a word at a time, into the block's own
      // w words (another thread writes the next block's).
      bitpack::Writer out(bits.data() + blocks[b].word, w);
      for (std::size_t k = 0; k < m; ++k) {
        const TimeNs v = (*this)[first + k];
        std::uint64_t d = offsetOf(v, blocks[b].base);
        if (d >= marker) {
          d = marker;
          partEscapes[part].emplace_back(first + k, v);
        }
        out.put(d);
      }
      out.finish();
    }
  });
  std::vector<std::pair<std::size_t, TimeNs>> escapes;
  for (auto& e : partEscapes) escapes.insert(escapes.end(), e.begin(), e.end());
  releaseMemory(values_);
  releaseMemory(wide_);
  count_ = n;
  blocks_ = std::move(blocks);
  bits_ = std::move(bits);
  escapes_ = std::move(escapes);
  sealed_ = true;
}

void SmallTimes::unpack() {
  const std::size_t n = count_;
  std::vector<TimeNs> all(n);
  for (std::size_t i = 0; i < n; ++i) all[i] = packedAt(i);
  dropPacked();
  values_.assign(n, 0);
  wide_.clear();
  for (std::size_t i = 0; i < n; ++i) set(i, all[i]);
}

}  // namespace perwiz
