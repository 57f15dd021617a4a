// Compiles a measured trace into a replay program (see replay_program.h, docs/model.md).
#include "perwiz/internal/replay_program.h"

#include "clean_cuts.h"

#include "perwiz/rank_parallel.h"

#include "perwiz/checked_time.h"
#include "perwiz/release.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <numeric>
#include <span>
#include <stdexcept>
#include <string>
#include <tuple>

namespace perwiz {
namespace {

// Which members of a collective wait for whom (docs/model.md, "Collectives").
enum class CollectiveRule { AllWaitForAll, MembersWaitForRoot, RootWaitsForMembers, Prefix };

CollectiveRule collectiveRule(MpiOp op, bool rootKnown) {
  switch (op) {
    case MpiOp::Bcast: case MpiOp::Scatter: case MpiOp::Scatterv:
      return rootKnown ? CollectiveRule::MembersWaitForRoot : CollectiveRule::AllWaitForAll;
    case MpiOp::Reduce: case MpiOp::Gather: case MpiOp::Gatherv:
      return rootKnown ? CollectiveRule::RootWaitsForMembers : CollectiveRule::AllWaitForAll;
    case MpiOp::Scan: case MpiOp::Exscan:
      return CollectiveRule::Prefix;
    default:
      return CollectiveRule::AllWaitForAll;
  }
}

// With PERWIZ_PHASES set, the builder prints each phase's wall time and the process's resident
// set after it to stderr (how the phase numbers in docs/performance.md were measured).
class PhaseLog {
 public:
  PhaseLog() : on_(std::getenv("PERWIZ_PHASES") != nullptr) {}
  void operator()(const char* phase) {
    if (!on_) return;
    const auto now = std::chrono::steady_clock::now();
    long pages = 0, resident = 0;
    if (std::FILE* f = std::fopen("/proc/self/statm", "r")) {
      if (std::fscanf(f, "%ld %ld", &pages, &resident) != 2) resident = 0;
      std::fclose(f);
    }
    std::fprintf(stderr, "replay program: %-13s %8.1f ms, resident %8.1f MB\n", phase,
                 std::chrono::duration<double, std::milli>(now - last_).count(), static_cast<double>(resident) * 4096 / 1e6);
    last_ = now;
  }

 private:
  bool on_;
  std::chrono::steady_clock::time_point last_ = std::chrono::steady_clock::now();
};

class Builder {
 public:
  Builder(const Trace& t, const NetworkModel& m, CostMode c, ReplayProgram& p, ReplayReport& r,
          ReplayControl* control = nullptr)
      : trace_(t), model_(&m), costs_(c), p_(p), report_(r), control_(control) {}
  // For the links only (Program::prepareLinks): no network model, no report.
  Builder(const Trace& t, ReplayProgram& p)
      : trace_(t), model_(nullptr), costs_(CostMode::Measured), p_(p), report_(ignored_) {}

  void run() {
    PhaseLog log;  // PERWIZ_PHASES=1: time and resident memory per phase
    auto phase = [&](const char* name) {
      log(name);
      ++phase_;
      phaseRanks_ = 0;
      checkpoint();
    };
    buildUnits();
    phase("units");
    buildMessages(true, costs_ == CostMode::Model);
    phase("messages");
    buildCollectives();
    phase("collectives");
    finishDeps();
    phase("dependencies");
    buildSchedule();
    phase("schedule");
    decompose();
    phase("decompose");
    p_.gap0.seal();
    p_.local0.seal();
    p_.depOff0.seal();
    summarize();
  }

 private:
  // ---- progress and cancel (ReplayControl): the construction counts as kPhases equal parts,
  // each advanced rank by rank; the first full replay after it is the last part. ----
  static constexpr std::uint32_t kPhases = 7;
  void checkpoint() {
    if (!control_) return;
    if (control_->cancel.load(std::memory_order_relaxed)) throw ReplayCancelled();
    const std::uint32_t ranks = std::max<std::uint32_t>(1, p_.ranks);
    const std::uint32_t within = std::min<std::uint32_t>(phaseRanks_.load(std::memory_order_relaxed), ranks);
    raiseProgress(control_->permille, std::min<std::uint32_t>(999, (phase_ * 1000 + within * 1000 / ranks) / kPhases));
  }
  // forEachRank over the trace's ranks, looking at the control before each rank.
  template <class Fn>
  void eachRank(std::uint32_t ranks, Fn&& fn) {
    forEachRank(ranks, events_, [&](std::uint32_t r) {
      checkpoint();
      fn(r);
      phaseRanks_.fetch_add(1, std::memory_order_relaxed);
    });
  }

  // Index of `event` in a rank's sorted MPI call list, kNone32 if it is not an MPI call. The
  // search gallops forward from `hint` (the last index found) when the event lies at or after
  // it — the common case, since endpoints and collectives come in posting order — and falls
  // back to a binary search of the whole list otherwise. Sets `hint` to the index found.
  static std::uint32_t findCall(const std::vector<std::uint32_t>& calls, std::uint32_t event, std::uint32_t& hint) {
    const std::size_t n = calls.size();
    std::size_t lo = 0, hi = n;
    if (hint < n && calls[hint] <= event) {
      lo = hint;
      std::size_t step = 1;
      hi = lo + 1;
      while (hi < n && calls[hi] <= event) {
        lo = hi;
        step *= 2;
        hi = lo + step;
      }
      hi = std::min(hi, n);
    }
    const auto it = std::lower_bound(calls.begin() + static_cast<std::ptrdiff_t>(lo),
                                     calls.begin() + static_cast<std::ptrdiff_t>(hi), event);
    if (it == calls.begin() + static_cast<std::ptrdiff_t>(hi) || *it != event) return kNone32;
    hint = static_cast<std::uint32_t>(it - calls.begin());
    return hint;
  }

  // Unit of MPI call `index` of `rank`, kNone32 for kNone32.
  std::uint32_t unitOfCall(std::uint32_t rank, std::uint32_t index) const {
    return index == kNone32 ? kNone32 : p_.unitOfCall(rank, index);
  }

  void buildUnits() {
    const std::uint32_t R = static_cast<std::uint32_t>(trace_.rankCount());
    p_.trace = &trace_;
    p_.ranks = R;
    p_.nested.assign(R, {});
    p_.rankEnd.assign(R, 0);
    std::vector<std::uint64_t> count(R, 0);
    // Per rank: which calls are top-level (units); a call that starts before the previous
    // top-level call returned lies inside it and follows it.
    eachRank(R, [&](std::uint32_t r) {
      const RankTrace& rt = trace_.ranks[r];
      TimeNs lastLeave = 0;
      std::uint32_t n = 0;
      for (std::uint32_t i = 0; i < rt.mpiCalls.size(); ++i) {
        const std::uint32_t e = rt.mpiCalls[i];
        const TimeNs en = rt.enter[e];
        if (n > 0 && en < lastLeave) {  // inside the previous top-level call
          p_.nested[r].push_back(i);
          continue;
        }
        ++n;
        lastLeave = rt.leave[e];
      }
      count[r] = std::uint64_t{n} + 1;  // and the rank's end sentinel
      TimeNs end = lastLeave;
      if (!rt.leave.empty()) end = std::max(end, rt.leave.maxValue());
      p_.rankEnd[r] = end;
    });
    p_.rankBegin.assign(R + 1, 0);
    std::uint64_t total = 0;
    for (std::uint32_t r = 0; r < R; ++r) {
      total += count[r];
      if (total >= kNone32)
        throw std::length_error("the trace has more than 2^32 - 2 MPI calls: too many for one replay");
      p_.rankBegin[r + 1] = static_cast<std::uint32_t>(total);
      report_.nestedCalls += p_.nested[r].size();
    }
    p_.units = static_cast<std::uint32_t>(total);
    p_.rankOfBlock.resize((std::size_t{p_.units} >> ReplayProgram::kRankBlockBits) + 1);
    for (std::uint32_t r = 0, b = 0; b < p_.rankOfBlock.size(); ++b) {
      const std::uint64_t first = std::uint64_t{b} << ReplayProgram::kRankBlockBits;
      while (r + 1 < R && p_.rankBegin[r + 1] <= first) ++r;
      p_.rankOfBlock[b] = r;
    }
    p_.sentinelBits.assign((std::size_t{p_.units} + 63) / 64, 0);
    for (std::uint32_t r = 0; r < R; ++r) {
      const std::uint32_t s = p_.rankBegin[r + 1] - 1;
      p_.sentinelBits[s >> 6] |= std::uint64_t{1} << (s & 63);
    }
    // The computation before each unit, and the measured leaves: for decompose(), then the
    // storage of the first replay's results (giveTimes). Measured enters are read from the
    // trace where needed (Program::measEnter), not copied.
    leave_.resize(p_.units);
    p_.gap0.resize(p_.units);
    eachRank(R, [&](std::uint32_t r) {
      const RankTrace& rt = trace_.ranks[r];
      const std::uint32_t sentinel = p_.rankBegin[r + 1] - 1;
      const auto& nest = p_.nested[r];
      std::size_t skip = 0;
      std::uint32_t u = p_.rankBegin[r];
      TimeNs prev = 0;
      for (std::uint32_t i = 0; i < rt.mpiCalls.size(); ++i) {
        if (skip < nest.size() && nest[skip] == i) {
          ++skip;
          continue;
        }
        const std::uint32_t e = rt.mpiCalls[i];
        p_.gap0.set(u, std::max<TimeNs>(0, rt.enter[e] - prev));
        prev = leave_[u] = rt.leave[e];
        ++u;
      }
      p_.gap0.set(sentinel, std::max<TimeNs>(0, p_.rankEnd[r] - prev));
      leave_[sentinel] = p_.rankEnd[r];
    });
  }

  // Messages: one per send and per unmatched endpoint (a matched receive shares its send's),
  // numbered rank after rank in endpoint order: per endpoint the units that post and complete
  // it and the message it owns. With `sizes` each message's size (at construction); with
  // `steps` each message's parallel step (the links: at construction in cost mode "model",
  // else on first need, Program::prepareLinks; the numbering is the same).
  void buildMessages(bool sizes, bool steps) {
    const std::uint32_t R = p_.ranks;
    std::vector<std::uint32_t> base(R + 1, 0);
    for (std::uint32_t r = 0; r < R; ++r) {
      const std::uint64_t next = std::uint64_t{base[r]} + trace_.ranks[r].messages.size();
      if (next >= kNone32) throw std::length_error("the trace has more than 2^32 - 2 message endpoints: too many for one replay");
      base[r + 1] = static_cast<std::uint32_t>(next);
    }
    // Matched: a partner that exists (the builder guarantees it; checked so that nothing here
    // indexes out of range if it did not).
    auto owns = [&](const MessageEndpoint& m) {
      return m.isSend || !(m.matched() && m.matchRank < R && m.matchIndex < base[m.matchRank + 1] - base[m.matchRank]);
    };
    std::vector<std::uint32_t> own(R + 1, 0);
    eachRank(R, [&](std::uint32_t r) {
      std::uint32_t n = 0;
      for (const MessageEndpoint& m : trace_.ranks[r].messages) n += owns(m) ? 1 : 0;
      own[r + 1] = n;
    });
    std::partial_sum(own.begin(), own.end(), own.begin());
    if (sizes) p_.messageBytes.assign(own[R], 0);
    if (steps) p_.messages.assign(own[R], ReplayMessage{});
    std::vector<std::vector<std::tuple<std::uint32_t, std::uint32_t, std::uint32_t>>> spans(R);
    for (std::uint32_t k = 0; k < (steps ? trace_.steps.size() : 0); ++k)
      for (std::uint32_t r = 0; r < R && r < trace_.steps[k].ranks.size(); ++r) {
        const StepSpan& s = trace_.steps[k].ranks[r];
        if (s.present()) spans[r].emplace_back(s.firstEvent(), s.lastEvent, k);
      }
    for (auto& v : spans) std::sort(v.begin(), v.end());

    // Per rank, in parallel: the units that post and complete each endpoint, and for the
    // endpoints that own a message its id, size and parallel step (of the send's post call).
    std::vector<std::uint32_t> postUnit(base[R]), doneUnit(base[R]), msgId(base[R], kNone32);
    eachRank(R, [&](std::uint32_t r) {
      const RankTrace& rt = trace_.ranks[r];
      const auto& msgs = rt.messages;
      const auto& sp = spans[r];
      std::uint32_t postHint = 0, next = own[r];
      std::size_t span = 0;  // the last span whose first event is at or before the post
      for (std::uint32_t j = 0; j < msgs.size(); ++j) {
        const MessageEndpoint& m = msgs[j];
        const std::uint32_t post = m.postEvent == kNone32 ? kNone32 : findCall(rt.mpiCalls, m.postEvent, postHint);
        std::uint32_t doneHint = postHint;
        const std::uint32_t done = m.event == m.postEvent ? post : findCall(rt.mpiCalls, m.event, doneHint);
        // A half-recorded receive's post is not in the trace (trace.h): no unit posts it, so
        // no rendezvous send waits for it (walkLinks).
        postUnit[base[r] + j] = m.halfRecorded() && !m.isSend ? kNone32 : unitOfCall(r, post);
        doneUnit[base[r] + j] = unitOfCall(r, done);
        if (!owns(m)) continue;
        const std::uint32_t id = next++;
        msgId[base[r] + j] = id;
        if (sizes) p_.messageBytes[id] = m.bytes;
        if (!steps || !m.isSend || sp.empty() || m.postEvent == kNone32) continue;
        if (span >= sp.size() || std::get<0>(sp[span]) > m.postEvent) span = 0;
        while (span + 1 < sp.size() && std::get<0>(sp[span + 1]) <= m.postEvent) ++span;
        if (std::get<0>(sp[span]) <= m.postEvent && m.postEvent < std::get<1>(sp[span]))
          p_.messages[id].step = std::get<2>(sp[span]);
      }
    });
    msgBase_ = std::move(base);
    msgId_ = std::move(msgId);
    postUnit_ = std::move(postUnit);
    doneUnit_ = std::move(doneUnit);
  }

  // The network model's delays of a message size, cached: sizes repeat (a direct-mapped table
  // per thread; the model's calls are virtual and evaluate its cost lines).
  class Delays {
   public:
    explicit Delays(const NetworkModel& m) : m_(m) {}
    struct Entry {
      std::uint64_t bytes = ~std::uint64_t{0};
      TimeNs blockingSend = 0, isendComplete = 0, blockingRecv = 0, irecvComplete = 0;
      bool sync = false;
    };
    const Entry& of(std::uint64_t bytes) {
      Entry& e = table_[(bytes ^ (bytes >> 17)) % kSize];
      if (e.bytes != bytes) {
        e.bytes = bytes;
        e.sync = m_.synchronous(bytes);
        e.blockingSend = m_.sendDelay(CommRole::BlockingSend, bytes);
        e.isendComplete = m_.sendDelay(CommRole::IsendComplete, bytes);
        e.blockingRecv = m_.receiveDelay(CommRole::BlockingRecv, bytes);
        e.irecvComplete = m_.receiveDelay(CommRole::IrecvComplete, bytes);
      }
      return e;
    }

   private:
    static constexpr std::size_t kSize = 61;
    const NetworkModel& m_;
    Entry table_[kSize];
  };

  // Walks rank r's endpoints in order and reports each communication role (unit, role,
  // message, slot) and each message dependency (unit, source, offset, flags, message): the
  // same walk counts them and then fills them in, so both agree by construction.
  // Without `delays` (a walk for the links only) every offset is 0.
  template <class OnRole, class OnDep>
  std::uint64_t walkLinks(std::uint32_t r, Delays* delays, OnRole&& onRole, OnDep&& onDep) const {
    const std::uint32_t R = p_.ranks;
    const auto& msgs = trace_.ranks[r].messages;
    std::uint64_t unmatched = 0;
    const Delays::Entry none{};
    for (std::uint32_t j = 0; j < msgs.size(); ++j) {
      const MessageEndpoint& m = msgs[j];
      const bool matched = m.matched() && m.matchRank < R && m.matchIndex < msgBase_[m.matchRank + 1] - msgBase_[m.matchRank];
      const std::uint32_t id = (m.isSend || !matched) ? msgId_[msgBase_[r] + j] : msgId_[msgBase_[m.matchRank] + m.matchIndex];
      if (id == kNone32) {  // a receive matched to another receive: not a message (never built)
        ++unmatched;
        continue;
      }
      const std::uint32_t done = doneUnit_[msgBase_[r] + j];
      const std::uint32_t post = postUnit_[msgBase_[r] + j];
      const int slot = m.isSend ? 0 : 2;
      // A half-recorded request (docs/trace-model.md): a non-blocking send whose completion the
      // trace does not hold (OTF 1: the SendMsg in MPI_Isend) is its post alone, and a
      // non-blocking receive whose post it does not hold (the RecvMsg in MPI_Wait) its
      // completion alone.
      const bool half = m.halfRecorded();
      if (half) {
        if (m.isSend && post != kNone32) onRole(post, CommRole::IsendPost, id, slot);
        if (!m.isSend && done != kNone32) onRole(done, CommRole::IrecvComplete, id, slot + 1);
      } else if (m.event == m.postEvent) {
        if (done != kNone32) onRole(done, m.isSend ? CommRole::BlockingSend : CommRole::BlockingRecv, id, slot);
      } else {
        if (post != kNone32) onRole(post, m.isSend ? CommRole::IsendPost : CommRole::IrecvPost, id, slot);
        if (done != kNone32) onRole(done, m.isSend ? CommRole::IsendComplete : CommRole::IrecvComplete, id, slot + 1);
      }
      if (!matched) {
        ++unmatched;
        continue;
      }
      // Nothing holds a send on its receiver when either side's half is missing: the send's
      // completion (here), or the receive's post (its post unit is none).
      if (m.isSend && half) continue;
      const std::uint32_t src = postUnit_[msgBase_[m.matchRank] + m.matchIndex];
      if (done == kNone32 || src == kNone32) continue;
      // The message's size: the send's own (a receive reads it from the sender's slot).
      const Delays::Entry& d = delays ? delays->of(m.isSend ? m.bytes : p_.messageBytes[id]) : none;
      const bool blocking = m.event == m.postEvent && !half;
      if (m.isSend) {
        onDep(done, src, blocking ? d.blockingSend : d.isendComplete,
              static_cast<std::uint8_t>(dep::kSyncSend | (d.sync ? dep::kActive : 0) | (blocking ? 0 : dep::kLateSend)), id);
      } else {
        onDep(done, src, blocking ? d.blockingRecv : d.irecvComplete,
              static_cast<std::uint8_t>(dep::kActive | (blocking ? 0 : dep::kLateRecv)), id);
      }
    }
    return unmatched;
  }

  // Dependencies in CSR by unit. A unit's dependencies: its message dependencies in endpoint
  // order, then its collective ones in instance order. Counted per rank in parallel, then
  // filled per rank in parallel (every unit belongs to one rank).
  void finishDeps() {
    const std::uint32_t R = p_.ranks, U = p_.units;
    p_.depBegin.assign(U + 1, 0);
    std::vector<std::uint64_t> unmatched(R, 0);
    eachRank(R, [&](std::uint32_t r) {
      unmatched[r] = walkLinks(
          r, nullptr, [](std::uint32_t, CommRole, std::uint32_t, int) {},
          [&](std::uint32_t u, std::uint32_t, TimeNs, std::uint8_t, std::uint32_t) { ++p_.depBegin[u + 1]; });
      for (const CollDep& c : collDeps_[r]) ++p_.depBegin[c.unit + 1];
    });
    for (std::uint64_t n : unmatched) report_.unmatchedEndpoints += n;
    std::uint64_t deps = 0;
    for (std::uint32_t u = 0; u <= U; ++u) {
      deps += p_.depBegin[u];
      if (deps >= kNone32)
        throw std::length_error("the trace has more than 2^32 - 2 message dependencies: too many for one replay");
      p_.depBegin[u] = static_cast<std::uint32_t>(deps);
    }
    p_.depSrc.resize(deps);
    p_.depOff0.resize(deps);
    p_.depFlags0.resize(deps);
    // The begin array serves as fill cursors (begin[u] moves to u's end, which is begin[u + 1]);
    // shifted back afterwards: no second array of cursors per unit.
    auto putDep = [&](std::uint32_t u, std::uint32_t src, TimeNs off, std::uint8_t flags, std::uint32_t) {
      const std::uint32_t i = p_.depBegin[u]++;
      p_.depSrc[i] = src;
      p_.depOff0.set(i, off);
      p_.depFlags0[i] = static_cast<std::uint8_t>(flags | dep::kScheduled);
    };
    eachRank(R, [&](std::uint32_t r) {
      Delays delays(*model_);
      walkLinks(
          r, &delays, [](std::uint32_t, CommRole, std::uint32_t, int) {}, putDep);
      const std::vector<TimeNs>& offs = collDepOffs_[r];
      for (std::size_t i = 0; i < collDeps_[r].size(); ++i)
        putDep(collDeps_[r][i].unit, collDeps_[r][i].src, offs.empty() ? 0 : offs[i], dep::kActive, kNone32);
      releaseMemory(collDeps_[r]);
      releaseMemory(collDepOffs_[r]);
    });
    for (std::uint32_t u = U; u > 0; --u) p_.depBegin[u] = p_.depBegin[u - 1];
    p_.depBegin[0] = 0;
    releaseMemory(collDeps_);
    releaseMemory(collDepOffs_);
    // Cost mode "model" prices each unit's roles in decompose(): the links now (otherwise
    // built on first need, Program::prepareLinks).
    if (costs_ == CostMode::Model) std::call_once(p_.linksOnce_, [&] { buildLinks(); });
    releaseEndpoints();
  }

  void releaseEndpoints() {
    releaseMemory(msgBase_);
    releaseMemory(msgId_);
    releaseMemory(postUnit_);
    releaseMemory(doneUnit_);
  }

 public:
  // The builder's per-unit measured leaves become the storage of the first replay's results
  // (the same size): the results then cost no memory beyond the builder's peak. Freed if not
  // wanted.
  void giveTimes(std::vector<TimeNs>* leave) {
    if (leave) *leave = std::move(leave_);
    releaseMemory(leave_);
  }

  // The communication roles of each unit (CSR), the message behind each message dependency
  // and each message's units and parallel step, from the same walk over the endpoints as the
  // dependencies themselves (so a unit's message dependencies come in the same order).
  void buildLinks() {
    const std::uint32_t R = p_.ranks, U = p_.units;
    if (msgBase_.empty()) buildMessages(false, true);  // on first need: the endpoints again
    std::vector<std::uint32_t> roleBegin(std::size_t{U} + 1, 0);
    eachRank(R, [&](std::uint32_t r) {
      walkLinks(
          r, nullptr, [&](std::uint32_t u, CommRole, std::uint32_t, int) { ++roleBegin[u + 1]; },
          [](std::uint32_t, std::uint32_t, TimeNs, std::uint8_t, std::uint32_t) {});
    });
    std::uint64_t roles = 0;
    for (std::uint32_t u = 0; u <= U; ++u) {
      roles += roleBegin[u];
      if (roles >= kNone32)
        throw std::length_error("the trace has more than 2^32 - 2 communication roles: too many for one replay");
      roleBegin[u] = static_cast<std::uint32_t>(roles);
    }
    std::vector<CommRole> roleKind(roles);
    std::vector<std::uint32_t> roleMsg(roles);
    std::vector<std::uint32_t> depMsg(p_.depSrc.size(), kNone32);
    std::vector<std::uint32_t> depFill(p_.depBegin.begin(), p_.depBegin.end() - 1);
    eachRank(R, [&](std::uint32_t r) {
      walkLinks(
          r, nullptr,
          [&](std::uint32_t u, CommRole role, std::uint32_t msg, int slot) {
            const std::uint32_t i = roleBegin[u]++;
            roleKind[i] = role;
            roleMsg[i] = msg;
            p_.messages[msg].units[slot] = u;
          },
          [&](std::uint32_t u, std::uint32_t, TimeNs, std::uint8_t, std::uint32_t msg) { depMsg[depFill[u]++] = msg; });
    });
    for (std::uint32_t u = U; u > 0; --u) roleBegin[u] = roleBegin[u - 1];
    roleBegin[0] = 0;
    p_.roleBegin = std::move(roleBegin);
    p_.roleKind = std::move(roleKind);
    p_.roleMsg = std::move(roleMsg);
    p_.depMsg = std::move(depMsg);
    releaseEndpoints();
  }

 private:
  std::size_t collectiveMembers() const {
    std::size_t n = 0;
    for (const RankTrace& rt : trace_.ranks) n += rt.collectives.size();
    return n;
  }

  void buildCollectives() {
    const std::uint32_t R = p_.ranks;
    const std::size_t I = trace_.collectives.size();
    struct Member {
      std::uint32_t rank, unit;
      std::int32_t root;
      std::uint64_t bytes;
    };
    // Each rank's collective calls, decoded once (per rank in parallel): the unit, instance,
    // root and size of each.
    struct Call {
      std::uint32_t unit, instance;
      std::int32_t root;
      std::uint64_t bytes;
    };
    std::vector<Call> calls(collectiveMembers());
    std::vector<std::size_t> collBase(R + 1, 0);
    for (std::uint32_t r = 0; r < R; ++r) collBase[r + 1] = collBase[r] + trace_.ranks[r].collectives.size();
    eachRank(R, [&](std::uint32_t r) {
      const RankTrace& rt = trace_.ranks[r];
      std::uint32_t hint = 0;
      for (std::size_t j = 0; j < rt.collectives.size(); ++j) {
        const CollectiveCall c = rt.collectives[j];
        const std::uint32_t unit = unitOfCall(r, findCall(rt.mpiCalls, c.event, hint));
        const bool valid = unit != kNone32 && c.instance != kNone32 && c.instance < I;
        calls[collBase[r] + j] = {unit, valid ? c.instance : kNone32, c.root, std::max(c.bytesSent, c.bytesReceived)};
      }
    });
    // Members of every instance, flat (CSR by instance), in rank order.
    std::vector<std::uint32_t> instBegin(I + 1, 0);
    for (const Call& c : calls)
      if (c.instance != kNone32) ++instBegin[c.instance + 1];
    std::partial_sum(instBegin.begin(), instBegin.end(), instBegin.begin());
    std::vector<Member> members(instBegin[I]);
    {
      std::vector<std::uint32_t> fill(instBegin.begin(), instBegin.end() - 1);
      for (std::uint32_t r = 0; r < R; ++r)
        for (std::size_t j = collBase[r]; j < collBase[r + 1]; ++j) {
          const Call& c = calls[j];
          if (c.instance != kNone32) members[fill[c.instance]++] = {r, c.unit, c.root, c.bytes};
        }
    }
    releaseMemory(calls);
    // Position of each world rank in a communicator (ranks outside it after the members, in
    // rank order), built once per communicator that has collectives.
    std::vector<std::vector<std::uint32_t>> commPos(trace_.comms.size());
    auto positions = [&](std::uint32_t comm) -> const std::vector<std::uint32_t>& {
      auto& pos = commPos[comm];
      if (pos.empty()) pos = communicatorPositions(trace_.comms[comm], R);
      return pos;
    };

    p_.nodeBegin.assign(1, 0);
    // The model's price of each member's call: cost mode "model" only (measured costs keep the
    // measurement; 8 bytes per unit saved at the builder's peak).
    const bool priced = costs_ == CostMode::Model;
    if (priced) collectiveCost_.assign(p_.units, -1);
    struct {
      MpiOp op = MpiOp::None;
      std::uint64_t bytes = ~std::uint64_t{0};
      std::uint32_t members = 0;
      TimeNs cost = 0;
    } lastCost;
    collDeps_.assign(R, {});
    collDepOffs_.assign(R, {});
    std::vector<CollectiveTreeDep> tree;  // one member's ancestors (collectiveTree)
    p_.nodeMembers.reserve(members.size());
    for (std::uint32_t i = 0; i < I; ++i) {
      const auto first = members.begin() + instBegin[i], last = members.begin() + instBegin[i + 1];
      if (first == last) continue;
      const CollectiveInstance& ci = trace_.collectives[i];
      // Comm order: position of the member's world rank in the communicator.
      if (ci.comm < trace_.comms.size()) {
        const auto& pos = positions(ci.comm);
        auto before = [&](const Member& a, const Member& b) { return pos[a.rank] < pos[b.rank]; };
        if (!std::is_sorted(first, last, before)) std::stable_sort(first, last, before);
      }
      const std::span<const Member> ms(&*first, static_cast<std::size_t>(last - first));
      const std::uint32_t P = static_cast<std::uint32_t>(ms.size());
      const std::int32_t root = ms.front().root;
      const Member* rootMember = nullptr;
      for (const Member& m : ms)
        if (static_cast<std::int32_t>(m.rank) == root) rootMember = &m;
      if (priced && model_->collectiveCostPerMember()) {
        // Each member's own price: its position relative to the root (members are in
        // communicator order; the first one where the operation has no root).
        const std::uint32_t rootAt = rootMember ? static_cast<std::uint32_t>(rootMember - ms.data()) : 0;
        for (std::uint32_t j = 0; j < P; ++j)
          collectiveCost_[ms[j].unit] = model_->memberCost(ci.op, ms[j].bytes, P, (j + P - rootAt) % P);
      } else {
        for (const Member& m : ms) {  // the model's price, asked once per (operation, size, members)
          if (!priced) break;
          if (m.bytes != lastCost.bytes || ci.op != lastCost.op || P != lastCost.members)
            lastCost = {ci.op, m.bytes, P, model_->collectiveCost(ci.op, m.bytes, P)};
          collectiveCost_[m.unit] = lastCost.cost;
        }
      }
      // A linear collective into a known root (Allreduce's Reduce and the Barrier's gather go
      // to communicator rank 0):
      // the root's link carries the members' messages as they arrive (a queue node), and each
      // member that waits for the node is priced without the (P − 1)·q its link then carries.
      const std::uint32_t queueRoot =
          rootMember ? rootMember->unit
                     : (ci.op == MpiOp::Allreduce || ci.op == MpiOp::Barrier ? ms.front().unit : kNone32);
      const TimeNs q = priced && queueRoot != kNone32
                           ? model_->collectiveQueue(ci.op, rootMember ? rootMember->bytes : ms.front().bytes, P)
                           : 0;
      auto queueAt = [&](std::uint32_t node) {
        if (q > 0) setQueue(node - p_.units, q, queueRoot);
      };
      auto withoutLink = [&](const Member& waiter) {  // a waiter of a queue node
        if (q <= 0) return;  // unpriced: collectiveCost_ is empty
        TimeNs& c = collectiveCost_[waiter.unit];
        c = std::max<TimeNs>(0, c - static_cast<TimeNs>(P - 1) * q);
      };
      switch (collectiveRule(ci.op, rootMember != nullptr)) {
        case CollectiveRule::AllWaitForAll: {
          const std::uint32_t node = addNode(ms);
          queueAt(node);
          for (const Member& m : ms) {
            addCollDep(m.rank, m.unit, node);
            withoutLink(m);
          }
          break;
        }
        case CollectiveRule::MembersWaitForRoot: {
          // In cost mode "model" a tree algorithm (SMPI's binomial Bcast) makes each member wait
          // for its ancestors along the tree, each with its path's offset; otherwise for the root.
          const std::uint32_t rootAt = static_cast<std::uint32_t>(rootMember - ms.data());
          for (std::uint32_t j = 0; j < P; ++j) {
            const Member& m = ms[j];
            if (&m == rootMember) continue;
            TimeNs local = 0;
            if (priced && model_->collectiveTree(ci.op, m.bytes, P, (j + P - rootAt) % P, tree, local)) {
              collectiveCost_[m.unit] = local;
              for (const CollectiveTreeDep& t : tree)
                addCollDep(m.rank, m.unit, ms[(t.relative + rootAt) % P].unit, t.offset);
            } else {
              addCollDep(m.rank, m.unit, rootMember->unit);
            }
          }
          break;
        }
        case CollectiveRule::RootWaitsForMembers: {
          const std::uint32_t node = addNode(ms);
          addCollDep(rootMember->rank, rootMember->unit, node);
          queueAt(node);
          withoutLink(*rootMember);
          break;
        }
        case CollectiveRule::Prefix:
          for (std::uint32_t a = 1; a < P; ++a)
            for (std::uint32_t b = 0; b < a; ++b)
              addCollDep(ms[a].rank, ms[a].unit, ms[b].unit);
          break;
      }
    }
    if (!p_.nodeQueue.empty()) {
      p_.nodeQueue.resize(p_.nodes(), 0);
      p_.nodeRoot.resize(p_.nodes(), kNone32);
    }
  }

  // Node n is a queue (Program::nodeValue): the arrays are made on the first one.
  void setQueue(std::uint32_t n, TimeNs q, std::uint32_t rootUnit) {
    if (p_.nodeQueue.size() <= n) {
      p_.nodeQueue.resize(n + 1, 0);
      p_.nodeRoot.resize(n + 1, kNone32);
    }
    p_.nodeQueue[n] = q;
    p_.nodeRoot[n] = rootUnit;
  }

  template <class Members>
  std::uint32_t addNode(const Members& members) {
    for (const auto& m : members) p_.nodeMembers.push_back(m.unit);
    p_.nodeBegin.push_back(static_cast<std::uint32_t>(p_.nodeMembers.size()));
    return p_.units + static_cast<std::uint32_t>(p_.nodeBegin.size()) - 2;
  }

  // --- Schedule: every rank runs until a source it needs is not yet available. ---
  // A unit's enter is known once the unit before it on its rank is scheduled; a rank's first
  // unit's at once. `entered_` has bit u - 1 set when unit u's enter is known: the sentinels'
  // bits from the start (the unit after a sentinel is the next rank's first), the other units'
  // when they are scheduled.
  bool available(std::uint32_t src) const {
    if (src >= p_.units) return nodeMissing_[src - p_.units] == 0;
    return src == 0 || ((entered_[(src - 1) >> 6] >> ((src - 1) & 63)) & 1);
  }

  // Unit `u` of rank `r`'s enter time became available: count it for the nodes it belongs to.
  // A rank's units become available in order, so a cursor walks its (unit, node) list.
  void enterAvailable(std::uint32_t r, std::uint32_t u) {
    if (memberOf_.empty()) return;
    const auto& list = memberOf_[r];
    std::uint32_t& at = memberCursor_[r];
    for (; at < list.size() && list[at].first == u; ++at) {
      const std::uint32_t c = p_.units + list[at].second;
      if (--nodeMissing_[c - p_.units] == 0) {
        p_.schedule[scheduled_++] = c;
        for (std::uint32_t r : nodeWaiters_[c - p_.units]) wake(r);
        nodeWaiters_[c - p_.units].clear();
      }
    }
  }

  void wake(std::uint32_t r) {
    if (!queued_[r] && !finished(r)) {
      queued_[r] = 1;
      queue_.push_back(r);
    }
  }

  bool finished(std::uint32_t r) const { return cursor_[r] == p_.rankBegin[r + 1] - p_.rankBegin[r]; }

  void runRank(std::uint32_t r) {
    const std::uint32_t base = p_.rankBegin[r], end = p_.rankBegin[r + 1];
    const std::uint32_t* const depBegin = p_.depBegin.data();
    const std::uint32_t* const depSrc = p_.depSrc.data();
    const std::uint8_t* const flags = p_.depFlags0.data();
    std::uint32_t u = base + cursor_[r], d = depCursor_[r];
    while (u < end) {
      for (const std::uint32_t last = depBegin[u + 1]; d < last; ++d) {
        if (!(flags[d] & dep::kScheduled)) continue;
        const std::uint32_t s = depSrc[d];
        if (available(s)) continue;
        cursor_[r] = u - base;
        depCursor_[r] = d;
        blocked_[r] = d;
        if (s >= p_.units) nodeWaiters_[s - p_.units].push_back(r);
        else rankWaiters_[p_.rankOf(s)].push_back(r);
        return;
      }
      p_.schedule[scheduled_++] = u;
      entered_[u >> 6] |= std::uint64_t{1} << (u & 63);
      ++u;
      cursor_[r] = u - base;
      if (u < end) enterAvailable(r, u);
      if (!rankWaiters_[r].empty()) {
        waking_.swap(rankWaiters_[r]);
        for (std::uint32_t w : waking_) wake(w);
        waking_.clear();
      }
    }
    depCursor_[r] = d;
    blocked_[r] = kNone32;
  }

  // The rank that must progress before `r` can: owner of the unavailable source.
  std::uint32_t blocker(std::uint32_t r) const {
    const std::uint32_t s = p_.depSrc[blocked_[r]];
    if (s < p_.units) return p_.rankOf(s);
    const std::uint32_t n = s - p_.units;
    for (std::uint32_t i = p_.nodeBegin[n]; i < p_.nodeBegin[n + 1]; ++i)
      if (!available(p_.nodeMembers[i])) return p_.rankOf(p_.nodeMembers[i]);
    return r;
  }

  // Every unfinished rank waits: the waits-for graph has a cycle. Cut one dependency on it,
  // preferring one the current protocol does not use, then a rendezvous send's.
  void breakCycle() {
    std::uint32_t start = kNone32;
    for (std::uint32_t r = 0; r < p_.ranks && start == kNone32; ++r)
      if (!finished(r)) start = r;
    const std::uint32_t victim = cycleVictim(
        p_.ranks, start, [&](std::uint32_t r) { return blocker(r); },
        [&](std::uint32_t r) { return p_.depFlags0[blocked_[r]]; });
    const std::uint32_t d = blocked_[victim];
    if (p_.depFlags0[d] & dep::kActive) ++report_.brokenCycles;
    p_.depFlags0[d] = static_cast<std::uint8_t>(p_.depFlags0[d] & ~dep::kScheduled);
    // Remove the victim from the waiter list it sits in; waking it re-checks anyway.
    wake(victim);
  }

  void buildSchedule() {
    const std::uint32_t R = p_.ranks;
    cursor_.assign(R, 0);
    depCursor_.resize(R);
    blocked_.assign(R, kNone32);
    queued_.assign(R, 0);
    rankWaiters_.assign(R, {});
    nodeWaiters_.assign(p_.nodes(), {});
    nodeMissing_.resize(p_.nodes());
    for (std::uint32_t n = 0; n < p_.nodes(); ++n)
      nodeMissing_[n] = p_.nodeBegin[n + 1] - p_.nodeBegin[n];
    // The gathers each unit is a member of: per rank, (unit, node) by unit (for the schedule
    // only; memory per membership, not per unit).
    if (!p_.nodeMembers.empty()) {
      memberOf_.assign(R, {});
      memberCursor_.assign(R, 0);
      for (std::uint32_t n = 0; n < p_.nodes(); ++n)
        for (std::uint32_t i = p_.nodeBegin[n]; i < p_.nodeBegin[n + 1]; ++i)
          memberOf_[p_.rankOf(p_.nodeMembers[i])].emplace_back(p_.nodeMembers[i], n);
      eachRank(R, [&](std::uint32_t r) {
        if (!std::is_sorted(memberOf_[r].begin(), memberOf_[r].end())) std::sort(memberOf_[r].begin(), memberOf_[r].end());
      });
    }
    p_.schedule.assign(p_.items(), 0);
    scheduled_ = 0;
    entered_ = p_.sentinelBits;
    for (std::uint32_t r = 0; r < R; ++r) {
      depCursor_[r] = p_.depBegin[p_.rankBegin[r]];
      enterAvailable(r, p_.rankBegin[r]);
    }
    for (std::uint32_t r = 0; r < R; ++r) wake(r);
    std::uint32_t done = 0;
    std::uint32_t runs = 0;
    for (;;) {
      while (!queue_.empty()) {
        const std::uint32_t r = queue_.front();
        queue_.pop_front();
        queued_[r] = 0;
        runRank(r);
        if ((++runs & 255) == 0) {
          raiseProgress(phaseRanks_, static_cast<std::uint32_t>(std::uint64_t{scheduled_} * p_.ranks /
                                                                std::max<std::uint32_t>(1, p_.items())));
          checkpoint();
        }
      }
      done = 0;
      for (std::uint32_t r = 0; r < R; ++r) done += finished(r);
      if (done == R) break;
      breakCycle();
    }
    if (scheduled_ != p_.items()) throw std::logic_error("replay schedule incomplete");
    releaseMemory(memberOf_);
    releaseMemory(memberCursor_);
    releaseMemory(entered_);
  }

  // --- Split every measured call into local cost and waiting time. ---
  void decompose() {
    // Each gather's measured time (its members' latest enter), in parallel over 64 chunks.
    std::vector<TimeNs> nodeTime(p_.nodes(), 0);
    const std::uint32_t chunks = 64, per = (p_.nodes() + chunks - 1) / chunks;
    forEachRank(chunks, p_.nodeMembers.size(), [&](std::uint32_t c) {
      for (std::uint32_t n = c * per; n < std::min(p_.nodes(), (c + 1) * per); ++n) {
        TimeNs t = 0;
        for (std::uint32_t i = p_.nodeBegin[n]; i < p_.nodeBegin[n + 1]; ++i)
          t = std::max(t, p_.measEnter[p_.nodeMembers[i]]);
        nodeTime[n] = t;
      }
    });
    auto srcTime = [&](std::uint32_t s) { return s < p_.units ? p_.measEnter[s] : nodeTime[s - p_.units]; };
    p_.local0.assign(p_.units, 0);
    if (costs_ == CostMode::Model) p_.wait0.assign(p_.units, 0);
    if (costs_ == CostMode::Model) p_.modelLocal.assign(p_.units, 0);
    // Per rank in parallel: a unit writes only its own costs and its own dependencies.
    std::vector<std::uint64_t> skewed(p_.ranks, 0);
    eachRank(p_.ranks, [&](std::uint32_t r) {
      std::vector<RoleUse> roles;  // of the unit being priced (cost mode "model")
      for (std::uint32_t u = p_.rankBegin[r]; u < p_.rankBegin[r + 1]; ++u) {
        const TimeNs E = p_.measEnter.in(r, u), X = leave_[u];
        TimeNs ready = E;
        for (std::uint32_t d = p_.depBegin[u]; d < p_.depBegin[u + 1]; ++d)
          if ((p_.depFlags0[d] & dep::kUse) == dep::kUse) ready = std::max(ready, satAdd(srcTime(p_.depSrc[d]), p_.depOff0[d]));
        if (ready > X) {  // the partner's time lies after this call returned: clock skew
          // In cost mode "model" the offsets are the target network's, which may be slower than
          // the one measured (a retarget): a dependency is skew only where the partner's call,
          // less a negative offset, came after this call returned (docs/model.md §2.7).
          TimeNs kept = E;
          for (std::uint32_t d = p_.depBegin[u]; d < p_.depBegin[u + 1]; ++d) {
            if ((p_.depFlags0[d] & dep::kUse) != dep::kUse) continue;
            const TimeNs t = srcTime(p_.depSrc[d]);
            const TimeNs off = p_.depOff0[d];
            const TimeNs judged = costs_ == CostMode::Model ? std::min<TimeNs>(off, 0) : off;
            if (satAdd(t, judged) > X) {
              p_.depOff0.set(d, X - t);
              p_.depFlags0[d] |= dep::kSkewed;
              ++skewed[r];
              kept = X;  // the shortened dependency is ready when the call returned
            } else {
              kept = std::max(kept, satAdd(t, off));
            }
          }
          ready = std::min(kept, X);
        }
        const TimeNs wait = ready - E;
        if (costs_ == CostMode::Model) p_.wait0[u] = wait;
        const TimeNs measuredLocal = X - E - wait;
        if (costs_ == CostMode::Measured || p_.isSentinel(u)) {
          p_.local0.set(u, measuredLocal);
          continue;
        }
        const bool comm = p_.roleBegin[u + 1] > p_.roleBegin[u] || collectiveCost_[u] >= 0;
        if (!comm) {
          p_.local0.set(u, measuredLocal);  // not communication: keeps its measured cost
          continue;
        }
        p_.modelLocal[u] = 1;
        roles.clear();
        for (std::uint32_t i = p_.roleBegin[u]; i < p_.roleBegin[u + 1]; ++i)
          roles.push_back({p_.roleKind[i], p_.messageBytes[p_.roleMsg[i]]});
        TimeNs cost = std::max<TimeNs>(collectiveCost_[u], 0);
        if (!roles.empty()) cost = satAdd(cost, model_->callCost(roles));
        p_.local0.set(u, cost);
      }
    });
    for (std::uint64_t n : skewed) report_.skewedDependencies += n;
  }

  void summarize() {
    if (report_.skewedDependencies)
      report_.notes.push_back(std::to_string(report_.skewedDependencies) +
                              " dependencies had their partner's time after the call returned "
                              "(clock skew); their offsets were shortened to fit the measurement");
    if (report_.brokenCycles)
      report_.notes.push_back(std::to_string(report_.brokenCycles) +
                              " rendezvous dependencies formed a cycle (the run must have "
                              "buffered them); those sends no longer wait for their receivers");
    if (report_.nestedCalls)
      report_.notes.push_back(std::to_string(report_.nestedCalls) +
                              " MPI calls lie inside another MPI call and follow it");
    if (report_.unmatchedEndpoints)
      report_.notes.push_back(std::to_string(report_.unmatchedEndpoints) +
                              " message endpoints have no partner and keep their local cost only");
  }

  const Trace& trace_;
  const std::uint64_t events_ = trace_.eventCount();
  const NetworkModel* model_;  // null for a walk over the links only
  CostMode costs_;
  ReplayProgram& p_;
  ReplayReport& report_;
  ReplayReport ignored_;
  ReplayControl* control_ = nullptr;
  std::uint32_t phase_ = 0;
  std::atomic<std::uint32_t> phaseRanks_{0};
  // Collective dependencies (unit, source) of each rank's units, in instance order (until
  // finishDeps puts them after each unit's message dependencies).
  // Collective dependencies per rank, until finishDeps: (unit, source), 8 bytes each, and their
  // offsets, which are 0 but along a broadcast tree in cost mode "model"
  // (NetworkModel::collectiveTree): a rank's offsets are stored only once one is not 0.
  struct CollDep {
    std::uint32_t unit, src;
  };
  std::vector<std::vector<CollDep>> collDeps_;
  std::vector<std::vector<TimeNs>> collDepOffs_;  // per rank: empty, or one per collDeps_ entry
  void addCollDep(std::uint32_t rank, std::uint32_t unit, std::uint32_t src, TimeNs off = 0) {
    std::vector<TimeNs>& offs = collDepOffs_[rank];
    if (off != 0 || !offs.empty()) {
      offs.resize(collDeps_[rank].size(), 0);  // the zeros of the entries before the first offset
      offs.push_back(off);
    }
    collDeps_[rank].push_back({unit, src});
  }
  std::vector<std::uint32_t> msgBase_, msgId_, postUnit_, doneUnit_;  // per endpoint (until finishDeps)
  std::vector<TimeNs> collectiveCost_;
  std::vector<TimeNs> leave_;  // measured leave per unit (then the results' storage)
  // schedule state
  std::vector<std::uint32_t> cursor_, depCursor_, blocked_, nodeMissing_, memberCursor_;
  std::vector<std::vector<std::pair<std::uint32_t, std::uint32_t>>> memberOf_;  // per rank, while scheduling
  std::vector<std::uint8_t> queued_;
  std::vector<std::uint64_t> entered_;  // bit u - 1: unit u's enter is known (see available())
  std::vector<std::uint32_t> waking_;   // the waiters being woken (reused)
  std::uint32_t scheduled_ = 0;         // items in the schedule so far
  std::vector<std::vector<std::uint32_t>> rankWaiters_, nodeWaiters_;
  std::deque<std::uint32_t> queue_;
};

}  // namespace

void ReplayProgram::prepareIncremental(ReplayControl* control) const {
  // A cancel (ReplayControl) throws out of call_once, which then runs again at the next call.
  auto check = [control](std::uint32_t i) {
    if (control && (i & 0xFFFF) == 0 && control->cancel.load(std::memory_order_relaxed)) throw ReplayCancelled();
  };
  std::call_once(incrementalOnce_, [&] {
    const std::uint32_t n = items();
    std::vector<std::uint32_t> begin(std::size_t{n} + 1, 0);
    for (std::uint32_t u = 0; u < units; ++u) {
      check(u);
      for (std::uint32_t d = depBegin[u]; d < depBegin[u + 1]; ++d) ++begin[depSrc[d] + 1];
    }
    for (std::uint32_t m : nodeMembers) ++begin[m + 1];
    std::partial_sum(begin.begin(), begin.end(), begin.begin());
    std::vector<std::uint32_t> list(begin.back());
    std::vector<std::uint32_t> fill(begin.begin(), begin.end() - 1);
    for (std::uint32_t u = 0; u < units; ++u) {
      check(u);
      for (std::uint32_t d = depBegin[u]; d < depBegin[u + 1]; ++d) list[fill[depSrc[d]]++] = u;
    }
    for (std::uint32_t k = 0; k < nodes(); ++k)
      for (std::uint32_t i = nodeBegin[k]; i < nodeBegin[k + 1]; ++i) list[fill[nodeMembers[i]]++] = units + k;
    std::vector<std::uint32_t> pos(n, kNone32);
    for (std::uint32_t i = 0; i < schedule.size(); ++i) {
      check(i);
      pos[schedule[i]] = i;
    }
    consumerBegin = std::move(begin);
    consumers = std::move(list);
    position = std::move(pos);
    cleanCuts = std::make_shared<const CleanCuts>(findCleanCuts(*this));
  });
}

void ReplayProgram::prepareLinks() const {
  std::call_once(linksOnce_, [this] {
    // Only the mutable link fields are written (the walk reads the rest).
    Builder(*trace, const_cast<ReplayProgram&>(*this)).buildLinks();
  });
}

void buildReplayProgram(const Trace& trace, const NetworkModel& model, CostMode costs, ReplayProgram& program,
                        ReplayReport& report, std::vector<TimeNs>* leave, ReplayControl* control) {
  Builder b(trace, model, costs, program, report, control);
  b.run();
  b.giveTimes(leave);
}

}  // namespace perwiz
