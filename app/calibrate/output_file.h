// Writing the model file without ever destroying data by accident: an existing file is only
// replaced with --force, and then atomically (a half-written model never replaces a good one).
#pragma once

#include "options.h"

#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

namespace perwiz::calibrate {

// The message names the file and the problem.
class OutputError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Checked before measuring, so that a run is not wasted: refuses an existing path without
// `force`, a directory, and a parent directory that does not exist or is not writable.
void checkOutputPath(const std::string& path, bool force);

// Writes `text` + "\n". Without `force` the file is created exclusively (a file that appeared
// meanwhile is not overwritten); with it, a temporary file next to `path` is renamed over it.
void writeOutputFile(const std::string& path, const std::string& text, bool force);

// The end of a pair mode on rank 0: writes `model` to options.output (if given; a failure is
// reported on stderr) and prints summarise(shown), where `shown` is `options` with the output
// cleared when nothing was written. Returns the exit status.
// `degenerate` (the fit's reasons why the model does not describe the machine) makes it an
// error (exit 1, nothing written, the reasons on stderr) unless options.allowDegenerate; with
// it they are printed as warnings and the file is written.
int publishModel(const CalibrateOptions& options, const std::string& model,
                 const std::function<std::string(const CalibrateOptions& shown)>& summarise,
                 const std::vector<std::string>& degenerate = {});

}  // namespace perwiz::calibrate
