// The scenario's hypotheses as a checkable list: check = applied, unchecked = kept but not
// applied; Remove deletes the selected one. Changes are requested, not made: the window turns
// them into undo commands.
#pragma once

#include "scenario_document.h"

#include "perwiz/trace.h"

#include <memory>

#include <QDockWidget>

class QListWidget;
class QListWidgetItem;
class QPushButton;
class QLabel;

namespace perwiz::gui {

class HypothesisDock : public QDockWidget {
  Q_OBJECT

 public:
  explicit HypothesisDock(QWidget* parent = nullptr);

  // The document's hypotheses, named in words with what they refer to in `trace` (may be null).
  void showDocument(const ScenarioDocument& doc, std::shared_ptr<const Trace> trace = nullptr);
  // Hypotheses the replayer refused (shown in red with the reason as tooltip).
  void setRejected(const std::vector<Hypothesis>& rejected, const QStringList& reasons);
  // Hypotheses whose change the shown prediction does not include yet: marked "pending".
  void setPending(const std::vector<Hypothesis>& pending);
  QListWidget* list() const { return list_; }

 signals:
  void enableRequested(const perwiz::Hypothesis& h, bool enabled);
  void removeRequested(const perwiz::Hypothesis& h);
  void activated(const perwiz::Hypothesis& h);  // double click: show it in the timeline

 private:
  void onItemChanged(QListWidgetItem* item);
  void updateButtons();

  QListWidget* list_;
  QPushButton* remove_;
  QLabel* empty_;
  std::vector<Hypothesis> shown_;
  std::shared_ptr<const Trace> trace_;
};

}  // namespace perwiz::gui
