// --mode profile: the overhead profile T_f(p, b) of Kluge et al. §8 (docs/calibrate.md,
// "Overhead profile"), measured on every base point that fits the run and written in the format
// `perwiz-cli overhead --profile FILE` reads (docs/overhead.md).
#pragma once

#include "options.h"

#include <mpi.h>

namespace perwiz::calibrate {

// Collective over `world`: for each base p ≤ the world size, the first p ranks form a
// communicator and run every pattern on every base size, all members starting each repetition
// at the same instant; ranks outside it wait without spinning. Rank 0 fits the samples
// (buildOverheadProfile), writes the profile (never over an existing file without --force) and
// prints the summary. Returns this rank's exit status.
int runProfileMode(MPI_Comm world, const CalibrateOptions& options);

}  // namespace perwiz::calibrate
