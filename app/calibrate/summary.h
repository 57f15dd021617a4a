// What perwiz-calibrate prints after measuring: a table for people, or with --json one JSON
// object (settings, the per-size times, the fitted lines and the model) for scripts and tests.
#pragma once

#include "loggps_fit.h"
#include "options.h"

#include <string>

namespace perwiz::calibrate {

// Facts about the run that are not measurements.
struct RunInfo {
  int worldSize = 0;
  double wtick = 0;  // MPI_Wtick(), seconds
};

std::string summaryJson(const CalibrateOptions& options, const RunInfo& run,
                        const LogGpsMeasurement& m, const LogGpsFit& fit,
                        const std::string& modelText);
std::string summaryText(const CalibrateOptions& options, const RunInfo& run,
                        const LogGpsMeasurement& m, const LogGpsFit& fit);

}  // namespace perwiz::calibrate
