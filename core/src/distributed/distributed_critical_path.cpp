// The distributed critical path (distributed_critical_path.h).
#include "distributed_critical_path.h"

#include "ghosts.h"
#include "perwiz/internal/wire.h"
#include "perwiz/internal/replay_program.h"
#include "perwiz/internal/return_cause.h"

#include <algorithm>
#include <array>
#include <stdexcept>
#include <unordered_map>

namespace perwiz {
namespace {

// What the walking process tells the others at a round's end.
enum Message : std::uint8_t {
  kContinue = 'C',  // the walk goes on at the start of (rank, call) on its owner
  kDone = 'D',      // the walk reached the first start of a rank
  kQuestion = 'Q',  // a gather's member may be in a proxy: every process names its first
  kAnswer = 'A',    // a process's first member of the gather at its value (or none)
  kRunaway = 'E',   // more segments than the units allow: the results are not a replay's
};

// A member of a gather, as the processes name it to each other.
struct Member {
  bool valid = false;
  std::uint32_t position = 0;  // in the communicator (the serial walk's order on a tie)
  std::uint32_t rank = 0, index = 0;
  std::string function;
  void write(wire::Writer& w) const {
    w.u8(valid ? 1 : 0);
    w.u32(position);
    w.u32(rank);
    w.u32(index);
    w.str(function);
  }
  static Member read(wire::Reader& r) {
    Member m;
    m.valid = r.u8() != 0;
    m.position = r.u32();
    m.rank = r.u32();
    m.index = r.u32();
    m.function = r.str();
    return m;
  }
  bool before(const Member& o) const { return valid && (!o.valid || position < o.position); }
};

struct Listed {
  std::uint64_t ordinal;
  CriticalSegment segment;
  std::string function, partner;
};

class DistributedWalk {
 public:
  DistributedWalk(const Replayer& rp, const Trace& trace, const SweepLinks& links, const ImportedGhosts& imported,
                  const std::vector<TimeNs>& predictedEnd, ProcessGroup& group, CriticalPathListing listing,
                  std::size_t first)
      : p_(internal::ReplayerAccess::program(rp)), eff_(internal::ReplayerAccess::effective(rp)),
        leave_(rp.predictedLeaves()), trace_(trace), links_(links), imported_(imported), predictedEnd_(predictedEnd),
        group_(group), me_(group.rank()), P_(group.size()), R_(static_cast<std::uint32_t>(predictedEnd.size())),
        first_(first), list_(listing != CriticalPathListing::TotalsOnly && first > 0),
        ids_(listing == CriticalPathListing::Full && first == static_cast<std::size_t>(-1)),
        collectives_(p_, trace, links.own, R_) {
    const std::uint32_t rf = std::min(links.own.first, p_.ranks), rl = std::min(links.own.last, p_.ranks);
    U0_ = p_.rankBegin[rf];
    U1_ = p_.rankBegin[rl];
  }

  DistributedCriticalPath run() {
    DistributedCriticalPath out;
    CriticalPath& cp = out.path;
    cp.totals.perRank.assign(R_, 0);
    cp.totals.perFunction.assign(trace_.functions.size(), 0);
    cp_ = &cp;
    // The path ends at the rank whose end is latest (the first such rank on a tie).
    std::uint32_t last = kNone32;
    for (std::uint32_t r = 0; r < R_; ++r)
      if (last == kNone32 || predictedEnd_[r] > predictedEnd_[last]) last = r;
    // A path visits each unit's return and start once at most: a walk beyond that would not end.
    std::uint64_t units = U1_ - U0_;
    {
      wire::Writer w;
      w.u64(units);
      for (const std::string& b : group_.allGather(w.take())) {
        wire::Reader rd(b, "critical path");
        units += rd.u64();
      }
    }
    limit_ = 2 * units + 2;
    if (last != kNone32) {
      cp.length = predictedEnd_[last];
      holder_ = shareOfRank(R_, last, P_);
      if (holder_ == me_) {
        u_ = p_.rankBegin[last + 1] - 1;
        atReturn_ = true;
      }
      walkInRounds(out.rounds);
    }
    gatherTotals(out);
    gatherListing(out);
    return out;
  }

 private:
  bool isLocal(std::uint32_t u) const { return u >= U0_ && u < U1_; }
  // A unit's predicted enter: an own one's from its rank's previous leave, a ghost's or a
  // proxy's as the sweep received it (its leave slot).
  TimeNs enter(std::uint32_t u) const {
    if (!isLocal(u)) return leave_[u];
    return p_.isFirst(u) ? eff_.gap[u] : satAdd(leave_[u - 1], eff_.gap[u]);
  }

  // How the trace names unit u's call: rank and MPI call index there, and its function.
  Member name(std::uint32_t u) const {
    Member m;
    m.valid = true;
    m.rank = p_.rankOf(u);
    const std::uint32_t call = p_.callIn(m.rank, u);
    const RankTrace& rt = trace_.ranks[m.rank];
    m.function = trace_.functions[rt.function[rt.mpiCalls[call]]].name;
    m.index = isLocal(u) ? p_.indexIn(m.rank, u) : imported_.callIndex.at(m.rank).at(call);
    return m;
  }

  void walkInRounds(std::uint64_t& rounds) {
    for (;;) {
      wire::Writer w;
      if (answering_) {
        answer().write(w);
      } else if (holder_ == me_) {
        walk(w);
      }
      // Only the walking process speaks, except when all answer a question.
      std::vector<std::string> in;
      if (answering_) in = group_.allGather(w.take());
      else in.push_back(group_.broadcast(holder_, w.take()));
      ++rounds;
      if (answering_) {
        // Every process's first member at the gather's value: the earliest is the serial one.
        Member best = question_.candidate;
        for (std::uint32_t q = 0; q < P_; ++q) {
          wire::Reader rd(in[q], "critical path");
          const Member m = Member::read(rd);
          if (m.before(best)) best = m;
        }
        if (!best.valid) throw GroupError("critical path: no process holds the gather's latest member");
        answering_ = false;
        if (question_.asker == me_) {
          ordinal_ = question_.ordinal;
          emit(waitOrSkew(question_.value, leave_[pending_]), pending_, &best, question_.value, leave_[pending_]);
        }
        continueAt(best.rank, best.index, question_.ordinal + 1);
        continue;
      }
      wire::Reader rd(in[0], "critical path");
      const std::uint8_t kind = rd.u8();
      const std::uint64_t ordinal = rd.u64();
      if (kind == kDone) break;
      if (kind == kRunaway)
        throw GroupError("critical path: the walk passed " + std::to_string(ordinal) +
                         " segments without reaching a rank's start (the replay's results are inconsistent)");
      if (kind == kContinue) {
        const std::uint32_t rank = rd.u32(), index = rd.u32();
        continueAt(rank, index, ordinal);
      } else if (kind == kQuestion) {
        question_.asker = holder_;
        question_.ordinal = ordinal;
        question_.comm = rd.u32();
        question_.sequence = rd.u32();
        question_.value = rd.i64();
        question_.candidate = Member::read(rd);
        answering_ = true;
      } else {
        throw GroupError("critical path: unknown message from process " + std::to_string(holder_));
      }
    }
  }

  void continueAt(std::uint32_t rank, std::uint32_t index, std::uint64_t ordinal) {
    if (rank >= R_) throw GroupError("critical path: rank " + std::to_string(rank) + " out of range");
    holder_ = shareOfRank(R_, rank, P_);
    ordinal_ = ordinal;
    if (holder_ != me_) return;
    if (index >= trace_.ranks[rank].mpiCalls.size())
      throw GroupError("critical path: call " + std::to_string(rank) + ":" + std::to_string(index) + " out of range");
    u_ = p_.unitOfCall(rank, index);
    atReturn_ = false;
  }

  // The serial walk (critical_path.cpp) over this process's ranks, until the path leaves them.
  void walk(wire::Writer& w) {
    const auto enterFn = [&](std::uint32_t u) { return enter(u); };
    for (;;) {
      if (ordinal_ > limit_) {
        w.u8(kRunaway);
        w.u64(ordinal_);
        return;
      }
      if (!atReturn_) {
        // E(u): the previous return plus the computation gap; the first start from time 0.
        const bool first = p_.isFirst(u_);
        const TimeNs from = first ? 0 : leave_[u_ - 1];
        if (enter(u_) > from) emit(CriticalSegment::Kind::Computation, u_, nullptr, from, enter(u_));
        if (first) {
          w.u8(kDone);
          w.u64(ordinal_);
          return;
        }
        --u_;
        atReturn_ = true;
        continue;
      }
      const std::uint32_t u = u_;
      const ReturnCause c = returnCause(p_, eff_, u, leave_[u], enterFn);
      std::uint32_t next = u;
      switch (c.kind) {
        case ReturnCause::Kind::Local:
          if (!p_.isSentinel(u)) emit(CriticalSegment::Kind::Call, u, nullptr, enter(u), leave_[u]);
          break;
        case ReturnCause::Kind::Unit: {
          next = c.source;
          const Member from = name(next);
          emit(waitOrSkew(c.value, leave_[u]), u, &from, c.value, leave_[u]);
          break;
        }
        case ReturnCause::Kind::Node: {
          if (ask(c, w, u)) return;
          next = c.member;
          const Member from = name(next);
          emit(waitOrSkew(enter(next), leave_[u]), u, &from, enter(next), leave_[u]);
          break;
        }
      }
      atReturn_ = false;
      if (isLocal(next)) {
        u_ = next;
        continue;
      }
      const Member m = name(next);
      w.u8(kContinue);
      w.u64(ordinal_);
      w.u32(m.rank);
      w.u32(m.index);
      return;
    }
  }

  // A plain gather (cost mode measured) whose value a proxy also reaches: the latest member may
  // be any process's. Writes the question and returns true; false when the member is known here.
  bool ask(const ReturnCause& c, wire::Writer& w, std::uint32_t waiter) {
    if (links_.proxyRank == kNone32) return false;
    const std::uint32_t n = c.source;
    std::uint32_t proxy = kNone32;
    for (std::uint32_t i = p_.nodeBegin[n]; i < p_.nodeBegin[n + 1]; ++i) {
      const std::uint32_t m = p_.nodeMembers[i];
      if (p_.rankOf(m) == links_.proxyRank && enter(m) == c.value) proxy = m;
    }
    if (proxy == kNone32) return false;
    if (p_.queued(n)) throw std::logic_error("critical path: a queue node with a proxy member");
    const RankTrace& pr = trace_.ranks[links_.proxyRank];
    const CollectiveCall& call = pr.collectives.at(p_.callIn(links_.proxyRank, proxy));
    if (call.instance >= trace_.collectives.size()) throw std::logic_error("critical path: a proxy without instance");
    const CollectiveInstance& inst = trace_.collectives[call.instance];
    Member mine;  // the first member here (own or ghost) at the value, in node (communicator) order
    for (std::uint32_t i = p_.nodeBegin[n]; i < p_.nodeBegin[n + 1] && !mine.valid; ++i) {
      const std::uint32_t m = p_.nodeMembers[i];
      if (m == proxy || enter(m) != c.value) continue;
      mine = name(m);
      mine.position = collectives_.position(inst.comm, mine.rank);
    }
    pending_ = waiter;
    w.u8(kQuestion);
    w.u64(ordinal_);
    w.u32(inst.comm);
    w.u32(inst.sequence);
    w.i64(c.value);
    mine.write(w);
    return true;
  }

  // This process's first own member, in communicator order, of the asked gather at its value.
  Member answer() {
    Member best;
    collectives_.forEachMember(question_.comm, question_.sequence, [&](std::uint32_t u) {
      if (!isLocal(u) || enter(u) != question_.value) return;
      Member x = name(u);
      x.position = collectives_.position(question_.comm, x.rank);
      if (x.before(best)) best = x;
    });
    return best;
  }

  // A segment on own unit u, numbered by the walk's count of segments found so far.
  void emit(CriticalSegment::Kind kind, std::uint32_t u, const Member* from, TimeNs begin, TimeNs end) {
    const std::uint32_t f = addToTotals(cp_->totals, p_, trace_, kind, u, satSub(end, begin));
    const std::uint32_t r = p_.rankOf(u);
    const std::uint64_t ordinal = ordinal_++;
    if (!list_) return;
    Listed l;
    l.ordinal = ordinal;
    CriticalSegment& s = l.segment;
    s.kind = kind;
    s.rank = r;
    s.index = p_.indexIn(r, u);
    if (from) {
      s.fromRank = from->rank;
      s.fromIndex = from->index;
      l.partner = from->function;
    }
    if (f != kNone32) l.function = trace_.functions[f].name;
    s.begin = begin;
    s.end = end;
    // Only the earliest `first_` are kept: drop older finds in blocks (amortised O(1)).
    if (first_ != static_cast<std::size_t>(-1) && listed_.size() >= 2 * first_)
      listed_.erase(listed_.begin(), listed_.begin() + static_cast<std::ptrdiff_t>(first_));
    listed_.push_back(std::move(l));
  }

  // Totals summed over the processes; functions by name, in process 0's order.
  void gatherTotals(DistributedCriticalPath& out) {
    const CriticalPathTotals& t = cp_->totals;
    wire::Writer w;
    w.i64(t.computationNs);
    w.i64(t.callNs);
    w.i64(t.waitNs);
    w.i64(t.skewNs);
    w.u64(t.segments);
    w.u64(t.calls);
    std::uint32_t ranks = 0, functions = 0;
    for (TimeNs x : t.perRank) ranks += x != 0;
    for (TimeNs x : t.perFunction) functions += x != 0;
    w.u32(ranks);
    for (std::uint32_t r = 0; r < t.perRank.size(); ++r)
      if (t.perRank[r] != 0) {
        w.u32(r);
        w.i64(t.perRank[r]);
      }
    w.u32(functions);
    for (std::uint32_t f = 0; f < t.perFunction.size(); ++f)
      if (t.perFunction[f] != 0) {
        w.str(trace_.functions[f].name);
        w.i64(t.perFunction[f]);
      }
    // Process 0 also names its functions: every process indexes the sums by them.
    w.u32(me_ == 0 ? static_cast<std::uint32_t>(trace_.functions.size()) : 0);
    if (me_ == 0)
      for (const Function& f : trace_.functions) w.str(f.name);
    const std::vector<std::string> in = group_.allGather(w.take());
    CriticalPathTotals sum;
    sum.perRank.assign(R_, 0);
    std::unordered_map<std::string, std::uint32_t> index;
    auto functionIndex = [&](const std::string& name) {
      const auto [it, fresh] = index.emplace(name, static_cast<std::uint32_t>(out.functions.size()));
      if (fresh) {
        out.functions.push_back(name);
        sum.perFunction.push_back(0);
      }
      return it->second;
    };
    {
      wire::Reader rd(in[0], "critical path totals");
      rd.i64(), rd.i64(), rd.i64(), rd.i64(), rd.u64(), rd.u64();  // the sums, read below
      for (std::uint32_t k = rd.u32(); k > 0; --k) rd.u32(), rd.i64();
      for (std::uint32_t k = rd.u32(); k > 0; --k) rd.str(), rd.i64();
      for (std::uint32_t k = rd.u32(); k > 0; --k) {
        const std::string name = rd.str();
        out.functions.push_back(name);  // duplicates keep their own index, as in the trace
        sum.perFunction.push_back(0);
        index.emplace(name, static_cast<std::uint32_t>(out.functions.size() - 1));
      }
    }
    for (std::uint32_t q = 0; q < P_; ++q) {
      wire::Reader rd(in[q], "critical path totals");
      sum.computationNs = satAdd(sum.computationNs, rd.i64());
      sum.callNs = satAdd(sum.callNs, rd.i64());
      sum.waitNs = satAdd(sum.waitNs, rd.i64());
      sum.skewNs = satAdd(sum.skewNs, rd.i64());
      sum.segments += rd.u64();
      sum.calls += rd.u64();
      for (std::uint32_t k = rd.u32(); k > 0; --k) {
        const std::uint32_t r = rd.u32();
        const TimeNs ns = rd.i64();
        if (r >= R_) throw GroupError("critical path totals: rank out of range");
        sum.perRank[r] = satAdd(sum.perRank[r], ns);
      }
      for (std::uint32_t k = rd.u32(); k > 0; --k) {
        const std::string name = rd.str();
        const TimeNs ns = rd.i64();
        const std::uint32_t f = functionIndex(name);
        sum.perFunction[f] = satAdd(sum.perFunction[f], ns);
      }
    }
    cp_->totals = std::move(sum);
  }

  // The listing, on process 0: every process's segments in the walk's order.
  void gatherListing(DistributedCriticalPath& out) {
    if (!list_) return;
    std::vector<std::string> to(P_);
    if (me_ != 0) {
      wire::Writer w;
      for (const Listed& l : listed_) {
        const CriticalSegment& s = l.segment;
        w.u64(l.ordinal);
        w.u8(static_cast<std::uint8_t>(s.kind));
        w.u32(s.rank);
        w.u32(s.index);
        w.u32(s.fromRank);
        w.u32(s.fromIndex);
        w.i64(s.begin);
        w.i64(s.end);
        w.str(l.function);
        w.str(l.partner);
      }
      to[0] = w.take();
      listed_.clear();
    }
    const std::vector<std::string> in = group_.exchange(std::move(to));
    if (me_ != 0) return;
    for (std::uint32_t q = 1; q < P_; ++q) {
      wire::Reader rd(in[q], "critical path listing");
      while (!rd.done()) {
        Listed l;
        l.ordinal = rd.u64();
        CriticalSegment& s = l.segment;
        s.kind = static_cast<CriticalSegment::Kind>(rd.u8());
        s.rank = rd.u32();
        s.index = rd.u32();
        s.fromRank = rd.u32();
        s.fromIndex = rd.u32();
        s.begin = rd.i64();
        s.end = rd.i64();
        l.function = rd.str();
        l.partner = rd.str();
        listed_.push_back(std::move(l));
      }
    }
    // Found from the end: the earliest segments have the largest numbers.
    std::sort(listed_.begin(), listed_.end(), [](const Listed& a, const Listed& b) { return a.ordinal > b.ordinal; });
    if (listed_.size() > first_) listed_.resize(first_);
    for (Listed& l : listed_) {
      cp_->segments.push_back(l.segment);
      out.callFunction.push_back(std::move(l.function));
      out.partnerFunction.push_back(std::move(l.partner));
    }
    listed_.clear();
    if (ids_) cp_->callIds = criticalCallIds(cp_->segments);
  }

  const ReplayProgram& p_;
  const EffectiveProgram eff_;
  const std::vector<TimeNs>& leave_;
  const Trace& trace_;
  const SweepLinks& links_;
  const ImportedGhosts& imported_;
  const std::vector<TimeNs>& predictedEnd_;
  ProcessGroup& group_;
  const std::uint32_t me_, P_, R_;
  const std::size_t first_;
  const bool list_, ids_;
  std::uint32_t U0_ = 0, U1_ = 0;
  CriticalPath* cp_ = nullptr;

  std::uint32_t holder_ = kNone32;  // the walking process
  std::uint32_t u_ = kNone32;       // the holder's unit
  bool atReturn_ = false;           // at u_'s return (else at its start)
  std::uint64_t ordinal_ = 0;       // segments found so far (all processes)
  std::uint64_t limit_ = 0;
  bool answering_ = false;
  struct {
    std::uint32_t asker = kNone32, comm = 0, sequence = 0;
    std::uint64_t ordinal = 0;
    TimeNs value = 0;
    Member candidate;
  } question_;
  std::uint32_t pending_ = kNone32;  // the asker's waiting unit
  OwnCollectives collectives_;
  std::vector<Listed> listed_;
};

}  // namespace

DistributedCriticalPath criticalPathDistributed(const Replayer& replayer, const Trace& trace, const SweepLinks& links,
                                                const ImportedGhosts& imported,
                                                const std::vector<TimeNs>& predictedEnd, ProcessGroup& group,
                                                CriticalPathListing listing, std::size_t firstSegments) {
  return DistributedWalk(replayer, trace, links, imported, predictedEnd, group, listing, firstSegments).run();
}

}  // namespace perwiz
