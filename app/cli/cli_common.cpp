#include "cli_common.h"

#include "perwiz/trace_io.h"

#include <cstdio>
#include <filesystem>

namespace perwiz::cli {

std::string humanDuration(TimeNs ns) {
  struct Unit { TimeNs scale; const char* name; };
  static constexpr Unit kUnits[] = {{1'000'000'000, "s"}, {1'000'000, "ms"}, {1'000, "us"}};
  const TimeNs magnitude = ns < 0 ? -ns : ns;
  for (const Unit& u : kUnits) {
    if (magnitude >= u.scale) {
      char buf[64];
      std::snprintf(buf, sizeof buf, "%.3f %s", static_cast<double>(ns) / u.scale, u.name);
      return buf;
    }
  }
  return std::to_string(ns) + " ns";
}

void refuseToOverwrite(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::exists(std::filesystem::symlink_status(path, ec)))
    throw TraceError(path, "already exists; refusing to overwrite it");
}

void writeOutput(const std::string& path, const std::function<void()>& write) {
  refuseToOverwrite(path);
  try {
    write();
  } catch (...) {
    std::error_code ec;
    std::filesystem::remove_all(path, ec);  // best effort: the original error matters more
    throw;
  }
}

std::string outputFormatName(const std::string& path, const std::string& explicitFormat) {
  if (!explicitFormat.empty()) return explicitFormat;
  return outputFormatFor(path) == TraceFormat::Alog ? "alog" : "otf2";
}

}  // namespace perwiz::cli
