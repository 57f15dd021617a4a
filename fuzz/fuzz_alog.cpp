// Fuzz target: the ALOG reader and the TraceBuilder on arbitrary bytes; a trace that loads is
// written back with the ALOG writer and must load again with the same ranks and event counts
// (no lost data in a round trip).
#include "fuzz_common.h"

#include "perwiz/trace_sink.h"

#include <filesystem>

using namespace perwiz;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string path = fuzz::writeScratch("input.alog", data, size);
  std::optional<Trace> trace = fuzz::loadAlog(path);
  if (!trace) return 0;

  const std::string out = (fuzz::scratchDir() / "roundtrip.alog").string();
  std::error_code ec;
  std::filesystem::remove(out, ec);
  {
    std::unique_ptr<TraceSink> writer = makeAlogWriter(out);
    emitTrace(*trace, *writer);
  }
  std::optional<Trace> again = fuzz::loadAlog(out);
  if (!again) fuzz::fail("the ALOG writer's output of a loaded trace does not load");
  if (again->rankCount() != trace->rankCount()) fuzz::fail("round trip changed the rank count");
  for (std::size_t r = 0; r < trace->rankCount(); ++r) {
    if (again->ranks[r].size() != trace->ranks[r].size())
      fuzz::fail("round trip changed the event count of rank " + std::to_string(r));
    if (again->ranks[r].mpiCalls.size() != trace->ranks[r].mpiCalls.size())
      fuzz::fail("round trip changed the MPI call count of rank " + std::to_string(r));
  }
  return 0;
}
