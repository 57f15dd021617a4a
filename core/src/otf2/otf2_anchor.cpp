// The OTF2 anchor of a path given by the user: the file itself, or the single *.otf2 file in a
// directory. Lives in the OTF2 module because the reader needs it and links before trace_io.
#include "otf2_anchor.h"
#include "otf2_common.h"

#include "perwiz/trace_io.h"

#include <cstdint>
#include <filesystem>
#include <string_view>
#include <vector>

namespace fs = std::filesystem;

namespace perwiz {

std::string resolveOtf2Anchor(const std::string& path) {
  std::error_code ec;
  fs::file_status st = fs::status(path, ec);
  if (ec || !fs::exists(st)) throw TraceError(path, "no such file or directory");
  if (!fs::is_directory(st)) {
    if (!fs::is_regular_file(st)) throw TraceError(path, "not a regular file");
    return path;
  }
  std::vector<fs::path> anchors;
  for (const auto& e : fs::directory_iterator(path, ec))
    if (e.path().extension() == ".otf2" && e.is_regular_file(ec)) anchors.push_back(e.path());
  if (ec) throw TraceError(path, "cannot list the directory: " + ec.message());
  if (anchors.empty()) throw TraceError(path, "directory holds no OTF2 anchor file (*.otf2)");
  if (anchors.size() > 1)
    throw TraceError(path, "directory holds " + std::to_string(anchors.size()) +
                               " OTF2 anchor files; name one of them");
  return anchors.front().string();
}

namespace otf2 {

// Why this check exists. libotf2 3.0's OTF2_AnchorFile_Load trusts the anchor's property count,
// a 32-bit field after the three strings machine, creator and description: it callocs 2·n
// pointers (2·n wraps around for n >= 2^31, and the loop then writes past the array: heap
// corruption, "double free or corruption") and reads 2·n strings. Its string reader searches
// for the terminating NUL from the read position to the buffer's end; past the end that length
// is negative, so it scans (and copies) the heap beyond the file: 11-12 GB after 60 s for one
// changed byte. Found by setting each byte of binary_swap_8's anchor to 00/ff/80/7f/01/40 in a
// child under RLIMIT_AS = 1 GiB: only the count's bytes (57, 58 there) made OTF2_Reader_Open
// or the global definitions fail to return; no other field did.
//
// Chosen protection: check the few fields libotf2 reads before it, here: 19 µs per load
// (OTF2_Reader_Open itself takes 28 µs). The alternative, OTF2_Reader_Open in a fork()ed child
// under setrlimit(RLIMIT_AS), measured 13 ms per load from a small process and 228 ms from one
// holding 1 GB (a GUI with a model loaded; on this loaded 2-core VM), is unsafe with other
// threads running, and still leaves the parent to open the same file unprotected afterwards. What is checked is the
// anchor's layout as OTF2_AnchorFile_Load reads it (libotf2 3.0.2, anchor formats 1-3):
//   [0] chunk header byte, [1] endianness ('B' 0x42 little, '#' 0x23 big), "OTF2\0",
//   u8 anchor format, 38 bytes (trace format, version, chunk sizes, substrate, compression,
//   location and definition counts), 3 NUL-terminated strings; format >= 2: u32 property
//   count, 2 strings per property, u64 trace id; format >= 3: u32 snapshots, u32 thumbnails.
// Everything up to the end of the properties must lie inside the file. Anything else in the
// anchor libotf2 checks itself (or only stores).
namespace {

// libotf2 reads the whole anchor into one malloc'd buffer. Real anchors are a few hundred
// bytes (Score-P: 5 properties); a larger file is no anchor.
constexpr std::uint64_t kMaxAnchorBytes = std::uint64_t{1} << 20;

class AnchorCursor {
 public:
  AnchorCursor(std::string_view bytes, bool bigEndian) : b_(bytes), big_(bigEndian) {}
  bool skip(std::size_t n) {
    if (b_.size() - pos_ < n) return false;
    pos_ += n;
    return true;
  }
  bool u8(std::uint8_t& v) {
    if (pos_ >= b_.size()) return false;
    v = static_cast<std::uint8_t>(b_[pos_++]);
    return true;
  }
  bool u32(std::uint32_t& v) {
    if (b_.size() - pos_ < 4) return false;
    v = 0;
    for (int i = 0; i < 4; ++i) {
      const auto byte = static_cast<std::uint8_t>(b_[pos_ + (big_ ? i : 3 - i)]);
      v = (v << 8) | byte;
    }
    pos_ += 4;
    return true;
  }
  bool string() {
    const std::size_t nul = b_.find('\0', pos_);
    if (nul == std::string_view::npos) return false;
    pos_ = nul + 1;
    return true;
  }
  std::size_t left() const { return b_.size() - pos_; }

 private:
  std::string_view b_;
  bool big_;
  std::size_t pos_ = 0;
};

std::string readAnchorBytes(const std::string& shown, const std::string& anchor) {
  return readFileBeforeLibotf2(shown, anchor, "the OTF2 anchor file", kMaxAnchorBytes,
                               "a real anchor has a few hundred (at most " + std::to_string(kMaxAnchorBytes) +
                                   " accepted)");
}

}  // namespace

void checkAnchor(const std::string& shown, const std::string& anchor) {
  const std::string bytes = readAnchorBytes(shown, anchor);
  auto corrupt = [&](const std::string& what) {
    return TraceError(shown, "corrupt OTF2 anchor file " + anchor + ": " + what);
  };
  constexpr std::string_view kMagic("OTF2\0", 5);
  if (bytes.size() < 2 + kMagic.size() || std::string_view(bytes).substr(2, 5) != kMagic)
    throw corrupt("no OTF2 magic at its start");
  const auto endianness = static_cast<std::uint8_t>(bytes[1]);
  if (endianness != 0x42 && endianness != 0x23)
    throw corrupt("unknown byte order mark " + std::to_string(endianness));
  AnchorCursor c(bytes, endianness == 0x23);
  std::uint8_t format = 0;
  c.skip(2 + kMagic.size());
  if (!c.u8(format) || !c.skip(38) || !c.string() || !c.string() || !c.string())
    throw corrupt("cut short in its header");
  if (format < 2) return;  // anchor format 1 has no properties
  std::uint32_t properties = 0;
  if (!c.u32(properties)) throw corrupt("cut short before its property count");
  // Each property is two NUL-terminated strings, so at least 2 bytes.
  if (properties > c.left() / 2)
    throw corrupt("it declares " + std::to_string(properties) + " properties, but its " +
                  std::to_string(c.left()) + " remaining bytes hold at most " +
                  std::to_string(c.left() / 2));
  for (std::uint64_t i = 0; i < 2 * std::uint64_t{properties}; ++i)
    if (!c.string())
      throw corrupt("it declares " + std::to_string(properties) +
                    " properties, but the file ends inside property " + std::to_string(i / 2 + 1));
  if (!c.skip(8) || (format > 2 && !c.skip(8))) throw corrupt("cut short after its properties");
}

}  // namespace otf2

}  // namespace perwiz
