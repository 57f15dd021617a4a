#include "units.h"

#include <QCoreApplication>

#include <cmath>

namespace perwiz::gui {

QString formatDuration(TimeNs ns) {
  const double v = static_cast<double>(ns);
  const double a = std::fabs(v);
  if (a >= 1e9) return QStringLiteral("%1 s").arg(v / 1e9, 0, 'f', 3);
  if (a >= 1e6) return QStringLiteral("%1 ms").arg(v / 1e6, 0, 'f', 3);
  if (a >= 1e3) return QStringLiteral("%1 µs").arg(v / 1e3, 0, 'f', 3);
  return QStringLiteral("%1 ns").arg(ns);
}

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

}  // namespace perwiz::gui
