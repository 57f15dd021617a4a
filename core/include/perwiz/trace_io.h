// Loading and saving traces: format detection by content, readers and writers.
#pragma once

#include "perwiz/memory_budget.h"
#include "perwiz/trace.h"
#include "perwiz/trace_sink.h"

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace perwiz {

// Bad input: the message names the file and the problem.
class TraceError : public std::runtime_error {
 public:
  TraceError(const std::string& file, const std::string& problem)
      : std::runtime_error(file + ": " + problem), file_(file), problem_(problem) {}
  const std::string& file() const { return file_; }
  const std::string& problem() const { return problem_; }

 private:
  std::string file_, problem_;
};

enum class TraceFormat { Unknown, Alog, Otf2, Otf };

// Looks at the content: an OTF2 anchor file (or a directory holding exactly one *.otf2 anchor),
// an OTF (version 1) master control file X.otf ("stream:process" lines in hexadecimal, with
// X.0.def[.z] beside it) or ALOG text (first non-blank, non-'#' line is six integers). Throws TraceError if the path
// does not exist or cannot be read.
TraceFormat detectFormat(const std::string& path);
// For an OTF2 path (anchor or directory), the anchor file; otherwise the path itself.
std::string resolveOtf2Anchor(const std::string& path);

struct LoadOptions {
  // Progress in [0, 1]; return false to cancel (load then throws TraceError "cancelled").
  std::function<bool(double)> progress;
  // OTF2 and OTF read on one thread: decode on the calling thread and build the model on a
  // second one (2 cores). false: everything on the calling thread. ALOG is never pipelined: it
  // reads on several threads itself (below), and on one the hand-over measured slower
  // (performance.md).
  bool pipelined = true;
  // OTF2 into a sink that takes parts (the model): ranks read and built on this many threads
  // at once, each with its own libotf2 reader over a share of the locations (consecutive
  // ranks, about equal records). ALOG: pass 1 scans this many byte chunks at once, and pass 2
  // streams this many ranges of processes into parts of the sink (every thread walks the whole
  // file and skips the other ranges' lines). 0: one per core once the trace has 2^18 records
  // (OTF2) or 8 MiB (ALOG) per thread; 1: one thread (OTF2 pipelined as above).
  unsigned threads = 0;
  // Memory the load may use, in bytes; 0: availableMemory(). loadTrace refuses a trace whose
  // estimate (estimateLoadMemory) exceeds it, before reading it.
  std::uint64_t memoryAvailable = 0;
  // Share `shareIndex` of `shareCount` (perwiz-mpi: each process its share): only the ranks
  // of rankShare(R, shareIndex, shareCount) get their events read; the others stay empty (their
  // names and the global definitions are read). OTF2 reads only those locations' files; ALOG
  // and OTF are read whole and the other ranks emptied after the build. Messages that reach a
  // rank outside the share stay unmatched (core/src/distributed/ghosts.h adds the partners).
  std::uint32_t shareIndex = 0;
  std::uint32_t shareCount = 1;
  bool allRanks() const { return shareCount <= 1; }
  bool readsRank(std::uint32_t r, std::uint32_t ranks) const;
};

// The ranks of share i of n: [R·i/n, R·(i+1)/n) (blocks of R/n ranks, rounded; a share is
// empty when n > R).
struct RankRange {
  std::uint32_t first = 0, last = 0;
  bool contains(std::uint32_t r) const { return r >= first && r < last; }
  std::uint32_t size() const { return last - first; }
};
RankRange rankShare(std::uint32_t ranks, std::uint32_t i, std::uint32_t n);
// The share (0 ≤ i < n) that holds rank r.
std::uint32_t shareOfRank(std::uint32_t ranks, std::uint32_t r, std::uint32_t n);

// availableMemory() and requireMemory(): perwiz/memory_budget.h (included above).
// Peak memory loadTrace needs for `path`, estimated from the sizes of its files (ALOG: the
// file; OTF2: the event and definition files of the archive) with the bytes per input byte
// measured in docs/performance.md. Throws TraceError like detectFormat.
std::uint64_t estimateLoadMemory(const std::string& path);

// Reads records and streams them into a sink. Throw TraceError on bad input.
void readAlog(const std::string& path, TraceSink& sink, const LoadOptions& opts = {});
void readOtf2(const std::string& path, TraceSink& sink, const LoadOptions& opts = {});
// OTF version 1 (VampirTrace, TAU's tau2otf, Open|SpeedShop): the master control file X.otf.
void readOtf(const std::string& path, TraceSink& sink, const LoadOptions& opts = {});

// Detects the format and builds the model.
Trace loadTrace(const std::string& path, const LoadOptions& opts = {});

// Writers are sinks; use them with emitTrace() or a generator.
// ALOG: one text file. OTF2: an archive directory `path` holding `traces.otf2`, `traces.def`
// and `traces/`; the directory must not exist yet (nothing is overwritten).
std::unique_ptr<TraceSink> makeAlogWriter(const std::string& path);
std::unique_ptr<TraceSink> makeOtf2Writer(const std::string& path);
// OTF version 1: `path` is the anchor X.otf; X.0.def, X.0.marker and X.<stream>.events are
// written beside it (none may exist yet).
std::unique_ptr<TraceSink> makeOtfWriter(const std::string& path);

// Format of an output path by its extension: .alog/.log -> Alog; .otf -> Otf (version 1);
// .otf2 or anything else (a directory) -> Otf2.
TraceFormat outputFormatFor(const std::string& path);
// What writing a trace at `path` creates beside it, for refusals that name what exists: an
// OTF2 anchor X.otf2 brings X.def and X/; an OTF anchor X.otf brings X.0.def, X.0.marker
// and X.1.events (the first stream); anything else is the path itself.
std::vector<std::string> traceOutputPaths(const std::string& path);
void saveTrace(const Trace& trace, const std::string& path);

}  // namespace perwiz
