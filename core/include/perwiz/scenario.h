// What-if hypotheses and scenarios (paper §2.2, §3, §4 "F2").
//
// A scenario is a network model, a cost mode and a set of hypotheses. It has one canonical
// JSON form (hypotheses sorted, no duplicates), so equal scenarios give byte-identical files
// and a scenario saved from the GUI is the same one the CLI reads.
#pragma once

#include "perwiz/network_model.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace perwiz {

// A replayable event: an MPI call "RANK:INDEX" (INDEX counts the rank's MPI calls, as in
// `perwiz-cli events`) or the computation before MPI call INDEX, "RANK:cINDEX" (INDEX = the
// rank's call count names the computation after its last call).
struct EventRef {
  std::uint32_t rank = 0;
  std::uint32_t index = 0;
  bool computation = false;
  std::string toString() const;
  auto operator<=>(const EventRef&) const = default;
};
bool parseEventRef(const std::string& text, EventRef& out);

enum class HypothesisKind : std::uint8_t {
  ZeroWait,        // the event's waiting time becomes zero (its partner is in time)
  ZeroEvent,       // the event takes no time at all (Hollingsworth's CP zeroing)
  BalanceCompute,  // every rank's computation in parallel step k becomes the step mean
  BalanceVolume,   // every message in parallel step k gets the step's mean size
  Compensate,      // measurement-overhead compensation (Malony et al.; docs/compensation.md):
                   // every traced event's instrumentation overhead is removed, delays propagate
};
const char* hypothesisKindName(HypothesisKind k);  // "zero-wait", "zero-event", ...
bool parseHypothesisKind(const std::string& name, HypothesisKind& out);

// Compensate's overhead value meaning "the per-event overhead each rank's tracer recorded in
// the trace" instead of one value given by the user.
inline constexpr std::int64_t kOverheadFromTrace = -1;

struct Hypothesis {
  HypothesisKind kind = HypothesisKind::ZeroWait;
  EventRef event;          // ZeroWait, ZeroEvent
  std::uint32_t step = 0;  // BalanceCompute, BalanceVolume: 0-based parallel step index
  // Compensate: instrumentation overhead in ns per traced event (>= 0), or kOverheadFromTrace.
  std::int64_t overheadNs = 0;

  // Compensation hypotheses (for the GUI and the CLI): a fixed overhead per event, or the
  // overhead the tracer recorded per rank.
  static Hypothesis compensate(std::int64_t overheadNsPerEvent);
  static Hypothesis compensateFromTrace();

  // "zero-wait 1:5", "balance-compute step 3", "compensate 480 ns/event",
  // "compensate overhead recorded in the trace"
  std::string toString() const;
  bool targetsEvent() const { return kind == HypothesisKind::ZeroWait || kind == HypothesisKind::ZeroEvent; }
  bool targetsStep() const { return kind == HypothesisKind::BalanceCompute || kind == HypothesisKind::BalanceVolume; }
  bool overheadFromTrace() const { return kind == HypothesisKind::Compensate && overheadNs == kOverheadFromTrace; }
  // The same hypothesis with the fields its kind does not use zeroed, so that equal hypotheses
  // compare equal (a zero-wait carries no step, a balance no event, a compensation neither).
  Hypothesis canonical() const;
  auto operator<=>(const Hypothesis&) const = default;
};

enum class CostMode : std::uint8_t { Measured, Model };
const char* costModeName(CostMode m);  // "measured", "model"
bool parseCostMode(const std::string& name, CostMode& out);

struct Scenario {
  std::shared_ptr<const NetworkModel> model;  // nullptr = defaultNetworkModel()
  CostMode costs = CostMode::Measured;
  std::vector<Hypothesis> hypotheses;  // kept sorted and unique by normalize()
  // At most one Compensate per scenario (two would remove the overhead twice); scenarioFromJson
  // and Replayer refuse a second one.

  void normalize();
  // {"perwiz_scenario":1,"model":{...},"costs":"measured","hypotheses":[...]}, canonical.
  std::string toJson() const;
};

// "" if `hypotheses` hold at most one compensation, else the problem (names both).
std::string compensationConflict(const std::vector<Hypothesis>& hypotheses);

// Parses a scenario; on error returns false and sets *error to "<source>: <problem>".
bool scenarioFromJson(const std::string& json, const std::string& source, Scenario& out,
                      std::string* error);
bool loadScenario(const std::string& path, Scenario& out, std::string* error);

}  // namespace perwiz
