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
};
const char* hypothesisKindName(HypothesisKind k);  // "zero-wait", "zero-event", ...
bool parseHypothesisKind(const std::string& name, HypothesisKind& out);

struct Hypothesis {
  HypothesisKind kind = HypothesisKind::ZeroWait;
  EventRef event;          // ZeroWait, ZeroEvent
  std::uint32_t step = 0;  // BalanceCompute, BalanceVolume: 0-based parallel step index
  std::string toString() const;  // "zero-wait 1:5", "balance-compute step 3"
  bool targetsEvent() const { return kind == HypothesisKind::ZeroWait || kind == HypothesisKind::ZeroEvent; }
  // The same hypothesis with the field its kind does not use zeroed, so that equal hypotheses
  // compare equal (a zero-wait carries no step, a balance no event).
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

  void normalize();
  // {"perwiz_scenario":1,"model":{...},"costs":"measured","hypotheses":[...]}, canonical.
  std::string toJson() const;
};

// Parses a scenario; on error returns false and sets *error to "<source>: <problem>".
bool scenarioFromJson(const std::string& json, const std::string& source, Scenario& out,
                      std::string* error);
bool loadScenario(const std::string& path, Scenario& out, std::string* error);

}  // namespace perwiz
