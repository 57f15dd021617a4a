#include "units.h"

#include "perwiz/trace.h"

#include <QCoreApplication>

#include <cmath>

namespace perwiz::gui {

QString formatDuration(TimeNs ns) { return QString::fromStdString(perwiz::formatDuration(ns)); }

QString formatChange(TimeNs measured, TimeNs predicted) {
  if (measured <= 0) return QStringLiteral("—");
  const double pct = 100.0 * static_cast<double>(predicted - measured) / static_cast<double>(measured);
  // Not "±0.0 %", which reads like an error bar: said in words, or as less than what is shown.
  if (predicted == measured) return QCoreApplication::translate("PredictionSummary", "no change");
  if (std::fabs(pct) < 0.05) return (pct > 0 ? QStringLiteral("+") : QStringLiteral("−")) + QStringLiteral("<0.05 %");
  return (pct > 0 ? QStringLiteral("+") : QStringLiteral("−")) +
         QStringLiteral("%1 %").arg(std::fabs(pct), 0, 'f', 1);
}

QString predictionSummary(TimeNs measured, TimeNs predicted) {
  return QCoreApplication::translate("PredictionSummary", "measured %1 → predicted %2 (%3)")
      .arg(formatDuration(measured), formatDuration(predicted), formatChange(measured, predicted));
}

QString hypothesisText(const Hypothesis& h) {
  const QString event = QString::fromStdString(h.event.toString());
  switch (h.kind) {
    case HypothesisKind::ZeroWait: return QCoreApplication::translate("Hypothesis", "zero-wait %1").arg(event);
    case HypothesisKind::ZeroEvent: return QCoreApplication::translate("Hypothesis", "zero-event %1").arg(event);
    case HypothesisKind::BalanceCompute:
      return QCoreApplication::translate("Hypothesis", "balance-compute step %1").arg(h.step);
    case HypothesisKind::BalanceVolume:
      return QCoreApplication::translate("Hypothesis", "balance-volume step %1").arg(h.step);
    case HypothesisKind::Compensate:
      return h.overheadFromTrace() ? QCoreApplication::translate("Hypothesis", "compensate overhead recorded in the trace")
                                   : QCoreApplication::translate("Hypothesis", "compensate %1 ns/event").arg(h.overheadNs);
  }
  return QString::fromStdString(h.toString());
}

namespace {

// "MPI_Recv on rank 1 (call 3, at 1.234 s)"; empty when the trace has no such call.
QString callInWords(const Trace& trace, const EventRef& e) {
  if (e.rank >= trace.rankCount() || e.index >= trace.ranks[e.rank].mpiCalls.size()) return {};
  const RankTrace& rt = trace.ranks[e.rank];
  const std::uint32_t ev = rt.mpiCalls[e.index];
  return QCoreApplication::translate("Hypothesis", "%1 on rank %2 (call %3, at %4)")
      .arg(QString::fromStdString(trace.fn(e.rank, ev).name))
      .arg(e.rank)
      .arg(e.index)
      .arg(formatDuration(rt.enter[ev]));
}

// "step 153 (iter, at 2.000 ms)": the region's name and the step's measured begin.
QString stepInWords(const Trace& trace, std::uint32_t k) {
  if (k >= trace.steps.size()) return QCoreApplication::translate("Hypothesis", "step %1").arg(k);
  const ParallelStep& step = trace.steps[k];
  for (std::uint32_t r = 0; r < step.ranks.size() && r < trace.rankCount(); ++r) {
    if (!step.ranks[r].present()) continue;
    return QCoreApplication::translate("Hypothesis", "step %1 (%2, at %3)")
        .arg(k)
        .arg(QString::fromStdString(trace.fn(r, step.ranks[r].marker).name))
        .arg(formatDuration(trace.stepBegin(k, r)));
  }
  return QCoreApplication::translate("Hypothesis", "step %1").arg(k);
}

}  // namespace

QString hypothesisText(const Hypothesis& h, const Trace* trace) {
  if (!trace) return hypothesisText(h);
  switch (h.kind) {
    case HypothesisKind::ZeroWait:
      if (const QString call = callInWords(*trace, h.event); !call.isEmpty())
        return QCoreApplication::translate("Hypothesis", "zero the wait of %1").arg(call);
      break;
    case HypothesisKind::ZeroEvent:
      if (h.event.computation) {
        const EventRef next{h.event.rank, h.event.index, false};
        if (const QString call = callInWords(*trace, next); !call.isEmpty())
          return QCoreApplication::translate("Hypothesis", "remove the computation before %1").arg(call);
        if (h.event.rank < trace->rankCount())
          return QCoreApplication::translate("Hypothesis", "remove the computation at the end of rank %1")
              .arg(h.event.rank);
      } else if (const QString call = callInWords(*trace, h.event); !call.isEmpty()) {
        return QCoreApplication::translate("Hypothesis", "remove %1").arg(call);
      }
      break;
    case HypothesisKind::BalanceCompute:
      return QCoreApplication::translate("Hypothesis", "balance the computation of %1")
          .arg(stepInWords(*trace, h.step));
    case HypothesisKind::BalanceVolume:
      return QCoreApplication::translate("Hypothesis", "balance the message volume of %1")
          .arg(stepInWords(*trace, h.step));
    case HypothesisKind::Compensate: break;
  }
  return hypothesisText(h);
}

QString describeNetwork(const NetworkModel* model, CostMode costs) {
  std::unique_ptr<NetworkModel> fallback;
  if (!model) {
    fallback = defaultNetworkModel();
    model = fallback.get();
  }
  const QString name = QString::fromStdString(model->kind() + " " + model->name());
  return costs == CostMode::Model ? QCoreApplication::translate("Network", "%1, model local costs").arg(name)
                                  : QCoreApplication::translate("Network", "%1, measured local costs").arg(name);
}

}  // namespace perwiz::gui
