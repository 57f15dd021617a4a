#include "scenario_history.h"

#include <QCoreApplication>

namespace perwiz::gui {

void ScenarioHistory::syncStack(const QStringList& labels) {
  const int want = static_cast<int>(labels.size()) + 1;
  if (states_.isEmpty()) states_.push_back({QCoreApplication::translate("perwiz::gui::ScenarioHistory", "Start"), {}});
  // A state whose command text changed is a different state (the stack was cut and refilled).
  for (int i = 1; i < std::min<int>(want, static_cast<int>(states_.size())); ++i)
    if (states_[i].label != labels[i - 1]) {
      states_.resize(i);
      break;
    }
  if (states_.size() > want) states_.resize(want);
  while (states_.size() < want) states_.push_back({labels[states_.size() - 1], {}});
}

void ScenarioHistory::record(int index, TimeNs predicted) {
  if (index >= 0 && index < states_.size()) states_[index].predictedNs = predicted;
}

void ScenarioHistory::forgetValues() {
  for (auto& s : states_) s.predictedNs.reset();
}

}  // namespace perwiz::gui
