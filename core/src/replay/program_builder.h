// The compiler of a measured trace into a replay program (replay_program.h), one job per file:
//   replay_program.cpp        the phases in order, the report, the program's lazy parts
//   program_units.cpp         the units: gaps before them, then each call's local cost and wait
//   program_messages.cpp      messages, their dependencies and the links (roles, sizes, steps)
//   program_collectives.cpp   collectives: gather nodes, trees and the model's prices
//   program_schedule.cpp      the schedule: every rank runs until a source is missing
// Private to perwiz_replay.
#pragma once

#include "perwiz/internal/replay_program.h"
#include "perwiz/rank_parallel.h"

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <deque>
#include <functional>
#include <span>
#include <utility>
#include <vector>

namespace perwiz {

class ProgramBuilder {
 public:
  ProgramBuilder(const Trace& t, const NetworkModel& m, CostMode c, ReplayProgram& p, ReplayReport& r,
                 ReplayControl* control = nullptr)
      : trace_(t), model_(&m), costs_(c), p_(p), report_(r), control_(control) {}
  // For the links only (Program::prepareLinks): no network model, no report.
  ProgramBuilder(const Trace& t, ReplayProgram& p)
      : trace_(t), model_(nullptr), costs_(CostMode::Measured), p_(p), report_(ignored_) {}

  void run();
  // The builder's per-unit measured leaves become the storage of the first replay's results
  // (the same size): the results then cost no memory beyond the builder's peak. Freed if not
  // wanted.
  void giveTimes(std::vector<TimeNs>* leave);
  // The communication roles of each unit (CSR), the message behind each message dependency
  // and each message's units and parallel step, from the same walk over the endpoints as the
  // dependencies themselves (so a unit's message dependencies come in the same order).
  void buildLinks();
  // Rank r's communication roles from its endpoints, in the links' order, kept nowhere
  // (ReplayProgram::forEachRole).
  void rankRoles(std::uint32_t r, const std::function<void(std::uint32_t, CommRole)>& onRole) const;

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

  // An endpoint's partner exists (the trace builder guarantees it; checked so that nothing
  // indexes out of range if it did not). A send, or an endpoint without one, owns a message; a
  // receive shares its partner's.
  bool partnerExists(const MessageEndpoint& m) const {
    return m.matched() && m.matchRank < p_.ranks && m.matchIndex < trace_.ranks[m.matchRank].messages.size();
  }
  bool ownsMessage(const MessageEndpoint& m) const { return m.isSend || !partnerExists(m); }
  // The units that post and complete endpoint m of rank r (kNone32: not in the trace), the
  // calls found from `postHint` on (advanced to the post's call). A half-recorded receive's post
  // is not in the trace (trace.h): no unit posts it, so no rendezvous send waits for it.
  std::pair<std::uint32_t, std::uint32_t> endpointUnits(std::uint32_t r, const MessageEndpoint& m,
                                                        std::uint32_t& postHint) const {
    const std::vector<std::uint32_t>& calls = trace_.ranks[r].mpiCalls;
    const std::uint32_t post = m.postEvent == kNone32 ? kNone32 : findCall(calls, m.postEvent, postHint);
    std::uint32_t doneHint = postHint;
    const std::uint32_t done = m.event == m.postEvent ? post : findCall(calls, m.event, doneHint);
    return {m.halfRecorded() && !m.isSend ? kNone32 : unitOfCall(r, post), unitOfCall(r, done)};
  }

  // ---- units (program_units.cpp) ----
  void buildUnits();
  // Split every measured call into local cost and waiting time.
  void decompose();
  void summarize();

  // ---- messages and links (program_messages.cpp) ----
  void buildMessages(bool sizes, bool steps);
  class Delays;
  template <class OnRole, class OnDep>
  std::uint64_t walkLinks(std::uint32_t r, Delays* delays, OnRole&& onRole, OnDep&& onDep) const;
  void finishDeps();
  void releaseEndpoints();

  // ---- collectives (program_collectives.cpp) ----
  // A member of a collective instance: 12 B (at 10^8 events there are 2 x 10^7 of them, each
  // in fresh memory); its root and size are read from the rank's participation when asked.
  struct Member {
    std::uint32_t rank, unit, call;  // call: index into the rank's collectives
  };
  CollectiveCall participation(const Member& m) const { return trace_.ranks[m.rank].collectives[m.call]; }
  std::int32_t memberRoot(const Member& m) const { return participation(m).root; }
  std::uint64_t memberBytes(const Member& m) const {
    const CollectiveCall c = participation(m);
    return std::max(c.bytesSent, c.bytesReceived);
  }
  // The model's price of the last (operation, size, members) asked (most instances repeat it).
  struct LastCost {
    MpiOp op = MpiOp::None;
    std::uint64_t bytes = ~std::uint64_t{0};
    std::uint32_t members = 0;
    TimeNs cost = 0;
  };
  std::size_t collectiveMembers() const;
  void buildCollectives();
  void collectMembers(std::vector<std::uint32_t>& instBegin, std::vector<Member>& members);
  void priceMembers(const CollectiveInstance& ci, std::span<const Member> ms, const Member* rootMember,
                    LastCost& lastCost);
  void addInstance(const CollectiveInstance& ci, std::span<const Member> ms, LastCost& lastCost,
                   std::vector<CollectiveTreeDep>& tree);
  void setQueue(std::uint32_t n, TimeNs q, std::uint32_t rootUnit);
  template <class Members>
  std::uint32_t addNode(const Members& members) {
    for (const auto& m : members) p_.nodeMembers.push_back(m.unit);
    p_.nodeBegin.push_back(static_cast<std::uint32_t>(p_.nodeMembers.size()));
    return p_.units + static_cast<std::uint32_t>(p_.nodeBegin.size()) - 2;
  }
  void addCollDep(std::uint32_t rank, std::uint32_t unit, std::uint32_t src, TimeNs off = 0);

  // ---- the schedule (program_schedule.cpp) ----
  bool available(std::uint32_t src) const;
  void enterAvailable(std::uint32_t r, std::uint32_t u);
  void wake(std::uint32_t r);
  bool finished(std::uint32_t r) const { return cursor_[r] == p_.rankBegin[r + 1] - p_.rankBegin[r]; }
  void runRank(std::uint32_t r);
  std::uint32_t blocker(std::uint32_t r) const;
  void breakCycle();
  void buildSchedule();

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
  // Collective dependencies per rank, until finishDeps puts them after each unit's message
  // dependencies: (unit, source), 8 bytes each, in instance order, and their offsets, which
  // are 0 but along a broadcast tree in cost mode "model" (NetworkModel::collectiveTree): a
  // rank's offsets are stored only once one is not 0.
  struct CollDep {
    std::uint32_t unit, src;
  };
  std::vector<std::vector<CollDep>> collDeps_;
  std::vector<std::vector<TimeNs>> collDepOffs_;                      // per rank: empty, or one per collDeps_ entry
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

}  // namespace perwiz
