// Fuzz target: the OTF2 reader (and the builder behind it) on mutated archives. The input is a
// serialized archive (archive_container.h); it is unpacked into the scratch directory and
// loaded as a directory, so format detection and anchor resolution run too. The decoder runs
// on the calling thread (LoadOptions::pipelined = false) so that coverage is deterministic; the
// pipelined hand-over is the same reader feeding a queue. Run with a memory budget
// (-rss_limit_mb, -malloc_limit_mb): counts in a mutated archive must not make the reader
// allocate without bound.
#include "archive_container.h"
#include "fuzz_common.h"

using namespace perwiz;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::filesystem::path dir = fuzz::scratchDir() / "archive";
  fuzz::unpackContainer(fuzz::parseContainer(data, size), dir);
  LoadOptions opts;
  opts.pipelined = false;
  try {
    Trace t = loadTrace(dir.string(), opts);
    (void)t;
  } catch (const TraceError& e) {
    if (e.file().empty() || e.problem().empty()) fuzz::fail(std::string("TraceError without file or problem: ") + e.what());
  }
  return 0;
}

// libFuzzer's hooks for the archive-level mutations (archive_container.h).
PERWIZ_ARCHIVE_MUTATORS()
