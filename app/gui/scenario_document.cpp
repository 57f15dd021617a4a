#include "scenario_document.h"

#include <algorithm>

namespace perwiz::gui {

namespace {
bool byHypothesis(const HypothesisEntry& a, const HypothesisEntry& b) { return a.hypothesis < b.hypothesis; }
}  // namespace

ScenarioDocument::ScenarioDocument(QObject* parent)
    : QObject(parent), model_(defaultNetworkModel()) {}

const HypothesisEntry* ScenarioDocument::find(const Hypothesis& h) const {
  auto it = std::find_if(entries_.begin(), entries_.end(), [&](const auto& e) { return e.hypothesis == h; });
  return it == entries_.end() ? nullptr : &*it;
}

bool ScenarioDocument::add(const Hypothesis& h, bool enabled) {
  if (find(h)) return false;
  HypothesisEntry e{h, enabled};
  entries_.insert(std::upper_bound(entries_.begin(), entries_.end(), e, byHypothesis), e);
  emit changed();
  return true;
}

bool ScenarioDocument::remove(const Hypothesis& h) {
  auto it = std::find_if(entries_.begin(), entries_.end(), [&](const auto& e) { return e.hypothesis == h; });
  if (it == entries_.end()) return false;
  entries_.erase(it);
  emit changed();
  return true;
}

bool ScenarioDocument::setEnabled(const Hypothesis& h, bool enabled) {
  auto it = std::find_if(entries_.begin(), entries_.end(), [&](const auto& e) { return e.hypothesis == h; });
  if (it == entries_.end() || it->enabled == enabled) return false;
  it->enabled = enabled;
  emit changed();
  return true;
}

void ScenarioDocument::setEntries(std::vector<HypothesisEntry> entries) {
  std::sort(entries.begin(), entries.end(), byHypothesis);
  entries.erase(std::unique(entries.begin(), entries.end(),
                            [](const auto& a, const auto& b) { return a.hypothesis == b.hypothesis; }),
                entries.end());
  entries_ = std::move(entries);
  emit changed();
}

void ScenarioDocument::setModel(std::shared_ptr<const NetworkModel> model) {
  model_ = model ? std::move(model) : std::shared_ptr<const NetworkModel>(defaultNetworkModel());
  emit changed();
}

void ScenarioDocument::setCosts(CostMode costs) {
  if (costs_ == costs) return;
  costs_ = costs;
  emit changed();
}

void ScenarioDocument::setNetwork(std::shared_ptr<const NetworkModel> model, CostMode costs) {
  model_ = model ? std::move(model) : std::shared_ptr<const NetworkModel>(defaultNetworkModel());
  costs_ = costs;
  emit changed();
}

bool sameNetworkModel(const NetworkModel& a, const NetworkModel& b) {
  return a.kind() == b.kind() && a.name() == b.name() && a.toJson() == b.toJson();
}

bool ScenarioDocument::isDefaultNetwork() const {
  return costs_ == CostMode::Measured && (!model_ || sameNetworkModel(*model_, *defaultNetworkModel()));
}

std::vector<Hypothesis> ScenarioDocument::enabledHypotheses() const {
  std::vector<Hypothesis> out;
  for (const auto& e : entries_)
    if (e.enabled) out.push_back(e.hypothesis);
  return out;
}

std::vector<Hypothesis> ScenarioDocument::disabledHypotheses() const {
  std::vector<Hypothesis> out;
  for (const auto& e : entries_)
    if (!e.enabled) out.push_back(e.hypothesis);
  return out;
}

Scenario ScenarioDocument::scenario(bool includeDisabled) const {
  Scenario s;
  s.model = model_;
  s.costs = costs_;
  for (const auto& e : entries_)
    if (includeDisabled || e.enabled) s.hypotheses.push_back(e.hypothesis);
  s.normalize();
  return s;
}

}  // namespace perwiz::gui
