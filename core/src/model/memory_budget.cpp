// The memory budget (perwiz/memory_budget.h): what the system, a resource limit or a cgroup
// leaves this process.
#include "perwiz/memory_budget.h"

#include "perwiz/trace_io.h"  // TraceError (inline)

#include <sys/resource.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <fstream>

namespace perwiz {
namespace {

constexpr std::uint64_t kUnlimited = kMemoryUnlimited;

// "123", "512M", "2G" (binary units); kUnlimited if unreadable.
std::uint64_t parseBytes(const char* s) {
  char* end = nullptr;
  const double v = std::strtod(s, &end);
  if (end == s || !(v >= 0)) return kUnlimited;
  double unit = 1;
  switch (std::toupper(static_cast<unsigned char>(*end))) {
    case 'K': unit = 1024.0; break;
    case 'M': unit = 1024.0 * 1024; break;
    case 'G': unit = 1024.0 * 1024 * 1024; break;
    case 'T': unit = 1024.0 * 1024 * 1024 * 1024; break;
    default: break;
  }
  const double bytes = v * unit;
  return bytes >= 1.8e19 ? kUnlimited : static_cast<std::uint64_t>(bytes);
}

// The value of "Key: N kB" in a /proc file, in bytes; kUnlimited if absent.
std::uint64_t procKilobytes(const char* file, const std::string& key) {
  std::ifstream in(file);
  std::string line;
  while (std::getline(in, line))
    if (line.compare(0, key.size(), key) == 0 && line.size() > key.size() && line[key.size()] == ':')
      return std::strtoull(line.c_str() + key.size() + 1, nullptr, 10) * 1024;
  return kUnlimited;
}

// Headroom under the cgroup v2 memory.max of this process (containers, systemd slices).
std::uint64_t cgroupHeadroom() {
  std::ifstream self("/proc/self/cgroup");
  std::string line;
  while (std::getline(self, line)) {
    if (line.compare(0, 3, "0::") != 0) continue;
    const std::string dir = "/sys/fs/cgroup" + line.substr(3);
    std::ifstream maxFile(dir + "/memory.max"), currentFile(dir + "/memory.current");
    std::string max, current;
    if (!(maxFile >> max) || max == "max" || !(currentFile >> current)) return kUnlimited;
    const std::uint64_t m = std::strtoull(max.c_str(), nullptr, 10);
    const std::uint64_t c = std::strtoull(current.c_str(), nullptr, 10);
    return m > c ? m - c : 0;
  }
  return kUnlimited;
}

}  // namespace

std::string formatBytes(std::uint64_t bytes) {
  char buf[32];
  if (bytes >= (std::uint64_t{1} << 30))
    std::snprintf(buf, sizeof buf, "%.1f GB", static_cast<double>(bytes) / (1u << 30));
  else
    std::snprintf(buf, sizeof buf, "%.0f MB", static_cast<double>(bytes) / (1u << 20));
  return buf;
}

std::uint64_t availableMemory() {
  if (const char* env = std::getenv("PERWIZ_MEMORY_AVAILABLE"); env && *env) return parseBytes(env);
  std::uint64_t available = procKilobytes("/proc/meminfo", "MemAvailable");
  rlimit as{};
  if (::getrlimit(RLIMIT_AS, &as) == 0 && as.rlim_cur != RLIM_INFINITY) {
    const std::uint64_t used = procKilobytes("/proc/self/status", "VmSize");
    const std::uint64_t limit = as.rlim_cur;
    available = std::min(available, used != kUnlimited && limit > used ? limit - used : 0);
  }
  return std::min(available, cgroupHeadroom());
}

void requireMemory(const std::string& path, std::uint64_t needed, const std::string& what,
                   std::uint64_t available) {
  if (available == 0) available = availableMemory();
  if (needed > available)
    throw TraceError(path, "needs about " + formatBytes(needed) + " of memory to " + what + ", " +
                               formatBytes(available) + " available");
}

}  // namespace perwiz
