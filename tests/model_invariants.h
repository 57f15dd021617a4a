// Structural invariants every built Trace must satisfy, whatever the input. Tests call this
// on real samples, generated traces and damaged files that still load.
#pragma once

#include "perwiz/trace.h"

#include <string>

namespace perwiz::test {

// Empty when all hold; otherwise the first violation found.
std::string modelViolation(const Trace& t);

}  // namespace perwiz::test
