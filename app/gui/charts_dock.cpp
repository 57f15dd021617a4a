#include "charts_dock.h"
#include "units.h"

#include <qcustomplot.h>

#include <QTabWidget>

#include <algorithm>
#include <cmath>

namespace perwiz::gui {

namespace {

const QColor kMeasured(150, 150, 150);
const QColor kPredicted(46, 110, 190);
const QColor kCurrent(230, 120, 20);
const QColor kGain(60, 160, 80);

QCustomPlot* makePlot(QWidget* parent) {
  auto* p = new QCustomPlot(parent);
  p->setMinimumHeight(160);
  p->setInteractions(QCP::iSelectPlottables);
  p->setNoAntialiasingOnDrag(true);
  p->axisRect()->setupFullAxesBox(false);
  p->xAxis2->setVisible(false);
  p->yAxis2->setVisible(false);
  p->legend->setVisible(false);
  QFont small = p->font();
  small.setPointSizeF(std::max(6.0, small.pointSizeF() - 1));
  p->legend->setFont(small);
  return p;
}

QCPBars* makeBars(QCustomPlot* plot, const QColor& color, const QString& name) {
  auto* b = new QCPBars(plot->xAxis, plot->yAxis);
  b->setName(name);
  b->setPen(QPen(color.darker(130)));
  b->setBrush(color);
  b->setSelectable(QCP::stSingleData);
  return b;
}

// Integer ticks at a readable spacing for `n` bars.
// Ticks of a bar chart indexed 0..n-1 (ranks, steps): every index labelled up to kAllLabels
// bars (a fixed ticker's own thinning showed only the even ranks of 8), else a round step
// (1, 2 or 5 × 10^k) giving at most about 16 labels, never thinned further.
constexpr int kAllLabels = 32;
QSharedPointer<QCPAxisTicker> indexTicker(int n) {
  if (n <= kAllLabels) {
    QSharedPointer<QCPAxisTickerText> t(new QCPAxisTickerText);
    for (int i = 0; i < n; ++i) t->addTick(i, QString::number(i));
    return t;
  }
  double step = 1;
  for (double mag = 1;; mag *= 10) {
    for (double f : {1.0, 2.0, 5.0})
      if (n / (f * mag) <= 16) {
        step = f * mag;
        break;
      }
    if (step > 1 || n <= 16) break;
  }
  QSharedPointer<QCPAxisTickerFixed> t(new QCPAxisTickerFixed);
  t->setTickStep(step);
  t->setScaleStrategy(QCPAxisTickerFixed::ssNone);
  return t;
}
// Labels turned when every bar of many is labelled.
double indexLabelRotation(int n) { return n > 16 && n <= kAllLabels ? -90 : 0; }

}  // namespace

TimeUnit timeUnitFor(double maxNs) {
  if (maxNs >= 1e9) return {1e9, QStringLiteral("s")};
  if (maxNs >= 1e6) return {1e6, QStringLiteral("ms")};
  if (maxNs >= 1e3) return {1e3, QStringLiteral("µs")};
  return {1, QStringLiteral("ns")};
}

ChartsDock::ChartsDock(QWidget* parent) : QDockWidget(tr("Charts"), parent) {
  setObjectName(QStringLiteral("chartsDock"));
  tabs_ = new QTabWidget(this);
  history_ = makePlot(tabs_);
  steps_ = makePlot(tabs_);
  ranks_ = makePlot(tabs_);
  history_->setObjectName(QStringLiteral("historyPlot"));
  steps_->setObjectName(QStringLiteral("stepPlot"));
  ranks_->setObjectName(QStringLiteral("rankPlot"));
  tabs_->addTab(history_, tr("Scenario History"));
  tabs_->addTab(steps_, tr("Steps"));
  tabs_->addTab(ranks_, tr("Rank Ends"));
  setWidget(tabs_);
  for (QCustomPlot* p : {history_, steps_, ranks_})
    connect(p, &QCustomPlot::plottableClick, this,
            [this, p](QCPAbstractPlottable* plottable, int index, QMouseEvent*) { onClick(p, plottable, index); });
  clear();
}

void ChartsDock::clear() {
  showEmpty(history_, tr("No prediction yet"));
  showEmpty(steps_, tr("No parallel steps"));
  showEmpty(ranks_, tr("No prediction yet"));
}

void ChartsDock::showEmpty(QCustomPlot* plot, const QString& text) {
  plot->clearPlottables();
  plot->clearItems();
  plot->legend->setVisible(false);
  auto* label = new QCPItemText(plot);
  label->position->setType(QCPItemPosition::ptAxisRectRatio);
  label->position->setCoords(0.5, 0.5);
  label->setText(text);
  label->setColor(Qt::gray);
  plot->xAxis->setTicker(QSharedPointer<QCPAxisTicker>(new QCPAxisTicker));
  plot->xAxis->setLabel(QString());
  plot->yAxis->setLabel(QString());
  plot->xAxis->setRange(0, 1);
  plot->yAxis->setRange(0, 1);
  plot->replot(QCustomPlot::rpQueuedReplot);
}

void ChartsDock::setHistory(const QVector<HistoryPoint>& points, int current, double measuredNs) {
  bool any = false;
  double maxNs = measuredNs;
  for (const auto& p : points)
    if (p.predictedNs >= 0) any = true, maxNs = std::max(maxNs, p.predictedNs);
  if (!any) return showEmpty(history_, tr("No prediction yet"));
  history_->clearPlottables();
  history_->clearItems();
  const TimeUnit u = timeUnitFor(maxNs);
  auto* bars = makeBars(history_, kPredicted, tr("predicted T"));
  auto* now = makeBars(history_, kCurrent, tr("current state"));
  QSharedPointer<QCPAxisTickerText> ticker(new QCPAxisTickerText);
  const int n = static_cast<int>(points.size());
  for (int i = 0; i < n; ++i) {
    // Long labels ("Add balance-compute step 1") on two lines, broken at the space nearest the
    // middle; only a label too long for two lines is shortened.
    QString label = points[i].label;
    if (label.size() > 44) label = label.left(42) + QStringLiteral("…");
    if (label.size() > 22) {
      int best = -1;
      for (int k = 0; k < label.size(); ++k)
        if (label[k] == QLatin1Char(' ') && (best < 0 || std::abs(k - label.size() / 2) < std::abs(best - label.size() / 2)))
          best = k;
      if (best > 0) label[best] = QLatin1Char('\n');
    }
    if (n <= 16 || i % ((n + 15) / 16) == 0) ticker->addTick(i, label);
    if (points[i].predictedNs < 0) continue;
    (i == current ? now : bars)->addData(i, points[i].predictedNs / u.divisor);
    // Each bar says its T and its change from the measured one: bars from zero cannot show
    // 11.626 against 11.614 ms (issue #40 item 8).
    if (n <= 16) {
      auto* value = new QCPItemText(history_);
      value->position->setCoords(i, points[i].predictedNs / u.divisor);
      value->setPositionAlignment(Qt::AlignHCenter | Qt::AlignBottom);
      value->setText(formatDuration(static_cast<TimeNs>(std::llround(points[i].predictedNs))) + QLatin1Char('\n') +
                     formatChange(static_cast<TimeNs>(std::llround(measuredNs)),
                                  static_cast<TimeNs>(std::llround(points[i].predictedNs))));
      value->setColor(QColor(40, 40, 40));
    }
  }
  history_->xAxis->setTicker(ticker);
  history_->xAxis->setTickLabelRotation(n > 4 ? 30 : 0);
  history_->xAxis->setRange(-0.6, n - 0.4);
  history_->yAxis->setLabel(tr("T (%1)").arg(u.suffix));
  history_->yAxis->setRange(0, maxNs / u.divisor * 1.3);  // room for the values over the bars
  auto* line = new QCPItemStraightLine(history_);
  line->point1->setCoords(-1, measuredNs / u.divisor);
  line->point2->setCoords(n, measuredNs / u.divisor);
  line->setPen(QPen(kMeasured.darker(120), 1.5, Qt::DashLine));
  auto* text = new QCPItemText(history_);
  text->position->setCoords(n - 0.5, measuredNs / u.divisor);
  text->setPositionAlignment(Qt::AlignRight | Qt::AlignBottom);
  text->setText(tr("measured"));
  text->setColor(kMeasured.darker(150));
  history_->replot(QCustomPlot::rpQueuedReplot);
}

void ChartsDock::setStepSigmas(const std::vector<double>& sigmaNs) {
  std::vector<StepRow> rows;
  for (std::size_t k = 0; k < sigmaNs.size(); ++k) {
    StepRow r;
    r.step = static_cast<std::uint32_t>(k);
    r.sigmaNs = static_cast<TimeNs>(std::llround(sigmaNs[k]));
    r.predictedNs = -1;  // unknown
    rows.push_back(r);
  }
  setSteps(rows, -1);
}

void ChartsDock::setSteps(const std::vector<StepRow>& rows, double baseNs) {
  if (rows.empty()) return showEmpty(steps_, tr("No parallel steps"));
  steps_->clearPlottables();
  steps_->clearItems();
  double maxNs = 1;
  for (const auto& r : rows) {
    maxNs = std::max(maxNs, static_cast<double>(r.sigmaNs));
    if (baseNs >= 0 && r.predictedNs >= 0) maxNs = std::max(maxNs, baseNs - static_cast<double>(r.predictedNs));
  }
  const TimeUnit u = timeUnitFor(maxNs);
  auto* sigma = makeBars(steps_, kPredicted, tr("σ of computation"));
  auto* gain = makeBars(steps_, kGain, tr("predicted gain if balanced"));
  bool anyGain = false;
  for (const auto& r : rows) {
    sigma->addData(r.step, r.sigmaNs / u.divisor);
    if (baseNs >= 0 && r.predictedNs >= 0) {
      gain->addData(r.step, std::max(0.0, baseNs - static_cast<double>(r.predictedNs)) / u.divisor);
      anyGain = true;
    }
  }
  if (anyGain) {
    auto* group = new QCPBarsGroup(steps_);
    sigma->setBarsGroup(group);
    gain->setBarsGroup(group);
    sigma->setWidth(0.4);
    gain->setWidth(0.4);
  } else {
    steps_->removePlottable(gain);
    sigma->setWidth(0.7);
  }
  const int n = static_cast<int>(rows.back().step) + 1;
  steps_->xAxis->setTicker(indexTicker(n));
  steps_->xAxis->setTickLabelRotation(indexLabelRotation(n));
  steps_->xAxis->setLabel(tr("parallel step"));
  steps_->xAxis->setRange(-0.6, n - 0.4);
  steps_->yAxis->setLabel(tr("time (%1)").arg(u.suffix));
  steps_->yAxis->setRange(0, maxNs / u.divisor * 1.4);  // headroom for the legend
  steps_->legend->setVisible(true);
  steps_->axisRect()->insetLayout()->setInsetAlignment(0, Qt::AlignTop | Qt::AlignRight);
  steps_->replot(QCustomPlot::rpQueuedReplot);
}

void ChartsDock::setRankEnds(const std::vector<double>& measuredNs, const std::vector<double>& predictedNs) {
  if (measuredNs.empty()) return showEmpty(ranks_, tr("No prediction yet"));
  ranks_->clearPlottables();
  ranks_->clearItems();
  double maxNs = 1;
  for (double v : measuredNs) maxNs = std::max(maxNs, v);
  for (double v : predictedNs) maxNs = std::max(maxNs, v);
  const TimeUnit u = timeUnitFor(maxNs);
  auto* measured = makeBars(ranks_, kMeasured, tr("measured end"));
  auto* predicted = makeBars(ranks_, kPredicted, tr("predicted end"));
  auto* group = new QCPBarsGroup(ranks_);
  measured->setBarsGroup(group);
  predicted->setBarsGroup(group);
  measured->setWidth(0.4);
  predicted->setWidth(0.4);
  const int n = static_cast<int>(measuredNs.size());
  for (int r = 0; r < n; ++r) {
    measured->addData(r, measuredNs[r] / u.divisor);
    if (r < static_cast<int>(predictedNs.size())) predicted->addData(r, predictedNs[r] / u.divisor);
  }
  ranks_->xAxis->setTicker(indexTicker(n));
  ranks_->xAxis->setTickLabelRotation(indexLabelRotation(n));
  ranks_->xAxis->setLabel(tr("rank"));
  ranks_->xAxis->setRange(-0.6, n - 0.4);
  ranks_->yAxis->setLabel(tr("end (%1)").arg(u.suffix));
  ranks_->yAxis->setRange(0, maxNs / u.divisor * 1.4);  // headroom for the legend
  ranks_->legend->setVisible(true);
  ranks_->axisRect()->insetLayout()->setInsetAlignment(0, Qt::AlignTop | Qt::AlignRight);
  ranks_->replot(QCustomPlot::rpQueuedReplot);
}

void ChartsDock::onClick(QCustomPlot* plot, QCPAbstractPlottable* plottable, int index) {
  auto* bars = qobject_cast<QCPBars*>(plottable);
  if (!bars || index < 0 || index >= bars->dataCount()) return;
  const int key = static_cast<int>(std::lround((bars->data()->constBegin() + index)->key));
  if (plot == steps_) emit stepClicked(key);
  else if (plot == ranks_) emit rankClicked(key);
  else emit historyClicked(key);
}

}  // namespace perwiz::gui
