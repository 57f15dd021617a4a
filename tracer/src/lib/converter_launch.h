// Runs perwiz-trace-convert (a separate program, linked with PerWiz's core writers) on the
// finished run's raw files. Keeping the conversion out of the MPI process keeps the library
// small (one copy per rank under SMPI) and free of libotf2, and the same program converts what
// an aborted run left behind.
//
// The converter is looked up as: $PERWIZ_TRACE_CONVERTER; relative to the library (beside it
// or one level up in the build tree, <prefix>/bin for an installed one) and, for SMPI's
// per-rank copies of the library, to each LD_LIBRARY_PATH directory; on $PATH; in the install
// prefix's bindir. No build-tree path is compiled in (tests/check_binaries.sh).
#pragma once

#include <string>

namespace perwiz::trace {

// The converter's path, "" if none is found.
std::string findConverter();

// Converts traceDir (format: PERWIZ_FORMAT's value) and waits; prints what to do if it fails.
// Returns true on success.
bool runConverter(const char* traceDir, const char* format);

}  // namespace perwiz::trace
