#include "raw_reader.h"

#include "perwiz/trace_io.h"

#include <cerrno>
#include <charconv>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace perwiz::trace {

namespace {

template <class T>
bool parseNumber(const std::string& text, T& value) {
  const char* end = text.data() + text.size();
  auto [p, ec] = std::from_chars(text.data(), end, value);
  return ec == std::errc() && p == end;
}

// "keyword rest..." -> rest after the first blank ("" if none).
std::string restOf(const std::string& line, std::size_t words) {
  std::size_t pos = 0;
  for (std::size_t w = 0; w < words; ++w) {
    pos = line.find(' ', pos);
    if (pos == std::string::npos) return {};
    ++pos;
  }
  return line.substr(pos);
}

bool parseLine(const std::string& line, RankDefs& d) {
  std::istringstream in(line);
  std::string key;
  in >> key;
  std::vector<std::string> f;
  for (std::string w; in >> w;) f.push_back(w);
  if (key == "perwiz-trace") {
    unsigned version = 0;
    if (f.size() != 1 || !parseNumber(f[0], version)) return false;
    if (version != kRawVersion)
      throw std::runtime_error("written in raw format version " + std::to_string(version) +
                               "; this converter reads version " + std::to_string(kRawVersion));
    return true;
  }
  if (key == "rank")
    return f.size() == 3 && f[1] == "size" && parseNumber(f[0], d.rank) && parseNumber(f[2], d.size);
  if (key == "host") return d.host = restOf(line, 1), true;
  if (key == "program") return d.program = restOf(line, 1), true;
  if (key == "clock") {
    ClockPoint c;
    if (f.size() != 3 || (f[0] != "init" && f[0] != "final") || !parseNumber(f[1], c.local) ||
        !parseNumber(f[2], c.offset))
      return false;
    d.clock.push_back(c);
    return true;
  }
  if (key == "region") {
    std::uint16_t id = 0;
    const std::string name = restOf(line, 2);
    if (f.empty() || !parseNumber(f[0], id) || name.empty()) return false;
    d.regions[id] = name;
    return true;
  }
  if (key == "comm") {
    RawComm c;
    std::size_t n = 0;
    if (f.size() < 3 || !parseNumber(f[0], c.id) || !parseNumber(f[2], n) || f.size() != 3 + n)
      return false;
    c.creator = f[1];
    for (std::size_t i = 0; i < n; ++i) {
      std::int32_t w = 0;
      if (!parseNumber(f[3 + i], w) || w < 0) return false;
      c.members.push_back(w);
    }
    d.comms.push_back(std::move(c));
    return true;
  }
  if (key == "comm-inter") {
    RawComm c;
    c.inter = true;
    if (f.size() != 1 || !parseNumber(f[0], c.id)) return false;
    d.comms.push_back(std::move(c));
    return true;
  }
  if (key == "finalized") {
    d.end = RankEnd::Finalized;
    return f.size() == 1 && parseNumber(f[0], d.finalizedRecords);
  }
  if (key == "aborted" || key == "signal") {
    // An abort is the first cause; the signal that follows it (mpirun's SIGTERM) is not.
    if (d.end == RankEnd::Unknown || d.end == RankEnd::Exit) {
      d.end = key == "aborted" ? RankEnd::Aborted : RankEnd::Signal;
      return f.size() == 1 && parseNumber(f[0], d.endValue);
    }
    return true;
  }
  if (key == "exit") {
    if (d.end == RankEnd::Unknown) d.end = RankEnd::Exit;
    return true;
  }
  return false;
}

}  // namespace

RankDefs readRankDefs(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw TraceError(path, std::string("cannot be read: ") + std::strerror(errno));
  RankDefs d;
  std::string line;
  std::size_t lineNo = 0;
  while (std::getline(in, line)) {
    ++lineNo;
    if (line.empty()) continue;
    if (lineNo == 1 && line.rfind("perwiz-trace ", 0) != 0)
      throw TraceError(path, "not a perwiz-trace definition file (first line: '" + line + "')");
    try {
      if (!parseLine(line, d))
        d.problems.push_back("line " + std::to_string(lineNo) + " not understood: '" + line + "'");
    } catch (const std::runtime_error& e) {
      throw TraceError(path, e.what());
    }
  }
  if (lineNo == 0) throw TraceError(path, "is empty");
  if (d.rank < 0 || d.size <= 0) throw TraceError(path, "has no 'rank <r> size <P>' line");
  return d;
}

RawEventFile::RawEventFile(const std::string& path, int expectedRank) : path_(path) {
  file_ = std::fopen(path.c_str(), "rb");
  if (!file_) throw TraceError(path, std::string("cannot be read: ") + std::strerror(errno));
  RawHeader h{};
  if (std::fread(&h, sizeof h, 1, file_) != 1 || std::memcmp(h.magic, kRawMagic, sizeof h.magic) != 0)
    throw TraceError(path, "not a perwiz-trace raw event file");
  if (h.version != kRawVersion || h.recordSize != sizeof(RawRecord))
    throw TraceError(path, "raw event format version " + std::to_string(h.version) +
                               " is not the one this converter reads (" +
                               std::to_string(kRawVersion) + ")");
  if (h.rank != expectedRank)
    throw TraceError(path, "holds rank " + std::to_string(h.rank) + ", expected " +
                               std::to_string(expectedRank));
  buffer_.resize(1u << 20);
}

RawEventFile::~RawEventFile() {
  if (file_) std::fclose(file_);
}

// Keeps the unread tail and appends what the file has next.
bool RawEventFile::refill() {
  if (eof_) return false;
  std::memmove(buffer_.data(), buffer_.data() + pos_, filled_ - pos_);
  filled_ -= pos_;
  pos_ = 0;
  const std::size_t got = std::fread(buffer_.data() + filled_, 1, buffer_.size() - filled_, file_);
  if (got == 0) {
    if (std::ferror(file_)) throw TraceError(path_, "read failed after " + std::to_string(records_) + " records");
    eof_ = true;
    return false;
  }
  filled_ += got;
  return true;
}

bool RawEventFile::next(RawRecord& record) {
  if (filled_ - pos_ < sizeof(RawHead) && !refill() && filled_ - pos_ < sizeof(RawHead)) {
    tornBytes_ = filled_ - pos_;
    return false;
  }
  RawHead head;
  std::memcpy(&head, buffer_.data() + pos_, sizeof head);
  if (head.kind < RecordKind::Enter || head.kind > RecordKind::Cancelled)
    throw TraceError(path_, "record " + std::to_string(records_) + " has an unknown kind " +
                                std::to_string(static_cast<int>(head.kind)) + " (corrupt file?)");
  const std::size_t size = recordSize(head.kind);
  while (filled_ - pos_ < size)
    if (!refill()) {
      tornBytes_ = filled_ - pos_;
      return false;
    }
  record = RawRecord{};
  std::memcpy(&record, buffer_.data() + pos_, size);
  pos_ += size;
  ++records_;
  return true;
}

}  // namespace perwiz::trace
