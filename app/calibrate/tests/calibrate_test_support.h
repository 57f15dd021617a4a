// Helpers for perwiz-calibrate's tests: scratch directories, running a command with its output
// captured, and loading a model file through perwiz::core's parser.
#pragma once

#include "perwiz/loggp_models.h"
#include "perwiz/network_model.h"

#include <filesystem>
#include <string>
#include <vector>

namespace perwiz::calibrate::test {

// A fresh empty directory under the build tree, unique per name.
std::filesystem::path freshDir(const std::string& name);
std::string readFile(const std::filesystem::path& path);
void writeFile(const std::filesystem::path& path, const std::string& text);

struct CommandResult {
  int status = -1;  // exit status, or -1 if the command did not exit normally
  std::string out, err;
  std::string command;  // for failure messages
};
// Runs `command` through /bin/sh with stdout and stderr captured in files of `dir`.
CommandResult runCommand(const std::string& command, const std::filesystem::path& dir);

// Loads `path` with perwiz::loadNetworkModel (what `perwiz-cli predict --model` does) and
// returns its LogGPS parameters; fails the test (ADD_FAILURE) and returns defaults otherwise.
LogGpsParams loadLogGps(const std::filesystem::path& path);
// The same for a LogGPO model file.
LogGpoParams loadLogGpo(const std::filesystem::path& path);

// The command line of `smpirun` running `program` with `args` on `ranks` ranks of a platform
// (XML text) and host list written into `dir`, with the SimGrid `cfg` options (each
// "name:value", single-quoted for the shell so that piecewise values with ';' survive).
std::string smpirunCommand(const std::string& smpirun, const std::filesystem::path& dir,
                           const std::string& platformXml, const std::string& hosts, int ranks,
                           const std::string& program, const std::vector<std::string>& cfg,
                           const std::string& args);

}  // namespace perwiz::calibrate::test
