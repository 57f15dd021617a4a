// The parallel region of a trace chosen by name (paper §2.1: one execution of the region on
// every rank is a step): the candidates a trace offers and the trace with that region's steps.
// No widgets (the session uses it; RegionPickerDialog shows the candidates).
#pragma once

#include "perwiz/trace.h"

#include <QString>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace perwiz::gui {

struct RegionCandidate {
  std::string name;
  std::uint64_t occurrences = 0;  // over all ranks
  std::uint32_t steps = 0;        // most outermost occurrences on one rank = steps it would give
  std::uint32_t ranks = 0;        // ranks where it occurs
};

// Every user state / non-MPI region of the trace, most steps first.
std::vector<RegionCandidate> regionCandidates(const Trace& trace);

// A copy of `trace` whose steps are the executions of `name` (nullptr + reason if no function
// has that name). The copy shares nothing with the original.
std::shared_ptr<const Trace> withParallelRegion(const Trace& trace, const std::string& name, QString* error);

}  // namespace perwiz::gui
