#include "cli_common.h"

#include "progress.h"

#include "perwiz/output_file.h"
#include "perwiz/trace_io.h"

#include <cstdio>
#include <filesystem>
#include <iostream>

namespace perwiz::cli {

std::string humanDuration(TimeNs ns) { return formatDuration(ns, "us"); }

void reportWarnings(const std::vector<Diagnostic>& warnings, const std::string& path) {
  TerminalProgress::get().print([&] {
    std::cerr << warningsReport(warnings, path, 3, "'perwiz-cli info " + path + "' lists them all") << std::flush;
  });
}

Trace loadShowingProgress(const std::string& path) {
  TerminalProgress& progress = TerminalProgress::get();
  const ProgressPhase phase("loading " + std::filesystem::path(path).filename().string(), 0);
  LoadOptions o;
  if (progress.on())
    o.progress = [&progress](double f) {
      progress.fraction(f);
      return true;
    };
  return loadTrace(path, o);
}

Trace loadReported(const std::string& path) {
  Trace t = loadShowingProgress(path);
  reportWarnings(t, path);
  return t;
}

nlohmann::ordered_json warningsJson(const std::vector<Diagnostic>& warnings) {
  nlohmann::ordered_json w = nlohmann::ordered_json::array();
  for (const Diagnostic& d : warnings) w.push_back(d.toString());
  return w;
}

std::string jsonText(const nlohmann::ordered_json& j, int indent) {
  return j.dump(indent, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
}

void refuseToOverwrite(const std::string& path) {
  const std::string existing = firstExisting(traceOutputPaths(path));
  if (existing.empty()) return;
  throw TraceError(existing, "already exists; refusing to overwrite it" +
                                 (existing == path ? std::string() : " (writing " + path + ")"));
}

void writeOutput(const std::string& path, const std::function<void()>& write) {
  refuseToOverwrite(path);
  // No clean-up here: the writers build their output under a temporary name and remove it on
  // failure (output_file.h), and whatever is at `path` now was made by someone else — a second
  // perwiz-cli that won the race, another program — and must not be removed.
  const ProgressPhase phase("writing " + std::filesystem::path(path).filename().string());
  write();
}

std::string outputFormatName(const std::string& path, const std::string& explicitFormat) {
  if (!explicitFormat.empty()) return explicitFormat;
  switch (outputFormatFor(path)) {
    case TraceFormat::Alog: return "alog";
    case TraceFormat::Otf: return "otf";
    default: return "otf2";
  }
}

}  // namespace perwiz::cli
