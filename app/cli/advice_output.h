// The advisor's run and output, one copy for perwiz-cli advise and perwiz-mpi advise (whose
// output must equal the serial one, to the nanosecond).
#pragma once

#include "cli_common.h"
#include "prediction_setup.h"

#include "perwiz/advisor.h"
#include "perwiz/replay.h"

#include <map>
#include <string>
#include <vector>

namespace perwiz {
class ProcessGroup;
}

namespace perwiz::cli {

struct AdviseOptions {
  std::string path;
  ReplayOptions replay;
  std::size_t top = 10;
  unsigned threads = 0;
  std::size_t maxStepPredictions = 1000;
  bool json = false, quiet = false;
};

// advise's options on `app` (TRACE, the replay options, --top, --threads,
// --max-step-predictions, --quiet, --json).
void addAdviseOptions(CLI::App* app, AdviseOptions& o);

// The advisor's run on `base` (lent to it) with as many prediction threads as fit in memory,
// progress on a terminal when `showProgress`; with `group`, the predictions are shared among its
// processes (AdvisorOptions::group), each holding the same base.
Advice computeAdvice(Replayer& base, const AdviseOptions& o, ProcessGroup* group = nullptr, bool showProgress = true);

// What advise's output says of the trace besides the advice: its size, the load's warnings and
// the functions of the calls it lists (perwiz-mpi gathers them from the processes' shares).
struct AdviceFacts {
  std::size_t ranks = 0;
  std::uint64_t mpiCalls = 0;
  std::vector<Diagnostic> warnings;
  std::map<EventRef, std::string> functions;  // of the candidates and the longest wait
};
// The calls whose function advise's output names.
std::vector<EventRef> namedCalls(const Advice& a);
AdviceFacts adviceFacts(const Advice& a, const Trace& trace);

// advise --json.
Json adviceJson(const Advice& a, const AdviceFacts& facts, const std::string& path);
inline Json adviceJson(const Advice& a, const Trace& trace, const std::string& path) {
  return adviceJson(a, adviceFacts(a, trace), path);
}
// advise's text.
void printAdvice(const Advice& a, const AdviceFacts& facts, const std::string& path);
inline void printAdvice(const Advice& a, const Trace& trace, const std::string& path) {
  printAdvice(a, adviceFacts(a, trace), path);
}

}  // namespace perwiz::cli
