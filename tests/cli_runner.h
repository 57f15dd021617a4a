// Running a built command-line program from a test: its arguments shell-quoted, stdout and
// stderr captured in files under a directory of the test's own, the exit status decoded.
#pragma once

#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace perwiz::test {

struct CliResult {
  int status = -1;  // exit status; -1 if killed by a signal
  std::string out, err;
};

inline std::string readAll(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

inline std::string shellQuote(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

// Runs `program args...` with stdout and stderr written to dir/stdout.txt and dir/stderr.txt.
// `inDir`: in `dir` as its working directory (for tools that write logs where they run, such
// as ViTE's log.txt), else in the test's.
inline CliResult runProgram(const std::string& program, const std::filesystem::path& dir,
                            const std::vector<std::string>& args, bool inDir = false) {
  std::string cmd = (inDir ? "cd " + shellQuote(std::filesystem::absolute(dir).string()) + " && " : std::string()) +
                    shellQuote(program);
  for (const auto& a : args) cmd += " " + shellQuote(a);
  const std::filesystem::path out = dir / "stdout.txt", err = dir / "stderr.txt";
  cmd += " >" + shellQuote(out.string()) + " 2>" + shellQuote(err.string());
  const int raw = std::system(cmd.c_str());
  CliResult r;
  r.status = WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
  r.out = readAll(out);
  r.err = readAll(err);
  return r;
}

}  // namespace perwiz::test
