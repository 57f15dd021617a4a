// perwiz-calibrate's options, parsed with CLI11 (see options.h).
#include "options.h"

#include <CLI/CLI.hpp>

#include <filesystem>
#include <sstream>

namespace perwiz::calibrate {

std::vector<std::string> modeNames() { return {"loggps"}; }

std::vector<std::uint64_t> messageSizes(std::uint64_t minSize, std::uint64_t maxSize) {
  std::vector<std::uint64_t> sizes{minSize};
  for (std::uint64_t p = 1; p != 0 && p < maxSize; p <<= 1)
    if (p > minSize) sizes.push_back(p);
  if (maxSize > minSize) sizes.push_back(maxSize);
  return sizes;
}

std::string modelName(const CalibrateOptions& options) {
  if (!options.name.empty()) return options.name;
  const std::filesystem::path stem = std::filesystem::path(options.output).stem();
  return stem.empty() ? std::string("calibrated") : stem.string();
}

ParseResult parseOptions(int argc, char** argv, CalibrateOptions& o) {
  CLI::App app{
      "perwiz-calibrate: measure the LogGPS parameters of the network between MPI ranks 0 and 1\n"
      "and write the model file that `perwiz-cli predict --model FILE` loads (docs/calibrate.md).\n"
      "Run with 2 ranks, e.g.  mpirun -np 2 perwiz-calibrate -o my-cluster.json",
      "perwiz-calibrate"};
  std::string statistic = statisticName(o.statistic);
  app.add_option("--mode", o.mode, "what to measure")
      ->check(CLI::IsMember(modeNames()))
      ->capture_default_str();
  app.add_option("-o,--output", o.output, "model JSON file to write (refused if it exists)");
  app.add_flag("--force", o.force, "overwrite an existing output file");
  app.add_option("--name", o.name, "the model's name (default: the output file's stem)");
  app.add_option("--min-size", o.minSize, "smallest message in bytes")
      ->check(CLI::Range(std::uint64_t(0), kMaxMessageBytes))
      ->capture_default_str();
  app.add_option("--max-size", o.maxSize,
                 "largest message in bytes (sizes: min, powers of two between, max)")
      ->check(CLI::Range(std::uint64_t(0), kMaxMessageBytes))
      ->capture_default_str();
  app.add_option("-r,--reps", o.repetitions, "timed repetitions per size and benchmark")
      ->check(CLI::Range(1, 1000000))
      ->capture_default_str();
  app.add_option("--warmup", o.warmup, "untimed repetitions before the timed ones")
      ->check(CLI::Range(0, 1000000))
      ->capture_default_str();
  app.add_option("--delay-us", o.delayUs,
                 "how long the receiver stays away from MPI when probing for the synchronous "
                 "threshold S (µs; 4 ping-pong times of the size are added)")
      ->check(CLI::Range(1.0, 1e7))
      ->capture_default_str();
  app.add_option("--statistic", statistic, "summary of the repetitions: median or min")
      ->check(CLI::IsMember({"median", "min"}))
      ->capture_default_str();
  app.add_flag("--json", o.json, "print the summary (model, per-size times, fits) as JSON");
  app.add_flag("-v,--verbose", o.verbose, "report progress on stderr");

  ParseResult result;
  std::ostringstream out, err;
  try {
    app.parse(argc, argv);
    if (o.minSize > o.maxSize)
      throw CLI::ValidationError("--min-size", "--min-size " + std::to_string(o.minSize) +
                                                   " is larger than --max-size " +
                                                   std::to_string(o.maxSize));
    o.statistic = statisticFromName(statistic);
    result.run = true;
    return result;
  } catch (const CLI::ParseError& e) {
    // --help is a ParseError with status 0; it prints to `out`.
    const int status = app.exit(e, out, err);
    result.status = status == 0 ? kExitOk : kExitBadUsage;
  }
  result.out = out.str();
  result.err = err.str();
  return result;
}

}  // namespace perwiz::calibrate
