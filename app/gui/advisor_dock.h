// The advisor's answers as tables: domino paths (paper Fig. 3/4), the candidate ranking with the
// longest-wait choice, the parallel-step table and the lower bounds per region (Table 1).
// Selecting a row asks the window to highlight its events or step; Apply asks it to add the
// row's hypotheses. The dock only shows and requests: the window owns the runner and the undo.
#pragma once

#include "advisor_runner.h"

#include <QDockWidget>

class QLabel;
class QProgressBar;
class QPushButton;
class QTabWidget;
class QTableWidget;
class QTreeWidget;

namespace perwiz::gui {

class AdvisorDock : public QDockWidget {
  Q_OBJECT

 public:
  explicit AdvisorDock(QWidget* parent = nullptr);

  void showOutcome(const std::shared_ptr<const AdvisorOutcome>& outcome);
  void setRunning(bool running);
  void setProgress(double fraction, const QString& stage);
  // The scenario changed since the shown results were computed.
  void setStale(bool stale);
  void clear();

  // Widgets, for tests.
  QTabWidget* tabs() const { return tabs_; }
  QTreeWidget* dominoTree() const { return domino_; }
  QTableWidget* candidateTable() const { return candidates_; }
  QTableWidget* stepTable() const { return steps_; }
  QTableWidget* boundsTable() const { return bounds_; }
  QPushButton* runButton() const { return run_; }
  QPushButton* applyButton() const { return apply_; }
  std::shared_ptr<const AdvisorOutcome> outcome() const { return outcome_; }
  // The hypotheses Apply would add for the current selection.
  std::vector<Hypothesis> selectedHypotheses() const;

 signals:
  void runRequested();
  void cancelRequested();
  // Highlight these MPI calls (rank, MPI index) and/or a step (-1: none) on the timeline.
  void highlightRequested(const std::vector<perwiz::EventRef>& events, int step);
  void applyRequested(const std::vector<perwiz::Hypothesis>& hypotheses);

 private:
  void fillDomino();
  void fillCandidates();
  void fillSteps();
  void fillBounds();
  void onSelectionChanged();
  QString eventLabel(const EventRef& e) const;

  QTabWidget* tabs_;
  QTreeWidget* domino_;
  QLabel* dominoSummary_;
  QTableWidget* candidates_;
  QLabel* longestWait_;
  QTableWidget* steps_;
  QLabel* stepsSummary_;
  QTableWidget* bounds_;
  QPushButton* run_;
  QPushButton* cancel_;
  QPushButton* apply_;
  QProgressBar* progress_;
  QLabel* status_;
  std::shared_ptr<const AdvisorOutcome> outcome_;
  bool stale_ = false;
};

}  // namespace perwiz::gui

Q_DECLARE_METATYPE(std::vector<perwiz::EventRef>)
Q_DECLARE_METATYPE(std::vector<perwiz::Hypothesis>)
