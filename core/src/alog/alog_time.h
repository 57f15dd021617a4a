// ALOG timestamps are microseconds; the model counts nanoseconds. The writer prints whole
// microseconds as integers (what every MPE-era reader expects) and keeps sub-microsecond
// precision as exactly three decimals, which upshot (%lf) and our reader accept.
#pragma once

#include "perwiz/trace.h"

#include <charconv>

namespace perwiz::alog {

// Writes ns as "<µs>" or "<µs>.<3 digits>" into buf (at least 32 bytes); returns the end.
inline char* formatMicros(TimeNs ns, char* buf) {
  char* p = buf;
  // Work on the magnitude as unsigned so that even INT64_MIN is printed correctly.
  std::uint64_t mag = static_cast<std::uint64_t>(ns);
  if (ns < 0) {
    *p++ = '-';
    mag = ~mag + 1;
  }
  p = std::to_chars(p, buf + 32, mag / 1000).ptr;
  if (unsigned frac = static_cast<unsigned>(mag % 1000); frac != 0) {
    p[0] = '.';
    p[1] = static_cast<char>('0' + frac / 100);
    p[2] = static_cast<char>('0' + frac / 10 % 10);
    p[3] = static_cast<char>('0' + frac % 10);
    p += 4;
  }
  return p;
}

}  // namespace perwiz::alog
