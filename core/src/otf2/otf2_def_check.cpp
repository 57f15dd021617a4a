// Why this check exists. libotf2 3.0 reads the array of a Group definition (a communicator's or
// the locations' members) with a loop of OTF2_Buffer_ReadUint64 over the count the record
// declares, and that read does not look at the end of the buffer: a count larger than the
// record holds walks past the file's buffer until it reaches an unmapped page (SIGSEGV in
// OTF2_Buffer_ReadUint64, found by fuzz_otf2 in CI and by setting byte 290 or 292 of a
// generated archive's traces.def to 00 or ff, which shifts a group's fields so that a member
// byte is read as the count). Before the loop it also mallocs count x 8 bytes (2.9 GB and 32 GB
// claims found by the fuzzer).
//
// What is checked: the file's records are walked as libotf2 frames them (an 18-byte chunk
// header, then per record a type byte and a length byte, 0xff announcing an 8-byte length; the
// end-of-chunk byte 0 and the end-of-file byte 2 end the walk: libotf2 stops at 2 and, for a
// definition file it read whole, fails to load a next chunk at 0 — checked by putting each byte
// after the clock properties of a generated archive: otf2-print stops at 0 and 2 and reads 1, 3
// and 4 as unknown records, which it skips by their length), and every Group record's
// members must lie inside the record: each compressed member takes at least its size byte.
// Anything else libotf2 checks itself (a record running past the file, a bad size byte), so the
// walk stops there and lets libotf2 report it. One pass over the file, which libotf2 reads whole
// anyway (a few MB for the largest Score-P traces).
//
// The other arrays of global definitions (MetricClass, CartTopology, CartCoordinate, IoParadigm)
// have 8-bit counts: libotf2 can overread by at most 255 compressed values there, inside or
// just past its buffer, so they are left to it.
#include "otf2_def_check.h"

#include "otf2_common.h"

#include "perwiz/trace_io.h"

#include <cstdint>
#include <string_view>

#include <cerrno>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace perwiz::otf2 {

namespace {

constexpr std::size_t kChunkHeaderBytes = 18;  // OTF2_CHUNK_HEADER_SIZE
constexpr std::uint8_t kEndOfChunk = 0, kEndOfFile = 2;
constexpr std::uint8_t kGroupRecord = 18;  // OTF2_GLOBAL_DEF_GROUP

// Reads as libotf2's buffer does, but never past `end`.
class Cursor {
 public:
  Cursor(std::string_view b, std::size_t pos, std::size_t end, bool big) : b_(b), pos_(pos), end_(end), big_(big) {}
  std::size_t pos() const { return pos_; }
  bool u8(std::uint8_t& v) {
    if (pos_ >= end_) return false;
    v = static_cast<std::uint8_t>(b_[pos_++]);
    return true;
  }
  // A compressed integer of at most `maxBytes` bytes: a size byte, then that many bytes (0 and
  // 0xff stand alone). False if it does not fit before the end or the size byte is invalid.
  bool compressed(unsigned maxBytes, std::uint64_t& v) {
    std::uint8_t size = 0;
    if (!u8(size)) return false;
    v = size == 0xff ? ~std::uint64_t{0} : 0;
    if (size == 0 || size == 0xff) return true;
    if (size > maxBytes || end_ - pos_ < size) return false;
    for (unsigned i = 0; i < size; ++i) {
      const auto byte = static_cast<std::uint8_t>(b_[pos_ + (big_ ? i : size - 1 - i)]);
      v = (v << 8) | byte;
    }
    pos_ += size;
    return true;
  }
  bool full64(std::uint64_t& v) {
    if (end_ - pos_ < 8) return false;
    v = 0;
    for (int i = 0; i < 8; ++i) v = (v << 8) | static_cast<std::uint8_t>(b_[pos_ + (big_ ? i : 7 - i)]);
    pos_ += 8;
    return true;
  }

 private:
  std::string_view b_;
  std::size_t pos_, end_;
  bool big_;
};

void checkBytes(const std::string& shown, const std::string& file, std::string_view b) {
  if (b.size() < kChunkHeaderBytes) return;  // libotf2 refuses it itself
  const auto endianness = static_cast<std::uint8_t>(b[1]);
  if (endianness != 0x42 && endianness != 0x23) return;
  const bool big = endianness == 0x23;
  std::size_t pos = kChunkHeaderBytes;
  while (pos < b.size()) {
    const auto type = static_cast<std::uint8_t>(b[pos]);
    if (type == kEndOfChunk || type == kEndOfFile) return;
    const std::size_t at = pos;
    Cursor head(b, pos + 1, b.size(), big);
    std::uint8_t small = 0;
    if (!head.u8(small)) return;
    std::uint64_t length = small;
    if (small == 0xff && !head.full64(length)) return;
    if (length > b.size() - head.pos()) return;  // libotf2: "could not read record"
    const std::size_t begin = head.pos(), end = begin + static_cast<std::size_t>(length);
    if (type == kGroupRecord) {
      // self, name (compressed 32-bit), the pre-1.2 group type (8-bit), the member count
      // (compressed 32-bit), then the members (compressed 64-bit each).
      Cursor c(b, begin, end, big);
      auto corrupt = [&](const std::string& what) {
        return TraceError(shown, "corrupt OTF2 global definition file " + file + ": the group definition at byte " +
                                     std::to_string(at) + " " + what);
      };
      std::uint64_t self = 0, name = 0, count = 0;
      std::uint8_t type12 = 0;
      if (!c.compressed(4, self) || !c.compressed(4, name) || !c.u8(type12) || !c.compressed(4, count))
        throw corrupt("is malformed before its member count");
      for (std::uint64_t i = 0; i < count; ++i) {
        std::uint64_t member = 0;
        if (!c.compressed(8, member))
          throw corrupt("declares " + std::to_string(count) + " members, but its " + std::to_string(length) +
                        "-byte record ends inside member " + std::to_string(i + 1));
      }
    }
    pos = end;
  }
}

// OTF2's buffer marks in an event file (otf2's OTF2_Buffer.h): a timestamp is the mark and 8
// bytes, every other record a type byte, a length (one byte, or 0xff and 8 bytes) and that many
// bytes. Checked on the repro archive (../shared/repro) and every shared and generated archive:
// each whole file's last chunk walks to its end-of-file mark, the cut one does not.
constexpr std::uint8_t kTimestamp = 5;

}  // namespace

void checkEventFileEnd(const std::string& shown, const std::string& file, std::uint64_t chunkSize) {
  const int fd = ::open(file.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return;  // libotf2 reports what it cannot open (the file was checked to exist)
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size <= 0 || chunkSize == 0) {
    ::close(fd);
    return;
  }
  const auto size = static_cast<std::uint64_t>(st.st_size);
  // Only the last chunk can make libotf2 wait: it asks for a next chunk at an end-of-chunk mark
  // or where a record runs past its data, and only after the last chunk is there none.
  const std::uint64_t first = (size - 1) / chunkSize * chunkSize;
  std::string b(static_cast<std::size_t>(size - first), '\0');
  std::size_t got = 0;
  while (got < b.size()) {
    const ssize_t n = ::pread(fd, b.data() + got, b.size() - got, static_cast<off_t>(first + got));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    got += static_cast<std::size_t>(n);
  }
  ::close(fd);
  b.resize(got);
  auto corrupt = [&](std::uint64_t at, const std::string& what) {
    return TraceError(shown, "corrupt or cut OTF2 event file " + file + " (" + std::to_string(size) + " bytes): " +
                                 what + " at byte " + std::to_string(first + at));
  };
  if (b.size() < kChunkHeaderBytes) throw corrupt(0, "its last chunk is shorter than a chunk header");
  const auto endianness = static_cast<std::uint8_t>(b[1]);
  if (endianness != 0x42 && endianness != 0x23) return;  // libotf2 refuses it itself
  const bool big = endianness == 0x23;
  std::size_t pos = kChunkHeaderBytes;
  while (pos < b.size()) {
    const auto type = static_cast<std::uint8_t>(b[pos]);
    if (type == kEndOfFile) return;
    if (type == kEndOfChunk) throw corrupt(pos, "an end-of-chunk mark in the last chunk, with no chunk after it");
    if (type == kTimestamp) {
      if (b.size() - pos < 9) throw corrupt(pos, "a timestamp runs past the end of the file");
      pos += 9;
      continue;
    }
    Cursor head(b, pos + 1, b.size(), big);
    std::uint8_t small = 0;
    bool fits = head.u8(small);
    std::uint64_t length = small;
    if (fits && small == 0xff) fits = head.full64(length);
    if (!fits || length > b.size() - head.pos()) throw corrupt(pos, "a record runs past the end of the file");
    pos = head.pos() + static_cast<std::size_t>(length);
  }
  throw corrupt(b.size(), "the file ends without its end-of-file mark");
}

void checkGlobalDefinitions(const std::string& shown, const std::string& file) {
  const std::string bytes = readFileBeforeLibotf2(shown, file, "the global definition file");
  checkBytes(shown, file, bytes);
}

}  // namespace perwiz::otf2
