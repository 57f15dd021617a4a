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
