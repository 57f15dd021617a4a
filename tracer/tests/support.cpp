#include "support.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <fstream>
#include <random>
#include <spawn.h>
#include <sstream>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;

namespace perwiz::tracer_test {

Scratch::Scratch() {
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  std::string name = info ? std::string(info->test_suite_name()) + "." + info->name() : "test";
  for (char& c : name)
    if (c == '/') c = '_';
  std::random_device rd;
  path_ = fs::path(PERWIZ_TRACER_TEST_TMP) / (name + "-" + std::to_string(::getpid()) + "-" +
                                              std::to_string(rd() % 100000));
  fs::remove_all(path_);
  fs::create_directories(path_);
}

Scratch::~Scratch() {
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  if (info && !info->result()->Failed()) fs::remove_all(path_);
}

RunResult run(const std::vector<std::string>& argv, const std::vector<std::string>& env,
              const fs::path& dir, int timeoutSeconds) {
  // `timeout` bounds a hung MPI run; its own exit status 124 tells a timeout apart.
  std::vector<std::string> full = {"timeout", "-k", "5", std::to_string(timeoutSeconds)};
  full.insert(full.end(), argv.begin(), argv.end());
  std::vector<char*> args;
  for (std::string& a : full) args.push_back(a.data());
  args.push_back(nullptr);
  std::vector<std::string> envStrings;
  for (char** e = environ; *e; ++e) envStrings.emplace_back(*e);
  envStrings.insert(envStrings.end(), env.begin(), env.end());
  std::vector<char*> envp;
  for (std::string& e : envStrings) envp.push_back(e.data());
  envp.push_back(nullptr);

  const fs::path outFile = dir / ".run-stdout";
  const fs::path errFile = dir / ".run-stderr";
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, outFile.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_addopen(&actions, 2, errFile.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  // The child runs in `dir`: chdir through a shell-free trick is not portable, so change ours
  // around the spawn (tests run one at a time in a process).
  const fs::path here = fs::current_path();
  fs::current_path(dir);
  pid_t pid = 0;
  const int rc = posix_spawnp(&pid, args[0], &actions, nullptr, args.data(), envp.data());
  fs::current_path(here);
  posix_spawn_file_actions_destroy(&actions);
  RunResult result;
  if (rc != 0) {
    result.err = std::string("cannot start: ") + std::strerror(rc);
    return result;
  }
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  result.exitCode = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  result.out = readFile(outFile);
  result.err = readFile(errFile);
  fs::remove(outFile);
  fs::remove(errFile);
  return result;
}

namespace {
// Open MPI creates its session directory (/tmp/ompi.HOST.UID) at start-up and removes it at the
// end of every run, so two runs starting at once (ctest -j) race on it: "mkdir ... File exists",
// orte_init fails. Each test process gets a session base of its own (short: it holds Unix
// sockets), removed when the process exits.
std::string gOmpiBase;
void removeOmpiBase() {
  std::error_code ec;
  if (!gOmpiBase.empty()) fs::remove_all(gOmpiBase, ec);
}
const std::string& ompiSessionBase() {
  static const bool made = [] {
    std::string t = "/tmp/pwz-ompi-XXXXXX";
    if (::mkdtemp(t.data())) {
      gOmpiBase = t;
      std::atexit(removeOmpiBase);
    }
    return true;
  }();
  (void)made;
  return gOmpiBase;
}
}  // namespace

std::vector<std::string> mpirun(int ranks, const std::string& program,
                                const std::vector<std::string>& args) {
  std::vector<std::string> v = {PERWIZ_TEST_MPIEXEC, "-np", std::to_string(ranks),
                                "--oversubscribe", "--allow-run-as-root", "--mca", "btl",
                                "self,vader"};
  if (!ompiSessionBase().empty()) {
    v.insert(v.end(), {"--mca", "orte_tmpdir_base", ompiSessionBase()});
  }
  v.push_back(program);
  v.insert(v.end(), args.begin(), args.end());
  return v;
}

std::vector<std::string> smpirun(int ranks, const std::string& program,
                                 const std::vector<std::string>& args, bool privatize) {
  std::vector<std::string> v = {PERWIZ_TEST_SMPIRUN, "-np", std::to_string(ranks),
                                "-platform", PERWIZ_TEST_PLATFORM, "-hostfile", PERWIZ_TEST_HOSTFILE,
                                "--cfg=smpi/host-speed:1Gf", "--log=root.thres:warning"};
  if (privatize) v.push_back("--cfg=smpi/privatize-libs:libperwiz-trace.so");
  v.push_back(program);
  v.insert(v.end(), args.begin(), args.end());
  return v;
}

std::vector<std::string> smpiEnv() {
  const char* old = std::getenv("LD_LIBRARY_PATH");
  // smpirun and SimGrid keep their temporary files (the per-rank copies of the program and of
  // the privatized library among them) in TMPDIR under names that do not differ between runs,
  // so tests running side by side (ctest -j) each need their own.
  fs::create_directories(PERWIZ_TRACER_TEST_TMP);
  std::string tmp = (fs::path(PERWIZ_TRACER_TEST_TMP) / "smpitmp-XXXXXX").string();
  if (!::mkdtemp(tmp.data())) tmp = PERWIZ_TRACER_TEST_TMP;
  return {std::string("LD_LIBRARY_PATH=") + PERWIZ_TEST_SMPI_LIB_DIR +
              (old && *old ? ":" + std::string(old) : std::string()),
          "TMPDIR=" + tmp};
}

std::vector<std::string> traceEnv(const fs::path& dir, const std::string& name,
                                  const std::string& format) {
  return {"PERWIZ_TRACE_DIR=" + dir.string(), "PERWIZ_TRACE_NAME=" + name,
          "PERWIZ_FORMAT=" + format, "PERWIZ_TRACE_CONVERTER=" PERWIZ_TEST_CONVERTER,
          "OMPI_ALLOW_RUN_AS_ROOT=1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1"};
}

std::map<std::pair<int, std::string>, int> programCounts(const std::string& out) {
  std::map<std::pair<int, std::string>, int> counts;
  std::istringstream in(out);
  std::string word, function;
  int rank = 0, n = 0;
  while (in >> word) {
    if (word != "count") continue;
    if (in >> rank >> function >> n) counts[{rank, function}] = n;
  }
  return counts;
}

std::map<std::string, int> mpiCallCounts(const Trace& trace, std::uint32_t rank) {
  std::map<std::string, int> counts;
  for (std::uint32_t e : trace.ranks[rank].mpiCalls) ++counts[trace.fn(rank, e).name];
  return counts;
}

std::map<std::string, int> withTracerCalls(std::map<std::string, int> program, bool hostExchange,
                                           bool finished) {
  ++program["MPI_Bcast"];
  ++program["MPI_Allreduce"];
  if (hostExchange) ++program["MPI_Allgather"];
  if (finished) ++program["MPI_Barrier"];
  return program;
}

int userStates(const Trace& trace, std::uint32_t rank, const std::string& prefix) {
  int n = 0;
  for (std::size_t e = 0; e < trace.ranks[rank].size(); ++e) {
    const Function& f = trace.fn(rank, static_cast<std::uint32_t>(e));
    if (f.kind == EventKind::UserState && f.name.rfind(prefix, 0) == 0) ++n;
  }
  return n;
}

int commIndex(const Trace& trace, const std::string& name) {
  for (std::size_t c = 0; c < trace.comms.size(); ++c)
    if (trace.comms[c].name == name) return static_cast<int>(c);
  return -1;
}

int commIndexStartingWith(const Trace& trace, const std::string& prefix) {
  for (std::size_t c = 0; c < trace.comms.size(); ++c)
    if (trace.comms[c].name.rfind(prefix, 0) == 0) return static_cast<int>(c);
  return -1;
}

std::string readFile(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace perwiz::tracer_test
