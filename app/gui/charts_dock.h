// Charts (QCustomPlot) beside the timeline: the predicted T of every state of the hypothesis
// set, σ(t_k) of each parallel step with the predicted gain of balancing it, and each rank's
// measured versus predicted end. Bars can be clicked: a step or rank bar asks the window to
// show it. The dock only draws what it is given.
#pragma once

#include "perwiz/advisor.h"

#include <QDockWidget>
#include <QString>
#include <QVector>

class QCustomPlot;
class QCPAbstractPlottable;
class QMouseEvent;
class QTabWidget;

namespace perwiz::gui {

class ChartsDock : public QDockWidget {
  Q_OBJECT

 public:
  struct HistoryPoint {
    QString label;
    double predictedNs = -1;  // < 0: not predicted (yet)
  };

  explicit ChartsDock(QWidget* parent = nullptr);

  // One bar per state; `current` is highlighted; a line marks the measured T.
  void setHistory(const QVector<HistoryPoint>& points, int current, double measuredNs);
  // σ of each step's per-rank computation (cheap, known as soon as a trace is loaded).
  void setStepSigmas(const std::vector<double>& sigmaNs);
  // The advisor's step table: σ and the predicted gain (base T − T with the step balanced).
  void setSteps(const std::vector<StepRow>& rows, double baseNs);
  void setRankEnds(const std::vector<double>& measuredNs, const std::vector<double>& predictedNs);
  void clear();

  // For tests.
  QTabWidget* tabs() const { return tabs_; }
  QCustomPlot* historyPlot() const { return history_; }
  QCustomPlot* stepPlot() const { return steps_; }
  QCustomPlot* rankPlot() const { return ranks_; }

 signals:
  void stepClicked(int step);
  void rankClicked(int rank);
  void historyClicked(int state);

 private:
  void onClick(QCustomPlot* plot, QCPAbstractPlottable* plottable, int index);
  static void showEmpty(QCustomPlot* plot, const QString& text);

  QTabWidget* tabs_;
  QCustomPlot* history_;
  QCustomPlot* steps_;
  QCustomPlot* ranks_;
};

// The unit a set of durations reads best in: divisor and suffix ("ms", 1e6).
struct TimeUnit {
  double divisor = 1;
  QString suffix = QStringLiteral("ns");
};
TimeUnit timeUnitFor(double maxNs);

}  // namespace perwiz::gui
