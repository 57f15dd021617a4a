// The LogGPS model file that `perwiz-cli predict --model FILE` loads: exactly the keys of
// docs/model.md §4 "Parameter files" (the loader rejects unknown keys), times in µs.
#pragma once

#include "loggps_fit.h"

#include <string>

namespace perwiz::calibrate {

// Rounded to 6 significant digits: far below the measurement's precision, and files stay legible.
double roundSignificant(double value, int digits = 6);

// The model file's text (pretty-printed JSON object, no trailing newline).
std::string modelJson(const LogGpsFit& fit, const std::string& name);

}  // namespace perwiz::calibrate
