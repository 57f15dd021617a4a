// The comparison's table (docs/validation-models.md): one row per (backend, case, model),
// written by each test as it finishes, so that the table is complete whether CTest runs the
// cases in one process or in many.
#pragma once

#include <cstdint>
#include <string>

namespace perwiz::models {

struct Row {
  std::string backend;  // "SMPI" or "Open MPI"
  std::string program;
  std::string args;     // the program's options, "" for its defaults
  int ranks = 0;
  std::string model;    // "LogGP", "LogGPS" or "LogGPO"
  std::int64_t predictedNs = 0, measuredNs = 0;          // T of the whole trace
  std::int64_t predictedPartNs = 0, measuredPartNs = 0;  // the timed part (trace_metrics.h)
  std::int64_t predictedCommNs = 0, measuredCommNs = 0;  // communication time, all ranks
  bool asserted = false;  // SMPI (deterministic, checked) or only recorded (Open MPI)

  // Signed relative errors in %, (predicted − measured) / measured.
  double errorPercent() const;
  double partErrorPercent() const;
  double commErrorPercent() const;
};

// Writes OUTDIR/rows/<backend>-<program>-<args>-<ranks>-<model>.tsv and regenerates
// OUTDIR/models.md (the table and the per-model average errors) from every row file there.
// Throws std::runtime_error naming the file it cannot write.
void recordRow(const std::string& outdir, const Row& row);

}  // namespace perwiz::models
