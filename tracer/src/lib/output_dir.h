// Where a run's trace goes: DIR/NAME, from PERWIZ_TRACE_DIR (default: the working directory)
// and PERWIZ_TRACE_NAME (default: "<program>-trace"). An existing trace is never overwritten:
// if DIR/NAME exists, the run takes DIR/NAME-1, DIR/NAME-2, ... and says so on stderr.
#pragma once

#include <string>

namespace perwiz::trace {

// Creates DIR/NAME and DIR/NAME/perwiz-raw (rank 0 only) and returns DIR/NAME as an absolute
// path; "" after printing why when it cannot (the run then goes untraced).
std::string reserveTraceDir(const std::string& program);

}  // namespace perwiz::trace
