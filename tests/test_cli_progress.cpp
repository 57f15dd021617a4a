// perwiz-cli's progress on stderr (issue #42): every command that can take more than a second
// shows its phases when stderr is a terminal — run here under a pseudo-terminal — and shows
// nothing into a pipe or a file, with --quiet, or with --json (unless --progress).
// PERWIZ_PROGRESS_DELAY_MS=0 draws every phase at once, however short (the default waits 0.4 s
// so that quick commands do not flicker); the test's traces are small.
#include "cli_runner.h"
#include "test_support.h"

#include <fcntl.h>
#include <pty.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <cerrno>
#include <filesystem>
#include <string>
#include <vector>

extern char** environ;

namespace fs = std::filesystem;
using perwiz::test::freshDir;
using perwiz::test::runProgram;

namespace {

const std::string kCli = PERWIZ_CLI;
const fs::path kSamples = PERWIZ_SAMPLE;

struct TerminalRun {
  int status = -1;
  std::string terminal;  // what the command wrote to the terminal (its stderr)
};

// Runs perwiz-cli with stderr on a pseudo-terminal (stdout into a file) and returns what
// reached the terminal.
TerminalRun runOnTerminal(const std::vector<std::string>& args, const fs::path& dir) {
  int master = -1, slave = -1;
  if (openpty(&master, &slave, nullptr, nullptr, nullptr) != 0) {
    ADD_FAILURE() << "openpty failed";
    return {};
  }
  std::vector<std::string> env;
  for (char** e = environ; *e; ++e) env.emplace_back(*e);
  env.emplace_back("PERWIZ_PROGRESS_DELAY_MS=0");
  std::vector<char*> envp, argv;
  for (auto& e : env) envp.push_back(e.data());
  envp.push_back(nullptr);
  std::vector<std::string> all = {kCli};
  all.insert(all.end(), args.begin(), args.end());
  for (auto& a : all) argv.push_back(a.data());
  argv.push_back(nullptr);
  const std::string out = (dir / "stdout.txt").string();
  const pid_t pid = fork();
  if (pid == 0) {
    const int fd = open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    dup2(fd, 1);
    dup2(slave, 2);
    close(fd);
    close(master);
    close(slave);
    execve(argv[0], argv.data(), envp.data());
    _exit(127);
  }
  close(slave);
  TerminalRun r;
  char buf[4096];
  for (;;) {
    const ssize_t n = read(master, buf, sizeof buf);
    if (n > 0)
      r.terminal.append(buf, static_cast<std::size_t>(n));
    else if (n < 0 && errno == EINTR)
      continue;
    else
      break;  // EIO: the command closed the terminal (it ended)
  }
  int raw = 0;
  waitpid(pid, &raw, 0);
  close(master);
  r.status = WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
  return r;
}

// The progress line's marks: the elapsed-time separator and the erase-to-end-of-line code.
bool showsProgress(const std::string& text) {
  return text.find(" \xC2\xB7 ") != std::string::npos && text.find("\x1b[K") != std::string::npos;
}

struct Case {
  std::string name;
  std::vector<std::string> args;
  std::string phase;  // a phase the command must show
};

std::vector<Case> cases(const fs::path& dir) {
  const std::string ring = (kSamples / "ring4.alog").string();
  const std::string a = (kSamples / "stencil_8" / "traces.otf2").string();
  const std::string b = (kSamples / "stencil_8_balanced" / "traces.otf2").string();
  return {
      {"info", {"info", ring}, "loading ring4.alog"},
      {"events", {"events", ring}, "loading ring4.alog"},
      {"convert", {"convert", ring, (dir / "converted.otf2").string()}, "writing converted.otf2"},
      {"generate",
       {"generate", (dir / "generated.alog").string(), "--ranks", "4", "--steps", "5"},
       "writing generated.alog"},
      {"predict", {"predict", ring, "--zero-event", "0:c0"}, "replaying"},
      {"critical-path", {"critical-path", ring}, "critical path"},
      {"advise", {"advise", ring}, "domino paths"},
      {"overhead", {"overhead", ring}, "fitting the durations"},
      {"compensate", {"compensate", ring, "--overhead-ns", "10"}, "replaying"},
      {"compare", {"compare", a, b}, "aligning the runs"},
  };
}

}  // namespace

TEST(CliProgress, EveryLongCommandShowsItsPhasesOnATerminal) {
  ASSERT_TRUE(fs::exists(kSamples / "stencil_8" / "traces.otf2"));
  const fs::path dir = freshDir("CliProgress_terminal");
  for (const Case& c : cases(dir)) {
    fs::remove_all(dir / "converted.otf2");
    fs::remove_all(dir / "generated.alog");
    const TerminalRun r = runOnTerminal(c.args, dir);
    EXPECT_EQ(r.status, 0) << c.name << ":\n" << r.terminal;
    EXPECT_TRUE(showsProgress(r.terminal)) << c.name << ": no progress on the terminal:\n" << r.terminal;
    EXPECT_NE(r.terminal.find(c.phase), std::string::npos) << c.name << ": no phase '" << c.phase << "':\n"
                                                           << r.terminal;
  }
}

TEST(CliProgress, NoneIntoAPipeOrAFileWithQuietOrWithJson) {
  ASSERT_TRUE(fs::exists(kSamples / "ring4.alog"));
  const fs::path dir = freshDir("CliProgress_pipe");
  setenv("PERWIZ_PROGRESS_DELAY_MS", "0", 1);
  for (const Case& c : cases(dir)) {
    fs::remove_all(dir / "converted.otf2");
    fs::remove_all(dir / "generated.alog");
    // stderr into a file (runProgram), and through a pipe.
    const auto r = runProgram(kCli, dir, c.args);
    EXPECT_EQ(r.status, 0) << c.name << ": " << r.err;
    EXPECT_FALSE(showsProgress(r.err)) << c.name << ": progress into a file:\n" << r.err;
    fs::remove_all(dir / "converted.otf2");
    fs::remove_all(dir / "generated.alog");
    std::string cmd = perwiz::test::shellQuote(kCli);
    for (const auto& a : c.args) cmd += " " + perwiz::test::shellQuote(a);
    cmd += " 2>&1 >/dev/null | cat";
    std::string piped;
    if (FILE* p = popen(cmd.c_str(), "r")) {
      char buf[4096];
      for (std::size_t n; (n = fread(buf, 1, sizeof buf, p)) > 0;) piped.append(buf, n);
      pclose(p);
    }
    EXPECT_FALSE(showsProgress(piped)) << c.name << ": progress into a pipe:\n" << piped;
  }
  const std::string ring = (kSamples / "ring4.alog").string();
  EXPECT_FALSE(showsProgress(runOnTerminal({"predict", ring, "--quiet"}, dir).terminal)) << "--quiet";
  EXPECT_FALSE(showsProgress(runOnTerminal({"predict", ring, "--json"}, dir).terminal)) << "--json";
  EXPECT_TRUE(showsProgress(runOnTerminal({"predict", ring, "--json", "--progress"}, dir).terminal))
      << "--json --progress";
  // Forced into a file.
  const auto forced = runProgram(kCli, dir, {"predict", ring, "--progress"});
  EXPECT_TRUE(showsProgress(forced.err)) << forced.err;
  unsetenv("PERWIZ_PROGRESS_DELAY_MS");
}
