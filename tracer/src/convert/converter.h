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

// PERWIZ_FORMAT / --format: a comma-separated list of otf2, alog and otf (each at most once, any
// case). Returns false for anything else.
inline bool parseFormats(std::string f, bool& otf2, bool& alog, bool& otf) {
  otf2 = alog = otf = false;
  for (char& c : f) c = static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
  std::size_t i = 0;
  if (f.empty()) return false;
  while (i <= f.size()) {
    std::size_t j = f.find(',', i);
    if (j == std::string::npos) j = f.size();
    const std::string t = f.substr(i, j - i);
    bool* slot = t == "otf2" ? &otf2 : t == "alog" ? &alog : t == "otf" ? &otf : nullptr;
    if (!slot || *slot) return false;
    *slot = true;
    i = j + 1;
  }
  return true;
}

struct ConvertOptions {
  std::string traceDir;  // DIR/NAME holding perwiz-raw/
  bool otf2 = true;      // DIR/NAME/traces.otf2 (+ traces.def, traces/)
  bool alog = false;     // DIR/NAME/traces.alog
  bool otf = false;      // DIR/NAME/traces.otf (+ traces.0.def, traces.N.events): OTF version 1
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
