// ALOG read on several threads (issue #42): pass 1 scans byte chunks of whole lines at once,
// pass 2 streams ranges of processes into parts of the builder. The result must be what one
// thread reads (LoadOptions::threads = 1: one chunk, every record on the calling thread, the
// reader as it was): the same model, warnings, record count and functions, or the same error
// message — on the shared and the project's ALOG files, on generated ones of every shape, and
// on files cut short or corrupted at many places. Small files are read on 2, 3, 4 and 7 threads
// so that chunk and rank boundaries fall everywhere.
#include "perwiz/generator.h"
#include "perwiz/trace_io.h"
#include "test_support.h"

#include <gtest/gtest.h>

#include <atomic>
#include <functional>
#include <fstream>
#include <sstream>

namespace fs = std::filesystem;
using namespace perwiz;
using perwiz::test::freshDir;
using perwiz::test::writeFile;

namespace {

struct Outcome {
  bool loaded = false;
  std::string error;
  Trace trace;
};

Outcome loadOn(const fs::path& path, unsigned threads) {
  LoadOptions o;
  o.threads = threads;
  Outcome out;
  try {
    out.trace = loadTrace(path.string(), o);
    out.loaded = true;
  } catch (const TraceError& e) {
    out.error = e.what();
  }
  return out;
}

// Loads `path` on one thread and on several; every outcome must be the first's.
void expectSameOnAnyThreads(const fs::path& path, const std::string& what) {
  const Outcome one = loadOn(path, 1);
  for (unsigned n : {2u, 3u, 4u, 7u}) {
    const Outcome many = loadOn(path, n);
    ASSERT_EQ(one.loaded, many.loaded) << what << " on " << n << " threads: " << one.error << " / " << many.error;
    EXPECT_EQ(one.error, many.error) << what << " on " << n << " threads";
    if (!one.loaded) continue;
    std::string why;
    EXPECT_TRUE(one.trace.sameModel(many.trace, &why)) << what << " on " << n << " threads: " << why;
    EXPECT_EQ(one.trace.warnings, many.trace.warnings) << what << " on " << n << " threads";
    EXPECT_EQ(one.trace.sourceRecords, many.trace.sourceRecords) << what;
    EXPECT_EQ(one.trace.functions, many.trace.functions) << what;
  }
}

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

std::vector<std::string> splitLines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) lines.push_back(l);
  return lines;
}

std::string joinLines(const std::vector<std::string>& lines) {
  std::string s;
  for (const auto& l : lines) s += l + "\n";
  return s;
}

fs::path generated(const fs::path& dir, const std::string& name, const GeneratorSpec& spec) {
  const fs::path file = dir / (name + ".alog");
  auto w = makeAlogWriter(file.string());
  generateTrace(spec, *w);
  return file;
}

// Generated shapes: blocking ring, non-blocking random exchanges (PerWiz request tokens), a
// broadcast per step, no collective, imbalance, inserted states.
std::vector<std::pair<std::string, GeneratorSpec>> shapes() {
  std::vector<std::pair<std::string, GeneratorSpec>> out;
  GeneratorSpec ring;
  ring.ranks = 9;
  ring.steps = 25;
  out.emplace_back("ring", ring);
  GeneratorSpec random = ring;
  random.pattern = P2PPattern::Random;
  random.nonBlocking = true;
  random.imbalance = 0.4;
  random.seed = 5;
  out.emplace_back("random_nonblocking", random);
  GeneratorSpec bcast = ring;
  bcast.collective = MpiOp::Bcast;
  bcast.blockingCalls = BlockingCalls::SendThenRecv;
  bcast.pattern = P2PPattern::Pairs;
  out.emplace_back("pairs_bcast", bcast);
  GeneratorSpec bare = ring;
  bare.collective = MpiOp::None;
  bare.insertEvery = 3;
  out.emplace_back("no_collective_inserted", bare);
  return out;
}

// Data lines (records of processes, not headers) of a file: their indexes.
std::vector<std::size_t> dataLines(const std::vector<std::string>& lines) {
  std::vector<std::size_t> out;
  for (std::size_t i = 0; i < lines.size(); ++i)
    if (!lines[i].empty() && lines[i][0] != '-' && lines[i][0] != '#') out.push_back(i);
  return out;
}

std::string field(const std::string& line, int k) {
  std::istringstream in(line);
  std::string f;
  for (int i = 0; i <= k; ++i) in >> f;
  return f;
}

}  // namespace

TEST(AlogParallel, SharedAndProjectFilesReadTheSameOnAnyThreads) {
  std::vector<fs::path> files = perwiz::test::sharedAlogFiles();
  for (const auto& e : fs::directory_iterator(fs::path(PERWIZ_SAMPLE)))
    if (e.path().extension() == ".alog") files.push_back(e.path());
  ASSERT_GE(files.size(), 2u);  // the project's samples at least
  for (const auto& f : files) expectSameOnAnyThreads(f, f.string());
}

TEST(AlogParallel, GeneratedShapesReadTheSameOnAnyThreads) {
  const fs::path dir = freshDir("AlogParallel_shapes");
  for (const auto& [name, spec] : shapes()) expectSameOnAnyThreads(generated(dir, name, spec), name);
}

// A file cut at many places: each cut reads as on one thread (loaded with the same warnings,
// or refused with the same message).
TEST(AlogParallel, FilesCutShortReadTheSameOnAnyThreads) {
  const fs::path dir = freshDir("AlogParallel_cut");
  GeneratorSpec spec = shapes()[1].second;
  spec.steps = 6;
  const std::string text = slurp(generated(dir, "whole", spec));
  for (std::size_t k = 1; k < text.size(); k += text.size() / 37 + 1) {
    const fs::path cut = writeFile(dir / "cut.alog", text.substr(0, k));
    expectSameOnAnyThreads(cut, "cut at byte " + std::to_string(k));
  }
}

// Corruptions at many lines, each alone: a line that is no record, an absurd process id, a bad
// PerWiz token (pass 2), a carriage return inside a line, a header record in the middle, a
// message record without its "<tag> <size>", a leave without its enter.
TEST(AlogParallel, CorruptedFilesGiveTheSameErrorsAndWarnings) {
  const fs::path dir = freshDir("AlogParallel_corrupt");
  GeneratorSpec spec = shapes()[1].second;
  spec.steps = 8;
  const std::vector<std::string> lines = splitLines(slurp(generated(dir, "whole", spec)));
  const std::vector<std::size_t> data = dataLines(lines);
  ASSERT_GT(data.size(), 100u);
  const std::vector<std::pair<std::string, std::function<void(std::string&)>>> edits = {
      {"garbage", [](std::string& l) { l = "x y z"; }},
      {"short line", [](std::string& l) { l = l.substr(0, l.find(' ', l.find(' ') + 1)); }},
      {"absurd process", [](std::string& l) { l = field(l, 0) + " 2000000 0 0 0 1"; }},
      {"bad token", [](std::string& l) { l += " coll=MPI_Nothing:1"; }},
      {"lone CR", [](std::string& l) { l.insert(l.find(' '), "\r9"); }},
      {"header inside", [](std::string& l) { l += "\n-13 0 901 902 0 0 : late_state"; }},
      {"message without size", [](std::string& l) { l = "-101 " + field(l, 1) + " 0 1 0 " + field(l, 5); }},
      {"stray leave", [](std::string& l) { l += "\n2 " + field(l, 1) + " 0 0 0 " + field(l, 5); }},
  };
  for (const auto& [name, edit] : edits)
    for (std::size_t k = 0; k < data.size(); k += data.size() / 13) {
      std::vector<std::string> copy = lines;
      edit(copy[data[k]]);
      const fs::path f = writeFile(dir / "corrupt.alog", joinLines(copy));
      expectSameOnAnyThreads(f, name + " at line " + std::to_string(data[k] + 1));
    }
}

// Pass 1's line index (alog_scan.h: each line's process and length, kLongLine and beyond found
// again) under every kind of line: data records with comments around the index's length limit
// (4094 to 4096 bytes and far beyond), blank and '#' lines, MPE constants, a state defined
// half-way through the data, blanks before a CR, and a last line cut short; with LF, CRLF and
// CR-only line ends. Several threads must read what one reads.
TEST(AlogParallel, LinesOfAnyLengthAndKindReadTheSameOnAnyThreads) {
  const fs::path dir = freshDir("AlogParallel_lines");
  constexpr int kRanks = 12;
  std::string text = "-3 0 0 12 0 0\n-13 0 1 2 0 0 : compute\n-9 0 0 50 0 0 marker\n";
  const std::size_t lengths[] = {1, 4094 - 20, 4095 - 20, 4096 - 20, 4094, 4095, 4096, 9000};
  for (int step = 0; step < 6; ++step) {
    for (int r = 0; r < kRanks; ++r) {
      const std::string p = " " + std::to_string(r) + " ";
      const int t = 10 + step * 100 + r;
      text += "1" + p + "0 0 0 " + std::to_string(t) + "   \n";
      if ((r + step) % 3 == 0) text += "\n#  a comment line\n-201 0 0 -1 0 0 MPI_ANY_TAG\n";
      const std::size_t n = lengths[(r + step) % 8];
      text += "50" + p + "0 0 0 " + std::to_string(t + 5) + " " + std::string(n, static_cast<char>('a' + r)) + "\n";
      text += "2" + p + "0 0 0 " + std::to_string(t + 10) + "\n";
    }
    if (step == 2) text += "-13 0 3 4 0 0 : later\n";
    for (int r = 0; r < kRanks; r += 5)
      text += "3 " + std::to_string(r) + " 0 0 0 " + std::to_string(step * 100 + 60) + "\n4 " + std::to_string(r) +
              " 0 0 0 " + std::to_string(step * 100 + 70) + "\n";
  }
  text += "1 3 0 0 0 99";  // cut short: no line end
  auto withEnds = [&](const std::string& eol) {
    std::string out;
    for (char c : text) out += c == '\n' ? eol : std::string(1, c);
    return out;
  };
  for (const auto& [name, eol] : {std::pair<std::string, std::string>{"lf", "\n"}, {"crlf", "\r\n"}, {"cr", "\r"}}) {
    const fs::path f = writeFile(dir / (name + ".alog"), withEnds(eol));
    expectSameOnAnyThreads(f, name);
    const Outcome one = loadOn(f, 1);
    ASSERT_TRUE(one.loaded) << name << ": " << one.error;
    // Every rank's six compute calls and six markers, the later state on ranks 0, 5 and 10.
    EXPECT_EQ(one.trace.ranks[7].enter.size(), 12u) << name;
    EXPECT_EQ(one.trace.ranks[5].enter.size(), 18u) << name;
  }
}

// Many processes go wrong at once, over the cap of 20 diagnostics per kind, and the parts of
// the builder see them in another order than the file: every process has a message record
// outside any call (a zero-length synthetic call: even processes a receive first, odd ones a
// send, so later parts define the synthetic functions in another order than the first), a
// leave without an enter, and a send record without "<tag> <size>". Two errors on different
// processes: the earlier line's is reported, whichever part meets it first.
TEST(AlogParallel, DiagnosticsSyntheticCallsAndErrorsKeepTheOrderOfOneThread) {
  const fs::path dir = freshDir("AlogParallel_order");
  constexpr int kRanks = 30;
  std::string text = "-3 0 0 30 0 0\n-13 0 1 2 0 0 : compute\n-13 0 3 4 0 0 : other\n";
  for (int step = 0; step < 2; ++step)
    for (int r = kRanks - 1; r >= 0; --r) {
      const std::string p = " " + std::to_string(r) + " ";
      const int t = 10 + step * 100;
      text += "1" + p + "0 0 0 " + std::to_string(t) + "\n";
      text += "2" + p + "0 0 0 " + std::to_string(t + 10) + "\n";
      const std::string peer = std::to_string((r + 1) % kRanks);
      if (r % 2) text += "-101" + p + "0 " + peer + " 0 " + std::to_string(t + 20) + " 7 8\n";
      text += "-102" + p + "0 " + peer + " 0 " + std::to_string(t + 30) + " 7 8\n";
      text += "4" + p + "0 0 0 " + std::to_string(t + 40) + "\n";
      text += "-101" + p + "0 " + peer + " 0 " + std::to_string(t + 50) + "\n";
    }
  const fs::path f = writeFile(dir / "order.alog", text);
  expectSameOnAnyThreads(f, "many diagnostics");
  const Outcome one = loadOn(f, 1);
  ASSERT_TRUE(one.loaded) << one.error;
  EXPECT_GT(one.trace.warnings.size(), 40u);  // the test reaches the caps

  // Two errors of pass 2 on processes in different parts (bad PerWiz tokens on a state's start
  // event): the earlier line's is reported, though the part that meets it is not the first.
  std::vector<std::string> lines = splitLines(text);
  lines.insert(lines.begin() + 1, "-60 0 0 1 0 0 PerWiz extension");
  std::size_t early = 0, late = 0;  // the first enter of process 29, the last of process 0
  for (std::size_t i = lines.size(); i-- > 0;)
    if (lines[i].starts_with("1 29 ")) early = i;
  for (std::size_t i = 0; i < lines.size(); ++i)
    if (lines[i].starts_with("1 0 ")) late = i;
  ASSERT_LT(early, late);
  lines[early] += " early-token";
  lines[late] += " late-token";
  const fs::path bad = writeFile(dir / "two_errors.alog", joinLines(lines));
  expectSameOnAnyThreads(bad, "two errors");
  const std::string error = loadOn(bad, 3).error;
  EXPECT_NE(error.find("'early-token'"), std::string::npos) << error;
  EXPECT_NE(error.find("at line " + std::to_string(early + 1)), std::string::npos) << error;
}

TEST(AlogParallel, ProgressReachesOneAndCancelStopsEveryThread) {
  const fs::path dir = freshDir("AlogParallel_progress");
  GeneratorSpec spec = shapes()[0].second;
  spec.ranks = 64;
  spec.steps = 400;  // about 4 MB: several progress steps per pass
  const fs::path f = generated(dir, "big", spec);
  LoadOptions o;
  o.threads = 2;
  double last = 0;
  bool monotone = true;
  o.progress = [&](double p) {
    monotone = monotone && p >= last;
    last = p;
    return true;
  };
  const Trace t = loadTrace(f.string(), o);
  EXPECT_TRUE(monotone);
  EXPECT_DOUBLE_EQ(last, 1.0);
  std::string why;
  EXPECT_TRUE(loadOn(f, 1).trace.sameModel(t, &why)) << why;

  for (double at : {0.2, 0.7}) {  // in pass 1, in pass 2
    LoadOptions c;
    c.threads = 2;
    c.progress = [at](double p) { return p < at; };
    try {
      loadTrace(f.string(), c);
      ADD_FAILURE() << "not cancelled at " << at;
    } catch (const TraceError& e) {
      EXPECT_EQ(e.problem(), "cancelled");
    }
  }
}
