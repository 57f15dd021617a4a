// perwiz-cli: inspect, convert and generate MPI traces without the GUI.
//
// Exit status: 0 success, 1 bad input (the message names the file), 2 bad usage.
// Everything that is not the requested output goes to stderr.
#include "cli_common.h"
#include "progress.h"

#include "perwiz/trace_io.h"

#include <iomanip>
#include <iostream>
#include <new>
#include <sstream>
#include <vector>

using namespace perwiz;

namespace {

int reportError(const std::exception& e, int status) {
  std::cerr << "perwiz-cli: " << e.what() << '\n';
  return status;
}

std::string availableMemoryText() {
  std::ostringstream s;
  s << std::fixed << std::setprecision(1) << static_cast<double>(availableMemory()) / (1u << 30)
    << " GB";
  return s.str();
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"PerWiz: inspect, convert, generate and predict MPI traces (ALOG, OTF2)", "perwiz-cli"};
  app.require_subcommand(1, 1);
  app.fallthrough(false);

  const std::vector<cli::Command> commands = {
      cli::addInfoCommand(app),     cli::addEventsCommand(app),   cli::addConvertCommand(app),
      cli::addGenerateCommand(app), cli::addPredictCommand(app),  cli::addCriticalPathCommand(app),
      cli::addAdviseCommand(app),   cli::addOverheadCommand(app), cli::addCompensateCommand(app),
      cli::addCompareCommand(app),
  };

  for (const cli::Command& command : commands) cli::TerminalProgress::addOptions(*command.app);

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // --help and --version are "errors" with status 0 and print to stdout.
    const int status = app.exit(e, std::cout, std::cerr);
    return status == 0 ? cli::kExitOk : cli::kExitBadUsage;
  }

  for (const cli::Command& command : commands) {
    if (!command.app->parsed()) continue;
    cli::TerminalProgress::get().configure(*command.app);
    try {
      return command.run();
    } catch (const cli::UsageError& e) {
      return reportError(e, cli::kExitBadUsage);
    } catch (const TraceError& e) {
      return reportError(e, cli::kExitBadInput);
    } catch (const std::bad_alloc&) {
      // Loading reports its own (file, what was being built); this is an analysis afterwards.
      std::cerr << "perwiz-cli " << command.app->get_name() << ": out of memory ("
                << availableMemoryText() << " available); the trace is too large for this "
                << "analysis on this machine\n";
      return cli::kExitBadInput;
    } catch (const std::exception& e) {
      return reportError(e, cli::kExitBadInput);
    }
  }
  return cli::kExitBadUsage;  // unreachable: require_subcommand(1, 1)
}
