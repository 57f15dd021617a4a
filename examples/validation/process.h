// Running the programs, smpirun/mpirun and perwiz-cli from the validation test.
#pragma once

#include <string>
#include <vector>

namespace perwiz::validation {

struct ProcessResult {
  int status = -1;  // exit status; -1 if it did not exit normally
  std::string out, err;
};

// Runs ARGV (no shell) with the extra environment ENV ("NAME=value"), capturing stdout and
// stderr; the working directory is unchanged.
ProcessResult runProcess(const std::vector<std::string>& argv, const std::vector<std::string>& env = {});

// "a b 'c d'": for messages, so that a failing command can be pasted into a shell.
std::string commandLine(const std::vector<std::string>& argv, const std::vector<std::string>& env = {});

}  // namespace perwiz::validation
