// The OTF2 fuzz target's input: a serialized archive directory (OTF2 is a directory of files,
// not one buffer). The container is a sequence of entries
//
//   u8 path length | path bytes | u32 little-endian data length | data bytes
//
// read leniently so that mutated inputs still unpack into something: a length running past the
// end is cut to the bytes left, an entry whose path is not a safe relative path ([A-Za-z0-9._-]
// components separated by '/', no "." or "..", at most 4 components, 64 bytes) is skipped, a
// later entry with the same path replaces the earlier one, at most 64 entries are used.
// fuzz_pack turns an archive directory into a container (seeds) and back (to look at a finding).
#pragma once

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <system_error>
#include <vector>

namespace perwiz::fuzz {

struct ArchiveEntry {
  std::string path;
  std::string data;
};

inline bool safeRelativePath(const std::string& p) {
  if (p.empty() || p.size() > 64 || p.front() == '/' || p.back() == '/') return false;
  int components = 0;
  std::size_t start = 0;
  while (start <= p.size()) {
    std::size_t end = p.find('/', start);
    if (end == std::string::npos) end = p.size();
    const std::string c = p.substr(start, end - start);
    if (c.empty() || c == "." || c == "..") return false;
    for (char ch : c) {
      const bool ok = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
                      ch == '.' || ch == '_' || ch == '-';
      if (!ok) return false;
    }
    if (++components > 4) return false;
    start = end + 1;
  }
  return true;
}

inline std::vector<ArchiveEntry> parseContainer(const std::uint8_t* data, std::size_t size) {
  std::vector<ArchiveEntry> entries;
  std::size_t i = 0;
  while (i < size && entries.size() < 64) {
    const std::size_t pathLen = data[i++];
    const std::size_t pl = std::min(pathLen, size - i);
    std::string path(reinterpret_cast<const char*>(data + i), pl);
    i += pl;
    std::uint32_t len = 0;
    for (int b = 0; b < 4 && i < size; ++b) len |= static_cast<std::uint32_t>(data[i++]) << (8 * b);
    const std::size_t dl = std::min<std::size_t>(len, size - i);
    std::string bytes(reinterpret_cast<const char*>(data + i), dl);
    i += dl;
    if (!safeRelativePath(path)) continue;
    auto same = std::find_if(entries.begin(), entries.end(), [&](const ArchiveEntry& e) { return e.path == path; });
    if (same != entries.end()) same->data = std::move(bytes);
    else entries.push_back({std::move(path), std::move(bytes)});
  }
  return entries;
}

inline std::string serializeContainer(const std::vector<ArchiveEntry>& entries) {
  std::string out;
  for (const ArchiveEntry& e : entries) {
    out.push_back(static_cast<char>(e.path.size()));
    out += e.path;
    const auto n = static_cast<std::uint32_t>(e.data.size());
    for (int b = 0; b < 4; ++b) out.push_back(static_cast<char>((n >> (8 * b)) & 0xff));
    out += e.data;
  }
  return out;
}

// Writes the entries below `dir` (which is emptied first). An entry that cannot be written
// (a file where the path needs a directory, or the reverse) is left out.
inline void unpackContainer(const std::vector<ArchiveEntry>& entries, const std::filesystem::path& dir) {
  std::error_code ec;
  std::filesystem::remove_all(dir, ec);
  std::filesystem::create_directories(dir, ec);
  for (const ArchiveEntry& e : entries) {
    const std::filesystem::path p = dir / e.path;
    std::filesystem::create_directories(p.parent_path(), ec);
    if (ec) continue;
    if (std::filesystem::is_directory(p, ec)) continue;
    std::ofstream out(p, std::ios::binary | std::ios::trunc);
    out.write(e.data.data(), static_cast<std::streamsize>(e.data.size()));
  }
}

}  // namespace perwiz::fuzz

// ---- container-aware mutations (issue #38) ------------------------------------------------------
//
// libFuzzer's byte mutations rarely cut one file of an archive where it matters: a cut byte of
// the container shifts every later entry. Real damage is a file cut short (a full disk, a killed
// tracer) or a piece of one file where another belongs. So the OTF and OTF2 targets mutate, half
// of the time, at the level of the archive's files: cut one file at a random offset, splice a
// range of one file into another (or of another input, CrossOver), drop a file, or mutate one
// file's bytes in place with libFuzzer's own mutator; otherwise the container's bytes.
extern "C" std::size_t LLVMFuzzerMutate(std::uint8_t* data, std::size_t size, std::size_t maxSize);

namespace perwiz::fuzz {

// A small deterministic generator from libFuzzer's seed (reproducible mutations).
struct MutationRng {
  std::uint64_t s;
  explicit MutationRng(unsigned seed) : s(seed * 0x9E3779B97F4A7C15ull + 1) {}
  std::uint64_t next() {
    s ^= s << 13;
    s ^= s >> 7;
    s ^= s << 17;
    return s;
  }
  std::size_t below(std::size_t n) { return n ? static_cast<std::size_t>(next() % n) : 0; }
};

inline std::size_t writeBack(const std::vector<ArchiveEntry>& entries, std::uint8_t* data, std::size_t maxSize) {
  const std::string out = serializeContainer(entries);
  if (out.size() > maxSize) return 0;
  std::copy(out.begin(), out.end(), data);
  return out.size();
}

inline std::size_t mutateArchive(std::uint8_t* data, std::size_t size, std::size_t maxSize, unsigned seed) {
  MutationRng rng(seed);
  std::vector<ArchiveEntry> entries = parseContainer(data, size);
  if (entries.empty() || rng.below(2) == 0) return LLVMFuzzerMutate(data, size, maxSize);
  ArchiveEntry& e = entries[rng.below(entries.size())];
  switch (rng.below(4)) {
    case 0:  // cut the file short
      e.data.resize(rng.below(e.data.size() + 1));
      break;
    case 1: {  // splice: a range of another file (or itself) over a range of this one
      const ArchiveEntry& from = entries[rng.below(entries.size())];
      if (from.data.empty()) break;
      const std::size_t at = rng.below(from.data.size());
      const std::size_t n = 1 + rng.below(std::min<std::size_t>(from.data.size() - at, 4096));
      const std::size_t to = rng.below(e.data.size() + 1);
      e.data.replace(to, std::min(n, e.data.size() - to), from.data, at, n);
      break;
    }
    case 2:  // a file missing
      if (entries.size() > 1) entries.erase(entries.begin() + static_cast<std::ptrdiff_t>(rng.below(entries.size())));
      break;
    default: {  // libFuzzer's byte mutations inside one file
      std::string bytes = e.data;
      const std::size_t room = bytes.size() + 64;
      bytes.resize(room);
      const std::size_t n = LLVMFuzzerMutate(reinterpret_cast<std::uint8_t*>(bytes.data()), e.data.size(), room);
      bytes.resize(n);
      e.data = std::move(bytes);
      break;
    }
  }
  const std::size_t n = writeBack(entries, data, maxSize);
  return n ? n : LLVMFuzzerMutate(data, size, maxSize);
}

// Two inputs' files mixed: each file of the result from one of them (the same path from either).
inline std::size_t crossOverArchives(const std::uint8_t* a, std::size_t aSize, const std::uint8_t* b, std::size_t bSize,
                                     std::uint8_t* out, std::size_t maxOut, unsigned seed) {
  MutationRng rng(seed);
  std::vector<ArchiveEntry> x = parseContainer(a, aSize);
  const std::vector<ArchiveEntry> y = parseContainer(b, bSize);
  for (const ArchiveEntry& e : y) {
    auto same = std::find_if(x.begin(), x.end(), [&](const ArchiveEntry& f) { return f.path == e.path; });
    if (same != x.end() && rng.below(2) == 0) same->data = e.data;
    else if (same == x.end() && rng.below(4) == 0) x.push_back(e);
  }
  return writeBack(x, out, maxOut);
}

}  // namespace perwiz::fuzz

// Defines libFuzzer's custom mutator and cross-over hooks of a target whose input is a
// container (once per target binary, at file scope).
#define PERWIZ_ARCHIVE_MUTATORS()                                                                            \
  extern "C" std::size_t LLVMFuzzerCustomMutator(std::uint8_t* data, std::size_t size, std::size_t maxSize,  \
                                                 unsigned int seed) {                                        \
    return perwiz::fuzz::mutateArchive(data, size, maxSize, seed);                                           \
  }                                                                                                          \
  extern "C" std::size_t LLVMFuzzerCustomCrossOver(const std::uint8_t* a, std::size_t aSize,                 \
                                                   const std::uint8_t* b, std::size_t bSize, std::uint8_t* out, \
                                                   std::size_t maxOut, unsigned int seed) {                  \
    return perwiz::fuzz::crossOverArchives(a, aSize, b, bSize, out, maxOut, seed);                           \
  }
