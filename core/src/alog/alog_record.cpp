#include "alog_record.h"

#include <charconv>
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

// A signed decimal integer filling the whole token (a leading '+' is accepted like sscanf %d).
bool parseWholeInt(const char* b, const char* e, std::int64_t& v) {
  if (b < e && *b == '+') {
    ++b;
    if (b < e && *b == '-') return false;
  }
  auto [q, ec] = std::from_chars(b, e, v);
  return ec == std::errc{} && q == e;
}

bool isDigit(char c) { return c >= '0' && c <= '9'; }

// The timestamp in µs, integer or decimal (nupshot reads it with %lf), converted to ns without
// going through floating point: up to three fractional digits are exact, further digits round
// half up on the fourth.
enum class StampResult { Ok, NotANumber, OutOfRange };
StampResult parseStamp(const char* b, const char* e, TimeNs& ns) {
  bool negative = false;
  if (b < e && (*b == '-' || *b == '+')) {
    negative = *b == '-';
    ++b;
  }
  const char* intEnd = b;
  while (intEnd < e && isDigit(*intEnd)) ++intEnd;
  std::uint64_t whole = 0;
  if (intEnd > b) {
    auto [q, ec] = std::from_chars(b, intEnd, whole);
    if (ec != std::errc{} || q != intEnd) return StampResult::OutOfRange;
  }
  std::int64_t fraction = 0;  // ns
  bool anyDigit = intEnd > b;
  const char* p = intEnd;
  if (p < e && *p == '.') {
    ++p;
    int digits = 0;
    bool roundUp = false;
    for (; p < e && isDigit(*p); ++p, ++digits) {
      anyDigit = true;
      if (digits < 3) fraction = fraction * 10 + (*p - '0');
      else if (digits == 3) roundUp = *p >= '5';
    }
    for (int d = digits; d < 3; ++d) fraction *= 10;
    if (roundUp) ++fraction;  // may reach 1000: carried by the addition below
  }
  if (!anyDigit || p != e) return StampResult::NotANumber;
  constexpr std::uint64_t kMaxWhole =
      static_cast<std::uint64_t>(std::numeric_limits<TimeNs>::max() / 1000 - 1);
  if (whole > kMaxWhole) return StampResult::OutOfRange;
  TimeNs value = static_cast<TimeNs>(whole) * 1000 + fraction;
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
  std::int64_t* ints[5] = {&out.type, &out.process, &out.task, &out.data, &out.cycle};
  for (int field = 0; field < 6; ++field) {
    p = skipBlanks(p, end);
    if (p == end) {
      problem = "line has only " + std::to_string(field) +
                " of the 6 numeric fields (type process task data cycle timestamp)";
      return false;
    }
    const char* e = tokenEnd(p, end);
    if (field < 5) {
      if (!parseWholeInt(p, e, *ints[field])) {
        problem = std::string("field '") + kFieldNames[field] + "' is not an integer: " +
                  quoteBytes(std::string_view(p, e - p));
        return false;
      }
    } else {
      switch (parseStamp(p, e, out.stampNs)) {
        case StampResult::Ok: break;
        case StampResult::NotANumber:
          problem = "field 'timestamp' is not a number: " + quoteBytes(std::string_view(p, e - p));
          return false;
        case StampResult::OutOfRange:
          problem = "timestamp out of range: " + quoteBytes(std::string_view(p, e - p));
          return false;
      }
    }
    p = e;
  }
  p = skipBlanks(p, end);
  const char* commentEnd = end;
  while (commentEnd > p && isBlank(commentEnd[-1])) --commentEnd;
  out.comment = std::string_view(p, commentEnd - p);
  return true;
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
