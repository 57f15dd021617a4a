// The reliability sweep of issue #38 as a test: every shared trace (ALOG files, OTF 1 and OTF2
// archives of other producers) with every file of it cut at chosen offsets and bytes flipped,
// each damaged copy loaded in a child process under a time limit. Every case must end as
//   - refused: a TraceError naming a file of the damaged copy, or
//   - loaded, with (a) a duration no longer than the whole trace's (a cut loses time, it never
//     makes any; flips may change a time, so they are not held to it) and (b) at least one
//     warning whenever events were lost;
// never a signal (a crash) and never the time limit (a hang).
//
// The damaged copy is a directory of symbolic links to the original files with the one damaged
// file written in full, so a case costs one file's bytes. Cases run two at a time.
//
// Sized for CI (a few minutes): 40 cuts and 8 flips of every file, except that an archive's
// event streams beyond its first three get 10 cuts and 4 flips (fewer under ASan, below). PERWIZ_SWEEP_FULL=1 gives every
// file 40 cuts and 8 flips (the counts in docs/robustness.md). Skips when ../shared is absent.
#include "test_support.h"

#include "perwiz/trace_io.h"

#include <gtest/gtest.h>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

namespace fs = std::filesystem;
using namespace perwiz;

namespace {

constexpr unsigned kCaseSeconds = 60;  // a hang: far beyond any shared trace's load (< 1 s)

struct Whole {
  std::uint64_t events = 0;
  TimeNs duration = 0;
};

struct Outcome {
  enum Kind { Refused, Loaded, Crashed, Hung, Broken } kind = Broken;
  std::string text;  // the refusal, or "events duration warnings"
  std::uint64_t events = 0;
  TimeNs duration = 0;
  std::size_t warnings = 0;
};

struct Case {
  fs::path dir;      // the damaged copy (directory of links and the one written file)
  fs::path load;     // what to load in it
  std::string what;  // "file cut at N" for messages
  bool cut = true;
  pid_t pid = -1;
  int fd = -1;
};

struct Counts {
  std::size_t cases = 0, refused = 0, loadedWithWarnings = 0, loadedIntact = 0;
};

// Under AddressSanitizer (the CI's sanitizer build runs this test too) every load costs
// several times more: fewer cases per file (8 cuts and 2 flips; 3 and 1 for streams past the
// third), still every file of every trace.
#if defined(__SANITIZE_ADDRESS__)
constexpr bool kUnderAsan = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
constexpr bool kUnderAsan = true;
#else
constexpr bool kUnderAsan = false;
#endif
#else
constexpr bool kUnderAsan = false;
#endif

bool fullSweep() {
  const char* v = std::getenv("PERWIZ_SWEEP_FULL");
  return v && *v && std::string(v) != "0";
}

std::string readFile(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}

// The child: load, report through the pipe, exit.
void runChild(const fs::path& load, int fd) {
  ::alarm(kCaseSeconds);
  std::string out;
  try {
    LoadOptions o;
    o.threads = 1;
    const Trace t = loadTrace(load.string(), o);
    out = "L " + std::to_string(t.eventCount() + t.threadEventCount()) + " " + std::to_string(t.duration()) + " " +
          std::to_string(t.warnings.size());
  } catch (const TraceError& e) {
    out = std::string("R ") + e.what();
  } catch (const std::exception& e) {
    out = std::string("X ") + e.what();
  }
  const char* p = out.data();
  std::size_t left = out.size();
  while (left > 0) {
    const ssize_t n = ::write(fd, p, left);
    if (n <= 0) break;
    p += n;
    left -= static_cast<std::size_t>(n);
  }
  ::_exit(0);
}

void start(Case& c) {
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  c.pid = ::fork();
  if (c.pid == 0) {
    ::close(fds[0]);
    runChild(c.load, fds[1]);
  }
  ::close(fds[1]);
  c.fd = fds[0];
}

Outcome finish(Case& c) {
  std::string text;
  char buf[4096];
  for (ssize_t n; (n = ::read(c.fd, buf, sizeof buf)) > 0;) text.append(buf, static_cast<std::size_t>(n));
  ::close(c.fd);
  int status = 0;
  ::waitpid(c.pid, &status, 0);
  Outcome o;
  if (WIFSIGNALED(status)) {
    o.kind = WTERMSIG(status) == SIGALRM ? Outcome::Hung : Outcome::Crashed;
    o.text = "signal " + std::to_string(WTERMSIG(status));
    return o;
  }
  o.text = text.size() > 2 ? text.substr(2) : text;
  if (text.rfind("R ", 0) == 0) {
    o.kind = Outcome::Refused;
  } else if (text.rfind("L ", 0) == 0) {
    o.kind = Outcome::Loaded;
    std::istringstream in(o.text);
    in >> o.events >> o.duration >> o.warnings;
  }
  return o;
}

// A directory standing for `archive` (a directory, or the one file of an ALOG trace) in which
// `damaged` (a path relative to the archive) has the given bytes and every other file is a
// link to its original. The links are made once per directory; a case rewrites one file (and
// links back the file the previous case of the directory had damaged).
class CopyDir {
 public:
  CopyDir(fs::path archive, bool isDir, fs::path dir) : archive_(std::move(archive)), isDir_(isDir), dir_(std::move(dir)) {
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    if (!isDir_) return;
    for (const auto& e : fs::recursive_directory_iterator(archive_)) {
      const fs::path rel = fs::relative(e.path(), archive_);
      if (e.is_directory()) fs::create_directories(dir_ / rel);
      else fs::create_symlink(e.path(), dir_ / rel);
    }
  }
  void damage(const fs::path& rel, const std::string& bytes) {
    if (isDir_ && !damaged_.empty() && damaged_ != rel) {
      fs::remove(dir_ / damaged_);
      fs::create_symlink(archive_ / damaged_, dir_ / damaged_);
    }
    fs::remove(dir_ / rel);
    std::ofstream(dir_ / rel, std::ios::binary).write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    damaged_ = rel;
  }
  const fs::path& dir() const { return dir_; }

 private:
  fs::path archive_;
  bool isDir_;
  fs::path dir_;
  fs::path damaged_;
};

// Every regular file of the archive (relative paths), streams (the biggest group) last.
std::vector<fs::path> filesOf(const fs::path& archive, bool isDir) {
  if (!isDir) return {archive.filename()};
  std::vector<fs::path> files;
  for (const auto& e : fs::recursive_directory_iterator(archive))
    if (e.is_regular_file()) files.push_back(fs::relative(e.path(), archive));
  std::sort(files.begin(), files.end());
  return files;
}

bool isStream(const fs::path& rel) {
  const std::string n = rel.filename().string();
  return n.find(".events") != std::string::npos || n.ends_with(".evt");
}

std::vector<std::size_t> offsets(std::size_t size, std::size_t count) {
  std::vector<std::size_t> at;
  if (size <= count + 2) {
    for (std::size_t i = 0; i < size; ++i) at.push_back(i);
    return at;
  }
  at.push_back(0);
  for (std::size_t k = 1; k <= count; ++k) at.push_back(size * k / (count + 1));
  at.push_back(size - 1);
  std::sort(at.begin(), at.end());
  at.erase(std::unique(at.begin(), at.end()), at.end());
  return at;
}

// Sweeps one trace: `archive` is a directory (OTF, OTF2) loaded through `anchorRel`, or an ALOG
// file. Adds to `counts`; every failure is a test failure naming the case.
void sweep(const fs::path& archive, const fs::path& anchorRel, Counts& counts) {
  SCOPED_TRACE(archive.string());
  const bool isDir = fs::is_directory(archive);
  const fs::path original = isDir ? archive / anchorRel : archive;
  Whole whole;
  {
    const Trace t = loadTrace(original.string());
    whole.events = t.eventCount() + t.threadEventCount();
    whole.duration = t.duration();
  }
  const fs::path scratch = test::freshDir("sweep_" + archive.filename().string());
  const bool full = fullSweep();
  std::vector<Case> pending;
  auto judge = [&](Case& c) {
    const Outcome o = finish(c);
    ++counts.cases;
    const std::string where = c.what + " (" + c.dir.string() + ")";
    switch (o.kind) {
      case Outcome::Hung: ADD_FAILURE() << where << ": no answer in " << kCaseSeconds << " s (a hang)"; break;
      case Outcome::Crashed: ADD_FAILURE() << where << ": crashed (" << o.text << ")"; break;
      case Outcome::Broken: ADD_FAILURE() << where << ": " << o.text; break;
      case Outcome::Refused:
        ++counts.refused;
        EXPECT_NE(o.text.find(c.dir.string()), std::string::npos) << where << ": a refusal naming no file: " << o.text;
        break;
      case Outcome::Loaded:
        if (c.cut) {
          EXPECT_LE(o.duration, whole.duration) << where << ": a cut trace lasts longer than the whole";
        }
        if (o.events < whole.events) {
          EXPECT_GT(o.warnings, 0u) << where << ": " << (whole.events - o.events) << " of " << whole.events
                                    << " events lost without a warning";
        }
        (o.warnings > 0 ? counts.loadedWithWarnings : counts.loadedIntact)++;
        break;
    }
  };
  // Two cases at a time, each in its own directory: the one the running case does not use.
  CopyDir copies[2] = {CopyDir(archive, isDir, scratch / "c0"), CopyDir(archive, isDir, scratch / "c1")};
  auto submit = [&](const fs::path& rel, const std::string& bytes, const std::string& what, bool cut) {
    while (pending.size() >= 2) {
      judge(pending.front());
      pending.erase(pending.begin());
    }
    CopyDir& copy = !pending.empty() && pending.front().dir == copies[0].dir() ? copies[1] : copies[0];
    copy.damage(rel, bytes);
    Case c;
    c.dir = copy.dir();
    c.load = isDir ? c.dir / anchorRel : c.dir / rel;
    c.what = rel.string() + " " + what;
    c.cut = cut;
    start(c);
    pending.push_back(c);
  };
  std::size_t streams = 0;
  for (const fs::path& rel : filesOf(archive, isDir)) {
    const bool reduced = !full && isStream(rel) && ++streams > 3;
    std::size_t cuts = reduced ? 10 : 40, flips = reduced ? 4 : 8;
    if (kUnderAsan && !full) {
      // Under ASan the sweep looks for memory errors, not for the readers' answers (the plain
      // build checks those on every stream): one stream in three beyond the first three.
      if (reduced && streams % 3 != 0) continue;
      cuts = reduced ? 3 : 8;
      flips = reduced ? 1 : 2;
    }
    const std::string bytes = readFile(isDir ? archive / rel : archive);
    for (std::size_t at : offsets(bytes.size(), cuts)) submit(rel, bytes.substr(0, at), "cut at " + std::to_string(at), true);
    for (std::size_t k = 1; k <= flips && !bytes.empty(); ++k) {
      const std::size_t at = bytes.size() * k / (flips + 1);
      std::string flipped = bytes;
      flipped[at] = static_cast<char>(flipped[at] ^ (1 << (k % 8)));
      submit(rel, flipped, "bit " + std::to_string(k % 8) + " of byte " + std::to_string(at) + " flipped", false);
    }
  }
  for (Case& c : pending) judge(c);
  fs::remove_all(scratch);
}

void report(const char* family, const Counts& c) {
  std::printf("sweep %s: %zu cases: %zu refused naming a file, %zu loaded with warnings, %zu loaded without loss\n",
              family, c.cases, c.refused, c.loadedWithWarnings, c.loadedIntact);
}

}  // namespace

TEST(Sweep, SharedAlogFiles) {
  const auto files = test::sharedAlogFiles();
  if (files.empty()) GTEST_SKIP() << "shared traces absent (PERWIZ_SHARED_TRACES)";
  Counts c;
  for (const fs::path& f : files) sweep(f, {}, c);
  report("alog", c);
}

TEST(Sweep, SharedOtf1Archives) {
  const fs::path root = test::sharedTraces();
  if (root.empty() || !fs::is_directory(root / "otf1")) GTEST_SKIP() << "shared traces absent (PERWIZ_SHARED_TRACES)";
  Counts c;
  for (const auto& e : fs::directory_iterator(root / "otf1")) {
    if (!e.is_directory()) continue;
    fs::path anchor;
    for (const auto& f : fs::directory_iterator(e.path()))
      if (f.path().extension() == ".otf") anchor = f.path().filename();
    if (!anchor.empty()) sweep(e.path(), anchor, c);
  }
  report("otf1", c);
}

TEST(Sweep, SharedOtf2Archives) {
  const auto archives = test::sharedOtf2Archives();
  if (archives.empty()) GTEST_SKIP() << "shared traces absent (PERWIZ_SHARED_TRACES)";
  Counts c;
  for (const fs::path& a : archives) {
    fs::path anchor;
    for (const auto& f : fs::directory_iterator(a))
      if (f.path().extension() == ".otf2") anchor = f.path().filename();
    if (!anchor.empty()) sweep(a, anchor, c);
  }
  report("otf2", c);
}
