// The PerWiz main window: the timeline in the middle, inspector, hypotheses and warnings
// docks, background loading and background re-simulation, undo, sessions and export.
#pragma once

#include "prediction_worker.h"
#include "scenario_document.h"
#include "scenario_history.h"
#include "session_file.h"
#include "trace_loader.h"

#include "perwiz/widgets/timeline_view.h"

#include <QMainWindow>

#include <optional>

class QAction;
class QActionGroup;
class QLabel;
class QMenu;
class QProgressBar;
class QThread;
class QToolButton;
class QUndoStack;

namespace perwiz::gui {

class AdvisorDock;
class ChartsDock;
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
  ui::TimelineView* timeline() const { return timeline_; }
  const Trace* trace() const { return trace_.get(); }
  ScenarioDocument* document() const { return doc_; }
  QUndoStack* undoStack() const { return undo_; }
  bool isLoading() const;
  // The shown prediction belongs to the latest scenario change (no re-simulation pending).
  bool isPredictionCurrent() const;
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
  // Adds several hypotheses as one undoable change (the advisor's Apply); returns how many
  // were added, and the reasons for those refused.
  int applyHypotheses(const std::vector<Hypothesis>& hs, QStringList* refused = nullptr);
  // Recomputes the parallel steps with `name` as the region (a trace without PRGN markers);
  // hypotheses are kept, those that no longer fit are shown as refused.
  bool setParallelRegion(const QString& name, QString* error = nullptr);
  QString parallelRegion() const { return region_; }
  // Opens the network model dialog / region picker (modal).
  void editNetworkModel();
  void chooseParallelRegion();
  // The advisor: runs in the background on the current scenario (waits for a pending prediction).
  void runAdvisor();
  AdvisorDock* advisorDock() const { return advisorDock_; }
  ChartsDock* chartsDock() const { return chartsDock_; }
  OverheadDock* overheadDock() const { return overheadDock_; }
  const ScenarioHistory& scenarioHistory() const { return history_; }
  AdvisorRunner* advisorRunner() const { return advisor_; }

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
  void updateTitle();
  void updateRecentMenu();
  void addRecent(const QString& path);

  void onLoadFinished(const LoadResult& result);
  void onPrediction(const std::shared_ptr<const PredictionResult>& result);
  void onSelection(const ui::TimelineItem& item);
  void onDocumentChanged();
  void requestPrediction();
  bool pushHypothesis(const Hypothesis& h, QString* why);
  QString refusalFor(const Hypothesis& h) const;  // "" if h can be applied now
  void showContextMenu(const ui::TimelineItem& item, const QPoint& globalPos);
  void showError(const QString& title, const QString& message);
  void setMode(ui::TimelineMode mode);
  void onAdvisorOutcome(const std::shared_ptr<const AdvisorOutcome>& outcome);
  void highlightAdvice(const std::vector<EventRef>& events, int step);
  void updateHistoryChart();
  void showStep(int step);

  void openDialog();
  void openSessionDialog();
  void saveSession();
  void saveSessionAs();
  void exportImageDialog();
  void exportPredictedTraceDialog();
  void applySession(const SessionData& session);

  ui::TimelineView* timeline_;
  InspectorDock* inspector_;
  HypothesisDock* hypotheses_;
  WarningsDock* warningsDock_;
  AdvisorDock* advisorDock_;
  ChartsDock* chartsDock_;
  OverheadDock* overheadDock_;
  ScenarioHistory history_;
  std::shared_ptr<const NetworkModel> historyModel_;
  CostMode historyCosts_ = CostMode::Measured;
  AdvisorRunner* advisor_;
  bool advisorPending_ = false;  // run as soon as the prediction is current
  ScenarioDocument* doc_;
  QUndoStack* undo_;
  TraceLoader* loader_;
  QThread* workerThread_;
  PredictionWorker* worker_;

  std::shared_ptr<const Trace> trace_;
  QString tracePath_;
  QString region_;  // chosen parallel region ("" = the trace's own PRGN markers)
  QString sessionPath_;
  std::optional<SessionData> pendingSession_;  // applied when its trace has loaded
  QString pendingSessionPath_;
  std::shared_ptr<const PredictionResult> prediction_;
  quint64 requestedGeneration_ = 0;
  bool resettingDocument_ = false;
  QString lastError_;

  // Actions.
  QAction* openAct_;
  QAction* openSessionAct_;
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

  // Status bar.
  QLabel* statusText_;
  QProgressBar* progress_;
  QToolButton* cancelButton_;
  QToolButton* warningsButton_;
  QLabel* summary_;
};

}  // namespace perwiz::gui
