// Pass 1 of the ALOG reader over one chunk of the file: a run of whole lines, scanned on its own
// thread. What a line means on its own (a data record's fields, its process, its time, its type)
// is gathered here; what depends on the lines before it (header records: the first definition
// wins, communicators come in order) is kept as an entry for the reader to handle in file order
// once every chunk is scanned (alog_reader.cpp). Line numbers are the chunk's own (1-based);
// the reader adds the lines of the chunks before.
#pragma once

#include "alog_record.h"
#include "event_table.h"

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace perwiz::alog {

// Reader diagnostics of one kind beyond this many are summarised (a broken file could
// otherwise produce one per line).
inline constexpr std::size_t kMaxWarningsPerKind = 20;

// The earliest and latest stamp of the records of one rollover cycle, each with its line.
struct StampRange {
  TimeNs min = std::numeric_limits<TimeNs>::max();
  std::int64_t minLine = 0;
  TimeNs max = std::numeric_limits<TimeNs>::min();
  std::int64_t maxLine = 0;
  // Keeps the earliest line of each extreme, whatever order ranges are merged in.
  void add(TimeNs t, std::int64_t line) {
    if (t < min || (t == min && line < minLine)) min = t, minLine = line;
    if (t > max || (t == max && line < maxLine)) max = t, maxLine = line;
  }
};

// A line handled in file order after the scan.
struct ScanEntry {
  enum Kind : std::uint8_t {
    Header,  // a header record (type -1 … -100), parsed again by the reader
    LoneCr,  // a carriage return inside a line of a file with line feeds
    Cut,     // the last line of the file without its line end
  };
  Kind kind = Header;
  std::int64_t line = 0;
  std::string_view text;  // the line, into the mapped file
};

// What pass 1 notes of each line for pass 2 when pass 2 runs on several threads (4 B per line,
// freed after pass 2): the process of a data record pass 2 streams (kNotStreamed for any other
// line: blank, comment, header, constant, the cut last line) and the line's length without its
// line end (kLongLine: this long or longer, found again with memchr). Each of pass 2's threads
// then reads only its processes' lines, without finding every line's end and first two fields
// again (which took about 95 ms per thread on issue #42's 203 MB ring).
namespace line_index {
inline constexpr unsigned kProcessBits = 20;
inline constexpr std::uint32_t kNotStreamed = (1u << kProcessBits) - 1;
inline constexpr std::uint32_t kLongLine = (1u << (32 - kProcessBits)) - 1;
static_assert(kMaxProcessId < kNotStreamed, "every process id must fit beside the marker");
inline std::uint32_t entry(std::size_t length, std::uint32_t process) {
  return static_cast<std::uint32_t>(std::min<std::size_t>(length, kLongLine)) << kProcessBits | process;
}
inline std::uint32_t process(std::uint32_t e) { return e & kNotStreamed; }
inline std::uint32_t length(std::uint32_t e) { return e >> kProcessBits; }
}  // namespace line_index

struct ChunkScan {
  const char* nul = nullptr;       // the chunk's first NUL byte (then nothing else is scanned)
  std::vector<std::uint32_t> lineIndex;  // per line (line_index), when asked for
  std::int64_t lines = 0;          // lines scanned (all of the chunk unless it failed)
  std::vector<ScanEntry> entries;  // in line order
  std::uint64_t loneCrBeyond = 0;  // LoneCr lines after the first kMaxWarningsPerKind
  bool sawRecord = false;          // a record parsed before the failure, if any

  // The first line that is no record (the scan stops there): `problem` as parseRecord says it
  // (the reader words it as "not ALOG text" when no record came before in the file), or an
  // absurd process id.
  std::int64_t errorLine = 0;  // 0: none
  bool absurdProcess = false;
  std::int64_t errorProcess = 0;
  std::string problem;

  std::uint64_t dataRecords = 0;  // including MPE's constant definitions (-201)
  std::int64_t maxProcess = -1;   // of the data records that are events
  std::int64_t maxProcessLine = 0;
  std::map<std::int64_t, StampRange> stampsByCycle;  // few cycles in practice: usually just 0
  EventTypeSet pointTypes;                           // types of data records that may be lone events
  std::vector<std::uint64_t> recordsPerProcess;      // data records that are events, by process
  // Send/receive records without a "<tag> <size>" comment (kept as lone events, with a warning
  // each): the first kMaxWarningsPerKind lines and how many there are.
  std::vector<std::int64_t> messageWarningLines;
  std::uint64_t messageWarnings = 0;
};

// Scans `chunk` (whole lines; only the file's last chunk may end without a line end, `last`).
// `lf`: lines end with '\n' (a '\r' inside a line is then a lone CR, reported). A chunk with a
// NUL byte is binary data: only `nul` is set. `tick` is called about every MiB with the bytes scanned so far and may
// throw to stop the scan (a cancelled load); the scan also stops, with what it has, when `stop` becomes true.
// `index`: fill ChunkScan::lineIndex.
ChunkScan scanChunk(std::string_view chunk, char eol, bool lf, bool last, const std::function<void(std::size_t)>& tick,
                    const std::atomic<bool>& stop, bool index = false);

// Walks the lines of a buffer, counting them (1-based) for error messages. Lines end at
// `eol`: '\n' (a CR before it is a blank to the parser, so CRLF files read the same), or '\r'
// for a file of classic Mac OS line ends.
class LineCursor {
 public:
  LineCursor(std::string_view text, char eol) : p_(text.data()), end_(text.data() + text.size()), eol_(eol) {}
  bool next(std::string_view& line);
  std::int64_t lineNo() const { return lineNo_; }
  const char* position() const { return p_; }
  // False for a last line that has no line end.
  bool complete() const { return complete_; }

 private:
  const char* p_;
  const char* end_;
  char eol_;
  std::int64_t lineNo_ = 0;
  bool complete_ = true;
};

inline bool LineCursor::next(std::string_view& line) {
  if (p_ >= end_) return false;
  const char* nl = static_cast<const char*>(std::memchr(p_, eol_, static_cast<std::size_t>(end_ - p_)));
  const char* e = nl ? nl : end_;
  line = std::string_view(p_, static_cast<std::size_t>(e - p_));
  // A last line without its line end was cut short (a CRLF file cut between CR and LF still
  // holds the whole line).
  complete_ = nl || (!line.empty() && line.back() == '\r');
  p_ = nl ? nl + 1 : end_;
  ++lineNo_;
  return true;
}

// True when a line with a carriage return in it holds more than blanks after the CR (a lone
// CR, not a line end).
bool hasLoneCr(std::string_view line);

}  // namespace perwiz::alog
