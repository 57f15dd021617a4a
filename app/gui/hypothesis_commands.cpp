#include "hypothesis_commands.h"

#include "units.h"

#include <QCoreApplication>

namespace perwiz::gui {

AddHypothesisCommand::AddHypothesisCommand(ScenarioDocument* doc, const Hypothesis& h, const Trace* trace)
    : doc_(doc), h_(h) {
  setText(QCoreApplication::translate("HypothesisCommands", "Add %1").arg(hypothesisText(h, trace)));
}
void AddHypothesisCommand::redo() { doc_->add(h_, true); }
void AddHypothesisCommand::undo() { doc_->remove(h_); }

RemoveHypothesisCommand::RemoveHypothesisCommand(ScenarioDocument* doc, const HypothesisEntry& entry,
                                                 const Trace* trace)
    : doc_(doc), entry_(entry) {
  setText(QCoreApplication::translate("HypothesisCommands", "Remove %1").arg(hypothesisText(entry.hypothesis, trace)));
}
void RemoveHypothesisCommand::redo() { doc_->remove(entry_.hypothesis); }
void RemoveHypothesisCommand::undo() { doc_->add(entry_.hypothesis, entry_.enabled); }

SetHypothesisEnabledCommand::SetHypothesisEnabledCommand(ScenarioDocument* doc, const Hypothesis& h, bool enabled,
                                                         const Trace* trace)
    : doc_(doc), h_(h), enabled_(enabled) {
  setText(enabled ? QCoreApplication::translate("HypothesisCommands", "Enable %1").arg(hypothesisText(h, trace))
                  : QCoreApplication::translate("HypothesisCommands", "Disable %1").arg(hypothesisText(h, trace)));
}
void SetHypothesisEnabledCommand::redo() { doc_->setEnabled(h_, enabled_); }
void SetHypothesisEnabledCommand::undo() { doc_->setEnabled(h_, !enabled_); }

SetNetworkCommand::SetNetworkCommand(ScenarioDocument* doc, std::shared_ptr<const NetworkModel> model, CostMode costs)
    : doc_(doc), model_(std::move(model)), oldModel_(doc->model()), costs_(costs), oldCosts_(doc->costs()) {
  setText(QCoreApplication::translate("HypothesisCommands", "Network %1").arg(describeNetwork(model_.get(), costs_)));
}
void SetNetworkCommand::redo() { doc_->setNetwork(model_, costs_); }
void SetNetworkCommand::undo() { doc_->setNetwork(oldModel_, oldCosts_); }

}  // namespace perwiz::gui
