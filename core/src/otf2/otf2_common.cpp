#include "otf2_common.h"

#include <cstdint>

#include "perwiz/trace_io.h"

#include <cstdarg>
#include <cstdio>
#include <mutex>

namespace perwiz::otf2 {

namespace {

thread_local std::string lastMessage;

// libotf2 calls this instead of printing. It returns the code unchanged so the failing call
// still reports it; we turn it into a TraceError at the call site.
OTF2_ErrorCode keepQuiet(void*, const char*, uint64_t, const char*, OTF2_ErrorCode code,
                         const char* format, va_list args) {
  char buffer[512];
  buffer[0] = '\0';
  if (format) std::vsnprintf(buffer, sizeof buffer, format, args);
  lastMessage = buffer;
  return code;
}

}  // namespace

void silenceLibrary() {
  static std::once_flag once;
  std::call_once(once, [] { OTF2_Error_RegisterCallback(&keepQuiet, nullptr); });
}

std::string takeLastMessage() {
  std::string m;
  m.swap(lastMessage);
  return m;
}

void fail(OTF2_ErrorCode code, const std::string& file, const std::string& what) {
  std::string problem = what + ": " + OTF2_Error_GetDescription(code);
  std::string detail = takeLastMessage();
  if (!detail.empty()) problem += " (" + detail + ")";
  throw TraceError(file, problem);
}

void check(OTF2_ErrorCode code, const std::string& file, const std::string& what) {
  if (code != OTF2_SUCCESS) fail(code, file, what);
}

std::optional<TimeNs> ticksToNs(std::uint64_t ticks, std::uint64_t globalOffset,
                                std::uint64_t timerResolution) {
  if (timerResolution == 0) return std::nullopt;
  // Offsets are ~7e15 ticks and resolutions up to ~4e9, so a double would lose the low
  // digits; 128-bit integers keep the result exact.
  __int128 delta = static_cast<__int128>(ticks) - static_cast<__int128>(globalOffset);
  __int128 num = delta * 1'000'000'000;
  __int128 den = static_cast<__int128>(timerResolution);
  __int128 q = num / den;
  if ((num % den) != 0 && num < 0) --q;  // floor, not truncation towards zero
  if (q > std::numeric_limits<TimeNs>::max() || q < std::numeric_limits<TimeNs>::min())
    return std::nullopt;
  return static_cast<TimeNs>(q);
}

ArchivePaths archivePathsOfAnchor(const std::filesystem::path& anchor) {
  ArchivePaths p;
  p.dir = anchor.parent_path();
  if (p.dir.empty()) p.dir = ".";
  p.name = anchor.stem().string();
  return p;
}

}  // namespace perwiz::otf2
