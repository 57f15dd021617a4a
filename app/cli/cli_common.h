// Shared pieces of perwiz-cli: exit statuses, the command registry and small formatters.
#pragma once

#include "perwiz/trace.h"

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <functional>
#include <stdexcept>
#include <string>

namespace perwiz::cli {

// Exit statuses are part of the interface (scripts and tests depend on them).
enum ExitStatus : int {
  kExitOk = 0,
  kExitBadInput = 1,  // the trace (or output path) is unusable: TraceError
  kExitBadUsage = 2,  // wrong arguments, including ones only checkable after loading
};

// Bad usage discovered after parsing (e.g. --rank beyond the trace's rank count).
class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A registered subcommand and what to run once its arguments are parsed. Running is kept apart
// from parsing so that parse errors (status 2) and input errors (status 1) never mix.
struct Command {
  CLI::App* app = nullptr;
  std::function<int()> run;
};

Command addInfoCommand(CLI::App& parent);
Command addEventsCommand(CLI::App& parent);
Command addConvertCommand(CLI::App& parent);
Command addGenerateCommand(CLI::App& parent);
Command addPredictCommand(CLI::App& parent);
Command addCriticalPathCommand(CLI::App& parent);
Command addAdviseCommand(CLI::App& parent);
Command addOverheadCommand(CLI::App& parent);
Command addCompensateCommand(CLI::App& parent);
Command addCompareCommand(CLI::App& parent);

// For options naming a file to write: an empty name ('') is bad usage, not "write nothing".
inline CLI::Validator writablePath() {
  return CLI::Validator(
      [](std::string& s) { return s.empty() ? std::string("an empty file name: give the path to write") : std::string(); },
      "PATH", "writable path");
}

// The load's warnings for people: warningsReport() on stderr, pointing at 'perwiz-cli info
// PATH' for the full list (nothing when there are none). Every command that loads a trace calls
// it, so a prediction from a damaged file never looks clean.
void reportWarnings(const std::vector<Diagnostic>& warnings, const std::string& path);
inline void reportWarnings(const Trace& t, const std::string& path) { reportWarnings(t.warnings, path); }
// loadTrace(path) with its progress on a terminal (progress.h), warnings not reported.
Trace loadShowingProgress(const std::string& path);
// loadShowingProgress(path), then reportWarnings().
Trace loadReported(const std::string& path);
// The load's warnings for machines: every one as text (a JSON output's "warnings" key, as
// info --json has it; the builder caps each kind, so the list is bounded).
nlohmann::ordered_json warningsJson(const std::vector<Diagnostic>& warnings);
inline nlohmann::ordered_json warningsJson(const Trace& t) { return warningsJson(t.warnings); }

// A JSON output's text. Names in a trace are bytes (ALOG, OTF and OTF2 keep whatever the
// tracer wrote); bytes that are not UTF-8 become U+FFFD here, as in the GUI (QString::fromUtf8),
// and stay as they were in the model and in converted traces (docs/trace-model.md, "Names").
std::string jsonText(const nlohmann::ordered_json& j, int indent = 2);

// "1.235 ms", "12 ns", "3.500 s": for people; JSON keeps plain nanoseconds.
std::string humanDuration(TimeNs ns);

// Writers must never replace existing data: throws TraceError naming what exists if `path`, or
// a file writing a trace there would create (X.otf2's X.def and X/), exists.
void refuseToOverwrite(const std::string& path);

// Refuses an existing `path`, then runs `write`, which creates it (through the writers, which
// publish only complete output and remove their temporaries on failure: output_file.h). Nothing
// is removed here: a file at `path` after a failure belongs to someone else.
void writeOutput(const std::string& path, const std::function<void()>& write);

// "alog" / "otf" / "otf2" for an output path: the explicit choice if given, else by extension.
std::string outputFormatName(const std::string& path, const std::string& explicitFormat);

}  // namespace perwiz::cli
