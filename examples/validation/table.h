// The validation table (docs/validation.md): one row per case, written by each test as it
// finishes, so that the table is complete whether CTest runs the cases in one process or in many.
#pragma once

#include <cstdint>
#include <string>

namespace perwiz::validation {

struct Row {
  std::string backend;     // "SMPI" or "Open MPI"
  std::string program;
  int ranks = 0;
  std::string hypotheses;  // what was predicted, e.g. "balance-compute 0-5"
  std::string improved;    // the improved variant's option, e.g. "--interleaved"
  std::int64_t originalNs = 0, predictedNs = 0, improvedNs = 0;  // T of the whole trace
  // When the programs' timing window starts: the last rank's leave of the first MPI_Barrier, in
  // the original trace (the hypotheses change nothing before it) and in the improved one.
  std::int64_t originalStartNs = 0, improvedStartNs = 0;
  bool asserted = false;    // error ≤ 5 % asserted (SMPI) or only recorded (Open MPI)

  // |predicted − measured| / measured of the whole T, and of T after the start barrier (which
  // leaves out MPI_Init: some 300 ms under Open MPI here, noise that no hypothesis touches).
  double errorPercent() const;
  double windowErrorPercent() const;
};

// Writes OUTDIR/rows/<backend>-<program>-<ranks>.tsv and regenerates OUTDIR/validation.md from
// every row file there. Throws std::runtime_error naming the file it cannot write.
void recordRow(const std::string& outdir, const Row& row);

}  // namespace perwiz::validation
