// --mode loggpo: the LogGPO parameters (Chen et al. 2009) between MPI ranks 0 and 1
// (docs/calibrate.md, "LogGPO"), written as the model file `perwiz-cli predict --model FILE`
// loads.
#pragma once

#include "loggpo_fit.h"
#include "options.h"
#include "pair_bench.h"

#include <mpi.h>

namespace perwiz::calibrate {

// Collective over the pair; the result is complete on rank 0 only.
LogGpoMeasurement measureLogGpo(PairBench& bench, const CalibrateOptions& options);

// The whole mode on MPI_COMM_WORLD: ranks 0 and 1 measure, other ranks return at once; rank 0
// fits, writes the model file and prints the summary. Returns this rank's exit status.
int runLogGpoMode(MPI_Comm world, const CalibrateOptions& options);

}  // namespace perwiz::calibrate
