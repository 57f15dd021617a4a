// The predicted T of every state of the hypothesis set, for the history chart: state i is the
// undo stack after i commands (state 0 = the measured trace with the model and cost mode as
// set). Values are recorded as predictions arrive; states past the stack's end are dropped
// when the stack is cut (undo then a new change), and every value is forgotten when the model
// or cost mode changes (the states mean something else then).
#pragma once

#include "perwiz/network_model.h"

#include <QString>
#include <QVector>

#include <optional>

namespace perwiz::gui {

class ScenarioHistory {
 public:
  struct State {
    QString label;
    std::optional<TimeNs> predictedNs;
  };

  // The undo stack has `count` commands; `labels[i]` is the text of command i.
  void syncStack(const QStringList& labels);
  void record(int index, TimeNs predicted);
  void forgetValues();
  void clear() { states_.clear(); }
  const QVector<State>& states() const { return states_; }

 private:
  QVector<State> states_;  // [0] = no command
};

}  // namespace perwiz::gui
