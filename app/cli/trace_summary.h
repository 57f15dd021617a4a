// Per-rank figures shown by `perwiz-cli info`.
#pragma once

#include "perwiz/trace.h"

#include <optional>
#include <string>
#include <vector>

namespace perwiz::cli {

struct RankSummary {
  std::string name;
  std::uint64_t events = 0;
  std::uint64_t mpiCalls = 0;
  std::uint64_t sends = 0;
  std::uint64_t receives = 0;
  std::uint64_t collectives = 0;
  TimeNs mpiBusyNs = 0;  // time covered by MPI calls (union, so nested calls count once)
  std::optional<TimeNs> firstEnter, lastLeave;  // empty for a rank without events
};

RankSummary summarizeRank(const Trace& trace, std::uint32_t rank);

}  // namespace perwiz::cli
