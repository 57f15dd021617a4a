// OTF (version 1) traces (issue #17): reading what the reference library writes, writing what
// its tools and ViTE read, round trips through `perwiz-cli convert`, broken archives.
//
// 1. A trace written here with libotf's own writer API (processes, a thread, functions in the
//    MPI and an application group, enter/leave, send/recv, a CollectiveOperation, a Begin/End
//    collective pair, a marker, a comment, a counter), uncompressed and zlib-compressed: loaded
//    with the counts and times derived by hand below.
// 2. Round trips OTF2 -> OTF -> OTF2, ALOG -> OTF -> ALOG and OTF -> OTF2 -> OTF on the project's
//    samples (and on ../shared/traces when present): every count of `info --json` kept and
//    identity replay exact on the OTF versions.
// 3. `otfprint` reads every OTF we write, and ViTE exports it headless (where installed).
// 4. Broken archives: missing stream or definition files, a process without a stream, a
//    truncated stream, an anchor that is not OTF.
#include "cli_runner.h"
#include "info_counts.h"
#include "model_invariants.h"
#include "test_support.h"

#include "perwiz/replay.h"
#include "perwiz/trace_io.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <otf.h>
#include <zlib.h>

#include <filesystem>
#include <fstream>
#include <iostream>

namespace fs = std::filesystem;
using namespace perwiz;
using json = nlohmann::json;

namespace {

// ---- 1. the library's own writer ---------------------------------------------------------

// Timer resolution 10^6 ticks/s: one tick is 1 us = 1000 ns. The earliest record is at tick 100,
// so model time = (ticks - 100) * 1000 ns.
void writeLibraryTrace(const fs::path& stub, bool compressed, bool withThread = true) {
  OTF_FileManager* m = OTF_FileManager_open(16);
  ASSERT_NE(m, nullptr);
  OTF_Writer* w = OTF_Writer_open(stub.string().c_str(), 3, m);
  ASSERT_NE(w, nullptr);
  if (compressed) OTF_Writer_setCompression(w, OTF_FILECOMPRESSION_COMPRESSED);
  OTF_Writer_assignProcess(w, 1, 1);
  OTF_Writer_assignProcess(w, 2, 2);
  OTF_Writer_writeDefTimerResolution(w, 0, 1000000);
  OTF_Writer_writeDefProcess(w, 0, 1, "node0 rank0", 0);
  OTF_Writer_writeDefProcess(w, 0, 2, "node0 rank1", 0);
  if (withThread) {
    OTF_Writer_assignProcess(w, 3, 3);
    OTF_Writer_writeDefProcess(w, 0, 3, "rank0 thread1", 1);  // a thread of process 1
  }
  const std::uint32_t world[2] = {1, 2};
  OTF_Writer_writeDefProcessGroup(w, 0, 1, "MPI_COMM_WORLD", 2, world);
  OTF_Writer_writeDefFunctionGroup(w, 0, 1, "MPI");
  OTF_Writer_writeDefFunctionGroup(w, 0, 2, "Application");
  OTF_Writer_writeDefFunction(w, 0, 1, "MPI_Send", 1, 0);
  OTF_Writer_writeDefFunction(w, 0, 2, "MPI_Recv", 1, 0);
  OTF_Writer_writeDefFunction(w, 0, 3, "MPI_Allreduce", 1, 0);
  OTF_Writer_writeDefFunction(w, 0, 4, "compute", 2, 0);
  OTF_Writer_writeDefCollectiveOperation(w, 0, 1, "MPI_Allreduce", OTF_COLLECTIVE_TYPE_ALL2ALL);
  OTF_Writer_writeDefCounter(w, 0, 1, "PAPI_TOT_CYC", OTF_COUNTER_TYPE_ACC, 0, nullptr);
  OTF_Writer_writeDefMarker(w, 0, 1, "phase", OTF_MARKER_TYPE_HINT);
  // Rank 0 (process 1).
  OTF_Writer_writeEnter(w, 100, 4, 1, 0);
  OTF_Writer_writeCounter(w, 120, 1, 1, 12345);
  OTF_Writer_writeLeave(w, 150, 4, 1, 0);
  OTF_Writer_writeEnter(w, 150, 1, 1, 0);
  OTF_Writer_writeSendMsg(w, 151, 1, 2, 1, 7, 1024, 0);
  OTF_Writer_writeLeave(w, 160, 1, 1, 0);
  OTF_Writer_writeMarker(w, 170, 1, 1, "A");
  OTF_Writer_writeEventComment(w, 175, 1, "hello");
  OTF_Writer_writeEnter(w, 200, 3, 1, 0);
  OTF_Writer_writeCollectiveOperation(w, 200, 1, 1, 1, 0, 8, 8, 30, 0);
  OTF_Writer_writeLeave(w, 230, 3, 1, 0);
  // Rank 1 (process 2).
  OTF_Writer_writeEnter(w, 120, 2, 2, 0);
  OTF_Writer_writeRecvMsg(w, 158, 2, 1, 1, 7, 1024, 0);
  OTF_Writer_writeLeave(w, 158, 2, 2, 0);
  OTF_Writer_writeEnter(w, 210, 3, 2, 0);
  OTF_Writer_writeBeginCollectiveOperation(w, 210, 2, 1, 5, 1, 0, 8, 8, 0);
  OTF_Writer_writeEndCollectiveOperation(w, 230, 2, 5);
  OTF_Writer_writeLeave(w, 230, 3, 2, 0);
  // The thread (process 3): two records PerWiz does not model.
  if (withThread) {
    OTF_Writer_writeEnter(w, 130, 4, 3, 0);
    OTF_Writer_writeLeave(w, 140, 4, 3, 0);
  }
  ASSERT_NE(OTF_Writer_close(w), 0);
  OTF_FileManager_close(m);
}

bool hasWarning(const Trace& t, const std::string& text) {
  for (const auto& d : t.warnings)
    if (d.message.find(text) != std::string::npos) return true;
  return false;
}

void expectLibraryTrace(const Trace& t) {
  ASSERT_EQ(t.format, "otf");
  ASSERT_EQ(t.rankCount(), 2u);
  EXPECT_EQ(t.ranks[0].name, "node0 rank0");
  EXPECT_EQ(t.ranks[1].name, "node0 rank1");
  const RankTrace& r0 = t.ranks[0];
  const RankTrace& r1 = t.ranks[1];
  // Rank 0: compute [100,150], MPI_Send [150,160], marker phase@170 "A", comment@175,
  // MPI_Allreduce [200,230]  ->  (t - 100) * 1000 ns.
  ASSERT_EQ(r0.size(), 5u);
  EXPECT_EQ(r0.enter.toVector(), (std::vector<TimeNs>{0, 50000, 70000, 75000, 100000}));
  EXPECT_EQ(r0.leave.toVector(), (std::vector<TimeNs>{50000, 60000, 70000, 75000, 130000}));
  EXPECT_EQ(t.functions[r0.function[0]].name, "compute");
  EXPECT_EQ(t.functions[r0.function[0]].kind, EventKind::UserState);
  EXPECT_EQ(t.functions[r0.function[1]].name, "MPI_Send");
  EXPECT_EQ(t.functions[r0.function[1]].op, MpiOp::Send);
  EXPECT_EQ(t.functions[r0.function[2]].name, "phase");
  EXPECT_EQ(t.functions[r0.function[2]].kind, EventKind::Point);
  EXPECT_EQ(t.functions[r0.function[3]].name, "OTF comment");
  EXPECT_EQ(t.functions[r0.function[4]].op, MpiOp::Allreduce);
  ASSERT_EQ(r0.labels.size(), 2u);
  EXPECT_EQ(r0.labels[0].text, "A");
  EXPECT_EQ(r0.labels[1].text, "hello");
  // Rank 1: MPI_Recv [120,158], MPI_Allreduce [210,230].
  EXPECT_EQ(r1.enter.toVector(), (std::vector<TimeNs>{20000, 110000}));
  EXPECT_EQ(r1.leave.toVector(), (std::vector<TimeNs>{58000, 130000}));
  // One message 0 -> 1: tag 7, 1024 bytes, sent at tick 151 (51000 ns), received at 158.
  EXPECT_EQ(t.messageStats.matched, 1u);
  ASSERT_EQ(r0.messages.size(), 1u);
  const MessageEndpoint s = r0.messages[0];
  EXPECT_TRUE(s.isSend);
  EXPECT_EQ(s.peer, 1);
  EXPECT_EQ(s.tag, 7);
  EXPECT_EQ(s.bytes, 1024u);
  EXPECT_EQ(s.time, 51000);
  EXPECT_EQ(s.event, 1u);
  EXPECT_FALSE(s.nonBlocking());
  const MessageEndpoint rv = r1.messages[0];
  EXPECT_EQ(rv.time, 58000);
  EXPECT_EQ(rv.matchRank, 0u);
  // One Allreduce instance with both ranks: the CollectiveOperation record and the Begin/End pair.
  ASSERT_EQ(t.collectives.size(), 1u);
  EXPECT_EQ(t.collectives[0].op, MpiOp::Allreduce);
  EXPECT_EQ(t.collectives[0].participants, 2u);
  EXPECT_EQ(r0.collectives[0].bytesSent, 8u);
  EXPECT_EQ(r1.collectives[0].bytesReceived, 8u);
  EXPECT_EQ(r1.collectives[0].event, 1u);
  EXPECT_EQ(t.endTime, 130000);
  // Records in the file: every event and marker record, modelled or not (as for OTF2):
  // rank 0's 9 event records (3 Enter, 3 Leave, Counter, SendMsg, CollectiveOperation) and
  // its comment, rank 1's 7 (2 Enter, 2 Leave, RecvMsg, Begin/EndCollectiveOperation), the
  // thread's 2, the marker: 9 + 1 + 7 + 2 + 1 = 20. Blank lines are none.
  EXPECT_EQ(t.sourceRecords, 20u);
  // The thread (process 3, parent 1) is a thread row under rank 0 (issue #37): compute
  // [130, 140] -> [30000, 40000] ns, as measured.
  ASSERT_EQ(t.threads.size(), 1u);
  EXPECT_EQ(t.threads[0].rank, 0);
  EXPECT_EQ(t.threads[0].events.name, "rank0 thread1");
  EXPECT_EQ(t.threads[0].events.enter.toVector(), (std::vector<TimeNs>{30000}));
  EXPECT_EQ(t.threads[0].events.leave.toVector(), (std::vector<TimeNs>{40000}));
  EXPECT_EQ(t.functions[t.threads[0].events.function[0]].name, "compute");
  EXPECT_FALSE(hasWarning(t, "thread process(es)")) << test::modelViolation(t);
  // What the model does not hold is reported.
  EXPECT_TRUE(hasWarning(t, "1 counter record(s)"));
  EXPECT_EQ(test::modelViolation(t), "");
}

}  // namespace

TEST(OtfReader, LibraryWrittenTraceUncompressed) {
  const fs::path dir = test::freshDir("otf_lib_plain");
  writeLibraryTrace(dir / "lib", false);
  ASSERT_TRUE(fs::exists(dir / "lib.otf"));
  EXPECT_EQ(detectFormat((dir / "lib.otf").string()), TraceFormat::Otf);
  expectLibraryTrace(loadTrace((dir / "lib.otf").string()));
  LoadOptions single;
  single.pipelined = false;
  expectLibraryTrace(loadTrace((dir / "lib.otf").string(), single));
}

TEST(OtfReader, LibraryWrittenTraceCompressed) {
  const fs::path dir = test::freshDir("otf_lib_z");
  writeLibraryTrace(dir / "lib", true);
  ASSERT_TRUE(fs::exists(dir / "lib.1.events.z"));
  ASSERT_FALSE(fs::exists(dir / "lib.1.events"));
  expectLibraryTrace(loadTrace((dir / "lib.otf").string()));
}

// ---- 2. round trips ------------------------------------------------------------------------

namespace {

test::CliResult cli(const fs::path& dir, const std::vector<std::string>& args) {
  return test::runProgram(PERWIZ_CLI, dir, args);
}

json infoCounts(const fs::path& dir, const fs::path& trace) { return test::infoCounts(PERWIZ_CLI, dir, trace); }

void convert(const fs::path& dir, const fs::path& in, const fs::path& out) {
  test::convertTrace(PERWIZ_CLI, dir, in, out);
}

void expectIdentity(const fs::path& p) {
  const Trace t = loadTrace(p.string());
  EXPECT_EQ(test::modelViolation(t), "") << p;
  Replayer rp(t, Scenario{});
  // T is the ranks' latest leave (threads, drawn as measured, may end later: Trace::endTime).
  TimeNs ranksEnd = 0;
  for (const RankTrace& rt : t.ranks)
    if (rt.size()) ranksEnd = std::max(ranksEnd, rt.leave.maxValue());
  EXPECT_EQ(rp.predictedTime(), ranksEnd) << p;
  if (t.threads.empty()) {
    EXPECT_EQ(ranksEnd, t.endTime) << p;
  }
  std::uint64_t moved = 0;
  for (std::uint32_t r = 0; r < t.rankCount(); ++r) {
    const RankTrace& rt = t.ranks[r];
    for (std::uint32_t i = 0; i < rt.mpiCalls.size(); ++i) {
      const PredictedCall c = rp.predicted(r, i);
      moved += c.enter != rt.enter[rt.mpiCalls[i]] || c.leave != rt.leave[rt.mpiCalls[i]];
    }
  }
  EXPECT_EQ(moved, 0u) << p << ": identity replay moved calls";
}

// Debian's otfprint and ViTE, where installed, read an OTF we wrote without error.
void expectToolsRead(const fs::path& otf) {
  const fs::path dir = otf.parent_path();
  if (fs::exists("/usr/bin/otfprint")) {
    test::CliResult r = test::runProgram("/usr/bin/otfprint", dir, {otf.string()});
    EXPECT_EQ(r.status, 0) << otf << ": " << r.err;
    EXPECT_EQ(r.err.find("ERROR"), std::string::npos) << otf << ": " << r.err;
  }
  if (fs::exists("/usr/bin/vite")) {
    const fs::path svg = dir / (otf.stem().string() + ".vite.svg");
    setenv("QT_QPA_PLATFORM", "offscreen", 1);
    test::CliResult r = test::runProgram("/usr/bin/vite", dir, {fs::absolute(otf).string(), "-e", fs::absolute(svg).string()}, true);
    EXPECT_EQ(r.status, 0) << otf << ": " << r.err;
    EXPECT_TRUE(fs::exists(svg) && fs::file_size(svg) > 0) << svg;
  }
}

// in -> mid -> back: every count equal; the OTF one(s) replay exactly and the reference tools
// read the ones we wrote.
void expectRoundTrip(const fs::path& in, const fs::path& dir, const std::string& midName, const std::string& backName) {
  SCOPED_TRACE(in.string());
  const fs::path mid = dir / midName, back = dir / backName;
  convert(dir, in, mid);
  convert(dir, mid, back);
  const json a = infoCounts(dir, in), b = infoCounts(dir, mid), c = infoCounts(dir, back);
  EXPECT_EQ(a, b) << "converted: " << json::diff(a, b).dump();
  EXPECT_EQ(a, c) << "converted back: " << json::diff(a, c).dump();
  for (const fs::path& p : {mid, back})
    if (p.extension() == ".otf") {
      expectIdentity(p);
      expectToolsRead(p);
    }
}

const fs::path kSamples = PERWIZ_SAMPLE;

}  // namespace

TEST(OtfRoundTrip, SampleOtf2ThroughOtfAndBack) {
  const fs::path dir = test::freshDir("otf_rt_otf2");
  for (const char* a : {"binary_swap_8", "registration_8", "stencil_8"}) {
    expectRoundTrip(kSamples / a, dir, std::string(a) + ".otf", std::string(a) + "-back");
    // and the OTF version through OTF2 and back to OTF
    expectRoundTrip(dir / (std::string(a) + ".otf"), dir, std::string(a) + "-otf-otf2", std::string(a) + "-otf-back.otf");
  }
}

TEST(OtfRoundTrip, SampleAlogThroughOtfAndBack) {
  const fs::path dir = test::freshDir("otf_rt_alog");
  for (const char* f : {"ring4", "pipeline_8"}) {
    expectRoundTrip(kSamples / (std::string(f) + ".alog"), dir, std::string(f) + ".otf", std::string(f) + "-back.alog");
    expectRoundTrip(dir / (std::string(f) + ".otf"), dir, std::string(f) + "-otf-otf2", std::string(f) + "-otf-back.otf");
  }
}

TEST(OtfRoundTrip, OtfThroughOtf2AndBack) {
  const fs::path dir = test::freshDir("otf_rt_otf");
  writeLibraryTrace(dir / "lib", false, false);
  expectRoundTrip(dir / "lib.otf", dir, "lib-otf2", "lib-back.otf");
  // And a generated trace with non-blocking messages, written as OTF by `generate`.
  test::CliResult g = cli(dir, {"generate", (dir / "gen.otf").string(), "--ranks", "6", "--steps", "20",
                                 "--nonblocking", "--imbalance", "0.3"});
  ASSERT_EQ(g.status, 0) << g.err;
  expectIdentity(dir / "gen.otf");
  expectRoundTrip(dir / "gen.otf", dir, "gen-otf2", "gen-back.otf");
}

TEST(OtfRoundTrip, SharedTracesThroughOtf) {
  const auto archives = test::sharedOtf2Archives();
  const auto files = test::sharedAlogFiles();
  if (archives.empty() && files.empty()) GTEST_SKIP() << "shared traces absent (PERWIZ_SHARED_TRACES)";
  const fs::path dir = test::freshDir("otf_rt_shared");
  for (const auto& a : archives) {
    const std::string n = a.filename().string();
    expectRoundTrip(a, dir, n + ".otf", n + "-back");
    expectRoundTrip(dir / (n + ".otf"), dir, n + "-otf-otf2", n + "-otf-back.otf");
  }
  for (const auto& f : files) {
    const std::string n = f.filename().string();
    expectRoundTrip(f, dir, n + ".otf", n + "-back.alog");
    expectRoundTrip(dir / (n + ".otf"), dir, n + "-otf-otf2", n + "-otf-back.otf");
  }
}

// Issue #38: the VampirTrace archives (OTF 1) through OTF2 and back keep every count, threads
// included; through ALOG, which cannot hold threads, every count of the ranks, and convert
// says how many threads it did not write.
TEST(OtfRoundTrip, SharedOtf1ThroughOtf2AndAlog) {
  const fs::path root = test::sharedTraces();
  if (root.empty() || !fs::is_directory(root / "otf1")) GTEST_SKIP() << "shared traces absent (PERWIZ_SHARED_TRACES)";
  const fs::path dir = test::freshDir("otf_rt_shared_otf1");
  for (const auto& e : fs::directory_iterator(root / "otf1")) {
    if (!e.is_directory()) continue;
    const fs::path in = e.path() / "wrf.otf";
    if (!fs::exists(in)) continue;
    const std::string n = e.path().filename().string();
    expectRoundTrip(in, dir, n + "-otf2", n + "-otf2-back.otf");
    SCOPED_TRACE(n + " through ALOG");
    const fs::path alog = dir / (n + ".alog"), back = dir / (n + "-alog-back.otf");
    const test::CliResult r = cli(dir, {"convert", in.string(), alog.string()});
    ASSERT_EQ(r.status, 0) << r.err;
    convert(dir, alog, back);
    json a = infoCounts(dir, in), b = infoCounts(dir, alog), c = infoCounts(dir, back);
    const std::size_t threads = a["threads"].get<std::size_t>();
    if (threads > 0) {
      EXPECT_NE(r.err.find(std::to_string(threads) + " thread(s) not written"), std::string::npos) << r.err;
    }
    for (json* j : {&a, &b, &c})
      for (const char* k : {"threads", "thread_events", "per_thread"}) j->erase(k);
    EXPECT_EQ(a, b) << json::diff(a, b).dump();
    EXPECT_EQ(a, c) << json::diff(a, c).dump();
  }
}

// ---- 3. the reference tools read what we write --------------------------------------------

TEST(OtfWriter, OtfprintAndViteReadWhatWeWrite) {
  const bool otfprint = fs::exists("/usr/bin/otfprint"), vite = fs::exists("/usr/bin/vite");
  if (!otfprint && !vite) GTEST_SKIP() << "otfprint and vite not installed";
  const fs::path dir = test::freshDir("otf_tools");
  std::vector<fs::path> written;
  for (const char* a : {"binary_swap_8", "stencil_8"}) {
    convert(dir, kSamples / a, dir / (std::string(a) + ".otf"));
    written.push_back(dir / (std::string(a) + ".otf"));
  }
  convert(dir, kSamples / "ring4.alog", dir / "ring4.otf");
  written.push_back(dir / "ring4.otf");
  for (const fs::path& p : written) {
    if (otfprint) {
      test::CliResult r = test::runProgram("/usr/bin/otfprint", dir, {p.string()});
      EXPECT_EQ(r.status, 0) << p << ": " << r.err;
      EXPECT_NE(r.out.find("Enter"), std::string::npos) << p;
      EXPECT_NE(r.out.find("SendMessage"), std::string::npos) << p;
      EXPECT_EQ(r.err.find("ERROR"), std::string::npos) << p << ": " << r.err;
    }
    if (vite) {
      const fs::path svg = dir / (p.stem().string() + ".svg");
      setenv("QT_QPA_PLATFORM", "offscreen", 1);
      test::CliResult r = test::runProgram("/usr/bin/vite", dir, {fs::absolute(p).string(), "-e", fs::absolute(svg).string()}, true);
      EXPECT_EQ(r.status, 0) << p << ": " << r.err;
      EXPECT_TRUE(fs::exists(svg) && fs::file_size(svg) > 0) << svg;
    }
  }
}

TEST(OtfWriter, NeverOverwrites) {
  const fs::path dir = test::freshDir("otf_nooverwrite");
  convert(dir, kSamples / "ring4.alog", dir / "a.otf");
  // Any file of the archive already there stops the writer: here only a stream file.
  test::writeFile(dir / "b.2.events", "mine\n");
  test::CliResult r = cli(dir, {"convert", (kSamples / "ring4.alog").string(), (dir / "b.otf").string()});
  EXPECT_NE(r.status, 0);
  EXPECT_NE(r.err.find("b.2.events"), std::string::npos) << r.err;
  EXPECT_EQ(test::readAll(dir / "b.2.events"), "mine\n");
  EXPECT_FALSE(fs::exists(dir / "b.otf"));
  r = cli(dir, {"convert", (kSamples / "ring4.alog").string(), (dir / "a.otf").string()});
  EXPECT_NE(r.status, 0);
  EXPECT_NE(r.err.find("already exists"), std::string::npos) << r.err;
}

// ---- 4. broken archives --------------------------------------------------------------------

namespace {
std::string loadError(const fs::path& p) {
  try {
    loadTrace(p.string());
  } catch (const TraceError& e) {
    return e.what();
  }
  return "";
}
}  // namespace

TEST(OtfReader, MissingStreamFile) {
  const fs::path dir = test::freshDir("otf_missing_stream");
  writeLibraryTrace(dir / "lib", false);
  fs::remove(dir / "lib.2.events");
  const std::string e = loadError(dir / "lib.otf");
  EXPECT_NE(e.find("lib.otf"), std::string::npos) << e;
  EXPECT_NE(e.find("lib.2.events"), std::string::npos) << e;
  EXPECT_NE(e.find("missing"), std::string::npos) << e;
}

TEST(OtfReader, MissingDefinitions) {
  const fs::path dir = test::freshDir("otf_missing_def");
  writeLibraryTrace(dir / "lib", false);
  fs::remove(dir / "lib.0.def");
  // X.otf of stream lines without its definitions: an OTF archive missing a file, named
  // (issue #38 item 8: it was "unknown trace format").
  const std::string e = loadError(dir / "lib.otf");
  EXPECT_NE(e.find("lib.otf: the definition file "), std::string::npos) << e;
  EXPECT_NE(e.find("lib.0.def is missing"), std::string::npos) << e;
}

TEST(OtfReader, TruncatedStreamIsAnErrorOrReported) {
  const fs::path dir = test::freshDir("otf_truncated");
  writeLibraryTrace(dir / "lib", false);
  // Cut rank 0's stream in the middle of a record.
  const std::string text = test::readAll(dir / "lib.1.events");
  ASSERT_GT(text.size(), 40u);
  test::writeFile(dir / "lib.1.events", text.substr(0, text.size() / 2 + 3));
  try {
    const Trace t = loadTrace((dir / "lib.otf").string());
    // Whatever the library could read is a consistent model, and the loss is visible.
    EXPECT_EQ(test::modelViolation(t), "");
    EXPECT_FALSE(t.warnings.empty());
    EXPECT_LT(t.ranks[0].size(), 5u);
  } catch (const TraceError& e) {
    EXPECT_NE(std::string(e.what()).find("lib.otf"), std::string::npos) << e.what();
  }
}

TEST(OtfReader, MalformedMasterControlLineBeyondTheDetectionWindow) {
  const fs::path dir = test::freshDir("otf_bad_master");
  writeLibraryTrace(dir / "lib", false);
  // Detection judges the first 4 KiB only: 1100 valid lines (4400 bytes), then a bad one.
  std::string text;
  for (int i = 0; i < 1100; ++i) text += "1:1\n";
  text += "2:zz\n";
  test::writeFile(dir / "lib.otf", text);
  EXPECT_EQ(detectFormat((dir / "lib.otf").string()), TraceFormat::Otf);
  const std::string e = loadError(dir / "lib.otf");
  EXPECT_NE(e.find("lib.otf"), std::string::npos) << e;
  EXPECT_NE(e.find("line 1101 of the master control file"), std::string::npos) << e;
}

TEST(OtfReader, TextThatIsNotOtf) {
  const fs::path dir = test::freshDir("otf_not");
  // A master control file without definitions beside it is an OTF archive missing a file;
  // the same lines under another name are not taken for one.
  test::writeFile(dir / "x.otf", "1:1\n");
  EXPECT_EQ(detectFormat((dir / "x.otf").string()), TraceFormat::Otf);
  test::writeFile(dir / "x.txt", "1:1\n");
  EXPECT_EQ(detectFormat((dir / "x.txt").string()), TraceFormat::Unknown);
  // Definitions present but the anchor's lines are not stream:process.
  writeLibraryTrace(dir / "y", false);
  test::writeFile(dir / "y.otf", "hello world\n");
  EXPECT_EQ(detectFormat((dir / "y.otf").string()), TraceFormat::Unknown);
}

// ---- 5. traces as other tools write them (issue #37) ---------------------------------------

namespace {

// A long trace of 2 ranks written by libotf: per rank `steps` iterations of
// compute [10 s, 10 s + 6) (every 7th enter with a key-value list), MPI_Send/MPI_Recv of 64 B
// to the other rank [10 s + 6, 10 s + 9), ticks in µs (resolution 10^6).
// Each iteration writes 4 enter/leave records, one message record and its time lines: about
// 30 B of text per iteration and rank, so 200 000 steps make streams of about 6 MB, more
// than one 4 MiB chunk, and zlib-compressed far above the 4 KiB that libotf 1.12.5 reads.
void writeLongTrace(const fs::path& stub, bool compressed, std::uint32_t steps) {
  OTF_FileManager* m = OTF_FileManager_open(16);
  ASSERT_NE(m, nullptr);
  OTF_Writer* w = OTF_Writer_open(stub.string().c_str(), 2, m);
  ASSERT_NE(w, nullptr);
  if (compressed) OTF_Writer_setCompression(w, OTF_FILECOMPRESSION_COMPRESSED);
  OTF_Writer_assignProcess(w, 1, 1);
  OTF_Writer_assignProcess(w, 2, 2);
  OTF_Writer_writeDefTimerResolution(w, 0, 1000000);
  OTF_Writer_writeDefProcess(w, 0, 1, "rank 0", 0);
  OTF_Writer_writeDefProcess(w, 0, 2, "rank 1", 0);
  OTF_Writer_writeDefFunctionGroup(w, 0, 1, "MPI");
  OTF_Writer_writeDefFunctionGroup(w, 0, 2, "Application");
  OTF_Writer_writeDefFunction(w, 0, 1, "MPI_Send", 1, 0);
  OTF_Writer_writeDefFunction(w, 0, 2, "MPI_Recv", 1, 0);
  OTF_Writer_writeDefFunction(w, 0, 3, "compute", 2, 0);
  OTF_Writer_writeDefKeyValue(w, 0, 1, OTF_INT32, "iteration", "the loop's counter");
  OTF_KeyValueList* kv = OTF_KeyValueList_new();
  for (std::uint32_t p = 1; p <= 2; ++p) {
    const std::uint32_t peer = 3 - p;
    for (std::uint32_t i = 0; i < steps; ++i) {
      const std::uint64_t t = 10ull * i + 100;
      if (i % 7 == 0) {
        OTF_KeyValueList_appendInt32(kv, 1, static_cast<std::int32_t>(i));
        OTF_Writer_writeEnterKV(w, t, 3, p, 0, kv);
      } else {
        OTF_Writer_writeEnter(w, t, 3, p, 0);
      }
      OTF_Writer_writeLeave(w, t + 6, 3, p, 0);
      // Rank 0 sends in even iterations, rank 1 in odd ones; the other receives.
      const bool sends = (i % 2) == (p - 1);
      OTF_Writer_writeEnter(w, t + 6, sends ? 1 : 2, p, 0);
      if (sends) OTF_Writer_writeSendMsg(w, t + 6, p, peer, 0, 0, 64, 0);
      else OTF_Writer_writeRecvMsg(w, t + 9, p, peer, 0, 0, 64, 0);
      OTF_Writer_writeLeave(w, t + 9, sends ? 1 : 2, p, 0);
    }
  }
  OTF_KeyValueList_close(kv);
  ASSERT_NE(OTF_Writer_close(w), 0);
  OTF_FileManager_close(m);
}

}  // namespace

TEST(OtfReader, CompressedStreamsOfAnySizeReadLikeTheirPlainCopies) {
  const fs::path dir = test::freshDir("otf_long");
  constexpr std::uint32_t kSteps = 200000;
  writeLongTrace(dir / "plain", false, kSteps);
  writeLongTrace(dir / "z", true, kSteps);
  ASSERT_TRUE(fs::exists(dir / "z.1.events.z"));
  EXPECT_GT(fs::file_size(dir / "z.1.events.z"), 64u * 1024) << "the compressed stream must be far above 4 KiB";
  EXPECT_GT(fs::file_size(dir / "plain.1.events"), std::uintmax_t{5} << 20) << "more than one 4 MiB chunk";
  const Trace plain = loadTrace((dir / "plain.otf").string());
  const Trace z = loadTrace((dir / "z.otf").string());
  std::string why;
  EXPECT_TRUE(plain.sameModel(z, &why)) << why;
  EXPECT_EQ(plain.sourceRecords, z.sourceRecords);
  EXPECT_EQ(plain.warnings.size(), z.warnings.size());
  for (const Trace* t : {&plain, &z}) {
    // Per rank and iteration: compute and one MPI call = 2 events; 2 enters + 2 leaves + 1
    // message record = 5 records.
    ASSERT_EQ(t->rankCount(), 2u);
    EXPECT_EQ(t->ranks[0].size(), 2u * kSteps);
    EXPECT_EQ(t->ranks[1].size(), 2u * kSteps);
    EXPECT_EQ(t->sourceRecords, 2ull * 5 * kSteps);
    EXPECT_EQ(t->messageStats.matched, kSteps);
    EXPECT_EQ(t->messageStats.unmatchedSends + t->messageStats.unmatchedReceives, 0u);
    EXPECT_TRUE(t->warnings.empty()) << t->warnings.front().toString();
    // Times: (ticks - 100) µs; the last call of each rank leaves at 10 (steps - 1) + 9 µs.
    EXPECT_EQ(t->ranks[1].enter[1], 6000);
    EXPECT_EQ(t->endTime, (10ll * (kSteps - 1) + 9) * 1000);
    EXPECT_EQ(test::modelViolation(*t), "");
  }
}

TEST(OtfReader, CutOrCorruptCompressedStreamIsRefusedWithItsFile) {
  const fs::path dir = test::freshDir("otf_z_broken");
  writeLongTrace(dir / "cut", true, 20000);
  const fs::path stream = dir / "cut.2.events.z";
  std::string bytes = test::readAll(stream);
  ASSERT_GT(bytes.size(), 10000u);
  test::writeFile(stream, bytes.substr(0, bytes.size() / 2 + 1));
  std::string e = loadError(dir / "cut.otf");
  EXPECT_NE(e.find("cut.2.events.z"), std::string::npos) << e;
  // Corrupt: a run of 0xFF bytes in the middle of the deflate data.
  writeLongTrace(dir / "bad", true, 20000);
  const fs::path badStream = dir / "bad.1.events.z";
  bytes = test::readAll(badStream);
  for (std::size_t i = bytes.size() / 2; i < bytes.size() / 2 + 64; ++i) bytes[i] = '\xFF';
  test::writeFile(badStream, bytes);
  e = loadError(dir / "bad.otf");
  EXPECT_NE(e.find("bad.1.events.z"), std::string::npos) << e;
}

TEST(OtfReader, TrailingBlankLinesAreNotRecords) {
  const fs::path dir = test::freshDir("otf_blank");
  writeLibraryTrace(dir / "lib", false);
  test::writeFile(dir / "lib.1.events", test::readAll(dir / "lib.1.events") + "\n\n  \n");
  const Trace t = loadTrace((dir / "lib.otf").string());
  expectLibraryTrace(t);
  EXPECT_FALSE(hasWarning(t, "could not parse"));
}

// VampirTrace's non-blocking pattern (issue #37): the SendMsg inside MPI_Isend or MPI_Start,
// the RecvMsg inside the MPI_Waitall that completed the receive, no request ids (OTF 1 has
// none). Two ranks, each iteration i (ticks in µs, resolution 10^6):
//   MPI_Isend [t, t+2] (SendMsg of 32 KiB at t+1; MPI_Start in odd iterations)
//   MPI_Irecv [t+3, t+4]
//   MPI_Waitall [t+5, t+5000 + rank] (RecvMsg from the other rank at its leave)
// with t = 10^4 i + 100: 5 ms in the Waitall is longer than any preset takes for 32 KiB
// (so no dependency is skewed). 32 KiB is above the presets' eager limit: read as blocking sends, each
// Isend waited for its receiver's Waitall, which comes after the receiver's own Isend — a
// rendezvous cycle in every iteration. Read as what it is (a send posted in the Isend whose
// completion is not recorded, a receive completed in the Waitall whose post is not), no
// send waits for its receiver: no cycle, no skew, and the identity replay is exact.
void writeIsendWaitTrace(const fs::path& stub, std::uint32_t steps) {
  OTF_FileManager* m = OTF_FileManager_open(16);
  ASSERT_NE(m, nullptr);
  OTF_Writer* w = OTF_Writer_open(stub.string().c_str(), 2, m);
  ASSERT_NE(w, nullptr);
  OTF_Writer_assignProcess(w, 1, 1);
  OTF_Writer_assignProcess(w, 2, 2);
  OTF_Writer_writeDefTimerResolution(w, 0, 1000000);
  OTF_Writer_writeDefProcess(w, 0, 1, "rank 0", 0);
  OTF_Writer_writeDefProcess(w, 0, 2, "rank 1", 0);
  const std::uint32_t world[2] = {1, 2};
  OTF_Writer_writeDefProcessGroup(w, 0, 1, "MPI_COMM_WORLD", 2, world);
  OTF_Writer_writeDefFunctionGroup(w, 0, 1, "MPI");
  OTF_Writer_writeDefFunction(w, 0, 1, "MPI_Isend", 1, 0);
  OTF_Writer_writeDefFunction(w, 0, 2, "MPI_Irecv", 1, 0);
  OTF_Writer_writeDefFunction(w, 0, 3, "MPI_Waitall", 1, 0);
  OTF_Writer_writeDefFunction(w, 0, 4, "MPI_Start", 1, 0);
  for (std::uint32_t p = 1; p <= 2; ++p)
    for (std::uint32_t i = 0; i < steps; ++i) {
      const std::uint64_t t = 10000ull * i + 100;
      const std::uint32_t post = i % 2 ? 4 : 1;
      OTF_Writer_writeEnter(w, t, post, p, 0);
      OTF_Writer_writeSendMsg(w, t + 1, p, 3 - p, 1, 5, 32768, 0);
      OTF_Writer_writeLeave(w, t + 2, post, p, 0);
      OTF_Writer_writeEnter(w, t + 3, 2, p, 0);
      OTF_Writer_writeLeave(w, t + 4, 2, p, 0);
      OTF_Writer_writeEnter(w, t + 5, 3, p, 0);
      OTF_Writer_writeRecvMsg(w, t + 5000 + p, p, 3 - p, 1, 5, 32768, 0);
      OTF_Writer_writeLeave(w, t + 5000 + p, 3, p, 0);
    }
  ASSERT_NE(OTF_Writer_close(w), 0);
  OTF_FileManager_close(m);
}

TEST(OtfReader, NonBlockingCallsWithoutRequestIdsAreHalfRecordedRequests) {
  const fs::path dir = test::freshDir("otf_isend");
  constexpr std::uint32_t kSteps = 50;
  writeIsendWaitTrace(dir / "nb", kSteps);
  const Trace t = loadTrace((dir / "nb.otf").string());
  ASSERT_EQ(t.rankCount(), 2u);
  EXPECT_EQ(t.messageStats.matched, 2u * kSteps);
  EXPECT_TRUE(t.warnings.empty()) << t.warnings.front().toString();
  for (std::uint32_t r = 0; r < 2; ++r) {
    const RankTrace& rt = t.ranks[r];
    ASSERT_EQ(rt.messages.size(), 2u * kSteps);
    for (std::size_t j = 0; j < rt.messages.size(); ++j) {
      const MessageEndpoint m = rt.messages[j];
      // Iteration i's calls are events 3i (Isend/Start), 3i + 1 (Irecv), 3i + 2 (Waitall).
      const std::uint32_t i = static_cast<std::uint32_t>(j / 2);
      EXPECT_TRUE(m.nonBlocking()) << r << " " << j;
      EXPECT_TRUE(m.halfRecorded()) << r << " " << j;
      EXPECT_EQ(m.event, m.isSend ? 3 * i : 3 * i + 2) << r << " " << j;
      EXPECT_EQ(m.bytes, 32768u);
    }
  }
  EXPECT_EQ(test::modelViolation(t), "");
  for (const char* preset : {"myrinet-score", "ethernet-table5", "myrinet-table5"})
    for (const CostMode costs : {CostMode::Measured, CostMode::Model}) {
      Scenario sc;
      sc.model = networkPreset(preset);
      sc.costs = costs;
      ASSERT_NE(sc.model, nullptr) << preset;
      Replayer rp(t, sc);
      EXPECT_EQ(rp.report().brokenCycles, 0u) << preset << " " << costModeName(costs);
      EXPECT_EQ(rp.report().skewedDependencies, 0u) << preset << " " << costModeName(costs);
      if (costs == CostMode::Measured) {
        EXPECT_EQ(rp.predictedTime(), t.endTime) << preset;  // identity
      }
    }
  expectIdentity(dir / "nb.otf");
  // The endpoints survive conversions: OTF2 keeps them as requests posted and completed in
  // one call, OTF writes them back as VampirTrace did.
  expectRoundTrip(dir / "nb.otf", dir, "nb-otf2", "nb-back.otf");
  const Trace back = loadTrace((dir / "nb-otf2").string());
  std::string why;
  EXPECT_TRUE(t.sameModel(back, &why)) << why;
  EXPECT_TRUE(back.warnings.empty()) << back.warnings.front().toString();
}

TEST(OtfReader, ProcessWithoutStreamIsAnEmptyRankNamedInAWarning) {
  const fs::path dir = test::freshDir("otf_no_stream2");
  writeLibraryTrace(dir / "lib", false, false);
  // Process 2 (rank 1) recorded nothing: the master control file gives it no stream.
  test::writeFile(dir / "lib.otf", "1:1\n");
  const Trace t = loadTrace((dir / "lib.otf").string());
  ASSERT_EQ(t.rankCount(), 2u);
  EXPECT_EQ(t.ranks[0].size(), 5u);
  EXPECT_EQ(t.ranks[1].size(), 0u);
  EXPECT_TRUE(hasWarning(t, "process 2 ('node0 rank1')")) << (t.warnings.empty() ? "" : t.warnings.front().toString());
}

// The shared VampirTrace archives (../shared/traces/otf1; skipped when absent).
namespace {
// The default model's replay of a trace with VampirTrace's non-blocking pattern, measured and
// model costs: no rendezvous cycle, clock skew on at most 1 % of the messages, identity exact.
void expectNoCycleFewSkews(const Trace& t) {
  for (const CostMode costs : {CostMode::Measured, CostMode::Model}) {
    Scenario sc;
    sc.costs = costs;
    Replayer rp(t, sc);
    EXPECT_EQ(rp.report().brokenCycles, 0u) << costModeName(costs);
    EXPECT_LE(rp.report().skewedDependencies * 100, t.messageStats.matched) << costModeName(costs);
    if (costs == CostMode::Measured) {
      EXPECT_EQ(rp.predictedTime(), t.endTime);
    }
  }
}
fs::path sharedOtf(const char* name) { return test::sharedTraces() / "otf1" / name / "wrf.otf"; }
}  // namespace

// vampirtrace-wrf-hybrid-4x3's streams are zlib-compressed (160-630 KB each), which Debian's
// libotf cannot read itself: the model equals that of the copies otfdecompress inflates.
TEST(OtfShared, CompressedHybridTraceEqualsItsDecompressedCopy) {
  const fs::path anchor = sharedOtf("vampirtrace-wrf-hybrid-4x3");
  if (!fs::exists(anchor)) GTEST_SKIP() << "shared traces absent (PERWIZ_SHARED_TRACES)";
  if (!fs::exists("/usr/bin/otfdecompress")) GTEST_SKIP() << "otfdecompress not installed";
  const fs::path dir = test::freshDir("otf_shared_hybrid");
  for (const auto& e : fs::directory_iterator(anchor.parent_path())) {
    const std::string n = e.path().filename().string();
    if (n == "wrf.otf" || n == "wrf.0.def") fs::copy_file(e.path(), dir / n);
    if (n.size() > 2 && n.compare(n.size() - 2, 2, ".z") == 0) {
      test::CliResult r = test::runProgram("/usr/bin/otfdecompress", dir, {"-o", dir.string(), e.path().string()});
      ASSERT_EQ(r.status, 0) << n << ": " << r.err;
    }
  }
  ASSERT_TRUE(fs::exists(dir / "wrf.1.events"));
  const Trace z = loadTrace(anchor.string());
  const Trace plain = loadTrace((dir / "wrf.otf").string());
  std::string why;
  EXPECT_TRUE(z.sameModel(plain, &why)) << why;
  EXPECT_EQ(z.sourceRecords, plain.sourceRecords);
  ASSERT_EQ(z.warnings.size(), plain.warnings.size());
  for (std::size_t i = 0; i < z.warnings.size(); ++i) EXPECT_EQ(z.warnings[i].message, plain.warnings[i].message);
  EXPECT_EQ(z.rankCount(), 4u);
  EXPECT_GT(z.eventCount(), 80000u);  // the ranks' events (the equality above is the check)
  EXPECT_EQ(test::modelViolation(z), "");
}

// vampirtrace-wrf-16 (25 680 messages, Isend/Irecv/Waitall as VampirTrace writes them): no
// rendezvous cycle, clock skew on at most 1 % of the messages, identity replay exact.
TEST(OtfShared, VampirTraceNonBlockingPatternReplaysWithoutCycles) {
  const fs::path anchor = sharedOtf("vampirtrace-wrf-16");
  if (!fs::exists(anchor)) GTEST_SKIP() << "shared traces absent (PERWIZ_SHARED_TRACES)";
  const Trace t = loadTrace(anchor.string());
  ASSERT_EQ(t.rankCount(), 16u);
  EXPECT_GT(t.messageStats.matched, 25000u);
  expectNoCycleFewSkews(t);
  expectIdentity(anchor);
}

// An OTF archive is opened through its master control file, its directory, or any of its
// files (issue #37): the same trace each time.
TEST(OtfReader, AnyFileOfTheArchiveOrItsDirectoryOpensIt) {
  const fs::path dir = test::freshDir("otf_any_file");
  writeLibraryTrace(dir / "lib", false);
  fs::create_directories(dir / "z");
  writeLongTrace(dir / "z" / "run", true, 10);
  for (const fs::path& p : {dir / "lib.0.def", dir / "lib.1.events", dir / "lib.0.marker"}) {
    ASSERT_TRUE(fs::exists(p)) << p;
    EXPECT_EQ(detectFormat(p.string()), TraceFormat::Otf) << p;
    expectLibraryTrace(loadTrace(p.string()));
  }
  for (const fs::path& p : {dir / "z", dir / "z" / "run.2.events.z", dir / "z" / "run.0.def.z"}) {
    EXPECT_EQ(detectFormat(p.string()), TraceFormat::Otf) << p;
    EXPECT_EQ(loadTrace(p.string()).eventCount(), 2u * 2 * 10) << p;
  }
  // The CLI too.
  const test::CliResult r = cli(dir, {"info", (dir / "z").string()});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("otf"), std::string::npos) << r.out;
  // A directory with two archives asks which.
  writeLongTrace(dir / "z" / "other", false, 10);
  const std::string e = loadError(dir / "z");
  EXPECT_NE(e.find("2 OTF archives"), std::string::npos) << e;
}

// The same pattern at 10^6 events (issue #37): a generated non-blocking ring with 64 KiB
// messages (above the default model's eager limit S = 16383 B) written as OTF, where the
// writer puts each SendMsg in its MPI_Isend and each RecvMsg in its MPI_Waitall as VampirTrace
// does. Read back: no rendezvous cycle, clock skew on at most 1 % of the messages, identity
// replay exact.
TEST(OtfReader, GeneratedNonBlockingRingAtAMillionEvents) {
  const fs::path dir = test::freshDir("otf_nb_1e6");
  const fs::path out = dir / "ring.otf";
  const test::CliResult g = cli(dir, {"generate", out.string(), "--ranks", "16", "--events", "1000000", "--nonblocking",
                                       "--bytes", "65536", "--imbalance", "0.3"});
  ASSERT_EQ(g.status, 0) << g.err;
  const Trace t = loadTrace(out.string());
  EXPECT_GE(t.eventCount(), 900000u);
  EXPECT_GT(t.messageStats.matched, 100000u);
  expectNoCycleFewSkews(t);
}

// A stream compressed with zlib's stream end (Z_FINISH, as `gzip`-style tools and zlib's own
// compress() write it) rather than libotf's sync flush, and one made of two zlib streams one
// after the other: both are whole and read like the plain stream.
TEST(OtfReader, FinishedAndConcatenatedZlibStreamsAreWhole) {
  const fs::path dir = test::freshDir("otf_z_finish");
  writeLibraryTrace(dir / "lib", false);
  auto deflated = [](const std::string& text) {
    uLongf n = compressBound(static_cast<uLong>(text.size()));
    std::string out(n, '\0');
    EXPECT_EQ(compress2(reinterpret_cast<Bytef*>(out.data()), &n, reinterpret_cast<const Bytef*>(text.data()),
                        static_cast<uLong>(text.size()), 6), Z_OK);
    out.resize(n);
    return out;
  };
  const std::string one = test::readAll(dir / "lib.1.events"), two = test::readAll(dir / "lib.2.events");
  const std::size_t cut = one.find('\n', one.size() / 2) + 1;  // at a line end
  test::writeFile(dir / "lib.1.events.z", deflated(one.substr(0, cut)) + deflated(one.substr(cut)));
  test::writeFile(dir / "lib.2.events.z", deflated(two));
  fs::remove(dir / "lib.1.events");
  fs::remove(dir / "lib.2.events");
  expectLibraryTrace(loadTrace((dir / "lib.otf").string()));
}

// ---- threads (issue #37) ---------------------------------------------------------------------

namespace {

// A hybrid MPI + OpenMP trace as VampirTrace writes it, with libotf's writer: ranks are
// processes 1 and 2, their threads processes 3, 4 (parent 1) and 5 (parent 2), each with its
// own stream. Timer 10^6 ticks/s from tick 0: t ticks = 1000 t ns.
void writeHybridTrace(const fs::path& stub) {
  OTF_FileManager* m = OTF_FileManager_open(16);
  ASSERT_NE(m, nullptr);
  OTF_Writer* w = OTF_Writer_open(stub.string().c_str(), 5, m);
  ASSERT_NE(w, nullptr);
  for (std::uint32_t p = 1; p <= 5; ++p) OTF_Writer_assignProcess(w, p, p);
  OTF_Writer_writeDefTimerResolution(w, 0, 1000000);
  OTF_Writer_writeDefTimeRange(w, 0, 0, 100, nullptr);
  OTF_Writer_writeDefProcess(w, 0, 1, "Process 0", 0);
  OTF_Writer_writeDefProcess(w, 0, 2, "Process 1", 0);
  OTF_Writer_writeDefProcess(w, 0, 3, "Process 0:OMP 1", 1);
  OTF_Writer_writeDefProcess(w, 0, 4, "Process 0:OMP 2", 1);
  OTF_Writer_writeDefProcess(w, 0, 5, "Process 1:OMP 1", 2);
  const std::uint32_t world[2] = {1, 2};
  OTF_Writer_writeDefProcessGroup(w, 0, 1, "MPI_COMM_WORLD", 2, world);
  OTF_Writer_writeDefFunctionGroup(w, 0, 1, "MPI");
  OTF_Writer_writeDefFunctionGroup(w, 0, 2, "OMP");
  OTF_Writer_writeDefFunction(w, 0, 1, "MPI_Send", 1, 0);
  OTF_Writer_writeDefFunction(w, 0, 2, "MPI_Recv", 1, 0);
  OTF_Writer_writeDefFunction(w, 0, 3, "!$omp parallel", 2, 0);
  OTF_Writer_writeDefFunction(w, 0, 4, "work", 2, 0);
  OTF_Writer_writeDefMarker(w, 0, 1, "chunk", OTF_MARKER_TYPE_HINT);
  // Rank 0: a parallel region [0, 40], then MPI_Send [40, 50] with its message to rank 1.
  OTF_Writer_writeEnter(w, 0, 3, 1, 0);
  OTF_Writer_writeLeave(w, 40, 3, 1, 0);
  OTF_Writer_writeEnter(w, 40, 1, 1, 0);
  OTF_Writer_writeSendMsg(w, 45, 1, 2, 1, 3, 64, 0);
  OTF_Writer_writeLeave(w, 50, 1, 1, 0);
  // Rank 1: MPI_Recv [10, 60].
  OTF_Writer_writeEnter(w, 10, 2, 2, 0);
  OTF_Writer_writeRecvMsg(w, 55, 2, 1, 1, 3, 64, 0);
  OTF_Writer_writeLeave(w, 60, 2, 2, 0);
  // Threads: "!$omp parallel" with "work" nested inside; a marker on process 4; process 5 also
  // sends a message (MPI_THREAD_MULTIPLE), which the model does not hold for threads.
  OTF_Writer_writeEnter(w, 1, 3, 3, 0);
  OTF_Writer_writeEnter(w, 2, 4, 3, 0);
  OTF_Writer_writeLeave(w, 30, 4, 3, 0);
  OTF_Writer_writeLeave(w, 38, 3, 3, 0);
  OTF_Writer_writeEnter(w, 3, 4, 4, 0);
  OTF_Writer_writeLeave(w, 35, 4, 4, 0);
  OTF_Writer_writeMarker(w, 20, 4, 1, "half");
  OTF_Writer_writeEnter(w, 70, 4, 5, 0);
  OTF_Writer_writeSendMsg(w, 75, 5, 1, 1, 9, 8, 0);
  OTF_Writer_writeLeave(w, 90, 4, 5, 0);
  ASSERT_NE(OTF_Writer_close(w), 0);
  OTF_FileManager_close(m);
}

// The hybrid trace above, however it was read or written.
// (A predicted trace holds one more event on rank 0: the scenario's point.)
void expectHybridThreads(const Trace& t, std::uint64_t rankEvents = 3) {
  ASSERT_EQ(t.rankCount(), 2u);
  ASSERT_EQ(t.threads.size(), 3u);
  EXPECT_EQ(t.threads[0].rank, 0);
  EXPECT_EQ(t.threads[1].rank, 0);
  EXPECT_EQ(t.threads[2].rank, 1);
  EXPECT_EQ(t.threads[0].events.name, "Process 0:OMP 1");
  EXPECT_EQ(t.threads[2].events.name, "Process 1:OMP 1");
  // Process 3: parallel [1, 38] holding work [2, 30] (depth 1).
  const RankTrace& a = t.threads[0].events;
  EXPECT_EQ(a.enter.toVector(), (std::vector<TimeNs>{1000, 2000}));
  EXPECT_EQ(a.leave.toVector(), (std::vector<TimeNs>{38000, 30000}));
  EXPECT_EQ(a.depth, (std::vector<std::uint8_t>{0, 1}));
  EXPECT_EQ(t.functions[a.function[0]].name, "!$omp parallel");
  // Process 4: work [3, 35] and the marker "half" at 20 inside it.
  const RankTrace& b = t.threads[1].events;
  ASSERT_EQ(b.size(), 2u);
  EXPECT_EQ(b.enter[1], 20000);
  EXPECT_EQ(t.functions[b.function[1]].kind, EventKind::Point);
  ASSERT_EQ(b.labels.size(), 1u);
  EXPECT_EQ(b.labels[0].text, "half");
  // Process 5: work [70, 90]; the trace ends with it (90 000 ns), after the ranks' 60 000.
  EXPECT_EQ(t.threads[2].events.leave.toVector(), (std::vector<TimeNs>{90000}));
  EXPECT_EQ(t.endTime, 90000);
  // The ranks are as without threads: one message 0 -> 1.
  EXPECT_EQ(t.messageStats.matched, 1u);
  EXPECT_EQ(t.eventCount(), rankEvents);
  EXPECT_EQ(t.threadEventCount(), 5u);
  EXPECT_EQ(test::modelViolation(t), "");
}

}  // namespace

// Threads are rows under their rank (issue #37): states, nesting and markers as measured; a
// thread's message record is counted, not modelled; the replay predicts the ranks only, and
// identity replay stays exact. OTF and OTF2 written by PerWiz keep the threads; ALOG cannot
// and says so.
TEST(OtfThreads, HybridTraceKeepsEveryThreadUnderItsRank) {
  const fs::path dir = test::freshDir("otf_threads_hybrid");
  writeHybridTrace(dir / "hy");
  const Trace t = loadTrace((dir / "hy.otf").string());
  expectHybridThreads(t);
  EXPECT_TRUE(hasWarning(t, "1 message or collective record(s) of threads are not modelled")) << test::modelViolation(t);
  EXPECT_FALSE(hasWarning(t, "thread process(es)"));
  Replayer rp(t, Scenario{});
  EXPECT_EQ(rp.predictedTime(), 60000);  // the ranks' end: the threads are not replayed
  // predict says the threads stay as measured.
  test::CliResult p = cli(dir, {"predict", (dir / "hy.otf").string()});
  EXPECT_EQ(p.status, 0) << p.err;
  EXPECT_NE(p.err.find("3 thread(s) kept as measured: the replay predicts the 2 MPI rank(s)"), std::string::npos) << p.err;
  // The predicted trace keeps the threads as measured.
  const Trace predicted = rp.predictedTrace();
  expectHybridThreads(predicted, 4);
  // Written as OTF and as OTF2 and read back: the same model, threads included.
  for (const char* out : {"hy-copy.otf", "hy-copy-otf2"}) {
    convert(dir, dir / "hy.otf", dir / out);
    const Trace back = loadTrace((dir / out).string());
    std::string why;
    EXPECT_TRUE(t.sameModel(back, &why)) << out << ": " << why;
    expectHybridThreads(back);
  }
  expectToolsRead(dir / "hy-copy.otf");
  // ALOG holds one timeline per rank: the threads are left out, with a note.
  test::CliResult a = cli(dir, {"convert", (dir / "hy.otf").string(), (dir / "hy.alog").string()});
  EXPECT_EQ(a.status, 0) << a.err;
  EXPECT_NE(a.err.find("3 thread(s) not written"), std::string::npos) << a.err;
  EXPECT_TRUE(loadTrace((dir / "hy.alog").string()).threads.empty());
  // info lists them.
  test::CliResult i = cli(dir, {"info", (dir / "hy.otf").string(), "--json"});
  ASSERT_EQ(i.status, 0) << i.err;
  const json j = json::parse(i.out);
  EXPECT_EQ(j["threads"], 3);
  EXPECT_EQ(j["thread_events"], 5);
  EXPECT_EQ(j["per_thread"][2]["rank"], 1);
  EXPECT_EQ(j["per_thread"][2]["name"], "Process 1:OMP 1");
  EXPECT_EQ(j["per_thread"][2]["last_leave_ns"], 90000);
}

// A Pthreads program without MPI (a process and its two threads, no MPI function): no rank,
// three thread rows; commands that predict say why they cannot.
TEST(OtfThreads, ThreadOnlyTraceOpensItsThreadsAndOffersNoPrediction) {
  const fs::path dir = test::freshDir("otf_threads_only");
  {
    OTF_FileManager* m = OTF_FileManager_open(8);
    ASSERT_NE(m, nullptr);
    OTF_Writer* w = OTF_Writer_open((dir / "pt").string().c_str(), 3, m);
    ASSERT_NE(w, nullptr);
    for (std::uint32_t p = 1; p <= 3; ++p) OTF_Writer_assignProcess(w, p, p);
    OTF_Writer_writeDefTimerResolution(w, 0, 1000000000);
    OTF_Writer_writeDefProcess(w, 0, 1, "main", 0);
    OTF_Writer_writeDefProcess(w, 0, 2, "pthread 1", 1);
    OTF_Writer_writeDefProcess(w, 0, 3, "pthread 2", 1);
    OTF_Writer_writeDefFunctionGroup(w, 0, 1, "Application");
    OTF_Writer_writeDefFunction(w, 0, 1, "main", 1, 0);
    OTF_Writer_writeDefFunction(w, 0, 2, "worker", 1, 0);
    OTF_Writer_writeEnter(w, 100, 1, 1, 0);
    OTF_Writer_writeLeave(w, 900, 1, 1, 0);
    OTF_Writer_writeEnter(w, 200, 2, 2, 0);
    OTF_Writer_writeLeave(w, 700, 2, 2, 0);
    OTF_Writer_writeEnter(w, 250, 2, 3, 0);
    OTF_Writer_writeLeave(w, 800, 2, 3, 0);
    ASSERT_NE(OTF_Writer_close(w), 0);
    OTF_FileManager_close(m);
  }
  const Trace t = loadTrace((dir / "pt.otf").string());
  EXPECT_EQ(t.rankCount(), 0u);
  ASSERT_EQ(t.threads.size(), 3u);
  for (const ThreadTrace& th : t.threads) EXPECT_EQ(th.rank, -1);
  EXPECT_EQ(t.threads[0].events.name, "main");
  // Origin: the earliest record, tick 100 (1 tick = 1 ns).
  EXPECT_EQ(t.threads[0].events.enter.toVector(), (std::vector<TimeNs>{0}));
  EXPECT_EQ(t.threads[2].events.leave.toVector(), (std::vector<TimeNs>{700}));
  EXPECT_EQ(t.endTime, 800);
  EXPECT_TRUE(hasWarning(t, "no MPI function is defined"));
  EXPECT_EQ(test::modelViolation(t), "");
  test::CliResult i = cli(dir, {"info", (dir / "pt.otf").string()});
  EXPECT_EQ(i.status, 0) << i.err;
  EXPECT_NE(i.out.find("threads:          3"), std::string::npos) << i.out;
  for (const char* command : {"predict", "advise", "critical-path"}) {
    test::CliResult p = cli(dir, {command, (dir / "pt.otf").string()});
    EXPECT_NE(p.status, 0) << command;
    EXPECT_NE(p.err.find("3 threads and no MPI rank"), std::string::npos) << command << ": " << p.err;
  }
}

// The shared hybrid trace (VampirTrace 5.6, 4 ranks each with 3 OpenMP threads): its
// definitions name 16 processes, 4 without a parent and 12 threads ("Thread k/r", parent the
// rank's process), each thread with its own non-empty stream: 4 ranks and 12 thread rows, three
// under each rank, in the definitions' order.
TEST(OtfShared, HybridTraceHasFourRanksAndTheirTwelveThreads) {
  const fs::path anchor = sharedOtf("vampirtrace-wrf-hybrid-4x3");
  if (!fs::exists(anchor)) GTEST_SKIP() << "shared traces absent (PERWIZ_SHARED_TRACES)";
  const Trace t = loadTrace(anchor.string());
  ASSERT_EQ(t.rankCount(), 4u);
  ASSERT_EQ(t.threads.size(), 12u);
  for (std::size_t i = 0; i < 12; ++i) {
    EXPECT_EQ(t.threads[i].rank, static_cast<std::int32_t>(i / 3)) << i;
    EXPECT_GT(t.threads[i].events.size(), 0u) << i;
  }
  EXPECT_EQ(t.threads[0].events.name, " Thread 1/0");
  EXPECT_EQ(t.threads[11].events.name, " Thread 3/3");
  // A thread's events cost what a rank's columns do (enter, leave: ~4 B each; function 4 B;
  // depth 1 B) and nothing else: at most 16 B per event over the threads' events.
  Trace ranksOnly = t;
  ranksOnly.threads.clear();
  const double perThreadEvent =
      double(t.residentBytes() - ranksOnly.residentBytes()) / double(t.threadEventCount());
  EXPECT_LE(perThreadEvent, 16.0) << t.threadEventCount() << " thread events";
  std::cout << "thread events: " << t.threadEventCount() << ", " << perThreadEvent << " B each\n";
  EXPECT_GT(t.threadEventCount(), 0u);
  EXPECT_EQ(test::modelViolation(t), "");
  expectIdentity(anchor);
}

// ---- issue #38 item 8: nothing dropped or clamped without a word ---------------------------

// The master control file's last line without its line end still names its stream.
TEST(OtfSilentLoss, MasterControlWithoutFinalNewlineKeepsEveryRank) {
  const fs::path dir = test::freshDir("otf38_master");
  writeLibraryTrace(dir / "lib", false);
  const Trace whole = loadTrace((dir / "lib.otf").string());
  std::string text = test::readAll(dir / "lib.otf");
  ASSERT_EQ(text.back(), '\n');
  text.pop_back();
  test::writeFile(dir / "lib.otf", text);
  const Trace cut = loadTrace((dir / "lib.otf").string());
  std::string why;
  EXPECT_TRUE(whole.sameModel(cut, &why)) << why;
  EXPECT_EQ(cut.eventCount() + cut.threadEventCount(), whole.eventCount() + whole.threadEventCount());
}

// An empty, cut or damaged marker file: libotf read what it could and said nothing.
TEST(OtfSilentLoss, DamagedMarkerFileIsWarned) {
  const fs::path dir = test::freshDir("otf38_markers");
  writeLibraryTrace(dir / "lib", false);
  const std::string markers = test::readAll(dir / "lib.0.marker");
  const Trace whole = loadTrace((dir / "lib.otf").string());
  for (const Diagnostic& d : whole.warnings) EXPECT_EQ(d.message.find("marker file"), std::string::npos) << d.toString();
  const struct {
    std::string bytes, warning;
  } cases[] = {
      {"", "is empty: no marker read"},
      {markers.substr(0, markers.size() - 3), "ends inside a record"},
      {markers.substr(0, markers.find('\n') + 1) + "MS1T\x01\x02garbage\n", "records could not be read"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.warning);
    test::writeFile(dir / "lib.0.marker", c.bytes);
    // Loaded with the loss said, or refused naming the marker file (libotf gives up on some).
    try {
      const Trace t = loadTrace((dir / "lib.otf").string());
      EXPECT_TRUE(hasWarning(t, c.warning));
      EXPECT_LT(t.eventCount(), whole.eventCount());  // the marker "A" is gone, and said so
    } catch (const TraceError& e) {
      EXPECT_NE(std::string(e.what()).find("lib.0.marker"), std::string::npos) << e.what();
      EXPECT_NE(c.warning, "is empty: no marker read") << "an empty marker file is not a reason to refuse the trace";
    }
  }
}

// A clock finer than 1 ps: every time of a real run collapses (2^64 - 1 ticks/s put all at 0).
TEST(OtfSilentLoss, ImplausibleTimerResolutionIsWarned) {
  const fs::path dir = test::freshDir("otf38_resolution");
  writeLibraryTrace(dir / "lib", false);
  std::string def = test::readAll(dir / "lib.0.def");
  const std::size_t at = def.find("DTRf4240");  // 10^6 ticks per second
  ASSERT_NE(at, std::string::npos);
  def.replace(at, 8, "DTRffffffffffffffff");
  test::writeFile(dir / "lib.0.def", def);
  const Trace t = loadTrace((dir / "lib.otf").string());
  EXPECT_TRUE(hasWarning(t, "ticks per second is finer than 1 ps"));
}

// A time beyond 64 bits: libotf wrapped 2^72 to 0, and took 2^64 - 1 for an error and dropped
// the record (blaming an unmatched leave). Refused, naming the stream and the byte.
TEST(OtfSilentLoss, TimesBeyond64BitsAreRefused) {
  const fs::path dir = test::freshDir("otf38_times");
  writeLibraryTrace(dir / "lib", false);
  const std::string events = test::readAll(dir / "lib.1.events");
  const std::size_t at = events.find("\n96\n");  // the time line of tick 150
  ASSERT_NE(at, std::string::npos);
  for (const std::string time : {"1000000000000000000", "ffffffffffffffff", "00ffffffffffffffffff"}) {
    SCOPED_TRACE(time);
    std::string bad = events;
    bad.replace(at + 1, 2, time);
    test::writeFile(dir / "lib.1.events", bad);
    const std::string e = loadError(dir / "lib.otf");
    EXPECT_NE(e.find("a time at byte " + std::to_string(at + 1) + " of "), std::string::npos) << e;
    EXPECT_NE(e.find("lib.1.events is beyond OTF's 64-bit range"), std::string::npos) << e;
  }
  // 2^64 - 2 is a time OTF can hold: read (and far beyond the rest of the run, but not lost).
  std::string big = events;
  big.replace(at + 1, 2, "fffffffffffffffe");
  test::writeFile(dir / "lib.1.events", big);
  EXPECT_EQ(loadError(dir / "lib.otf").find("64-bit range"), std::string::npos);
}
