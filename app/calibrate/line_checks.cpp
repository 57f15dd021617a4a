// Legal lines for the model files (see line_checks.h).
#include "line_checks.h"

namespace perwiz::calibrate {

void clampLine(LineFit& f, const std::string& what, std::vector<std::string>& warnings) {
  if (f.a < 0) {
    if (f.a < -kNegligible)
      warnings.push_back(what + ": intercept " + std::to_string(f.a) + " ns < 0, set to 0");
    f.a = 0;
  }
  if (f.b < 0) {
    if (f.b < -kNegligible)
      warnings.push_back(what + ": slope " + std::to_string(f.b) + " ns/byte < 0, set to 0");
    f.b = 0;
  }
}

void requirePoints(const LineFit& f, const std::string& what, const std::string& ifNone,
                   std::vector<std::string>& warnings) {
  if (f.points == 0)
    warnings.push_back(what + ": no message size measured; " + ifNone);
  else if (f.points == 1)
    warnings.push_back(what + ": only one message size; the line is flat (slope 0)");
}

}  // namespace perwiz::calibrate
