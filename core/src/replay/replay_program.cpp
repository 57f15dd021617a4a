// Compiles a measured trace into a replay program (see replay_program.h, docs/model.md).
#include "replay_program.h"

#include "perwiz/checked_time.h"

#include <algorithm>
#include <deque>
#include <numeric>
#include <string>
#include <tuple>

namespace perwiz {
namespace {

struct PendingRole {
  std::uint32_t unit;
  CommRole role;
  std::uint32_t msg;
};

struct PendingDep {
  std::uint32_t unit;
  std::uint32_t src;
  TimeNs off;
  std::uint8_t flags;
  std::uint32_t msg;
};

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

class Builder {
 public:
  Builder(const Trace& t, const NetworkModel& m, CostMode c, Replayer::Program& p, ReplayReport& r)
      : trace_(t), model_(m), costs_(c), p_(p), report_(r) {}

  void run() {
    buildUnits();
    buildMessages();
    buildCollectives();
    finishDeps();
    buildConsumers();
    buildSchedule();
    decompose();
    summarize();
  }

 private:
  // Unit of the MPI call that is event `event` of `rank`, kNone32 if it is not an MPI call.
  std::uint32_t unitOfEvent(std::uint32_t rank, std::uint32_t event) const {
    const auto& calls = trace_.ranks[rank].mpiCalls;
    auto it = std::lower_bound(calls.begin(), calls.end(), event);
    if (it == calls.end() || *it != event) return kNone32;
    return p_.unitOfCall[rank][static_cast<std::size_t>(it - calls.begin())];
  }

  void buildUnits() {
    const std::uint32_t R = static_cast<std::uint32_t>(trace_.rankCount());
    p_.ranks = R;
    p_.rankBegin.assign(1, 0);
    p_.unitOfCall.resize(R);
    p_.nestedCall.resize(R);
    for (std::uint32_t r = 0; r < R; ++r) {
      const RankTrace& rt = trace_.ranks[r];
      auto& ofCall = p_.unitOfCall[r];
      auto& nested = p_.nestedCall[r];
      ofCall.resize(rt.mpiCalls.size());
      nested.assign(rt.mpiCalls.size(), 0);
      TimeNs lastLeave = 0;
      bool any = false;
      for (std::uint32_t i = 0; i < rt.mpiCalls.size(); ++i) {
        const std::uint32_t e = rt.mpiCalls[i];
        if (any && rt.enter[e] < lastLeave) {  // inside the previous top-level call
          ofCall[i] = static_cast<std::uint32_t>(p_.measEnter.size()) - 1;
          nested[i] = 1;
          ++report_.nestedCalls;
          continue;
        }
        ofCall[i] = static_cast<std::uint32_t>(p_.measEnter.size());
        addUnit(r, i, rt.enter[e], rt.leave[e]);
        lastLeave = rt.leave[e];
        any = true;
      }
      TimeNs end = lastLeave;
      for (TimeNs l : rt.leave) end = std::max(end, l);
      addUnit(r, kNone32, end, end);  // the rank's end sentinel
      p_.rankBegin.push_back(static_cast<std::uint32_t>(p_.measEnter.size()));
    }
    p_.units = static_cast<std::uint32_t>(p_.measEnter.size());
    p_.gap0.resize(p_.units);
    for (std::uint32_t u = 0; u < p_.units; ++u) {
      const TimeNs prev = p_.isFirst(u) ? 0 : p_.measLeave[u - 1];
      p_.gap0[u] = std::max<TimeNs>(0, p_.measEnter[u] - prev);
    }
  }

  void addUnit(std::uint32_t rank, std::uint32_t call, TimeNs enter, TimeNs leave) {
    p_.unitRank.push_back(rank);
    p_.callOfUnit.push_back(call);
    p_.measEnter.push_back(enter);
    p_.measLeave.push_back(leave);
  }

  void addRole(std::uint32_t unit, CommRole role, std::uint32_t msg, int slot) {
    if (unit == kNone32) return;
    roles_.push_back({unit, role, msg});
    p_.messages[msg].units[slot] = unit;
  }

  void buildMessages() {
    const std::uint32_t R = p_.ranks;
    std::vector<std::uint32_t> base(R + 1, 0);
    for (std::uint32_t r = 0; r < R; ++r)
      base[r + 1] = base[r] + static_cast<std::uint32_t>(trace_.ranks[r].messages.size());
    p_.messages.assign(base[R], ReplayMessage{});
    std::vector<std::vector<std::tuple<std::uint32_t, std::uint32_t, std::uint32_t>>> spans(R);
    for (std::uint32_t k = 0; k < trace_.steps.size(); ++k)
      for (std::uint32_t r = 0; r < R && r < trace_.steps[k].ranks.size(); ++r) {
        const StepSpan& s = trace_.steps[k].ranks[r];
        if (s.present()) spans[r].emplace_back(s.firstEvent, s.lastEvent, k);
      }
    for (auto& v : spans) std::sort(v.begin(), v.end());

    for (std::uint32_t r = 0; r < R; ++r) {
      const auto& msgs = trace_.ranks[r].messages;
      for (std::uint32_t j = 0; j < msgs.size(); ++j) {
        const MessageEndpoint& m = msgs[j];
        const bool matched = m.matched() && m.matchRank < R;
        const std::uint32_t id = (m.isSend || !matched) ? base[r] + j : base[m.matchRank] + m.matchIndex;
        ReplayMessage& msg = p_.messages[id];
        if (m.isSend || !matched) msg.bytes = m.bytes;
        if (m.isSend) {  // the step of the send's post call
          auto it = std::upper_bound(spans[r].begin(), spans[r].end(),
                                     std::make_tuple(m.postEvent, kNone32, kNone32));
          if (it != spans[r].begin()) {
            --it;
            if (m.postEvent >= std::get<0>(*it) && m.postEvent < std::get<1>(*it))
              msg.step = std::get<2>(*it);
          }
        }
        const std::uint32_t done = unitOfEvent(r, m.event);
        const std::uint32_t post = m.postEvent == m.event ? done : unitOfEvent(r, m.postEvent);
        const int slot = m.isSend ? 0 : 2;
        if (m.event == m.postEvent) {
          addRole(done, m.isSend ? CommRole::BlockingSend : CommRole::BlockingRecv, id, slot);
        } else {
          addRole(post, m.isSend ? CommRole::IsendPost : CommRole::IrecvPost, id, slot);
          addRole(done, m.isSend ? CommRole::IsendComplete : CommRole::IrecvComplete, id, slot + 1);
        }
        if (!matched) {
          ++report_.unmatchedEndpoints;
          continue;
        }
        const MessageEndpoint& other = trace_.ranks[m.matchRank].messages[m.matchIndex];
        const std::uint32_t src = unitOfEvent(m.matchRank, other.postEvent);
        if (done == kNone32 || src == kNone32) continue;
        const std::uint64_t bytes = m.isSend ? m.bytes : other.bytes;
        if (m.isSend) {
          const std::uint8_t active = model_.synchronous(bytes) ? dep::kActive : 0;
          deps_.push_back({done, src, -model_.arrivalDelay(bytes),
                           static_cast<std::uint8_t>(dep::kSyncSend | active), id});
        } else {
          const bool blocking = m.event == m.postEvent;
          const CommRole role = blocking ? CommRole::BlockingRecv : CommRole::IrecvComplete;
          deps_.push_back({done, src, model_.receiveDelay(role, bytes),
                           static_cast<std::uint8_t>(dep::kActive | (blocking ? 0 : dep::kLateRecv)), id});
        }
      }
    }
  }

  void buildCollectives() {
    const std::uint32_t R = p_.ranks;
    struct Member {
      std::uint32_t rank, unit;
      std::int32_t root;
      std::uint64_t bytes;
    };
    std::vector<std::vector<Member>> inst(trace_.collectives.size());
    for (std::uint32_t r = 0; r < R; ++r)
      for (const CollectiveCall& c : trace_.ranks[r].collectives) {
        const std::uint32_t u = unitOfEvent(r, c.event);
        if (u == kNone32 || c.instance == kNone32 || c.instance >= inst.size()) continue;
        inst[c.instance].push_back({r, u, c.root, std::max(c.bytesSent, c.bytesReceived)});
      }
    p_.nodeBegin.assign(1, 0);
    collectiveCost_.assign(p_.units, -1);
    for (std::uint32_t i = 0; i < inst.size(); ++i) {
      auto& members = inst[i];
      if (members.empty()) continue;
      const CollectiveInstance& ci = trace_.collectives[i];
      // Comm order: position of the member's world rank in the communicator.
      if (ci.comm < trace_.comms.size()) {
        const auto& wr = trace_.comms[ci.comm].worldRanks;
        auto pos = [&](std::uint32_t rank) {
          auto it = std::find(wr.begin(), wr.end(), static_cast<std::int32_t>(rank));
          return it == wr.end() ? wr.size() + rank : static_cast<std::size_t>(it - wr.begin());
        };
        std::stable_sort(members.begin(), members.end(),
                         [&](const Member& a, const Member& b) { return pos(a.rank) < pos(b.rank); });
      }
      const std::uint32_t P = static_cast<std::uint32_t>(members.size());
      for (const Member& m : members)
        collectiveCost_[m.unit] = model_.collectiveCost(ci.op, m.bytes, P);
      const std::int32_t root = members.front().root;
      const Member* rootMember = nullptr;
      for (const Member& m : members)
        if (static_cast<std::int32_t>(m.rank) == root) rootMember = &m;
      switch (collectiveRule(ci.op, rootMember != nullptr)) {
        case CollectiveRule::AllWaitForAll: {
          const std::uint32_t node = addNode(members);
          for (const Member& m : members) deps_.push_back({m.unit, node, 0, dep::kActive, kNone32});
          break;
        }
        case CollectiveRule::MembersWaitForRoot:
          for (const Member& m : members)
            if (&m != rootMember)
              deps_.push_back({m.unit, rootMember->unit, 0, dep::kActive, kNone32});
          break;
        case CollectiveRule::RootWaitsForMembers: {
          const std::uint32_t node = addNode(members);
          deps_.push_back({rootMember->unit, node, 0, dep::kActive, kNone32});
          break;
        }
        case CollectiveRule::Prefix:
          for (std::uint32_t a = 1; a < P; ++a)
            for (std::uint32_t b = 0; b < a; ++b)
              deps_.push_back({members[a].unit, members[b].unit, 0, dep::kActive, kNone32});
          break;
      }
    }
  }

  template <class Members>
  std::uint32_t addNode(const Members& members) {
    for (const auto& m : members) p_.nodeMembers.push_back(m.unit);
    p_.nodeBegin.push_back(static_cast<std::uint32_t>(p_.nodeMembers.size()));
    return p_.units + static_cast<std::uint32_t>(p_.nodeBegin.size()) - 2;
  }

  void finishDeps() {
    // Counting sort by unit, stable (keeps the order in which deps were found).
    p_.depBegin.assign(p_.units + 1, 0);
    for (const PendingDep& d : deps_) ++p_.depBegin[d.unit + 1];
    std::partial_sum(p_.depBegin.begin(), p_.depBegin.end(), p_.depBegin.begin());
    const std::size_t n = deps_.size();
    p_.depSrc.resize(n);
    p_.depOff0.resize(n);
    p_.depFlags0.resize(n);
    p_.depMsg.resize(n);
    std::vector<std::uint32_t> fill(p_.depBegin.begin(), p_.depBegin.end() - 1);
    for (const PendingDep& d : deps_) {
      const std::uint32_t i = fill[d.unit]++;
      p_.depSrc[i] = d.src;
      p_.depOff0[i] = d.off;
      p_.depFlags0[i] = static_cast<std::uint8_t>(d.flags | dep::kScheduled);
      p_.depMsg[i] = d.msg;
    }
    deps_.clear();
    deps_.shrink_to_fit();
    // Roles, CSR by unit (a stable counting sort, like the dependencies: one flat list while
    // reading, not a small vector per unit).
    p_.roleBegin.assign(p_.units + 1, 0);
    for (const PendingRole& r : roles_) ++p_.roleBegin[r.unit + 1];
    std::partial_sum(p_.roleBegin.begin(), p_.roleBegin.end(), p_.roleBegin.begin());
    p_.roleKind.resize(roles_.size());
    p_.roleMsg.resize(roles_.size());
    std::vector<std::uint32_t> next(p_.roleBegin.begin(), p_.roleBegin.end() - 1);
    for (const PendingRole& r : roles_) {
      const std::uint32_t i = next[r.unit]++;
      p_.roleKind[i] = r.role;
      p_.roleMsg[i] = r.msg;
    }
    roles_.clear();
    roles_.shrink_to_fit();
  }

  void buildConsumers() {
    const std::uint32_t items = p_.items();
    p_.consumerBegin.assign(items + 1, 0);
    for (std::uint32_t u = 0; u < p_.units; ++u)
      for (std::uint32_t d = p_.depBegin[u]; d < p_.depBegin[u + 1]; ++d) ++p_.consumerBegin[p_.depSrc[d] + 1];
    for (std::uint32_t n = 0; n < p_.nodes(); ++n)
      for (std::uint32_t i = p_.nodeBegin[n]; i < p_.nodeBegin[n + 1]; ++i)
        ++p_.consumerBegin[p_.nodeMembers[i] + 1];
    std::partial_sum(p_.consumerBegin.begin(), p_.consumerBegin.end(), p_.consumerBegin.begin());
    p_.consumers.resize(p_.consumerBegin.back());
    std::vector<std::uint32_t> fill(p_.consumerBegin.begin(), p_.consumerBegin.end() - 1);
    for (std::uint32_t u = 0; u < p_.units; ++u)
      for (std::uint32_t d = p_.depBegin[u]; d < p_.depBegin[u + 1]; ++d)
        p_.consumers[fill[p_.depSrc[d]]++] = u;
    for (std::uint32_t n = 0; n < p_.nodes(); ++n)
      for (std::uint32_t i = p_.nodeBegin[n]; i < p_.nodeBegin[n + 1]; ++i)
        p_.consumers[fill[p_.nodeMembers[i]]++] = p_.units + n;
  }

  // --- Schedule: every rank runs until a source it needs is not yet available. ---
  bool available(std::uint32_t src) const {
    if (src >= p_.units) return nodeMissing_[src - p_.units] == 0;
    const std::uint32_t r = p_.unitRank[src];
    return src - p_.rankBegin[r] <= cursor_[r];
  }

  // Unit `u`'s enter time became available: count it for the nodes it belongs to.
  void enterAvailable(std::uint32_t u) {
    for (std::uint32_t i = p_.consumerBegin[u]; i < p_.consumerBegin[u + 1]; ++i) {
      const std::uint32_t c = p_.consumers[i];
      if (c < p_.units) continue;
      if (--nodeMissing_[c - p_.units] == 0) {
        p_.schedule.push_back(c);
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
    while (!finished(r)) {
      const std::uint32_t u = p_.rankBegin[r] + cursor_[r];
      for (; depCursor_[r] < p_.depBegin[u + 1]; ++depCursor_[r]) {
        const std::uint32_t d = depCursor_[r];
        if (!(p_.depFlags0[d] & dep::kScheduled)) continue;
        const std::uint32_t s = p_.depSrc[d];
        if (available(s)) continue;
        blocked_[r] = d;
        if (s >= p_.units) nodeWaiters_[s - p_.units].push_back(r);
        else rankWaiters_[p_.unitRank[s]].push_back(r);
        return;
      }
      blocked_[r] = kNone32;
      p_.schedule.push_back(u);
      ++cursor_[r];
      depCursor_[r] = p_.depBegin[u + 1];
      if (!finished(r)) enterAvailable(u + 1);
      if (!rankWaiters_[r].empty()) {
        auto waiters = std::move(rankWaiters_[r]);
        rankWaiters_[r].clear();
        for (std::uint32_t w : waiters) wake(w);
      }
    }
  }

  // The rank that must progress before `r` can: owner of the unavailable source.
  std::uint32_t blocker(std::uint32_t r) const {
    const std::uint32_t s = p_.depSrc[blocked_[r]];
    if (s < p_.units) return p_.unitRank[s];
    const std::uint32_t n = s - p_.units;
    for (std::uint32_t i = p_.nodeBegin[n]; i < p_.nodeBegin[n + 1]; ++i)
      if (!available(p_.nodeMembers[i])) return p_.unitRank[p_.nodeMembers[i]];
    return r;
  }

  // Every unfinished rank waits: the waits-for graph has a cycle. Cut one dependency on it,
  // preferring one the current protocol does not use, then a rendezvous send's.
  void breakCycle() {
    std::uint32_t start = kNone32;
    for (std::uint32_t r = 0; r < p_.ranks && start == kNone32; ++r)
      if (!finished(r)) start = r;
    std::vector<std::uint32_t> seen(p_.ranks, 0);
    std::uint32_t r = start;
    for (std::uint32_t step = 1; !seen[r]; ++step) {
      seen[r] = step;
      r = blocker(r);
    }
    std::vector<std::uint32_t> cycle{r};
    for (std::uint32_t x = blocker(r); x != r; x = blocker(x)) cycle.push_back(x);
    auto pick = [&](auto pred) -> std::uint32_t {
      for (std::uint32_t x : cycle)
        if (pred(p_.depFlags0[blocked_[x]])) return x;
      return kNone32;
    };
    std::uint32_t victim = pick([](std::uint8_t f) { return !(f & dep::kActive); });
    if (victim == kNone32) victim = pick([](std::uint8_t f) { return (f & dep::kSyncSend) != 0; });
    if (victim == kNone32) victim = cycle.front();
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
    p_.schedule.clear();
    p_.schedule.reserve(p_.items());
    for (std::uint32_t r = 0; r < R; ++r) {
      depCursor_[r] = p_.depBegin[p_.rankBegin[r]];
      enterAvailable(p_.rankBegin[r]);
    }
    for (std::uint32_t r = 0; r < R; ++r) wake(r);
    std::uint32_t done = 0;
    for (;;) {
      while (!queue_.empty()) {
        const std::uint32_t r = queue_.front();
        queue_.pop_front();
        queued_[r] = 0;
        runRank(r);
      }
      done = 0;
      for (std::uint32_t r = 0; r < R; ++r) done += finished(r);
      if (done == R) break;
      breakCycle();
    }
    p_.position.assign(p_.items(), kNone32);
    for (std::uint32_t i = 0; i < p_.schedule.size(); ++i) p_.position[p_.schedule[i]] = i;
  }

  // --- Split every measured call into local cost and waiting time. ---
  void decompose() {
    std::vector<TimeNs> nodeTime(p_.nodes(), 0);
    for (std::uint32_t n = 0; n < p_.nodes(); ++n) {
      TimeNs t = 0;
      for (std::uint32_t i = p_.nodeBegin[n]; i < p_.nodeBegin[n + 1]; ++i)
        t = std::max(t, p_.measEnter[p_.nodeMembers[i]]);
      nodeTime[n] = t;
    }
    auto srcTime = [&](std::uint32_t s) { return s < p_.units ? p_.measEnter[s] : nodeTime[s - p_.units]; };
    p_.local0.assign(p_.units, 0);
    p_.wait0.assign(p_.units, 0);
    if (costs_ == CostMode::Model) p_.modelLocal.assign(p_.units, 0);
    for (std::uint32_t u = 0; u < p_.units; ++u) {
      const TimeNs E = p_.measEnter[u], X = p_.measLeave[u];
      TimeNs ready = E;
      for (std::uint32_t d = p_.depBegin[u]; d < p_.depBegin[u + 1]; ++d)
        if ((p_.depFlags0[d] & dep::kUse) == dep::kUse) ready = std::max(ready, satAdd(srcTime(p_.depSrc[d]), p_.depOff0[d]));
      if (ready > X) {  // the partner's time lies after this call returned: clock skew
        for (std::uint32_t d = p_.depBegin[u]; d < p_.depBegin[u + 1]; ++d) {
          const TimeNs t = srcTime(p_.depSrc[d]);
          if ((p_.depFlags0[d] & dep::kUse) == dep::kUse && satAdd(t, p_.depOff0[d]) > X) {
            p_.depOff0[d] = X - t;
            p_.depFlags0[d] |= dep::kSkewed;
            ++report_.skewedDependencies;
          }
        }
        ready = X;
      }
      const TimeNs wait = ready - E;
      p_.wait0[u] = wait;
      const TimeNs measuredLocal = X - E - wait;
      if (costs_ == CostMode::Measured || p_.isSentinel(u)) {
        p_.local0[u] = measuredLocal;
        continue;
      }
      const bool comm = p_.roleBegin[u + 1] > p_.roleBegin[u] || collectiveCost_[u] >= 0;
      if (!comm) {
        p_.local0[u] = measuredLocal;  // not communication: keeps its measured cost
        continue;
      }
      p_.modelLocal[u] = 1;
      TimeNs cost = std::max<TimeNs>(collectiveCost_[u], 0);
      for (std::uint32_t i = p_.roleBegin[u]; i < p_.roleBegin[u + 1]; ++i)
        cost = satAdd(cost, model_.roleCost(p_.roleKind[i], p_.messages[p_.roleMsg[i]].bytes));
      p_.local0[u] = cost;
    }
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
  const NetworkModel& model_;
  CostMode costs_;
  Replayer::Program& p_;
  ReplayReport& report_;
  std::vector<PendingDep> deps_;
  std::vector<PendingRole> roles_;
  std::vector<TimeNs> collectiveCost_;
  // schedule state
  std::vector<std::uint32_t> cursor_, depCursor_, blocked_, nodeMissing_;
  std::vector<std::uint8_t> queued_;
  std::vector<std::vector<std::uint32_t>> rankWaiters_, nodeWaiters_;
  std::deque<std::uint32_t> queue_;
};

}  // namespace

void buildReplayProgram(const Trace& trace, const NetworkModel& model, CostMode costs,
                        Replayer::Program& program, ReplayReport& report) {
  Builder(trace, model, costs, program, report).run();
}

}  // namespace perwiz
