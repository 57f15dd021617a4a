// The LogGPS measurement plan (docs/calibrate.md): which benchmark runs on which sizes, and the
// search for the synchronous threshold S. One mode of perwiz-calibrate; LogGPO parameters and
// T_f(p, b) profiles are further modes beside it.
#pragma once

#include "loggps_fit.h"
#include "options.h"
#include "pair_bench.h"

namespace perwiz::calibrate {

// Collective over the pair; the result is complete on rank 0 only.
LogGpsMeasurement measureLogGps(PairBench& bench, const CalibrateOptions& options);

}  // namespace perwiz::calibrate

namespace perwiz::calibrate {

// "collectives": "smpi" in the model file (LogGPS and LogGPO): the SMPI build's default, or
// --collectives.
bool smpiCollectivesChosen(const CalibrateOptions& options);

// The whole mode on MPI_COMM_WORLD: ranks 0 and 1 measure, other ranks return at once; rank 0
// fits, writes the model file and prints the summary. Returns this rank's exit status.
int runLogGpsMode(MPI_Comm world, const CalibrateOptions& options);

}  // namespace perwiz::calibrate
