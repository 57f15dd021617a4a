// OTF event streams as text chunks: plain files read as they are, .z files inflated with zlib.
#include "otf_stream_text.h"

#include "perwiz/trace_io.h"

#include <zlib.h>

#include <algorithm>
#include <charconv>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <unistd.h>

namespace perwiz::otf {

struct StreamText::Inflater {
  z_stream z{};
  std::vector<unsigned char> in = std::vector<unsigned char>(std::size_t{1} << 18);
  bool inputDone = false;
  bool atStreamEnd = false;  // inflate reached a zlib stream's end
  bool finished = false;     // the input is done and whole
  Inflater() {
    if (inflateInit(&z) != Z_OK) throw std::bad_alloc();
  }
  ~Inflater() { inflateEnd(&z); }
};

StreamText::StreamText(std::string anchor, const StreamFile& file, std::size_t chunkBytes)
    : anchor_(std::move(anchor)), file_(file), chunkBytes_(std::max<std::size_t>(chunkBytes, 64)) {
  fd_ = ::open(file_.path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd_ < 0)
    throw TraceError(anchor_, "cannot open the event stream file " + file_.path + ": " + std::strerror(errno));
  if (file_.compressed) z_ = std::make_unique<Inflater>();
  buf_.resize(chunkBytes_);
}

StreamText::~StreamText() {
  if (fd_ >= 0) ::close(fd_);
}

std::size_t StreamText::readFile(char* dst, std::size_t n) {
  std::size_t got = 0;
  while (got < n) {
    const ssize_t k = ::read(fd_, dst + got, n - got);
    if (k < 0) {
      if (errno == EINTR) continue;
      throw TraceError(anchor_, "cannot read the event stream file " + file_.path + ": " + std::strerror(errno));
    }
    if (k == 0) break;
    got += static_cast<std::size_t>(k);
  }
  fileRead_ += got;
  return got;
}

bool StreamText::fill() {
  char* dst = buf_.data() + end_;
  const std::size_t room = buf_.size() - end_;
  if (!z_) {
    const std::size_t n = readFile(dst, room);
    end_ += n;
    return n > 0;
  }
  Inflater& f = *z_;
  if (f.finished) return false;
  f.z.next_out = reinterpret_cast<Bytef*>(dst);
  f.z.avail_out = static_cast<uInt>(std::min<std::size_t>(room, 1u << 30));
  const uInt outBefore = f.z.avail_out;
  while (f.z.avail_out > 0) {
    if (f.z.avail_in == 0 && !f.inputDone) {
      const std::size_t n = readFile(reinterpret_cast<char*>(f.in.data()), f.in.size());
      f.z.next_in = f.in.data();
      f.z.avail_in = static_cast<uInt>(n);
      if (n == 0) f.inputDone = true;
    }
    if (f.z.avail_in == 0 && f.inputDone) {
      // The input is done. VampirTrace and libotf end a stream with a sync flush, not with
      // zlib's stream end: that is whole if inflate stopped between two blocks.
      if (!f.atStreamEnd && ((f.z.data_type & 128) == 0 || f.z.total_in == 0))
        throw TraceError(anchor_, "the compressed event stream " + file_.path + " ends inside a zlib block after " +
                                      std::to_string(fileRead_) + " bytes (a truncated file?)");
      f.finished = true;
      break;
    }
    if (f.atStreamEnd) {  // more input after a zlib stream's end: concatenated streams
      inflateReset(&f.z);
      f.atStreamEnd = false;
    }
    const int status = inflate(&f.z, Z_NO_FLUSH);
    if (status == Z_STREAM_END) {
      f.atStreamEnd = true;  // whole; the input may still go on (read above, or done)
      continue;
    }
    if (status == Z_BUF_ERROR && f.z.avail_in == 0) continue;  // needs more input: read above
    if (status != Z_OK) {
      const std::uint64_t at = fileRead_ - f.z.avail_in;
      throw TraceError(anchor_, "the compressed event stream " + file_.path + " is corrupt at byte " +
                                    std::to_string(at) + " (zlib: " + (f.z.msg ? f.z.msg : "error " + std::to_string(status)) +
                                    ")");
    }
  }
  const std::size_t n = outBefore - f.z.avail_out;
  end_ += n;
  return n > 0 || !f.finished;
}

namespace {
// True if the line that starts at p is a key-value line (it belongs to the next record).
bool keyValueLine(const char* p, const char* end) {
  while (p < end && (*p == ' ' || *p == '\t')) ++p;
  return p < end && *p == 'K';
}
}  // namespace

std::string_view StreamText::next() {
  // Keep what the last chunk left (a part of a record), at the front.
  if (begin_ > 0) {
    std::memmove(buf_.data(), buf_.data() + begin_, end_ - begin_);
    end_ -= begin_;
    begin_ = 0;
  }
  for (;;) {
    while (!eof_ && end_ < buf_.size())
      if (!fill()) eof_ = true;
    // Cut after the last line end whose line is not a key-value line.
    const char* data = buf_.data();
    const std::string_view text(data, end_);
    std::size_t cut = 0, limit = end_;
    while (limit > 0) {
      const std::size_t nl = text.rfind('\n', limit - 1);
      if (nl == std::string_view::npos) break;
      std::size_t start = 0;
      if (nl > 0)
        if (const std::size_t p = text.rfind('\n', nl - 1); p != std::string_view::npos) start = p + 1;
      if (!keyValueLine(data + start, data + nl)) {
        cut = nl + 1;
        break;
      }
      limit = start;  // look before this key-value line
    }
    if (eof_) {
      // The end of the stream: every whole line; a last line without its line end was cut.
      std::size_t whole = end_;
      while (whole > 0 && data[whole - 1] != '\n') --whole;
      if (whole < end_) {
        bool blank = true;
        for (std::size_t i = whole; i < end_ && blank; ++i) blank = data[i] == ' ' || data[i] == '\t' || data[i] == '\r';
        if (!blank) droppedTail_ = end_ - whole;
      }
      cut = whole;
    } else if (cut == 0) {
      // One record (with its key-value lines) longer than the buffer: grow it, as libotf's
      // own buffer does, up to its bound.
      if (buf_.size() >= (std::size_t{1} << 30))
        throw TraceError(anchor_, "a record longer than 1 GiB in " + file_.path + " at byte " + std::to_string(nextOffset_));
      buf_.resize(buf_.size() * 2);
      continue;
    }
    chunkOffset_ = nextOffset_;
    nextOffset_ += cut;
    begin_ = cut;
    if (eof_) end_ = cut;  // the dropped tail is gone
    return {buf_.data(), cut};
  }
}

bool firstStreamTime(const std::string& anchor, const StreamFile& file, std::uint64_t& ticks) {
  StreamText text(anchor, file, std::size_t{1} << 16);
  for (std::string_view chunk = text.next(); !chunk.empty(); chunk = text.next()) {
    std::size_t pos = 0;
    while (pos < chunk.size()) {
      std::size_t nl = chunk.find('\n', pos);
      std::size_t i = pos;
      while (i < nl && (chunk[i] == ' ' || chunk[i] == '\t')) ++i;
      // A time record is a hexadecimal number alone (libotf: its first character is 0-9 or a-f).
      const char c = i < nl ? chunk[i] : '\0';
      if ((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f')) {
        std::from_chars(chunk.data() + i, chunk.data() + nl, ticks, 16);
        return true;
      }
      pos = nl + 1;
    }
  }
  return false;
}

}  // namespace perwiz::otf
