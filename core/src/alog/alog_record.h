// One ALOG line split into its fields: `type process task data cycle timestamp [comment]`.
//
// Shared by the reader's two passes. Parsing is hand-written with std::from_chars because the
// reader must sustain tens of MB/s; sscanf or streams per line would be several times slower.
#pragma once

#include "perwiz/trace.h"

#include <cstdint>
#include <string>
#include <string_view>

namespace perwiz::alog {

// Reserved record types (MPE's ALOG header records).
inline constexpr std::int64_t kCreator = -1;
inline constexpr std::int64_t kEventCount = -2;
inline constexpr std::int64_t kProcessCount = -3;
inline constexpr std::int64_t kTaskCount = -4;
inline constexpr std::int64_t kEventTypeCount = -5;
inline constexpr std::int64_t kStartTime = -6;
inline constexpr std::int64_t kEndTime = -7;
inline constexpr std::int64_t kTimerCycles = -8;
inline constexpr std::int64_t kEventDef = -9;
inline constexpr std::int64_t kEventFormat = -10;
inline constexpr std::int64_t kRollover = -11;
inline constexpr std::int64_t kStateDef = -13;
inline constexpr std::int64_t kProcessDef = -15;
inline constexpr std::int64_t kSync = -100;
inline constexpr std::int64_t kSend = -101;
inline constexpr std::int64_t kRecv = -102;
inline constexpr std::int64_t kConstDef = -201;

// -1 … -100 are header records; everything else is a data record.
inline bool isHeaderType(std::int64_t type) { return type <= -1 && type >= -100; }

// Largest process id we accept; anything above is a corrupt file, not a real run.
inline constexpr std::int64_t kMaxProcessId = 1000000;

struct Record {
  std::int64_t type = 0;
  std::int64_t process = 0;
  std::int64_t task = 0;
  std::int64_t data = 0;
  std::int64_t cycle = 0;
  TimeNs stampNs = 0;         // the timestamp field (µs) converted exactly to ns
  std::string_view comment;   // rest of the line, blanks trimmed at both ends; raw bytes
};

// Blank, tab, CR, VT, FF (the line feed never reaches the parser). A table, because the
// parser asks this for nearly every byte of the file.
inline constexpr struct BlankTable {
  bool blank[256] = {};
  constexpr BlankTable() {
    for (unsigned char c : {' ', '\t', '\r', '\v', '\f'}) blank[c] = true;
  }
} kBlanks{};
inline bool isBlank(char c) { return kBlanks.blank[static_cast<unsigned char>(c)]; }

// True for lines the format tells us to skip: only blanks, or a '#' comment.
bool isSkippableLine(std::string_view line);

// Parses one line (without its '\n'). On failure returns false and describes the problem
// (without position: the caller adds file and line).
bool parseRecord(std::string_view line, Record& out, std::string& problem);

// The first two fields (type and process) of a line, without the rest: for a reader that skips
// the records of other processes. False for a line that holds no record (blank, '#').
bool peekTypeAndProcess(std::string_view line, std::int64_t& type, std::int64_t& process);

// Parses a message comment "<tag> <size>" (first two blank-separated tokens, both integers,
// size non-negative; later tokens are ignored because CLOG-converted strings may carry junk).
bool parseMessageComment(std::string_view comment, std::int32_t& tag, std::uint64_t& bytes);

// Quotes a byte string for an error message: printable ASCII kept, the rest as \xNN, cut short.
std::string quoteBytes(std::string_view s, std::size_t maxLen = 24);

}  // namespace perwiz::alog
