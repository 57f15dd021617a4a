// What the LogGPO mode prints: a table for people, or with --json one JSON object (settings,
// per-size times, the progress probe, fits, model) for scripts and tests. Plain C++ (no MPI).
#pragma once

#include "loggpo_fit.h"
#include "options.h"
#include "summary.h"

#include <string>

namespace perwiz::calibrate {

std::string loggpoSummaryJson(const CalibrateOptions& options, const RunInfo& run,
                              const LogGpoMeasurement& m, const LogGpoFit& fit,
                              const std::string& modelText);
std::string loggpoSummaryText(const CalibrateOptions& options, const RunInfo& run,
                              const LogGpoMeasurement& m, const LogGpoFit& fit);

}  // namespace perwiz::calibrate
