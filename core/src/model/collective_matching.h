// Collective matching by order per communicator (MPI's rule).
#pragma once

#include "perwiz/trace.h"

#include <string>
#include <utility>
#include <vector>

namespace perwiz {

// Numbers the collective instances of `trace` afresh (Trace::collectives, ordered by
// (communicator, sequence)) and sets each participation's instance: the k-th collective call
// of a rank on a communicator joins its k-th instance. Returns (kind, message) diagnostics
// for the builder to cap and store: a member calling another operation, an instance missing
// members.
std::vector<std::pair<std::string, std::string>> matchCollectives(Trace& trace);

}  // namespace perwiz
