#include "bench_data.h"

#include "perwiz/generator.h"
#include "perwiz/trace_io.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <unistd.h>

namespace fs = std::filesystem;

namespace perwiz::bench {

// A trace shaped like a bulk-synchronous solver: 64 ranks, ring exchange with Isend/Irecv/
// Waitall, an Allreduce per step, 20 % compute imbalance.
GeneratorSpec benchSpec(std::uint64_t events) {
  GeneratorSpec s;
  s.ranks = 64;
  s.seed = 42;
  s.imbalance = 0.2;
  s.pattern = P2PPattern::Ring;
  s.nonBlocking = true;
  s.messageBytes = 4096;
  s.collective = MpiOp::Allreduce;
  return specForEventCount(s, events);
}

namespace {

enum class Kind { Alog, Otf2, Otf };

std::string generateOnce(const fs::path& target, const std::string& outPath,
                         const GeneratorSpec& spec, Kind kind) {
  if (fs::exists(target)) return target.string();
  fs::create_directories(fs::path(outPath).parent_path());
  fs::remove_all(outPath);
  auto writer = kind == Kind::Alog ? makeAlogWriter(outPath)
                : kind == Kind::Otf ? makeOtfWriter(outPath)
                                    : makeOtf2Writer(outPath);
  generateTrace(spec, *writer);
  return target.string();
}

}  // namespace

std::uint64_t targetEvents(std::uint64_t fallback) {
  const char* env = std::getenv("PERWIZ_BENCH_EVENTS");
  return env ? std::strtoull(env, nullptr, 10) : fallback;
}

std::string otf2Archive(std::uint64_t events) {
  fs::path dir = fs::path(PERWIZ_BENCH_DATA) / ("otf2-" + std::to_string(events));
  return generateOnce(dir / "traces.otf2", dir.string(), benchSpec(events), Kind::Otf2);
}

std::string otf2Variant(std::uint64_t events, std::uint64_t insertEvery, std::uint64_t insertPhase) {
  fs::path dir = fs::path(PERWIZ_BENCH_DATA) / ("otf2-" + std::to_string(events) + "-insert" +
                                                std::to_string(insertEvery) + "-" + std::to_string(insertPhase));
  GeneratorSpec spec = benchSpec(events);
  spec.insertEvery = insertEvery;
  spec.insertPhase = insertPhase;
  return generateOnce(dir / "traces.otf2", dir.string(), spec, Kind::Otf2);
}

std::string alogFile(std::uint64_t events) {
  fs::path file = fs::path(PERWIZ_BENCH_DATA) / ("trace-" + std::to_string(events) + ".alog");
  return generateOnce(file, file.string(), benchSpec(events), Kind::Alog);
}

GeneratorSpec ringSpec() {
  GeneratorSpec s;
  s.ranks = 1024;
  s.steps = 1000;
  s.pattern = P2PPattern::Ring;
  s.blockingCalls = BlockingCalls::SendThenRecv;
  s.messageBytes = 1024;
  s.collective = MpiOp::None;
  return s;
}

std::string alogRing() {
  fs::path file = fs::path(PERWIZ_BENCH_DATA) / "ring-1024x1000-none.alog";
  return generateOnce(file, file.string(), ringSpec(), Kind::Alog);
}

std::string otfTrace(std::uint64_t events) {
  fs::path dir = fs::path(PERWIZ_BENCH_DATA) / ("otf-" + std::to_string(events));
  fs::create_directories(dir);
  const fs::path anchor = dir / "trace.otf";
  return generateOnce(anchor, anchor.string(), benchSpec(events), Kind::Otf);
}

std::string otfTraceCompressed(std::uint64_t events) {
  const fs::path plain = fs::path(otfTrace(events));
  fs::path dir = fs::path(PERWIZ_BENCH_DATA) / ("otf-z-" + std::to_string(events));
  const fs::path anchor = dir / "trace.otf";
  if (fs::exists(anchor)) return anchor.string();
  if (!fs::exists("/usr/bin/otfcompress")) return "";
  // The same archive, each stream compressed by libotf's own otfcompress (zlib level 4, its
  // default): what VampirTrace writes by default.
  const fs::path tmp = dir.string() + ".tmp";
  fs::remove_all(tmp);
  fs::create_directories(tmp);
  for (const auto& e : fs::directory_iterator(plain.parent_path())) {
    const std::string n = e.path().filename().string();
    if (n.size() > 7 && n.compare(n.size() - 7, 7, ".events") == 0) {
      const std::string cmd = "/usr/bin/otfcompress -o '" + tmp.string() + "' '" + e.path().string() + "' > /dev/null";
      if (std::system(cmd.c_str()) != 0) return "";
    } else {
      fs::copy_file(e.path(), tmp / n);
    }
  }
  fs::rename(tmp, dir);
  return anchor.string();
}

std::uint64_t residentSetBytes() {
  std::ifstream statm("/proc/self/statm");
  std::uint64_t size = 0, resident = 0;
  statm >> size >> resident;
  return resident * static_cast<std::uint64_t>(sysconf(_SC_PAGESIZE));
}

}  // namespace perwiz::bench
