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

#include <filesystem>
#include <fstream>

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
  // What the model does not hold is reported.
  EXPECT_TRUE(hasWarning(t, "1 thread process(es)")) << test::modelViolation(t);
  EXPECT_TRUE(hasWarning(t, "2 record(s) are not modelled"));
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
  EXPECT_EQ(rp.predictedTime(), t.endTime) << p;
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
    test::CliResult r = test::runProgram("/usr/bin/vite", dir, {otf.string(), "-e", svg.string()});
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
      test::CliResult r = test::runProgram("/usr/bin/vite", dir, {p.string(), "-e", svg.string()});
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
  // Without its definitions the anchor is not recognised as OTF at all.
  const std::string e = loadError(dir / "lib.otf");
  EXPECT_NE(e.find("lib.otf"), std::string::npos) << e;
  EXPECT_NE(e.find("unknown trace format"), std::string::npos) << e;
}

TEST(OtfReader, ProcessWithoutStream) {
  const fs::path dir = test::freshDir("otf_no_stream");
  writeLibraryTrace(dir / "lib", false);
  // The master control file no longer maps process 2 (rank 1) to a stream.
  test::writeFile(dir / "lib.otf", "1:1\n3:3\n");
  const std::string e = loadError(dir / "lib.otf");
  EXPECT_NE(e.find("process 2 ('node0 rank1') is defined but has no event stream"), std::string::npos) << e;
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
  // Looks like a master control file but has no definitions beside it.
  test::writeFile(dir / "x.otf", "1:1\n");
  EXPECT_EQ(detectFormat((dir / "x.otf").string()), TraceFormat::Unknown);
  // Definitions present but the anchor's lines are not stream:process.
  writeLibraryTrace(dir / "y", false);
  test::writeFile(dir / "y.otf", "hello world\n");
  EXPECT_EQ(detectFormat((dir / "y.otf").string()), TraceFormat::Unknown);
}
