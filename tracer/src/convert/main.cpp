// perwiz-trace-convert: turns the raw files of a run traced by libperwiz-trace into one OTF2
// archive and/or ALOG file. libperwiz-trace runs it at MPI_Finalize; run it by hand on what an
// aborted or killed run left behind.
//
//   perwiz-trace-convert [--format otf2|alog|otf|otf2,alog,...] [--keep-raw] [--quiet] TRACE_DIR
//
// Exit status: 0 written (also for an incomplete run, which is reported), 1 bad input or an
// output already exists, 2 bad usage.
#include "converter.h"

#include "perwiz/trace_io.h"

#include <CLI/CLI.hpp>

#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace {

bool envFlag(const char* name) {
  const char* v = std::getenv(name);
  return v && *v && std::strcmp(v, "0") != 0 && std::strcmp(v, "no") != 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Converts the raw files of a run traced by libperwiz-trace into OTF2, ALOG and/or OTF"};
  std::string dir;
  const char* envFormat = std::getenv("PERWIZ_FORMAT");
  std::string format = envFormat && *envFormat ? envFormat : "otf2";
  bool keepRaw = envFlag("PERWIZ_TRACE_KEEP_RAW");
  bool quiet = envFlag("PERWIZ_TRACE_QUIET");
  app.add_option("TRACE_DIR", dir, "the run's trace directory (holding perwiz-raw/)")->required();
  app.add_option("--format", format, "otf2, alog, otf or a list such as otf2,alog (default: $PERWIZ_FORMAT or otf2)");
  app.add_flag("--keep-raw", keepRaw, "keep perwiz-raw/ after converting");
  app.add_flag("--quiet", quiet, "print nothing unless something is wrong");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 2;
  }

  perwiz::trace::ConvertOptions options;
  options.traceDir = dir;
  options.keepRaw = keepRaw;
  if (!perwiz::trace::parseFormats(format, options.otf2, options.alog, options.otf)) {
    std::fprintf(stderr, "perwiz-trace-convert: --format must list otf2, alog and/or otf (e.g. otf2,alog), not '%s'\n",
                 format.c_str());
    return 2;
  }

  try {
    const perwiz::trace::ConvertResult r = perwiz::trace::convertRawTrace(options);
    for (const std::string& note : r.notes) std::fprintf(stderr, "perwiz-trace: %s\n", note.c_str());
    if (!r.complete)
      std::fprintf(stderr,
                   "perwiz-trace: the run did not finish on every rank: the trace holds what the "
                   "ranks flushed (see above); the raw files stay in %s/perwiz-raw\n",
                   dir.c_str());
    if (!quiet || !r.complete) {
      std::string outputs;
      for (const std::string& o : r.outputs) outputs += (outputs.empty() ? "" : " and ") + o;
      std::fprintf(stderr, "perwiz-trace: wrote %s: %d ranks, %llu records%s\n", outputs.c_str(),
                   r.ranks, static_cast<unsigned long long>(r.records),
                   r.complete ? "" : " (incomplete run)");
    }
    return 0;
  } catch (const perwiz::TraceError& e) {
    std::fprintf(stderr, "perwiz-trace-convert: %s\n", e.what());
  } catch (const std::exception& e) {
    std::fprintf(stderr, "perwiz-trace-convert: %s: %s\n", dir.c_str(), e.what());
  }
  return 1;
}
