#include "perwiz/trace_builder.h"

#include "perwiz/rank_parallel.h"

#include "perwiz/trace_io.h"

#include "perwiz/internal/message_matching.h"
#include "collective_matching.h"
#include "request_table.h"

#include <algorithm>
#include <map>
#include <new>
#include <numeric>
#include <stdexcept>
#include <tuple>

namespace perwiz {
namespace {

// At most this many individual diagnostics of one kind; the rest are summarised.
constexpr std::size_t kMaxDiagnosticsPerKind = 20;

struct OpenEvent {
  std::uint32_t event;
  std::uint32_t function;
};

struct RankState {
  std::vector<OpenEvent> stack;
  RequestTable pendingIsends;  // request -> endpoint
  RequestTable pendingIrecvs;  // request -> post event
  TimeNs lastTime = std::numeric_limits<TimeNs>::min();
  bool outOfOrder = false;
  bool warnedSynthetic = false;
};

// An endpoint posted and completed by `call` (Irecv/Isend completions are linked later).
MessageEndpoint endpoint(TimeNs time, std::uint32_t call, std::int32_t peer, std::uint32_t comm,
                         std::int32_t tag, std::uint64_t bytes, std::uint64_t request,
                         bool isSend) {
  MessageEndpoint m;
  m.time = time;
  m.event = m.postEvent = call;
  m.peer = peer;
  m.tag = tag;
  m.comm = comm;
  m.bytes = bytes;
  m.request = request;
  m.isSend = isSend;
  return m;
}

}  // namespace

// Where records come from: the builder's own stream (direct), or a part filled by another
// thread (TraceSink::openPart). A part keeps what it would change outside its ranks (the
// diagnostics, the functions it synthesises, the time range) until joinPart() merges it.
struct BuildContext {
  bool direct = true;
  std::uint32_t first = 0, last = kNone32;  // the ranks a part may write
  std::int64_t line = -1;
  std::string position;
  std::uint32_t lastRank = kNone32;  // rank of the latest record, for activity()
  TimeNs maxTime = std::numeric_limits<TimeNs>::min();
  TimeNs minTime = std::numeric_limits<TimeNs>::max();
  // A part's own: diagnostics in arrival order with their kind ("" for a producer's warning),
  // at most kMaxDiagnosticsPerKind per kind kept; counts per kind; records read.
  std::vector<std::pair<std::string, Diagnostic>> pending;
  std::map<std::string, std::size_t> counts;
  std::uint64_t sourceRecords = 0;
  // Synthetic calls of a part carry kProvisional + i, i indexing `synthetic` (first use order),
  // until joinPart() defines the functions and renumbers the events of `syntheticRanks`.
  std::vector<MpiOp> synthetic;
  std::vector<std::uint32_t> syntheticRanks;
  std::vector<std::int64_t> syntheticLines;  // the line of each one's first use
};

constexpr std::uint32_t kProvisional = 0xFFFFFF00u;  // MpiOp has fewer than 256 values

struct TraceBuilder::Impl {
  Trace t;
  bool begun = false;
  bool keepUnused = false;  // keepUnusedFunctions()
  bool quietMatching = false;  // skipMatchingDiagnostics(): no matching or step warnings
  bool ended = false;
  // Locations: ranks [0, rankCount), then the threads (TraceHeader::threads), which end()
  // moves to Trace::threads. Both take events the same way until then.
  std::vector<RankState> rs;
  std::uint32_t rankCount = 0;
  std::vector<std::int32_t> threadRank;  // per thread: the rank it belongs to
  std::map<std::pair<std::string, EventKind>, std::uint32_t> functionIndex;
  std::map<std::string, std::size_t> diagCounts;  // per kind, for capping
  BuildContext direct;  // the builder's own records, and end()

  void diag(BuildContext& c, const std::string& kind, std::string message) {
    if (!c.direct) {
      if (++c.counts[kind] <= kMaxDiagnosticsPerKind)
        c.pending.emplace_back(kind, Diagnostic{t.source, c.line, c.position, std::move(message)});
      return;
    }
    std::size_t& n = diagCounts[kind];
    ++n;
    if (n > kMaxDiagnosticsPerKind) return;
    t.warnings.push_back(Diagnostic{t.source, c.line, c.position, std::move(message)});
  }
  void diag(const std::string& kind, std::string message) { diag(direct, kind, std::move(message)); }

  void warn(BuildContext& c, Diagnostic d) {
    if (d.file.empty()) d.file = t.source;
    if (c.direct)
      t.warnings.push_back(std::move(d));
    else
      c.pending.emplace_back(std::string(), std::move(d));
  }

  // "rank 3" or "thread 'OMP thread 1'" (a location's name in diagnostics).
  std::string who(std::uint32_t loc) const {
    return loc < rankCount ? "rank " + std::to_string(loc) : "thread '" + t.ranks[loc].name + "'";
  }

  // A record of location `rank`: a rank's, or (thread) a thread's location.
  bool checkRank(BuildContext& c, std::uint32_t rank, TimeNs time, bool thread = false) {
    if (!begun) throw std::logic_error("TraceBuilder: record before begin()");
    if (!thread && rank >= rankCount) {
      diag(c, "rank", "record for rank " + std::to_string(rank) + " beyond the " +
                          std::to_string(rankCount) + " ranks; ignored");
      return false;
    }
    if (thread && rank >= rs.size()) {
      diag(c, "rank", "record for a thread beyond the " + std::to_string(rs.size() - rankCount) +
                          " threads; ignored");
      return false;
    }
    if (rank < c.first || rank >= c.last)
      throw std::logic_error("TraceBuilder: a part got a record of rank " + std::to_string(rank) +
                             ", outside its ranks");
    c.lastRank = rank;
    RankState& s = rs[rank];
    if (time < s.lastTime) {
      s.outOfOrder = true;
      diag(c, "order", who(rank) + ": time goes backwards (" +
                           std::to_string(time) + " ns after " + std::to_string(s.lastTime) +
                           " ns); events re-sorted");
    }
    s.lastTime = std::max(s.lastTime, time);
    c.maxTime = std::max(c.maxTime, time);
    c.minTime = std::min(c.minTime, time);
    return true;
  }

  std::uint32_t appendEvent(BuildContext& c, std::uint32_t rank, TimeNs enter, TimeNs leave,
                            std::uint32_t fn) {
    RankTrace& r = t.ranks[rank];
    auto e = static_cast<std::uint32_t>(r.enter.size());
    r.enter.push_back(enter);
    r.leave.push_back(leave);
    r.function.push_back(fn);
    const std::size_t depth = rs[rank].stack.size();
    if (depth > kMaxDepth) [[unlikely]]
      tooDeep(c, rank, enter);
    r.depth.push_back(static_cast<std::uint8_t>(depth));
    return e;
  }

  // The model keeps an event's nesting depth in one byte (the 32 B/event budget): deeper
  // nesting cannot be stored, and a clamped depth would make the model inconsistent (the
  // events inside a call are found by depth), so the input is refused.
  static constexpr std::size_t kMaxDepth = std::numeric_limits<std::uint8_t>::max();
  [[noreturn]] void tooDeep(const BuildContext& c, std::uint32_t rank, TimeNs time) const {
    std::string where = c.line >= 0 ? "line " + std::to_string(c.line) + ", " : "";
    if (!c.position.empty()) where += c.position + ", ";
    const std::string& open = t.functions[rs[rank].stack.back().function].name;
    throw TraceError(t.source, where + who(rank) + " at " +
                                   std::to_string(time) + " ns: an event inside " +
                                   std::to_string(kMaxDepth + 1) + " open states (the innermost '" +
                                   open + "'); nesting deeper than the model holds (at most " +
                                   std::to_string(kMaxDepth) + " enclosing states)");
  }

  // The innermost open MPI call; records outside any call get a zero-length synthetic call so
  // that every message belongs to an event.
  std::uint32_t currentCall(BuildContext& c, std::uint32_t rank, TimeNs time, MpiOp syntheticOp) {
    RankState& s = rs[rank];
    for (auto it = s.stack.rbegin(); it != s.stack.rend(); ++it)
      if (t.functions[it->function].kind == EventKind::MpiCall) return it->event;
    if (!s.warnedSynthetic) {
      s.warnedSynthetic = true;
      diag(c, "synthetic", "rank " + std::to_string(rank) +
                               ": message or collective record outside any MPI call; attached to a "
                               "zero-length " + std::string(mpiOpName(syntheticOp)) + " call");
    }
    return appendEvent(c, rank, time, time, syntheticFunction(c, rank, syntheticOp));
  }

  // The MPI operation of a rank's event (None for a synthetic call a part has not numbered).
  MpiOp opOfEvent(std::uint32_t rank, std::uint32_t event) const {
    const std::uint32_t f = t.ranks[rank].function[event];
    return f < t.functions.size() ? t.functions[f].op : MpiOp::None;
  }
  // The request of a half-recorded endpoint: the model keeps only that it is non-blocking.
  static constexpr std::uint64_t kHalfRecorded = 1;

  static Function syntheticCall(MpiOp op) {
    return Function{std::string(mpiOpName(op)), EventKind::MpiCall, op, ""};
  }

  // A part must not grow the function table other threads read: it numbers its synthetic
  // calls provisionally.
  std::uint32_t syntheticFunction(BuildContext& c, std::uint32_t rank, MpiOp op) {
    if (c.direct) return define(syntheticCall(op));
    if (c.syntheticRanks.empty() || c.syntheticRanks.back() != rank) c.syntheticRanks.push_back(rank);
    const auto it = std::find(c.synthetic.begin(), c.synthetic.end(), op);
    if (it != c.synthetic.end()) return kProvisional + static_cast<std::uint32_t>(it - c.synthetic.begin());
    c.synthetic.push_back(op);
    c.syntheticLines.push_back(c.line);
    return kProvisional + static_cast<std::uint32_t>(c.synthetic.size() - 1);
  }

  std::uint32_t define(const Function& f) {
    auto key = std::make_pair(f.name, f.kind);
    auto it = functionIndex.find(key);
    if (it != functionIndex.end()) return it->second;
    auto idx = static_cast<std::uint32_t>(t.functions.size());
    t.functions.push_back(f);
    functionIndex.emplace(key, idx);
    return idx;
  }

  // Also a thread's records (thread: rank is its location).
  std::uint32_t threadLocation(std::uint32_t thread) const {
    return thread < rs.size() - rankCount ? rankCount + thread : kNone32;
  }
  void enter(BuildContext& c, std::uint32_t rank, TimeNs time, std::uint32_t fn, bool thread = false);
  void leave(BuildContext& c, std::uint32_t rank, TimeNs time, std::uint32_t fn, bool thread = false);
  void point(BuildContext& c, std::uint32_t rank, TimeNs time, std::uint32_t fn,
             std::string_view label, bool thread = false);
  void send(BuildContext& c, std::uint32_t rank, TimeNs time, std::int32_t peer,
            std::uint32_t comm, std::int32_t tag, std::uint64_t bytes, std::uint64_t request);
  void recv(BuildContext& c, std::uint32_t rank, TimeNs time, std::int32_t peer,
            std::uint32_t comm, std::int32_t tag, std::uint64_t bytes, std::uint64_t request);
  void isendComplete(BuildContext& c, std::uint32_t rank, TimeNs time, std::uint64_t request);
  void irecvRequest(BuildContext& c, std::uint32_t rank, TimeNs time, std::uint64_t request);
  void collective(BuildContext& c, std::uint32_t rank, TimeNs time, MpiOp op, std::uint32_t comm,
                  std::int32_t root, std::uint64_t sent, std::uint64_t received);
  void join(BuildContext& part);
  void joinByLine(const std::vector<BuildContext*>& parts);
  void absorbTotals(const BuildContext& part);

  void closeOpenStates();
  void separateThreads();
  void shiftNegativeTimes();
  void sortOutOfOrderRanks();
  void pruneUnusedFunctions();
  void finishRequests();
  void sortMessages();
  void indexMpiCalls();
  void findParallelSteps();
};

// A part: the records of ranks [first, last) from one thread.
class TraceBuilder::Part final : public TraceSink {
 public:
  Part(TraceBuilder::Impl& b, std::uint32_t first, std::uint32_t last) : b_(b) {
    c_.direct = false;
    c_.first = first;
    c_.last = last;
  }
  void begin(const TraceHeader&) override { refuse("begin()"); }
  std::uint32_t defineFunction(const Function&) override { refuse("defineFunction()"); }
  std::uint32_t defineComm(const Communicator&) override { refuse("defineComm()"); }
  void enter(std::uint32_t rank, TimeNs t, std::uint32_t fn) override { b_.enter(c_, rank, t, fn); }
  void leave(std::uint32_t rank, TimeNs t, std::uint32_t fn) override { b_.leave(c_, rank, t, fn); }
  void point(std::uint32_t rank, TimeNs t, std::uint32_t fn, std::string_view label) override {
    b_.point(c_, rank, t, fn, label);
  }
  void send(std::uint32_t rank, TimeNs t, std::int32_t peer, std::uint32_t comm, std::int32_t tag,
            std::uint64_t bytes, std::uint64_t request) override {
    b_.send(c_, rank, t, peer, comm, tag, bytes, request);
  }
  void recv(std::uint32_t rank, TimeNs t, std::int32_t peer, std::uint32_t comm, std::int32_t tag,
            std::uint64_t bytes, std::uint64_t request) override {
    b_.recv(c_, rank, t, peer, comm, tag, bytes, request);
  }
  void isendComplete(std::uint32_t rank, TimeNs t, std::uint64_t request) override {
    b_.isendComplete(c_, rank, t, request);
  }
  void irecvRequest(std::uint32_t rank, TimeNs t, std::uint64_t request) override {
    b_.irecvRequest(c_, rank, t, request);
  }
  void collective(std::uint32_t rank, TimeNs t, MpiOp op, std::uint32_t comm, std::int32_t root,
                  std::uint64_t sent, std::uint64_t received) override {
    b_.collective(c_, rank, t, op, comm, root, sent, received);
  }
  void warn(Diagnostic d) override { b_.warn(c_, std::move(d)); }
  void setPosition(std::int64_t line, std::string_view position) override {
    c_.line = line;
    if (!position.empty() || !c_.position.empty()) c_.position.assign(position);  // ALOG: a line per record
  }
  void addSourceRecords(std::uint64_t n) override { c_.sourceRecords += n; }
  void end() override { refuse("end()"); }

  TraceBuilder::Impl& builder() const { return b_; }
  BuildContext& context() { return c_; }

 private:
  [[noreturn]] static void refuse(const char* what) {
    throw std::logic_error(std::string("TraceBuilder: ") + what + " on a part");
  }
  TraceBuilder::Impl& b_;
  BuildContext c_;
};

TraceBuilder::TraceBuilder(std::string source, std::string format) : d(std::make_unique<Impl>()) {
  d->t.source = std::move(source);
  d->t.format = std::move(format);
}
TraceBuilder::~TraceBuilder() = default;

void TraceBuilder::begin(const TraceHeader& h) {
  if (d->begun) throw std::logic_error("TraceBuilder: begin() twice");
  d->begun = true;
  d->rankCount = h.ranks;
  const std::size_t locations = std::size_t{h.ranks} + h.threads.size();
  if (locations > kNone32) throw TraceError(d->t.source, "more than 2^32 ranks and threads");
  d->t.ranks.resize(locations);
  d->rs.resize(locations);
  for (std::uint32_t r = 0; r < h.ranks; ++r)
    d->t.ranks[r].name = r < h.rankNames.size() && !h.rankNames[r].empty()
                             ? h.rankNames[r]
                             : "rank " + std::to_string(r);
  for (std::size_t i = 0; i < h.threads.size(); ++i) {
    const std::int32_t rank = h.threads[i].rank;
    d->threadRank.push_back(rank >= 0 && static_cast<std::uint32_t>(rank) < h.ranks ? rank : -1);
    d->t.ranks[h.ranks + i].name = h.threads[i].name.empty() ? "thread " + std::to_string(i) : h.threads[i].name;
  }
  Communicator world{"MPI_COMM_WORLD", {}, false};
  world.worldRanks.resize(h.ranks);
  std::iota(world.worldRanks.begin(), world.worldRanks.end(), 0);
  d->t.comms.push_back(std::move(world));
}

std::uint32_t TraceBuilder::defineFunction(const Function& f) { return d->define(f); }

std::uint32_t TraceBuilder::defineComm(const Communicator& c) {
  d->t.comms.push_back(c);
  return static_cast<std::uint32_t>(d->t.comms.size() - 1);
}

void TraceBuilder::enter(std::uint32_t rank, TimeNs time, std::uint32_t fn) {
  d->enter(d->direct, rank, time, fn);
}
void TraceBuilder::leave(std::uint32_t rank, TimeNs time, std::uint32_t fn) {
  d->leave(d->direct, rank, time, fn);
}
void TraceBuilder::point(std::uint32_t rank, TimeNs time, std::uint32_t fn,
                         std::string_view label) {
  d->point(d->direct, rank, time, fn, label);
}
void TraceBuilder::threadEnter(std::uint32_t thread, TimeNs time, std::uint32_t fn) {
  d->enter(d->direct, d->threadLocation(thread), time, fn, true);
}
void TraceBuilder::threadLeave(std::uint32_t thread, TimeNs time, std::uint32_t fn) {
  d->leave(d->direct, d->threadLocation(thread), time, fn, true);
}
void TraceBuilder::threadPoint(std::uint32_t thread, TimeNs time, std::uint32_t fn, std::string_view label) {
  d->point(d->direct, d->threadLocation(thread), time, fn, label, true);
}
void TraceBuilder::send(std::uint32_t rank, TimeNs time, std::int32_t peer, std::uint32_t comm,
                        std::int32_t tag, std::uint64_t bytes, std::uint64_t request) {
  d->send(d->direct, rank, time, peer, comm, tag, bytes, request);
}
void TraceBuilder::recv(std::uint32_t rank, TimeNs time, std::int32_t peer, std::uint32_t comm,
                        std::int32_t tag, std::uint64_t bytes, std::uint64_t request) {
  d->recv(d->direct, rank, time, peer, comm, tag, bytes, request);
}
void TraceBuilder::isendComplete(std::uint32_t rank, TimeNs time, std::uint64_t request) {
  d->isendComplete(d->direct, rank, time, request);
}
void TraceBuilder::irecvRequest(std::uint32_t rank, TimeNs time, std::uint64_t request) {
  d->irecvRequest(d->direct, rank, time, request);
}
void TraceBuilder::collective(std::uint32_t rank, TimeNs time, MpiOp op, std::uint32_t comm,
                              std::int32_t root, std::uint64_t sent, std::uint64_t received) {
  d->collective(d->direct, rank, time, op, comm, root, sent, received);
}

void TraceBuilder::Impl::enter(BuildContext& c, std::uint32_t rank, TimeNs time, std::uint32_t fn, bool thread) {
  if (!checkRank(c, rank, time, thread)) return;
  std::uint32_t e = appendEvent(c, rank, time, time, fn);
  rs[rank].stack.push_back({e, fn});
}

void TraceBuilder::Impl::leave(BuildContext& c, std::uint32_t rank, TimeNs time, std::uint32_t fn, bool thread) {
  if (!checkRank(c, rank, time, thread)) return;
  auto& stack = rs[rank].stack;
  auto it = std::find_if(stack.rbegin(), stack.rend(),
                         [&](const OpenEvent& o) { return o.function == fn; });
  const std::string& name = t.functions[fn].name;
  if (it == stack.rend()) {
    diag(c, "unmatched-leave", who(rank) + ": end of '" + name +
                                   "' without a matching start; ignored");
    return;
  }
  if (it != stack.rbegin())
    diag(c, "nesting", who(rank) + ": end of '" + name +
                           "' while an inner state is still open (improper nesting)");
  std::uint32_t e = it->event;
  // A clock that went backwards (already reported) must not produce a negative duration.
  t.ranks[rank].leave.set(e, std::max(time, t.ranks[rank].enter[e]));
  stack.erase(std::next(it).base());
  // A collective call without a collective record (ALOG, Score-P 1.x) still takes part in
  // a collective on WORLD: its name is all we know.
  // (A thread's MPI calls are drawn as measured, never matched.)
  const Function& f = t.functions[fn];
  if (!thread && f.kind == EventKind::MpiCall && isCollective(f.op)) {
    auto& colls = t.ranks[rank].collectives;
    if (colls.empty() || colls.back().event != e)
      colls.push_back(CollectiveCall{e, f.op, 0, -1, 0, 0, kNone32});
  }
}

void TraceBuilder::Impl::point(BuildContext& c, std::uint32_t rank, TimeNs time, std::uint32_t fn,
                               std::string_view label, bool thread) {
  if (!checkRank(c, rank, time, thread)) return;
  std::uint32_t e = appendEvent(c, rank, time, time, fn);
  if (!label.empty()) t.ranks[rank].labels.push_back(PointLabel{e, std::string(label)});
}

void TraceBuilder::Impl::send(BuildContext& c, std::uint32_t rank, TimeNs time, std::int32_t peer,
                              std::uint32_t comm, std::int32_t tag, std::uint64_t bytes,
                              std::uint64_t request) {
  if (!checkRank(c, rank, time)) return;
  std::uint32_t call = currentCall(c, rank, time, request ? MpiOp::Isend : MpiOp::Send);
  auto& msgs = t.ranks[rank].messages;
  // A send record without a request inside a non-blocking send call (OTF 1 and MPE's ALOG
  // have no request ids; VampirTrace and MPE write the SendMsg in MPI_Isend or MPI_Start):
  // a half-recorded request, posted there, its completion not recorded (trace.h).
  const bool half = request == 0 && callClass(opOfEvent(rank, call)) == CallClass::Isend;
  MessageEndpoint m = endpoint(std::max(time, t.ranks[rank].enter[call]), call, peer, comm,
                               tag, bytes, half ? kHalfRecorded : request, true);
  if (request && !rs[rank].pendingIsends.put(request, static_cast<std::uint32_t>(msgs.size())))
    diag(c, "request", "rank " + std::to_string(rank) + ": Isend request " +
                           std::to_string(request) + " reused before completion");
  msgs.push_back(m);
}

void TraceBuilder::Impl::recv(BuildContext& c, std::uint32_t rank, TimeNs time, std::int32_t peer,
                              std::uint32_t comm, std::int32_t tag, std::uint64_t bytes,
                              std::uint64_t request) {
  if (!checkRank(c, rank, time)) return;
  std::uint32_t call = currentCall(c, rank, time, request ? MpiOp::Wait : MpiOp::Recv);
  // A receive record without a request inside a completion call (MPI_Wait*, MPI_Test*: where
  // VampirTrace and MPE write the receive of an MPI_Irecv) completes a half-recorded request:
  // its post was not recorded.
  const bool half = request == 0 && callClass(opOfEvent(rank, call)) == CallClass::Completion;
  MessageEndpoint m = endpoint(std::max(time, t.ranks[rank].enter[call]), call, peer, comm,
                               tag, bytes, half ? kHalfRecorded : request, false);
  if (request && !rs[rank].pendingIrecvs.take(request, m.postEvent))
    diag(c, "request", "rank " + std::to_string(rank) + ": Irecv completion for request " +
                           std::to_string(request) + " that was never posted");
  t.ranks[rank].messages.push_back(m);
}

void TraceBuilder::Impl::isendComplete(BuildContext& c, std::uint32_t rank, TimeNs time,
                                       std::uint64_t request) {
  if (!checkRank(c, rank, time)) return;
  std::uint32_t ep = 0;
  if (!rs[rank].pendingIsends.take(request, ep)) {
    diag(c, "request", "rank " + std::to_string(rank) + ": completion of unknown Isend request " +
                           std::to_string(request));
    return;
  }
  t.ranks[rank].messages.setEvent(ep, currentCall(c, rank, time, MpiOp::Wait));
}

void TraceBuilder::Impl::irecvRequest(BuildContext& c, std::uint32_t rank, TimeNs time,
                                      std::uint64_t request) {
  if (!checkRank(c, rank, time)) return;
  std::uint32_t call = currentCall(c, rank, time, MpiOp::Irecv);
  if (!rs[rank].pendingIrecvs.put(request, call))
    diag(c, "request", "rank " + std::to_string(rank) + ": Irecv request " +
                           std::to_string(request) + " reused before completion");
}

void TraceBuilder::Impl::collective(BuildContext& c, std::uint32_t rank, TimeNs time, MpiOp op,
                                    std::uint32_t comm, std::int32_t root, std::uint64_t sent,
                                    std::uint64_t received) {
  if (!checkRank(c, rank, time)) return;
  if (comm >= t.comms.size()) {
    diag(c, "comm", "collective on undefined communicator " + std::to_string(comm) + "; ignored");
    return;
  }
  std::uint32_t call = currentCall(c, rank, time, op);
  t.ranks[rank].collectives.push_back(
      CollectiveCall{call, op, comm, root, sent, received, kNone32});
}

// A part's records are in; what it kept for later is merged as if they had come on this
// thread now: its diagnostics after those already kept (with the per-kind cap over both), its
// synthetic calls defined in their first-use order.
void TraceBuilder::Impl::join(BuildContext& p) {
  std::map<std::string, std::size_t> kept;
  for (auto& [kind, diagnostic] : p.pending) {
    if (kind.empty()) {
      t.warnings.push_back(std::move(diagnostic));
      continue;
    }
    ++kept[kind];
    if (++diagCounts[kind] <= kMaxDiagnosticsPerKind) t.warnings.push_back(std::move(diagnostic));
  }
  for (const auto& [kind, n] : p.counts) diagCounts[kind] += n - kept[kind];
  if (!p.synthetic.empty()) {
    std::vector<std::uint32_t> real;
    for (MpiOp op : p.synthetic) real.push_back(define(syntheticCall(op)));
    for (std::uint32_t r : p.syntheticRanks)
      for (std::uint32_t& f : t.ranks[r].function)
        if (f >= kProvisional) f = real[f - kProvisional];
  }
  absorbTotals(p);
}

void TraceBuilder::Impl::absorbTotals(const BuildContext& p) {
  direct.maxTime = std::max(direct.maxTime, p.maxTime);
  direct.minTime = std::min(direct.minTime, p.minTime);
  if (p.lastRank != kNone32) direct.lastRank = p.lastRank;
  t.sourceRecords += p.sourceRecords;
}

// Parts whose records interleave line by line (TraceSink::joinPartsByLine): their synthetic
// functions are defined, and their diagnostics kept, in line order across the parts, as the
// builder's own stream would have met them.
void TraceBuilder::Impl::joinByLine(const std::vector<BuildContext*>& parts) {
  struct Item {
    std::int64_t line;
    std::size_t part, index;
  };
  const auto byLine = [](const Item& a, const Item& b) { return a.line < b.line; };
  std::vector<Item> uses;
  for (std::size_t p = 0; p < parts.size(); ++p)
    for (std::size_t i = 0; i < parts[p]->synthetic.size(); ++i) uses.push_back({parts[p]->syntheticLines[i], p, i});
  std::stable_sort(uses.begin(), uses.end(), byLine);
  std::vector<std::vector<std::uint32_t>> real(parts.size());
  for (std::size_t p = 0; p < parts.size(); ++p) real[p].resize(parts[p]->synthetic.size());
  for (const Item& u : uses) real[u.part][u.index] = define(syntheticCall(parts[u.part]->synthetic[u.index]));
  for (std::size_t p = 0; p < parts.size(); ++p)
    for (std::uint32_t r : parts[p]->syntheticRanks)
      for (std::uint32_t& f : t.ranks[r].function)
        if (f >= kProvisional) f = real[p][f - kProvisional];

  std::vector<Item> diags;
  for (std::size_t p = 0; p < parts.size(); ++p)
    for (std::size_t i = 0; i < parts[p]->pending.size(); ++i)
      diags.push_back({parts[p]->pending[i].second.line, p, i});
  std::stable_sort(diags.begin(), diags.end(), byLine);
  std::vector<std::map<std::string, std::size_t>> kept(parts.size());
  for (const Item& d : diags) {
    auto& [kind, diagnostic] = parts[d.part]->pending[d.index];
    if (kind.empty()) {
      t.warnings.push_back(std::move(diagnostic));
      continue;
    }
    ++kept[d.part][kind];
    if (++diagCounts[kind] <= kMaxDiagnosticsPerKind) t.warnings.push_back(std::move(diagnostic));
  }
  for (std::size_t p = 0; p < parts.size(); ++p) {
    for (const auto& [kind, n] : parts[p]->counts) diagCounts[kind] += n - kept[p][kind];
    absorbTotals(*parts[p]);
  }
}

std::unique_ptr<TraceSink> TraceBuilder::openPart(std::uint32_t first, std::uint32_t last) {
  if (!d->begun) throw std::logic_error("TraceBuilder: openPart() before begin()");
  return std::make_unique<Part>(*d, first, last);
}

void TraceBuilder::joinPart(std::unique_ptr<TraceSink> part) {
  auto* p = dynamic_cast<Part*>(part.get());
  if (!p || &p->builder() != d.get())
    throw std::logic_error("TraceBuilder: joinPart() of a part of another sink");
  d->join(p->context());
}

void TraceBuilder::joinPartsByLine(std::vector<std::unique_ptr<TraceSink>> parts) {
  std::vector<BuildContext*> contexts;
  for (const auto& part : parts) {
    auto* p = dynamic_cast<Part*>(part.get());
    if (!p || &p->builder() != d.get())
      throw std::logic_error("TraceBuilder: joinPartsByLine() of a part of another sink");
    contexts.push_back(&p->context());
  }
  d->joinByLine(contexts);
}

void TraceBuilder::warn(Diagnostic diag) { d->warn(d->direct, std::move(diag)); }

void TraceBuilder::setPosition(std::int64_t line, std::string_view position) {
  d->direct.line = line;
  if (!position.empty() || !d->direct.position.empty()) d->direct.position.assign(position);
}

void TraceBuilder::addSourceRecords(std::uint64_t n) { d->t.sourceRecords += n; }

void TraceBuilder::expectRecords(std::uint32_t rank, std::uint64_t records) {
  if (rank >= d->t.ranks.size()) return;
  // Upper bounds from the record count: every event but a point takes two records (enter and
  // leave), an endpoint at least two (its record and, shared, its call's), a collective four.
  // Reserving only costs address space: pages are resident once written, so growing the
  // vectors by doubling (copying, and faulting in every intermediate block) is the dearer way.
  // The cap keeps a lying header from reserving absurd amounts; vectors still grow past it.
  constexpr std::uint64_t kMaxReserve = std::uint64_t{1} << 28;
  auto bound = [&](std::uint64_t n) { return static_cast<std::size_t>(std::min(n + 1, kMaxReserve)); };
  RankTrace& r = d->t.ranks[rank];
  const std::size_t events = bound(records / 2);
  try {
    r.enter.reserve(events);
    r.leave.reserve(events);
    r.function.reserve(events);
    r.depth.reserve(events);
    r.messages.reserve(bound(records / 2));
    r.collectives.reserve(bound(records / 4));
  } catch (const std::bad_alloc&) {
    // Only a hint: address space can be short (RLIMIT_AS, strict overcommit) where the
    // records themselves still fit. Give back what was taken; the vectors grow as needed.
    r.enter.shrink_to_fit();
    r.leave.shrink_to_fit();
    r.function.shrink_to_fit();
    r.depth.shrink_to_fit();
    r.messages.shrink_to_fit();
    r.collectives.shrink_to_fit();
  }
}

void TraceBuilder::Impl::closeOpenStates() {
  direct.line = -1;
  direct.position = "end of trace";
  const TimeNs end = direct.maxTime == std::numeric_limits<TimeNs>::min() ? 0 : direct.maxTime;
  for (std::uint32_t r = 0; r < rs.size(); ++r) {
    auto& stack = rs[r].stack;
    while (!stack.empty()) {
      OpenEvent o = stack.back();
      stack.pop_back();
      t.ranks[r].leave.set(o.event, end);
      diag("open", who(r) + ": '" + t.functions[o.function].name +
                       "' still open at the end of the trace; closed at the end time");
      const Function& f = t.functions[o.function];
      if (r < rankCount && f.kind == EventKind::MpiCall && isCollective(f.op)) {
        auto& colls = t.ranks[r].collectives;
        if (colls.empty() || colls.back().event != o.event)
          colls.push_back(CollectiveCall{o.event, f.op, 0, -1, 0, 0, kNone32});
      }
    }
  }
}

// Some tracers (EZTrace) write events before the clock offset they declare. The model's times
// count from the trace start, so move the origin to the earliest event.
void TraceBuilder::Impl::shiftNegativeTimes() {
  // minTime covers every record the builder accepted (events and message times).
  const TimeNs earliest = direct.minTime;
  if (earliest >= 0) return;
  const TimeNs shift = -earliest;
  for (auto& r : t.ranks) {
    r.enter.addToAll(shift);
    r.leave.addToAll(shift);
    r.messages.addToTimes(shift);
  }
  direct.line = -1;
  direct.position = "clock";
  diag("clock", "events precede the trace's declared start by " + std::to_string(shift) +
                    " ns; all times shifted so that the earliest event is at 0");
}

// Records of a rank arrived with decreasing times (a reader contract violation we survive):
// sort the events stably by enter time and renumber every reference.
void TraceBuilder::Impl::sortOutOfOrderRanks() {
  for (std::uint32_t r = 0; r < rs.size(); ++r) {
    if (!rs[r].outOfOrder) continue;
    RankTrace& rt = t.ranks[r];
    std::vector<std::uint32_t> order(rt.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(),
                     [&](std::uint32_t a, std::uint32_t b) { return rt.enter[a] < rt.enter[b]; });
    std::vector<std::uint32_t> newIndex(rt.size());
    for (std::uint32_t i = 0; i < order.size(); ++i) newIndex[order[i]] = i;
    auto permute = [&](auto& v) {
      auto copy = v;
      for (std::uint32_t i = 0; i < order.size(); ++i) v[i] = copy[order[i]];
    };
    auto permuteTimes = [&](TimeColumn& c) {
      const std::vector<TimeNs> copy = c.toVector();
      c.clear();
      for (std::uint32_t i = 0; i < order.size(); ++i) c.push_back(copy[order[i]]);
    };
    permuteTimes(rt.enter);
    permuteTimes(rt.leave);
    permute(rt.function);
    permute(rt.depth);
    for (std::size_t i = 0; i < rt.messages.size(); ++i) {
      rt.messages.setEvent(i, newIndex[rt.messages.row(i).event]);
      rt.messages.setPostEvent(i, newIndex[rt.messages.row(i).postEvent]);
    }
    std::vector<CollectiveCall> colls = rt.collectives.toVector();
    for (auto& c : colls) c.event = newIndex[c.event];
    for (auto& l : rt.labels) l.event = newIndex[l.event];
    std::stable_sort(colls.begin(), colls.end(),
                     [](const CollectiveCall& a, const CollectiveCall& b) { return a.event < b.event; });
    rt.collectives = colls;
    std::stable_sort(rt.labels.begin(), rt.labels.end(),
                     [](const PointLabel& a, const PointLabel& b) { return a.event < b.event; });
  }
}

// Score-P defines a region for every MPI function; keep only what the trace uses so that
// tables and round trips are about the execution, not the tracer's definitions.
void TraceBuilder::Impl::pruneUnusedFunctions() {
  std::vector<char> used(t.functions.size(), 0);
  for (const auto& r : t.ranks)
    for (std::uint32_t f : r.function) used[f] = 1;
  std::vector<std::uint32_t> remap(t.functions.size(), kNone32);
  std::vector<Function> kept;
  for (std::uint32_t f = 0; f < t.functions.size(); ++f)
    if (used[f]) {
      remap[f] = static_cast<std::uint32_t>(kept.size());
      kept.push_back(std::move(t.functions[f]));
    }
  t.functions = std::move(kept);
  for (auto& r : t.ranks)
    for (auto& f : r.function) f = remap[f];
}

// The threads' locations become Trace::threads: what follows (requests, messages, the MPI
// call index, matching, steps) is about ranks only.
void TraceBuilder::Impl::separateThreads() {
  t.threads.reserve(t.ranks.size() - rankCount);
  for (std::size_t i = rankCount; i < t.ranks.size(); ++i)
    t.threads.push_back(ThreadTrace{threadRank[i - rankCount], std::move(t.ranks[i])});
  t.ranks.resize(rankCount);
  rs.resize(rankCount);
  // By rank (the rank a thread is drawn under), then in the file's order; rank -1 last.
  std::stable_sort(t.threads.begin(), t.threads.end(), [](const ThreadTrace& a, const ThreadTrace& b) {
    return static_cast<std::uint32_t>(a.rank) < static_cast<std::uint32_t>(b.rank);
  });
}

void TraceBuilder::Impl::finishRequests() {
  direct.line = -1;
  direct.position = "end of trace";
  for (std::uint32_t r = 0; r < rs.size(); ++r) {
    if (!rs[r].pendingIsends.empty())
      diag("pending", "rank " + std::to_string(r) + ": " +
                          std::to_string(rs[r].pendingIsends.size()) +
                          " Isend request(s) never completed");
    if (!rs[r].pendingIrecvs.empty())
      diag("pending", "rank " + std::to_string(r) + ": " +
                          std::to_string(rs[r].pendingIrecvs.size()) +
                          " Irecv request(s) posted but never completed");
  }
}

void TraceBuilder::Impl::sortMessages() {
  forEachRank(static_cast<std::uint32_t>(t.ranks.size()), t.eventCount(), [&](std::uint32_t r) {
    RankTrace& rt = t.ranks[r];
    auto key = [&](const MessageEndpoint& m) {
      return std::make_tuple(rt.enter[m.postEvent], m.postEvent, m.time, !m.isSend, m.event,
                             m.peer, m.tag, m.comm, m.bytes, m.request);
    };
    auto less = [&](const MessageEndpoint& a, const MessageEndpoint& b) { return key(a) < key(b); };
    // Records usually arrive in posting order already (only Irecvs complete out of it).
    if (!std::is_sorted(rt.messages.begin(), rt.messages.end(), less)) {
      std::vector<MessageEndpoint> sorted = rt.messages.toVector();
      std::stable_sort(sorted.begin(), sorted.end(), less);
      rt.messages = sorted;
    }
  });
}

void TraceBuilder::Impl::indexMpiCalls() {
  forEachRank(static_cast<std::uint32_t>(t.ranks.size()), t.eventCount(), [&](std::uint32_t r) {
    RankTrace& rt = t.ranks[r];
    rt.mpiCalls.clear();
    for (std::uint32_t e = 0; e < rt.size(); ++e)
      if (t.functions[rt.function[e]].kind == EventKind::MpiCall) rt.mpiCalls.push_back(e);
  });
}

void TraceBuilder::Impl::findParallelSteps() {
  std::vector<std::uint32_t> region;
  for (std::uint32_t f = 0; f < t.functions.size(); ++f)
    if (t.functions[f].kind == EventKind::UserState && isDefaultRegionName(t.functions[f].name))
      region.push_back(f);
  computeParallelSteps(t, region);
  direct.line = -1;
  direct.position = "parallel steps";
  for (std::uint32_t r = 0; r < t.ranks.size() && !t.steps.empty() && !quietMatching; ++r) {
    std::size_t present = 0;
    for (const auto& s : t.steps) present += s.ranks[r].present();
    if (present != t.steps.size())
      diag("steps", "rank " + std::to_string(r) + " executes the parallel region " +
                        std::to_string(present) + " times, other ranks up to " +
                        std::to_string(t.steps.size()));
  }
}

void TraceBuilder::end() {
  if (!d->begun) throw std::logic_error("TraceBuilder: end() before begin()");
  if (d->ended) return;
  d->ended = true;
  d->closeOpenStates();
  d->shiftNegativeTimes();
  d->sortOutOfOrderRanks();
  if (!d->keepUnused) d->pruneUnusedFunctions();
  d->separateThreads();
  d->finishRequests();
  d->sortMessages();
  d->indexMpiCalls();
  d->direct.line = -1;
  d->direct.position = "message matching";
  MatchReport report = matchMessages(d->t);
  d->t.messageStats = report.stats;
  if (!d->quietMatching)
    for (auto& msg : report.diagnostics) d->diag(msg.first, std::move(msg.second));
  d->direct.line = -1;
  d->direct.position = "collective matching";
  auto collectiveDiagnostics = matchCollectives(d->t);
  if (!d->quietMatching)
    for (auto& msg : collectiveDiagnostics) d->diag(msg.first, std::move(msg.second));
  d->findParallelSteps();
  auto seal = [](RankTrace& r) {
    r.enter.seal();
    r.leave.seal();
    r.messages.seal();
    r.collectives.seal();
  };
  forEachRank(static_cast<std::uint32_t>(d->t.ranks.size()), d->t.eventCount(),
              [&](std::uint32_t r) { seal(d->t.ranks[r]); });
  for (auto& th : d->t.threads) seal(th.events);
  d->t.startTime = 0;
  d->t.endTime = 0;
  for (const auto& r : d->t.ranks)
    if (!r.leave.empty()) d->t.endTime = std::max(d->t.endTime, r.leave.maxValue());
  for (const auto& th : d->t.threads)
    if (!th.events.leave.empty()) d->t.endTime = std::max(d->t.endTime, th.events.leave.maxValue());
  // Summaries for diagnostics that were capped.
  for (const auto& [kind, n] : d->diagCounts)
    if (n > kMaxDiagnosticsPerKind)
      d->t.warnings.push_back(Diagnostic{d->t.source, -1, "",
                                         std::to_string(n - kMaxDiagnosticsPerKind) +
                                             " more warnings of the kind '" + kind + "'"});
}

void TraceBuilder::keepUnusedFunctions() { d->keepUnused = true; }
void TraceBuilder::skipMatchingDiagnostics() { d->quietMatching = true; }

Trace TraceBuilder::take() {
  if (!d->ended) throw std::logic_error("TraceBuilder: take() before end()");
  return std::move(d->t);
}

std::string TraceBuilder::activity() const {
  auto counts = [](const RankTrace& r) {
    return std::to_string(r.enter.size()) + " events, " + std::to_string(r.messages.size()) +
           " message endpoints";
  };
  if (d->ended) {
    std::uint64_t events = 0, endpoints = 0;
    for (const RankTrace& r : d->t.ranks) events += r.enter.size(), endpoints += r.messages.size();
    return "the model's indexes and message matching (" + std::to_string(d->t.ranks.size()) +
           " ranks, " + std::to_string(events) + " events, " + std::to_string(endpoints) +
           " message endpoints)";
  }
  if (d->direct.lastRank == kNone32 || d->direct.lastRank >= d->t.ranks.size())
    return "the model (" + std::to_string(d->t.ranks.size()) + " ranks)";
  return "the model of rank " + std::to_string(d->direct.lastRank) + " (" +
         counts(d->t.ranks[d->direct.lastRank]) + ")";
}

}  // namespace perwiz
