// The PerWiz main window: the timeline in the middle, the docks around it, menus and the status
// bar. The model side (trace, scenario, undo, loading, prediction, advisor) is the
// AnalysisSession's; the window lays out views, turns actions into requests to the session and
// shows what it answers. Actions and menus: main_window_actions.cpp; file dialogs, export and
// recent files: main_window_files.cpp.
#pragma once

#include "export_image.h"

#include "perwiz/scenario.h"
#include "perwiz/widgets/timeline_view.h"

#include <QMainWindow>

#include <optional>

class QAction;
class QActionGroup;
class QLabel;
class QMenu;
class QProgressBar;
class QToolButton;
class QUndoStack;

namespace perwiz::gui {

class AnalysisSession;
struct PredictionResult;
struct SessionView;
class AdvisorDock;
class ChartsDock;
class ComparisonDock;
struct ComparisonPlace;
struct ComparisonResult;
class OverheadDock;
class AdvisorRunner;
struct AdvisorOutcome;
class HypothesisDock;
class InspectorDock;
class WarningsDock;

class MainWindow : public QMainWindow {
  Q_OBJECT

 public:
  explicit MainWindow(QWidget* parent = nullptr);
  ~MainWindow() override;

  // Starts a background load (a running one is cancelled).
  void openTrace(const QString& path);
  void openSession(const QString& path);
  bool saveSessionTo(const QString& path, QString* error = nullptr);

  // For tests and scripting.
  AnalysisSession* session() const { return session_; }
  ui::TimelineView* timeline() const { return timeline_; }
  TimeNs predictedTimeShown() const;  // -1 if none
  TimeNs measuredTimeShown() const;   // -1 if none
  QString summaryText() const;
  QString lastError() const { return lastError_; }
  // Turns a request (keys, buttons, menus) into an undoable change; false + reason if refused.
  bool requestHypothesis(HypothesisKind kind, const ui::TimelineItem& item, QString* why = nullptr);
  bool requestZeroComputation(const ui::TimelineItem& item, QString* why = nullptr);
  // Measurement-overhead compensation (ns per traced event, or kOverheadFromTrace); replaces an
  // applied compensation of another value in one undoable change.
  bool requestCompensation(std::int64_t overheadNsPerEvent, QString* why = nullptr);
  void compensationDialog();
  // Opens the network model dialog / region picker (modal).
  void editNetworkModel();
  void chooseParallelRegion();
  // The advisor: runs in the background on the current scenario (waits for a pending prediction).
  void runAdvisor();
  AdvisorDock* advisorDock() const { return advisorDock_; }
  ChartsDock* chartsDock() const { return chartsDock_; }
  OverheadDock* overheadDock() const { return overheadDock_; }
  ComparisonDock* comparisonDock() const { return comparisonDock_; }
  // The second run's timeline under the first (hidden without a comparison): one time axis, one zoom.
  ui::TimelineView* timelineB() const { return timelineB_; }
  // What File > Export Image renders: the timeline with `options`, and with a comparison shown
  // the second run's under it (headers naming both runs, the hypotheses, T of A, A′ and B).
  std::vector<ExportPart> exportParts(ui::TimelineExportOptions options, bool header) const;
  // Compares the trace shown with a second run (issue #41): the Comparison dock shows it.
  void compareWith(const QString& path);

 signals:
  void traceLoaded();
  void loadFailed(const QString& message);
  void predictionUpdated();
  void advisorUpdated();

 protected:
  void dragEnterEvent(QDragEnterEvent* event) override;
  void dropEvent(QDropEvent* event) override;
  void closeEvent(QCloseEvent* event) override;

 private:
  void createActions();
  void createMenus();
  void createStatusBar();
  void connectParts();
  void connectLoading();
  void connectPrediction();
  void connectJobs();
  void connectViews();
  void onTraceLoaded();
  void updateTitle();
  void updateRecentMenu();
  void addRecent(const QString& path);

  void onTraceChanged(const std::shared_ptr<const Trace>& trace, bool newFile);
  void onPrediction(const std::shared_ptr<const PredictionResult>& result);
  void onFramePainted();  // completes the status line with the wait to the final frame
  void onSelection(const ui::TimelineItem& item);
  void onDocumentChanged();
  void onSessionView(const SessionView& view);
  void showContextMenu(const ui::TimelineItem& item, const QPoint& globalPos);
  void showError(const QString& title, const QString& message);
  void setMode(ui::TimelineMode mode);
  // A view chosen by the user; a comparison view (not Measured) is remembered (QSettings).
  void chooseMode(ui::TimelineMode mode);
  // The view the first hypothesis switches to: the remembered comparison view, else Lanes.
  static ui::TimelineMode comparisonMode();
  void onAdvisorOutcome(const std::shared_ptr<const AdvisorOutcome>& outcome);
  void highlightAdvice(const std::vector<EventRef>& events, int step);
  void updateHistoryChart();
  void showStep(int step);

  // Asks before unsaved hypotheses would be dropped (Save / Discard / Cancel); true to go on.
  bool mayDropChanges();
  void openDialog();
  void openSessionDialog();
  void compareDialog();
  void createCompareAction();
  void connectComparison();
  void goToPlace(const ComparisonPlace& place);
  void showComparison(const std::shared_ptr<const ComparisonResult>& result);
  void endComparisonView();
  void shiftB(TimeNs shiftNs);
  void saveSession();
  void saveSessionAs();
  void saveAndReport(const QString& path);  // saves, then the error or "Saved" in the status bar
  void exportImageDialog();
  void exportPredictedTraceDialog();
  void report(const QString& why);  // a refused request: its reason in the status bar

  AnalysisSession* session_;
  ui::TimelineView* timeline_;
  InspectorDock* inspector_;
  HypothesisDock* hypotheses_;
  WarningsDock* warningsDock_;
  AdvisorDock* advisorDock_;
  ChartsDock* chartsDock_;
  OverheadDock* overheadDock_;
  ComparisonDock* comparisonDock_;
  ui::TimelineView* timelineB_;
  QWidget* timelineBox_;  // timelineB_ under its label
  QLabel* runLabelA_;
  QLabel* runLabelB_;
  bool syncingRange_ = false;  // one view follows the other's range (no echo back)
  TimeNs shiftB_ = 0;          // B's view shows A's range shifted by this (ComparisonDock::shiftRequested)
  QString lastError_;
  // The steps' σ the charts show: they come from the measured trace, the same in every
  // prediction of it (the chart of thousands of bars is drawn once, not on every toggle).
  std::shared_ptr<const std::vector<double>> shownSigmas_;

  // Actions.
  QAction* openAct_;
  QAction* openSessionAct_;
  QAction* compareAct_;
  QAction* saveSessionAct_;
  QAction* saveSessionAsAct_;
  QAction* exportImageAct_;
  QAction* exportTraceAct_;
  QAction* quitAct_;
  QAction* undoAct_;
  QAction* redoAct_;
  QActionGroup* modeGroup_;
  QAction* modeActs_[4];
  QAction* fitAct_;
  QAction* zeroWaitAct_;
  QAction* zeroEventAct_;
  QAction* zeroComputationAct_;
  QAction* balanceComputeAct_;
  QAction* balanceVolumeAct_;
  QAction* compensateAct_;
  QAction* runAdvisorAct_;
  QAction* networkModelAct_;
  QAction* regionAct_;
  QActionGroup* modelGroup_;
  QActionGroup* costGroup_;
  QMenu* fileMenu_;
  QMenu* recentMenu_;
  QMenu* editMenu_;
  QMenu* viewMenu_;
  QMenu* predictionMenu_;
  QMenu* helpMenu_;

  // Status bar. The line's text is also its tooltip: at the default window size the permanent
  // widgets beside it leave too little room for the longer lines (a toggle's timing).
  QLabel* statusText_;
  void setStatusText(const QString& text);
  QToolButton* networkButton_;
  // The last current prediction shown: T and its hypotheses (a change that keeps T is explained).
  TimeNs lastPredicted_ = -1;
  // The status line of the latest result, completed with the wait from the change to its
  // final frame once the timeline painted it (onFramePainted).
  QString resultStatus_;
  bool awaitingFinalFrame_ = false;
  bool compareOnResult_ = false;  // a first hypothesis: the comparison view comes with its result
  std::vector<Hypothesis> lastApplied_;
  std::size_t shownEntries_ = 0;  // hypotheses in the list the last time it was shown
  QProgressBar* progress_;
  QToolButton* cancelButton_;
  QToolButton* warningsButton_;
  QLabel* summary_;
};

}  // namespace perwiz::gui
