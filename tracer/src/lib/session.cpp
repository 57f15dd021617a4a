#include "session.h"

#include "call.h"
#include "clock_sync.h"
#include "comm_table.h"
#include "converter_launch.h"
#include "crash_guard.h"
#include "def_file.h"
#include "output_dir.h"
#include "recorder.h"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <unistd.h>

namespace perwiz::trace {

namespace {

bool envFlag(const char* name, bool fallback) {
  const char* v = std::getenv(name);
  if (!v || !*v) return fallback;
  return !(std::strcmp(v, "0") == 0 || std::strcmp(v, "no") == 0 || std::strcmp(v, "off") == 0);
}

// PERWIZ_FORMAT: otf2 (default), alog, otf (OTF version 1), or a list ("otf2,alog"); the
// converter (perwiz-trace-convert) parses it the same way.
bool validFormatList(const std::string& f) {
  bool seen[3] = {false, false, false};
  std::size_t i = 0;
  while (i <= f.size()) {
    std::size_t j = f.find(',', i);
    if (j == std::string::npos) j = f.size();
    const std::string t = f.substr(i, j - i);
    const int k = t == "otf2" ? 0 : t == "alog" ? 1 : t == "otf" ? 2 : -1;
    if (k < 0 || seen[k]) return false;
    seen[k] = true;
    i = j + 1;
  }
  return true;
}

bool readFormat() {
  const char* v = std::getenv("PERWIZ_FORMAT");
  std::string f = v && *v ? v : "otf2";
  for (char& c : f) c = static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
  if (f.size() >= sizeof g.format || !validFormatList(f)) {
    if (g.rank == 0)
      std::fprintf(stderr, "perwiz-trace: PERWIZ_FORMAT='%s' is not a list of otf2, alog and otf; this run is not traced\n",
                   f.c_str());
    return false;
  }
  std::snprintf(g.format, sizeof g.format, "%s", f.c_str());
  return true;
}

// PERWIZ_TRACE_BUFFER: KiB of record buffer per rank (default 1024).
std::size_t bufferBytes() {
  const char* v = std::getenv("PERWIZ_TRACE_BUFFER");
  long kib = v && *v ? std::strtol(v, nullptr, 10) : 1024;
  if (kib < 160) kib = 160;
  return static_cast<std::size_t>(kib) * 1024;
}

// The program's name when MPI_Init had no argv (Fortran, MPI_Init(NULL, NULL)): the process's
// own name; under SMPI the process is smpimain, so a fixed word (PERWIZ_TRACE_NAME names it).
const char* fallbackProgramName() {
#ifdef PERWIZ_TRACE_SMPI
  return "smpi";
#else
  return program_invocation_short_name;
#endif
}

constexpr std::uint64_t kTraceDirBytes = sizeof g.traceDir;

// Rank 0 reserves the directory; everyone learns it (empty: not traced).
bool agreeOnTraceDir(const char* program) {
  char path[sizeof g.traceDir] = {};
  if (g.rank == 0) {
    const std::string reserved = reserveTraceDir(program);
    if (reserved.size() < sizeof path) std::memcpy(path, reserved.c_str(), reserved.size());
    else if (!reserved.empty())
      std::fprintf(stderr, "perwiz-trace: trace path too long: %s; this run is not traced\n", reserved.c_str());
  }
  PMPI_Bcast(path, sizeof path, MPI_CHAR, 0, MPI_COMM_WORLD);
  std::memcpy(g.traceDir, path, sizeof path);
  return path[0] != '\0';
}

#ifdef PERWIZ_TRACE_SMPI
// A copy of the library seeing a second MPI_Init belongs to several SMPI ranks.
[[noreturn]] void sharedBySeveralRanks() {
  std::fprintf(stderr,
               "perwiz-trace: several SMPI ranks share one copy of libperwiz-trace.so, so their "
               "records would mix. Run smpirun with --cfg=smpi/privatize-libs:libperwiz-trace.so "
               "(the library on LD_LIBRARY_PATH or given by its full path) so that each rank gets "
               "its own copy.\n");
  // SMPI's MPI_Abort ends the simulation with exit status 0; this configuration error must
  // not look like a successful run.
  std::fflush(stderr);
  ::_exit(1);
}
#endif

}  // namespace

void sessionStart(std::uint64_t enterTime, Region initRegion, const char* program) {
  const std::uint64_t initLeave = now();  // PMPI_Init has returned
  if (g.initialised) {
#ifdef PERWIZ_TRACE_SMPI
    sharedBySeveralRanks();
#endif
    return;  // MPI_Init called twice: MPI reports that itself
  }
  g.initialised = true;
  PMPI_Comm_rank(MPI_COMM_WORLD, &g.rank);
  PMPI_Comm_size(MPI_COMM_WORLD, &g.size);
  if (!envFlag("PERWIZ_TRACE", true)) return;
  if (!readFormat()) return;
  // The tracer's own collectives run on MPI_COMM_WORLD: inside MPI_Init and MPI_Finalize no
  // communication of the program can be pending, so nothing of the program can match them.
  const std::uint64_t bcastEnter = now();
  if (!agreeOnTraceDir(program && *program ? program : fallbackProgramName())) return;
  const std::uint64_t bcastLeave = now();

  // Every rank must open its files, or the run is not traced at all (a trace with holes
  // would mislead more than no trace).
  const bool opened = openRawFiles(g.traceDir, bufferBytes());
  std::uint16_t startRegion = 0;
  if (opened) {
    // What happened before the files existed: MPI_Init itself (PMPI_Init), then the tracer's
    // start-up region with its broadcast of the directory.
    appendMark(RecordKind::Enter, enterTime, regionId(initRegion));
    appendMark(RecordKind::Leave, initLeave, regionId(initRegion));
    startRegion = userRegion(kStartRegionName);
    appendMark(RecordKind::Enter, initLeave, startRegion);
    recordOwnCollective(Region::Bcast, bcastEnter, bcastLeave, 0, g.rank == 0 ? kTraceDirBytes : 0,
                        g.rank == 0 ? 0 : kTraceDirBytes);
  }
  int mine = opened ? 1 : 0;
  int all = 0;
  const std::uint64_t allreduceEnter = now();
  PMPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (!all) {
    if (opened) closeRawFiles();
    if (g.rank == 0)
      std::fprintf(stderr, "perwiz-trace: not every rank could create its files; this run is not traced\n");
    return;
  }
  recordOwnCollective(Region::Allreduce, allreduceEnter, now(), -1, sizeof mine, sizeof all);
  if (program && *program) defLine("program %s", program);
  commTableStart();
  syncClocks("init");
  installCrashGuard();
  g.started = true;
  g.active = true;

  const std::uint64_t cost = measureEventCost();
  append(RecordKind::Parameter, now(), kOverheadParameterId, 0, 0, 0, cost);
  appendMark(RecordKind::Leave, now(), startRegion);
}

// Collective over every rank that started, also one whose recording stopped early (it still
// takes part in the barriers, or the others would wait for it forever).
void sessionFinish() {
  if (!g.started) return;
  g.started = false;
  // The tracer's finish, as its start: a region holding its own barrier (and, across hosts,
  // the closing clock measurement), then the Finalize call's records. PMPI_Finalize itself
  // runs after the files are closed.
  const std::uint16_t finishRegion = g.active ? userRegion(kFinishRegionName) : 0;
  if (g.active) appendMark(RecordKind::Enter, now(), finishRegion);
  const std::uint64_t barrierEnter = now();
  PMPI_Barrier(MPI_COMM_WORLD);
  if (g.active) recordOwnCollective(Region::Barrier, barrierEnter, now(), -1, 0, 0);
  syncClocks("final");
  if (g.active) {
    appendMark(RecordKind::Leave, now(), finishRegion);
    const std::uint64_t finalize = now();
    appendMark(RecordKind::Enter, finalize, regionId(Region::Finalize));
    appendMark(RecordKind::Leave, finalize, regionId(Region::Finalize));
  }
  g.active = false;
  removeCrashGuard();
  const std::uint64_t records = g.rec.records;
  defLine("finalized %llu", static_cast<unsigned long long>(records));
  closeRawFiles();
  commTableStop();
  PMPI_Barrier(MPI_COMM_WORLD);  // every rank's files are complete
  if (g.rank == 0) runConverter(g.traceDir, g.format);
}

void sessionAbort(int errorcode) {
  if (!g.started) return;
  g.started = false;
  if (g.active) appendMark(RecordKind::Enter, now(), regionId(Region::Abort));
  g.active = false;
  defLine("aborted %d", errorcode);
  closeRawFiles();
  std::fprintf(stderr,
               "perwiz-trace: MPI_Abort(%d) on rank %d: the trace of this run is incomplete. The "
               "records every rank flushed are in %s/perwiz-raw (ranks stopped by a signal flush "
               "theirs on the way out; a rank killed outright loses what it had not flushed). "
               "Make a trace of them with: perwiz-trace-convert %s\n",
               errorcode, g.rank, g.traceDir, g.traceDir);
}

}  // namespace perwiz::trace
