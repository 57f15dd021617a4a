// Predicted times as the views read them: immutable per-rank arrays, so that a new prediction
// shares the arrays of every rank it did not change with the one before (a toggle that moves
// a few ranks copies those ranks only). Plain data: no engine, no Qt.
#pragma once

#include "perwiz/scenario.h"
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
struct PredictedRank {
  std::vector<TimeNs> enter, leave;  // [event]
  std::vector<TimeNs> wait;          // [mpiIndex]
  TimeNs end = 0;                    // latest predicted leave of the rank
  // MPI call `index`, whose event is `event` (RankTrace::mpiCalls[index]).
  PredictedCall call(std::uint32_t index, std::uint32_t event) const { return {enter[event], leave[event], wait[index]}; }
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
