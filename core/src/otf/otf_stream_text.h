// The text of one OTF (version 1) event stream, in chunks of whole records (internal).
//
// Every stream is read the same way, whatever its size and compression: its file's bytes as
// they are (X.n.events) or inflated with zlib (X.n.events.z), handed out in chunks that end at
// a line end and never between a key-value line ('K...') and the record it belongs to. The
// OTF library then parses each chunk from memory (otf_reader.cpp). Its own file reading is
// not used for event streams: Debian's libotf 1.12.5 cannot read a compressed stream larger
// than a few KiB (it seeks inside the zlib stream to find the stream's last time and fails
// with Z_DATA_ERROR), and it merges all streams through one heap where PerWiz reads a stream
// at a time.
#pragma once

#include "perwiz/internal/otf_common.h"

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace perwiz::otf {

class StreamText {
 public:
  // `chunkBytes`: the usual chunk size (a chunk grows beyond it only for a longer record).
  // Throws TraceError naming `anchor` and the stream file when the file cannot be opened.
  StreamText(std::string anchor, const StreamFile& file, std::size_t chunkBytes = std::size_t{4} << 20);
  ~StreamText();
  StreamText(const StreamText&) = delete;
  StreamText& operator=(const StreamText&) = delete;

  // The next chunk: whole lines, each ending in '\n'; empty once the stream is done. Valid
  // until the next call. Throws TraceError for a corrupt or truncated compressed stream.
  std::string_view next();
  // Offset of the last chunk's first byte in the stream's text (inflated for .z).
  std::uint64_t chunkOffset() const { return chunkOffset_; }
  // Bytes of the file read so far (compressed bytes for .z), for progress.
  std::uint64_t fileBytesRead() const { return fileRead_; }
  // A last line without its line end (a cut stream) was dropped: its length, else 0.
  std::size_t droppedTail() const { return droppedTail_; }
  const StreamFile& file() const { return file_; }

 private:
  // Appends the file's next bytes (inflated) to buf_[end_...]; false at the end of the stream.
  bool fill();
  std::size_t readFile(char* dst, std::size_t n);

  std::string anchor_;
  StreamFile file_;
  int fd_ = -1;
  struct Inflater;
  std::unique_ptr<Inflater> z_;
  std::vector<char> buf_;
  std::size_t begin_ = 0, end_ = 0;  // unconsumed text buf_[begin_, end_)
  std::size_t chunkBytes_;
  std::uint64_t chunkOffset_ = 0, nextOffset_ = 0, fileRead_ = 0;
  std::size_t droppedTail_ = 0;
  bool eof_ = false;
};

// The first time record of a stream (records of one stream are in time order, so it is the
// stream's earliest time); false if it has none. Reads only as far as that record.
bool firstStreamTime(const std::string& anchor, const StreamFile& file, std::uint64_t& ticks);

}  // namespace perwiz::otf
