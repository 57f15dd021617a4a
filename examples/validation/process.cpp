#include "process.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>

extern char** environ;

namespace perwiz::validation {
namespace {

std::string slurp(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::ostringstream s;
  s << f.rdbuf();
  return s.str();
}

}  // namespace

ProcessResult runProcess(const std::vector<std::string>& argv, const std::vector<std::string>& env) {
  // Output goes to temporary files rather than pipes: no deadlock when a child writes a lot to
  // both streams, and no reader threads.
  char outName[] = "/tmp/perwiz-validation-out-XXXXXX", errName[] = "/tmp/perwiz-validation-err-XXXXXX";
  const int outFd = mkstemp(outName), errFd = mkstemp(errName);
  if (outFd < 0 || errFd < 0) throw std::runtime_error(std::string("cannot create temporary files: ") + std::strerror(errno));

  // The inherited environment with ENV's variables replaced or added.
  std::map<std::string, std::string> vars;
  for (char** e = environ; *e; ++e) {
    const std::string kv = *e;
    vars[kv.substr(0, kv.find('='))] = kv;
  }
  for (const std::string& kv : env) vars[kv.substr(0, kv.find('='))] = kv;
  std::vector<char*> envp;
  for (auto& [name, kv] : vars) envp.push_back(kv.data());
  envp.push_back(nullptr);
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, outFd, 1);
  posix_spawn_file_actions_adddup2(&actions, errFd, 2);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  pid_t pid = 0;
  const int rc = posix_spawnp(&pid, args[0], &actions, nullptr, args.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  ProcessResult r;
  if (rc == 0) {
    int st = 0;
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR) {
    }
    r.status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  } else {
    r.err = "cannot start " + argv[0] + ": " + std::strerror(rc) + "\n";
  }
  close(outFd);
  close(errFd);
  r.out = slurp(outName);
  r.err += slurp(errName);
  std::remove(outName);
  std::remove(errName);
  return r;
}

std::string commandLine(const std::vector<std::string>& argv, const std::vector<std::string>& env) {
  std::string s;
  auto add = [&](const std::string& word) {
    if (!s.empty()) s += ' ';
    if (word.find_first_of(" '\"$\\") == std::string::npos && !word.empty()) {
      s += word;
      return;
    }
    s += '\'';
    for (char c : word) s += c == '\'' ? std::string("'\\''") : std::string(1, c);
    s += '\'';
  };
  for (const std::string& e : env) add(e);
  for (const std::string& a : argv) add(a);
  return s;
}

std::string mustRun(const std::vector<std::string>& argv, const std::vector<std::string>& env) {
  const ProcessResult r = runProcess(argv, env);
  if (r.status != 0)
    throw std::runtime_error("exit status " + std::to_string(r.status) + ": " + commandLine(argv, env) + "\n" +
                             r.err + r.out);
  return r.out;
}

nlohmann::json cliJson(const std::string& cli, std::vector<std::string> args) {
  args.insert(args.begin(), cli);
  args.push_back("--json");
  const std::string out = mustRun(args);
  try {
    return nlohmann::json::parse(out);
  } catch (const nlohmann::json::exception& e) {
    throw std::runtime_error(commandLine(args) + ": output is not JSON (" + e.what() + "):\n" + out);
  }
}

std::string sourceStamp(const std::string& sourceDir) {
  const ProcessResult head = runProcess({"git", "-C", sourceDir, "log", "-1", "--format=%h"});
  std::string commit = head.out.substr(0, head.out.find('\n'));
  if (head.status != 0 || commit.empty()) return "sources not in a git checkout";
  const ProcessResult changes = runProcess({"git", "-C", sourceDir, "status", "--porcelain", "--untracked-files=no"});
  return "commit " + commit + (changes.status == 0 && !changes.out.empty() ? " and local changes" : "");
}

}  // namespace perwiz::validation
