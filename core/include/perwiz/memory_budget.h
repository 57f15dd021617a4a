// The memory a step may use, asked of the system before the step starts: loads,
// replays and writers refuse what cannot fit instead of failing half way. In the model library,
// so that every library below trace_io (the writers) can ask too.
#pragma once

#include <cstdint>
#include <limits>
#include <string>

namespace perwiz {

// availableMemory()'s answer when nothing limits it.
constexpr std::uint64_t kMemoryUnlimited = std::numeric_limits<std::uint64_t>::max();

// Memory this process can still obtain, in bytes: MemAvailable of /proc/meminfo, lowered by an
// address-space limit (RLIMIT_AS) or a cgroup memory.max. The environment variable
// PERWIZ_MEMORY_AVAILABLE (bytes, or with a K/M/G suffix) overrides it.
std::uint64_t availableMemory();
// Refuses a step that would need more memory than availableMemory() (or `available`, if not 0):
// throws TraceError naming `path`: "needs about N GB of memory to WHAT, M GB available".
void requireMemory(const std::string& path, std::uint64_t needed, const std::string& what,
                   std::uint64_t available = 0);
// "1.5 GB", "172 MB" (binary units).
std::string formatBytes(std::uint64_t bytes);

}  // namespace perwiz
