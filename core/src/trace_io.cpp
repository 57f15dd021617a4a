// Format detection, loading and saving: the front door of the core library.
#include "perwiz/trace_io.h"

#include "perwiz/pipelined_sink.h"
#include "perwiz/trace_builder.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>

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

// libotf2 anchor files start with two header bytes (a type tag and a length) followed by the
// magic "OTF2".
bool looksLikeOtf2Anchor(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  char head[6] = {};
  in.read(head, 6);
  return in.gcount() == 6 && std::string(head + 2, 4) == "OTF2";
}

// First non-blank, non-comment line of an ALOG file is six integers (the sixth may be
// decimal). Only the first 64 KiB are inspected.
bool looksLikeAlog(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::string line;
  std::size_t inspected = 0;
  while (inspected < 65536 && std::getline(in, line)) {
    if (inspected == 0 && line.starts_with("\xEF\xBB\xBF")) line.erase(0, 3);  // UTF-8 BOM
    inspected += line.size() + 1;
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

using ReadFn = void (*)(const std::string&, TraceSink&, const LoadOptions&);

Trace build(const std::string& path, const char* format, ReadFn read, const LoadOptions& opts,
            bool pipelined) {
  TraceBuilder b(path, format);
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
}

}  // namespace

TraceFormat detectFormat(const std::string& path) {
  std::error_code ec;
  fs::file_status st = fs::status(path, ec);
  if (ec || !fs::exists(st)) throw TraceError(path, "no such file or directory");
  std::string file = path;
  if (fs::is_directory(st)) {
    file = resolveOtf2Anchor(path);
    if (!looksLikeOtf2Anchor(file)) throw TraceError(file, "not an OTF2 anchor file");
    return TraceFormat::Otf2;
  }
  std::ifstream probe(file, std::ios::binary);
  if (!probe) throw TraceError(path, "cannot be opened for reading");
  if (fs::file_size(file, ec) == 0) throw TraceError(path, "file is empty");
  if (looksLikeOtf2Anchor(file)) return TraceFormat::Otf2;
  if (looksLikeAlog(file)) return TraceFormat::Alog;
  return TraceFormat::Unknown;
}

Trace loadTrace(const std::string& path, const LoadOptions& opts) {
  TraceFormat f = detectFormat(path);
  switch (f) {
    case TraceFormat::Alog: return build(path, "alog", readAlog, opts, false);
    case TraceFormat::Otf2: return build(path, "otf2", readOtf2, opts, opts.pipelined);
    case TraceFormat::Unknown: break;
  }
  throw TraceError(path, "unknown trace format (neither an OTF2 archive nor ALOG text)");
}

TraceFormat outputFormatFor(const std::string& path) {
  std::string l = lower(path);
  if (endsWith(l, ".alog") || endsWith(l, ".log")) return TraceFormat::Alog;
  return TraceFormat::Otf2;
}

std::vector<std::string> traceOutputPaths(const std::string& path) {
  if (!endsWith(path, ".otf2")) return {path};
  const fs::path anchor(path);
  fs::path stem = anchor;
  stem.replace_extension();
  return {path, stem.string() + ".def", stem.string()};
}

void saveTrace(const Trace& trace, const std::string& path) {
  auto writer = outputFormatFor(path) == TraceFormat::Alog ? makeAlogWriter(path)
                                                           : makeOtf2Writer(path);
  emitTrace(trace, *writer);
}

}  // namespace perwiz
