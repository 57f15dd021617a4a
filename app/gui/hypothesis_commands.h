// Undoable changes of the scenario's hypotheses: add, remove, enable, disable.
#pragma once

#include "scenario_document.h"

#include <QUndoCommand>

namespace perwiz::gui {

class AddHypothesisCommand : public QUndoCommand {
 public:
  AddHypothesisCommand(ScenarioDocument* doc, const Hypothesis& h);
  void redo() override;
  void undo() override;

 private:
  ScenarioDocument* doc_;
  Hypothesis h_;
};

class RemoveHypothesisCommand : public QUndoCommand {
 public:
  RemoveHypothesisCommand(ScenarioDocument* doc, const HypothesisEntry& entry);
  void redo() override;
  void undo() override;

 private:
  ScenarioDocument* doc_;
  HypothesisEntry entry_;
};

class SetHypothesisEnabledCommand : public QUndoCommand {
 public:
  SetHypothesisEnabledCommand(ScenarioDocument* doc, const Hypothesis& h, bool enabled);
  void redo() override;
  void undo() override;

 private:
  ScenarioDocument* doc_;
  Hypothesis h_;
  bool enabled_;
};

}  // namespace perwiz::gui
