// Runs the what-if advisor in the background on a fork of the prediction worker's replayer, so
// it starts from the scenario the user is looking at. Results arrive in stages (domino paths and
// candidates first, then the step table, then the bounds), each as soon as it is ready; progress
// and cancellation go through the core advisor's callbacks.
#pragma once

#include "perwiz/advisor.h"

#include <QObject>
#include <QString>

#include <atomic>
#include <memory>

namespace perwiz::gui {

class PredictionWorker;

// What the advisor found so far, for one scenario generation.
struct AdvisorOutcome {
  quint64 generation = 0;               // the scenario generation it started from
  std::shared_ptr<const Trace> trace;   // the trace it ran on
  TimeNs baseNs = 0;                    // predicted T of that scenario
  TimeNs measuredNs = 0;
  bool hasDomino = false, hasSteps = false, hasBounds = false;
  DominoResult domino;
  std::vector<std::vector<TimeNs>> pathWaits;  // [path][event]: its wait in the base scenario
  std::vector<WaitCandidate> candidates;
  bool hasLongestWait = false;
  WaitCandidate longestWait;
  std::vector<StepRow> steps;
  TimeNs allStepsBalancedNs = 0;
  std::vector<RegionBounds> bounds;
  std::uint64_t predictions = 0;
  bool cancelled = false;
  bool finished = false;
  QString error;
};

class AdvisorRunner : public QObject {
  Q_OBJECT

 public:
  explicit AdvisorRunner(PredictionWorker* worker, QObject* parent = nullptr);
  ~AdvisorRunner() override;  // cancels and waits for a running advisor

  // Starts a run for the worker's current scenario (a running one is cancelled first).
  void start(quint64 generation, std::shared_ptr<const Trace> trace, bool steps = true);
  void cancel();
  bool isRunning() const { return running_; }
  // Blocks until the running advisor has stopped (for shutdown and tests).
  void wait();

 signals:
  void progress(double fraction, const QString& stage);
  // A stage finished; the outcome carries every stage so far (finished = the last one).
  void updated(std::shared_ptr<const perwiz::gui::AdvisorOutcome> outcome);

 private:
  struct Run;
  PredictionWorker* worker_;
  std::shared_ptr<Run> run_;
  bool running_ = false;
};

}  // namespace perwiz::gui

Q_DECLARE_METATYPE(std::shared_ptr<const perwiz::gui::AdvisorOutcome>)
