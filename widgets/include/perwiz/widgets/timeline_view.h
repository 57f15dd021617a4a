// The logviewer/Jumpshot-style timeline: one row per rank, MPI calls as coloured
// boxes, computation between them, message arrows, user states, parallel steps as alternating
// bands, a time axis and a legend; the predicted timeline drawn over the measured one or in a
// lane of its own.
//
// Data and view are apart (Tracy): the widget reads an immutable perwiz::Trace and, when set,
// the predicted times of its events; painting costs O(visible pixels), not O(events) — boxes
// narrower than a few pixels merge into one summary mark per pixel column and row, arrows
// aggregate by (row, row, pixel column) with a count.
#pragma once

#include "perwiz/predicted_times.h"
#include "perwiz/scenario.h"
#include "perwiz/trace.h"
#include "perwiz/widgets/timeline_mode.h"
#include "perwiz/widgets/timeline_model.h"

#include <QStringList>
#include <QWidget>

#include <functional>
#include <memory>
#include <optional>
#include <vector>

namespace perwiz::ui {

// What the last frame drew (painting cost grows with these, not with the event count).
struct TimelineFrameStats {
  int rows = 0;      // lanes painted
  int columns = 0;   // pixel columns of the plot
  int boxes = 0;     // event boxes drawn one by one
  int marks = 0;     // summary marks (one per pixel column and lane, or per run in vectors)
  int arrows = 0;    // message arrows (an aggregated arrow counts once)
  int texts = 0;     // labels
  double milliseconds = 0;
  bool cached = false;  // the plot pixels were reused (only the selection or hover changed)
  // The predicted boxes came from a provisional drawing (earlier tables moved by the engine's
  // shift; the exact drawing follows and the frame says so).
  bool provisional = false;
  int primitives() const { return boxes + marks + arrows + texts; }
};

struct TimelineExportOptions {
  bool wholeTrace = true;  // false: the current visible range
  bool axis = true;
  bool legend = true;
  int width = 1600;        // pixels (PNG) / points (SVG, PDF)
  int rowHeight = 24;      // per lane (a Lanes row holds two); never below kMinExportLanePx
  std::optional<TimelineMode> mode;  // the view's own when empty
  QString title;           // drawn bold above the timeline (e.g. the trace's name); empty: none
  QStringList notes;       // lines under the title (hypotheses, measured → predicted T), wrapped
  bool selection = false;  // draw the selection, its partners and highlights (not for a report)
};
inline constexpr int kMinExportLanePx = 14;

class TimelineView : public QWidget {
  Q_OBJECT

 public:
  explicit TimelineView(QWidget* parent = nullptr);
  ~TimelineView() override;

  // The measured trace; resets the view to fit it. nullptr clears. `prepared` (optional) is
  // prepareTimeline(trace), built elsewhere: used as is when it was made for this trace.
  void setTrace(std::shared_ptr<const Trace> trace, PreparedTimeline prepared = {});
  const Trace* trace() const;
  // Predicted times of every event of the trace; nullptr clears. `drawing` (optional) is their
  // drawing built elsewhere over base(): swapped in as is; without it the view builds it.
  // Mode Measured ignores them.
  void setPrediction(std::shared_ptr<const PredictedTimes> times, std::shared_ptr<const Drawing> drawing = nullptr);
  // What the view prepared for its trace (nullptr without one), for buildDrawing elsewhere.
  std::shared_ptr<const TimelineBase> base() const;
  void setMode(TimelineMode mode);
  TimelineMode mode() const;

  // Visible time range [begin, end) in trace nanoseconds.
  void setVisibleRange(TimeNs begin, TimeNs end);
  TimeNs visibleBegin() const;
  TimeNs visibleEnd() const;
  void fitAll();
  // The time axis reaches at least `end` whatever the trace's end (0: the trace's own), so that
  // a view kept in step with another run's shows the same ranges (a comparison, issue #41).
  void setAxisEnd(TimeNs end);  // F

  void setSelection(const TimelineItem& item);  // highlights the partner and the arrow too
  TimelineItem selection() const;
  // Events drawn emphasised (e.g. a domino path from the advisor); empty clears.
  void setHighlighted(const std::vector<TimelineItem>& items);

  // Widget coordinates of an event's box centre (measured drawing unless `predicted`), or a
  // point outside the widget if it is not visible. For tests and for scrolling to an event.
  QPointF eventCenter(std::uint32_t rank, std::uint32_t event, bool predicted = false) const;
  // Widget coordinates of the point at `fraction` (0 = send end, 1 = receive end) along the
  // arrow of the message whose send endpoint is `endpoint` of `rank`, or a point outside the
  // widget if the arrow is not drawn (no matched receive, rows scrolled away).
  QPointF messagePoint(std::uint32_t rank, std::uint32_t endpoint, double fraction, bool predicted = false) const;
  TimelineItem itemAt(const QPointF& pos) const;

  // Paints the whole trace (or the visible range) with axis and legend on any paint device
  // (QImage, QSvgGenerator, QPdfWriter) — the same drawing code as the screen.
  void render(QPainter& painter, const QRect& target, const TimelineExportOptions& options) const;
  // The size render() wants for `options` (height from the rank count).
  QSize exportSize(const TimelineExportOptions& options) const;

  // --- added after the first version -------------------------------------------------------
  // Measured waits of the MPI calls ([rank][mpiIndex]), shown in tooltips beside the predicted
  // ones (PredictedRank::calls); nullptr clears.
  void setMeasuredWaits(std::shared_ptr<const std::vector<TimeColumn>> waits);
  // The events drawn as partners of the selection (message partners, other members of a
  // collective), first the one P goes to.
  std::vector<TimelineItem> partners() const;
  // Scrolls (time and rows) so the item is visible; does not change the selection.
  void scrollTo(const TimelineItem& item);
  // Time marked on each rank — e.g. the communication overhead t_oh of every call, found by the
  // statistical detection — drawn as a red strip along the bottom of the measured rows, its
  // strength the marked share of each pixel column. spans[rank] holds [begin, end) pairs;
  // `label` names it in the legend. An empty `spans` clears.
  void setMarkedTime(const std::vector<std::vector<std::pair<TimeNs, TimeNs>>>& spans, const QString& label);
  TimeNs markedTimeTotal() const;  // after merging overlaps; 0 when none
  // Statistics of the last paintEvent()/render().
  TimelineFrameStats lastFrameStats() const;
  // The pixel columns of the plot as a frame in `mode` (the current one by default) would draw
  // them now: a predicted drawing built for them brings its step bands (ColumnView).
  ColumnView columnView(std::optional<TimelineMode> mode = {}) const;
  // Tooltip text of an item ("" for none), as shown on hover.
  QString toolTipFor(const TimelineItem& item) const;
  QSize sizeHint() const override;
  using QWidget::render;  // QWidget::render(QPaintDevice*, ...) stays callable (grab, tests)

 public slots:
  void goToPartner();        // P: select the (next) partner of the selection and show it
  void selectNextEvent();    // Right
  void selectPreviousEvent();  // Left
  void zoomIn();             // W
  void zoomOut();            // S
  void panLeft();            // A
  void panRight();           // D

 public:

 signals:
  void selectionChanged(const perwiz::ui::TimelineItem& item);
  void visibleRangeChanged(perwiz::TimeNs begin, perwiz::TimeNs end);
  // After every frame painted on screen (lastFrameStats() describes it).
  void framePainted();
  // Keys Z (zero wait), E (zero event), B (balance computation), V (balance volume) on the
  // selection; the window turns them into hypotheses.
  void hypothesisRequested(perwiz::HypothesisKind kind, const perwiz::ui::TimelineItem& item);
  void contextMenuRequestedFor(const perwiz::ui::TimelineItem& item, const QPoint& globalPos);

 protected:
  void paintEvent(QPaintEvent* event) override;
  void wheelEvent(QWheelEvent* event) override;
  void mousePressEvent(QMouseEvent* event) override;
  void mouseMoveEvent(QMouseEvent* event) override;
  void mouseReleaseEvent(QMouseEvent* event) override;
  void keyPressEvent(QKeyEvent* event) override;
  void resizeEvent(QResizeEvent* event) override;
  bool event(QEvent* event) override;  // tooltips
  void contextMenuEvent(QContextMenuEvent* event) override;

 private:
  struct Impl;
  std::unique_ptr<Impl> d;
};

}  // namespace perwiz::ui
