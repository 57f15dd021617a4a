// Format detection, loading and saving: the front door of the core library.
#include "perwiz/trace_io.h"

#include "perwiz/pipelined_sink.h"
#include "perwiz/trace_builder.h"

#include "perwiz/internal/otf_common.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstring>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <limits>
#include <new>
#include <string_view>
#include <sys/resource.h>

namespace fs = std::filesystem;

namespace perwiz {
namespace {

bool endsWith(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// True if the regular file p holds `magic` at byte `at`.
bool hasMagic(const fs::path& p, std::size_t at, std::string_view magic) {
  std::error_code ec;
  if (!fs::is_regular_file(p, ec)) return false;
  std::ifstream in(p, std::ios::binary);
  std::string head(at + magic.size(), '\0');
  in.read(head.data(), static_cast<std::streamsize>(head.size()));
  return static_cast<std::size_t>(in.gcount()) == head.size() && std::string_view(head).substr(at) == magic;
}

// libotf2 anchor files start with two header bytes (a type tag and a length) followed by the
// magic "OTF2".
bool looksLikeOtf2Anchor(const fs::path& p) { return hasMagic(p, 2, "OTF2"); }

// MPE's binary CLOG2 log starts with its preamble's version string, "CLOG-02.nn".
bool looksLikeClog2(const fs::path& p) { return hasMagic(p, 0, "CLOG-02"); }

// Older MPE formats PerWiz does not read, named when refusing them (docs/trace-model.md).
// SLOG-2 (Jumpshot-4's format) has "SLOG 2.0.x" at byte 2.
bool looksLikeSlog2(const fs::path& p) { return hasMagic(p, 2, "SLOG 2"); }

// CLOG (MPE 1.1-1.2, "CLOG-1") has no header: blocks of 1024 or 65536 bytes of big-endian
// records {double timestamp, int rectype, int length (doubles), int procid, int pad}. The first
// record's rectype is -2..8, its length 3..64 doubles, its procid >= 0, its time finite >= 0.
bool looksLikeClog1(const fs::path& p) {
  std::error_code ec;
  const std::uintmax_t size = fs::file_size(p, ec);
  if (ec || size < 1024 || (size % 1024) != 0) return false;
  std::ifstream in(p, std::ios::binary);
  unsigned char h[24] = {};
  in.read(reinterpret_cast<char*>(h), 24);
  if (in.gcount() != 24) return false;
  auto be32 = [&](int at) {
    return static_cast<std::int32_t>((std::uint32_t{h[at]} << 24) | (std::uint32_t{h[at + 1]} << 16) |
                                     (std::uint32_t{h[at + 2]} << 8) | h[at + 3]);
  };
  std::uint64_t bits = 0;
  for (int i = 0; i < 8; ++i) bits = (bits << 8) | h[i];
  double time = 0;
  std::memcpy(&time, &bits, sizeof time);
  const std::int32_t type = be32(8), length = be32(12), proc = be32(16);
  return std::isfinite(time) && time >= 0 && type >= -2 && type <= 8 && length >= 3 && length <= 64 && proc >= 0 &&
         proc < (1 << 24);
}

// The refusal for a file of a format PerWiz does not read, or "" if it is none of those.
std::string otherFormatProblem(const fs::path& p) {
  const std::string ext = lower(p.extension().string());
  if (looksLikeClog2(p))
    return "a CLOG2 file (MPE's binary log), which PerWiz does not read: convert it to ALOG with MPE's clog2alog "
           "where your MPE has it, or log ALOG directly (MPE_LOG_FORMAT=ALOG with MPE 1); clog2TOslog2 makes "
           "SLOG-2 for Jumpshot, which PerWiz does not read either";
  if (looksLikeSlog2(p))
    return "an SLOG-2 file (Jumpshot-4's format), which PerWiz does not read: open the CLOG2 log it was made "
           "from after converting that to ALOG (clog2alog), or trace the program again with MPE_LOG_FORMAT=ALOG "
           "or with Score-P (OTF2)";
  if (ext == ".rlog")
    return "an RLOG file (MPE2's intermediate log), which PerWiz does not read: convert it to CLOG2 and then "
           "to ALOG with MPE's tools, or trace the program again with Score-P (OTF2) or MPE_LOG_FORMAT=ALOG";
  if (looksLikeClog1(p) || ext == ".clog")
    return "a CLOG file (MPE 1's binary log, CLOG-1), which PerWiz does not read: convert it with MPE's "
           "clog2alog (MPICH 1.x) to ALOG, which PerWiz reads";
  return "";
}

// A file of an OTF (version 1) archive, or a directory holding one archive, stands for its
// master control file X.otf: X.0.def[.z], X.0.marker[.z], X.<hex>.events[.z].
std::string otfAnchorOf(const std::string& path) {
  std::error_code ec;
  const fs::path p(path);
  if (fs::is_directory(p, ec)) {
    std::vector<fs::path> anchors;
    bool otf2 = false;
    for (const auto& e : fs::directory_iterator(p, ec)) {
      const std::string ext = e.path().extension().string();
      if (ext == ".otf2") otf2 = true;
      if (ext == ".otf" && e.is_regular_file(ec) && otf::looksLikeAnchor(e.path().string())) anchors.push_back(e.path());
    }
    if (otf2 || anchors.empty()) return path;
    if (anchors.size() > 1)
      throw TraceError(path, "directory holds " + std::to_string(anchors.size()) + " OTF archives (*.otf); name one of them");
    return anchors.front().string();
  }
  std::string name = p.filename().string();
  if (endsWith(name, ".z")) name.resize(name.size() - 2);
  std::string stub;
  if (endsWith(name, ".0.def")) stub = name.substr(0, name.size() - 6);
  else if (endsWith(name, ".0.marker")) stub = name.substr(0, name.size() - 9);
  else if (endsWith(name, ".events")) {
    const std::string head = name.substr(0, name.size() - 7);
    const std::size_t dot = head.rfind('.');
    if (dot == std::string::npos || dot + 1 == head.size()) return path;
    for (std::size_t i = dot + 1; i < head.size(); ++i)
      if (!std::isxdigit(static_cast<unsigned char>(head[i]))) return path;
    stub = head.substr(0, dot);
  }
  if (stub.empty()) return path;
  const fs::path anchor = p.parent_path() / (stub + ".otf");
  return fs::is_regular_file(anchor, ec) && otf::looksLikeAnchor(anchor.string()) ? anchor.string() : path;
}

// First non-blank, non-comment line of an ALOG file is six integers (the sixth may be
// decimal). Only the first 64 KiB are inspected.
// Judged on the first 64 KiB only (kDetectBytes), read at once: a file without line ends (a
// gigabyte of NULs) costs 64 KiB, not a line as long as the file.
constexpr std::size_t kDetectBytes = 65536;

bool looksLikeAlog(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::string head(kDetectBytes, '\0');
  in.read(head.data(), static_cast<std::streamsize>(head.size()));
  head.resize(static_cast<std::size_t>(in.gcount()));
  std::istringstream lines(std::move(head));
  std::string line;
  bool first = true;
  while (std::getline(lines, line)) {
    if (first && line.starts_with("\xEF\xBB\xBF")) line.erase(0, 3);  // UTF-8 BOM
    first = false;
    std::size_t i = 0;
    // Skip blanks and '#' comments; a file with CR-only line ends is one getline, so there a
    // comment ends at a CR.
    for (;;) {
      while (i < line.size() && std::isspace(static_cast<unsigned char>(line[i]))) ++i;
      if (i == line.size() || line[i] != '#') break;
      i = std::min(line.find('\r', i), line.size());
    }
    if (i == line.size()) continue;
    int fields = 0;
    while (fields < 6) {
      while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
      std::size_t start = i;
      if (i < line.size() && (line[i] == '-' || line[i] == '+')) ++i;
      std::size_t digits = i;
      while (i < line.size() && std::isdigit(static_cast<unsigned char>(line[i]))) ++i;
      if (fields == 5 && i < line.size() && line[i] == '.') {
        ++i;
        while (i < line.size() && std::isdigit(static_cast<unsigned char>(line[i]))) ++i;
      }
      if (i == digits || i == start) return false;
      if (i < line.size() && !std::isspace(static_cast<unsigned char>(line[i]))) return false;
      ++fields;
    }
    return true;
  }
  return false;
}

// What stat() says a path is, for "not a regular file (...)".
const char* fileTypeName(fs::file_type t) {
  switch (t) {
    case fs::file_type::directory: return "a directory";
    case fs::file_type::fifo: return "a named pipe (FIFO)";
    case fs::file_type::character: return "a character device";
    case fs::file_type::block: return "a block device";
    case fs::file_type::socket: return "a socket";
    default: return "not a plain file";
  }
}

std::uint64_t fileBytes(const fs::path& p) {
  std::error_code ec;
  const std::uintmax_t n = fs::file_size(p, ec);
  return ec ? 0 : static_cast<std::uint64_t>(n);
}

// Peak resident memory of a load per byte of input, measured (docs/performance.md, "Memory
// estimate before loading": at most 2.3 B per ALOG byte, the mapped file included; for OTF2 a
// fixed part of about 75 MB for 64 locations (libotf2's chunk buffers and the reader's batches)
// and at most 3.5 B per event-file byte beyond it, measured from 10^6 to 10^8 events) with
// about 30 % to spare, plus the process's own.
constexpr double kAlogBytesPerFileByte = 3.0;
constexpr double kOtf2BytesPerEventFileByte = 5.0;
constexpr std::uint64_t kOtf2BytesPerLocation = std::uint64_t{1} << 20;
constexpr double kOtf2BytesPerDefinitionFileByte = 4.0;  // libotf2 reads them whole, we copy
constexpr std::uint64_t kLoadBaseBytes = std::uint64_t{32} << 20;
// OTF (version 1) is ASCII like ALOG, about 20 B per record; zlib-compressed streams shrink
// about 6 ×.
constexpr double kOtfBytesPerFileByte = 3.0;
constexpr double kOtfBytesPerCompressedByte = 18.0;

using ReadFn = void (*)(const std::string&, TraceSink&, const LoadOptions&);

Trace build(const std::string& path, const char* format, ReadFn read, const LoadOptions& opts,
            bool pipelined) {
  TraceBuilder b(path, format);
  if (!opts.allRanks()) b.keepUnusedFunctions();
  // An OTF2 share holds its ranks' records only (ALOG and OTF are read whole, then cut).
  if (!opts.allRanks() && std::string_view(format) == "otf2") b.skipMatchingDiagnostics();
  try {
    if (pipelined) {
      // The reader decodes on this thread while the builder stores on another.
      PipelinedSink pipe(b);
      read(path, pipe, opts);
      pipe.end();  // idempotent: readers may already have ended the stream
    } else {
      read(path, b, opts);
      b.end();
    }
    return b.take();
  } catch (const std::bad_alloc&) {
    // The pipeline's worker has stopped (its destructor ran), so the builder can be asked.
    const std::uint64_t available = opts.memoryAvailable ? opts.memoryAvailable : availableMemory();
    throw TraceError(path, "out of memory while building " + b.activity() +
                               (available == kMemoryUnlimited ? std::string()
                                                        : " (" + formatBytes(available) + " available)"));
  }
}

// A format read whole (ALOG, OTF) under a rank range: the ranks outside it are emptied (their
// names kept) and the endpoints matched to them unmatched, as if only the range had been read.
Trace keepRanks(Trace t, const LoadOptions& opts) {
  if (opts.allRanks()) return t;
  t.threads.clear();  // a share reads ranks only (as readOtf2 does)
  for (std::uint32_t r = 0; r < t.ranks.size(); ++r) {
    RankTrace& rt = t.ranks[r];
    if (!opts.readsRank(r, static_cast<std::uint32_t>(t.ranks.size()))) {
      RankTrace empty;
      empty.name = std::move(rt.name);
      rt = std::move(empty);
      for (ParallelStep& s : t.steps)
        if (r < s.ranks.size()) s.ranks[r] = StepSpan{};
      continue;
    }
    for (std::size_t i = 0; i < rt.messages.size(); ++i) {
      const MessageEndpoint m = rt.messages[i];
      if (m.matched() && !opts.readsRank(m.matchRank, static_cast<std::uint32_t>(t.ranks.size())))
        rt.messages.setMatch(i, kNone32, kNone32);
    }
    rt.messages.seal();  // packed again if a match was cleared
  }
  return t;
}

}  // namespace

RankRange rankShare(std::uint32_t ranks, std::uint32_t i, std::uint32_t n) {
  if (n == 0) return {0, ranks};
  return {static_cast<std::uint32_t>(std::uint64_t{ranks} * i / n), static_cast<std::uint32_t>(std::uint64_t{ranks} * (i + 1) / n)};
}

std::uint32_t shareOfRank(std::uint32_t ranks, std::uint32_t r, std::uint32_t n) {
  // The largest i with first(i) = floor(R·i/n) <= r.
  std::uint32_t i = static_cast<std::uint32_t>(std::min<std::uint64_t>(n - 1, (std::uint64_t{r} * n + n - 1) / std::max<std::uint32_t>(1, ranks)));
  while (i > 0 && rankShare(ranks, i, n).first > r) --i;
  while (i + 1 < n && rankShare(ranks, i + 1, n).first <= r) ++i;
  return i;
}

bool LoadOptions::readsRank(std::uint32_t r, std::uint32_t ranks) const {
  return allRanks() || rankShare(ranks, shareIndex, shareCount).contains(r);
}

TraceFormat detectFormat(const std::string& given) {
  std::error_code ec;
  if (!fs::exists(given, ec)) throw TraceError(given, "no such file or directory");
  const std::string path = otfAnchorOf(given);
  fs::file_status st = fs::status(path, ec);
  if (ec || !fs::exists(st)) throw TraceError(path, "no such file or directory");
  std::string file = path;
  if (fs::is_directory(st)) {
    file = resolveOtf2Anchor(path);
    if (!looksLikeOtf2Anchor(file)) throw TraceError(file, "not an OTF2 anchor file");
    return TraceFormat::Otf2;
  }
  // stat before opening: a FIFO would block the open, /dev/zero would be read forever.
  if (!fs::is_regular_file(st))
    throw TraceError(path, std::string("not a regular file (") + fileTypeName(st.type()) + ")");
  std::ifstream probe(file, std::ios::binary);
  if (!probe) throw TraceError(path, "cannot be opened for reading");
  if (fs::file_size(file, ec) == 0) throw TraceError(path, "file is empty");
  if (looksLikeOtf2Anchor(file)) return TraceFormat::Otf2;
  if (otf::looksLikeAnchor(file)) return TraceFormat::Otf;
  // X.otf holding stream lines without its X.0.def: an OTF archive missing a file, which the
  // reader names (not "unknown trace format").
  if (lower(fs::path(file).extension().string()) == ".otf" && otf::looksLikeAnchor(file, false)) return TraceFormat::Otf;
  if (looksLikeAlog(file)) return TraceFormat::Alog;
  return TraceFormat::Unknown;
}

static std::uint64_t estimateFor(const std::string& path, TraceFormat f) {
  double bytes = 0;
  if (f == TraceFormat::Otf2) {
    // Counts in an OTF2 archive (events per location) are claims; the files' sizes bound them.
    const fs::path anchor(resolveOtf2Anchor(path));
    const fs::path dir = anchor.parent_path().empty() ? fs::path(".") : anchor.parent_path();
    const std::string name = anchor.stem().string();
    bytes += kOtf2BytesPerDefinitionFileByte * static_cast<double>(fileBytes(dir / (name + ".def")));
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(dir / name, ec)) {
      if (!e.is_regular_file(ec)) continue;
      const std::string ext = e.path().extension().string();
      const double n = static_cast<double>(e.file_size(ec));
      if (ext == ".evt") bytes += kOtf2BytesPerEventFileByte * n + static_cast<double>(kOtf2BytesPerLocation);
      else if (ext == ".def") bytes += kOtf2BytesPerDefinitionFileByte * n;
    }
  } else if (f == TraceFormat::Otf) {
    bool compressed = false;
    const double n = static_cast<double>(otf::archiveBytes(path, &compressed));
    bytes = (compressed ? kOtfBytesPerCompressedByte : kOtfBytesPerFileByte) * n;
  } else {
    bytes = kAlogBytesPerFileByte * static_cast<double>(fileBytes(path));
  }
  return kLoadBaseBytes + static_cast<std::uint64_t>(std::min(bytes, 1.8e19));
}

std::uint64_t estimateLoadMemory(const std::string& given) {
  const std::string path = otfAnchorOf(given);
  return estimateFor(path, detectFormat(path));
}

Trace loadTrace(const std::string& given, const LoadOptions& opts) {
  const std::string path = otfAnchorOf(given);  // an OTF archive's file or directory: its X.otf
  TraceFormat f = detectFormat(path);
  if (f != TraceFormat::Unknown) {
    const std::uint64_t needed = estimateFor(path, f);
    const std::uint64_t available = opts.memoryAvailable ? opts.memoryAvailable : availableMemory();
    if (needed > available)
      throw TraceError(path, "needs about " + formatBytes(needed) + " of memory to load, " +
                                 formatBytes(available) + " available");
  }
  switch (f) {
    case TraceFormat::Alog: return keepRanks(build(path, "alog", readAlog, opts, false), opts);
    // readOtf2 pipelines or spreads over threads itself: it knows the ranks and their sizes.
    case TraceFormat::Otf2: return build(path, "otf2", readOtf2, opts, false);
    case TraceFormat::Otf: return keepRanks(build(path, "otf", readOtf, opts, opts.pipelined), opts);
    case TraceFormat::Unknown: break;
  }
  if (const std::string problem = otherFormatProblem(path); !problem.empty()) throw TraceError(path, problem);
  throw TraceError(path, "unknown trace format (not an OTF2 archive, an OTF master control file or ALOG text)");
}

TraceFormat outputFormatFor(const std::string& path) {
  std::string l = lower(path);
  if (endsWith(l, ".alog") || endsWith(l, ".log")) return TraceFormat::Alog;
  if (endsWith(l, ".otf")) return TraceFormat::Otf;
  return TraceFormat::Otf2;
}

std::vector<std::string> traceOutputPaths(const std::string& path) {
  if (endsWith(path, ".otf")) {
    const std::string stub = otf::nameStub(path);
    return {path, stub + ".0.def", stub + ".0.marker", stub + ".1.events"};
  }
  if (!endsWith(path, ".otf2")) return {path};
  const fs::path anchor(path);
  fs::path stem = anchor;
  stem.replace_extension();
  return {path, stem.string() + ".def", stem.string()};
}

void saveTrace(const Trace& trace, const std::string& path) {
  const TraceFormat f = outputFormatFor(path);
  auto writer = f == TraceFormat::Alog ? makeAlogWriter(path)
                : f == TraceFormat::Otf ? makeOtfWriter(path)
                                        : makeOtf2Writer(path);
  emitTrace(trace, *writer);
}

}  // namespace perwiz
