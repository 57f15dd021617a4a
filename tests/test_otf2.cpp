// OTF2 reader and writer.
//
// 1. Archives written here with the libotf2 writer API directly (not with our writer, so the
//    reader is tested on its own), with every expected value derived by hand in comments.
// 2. Conformance over the shared Score-P samples, checked against an independent count made
//    with a small libotf2 reader in this file, plus the read -> write -> read round trip.
// 3. Hostile input: every failure is a TraceError naming the path, never a crash.
#include "cli_runner.h"
#include "model_invariants.h"
#include "test_support.h"

#include "perwiz/generator.h"
#include "perwiz/replay.h"
#include "perwiz/trace_builder.h"
#include "perwiz/trace_io.h"

#include <gtest/gtest.h>
#include <otf2/otf2.h>

#include <sys/resource.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <map>
#include <optional>
#include <set>

namespace fs = std::filesystem;
using namespace perwiz;
using perwiz::test::freshDir;
using perwiz::test::writeFile;

namespace {

// ------------------------------------------------------------------------------------------
// Helpers

Trace readArchive(const fs::path& p, const LoadOptions& opts = {}) {
  TraceBuilder b(p.string(), "otf2");
  readOtf2(p.string(), b, opts);
  return b.take();
}

std::uint32_t fnIndex(const Trace& t, const std::string& name) {
  for (std::uint32_t i = 0; i < t.functions.size(); ++i)
    if (t.functions[i].name == name) return i;
  ADD_FAILURE() << "no function named '" << name << "'";
  return kNone32;
}

// Names of a rank's events in enter order.
std::vector<std::string> eventNames(const Trace& t, std::uint32_t rank) {
  std::vector<std::string> out;
  for (std::uint32_t f : t.ranks[rank].function) out.push_back(t.functions[f].name);
  return out;
}

// Index of the k-th event of `name` on `rank`.
std::uint32_t eventOf(const Trace& t, std::uint32_t rank, const std::string& name, int k = 0) {
  const RankTrace& r = t.ranks[rank];
  for (std::uint32_t e = 0; e < r.size(); ++e)
    if (t.functions[r.function[e]].name == name && k-- == 0) return e;
  ADD_FAILURE() << "rank " << rank << " has no event '" << name << "'";
  return kNone32;
}

int countWarnings(const Trace& t, const std::string& text) {
  int n = 0;
  for (const auto& w : t.warnings) n += w.message.find(text) != std::string::npos;
  return n;
}

std::string allWarnings(const Trace& t) {
  std::string s;
  for (const auto& w : t.warnings) s += "  " + w.toString() + "\n";
  return s;
}

// The OTF2 anchor inside an archive directory.
fs::path anchorIn(const fs::path& dir) {
  for (const auto& e : fs::directory_iterator(dir))
    if (e.path().extension() == ".otf2") return e.path();
  return {};
}

// nullopt when otf2-print is not installed.
std::optional<bool> otf2PrintAccepts(const fs::path& anchor) {
  if (std::system("command -v otf2-print >/dev/null 2>&1") != 0) return std::nullopt;
  std::string cmd = "otf2-print --silent '" + anchor.string() + "' >/dev/null 2>&1";
  return std::system(cmd.c_str()) == 0;
}

void expectTraceError(const std::function<void()>& f, const std::string& path,
                      const std::string& problem = {}) {
  try {
    f();
    ADD_FAILURE() << "no TraceError for " << path;
  } catch (const TraceError& e) {
    EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
    if (!problem.empty()) {
      EXPECT_NE(std::string(e.what()).find(problem), std::string::npos) << e.what();
    }
  }
}

void ok(OTF2_ErrorCode rc) {
  if (rc != OTF2_SUCCESS) ADD_FAILURE() << "libotf2: " << OTF2_Error_GetName(rc);
}

OTF2_FlushType preFlush(void*, OTF2_FileType, OTF2_LocationRef, void*, bool) { return OTF2_FLUSH; }
const OTF2_FlushCallbacks kFlush = {&preFlush, nullptr};

// Writes an archive "<dir>/traces.otf2" with libotf2 directly. Strings are given up front
// (str() is their index) so that they are defined before anything refers to them.
class RawArchive {
 public:
  RawArchive(const fs::path& dir, std::vector<std::string> strings) : strings_(std::move(strings)) {
    archive_ = OTF2_Archive_Open(dir.c_str(), "traces", OTF2_FILEMODE_WRITE,
                                 OTF2_CHUNK_SIZE_EVENTS_DEFAULT, OTF2_CHUNK_SIZE_DEFINITIONS_DEFAULT,
                                 OTF2_SUBSTRATE_POSIX, OTF2_COMPRESSION_NONE);
    EXPECT_NE(archive_, nullptr);
    ok(OTF2_Archive_SetFlushCallbacks(archive_, &kFlush, nullptr));
    ok(OTF2_Archive_SetSerialCollectiveCallbacks(archive_));
    ok(OTF2_Archive_OpenEvtFiles(archive_));
  }

  OTF2_EvtWriter* operator[](OTF2_LocationRef loc) {
    auto it = writers_.find(loc);
    if (it == writers_.end()) it = writers_.emplace(loc, OTF2_Archive_GetEvtWriter(archive_, loc)).first;
    return it->second;
  }

  OTF2_StringRef str(const std::string& s) const {
    auto it = std::find(strings_.begin(), strings_.end(), s);
    if (it == strings_.end()) ADD_FAILURE() << "string not declared: " << s;
    return static_cast<OTF2_StringRef>(it - strings_.begin());
  }

  // Valid inside finish()'s callback.
  std::uint64_t events(OTF2_LocationRef loc) const { return counts_.at(loc); }

  void finish(const std::function<void(OTF2_GlobalDefWriter*)>& defs) {
    for (auto& [loc, w] : writers_) {
      ok(OTF2_EvtWriter_GetNumberOfEvents(w, &counts_[loc]));
      ok(OTF2_Archive_CloseEvtWriter(archive_, w));
    }
    ok(OTF2_Archive_CloseEvtFiles(archive_));
    ok(OTF2_Archive_OpenDefFiles(archive_));
    for (auto& [loc, w] : writers_) ok(OTF2_Archive_CloseDefWriter(archive_, OTF2_Archive_GetDefWriter(archive_, loc)));
    ok(OTF2_Archive_CloseDefFiles(archive_));
    OTF2_GlobalDefWriter* g = OTF2_Archive_GetGlobalDefWriter(archive_);
    for (std::size_t i = 0; i < strings_.size(); ++i)
      ok(OTF2_GlobalDefWriter_WriteString(g, static_cast<OTF2_StringRef>(i), strings_[i].c_str()));
    defs(g);
    ok(OTF2_Archive_CloseGlobalDefWriter(archive_, g));
    ok(OTF2_Archive_Close(archive_));
  }

 private:
  OTF2_Archive* archive_ = nullptr;
  std::vector<std::string> strings_;
  std::map<OTF2_LocationRef, OTF2_EvtWriter*> writers_;
  std::map<OTF2_LocationRef, std::uint64_t> counts_;
};

// ------------------------------------------------------------------------------------------
// 1. The hand-written archive.
//
// Clock: 2.5e9 ticks/s and a globalOffset of ~9e15 ticks, so a timestamp offset + 5m is
// 5m / 2.5e9 s = 2m ns after the start: T(m) below is "2m ns".
// Locations (ids deliberately unlike ranks):
//   kLocA = 715827882 (EZTrace-like id), kLocB = 1000, kLocC = 5: the CPU threads of three
//   processes whose location groups are defined in the order "P-c"(0), "P-b"(1), "P-a"(2).
//   The MPI COMM_LOCATIONS group lists [kLocA, kLocB, kLocC], so MPI_COMM_WORLD ranks are
//   0 = kLocA "P-a", 1 = kLocB "P-b", 2 = kLocC "P-c" (location-group order would give the
//   reverse).
//   kThread = (1<<32)|1000 a second thread of "P-b": a thread row under rank 1 (issue #37);
//   kGpu = (2<<32)|5 an accelerator stream, kMetric = (3<<32)|5 a metric location: both
//   skipped with a warning each.
// Communicators (OTF2 ids): 0 "SUB" = comm-local [world 2, world 0] (members are indexes into
//   COMM_LOCATIONS: [2, 0]); 1 "MPI_COMM_SELF"; 2 "MPI_COMM_WORLD" (not comm 0); 3 a CUDA
//   comm whose members include the GPU stream (not all ranks: not in the model).
//   Model comms: 0 = WORLD, 1 = SUB {2, 0}, 2 = SELF.

// 2^53 + 3 (~9e15, the size of real TSC offsets): a double cannot hold it (it rounds to
// 2^53 + 4), so a conversion that passes absolute ticks through double is 1 tick = 0.4 ns
// off and lands on the wrong nanosecond.
constexpr std::uint64_t kOffset = 9'007'199'254'740'995ULL;
constexpr OTF2_TimeStamp T(std::uint64_t m) { return kOffset + 5 * m; }
constexpr OTF2_LocationRef kLocA = 715827882, kLocB = 1000, kLocC = 5;
constexpr OTF2_LocationRef kThread = (1ULL << 32) | 1000, kGpu = (2ULL << 32) | 5,
                           kMetric = (3ULL << 32) | 5;
enum Region : OTF2_RegionRef {
  rSend, rRecv, rIsend, rIrecv, rWait, rBcast, rCommDup, rIter, rCompute, rKernel
};
enum Param : OTF2_ParameterRef { pPhase, pIteration };
enum Comm : OTF2_CommRef { cSub, cSelf, cWorld, cCuda };

void writeHandArchive(const fs::path& dir, bool withMpiLocations = true) {
  RawArchive a(dir, {"", "MPI_Send", "MPI_Recv", "MPI_Isend", "MPI_Irecv", "MPI_Wait",
                     "MPI_Bcast", "MPI_Comm_dup", "PRGN_iter", "compute", "gpu_kernel",
                     "color:orange", "phase", "iteration", "warmup", "P-a", "P-b", "P-c", "GPU",
                     "thread", "SUB", "MPI_COMM_SELF", "MPI_COMM_WORLD", "CUDA_COMM", "node"});
  // Rank 0 (kLocA).
  OTF2_EvtWriter* w = a[kLocA];
  ok(OTF2_EvtWriter_Enter(w, nullptr, T(0), rIter));
  ok(OTF2_EvtWriter_Enter(w, nullptr, T(10), rRecv));
  ok(OTF2_EvtWriter_MpiRecv(w, nullptr, T(20), 0, cSub, 7, 64));  // SUB-local 0 = world 2
  ok(OTF2_EvtWriter_Leave(w, nullptr, T(21), rRecv));
  ok(OTF2_EvtWriter_Enter(w, nullptr, T(30), rIsend));
  ok(OTF2_EvtWriter_MpiIsend(w, nullptr, T(31), 1, cWorld, 5, 100, 21));
  ok(OTF2_EvtWriter_Leave(w, nullptr, T(32), rIsend));
  ok(OTF2_EvtWriter_MpiRequestTest(w, nullptr, T(33), 21));  // not modelled: counted
  ok(OTF2_EvtWriter_MpiRequestTest(w, nullptr, T(34), 21));
  ok(OTF2_EvtWriter_Enter(w, nullptr, T(40), rWait));
  ok(OTF2_EvtWriter_MpiIsendComplete(w, nullptr, T(41), 21));
  ok(OTF2_EvtWriter_Leave(w, nullptr, T(42), rWait));
  ok(OTF2_EvtWriter_Enter(w, nullptr, T(50), rBcast));
  ok(OTF2_EvtWriter_MpiCollectiveBegin(w, nullptr, T(50)));
  ok(OTF2_EvtWriter_MpiCollectiveEnd(w, nullptr, T(60), OTF2_COLLECTIVE_OP_BCAST, cSub, 0, 0, 16));
  ok(OTF2_EvtWriter_Leave(w, nullptr, T(61), rBcast));
  ok(OTF2_EvtWriter_ParameterString(w, nullptr, T(70), pPhase, a.str("warmup")));
  ok(OTF2_EvtWriter_Leave(w, nullptr, T(100), rIter));
  // 2'500'000'005 ticks = 1.000000002 s: exact only in integer arithmetic.
  ok(OTF2_EvtWriter_Enter(w, nullptr, kOffset + 2'500'000'005ULL, rCompute));
  ok(OTF2_EvtWriter_Leave(w, nullptr, kOffset + 2'500'000'010ULL, rCompute));

  // Rank 1 (kLocB).
  w = a[kLocB];
  ok(OTF2_EvtWriter_Enter(w, nullptr, T(0), rIter));
  ok(OTF2_EvtWriter_Enter(w, nullptr, T(5), rIsend));
  ok(OTF2_EvtWriter_MpiIsend(w, nullptr, T(6), 0, cSelf, 3, 8, 11));  // to itself
  ok(OTF2_EvtWriter_Leave(w, nullptr, T(7), rIsend));
  ok(OTF2_EvtWriter_Enter(w, nullptr, T(8), rRecv));
  ok(OTF2_EvtWriter_MpiRecv(w, nullptr, T(9), 0, cSelf, 3, 8));
  ok(OTF2_EvtWriter_Leave(w, nullptr, T(10), rRecv));
  ok(OTF2_EvtWriter_Enter(w, nullptr, T(11), rWait));
  ok(OTF2_EvtWriter_MpiIsendComplete(w, nullptr, T(12), 11));
  ok(OTF2_EvtWriter_Leave(w, nullptr, T(13), rWait));
  ok(OTF2_EvtWriter_Enter(w, nullptr, T(25), rIrecv));
  ok(OTF2_EvtWriter_MpiIrecvRequest(w, nullptr, T(26), 31));
  ok(OTF2_EvtWriter_Leave(w, nullptr, T(27), rIrecv));
  ok(OTF2_EvtWriter_Enter(w, nullptr, T(45), rWait));
  ok(OTF2_EvtWriter_MpiIrecv(w, nullptr, T(46), 0, cWorld, 5, 100, 31));
  ok(OTF2_EvtWriter_Leave(w, nullptr, T(47), rWait));
  ok(OTF2_EvtWriter_Enter(w, nullptr, T(80), rCommDup));
  ok(OTF2_EvtWriter_MpiCollectiveBegin(w, nullptr, T(80)));
  ok(OTF2_EvtWriter_MpiCollectiveEnd(w, nullptr, T(81), OTF2_COLLECTIVE_OP_CREATE_HANDLE, cWorld,
                                     OTF2_COLLECTIVE_ROOT_NONE, 0, 0));
  ok(OTF2_EvtWriter_Leave(w, nullptr, T(82), rCommDup));
  ok(OTF2_EvtWriter_Enter(w, nullptr, T(90), rSend));
  ok(OTF2_EvtWriter_MpiSend(w, nullptr, T(91), 9, cWorld, 1, 4));  // WORLD has 3 ranks: bad peer
  ok(OTF2_EvtWriter_Leave(w, nullptr, T(92), rSend));
  ok(OTF2_EvtWriter_Leave(w, nullptr, T(100), rIter));

  // Rank 2 (kLocC).
  w = a[kLocC];
  ok(OTF2_EvtWriter_Enter(w, nullptr, T(0), rIter));
  ok(OTF2_EvtWriter_Enter(w, nullptr, T(15), rSend));
  ok(OTF2_EvtWriter_MpiSend(w, nullptr, T(16), 1, cSub, 7, 64));  // SUB-local 1 = world 0
  ok(OTF2_EvtWriter_Leave(w, nullptr, T(17), rSend));
  ok(OTF2_EvtWriter_Enter(w, nullptr, T(50), rBcast));
  ok(OTF2_EvtWriter_MpiCollectiveBegin(w, nullptr, T(50)));
  ok(OTF2_EvtWriter_MpiCollectiveEnd(w, nullptr, T(55), OTF2_COLLECTIVE_OP_BCAST, cSub, 0, 16, 16));
  ok(OTF2_EvtWriter_Leave(w, nullptr, T(56), rBcast));
  ok(OTF2_EvtWriter_ParameterInt(w, nullptr, T(70), pIteration, -3));
  ok(OTF2_EvtWriter_Leave(w, nullptr, T(100), rIter));
  ok(OTF2_EvtWriter_Enter(w, nullptr, T(110), rCompute));  // never left

  // Locations that are not ranks.
  ok(OTF2_EvtWriter_Enter(a[kThread], nullptr, T(20), rCompute));
  ok(OTF2_EvtWriter_Leave(a[kThread], nullptr, T(30), rCompute));
  ok(OTF2_EvtWriter_Enter(a[kGpu], nullptr, T(50), rKernel));
  ok(OTF2_EvtWriter_Leave(a[kGpu], nullptr, T(60), rKernel));
  a[kMetric];  // no events, but its files exist

  a.finish([&](OTF2_GlobalDefWriter* g) {
    ok(OTF2_GlobalDefWriter_WriteClockProperties(g, 2'500'000'000ULL, kOffset, 2'500'000'010ULL,
                                                 OTF2_UNDEFINED_TIMESTAMP));
    auto region = [&](Region id, const char* name, OTF2_Paradigm p, const char* descr = "") {
      ok(OTF2_GlobalDefWriter_WriteRegion(g, id, a.str(name), a.str(name), a.str(descr),
                                          OTF2_REGION_ROLE_FUNCTION, p, OTF2_REGION_FLAG_NONE,
                                          OTF2_UNDEFINED_STRING, 0, 0));
    };
    region(rSend, "MPI_Send", OTF2_PARADIGM_MPI);
    region(rRecv, "MPI_Recv", OTF2_PARADIGM_MPI);
    region(rIsend, "MPI_Isend", OTF2_PARADIGM_MPI);
    region(rIrecv, "MPI_Irecv", OTF2_PARADIGM_MPI);
    region(rWait, "MPI_Wait", OTF2_PARADIGM_MPI);
    region(rBcast, "MPI_Bcast", OTF2_PARADIGM_MPI);
    region(rCommDup, "MPI_Comm_dup", OTF2_PARADIGM_MPI);
    region(rIter, "PRGN_iter", OTF2_PARADIGM_USER, "color:orange");
    region(rCompute, "compute", OTF2_PARADIGM_COMPILER);
    region(rKernel, "gpu_kernel", OTF2_PARADIGM_CUDA);
    ok(OTF2_GlobalDefWriter_WriteParameter(g, pPhase, a.str("phase"), OTF2_PARAMETER_TYPE_STRING));
    ok(OTF2_GlobalDefWriter_WriteParameter(g, pIteration, a.str("iteration"), OTF2_PARAMETER_TYPE_INT64));
    ok(OTF2_GlobalDefWriter_WriteSystemTreeNode(g, 0, a.str("node"), a.str("node"),
                                                OTF2_UNDEFINED_SYSTEM_TREE_NODE));
    auto group = [&](OTF2_LocationGroupRef id, const char* name, OTF2_LocationGroupType type) {
      ok(OTF2_GlobalDefWriter_WriteLocationGroup(g, id, a.str(name), type, 0,
                                                 OTF2_UNDEFINED_LOCATION_GROUP));
    };
    group(0, "P-c", OTF2_LOCATION_GROUP_TYPE_PROCESS);
    group(1, "P-b", OTF2_LOCATION_GROUP_TYPE_PROCESS);
    group(2, "P-a", OTF2_LOCATION_GROUP_TYPE_PROCESS);
    group(3, "GPU", OTF2_LOCATION_GROUP_TYPE_ACCELERATOR);
    auto location = [&](OTF2_LocationRef id, const char* name, OTF2_LocationType type,
                        OTF2_LocationGroupRef lg) {
      ok(OTF2_GlobalDefWriter_WriteLocation(g, id, a.str(name), type, a.events(id), lg));
    };
    location(kLocC, "P-c", OTF2_LOCATION_TYPE_CPU_THREAD, 0);
    location(kMetric, "P-c", OTF2_LOCATION_TYPE_METRIC, 0);
    location(kLocB, "P-b", OTF2_LOCATION_TYPE_CPU_THREAD, 1);
    location(kThread, "thread", OTF2_LOCATION_TYPE_CPU_THREAD, 1);
    location(kLocA, "P-a", OTF2_LOCATION_TYPE_CPU_THREAD, 2);
    location(kGpu, "GPU", OTF2_LOCATION_TYPE_ACCELERATOR_STREAM, 3);

    const std::uint64_t mpiLocations[] = {kLocA, kLocB, kLocC};
    const std::uint64_t sub[] = {2, 0};
    const std::uint64_t world[] = {0, 1, 2};
    const std::uint64_t cudaLocations[] = {kLocA, kGpu};
    const std::uint64_t cudaGroup[] = {0, 1};
    if (withMpiLocations)
      ok(OTF2_GlobalDefWriter_WriteGroup(g, 0, a.str(""), OTF2_GROUP_TYPE_COMM_LOCATIONS,
                                         OTF2_PARADIGM_MPI, OTF2_GROUP_FLAG_NONE, 3, mpiLocations));
    ok(OTF2_GlobalDefWriter_WriteGroup(g, 1, a.str(""), OTF2_GROUP_TYPE_COMM_GROUP,
                                       OTF2_PARADIGM_MPI, OTF2_GROUP_FLAG_NONE, 2, sub));
    ok(OTF2_GlobalDefWriter_WriteGroup(g, 2, a.str(""), OTF2_GROUP_TYPE_COMM_SELF,
                                       OTF2_PARADIGM_MPI, OTF2_GROUP_FLAG_NONE, 0, nullptr));
    ok(OTF2_GlobalDefWriter_WriteGroup(g, 3, a.str(""), OTF2_GROUP_TYPE_COMM_GROUP,
                                       OTF2_PARADIGM_MPI, OTF2_GROUP_FLAG_NONE, 3, world));
    ok(OTF2_GlobalDefWriter_WriteGroup(g, 4, a.str(""), OTF2_GROUP_TYPE_COMM_LOCATIONS,
                                       OTF2_PARADIGM_CUDA, OTF2_GROUP_FLAG_NONE, 2, cudaLocations));
    ok(OTF2_GlobalDefWriter_WriteGroup(g, 5, a.str(""), OTF2_GROUP_TYPE_COMM_GROUP,
                                       OTF2_PARADIGM_CUDA, OTF2_GROUP_FLAG_NONE, 2, cudaGroup));
    auto comm = [&](Comm id, const char* name, OTF2_GroupRef grp) {
      ok(OTF2_GlobalDefWriter_WriteComm(g, id, a.str(name), grp, OTF2_UNDEFINED_COMM,
                                        OTF2_COMM_FLAG_NONE));
    };
    comm(cSub, "SUB", 1);
    comm(cSelf, "MPI_COMM_SELF", 2);
    comm(cWorld, "MPI_COMM_WORLD", 3);
    comm(cCuda, "CUDA_COMM", 5);
  });
}

class Otf2Reader : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new fs::path(freshDir("Otf2Reader_hand") / "archive");
    writeHandArchive(*dir_);
    trace_ = new Trace(readArchive(*dir_));
  }
  static void TearDownTestSuite() {
    delete trace_;
    delete dir_;
  }
  const Trace& t() const { return *trace_; }
  static fs::path* dir_;
  static Trace* trace_;
};
fs::path* Otf2Reader::dir_ = nullptr;
Trace* Otf2Reader::trace_ = nullptr;

TEST_F(Otf2Reader, RanksFollowTheMpiLocationsGroupNotLocationIds) {
  // Three processes; the COMM_LOCATIONS order [kLocA, kLocB, kLocC] names them P-a, P-b, P-c.
  ASSERT_EQ(t().rankCount(), 3u) << allWarnings(t());
  EXPECT_EQ(t().ranks[0].name, "P-a");
  EXPECT_EQ(t().ranks[1].name, "P-b");
  EXPECT_EQ(t().ranks[2].name, "P-c");
  // Rank 0's events (kLocA): PRGN_iter, MPI_Recv, MPI_Isend, MPI_Wait, MPI_Bcast, the "phase"
  // point, compute.
  EXPECT_EQ(eventNames(t(), 0),
            (std::vector<std::string>{"PRGN_iter", "MPI_Recv", "MPI_Isend", "MPI_Wait",
                                      "MPI_Bcast", "phase", "compute"}));
}

TEST_F(Otf2Reader, TicksBecomeExactNanoseconds) {
  const RankTrace& r0 = t().ranks[0];
  // T(m) = offset + 5m ticks at 2.5e9 ticks/s = 2m ns.
  std::uint32_t recv = eventOf(t(), 0, "MPI_Recv");
  EXPECT_EQ(r0.enter[recv], 20);  // T(10)
  EXPECT_EQ(r0.leave[recv], 42);  // T(21)
  std::uint32_t iter = eventOf(t(), 0, "PRGN_iter");
  EXPECT_EQ(r0.enter[iter], 0);
  EXPECT_EQ(r0.leave[iter], 200);  // T(100)
  // offset + 2'500'000'005 ticks: 2'500'000'005 * 1e9 / 2.5e9 = 1'000'000'002 ns exactly
  // (a double of offset + ticks would already have lost the last digit).
  std::uint32_t compute = eventOf(t(), 0, "compute");
  EXPECT_EQ(r0.enter[compute], 1'000'000'002);
  EXPECT_EQ(r0.leave[compute], 1'000'000'004);  // 2'500'000'010 ticks
  EXPECT_EQ(t().endTime, 1'000'000'004);
  // Rank 1's MPI_Isend at T(5) = 10 ns.
  EXPECT_EQ(t().ranks[1].enter[eventOf(t(), 1, "MPI_Isend")], 10);
}

TEST_F(Otf2Reader, CommunicatorsAreTranslatedToWorldRanks) {
  // WORLD is OTF2 comm 2 but model comm 0; SUB and SELF follow in definition order; the CUDA
  // comm (a GPU stream is a member) is not an MPI communicator of ranks.
  ASSERT_EQ(t().comms.size(), 3u);
  EXPECT_EQ(t().comms[0].worldRanks, (std::vector<std::int32_t>{0, 1, 2}));
  EXPECT_EQ(t().comms[1], (Communicator{"SUB", {2, 0}, false}));
  EXPECT_EQ(t().comms[2].name, "MPI_COMM_SELF");
  EXPECT_TRUE(t().comms[2].isSelf);
}

TEST_F(Otf2Reader, MessagesGetWorldPeersRequestsAndMatch) {
  // Matched: SUB 2->0, SELF 1->1, WORLD Isend 0->1 / Irecv. Rank 1's send to WORLD-local 9
  // (only 3 ranks) has an unknown peer and stays unmatched.
  EXPECT_EQ(t().messageStats.matched, 3u);
  EXPECT_EQ(t().messageStats.unmatchedSends, 1u);
  EXPECT_EQ(t().messageStats.unmatchedReceives, 0u);

  const auto& m0 = t().ranks[0].messages;
  ASSERT_EQ(m0.size(), 2u);
  // Posting order: the Recv (posted at 20 ns) before the Isend (60 ns).
  EXPECT_FALSE(m0[0].isSend);
  EXPECT_EQ(m0[0].peer, 2);  // SUB-local 0
  EXPECT_EQ(m0[0].comm, 1u);
  EXPECT_EQ(m0[0].tag, 7);
  EXPECT_EQ(m0[0].bytes, 64u);
  EXPECT_EQ(m0[0].time, 40);  // T(20)
  EXPECT_EQ(m0[0].matchRank, 2u);
  EXPECT_TRUE(m0[1].isSend);
  EXPECT_EQ(m0[1].peer, 1);
  EXPECT_EQ(m0[1].comm, 0u);
  EXPECT_TRUE(m0[1].nonBlocking());  // request 21: the model keeps only that it is one
  EXPECT_EQ(m0[1].postEvent, eventOf(t(), 0, "MPI_Isend"));
  EXPECT_EQ(m0[1].event, eventOf(t(), 0, "MPI_Wait"));  // completed by IsendComplete(21)
  EXPECT_EQ(m0[1].matchRank, 1u);

  const auto& m1 = t().ranks[1].messages;
  ASSERT_EQ(m1.size(), 4u);
  // Self message: SELF-local rank 0 is the caller, rank 1.
  EXPECT_TRUE(m1[0].isSend);
  EXPECT_EQ(m1[0].peer, 1);
  EXPECT_EQ(m1[0].comm, 2u);
  EXPECT_TRUE(m1[0].nonBlocking());  // request 11
  EXPECT_FALSE(m1[1].isSend);
  EXPECT_EQ(m1[1].peer, 1);
  EXPECT_EQ(m1[1].matchRank, 1u);
  // Irecv posted by MPI_Irecv (request 31), completed in the second MPI_Wait.
  EXPECT_FALSE(m1[2].isSend);
  EXPECT_EQ(m1[2].peer, 0);
  EXPECT_TRUE(m1[2].nonBlocking());  // request 31
  EXPECT_EQ(m1[2].postEvent, eventOf(t(), 1, "MPI_Irecv"));
  EXPECT_EQ(m1[2].event, eventOf(t(), 1, "MPI_Wait", 1));
  EXPECT_EQ(m1[2].matchRank, 0u);
  // The out-of-range peer.
  EXPECT_TRUE(m1[3].isSend);
  EXPECT_EQ(m1[3].peer, -1);
  EXPECT_FALSE(m1[3].matched());
  EXPECT_EQ(countWarnings(t(), "rank 9 is outside communicator"), 1) << allWarnings(t());

  const auto& m2 = t().ranks[2].messages;
  ASSERT_EQ(m2.size(), 1u);
  EXPECT_EQ(m2[0].peer, 0);  // SUB-local 1
  EXPECT_EQ(m2[0].comm, 1u);
}

TEST_F(Otf2Reader, CollectiveRootIsTranslatedOnTheSubCommunicator) {
  // Bcast on SUB with SUB-local root 0 = world rank 2, on ranks 0 and 2.
  for (std::uint32_t r : {0u, 2u}) {
    ASSERT_EQ(t().ranks[r].collectives.size(), 1u) << "rank " << r;
    const CollectiveCall& c = t().ranks[r].collectives[0];
    EXPECT_EQ(c.op, MpiOp::Bcast);
    EXPECT_EQ(c.comm, 1u);
    EXPECT_EQ(c.root, 2);
    EXPECT_EQ(c.event, eventOf(t(), r, "MPI_Bcast"));
  }
  EXPECT_EQ(t().ranks[0].collectives[0].bytesReceived, 16u);
  EXPECT_EQ(t().ranks[2].collectives[0].bytesSent, 16u);
  ASSERT_EQ(t().collectives.size(), 1u);
  EXPECT_EQ(t().collectives[0].participants, 2u);
  // MPI_Comm_dup's CREATE_HANDLE is not a collective operation: skipped with a warning.
  EXPECT_TRUE(t().ranks[1].collectives.empty());
  EXPECT_EQ(countWarnings(t(), "CREATE_HANDLE"), 1) << allWarnings(t());
}

TEST_F(Otf2Reader, RegionsAndParametersBecomeFunctions) {
  const Function& send = t().functions[fnIndex(t(), "MPI_Send")];
  EXPECT_EQ(send.kind, EventKind::MpiCall);
  EXPECT_EQ(send.op, MpiOp::Send);
  EXPECT_EQ(t().functions[fnIndex(t(), "MPI_Comm_dup")].op, MpiOp::OtherMpi);
  const Function& iter = t().functions[fnIndex(t(), "PRGN_iter")];
  EXPECT_EQ(iter.kind, EventKind::UserState);
  EXPECT_EQ(iter.color, "orange");  // description "color:orange"
  EXPECT_EQ(t().functions[fnIndex(t(), "compute")].kind, EventKind::UserState);
  // Parameter records are labelled points: a string value as is, an integer in decimal.
  EXPECT_EQ(t().functions[fnIndex(t(), "phase")].kind, EventKind::Point);
  ASSERT_EQ(t().ranks[0].labels.size(), 1u);
  EXPECT_EQ(t().ranks[0].labels[0].text, "warmup");
  EXPECT_EQ(t().ranks[0].enter[t().ranks[0].labels[0].event], 140);  // T(70)
  ASSERT_EQ(t().ranks[2].labels.size(), 1u);
  EXPECT_EQ(t().ranks[2].labels[0].text, "-3");
  EXPECT_EQ(t().fn(2, t().ranks[2].labels[0].event).name, "iteration");
}

TEST_F(Otf2Reader, UserRegionPrgnGivesAParallelStep) {
  // Every rank runs PRGN_iter once from 0 to 200 ns.
  ASSERT_EQ(t().steps.size(), 1u);
  for (std::uint32_t r = 0; r < 3; ++r) {
    const StepSpan& s = t().steps[0].ranks[r];
    EXPECT_TRUE(s.present());
    EXPECT_EQ(t().stepBegin(0, r), 0);
    EXPECT_EQ(t().stepEnd(0, r), 200);
  }
}

TEST_F(Otf2Reader, UnbalancedEnterIsClosedAtTheEnd) {
  // Rank 2 enters compute at T(110) = 220 ns and never leaves: the builder closes it at the
  // trace end (1'000'000'004 ns, rank 0's last record) with a warning.
  std::uint32_t e = eventOf(t(), 2, "compute");
  EXPECT_EQ(t().ranks[2].enter[e], 220);
  EXPECT_EQ(t().ranks[2].leave[e], 1'000'000'004);
  EXPECT_GE(countWarnings(t(), "'compute' still open"), 1) << allWarnings(t());
}

TEST_F(Otf2Reader, SkippedLocationsAndRecordsAreReportedOnceEach) {
  auto warningsAbout = [&](OTF2_LocationRef loc) {
    int n = 0;
    for (const auto& w : t().warnings)
      n += w.position == "location " + std::to_string(loc) &&
           w.message.find("location skipped") != std::string::npos;
    return n;
  };
  EXPECT_EQ(warningsAbout(kThread), 0) << allWarnings(t());
  EXPECT_EQ(warningsAbout(kGpu), 1);
  EXPECT_EQ(warningsAbout(kMetric), 1);
  // The second CPU thread of "P-b" is a thread row under rank 1: compute from T(20) = 40 ns to
  // T(30) = 60 ns, as measured.
  ASSERT_EQ(t().threads.size(), 1u);
  EXPECT_EQ(t().threads[0].rank, 1);
  EXPECT_EQ(t().threads[0].events.name, "thread");
  EXPECT_EQ(t().threads[0].events.enter.toVector(), (std::vector<TimeNs>{40}));
  EXPECT_EQ(t().threads[0].events.leave.toVector(), (std::vector<TimeNs>{60}));
  EXPECT_EQ(t().functions[t().threads[0].events.function[0]].name, "compute");
  EXPECT_EQ(countWarnings(t(), "'GPU' (accelerator stream); 2 event"), 1);
  EXPECT_EQ(countWarnings(t(), "(metric location); 0 event"), 1);
  EXPECT_EQ(countWarnings(t(), "2 MPI_REQUEST_TEST records skipped"), 1);
  // Nothing of the skipped locations reached the model: gpu_kernel was never called by a rank.
  for (const auto& f : t().functions) EXPECT_NE(f.name, "gpu_kernel");
  // Records read: rank 0: 20, rank 1: 24, rank 2: 11 (counting every record written above),
  // thread 2, GPU 2, metric 0.
  EXPECT_EQ(t().sourceRecords, 59u);
}

TEST(Otf2ReaderOrder, WithoutMpiLocationsRanksFollowLocationGroups) {
  fs::path dir = freshDir("Otf2ReaderOrder") / "archive";
  writeHandArchive(dir, /*withMpiLocations=*/false);
  Trace t = readArchive(dir);
  // Location-group ids 0 "P-c", 1 "P-b", 2 "P-a" become ranks 0, 1, 2.
  ASSERT_EQ(t.rankCount(), 3u);
  EXPECT_EQ(t.ranks[0].name, "P-c");
  EXPECT_EQ(t.ranks[2].name, "P-a");
  // No MPI COMM_LOCATIONS group: SUB and WORLD cannot be translated (only SELF, which needs
  // no member list, can). Nothing crashes; records on them keep unknown peers and collectives
  // on them are dropped, with warnings. Only the self message of "P-b" still pairs up.
  ASSERT_EQ(t.comms.size(), 2u);
  EXPECT_TRUE(t.comms[1].isSelf);
  EXPECT_EQ(t.messageStats.matched, 1u);
  // P-c's Bcast record was dropped; the builder then treats the call like any collective call
  // without a record: on WORLD, no root.
  ASSERT_EQ(t.ranks[0].collectives.size(), 1u);
  EXPECT_EQ(t.ranks[0].collectives[0].comm, 0u);
  EXPECT_EQ(t.ranks[0].collectives[0].root, -1);
  // P-c and P-a both drop a Bcast: one warning at the first, one summary with the total.
  EXPECT_EQ(countWarnings(t, "collective on communicator 0 (unusable: no locations group"), 2)
      << allWarnings(t);
  EXPECT_EQ(countWarnings(t, "2 records in total: collective on communicator 0"), 1);
  EXPECT_GE(countWarnings(t, "communicator"), 1) << allWarnings(t);
}

TEST(Otf2ReaderOrder, GlobalMembersCommUsesLocationIndexesDirectly) {
  // Two processes, groups defined as id 5 "second" (location 9) then id 2 "first"
  // (location 7); no MPI locations group, so rank 0 = group 2 = location 7, rank 1 = location 9.
  // A MEASUREMENT_SYSTEM comm with GLOBAL_MEMBERS over its locations group [9, 7] has
  // comm-local rank i = locations-group index i: [rank 1, rank 0].
  fs::path dir = freshDir("Otf2ReaderGlobalMembers") / "archive";
  RawArchive a(dir, {"", "first", "second", "MPI_Send", "MPI_Recv", "PxT", "bytes"});
  ok(OTF2_EvtWriter_ParameterUnsignedInt(a[7], nullptr, 10, 0, 18'446'744'073'709'551'615ULL));
  ok(OTF2_EvtWriter_Enter(a[7], nullptr, 10, 0));
  ok(OTF2_EvtWriter_MpiSend(a[7], nullptr, 11, 0, 0, 4, 1));  // comm-local 0 = rank 1
  ok(OTF2_EvtWriter_Leave(a[7], nullptr, 12, 0));
  ok(OTF2_EvtWriter_Enter(a[9], nullptr, 10, 1));
  ok(OTF2_EvtWriter_MpiRecv(a[9], nullptr, 13, 1, 0, 4, 1));  // comm-local 1 = rank 0
  ok(OTF2_EvtWriter_Leave(a[9], nullptr, 14, 1));
  a.finish([&](OTF2_GlobalDefWriter* g) {
    ok(OTF2_GlobalDefWriter_WriteClockProperties(g, 1'000'000'000, 10, 4, OTF2_UNDEFINED_TIMESTAMP));
    ok(OTF2_GlobalDefWriter_WriteRegion(g, 0, a.str("MPI_Send"), a.str("MPI_Send"), a.str(""),
                                        OTF2_REGION_ROLE_POINT2POINT, OTF2_PARADIGM_MPI,
                                        OTF2_REGION_FLAG_NONE, OTF2_UNDEFINED_STRING, 0, 0));
    ok(OTF2_GlobalDefWriter_WriteRegion(g, 1, a.str("MPI_Recv"), a.str("MPI_Recv"), a.str(""),
                                        OTF2_REGION_ROLE_POINT2POINT, OTF2_PARADIGM_MPI,
                                        OTF2_REGION_FLAG_NONE, OTF2_UNDEFINED_STRING, 0, 0));
    ok(OTF2_GlobalDefWriter_WriteParameter(g, 0, a.str("bytes"), OTF2_PARAMETER_TYPE_UINT64));
    ok(OTF2_GlobalDefWriter_WriteSystemTreeNode(g, 0, a.str(""), a.str(""), OTF2_UNDEFINED_SYSTEM_TREE_NODE));
    ok(OTF2_GlobalDefWriter_WriteLocationGroup(g, 5, a.str("second"), OTF2_LOCATION_GROUP_TYPE_PROCESS,
                                               0, OTF2_UNDEFINED_LOCATION_GROUP));
    ok(OTF2_GlobalDefWriter_WriteLocationGroup(g, 2, a.str("first"), OTF2_LOCATION_GROUP_TYPE_PROCESS,
                                               0, OTF2_UNDEFINED_LOCATION_GROUP));
    ok(OTF2_GlobalDefWriter_WriteLocation(g, 9, a.str("second"), OTF2_LOCATION_TYPE_CPU_THREAD,
                                          a.events(9), 5));
    ok(OTF2_GlobalDefWriter_WriteLocation(g, 7, a.str("first"), OTF2_LOCATION_TYPE_CPU_THREAD,
                                          a.events(7), 2));
    const std::uint64_t locs[] = {9, 7};
    ok(OTF2_GlobalDefWriter_WriteGroup(g, 0, a.str(""), OTF2_GROUP_TYPE_COMM_LOCATIONS,
                                       OTF2_PARADIGM_MEASUREMENT_SYSTEM, OTF2_GROUP_FLAG_NONE, 2, locs));
    ok(OTF2_GlobalDefWriter_WriteGroup(g, 1, a.str(""), OTF2_GROUP_TYPE_COMM_GROUP,
                                       OTF2_PARADIGM_MEASUREMENT_SYSTEM,
                                       OTF2_GROUP_FLAG_GLOBAL_MEMBERS, 0, nullptr));
    ok(OTF2_GlobalDefWriter_WriteComm(g, 0, a.str("PxT"), 1, OTF2_UNDEFINED_COMM, OTF2_COMM_FLAG_NONE));
  });
  Trace t = readArchive(dir);
  ASSERT_EQ(t.rankCount(), 2u);
  EXPECT_EQ(t.ranks[0].name, "first");
  EXPECT_EQ(t.ranks[1].name, "second");
  ASSERT_EQ(t.comms.size(), 2u);  // "PxT" is not in rank order, so it is not WORLD
  EXPECT_EQ(t.comms[1], (Communicator{"PxT", {1, 0}, false}));
  ASSERT_EQ(t.ranks[0].messages.size(), 1u);
  EXPECT_EQ(t.ranks[0].messages[0].peer, 1);
  EXPECT_EQ(t.ranks[0].messages[0].comm, 1u);
  EXPECT_EQ(t.ranks[1].messages[0].peer, 0);
  EXPECT_EQ(t.messageStats.matched, 1u);
  // Times: offset 10 ticks of 1 ns; the send at tick 11 is at 1 ns.
  EXPECT_EQ(t.ranks[0].messages[0].time, 1);
  // An unsigned parameter value is labelled in full decimal (2^64 - 1).
  ASSERT_EQ(t.ranks[0].labels.size(), 1u);
  EXPECT_EQ(t.ranks[0].labels[0].text, "18446744073709551615");
  EXPECT_EQ(t.fn(0, t.ranks[0].labels[0].event).kind, EventKind::Point);
}

// Score-P gives the communicator every rank's own MPI_COMM_SELF is a group of type COMM_SELF
// with no members, and all ranks name that one communicator. Four ranks: each calls MPI_Gather
// on it at 10 + 100 r ns (rank 3 last, at 310 ns), then MPI_Allreduce on WORLD at 1000 ns.
// Each Gather is its rank's alone (an instance of 1 member, no "4 of 1 members" warning), so
// no rank's Gather waits for another rank's: in a model-cost replay rank 0 leaves its Gather
// before rank 3 enters its own. The Allreduce is one instance of 4.
// Each rank's Gather on a communicator of its own: a COMM_SELF group, or (issue #37) a
// COMM_GROUP without members, which names no rank to wait for either.
TEST(Otf2ReaderComms, CollectivesOnASelfCommunicatorAreOneInstancePerRank) {
  for (const OTF2_GroupType selfType : {OTF2_GROUP_TYPE_COMM_SELF, OTF2_GROUP_TYPE_COMM_GROUP}) {
  SCOPED_TRACE(selfType == OTF2_GROUP_TYPE_COMM_SELF ? "COMM_SELF" : "empty COMM_GROUP");
  fs::path dir = freshDir("Otf2ReaderSelfComm") / "archive";
  RawArchive a(dir, {"", "MPI_Gather", "MPI_Allreduce", "MPI_COMM_WORLD", "rank"});
  for (OTF2_LocationRef r = 0; r < 4; ++r) {
    ok(OTF2_EvtWriter_Enter(a[r], nullptr, 10 + 100 * r, 0));
    ok(OTF2_EvtWriter_MpiCollectiveBegin(a[r], nullptr, 10 + 100 * r));
    ok(OTF2_EvtWriter_MpiCollectiveEnd(a[r], nullptr, 12 + 100 * r, OTF2_COLLECTIVE_OP_GATHER, 1, 0, 8, 8));
    ok(OTF2_EvtWriter_Leave(a[r], nullptr, 12 + 100 * r, 0));
    ok(OTF2_EvtWriter_Enter(a[r], nullptr, 1000, 1));
    ok(OTF2_EvtWriter_MpiCollectiveBegin(a[r], nullptr, 1000));
    ok(OTF2_EvtWriter_MpiCollectiveEnd(a[r], nullptr, 1010, OTF2_COLLECTIVE_OP_ALLREDUCE, 0,
                                       OTF2_COLLECTIVE_ROOT_NONE, 8, 8));
    ok(OTF2_EvtWriter_Leave(a[r], nullptr, 1010, 1));
  }
  a.finish([&](OTF2_GlobalDefWriter* g) {
    ok(OTF2_GlobalDefWriter_WriteClockProperties(g, 1'000'000'000, 0, 1010, OTF2_UNDEFINED_TIMESTAMP));
    for (OTF2_RegionRef id : {0u, 1u})
      ok(OTF2_GlobalDefWriter_WriteRegion(g, id, a.str(id ? "MPI_Allreduce" : "MPI_Gather"),
                                          a.str(id ? "MPI_Allreduce" : "MPI_Gather"), a.str(""),
                                          OTF2_REGION_ROLE_COLL_ONE2ALL, OTF2_PARADIGM_MPI,
                                          OTF2_REGION_FLAG_NONE, OTF2_UNDEFINED_STRING, 0, 0));
    ok(OTF2_GlobalDefWriter_WriteSystemTreeNode(g, 0, a.str(""), a.str(""), OTF2_UNDEFINED_SYSTEM_TREE_NODE));
    for (OTF2_LocationRef r = 0; r < 4; ++r) {
      ok(OTF2_GlobalDefWriter_WriteLocationGroup(g, static_cast<OTF2_LocationGroupRef>(r), a.str("rank"),
                                                 OTF2_LOCATION_GROUP_TYPE_PROCESS, 0, OTF2_UNDEFINED_LOCATION_GROUP));
      ok(OTF2_GlobalDefWriter_WriteLocation(g, r, a.str("rank"), OTF2_LOCATION_TYPE_CPU_THREAD, a.events(r),
                                            static_cast<OTF2_LocationGroupRef>(r)));
    }
    const std::uint64_t locs[] = {0, 1, 2, 3};
    ok(OTF2_GlobalDefWriter_WriteGroup(g, 0, a.str(""), OTF2_GROUP_TYPE_COMM_LOCATIONS, OTF2_PARADIGM_MPI,
                                       OTF2_GROUP_FLAG_NONE, 4, locs));
    ok(OTF2_GlobalDefWriter_WriteGroup(g, 1, a.str(""), OTF2_GROUP_TYPE_COMM_GROUP, OTF2_PARADIGM_MPI,
                                       OTF2_GROUP_FLAG_NONE, 4, locs));
    ok(OTF2_GlobalDefWriter_WriteGroup(g, 2, a.str(""), selfType, OTF2_PARADIGM_MPI,
                                       OTF2_GROUP_FLAG_NONE, 0, nullptr));
    ok(OTF2_GlobalDefWriter_WriteComm(g, 0, a.str("MPI_COMM_WORLD"), 1, OTF2_UNDEFINED_COMM, OTF2_COMM_FLAG_NONE));
    ok(OTF2_GlobalDefWriter_WriteComm(g, 1, a.str(""), 2, OTF2_UNDEFINED_COMM, OTF2_COMM_FLAG_NONE));
  });
  const Trace t = readArchive(dir);
  ASSERT_EQ(t.rankCount(), 4u);
  for (const Diagnostic& d : t.warnings) ADD_FAILURE() << d.toString();
  ASSERT_EQ(t.collectives.size(), 5u);  // 4 Gathers of one rank each, 1 Allreduce of 4
  std::set<std::uint32_t> gathers;
  for (std::uint32_t r = 0; r < 4; ++r) {
    ASSERT_EQ(t.ranks[r].collectives.size(), 2u);
    const CollectiveCall gather = t.ranks[r].collectives[0];
    EXPECT_TRUE(t.comms[gather.comm].isSelf);
    EXPECT_EQ(t.collectives[gather.instance].participants, 1u);
    gathers.insert(gather.instance);
    EXPECT_EQ(t.collectives[t.ranks[r].collectives[1].instance].participants, 4u);
  }
  EXPECT_EQ(gathers.size(), 4u);
  Scenario model;
  model.costs = CostMode::Model;
  Replayer rp(t, model);
  EXPECT_LT(rp.predicted(0, 0).leave, rp.predicted(3, 0).enter);
  Replayer identity(t, Scenario{});
  EXPECT_EQ(identity.predictedTime(), t.endTime);
  // Issue #38 item 5: the communicator stays one of each caller alone through every writer
  // (OTF used to store it as the group {rank 0}, so ranks 1-3's Gathers lost their instance).
  for (const std::string name : {"self.otf", "self.alog", "self-again.otf2"}) {
    SCOPED_TRACE(name);
    const fs::path out = dir.parent_path() / name;
    saveTrace(t, out.string());
    const Trace back = loadTrace(out.string());
    for (const Diagnostic& d : back.warnings) ADD_FAILURE() << d.toString();
    std::string why;
    EXPECT_TRUE(t.sameModel(back, &why)) << why;
    EXPECT_EQ(back.collectives.size(), 5u);
    EXPECT_TRUE(back.comms[back.ranks[3].collectives[0].comm].isSelf);
  }
  }
}

TEST_F(Otf2Reader, ProgressReachesOneAndCancelStopsTheLoad) {
  std::vector<double> seen;
  LoadOptions opts;
  opts.progress = [&](double f) {
    seen.push_back(f);
    return true;
  };
  Trace again = readArchive(*dir_, opts);
  ASSERT_FALSE(seen.empty());
  EXPECT_DOUBLE_EQ(seen.back(), 1.0);  // 59 of 59 records
  EXPECT_TRUE(std::is_sorted(seen.begin(), seen.end()));
  EXPECT_TRUE(again.sameModel(t()));

  opts.progress = [](double) { return false; };
  expectTraceError([&] { readArchive(*dir_, opts); }, dir_->string(), "cancelled");
}

// ------------------------------------------------------------------------------------------
// The writer

// A small stream with everything the writer maps: sub and self communicators, negative
// tag, Isend/Irecv with requests, a collective with a root, a point with a label, colours.
void feedSmallStream(TraceSink& s) {
  s.begin(TraceHeader{2, {"alpha", "beta"}});
  const std::uint32_t send = s.defineFunction({"MPI_Send", EventKind::MpiCall, MpiOp::Send, ""});
  const std::uint32_t recv = s.defineFunction({"MPI_Recv", EventKind::MpiCall, MpiOp::Recv, ""});
  const std::uint32_t isend = s.defineFunction({"MPI_Isend", EventKind::MpiCall, MpiOp::Isend, ""});
  const std::uint32_t irecv = s.defineFunction({"MPI_Irecv", EventKind::MpiCall, MpiOp::Irecv, ""});
  const std::uint32_t wait = s.defineFunction({"MPI_Wait", EventKind::MpiCall, MpiOp::Wait, ""});
  const std::uint32_t red = s.defineFunction({"MPI_Reduce", EventKind::MpiCall, MpiOp::Reduce, ""});
  const std::uint32_t mark = s.defineFunction({"mark", EventKind::Point, MpiOp::None, ""});
  const std::uint32_t work = s.defineFunction({"PRGN_work", EventKind::UserState, MpiOp::None, "red"});
  const std::uint32_t pair = s.defineComm({"pair", {1, 0}, false});
  const std::uint32_t self = s.defineComm({"self", {}, true});
  // rank 0
  s.enter(0, 0, work);
  s.enter(0, 10, send);
  s.send(0, 11, 1, pair, -5, 10, 0);  // world 1 = pair-local 0
  s.leave(0, 12, send);
  s.point(0, 15, mark, "x=1");
  s.enter(0, 20, isend);
  s.send(0, 21, 0, self, 3, 8, 7);
  s.leave(0, 22, isend);
  s.enter(0, 23, recv);
  s.recv(0, 24, 0, self, 3, 8, 0);
  s.leave(0, 25, recv);
  s.enter(0, 26, wait);
  s.isendComplete(0, 26, 7);
  s.leave(0, 27, wait);
  s.enter(0, 30, red);
  s.collective(0, 35, MpiOp::Reduce, pair, 1, 4, 8);
  s.leave(0, 36, red);
  s.leave(0, 40, work);
  // rank 1
  s.enter(1, 0, work);
  s.enter(1, 5, irecv);
  s.irecvRequest(1, 5, 9);
  s.leave(1, 6, irecv);
  s.enter(1, 13, wait);
  s.recv(1, 14, 0, pair, -5, 10, 9);
  s.leave(1, 15, wait);
  s.enter(1, 30, red);
  s.collective(1, 31, MpiOp::Reduce, pair, 1, 4, 0);
  s.leave(1, 32, red);
  s.leave(1, 40, work);
  s.end();
}

TEST(Otf2Writer, WritesWhatTheReaderReadsBack) {
  fs::path dir = freshDir("Otf2Writer_stream") / "out";
  {
    auto w = makeOtf2Writer(dir.string());
    feedSmallStream(*w);
  }
  ASSERT_TRUE(fs::exists(dir / "traces.otf2"));
  if (auto accepted = otf2PrintAccepts(dir / "traces.otf2")) {
    EXPECT_TRUE(*accepted);
  }
  TraceBuilder direct;
  feedSmallStream(direct);
  Trace expected = direct.take();
  Trace back = readArchive(dir);
  std::string why;
  EXPECT_TRUE(expected.sameModel(back, &why)) << why << "\n" << allWarnings(back);
  // Spot checks independent of the builder: names, colour, comm members, peers, tag, labels.
  EXPECT_EQ(back.ranks[1].name, "beta");
  EXPECT_EQ(back.functions[fnIndex(back, "PRGN_work")].color, "red");
  EXPECT_EQ(back.comms[1], (Communicator{"pair", {1, 0}, false}));
  ASSERT_EQ(back.ranks[1].messages.size(), 1u);
  EXPECT_EQ(back.ranks[1].messages[0].peer, 0);
  EXPECT_EQ(back.ranks[1].messages[0].tag, -5);
  EXPECT_TRUE(back.ranks[1].messages[0].nonBlocking());  // written with request 9
  EXPECT_EQ(back.messageStats.matched, 2u);  // 0->1 on pair, 0->0 on self
  ASSERT_EQ(back.ranks[0].labels.size(), 1u);
  EXPECT_EQ(back.ranks[0].labels[0].text, "x=1");
  ASSERT_EQ(back.ranks[0].collectives.size(), 1u);
  EXPECT_EQ(back.ranks[0].collectives[0].root, 1);
  EXPECT_TRUE(back.warnings.empty()) << allWarnings(back);
}

TEST(Otf2Writer, RecordsCommLocalRanksInTheFile) {
  fs::path dir = freshDir("Otf2Writer_local") / "out";
  {
    auto w = makeOtf2Writer(dir.string());
    feedSmallStream(*w);
  }
  if (std::system("command -v otf2-print >/dev/null 2>&1") != 0) GTEST_SKIP() << "no otf2-print";
  fs::path listing = dir.parent_path() / "listing.txt";
  std::string cmd = "otf2-print '" + (dir / "traces.otf2").string() + "' > '" + listing.string() + "'";
  ASSERT_EQ(std::system(cmd.c_str()), 0);
  std::ifstream in(listing);
  std::string all((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  // World rank 1 is rank 0 of "pair" ({1, 0}); the self message goes to self-local rank 0.
  EXPECT_NE(all.find("Receiver: 0 (\"Master thread\" <1>), Communicator: \"pair\""), std::string::npos)
      << all;
  EXPECT_NE(all.find("Receiver: 0 (\"Master thread\" <0>), Communicator: \"self\""), std::string::npos);
  // Reduce root world 1 = pair-local 0.
  EXPECT_NE(all.find("Operation: REDUCE, Communicator: \"pair\" <1>, Root: 0"), std::string::npos);
}

TEST(Otf2Writer, AnchorPathNamesTheArchiveAndNothingIsOverwritten) {
  fs::path dir = freshDir("Otf2Writer_anchor");
  {
    auto w = makeOtf2Writer((dir / "run.otf2").string());
    feedSmallStream(*w);
  }
  EXPECT_TRUE(fs::exists(dir / "run.otf2"));
  EXPECT_TRUE(fs::exists(dir / "run.def"));
  EXPECT_TRUE(fs::exists(dir / "run" / "0.evt"));
  EXPECT_EQ(readArchive(dir / "run.otf2").rankCount(), 2u);
  // The anchor, the definitions or the event directory existing: refused before writing.
  expectTraceError([&] { makeOtf2Writer((dir / "run.otf2").string()); }, (dir / "run.otf2").string(),
                   "already exists");
  // The refusal names the entry that exists, not the anchor that does not.
  fs::remove(dir / "run.otf2");
  expectTraceError([&] { makeOtf2Writer((dir / "run.otf2").string()); }, (dir / "run.def").string(),
                   "already exists");
  fs::path other = freshDir("Otf2Writer_anchor2");
  fs::create_directories(other / "traces");
  expectTraceError([&] { makeOtf2Writer(other.string()); }, other.string(), "already exists");
}

// ------------------------------------------------------------------------------------------
// 2. Conformance over the shared samples

// An independent count of message records on CPU-thread locations, with libotf2 callbacks.
struct IndependentCount {
  std::vector<OTF2_LocationRef> all;
  std::set<OTF2_LocationRef> cpu;
  std::uint64_t sends = 0;
  std::uint64_t receives = 0;
};

OTF2_CallbackCode countLocation(void* ud, OTF2_LocationRef self, OTF2_StringRef,
                                OTF2_LocationType type, uint64_t, OTF2_LocationGroupRef) {
  auto* c = static_cast<IndependentCount*>(ud);
  c->all.push_back(self);
  if (type == OTF2_LOCATION_TYPE_CPU_THREAD) c->cpu.insert(self);
  return OTF2_CALLBACK_SUCCESS;
}
OTF2_CallbackCode countSend(OTF2_LocationRef loc, OTF2_TimeStamp, void* ud, OTF2_AttributeList*,
                            uint32_t, OTF2_CommRef, uint32_t, uint64_t) {
  auto* c = static_cast<IndependentCount*>(ud);
  c->sends += c->cpu.count(loc);
  return OTF2_CALLBACK_SUCCESS;
}
OTF2_CallbackCode countIsend(OTF2_LocationRef loc, OTF2_TimeStamp t, void* ud,
                             OTF2_AttributeList* al, uint32_t p, OTF2_CommRef c, uint32_t tag,
                             uint64_t len, uint64_t) {
  return countSend(loc, t, ud, al, p, c, tag, len);
}
OTF2_CallbackCode countRecv(OTF2_LocationRef loc, OTF2_TimeStamp, void* ud, OTF2_AttributeList*,
                            uint32_t, OTF2_CommRef, uint32_t, uint64_t) {
  auto* c = static_cast<IndependentCount*>(ud);
  c->receives += c->cpu.count(loc);
  return OTF2_CALLBACK_SUCCESS;
}
OTF2_CallbackCode countIrecv(OTF2_LocationRef loc, OTF2_TimeStamp t, void* ud,
                             OTF2_AttributeList* al, uint32_t p, OTF2_CommRef c, uint32_t tag,
                             uint64_t len, uint64_t) {
  return countRecv(loc, t, ud, al, p, c, tag, len);
}

IndependentCount countMessages(const fs::path& anchor) {
  IndependentCount count;
  OTF2_Reader* r = OTF2_Reader_Open(anchor.c_str());
  if (!r) {
    ADD_FAILURE() << "cannot open " << anchor;
    return count;
  }
  OTF2_Reader_SetSerialCollectiveCallbacks(r);
  OTF2_GlobalDefReader* gdr = OTF2_Reader_GetGlobalDefReader(r);
  OTF2_GlobalDefReaderCallbacks* dc = OTF2_GlobalDefReaderCallbacks_New();
  OTF2_GlobalDefReaderCallbacks_SetLocationCallback(dc, &countLocation);
  OTF2_Reader_RegisterGlobalDefCallbacks(r, gdr, dc, &count);
  OTF2_GlobalDefReaderCallbacks_Delete(dc);
  uint64_t n = 0;
  ok(OTF2_Reader_ReadAllGlobalDefinitions(r, gdr, &n));
  OTF2_Reader_CloseGlobalDefReader(r, gdr);
  uint64_t locations = 0;
  OTF2_Reader_GetNumberOfLocations(r, &locations);
  EXPECT_EQ(count.all.size(), locations);
  // Every location (not only CPU threads) takes part in the time-merged read.
  for (OTF2_LocationRef l : count.all) OTF2_Reader_SelectLocation(r, l);
  OTF2_Reader_OpenDefFiles(r);
  OTF2_Reader_OpenEvtFiles(r);
  for (OTF2_LocationRef l : count.all) {
    if (OTF2_DefReader* d = OTF2_Reader_GetDefReader(r, l)) {
      OTF2_Reader_ReadAllLocalDefinitions(r, d, &n);
      OTF2_Reader_CloseDefReader(r, d);
    }
    OTF2_Reader_GetEvtReader(r, l);
  }
  OTF2_Reader_CloseDefFiles(r);
  OTF2_GlobalEvtReader* ger = OTF2_Reader_GetGlobalEvtReader(r);
  OTF2_GlobalEvtReaderCallbacks* ec = OTF2_GlobalEvtReaderCallbacks_New();
  OTF2_GlobalEvtReaderCallbacks_SetMpiSendCallback(ec, &countSend);
  OTF2_GlobalEvtReaderCallbacks_SetMpiIsendCallback(ec, &countIsend);
  OTF2_GlobalEvtReaderCallbacks_SetMpiRecvCallback(ec, &countRecv);
  OTF2_GlobalEvtReaderCallbacks_SetMpiIrecvCallback(ec, &countIrecv);
  OTF2_Reader_RegisterGlobalEvtCallbacks(r, ger, ec, &count);
  OTF2_GlobalEvtReaderCallbacks_Delete(ec);
  ok(OTF2_Reader_ReadAllGlobalEvents(r, ger, &n));
  OTF2_Reader_CloseGlobalEvtReader(r, ger);
  OTF2_Reader_CloseEvtFiles(r);
  OTF2_Reader_Close(r);
  return count;
}

std::uint64_t endpoints(const Trace& t, bool sends) {
  std::uint64_t n = 0;
  for (const auto& r : t.ranks)
    for (const auto& m : r.messages) n += m.isSend == sends;
  return n;
}

TEST(Otf2Conformance, MessageCountsMatchAnIndependentReaderAndAllMatch) {
  auto archives = test::sharedOtf2Archives();
  if (archives.empty()) GTEST_SKIP() << "../shared/traces absent";
  for (const auto& a : archives) {
    SCOPED_TRACE(a.string());
    Trace t = readArchive(a);
    IndependentCount c = countMessages(anchorIn(a));
    EXPECT_GT(c.sends, 0u);
    EXPECT_EQ(endpoints(t, true), c.sends);
    EXPECT_EQ(endpoints(t, false), c.receives);
    // The samples' README: every message of every sample pairs up.
    EXPECT_EQ(t.messageStats.matched, c.sends);
    EXPECT_EQ(t.messageStats.unmatchedSends, 0u);
    EXPECT_EQ(t.messageStats.unmatchedReceives, 0u);
  }
}

TEST(Otf2Conformance, KnownSamples) {
  fs::path root = test::sharedTraces();
  if (root.empty()) GTEST_SKIP() << "../shared/traces absent";
  // README: pipit ping-pong, 2 ranks, 16 messages; WORLD is OTF2 comm 1.
  Trace pipit = readArchive(root / "otf2" / "pipit-ping-pong");
  EXPECT_EQ(pipit.rankCount(), 2u);
  EXPECT_EQ(pipit.messageStats.matched, 16u);
  for (const auto& r : pipit.ranks)
    for (const auto& m : r.messages) EXPECT_EQ(m.comm, 0u);
  // README: casita-4, late-sender chain 0->1->2->3 (3 messages) then one barrier.
  Trace casita = readArchive(root / "otf2" / "casita-4_mpi_ls_barr");
  EXPECT_EQ(casita.rankCount(), 4u);
  EXPECT_EQ(casita.messageStats.matched, 3u);
  for (std::int32_t r = 0; r < 3; ++r) {
    ASSERT_EQ(casita.ranks[r].messages.back().isSend, true);
    EXPECT_EQ(casita.ranks[r].messages.back().peer, r + 1);
  }
  ASSERT_EQ(casita.collectives.size(), 1u);
  EXPECT_EQ(casita.collectives[0].op, MpiOp::Barrier);
  EXPECT_EQ(casita.collectives[0].participants, 4u);
}

TEST(Otf2Conformance, RoundTripKeepsTheModelAndPassesOtf2Print) {
  auto archives = test::sharedOtf2Archives();
  if (archives.empty()) GTEST_SKIP() << "../shared/traces absent";
  fs::path dir = freshDir("Otf2Conformance_roundtrip");
  for (const auto& a : archives) {
    SCOPED_TRACE(a.string());
    Trace t = readArchive(a);
    fs::path out = dir / a.filename();
    {
      auto w = makeOtf2Writer(out.string());
      emitTrace(t, *w);
    }
    if (auto accepted = otf2PrintAccepts(out / "traces.otf2")) {
      EXPECT_TRUE(*accepted);
    }
    Trace back = readArchive(out);
    std::string why;
    EXPECT_TRUE(t.sameModel(back, &why)) << why;
    EXPECT_TRUE(back.warnings.empty()) << allWarnings(back);
  }
}

// ------------------------------------------------------------------------------------------
// 3. Bad input

TEST(Otf2BadInput, EveryFailureIsATraceErrorNamingThePath) {
  fs::path dir = freshDir("Otf2BadInput");
  auto expectReadError = [](const fs::path& p, const std::string& problem = {}) {
    SCOPED_TRACE(p.string());
    expectTraceError([&] { readArchive(p); }, p.string(), problem);
  };
  expectReadError(dir / "missing.otf2", "no such file");
  expectReadError(writeFile(dir / "empty" / "x.otf2", ""));
  expectReadError(dir / "empty");  // a directory whose anchor is the empty file
  std::string garbage;
  for (int i = 0; i < 4096; ++i) garbage += static_cast<char>((i * 7919) % 251);
  expectReadError(writeFile(dir / "garbage" / "traces.otf2", garbage));
  fs::create_directories(dir / "noanchor");
  writeFile(dir / "noanchor" / "readme.txt", "no trace here");
  expectReadError(dir / "noanchor", "no OTF2 anchor");

  // A valid archive with pieces removed or damaged.
  auto fresh = [&](const std::string& name) {
    fs::path p = dir / name;
    writeHandArchive(p);
    return p;
  };
  fs::path noEvt = fresh("no_evt");
  fs::remove(noEvt / "traces" / (std::to_string(kLocB) + ".evt"));
  expectReadError(noEvt, "missing event file");
  expectReadError(noEvt, std::to_string(kLocB) + ".evt");
  fs::path noDef = fresh("no_def");
  fs::remove(noDef / "traces" / (std::to_string(kGpu) + ".def"));
  expectReadError(noDef, std::to_string(kGpu) + ".def");
  fs::path noGlobal = fresh("no_global");
  fs::remove(noGlobal / "traces.def");
  expectReadError(noGlobal, "traces.def");
  fs::path truncated = fresh("truncated");
  fs::path evt = truncated / "traces" / (std::to_string(kLocA) + ".evt");
  fs::resize_file(evt, fs::file_size(evt) / 2);
  expectReadError(truncated);
}

// A cut or corrupt event file never hangs a load (issue #38, item 1): libotf2 3.0 waits forever
// for a chunk that is not there (read() = 0 in a loop). Each case runs `perwiz-cli info` under
// timeout(1), so that a regression fails instead of hanging the suite: every cut of a rank's
// event file (40 offsets from the chunk header to its end-of-file mark), an end-of-chunk byte put where
// the first record begins, and the shared Score-P reproducer are refused naming the file.
TEST(Otf2BadInput, CutEventFilesAreRefusedNeverAHang) {
  const fs::path dir = freshDir("Otf2CutEvt");
  auto info = [&](const fs::path& archive) {
    return test::runProgram("/usr/bin/timeout", dir, {"30", PERWIZ_CLI, "info", archive.string()});
  };
  auto expectRefused = [&](const fs::path& archive, const fs::path& evt, const std::string& what) {
    const test::CliResult r = info(archive);
    EXPECT_NE(r.status, 124) << archive << ": still running after 30 s (a hang)";
    EXPECT_EQ(r.status, 1) << archive << ": " << r.err;
    EXPECT_NE(r.err.find("corrupt or cut OTF2 event file " + evt.string()), std::string::npos) << r.err;
    EXPECT_NE(r.err.find(what), std::string::npos) << r.err;
  };
  const fs::path whole = dir / "whole";
  writeHandArchive(whole);
  ASSERT_EQ(info(whole).status, 0);
  const fs::path evtName = fs::path("traces") / (std::to_string(kLocA) + ".evt");
  const std::uint64_t size = fs::file_size(whole / evtName);
  ASSERT_GT(size, 60u);
  for (std::uint64_t k = 0; k < 40; ++k) {
    // 18 .. size - 2: the file ends with the end-of-file mark (byte size - 2) and one byte
    // after it, which no reader needs (a cut there loads the same trace).
    const std::uint64_t cut = 18 + k * (size - 20) / 39;
    const fs::path a = dir / ("cut" + std::to_string(cut));
    fs::copy(whole, a, fs::copy_options::recursive);
    fs::resize_file(a / evtName, cut);
    SCOPED_TRACE("cut at " + std::to_string(cut) + " of " + std::to_string(size));
    expectRefused(a, a / evtName, "");
  }
  // Byte 18, where the first record begins, set to OTF2's end-of-chunk mark: libotf2 would ask
  // for a second chunk.
  const fs::path marked = dir / "marked";
  fs::copy(whole, marked, fs::copy_options::recursive);
  {
    std::fstream f(marked / evtName, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(18);
    f.put('\0');
  }
  expectRefused(marked, marked / evtName, "an end-of-chunk mark in the last chunk, with no chunk after it at byte 18");
  // The reproducer: a real Score-P 3.0 archive whose location 18 event file is cut at 1,870 bytes.
  const fs::path repro = test::sharedTraces().parent_path() / "repro" / "otf2-cut-event-file-hang";
  if (!fs::exists(repro)) GTEST_SKIP() << "../shared/repro absent";
  expectRefused(repro, repro / "traces" / "18.evt", "runs past the end of the file at byte 1868");
}

TEST(Otf2BadInput, SharedSampleWithADeletedEventFile) {
  fs::path root = test::sharedTraces();
  if (root.empty()) GTEST_SKIP() << "../shared/traces absent";
  fs::path dir = freshDir("Otf2BadInput_sample") / "casita";
  fs::copy(root / "otf2" / "casita-4_mpi_ls_barr", dir, fs::copy_options::recursive);
  fs::permissions(dir / "traces", fs::perms::owner_all, fs::perm_options::add);
  fs::remove(dir / "traces" / "2.evt");
  expectTraceError([&] { readArchive(dir); }, dir.string(), "2.evt");
}

}  // namespace

// A write that fails half-way leaves no half archive behind (it would be garbage, and would make
// the next attempt at the same path refuse to overwrite it); what existed before is untouched.
TEST(Otf2Writer, FailedWriteLeavesNothingBehind) {
  const fs::path dir = freshDir("Otf2Writer_failed");
  const fs::path keep = dir / "keep.txt";
  std::ofstream(keep) << "user data\n";
  const fs::path anchor = dir / "out.otf2";
  {
    auto w = makeOtf2Writer(anchor.string());
    w->begin({1, {}});
    const std::uint32_t f = w->defineFunction({"MPI_Barrier", EventKind::MpiCall, MpiOp::Barrier, ""});
    w->enter(0, 1000, f);
    EXPECT_THROW(w->leave(0, 500, f), TraceError);  // time going backwards: libotf2 refuses
  }
  EXPECT_FALSE(fs::exists(anchor));
  EXPECT_FALSE(fs::exists(dir / "out.def"));
  EXPECT_FALSE(fs::exists(dir / "out"));
  EXPECT_TRUE(fs::exists(keep));  // the directory existed: it and its other files stay
  // The same path can be written now.
  Trace t;
  {
    auto w = makeOtf2Writer(anchor.string());
    w->begin({1, {}});
    const std::uint32_t f = w->defineFunction({"MPI_Barrier", EventKind::MpiCall, MpiOp::Barrier, ""});
    w->enter(0, 1000, f);
    w->leave(0, 1500, f);
    w->end();
  }
  EXPECT_EQ(loadTrace(anchor.string()).endTime, 1500);

  // A directory the writer created itself goes too.
  const fs::path fresh = dir / "new-dir";
  {
    auto w = makeOtf2Writer(fresh.string());
    w->begin({1, {}});
    const std::uint32_t f = w->defineFunction({"MPI_Barrier", EventKind::MpiCall, MpiOp::Barrier, ""});
    w->enter(0, 1000, f);
    EXPECT_THROW(w->leave(0, 500, f), TraceError);
  }
  EXPECT_FALSE(fs::exists(fresh));
}

// A thread-only OTF2 trace (a Pthreads program traced without MPI: one process, three CPU
// threads, no MPI definition): no rank, three thread rows in definition order (issue #37).
// Clock 10^9 ticks/s, offset 1000: tick k is k - 1000 ns.
TEST(Otf2Threads, ThreadOnlyTraceOpensItsThreads) {
  const fs::path dir = test::freshDir("otf2_threads_only");
  RawArchive a(dir, {"", "main", "worker", "app", "Master thread", "Pthread 1", "Pthread 2", "node"});
  ok(OTF2_EvtWriter_Enter(a[0], nullptr, 1000, 0));
  ok(OTF2_EvtWriter_Leave(a[0], nullptr, 1900, 0));
  ok(OTF2_EvtWriter_Enter(a[1], nullptr, 1100, 1));
  ok(OTF2_EvtWriter_Leave(a[1], nullptr, 1500, 1));
  ok(OTF2_EvtWriter_Enter(a[2], nullptr, 1200, 1));
  ok(OTF2_EvtWriter_Leave(a[2], nullptr, 2000, 1));
  a.finish([&](OTF2_GlobalDefWriter* g) {
    ok(OTF2_GlobalDefWriter_WriteClockProperties(g, 1'000'000'000ULL, 1000, 1000, OTF2_UNDEFINED_TIMESTAMP));
    ok(OTF2_GlobalDefWriter_WriteRegion(g, 0, a.str("main"), a.str("main"), a.str(""), OTF2_REGION_ROLE_FUNCTION,
                                        OTF2_PARADIGM_USER, OTF2_REGION_FLAG_NONE, OTF2_UNDEFINED_STRING, 0, 0));
    ok(OTF2_GlobalDefWriter_WriteRegion(g, 1, a.str("worker"), a.str("worker"), a.str(""), OTF2_REGION_ROLE_FUNCTION,
                                        OTF2_PARADIGM_PTHREAD, OTF2_REGION_FLAG_NONE, OTF2_UNDEFINED_STRING, 0, 0));
    ok(OTF2_GlobalDefWriter_WriteSystemTreeNode(g, 0, a.str("node"), a.str("node"), OTF2_UNDEFINED_SYSTEM_TREE_NODE));
    ok(OTF2_GlobalDefWriter_WriteLocationGroup(g, 0, a.str("app"), OTF2_LOCATION_GROUP_TYPE_PROCESS, 0,
                                               OTF2_UNDEFINED_LOCATION_GROUP));
    const char* names[] = {"Master thread", "Pthread 1", "Pthread 2"};
    for (OTF2_LocationRef l = 0; l < 3; ++l)
      ok(OTF2_GlobalDefWriter_WriteLocation(g, l, a.str(names[l]), OTF2_LOCATION_TYPE_CPU_THREAD, a.events(l), 0));
  });
  const Trace t = loadTrace(anchorIn(dir).string());
  EXPECT_EQ(t.rankCount(), 0u);
  ASSERT_EQ(t.threads.size(), 3u) << allWarnings(t);
  for (const ThreadTrace& th : t.threads) EXPECT_EQ(th.rank, -1);
  EXPECT_EQ(t.threads[1].events.name, "Pthread 1");
  EXPECT_EQ(t.threads[1].events.enter.toVector(), (std::vector<TimeNs>{100}));
  EXPECT_EQ(t.threads[2].events.leave.toVector(), (std::vector<TimeNs>{1000}));
  EXPECT_EQ(t.endTime, 1000);
  EXPECT_EQ(countWarnings(t, "no MPI definition"), 1) << allWarnings(t);
  EXPECT_EQ(test::modelViolation(t), "");
  EXPECT_EQ(t.sourceRecords, 6u);
  // Written by PerWiz as OTF2 and read back: the same threads, still of no rank.
  const fs::path copy = dir / "copy";
  saveTrace(t, copy.string());
  const Trace back = loadTrace(copy.string());
  std::string why;
  EXPECT_TRUE(t.sameModel(back, &why)) << why;
}

// Issue #38 item 6: libotf2 keeps a location's event file open from the moment its reader is
// made; the reader made every location's first, so an archive of more locations than the
// process may open files (1,024 is common) failed ("Too many opened files", as otf2-print
// does). Now one location's files are open at a time: 300 ranks load under a limit of 64.
TEST(Otf2ReaderLimits, MoreLocationsThanOpenFiles) {
  const fs::path dir = freshDir("Otf2ManyLocations") / "t.otf2";
  GeneratorSpec spec;
  spec.ranks = 300;
  spec.steps = 2;
  {
    auto w = makeOtf2Writer(dir.string());
    generateTrace(spec, *w);
  }
  rlimit old{};
  ::getrlimit(RLIMIT_NOFILE, &old);
  rlimit low = old;
  low.rlim_cur = 64;
  ASSERT_EQ(::setrlimit(RLIMIT_NOFILE, &low), 0);
  std::string error;
  std::size_t ranks = 0;
  for (const unsigned threads : {1u, 2u}) {
    try {
      LoadOptions o;
      o.threads = threads;
      ranks = loadTrace(dir.string(), o).rankCount();
    } catch (const std::exception& e) {
      error = e.what();
    }
    if (!error.empty()) break;
  }
  ::setrlimit(RLIMIT_NOFILE, &old);
  EXPECT_EQ(error, "");
  EXPECT_EQ(ranks, 300u);
}
