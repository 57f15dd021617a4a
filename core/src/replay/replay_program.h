// The replay program: a measured trace compiled for fast forward sweeps (internal).
//
// A *unit* is a top-level MPI call of a rank (MPI calls nested inside another MPI call follow
// their parent) or the rank's end sentinel, whose gap is the computation after the last call.
// Units are numbered rank after rank; everything per unit lives in flat arrays so that a sweep
// touches memory in order. A dependency says "this unit cannot return before the source's
// predicted time plus an offset"; a source is a unit's enter time or a gather node (the latest
// enter of a collective's members). The schedule is a topological order of units and nodes
// that respects every dependency the replay may ever activate.
#pragma once

#include "perwiz/replay.h"

#include <algorithm>
#include <cstdint>
#include <mutex>
#include <span>
#include <vector>

namespace perwiz {

namespace dep {
inline constexpr std::uint8_t kActive = 1;     // the protocol makes this dependency real
inline constexpr std::uint8_t kScheduled = 2;  // the schedule respects it (not cut by a cycle)
inline constexpr std::uint8_t kSyncSend = 4;   // a rendezvous send's wait for its receiver
inline constexpr std::uint8_t kSkewed = 8;     // offset shortened to fit the measured times
inline constexpr std::uint8_t kLateRecv = 16;  // a receive completed by a later call (Wait/Test)
inline constexpr std::uint8_t kUse = kActive | kScheduled;
}  // namespace dep

// A point-to-point message (a matched pair) or an unmatched endpoint.
struct ReplayMessage {
  std::uint32_t step = kNone32;  // parallel step containing the send's post call
  std::uint32_t units[4] = {kNone32, kNone32, kNone32, kNone32};  // units whose costs use it
};

struct Replayer::Program {
  std::uint32_t ranks = 0;
  std::uint32_t units = 0;
  std::vector<std::uint32_t> rankBegin;  // size ranks+1; last unit of a rank = its sentinel
  std::vector<std::uint32_t> callOfUnit;  // MPI index of the unit's call, kNone32 = sentinel
  std::vector<std::vector<std::uint32_t>> unitOfCall;  // per rank: MPI index -> unit
  std::vector<std::vector<std::uint8_t>> nestedCall;   // per rank: MPI index is nested
  std::vector<TimeNs> measEnter, measLeave;  // per unit; sentinel: rank end
  std::vector<TimeNs> gap0;    // measured computation before the unit
  std::vector<TimeNs> local0;  // local cost in the program's cost mode
  // Measured waiting time: kept in cost mode "model" only; in "measured" the local cost is
  // what is left of the call beside it (local0 = leave − enter − wait), so it is derived.
  std::vector<TimeNs> wait0;
  TimeNs waitOf(std::uint32_t u) const { return wait0.empty() ? measLeave[u] - measEnter[u] - local0[u] : wait0[u]; }
  // Cost mode "model" only: 1 where local0 is the network model's price, not a measurement
  // (compensation leaves those alone: they hold no instrumentation). Empty in "measured".
  std::vector<std::uint8_t> modelLocal;

  // Dependencies, CSR by unit.
  std::vector<std::uint32_t> depBegin;  // size units+1
  std::vector<std::uint32_t> depSrc;    // < units: unit enter; else gather node units+n
  std::vector<TimeNs> depOff0;
  std::vector<std::uint8_t> depFlags0;
  std::vector<std::uint32_t> depMsg;    // message that prices the offset, kNone32 for nodes

  // Gather nodes (collective instances), CSR.
  std::vector<std::uint32_t> nodeBegin;
  std::vector<std::uint32_t> nodeMembers;

  // Topological schedule of units and nodes.
  std::vector<std::uint32_t> schedule;

  // For incremental updates only, built on first need (prepareIncremental(); thread-safe, so
  // forks that share the program may ask at once): who reads a source's time (CSR over
  // units+nodes -> units and nodes) and each item's position in the schedule.
  void prepareIncremental() const;
  mutable std::vector<std::uint32_t> consumerBegin;
  mutable std::vector<std::uint32_t> consumers;
  mutable std::vector<std::uint32_t> position;
  mutable std::once_flag incrementalOnce_;

  // Communication roles, CSR by unit (used when message sizes change).
  std::vector<std::uint32_t> roleBegin;
  std::vector<CommRole> roleKind;
  std::vector<std::uint32_t> roleMsg;
  std::vector<ReplayMessage> messages;
  std::vector<std::uint64_t> messageBytes;  // per message: its size (the effective sizes' base)

  std::uint32_t nodes() const { return static_cast<std::uint32_t>(nodeBegin.size()) - 1; }
  std::uint32_t items() const { return units + nodes(); }
  bool isSentinel(std::uint32_t u) const { return callOfUnit[u] == kNone32; }
  // The first unit of a rank follows the previous rank's end sentinel.
  bool isFirst(std::uint32_t u) const { return u == 0 || callOfUnit[u - 1] == kNone32; }
  // The rank of unit u (a binary search of rankBegin: the program keeps no rank per unit).
  std::uint32_t rankOf(std::uint32_t u) const {
    return static_cast<std::uint32_t>(std::upper_bound(rankBegin.begin(), rankBegin.end(), u) - rankBegin.begin()) - 1;
  }
};

struct Replayer::Effective {
  std::span<const TimeNs> gap;
  std::span<const TimeNs> local;
  std::span<const TimeNs> depOff;
  std::span<const std::uint8_t> depFlags;
  std::span<const std::uint8_t> noWait;
};

// Compiles `trace` for `model` in cost mode `costs`; fills `report`.
void buildReplayProgram(const Trace& trace, const NetworkModel& model, CostMode costs,
                        Replayer::Program& program, ReplayReport& report);

}  // namespace perwiz
