// `perwiz-cli convert IN OUT`: read any supported trace, write it in the format OUT names
// (.alog/.log -> ALOG, .otf -> OTF, .otf2 or a directory -> OTF2). Never overwrites.
#include "cli_common.h"

#include "perwiz/trace_io.h"

#include <iostream>
#include <memory>

namespace perwiz::cli {
namespace {

struct ConvertOptions {
  std::string in, out;
};

int runConvert(const ConvertOptions& opts) {
  // Checked before the (possibly long) load, and again by the writers themselves.
  refuseToOverwrite(opts.out);
  Trace trace = loadReported(opts.in);
  writeOutput(opts.out, [&] { saveTrace(trace, opts.out); });
  std::cout << "converted " << opts.in << " (" << trace.format << ") -> " << opts.out << " ("
            << outputFormatName(opts.out, {}) << "): " << trace.rankCount() << " ranks, "
            << trace.eventCount() << " events, " << trace.messageStats.matched
            << " messages, " << trace.collectives.size() << " collectives, "
            << trace.warnings.size() << " warnings\n";
  return kExitOk;
}

}  // namespace

Command addConvertCommand(CLI::App& parent) {
  auto opts = std::make_shared<ConvertOptions>();
  CLI::App* app = parent.add_subcommand(
      "convert", "Convert a trace: output format from OUT (.alog/.log: ALOG, .otf: OTF, .otf2 or dir: OTF2)");
  app->add_option("IN", opts->in, "input trace")->required();
  app->add_option("OUT", opts->out, "output file (ALOG) or archive directory (OTF2); must not exist")
      ->required()->check(writablePath());
  return {app, [opts] { return runConvert(*opts); }};
}

}  // namespace perwiz::cli
