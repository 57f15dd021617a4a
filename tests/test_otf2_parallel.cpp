// OTF2 read on several threads (LoadOptions::threads): each thread reads a share of the ranks
// with its own libotf2 reader into a part of the TraceBuilder. The result must be the model,
// warnings and record count of a read on one thread, for any number of threads; progress,
// cancel and errors must behave as on one thread.
#include "perwiz/generator.h"
#include "perwiz/trace_builder.h"
#include "perwiz/trace_io.h"
#include "model_invariants.h"
#include "test_support.h"

#include <gtest/gtest.h>
#include <otf2/otf2.h>

#include <algorithm>
#include <atomic>
#include <filesystem>

namespace fs = std::filesystem;
using namespace perwiz;

namespace {

LoadOptions onThreads(unsigned n, bool pipelined = true) {
  LoadOptions o;
  o.threads = n;
  o.pipelined = pipelined;
  return o;
}

// The reference: everything on the calling thread, as before parts existed.
Trace serial(const std::string& path) { return loadTrace(path, onThreads(1, false)); }

void expectSameLoad(const Trace& reference, const Trace& t, const std::string& what) {
  std::string why;
  EXPECT_TRUE(reference.sameModel(t, &why)) << what << ": " << why;
  EXPECT_EQ(reference.warnings, t.warnings) << what;
  EXPECT_EQ(reference.sourceRecords, t.sourceRecords) << what;
  EXPECT_EQ(reference.functions, t.functions) << what;
}

std::string generatedArchive(const std::string& name, std::uint32_t ranks) {
  const fs::path dir = test::freshDir(name);
  GeneratorSpec spec;
  spec.ranks = ranks;
  spec.steps = 30;
  spec.nonBlocking = true;
  spec.imbalance = 0.3;
  spec.pattern = P2PPattern::Random;
  spec.seed = 11;
  const std::string anchor = (dir / "gen").string();
  auto w = makeOtf2Writer(anchor);
  generateTrace(spec, *w);  // ends the stream
  return (dir / "gen" / "traces.otf2").string();
}

std::size_t countWarnings(const Trace& t, const std::string& text) {
  return static_cast<std::size_t>(std::count_if(t.warnings.begin(), t.warnings.end(), [&](const Diagnostic& d) {
    return d.message.find(text) != std::string::npos;
  }));
}

// 30 ranks, each with records the builder has to repair: a message record outside any MPI call
// (a synthetic zero-length call; ranks 0-14 a receive, ranks 15-29 a send then a receive, so the
// second share defines the synthetic functions in another order than the first) and an
// unmatched leave. Each kind makes one diagnostic per rank: 30, over the cap of 20 per kind.
std::string repairedArchive() {
  const fs::path dir = test::freshDir("otf2_parallel_repaired");
  const std::string anchor = (dir / "rep").string();
  auto w = makeOtf2Writer(anchor);
  constexpr std::uint32_t kRanks = 30;
  w->begin(TraceHeader{kRanks, {}});
  const std::uint32_t compute = w->defineFunction(Function{"compute", EventKind::UserState, MpiOp::None, ""});
  const std::uint32_t other = w->defineFunction(Function{"other", EventKind::UserState, MpiOp::None, ""});
  for (std::uint32_t r = 0; r < kRanks; ++r) {
    w->enter(r, 10, compute);
    w->leave(r, 20, compute);
    const auto peer = static_cast<std::int32_t>((r + 1) % kRanks);
    if (r >= 15) w->send(r, 25, peer, 0, 1, 8, 0);
    w->recv(r, 30, peer, 0, 2, 8, 0);
    w->leave(r, 40, other);  // never entered
    w->enter(r, 50, compute);
    w->leave(r, 60, compute);
  }
  w->end();
  return (dir / "rep" / "traces.otf2").string();
}

void ok(OTF2_ErrorCode rc) {
  if (rc != OTF2_SUCCESS) ADD_FAILURE() << "libotf2: " << OTF2_Error_GetName(rc);
}
OTF2_FlushType preFlush(void*, OTF2_FileType, OTF2_LocationRef, void*, bool) { return OTF2_FLUSH; }
const OTF2_FlushCallbacks kFlush = {&preFlush, nullptr};

// Four ranks (locations 0-3 in process groups 0-3), each with a "compute" state from tick 100
// to tick 200 (1 tick = 1 ns, no global offset) and a clock offset of 1000·(r+1) ns written
// as local definitions at ticks 0 and 10^6, so libotf2's event reader adds it to every time.
std::string clockOffsetArchive() {
  const fs::path dir = test::freshDir("otf2_parallel_clock");
  OTF2_Archive* a = OTF2_Archive_Open(dir.c_str(), "traces", OTF2_FILEMODE_WRITE, OTF2_CHUNK_SIZE_EVENTS_DEFAULT,
                                      OTF2_CHUNK_SIZE_DEFINITIONS_DEFAULT, OTF2_SUBSTRATE_POSIX, OTF2_COMPRESSION_NONE);
  EXPECT_NE(a, nullptr);
  ok(OTF2_Archive_SetFlushCallbacks(a, &kFlush, nullptr));
  ok(OTF2_Archive_SetSerialCollectiveCallbacks(a));
  ok(OTF2_Archive_OpenEvtFiles(a));
  constexpr OTF2_LocationRef kRanks = 4;
  for (OTF2_LocationRef loc = 0; loc < kRanks; ++loc) {
    OTF2_EvtWriter* w = OTF2_Archive_GetEvtWriter(a, loc);
    ok(OTF2_EvtWriter_Enter(w, nullptr, 100, 0));
    ok(OTF2_EvtWriter_Leave(w, nullptr, 200, 0));
    ok(OTF2_Archive_CloseEvtWriter(a, w));
  }
  ok(OTF2_Archive_CloseEvtFiles(a));
  ok(OTF2_Archive_OpenDefFiles(a));
  for (OTF2_LocationRef loc = 0; loc < kRanks; ++loc) {
    OTF2_DefWriter* d = OTF2_Archive_GetDefWriter(a, loc);
    const auto offset = static_cast<std::int64_t>(1000 * (loc + 1));
    ok(OTF2_DefWriter_WriteClockOffset(d, 0, offset, 0.0));
    ok(OTF2_DefWriter_WriteClockOffset(d, 1'000'000, offset, 0.0));
    ok(OTF2_Archive_CloseDefWriter(a, d));
  }
  ok(OTF2_Archive_CloseDefFiles(a));
  OTF2_GlobalDefWriter* g = OTF2_Archive_GetGlobalDefWriter(a);
  ok(OTF2_GlobalDefWriter_WriteClockProperties(g, 1'000'000'000, 0, 1'000'000, OTF2_UNDEFINED_TIMESTAMP));
  const char* strings[] = {"", "compute", "node", "P0", "P1", "P2", "P3"};
  for (OTF2_StringRef i = 0; i < std::size(strings); ++i) ok(OTF2_GlobalDefWriter_WriteString(g, i, strings[i]));
  ok(OTF2_GlobalDefWriter_WriteRegion(g, 0, 1, 1, 0, OTF2_REGION_ROLE_FUNCTION, OTF2_PARADIGM_USER,
                                      OTF2_REGION_FLAG_NONE, 0, 0, 0));
  ok(OTF2_GlobalDefWriter_WriteSystemTreeNode(g, 0, 2, 2, OTF2_UNDEFINED_SYSTEM_TREE_NODE));
  for (OTF2_LocationRef loc = 0; loc < kRanks; ++loc) {
    const auto name = static_cast<OTF2_StringRef>(3 + loc);
    ok(OTF2_GlobalDefWriter_WriteLocationGroup(g, static_cast<OTF2_LocationGroupRef>(loc), name,
                                               OTF2_LOCATION_GROUP_TYPE_PROCESS, 0, OTF2_UNDEFINED_LOCATION_GROUP));
    ok(OTF2_GlobalDefWriter_WriteLocation(g, loc, name, OTF2_LOCATION_TYPE_CPU_THREAD, 2,
                                          static_cast<OTF2_LocationGroupRef>(loc)));
  }
  ok(OTF2_Archive_CloseGlobalDefWriter(a, g));
  ok(OTF2_Archive_Close(a));
  return (dir / "traces.otf2").string();
}

}  // namespace

// Clock offsets live in each location's local definitions: a thread's own reader must read
// them for its ranks, or its ranks' times would be uncorrected.
TEST(Otf2Parallel, EveryThreadAppliesItsRanksClockOffsets) {
  const std::string path = clockOffsetArchive();
  for (unsigned n : {1u, 2u, 4u}) {
    const Trace t = loadTrace(path, onThreads(n, n != 1));
    ASSERT_EQ(t.ranks.size(), 4u) << n << " threads";
    for (std::uint32_t r = 0; r < 4; ++r) {
      ASSERT_EQ(t.ranks[r].size(), 1u);
      // enter = 100 + offset, leave = 200 + offset, offset = 1000·(r+1) ns.
      const TimeNs offset = 1000 * TimeNs(r + 1);
      EXPECT_EQ(t.ranks[r].enter[0], 100 + offset) << n << " threads, rank " << r;
      EXPECT_EQ(t.ranks[r].leave[0], 200 + offset) << n << " threads, rank " << r;
    }
  }
}

TEST(Otf2Parallel, SameModelOnAnyNumberOfThreads) {
  const std::string path = generatedArchive("otf2_parallel_gen", 13);
  const Trace reference = serial(path);
  ASSERT_EQ(test::modelViolation(reference), "");
  ASSERT_GT(reference.eventCount(), 13u * 30u);
  for (unsigned n : {1u, 2u, 3u, 5u, 13u, 40u}) {
    const Trace t = loadTrace(path, onThreads(n));
    expectSameLoad(reference, t, std::to_string(n) + " threads");
    EXPECT_EQ(test::modelViolation(t), "") << n << " threads";
  }
}

TEST(Otf2Parallel, WarningsAndSyntheticCallsKeepTheOrderOfOneThread) {
  const std::string path = repairedArchive();
  const Trace reference = serial(path);
  // By hand, for one thread reading ranks 0..29 in order: each rank raises one "synthetic"
  // and one "unmatched-leave" diagnostic; 20 of each are kept, in rank order, and the 10 others
  // are summarised. The synthetic receive (rank 0) is defined before the synthetic send
  // (rank 15).
  EXPECT_EQ(countWarnings(reference, "outside any MPI call"), 20u);
  EXPECT_EQ(countWarnings(reference, "without a matching start"), 20u);
  EXPECT_EQ(countWarnings(reference, "10 more warnings of the kind 'synthetic'"), 1u);
  EXPECT_EQ(countWarnings(reference, "10 more warnings of the kind 'unmatched-leave'"), 1u);
  std::vector<std::string> names;
  for (const Function& f : reference.functions) names.push_back(f.name);
  const auto recvAt = std::find(names.begin(), names.end(), "MPI_Recv");
  const auto sendAt = std::find(names.begin(), names.end(), "MPI_Send");
  ASSERT_NE(recvAt, names.end());
  ASSERT_NE(sendAt, names.end());
  EXPECT_LT(recvAt, sendAt);
  // Rank 20: compute, its synthetic send and receive, compute.
  const RankTrace& r20 = reference.ranks[20];
  ASSERT_EQ(r20.size(), 4u);
  EXPECT_EQ(reference.functions[r20.function[1]].name, "MPI_Send");
  EXPECT_EQ(reference.functions[r20.function[2]].name, "MPI_Recv");

  for (unsigned n : {2u, 3u, 4u, 7u, 30u}) {
    const Trace t = loadTrace(path, onThreads(n));
    expectSameLoad(reference, t, std::to_string(n) + " threads");
    for (const RankTrace& r : t.ranks)
      for (std::uint32_t f : r.function) ASSERT_LT(f, t.functions.size()) << n << " threads";
  }
}

TEST(Otf2Parallel, ProgressReachesOneAndCancelStopsEveryThread) {
  const std::string path = generatedArchive("otf2_parallel_progress", 8);
  std::vector<double> seen;
  LoadOptions o = onThreads(3);
  o.progress = [&](double f) {
    seen.push_back(f);
    return true;
  };
  const Trace t = loadTrace(path, o);
  ASSERT_FALSE(seen.empty());
  EXPECT_TRUE(std::is_sorted(seen.begin(), seen.end()));
  EXPECT_DOUBLE_EQ(seen.back(), 1.0);

  LoadOptions cancel = onThreads(3);
  cancel.progress = [](double) { return false; };
  try {
    loadTrace(path, cancel);
    ADD_FAILURE() << "a cancelled load returned";
  } catch (const TraceError& e) {
    EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("cancelled"), std::string::npos) << e.what();
  }
}

TEST(Otf2Parallel, AFailingShareGivesTheErrorOfOneThread) {
  const std::string path = generatedArchive("otf2_parallel_broken", 6);
  // The last rank's event file cut short: the share of another thread than the caller's.
  const fs::path dir = fs::path(path).parent_path() / "traces";
  fs::path last;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.path().extension() == ".evt" && (last.empty() || e.path().stem().string() > last.stem().string()))
      last = e.path();
  ASSERT_FALSE(last.empty());
  fs::resize_file(last, fs::file_size(last) / 2);
  std::string one, three;
  try {
    serial(path);
  } catch (const TraceError& e) {
    one = e.what();
  }
  try {
    loadTrace(path, onThreads(3));
  } catch (const TraceError& e) {
    three = e.what();
  }
  ASSERT_FALSE(one.empty()) << "a cut event file was accepted";
  EXPECT_EQ(one, three);
  EXPECT_NE(three.find(path), std::string::npos) << three;
}

TEST(Otf2Parallel, SharedSamplesGiveTheSameModelOnTwoAndThreeThreads) {
  const auto archives = test::sharedOtf2Archives();
  if (archives.empty()) GTEST_SKIP() << "../shared/traces absent";
  for (const auto& a : archives) {
    SCOPED_TRACE(a.string());
    const Trace reference = serial(a.string());
    for (unsigned n : {2u, 3u}) expectSameLoad(reference, loadTrace(a.string(), onThreads(n)), std::to_string(n) + " threads");
  }
}
