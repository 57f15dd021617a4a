// perwiz-calibrate: measures the network between MPI ranks and writes a PerWiz model file
// (docs/calibrate.md). Built for Open MPI (perwiz-calibrate) and SMPI (perwiz-calibrate-smpi).
//
// Exit status: 0 success, 1 measurement or output failure, 2 bad usage (options, fewer than 2
// ranks, an existing output file without --force). Only rank 0 prints.
#include "loggpo_mode.h"
#include "loggps_mode.h"
#include "options.h"
#include "output_file.h"
#include "profile_mode.h"

#include <mpi.h>

#include <cstdio>
#include <exception>
#include <string>

using namespace perwiz::calibrate;

namespace {

// The modes of --mode (docs/calibrate.md): one function each.
int runMode(const CalibrateOptions& options) {
  if (options.mode == "loggps") return runLogGpsMode(MPI_COMM_WORLD, options);
  if (options.mode == "loggpo") return runLogGpoMode(MPI_COMM_WORLD, options);
  if (options.mode == "profile") return runProfileMode(MPI_COMM_WORLD, options);
  return kExitBadUsage;  // unreachable: --mode is checked against modeNames()
}

// Everything between MPI_Init and MPI_Finalize; every rank returns its exit status.
int calibrate(int argc, char** argv) {
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);

  CalibrateOptions options;
  const ParseResult parsed = parseOptions(argc, argv, options);  // same argv on every rank
  if (!parsed.run) {
    if (rank == 0) {
      std::fputs(parsed.out.c_str(), stdout);
      std::fputs(parsed.err.c_str(), stderr);
    }
    return parsed.status;
  }
  if (size < 2) {
    std::fprintf(stderr,
                 "perwiz-calibrate: needs 2 MPI ranks to measure between, got %d; run it as "
                 "e.g. `mpirun -np 2 perwiz-calibrate -o FILE`\n",
                 size);
    return kExitBadUsage;
  }
  // Refuse a bad output path before measuring; rank 0 decides for everyone.
  int status = kExitOk;
  if (rank == 0 && !options.output.empty()) {
    try {
      checkOutputPath(options.output, options.force);
    } catch (const OutputError& e) {
      std::fprintf(stderr, "perwiz-calibrate: %s\n", e.what());
      status = kExitBadUsage;
    }
  }
  MPI_Bcast(&status, 1, MPI_INT, 0, MPI_COMM_WORLD);
  if (status != kExitOk) return status;
  if (rank == 0 && size > 2 && options.verbose && options.mode != "profile")
    std::fprintf(stderr, "perwiz-calibrate: measuring between ranks 0 and 1; ranks 2-%d idle\n",
                 size - 1);
  return runMode(options);
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int status = kExitFailure;
  try {
    status = calibrate(argc, argv);
  } catch (const std::exception& e) {
    // The partner rank may be blocked in a matching call: only an abort ends the run cleanly.
    std::fprintf(stderr, "perwiz-calibrate: %s\n", e.what());
    MPI_Abort(MPI_COMM_WORLD, kExitFailure);
  }
  MPI_Finalize();
  return status;
}
