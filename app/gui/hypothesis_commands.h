// Undoable changes of the scenario: hypotheses added, removed, enabled, disabled; the network
// model and cost mode. With the trace, a hypothesis is named in words (the Edit menu's Undo).
#pragma once

#include "scenario_document.h"

#include "perwiz/trace.h"

#include <QUndoCommand>

namespace perwiz::gui {

class AddHypothesisCommand : public QUndoCommand {
 public:
  AddHypothesisCommand(ScenarioDocument* doc, const Hypothesis& h, const Trace* trace = nullptr);
  void redo() override;
  void undo() override;

 private:
  ScenarioDocument* doc_;
  Hypothesis h_;
};

class RemoveHypothesisCommand : public QUndoCommand {
 public:
  RemoveHypothesisCommand(ScenarioDocument* doc, const HypothesisEntry& entry, const Trace* trace = nullptr);
  void redo() override;
  void undo() override;

 private:
  ScenarioDocument* doc_;
  HypothesisEntry entry_;
};

class SetHypothesisEnabledCommand : public QUndoCommand {
 public:
  SetHypothesisEnabledCommand(ScenarioDocument* doc, const Hypothesis& h, bool enabled, const Trace* trace = nullptr);
  void redo() override;
  void undo() override;

 private:
  ScenarioDocument* doc_;
  Hypothesis h_;
  bool enabled_;
};

// The network model and the cost mode, as one step.
class SetNetworkCommand : public QUndoCommand {
 public:
  SetNetworkCommand(ScenarioDocument* doc, std::shared_ptr<const NetworkModel> model, CostMode costs);
  void redo() override;
  void undo() override;

 private:
  ScenarioDocument* doc_;
  std::shared_ptr<const NetworkModel> model_, oldModel_;
  CostMode costs_, oldCosts_;
};

}  // namespace perwiz::gui
