// Running the programs, smpirun/mpirun and perwiz-cli from the validation test.
#pragma once

#include <nlohmann/json.hpp>

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

// Runs ARGV with ENV and returns its stdout; throws (with the command, its stderr and stdout)
// on a non-zero exit, so a test fails saying what to run to see it.
std::string mustRun(const std::vector<std::string>& argv, const std::vector<std::string>& env = {});

// `cli ARGS --json`, parsed; throws as mustRun does, or when the output is not JSON.
nlohmann::json cliJson(const std::string& cli, std::vector<std::string> args);

// Which sources a generated table comes from, for its header: "commit 1a2b3c4" (with "and local
// changes" when the work tree differs from it), from `git` in SOURCE_DIR; "sources not in a git
// checkout" where there is none.
std::string sourceStamp(const std::string& sourceDir);

}  // namespace perwiz::validation
