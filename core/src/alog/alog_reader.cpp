// ALOG reader: MPICH MPE's ASCII log format as MPE writes it and upshot/nupshot read it (record
// types, fields, header records; docs/trace-model.md, "Loading" and "ALOG extension").
//
// Two passes over the memory-mapped file. Pass 1 validates every line and collects what ALOG
// allows to appear anywhere (header records, the largest process id, the earliest time, the
// event types used as lone events). Pass 2 streams the data records into the sink. Validating
// everything first means a corrupt file is rejected before the sink sees a single record.
// Times go to the sink in file order per process (execution order); should a file's clock go
// backwards, the builder re-sorts and warns.
//
// Both passes run on every core of a large file: pass 1 scans byte chunks of whole lines at
// once (alog_scan.h) and handles what depends on order (the header records) in file order
// after; pass 2 streams ranges of processes into parts of the sink (alog_stream.h), which the
// sink joins in line order, each thread reading only its processes' lines by the line index
// pass 1 left (4 B per line, freed after pass 2). Model, warnings and errors are those of one thread, byte for byte
// (tests/test_alog_parallel.cpp).
#include "perwiz/release.h"
#include "perwiz/trace_io.h"

#include "alog_extension.h"
#include "alog_record.h"
#include "alog_scan.h"
#include "alog_stream.h"
#include "alog_time.h"
#include "event_table.h"
#include "mapped_file.h"

#include <algorithm>
#include <atomic>
#include <exception>
#include <functional>
#include <cstring>
#include <limits>
#include <map>
#include <optional>
#include <thread>
#include <unordered_map>
#include <vector>

namespace perwiz {
namespace {

using namespace alog;

// A state from a -13 record: `-13 proc start end 0 0 colour:bitmap name`.
struct StateDef {
  std::int64_t start = 0;
  std::int64_t end = 0;
  Function function;
};

// The line end of a text: '\n', or '\r' when the file has carriage returns and no line feed
// at all. Only whole-file conventions count: in a file with line feeds a lone CR stays a byte
// of its line (real MPE comments hold garbage bytes, §8), and pass 1 reports it.
char lineEnd(std::string_view text) {
  if (std::memchr(text.data(), '\n', text.size())) return '\n';
  return std::memchr(text.data(), '\r', text.size()) ? '\r' : '\n';
}

// UTF-8 byte order mark some editors put at the start of a text file.
constexpr std::string_view kUtf8Bom = "\xEF\xBB\xBF";

// Below this many bytes per thread a second thread costs more than it saves (a 1024-rank
// file of 8 MiB reads in about 40 ms on one core).
constexpr std::size_t kBytesPerExtraThread = std::size_t{8} << 20;

// Runs work(i) for every i in [0, n): i = 0 on this thread, the others on threads of their own
// (on this one too, should no thread start). Returns each call's exception (null: none) once
// every call has returned; `failed` is called (on the failing thread) when one throws.
std::vector<std::exception_ptr> runEach(std::size_t n, const std::function<void(std::size_t)>& work,
                                        const std::function<void(std::size_t)>& failed) {
  std::vector<std::exception_ptr> errors(n);
  auto guarded = [&](std::size_t i) {
    try {
      work(i);
    } catch (...) {
      errors[i] = std::current_exception();
      failed(i);
    }
  };
  std::vector<std::jthread> threads;
  std::size_t started = 1;
  try {
    for (; started < n; ++started) threads.emplace_back(guarded, started);
  } catch (const std::system_error&) {}
  guarded(0);
  for (std::size_t i = started; i < n; ++i) guarded(i);
  threads.clear();  // joins
  return errors;
}

class AlogReader {
 public:
  AlogReader(const std::string& path, TraceSink& sink, const LoadOptions& opts)
      : path_(path), sink_(sink), opts_(opts), file_(path), text_(file_.bytes()) {
    if (text_.starts_with(kUtf8Bom)) text_.remove_prefix(kUtf8Bom.size());
    eol_ = lineEnd(text_);
  }

  void run() {
    const unsigned threads = threadCount();
    scanHeaders(threads);
    beginTrace();
    streamRecords(threads);
    flushWarningSummaries();
    sink_.addSourceRecords(dataRecords_);
    reportProgress(1.0);
    sink_.end();
  }

 private:
  [[noreturn]] void fail(const std::string& problem, std::int64_t line) const {
    throw TraceError(path_, problem + " at line " + std::to_string(line));
  }

  void warn(const std::string& kind, std::int64_t line, std::string message) {
    std::size_t& n = warningCounts_[kind];
    if (++n > kMaxWarningsPerKind) return;
    Diagnostic d{path_, line, "", std::move(message)};
    if (begun_) sink_.warn(std::move(d));
    else pendingWarnings_.push_back(std::move(d));
  }

  void flushWarningSummaries() {
    for (const auto& [kind, n] : warningCounts_)
      if (n > kMaxWarningsPerKind)
        sink_.warn(Diagnostic{path_, -1, "", std::to_string(n - kMaxWarningsPerKind) +
                                                 " more warnings of the kind '" + kind + "'"});
  }

  void reportProgress(double fraction) {
    if (opts_.progress && !opts_.progress(fraction)) throw TraceError(path_, "cancelled");
  }

  // LoadOptions::threads, or one per core once each has kBytesPerExtraThread.
  unsigned threadCount() const {
    if (opts_.threads) return opts_.threads;
    const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
    return static_cast<unsigned>(std::clamp<std::size_t>(text_.size() / kBytesPerExtraThread, 1, cores));
  }

  // A NUL byte (alog_scan.h): the file is binary data, whatever else is wrong with it.
  void rejectBinary(const char* nul) const {
    std::int64_t line = 1 + std::count(text_.data(), nul, eol_);
    fail("binary data (NUL byte), not ALOG text,", line);
  }

  // ---- pass 1 ------------------------------------------------------------------------------

  // Up to n runs of whole lines of about equal size (fewer when lines are long).
  std::vector<std::string_view> splitChunks(unsigned n) const {
    std::vector<std::string_view> chunks;
    const char* p = text_.data();
    const char* const end = p + text_.size();
    for (unsigned i = 1; i < n && p < end; ++i) {
      const char* cut = text_.data() + text_.size() / n * i;
      if (cut <= p) continue;
      const char* eol = static_cast<const char*>(std::memchr(cut, eol_, static_cast<std::size_t>(end - cut)));
      if (!eol) break;
      chunks.emplace_back(p, static_cast<std::size_t>(eol + 1 - p));
      p = eol + 1;
    }
    if (p < end || chunks.empty()) chunks.emplace_back(p, static_cast<std::size_t>(end - p));
    return chunks;
  }

  // Chunks scanned at once, then merged in file order: what came first in the file comes first,
  // as if one thread had read it line by line.
  void scanHeaders(unsigned threads) {
    const std::vector<std::string_view> chunks = splitChunks(threads);
    std::vector<ChunkScan> scans(chunks.size());
    std::atomic<bool> stop{false};
    const auto tick = [&](std::size_t done) {  // chunk 0, on this thread
      reportProgress(0.5 * static_cast<double>(done) / static_cast<double>(chunks[0].size()));
    };
    const auto errors = runEach(
        chunks.size(),
        [&](std::size_t i) {
          scans[i] =
              scanChunk(chunks[i], eol_, eol_ == '\n', i + 1 == chunks.size(),
                        i == 0 && opts_.progress ? std::function<void(std::size_t)>(tick) : nullptr, stop, threads > 1);
        },
        [&](std::size_t) { stop = true; });
    for (const auto& e : errors)
      if (e) std::rethrow_exception(e);
    for (const ChunkScan& s : scans)
      if (s.nul) rejectBinary(s.nul);
    std::int64_t base = 0;  // lines of the chunks before
    for (std::size_t i = 0; i < scans.size(); ++i) {
      mergeScan(scans[i], base);
      if (threads > 1) indexed_.push_back({chunks[i].data(), base, std::move(scans[i].lineIndex)});
      base += scans[i].lines;
    }
    if (!sawRecord_ && cutLine_ > 0)
      fail("no complete ALOG record: the only record has no line end (file cut short?)", cutLine_);
    if (!sawRecord_) throw TraceError(path_, "no ALOG records (only blank or '#' lines)");
  }

  // One chunk's scan, its lines after `base`: first the lines to handle in order (up to its
  // failure, if any), then what it counted.
  void mergeScan(const ChunkScan& s, std::int64_t base) {
    Record rec;
    std::string problem;
    for (const ScanEntry& e : s.entries) {
      const std::int64_t line = base + e.line;
      switch (e.kind) {
        case ScanEntry::LoneCr:
          // In a file with line feeds a CR followed by more text on its line is no line end
          // (§8: comments may hold any byte), but the text after it may be a record of a
          // mixed-line-end file: say so rather than let it pass silently as a comment.
          warn("line end", line,
               "carriage return inside the line (mixed line ends?); the text "
               "after it is read as part of this line");
          break;
        case ScanEntry::Cut:
          // A last line without its line end is incomplete: its last number may be cut short
          // ("12 1 0 2 0 3" of "... 326012"), so it is dropped, never read as a smaller value.
          cutLine_ = line;
          warn("cut", line, "last line has no line end (file cut short?); ignored: " + quoteBytes(e.text, 60));
          break;
        case ScanEntry::Header:
          if (!parseRecord(e.text, rec, problem)) fail(problem, line);  // parsed by the scan
          scanHeader(rec, line);
          break;
      }
    }
    if (s.loneCrBeyond) warningCounts_["line end"] += s.loneCrBeyond;
    if (s.errorLine) failScan(s, base + s.errorLine);
    sawRecord_ = sawRecord_ || s.sawRecord;
    dataRecords_ += s.dataRecords;
    if (s.maxProcess >= 0) noteProcess(s.maxProcess, base + s.maxProcessLine);
    for (const auto& [cycle, range] : s.stampsByCycle) {
      StampRange& r = stampsByCycle_[cycle];
      r.add(range.min, base + range.minLine);
      r.add(range.max, base + range.maxLine);
    }
    pointTypes_.insertAll(s.pointTypes);
    if (s.recordsPerProcess.size() > recordsPerProcess_.size())
      recordsPerProcess_.resize(s.recordsPerProcess.size(), 0);
    for (std::size_t p = 0; p < s.recordsPerProcess.size(); ++p) recordsPerProcess_[p] += s.recordsPerProcess[p];
    for (std::int64_t line : s.messageWarningLines)
      if (stream_.messageWarningLines.size() < kMaxWarningsPerKind) stream_.messageWarningLines.push_back(base + line);
    messageWarnings_ += s.messageWarnings;
  }

  [[noreturn]] void failScan(const ChunkScan& s, std::int64_t line) const {
    if (s.absurdProcess)
      fail("absurd process id " + std::to_string(s.errorProcess) + " (accepted: 0.." + std::to_string(kMaxProcessId) +
               ")",
           line);
    if (!sawRecord_ && !s.sawRecord) fail("not ALOG text (" + s.problem + ")", line);
    fail(s.problem, line);
  }

  // The largest process id and its first line, whatever order records are noted in.
  void noteProcess(std::int64_t process, std::int64_t line) {
    if (process > maxProcess_ || (process == maxProcess_ && line < maxProcessLine_))
      maxProcess_ = process, maxProcessLine_ = line;
  }

  // Every process costs the model about 0.5 KB even without events, so the process count must
  // be backed by the file: a process of a real log logs at least one record. Beyond
  // kRanksWithoutRecords (2 MB of empty ranks), a count above the data records comes from a
  // corrupt line ("1 1000000 0 0 0 0", 17 bytes, once built a million ranks: 438 MB).
  void checkProcessCount(std::int64_t ranks) const {
    constexpr std::int64_t kRanksWithoutRecords = 4096;
    if (ranks <= kRanksWithoutRecords || ranks <= static_cast<std::int64_t>(dataRecords_)) return;
    const bool declared = processCount_ && *processCount_ == ranks;
    fail(std::to_string(ranks) + " processes but only " + std::to_string(dataRecords_) +
             " data records (every process logs at least one record; up to " +
             std::to_string(kRanksWithoutRecords) + " processes are accepted without): " +
             (declared ? "process count " + std::to_string(ranks) + " (-3)"
                       : "process id " + std::to_string(maxProcess_)),
         declared ? processCountLine_ : maxProcessLine_);
  }

  void scanHeader(const Record& rec, std::int64_t line) {
    switch (rec.type) {
      case kProcessCount:
        if (rec.data < 0 || rec.data > kMaxProcessId + 1)
          fail("absurd process count " + std::to_string(rec.data), line);
        if (!processCount_) processCount_ = rec.data, processCountLine_ = line;
        break;
      case kStartTime:
        if (!startRecord_) startRecord_ = rec;
        break;
      case kRollover:
        if (!rolloverNs_) rolloverNs_ = rec.stampNs;
        break;
      case kEventDef:
        if (!rec.comment.empty()) eventNames_.try_emplace(rec.data, rec.comment);
        break;
      case kStateDef:
        scanStateDef(rec, line);
        break;
      case kProcessDef:
        noteProcess(rec.process, line);
        processNames_.try_emplace(rec.process, rec.comment);
        break;
      case kExtension:
        if (rec.data != kExtensionVersion)
          fail("PerWiz extension version " + std::to_string(rec.data) + " is not supported (this "
               "reader knows version " + std::to_string(kExtensionVersion) + ")", line);
        extension_ = true;
        break;
      case kStateKind:
        if (rec.comment != kKindMpi && rec.comment != kKindUser)
          fail("state kind record with '" + quoteBytes(rec.comment) + "' (expected 'mpi' or "
               "'user')", line);
        stateKinds_.try_emplace(rec.task, rec.comment == kKindMpi);
        break;
      case kCommDef: case kCommMembers:
        scanCommRecord(rec, line);
        break;
      case kEventCount:
        if (!eventCount_) eventCount_ = {rec.data, line};
        break;
      case kEndTime:
        if (!endRecord_) endRecord_ = {rec, line};
        break;
      case kCreator: case kTaskCount: case kEventTypeCount:
      case kTimerCycles: case kEventFormat: case -12: case -14: case kSync:
        break;  // informational or unused by any viewer (§2)
      default:
        warn("header", line, "unknown header record type " + std::to_string(rec.type) +
                                 " ignored");
        break;
    }
  }

  // Colour token rules follow nupshot (§3): "colour:bitmap name…"; ":" alone means viewer
  // defaults (stored as ""); a first word without ':' is the colour — unless it is the only
  // word, which can only be a name.
  void scanStateDef(const Record& rec, std::int64_t line) {
    StateDef def;
    def.start = rec.task;
    def.end = rec.data;
    std::string_view c = rec.comment;
    std::size_t wordEnd = 0;
    while (wordEnd < c.size() && !isBlank(c[wordEnd])) ++wordEnd;
    std::string_view first = c.substr(0, wordEnd);
    std::string_view rest = c.substr(wordEnd);
    while (!rest.empty() && isBlank(rest.front())) rest.remove_prefix(1);
    std::string_view color, name;
    if (first.find(':') != std::string_view::npos) {
      color = first == ":" ? std::string_view() : first;
      name = rest;
    } else if (rest.empty()) {
      name = first;
    } else {
      color = first;
      name = rest;
    }
    if (def.start == def.end) {
      warn("state", line, "state definition with the same start and end event " +
                              std::to_string(def.start) + " ignored");
      return;
    }
    if (stateStarts_.contains(def.start)) {
      warn("state", line, "second definition of the state started by event " +
                              std::to_string(def.start) + " ignored");
      return;
    }
    if (name.empty()) {
      warn("state", line, "state definition without a name; called 'state " +
                              std::to_string(def.start) + "'");
      def.function.name = "state " + std::to_string(def.start);
    } else {
      def.function.name.assign(name);
    }
    def.function.color.assign(color);
    def.function.op = classifyMpiName(def.function.name);
    def.function.kind = def.function.op == MpiOp::None ? EventKind::UserState : EventKind::MpiCall;
    stateStarts_.insert(def.start);
    stateEvents_.insert(def.start);
    stateEvents_.insert(def.end);
    states_.push_back(std::move(def));
  }

  // PerWiz's communicator records: -62 defines communicator k (1, 2, … in order), -63 lists
  // its members' world ranks from position `data` on.
  void scanCommRecord(const Record& rec, std::int64_t line) {
    if (rec.type == kCommDef) {
      if (rec.task != static_cast<std::int64_t>(comms_.size()) + 1)
        fail("communicator " + std::to_string(rec.task) + " defined out of order (expected " +
                 std::to_string(comms_.size() + 1) + ")",
             line);
      if (rec.data < -1 || rec.data > kMaxProcessId + 1)
        fail("absurd communicator size " + std::to_string(rec.data), line);
      Communicator c;
      c.name.assign(rec.comment);
      c.isSelf = rec.data == -1;
      comms_.push_back(std::move(c));
      commSizes_.push_back(rec.data);
      return;
    }
    if (rec.task < 1 || rec.task > static_cast<std::int64_t>(comms_.size()) ||
        comms_[rec.task - 1].isSelf ||
        rec.data != static_cast<std::int64_t>(comms_[rec.task - 1].worldRanks.size()))
      fail("communicator member record out of place (communicator " + std::to_string(rec.task) +
               ", position " + std::to_string(rec.data) + ")",
           line);
    Communicator& c = comms_[rec.task - 1];
    bool ok = true;
    forEachToken(rec.comment, [&](std::string_view t) {
      std::int32_t w = -1;
      if (!parseWhole(t, w) || w < 0 || w > kMaxProcessId) ok = false;
      else c.worldRanks.push_back(w);
    });
    if (!ok || static_cast<std::int64_t>(c.worldRanks.size()) > commSizes_[rec.task - 1])
      fail("bad member list of communicator " + std::to_string(rec.task), line);
  }

  // ---- between the passes ------------------------------------------------------------------

  // Absolute time of a record in ns, or nullopt on overflow (upshot: ts + cycle * rollover).
  std::optional<TimeNs> absoluteNs(TimeNs stampNs, std::int64_t cycle) const {
    return alog::absoluteNs(stampNs, cycle, rolloverNs_);
  }
  void beginTrace() {
    // Time origin: the earliest data record, or the -6 start time if it is not later (MPE
    // files then keep the offset upshot shows; p4 files start at their first event).
    std::optional<TimeNs> minData;
    for (const auto& [cycle, range] : stampsByCycle_) {
      auto t = absoluteNs(range.min, cycle);
      if (!t) fail(kTimeOverflow, range.minLine);
      minData = minData ? std::min(*minData, *t) : *t;
    }
    std::optional<TimeNs> start;
    if (startRecord_) start = absoluteNs(startRecord_->stampNs, startRecord_->cycle);
    if (minData && start)
      stream_.origin = std::min(*minData, *start);
    else if (minData)
      stream_.origin = *minData;
    else if (start)
      stream_.origin = *start;
    // Times grow with the stamp within a cycle, so checking each cycle's latest record here
    // keeps pass 2 from failing half-way through the stream.
    std::optional<TimeNs> maxData;
    for (const auto& [cycle, range] : stampsByCycle_) {
      auto t = absoluteNs(range.max, cycle);
      TimeNs rel;
      if (!t || __builtin_sub_overflow(*t, stream_.origin, &rel)) fail(kTimeOverflow, range.maxLine);
      maxData = maxData ? std::max(*maxData, *t) : *t;
    }
    checkHeaderTotals(maxData);

    std::int64_t ranks = std::max(processCount_.value_or(0), maxProcess_ + 1);
    checkProcessCount(ranks);
    TraceHeader header;
    header.ranks = static_cast<std::uint32_t>(ranks);
    if (!processNames_.empty()) {
      header.rankNames.resize(header.ranks);
      for (const auto& [proc, name] : processNames_)
        header.rankNames[static_cast<std::size_t>(proc)].assign(name);
    }
    sink_.begin(header);
    begun_ = true;
    for (auto& d : pendingWarnings_) sink_.warn(std::move(d));
    pendingWarnings_.clear();
    defineComms(header.ranks);
    defineFunctions();
  }

  void defineComms(std::uint32_t ranks) {
    for (std::size_t k = 0; k < comms_.size(); ++k) {
      const Communicator& c = comms_[k];
      const std::string name = "communicator " + std::to_string(k + 1);
      if (!c.isSelf && static_cast<std::int64_t>(c.worldRanks.size()) != commSizes_[k])
        throw TraceError(path_, name + " lists " + std::to_string(c.worldRanks.size()) + " of its " +
                                    std::to_string(commSizes_[k]) + " members");
      for (std::int32_t w : c.worldRanks)
        if (static_cast<std::uint32_t>(w) >= ranks)
          throw TraceError(path_, name + " has member " + std::to_string(w) + " beyond the " +
                                      std::to_string(ranks) + " processes");
      sink_.defineComm(c);
    }
  }

  // The header's totals (§2: -2 counts the data records, -7 is the latest time; MPE and p4
  // write both exactly) are the only sign of a file cut at a line end: report what is missing.
  void checkHeaderTotals(std::optional<TimeNs> maxData) {
    if (dataRecords_ == 0)
      warn("empty", -1, "the file holds no data records, only header records");
    if (eventCount_ && eventCount_->first > static_cast<std::int64_t>(dataRecords_))
      warn("cut", eventCount_->second,
           "the header declares " + std::to_string(eventCount_->first) +
               " data records (-2) but the file holds " + std::to_string(dataRecords_) +
               " (file cut short?)");
    if (!endRecord_ || !maxData) return;
    auto end = absoluteNs(endRecord_->first.stampNs, endRecord_->first.cycle);
    if (!end || *end <= *maxData) return;
    char declared[32], last[32];
    *formatMicros(*end, declared) = '\0';
    *formatMicros(*maxData, last) = '\0';
    warn("cut", endRecord_->second,
         std::string("the header's end time (-7) is ") + declared +
             " us but the last record is at " + last + " us (file cut short?)");
  }

  // Functions are defined in ascending order of their event number (a state by its start
  // event). The order is a property of the event numbers alone, so a file written back by
  // the ALOG writer (which numbers functions in index order) defines them in the same order.
  void defineFunctions() {
    // A PerWiz kind record (-61) says what the state is; without one the name decides (MPE).
    for (StateDef& s : states_) {
      auto kind = stateKinds_.find(s.start);
      if (kind == stateKinds_.end()) continue;
      Function& f = s.function;
      if (kind->second) {
        f.kind = EventKind::MpiCall;
        f.op = classifyMpiName(f.name);
        if (f.op == MpiOp::None) f.op = MpiOp::OtherMpi;
      } else {
        f.kind = EventKind::UserState;
        f.op = MpiOp::None;
      }
    }
    std::vector<std::pair<std::int64_t, Function>> byEvent;
    for (const StateDef& s : states_) byEvent.emplace_back(s.start, s.function);
    for (std::int64_t type : pointTypes_.values()) {
      if (stateEvents_.contains(type)) continue;
      Function f;
      f.kind = EventKind::Point;
      auto named = eventNames_.find(type);
      f.name = named != eventNames_.end() ? std::string(named->second)
                                          : "event " + std::to_string(type);
      byEvent.emplace_back(type, std::move(f));
    }
    std::stable_sort(byEvent.begin(), byEvent.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
    std::map<std::int64_t, std::uint32_t> stateFn;  // start event -> function
    for (auto& [event, f] : byEvent) {
      std::uint32_t index = sink_.defineFunction(f);
      if (f.kind == EventKind::Point)
        stream_.actions.at(event).point = index;
      else stateFn[event] = index;
    }
    for (const StateDef& s : states_) {
      std::uint32_t fn = stateFn.at(s.start);
      stream_.actions.at(s.start).enter = fn;
      EventAction& endAction = stream_.actions.at(s.end);
      if (endAction.leave == kNone32) endAction.leave = fn;  // first definition wins
    }
  }

  // ---- pass 2 ------------------------------------------------------------------------------

  void streamRecords(unsigned threads) {
    stream_.path = path_;
    stream_.rolloverNs = rolloverNs_;
    stream_.extension = extension_;
    stream_.comms = comms_.size();
    if (messageWarnings_) warningCounts_["message"] += messageWarnings_;
    const auto ranks = static_cast<std::uint32_t>(std::max<std::int64_t>(processCount_.value_or(0), maxProcess_ + 1));
    std::vector<std::pair<std::uint32_t, std::uint32_t>> ranges = splitRanks(ranks, threads);
    std::vector<std::unique_ptr<TraceSink>> parts;
    for (const auto& [first, last] : ranges) {
      if (ranges.size() < 2) break;
      parts.push_back(sink_.openPart(first, last));
      if (!parts.back()) parts.clear(), ranges.resize(1);  // the sink takes records on one thread
    }
    std::atomic<std::int64_t> stopLine{std::numeric_limits<std::int64_t>::max()};
    const auto tick = [&](std::size_t done) {  // stream 0, on this thread
      reportProgress(0.5 + 0.5 * static_cast<double>(done) / static_cast<double>(text_.size()));
    };
    const auto tickFn = opts_.progress ? std::function<void(std::size_t)>(tick) : nullptr;
    if (parts.empty()) {
      releaseMemory(indexed_);
      RecordStream(stream_, sink_, 0, ranks, true).run(text_, eol_, tickFn, stopLine);
      return;
    }
    std::vector<RecordStream> streams;
    for (std::size_t i = 0; i < parts.size(); ++i)
      streams.emplace_back(stream_, *parts[i], ranges[i].first, ranges[i].second, false);
    std::atomic<bool> cancelled{false};
    const auto errors = runEach(
        streams.size(),
        [&](std::size_t i) {
          if (indexed_.empty())
            streams[i].run(text_, eol_, i == 0 ? tickFn : nullptr, stopLine);
          else
            streams[i].runIndexed(text_, indexed_, eol_, i == 0 ? tickFn : nullptr, stopLine);
        },
        [&](std::size_t i) {
          // The streams of later lines stop; those of earlier lines go on, and may fail first.
          std::int64_t line = streams[i].line();
          if (i == 0 && opts_.progress && !cancelled && isCancel()) cancelled = true, line = 0;
          std::int64_t seen = stopLine.load();
          while (line < seen && !stopLine.compare_exchange_weak(seen, line)) {}
        });
    releaseMemory(indexed_);
    rethrowFirst(errors, streams, cancelled);
    sink_.joinPartsByLine(std::move(parts));
  }

  // True while handling the exception of a cancelled load.
  bool isCancel() const {
    try {
      throw;
    } catch (const TraceError& e) {
      return e.problem() == "cancelled";
    } catch (...) {
      return false;
    }
  }

  // The failure of the earliest line, as one thread reading line by line would have met it; a
  // cancel first.
  static void rethrowFirst(const std::vector<std::exception_ptr>& errors, const std::vector<RecordStream>& streams,
                           bool cancelled) {
    if (cancelled && errors[0]) std::rethrow_exception(errors[0]);
    std::size_t first = errors.size();
    for (std::size_t i = 0; i < errors.size(); ++i)
      if (errors[i] && (first == errors.size() || streams[i].line() < streams[first].line())) first = i;
    if (first < errors.size()) std::rethrow_exception(errors[first]);
  }

  // Up to n ranges of consecutive processes with about equal data records each.
  std::vector<std::pair<std::uint32_t, std::uint32_t>> splitRanks(std::uint32_t ranks, unsigned n) const {
    n = std::min(n, ranks);
    std::vector<std::pair<std::uint32_t, std::uint32_t>> out;
    std::uint64_t total = 0;
    for (std::uint64_t c : recordsPerProcess_) total += c;
    std::uint64_t sum = 0;
    for (std::uint32_t r = 0; r < ranks; ++r) {
      // A range starts where the records so far pass its fair start, while enough processes
      // remain for the ranges still to come.
      const bool mustStart = ranks - r == n - out.size();
      const bool fairStart = sum * n >= total * out.size();
      if (out.empty() || (out.size() < n && (mustStart || fairStart))) out.emplace_back(r, r);
      out.back().second = r + 1;
      sum += r < recordsPerProcess_.size() ? recordsPerProcess_[r] : 0;
    }
    return out;
  }

  const std::string& path_;
  TraceSink& sink_;
  const LoadOptions& opts_;
  MappedFile file_;
  std::string_view text_;
  bool sawRecord_ = false;
  bool begun_ = false;

  // Collected by pass 1.
  std::uint64_t dataRecords_ = 0;
  std::int64_t maxProcess_ = -1;
  std::int64_t maxProcessLine_ = 0;  // line of the largest process id
  std::optional<std::int64_t> processCount_;
  std::int64_t processCountLine_ = 0;
  std::optional<Record> startRecord_;
  // -2 (declared data records) and -7 (end time), each with its line: a file that holds less
  // than they say was cut short.
  std::optional<std::pair<std::int64_t, std::int64_t>> eventCount_;
  std::optional<std::pair<Record, std::int64_t>> endRecord_;
  std::int64_t cutLine_ = 0;  // the dropped last line without a line end, 0 if none
  char eol_ = '\n';
  std::optional<TimeNs> rolloverNs_;
  std::map<std::int64_t, StampRange> stampsByCycle_;  // few cycles in practice: usually just 0
  std::unordered_map<std::int64_t, std::string_view> eventNames_;  // -9, view into the file
  std::map<std::int64_t, std::string_view> processNames_;          // -15
  std::vector<StateDef> states_;
  EventTypeSet stateStarts_;
  EventTypeSet stateEvents_;  // starts and ends
  EventTypeSet pointTypes_;   // types of data records that may be lone events

  // PerWiz's extension (alog_extension.h).
  bool extension_ = false;                     // -60 present: data-record tokens are ours
  std::unordered_map<std::int64_t, bool> stateKinds_;  // -61: start event -> is an MPI call
  std::vector<Communicator> comms_;            // -62/-63: communicator k + 1
  std::vector<std::int64_t> commSizes_;

  std::vector<std::uint64_t> recordsPerProcess_;  // data records that are events
  std::uint64_t messageWarnings_ = 0;             // send/receive records without "<tag> <size>"

  // Built between the passes: what every stream of pass 2 reads.
  StreamContext stream_;
  std::vector<IndexedChunk> indexed_;  // pass 1's line index when pass 2 runs on several threads

  std::map<std::string, std::size_t> warningCounts_;
  std::vector<Diagnostic> pendingWarnings_;
};

}  // namespace

void readAlog(const std::string& path, TraceSink& sink, const LoadOptions& opts) {
  AlogReader(path, sink, opts).run();
}

}  // namespace perwiz
