// TimelineView: view state (range, rows, selection) and input. Drawing is timeline_painter,
// geometry timeline_layout, hit testing timeline_query, the prepared data timeline_data.
#include "perwiz/widgets/timeline_view.h"

#include "perwiz/widgets/palette.h"
#include "timeline_data.h"
#include "timeline_export.h"
#include "timeline_layout.h"
#include "timeline_painter.h"
#include "timeline_query.h"

#include <QContextMenuEvent>
#include <QHelpEvent>
#include <QKeyEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QScrollBar>
#include <QToolTip>
#include <QWheelEvent>

#include <algorithm>
#include <cmath>

namespace perwiz::ui {

namespace {
constexpr TimeNs kMinSpan = 20;  // ns
constexpr int kDragThreshold = 4;
}  // namespace

struct TimelineView::Impl {
  TimelineData data;
  TimelineMode mode = TimelineMode::Measured;
  TimeNs begin = 0, end = 1;
  int scrollY = 0;
  TimelineItem selection;
  std::vector<TimelineItem> partners;
  std::vector<TimelineItem> highlighted;
  PaintCache cache;
  TimelineFrameStats stats;
  QScrollBar* vbar = nullptr;

  enum class Drag { None, Pan, Band } drag = Drag::None;
  Qt::MouseButton button = Qt::NoButton;
  QPointF pressPos, bandNow;
  TimeNs pressBegin = 0;
  int pressScroll = 0;
  bool moved = false;
  bool pendingContextMenu = false;
  QPoint contextGlobal;

  TimeNs total() const { return std::max<TimeNs>({data.end(), axisEnd, 1}); }
  TimeNs axisEnd = 0;  // setAxisEnd

  TimelineLayout layoutFor(const QWidget* w, bool withBar) const { return layoutFor(w, withBar, mode); }
  TimelineLayout layoutFor(const QWidget* w, bool withBar, TimelineMode inMode) const {
    LayoutInput in;
    in.area = QRect(0, 0, w->width() - (withBar ? vbar->sizeHint().width() : 0), w->height());
    in.begin = begin;
    in.end = end;
    in.mode = inMode;
    in.scrollY = scrollY;
    in.font = w->font();
    in.legendMaxLines = 3;
    return computeLayout(data, in);
  }
  TimelineLayout layout(const QWidget* w) const { return layoutFor(w, vbar && vbar->isVisible()); }
  // The layout in `m` as resizeEvent makes it: with the scroll bar (*needBar) where the rows do
  // not fit.
  TimelineLayout fitted(const QWidget* w, TimelineMode m, bool* needBar = nullptr) const {
    const TimelineLayout full = layoutFor(w, false, m);
    const bool need = full.contentHeight() > full.plot.height();
    if (needBar) *needBar = need;
    return need ? layoutFor(w, true, m) : full;
  }
};

TimelineView::TimelineView(QWidget* parent) : QWidget(parent), d(std::make_unique<Impl>()) {
  setFocusPolicy(Qt::StrongFocus);
  setMouseTracking(true);
  setMinimumSize(240, 120);
  setAttribute(Qt::WA_OpaquePaintEvent);
  d->vbar = new QScrollBar(Qt::Vertical, this);
  d->vbar->hide();
  connect(d->vbar, &QScrollBar::valueChanged, this, [this](int v) {
    if (v == d->scrollY) return;
    d->scrollY = v;
    update();
  });
}

TimelineView::~TimelineView() = default;

QSize TimelineView::sizeHint() const { return {960, 540}; }

void TimelineView::setTrace(std::shared_ptr<const Trace> trace, PreparedTimeline prepared) {
  d->data.setTrace(std::move(trace), std::move(prepared));
  d->selection = {};
  d->partners.clear();
  d->highlighted.clear();
  d->scrollY = 0;
  resizeEvent(nullptr);
  fitAll();
  update();
  emit selectionChanged(d->selection);
}

const Trace* TimelineView::trace() const { return d->data.trace(); }

std::shared_ptr<const TimelineBase> TimelineView::base() const { return d->data.base(); }

void TimelineView::setPrediction(std::shared_ptr<const PredictedTimes> times, std::shared_ptr<const Drawing> drawing) {
  d->data.setPrediction(std::move(times), std::move(drawing));
  // The range may now exceed the trace (or have room for a longer prediction).
  setVisibleRange(d->begin, d->end);
  resizeEvent(nullptr);
  update();
}

void TimelineView::setMeasuredWaits(std::shared_ptr<const std::vector<TimeColumn>> waits) {
  d->data.setMeasuredWaits(std::move(waits));
}

void TimelineView::setMarkedTime(const std::vector<std::vector<std::pair<TimeNs, TimeNs>>>& spans,
                                 const QString& label) {
  d->data.setMarked(spans.empty() ? nullptr : std::make_shared<const TimeShading>(spans), label);
  update();
}

TimeNs TimelineView::markedTimeTotal() const { return d->data.marked() ? d->data.marked()->total() : 0; }

void TimelineView::setMode(TimelineMode mode) {
  if (mode == d->mode) return;
  d->mode = mode;
  resizeEvent(nullptr);  // lanes need taller rows
  update();
}

TimelineMode TimelineView::mode() const { return d->mode; }

void TimelineView::setVisibleRange(TimeNs begin, TimeNs end) {
  const TimeNs total = d->total();
  TimeNs span = std::clamp<TimeNs>(end - begin, std::min(kMinSpan, total), total);
  begin = std::clamp<TimeNs>(begin, 0, total - span);
  if (begin == d->begin && begin + span == d->end) return;
  d->begin = begin;
  d->end = begin + span;
  update();
  emit visibleRangeChanged(d->begin, d->end);
}

TimeNs TimelineView::visibleBegin() const { return d->begin; }
TimeNs TimelineView::visibleEnd() const { return d->end; }

void TimelineView::fitAll() { setVisibleRange(0, d->total()); }

void TimelineView::setAxisEnd(TimeNs end) {
  if (end == d->axisEnd) return;
  d->axisEnd = std::max<TimeNs>(end, 0);
  resizeEvent(nullptr);
  update();
}

void TimelineView::setSelection(const TimelineItem& item) {
  if (item == d->selection) return;
  d->selection = item;
  d->partners = partnersOf(d->data, item);
  update();
  emit selectionChanged(item);
}

TimelineItem TimelineView::selection() const { return d->selection; }

std::vector<TimelineItem> TimelineView::partners() const { return d->partners; }

void TimelineView::setHighlighted(const std::vector<TimelineItem>& items) {
  d->highlighted = items;
  update();
}

QPointF TimelineView::eventCenter(std::uint32_t rank, std::uint32_t event, bool predicted) const {
  const QPointF outside(-1, -1);
  if (!d->data.trace() || rank >= d->data.rankCount() || event >= d->data.trace()->ranks[rank].size())
    return outside;
  const TimelineLayout L = d->layout(this);
  const bool pred = shownDrawing(d->mode, d->data.hasPrediction(), predicted);
  QRectF box = eventBox(d->data, L, rank, event, pred);
  const int row = L.rowTop(rank);
  if (row + L.rowHeight <= L.plot.top() || row >= L.plot.top() + L.plot.height()) return outside;
  box = box.intersected(QRectF(L.plot));
  if (box.isEmpty()) return outside;
  return box.center();
}

QPointF TimelineView::messagePoint(std::uint32_t rank, std::uint32_t endpoint, double fraction, bool predicted) const {
  TimelineItem it;
  it.kind = TimelineItem::Kind::Message;
  it.rank = rank;
  it.event = endpoint;
  const TimelineLayout L = d->layout(this);
  QPointF a, b;
  if (!messageArrow(d->data, L, it, shownDrawing(d->mode, d->data.hasPrediction(), predicted), a, b))
    return QPointF(-1, -1);
  const QPointF at = a + (b - a) * fraction;
  return QRectF(L.plot).contains(at) ? at : QPointF(-1, -1);
}

TimelineItem TimelineView::itemAt(const QPointF& pos) const {
  return hitTest(d->data, d->layout(this), d->mode, pos);
}

QString TimelineView::toolTipFor(const TimelineItem& item) const { return toolTipText(d->data, item); }

TimelineFrameStats TimelineView::lastFrameStats() const { return d->stats; }

ColumnView TimelineView::columnView(std::optional<TimelineMode> mode) const {
  const TimelineLayout L = d->fitted(this, mode.value_or(d->mode));
  if (L.plot.width() <= 0) return {};
  return ColumnView{L.begin, L.nsPerPx(), L.plot.width(), L.firstVisibleRow(), L.endVisibleRow()};
}

void TimelineView::render(QPainter& painter, const QRect& target, const TimelineExportOptions& options) const {
  const TimelineMode mode = options.mode.value_or(d->mode);
  const ExportHeader header = exportHeader(font(), options, target.width());
  LayoutInput in = exportLayoutInput(d->data, mode, options);
  in.area = target.adjusted(0, header.height, 0, 0);
  in.begin = options.wholeTrace ? 0 : d->begin;
  in.end = options.wholeTrace ? d->total() : d->end;
  in.font = font();
  const TimelineLayout L = computeLayout(d->data, in);
  PaintState st;
  st.mode = mode;
  if (options.selection) {
    st.selection = d->selection;
    st.partners = d->partners;
    st.highlighted = d->highlighted;
  }
  st.legendMaxLines = kExportLegendLines;
  st.legendAllFunctions = options.wholeTrace;
  st.viewLabel = false;  // the legend (and the header) say which view it is
  PaintCache cache;
  painter.save();
  painter.setFont(font());
  painter.setClipRect(target);
  drawExportHeader(painter, header, options, target);
  paintTimeline(painter, d->data, L, st, cache, d->stats);
  painter.restore();
}

QSize TimelineView::exportSize(const TimelineExportOptions& options) const {
  const TimelineMode mode = options.mode.value_or(d->mode);
  const int width = std::max(200, options.width);
  const ExportHeader header = exportHeader(font(), options, width);
  LayoutInput in = exportLayoutInput(d->data, mode, options);
  in.area = QRect(0, 0, width, 1 << 20);
  in.font = font();
  const TimelineLayout L = computeLayout(d->data, in);
  const int h = L.plot.top() + std::max(L.contentHeight(), L.rowHeight) + L.axis.height() + L.legend.height() + 2;
  return {width, header.height + h};
}

void TimelineView::paintEvent(QPaintEvent*) {
  QPainter p(this);
  const TimelineLayout L = d->layout(this);
  // Beside the plot's scroll bar, under it (the axis and legend rows): the frame's background.
  if (L.area.right() + 1 < width())
    p.fillRect(QRect(L.area.right() + 1, 0, width() - L.area.right() - 1, height()), Qt::white);
  PaintState st;
  st.mode = d->mode;
  st.selection = d->selection;
  st.partners = d->partners;
  st.highlighted = d->highlighted;
  st.legendMaxLines = 3;
  paintTimeline(p, d->data, L, st, d->cache, d->stats);
  if (d->drag == Impl::Drag::Band && d->moved) {
    const double x0 = std::clamp(std::min(d->pressPos.x(), d->bandNow.x()), double(L.plot.left()), double(L.plot.right()));
    const double x1 = std::clamp(std::max(d->pressPos.x(), d->bandNow.x()), double(L.plot.left()), double(L.plot.right()));
    const QRectF band(QPointF(x0, L.plot.top()), QPointF(x1, L.plot.bottom()));
    p.fillRect(band, QColor(40, 110, 220, 50));
    p.setPen(QPen(QColor(40, 110, 220), 1));
    p.drawRect(band);
  }
  if (hasFocus() && d->data.trace()) {
    p.setPen(QPen(QColor(40, 110, 220, 120), 1));
    p.drawRect(rect().adjusted(0, 0, -1, -1));
  }
  p.end();
  emit framePainted();
}

void TimelineView::resizeEvent(QResizeEvent* event) {
  if (event) QWidget::resizeEvent(event);
  // Rows that do not fit get a vertical scroll bar.
  bool need = false;
  const TimelineLayout L = d->fitted(this, d->mode, &need);
  const int sbw = d->vbar->sizeHint().width();
  d->vbar->setVisible(need);
  if (need) {
    d->vbar->setGeometry(width() - sbw, L.plot.top(), sbw, L.plot.height());
    d->vbar->setRange(0, std::max(0, L.contentHeight() - L.plot.height()));
    d->vbar->setPageStep(L.plot.height());
    d->vbar->setSingleStep(std::max(1, L.rowHeight));
    d->scrollY = std::clamp(d->scrollY, 0, d->vbar->maximum());
    d->vbar->setValue(d->scrollY);
  } else {
    d->scrollY = 0;
  }
  update();
}

void TimelineView::zoomIn() {
  const TimeNs span = d->end - d->begin, c = d->begin + span / 2;
  setVisibleRange(c - span / 4, c + span / 4);
}

void TimelineView::zoomOut() {
  const TimeNs span = d->end - d->begin, c = d->begin + span / 2;
  setVisibleRange(c - span, c + span);
}

void TimelineView::panLeft() {
  const TimeNs s = std::max<TimeNs>((d->end - d->begin) / 5, 1);
  setVisibleRange(d->begin - s, d->end - s);
}

void TimelineView::panRight() {
  const TimeNs s = std::max<TimeNs>((d->end - d->begin) / 5, 1);
  setVisibleRange(d->begin + s, d->end + s);
}

void TimelineView::scrollTo(const TimelineItem& item) {
  const Trace* tr = d->data.trace();
  if (!tr || item.kind == TimelineItem::Kind::None || item.rank >= tr->rankCount()) return;
  const bool pred = shownDrawing(d->mode, d->data.hasPrediction(), item.predicted);
  TimeNs a = 0, b = 0;
  if (item.kind == TimelineItem::Kind::Event) {
    if (item.event >= tr->ranks[item.rank].size()) return;
    const RankTimes& t = d->data.drawing(pred).times[item.rank];
    a = t.enter[item.event];
    b = t.leave[item.event];
  } else if (item.kind == TimelineItem::Kind::Message) {
    const MessageEnds m = messageEnds(*tr, item);
    if (!m.send || !m.recv) return;
    a = d->data.endpointTime(pred, item.rank, *m.send);
    b = d->data.endpointTime(pred, m.recvRank, *m.recv);
    if (b < a) std::swap(a, b);
  } else if (!d->data.stepSpan(pred, item.step, item.rank, a, b)) {
    return;
  }
  const TimeNs span = d->end - d->begin;
  if (b - a > span * 9 / 10) {  // too wide for the view: fit it with a margin
    const TimeNs m = std::max<TimeNs>((b - a) / 10, 1);
    setVisibleRange(a - m, b + m);
  } else if (a < d->begin || b > d->end) {
    const TimeNs c = a + (b - a) / 2;
    setVisibleRange(c - span / 2, c - span / 2 + span);
  }
  const TimelineLayout L = d->layout(this);
  const int top = int(item.rank) * L.rowHeight;
  if (top < d->scrollY || top + L.rowHeight > d->scrollY + L.plot.height()) {
    const int v = std::max(0, top - (L.plot.height() - L.rowHeight) / 2);
    if (d->vbar->isVisible()) d->vbar->setValue(std::min(v, d->vbar->maximum()));
  }
  update();
}

void TimelineView::goToPartner() {
  if ((d->selection.kind != TimelineItem::Kind::Event && d->selection.kind != TimelineItem::Kind::Message) ||
      d->partners.empty())
    return;
  const TimelineItem target = d->partners.front();
  setSelection(target);
  scrollTo(target);
}

void TimelineView::selectNextEvent() {
  const TimelineItem n = neighbourEvent(d->data, d->selection, +1);
  if (n.kind == TimelineItem::Kind::None) return;
  setSelection(n);
  scrollTo(n);
}

void TimelineView::selectPreviousEvent() {
  const TimelineItem n = neighbourEvent(d->data, d->selection, -1);
  if (n.kind == TimelineItem::Kind::None) return;
  setSelection(n);
  scrollTo(n);
}

void TimelineView::wheelEvent(QWheelEvent* event) {
  const QPoint delta = event->angleDelta();
  const TimelineLayout L = d->layout(this);
  // Shift or Alt, or the wheel over the rank names, scrolls the rows.
  const bool vertical =
      (event->modifiers() & (Qt::ShiftModifier | Qt::AltModifier)) || event->position().x() < L.plot.left();
  if (vertical || (delta.y() == 0 && delta.x() == 0)) {
    const int dy = delta.y() != 0 ? delta.y() : delta.x();
    if (d->vbar->isVisible()) d->vbar->setValue(d->vbar->value() - dy / 2);
    event->accept();
    return;
  }
  if (delta.x() != 0 && std::abs(delta.x()) > std::abs(delta.y())) {  // horizontal wheel: pan
    const TimeNs shift = TimeNs(-delta.x() / 120.0 * 0.1 * double(d->end - d->begin));
    setVisibleRange(d->begin + shift, d->end + shift);
    event->accept();
    return;
  }
  const double factor = std::pow(0.8, delta.y() / 120.0);
  const double frac = std::clamp((event->position().x() - L.plot.left()) / std::max(1, L.plot.width()), 0.0, 1.0);
  const double span = double(d->end - d->begin);
  const double anchor = double(d->begin) + frac * span;
  const double ns = std::max(double(kMinSpan), span * factor);
  const TimeNs b = TimeNs(std::llround(anchor - frac * ns));
  setVisibleRange(b, b + TimeNs(std::llround(ns)));
  event->accept();
}

void TimelineView::mousePressEvent(QMouseEvent* event) {
  setFocus(Qt::MouseFocusReason);
  d->pressPos = event->position();
  d->bandNow = event->position();
  d->pressBegin = d->begin;
  d->pressScroll = d->scrollY;
  d->moved = false;
  d->button = event->button();
  if (event->button() == Qt::LeftButton)
    d->drag = (event->modifiers() & Qt::ShiftModifier) ? Impl::Drag::Band : Impl::Drag::Pan;
  else if (event->button() == Qt::MiddleButton || event->button() == Qt::RightButton)
    d->drag = Impl::Drag::Band;
  else
    d->drag = Impl::Drag::None;
  if (d->drag == Impl::Drag::Pan) setCursor(Qt::ClosedHandCursor);
  event->accept();
}

void TimelineView::mouseMoveEvent(QMouseEvent* event) {
  if (d->drag == Impl::Drag::None) return;
  const QPointF delta = event->position() - d->pressPos;
  if (!d->moved && std::abs(delta.x()) + std::abs(delta.y()) < kDragThreshold) return;
  d->moved = true;
  if (d->drag == Impl::Drag::Pan) {
    const TimelineLayout L = d->layout(this);
    const TimeNs span = d->end - d->begin;
    const TimeNs b = d->pressBegin - TimeNs(delta.x() * L.nsPerPx());
    setVisibleRange(b, b + span);
    if (d->vbar->isVisible()) d->vbar->setValue(d->pressScroll - int(delta.y()));
  } else {
    d->bandNow = event->position();
    update();
  }
}

void TimelineView::mouseReleaseEvent(QMouseEvent* event) {
  if (event->button() != d->button) return;
  const Impl::Drag drag = d->drag;
  d->drag = Impl::Drag::None;
  unsetCursor();
  if (drag == Impl::Drag::Band && d->moved) {
    const TimelineLayout L = d->layout(this);
    const double x0 = std::min(d->pressPos.x(), event->position().x());
    const double x1 = std::max(d->pressPos.x(), event->position().x());
    if (x1 - x0 >= kDragThreshold) setVisibleRange(L.time(x0), L.time(x1));
    d->pendingContextMenu = false;
    update();
    return;
  }
  if (!d->moved && event->button() == Qt::LeftButton) setSelection(itemAt(event->position()));
  if (!d->moved && event->button() == Qt::RightButton && d->pendingContextMenu) {
    d->pendingContextMenu = false;
    const TimelineItem it = itemAt(event->position());
    if (it.kind != TimelineItem::Kind::None) setSelection(it);
    emit contextMenuRequestedFor(it, d->contextGlobal);
  }
  d->pendingContextMenu = false;
  update();
}

void TimelineView::contextMenuEvent(QContextMenuEvent* event) {
  if (event->reason() == QContextMenuEvent::Mouse && d->drag == Impl::Drag::Band && d->button == Qt::RightButton) {
    // Wait for the release: a right drag selects a range instead.
    d->pendingContextMenu = true;
    d->contextGlobal = event->globalPos();
    event->accept();
    return;
  }
  TimelineItem it;
  QPoint global = event->globalPos();
  if (event->reason() == QContextMenuEvent::Mouse) {
    it = itemAt(event->pos());
    if (it.kind != TimelineItem::Kind::None) setSelection(it);
  } else {
    it = d->selection;
    const QPointF c = it.kind == TimelineItem::Kind::Event     ? eventCenter(it.rank, it.event, it.predicted)
                      : it.kind == TimelineItem::Kind::Message ? messagePoint(it.rank, it.event, 0.5, it.predicted)
                                                               : QPointF(-1, -1);
    if (c.x() >= 0) global = mapToGlobal(c.toPoint());
  }
  emit contextMenuRequestedFor(it, global);
  event->accept();
}

void TimelineView::keyPressEvent(QKeyEvent* event) {
  const TimelineItem s = d->selection;
  const bool isEvent = s.kind == TimelineItem::Kind::Event;
  const bool isStep = s.kind == TimelineItem::Kind::Step;
  switch (event->key()) {
    case Qt::Key_F: case Qt::Key_Home: fitAll(); break;
    case Qt::Key_W: case Qt::Key_Plus: case Qt::Key_Equal: zoomIn(); break;
    case Qt::Key_S: case Qt::Key_Minus: zoomOut(); break;
    case Qt::Key_A: panLeft(); break;
    case Qt::Key_D: panRight(); break;
    case Qt::Key_Left: selectPreviousEvent(); break;
    case Qt::Key_Right: selectNextEvent(); break;
    case Qt::Key_Up: case Qt::Key_Down: {
      if (!isEvent && !isStep) break;
      const int r = int(s.rank) + (event->key() == Qt::Key_Up ? -1 : 1);
      if (r < 0 || r >= int(d->data.rankCount())) break;
      const bool pred = shownDrawing(d->mode, d->data.hasPrediction(), s.predicted);
      TimeNs t = d->begin + (d->end - d->begin) / 2;
      if (isEvent) {
        const RankTimes& rt = d->data.drawing(pred).times[s.rank];
        t = rt.enter[s.event] + (rt.leave[s.event] - rt.enter[s.event]) / 2;
      }
      TimelineItem n;
      if (isStep) {
        n = s;
        n.rank = std::uint32_t(r);
      } else {
        n = eventNear(d->data, std::uint32_t(r), t, pred);
      }
      if (n.kind != TimelineItem::Kind::None) {
        setSelection(n);
        scrollTo(n);
      }
      break;
    }
    case Qt::Key_P: goToPartner(); break;
    case Qt::Key_Z:  // a message: its receive's wait (the window maps it to the receiving call)
      if (isEvent || s.kind == TimelineItem::Kind::Message) emit hypothesisRequested(HypothesisKind::ZeroWait, s);
      break;
    case Qt::Key_E: if (isEvent) emit hypothesisRequested(HypothesisKind::ZeroEvent, s); break;
    case Qt::Key_B: if (isStep) emit hypothesisRequested(HypothesisKind::BalanceCompute, s); break;
    case Qt::Key_V: if (isStep) emit hypothesisRequested(HypothesisKind::BalanceVolume, s); break;
    case Qt::Key_Escape: setSelection({}); break;
    default: QWidget::keyPressEvent(event); return;
  }
  event->accept();
}

bool TimelineView::event(QEvent* event) {
  if (event->type() == QEvent::ToolTip) {
    auto* help = static_cast<QHelpEvent*>(event);
    const TimelineItem it = itemAt(help->pos());
    QString text = toolTipText(d->data, it);
    if (text.isEmpty()) text = threadToolTip(d->data, d->layout(this), help->pos());
    if (text.isEmpty()) {
      QToolTip::hideText();
      event->ignore();
    } else {
      QToolTip::showText(help->globalPos(), text, this);
    }
    return true;
  }
  return QWidget::event(event);
}

}  // namespace perwiz::ui
