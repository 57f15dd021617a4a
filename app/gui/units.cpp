#include "units.h"

#include "perwiz/trace.h"

#include <QCoreApplication>

#include <cmath>

namespace perwiz::gui {

QString formatDuration(TimeNs ns) { return QString::fromStdString(perwiz::formatDuration(ns)); }

QString formatChange(TimeNs measured, TimeNs predicted) {
  if (measured <= 0) return QStringLiteral("—");
  const double pct = 100.0 * static_cast<double>(predicted - measured) / static_cast<double>(measured);
  if (std::fabs(pct) < 0.05) return QStringLiteral("±0.0 %");
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
