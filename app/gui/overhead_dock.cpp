#include "overhead_dock.h"

#include "charts_dock.h"  // timeUnitFor
#include "units.h"

#include <qcustomplot.h>

#include <QCheckBox>
#include <QDoubleSpinBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QSplitter>
#include <QTabWidget>
#include <QTableWidget>
#include <QToolButton>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>

namespace perwiz::gui {

namespace {

constexpr int kMaxRows = 2000;       // rows per table (the rest is summarised in the status)
constexpr int kMaxHighlights = 200;  // calls highlighted for a selected row

const QColor kBars(150, 170, 200);
const QColor kChosen(215, 25, 28);
const QColor kOther(90, 90, 90);

QTableWidget* makeTable(QWidget* parent, const QStringList& headers) {
  auto* t = new QTableWidget(parent);
  t->setColumnCount(int(headers.size()));
  t->setHorizontalHeaderLabels(headers);
  t->setSelectionBehavior(QAbstractItemView::SelectRows);
  t->setSelectionMode(QAbstractItemView::SingleSelection);
  t->setEditTriggers(QAbstractItemView::NoEditTriggers);
  t->verticalHeader()->setVisible(false);
  t->horizontalHeader()->setStretchLastSection(true);
  t->setSortingEnabled(false);
  return t;
}

QTableWidgetItem* text(const QString& s) { return new QTableWidgetItem(s); }
QTableWidgetItem* number(double v, const QString& shown) {
  auto* it = new QTableWidgetItem(shown);
  it->setData(Qt::UserRole, v);
  it->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
  return it;
}
QTableWidgetItem* duration(TimeNs ns) {
  return number(double(ns), ns == kUnboundedNs ? QStringLiteral("∞") : formatDuration(ns));
}
// An error model's name for the user (translated; files and perwiz-cli keep errorModelName's).
QString modelText(ErrorModel m) {
  return m == ErrorModel::Poisson ? QCoreApplication::translate("OverheadDock", "Poisson")
                                  : QCoreApplication::translate("OverheadDock", "exponential");
}

QString share(const OverheadTotals& t) {
  return t.timeNs > 0 ? QStringLiteral("%1 %").arg(100.0 * double(t.overheadNs) / double(t.timeNs), 0, 'f', 1)
                      : QStringLiteral("–");
}
void totalsColumns(QTableWidget* t, int row, int col, const OverheadTotals& x) {
  t->setItem(row, col, number(double(x.calls), QString::number(x.calls)));
  t->setItem(row, col + 1, duration(x.timeNs));
  t->setItem(row, col + 2, duration(x.overheadNs));
  t->setItem(row, col + 3, number(x.timeNs ? double(x.overheadNs) / double(x.timeNs) : 0.0, share(x)));
}

}  // namespace

OverheadDock::OverheadDock(QWidget* parent) : QDockWidget(tr("Communication Overhead"), parent) {
  setObjectName(QStringLiteral("overheadDock"));
  auto* body = new QWidget(this);
  auto* layout = new QVBoxLayout(body);
  layout->setContentsMargins(4, 4, 4, 4);

  auto* controls = new QHBoxLayout;
  controls->addWidget(new QLabel(tr("Quantile q_max:"), body));
  quantile_ = new QDoubleSpinBox(body);
  quantile_->setRange(0.80, 1.00);  // the paper's reasonable range
  quantile_->setSingleStep(0.01);
  quantile_->setDecimals(3);
  quantile_->setValue(0.95);
  quantile_->setToolTip(tr("A call longer than the q_max quantile of its class's fitted error counts as overhead"));
  controls->addWidget(quantile_);
  profileButton_ = new QPushButton(tr("Profile…"), body);
  profileButton_->setToolTip(tr("Use a measured profile T_f(p, b) instead of fitting this trace"));
  controls->addWidget(profileButton_);
  profileLabel_ = new QLabel(tr("fitted per trace"), body);
  controls->addWidget(profileLabel_);
  clearProfile_ = new QToolButton(body);
  clearProfile_->setText(QStringLiteral("×"));
  clearProfile_->setToolTip(tr("Fit this trace instead of using the profile"));
  clearProfile_->setEnabled(false);
  controls->addWidget(clearProfile_);
  analyse_ = new QPushButton(tr("Analyse"), body);
  controls->addWidget(analyse_);
  onTimeline_ = new QCheckBox(tr("Show on timeline"), body);
  onTimeline_->setToolTip(tr("Mark each call's overhead (the time beyond its class's t_max) in red under the measured rows"));
  controls->addWidget(onTimeline_);
  controls->addStretch(1);
  layout->addLayout(controls);
  status_ = new QLabel(body);
  status_->setWordWrap(true);
  layout->addWidget(status_);

  auto* split = new QSplitter(Qt::Horizontal, body);
  tabs_ = new QTabWidget(split);
  const QStringList totals{tr("Calls"), tr("Time"), tr("Overhead"), tr("Share")};
  sites_ = makeTable(tabs_, QStringList{tr("Call site"), tr("Function")} + totals);
  classes_ = makeTable(tabs_, QStringList{tr("Function"), tr("p"), tr("Bytes")} + totals +
                                  QStringList{tr("min"), tr("t_max"), tr("Model"), tr("χ² / limit"), tr("Fit")});
  functions_ = makeTable(tabs_, QStringList{tr("Function")} + totals);
  ranks_ = makeTable(tabs_, QStringList{tr("Rank")} + totals);
  sites_->setObjectName(QStringLiteral("overheadSites"));
  classes_->setObjectName(QStringLiteral("overheadClasses"));
  tabs_->addTab(sites_, tr("Call Sites"));
  tabs_->addTab(classes_, tr("Classes"));
  tabs_->addTab(functions_, tr("Functions"));
  tabs_->addTab(ranks_, tr("Ranks"));
  plot_ = new QCustomPlot(split);
  plot_->setObjectName(QStringLiteral("overheadHistogram"));
  plot_->setMinimumSize(380, 180);
  plot_->legend->setVisible(false);
  QFont small = plot_->font();
  small.setPointSizeF(std::max(6.0, small.pointSizeF() - 1));
  plot_->legend->setFont(small);
  // The legend in a row of its own above the plot, one line: inside the plot it covered the
  // t_max label (issue #40 item 8).
  plot_->axisRect()->insetLayout()->take(plot_->legend);
  plot_->plotLayout()->insertRow(0);
  plot_->plotLayout()->addElement(0, 0, plot_->legend);
  plot_->plotLayout()->setRowStretchFactor(0, 0.001);
  plot_->legend->setFillOrder(QCPLegend::foColumnsFirst);
  plot_->legend->setBorderPen(Qt::NoPen);
  plot_->legend->setMargins(QMargins(4, 2, 4, 0));
  split->addWidget(tabs_);
  split->addWidget(plot_);
  split->setStretchFactor(0, 1);
  split->setStretchFactor(1, 1);
  split->setSizes({600, 560});
  layout->addWidget(split, 1);
  setWidget(body);

  connect(analyse_, &QPushButton::clicked, this, &OverheadDock::analyse);
  connect(quantile_, &QDoubleSpinBox::editingFinished, this, [this] {
    if (analysis_ && std::abs(analysis_->quantile - quantile_->value()) > 1e-9) analyse();
  });
  connect(profileButton_, &QPushButton::clicked, this, [this] {
    const QString path = QFileDialog::getOpenFileName(this, tr("Overhead Profile"), QString(),
                                                      tr("Overhead profiles (*.json);;All files (*)"));
    if (path.isEmpty()) return;
    QString error;
    if (!setProfileFile(path, &error)) status_->setText(error);
    else if (trace_) analyse();
  });
  connect(clearProfile_, &QToolButton::clicked, this, [this] {
    setProfileFile(QString());
    if (trace_) analyse();
  });
  connect(onTimeline_, &QCheckBox::toggled, this, [this](bool on) { emit timelineShadingChanged(on && analysis_); });
  for (QTableWidget* t : {sites_, classes_, functions_, ranks_})
    connect(t, &QTableWidget::itemSelectionChanged, this, [this, t] { onRowSelected(t); });
  setTrace(nullptr);
}

OverheadDock::~OverheadDock() = default;

void OverheadDock::setTrace(std::shared_ptr<const Trace> trace) {
  trace_ = std::move(trace);
  running_ = false;
  analysis_.reset();
  for (QTableWidget* t : {sites_, classes_, functions_, ranks_}) t->setRowCount(0);
  showEmptyHistogram(tr("Select a class"));
  status_->setText(trace_ ? tr("Not analysed yet: press Analyse.") : tr("No trace"));
  analyse_->setEnabled(bool(trace_));
  emit timelineShadingChanged(false);
  if (trace_ && isVisible()) analyse();
}

bool OverheadDock::setProfileFile(const QString& path, QString* error) {
  if (path.isEmpty()) {
    profile_.reset();
    profilePath_.clear();
    profileLabel_->setText(tr("fitted per trace"));
    clearProfile_->setEnabled(false);
    return true;
  }
  std::string why;
  auto loaded = loadOverheadProfile(path.toStdString(), &why);
  if (!loaded) {
    if (error) *error = QString::fromStdString(why);
    return false;
  }
  profile_ = std::make_shared<const OverheadProfile>(std::move(*loaded));
  profilePath_ = path;
  profileLabel_->setText(tr("profile %1").arg(QFileInfo(path).fileName()));
  clearProfile_->setEnabled(true);
  return true;
}

bool OverheadDock::isRunning() const { return running_; }
bool OverheadDock::showOnTimeline() const { return onTimeline_->isChecked() && analysis_; }

void OverheadDock::analyse() {
  if (!trace_) return;
  running_ = true;
  status_->setText(tr("Analysing %n communication call(s)…", "", int(trace_->messageStats.matched)));
  emit analysisRequested(quantile_->value(), profile_);
}

void OverheadDock::showEvent(QShowEvent* event) {
  QDockWidget::showEvent(event);
  if (trace_ && !analysis_ && !running_) analyse();
}

void OverheadDock::setResult(const std::shared_ptr<const OverheadResult>& result) {
  if (!result || result->trace != trace_) return;  // of another trace
  running_ = false;
  const OverheadResult& r = *result;
  if (!r.analysis) {
    status_->setText(tr("Overhead analysis failed: %1").arg(r.error));
    return;
  }
  analysis_ = r.analysis;
  fillTables();
  const OverheadTotals& t = analysis_->total;
  status_->setText(tr("%1 of %2 in %3 communication calls is overhead (%4), q_max = %5%6.")
                       .arg(formatDuration(t.overheadNs), formatDuration(t.timeNs))
                       .arg(t.calls)
                       .arg(share(t))
                       .arg(analysis_->quantile, 0, 'f', 3)
                       .arg(r.fromProfile ? tr(", t_max from the profile where it has the class") : QString()));
  showClass(analysis_->classes.empty() ? -1 : 0);
  emit analysisFinished();
  emit timelineShadingChanged(showOnTimeline());
}

void OverheadDock::fillTables() {
  const OverheadAnalysis& a = *analysis_;
  for (QTableWidget* t : {sites_, classes_, functions_, ranks_}) {
    t->blockSignals(true);
    t->clearContents();
  }
  sites_->setRowCount(int(std::min<std::size_t>(a.sites.size(), kMaxRows)));
  for (int i = 0; i < sites_->rowCount(); ++i) {
    const SiteOverhead& s = a.sites[std::size_t(i)];
    sites_->setItem(i, 0, text(QString::fromStdString(s.region)));
    sites_->setItem(i, 1, text(QString::fromStdString(s.function)));
    totalsColumns(sites_, i, 2, s.totals);
  }
  classes_->setRowCount(int(std::min<std::size_t>(a.classes.size(), kMaxRows)));
  for (int i = 0; i < classes_->rowCount(); ++i) {
    const CallClassOverhead& c = a.classes[std::size_t(i)];
    classes_->setItem(i, 0, text(QString::fromStdString(c.function)));
    classes_->setItem(i, 1, number(c.processes, QString::number(c.processes)));
    classes_->setItem(i, 2, number(double(c.bytes), QString::number(c.bytes)));
    totalsColumns(classes_, i, 3, c.totals);
    classes_->setItem(i, 7, duration(c.minNs));
    classes_->setItem(i, 8, duration(c.tMaxNs));
    if (c.source == ThresholdSource::Profile) {
      classes_->setItem(i, 9, text(c.outsideProfileGrid ? tr("profile (outside its grid)") : tr("profile")));
      classes_->setItem(i, 10, text(QStringLiteral("–")));
      classes_->setItem(i, 11, text(QStringLiteral("–")));
    } else if (c.fit) {
      const ModelFit& m = c.fit->chosenFit();
      classes_->setItem(i, 9, text(modelText(c.fit->chosen)));
      classes_->setItem(i, 10, text(m.verdict == FitVerdict::Untestable
                                        ? QStringLiteral("–")
                                        : QStringLiteral("%1 / %2").arg(m.chiSquare, 0, 'g', 3).arg(m.critical, 0, 'g', 3)));
      const auto verdict = fitVerdictName(m.verdict);
      classes_->setItem(i, 11, text(QString::fromUtf8(verdict.data(), qsizetype(verdict.size()))));
    }
  }
  functions_->setRowCount(int(std::min<std::size_t>(a.functions.size(), kMaxRows)));
  for (int i = 0; i < functions_->rowCount(); ++i) {
    functions_->setItem(i, 0, text(QString::fromStdString(a.functions[std::size_t(i)].function)));
    totalsColumns(functions_, i, 1, a.functions[std::size_t(i)].totals);
  }
  ranks_->setRowCount(int(std::min<std::size_t>(a.ranks.size(), kMaxRows)));
  for (int i = 0; i < ranks_->rowCount(); ++i) {
    const RankOverhead& r = a.ranks[std::size_t(i)];
    const QString name = trace_ && r.rank < trace_->rankCount() ? QString::fromStdString(trace_->ranks[r.rank].name)
                                                                 : QString::number(r.rank);
    ranks_->setItem(i, 0, number(r.rank, name));
    totalsColumns(ranks_, i, 1, r.totals);
  }
  for (QTableWidget* t : {sites_, classes_, functions_, ranks_}) {
    t->resizeColumnsToContents();
    t->blockSignals(false);
  }
}

template <class Keep>
std::vector<EventRef> OverheadDock::largestOverheads(Keep&& keep) const {
  std::vector<std::pair<TimeNs, EventRef>> found;
  const OverheadAnalysis& a = *analysis_;
  for (std::uint32_t r = 0; r < a.overheadOfCall.size(); ++r)
    for (std::uint32_t i = 0; i < a.overheadOfCall[r].size(); ++i)
      if (a.overheadOfCall[r][i] > 0 && keep(r, a.classOfCall[r][i])) found.push_back({a.overheadOfCall[r][i], {r, i}});
  const std::size_t n = std::min<std::size_t>(found.size(), kMaxHighlights);
  std::partial_sort(found.begin(), found.begin() + std::ptrdiff_t(n), found.end(),
                    [](const auto& x, const auto& y) { return x.first > y.first; });
  std::vector<EventRef> out;
  for (std::size_t k = 0; k < n; ++k) out.push_back(found[k].second);
  return out;
}

void OverheadDock::onRowSelected(QTableWidget* table) {
  if (!analysis_) return;
  const auto rows = table->selectionModel()->selectedRows();
  if (rows.isEmpty()) return;
  const std::size_t row = std::size_t(rows.front().row());
  const OverheadAnalysis& a = *analysis_;
  std::vector<EventRef> events;
  if (table == classes_ && row < a.classes.size()) {
    showClass(int(row));
    events = largestOverheads([&](std::uint32_t, std::uint32_t c) { return c == row; });
  } else if (table == functions_ && row < a.functions.size()) {
    const std::string& f = a.functions[row].function;
    events = largestOverheads([&](std::uint32_t, std::uint32_t c) { return c < a.classes.size() && a.classes[c].function == f; });
  } else if (table == ranks_ && row < a.ranks.size()) {
    const std::uint32_t rank = a.ranks[row].rank;
    events = largestOverheads([&](std::uint32_t r, std::uint32_t) { return r == rank; });
  } else {
    return;  // call sites: the analysis keeps no site per call
  }
  emit highlightRequested(events, -1);
}

void OverheadDock::showEmptyHistogram(const QString& message) {
  plot_->clearPlottables();
  plot_->clearItems();
  plot_->legend->setVisible(false);
  auto* label = new QCPItemText(plot_);
  label->position->setType(QCPItemPosition::ptAxisRectRatio);
  label->position->setCoords(0.5, 0.5);
  label->setText(message);
  label->setColor(Qt::gray);
  plot_->xAxis->setLabel(QString());
  plot_->yAxis->setLabel(QString());
  plot_->xAxis->setRange(0, 1);
  plot_->yAxis->setRange(0, 1);
  plot_->replot(QCustomPlot::rpQueuedReplot);
}

void OverheadDock::showClass(int index) {
  shownClass_ = -1;
  if (!analysis_ || index < 0 || std::size_t(index) >= analysis_->classes.size()) {
    showEmptyHistogram(tr("Select a class"));
    return;
  }
  const CallClassOverhead& c = analysis_->classes[std::size_t(index)];
  shownClass_ = index;
  if (!c.fit) {
    showEmptyHistogram(tr("t_max %1 from the profile").arg(formatDuration(c.tMaxNs)));
    return;
  }
  const SampleFit& fit = *c.fit;
  const ErrorHistogram& h = fit.histogram;
  plot_->clearPlottables();
  plot_->clearItems();
  // x: the duration at the start of each histogram class, in one unit for the class.
  const TimeNs lastNs = h.classStartNs(h.counts.size());
  const double maxNs = double(fit.tMaxNs == kUnboundedNs ? lastNs : std::max(lastNs, fit.tMaxNs + h.windowNs));
  const TimeUnit u = timeUnitFor(maxNs);
  const double w = double(h.windowNs) / u.divisor;
  auto* bars = new QCPBars(plot_->xAxis, plot_->yAxis);
  bars->setName(tr("calls"));
  bars->setPen(QPen(kBars.darker(130)));
  bars->setBrush(kBars);
  bars->setWidth(w);
  double top = 1;
  for (std::size_t k = 0; k < h.counts.size(); ++k) {
    const double x = (double(h.classStartNs(k)) + 0.5 * double(h.windowNs)) / u.divisor;
    bars->addData(x, double(h.counts[k]));
    top = std::max(top, double(h.counts[k]));
  }
  // Expected counts N·P(K = k) of both fitted models; the chosen one solid.
  for (ErrorModel m : {ErrorModel::Poisson, ErrorModel::Exponential}) {
    const ModelFit& mf = m == ErrorModel::Poisson ? fit.poisson : fit.exponential;
    if (!mf.fitted) continue;
    auto* g = plot_->addGraph();
    const bool chosen = m == fit.chosen;
    g->setName(tr("%1 fit%2").arg(modelText(m), chosen ? tr(" (chosen)") : QString()));
    g->setPen(QPen(chosen ? kChosen : kOther, chosen ? 2 : 1, chosen ? Qt::SolidLine : Qt::DashLine));
    g->setLineStyle(QCPGraph::lsLine);
    g->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, 4));
    for (std::size_t k = 0; k < h.counts.size(); ++k) {
      const double e = fit.expectedCount(m, k);
      g->addData((double(h.classStartNs(k)) + 0.5 * double(h.windowNs)) / u.divisor, e);
      top = std::max(top, e);
    }
  }
  if (fit.tMaxNs != kUnboundedNs) {
    auto* line = new QCPItemStraightLine(plot_);
    const double x = double(fit.tMaxNs) / u.divisor;
    line->point1->setCoords(x, 0);
    line->point2->setCoords(x, 1);
    line->setPen(QPen(kChosen, 1.5, Qt::DashDotLine));
    auto* label = new QCPItemText(plot_);
    label->position->setCoords(x, top * 0.4);
    label->setPositionAlignment(Qt::AlignLeft | Qt::AlignVCenter);
    label->setText(QStringLiteral(" t_max = %1").arg(formatDuration(fit.tMaxNs)));
    label->setColor(kChosen);
  }
  plot_->xAxis->setLabel(tr("%1, %2 B on %3 processes (%4)")
                             .arg(QString::fromStdString(c.function))
                             .arg(c.bytes)
                             .arg(c.processes)
                             .arg(u.suffix));
  plot_->yAxis->setLabel(tr("calls"));
  plot_->xAxis->setRange(double(h.minNs) / u.divisor - w, maxNs / u.divisor + w);
  plot_->yAxis->setRange(0, top * 1.18);
  plot_->legend->setVisible(true);
  plot_->replot(QCustomPlot::rpQueuedReplot);
}

}  // namespace perwiz::gui
