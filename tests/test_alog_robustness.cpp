// ALOG reader robustness (issue #15): files cut short at any byte, line-end conventions
// (LF, CRLF, CR only, mixed), a UTF-8 byte order mark, header totals that the file does not
// reach, and nesting deeper than the model stores. Every input is written by the test, except
// the cuts of the shared sample traces (skipped when absent) and of resources/samples.
#include "model_invariants.h"
#include "test_support.h"

#include "perwiz/trace_builder.h"
#include "perwiz/trace_io.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

namespace fs = std::filesystem;
using namespace perwiz;
using perwiz::test::freshDir;
using perwiz::test::writeFile;

namespace {

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string allWarnings(const Trace& t) {
  std::string s;
  for (const auto& w : t.warnings) s += "  " + w.toString() + "\n";
  return s;
}

// Warnings whose message contains `text` (and, if line >= 0, that carry that line).
int countWarnings(const Trace& t, const std::string& text, std::int64_t line = -1) {
  int n = 0;
  for (const auto& w : t.warnings)
    if (w.message.find(text) != std::string::npos && (line < 0 || w.line == line)) ++n;
  return n;
}

// Loads through the front door (format detection, reader, builder), as the CLI and GUI do.
Trace load(const fs::path& p) { return loadTrace(p.string()); }

std::string loadError(const fs::path& p) {
  try {
    loadTrace(p.string());
  } catch (const TraceError& e) {
    return e.what();
  }
  ADD_FAILURE() << "no TraceError for " << p;
  return {};
}

// A 2-rank trace on a p4-style absolute clock (µs values near 2e9, like sam_hyp.16.log):
// cutting the last timestamp short would make it ~2000 s *earlier* than everything else.
const char* kAbsoluteClock =
    "-2 0 0 4 0 0\n"
    "-3 0 0 2 0 0\n"
    "-6 0 0 0 0 2025436865\n"
    "-7 0 0 0 0 2025437900\n"
    "-13 0 1 2 0 0 blue:gray task_a\n"
    "1 0 0 1 0 2025436865\n"
    "1 1 0 1 0 2025437000\n"
    "2 0 0 1 0 2025437500\n"
    "2 1 0 1 0 2025437900\n";
// Its duration: latest time - origin = 2025437900 - 2025436865 = 1035 µs.
constexpr TimeNs kAbsoluteClockDuration = 1035000;

// ---- files cut short -------------------------------------------------------------------------

// The reproducer: the last record cut inside its timestamp ("2 1 0 1 0 2" of
// "... 2025437900") used to load with that record at 2 µs, so the origin moved ~2025 s back
// and the measured time became ~2025 s. Now the line without its line end is dropped with a
// warning naming the line; the rest loads unchanged.
TEST(AlogCut, LastLineCutInsideTheTimestampIsDroppedNotReadAsASmallTime) {
  fs::path dir = freshDir("AlogCut_stamp");
  const std::string whole = kAbsoluteClock;
  Trace full = load(writeFile(dir / "whole.alog", whole));
  EXPECT_EQ(full.duration(), kAbsoluteClockDuration);
  EXPECT_EQ(full.warnings.size(), 0u) << allWarnings(full);

  const std::string cut = whole.substr(0, whole.size() - 10);  // ends "2 1 0 1 0 2"
  ASSERT_EQ(cut.substr(cut.size() - 11), "2 1 0 1 0 2");
  fs::path p = writeFile(dir / "cut.alog", cut);
  Trace t = load(p);
  // Without line 9 the latest time is rank 0's leave at 2025437500: 2025437500 - 2025436865
  // = 635 µs; rank 1's state is still open and closed at that time.
  EXPECT_EQ(t.duration(), 635000);
  EXPECT_EQ(countWarnings(t, "last line has no line end", 9), 1) << allWarnings(t);
  for (const auto& w : t.warnings) EXPECT_EQ(w.file, p.string());
  // The header says 4 data records and an end at 2025437900 µs: both exceed what is left.
  EXPECT_EQ(countWarnings(t, "declares 4 data records (-2) but the file holds 3", 1), 1)
      << allWarnings(t);
  EXPECT_EQ(countWarnings(t, "end time (-7) is 2025437900 us but the last record is at "
                             "2025437500 us", 4), 1)
      << allWarnings(t);
}

// A complete-looking record without a line end is dropped too: nothing tells a whole number
// from one cut short ("162 0 0 2 0 327822" vs "... 3278").
TEST(AlogCut, RecordWithoutLineEndIsDroppedWithAWarning) {
  fs::path dir = freshDir("AlogCut_noeol");
  Trace t = load(writeFile(dir / "t.alog", "-13 0 1 2 0 0 : S\n1 0 0 0 0 5\n2 0 0 0 0 9"));
  ASSERT_EQ(t.ranks[0].size(), 1u);
  // The state opened at 5 µs is closed at the latest time seen, 5 µs: zero length.
  EXPECT_EQ(t.ranks[0].leave[0], 0);
  EXPECT_EQ(countWarnings(t, "last line has no line end (file cut short?); ignored: "
                             "'2 0 0 0 0 9'", 3), 1)
      << allWarnings(t);
  // Blanks or a comment after the last line end are not a record: no warning.
  Trace u = load(writeFile(dir / "u.alog", "1 0 0 0 0 5\n  \t"));
  EXPECT_EQ(u.warnings.size(), 0u) << allWarnings(u);
  Trace v = load(writeFile(dir / "v.alog", "1 0 0 0 0 5\n# the end"));
  EXPECT_EQ(v.warnings.size(), 0u) << allWarnings(v);
  // A CRLF file cut between CR and LF still holds the whole last line.
  Trace w = load(writeFile(dir / "w.alog", "1 0 0 0 0 5\r\n1 0 0 0 0 7\r"));
  EXPECT_EQ(w.ranks[0].size(), 2u);
  EXPECT_EQ(w.warnings.size(), 0u) << allWarnings(w);
  // A file whose only record is cut has nothing to load: an error naming file and line.
  fs::path only = writeFile(dir / "only.alog", "# header comment\n1 0 0 0 0 5");
  std::string e = loadError(only);
  EXPECT_NE(e.find(only.string()), std::string::npos) << e;
  EXPECT_NE(e.find("no line end"), std::string::npos) << e;
  EXPECT_NE(e.find("at line 2"), std::string::npos) << e;
}

// A file cut exactly at a line end has only complete lines; the header's totals (-2 data
// records, -7 end time) are what tells it is incomplete.
TEST(AlogCut, HeaderTotalsBeyondTheFileAreReported) {
  fs::path dir = freshDir("AlogCut_header");
  const std::string whole = kAbsoluteClock;
  const std::string cut = whole.substr(0, whole.find("2 0 0 1 0"));  // data lines 6, 7 only
  Trace t = load(writeFile(dir / "t.alog", cut));
  EXPECT_EQ(countWarnings(t, "declares 4 data records (-2) but the file holds 2", 1), 1)
      << allWarnings(t);
  // Latest record: 2025437000 µs (line 7).
  EXPECT_EQ(countWarnings(t, "end time (-7) is 2025437900 us but the last record is at "
                             "2025437000 us", 4), 1)
      << allWarnings(t);
  // Totals that the file reaches (or exceeds: only "missing" is evidence of a cut) are quiet.
  Trace u = load(writeFile(dir / "u.alog", "-2 0 0 1 0 0\n-7 0 0 0 0 3\n1 0 0 0 0 0\n"
                                           "1 0 0 0 0 4\n"));
  EXPECT_EQ(u.warnings.size(), 0u) << allWarnings(u);
}

// Cuts `source` at every `step`-th byte and at every byte of its first two and last four lines
// (where the cut decides between "refused" and "loaded"; `head -c` of a whole file only ever
// cuts its last line): each prefix must either be refused with a TraceError naming the file,
// or load a valid model no longer than the whole file's, with a warning when anything is
// missing. Every byte of every file would be ~10^5 loads (~50 s of CPU, mostly the file system
// calls of writing and opening each prefix); a prime step reaches all positions within lines.
void cutEverywhere(const fs::path& source, const fs::path& dir, std::size_t step) {
  SCOPED_TRACE(source.string());
  const std::string text = slurp(source);
  ASSERT_FALSE(text.empty());
  const Trace whole = load(source);
  ASSERT_EQ(perwiz::test::modelViolation(whole), "");
  std::size_t lastLines = text.size();
  for (int n = 0; n < 5 && lastLines > 0 && lastLines != std::string::npos; ++n)
    lastLines = text.rfind('\n', lastLines - 1);
  if (lastLines == std::string::npos) lastLines = 0;
  std::size_t firstLines = text.find('\n', text.find('\n') + 1);

  const fs::path p = dir / ("cut-" + source.filename().string());
  int loaded = 0, refused = 0;
  for (std::size_t k = 1; k < text.size(); ++k) {
    if (k % step != 0 && k > firstLines && k < lastLines) continue;
    writeFile(p, text.substr(0, k));
    Trace t;
    try {
      t = load(p);
    } catch (const TraceError& e) {
      EXPECT_NE(std::string(e.what()).find(p.string()), std::string::npos) << e.what();
      ++refused;
      continue;
    }
    ++loaded;
    ASSERT_LE(t.duration(), whole.duration())
        << "cut at byte " << k << " of " << text.size() << ":\n" << allWarnings(t);
    ASSERT_EQ(perwiz::test::modelViolation(t), "") << "cut at byte " << k;
    // Something is missing unless only trailing blanks were cut: that must be said.
    if (!t.sameModel(whole)) {
      ASSERT_GT(countWarnings(t, "cut short") + countWarnings(t, "no data records"), 0)
          << "cut at byte " << k << " loads silently:\n" << allWarnings(t);
    }
  }
  EXPECT_GT(loaded, 0);
  EXPECT_GT(refused, 0);  // e.g. a cut inside the first record line
}

TEST(AlogCut, SharedTracesCutAtManyOffsets) {
  auto files = perwiz::test::sharedAlogFiles();
  if (files.empty()) GTEST_SKIP() << "no shared ALOG traces (PERWIZ_SHARED_TRACES)";
  fs::path dir = freshDir("AlogCut_shared");
  for (const auto& f : files) cutEverywhere(f, dir, 11);
}

TEST(AlogCut, ProjectSamplesCutAtManyOffsets) {
  fs::path samples(PERWIZ_SAMPLE);
  fs::path dir = freshDir("AlogCut_samples");
  int n = 0;
  for (const auto& e : fs::directory_iterator(samples))
    if (e.path().extension() == ".alog") {
      cutEverywhere(e.path(), dir, fs::file_size(e.path()) < 8192 ? 11 : 31);
      ++n;
    }
  EXPECT_GE(n, 2);  // ring4.alog, pipeline_8.alog
}

// ---- line ends and byte order mark ------------------------------------------------------------

const char* kLf =
    "-1 0 0 0 0 0 Me\n"
    "-3 0 0 2 0 0\n"
    "-13 0 11 12 0 0 yellow:dimple3 BARRIER\n"
    "-13 0 161 162 0 0 blue:gray3 SEND\n"
    "-13 0 155 156 0 0 green:light_gray RECV\n"
    "11 0 0 1 0 0\n"
    "11 1 0 1 0 10\n"
    "12 0 0 2 0 20\n"
    "12 1 0 2 0 20\n"
    "161 0 0 1 0 30\n"
    "-101 0 0 1 0 31 99 12\n"
    "162 0 0 2 0 32\n"
    "155 1 0 1 0 30\n"
    "-102 1 0 0 0 40 99 12\n"
    "156 1 0 2 0 41\n";

std::string withLineEnds(std::string text, const std::string& eol) {
  std::string out;
  for (char c : text) {
    if (c == '\n') out += eol;
    else out += c;
  }
  return out;
}

// CR-only line ends used to read as one line (an empty trace without a warning).
TEST(AlogLineEnds, CrLfAndCrOnlyReadLikeLf) {
  fs::path dir = freshDir("AlogLineEnds");
  Trace lf = load(writeFile(dir / "lf.alog", kLf));
  EXPECT_EQ(lf.warnings.size(), 0u) << allWarnings(lf);
  EXPECT_EQ(lf.eventCount(), 4u);  // BARRIER on ranks 0 and 1, SEND on 0, RECV on 1
  EXPECT_EQ(lf.messageStats.matched, 1u);
  for (const char* eol : {"\r\n", "\r"}) {
    SCOPED_TRACE(eol[1] ? "CRLF" : "CR");
    fs::path p = writeFile(dir / "t.alog", withLineEnds(kLf, eol));
    EXPECT_EQ(detectFormat(p.string()), TraceFormat::Alog);
    Trace t = load(p);
    std::string why;
    EXPECT_TRUE(lf.sameModel(t, &why)) << why;
    EXPECT_EQ(t.warnings.size(), 0u) << allWarnings(t);
    // Line numbers count lines, not bytes: an error on the 2nd line says line 2.
    std::string bad = withLineEnds("1 0 0 0 0 5\n1 0 x 0 0 6\n", eol);
    fs::path q = writeFile(dir / "bad.alog", bad);
    std::string e = loadError(q);
    EXPECT_NE(e.find("at line 2"), std::string::npos) << e;
  }
  // A CR-only file starting with a comment is still recognised as ALOG.
  fs::path c = writeFile(dir / "comment.alog", withLineEnds("# made on a Mac\n" + std::string(kLf), "\r"));
  EXPECT_EQ(detectFormat(c.string()), TraceFormat::Alog);
  std::string why;
  EXPECT_TRUE(lf.sameModel(load(c), &why)) << why;
}

// In a file with line feeds a lone CR stays a byte of its line (real MPE comments carry
// garbage bytes), but it is reported: the text after it does not silently vanish.
TEST(AlogLineEnds, LoneCarriageReturnInsideALineIsReported) {
  fs::path dir = freshDir("AlogLineEnds_mixed");
  Trace t = load(writeFile(dir / "t.alog", "1 0 0 0 0 5\n1 0 0 0 0 6\r1 0 0 0 0 7\n"));
  // Line 2's comment is "1 0 0 0 0 7" (a label of point event 1): two events.
  EXPECT_EQ(t.ranks[0].size(), 2u);
  EXPECT_EQ(countWarnings(t, "carriage return inside the line", 2), 1) << allWarnings(t);
}

// A UTF-8 byte order mark used to give "unknown trace format".
TEST(AlogLineEnds, Utf8ByteOrderMarkIsSkipped) {
  fs::path dir = freshDir("AlogBom");
  Trace lf = load(writeFile(dir / "plain.alog", kLf));
  for (const char* eol : {"\n", "\r\n", "\r"}) {
    fs::path p = writeFile(dir / "bom.alog", "\xEF\xBB\xBF" + withLineEnds(kLf, eol));
    EXPECT_EQ(detectFormat(p.string()), TraceFormat::Alog);
    Trace t = load(p);
    std::string why;
    EXPECT_TRUE(lf.sameModel(t, &why)) << why;
    EXPECT_EQ(t.warnings.size(), 0u) << allWarnings(t);
  }
  // Through the reader directly (no detection) too.
  fs::path p = writeFile(dir / "bom2.alog", "\xEF\xBB\xBF" + std::string(kLf));
  TraceBuilder b(p.string(), "alog");
  readAlog(p.string(), b);
  std::string why;
  EXPECT_TRUE(lf.sameModel(b.take(), &why)) << why;
}

// ---- nesting depth ------------------------------------------------------------------------------

// `levels` nested states on rank 0 (state k: events 2k+1 / 2k+2, entered at k µs, left in
// reverse order).
std::string nestedAlog(int levels) {
  std::string s;
  for (int k = 0; k < levels; ++k)
    s += "-13 0 " + std::to_string(2 * k + 1) + " " + std::to_string(2 * k + 2) + " 0 0 : S" +
         std::to_string(k) + "\n";
  for (int k = 0; k < levels; ++k) s += std::to_string(2 * k + 1) + " 0 0 0 0 " + std::to_string(k) + "\n";
  for (int k = levels - 1; k >= 0; --k)
    s += std::to_string(2 * k + 2) + " 0 0 0 0 " + std::to_string(2 * levels - k) + "\n";
  return s;
}

// The model stores an event's depth in one byte (0..255). 256 nested states fit (the
// innermost has 255 enclosing states); a 257th used to be stored as depth 255, silently
// making it a sibling of the 256th. Now it is an error naming file, line, rank and time.
TEST(AlogNesting, DeeperThanTheModelHoldsIsAnError) {
  fs::path dir = freshDir("AlogNesting");
  Trace ok = load(writeFile(dir / "ok.alog", nestedAlog(256)));
  ASSERT_EQ(ok.ranks[0].size(), 256u);
  EXPECT_EQ(ok.ranks[0].depth[255], 255);
  EXPECT_EQ(perwiz::test::modelViolation(ok), "");

  fs::path deep = writeFile(dir / "deep.alog", nestedAlog(257));
  std::string e = loadError(deep);
  EXPECT_NE(e.find(deep.string()), std::string::npos) << e;
  // The 257th enter is data line 257 + 257 (after the -13 lines), at 256 µs = 256000 ns.
  EXPECT_NE(e.find("line 514"), std::string::npos) << e;
  EXPECT_NE(e.find("rank 0 at 256000 ns"), std::string::npos) << e;
  EXPECT_NE(e.find("nesting deeper than the model holds"), std::string::npos) << e;
}

// The same limit for any reader (OTF2 goes through the builder too): a point event or a
// synthetic call inside 256 open states is refused as well.
TEST(AlogNesting, BuilderRefusesAnyEventBeyondTheDepthLimit) {
  TraceBuilder b("deep.otf2", "otf2");
  b.begin(TraceHeader{1, {}});
  std::uint32_t fn = b.defineFunction(Function{"f", EventKind::UserState, MpiOp::None, ""});
  std::uint32_t pt = b.defineFunction(Function{"p", EventKind::Point, MpiOp::None, ""});
  for (int k = 0; k < 256; ++k) b.enter(0, k, fn);
  b.setPosition(-1, "location 0, event 300");
  try {
    b.point(0, 1000, pt, "");
    ADD_FAILURE() << "no TraceError";
  } catch (const TraceError& e) {
    EXPECT_EQ(e.file(), "deep.otf2");
    EXPECT_NE(e.problem().find("location 0, event 300"), std::string::npos) << e.what();
    EXPECT_NE(e.problem().find("rank 0 at 1000 ns"), std::string::npos) << e.what();
  }
}

}  // namespace
