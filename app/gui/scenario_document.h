// The window's scenario: network model, cost mode and hypotheses, each enabled or disabled
// (disabled = kept in the list but not applied). Kept in canonical (sorted) order. Changed only
// through QUndoCommands (hypothesis_commands.h) or wholesale (new trace, session).
#pragma once

#include "perwiz/scenario.h"

#include <QObject>

#include <memory>
#include <vector>

namespace perwiz::gui {

struct HypothesisEntry {
  Hypothesis hypothesis;
  bool enabled = true;
  bool operator==(const HypothesisEntry&) const = default;
};

// Two network models are the same when kind, name and parameters (their JSON) are.
bool sameNetworkModel(const NetworkModel& a, const NetworkModel& b);

class ScenarioDocument : public QObject {
  Q_OBJECT

 public:
  explicit ScenarioDocument(QObject* parent = nullptr);

  const std::vector<HypothesisEntry>& entries() const { return entries_; }
  const HypothesisEntry* find(const Hypothesis& h) const;
  bool add(const Hypothesis& h, bool enabled = true);  // false if present
  bool remove(const Hypothesis& h);                    // false if absent
  bool setEnabled(const Hypothesis& h, bool enabled);  // false if absent or unchanged
  void setEntries(std::vector<HypothesisEntry> entries);

  std::shared_ptr<const NetworkModel> model() const { return model_; }
  CostMode costs() const { return costs_; }
  void setModel(std::shared_ptr<const NetworkModel> model);
  void setCosts(CostMode costs);
  // Both at once, one changed() (null model: the default).
  void setNetwork(std::shared_ptr<const NetworkModel> model, CostMode costs);
  // The default model and measured local costs (a new trace starts from them).
  bool isDefaultNetwork() const;

  std::vector<Hypothesis> enabledHypotheses() const;
  std::vector<Hypothesis> disabledHypotheses() const;
  // Model, costs and hypotheses (all of them if includeDisabled).
  Scenario scenario(bool includeDisabled) const;

 signals:
  void changed();

 private:
  std::vector<HypothesisEntry> entries_;
  std::shared_ptr<const NetworkModel> model_;
  CostMode costs_ = CostMode::Measured;
};

}  // namespace perwiz::gui
