// Where each traced event's instrumentation overhead lies in the replay program (internal;
// docs/compensation.md §2).
//
// Every event costs its rank's overhead o per event, half per record as in the paper's TAU
// accounting ("completed calls plus half the entries on the call stack"): an interval event
// (MPI call, user state) o/2 at its enter record and o − o/2 at its leave record, a point event
// (a single record) o/2. A record's share is spent just after its timestamp, as the tracer's
// wrappers do (read the clock, then write the record). So a top-level MPI call's enter share
// lies inside the call and its leave share opens the computation gap after it; records between
// calls lie in the gap they fall in, records of events nested in a call inside that call.
#pragma once

#include "perwiz/internal/replay_program.h"

#include <cstdint>
#include <vector>

namespace perwiz {

struct OverheadCharges {
  std::vector<TimeNs> gap;    // per unit: overhead inside the computation gap before it
  std::vector<TimeNs> local;  // per unit: overhead inside the call (its enter share, nested events)
  std::vector<std::uint64_t> events;  // per rank: traced events (every kind)
  std::vector<TimeNs> leaveShare;     // per rank: a leave record's share (opens every gap but the first)

  // Records inside computation gaps, per rank in record order, to place user states and points
  // inside a compensated gap (mapTime). `after` is the gap's overhead up to and including this
  // record's share (with the share of the call that opened the gap); `offset` is the record's
  // compensated offset from the gap's start (non-decreasing within a gap).
  struct GapRecords {
    std::vector<std::uint32_t> unit;
    std::vector<TimeNs> time, after, offset;
  };
  std::vector<GapRecords> records;

  bool empty() const { return gap.empty(); }
};

// Charges of `trace` compiled into `program`, with `perRank[r]` ns per event on rank r.
OverheadCharges chargeOverhead(const Trace& trace, const ReplayProgram& program, const std::vector<TimeNs>& perRank);

// Compensated position of measured time `t` inside the gap before unit `v` of `rank`: returns
// the offset from the gap's start; *gapEnd is the offset of the gap's end (the call's enter).
// Both ignore other hypotheses: the caller scales them to the gap's predicted length.
TimeNs compensatedGapOffset(const OverheadCharges& charges, const ReplayProgram& program, std::uint32_t rank,
                            std::uint32_t v, TimeNs t, TimeNs* gapEnd);

}  // namespace perwiz
