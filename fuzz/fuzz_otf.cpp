// Fuzz target: the OTF (version 1) reader (libotf, and the builder behind it) on mutated
// archives (issue #17). The input is a serialized set of files (archive_container.h): X.otf,
// X.0.def, X.<stream>.events, X.0.marker. It is unpacked into the scratch directory and the first
// *.otf file there is loaded, so detection by content runs too. Single-threaded
// (LoadOptions::pipelined = false) for deterministic coverage.
#include "archive_container.h"
#include "fuzz_common.h"

using namespace perwiz;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::filesystem::path dir = fuzz::scratchDir() / "otf";
  fuzz::unpackContainer(fuzz::parseContainer(data, size), dir);
  std::filesystem::path anchor;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(dir, ec))
    if (e.path().extension() == ".otf" && (anchor.empty() || e.path() < anchor)) anchor = e.path();
  if (anchor.empty()) return 0;
  LoadOptions opts;
  opts.pipelined = false;
  try {
    Trace t = loadTrace(anchor.string(), opts);
    (void)t;
  } catch (const TraceError& e) {
    if (e.file().empty() || e.problem().empty()) fuzz::fail(std::string("TraceError without file or problem: ") + e.what());
  }
  return 0;
}

// libFuzzer's hooks for the archive-level mutations (archive_container.h).
PERWIZ_ARCHIVE_MUTATORS()
