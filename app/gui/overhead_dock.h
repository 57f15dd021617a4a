// Statistical detection of communication overhead (Kluge et al.; core/overhead_detection.h) in
// the window: tables of the overhead by call site, by (function, p, b) class with its fit, by
// function and by rank; a histogram of the selected class's durations with the fitted
// distribution and t_max marked; and a switch that shows every call's overhead on the timeline.
// The analysis runs in the background, started by AnalysisSession on the dock's request
// (analysisRequested → runOverheadAnalysis → overheadAnalysed → setResult); the dock owns no
// statistics and no job of its own (everything drawn comes from the core's OverheadAnalysis).
#pragma once

#include "overhead_result.h"

#include "perwiz/overhead_detection.h"
#include "perwiz/scenario.h"

#include <QDockWidget>

#include <memory>
#include <optional>

class QCheckBox;
class QCustomPlot;
class QDoubleSpinBox;
class QLabel;
class QPushButton;
class QTabWidget;
class QTableWidget;
class QToolButton;

namespace perwiz::gui {

class OverheadDock : public QDockWidget {
  Q_OBJECT

 public:
  explicit OverheadDock(QWidget* parent = nullptr);
  ~OverheadDock() override;

  // A new trace: forgets the analysis (runs again when asked, or when the dock is shown).
  void setTrace(std::shared_ptr<const Trace> trace);
  // Asks for the analysis with the dock's quantile and profile (analysisRequested; a running
  // one is superseded), and shows "Analysing…" until setResult().
  void analyse();
  // The analysis of the dock's trace (another trace's is ignored).
  void setResult(const std::shared_ptr<const OverheadResult>& result);
  bool isRunning() const;
  // Loads an overhead profile (docs/overhead.md) used instead of per-trace fitting; false and
  // *error naming the file when it cannot be read. An empty path goes back to fitting.
  bool setProfileFile(const QString& path, QString* error = nullptr);

  std::shared_ptr<const OverheadAnalysis> analysis() const { return analysis_; }
  bool showOnTimeline() const;

  // Widgets, for tests.
  QDoubleSpinBox* quantileBox() const { return quantile_; }
  QCheckBox* timelineBox() const { return onTimeline_; }
  QTabWidget* tabs() const { return tabs_; }
  QTableWidget* siteTable() const { return sites_; }
  QTableWidget* classTable() const { return classes_; }
  QTableWidget* functionTable() const { return functions_; }
  QTableWidget* rankTable() const { return ranks_; }
  QCustomPlot* histogram() const { return plot_; }
  int histogramClass() const { return shownClass_; }  // class index in analysis()->classes, -1 none
  void showClass(int classIndex);

 signals:
  void analysisFinished();
  // The user asked for an analysis with these settings (profile null: fitted per trace).
  void analysisRequested(double quantile, std::shared_ptr<const perwiz::OverheadProfile> profile);
  // Show or clear the overhead strip on the timeline (the analysis is analysis()).
  void timelineShadingChanged(bool show);
  // Highlight these calls (the largest overheads of the selected row) on the timeline.
  void highlightRequested(const std::vector<perwiz::EventRef>& events, int step);

 protected:
  void showEvent(QShowEvent* event) override;

 private:
  void fillTables();
  void onRowSelected(QTableWidget* table);
  void showEmptyHistogram(const QString& text);
  // The calls with overhead that `keep(rank, class)` accepts, largest first (at most 200).
  template <class Keep>
  std::vector<EventRef> largestOverheads(Keep&& keep) const;

  QDoubleSpinBox* quantile_;
  QPushButton* profileButton_;
  QToolButton* clearProfile_;
  QLabel* profileLabel_;
  QPushButton* analyse_;
  QCheckBox* onTimeline_;
  QLabel* status_;
  QTabWidget* tabs_;
  QTableWidget* sites_;
  QTableWidget* classes_;
  QTableWidget* functions_;
  QTableWidget* ranks_;
  QCustomPlot* plot_;
  int shownClass_ = -1;

  std::shared_ptr<const Trace> trace_;
  std::shared_ptr<const OverheadProfile> profile_;
  QString profilePath_;
  std::shared_ptr<const OverheadAnalysis> analysis_;
  bool running_ = false;  // asked, no result yet
};

}  // namespace perwiz::gui
