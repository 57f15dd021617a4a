// Command line of perwiz-calibrate (docs/calibrate.md). Plain C++: parsed identically on every
// rank (and under SMPI, where all ranks share one process), printed by rank 0 only.
#pragma once

#include "stats.h"

#include <cstdint>
#include <string>
#include <vector>

namespace perwiz::calibrate {

// Exit statuses are part of the interface (tests and scripts depend on them).
enum ExitStatus : int {
  kExitOk = 0,
  kExitFailure = 1,   // the measurement or the output file failed
  kExitBadUsage = 2,  // wrong arguments, wrong rank count, output exists without --force
};

// Largest message measured: MPI counts are ints and every rank holds one buffer of this size.
constexpr std::uint64_t kMaxMessageBytes = std::uint64_t(1) << 30;

struct CalibrateOptions {
  std::string mode = "loggps";  // what to measure: loggps, loggpo (a pair) or profile (all ranks)
  std::string output;           // model file to write ("" = only print the summary)
  bool force = false;           // replace an existing output file
  bool allowDegenerate = false; // write a model whose L, G or fits are degenerate (pair modes)
  std::string collectives;      // LogGPS/LogGPO "collectives": "binomial" or "smpi" ("" = the build's)
  std::string name;             // the model's "name" ("" = the output file's stem)
  std::uint64_t minSize = 0;    // message sizes: minSize, the powers of two between, maxSize
  std::uint64_t maxSize = std::uint64_t(1) << 20;
  int repetitions = 0;          // timed repetitions per size / base point; 0 = the mode's default
  int warmup = 3;               // untimed repetitions before them
  double delayUs = 1000;        // how late the receiver calls in the threshold (S) probes
  Statistic statistic = Statistic::Median;
  // profile mode (docs/calibrate.md, "Overhead profile"):
  std::uint64_t maxBytes = 100000;     // largest base message size b (the paper goes to 4 MB)
  std::vector<std::string> functions;  // MPI functions to profile ("" = all of profileFunctions())
  double quantile = 0.95;              // q_max of the fits
  std::int64_t timerResolutionNs = 1;  // smallest histogram window (FitOptions::minWindowNs)
  bool json = false;            // JSON summary on stdout instead of the table
  bool verbose = false;         // progress on stderr
};

// What parsing decided. `run` is false for --help and for errors; then `status` is the exit
// status and `out` / `err` hold what rank 0 prints.
struct ParseResult {
  bool run = false;
  int status = kExitOk;
  std::string out, err;
};

ParseResult parseOptions(int argc, char** argv, CalibrateOptions& options);

// The modes that exist (for --mode and the help text).
std::vector<std::string> modeNames();

// Timed repetitions when -r is not given: 20 per size for the pair modes (a median of 20 is
// stable), 50 per base point for the profile (with p ranks pooled, 100 or more samples, enough
// for the χ² classes; the paper found about 200 samples sufficient).
int defaultRepetitions(const std::string& mode);

// minSize, every power of two strictly between, maxSize (deduplicated, ascending).
std::vector<std::uint64_t> messageSizes(std::uint64_t minSize, std::uint64_t maxSize);

// The model name: --name, else the output file's stem (what the model loader would call a file
// without "name"), else "calibrated".
std::string modelName(const CalibrateOptions& options);

}  // namespace perwiz::calibrate
