// The core trace model: an immutable, compact picture of one MPI execution.
//
// Built once by TraceBuilder (fed by a reader or a generator) and never changed afterwards;
// analyses keep their results beside it. Time is int64 nanoseconds from the trace start
// everywhere. Per rank, events are stored column-wise (structure of arrays) in enter order;
// the rarer message and collective data live in side tables that point back at events.
#pragma once

#include "perwiz/interned_table.h"
#include "perwiz/mpi_ops.h"
#include "perwiz/time_column.h"

#include <charconv>
#include <cstdint>
#include <functional>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

namespace perwiz {

using TimeNs = std::int64_t;
inline constexpr std::uint32_t kNone32 = std::numeric_limits<std::uint32_t>::max();

enum class EventKind : std::uint8_t {
  MpiCall = 0,    // an MPI routine from call to return
  UserState = 1,  // a user-defined state / region (includes parallel-region markers)
  Point = 2,      // an instantaneous event (ALOG lone event, OTF2 parameter record)
};

// One entry per distinct function / state / point-event name.
struct Function {
  std::string name;
  EventKind kind = EventKind::UserState;
  MpiOp op = MpiOp::None;  // for MpiCall
  std::string color;       // "" = viewer default; ALOG colour token "colour:bitmap" or X11 name
  bool operator==(const Function&) const = default;
};

struct Communicator {
  std::string name;
  std::vector<std::int32_t> worldRanks;  // comm-local rank i -> world rank worldRanks[i]
  bool isSelf = false;                   // MPI_COMM_SELF style: rank 0 is the caller
  bool operator==(const Communicator&) const = default;
};

// A point-to-point message endpoint (one side of a message), as callers read it.
struct MessageEndpoint {
  TimeNs time = 0;          // time of the send/receive record (for Irecv: completion record)
  std::uint32_t event = kNone32;       // call event that completes it (Recv, Wait, Send...)
  std::uint32_t postEvent = kNone32;   // call event that posted it (Isend, Irecv; = event)
  std::int32_t peer = -1;              // partner, world rank (-1 unknown)
  std::int32_t tag = 0;
  std::uint32_t comm = 0;              // index into Trace::comms
  std::uint64_t bytes = 0;
  // Non-zero for a non-blocking call. The model keeps only that it is one (the tracer's own
  // request handle pairs records while reading and means nothing afterwards); reading a
  // table gives endpoint index + 1, unique per rank, which writers use as the request id.
  std::uint64_t request = 0;
  std::uint32_t matchRank = kNone32;   // matched endpoint: rank (always == peer) and index
  std::uint32_t matchIndex = kNone32;
  bool isSend = false;
  bool matched() const { return matchRank != kNone32; }
  bool nonBlocking() const { return request != 0; }
  // A non-blocking endpoint posted and completed in one call: the trace holds only one half of
  // its request (OTF 1, which has no request records: an Isend's SendMsg without its
  // completion, a Wait's RecvMsg without its post). The replay never holds a send on such a
  // message's receiver (docs/trace-model.md, "Half-recorded requests").
  bool halfRecorded() const { return request != 0 && event == postEvent; }
  bool operator==(const MessageEndpoint&) const = default;
};

namespace detail {
inline std::size_t hashMix(std::size_t h, std::uint64_t v) {
  h ^= static_cast<std::size_t>(v) + 0x9E3779B97F4A7C15ull + (h << 6) + (h >> 2);
  return h;
}
}  // namespace detail

// How an endpoint is stored: a row of 24 B while the model is built, about 7 B once sealed
// (interned_table.h), plus its signature (partner, tag, communicator, size, direction,
// blocking), interned per rank.
struct MessageSignature {
  std::uint64_t bytes = 0;
  std::int32_t peer = -1;
  std::int32_t tag = 0;
  std::uint32_t comm = 0;
  bool isSend = false;
  bool nonBlocking = false;
  bool operator==(const MessageSignature&) const = default;
};
struct MessageRow {
  TimeNs time = 0;
  std::uint32_t event = kNone32;
  std::uint32_t postEvent = kNone32;
  std::uint32_t sig = 0;
  std::uint32_t matchIndex = kNone32;  // index in the peer's table, kNone32 = unmatched
};
struct MessageCodec {
  using Value = MessageEndpoint;
  using Row = MessageRow;
  using Signature = MessageSignature;
  struct Hash {
    std::size_t operator()(const MessageSignature& s) const {
      std::size_t h = detail::hashMix(0, s.bytes);
      h = detail::hashMix(h, static_cast<std::uint32_t>(s.peer));
      h = detail::hashMix(h, static_cast<std::uint32_t>(s.tag));
      h = detail::hashMix(h, s.comm);
      return detail::hashMix(h, (s.isSend ? 1u : 0u) | (s.nonBlocking ? 2u : 0u));
    }
  };
  static Signature signature(const Value& v) {
    return {v.bytes, v.peer, v.tag, v.comm, v.isSend, v.request != 0};
  }
  static Row encode(const Value& v, std::uint32_t sig) {
    if (v.matchRank != kNone32 && static_cast<std::int64_t>(v.matchRank) != v.peer)
      throw std::logic_error("MessageEndpoint matched on rank " + std::to_string(v.matchRank) +
                             " but its peer is " + std::to_string(v.peer));
    return {v.time, v.event, v.postEvent, sig, v.matchRank == kNone32 ? kNone32 : v.matchIndex};
  }
  static std::uint32_t sigOf(const Row& r) { return r.sig; }
  // The row's fields for sealed storage (InternedTable::seal).
  static constexpr std::size_t kFields = 5, kSigField = 3;
  static std::int64_t field(const Row& r, std::size_t k) {
    switch (k) {
      case 0: return r.time;
      case 1: return r.event;
      case 2: return r.postEvent;
      case 3: return r.sig;
      default: return r.matchIndex;
    }
  }
  static void setField(Row& r, std::size_t k, std::int64_t v) {
    const auto u = static_cast<std::uint32_t>(v);
    switch (k) {
      case 0: r.time = v; break;
      case 1: r.event = u; break;
      case 2: r.postEvent = u; break;
      case 3: r.sig = u; break;
      default: r.matchIndex = u; break;
    }
  }
  static Value decode(const Row& r, const Signature& s, std::size_t i) {
    Value v;
    v.time = r.time;
    v.event = r.event;
    v.postEvent = r.postEvent;
    v.peer = s.peer;
    v.tag = s.tag;
    v.comm = s.comm;
    v.bytes = s.bytes;
    v.request = s.nonBlocking ? i + 1 : 0;
    v.isSend = s.isSend;
    if (r.matchIndex != kNone32) {
      v.matchRank = static_cast<std::uint32_t>(s.peer);
      v.matchIndex = r.matchIndex;
    }
    return v;
  }
};

// A rank's endpoints (RankTrace::messages). Reads like a std::vector<MessageEndpoint> that
// returns by value; change records with set() or the field setters.
class MessageTable : public InternedTable<MessageCodec> {
 public:
  using InternedTable::InternedTable;
  using InternedTable::operator=;
  void setEvent(std::size_t i, std::uint32_t event) { mutableRow(i).event = event; }
  void setPostEvent(std::size_t i, std::uint32_t event) { mutableRow(i).postEvent = event; }
  // Matches endpoint i with endpoint `index` of rank `rank` (which must be its peer), or
  // clears the match with kNone32.
  void setMatch(std::size_t i, std::uint32_t rank, std::uint32_t index) {
    if (rank != kNone32 && static_cast<std::int64_t>(rank) != signatureOf(i).peer)
      throw std::logic_error("MessageTable::setMatch: rank is not the endpoint's peer");
    mutableRow(i).matchIndex = rank == kNone32 ? kNone32 : index;
  }
  void setTime(std::size_t i, TimeNs time) { mutableRow(i).time = time; }
  void addToTimes(TimeNs delta) {
    for (std::size_t i = 0; i < size(); ++i) mutableRow(i).time += delta;
  }
};

// One rank's participation in a collective operation.
struct CollectiveCall {
  std::uint32_t event = kNone32;  // the MPI call event
  MpiOp op = MpiOp::None;
  std::uint32_t comm = 0;
  std::int32_t root = -1;         // world rank, -1 = none
  std::uint64_t bytesSent = 0;
  std::uint64_t bytesReceived = 0;
  std::uint32_t instance = kNone32;  // index into Trace::collectives
  bool operator==(const CollectiveCall&) const = default;
};

// How a participation is stored: 12 B while built, a few bytes sealed, plus its signature
// (operation, communicator, root, sizes), interned per rank.
struct CollectiveSignature {
  std::uint64_t bytesSent = 0;
  std::uint64_t bytesReceived = 0;
  std::int32_t root = -1;
  std::uint32_t comm = 0;
  MpiOp op = MpiOp::None;
  bool operator==(const CollectiveSignature&) const = default;
};
struct CollectiveRow {
  std::uint32_t event = kNone32;
  std::uint32_t instance = kNone32;
  std::uint32_t sig = 0;
};
struct CollectiveCodec {
  using Value = CollectiveCall;
  using Row = CollectiveRow;
  using Signature = CollectiveSignature;
  struct Hash {
    std::size_t operator()(const CollectiveSignature& s) const {
      std::size_t h = detail::hashMix(0, s.bytesSent);
      h = detail::hashMix(h, s.bytesReceived);
      h = detail::hashMix(h, static_cast<std::uint32_t>(s.root));
      h = detail::hashMix(h, s.comm);
      return detail::hashMix(h, static_cast<std::uint32_t>(s.op));
    }
  };
  static Signature signature(const Value& v) {
    return {v.bytesSent, v.bytesReceived, v.root, v.comm, v.op};
  }
  static Row encode(const Value& v, std::uint32_t sig) { return {v.event, v.instance, sig}; }
  static std::uint32_t sigOf(const Row& r) { return r.sig; }
  static constexpr std::size_t kFields = 3, kSigField = 2;
  static std::int64_t field(const Row& r, std::size_t k) { return k == 0 ? r.event : k == 1 ? r.instance : r.sig; }
  static void setField(Row& r, std::size_t k, std::int64_t v) {
    const auto u = static_cast<std::uint32_t>(v);
    (k == 0 ? r.event : k == 1 ? r.instance : r.sig) = u;
  }
  static Value decode(const Row& r, const Signature& s, std::size_t) {
    return {r.event, s.op, s.comm, s.root, s.bytesSent, s.bytesReceived, r.instance};
  }
};

// A rank's collective participations (RankTrace::collectives), in call order.
class CollectiveTable : public InternedTable<CollectiveCodec> {
 public:
  using InternedTable::InternedTable;
  using InternedTable::operator=;
  void setEvent(std::size_t i, std::uint32_t event) { mutableRow(i).event = event; }
  void setInstance(std::size_t i, std::uint32_t instance) { mutableRow(i).instance = instance; }
};

// One collective operation across all members of its communicator.
struct CollectiveInstance {
  MpiOp op = MpiOp::None;
  std::uint32_t comm = 0;
  std::uint32_t sequence = 0;  // k-th collective on this communicator
  std::uint32_t participants = 0;
  bool operator==(const CollectiveInstance&) const = default;
};

struct PointLabel {
  std::uint32_t event = kNone32;
  std::string text;
  bool operator==(const PointLabel&) const = default;
};

// Events of one rank, in enter order (ties: outer before inner, as recorded).
struct RankTrace {
  std::string name;
  // Column-wise event storage.
  TimeColumn enter;                    // about 4 B per event (time_column.h)
  TimeColumn leave;                    // == enter for point events
  std::vector<std::uint32_t> function; // index into Trace::functions
  std::vector<std::uint8_t> depth;     // nesting depth when entered (0 = outermost)
  // Side tables.
  // In posting order: by enter time of postEvent (then postEvent, time, sends first, peer, tag,
  // comm, bytes, request) - a canonical order that depends on model values only.
  MessageTable messages;
  CollectiveTable collectives;  // in call order
  std::vector<PointLabel> labels;           // text of point events that carry one
  std::vector<std::uint32_t> mpiCalls;      // event index of each MPI call: INDEX of "RANK:INDEX"

  std::size_t size() const { return enter.size(); }
  bool operator==(const RankTrace&) const = default;
};

// A thread location that is not an MPI rank: an OTF 1 child process (VampirTrace's OpenMP and
// Pthreads streams), an OTF2 CPU thread beyond its process's first. Its events are stored as a
// rank's are (enter order, depth, labels), without messages, collectives or an MPI call index:
// the replay predicts MPI ranks only, so a thread is drawn and exported as measured.
struct ThreadTrace {
  std::int32_t rank = -1;  // the MPI rank it belongs to (drawn under it); -1: none
  RankTrace events;        // name and events; messages, collectives and mpiCalls stay empty
  bool operator==(const ThreadTrace&) const = default;
};

// Per-rank part of one parallel step.
// 8 B: its time span is the marker's (Trace::stepBegin/stepEnd).
struct StepSpan {
  std::uint32_t marker = kNone32;  // the region-marker event, kNone32 if the rank lacks this step
  std::uint32_t lastEvent = 0;     // the step's events are [firstEvent(), lastEvent)
  std::uint32_t firstEvent() const { return marker; }
  bool present() const { return marker != kNone32; }
  bool operator==(const StepSpan&) const = default;
};

// A parallel step: one execution of the parallel region on every rank (paper §2.1).
struct ParallelStep {
  std::vector<StepSpan> ranks;  // indexed by world rank
  bool operator==(const ParallelStep&) const = default;
};

enum class Severity : std::uint8_t { Warning, Note };

// An anomaly found while reading or building, with where it was found.
struct Diagnostic {
  std::string file;      // the input file (or location file) it concerns
  std::int64_t line = -1;  // ALOG: 1-based line; OTF2: -1 (see position)
  std::string position;    // free-form position, e.g. "location 3, event 17"
  std::string message;
  std::string toString() const;
  bool operator==(const Diagnostic&) const = default;
};

// How a tool tells its user that `path` loaded with warnings (every command, perwiz-mpi and
// the GUI's headless export print it; docs/robustness.md): "" without any, else "PATH: loaded
// with N warning(s): the model may lack what they name", the first `shown` warnings indented,
// and `seeAll` (where to read every one) on a last line when some were left out. Ends with '\n'.
// A duration as every front end prints it: "6.162 ms", "14.000 µs", "812 ns", "-1.250 s" — the
// largest unit not above it (s, ms, µs) with three decimals, or whole nanoseconds below 1 µs.
// `micro`: the microsecond unit's name ("µs"; the CLI's text and JSON keep ASCII "us").
std::string formatDuration(TimeNs ns, const char* micro = "\u00b5s");

std::string warningsReport(const std::vector<Diagnostic>& warnings, const std::string& path, std::size_t shown,
                           const std::string& seeAll);

struct MessageStats {
  std::uint64_t matched = 0;  // matched pairs
  std::uint64_t unmatchedSends = 0;
  std::uint64_t unmatchedReceives = 0;
  std::uint64_t receiveBeforeSend = 0;  // matched pairs whose receive completes before the send
};

class Trace {
 public:
  std::string source;  // file the trace was read from (informational)
  std::string format;  // "alog", "otf2", "generated", ...
  std::vector<RankTrace> ranks;
  std::vector<ThreadTrace> threads;  // by rank, then as the file lists them (rank -1 last)
  std::vector<Function> functions;
  std::vector<Communicator> comms;  // comms[0] is MPI_COMM_WORLD
  std::vector<CollectiveInstance> collectives;
  std::vector<std::uint32_t> regionFunctions;  // functions whose states are parallel steps
  std::vector<ParallelStep> steps;
  std::vector<Diagnostic> warnings;
  MessageStats messageStats;
  TimeNs startTime = 0;  // always 0 after building; kept for clarity
  TimeNs endTime = 0;    // latest leave over all ranks and threads
  std::uint64_t sourceRecords = 0;  // records read from the file (events in the file's sense)

  std::size_t rankCount() const { return ranks.size(); }
  // Time span of rank r's part of step k: its marker's enter and leave (0 if absent).
  TimeNs stepBegin(std::size_t k, std::uint32_t r) const {
    const StepSpan& s = steps[k].ranks[r];
    return s.present() ? ranks[r].enter[s.marker] : 0;
  }
  TimeNs stepEnd(std::size_t k, std::uint32_t r) const {
    const StepSpan& s = steps[k].ranks[r];
    return s.present() ? ranks[r].leave[s.marker] : 0;
  }
  std::uint64_t eventCount() const;        // events of the ranks
  std::uint64_t threadEventCount() const;  // events of the threads
  std::uint64_t mpiCallCount() const;
  TimeNs duration() const { return endTime - startTime; }
  const Function& fn(std::uint32_t rank, std::uint32_t event) const {
    return functions[ranks[rank].function[event]];
  }
  EventKind kind(std::uint32_t rank, std::uint32_t event) const { return fn(rank, event).kind; }

  // Bytes of model data (elements of all arrays, heap strings), for the memory benchmark.
  std::size_t residentBytes() const;

  // Model equality ignores source, format, warnings and sourceRecords.
  bool sameModel(const Trace& other, std::string* why = nullptr) const;
};

// Parallel steps (paper §2.1). The default convention: a UserState whose name starts with
// "PRGN" is a parallel-region marker. declareParallelRegion() recomputes the steps with any
// set of function names (e.g. a Score-P user region) as the region.
bool isDefaultRegionName(const std::string& name);
void computeParallelSteps(Trace& trace, const std::vector<std::uint32_t>& regionFunctions);
// Returns false (and leaves the trace unchanged) if no function has that name.
bool declareParallelRegion(Trace& trace, const std::string& functionName);

// The tracer's own cost (libperwiz-trace, docs/tracer.md). It measures at MPI_Init what one
// record costs the program (a clock read and a record write, in ns; an MPI call is two records,
// its enter and its leave, plus one per message or collective record) and stores it on every
// rank as a point event of this name whose label is the value: an OTF2 parameter record, an
// ALOG lone event with the value as comment. Readers and writers keep point events, so the
// value survives conversions; compensation (compensation.h) subtracts it per record.
inline constexpr const char* kEventOverheadPoint = "PERWIZ_EVENT_OVERHEAD_NS";

// The rank's recorded per-record overhead in ns; -1 if the trace does not carry one for it.
inline TimeNs recordedEventOverhead(const Trace& trace, std::uint32_t rank) {
  if (rank >= trace.ranks.size()) return -1;
  std::uint32_t fn = kNone32;
  for (std::uint32_t f = 0; f < trace.functions.size() && fn == kNone32; ++f)
    if (trace.functions[f].kind == EventKind::Point && trace.functions[f].name == kEventOverheadPoint)
      fn = f;
  if (fn == kNone32) return -1;
  const RankTrace& rt = trace.ranks[rank];
  for (const PointLabel& l : rt.labels) {
    if (l.event >= rt.function.size() || rt.function[l.event] != fn) continue;
    TimeNs value = -1;
    const char* end = l.text.data() + l.text.size();
    auto [p, ec] = std::from_chars(l.text.data(), end, value);
    return ec == std::errc() && p == end && value >= 0 ? value : -1;
  }
  return -1;
}

// Event id "RANK:INDEX" where INDEX counts MPI call events of that rank (see perwiz-cli events).
std::string eventId(std::uint32_t rank, std::uint32_t mpiIndex);
// Parses "R:I"; returns false on malformed input.
bool parseEventId(const std::string& id, std::uint32_t& rank, std::uint32_t& mpiIndex);

}  // namespace perwiz
