#include "output_dir.h"

#include "common/raw_format.h"

#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sys/stat.h>

namespace perwiz::trace {

namespace {

// mkdir -p
bool makeDirectories(const std::string& path) {
  std::string partial;
  for (std::size_t i = 0; i <= path.size(); ++i) {
    if (i == path.size() || (path[i] == '/' && i > 0)) {
      partial = path.substr(0, i);
      if (::mkdir(partial.c_str(), 0777) != 0 && errno != EEXIST) return false;
    }
  }
  struct stat st;
  return ::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

}  // namespace

std::string reserveTraceDir(const std::string& program) {
  const char* dirEnv = std::getenv("PERWIZ_TRACE_DIR");
  const char* nameEnv = std::getenv("PERWIZ_TRACE_NAME");
  const std::string dir = dirEnv && *dirEnv ? dirEnv : ".";
  const std::string name = nameEnv && *nameEnv ? nameEnv : program + "-trace";
  if (name.find('/') != std::string::npos || name == "." || name == "..") {
    std::fprintf(stderr,
                 "perwiz-trace: PERWIZ_TRACE_NAME='%s' is not a plain name (set the directory "
                 "with PERWIZ_TRACE_DIR); this run is not traced\n",
                 name.c_str());
    return {};
  }
  if (!makeDirectories(dir)) {
    std::fprintf(stderr, "perwiz-trace: cannot create the trace directory '%s' (%s); this run is not traced\n",
                 dir.c_str(), std::strerror(errno));
    return {};
  }
  char absolute[PATH_MAX];
  if (!::realpath(dir.c_str(), absolute)) {
    std::fprintf(stderr, "perwiz-trace: cannot resolve '%s' (%s); this run is not traced\n",
                 dir.c_str(), std::strerror(errno));
    return {};
  }
  for (int k = 0; k < 10000; ++k) {
    const std::string candidate = name + (k == 0 ? "" : "-" + std::to_string(k));
    const std::string path = std::string(absolute) + "/" + candidate;
    if (::mkdir(path.c_str(), 0777) != 0) {
      if (errno == EEXIST) continue;
      std::fprintf(stderr, "perwiz-trace: cannot create '%s' (%s); this run is not traced\n",
                   path.c_str(), std::strerror(errno));
      return {};
    }
    if (::mkdir((path + "/" + kRawDirName).c_str(), 0777) != 0) {
      std::fprintf(stderr, "perwiz-trace: cannot create '%s/%s' (%s); this run is not traced\n",
                   path.c_str(), kRawDirName, std::strerror(errno));
      return {};
    }
    if (k > 0)
      std::fprintf(stderr,
                   "perwiz-trace: %s/%s already exists and is not overwritten; this run's trace "
                   "goes to %s\n",
                   absolute, name.c_str(), path.c_str());
    return path;
  }
  std::fprintf(stderr, "perwiz-trace: %s/%s-1 ... -9999 all exist; this run is not traced\n",
               absolute, name.c_str());
  return {};
}

}  // namespace perwiz::trace
