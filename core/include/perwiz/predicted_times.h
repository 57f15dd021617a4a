// Predicted times as the views read them: immutable per-rank arrays, so that a new prediction
// shares the arrays of every rank it did not change with the one before (a toggle that moves
// a few ranks copies those ranks only). Plain data: no engine, no Qt.
#pragma once

#include "perwiz/scenario.h"
#include "perwiz/time_column.h"
#include "perwiz/trace.h"

#include <memory>
#include <string>
#include <vector>

namespace perwiz {

struct PredictedCall {
  TimeNs enter = 0;
  TimeNs leave = 0;
  TimeNs wait = 0;  // predicted waiting time inside the call
};

// One rank's prediction: predicted enter and leave of every event (the measured trace's
// indices) and the predicted wait of every MPI call ("RANK:INDEX"; its enter and leave are its
// event's: call()).
//
// A prediction that moved the rank by a uniform shift past a cut (Replayer::predictedRankShifted)
// shares the earlier prediction's arrays instead of copying them: it owns the values of its
// first events and calls, and reads the others from `tail` plus `tailShift` (waits unshifted).
// A tail owns all its values (no tail of its own), so a read is one comparison away from a
// column. A rank without a tail owns every value.
//
// Values are kept in compact columns (TimeColumn: about 4 B per value instead of 8; at 10^8
// events a prediction's times take 1.2 GB instead of 2.2 GB). They are written in index order
// (push_back), so a column reused after clear() keeps its capacity and its touched pages.
struct PredictedRank {
  TimeColumn ownEnter, ownLeave;  // events [0, ownEnter.size())
  TimeColumn ownWait;             // calls [0, ownWait.size())
  std::shared_ptr<const PredictedRank> tail;
  TimeNs tailShift = 0;
  TimeNs end = 0;  // latest predicted leave of the rank
  // Of a rank without a tail: the latest leave of each block of kMaxBlock events
  // (maxLeaveFrom), filled by Replayer::predictedRank.
  static constexpr std::uint32_t kMaxBlock = 4096;
  std::vector<TimeNs> blockMaxLeave;

  std::size_t events() const { return tail ? tail->ownEnter.size() : ownEnter.size(); }
  std::size_t calls() const { return tail ? tail->ownWait.size() : ownWait.size(); }
  TimeNs enter(std::size_t e) const { return e < ownEnter.size() ? ownEnter[e] : tail->ownEnter[e] + tailShift; }
  TimeNs leave(std::size_t e) const { return e < ownLeave.size() ? ownLeave[e] : tail->ownLeave[e] + tailShift; }
  TimeNs wait(std::size_t call) const { return call < ownWait.size() ? ownWait[call] : tail->ownWait[call]; }
  // MPI call `index`, whose event is `event` (RankTrace::mpiCalls[index]).
  PredictedCall call(std::uint32_t index, std::uint32_t event) const {
    return {enter(event), leave(event), wait(index)};
  }
  // The latest leave of events [from, events()); numeric_limits::min() if none.
  TimeNs maxLeaveFrom(std::size_t from) const;
  // Copies of every value (for tests and tools).
  std::vector<TimeNs> enters() const;
  std::vector<TimeNs> leaves() const;
  std::vector<TimeNs> waits() const;
  // Fills blockMaxLeave from ownLeave (a rank without a tail).
  void indexLeaves();
  // Empties the columns and gives them room for `events` events and `calls` calls, the pages
  // touched (a spare whose next fill runs without page faults).
  void prepare(std::size_t events, std::size_t calls);
};

struct PredictedTimes {
  std::vector<std::shared_ptr<const PredictedRank>> ranks;  // [rank], never null
  TimeNs end = 0;                                           // latest predicted leave
};

// The checks of Replayer::validate without a replayer: `nested` is Replayer::nestedCalls() of
// a replayer of `trace` (a prediction snapshot carries it), `applied` the hypotheses already in
// the scenario. For callers that hold a snapshot rather than the live engine (the GUI). ""
// if valid.
std::string validateHypothesis(const Trace& trace, const std::vector<std::vector<std::uint32_t>>& nested,
                               const Hypothesis& h, const std::vector<Hypothesis>& applied);

}  // namespace perwiz
