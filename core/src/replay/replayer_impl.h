// The state of a Replayer (replay.h) and the jobs that work on it, one file each:
//   replayer_hypotheses.cpp  hypotheses -> effective values (gaps, local costs, offsets, sizes)
//   replayer_sweep.cpp       the forward sweep, full and incremental (docs/model.md)
//   replayer_overflow.cpp    what passed the int64 range, in words
//   replayer.cpp             the public Replayer: construction, forks and the queries
// Private to perwiz_replay.
#pragma once

#include "perwiz/internal/overhead_charges.h"
#include "perwiz/internal/overlay.h"
#include "perwiz/internal/replay_program.h"
#include "perwiz/release.h"
#include "perwiz/replay.h"

#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace perwiz {

class CutWatch;

struct Replayer::Impl {
  const Trace& trace;
  Scenario scenario;
  // The compiled program is read-only after construction and shared by forks.
  std::shared_ptr<ReplayProgram> prog = std::make_shared<ReplayProgram>();
  ReplayProgram& p = *prog;
  ReplayReport report;
  UpdateStats stats;

  // Effective (scenario-applied) program values: the program's own until a hypothesis
  // changes one (overlay.h). noWait is read by every sweep and kept whole (1 byte per unit).
  ChunkedOverlay<TimeNs, SmallTimes> gap, local, depOff;
  Overlay<std::uint8_t> depFlags, zeroGap, zeroLocal;
  std::vector<std::uint64_t> noWait;  // a bit per unit (UnitBits)
  bool noWaitOf(std::uint32_t u) const { return (noWait[u >> 6] >> (u & 63)) & 1; }
  // From balance-compute hypotheses: a map of the units of the balanced steps while they are
  // few (a per-unit array costs 8 bytes per unit, and its first touch was most of a toggle at
  // 10^7 events); an array once they are many (balancing every step touches every unit).
  struct GapDelta {
    std::unordered_map<std::uint32_t, TimeNs> few;
    std::vector<TimeNs> many;
    TimeNs operator[](std::uint32_t u) const {
      if (!many.empty()) return many[u];
      const auto it = few.find(u);
      return it == few.end() ? 0 : it->second;
    }
    void set(std::uint32_t u, TimeNs v, std::uint32_t units) {
      if (!many.empty()) {
        many[u] = v;
        return;
      }
      if (v == 0) {
        few.erase(u);
        return;
      }
      few[u] = v;
      if (few.size() > units / 16 + 64) {  // a map entry costs ~40 bytes: switch to the array
        many.assign(units, 0);
        for (const auto& [k, x] : few) many[k] = x;
        releaseMemory(few);
      }
    }
    void clear() {
      releaseMemory(few);
      releaseMemory(many);
    }
  } gapDelta;
  TimeNs gapDeltaOf(std::uint32_t u) const { return gapDelta[u]; }
  // Balance-compute means given from outside (ReplayerAccess::setStepMean), by step.
  std::map<std::uint32_t, TimeNs> stepMean;
  // Balance-volume means given from outside (ReplayerAccess::setVolumeMean), by step.
  std::map<std::uint32_t, std::uint64_t> volumeMean;
  // A compensation's overhead from the trace given from outside (ReplayerAccess::setRecordedOverhead).
  std::vector<TimeNs> recordedOverhead;
  Overlay<std::uint64_t, SmallTimes> bytes;  // effective message sizes (base: messageBytes)
  // Overhead removed by a Compensate hypothesis; empty without one (docs/compensation.md).
  OverheadCharges charges;
  // Results: the predicted leave of every unit and the value of every gather node. A unit's
  // predicted enter is derived: its rank's previous leave plus its effective gap (enterOf).
  std::vector<TimeNs> leave, nodeVal;
  TimeNs predictedT = 0, measuredT = 0;
  std::vector<std::uint64_t> dirty;  // by schedule position
  // During construction (ReplayControl): the first full replay is the builder's last part.
  ReplayControl* control = nullptr;
  // An evaluation (Replayer::predictWith): the incremental sweep logs every result it
  // overwrites and stops at a clean cut without shifting; T comes from the cut's Δ.
  struct Evaluation {
    std::vector<std::pair<std::uint32_t, TimeNs>> log;  // item (unit, or units + node), old value
    std::size_t cap = 0;                                // beyond this many entries: an ordinary update (overflow)
    bool overflow = false;
    bool cut = false;  // stopped at a clean cut: frontier, end, delta below
    std::vector<std::uint32_t> frontier;
    std::uint32_t end = 0;
    TimeNs delta = 0;
  };
  Evaluation* evaluation = nullptr;
  void logItem(std::uint32_t item) {
    Evaluation& e = *evaluation;
    if (e.overflow) return;
    if (e.log.size() >= e.cap) {
      e.overflow = true;
      return;
    }
    e.log.emplace_back(item, item < p.units ? leave[item] : nodeVal[item - p.units]);
  }
  void restoreLog();

  Impl(const Trace& t, Scenario s) : trace(t), scenario(std::move(s)) {}

  const NetworkModel& model() const { return *scenario.model; }

  // ---- hypotheses -> effective values (replayer_hypotheses.cpp) ----
  std::uint32_t unitOf(const EventRef& e) const;
  std::string validate(const Hypothesis& h) const;
  std::vector<TimeNs> overheadOf(const Hypothesis& h) const;
  // Per-unit gap changes of balancing the computation of step k (docs/model.md).
  struct StepPart {
    std::uint32_t unit;
    TimeNs inside;  // computation of the unit's gap that lies inside the step's span
  };
  void stepParts(std::uint32_t k, std::vector<std::vector<StepPart>>& parts, std::vector<TimeNs>& total,
                 std::vector<std::uint8_t>& in, std::uint32_t& present) const;
  // The gaps of rank r's units from `first` (its first unit entered at or after sBegin) that
  // lie in the step span [sBegin, sEnd): part(u, computation of u's gap inside the span).
  template <class Part>
  void forStepGaps(std::uint32_t r, std::uint32_t first, TimeNs sBegin, TimeNs sEnd, Part&& part) const {
    bool any = false;
    for (std::uint32_t u = first; u < p.rankBegin[r + 1]; ++u) {
      const TimeNs prev = p.isFirst(u) ? 0 : p.measLeave.in(r, u - 1);
      if (prev >= sEnd && any) break;
      part(u, std::max<TimeNs>(0, std::min(p.measEnter.in(r, u), sEnd) - std::max(prev, sBegin)));
      any = true;
      if (prev >= sEnd) break;
    }
  }
  std::vector<std::pair<std::uint32_t, TimeNs>> computeBalance(std::uint32_t k) const;
  std::vector<std::uint32_t> stepMessages(std::uint32_t k) const;
  void applyVolume(std::uint32_t k, bool on, std::set<std::uint32_t>& touched);
  void refreshUnit(std::uint32_t u);
  void refreshNoWait(std::uint32_t u);
  std::set<std::uint32_t> apply(const Hypothesis& h, bool on);
  void resetEffective();
  void rebuildFromHypotheses();
  void refreshAll();
  void update(const Hypothesis& h, bool on);
  void unapply(const Hypothesis& h);  // the effective values without h, no replay

  // ---- the values the sweeps read ----
  template <class V>
  TimeNs enterWith(std::uint32_t u, const V& v) const {
    return p.isFirst(u) ? v.gap[u] : satAdd(leave[u - 1], v.gap[u]);
  }
  TimeNs enterOf(std::uint32_t u) const { return enterWith(u, values()); }
  template <class V>
  TimeNs srcValue(std::uint32_t s, const V& v) const {
    return s < p.units ? enterWith(s, v) : nodeVal[s - p.units];
  }
  // The effective values for the sweeps (readers of the overlays, taken once per sweep).
  struct Values {
    ChunkedOverlay<TimeNs, SmallTimes>::Reader gap, local, depOff;
    const std::uint8_t* depFlags;
  };
  Values values() const { return {gap.reader(), local.reader(), depOff.reader(), depFlags.data()}; }
  // The program's own values, read directly: no hypothesis changed a gap, a local cost or an
  // offset (every prediction without hypotheses, and zero-wait ones). One branch less per read.
  struct BaseValues {
    const SmallTimes &gap, &local, &depOff;
    const std::uint8_t* depFlags;
  };
  bool isLastOfRank(std::uint32_t u) const { return p.isSentinel(u); }  // a rank ends with its sentinel

  // ---- the sweeps (replayer_sweep.cpp) ----
  void sweep(std::size_t from, std::size_t to = kNone32);
  template <class V>
  void sweepWith(std::size_t from, std::size_t to, const V& v);
  template <class V>
  TimeNs computeLeave(std::uint32_t u, const V& v) const;
  template <class V>
  TimeNs computeNode(std::uint32_t n, const V& v) const;
  void checkControl(std::size_t position) const;
  void allRanksChanged();
  void full();
  void finishT();
  void markItem(std::uint32_t item);
  void markConsumers(std::uint32_t src);
  bool atCut(CutWatch& watch, std::uint32_t position, const Values& v);
  std::uint64_t denseFrom(std::size_t i, CutWatch& watch, const Values& v, bool* complete);
  void incremental(const std::set<std::uint32_t>& changed);

  // ---- overflow diagnosis (replayer_overflow.cpp) ----
  std::string callLabel(std::uint32_t u) const;
  std::string messageLabel(std::uint32_t m) const;
  std::string overflowAt(std::uint32_t u, bool gapOnly) const;
  std::string overflowProblem() const;
};

}  // namespace perwiz
