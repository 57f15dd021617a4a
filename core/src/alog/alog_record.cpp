#include "alog_record.h"

#include <cstdio>
#include <limits>

namespace perwiz::alog {
namespace {

const char* const kFieldNames[6] = {"type", "process", "task", "data", "cycle", "timestamp"};

const char* skipBlanks(const char* p, const char* end) {
  while (p < end && isBlank(*p)) ++p;
  return p;
}

const char* tokenEnd(const char* p, const char* end) {
  while (p < end && !isBlank(*p)) ++p;
  return p;
}

bool isDigit(char c) { return static_cast<unsigned char>(c - '0') < 10; }

// Unsigned decimal digits at p, accumulated with overflow detection (one compare per digit;
// this loop is the reader's hot spot).
// Returns the position after the digits; `digits` tells how many there were.
const char* parseDigits(const char* p, const char* end, std::uint64_t& value, bool& overflow,
                        std::size_t& digits) {
  constexpr std::uint64_t kLimit = (std::numeric_limits<std::uint64_t>::max() - 9) / 10;
  const char* start = p;
  std::uint64_t acc = 0;
  for (; p < end && isDigit(*p); ++p) {
    overflow |= acc > kLimit;
    acc = acc * 10 + static_cast<unsigned>(*p - '0');
  }
  value = acc;
  digits = static_cast<std::size_t>(p - start);
  return p;
}

// A signed decimal integer at p that must end at a blank or at `end` (a leading '+' is
// accepted like sscanf %d). Returns the position after it, or nullptr.
const char* parseIntAtCarefully(const char* p, const char* end, std::int64_t& v) {
  bool negative = false;
  if (p < end && (*p == '-' || *p == '+')) {
    negative = *p == '-';
    ++p;
  }
  std::uint64_t mag = 0;
  bool overflow = false;
  std::size_t digits = 0;
  p = parseDigits(p, end, mag, overflow, digits);
  if (digits == 0 || overflow || (p < end && !isBlank(*p))) return nullptr;
  constexpr auto kMax = static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max());
  if (mag > kMax + (negative ? 1 : 0)) return nullptr;
  v = negative ? static_cast<std::int64_t>(~mag + 1) : static_cast<std::int64_t>(mag);
  return p;
}

// The same, the common case first (the reader's hot spot: five fields of every line, twice):
// up to 18 digits cannot overflow, so the loop checks nothing per digit; a '+', a longer
// number or anything odd goes the careful way, which decides.
inline const char* parseIntAt(const char* p, const char* end, std::int64_t& v) {
  const char* const start = p;
  const bool negative = p < end && *p == '-';
  p += negative;
  const char* const digits = p;
  const char* const limit = end - p > 18 ? p + 18 : end;
  std::uint64_t acc = 0;
  for (; p < limit; ++p) {
    const unsigned d = static_cast<unsigned char>(*p) - unsigned{'0'};
    if (d > 9) break;
    acc = acc * 10 + d;
  }
  if (p == digits || (p < end && !isBlank(*p))) return parseIntAtCarefully(start, end, v);
  v = negative ? -static_cast<std::int64_t>(acc) : static_cast<std::int64_t>(acc);
  return p;
}

bool parseWholeInt(const char* b, const char* e, std::int64_t& v) {
  return parseIntAt(b, e, v) == e;
}

// The timestamp in µs at p, integer or decimal (nupshot reads it with %lf), converted to ns
// without going through floating point: up to three fractional digits are exact, further
// digits round half up on the fourth. It must end at a blank or at `end`.
enum class StampResult { Ok, NotANumber, OutOfRange };
StampResult parseStamp(const char*& p, const char* end, TimeNs& ns) {
  bool negative = false;
  if (p < end && (*p == '-' || *p == '+')) {
    negative = *p == '-';
    ++p;
  }
  std::uint64_t whole = 0;
  bool overflow = false;
  std::size_t intDigits = 0;
  p = parseDigits(p, end, whole, overflow, intDigits);
  std::int64_t fraction = 0;  // ns
  std::size_t fracDigits = 0;
  if (p < end && *p == '.') {
    ++p;
    bool roundUp = false;
    for (; p < end && isDigit(*p); ++p, ++fracDigits) {
      if (fracDigits < 3) fraction = fraction * 10 + (*p - '0');
      else if (fracDigits == 3) roundUp = *p >= '5';
    }
    for (std::size_t d = fracDigits; d < 3; ++d) fraction *= 10;
    if (roundUp) ++fraction;  // may reach 1000: carried by the addition below
  }
  if (intDigits + fracDigits == 0 || (p < end && !isBlank(*p))) return StampResult::NotANumber;
  // Exact: every time the model holds (up to 2^63 - 1 ns, which the writer writes as
  // 9223372036854775.807) reads back; beyond it is out of range.
  const __int128 exact = static_cast<__int128>(whole) * 1000 + fraction;
  if (overflow || exact > std::numeric_limits<TimeNs>::max()) return StampResult::OutOfRange;
  const TimeNs value = static_cast<TimeNs>(exact);
  ns = negative ? -value : value;
  return StampResult::Ok;
}

}  // namespace

bool isSkippableLine(std::string_view line) {
  const char* p = skipBlanks(line.data(), line.data() + line.size());
  return p == line.data() + line.size() || *p == '#';
}

bool parseRecord(std::string_view line, Record& out, std::string& problem) {
  const char* p = line.data();
  const char* const end = p + line.size();
  auto missing = [&](int field) {
    problem = "line has only " + std::to_string(field) +
              " of the 6 numeric fields (type process task data cycle timestamp)";
    return false;
  };
  std::int64_t* ints[5] = {&out.type, &out.process, &out.task, &out.data, &out.cycle};
  for (int field = 0; field < 5; ++field) {
    p = skipBlanks(p, end);
    if (p == end) return missing(field);
    const char* q = parseIntAt(p, end, *ints[field]);
    if (!q) {
      problem = std::string("field '") + kFieldNames[field] + "' is not an integer: " +
                quoteBytes(std::string_view(p, tokenEnd(p, end) - p));
      return false;
    }
    p = q;
  }
  p = skipBlanks(p, end);
  if (p == end) return missing(5);
  const char* stamp = p;
  switch (parseStamp(p, end, out.stampNs)) {
    case StampResult::Ok: break;
    case StampResult::NotANumber:
      problem = "field 'timestamp' is not a number: " +
                quoteBytes(std::string_view(stamp, tokenEnd(stamp, end) - stamp));
      return false;
    case StampResult::OutOfRange:
      problem = "timestamp out of range: " +
                quoteBytes(std::string_view(stamp, tokenEnd(stamp, end) - stamp));
      return false;
  }
  p = skipBlanks(p, end);
  const char* commentEnd = end;
  while (commentEnd > p && isBlank(commentEnd[-1])) --commentEnd;
  out.comment = std::string_view(p, commentEnd - p);
  return true;
}

bool peekTypeAndProcess(std::string_view line, std::int64_t& type, std::int64_t& process) {
  const char* end = line.data() + line.size();
  const char* p = skipBlanks(line.data(), end);
  if (p == end || *p == '#' || !(p = parseIntAt(p, end, type))) return false;
  p = skipBlanks(p, end);
  return parseIntAt(p, end, process) != nullptr;
}

bool parseMessageComment(std::string_view comment, std::int32_t& tag, std::uint64_t& bytes) {
  const char* p = comment.data();
  const char* const end = p + comment.size();
  p = skipBlanks(p, end);
  const char* e = tokenEnd(p, end);
  std::int64_t t = 0;
  if (p == e || !parseWholeInt(p, e, t)) return false;
  if (t < std::numeric_limits<std::int32_t>::min() || t > std::numeric_limits<std::int32_t>::max())
    return false;
  p = skipBlanks(e, end);
  e = tokenEnd(p, end);
  std::int64_t size = 0;
  if (p == e || !parseWholeInt(p, e, size) || size < 0) return false;
  tag = static_cast<std::int32_t>(t);
  bytes = static_cast<std::uint64_t>(size);
  return true;
}

std::string quoteBytes(std::string_view s, std::size_t maxLen) {
  std::string out = "'";
  for (std::size_t i = 0; i < s.size() && i < maxLen; ++i) {
    unsigned char c = static_cast<unsigned char>(s[i]);
    if (c >= 0x20 && c < 0x7f && c != '\\' && c != '\'') {
      out += static_cast<char>(c);
    } else {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02x", c);
      out += buf;
    }
  }
  if (s.size() > maxLen) out += "...";
  out += "'";
  return out;
}

}  // namespace perwiz::alog
