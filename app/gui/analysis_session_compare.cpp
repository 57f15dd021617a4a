// AnalysisSession's comparison with a second run (issue #41): B loaded, aligned and compared in
// the background; made again with each current prediction (A′) while it is shown.
#include "analysis_session.h"

#include "perwiz/trace_io.h"

#include <QFileInfo>
#include <QtConcurrent/QtConcurrentRun>

#include <utility>

namespace perwiz::gui {

void AnalysisSession::compareWith(const QString& path) {
  if (!trace_) {
    emit comparisonFailed(tr("Open a trace first: the second run is compared with it"));
    return;
  }
  comparison_.reset();
  dropComparisonJob();  // of another second run
  emit comparisonStarted(path);
  startComparison({nullptr, nullptr, QFileInfo(path).absoluteFilePath()});
}

void AnalysisSession::dropComparisonJob() {
  comparisonAgain_ = false;
  if (!comparisonWatcher_) return;
  // Not waited for (a load of B may take seconds): the job holds only its own data and ends on
  // its own; its watcher goes then, its result unread.
  auto* dropped = std::exchange(comparisonWatcher_, nullptr);
  dropped->disconnect(this);
  if (dropped->isFinished())
    dropped->deleteLater();
  else
    connect(dropped, &QFutureWatcherBase::finished, dropped, &QObject::deleteLater);
}

void AnalysisSession::endComparison() {
  if (!comparison_ && !comparisonWatcher_) return;
  comparison_.reset();
  dropComparisonJob();
  emit comparisonEnded();
}

void AnalysisSession::setComparisonMark(TimeNs ns) {
  if (ns == markAbove_) return;
  markAbove_ = ns;
  if (comparisonWatcher_)
    comparisonAgain_ = true;
  else if (comparison_)
    startComparison({comparison_->traceB, comparison_->alignment, comparison_->pathB});
}

void AnalysisSession::startComparison(ComparisonJob job) {
  comparisonAgain_ = false;
  // A′: the prediction shown, when it has hypotheses (without any it is A itself).
  std::shared_ptr<const PredictedTimes> predicted;
  std::vector<Hypothesis> applied;
  quint64 generation = 0;
  if (prediction_ && prediction_->trace == trace_ && !prediction_->applied.empty()) {
    predicted = prediction_->times;
    applied = prediction_->applied;
    generation = prediction_->generation;
  }
  comparisonWatcher_ = new QFutureWatcher<std::shared_ptr<const ComparisonResult>>(this);
  connect(comparisonWatcher_, &QFutureWatcherBase::finished, this, &AnalysisSession::onComparisonFinished);
  // (A job started while another runs replaces it: compareWith and endComparison drop the
  // other first, the later requests wait for it, comparisonAgain_.)
  comparisonWatcher_->setFuture(QtConcurrent::run([a = trace_, job = std::move(job), region = region_, predicted,
                                                   markAbove = markAbove_, applied = std::move(applied), generation] {
    auto r = std::make_shared<ComparisonResult>();
    r->traceA = a;
    r->pathB = job.pathB;
    r->generation = generation;
    r->applied = applied;
    try {
      std::shared_ptr<const Trace> b = job.traceB;
      if (!b) {
        Trace t = loadTrace(job.pathB.toStdString());
        if (t.rankCount() == 0) throw TraceError(job.pathB.toStdString(), "holds no MPI rank to compare");
        if (!region.isEmpty() && !declareParallelRegion(t, region.toStdString()))
          throw TraceError(job.pathB.toStdString(),
                           "has no state " + region.toStdString() + " (the parallel region of the trace shown)");
        b = std::make_shared<const Trace>(std::move(t));
        r->timelineB = ui::prepareTimeline(b);  // B's own view, prepared here as a load's is
      }
      r->traceB = b;
      std::shared_ptr<const TraceAlignment> al = job.alignment;
      if (!al) {
        auto fresh = std::make_shared<const TraceAlignment>(alignTraces(*a, *b));
        if (const std::string why = alignmentProblem(*fresh); !why.empty())
          throw TraceError(job.pathB.toStdString(), "cannot be compared with the trace shown: " + why);
        al = std::move(fresh);
      }
      r->alignment = al;
      CompareOptions options;
      options.markAbove = markAbove;
      r->comparison = compareTraces(*a, *b, *al, predicted.get(), options);
    } catch (const std::exception& e) {
      r->error = QString::fromStdString(e.what());
    }
    return std::shared_ptr<const ComparisonResult>(std::move(r));
  }));
}

void AnalysisSession::onComparisonFinished() {
  auto result = comparisonWatcher_->result();
  comparisonWatcher_->deleteLater();
  comparisonWatcher_ = nullptr;
  if (!result || result->traceA != trace_) return;  // made for a trace no longer shown
  if (!result->error.isEmpty()) {
    comparison_.reset();
    emit comparisonFailed(result->error);
    return;
  }
  comparison_ = result;
  emit comparisonReady(result);
  if (comparisonAgain_) startComparison({result->traceB, result->alignment, result->pathB});
}

}  // namespace perwiz::gui
