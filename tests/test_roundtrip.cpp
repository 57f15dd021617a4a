// Round trips between the formats keep the trace (issue #15, item 8) and the writers write
// whatever the reader accepts (item 7).
//
// 1. OTF2 -> ALOG -> OTF2 and ALOG -> OTF2 -> ALOG through `perwiz-cli convert`, on every
//    shared sample trace (skipped when ../shared/traces is absent) and on the project's own
//    samples (resources/samples, always there): every count `perwiz-cli info --json` reports
//    (ranks, events, MPI calls, messages, collectives, steps, duration, every per-rank field)
//    is the same for the original, the converted and the re-converted trace, and the models
//    are the same (Trace::sameModel). Not compared: "file" and "format" (they name the file),
//    "records" (the number of records in the *file*: an OTF2 collective is three records, an
//    ALOG state has a -13 line...) and the warnings' text (a tracer's skipped-record notes are
//    about its file).
// 2. Hand-made cases where ALOG's name-based classification alone would change the trace: a
//    user state named like an MPI call, communicators, collectives on sub-communicators,
//    non-blocking requests, and ALOG files of other producers that carry no PerWiz records.
// 3. Writer regressions: models with nesting deeper than 255, 5,000 unclosed states, a clock
//    going backwards and improper nesting are written to OTF2 and ALOG and read back.
#include "cli_runner.h"
#include "info_counts.h"
#include "model_invariants.h"
#include "test_support.h"

#include "perwiz/replay.h"
#include "perwiz/trace_builder.h"
#include "perwiz/trace_io.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <otf2/otf2.h>

#include <limits>
#include <optional>
#include <string>
#include <vector>

namespace fs = std::filesystem;
using namespace perwiz;
using json = nlohmann::json;

namespace {

test::CliResult cli(const fs::path& dir, const std::vector<std::string>& args) {
  return test::runProgram(PERWIZ_CLI, dir, args);
}

json infoCounts(const fs::path& dir, const fs::path& trace) { return test::infoCounts(PERWIZ_CLI, dir, trace); }

void convert(const fs::path& dir, const fs::path& in, const fs::path& out) {
  test::convertTrace(PERWIZ_CLI, dir, in, out);
}

// in -> mid -> back; every count equal, and the same model all the way.
void expectRoundTripKeepsTrace(const fs::path& in, const fs::path& dir, const std::string& midName,
                               const std::string& backName) {
  SCOPED_TRACE(in.string());
  const fs::path mid = dir / midName, back = dir / backName;
  convert(dir, in, mid);
  convert(dir, mid, back);
  const json a = infoCounts(dir, in), b = infoCounts(dir, mid), c = infoCounts(dir, back);
  EXPECT_EQ(a, b) << "converted: " << json::diff(a, b).dump();
  EXPECT_EQ(a, c) << "converted back: " << json::diff(a, c).dump();

  const Trace ta = loadTrace(in.string()), tb = loadTrace(mid.string()),
              tc = loadTrace(back.string());
  std::string why;
  EXPECT_TRUE(ta.sameModel(tb, &why)) << "converted: " << why;
  EXPECT_TRUE(ta.sameModel(tc, &why)) << "converted back: " << why;
  EXPECT_EQ(test::modelViolation(tc), "");
  // Identity replay (no hypothesis, measured costs) stays exact on the converted traces.
  for (const Trace* t : {&tb, &tc}) {
    Replayer rp(*t, Scenario{});
    EXPECT_EQ(rp.predictedTime(), t->endTime);
    for (std::uint32_t r = 0; r < t->rankCount(); ++r)
      EXPECT_EQ(rp.predictedRankEnd(r), rp.measuredRankEnd(r)) << "rank " << r;
  }
}

std::vector<fs::path> sampleAlogFiles() {
  return {fs::path(PERWIZ_SAMPLE) / "ring4.alog", fs::path(PERWIZ_SAMPLE) / "pipeline_8.alog"};
}

std::vector<fs::path> sampleOtf2Archives() {
  return {fs::path(PERWIZ_SAMPLE) / "binary_swap_8", fs::path(PERWIZ_SAMPLE) / "registration_8",
          fs::path(PERWIZ_SAMPLE) / "stencil_8"};
}

std::string safeName(const fs::path& p) { return p.filename().string(); }

// ---- 1. every sample trace -------------------------------------------------------------------

TEST(RoundTrip, SampleOtf2ThroughAlogAndBack) {
  const fs::path dir = test::freshDir("rt_sample_otf2");
  for (const auto& a : sampleOtf2Archives())
    expectRoundTripKeepsTrace(a, dir, safeName(a) + ".alog", safeName(a) + "-back");
}

TEST(RoundTrip, SampleAlogThroughOtf2AndBack) {
  const fs::path dir = test::freshDir("rt_sample_alog");
  for (const auto& f : sampleAlogFiles())
    expectRoundTripKeepsTrace(f, dir, f.stem().string() + "-otf2", f.stem().string() + "-back.alog");
}

TEST(RoundTrip, SharedOtf2ThroughAlogAndBack) {
  const auto archives = test::sharedOtf2Archives();
  if (archives.empty()) GTEST_SKIP() << "shared traces absent (PERWIZ_SHARED_TRACES)";
  const fs::path dir = test::freshDir("rt_shared_otf2");
  for (const auto& a : archives)
    expectRoundTripKeepsTrace(a, dir, safeName(a) + ".alog", safeName(a) + "-back");
}

TEST(RoundTrip, SharedAlogThroughOtf2AndBack) {
  const auto files = test::sharedAlogFiles();
  if (files.empty()) GTEST_SKIP() << "shared traces absent (PERWIZ_SHARED_TRACES)";
  const fs::path dir = test::freshDir("rt_shared_alog");
  for (const auto& f : files)
    expectRoundTripKeepsTrace(f, dir, safeName(f) + "-otf2", safeName(f) + "-back.alog");
}

// ---- 2. what ALOG needed PerWiz records for -------------------------------------------------

// Writes `t` in format `ext`, reads it back; the model must be the same.
Trace throughFormat(const Trace& t, const std::string& name) {
  const fs::path p = test::freshDir("rt_" + name) / name;
  saveTrace(t, p.string());
  return loadTrace(p.string());
}

// A user region named "barrier" (Score-P's casita-4_mpi_ls_barr has one) is not MPI_Barrier,
// and "MPI_Send"-named user states stay user states; before PerWiz's kind records, ALOG
// classified by name only: MPI calls 1 -> 2, collectives 0 -> 1 here.
TEST(RoundTrip, StateKindsSurviveAlog) {
  TraceBuilder b("kinds", "test");
  b.begin({1, {}});
  const auto barrier = b.defineFunction({"barrier", EventKind::UserState, MpiOp::None, ""});
  const auto send = b.defineFunction({"MPI_Send", EventKind::MpiCall, MpiOp::Send, ""});
  const auto fakeSend = b.defineFunction({"MPI_Send", EventKind::UserState, MpiOp::None, ""});
  b.enter(0, 0, barrier);
  b.leave(0, 10, barrier);
  b.enter(0, 20, fakeSend);
  b.enter(0, 21, send);
  b.leave(0, 22, send);
  b.leave(0, 30, fakeSend);
  b.end();
  const Trace t = b.take();
  ASSERT_EQ(t.mpiCallCount(), 1u);
  ASSERT_EQ(t.collectives.size(), 0u);
  const Trace back = throughFormat(t, "kinds.alog");
  std::string why;
  EXPECT_TRUE(t.sameModel(back, &why)) << why;
  EXPECT_EQ(back.mpiCallCount(), 1u);
  EXPECT_EQ(back.collectives.size(), 0u);
}

// Collectives on two disjoint sub-communicators: each is its own instance sequence. ALOG
// without communicators put all of them on WORLD, where the ranks' k-th collectives merged
// into one instance: 4 instances (2 per sub-communicator) became 2 (the 280 -> 120 of a
// Score-P MPI coverage trace in the issue). Also: an Irecv posted in one call and completed
// in a Wait, an Isend completed in a Waitall (request ids), a message on a sub-communicator.
TEST(RoundTrip, CommunicatorsCollectivesAndRequestsSurviveAlog) {
  TraceBuilder b("comms", "test");
  b.begin({4, {}});
  const auto bcast = b.defineFunction({"MPI_Bcast", EventKind::MpiCall, MpiOp::Bcast, ""});
  const auto isend = b.defineFunction({"MPI_Isend", EventKind::MpiCall, MpiOp::Isend, ""});
  const auto irecv = b.defineFunction({"MPI_Irecv", EventKind::MpiCall, MpiOp::Irecv, ""});
  const auto wait = b.defineFunction({"MPI_Wait", EventKind::MpiCall, MpiOp::Wait, ""});
  const auto waitall = b.defineFunction({"MPI_Waitall", EventKind::MpiCall, MpiOp::Waitall, ""});
  const auto low = b.defineComm({"LOW", {0, 1}, false});    // model comm 1
  const auto high = b.defineComm({"HIGH", {2, 3}, false});  // model comm 2
  const auto self = b.defineComm({"SELF", {}, true});       // model comm 3
  for (std::uint32_t r = 0; r < 4; ++r) {
    const std::uint32_t comm = r < 2 ? low : high;
    for (int k = 0; k < 2; ++k) {
      const TimeNs t0 = 100 * k;
      b.enter(r, t0, bcast);
      b.collective(r, t0 + 5, MpiOp::Bcast, comm, r < 2 ? 0 : 2, 8, 8);
      b.leave(r, t0 + 10, bcast);
    }
  }
  // Rank 0 -> rank 1 on LOW (comm-local peers are world ranks in the model): Isend + Waitall;
  // rank 1: Irecv (request 7) + Wait.
  b.enter(0, 300, isend);
  b.send(0, 301, 1, low, 5, 64, 42);
  b.leave(0, 302, isend);
  b.enter(0, 310, waitall);
  b.isendComplete(0, 310, 42);
  b.leave(0, 320, waitall);
  b.enter(1, 290, irecv);
  b.irecvRequest(1, 290, 7);
  b.leave(1, 291, irecv);
  b.enter(1, 330, wait);
  b.recv(1, 335, 0, low, 5, 64, 7);
  b.leave(1, 340, wait);
  // Rank 2 sends to itself on SELF.
  b.enter(2, 400, isend);
  b.send(2, 401, 2, self, 1, 4, 9);
  b.leave(2, 402, isend);
  b.enter(2, 410, wait);
  b.recv(2, 411, 2, self, 1, 4, 0);
  b.isendComplete(2, 412, 9);
  b.leave(2, 420, wait);
  b.end();
  const Trace t = b.take();
  // 2 Bcasts on LOW + 2 on HIGH; messages 0 -> 1 and 2 -> 2.
  ASSERT_EQ(t.collectives.size(), 4u);
  ASSERT_EQ(t.messageStats.matched, 2u);
  for (const char* name : {"comms.alog", "comms-otf2"}) {
    const Trace back = throughFormat(t, name);
    std::string why;
    EXPECT_TRUE(t.sameModel(back, &why)) << name << ": " << why;
    EXPECT_EQ(back.collectives.size(), 4u) << name;
    EXPECT_EQ(back.messageStats.matched, 2u) << name;
  }
}

// An MPE file (no PerWiz records) still classifies by name, as before: "Send" and "BARRIER"
// are MPI calls, "compute" a user state; and the name-based reading survives ALOG -> OTF2 ->
// ALOG unchanged.
TEST(RoundTrip, MpeFilesWithoutPerWizRecordsClassifyByName) {
  const fs::path dir = test::freshDir("rt_mpe");
  const fs::path f = test::writeFile(dir / "mpe.alog",
                                     "-1 0 0 0 0 0 Me\n"
                                     "-3 0 0 1 0 0\n"
                                     "-13 0 11 12 0 0 yellow:dimple3 BARRIER\n"
                                     "-13 0 21 22 0 0 blue:gray3 Send\n"
                                     "-13 0 31 32 0 0 red: compute\n"
                                     "11 0 0 1 0 0 x\n"
                                     "12 0 0 2 0 5 y\n"
                                     "31 0 0 1 0 6\n"
                                     "21 0 0 1 0 7 comm=3 coll=MPI_Bcast:0:0:0:0\n"
                                     "22 0 0 2 0 8\n"
                                     "32 0 0 2 0 9\n");
  const Trace t = loadTrace(f.string());
  ASSERT_EQ(t.functions.size(), 3u);
  EXPECT_EQ(t.functions[0].kind, EventKind::MpiCall);  // BARRIER
  EXPECT_EQ(t.functions[0].op, MpiOp::Barrier);
  EXPECT_EQ(t.functions[1].kind, EventKind::MpiCall);  // Send
  EXPECT_EQ(t.functions[2].kind, EventKind::UserState);
  // The comment on Send's start event is MPE's, not a PerWiz token: no collective from it.
  EXPECT_EQ(t.collectives.size(), 1u);  // the BARRIER
  expectRoundTripKeepsTrace(f, dir, "mpe-otf2", "mpe-back.alog");
}

// Malformed PerWiz records are errors naming the file and the line, never silently skipped.
TEST(RoundTrip, MalformedPerWizRecordsAreErrors) {
  const fs::path dir = test::freshDir("rt_bad_ext");
  const std::string head = "-3 0 0 2 0 0\n-13 0 1 2 0 0 : MPI_Bcast\n";
  const struct {
    const char* name;
    std::string text;
    const char* problem;
  } cases[] = {
      {"version", head + "-60 0 0 2 0 0 PerWiz extension\n1 0 0 0 0 0\n2 0 0 0 0 1\n",
       "extension version 2"},
      {"kind", head + "-61 0 1 0 0 0 maybe\n1 0 0 0 0 0\n2 0 0 0 0 1\n", "state kind"},
      {"token", head + "-60 0 0 1 0 0 PerWiz extension\n1 0 0 0 0 0 coll=MPI_Bcast:0\n2 0 0 0 0 1\n",
       "bad PerWiz token"},
      {"comm", head + "-60 0 0 1 0 0 PerWiz extension\n1 0 0 0 0 0 coll=MPI_Bcast:4:0:0:0\n"
                      "2 0 0 0 0 1\n",
       "undefined communicator 4"},
      {"members", head + "-62 0 1 2 0 0 SUB\n-63 0 1 0 0 0 0 7\n1 0 0 0 0 0\n2 0 0 0 0 1\n",
       "member 7"},
      {"message", head + "-60 0 0 1 0 0 PerWiz extension\n1 0 0 0 0 0\n-101 0 0 1 0 0 1 8 comm=x\n"
                         "2 0 0 0 0 1\n",
       "message tokens"},
  };
  for (const auto& c : cases) {
    const fs::path f = test::writeFile(dir / (std::string(c.name) + ".alog"), c.text);
    try {
      loadTrace(f.string());
      ADD_FAILURE() << c.name << ": no TraceError";
    } catch (const TraceError& e) {
      const std::string what = e.what();
      EXPECT_NE(what.find(f.string()), std::string::npos) << what;
      EXPECT_NE(what.find(c.problem), std::string::npos) << what;
    }
  }
}

// A region of a paradigm other than MPI named like an MPI function is an MPI call (EZTrace 2.0
// defines its MPI regions so): without this the OTF2 reader saw user states with zero-length
// synthetic MPI calls inside, and ALOG (classifying by name) counted both, 13 -> 28 calls in
// the EZTrace trace.
TEST(RoundTrip, MpiPrefixedNamesAreMpiCalls) {
  EXPECT_TRUE(hasMpiPrefix("MPI_Send"));
  EXPECT_TRUE(hasMpiPrefix("PMPI_Comm_rank"));
  EXPECT_TRUE(hasMpiPrefix("mpi_send"));
  EXPECT_FALSE(hasMpiPrefix("MPI_"));
  EXPECT_FALSE(hasMpiPrefix("barrier"));
  EXPECT_FALSE(hasMpiPrefix("SEND"));
  EXPECT_FALSE(hasMpiPrefix("MPIX"));
}

void ok(OTF2_ErrorCode rc) {
  if (rc != OTF2_SUCCESS) ADD_FAILURE() << "libotf2: " << OTF2_Error_GetName(rc);
}
OTF2_FlushType preFlush(void*, OTF2_FileType, OTF2_LocationRef, void*, bool) { return OTF2_FLUSH; }
const OTF2_FlushCallbacks kFlush = {&preFlush, nullptr};

// An archive shaped like EZTrace 2.0's (as we understand it: its MPI regions have paradigm
// USER): 2 ranks, rank 0 MPI_Send [10, 12] ns with an MpiSend inside, rank 1 MPI_Recv [5, 16]
// ns with an MpiRecv inside, both inside "main" [0, 20].
void writeEztraceLikeArchive(const fs::path& dir) {
  OTF2_Archive* a = OTF2_Archive_Open(dir.c_str(), "traces", OTF2_FILEMODE_WRITE,
                                      OTF2_CHUNK_SIZE_EVENTS_DEFAULT,
                                      OTF2_CHUNK_SIZE_DEFINITIONS_DEFAULT, OTF2_SUBSTRATE_POSIX,
                                      OTF2_COMPRESSION_NONE);
  ASSERT_NE(a, nullptr);
  ok(OTF2_Archive_SetFlushCallbacks(a, &kFlush, nullptr));
  ok(OTF2_Archive_SetSerialCollectiveCallbacks(a));
  ok(OTF2_Archive_OpenEvtFiles(a));
  enum : OTF2_RegionRef { rSend, rRecv, rMain };
  OTF2_EvtWriter* w0 = OTF2_Archive_GetEvtWriter(a, 0);
  ok(OTF2_EvtWriter_Enter(w0, nullptr, 0, rMain));
  ok(OTF2_EvtWriter_Enter(w0, nullptr, 10, rSend));
  ok(OTF2_EvtWriter_MpiSend(w0, nullptr, 11, 1, 0, 5, 8));
  ok(OTF2_EvtWriter_Leave(w0, nullptr, 12, rSend));
  ok(OTF2_EvtWriter_Leave(w0, nullptr, 20, rMain));
  OTF2_EvtWriter* w1 = OTF2_Archive_GetEvtWriter(a, 1);
  ok(OTF2_EvtWriter_Enter(w1, nullptr, 0, rMain));
  ok(OTF2_EvtWriter_Enter(w1, nullptr, 5, rRecv));
  ok(OTF2_EvtWriter_MpiRecv(w1, nullptr, 15, 0, 0, 5, 8));
  ok(OTF2_EvtWriter_Leave(w1, nullptr, 16, rRecv));
  ok(OTF2_EvtWriter_Leave(w1, nullptr, 20, rMain));
  for (OTF2_EvtWriter* w : {w0, w1}) ok(OTF2_Archive_CloseEvtWriter(a, w));
  ok(OTF2_Archive_CloseEvtFiles(a));
  ok(OTF2_Archive_OpenDefFiles(a));
  for (OTF2_LocationRef l : {0, 1}) ok(OTF2_Archive_CloseDefWriter(a, OTF2_Archive_GetDefWriter(a, l)));
  ok(OTF2_Archive_CloseDefFiles(a));
  OTF2_GlobalDefWriter* g = OTF2_Archive_GetGlobalDefWriter(a);
  const char* strings[] = {"", "MPI_Send", "MPI_Recv", "main", "P0", "P1", "MPI_COMM_WORLD", "node"};
  for (OTF2_StringRef i = 0; i < std::size(strings); ++i) ok(OTF2_GlobalDefWriter_WriteString(g, i, strings[i]));
  ok(OTF2_GlobalDefWriter_WriteClockProperties(g, 1'000'000'000, 0, 20, OTF2_UNDEFINED_TIMESTAMP));
  for (OTF2_RegionRef r : {rSend, rRecv, rMain})
    ok(OTF2_GlobalDefWriter_WriteRegion(g, r, r + 1, r + 1, 0, OTF2_REGION_ROLE_FUNCTION,
                                        OTF2_PARADIGM_USER, OTF2_REGION_FLAG_NONE, 0, 0, 0));
  ok(OTF2_GlobalDefWriter_WriteSystemTreeNode(g, 0, 7, 7, OTF2_UNDEFINED_SYSTEM_TREE_NODE));
  for (std::uint32_t r = 0; r < 2; ++r) {
    ok(OTF2_GlobalDefWriter_WriteLocationGroup(g, r, 4 + r, OTF2_LOCATION_GROUP_TYPE_PROCESS, 0,
                                               OTF2_UNDEFINED_LOCATION_GROUP));
    ok(OTF2_GlobalDefWriter_WriteLocation(g, r, 4 + r, OTF2_LOCATION_TYPE_CPU_THREAD, 5, r));
  }
  const std::uint64_t members[] = {0, 1};
  ok(OTF2_GlobalDefWriter_WriteGroup(g, 0, 0, OTF2_GROUP_TYPE_COMM_LOCATIONS, OTF2_PARADIGM_MPI,
                                     OTF2_GROUP_FLAG_NONE, 2, members));
  ok(OTF2_GlobalDefWriter_WriteGroup(g, 1, 0, OTF2_GROUP_TYPE_COMM_GROUP, OTF2_PARADIGM_MPI,
                                     OTF2_GROUP_FLAG_NONE, 2, members));
  ok(OTF2_GlobalDefWriter_WriteComm(g, 0, 6, 1, OTF2_UNDEFINED_COMM, OTF2_COMM_FLAG_NONE));
  ok(OTF2_Archive_CloseGlobalDefWriter(a, g));
  ok(OTF2_Archive_Close(a));
}

// MPI regions of another paradigm: with the paradigm alone they were user states, each
// holding a zero-length synthetic MPI call for its record (6 events, 2 MPI calls), and ALOG,
// classifying the four states by name, made all four MPI calls: 2 -> 4 (the EZTrace
// trace: 13 -> 28). Now: 4 events, 2 MPI calls, in both formats.
TEST(RoundTrip, MpiRegionsOfAnotherParadigm) {
  const fs::path dir = test::freshDir("rt_eztrace");
  writeEztraceLikeArchive(dir / "ez");
  const Trace t = loadTrace((dir / "ez").string());
  EXPECT_EQ(t.eventCount(), 4u);
  EXPECT_EQ(t.mpiCallCount(), 2u);
  EXPECT_EQ(t.messageStats.matched, 1u);
  expectRoundTripKeepsTrace(dir / "ez", dir, "ez.alog", "ez-back");
}

// ---- 3. the writers write whatever the model holds --------------------------------------------

// Writes the model as OTF2 and as ALOG (both through emitTrace) and reads them back: the
// same model (`exact`) or at least the same events.
void expectWritable(const Trace& t, const std::string& name, bool exact) {
  for (const std::string ext : {".alog", "-otf2"}) {
    SCOPED_TRACE(name + ext);
    const fs::path p = test::freshDir("rt_w_" + name) / (name + ext);
    ASSERT_NO_THROW(saveTrace(t, p.string()));
    const Trace back = loadTrace(p.string());
    std::string why;
    if (exact) {
      EXPECT_TRUE(t.sameModel(back, &why)) << why;
    }
    EXPECT_EQ(back.eventCount(), t.eventCount());
    EXPECT_EQ(back.mpiCallCount(), t.mpiCallCount());
    EXPECT_EQ(back.endTime, t.endTime);
    for (std::size_t r = 0; r < t.rankCount(); ++r) {
      EXPECT_EQ(back.ranks[r].enter, t.ranks[r].enter) << "rank " << r;
      EXPECT_EQ(back.ranks[r].leave, t.ranks[r].leave) << "rank " << r;
    }
  }
}

// 5,255 states started and never ended, 250 nested on each of 20 ranks and 255 on a 21st
// (whose MPI_Send is then inside 255 states: the deepest nesting the model holds). The
// builder closes them at the trace end, so many leaves share one time.
TEST(WriterOrder, FiveThousandUnclosedStates) {
  TraceBuilder b("unclosed", "test");
  b.begin({21, {}});
  const auto work = b.defineFunction({"work", EventKind::UserState, MpiOp::None, ""});
  const auto send = b.defineFunction({"MPI_Send", EventKind::MpiCall, MpiOp::Send, ""});
  for (std::uint32_t r = 0; r < 21; ++r) {
    const TimeNs n = r < 20 ? 250 : 255;
    for (TimeNs i = 0; i < n; ++i) b.enter(r, 10 * i, work);
    b.enter(r, 5000, send);
    b.leave(r, 5001, send);
  }
  b.end();
  const Trace t = b.take();
  ASSERT_EQ(t.eventCount(), 20u * 251 + 256);
  // Every unclosed state ends at the trace end, 5001 ns; the send is at depth 255.
  EXPECT_EQ(t.ranks[20].leave[254], 5001);
  EXPECT_EQ(t.ranks[20].depth[255], 255);
  expectWritable(t, "unclosed", true);
}

// The case: 5,000 unclosed states nested on one rank, from an ALOG file through
// perwiz-cli. The reader refuses nesting deeper than the model holds (255 enclosing states);
// should it accept such a file, convert must keep every count.
TEST(WriterOrder, FiveThousandUnclosedStatesFromAlogThroughCli) {
  std::string text = "-3 0 0 1 0 0\n-13 0 1 2 0 0 : work\n";
  for (int i = 0; i < 5000; ++i) text += "1 0 0 0 0 " + std::to_string(i) + "\n";
  const fs::path dir = test::freshDir("rt_unclosed_cli");
  const fs::path f = test::writeFile(dir / "unclosed.alog", text);
  test::CliResult info = cli(dir, {"info", f.string()});
  if (info.status != 0) {
    EXPECT_NE(info.err.find("nesting deeper"), std::string::npos) << info.err;
    return;
  }
  convert(dir, f, dir / "unclosed-otf2");
  convert(dir, dir / "unclosed-otf2", dir / "unclosed-back.alog");
  EXPECT_EQ(infoCounts(dir, f), infoCounts(dir, dir / "unclosed-otf2"));
  EXPECT_EQ(infoCounts(dir, f), infoCounts(dir, dir / "unclosed-back.alog"));
}

// Nesting at the limit: 256 nested states (the innermost inside 255), every one closed, then
// siblings [400 + 10k, 405 + 10k] at depth 255 inside the 255th, then a state at depth 0.
TEST(WriterOrder, NestingAtTheLimit) {
  TraceBuilder b("deep", "test");
  b.begin({1, {}});
  const auto work = b.defineFunction({"work", EventKind::UserState, MpiOp::None, ""});
  const auto leaf = b.defineFunction({"leaf", EventKind::UserState, MpiOp::None, ""});
  for (TimeNs i = 0; i < 255; ++i) b.enter(0, i, work);
  for (TimeNs k = 0; k < 5; ++k) {
    b.enter(0, 400 + 10 * k, leaf);
    b.leave(0, 405 + 10 * k, leaf);
  }
  for (TimeNs i = 254; i >= 0; --i) b.leave(0, 1000 - i, work);
  b.enter(0, 2000, work);
  b.leave(0, 2001, work);
  b.end();
  const Trace t = b.take();
  ASSERT_EQ(t.eventCount(), 261u);
  EXPECT_EQ(t.ranks[0].depth[255], 255);  // the first leaf
  expectWritable(t, "deep", true);
}

// A model whose depths were saturated at 255 (built without the builder's nesting limit, as
// before it existed): 300 nested states, the inner 45 all stored at depth 255. Closing by the
// stored depth alone closed each at its leave (~1000 ns) before the next was entered (~256 ns):
// "Passed timestamp is smaller than last written one". The writers must write it in time order
// (reading it back is refused: the model cannot hold that nesting).
TEST(WriterOrder, SaturatedDepthsAreWrittenInTimeOrder) {
  Trace t;
  t.source = "saturated";
  t.format = "test";
  t.functions.push_back({"work", EventKind::UserState, MpiOp::None, ""});
  t.comms.push_back({"MPI_COMM_WORLD", {0}, false});
  t.ranks.resize(1);
  RankTrace& r = t.ranks[0];
  r.name = "rank 0";
  for (TimeNs i = 0; i < 300; ++i) {  // state i spans [i, 1000 - i]
    r.enter.push_back(i);
    r.leave.push_back(1000 - i);
    r.function.push_back(0);
    r.depth.push_back(static_cast<std::uint8_t>(std::min<TimeNs>(i, 255)));
  }
  t.endTime = 1000;
  for (const std::string ext : {".alog", "-otf2"}) {
    const fs::path p = test::freshDir("rt_saturated") / ("saturated" + ext);
    EXPECT_NO_THROW(saveTrace(t, p.string())) << ext;
  }
}

// A clock going backwards: the builder warns and re-sorts the rank's events, so the stored
// nesting no longer follows from the order; and improper nesting (A ends while B, entered
// inside it, is still open).
TEST(WriterOrder, TimeGoingBackwardsAndImproperNesting) {
  const fs::path dir = test::freshDir("rt_backwards");
  const fs::path f = test::writeFile(dir / "backwards.alog",
                                     "-3 0 0 2 0 0\n"
                                     "-13 0 1 2 0 0 : outer\n"
                                     "-13 0 3 4 0 0 : inner\n"
                                     "-13 0 5 6 0 0 : MPI_Send\n"
                                     // rank 0: outer [100, 200] holding inner entered at 50
                                     "1 0 0 0 0 100\n"
                                     "3 0 0 0 0 50\n"
                                     "4 0 0 0 0 60\n"
                                     "5 0 0 0 0 150\n"
                                     "-101 0 0 1 0 151 1 8\n"
                                     "6 0 0 0 0 40\n"
                                     "2 0 0 0 0 200\n"
                                     // rank 1: outer [0, 10], inner [5, 20]: improper nesting
                                     "1 1 0 0 0 0\n"
                                     "3 1 0 0 0 5\n"
                                     "2 1 0 0 0 10\n"
                                     "5 1 0 0 0 12\n"
                                     "-102 1 0 0 0 13 1 8\n"
                                     "6 1 0 0 0 14\n"
                                     "4 1 0 0 0 20\n");
  const Trace t = loadTrace(f.string());
  EXPECT_EQ(test::modelViolation(t), "");
  for (const std::string out : {"backwards-otf2", "backwards-2.alog"}) {
    test::CliResult r = cli(dir, {"convert", f.string(), (dir / out).string()});
    EXPECT_EQ(r.status, 0) << out << ": " << r.err;
    const Trace back = loadTrace((dir / out).string());
    EXPECT_EQ(back.eventCount(), t.eventCount()) << out;
    EXPECT_EQ(back.mpiCallCount(), t.mpiCallCount()) << out;
    EXPECT_EQ(back.messageStats.matched, t.messageStats.matched) << out;
    for (std::size_t r2 = 0; r2 < t.rankCount(); ++r2) {
      EXPECT_EQ(back.ranks[r2].enter, t.ranks[r2].enter) << out << " rank " << r2;
      EXPECT_EQ(back.ranks[r2].leave, t.ranks[r2].leave) << out << " rank " << r2;
    }
  }
}

}  // namespace

// ---- issue #38: empty ranks and extreme times through every writer ---------------------------

namespace {

// Writes `t` as `name` in a fresh directory: the trace read back, or the writer's refusal (and
// then nothing may be left in the directory).
struct Written {
  std::optional<Trace> back;
  std::string refusal;
};
Written writeAndRead(const Trace& t, const std::string& tag, const std::string& name) {
  const fs::path dir = test::freshDir("rt38_" + tag);
  const fs::path p = dir / name;
  Written w;
  try {
    saveTrace(t, p.string());
  } catch (const TraceError& e) {
    w.refusal = e.what();
    EXPECT_TRUE(fs::is_empty(dir)) << name << ": a refused write left files";
    return w;
  }
  w.back = loadTrace(p.string());
  return w;
}

}  // namespace

// A rank without any record — first, in the middle, last — and a trace whose every rank is empty
// (an ALOG of headers only): every writer's output reads back with the same ranks and counts
// (the OTF writer skipped the empty rank's stream, so its output was unreadable).
TEST(RoundTrip, EmptyRanksSurviveEveryWriter) {
  for (const std::vector<bool>& busy : std::vector<std::vector<bool>>{
           {false, true, true}, {true, false, true}, {true, true, false}, {false, false, false}}) {
    TraceBuilder b("empty-ranks", "test");
    b.begin({3, {}});
    const auto work = b.defineFunction({"work", EventKind::UserState, MpiOp::None, ""});
    const auto barrier = b.defineFunction({"MPI_Barrier", EventKind::MpiCall, MpiOp::Barrier, ""});
    std::vector<std::int32_t> members;
    for (std::uint32_t r = 0; r < 3; ++r)
      if (busy[r]) members.push_back(static_cast<std::int32_t>(r));
    const auto sub = members.size() >= 2 ? b.defineComm({"BUSY", members, false}) : 0u;
    for (std::uint32_t r = 0; r < 3; ++r) {
      if (!busy[r]) continue;
      b.enter(r, 10 * r, work);
      b.leave(r, 100, work);
      b.enter(r, 100, barrier);
      b.collective(r, 105, MpiOp::Barrier, sub, -1, 0, 0);
      b.leave(r, 110, barrier);
    }
    b.end();
    const Trace t = b.take();
    const std::string tag = std::to_string(busy[0]) + std::to_string(busy[1]) + std::to_string(busy[2]);
    for (const std::string name : {"t.alog", "t.otf", "t.otf2"}) {
      SCOPED_TRACE(tag + " " + name);
      const Written w = writeAndRead(t, tag, name);
      ASSERT_TRUE(w.back) << w.refusal;
      std::string why;
      EXPECT_TRUE(t.sameModel(*w.back, &why)) << why;
      EXPECT_EQ(w.back->rankCount(), 3u);
      EXPECT_EQ(w.back->eventCount(), t.eventCount());
      EXPECT_EQ(w.back->collectives.size(), t.collectives.size());
    }
  }
}

// Times at the edge of the model's range (int64 ns, up to 2^63 - 1 ≈ 292 years): each writer
// writes what its reader reads back to the same model, or refuses before writing, naming the
// time — never a file its own reader refuses (the ALOG writer wrote 2^63 - 1 ns, which its
// reader refused as out of range).
TEST(RoundTrip, ExtremeTimesReadBackOrAreRefused) {
  constexpr TimeNs kMax = std::numeric_limits<TimeNs>::max();
  for (const TimeNs end : {TimeNs(1) << 40, TimeNs(1) << 53, kMax / 1000, kMax - 1, kMax}) {
    TraceBuilder b("extreme", "test");
    b.begin({2, {}});
    const auto work = b.defineFunction({"work", EventKind::UserState, MpiOp::None, ""});
    for (std::uint32_t r = 0; r < 2; ++r) {
      b.enter(r, 0, work);
      b.leave(r, end - r, work);
    }
    b.end();
    const Trace t = b.take();
    for (const std::string name : {"t.alog", "t.otf", "t.otf2"}) {
      SCOPED_TRACE(std::to_string(end) + " " + name);
      const Written w = writeAndRead(t, std::to_string(end % 1000003), name);
      if (!w.back) {
        EXPECT_NE(w.refusal.find("time"), std::string::npos) << w.refusal;
        continue;
      }
      std::string why;
      EXPECT_TRUE(t.sameModel(*w.back, &why)) << why;
      EXPECT_EQ(w.back->endTime, end);
    }
  }
}

// Issue #38 item 5: converting a trace that loaded with warnings keeps what was loaded (a
// conversion once turned 2 collectives into 3). The bundled ALOG samples cut at 15 offsets
// each, every one that loads written in every format and read back: the same counts.
TEST(RoundTrip, WarnedTracesConvertToTheSameCounts) {
  std::size_t compared = 0;
  for (const fs::path& f : sampleAlogFiles()) {
    const std::string whole = test::readAll(f);
    for (std::size_t k = 1; k <= 15; ++k) {
      const std::size_t at = whole.size() * k / 16;
      const fs::path dir = test::freshDir("rt38_warned");
      const fs::path cut = dir / "cut.alog";
      test::writeFile(cut, whole.substr(0, at));
      std::optional<Trace> in;
      try {
        in = loadTrace(cut.string());
      } catch (const TraceError&) {
        continue;  // refused: nothing to convert
      }
      for (const std::string name : {"o.alog", "o.otf", "o.otf2"}) {
        SCOPED_TRACE(f.filename().string() + " cut at " + std::to_string(at) + " -> " + name);
        saveTrace(*in, (dir / name).string());
        const Trace back = loadTrace((dir / name).string());
        std::string why;
        if (name != "o.otf") {  // OTF 1 keeps no function colours (ALOG's): counts only
          EXPECT_TRUE(in->sameModel(back, &why)) << why;
        }
        EXPECT_EQ(back.collectives.size(), in->collectives.size());
        EXPECT_EQ(back.messageStats.matched, in->messageStats.matched);
        EXPECT_EQ(back.eventCount(), in->eventCount());
        ++compared;
      }
    }
  }
  EXPECT_GT(compared, 60u);
}
