#include "alog_scan.h"

namespace perwiz::alog {
namespace {

constexpr std::size_t kTickBytes = std::size_t{1} << 20;

void noteProcess(ChunkScan& s, std::int64_t process, std::int64_t line) {
  if (process > s.maxProcess) s.maxProcess = process, s.maxProcessLine = line;
  const auto p = static_cast<std::size_t>(process);
  if (p >= s.recordsPerProcess.size()) s.recordsPerProcess.resize(p + 1, 0);
  ++s.recordsPerProcess[p];
}

// A data record (not a header): what pass 1 gathers from it.
void scanDataRecord(ChunkScan& s, const Record& rec, std::int64_t line) {
  ++s.dataRecords;
  if (rec.type == kConstDef) return;  // MPI constants logged by MPE 1.2 (§2), not events
  noteProcess(s, rec.process, line);
  s.stampsByCycle[rec.cycle].add(rec.stampNs, line);
  if (rec.type == kSend || rec.type == kRecv) {
    std::int32_t tag;
    std::uint64_t bytes;
    if (parseMessageComment(rec.comment, tag, bytes)) return;
    // Kept as a lone event, with a warning when the records are streamed.
    if (++s.messageWarnings <= kMaxWarningsPerKind) s.messageWarningLines.push_back(line);
  }
  s.pointTypes.insert(rec.type);
}

}  // namespace

bool hasLoneCr(std::string_view line) {
  const char* p = static_cast<const char*>(std::memchr(line.data(), '\r', line.size()));
  if (!p) return false;
  const char* end = line.data() + line.size();
  while (p < end && isBlank(*p)) ++p;
  return p < end;
}

ChunkScan scanChunk(std::string_view chunk, char eol, bool lf, bool last, const std::function<void(std::size_t)>& tick,
                    const std::atomic<bool>& stop, bool index) {
  ChunkScan s;
  // Text never holds NUL bytes; one is the surest sign of a binary file. memchr over the whole
  // chunk is far cheaper than checking every line, and so is finding whether any line holds a CR.
  s.nul = static_cast<const char*>(std::memchr(chunk.data(), '\0', chunk.size()));
  if (s.nul) return s;
  const bool hasCr = lf && std::memchr(chunk.data(), '\r', chunk.size());
  LineCursor cur(chunk, eol);
  std::string_view line;
  Record rec;
  const char* nextTick = chunk.data() + kTickBytes;
  // Address space only until written: enough for lines of 16 bytes, so no copy on the way.
  if (index) s.lineIndex.reserve(chunk.size() / 16);
  while (cur.next(line)) {
    if (index) s.lineIndex.push_back(line_index::entry(line.size(), line_index::kNotStreamed));
    if (cur.position() >= nextTick) {
      nextTick = cur.position() + kTickBytes;
      if (tick) tick(static_cast<std::size_t>(cur.position() - chunk.data()));
      if (stop.load(std::memory_order_relaxed)) break;
    }
    const std::int64_t lineNo = cur.lineNo();
    if (hasCr && hasLoneCr(line)) {
      if (++s.loneCrBeyond <= kMaxWarningsPerKind) s.entries.push_back({ScanEntry::LoneCr, lineNo, line});
    }
    if (isSkippableLine(line)) continue;
    if (!cur.complete()) {
      // Only the file's last line can lack its line end.
      if (last) s.entries.push_back({ScanEntry::Cut, lineNo, line});
      continue;
    }
    if (!parseRecord(line, rec, s.problem)) {
      s.errorLine = lineNo;
      break;
    }
    s.sawRecord = true;
    if (rec.process < 0 || rec.process > kMaxProcessId) {
      s.errorLine = lineNo;
      s.absurdProcess = true;
      s.errorProcess = rec.process;
      break;
    }
    if (isHeaderType(rec.type))
      s.entries.push_back({ScanEntry::Header, lineNo, line});
    else
      scanDataRecord(s, rec, lineNo);
    if (index && !isHeaderType(rec.type) && rec.type != kConstDef)
      s.lineIndex.back() = line_index::entry(line.size(), static_cast<std::uint32_t>(rec.process));
  }
  s.lines = cur.lineNo();
  s.loneCrBeyond = s.loneCrBeyond > kMaxWarningsPerKind ? s.loneCrBeyond - kMaxWarningsPerKind : 0;
  return s;
}

}  // namespace perwiz::alog
