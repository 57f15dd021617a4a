#include "converter_launch.h"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

extern char** environ;

#ifndef PERWIZ_TRACE_INSTALL_CONVERTER
#define PERWIZ_TRACE_INSTALL_CONVERTER ""
#endif

namespace perwiz::trace {

namespace {

constexpr const char* kConverterName = "perwiz-trace-convert";

bool executable(const std::string& path) { return !path.empty() && ::access(path.c_str(), X_OK) == 0; }

std::string libraryDirectory() {
  Dl_info info;
  if (::dladdr(reinterpret_cast<void*>(&findConverter), &info) == 0 || !info.dli_fname) return {};
  std::string path = info.dli_fname;
  const std::size_t slash = path.rfind('/');
  return slash == std::string::npos ? std::string(".") : path.substr(0, slash);
}

// Calls fn for each non-empty directory of a colon-separated list (null: none).
template <class F>
void forEachDirectory(const char* list, F&& fn) {
  if (!list) return;
  const std::string dirs = list;
  for (std::size_t start = 0; start <= dirs.size();) {
    std::size_t end = dirs.find(':', start);
    if (end == std::string::npos) end = dirs.size();
    if (end > start) fn(dirs.substr(start, end - start));
    start = end + 1;
  }
}

}  // namespace

std::string findConverter() {
  if (const char* env = std::getenv("PERWIZ_TRACE_CONVERTER"); env && *env)
    return executable(env) ? env : std::string();
  const std::string lib = libraryDirectory();
  std::vector<std::string> candidates;
  auto relativeTo = [&](const std::string& dir) {
    for (const char* relative : {"/", "/../", "/../bin/", "/../../bin/"})
      candidates.push_back(dir + relative + kConverterName);
  };
  if (!lib.empty()) relativeTo(lib);
  // Under SMPI with smpi/privatize-libs the library runs from a per-rank copy in a temporary
  // directory: the directories it was found in (LD_LIBRARY_PATH) stand for its own.
  forEachDirectory(std::getenv("LD_LIBRARY_PATH"), relativeTo);
  forEachDirectory(std::getenv("PATH"),
                   [&](const std::string& dir) { candidates.push_back(dir + "/" + kConverterName); });
  candidates.push_back(PERWIZ_TRACE_INSTALL_CONVERTER);
  for (const std::string& c : candidates)
    if (executable(c)) return c;
  return {};
}

bool runConverter(const char* traceDir, const char* format) {
  const std::string converter = findConverter();
  if (converter.empty()) {
    std::fprintf(stderr,
                 "perwiz-trace: %s not found (set PERWIZ_TRACE_CONVERTER to its path); the raw "
                 "records are kept in %s/perwiz-raw, convert them with: %s %s\n",
                 kConverterName, traceDir, kConverterName, traceDir);
    return false;
  }
  // The child must not preload the tracer (or any MPI tool) again.
  std::vector<char*> env;
  for (char** e = environ; e && *e; ++e)
    if (std::strncmp(*e, "LD_PRELOAD=", 11) != 0) env.push_back(*e);
  env.push_back(nullptr);
  std::vector<std::string> args = {converter, "--format", format, traceDir};
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);

  pid_t pid = 0;
  const int rc = ::posix_spawn(&pid, converter.c_str(), nullptr, nullptr, argv.data(), env.data());
  int status = 0;
  if (rc == 0) {
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
  }
  if (rc == 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0) return true;
  std::fprintf(stderr,
               "perwiz-trace: %s failed (%s); the raw records are kept in %s/perwiz-raw, convert "
               "them with: %s %s\n",
               converter.c_str(),
               rc != 0 ? std::strerror(rc) : (WIFEXITED(status) ? "exit status" : "killed"),
               traceDir, kConverterName, traceDir);
  return false;
}

}  // namespace perwiz::trace
