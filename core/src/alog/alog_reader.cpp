// ALOG reader: MPICH MPE's ASCII log format as MPE writes it and upshot/nupshot read it (record
// types, fields, header records; docs/trace-model.md, "Loading" and "ALOG extension").
//
// Two passes over the memory-mapped file. Pass 1 validates every line and collects what ALOG
// allows to appear anywhere (header records, the largest process id, the earliest time, the
// event types used as lone events). Pass 2 streams the data records into the sink. Validating
// everything first means a corrupt file is rejected before the sink sees a single record.
// Times go to the sink in file order per process (execution order); should a file's clock go
// backwards, the builder re-sorts and warns.
#include "perwiz/trace_io.h"

#include "alog_extension.h"
#include "alog_record.h"
#include "alog_time.h"
#include "event_table.h"
#include "mapped_file.h"

#include <algorithm>
#include <cstring>
#include <limits>
#include <map>
#include <optional>
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

// Walks the lines of a buffer, counting them (1-based) for error messages. Lines end at
// `eol`: '\n' (a CR before it is a blank to the parser, so CRLF files read the same), or '\r'
// for a file of classic Mac OS line ends (lineEnd()).
class LineCursor {
 public:
  LineCursor(std::string_view text, char eol)
      : p_(text.data()), end_(text.data() + text.size()), eol_(eol) {}
  bool next(std::string_view& line) {
    if (p_ >= end_) return false;
    const char* nl = static_cast<const char*>(std::memchr(p_, eol_, end_ - p_));
    const char* e = nl ? nl : end_;
    line = std::string_view(p_, e - p_);
    // A last line without its line end was cut short (a CRLF file cut between CR and LF
    // still holds the whole line).
    complete_ = nl || (!line.empty() && line.back() == '\r');
    p_ = nl ? nl + 1 : end_;
    ++lineNo_;
    return true;
  }
  std::int64_t lineNo() const { return lineNo_; }
  const char* position() const { return p_; }
  // False for a last line that has no line end.
  bool complete() const { return complete_; }

 private:
  const char* p_;
  const char* end_;
  char eol_;
  std::int64_t lineNo_ = 0;
  bool complete_ = true;
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

// Reader diagnostics of one kind beyond this many are summarised (a broken file could
// otherwise produce one per line).
constexpr std::size_t kMaxWarningsPerKind = 20;

class AlogReader {
 public:
  AlogReader(const std::string& path, TraceSink& sink, const LoadOptions& opts)
      : path_(path), sink_(sink), opts_(opts), file_(path), text_(file_.bytes()) {
    if (text_.starts_with(kUtf8Bom)) text_.remove_prefix(kUtf8Bom.size());
    eol_ = lineEnd(text_);
    hasCr_ = eol_ == '\n' && std::memchr(text_.data(), '\r', text_.size());
  }

  void run() {
    rejectBinary();
    scanHeaders();
    beginTrace();
    streamRecords();
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

  // Progress runs over both passes: pass 1 is the first half, pass 2 the second.
  void maybeReportProgress(const char* pos, int pass) {
    if (!opts_.progress || pos < nextProgress_) return;
    nextProgress_ = pos + kProgressStep;
    double done = static_cast<double>(pos - text_.data()) / static_cast<double>(text_.size());
    reportProgress(0.5 * pass + 0.5 * done);
  }
  void reportProgress(double fraction) {
    if (opts_.progress && !opts_.progress(fraction)) throw TraceError(path_, "cancelled");
  }

  // Text never holds NUL bytes; one is the surest sign of a binary file. memchr over the whole
  // file is far cheaper than checking every line.
  void rejectBinary() {
    const char* nul = static_cast<const char*>(std::memchr(text_.data(), '\0', text_.size()));
    if (!nul) return;
    std::int64_t line = 1 + std::count(text_.data(), nul, eol_);
    fail("binary data (NUL byte), not ALOG text,", line);
  }

  // A last line without its line end is incomplete: its last number may be cut short ("12 1
  // 0 2 0 3" of "... 326012"), so it is dropped, never read as a smaller value. Pass 1 warns.
  bool parseLine(const LineCursor& cur, std::string_view line, Record& rec) {
    if (isSkippableLine(line)) return false;
    if (!cur.complete()) {
      if (!begun_) {
        cutLine_ = cur.lineNo();
        warn("cut", cur.lineNo(), "last line has no line end (file cut short?); ignored: " +
                                      quoteBytes(line, 60));
      }
      return false;
    }
    std::string problem;
    if (!parseRecord(line, rec, problem)) {
      if (!sawRecord_) fail("not ALOG text (" + problem + ")", cur.lineNo());
      fail(problem, cur.lineNo());
    }
    sawRecord_ = true;
    if (rec.process < 0 || rec.process > kMaxProcessId)
      fail("absurd process id " + std::to_string(rec.process) + " (accepted: 0.." +
               std::to_string(kMaxProcessId) + ")",
           cur.lineNo());
    return true;
  }

  // ---- pass 1 ------------------------------------------------------------------------------

  void scanHeaders() {
    LineCursor cur(text_, eol_);
    std::string_view line;
    Record rec;
    nextProgress_ = text_.data();
    while (cur.next(line)) {
      maybeReportProgress(cur.position(), 0);
      if (hasCr_) checkLoneCr(line, cur.lineNo());
      if (!parseLine(cur, line, rec)) continue;
      if (isHeaderType(rec.type)) {
        scanHeader(rec, cur.lineNo());
        continue;
      }
      ++dataRecords_;
      if (rec.type == kConstDef) continue;  // MPI constants logged by MPE 1.2 (§2), not events
      noteProcess(rec.process, cur.lineNo());
      StampRange& range = stampsByCycle_[rec.cycle];
      if (rec.stampNs < range.min) range = {rec.stampNs, cur.lineNo(), range.max, range.maxLine};
      if (rec.stampNs > range.max) range.max = rec.stampNs, range.maxLine = cur.lineNo();
      std::int32_t tag;
      std::uint64_t bytes;
      if ((rec.type == kSend || rec.type == kRecv) && parseMessageComment(rec.comment, tag, bytes))
        continue;
      pointTypes_.insert(rec.type);
    }
    if (!sawRecord_ && cutLine_ > 0)
      fail("no complete ALOG record: the only record has no line end (file cut short?)", cutLine_);
    if (!sawRecord_) throw TraceError(path_, "no ALOG records (only blank or '#' lines)");
  }

  // In a file with line feeds a CR followed by more text on its line is no line end (§8:
  // comments may hold any byte), but the text after it may be a record of a mixed-line-end
  // file: say so rather than let it pass silently as a comment.
  void checkLoneCr(std::string_view line, std::int64_t lineNo) {
    const char* p = static_cast<const char*>(std::memchr(line.data(), '\r', line.size()));
    if (!p) return;
    const char* end = line.data() + line.size();
    while (p < end && isBlank(*p)) ++p;
    if (p < end)
      warn("line end", lineNo, "carriage return inside the line (mixed line ends?); the text "
                               "after it is read as part of this line");
  }

  void noteProcess(std::int64_t process, std::int64_t line) {
    if (process > maxProcess_) maxProcess_ = process, maxProcessLine_ = line;
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
    TimeNs shift = 0, t = 0;
    if (cycle != 0 && rolloverNs_.value_or(0) != 0 &&
        __builtin_mul_overflow(cycle, *rolloverNs_, &shift))
      return std::nullopt;
    if (__builtin_add_overflow(stampNs, shift, &t)) return std::nullopt;
    return t;
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
    if (minData && start) origin_ = std::min(*minData, *start);
    else if (minData) origin_ = *minData;
    else if (start) origin_ = *start;
    // Times grow with the stamp within a cycle, so checking each cycle's latest record here
    // keeps pass 2 from failing half-way through the stream.
    std::optional<TimeNs> maxData;
    for (const auto& [cycle, range] : stampsByCycle_) {
      auto t = absoluteNs(range.max, cycle);
      TimeNs rel;
      if (!t || __builtin_sub_overflow(*t, origin_, &rel)) fail(kTimeOverflow, range.maxLine);
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
      if (f.kind == EventKind::Point) actions_.at(event).point = index;
      else stateFn[event] = index;
    }
    for (const StateDef& s : states_) {
      std::uint32_t fn = stateFn.at(s.start);
      actions_.at(s.start).enter = fn;
      EventAction& endAction = actions_.at(s.end);
      if (endAction.leave == kNone32) endAction.leave = fn;  // first definition wins
    }
  }

  // ---- pass 2 ------------------------------------------------------------------------------

  void streamRecords() {
    LineCursor cur(text_, eol_);
    std::string_view line;
    Record rec;
    nextProgress_ = text_.data();
    while (cur.next(line)) {
      maybeReportProgress(cur.position(), 1);
      if (!parseLine(cur, line, rec) || isHeaderType(rec.type) || rec.type == kConstDef) continue;
      const std::int64_t lineNo = cur.lineNo();
      sink_.setPosition(lineNo);
      auto abs = absoluteNs(rec.stampNs, rec.cycle);
      TimeNs t = 0;
      if (!abs || __builtin_sub_overflow(*abs, origin_, &t))
        fail(kTimeOverflow, lineNo);
      const auto rank = static_cast<std::uint32_t>(rec.process);
      if (rec.type == kSend || rec.type == kRecv) {
        std::int32_t tag;
        std::uint64_t bytes;
        if (parseMessageComment(rec.comment, tag, bytes)) {
          // The partner is a world rank (MPE-1 logged communicator ranks; nothing better is
          // known). Out-of-range partners stay as they are: the builder reports them.
          std::int32_t peer = rec.data >= std::numeric_limits<std::int32_t>::min() &&
                                      rec.data <= std::numeric_limits<std::int32_t>::max()
                                  ? static_cast<std::int32_t>(rec.data)
                                  : -1;
          std::uint32_t comm = 0;
          std::uint64_t request = 0;
          if (extension_ && !parseMessageTokens(rec.comment, comm, request))
            fail("bad PerWiz message tokens in '" + quoteBytes(rec.comment, 60) + "'", lineNo);
          if (comm > comms_.size())
            fail("message on undefined communicator " + std::to_string(comm), lineNo);
          if (rec.type == kSend) sink_.send(rank, t, peer, comm, tag, bytes, request);
          else sink_.recv(rank, t, peer, comm, tag, bytes, request);
          continue;
        }
        warn("message", lineNo, "record " + std::to_string(rec.type) +
                                    " without '<tag> <size>' comment (" +
                                    quoteBytes(rec.comment) + "); kept as a lone event");
      }
      const EventAction& a = actions_.find(rec.type);
      // An event may end one state and start the next (a chain of phases): leave first.
      if (a.leave != kNone32) sink_.leave(rank, t, a.leave);
      if (a.enter != kNone32) {
        sink_.enter(rank, t, a.enter);
        if (extension_ && !rec.comment.empty()) emitCallTokens(rank, t, rec.comment, lineNo);
      }
      if (a.point != kNone32) sink_.point(rank, t, a.point, rec.comment);
    }
  }

  // The records PerWiz wrote as tokens on an MPI call's start event, right after its enter.
  void emitCallTokens(std::uint32_t rank, TimeNs t, std::string_view comment, std::int64_t lineNo) {
    std::string bad;
    if (!parseCallTokens(comment, callTokens_, bad))
      fail("bad PerWiz token '" + quoteBytes(bad, 60) + "' on a state's start event", lineNo);
    for (std::uint64_t r : callTokens_.irecvPosts) sink_.irecvRequest(rank, t, r);
    for (std::uint64_t r : callTokens_.isendDones) sink_.isendComplete(rank, t, r);
    for (const auto& c : callTokens_.collectives) {
      if (c.comm > comms_.size())
        fail("collective on undefined communicator " + std::to_string(c.comm), lineNo);
      sink_.collective(rank, t, c.op, c.comm, c.root, c.sent, c.received);
    }
  }

  static constexpr std::ptrdiff_t kProgressStep = 1 << 20;
  static constexpr const char* kTimeOverflow = "time out of range (timestamp + cycle * rollover)";

  const std::string& path_;
  TraceSink& sink_;
  const LoadOptions& opts_;
  MappedFile file_;
  std::string_view text_;
  const char* nextProgress_ = nullptr;
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
  bool hasCr_ = false;  // line ends are LF, and some line holds a CR
  std::optional<TimeNs> rolloverNs_;
  struct StampRange {
    TimeNs min = std::numeric_limits<TimeNs>::max();
    std::int64_t minLine = 0;
    TimeNs max = std::numeric_limits<TimeNs>::min();
    std::int64_t maxLine = 0;
  };
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
  CallTokens callTokens_;                      // reused per record

  // Built between the passes.
  TimeNs origin_ = 0;
  EventTable actions_;

  std::map<std::string, std::size_t> warningCounts_;
  std::vector<Diagnostic> pendingWarnings_;
};

}  // namespace

void readAlog(const std::string& path, TraceSink& sink, const LoadOptions& opts) {
  AlogReader(path, sink, opts).run();
}

}  // namespace perwiz
