#include "advisor_runner.h"

#include "prediction_worker.h"

#include "perwiz/replay.h"

#include <QtConcurrent/QtConcurrentRun>
#include <QFuture>

namespace perwiz::gui {

struct AdvisorRunner::Run {
  std::atomic<bool> cancel{false};
  QFuture<void> future;
};

AdvisorRunner::AdvisorRunner(PredictionWorker* worker, QObject* parent) : QObject(parent), worker_(worker) {
  qRegisterMetaType<std::shared_ptr<const AdvisorOutcome>>();
}

AdvisorRunner::~AdvisorRunner() {
  cancel();
  wait();
}

void AdvisorRunner::cancel() {
  if (run_) run_->cancel = true;
}

void AdvisorRunner::wait() {
  if (run_) run_->future.waitForFinished();
}

void AdvisorRunner::start(quint64 generation, std::shared_ptr<const Trace> trace, bool steps) {
  cancel();
  auto run = std::make_shared<Run>();
  run_ = run;
  running_ = true;
  PredictionWorker* worker = worker_;
  // Everything below runs on a pool thread; results are handed to the GUI thread through
  // queued calls that are dropped if a newer run has started meanwhile (or the runner is gone).
  auto publish = [this, run](std::shared_ptr<const AdvisorOutcome> outcome) {
    QMetaObject::invokeMethod(this, [this, run, outcome] {
      if (run != run_) return;
      if (outcome->finished) running_ = false;
      emit updated(outcome);
    }, Qt::QueuedConnection);
  };
  auto report = [this, run](double fraction, const QString& stage) {
    QMetaObject::invokeMethod(this, [this, run, fraction, stage] {
      if (run == run_) emit progress(fraction, stage);
    }, Qt::QueuedConnection);
  };
  run->future = QtConcurrent::run([worker, run, generation, trace, steps, publish, report] {
    auto out = std::make_shared<AdvisorOutcome>();
    out->generation = generation;
    out->trace = trace;
    auto finish = [&] {
      out->finished = true;
      out->cancelled = run->cancel;
      publish(std::make_shared<const AdvisorOutcome>(*out));
    };
    std::shared_ptr<const Trace> forkedTrace;
    std::unique_ptr<Replayer> base;
    try {
      base = worker->forkReplayer(&forkedTrace);
    } catch (const std::exception& e) {
      out->error = QString::fromStdString(e.what());
    }
    if (!base || forkedTrace != trace) {
      if (out->error.isEmpty()) out->error = QObject::tr("The prediction is not ready yet");
      finish();
      return;
    }
    out->baseNs = base->predictedTime();
    out->measuredNs = base->measuredTime();

    // Stage weights for one progress bar: the domino search dominates unless steps are many.
    const double stepsShare = steps ? 0.45 : 0.0;
    AdvisorOptions options;
    options.cancel = &run->cancel;
    try {
      options.progress = [&](double f, const std::string&) {
        report(f * (1.0 - stepsShare - 0.05), QObject::tr("Domino paths"));
      };
      out->domino = dominoPaths(*base, options, &out->candidates, &out->longestWait, &out->predictions);
      out->hasLongestWait = out->longestWait.waitNs > 0;
      for (const DominoPath& path : out->domino.paths) {
        auto& waits = out->pathWaits.emplace_back();
        for (const EventRef& e : path.events) waits.push_back(base->predicted(e.rank, e.index).wait);
      }
      out->hasDomino = !run->cancel;
      if (run->cancel) return finish();
      publish(std::make_shared<const AdvisorOutcome>(*out));

      if (steps) {
        options.progress = [&](double f, const std::string&) {
          report(0.5 + f * stepsShare, QObject::tr("Parallel steps"));
        };
        out->steps = stepTable(*base, options, &out->allStepsBalancedNs, &out->predictions);
        out->hasSteps = !run->cancel;
        if (run->cancel) return finish();
        publish(std::make_shared<const AdvisorOutcome>(*out));
      }
      report(0.95, QObject::tr("Lower bounds"));
      out->bounds = lowerBounds(*base);
      out->hasBounds = true;
      report(1.0, QObject::tr("Done"));
    } catch (const std::exception& e) {
      out->error = QString::fromStdString(e.what());
    }
    finish();
  });
}

}  // namespace perwiz::gui
