// What the comparison reads from a trace besides T, from `perwiz-cli events TRACE --json`
// (one object per communication call: id "RANK:INDEX", function, enter_ns, leave_ns, ...).
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>

namespace perwiz::models {

// The programs' timed part: from the last rank's leave of its first MPI_Barrier (report_start)
// to the last rank's leave of its second (report_finish). It leaves out MPI_Init and what the
// programs do after their timing (binary_swap's MPI_Gather, report_finish's MPI_Reduce), which
// only the collectives' tree formulas price (docs/model.md §3), the same way in every model.
// Throws std::runtime_error if some rank has fewer than two barriers.
std::int64_t timedPartNs(const nlohmann::json& events);

// Communication time: the durations of every communication call (waits included), summed
// over the ranks.
std::int64_t communicationNs(const nlohmann::json& events);

}  // namespace perwiz::models
