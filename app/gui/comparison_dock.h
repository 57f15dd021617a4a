// The Comparison dock (issue #41): the trace shown (A), its prediction under the hypotheses (A′)
// and a second run (B) side by side — T, and per rank, per step, per function and per event
// the differences (docs/compare.md). A row takes the timeline to its place.
#pragma once

#include "comparison_result.h"

#include <QDockWidget>

#include <memory>

class QLabel;
class QPushButton;
class QSpinBox;
class QTabWidget;
class QTableWidget;

namespace perwiz::gui {

// Where a row points on the timeline: a time range of A (begin < end) and, for an event, the
// event (rank, event index of A).
struct ComparisonPlace {
  std::uint32_t rank = 0;
  std::uint32_t event = kNone32;
  TimeNs begin = 0, end = 0;
  std::uint32_t rankB = 0, eventB = kNone32;  // the event's partner in B
};

class ComparisonDock : public QDockWidget {
  Q_OBJECT

 public:
  explicit ComparisonDock(QWidget* parent = nullptr);

  void showLoading(const QString& pathB);
  void showResult(const std::shared_ptr<const ComparisonResult>& result);
  void showError(const QString& message);
  void clear();
  const std::shared_ptr<const ComparisonResult>& result() const { return result_; }

  // For tests.
  QTabWidget* tabs() const { return tabs_; }
  QTableWidget* rankTable() const { return ranks_; }
  QTableWidget* stepTable() const { return steps_; }
  QTableWidget* functionTable() const { return functions_; }
  QTableWidget* eventTable() const { return events_; }
  QLabel* summary() const { return summary_; }
  QPushButton* lineUpButton() const { return lineUp_; }
  QPushButton* startTogetherButton() const { return together_; }
  QSpinBox* markSpin() const { return mark_; }

 signals:
  void placeRequested(const perwiz::gui::ComparisonPlace& place);
  void compareRequested();  // "Compare With…" from the dock
  void endRequested();
  // B's view shifted by `shiftNs` against A's (B's time = A's time + shift): 0 = the runs start
  // together, else the selected event of A and its partner in B line up.
  void shiftRequested(perwiz::TimeNs shiftNs);
  // Mark the events whose duration changed by more than `ns` (< 0: the largest changes only).
  void markRequested(perwiz::TimeNs ns);

 private:
  void fill();
  // `t` emptied, with `headers` (and A′'s two columns with a prediction) and `rows` rows.
  void startTable(QTableWidget* t, QStringList headers, bool predicted, int rows);
  void fillRanks(bool predicted);
  void fillSteps(bool predicted);
  void fillFunctions(bool predicted);
  void fillEvents(bool predicted);
  void onCellClicked(QTableWidget* table, int row);

  std::shared_ptr<const ComparisonResult> result_;
  QLabel* summary_;
  QPushButton* compare_;
  QPushButton* end_;
  QPushButton* lineUp_;
  QPushButton* together_;
  QSpinBox* mark_;
  TimeNs selectedShift_ = 0;  // the selected event row's enter in B − in A
  QTabWidget* tabs_;
  QTableWidget* ranks_;
  QTableWidget* steps_;
  QTableWidget* functions_;
  QTableWidget* events_;
};

}  // namespace perwiz::gui

Q_DECLARE_METATYPE(perwiz::gui::ComparisonPlace)
