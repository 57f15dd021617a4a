// perwiz-trace-convert's work: the raw per-rank files of one traced run -> one trace, written by
// PerWiz's own OTF2 and ALOG writers (so the trace follows exactly the conventions core's
// readers expect: docs/trace-model.md).
//
// Two passes over each rank's records: the first finds the earliest aligned time (the trace's
// time 0) and the requests that ended cancelled (their posts are dropped: no message was sent
// or received), the second streams the records into the writers, rank by rank, with times
// aligned to rank 0's clock and comm-local ranks translated to world ranks.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace perwiz::trace {

struct ConvertOptions {
  std::string traceDir;  // DIR/NAME holding perwiz-raw/
  bool otf2 = true;      // DIR/NAME/traces.otf2 (+ traces.def, traces/)
  bool alog = false;     // DIR/NAME/traces.alog
  bool keepRaw = false;  // keep perwiz-raw/ after a complete conversion
};

struct ConvertResult {
  std::vector<std::string> outputs;  // paths written
  int ranks = 0;
  std::uint64_t records = 0;  // raw records converted
  bool complete = true;       // every rank reached MPI_Finalize with all its records
  bool rawRemoved = false;
  std::vector<std::string> notes;  // what an incomplete run lacks, rank by rank; anomalies
};

// Throws perwiz::TraceError (naming the file and the problem) on unusable input or when an
// output already exists.
ConvertResult convertRawTrace(const ConvertOptions& options);

}  // namespace perwiz::trace
