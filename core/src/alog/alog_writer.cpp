// ALOG writer: a TraceSink that buffers records per rank and, at end(), writes one ALOG file
// in the layout MPE produced (header, -13 state definitions, then data records in time order),
// so upshot and our reader both accept it.
//
// Event numbers: function k gets start event 2k+1 and end event 2k+2 (points use 2k+1). The
// reader defines functions in ascending event order, so read -> write -> read keeps function
// indices, and with them the whole model (the round-trip property the tests check).
//
// What MPE's ALOG cannot hold goes into PerWiz's extension records (alog_extension.h): each
// state's kind (MPI call or user state, so a user region named "barrier" stays one), the
// communicators, a message's communicator and request id, and the records the model keeps
// inside an MPI call (Irecv posts, Isend completions, collective records) as tokens on the
// call's start event. MPE's viewers skip all of it. Still dropped without a diagnostic (writers
// have no channel back to the caller): request/collective records outside every MPI call (the
// model never has them), call counters in the data field, and whitespace or newlines inside
// names, colours and labels (newlines become blanks, outer blanks are trimmed).
#include "perwiz/trace_io.h"

#include "perwiz/output_file.h"

#include "alog_extension.h"
#include "alog_time.h"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <map>
#include <queue>
#include <utility>

namespace perwiz {
namespace {

namespace fs = std::filesystem;

// IsendComplete, IrecvRequest and Collective write no line of their own: they become tokens on
// the start event of the MPI call they are in.
enum class RecKind : std::uint8_t { Enter, Leave, Point, Send, Recv, IsendComplete, IrecvRequest,
                                    Collective };

// 16 bytes per record: the writer holds the whole trace until end().
struct Rec {
  TimeNs time;
  std::uint32_t payload;  // Enter/Leave: function; Point: index in points_; Send/Recv: in
                          // messages_; IsendComplete/IrecvRequest: in requests_; Collective: in
                          // collectives_
  RecKind kind;
};

struct PointRec {
  std::uint32_t function;
  std::uint32_t label;  // index in labels_, kNone32 if none
};

struct MessageRec {
  std::int32_t peer;
  std::int32_t tag;
  std::uint64_t bytes;
  std::uint32_t comm;
  std::uint64_t request;
};

struct CollectiveRec {
  MpiOp op;
  std::uint32_t comm;
  std::int32_t root;
  std::uint64_t sent, received;
};

// Comment text on one line: line breaks and NULs become blanks, outer blanks go (the reader
// trims them anyway, so writing them would only break the round trip).
std::string oneLine(std::string_view s) {
  std::string out(s);
  for (char& c : out)
    if (c == '\n' || c == '\r' || c == '\0' || c == '\v' || c == '\f') c = ' ';
  auto blank = [](char c) { return c == ' ' || c == '\t'; };
  std::size_t b = 0, e = out.size();
  while (b < e && blank(out[b])) ++b;
  while (e > b && blank(out[e - 1])) --e;
  return out.substr(b, e - b);
}

// The colour token of a -13 line: one word, ":" for the viewer's defaults.
std::string colourToken(const std::string& color) {
  if (color.empty()) return ":";
  for (char c : color)
    if (static_cast<unsigned char>(c) <= ' ') return ":";
  return color;
}

class AlogWriter final : public TraceSink {
 public:
  explicit AlogWriter(std::string path) : path_(std::move(path)) {
    std::error_code ec;
    if (fs::exists(fs::symlink_status(path_, ec)))
      throw TraceError(path_, "already exists; not overwriting");
    fs::path dir = fs::path(path_).parent_path();
    if (!dir.empty() && !fs::is_directory(dir, ec))
      throw TraceError(path_, "cannot write: directory '" + dir.string() + "' does not exist");
  }

  void begin(const TraceHeader& header) override {
    ranks_.resize(header.ranks);
    rankNames_ = header.rankNames;
    // ALOG has one timeline per rank: a trace's threads (Trace::threads) cannot be written.
    if (!header.threads.empty())
      std::fprintf(stderr, "%s: %zu thread(s) not written: ALOG holds one timeline per MPI rank (write OTF or OTF2 to keep them)\n",
                   path_.c_str(), header.threads.size());
  }

  std::uint32_t defineFunction(const Function& f) override {
    auto [it, fresh] = functionIndex_.try_emplace({f.name, f.kind},
                                                  static_cast<std::uint32_t>(functions_.size()));
    if (fresh) functions_.push_back(f);
    return it->second;
  }

  std::uint32_t defineComm(const Communicator& c) override {
    comms_.push_back(c);
    return static_cast<std::uint32_t>(comms_.size());  // 0 is WORLD
  }

  void enter(std::uint32_t rank, TimeNs t, std::uint32_t fn) override {
    add(rank, {t, fn, RecKind::Enter});
  }
  void leave(std::uint32_t rank, TimeNs t, std::uint32_t fn) override {
    add(rank, {t, fn, RecKind::Leave});
  }
  void point(std::uint32_t rank, TimeNs t, std::uint32_t fn, std::string_view label) override {
    std::uint32_t labelIndex = kNone32;
    if (!label.empty()) {
      labelIndex = static_cast<std::uint32_t>(labels_.size());
      labels_.emplace_back(label);
    }
    add(rank, {t, static_cast<std::uint32_t>(points_.size()), RecKind::Point});
    points_.push_back({fn, labelIndex});
  }
  void send(std::uint32_t rank, TimeNs t, std::int32_t peer, std::uint32_t comm,
            std::int32_t tag, std::uint64_t bytes, std::uint64_t request) override {
    add(rank, {t, static_cast<std::uint32_t>(messages_.size()), RecKind::Send});
    messages_.push_back({peer, tag, bytes, comm, request});
  }
  void recv(std::uint32_t rank, TimeNs t, std::int32_t peer, std::uint32_t comm,
            std::int32_t tag, std::uint64_t bytes, std::uint64_t request) override {
    add(rank, {t, static_cast<std::uint32_t>(messages_.size()), RecKind::Recv});
    messages_.push_back({peer, tag, bytes, comm, request});
  }
  void isendComplete(std::uint32_t rank, TimeNs t, std::uint64_t request) override {
    add(rank, {t, static_cast<std::uint32_t>(requests_.size()), RecKind::IsendComplete});
    requests_.push_back(request);
  }
  void irecvRequest(std::uint32_t rank, TimeNs t, std::uint64_t request) override {
    add(rank, {t, static_cast<std::uint32_t>(requests_.size()), RecKind::IrecvRequest});
    requests_.push_back(request);
  }
  void collective(std::uint32_t rank, TimeNs t, MpiOp op, std::uint32_t comm, std::int32_t root,
                  std::uint64_t sent, std::uint64_t received) override {
    add(rank, {t, static_cast<std::uint32_t>(collectives_.size()), RecKind::Collective});
    collectives_.push_back({op, comm, root, sent, received});
  }

  void end() override {
    if (ended_) return;
    ended_ = true;
    sortRanks();
    attachCallTokens();
    writeFile();
  }

 private:
  void add(std::uint32_t rank, Rec r) {
    if (rank >= ranks_.size()) ranks_.resize(rank + 1);
    ranks_[rank].push_back(r);
  }

  // Producers deliver each rank in time order, except that emitTrace closes improperly nested
  // states stack-wise; a stable sort restores file order without touching ties.
  void sortRanks() {
    auto byTime = [](const Rec& a, const Rec& b) { return a.time < b.time; };
    for (auto& recs : ranks_)
      if (!std::is_sorted(recs.begin(), recs.end(), byTime))
        std::stable_sort(recs.begin(), recs.end(), byTime);
  }

  // Records inside an MPI call that have no ALOG line of their own become tokens on the call's
  // start event: the innermost MPI call open at the record (where the builder puts it too).
  void attachCallTokens() {
    for (std::uint32_t r = 0; r < ranks_.size(); ++r) {
      const auto& recs = ranks_[r];
      std::vector<std::size_t> open;  // Enter records of open states, innermost last
      for (std::size_t i = 0; i < recs.size(); ++i) {
        const Rec& rec = recs[i];
        switch (rec.kind) {
          case RecKind::Enter: open.push_back(i); continue;
          case RecKind::Leave:
            // The innermost open instance of the function (as the builder closes states).
            for (auto it = open.rbegin(); it != open.rend(); ++it)
              if (recs[*it].payload == rec.payload) {
                open.erase(std::next(it).base());
                break;
              }
            continue;
          case RecKind::IsendComplete: case RecKind::IrecvRequest: case RecKind::Collective:
            break;
          default: continue;
        }
        ++extensionRecords_;
        auto call = std::find_if(open.rbegin(), open.rend(), [&](std::size_t e) {
          return functions_[recs[e].payload].kind == EventKind::MpiCall;
        });
        if (call == open.rend()) continue;  // outside every MPI call: nothing to attach it to
        std::string& note = callTokens_[{r, *call}];
        if (rec.kind == RecKind::Collective) {
          const CollectiveRec& c = collectives_[rec.payload];
          if (!note.empty()) note += ' ';
          note += alog::collectiveToken(c.op, c.comm, c.root, c.sent, c.received);
        } else {
          alog::appendToken(note, rec.kind == RecKind::IrecvRequest ? "irecv-post" : "isend-done",
                            requests_[rec.payload]);
        }
      }
    }
  }

  std::uint64_t recordCount() const {
    std::uint64_t n = 0;
    for (const auto& recs : ranks_) n += recs.size();
    return n - extensionRecords_;
  }

  TimeNs endTime() const {
    TimeNs end = 0;
    for (const auto& recs : ranks_)
      if (!recs.empty()) end = std::max(end, recs.back().time);
    return end;
  }

  static std::int64_t startEvent(std::uint32_t fn) { return 2 * std::int64_t{fn} + 1; }
  static std::int64_t endEvent(std::uint32_t fn) { return 2 * std::int64_t{fn} + 2; }

  // ---- text output ---------------------------------------------------------------------------

  void put(std::string_view s) { out_.append(s); }
  void put(std::int64_t v) {
    char buf[24];
    auto [p, ec] = std::to_chars(buf, buf + sizeof buf, v);
    out_.append(buf, p);
  }
  void putTime(TimeNs t) {
    char buf[32];
    out_.append(buf, alog::formatMicros(t, buf));
  }
  // `type process task data cycle timestamp`, then the comment if any.
  void putLine(std::int64_t type, std::int64_t process, std::int64_t task, std::int64_t data,
               TimeNs time, std::string_view comment) {
    put(type); put(" ");
    put(process); put(" ");
    put(task); put(" ");
    put(data); put(" 0 ");
    putTime(time);
    if (!comment.empty()) {
      put(" ");
      put(comment);
    }
    put("\n");
    if (out_.size() >= kFlushBytes) flush();
  }

  void writeHeader() {
    std::int64_t eventTypes = 0;
    for (const auto& f : functions_) eventTypes += f.kind == EventKind::Point ? 1 : 2;
    putLine(-1, 0, 0, 0, 0, "PerWiz");
    putLine(-2, 0, 0, static_cast<std::int64_t>(recordCount()), 0, {});
    putLine(-3, 0, 0, static_cast<std::int64_t>(ranks_.size()), 0, {});
    putLine(-4, 0, 0, 1, 0, {});
    putLine(-5, 0, 0, eventTypes, 0, {});
    putLine(-6, 0, 0, 0, 0, {});
    putLine(-7, 0, 0, 0, endTime(), {});
    putLine(-8, 0, 0, 1, 0, {});
    putLine(-11, 0, 0, 0, 0, {});
    for (std::uint32_t k = 0; k < functions_.size(); ++k) {
      const Function& f = functions_[k];
      if (f.kind == EventKind::Point) continue;
      putLine(-13, 0, startEvent(k), endEvent(k), 0, colourToken(f.color) + " " + oneLine(f.name));
    }
    for (std::uint32_t k = 0; k < functions_.size(); ++k) {
      const Function& f = functions_[k];
      if (f.kind == EventKind::Point) putLine(-9, 0, 0, startEvent(k), 0, oneLine(f.name));
    }
    for (std::size_t r = 0; r < rankNames_.size() && r < ranks_.size(); ++r) {
      std::string name = oneLine(rankNames_[r]);
      if (!name.empty() && name != "rank " + std::to_string(r))
        putLine(-15, static_cast<std::int64_t>(r), 0, 0, 0, name);
    }
    writeExtensionHeader();
  }

  // PerWiz's header records (alog_extension.h): every state's kind, the communicators.
  void writeExtensionHeader() {
    putLine(alog::kExtension, 0, 0, alog::kExtensionVersion, 0, "PerWiz extension");
    for (std::uint32_t k = 0; k < functions_.size(); ++k) {
      const Function& f = functions_[k];
      if (f.kind == EventKind::Point) continue;
      putLine(alog::kStateKind, 0, startEvent(k), 0, 0,
              f.kind == EventKind::MpiCall ? alog::kKindMpi : alog::kKindUser);
    }
    for (std::size_t c = 0; c < comms_.size(); ++c) {
      const Communicator& comm = comms_[c];
      const auto index = static_cast<std::int64_t>(c + 1);
      const std::int64_t size = comm.isSelf ? -1 : static_cast<std::int64_t>(comm.worldRanks.size());
      putLine(alog::kCommDef, 0, index, size, 0, oneLine(comm.name));
      if (comm.isSelf) continue;
      for (std::size_t first = 0; first < comm.worldRanks.size(); first += alog::kMembersPerLine) {
        std::string members;
        for (std::size_t i = first; i < comm.worldRanks.size() && i < first + alog::kMembersPerLine; ++i) {
          if (!members.empty()) members += ' ';
          members += std::to_string(comm.worldRanks[i]);
        }
        putLine(alog::kCommMembers, 0, index, static_cast<std::int64_t>(first), 0, members);
      }
    }
  }

  void writeRecord(std::uint32_t rank, std::size_t index, const Rec& rec) {
    switch (rec.kind) {
      case RecKind::Enter: {
        auto note = callTokens_.find({rank, index});
        putLine(startEvent(rec.payload), rank, 0, 0, rec.time,
                note == callTokens_.end() ? std::string_view() : std::string_view(note->second));
        break;
      }
      case RecKind::Leave:
        putLine(endEvent(rec.payload), rank, 0, 0, rec.time, {});
        break;
      case RecKind::Point: {
        const PointRec& p = points_[rec.payload];
        putLine(startEvent(p.function), rank, 0, 0, rec.time,
                p.label == kNone32 ? std::string() : oneLine(labels_[p.label]));
        break;
      }
      case RecKind::Send:
      case RecKind::Recv: {
        const MessageRec& m = messages_[rec.payload];
        std::string comment = std::to_string(m.tag) + " " + std::to_string(m.bytes);
        if (std::string ext = alog::messageTokens(m.comm, m.request); !ext.empty())
          comment += " " + ext;
        putLine(rec.kind == RecKind::Send ? -101 : -102, rank, 0, m.peer, rec.time, comment);
        break;
      }
      case RecKind::IsendComplete: case RecKind::IrecvRequest: case RecKind::Collective:
        break;  // written as tokens of their call's start event (attachCallTokens)
    }
  }

  // Ranks merged by (time, rank): ties keep each rank's own order and put lower ranks first.
  void writeData() {
    using Head = std::pair<TimeNs, std::uint32_t>;
    std::priority_queue<Head, std::vector<Head>, std::greater<>> heads;
    std::vector<std::size_t> next(ranks_.size(), 0);
    for (std::uint32_t r = 0; r < ranks_.size(); ++r)
      if (!ranks_[r].empty()) heads.push({ranks_[r][0].time, r});
    while (!heads.empty()) {
      std::uint32_t r = heads.top().second;
      heads.pop();
      const auto& recs = ranks_[r];
      std::size_t& i = next[r];
      writeRecord(r, i, recs[i]);
      if (++i < recs.size()) heads.push({recs[i].time, r});
    }
  }

  // ---- the file ------------------------------------------------------------------------------

  // Through OutputFile (output_file.h): a temporary beside the target, every write checked,
  // published without replacing a file created meanwhile; any failure removes the temporary.
  void writeFile() {
    OutputFile file(path_);
    file_ = &file;
    try {
      out_.reserve(kFlushBytes + 4096);
      writeHeader();
      writeData();
      flush();
      file_ = nullptr;
      file.commit();
    } catch (...) {
      file_ = nullptr;
      throw;
    }
  }

  void flush() {
    if (!out_.empty()) file_->write(out_);
    out_.clear();
  }

  static constexpr std::size_t kFlushBytes = 1 << 20;

  std::string path_;
  std::vector<std::vector<Rec>> ranks_;
  std::vector<std::string> rankNames_;
  std::vector<Function> functions_;
  std::map<std::pair<std::string, EventKind>, std::uint32_t> functionIndex_;
  std::vector<PointRec> points_;
  std::vector<std::string> labels_;
  std::vector<MessageRec> messages_;
  std::vector<std::uint64_t> requests_;
  std::vector<CollectiveRec> collectives_;
  std::vector<Communicator> comms_;  // comms_[k] is communicator k + 1 (0 is WORLD)
  std::map<std::pair<std::uint32_t, std::size_t>, std::string> callTokens_;  // (rank, Enter rec)
  std::uint64_t extensionRecords_ = 0;
  bool ended_ = false;

  std::string out_;
  OutputFile* file_ = nullptr;  // during writeFile()
};

}  // namespace

std::unique_ptr<TraceSink> makeAlogWriter(const std::string& path) {
  return std::make_unique<AlogWriter>(path);
}

}  // namespace perwiz
