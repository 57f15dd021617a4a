// What overhead detection needs to know about every MPI call of a trace (internal): its
// function name, its (p, b) class and its call site.
#pragma once

#include "perwiz/trace.h"

#include <string>
#include <vector>

namespace perwiz::stats_detail {

struct CallDescription {
  std::uint32_t name = kNone32;    // index into CallTable::names; kNone32: not analysed
  std::uint32_t processes = 0;     // p
  std::uint64_t bytes = 0;         // b
  std::uint32_t region = kNone32;  // function of the innermost enclosing user state, kNone32: none
};

struct CallTable {
  std::vector<std::string> names;  // distinct overheadFunctionName()s
  std::vector<std::vector<CallDescription>> calls;  // [rank][MPI call index]
};

CallTable describeCalls(const Trace& trace);

}  // namespace perwiz::stats_detail
