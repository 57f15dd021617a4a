// perwiz-calibrate's options, parsed with CLI11 (see options.h).
#include "options.h"

#include "profile_points.h"

#include <CLI/CLI.hpp>

#include <filesystem>
#include <sstream>

namespace perwiz::calibrate {

std::vector<std::string> modeNames() { return {"loggps", "loggpo", "profile"}; }

int defaultRepetitions(const std::string& mode) { return mode == "profile" ? 50 : 20; }

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
      "perwiz-calibrate: measure the network between MPI ranks and write what PerWiz loads\n"
      "(docs/calibrate.md):\n"
      "  --mode loggps   LogGPS parameters between ranks 0 and 1 (perwiz-cli predict --model FILE)\n"
      "  --mode loggpo   LogGPO parameters between ranks 0 and 1 (perwiz-cli predict --model FILE)\n"
      "  --mode profile  the overhead profile T_f(p, b) on all ranks (perwiz-cli overhead --profile FILE)\n"
      "Run with at least 2 ranks, e.g.  mpirun -np 2 perwiz-calibrate -o my-cluster.json",
      "perwiz-calibrate"};
  std::string statistic = statisticName(o.statistic);
  app.add_option("--mode", o.mode, "what to measure")
      ->check(CLI::IsMember(modeNames()))
      ->capture_default_str();
  app.add_option("-o,--output", o.output,
                 "model or profile JSON file to write (refused if it exists)");
  app.add_flag("--force", o.force, "overwrite an existing output file");
  app.add_option("--collectives", o.collectives,
                 "LogGPS and LogGPO: the collective algorithms the model prices, binomial or smpi (SimGrid SMPI's default "
                 "selector); default: smpi in perwiz-calibrate-smpi, binomial otherwise")
      ->check(CLI::IsMember({"binomial", "smpi"}));
  app.add_flag("--allow-degenerate", o.allowDegenerate,
               "write the model even when L or G is not positive or a fit misses the measurements by more "
               "than 10 % (otherwise an error, exit 1)");
  app.add_option("--name", o.name, "the model's name (default: the output file's stem)");
  app.add_option("--min-size", o.minSize, "smallest message in bytes")
      ->check(CLI::Range(std::uint64_t(0), kMaxMessageBytes))
      ->capture_default_str();
  app.add_option("--max-size", o.maxSize,
                 "largest message in bytes (sizes: min, powers of two between, max)")
      ->check(CLI::Range(std::uint64_t(0), kMaxMessageBytes))
      ->capture_default_str();
  app.add_option("-r,--reps", o.repetitions,
                 "timed repetitions per size and benchmark (default 20), or per base point of "
                 "the profile (default 50)")
      ->check(CLI::Range(1, 1000000));
  app.add_option("--warmup", o.warmup, "untimed repetitions before the timed ones")
      ->check(CLI::Range(0, 1000000))
      ->capture_default_str();
  app.add_option("--delay-us", o.delayUs,
                 "how long the receiver stays away from MPI when probing for the synchronous "
                 "threshold S (µs; 4 ping-pong times of the size are added); loggpo: also the "
                 "time away from MPI in the progress probe (+ 4 Wait times)")
      ->check(CLI::Range(1.0, 1e7))
      ->capture_default_str();
  app.add_option("--statistic", statistic, "summary of the repetitions: median or min")
      ->check(CLI::IsMember({"median", "min"}))
      ->capture_default_str();
  app.add_option("--max-bytes", o.maxBytes,
                 "profile: largest base message size b (base sizes 1, 10, 20 … 100, 200 …)")
      ->check(CLI::Range(std::uint64_t(1), kMaxMessageBytes))
      ->capture_default_str();
  app.add_option("--functions", o.functions,
                 "profile: the MPI functions to measure, comma-separated (default: all of " +
                     joinedProfileFunctions() + ")")
      ->delimiter(',')
      ->check(CLI::IsMember(profileFunctionNames()));
  app.add_option("--quantile", o.quantile, "profile: q_max of the fitted error models")
      ->check(CLI::Range(0.8, 1.0))
      ->capture_default_str();
  app.add_option("--timer-resolution-ns", o.timerResolutionNs,
                 "profile: smallest histogram window in ns (the timer's resolution)")
      ->check(CLI::Range(std::int64_t(1), std::int64_t(1000000000)))
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
    if (o.repetitions == 0) o.repetitions = defaultRepetitions(o.mode);
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
