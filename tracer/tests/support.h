// Helpers of the tracer tests: running MPI programs (mpirun, smpirun) and the converter in a
// scratch directory, and reading what they left.
#pragma once

#include "perwiz/trace.h"

#include <filesystem>
#include <map>
#include <string>
#include <vector>

namespace perwiz::tracer_test {

namespace fs = std::filesystem;

struct RunResult {
  int exitCode = -1;  // -1: did not exit normally
  std::string out;
  std::string err;
};

// A fresh directory under the build tree, removed when the test passed.
class Scratch {
 public:
  Scratch();
  ~Scratch();
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

// Runs argv in `dir` with `env` ("NAME=value") added to this process's environment, stopped
// after `timeoutSeconds`. stdout and stderr are captured.
RunResult run(const std::vector<std::string>& argv, const std::vector<std::string>& env,
              const fs::path& dir, int timeoutSeconds = 60);

// mpirun -np <ranks> --oversubscribe (as root) of `program args`.
std::vector<std::string> mpirun(int ranks, const std::string& program,
                                const std::vector<std::string>& args = {});
// smpirun of `program args` on the tests' platform, each rank with its own copy of the tracer.
std::vector<std::string> smpirun(int ranks, const std::string& program,
                                 const std::vector<std::string>& args = {},
                                 bool privatize = true);
// Environment for an SMPI run: the SMPI tracer's directory on LD_LIBRARY_PATH, a TMPDIR of its own.
std::vector<std::string> smpiEnv();

// Environment for the tracer writing into dir/name.
std::vector<std::string> traceEnv(const fs::path& dir, const std::string& name,
                                  const std::string& format = "otf2");

// "count <rank> <function> <n>" lines a test program printed: (rank, function) -> n.
std::map<std::pair<int, std::string>, int> programCounts(const std::string& out);

// Number of MPI call events per function name on a rank.
std::map<std::string, int> mpiCallCounts(const Trace& trace, std::uint32_t rank);

// A program's expected call counts plus the tracer's own calls (docs/tracer.md, "The tracer's
// start and finish"): its start's MPI_Bcast and MPI_Allreduce, the host names' MPI_Allgather
// (hostExchange: Open MPI; not under SMPI), and, if the run reached MPI_Finalize, its
// finish's MPI_Barrier.
std::map<std::string, int> withTracerCalls(std::map<std::string, int> program, bool hostExchange,
                                           bool finished = true);
// Number of user-state events on a rank whose name starts with prefix.
int userStates(const Trace& trace, std::uint32_t rank, const std::string& prefix);
// Index of the communicator with this name in trace.comms, or -1.
int commIndex(const Trace& trace, const std::string& name);
int commIndexStartingWith(const Trace& trace, const std::string& prefix);

// The whole text of a file ("" if unreadable).
std::string readFile(const fs::path& path);

}  // namespace perwiz::tracer_test
