#include "def_file.h"

#include "state.h"

#include <cerrno>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <unistd.h>

namespace perwiz::trace {

namespace {

void writeAll(int fd, const char* data, std::size_t size) {
  while (size > 0) {
    const ssize_t n = ::write(fd, data, size);
    if (n < 0) {
      if (errno == EINTR) continue;
      return;  // nothing sensible to do: the converter reports the missing definition
    }
    data += n;
    size -= static_cast<std::size_t>(n);
  }
}

}  // namespace

void defLine(const char* format, ...) {
  if (g.defFd < 0) return;
  char line[1024];
  va_list ap;
  va_start(ap, format);
  int n = std::vsnprintf(line, sizeof line - 1, format, ap);
  va_end(ap);
  if (n < 0) return;
  if (static_cast<std::size_t>(n) > sizeof line - 2) n = sizeof line - 2;
  line[n++] = '\n';
  writeAll(g.defFd, line, static_cast<std::size_t>(n));
}

void writeDefLine(const std::string& line) {
  if (g.defFd < 0) return;
  std::string withNewline = line + "\n";  // one write(2): lines are never interleaved
  writeAll(g.defFd, withNewline.data(), withNewline.size());
}

void defLineSignalSafe(const char* keyword, long value) {
  if (g.defFd < 0) return;
  char line[64];
  std::size_t n = 0;
  for (const char* k = keyword; *k && n < 40; ++k) line[n++] = *k;
  line[n++] = ' ';
  char digits[24];
  std::size_t d = 0;
  const bool negative = value < 0;
  unsigned long v = negative ? 0ul - static_cast<unsigned long>(value) : static_cast<unsigned long>(value);
  do {
    digits[d++] = static_cast<char>('0' + v % 10);
    v /= 10;
  } while (v > 0);
  if (negative) line[n++] = '-';
  while (d > 0) line[n++] = digits[--d];
  line[n++] = '\n';
  writeAll(g.defFd, line, n);
}

}  // namespace perwiz::trace
