// The rank's definition file (perwiz-raw/rank-<r>.def, format in raw_format.h): definitions are
// appended with one write(2) each as soon as they exist, so they survive a crash.
#pragma once

#include <string>

namespace perwiz::trace {

// printf-style; the line gets its newline here. Lines longer than 1 KiB go through writeDefLine.
void defLine(const char* format, ...) __attribute__((format(printf, 1, 2)));
void writeDefLine(const std::string& line);

// Async-signal-safe: "<keyword> <value>\n" without printf.
void defLineSignalSafe(const char* keyword, long value);

}  // namespace perwiz::trace
