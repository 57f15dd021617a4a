// Shared helpers of the libFuzzer targets (fuzz/README in docs/robustness.md).
//
// The core API reads traces from paths (ALOG is memory-mapped, OTF2 is a directory), so a
// target writes its input into a private scratch directory of the fuzzing process first.
#pragma once

#include "perwiz/trace.h"
#include "perwiz/trace_builder.h"
#include "perwiz/trace_io.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <unistd.h>

namespace perwiz::fuzz {

// $TMPDIR/perwiz-fuzz-XXXXXX, created once per process and removed at normal exit.
inline const std::filesystem::path& scratchDir() {
  static const std::filesystem::path dir = [] {
    const char* tmp = std::getenv("TMPDIR");
    std::string templ = std::string(tmp && *tmp ? tmp : "/tmp") + "/perwiz-fuzz-XXXXXX";
    if (!mkdtemp(templ.data())) {
      std::perror("perwiz fuzz: mkdtemp");
      std::abort();
    }
    std::atexit([] {
      std::error_code ec;
      std::filesystem::remove_all(scratchDir(), ec);
    });
    return std::filesystem::path(templ);
  }();
  return dir;
}

// Writes `data` to scratchDir()/name (replacing it) and returns the path.
inline std::string writeScratch(const std::string& name, const std::uint8_t* data, std::size_t size) {
  const std::filesystem::path p = scratchDir() / name;
  std::ofstream out(p, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  out.close();
  if (!out) {
    std::fprintf(stderr, "perwiz fuzz: cannot write %s\n", p.c_str());
    std::abort();
  }
  return p.string();
}

// The ALOG reader and the builder on one file, as loadTrace does it for ALOG (every input goes
// to the reader, also ones the format detection would refuse). nullopt for a TraceError.
inline std::optional<Trace> loadAlog(const std::string& path) {
  try {
    TraceBuilder b(path, "alog");
    readAlog(path, b, {});
    b.end();
    return b.take();
  } catch (const TraceError& e) {
    // Bad input must be reported naming the file.
    if (e.file().empty() || e.problem().empty()) {
      std::fprintf(stderr, "TraceError without file or problem: %s\n", e.what());
      std::abort();
    }
    return std::nullopt;
  }
}

// Stops the fuzzer with a message: a property of the API that does not hold.
[[noreturn]] inline void fail(const std::string& what) {
  std::fprintf(stderr, "perwiz fuzz: property violated: %s\n", what.c_str());
  std::abort();
}

}  // namespace perwiz::fuzz
