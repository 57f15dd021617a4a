// One more hypothesis over shares, recomputing only what it changes (the distributed advisor's
// predictions: the step ranking's and the domino search's; the serial Replayer::predictWith).
//
// From the base's results every process recomputes its own units that the change reaches, in
// rounds: a unit is recomputed once its own process's sources are final (a rank blocked on
// another of its ranks waits for it); a ghost's or proxy's enter is taken as it stands and, when
// its owner sends a new one after a round, the units reading it are recomputed again (the DAG has
// no cycle: this ends). Each rank stops at its member of a usable cut (distributed_cuts.h) whose
// B_k holds every changed unit; once no process has anything left to recompute below its members
// and nothing was sent, T' = T + Δ if every member moved by the same Δ, else the next cut is tried
// (at the end: T' = the latest rank end). Everything is put back afterwards (a log of what was
// overwritten), so the replay holds the base's results again.
#pragma once

#include "distributed_cuts.h"
#include "distributed_sweep.h"

#include "perwiz/distributed.h"
#include "perwiz/internal/replay_program.h"
#include "perwiz/internal/wire.h"
#include "perwiz/process_group.h"
#include "perwiz/replay.h"

#include <cstdint>
#include <deque>
#include <optional>
#include <vector>

namespace perwiz {

class DistributedEvaluation {
 public:
  // `replayer` holds the base's results (a sweep of its scenario) and `t0` its T. A collective
  // operation (the cuts, the proxies' base values).
  DistributedEvaluation(Replayer& replayer, const Trace& trace, const SweepLinks& links, ProcessGroup& group,
                        TimeNs t0);
  // T after the constants of `touched` (this process's units, ascending: what
  // ReplayerAccess::changeWithoutReplay changed) changed. Every process calls it together.
  TimeNs evaluate(const std::vector<std::uint32_t>& touched);
  const EvaluationStats& stats() const { return stats_; }

 private:
  bool own(std::uint32_t u) const { return u >= U0_ && u < U1_; }
  TimeNs enterOf(std::uint32_t u) const;
  TimeNs srcValue(std::uint32_t s) const;
  bool dirty(std::uint32_t u) const { return (dirty_[(u - U0_) >> 6] >> ((u - U0_) & 63)) & 1; }
  std::uint32_t firstDirty(std::uint32_t i, std::uint32_t last);  // own rank i's, up to `last`; kNone32
  bool final(std::uint32_t s, std::uint32_t* blocker);
  void markDirty(std::uint32_t u);
  void markReaders(std::uint32_t x);
  void enterChanged(std::uint32_t u);
  void walk(std::uint32_t i);
  void setLimits(std::uint32_t k);
  bool round();
  bool uniformAtCut(TimeNs* delta);
  TimeNs latestEnd();
  void setLeave(std::uint32_t u, TimeNs t);
  void receive(std::uint32_t q, std::uint32_t index, TimeNs value);
  void restore();
  void buildReaders();
  void baseProxies();

  Replayer& rp_;
  const ReplayProgram& p_;
  const SweepLinks& links_;
  ProcessGroup& group_;
  const TimeNs t0_;
  SharedCuts cuts_;
  std::uint32_t rf_ = 0, rl_ = 0, U0_ = 0, U1_ = 0;
  // Readers of each local item (unit or U + node): the own units reading it, and for a unit the
  // nodes (U + n) holding it that an own unit reads.
  std::vector<std::uint32_t> readBegin_, readers_;
  std::vector<std::uint32_t> memberBegin_, members_;  // per proxy sent: its own members
  std::vector<std::uint32_t> proxyDestBegin_;         // per proxy sent: its range of links.proxyDests
  std::vector<std::vector<std::pair<std::uint32_t, std::uint32_t>>> proxySources_;  // per proxy-rank call
  std::vector<std::vector<TimeNs>> latest_;  // per process and import index: a proxy's latest as received
  // Per evaluation.
  std::optional<EffectiveProgram> v_;  // taken afresh each time (the hypothesis changed it)
  std::vector<std::uint64_t> dirty_, touched_;
  std::vector<std::uint32_t> marked_;      // units marked dirty (to clear)
  std::vector<std::uint32_t> lo_, limit_;  // per own rank: no dirty unit before lo_; walk up to limit_
  std::vector<TimeNs> before_;             // per own rank: its member's leave before (the cut's check)
  std::vector<std::uint8_t> queued_;
  std::vector<std::vector<std::uint32_t>> waiters_;
  std::deque<std::uint32_t> queue_;
  std::vector<std::pair<std::uint32_t, TimeNs>> leaveLog_;
  struct LatestLog {
    std::uint32_t q, index;
    TimeNs was;
  };
  std::vector<LatestLog> latestLog_;
  std::vector<wire::Writer> out_;
  std::uint64_t sent_ = 0, computedBefore_ = 0;
  std::uint32_t cut_ = 0;
  EvaluationStats stats_;
};

}  // namespace perwiz
