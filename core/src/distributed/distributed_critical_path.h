// The critical path of perwiz-mpi: the serial backward walk (critical_path.h), handed from
// process to process.
//
// After the distributed sweep every process holds its own ranks' predicted enters and leaves,
// and the enters of its ghost units and proxies (distributed_sweep.h). The walk starts on the
// process of the rank that ends last and explains each return by the replay's own rule
// (returnCause, return_cause.h). While the cause lies on the process's own ranks it goes on
// there; a cause on a ghost unit hands the walk to that unit's owner (named by rank and MPI call
// index, ImportedGhosts::callIndex). A gather whose latest member may lie in a proxy (cost mode
// measured) asks every process for its first member, in communicator order, with the gather's
// value; the earliest of those (and of the asking process's own) is the serial walk's member.
// Only one process walks at a time; the others wait in the rounds' exchange (one exchange per
// hand-off, two per proxy question). Segments are numbered along the walk, so that process 0
// can put a listing gathered from every process into the serial walk's order.
#pragma once

#include "distributed_sweep.h"

#include "perwiz/critical_path.h"

#include <string>
#include <vector>

namespace perwiz {

struct ImportedGhosts;

struct DistributedCriticalPath {
  // Length and totals on every process; the listing (as criticalPath() with the same listing and
  // `firstSegments`) on process 0 only. totals.perFunction is indexed by `functions` (process 0's
  // Trace::functions, then names only other processes' ranks use).
  CriticalPath path;
  std::vector<std::string> functions;
  // Per listed segment (process 0): the function of its call and of its partner ("" if none).
  std::vector<std::string> callFunction, partnerFunction;
  std::uint64_t rounds = 0;  // exchanges the walk took
};

// Every process of `group` calls it after sweepDistributed() on the same replayer and links.
// `predictedEnd` is every rank's predicted end (the same on every process).
DistributedCriticalPath criticalPathDistributed(const Replayer& replayer, const Trace& trace, const SweepLinks& links,
                                                const ImportedGhosts& imported,
                                                const std::vector<TimeNs>& predictedEnd, ProcessGroup& group,
                                                CriticalPathListing listing,
                                                std::size_t firstSegments = static_cast<std::size_t>(-1));

}  // namespace perwiz
