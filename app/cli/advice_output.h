// The advisor's run and output, one copy for perwiz-cli advise and perwiz-mpi advise (whose
// output must equal the serial one, to the nanosecond).
#pragma once

#include "cli_common.h"
#include "prediction_setup.h"

#include "perwiz/advisor.h"
#include "perwiz/replay.h"

#include <string>

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

// advise --json.
Json adviceJson(const Advice& a, const Trace& trace, const std::string& path);
// advise's text.
void printAdvice(const Advice& a, const Trace& trace, const std::string& path);

}  // namespace perwiz::cli
