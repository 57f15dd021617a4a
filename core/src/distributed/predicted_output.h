// perwiz-mpi predict -o: the predicted trace L', written by the processes together.
#pragma once

#include "perwiz/process_group.h"
#include "perwiz/replay.h"
#include "perwiz/trace.h"
#include "perwiz/trace_io.h"

#include <string>

namespace perwiz {

// Refuses, on every process alike, an output the processes cannot write: not OTF2, or a path
// where something exists already (nothing is ever overwritten).
void checkPredictedOutput(const std::string& path, ProcessGroup& group);

// Writes the predicted trace of `rp` (this process's replay, its ranks `own` replayed) into one
// OTF2 archive at `path`: this process the ranks of `own`, process 0 also the definitions; rank
// by rank, each built alone as perwiz-cli builds L' (one rank's copy at a time beside the
// replay). The archive is perwiz-cli predict -o's, byte for byte: `scenario` is the whole
// prediction's (the point on rank 0 records it), `fileOrder` the table of the measured trace as
// loaded (every function of the file in its order: TraceBuilder::keepUnusedFunctions), ranks
// from `ranks` on (the ghost proxies' rank of the replay) are not written. Collective; problems
// are raised on every process as GroupError.
void writePredictedShare(const Replayer& rp, const Scenario& scenario, std::uint32_t ranks,
                         const std::vector<Function>& fileOrder, RankRange own, const std::string& path,
                         ProcessGroup& group);

}  // namespace perwiz
