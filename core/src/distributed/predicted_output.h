// perwiz-mpi predict -o: the predicted trace L', written by the processes together.
#pragma once

#include "perwiz/process_group.h"
#include "perwiz/trace.h"
#include "perwiz/trace_io.h"

#include <string>

namespace perwiz {

// Refuses, on every process alike, an output the processes cannot write: not OTF2, or a path
// where something exists already (nothing is ever overwritten).
void checkPredictedOutput(const std::string& path, ProcessGroup& group);

// Writes `predicted` (Replayer::predictedTrace(own.first, own.last) of this process) into one
// OTF2 archive at `path`: this process the ranks of `own`, process 0 also the definitions. The
// archive is the one perwiz-cli predict -o writes, byte for byte. Collective; problems are
// raised on every process as GroupError.
// `functions` is the table of this process's share of the measured trace as loaded (every
// function of the file, in its order: TraceBuilder::keepUnusedFunctions): the written table is
// the functions any process's ranks use, in that order, as perwiz-cli's is.
// Ranks from `ranks` on (the ghost proxies' rank of the replay) are not written.
void writePredictedShare(Trace predicted, std::uint32_t ranks, const std::vector<Function>& functions,
                         RankRange own, const std::string& path, ProcessGroup& group);

}  // namespace perwiz
