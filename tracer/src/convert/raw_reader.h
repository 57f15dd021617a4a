// Reading the tracer's raw per-rank files (format: ../common/raw_format.h).
#pragma once

#include "common/raw_format.h"

#include <cstdint>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

namespace perwiz::trace {

struct RawComm {
  std::uint32_t id = 0;
  std::string creator;
  std::vector<std::int32_t> members;  // comm-local rank i -> world rank
  bool inter = false;
};

struct ClockPoint {
  std::uint64_t local = 0;  // the rank's clock when the offset was measured
  std::int64_t offset = 0;  // add to the rank's clock to get rank 0's
};

// How the rank's recording ended.
enum class RankEnd { Unknown, Finalized, Aborted, Signal, Exit };

struct RankDefs {
  int rank = -1;
  int size = 0;
  std::string host;
  std::string program;
  std::vector<ClockPoint> clock;  // init, then final (either may be missing)
  std::map<std::uint16_t, std::string> regions;
  std::vector<RawComm> comms;  // in definition (= creation) order
  RankEnd end = RankEnd::Unknown;
  long endValue = 0;  // error code or signal number
  std::uint64_t finalizedRecords = 0;
  std::vector<std::string> problems;  // malformed lines, for the report
};

// Parses rank-<r>.def. Throws TraceError (perwiz/trace_io.h) if the file cannot be read or is
// not a tracer definition file; malformed lines are kept in `problems`.
RankDefs readRankDefs(const std::string& path);

// Streams the records of rank-<r>.evt.
class RawEventFile {
 public:
  // Throws TraceError if the file cannot be opened or its header is not the tracer's.
  RawEventFile(const std::string& path, int expectedRank);
  ~RawEventFile();
  RawEventFile(const RawEventFile&) = delete;
  RawEventFile& operator=(const RawEventFile&) = delete;

  // The next record (Enter and Leave fill only the head); false at the end.
  bool next(RawRecord& record);
  // After next() returned false: complete records read, and the bytes of an incomplete last
  // record (a write cut short), which are ignored.
  std::uint64_t records() const { return records_; }
  std::uint64_t tornBytes() const { return tornBytes_; }

 private:
  bool refill();

  std::string path_;
  std::FILE* file_ = nullptr;
  std::uint64_t records_ = 0;
  std::uint64_t tornBytes_ = 0;
  std::vector<unsigned char> buffer_;
  std::size_t pos_ = 0;
  std::size_t filled_ = 0;
  bool eof_ = false;
};

}  // namespace perwiz::trace
