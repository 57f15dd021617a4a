// Format detection by content and the loadTrace front door.
#include "perwiz/trace_io.h"
#include "test_support.h"

#include <gtest/gtest.h>

using namespace perwiz;
namespace fs = std::filesystem;

namespace {
const char* kTinyAlog =
    "-3 0 0 2 0 0\n"
    "-13 0 1 2 0 0 blue:gray3 SEND\n"
    "-13 0 3 4 0 0 green:light_gray RECV\n"
    "1 0 0 1 0 10\n"
    "-101 0 0 1 0 11 7 16\n"
    "2 0 0 2 0 12\n"
    "3 1 0 1 0 5\n"
    "-102 1 0 0 0 20 7 16\n"
    "4 1 0 2 0 21\n";
}  // namespace

TEST(Io, DetectsFormatsByContentNotName) {
  fs::path dir = test::freshDir("io_detect");
  // An ALOG file with an OTF2-looking name is still ALOG.
  auto alog = test::writeFile(dir / "looks_like.otf2", kTinyAlog);
  EXPECT_EQ(detectFormat(alog.string()), TraceFormat::Alog);
  auto text = test::writeFile(dir / "notes.alog", "hello world\n");
  EXPECT_EQ(detectFormat(text.string()), TraceFormat::Unknown);
  // libotf2 anchors: two header bytes, then the magic "OTF2".
  auto fake = test::writeFile(dir / "a" / "traces.otf2", std::string("\x03\x42OTF2garbage", 13));
  EXPECT_EQ(detectFormat(fake.string()), TraceFormat::Otf2);
  EXPECT_EQ(detectFormat((dir / "a").string()), TraceFormat::Otf2);  // directory with an anchor
  EXPECT_EQ(outputFormatFor("x.ALOG"), TraceFormat::Alog);
  EXPECT_EQ(outputFormatFor("x.log"), TraceFormat::Alog);
  EXPECT_EQ(outputFormatFor("x.otf2"), TraceFormat::Otf2);
  EXPECT_EQ(outputFormatFor("outdir"), TraceFormat::Otf2);
}

TEST(Io, LoadErrorsNameTheFileAndTheProblem) {
  fs::path dir = test::freshDir("io_errors");
  auto expectError = [](const std::string& path, const std::string& problem) {
    try {
      loadTrace(path);
      ADD_FAILURE() << "no error for " << path;
    } catch (const TraceError& e) {
      EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find(problem), std::string::npos) << e.what();
    }
  };
  expectError((dir / "missing.alog").string(), "no such file");
  expectError(test::writeFile(dir / "empty.alog", "").string(), "empty");
  expectError(test::writeFile(dir / "words.txt", "just some text\n").string(), "unknown trace format");
  // MPE's binary CLOG2 (its preamble starts with the version string): named, with the way out.
  expectError(test::writeFile(dir / "run.clog2", std::string("CLOG-02.44\0\0TRUE\0\0\0\0", 20)).string(),
              "a CLOG2 file (MPE's binary log), which PerWiz does not read: convert it to ALOG");
  fs::create_directories(dir / "nothing");
  expectError((dir / "nothing").string(), "no OTF2 anchor");
  // Older MPE formats are named, each with what to do (issue #37).
  // SLOG-2: "SLOG 2.0.6" at byte 2 (MPICH's fpilog.slog2).
  expectError(test::writeFile(dir / "fpilog.slog2", std::string("\0\x0aSLOG 2.0.6\0\0\0\x01", 16)).string(),
              "an SLOG-2 file (Jumpshot-4's format), which PerWiz does not read");
  // CLOG (MPE 1, no header): one 1024-byte block, big-endian; the first record a STATEDEF
  // (rectype 6) of 10 doubles on process 0 at time 0.
  std::string clog(1024, '\0');
  clog[11] = 6;   // rectype
  clog[15] = 10;  // length in doubles
  expectError(test::writeFile(dir / "old.log1", clog).string(),
              "a CLOG file (MPE 1's binary log, CLOG-1), which PerWiz does not read: convert it with MPE's clog2alog");
  // RLOG (MPE2's intermediate format) is known by its name only.
  expectError(test::writeFile(dir / "run.rlog", std::string("\x01\0\0\0\x04\0\0\0", 8)).string(),
              "an RLOG file (MPE2's intermediate log), which PerWiz does not read");
}

TEST(Io, AlogToOtf2ToModelKeepsTheModel) {
  fs::path dir = test::freshDir("io_convert");
  auto alog = test::writeFile(dir / "tiny.alog", kTinyAlog);
  Trace a = loadTrace(alog.string());
  ASSERT_EQ(a.messageStats.matched, 1u);
  saveTrace(a, (dir / "tiny_otf2").string());
  Trace b = loadTrace((dir / "tiny_otf2").string());
  std::string why;
  EXPECT_TRUE(a.sameModel(b, &why)) << why;
  // Nothing is overwritten.
  EXPECT_THROW(saveTrace(a, (dir / "tiny_otf2").string()), TraceError);
  EXPECT_THROW(saveTrace(a, alog.string()), TraceError);
}
