#include "timeline_painter.h"

#include "palette.h"
#include "pixel_canvas.h"
#include "time_axis.h"
#include "timeline_data.h"
#include "timeline_legend.h"

#include <QElapsedTimer>
#include <QFontMetrics>
#include <QPaintEngine>
#include <QPainter>

#include <algorithm>
#include <cmath>
#include <memory>
#include <thread>

namespace perwiz::ui {

namespace {

constexpr int kArrowBudget = 6000;    // arrows (aggregated or not) per frame, all drawings
constexpr int kArrowHeadsUpTo = 1500;  // draw heads when there are at most this many
constexpr int kCountLabels = 150;
constexpr int kBoxLabels = 250;

QColor mix(const QColor& a, const QColor& b, double t) {
  return QColor(int(a.red() + (b.red() - a.red()) * t + 0.5), int(a.green() + (b.green() - a.green()) * t + 0.5),
                int(a.blue() + (b.blue() - a.blue()) * t + 0.5));
}

QColor styled(const QColor& c, LaneStyle s) {
  return s == LaneStyle::Faded ? mix(c, colors::background, 0.62) : c;
}

// Cuts the segment a-b to the x range the layout keeps coordinates in (see xc()).
void clipToMargin(QPointF& a, QPointF& b, const TimelineLayout& L) {
  const double lo = L.plot.left() - TimelineLayout::kMargin;
  const double hi = L.plot.left() + L.plot.width() + TimelineLayout::kMargin;
  auto cut = [&](QPointF& p, const QPointF& q, double x) {
    const double f = (x - p.x()) / (q.x() - p.x());
    p = QPointF(x, p.y() + (q.y() - p.y()) * f);
  };
  if (a.x() < lo && b.x() > lo) cut(a, b, lo);
  if (b.x() < lo && a.x() > lo) cut(b, a, lo);
  if (a.x() > hi && b.x() < hi) cut(a, b, hi);
  if (b.x() > hi && a.x() < hi) cut(b, a, hi);
  a.setX(std::clamp(a.x(), lo, hi));
  b.setX(std::clamp(b.x(), lo, hi));
}

struct Frame {
  QPainter& p;
  const TimelineData& data;
  const TimelineLayout& L;
  const PaintState& state;
  PaintCache& cache;
  TimelineFrameStats& stats;
  Canvas* canvas = nullptr;
  LaneSpec specs[2] = {};
  int lanes = 1;
  int W = 0;
  std::vector<BoxLabel> labels{};
  int fontHeight = 0;
  std::vector<QRgb> fnNormal{}, fnFaded{};  // opaque colours per function
  // Summary-mark colours per [style][fn * kMarkLevels + level]: the function's colour with the
  // alpha that a column's busy fraction gives, quantised to kMarkLevels steps (a table load per
  // column instead of two premultiplications; the steps are below what the eye tells apart).
  static constexpr int kMarkLevels = 33;
  std::vector<QRgb> markColor[3]{};
  // Box colours per function: [style][fn] fill and edge (premultiplied).
  std::vector<QRgb> boxFill[3]{}, boxEdge[3]{};
  QRgb bandColor[3][3] = {};            // [style][background, even, odd]

  std::vector<AxisTick> gridTicks{};

  void rows(std::uint32_t from, std::uint32_t to, PaintScratch& w);
  void bands(std::uint32_t r, int lane, PaintScratch& w);
  void content(std::uint32_t r, int lane, PaintScratch& w);
  void markedStrip(std::uint32_t r, PaintScratch& w);
  void arrows(const LaneSpec& spec);
  void selection();
  void rankLabels();
  void axis(const AxisTicks& ticks);
  void boxLabels();
  int laneY(std::uint32_t r, bool predicted) const {
    return L.lane(r, predicted && L.lanes).center();
  }
};

void Frame::rows(std::uint32_t from, std::uint32_t to, PaintScratch& w) {
  const QRgb sep = premul(colors::separator), laneSep = premul(QColor(242, 242, 242));
  const QRgb grid = premul(QColor(0, 0, 0), 0.06);
  for (std::uint32_t r = from; r < to; ++r) {
    for (int k = 0; k < lanes; ++k) bands(r, k, w);
    const int top = L.rowTop(r);
    if (L.rowHeight >= 8) canvas->fill(L.plot.left(), top + L.rowHeight - 1, L.plot.left() + W, top + L.rowHeight, sep);
    if (L.lanes && L.rowHeight >= 12) {
      const int y = L.lane(r, true).top;
      canvas->fill(L.plot.left(), y, L.plot.left() + W, y + 1, laneSep);
    }
    for (const AxisTick& t : gridTicks) {
      const int x = L.xi(t.time);
      canvas->fill(x, top, x + 1, top + L.rowHeight, grid);
    }
    for (int k = 0; k < lanes; ++k) content(r, k, w);
    if (data.marked() && !specs[0].predicted) markedStrip(r, w);  // lane 0 is measured if any is
  }
}

void Frame::markedStrip(std::uint32_t r, PaintScratch& w) {
  // The measured lane's bottom quarter (at least 2 px), red in proportion to the marked share
  // of each column: a call with overhead shows even when it is far narrower than a pixel.
  const TimelineLayout::Span lane = L.lane(r, false);
  if (lane.height() < 3) return;
  const int h = std::max(2, lane.height() / 4);
  float* frac = w.fractions.data();
  if (!data.marked()->columnFractions(r, L.begin, L.nsPerPx(), W, frac)) return;
  auto& col = w.colors;
  const QRgb base = colors::marked.rgb() | 0xff000000u;
  for (int c = 0; c < W; ++c)
    col[c] = frac[c] > 0.f ? withAlpha(base, std::uint32_t(110.f + 145.f * frac[c])) : 0;
  canvas->columns(L.plot.left(), lane.bottom - h, lane.bottom, col.data(), W);
}

void Frame::bands(std::uint32_t r, int k, PaintScratch& w) {
  // Every pixel of the lane is written here (the canvas is not cleared beforehand).
  const LaneSpec& spec = specs[k];
  const int W = this->W;
  const Drawing& d = data.drawing(spec.predicted);
  const RankSteps& rs = d.steps[r];
  TimelineLayout::Span lane = L.lane(r, spec.predicted && L.lanes);
  const QRgb* pal = bandColor[int(spec.style)];
  auto& band = w.band[k];
  if (spec.style == LaneStyle::Outline) {  // predicted steps: a strip under the measured row
    if (lane.height() < 12) return;
    lane.top = lane.bottom - 3;
  }
  auto it = std::partition_point(rs.end.begin(), rs.end.end(), [&](TimeNs e) { return e <= L.begin; });
  std::size_t i = std::size_t(it - rs.end.begin());
  const std::size_t n = rs.step.size();
  if (i >= n || rs.begin[i] >= L.end) {
    std::fill(band.begin(), band.end(), pal[0]);
    canvas->fill(L.plot.left(), lane.top, L.plot.left() + W, lane.bottom, pal[0]);
    return;
  }
  // Each pixel column takes the step under its centre (exact for steps of a pixel or more;
  // narrower ones alias, which a background can afford): O(columns + steps).
  const double inv = 1.0 / L.nsPerPx();
  auto column = [&](TimeNs t) {  // first column whose centre is at or after t
    const double x = double(t - L.begin) * inv - 0.5;
    if (x <= 0) return 0;
    if (x >= W) return W;
    const int c = int(x);
    return c < x ? c + 1 : c;
  };
  int c = 0;
  for (; i < n && rs.begin[i] < L.end && c < W; ++i) {
    const int c0 = std::max(c, column(rs.begin[i]));
    const int c1 = std::max(c0, column(rs.end[i]));
    std::fill(band.begin() + c, band.begin() + c0, pal[0]);
    std::fill(band.begin() + c0, band.begin() + c1, pal[1 + (rs.step[i] & 1u)]);
    c = c1;
  }
  std::fill(band.begin() + c, band.begin() + W, pal[0]);
  canvas->row(L.plot.left(), lane.top, lane.bottom, band.data(), W);
}

void Frame::content(std::uint32_t r, int laneIndex, PaintScratch& w) {
  const LaneSpec& spec = specs[laneIndex];
  const Drawing& d = data.drawing(spec.predicted);
  const RankTimes& t = d.times[r];
  const RankLod& lod = d.lod[r];
  const RankShape& shape = data.shape(r);
  const TimelineLayout::Span lane = L.lane(r, spec.predicted && L.lanes);
  const double px = L.nsPerPx();
  ++w.stats.rows;

  // Computation: a thin line over the rank's active span.
  if (spec.style != LaneStyle::Outline && lod.lastLeave > lod.firstEnter && lane.height() >= 3) {
    const int x0 = L.xi(lod.firstEnter);
    const int x1 = L.xi(lod.lastLeave);
    const QColor c = spec.style == LaneStyle::Faded ? mix(colors::rowLine, colors::background, 0.5)
                                                    : colors::rowLine;
    canvas->fill(x0, lane.center(), x1, lane.center() + 1, premul(c));
  }

  auto& marks = w.marks;  // kept zeroed between lanes
  auto& boxes = w.boxes;
  boxes.clear();
  LaneQuery q;
  q.begin = L.begin;
  q.end = L.end;
  q.nsPerPx = px;
  q.columns = W;
  const auto [m0, m1] = queryLane(d.grid, lod, t, shape, data.roles(), q, marks.data(), boxes);

  // Boxes, shallow first so nested ones end on top.
  std::sort(boxes.begin(), boxes.end(), [&](std::uint32_t a, std::uint32_t b) {
    return shape.depth[a] != shape.depth[b] ? shape.depth[a] < shape.depth[b] : a < b;
  });
  // Overlay: the measured (faded) lane records the colour it leaves in each column of its
  // top-level box area (0 = not known), so the predicted lane drawn over it can pre-blend its
  // translucent marks instead of blending pixel by pixel.
  QRgb* record = lanes == 2 && laneIndex == 0 && specs[1].style == LaneStyle::Outline ? w.band[0].data() : nullptr;
  const QRgb* under = spec.style == LaneStyle::Outline ? w.band[0].data() : nullptr;
  for (std::uint32_t i : boxes) {
    const std::uint32_t fn = t.function[i];
    int x0 = L.xi(t.enter[i]);
    int x1 = L.xi(t.leave[i]);
    if (x1 <= x0) x1 = x0 + 1;
    if (record) {
      const int c0 = std::clamp(x0 - L.plot.left(), 0, W), c1 = std::clamp(x1 - L.plot.left(), 0, W);
      std::fill(record + c0, record + c1, QRgb(0));
    }
    const TimelineLayout::Span b = L.box(lane, shape.depth[i]);
    const int st = int(spec.style);
    const QRgb edge = boxEdge[st][fn];
    if (spec.style == LaneStyle::Outline && x1 - x0 <= 3) {  // all edge anyway
      canvas->fill(x0, b.top, x1, b.bottom, edge);
    } else if (spec.style == LaneStyle::Outline) {
      canvas->fill(x0 + 1, b.top + 1, x1 - 1, b.bottom - 1, boxFill[st][fn]);
      canvas->fill(x0, b.top, x1, b.top + 1, edge);
      canvas->fill(x0, b.bottom - 1, x1, b.bottom, edge);
      canvas->fill(x0, b.top, x0 + 1, b.bottom, edge);
      canvas->fill(x1 - 1, b.top, x1, b.bottom, edge);
    } else {
      canvas->fill(x0, b.top, x1, b.bottom, boxFill[st][fn]);
      if (x1 - x0 >= 6 && b.height() >= 6) {  // separate neighbours of the same colour
        canvas->fill(x0, b.top, x0 + 1, b.bottom, edge);
        canvas->fill(x1 - 1, b.top, x1, b.bottom, edge);
      }
    }
    ++w.stats.boxes;
    w.visibleFns[fn] = 1;
    if (spec.style != LaneStyle::Faded && int(w.labels.size()) < kBoxLabels && b.height() >= fontHeight - 2) {
      const int vx0 = std::max(x0, L.plot.left()), vx1 = std::min(x1, L.plot.right());
      if (vx1 - vx0 >= cache.nameWidth[fn] + 8) w.labels.push_back({QRect(vx0, b.top, vx1 - vx0, b.height()), fn});
    }
  }

  // Summary marks of the narrow events, grouped by nesting depth (few groups).
  auto& col = w.colors;
  std::int8_t groupOf[64];
  std::fill(std::begin(groupOf), std::end(groupOf), std::int8_t(-1));
  std::uint8_t depths[8];
  int nd = 0;
  bool points = false;
  const QRgb* markLut = markColor[int(spec.style)].data();
  const float levelScale = float(kMarkLevels - 1) / float(px);
  // Top-level marks in a lane of its own sit on the step band only: pre-blend them with it so
  // the canvas copies them (opaque) instead of blending pixel by pixel.
  const QRgb* band = spec.style == LaneStyle::Outline ? nullptr : w.band[laneIndex].data();
  const std::uint32_t fnCount = data.functionCount();
  int lastDep = -1, lastGroup = 0;
  bool opaque = true;
  auto& group = w.group;
  auto& pointCols = w.pointCols;
  pointCols.clear();
  for (int c = m0; c < m1; ++c) {
    ColumnMark& m = marks[c];
    if (m.point) pointCols.push_back(c);
    if (m.busy <= 0.f || m.fn >= fnCount) {
      col[c] = 0;
      m = ColumnMark{};
      continue;
    }
    const int level = std::min(kMarkLevels - 1, int(m.busy * levelScale + 0.5f));
    col[c] = markLut[m.fn * kMarkLevels + level];
    w.visibleFns[m.fn] = 1;
    ++w.stats.marks;
    const std::uint8_t dep = std::min<std::uint8_t>(m.depth, 63);
    if (band && dep == 0) col[c] = over(col[c], band[c]);
    else if (under && dep == 0 && under[c]) col[c] = over(col[c], under[c]);
    if (record) record[c] = dep == 0 ? col[c] : 0;
    opaque = opaque && qAlpha(col[c]) == 255;
    if (dep != lastDep) {
      if (groupOf[dep] < 0) {
        if (nd < 8) {
          depths[nd] = dep;
          groupOf[dep] = std::int8_t(nd++);
        } else {
          groupOf[dep] = 7;
        }
      }
      lastDep = dep;
      lastGroup = groupOf[dep];
    }
    group[c] = std::uint8_t(lastGroup);
    m = ColumnMark{};  // marks are kept zeroed between lanes
  }
  points = !pointCols.empty();
  for (int k = 0; k < nd; ++k) {
    const TimelineLayout::Span b = L.box(lane, depths[k]);
    const QRgb* src = col.data();
    if (nd > 1) {
      auto& c2 = w.colors2;
      for (int c = m0; c < m1; ++c) c2[c] = col[c] && group[c] == k ? col[c] : 0;
      src = c2.data();
    }
    if (opaque) canvas->opaqueColumns(L.plot.left() + m0, b.top, b.bottom, src + m0, m1 - m0);
    else canvas->columns(L.plot.left() + m0, b.top, b.bottom, src + m0, m1 - m0);
  }
  if (points) {
    const TimelineLayout::Span tk = L.tick(lane);
    const QRgb pc = premul(styled(colors::point, spec.style));
    std::fill(col.begin() + m0, col.begin() + m1, QRgb(0));
    for (int c : pointCols) col[c] = pc;
    canvas->columns(L.plot.left() + m0, tk.top, tk.bottom, col.data() + m0, m1 - m0);
  }
}

void Frame::boxLabels() {
  if (labels.empty()) return;
  p.save();
  p.setPen(colors::text);
  for (const BoxLabel& b : labels) {
    const QColor& c = data.color(b.fn);
    const int luma = (299 * c.red() + 587 * c.green() + 114 * c.blue()) / 1000;
    p.setPen(luma < 140 ? QColor(Qt::white) : colors::text);
    const QPointF at(b.rect.left() + (b.rect.width() - cache.nameWidth[b.fn]) / 2.0,
                     b.rect.top() + (b.rect.height() - fontHeight) / 2.0);
    cache.text.draw(p, at, QString::fromStdString(data.trace()->functions[b.fn].name));
    ++stats.texts;
  }
  p.restore();
}

void Frame::arrows(const LaneSpec& spec) {
  const Drawing& d = data.drawing(spec.predicted);
  const ArrowIndex& ai = d.arrows;
  if (ai.channels.empty()) return;
  const std::uint32_t r0 = L.firstVisibleRow(), r1 = L.endVisibleRow();
  auto visible = [&](std::uint32_t r) { return r >= r0 && r < r1; };
  struct Range {
    std::uint32_t channel, lo, hi;
  };
  std::vector<Range> ranges;
  std::uint64_t total = 0;
  for (std::uint32_t c = 0; c < ai.channels.size(); ++c) {
    const auto& ch = ai.channels[c];
    if (!visible(ch.src) && !visible(ch.dst)) continue;
    const auto b = ai.send.begin();
    const auto lo = std::lower_bound(b + ch.first, b + ch.last, L.begin - ch.lag);
    const auto hi = std::lower_bound(lo, b + ch.last, L.end + ch.lead);
    if (lo == hi) continue;
    ranges.push_back({c, std::uint32_t(lo - b), std::uint32_t(hi - b)});
    total += std::uint64_t(hi - lo);
  }
  if (ranges.empty()) return;
  // Bin width (pixel columns) so the frame draws at most kArrowBudget arrows.
  int bin = 1;
  for (;; bin *= 2) {
    std::uint64_t est = 0;
    const std::uint64_t perChannel = std::uint64_t(W / bin + 2);
    for (const Range& rg : ranges) est += std::min<std::uint64_t>(rg.hi - rg.lo, perChannel);
    if (est <= std::uint64_t(kArrowBudget / lanes) || bin >= W) break;
  }
  const double px = L.nsPerPx();
  std::vector<QLineF> lines;
  struct Count {
    QPointF at;
    std::uint32_t n;
  };
  std::vector<Count> counts;
  lines.reserve(std::min<std::uint64_t>(total, kArrowBudget * 2));
  for (const Range& rg : ranges) {
    const auto& ch = ai.channels[rg.channel];
    const double ys = laneY(ch.src, spec.predicted), yd = laneY(ch.dst, spec.predicted);
    for (std::uint32_t i = rg.lo; i < rg.hi;) {
      const double xs = double(ai.send[i] - L.begin) / px;
      std::uint32_t j = i + 1;
      if (bin > 1 || (j < rg.hi && ai.send[j] - ai.send[i] < px)) {
        const double binStart = std::floor(xs / bin) * bin;
        const TimeNs binEnd = L.begin + TimeNs(std::ceil((binStart + bin) * px));
        j = std::uint32_t(std::lower_bound(ai.send.begin() + i + 1, ai.send.begin() + rg.hi, binEnd) -
                          ai.send.begin());
      }
      QPointF a(L.plot.left() + xs, ys), b(L.x(ai.recv[i]), yd);
      clipToMargin(a, b, L);
      lines.emplace_back(a, b);
      if (j - i > 1) counts.push_back({a + (b - a) * 0.6, j - i});
      i = j;
    }
  }
  stats.arrows += int(lines.size());
  p.save();
  const bool few = lines.size() <= kArrowHeadsUpTo;
  p.setRenderHint(QPainter::Antialiasing, few);
  // Aggregated or crowded arrows are drawn translucent so they do not hide the rows.
  QColor c = spec.style == LaneStyle::Faded ? colors::arrowFaded : colors::arrow;
  if (bin > 1 || L.rowHeight < 8) c.setAlpha(spec.style == LaneStyle::Faded ? 70 : 90);
  else if (spec.style == LaneStyle::Outline) c.setAlpha(200);
  p.setPen(QPen(c, 1));
  if (few && L.rowHeight >= 8) {  // heads
    const std::size_t n = lines.size();
    for (std::size_t k = 0; k < n; ++k) {
      const QLineF& l = lines[k];
      if (l.length() < 8) continue;
      const QLineF u = l.unitVector();
      const QPointF dir = (u.p2() - u.p1()) * 6.0;
      const QPointF nrm(-dir.y() * 0.5, dir.x() * 0.5);
      lines.emplace_back(l.p2(), l.p2() - dir + nrm);
      lines.emplace_back(l.p2(), l.p2() - dir - nrm);
    }
  }
  p.drawLines(lines.data(), int(lines.size()));
  if (L.rowHeight >= 10 && !counts.empty()) {
    QFont f = p.font();
    f.setPointSizeF(std::max(6.0, f.pointSizeF() * 0.8));
    p.setFont(f);
    p.setPen(c.darker(120));
    int n = 0;
    for (const Count& k : counts) {
      if (++n > kCountLabels) break;
      p.drawText(k.at + QPointF(3, -2), QString::number(k.n));
      ++stats.texts;
    }
  }
  p.restore();
}

void drawArrow(QPainter& p, const QPointF& a, const QPointF& b) {
  p.drawLine(a, b);
  const QLineF l(a, b);
  if (l.length() < 4) return;
  const QLineF u = l.unitVector();
  const QPointF dir = (u.p2() - u.p1()) * 8.0;
  const QPointF nrm(-dir.y() * 0.45, dir.x() * 0.45);
  QPolygonF head;
  head << b << b - dir + nrm << b - dir - nrm;
  p.save();
  p.setBrush(p.pen().color());
  p.drawPolygon(head);
  p.restore();
}

void Frame::selection() {
  const TimelineItem& sel = state.selection;
  const Trace& tr = *data.trace();
  p.save();
  p.setRenderHint(QPainter::Antialiasing, true);
  p.setBrush(Qt::NoBrush);
  auto outline = [&](const TimelineItem& it, const QColor& c, qreal w) {
    if (it.kind != TimelineItem::Kind::Event) return;
    for (int k = 0; k < lanes; ++k) {
      const QRectF r = eventBox(data, L, it.rank, it.event, specs[k].predicted);
      if (r.isEmpty() || !r.intersects(QRectF(L.plot))) continue;
      p.setPen(QPen(c, w));
      p.drawRect(r.adjusted(-w / 2, -w / 2, w / 2, w / 2));
    }
  };
  for (const TimelineItem& h : state.highlighted) outline(h, colors::highlight, 3);
  if (sel.kind == TimelineItem::Kind::Event && sel.rank < tr.rankCount()) {
    // Message arrows of the selected call, bold.
    const RankTrace& rt = tr.ranks[sel.rank];
    for (int k = 0; k < lanes; ++k) {
      const bool pred = specs[k].predicted;
      p.setPen(QPen(colors::partner, 2));
      for (const MessageEndpoint& m : rt.messages) {
        if ((m.event != sel.event && m.postEvent != sel.event) || !m.matched()) continue;
        if (m.matchRank >= tr.rankCount() || m.matchIndex >= tr.ranks[m.matchRank].messages.size()) continue;
        const MessageEndpoint& o = tr.ranks[m.matchRank].messages[m.matchIndex];
        QPointF here(L.x(data.endpointTime(pred, sel.rank, m)), laneY(sel.rank, pred));
        QPointF there(L.x(data.endpointTime(pred, m.matchRank, o)), laneY(m.matchRank, pred));
        clipToMargin(here, there, L);
        if (m.isSend) drawArrow(p, here, there);
        else drawArrow(p, there, here);
        ++stats.arrows;
      }
    }
    for (const TimelineItem& pt : state.partners) outline(pt, colors::partner, 2);
    outline(sel, colors::selection, 2.5);
  }
  if (sel.kind == TimelineItem::Kind::Step) {
    const std::uint32_t r0 = L.firstVisibleRow(), r1 = L.endVisibleRow();
    for (int k = 0; k < lanes; ++k) {
      const bool pred = specs[k].predicted;
      for (std::uint32_t r = r0; r < r1; ++r) {
        TimeNs b = 0, e = 0;
        if (!data.stepSpan(pred, sel.step, r, b, e)) continue;
        const TimelineLayout::Span lane = L.lane(r, pred && L.lanes);
        const QRectF rect(QPointF(L.xc(b), lane.top + 0.5), QPointF(L.xc(e), lane.bottom - 0.5));
        p.setPen(QPen(r == sel.rank ? colors::selection : colors::partner, r == sel.rank ? 2.5 : 1.5,
                      specs[k].style == LaneStyle::Outline ? Qt::DashLine : Qt::SolidLine));
        p.drawRect(rect);
      }
    }
  }
  p.restore();
}

void Frame::rankLabels() {
  const Trace& tr = *data.trace();
  const QFontMetrics fm(p.font());
  p.save();
  p.fillRect(L.labels, QColor(246, 246, 246));
  p.setPen(QColor(200, 200, 200));
  p.drawLine(L.labels.topRight(), L.labels.bottomRight());
  p.setClipRect(L.labels);
  const std::uint32_t r0 = L.firstVisibleRow(), r1 = L.endVisibleRow();
  const int every = std::max(1, (fm.height() + L.rowHeight - 1) / std::max(1, L.rowHeight));
  const std::uint32_t selRank = state.selection.kind == TimelineItem::Kind::None ? kNone32 : state.selection.rank;
  QFont bold = p.font();
  bold.setBold(true);
  QFont small = p.font();
  small.setPointSizeF(std::max(6.0, small.pointSizeF() * 0.75));
  const int tagW = L.lanes ? QFontMetrics(small).horizontalAdvance(QStringLiteral("m")) + 6 : 0;
  for (std::uint32_t r = r0; r < r1; ++r) {
    if (r % std::uint32_t(every) != 0 && r != selRank) continue;
    const int top = L.rowTop(r);
    const int h = std::max(L.rowHeight, fm.height());
    const int y = every > 1 ? top + L.rowHeight / 2 - h / 2 : top;
    p.setPen(colors::text);
    const QString name = QString::fromStdString(tr.ranks[r].name);
    if (r == selRank) {
      p.fillRect(QRect(L.labels.left(), top, L.labels.width() - 1, L.rowHeight), QColor(255, 236, 200));
      const QFont keep = p.font();
      p.setFont(bold);
      p.drawText(QRect(L.labels.left() + 6, y, L.labels.width() - 10 - tagW, h), Qt::AlignVCenter | Qt::AlignLeft, name);
      p.setFont(keep);
    } else {
      cache.text.draw(p, QPointF(L.labels.left() + 6, y + (h - fm.height()) / 2.0), name);
    }
    ++stats.texts;
    if (L.lanes && L.lane(r, false).height() >= QFontMetrics(small).height() - 2) {
      QFont keep = p.font();
      p.setFont(small);
      p.setPen(QColor(110, 110, 110));
      for (bool pred : {false, true}) {
        const TimelineLayout::Span s = L.lane(r, pred);
        p.drawText(QRect(L.labels.right() - tagW, s.top, tagW - 2, s.height()), Qt::AlignCenter,
                   pred ? QStringLiteral("p") : QStringLiteral("m"));
        stats.texts++;
      }
      p.setFont(keep);
    }
  }
  p.restore();
}

void Frame::axis(const AxisTicks& ticks) {
  if (L.axis.height() <= 0) return;
  const QFontMetrics fm(p.font());
  p.save();
  p.setPen(QColor(90, 90, 90));
  const int y = L.axis.top();
  p.drawLine(L.axis.left(), y, L.axis.right(), y);
  for (const AxisTick& t : ticks.minor) {
    const int x = L.xi(t.time);
    p.drawLine(x, y, x, y + 3);
  }
  p.setPen(colors::text);
  // Labels relative to a base ("3.08 ms +" then "1000 ns", ...): the base sits at the left end.
  int freeFrom = L.axis.left();
  if (!ticks.baseLabel.isEmpty()) {
    QFont bold = p.font();
    bold.setBold(true);
    const QFontMetrics bfm(bold);
    const int w = bfm.horizontalAdvance(ticks.baseLabel) + 8;
    const QRect box(L.axis.left() + 1, y + 6, w, fm.height());
    p.fillRect(box, QColor(255, 246, 214));
    p.save();
    p.setFont(bold);
    p.drawText(box, Qt::AlignCenter, ticks.baseLabel);
    p.restore();
    freeFrom = box.right() + 6;
    ++stats.texts;
  }
  for (const AxisTick& t : ticks.major) {
    const int x = L.xi(t.time);
    p.drawLine(x, y, x, y + 5);
    const int w = fm.horizontalAdvance(t.label);
    const int lx = std::clamp(x - w / 2, L.axis.left(), L.area.right() - w - 2);
    if (lx < freeFrom) continue;
    p.drawText(QPoint(lx, y + 6 + fm.ascent()), t.label);
    ++stats.texts;
  }
  p.restore();
}

}  // namespace

QRectF eventBox(const TimelineData& data, const TimelineLayout& L, std::uint32_t rank,
                std::uint32_t event, bool predicted) {
  const Trace* tr = data.trace();
  if (!tr || rank >= tr->rankCount() || event >= tr->ranks[rank].size()) return {};
  const Drawing& d = data.drawing(predicted);
  const RankTimes& t = d.times[rank];
  double x0 = L.xc(t.enter[event]);
  double x1 = L.xc(t.leave[event]);
  if (x1 - x0 < 3) {
    const double c = (x0 + x1) / 2;
    x0 = c - 1.5;
    x1 = c + 1.5;
  }
  const TimelineLayout::Span lane = L.lane(rank, predicted && d.predicted && L.lanes);
  TimelineLayout::Span b = data.role(t.function[event]) == FnRole::Point
                               ? L.tick(lane)
                               : L.box(lane, data.shape(rank).depth[event]);
  if (data.role(t.function[event]) == FnRole::Marker) b = lane;
  return QRectF(QPointF(x0, b.top), QPointF(x1, b.bottom));
}

void paintTimeline(QPainter& p, const TimelineData& data, const TimelineLayout& L,
                   const PaintState& state, PaintCache& cache, TimelineFrameStats& stats) {
  QElapsedTimer timer;
  timer.start();
  stats = TimelineFrameStats{};
  p.save();
  {  // everything but the plot, which the canvas paints
    const QRect a = L.area, pl = L.plot;
    p.fillRect(QRect(a.left(), a.top(), a.width(), pl.top() - a.top()), colors::background);
    p.fillRect(QRect(a.left(), pl.top(), pl.left() - a.left(), pl.height()), colors::background);
    p.fillRect(QRect(pl.right() + 1, pl.top(), a.right() - pl.right(), pl.height()), colors::background);
    p.fillRect(QRect(a.left(), pl.bottom() + 1, a.width(), a.bottom() - pl.bottom()), colors::background);
  }
  if (!data.trace() || data.rankCount() == 0) {
    p.fillRect(L.plot, colors::background);
    p.setPen(QColor(120, 120, 120));
    p.drawText(L.area, Qt::AlignCenter, QObject::tr("No trace"));
    p.restore();
    return;
  }
  Frame f{p, data, L, state, cache, stats};
  f.lanes = lanesFor(state.mode, data.hasPrediction(), f.specs);
  f.W = std::max(1, L.plot.width());
  stats.columns = f.W;
  const std::size_t W = std::size_t(f.W);
  for (PaintScratch& w : cache.scratch) {
    if (w.marks.size() != W) {
      w.marks.assign(W, ColumnMark{});
      w.colors.resize(W);
      w.colors2.resize(W);
      w.band[0].resize(W);
      w.band[1].resize(W);
      w.group.resize(W);
      w.fractions.resize(W);
    }
    w.visibleFns.assign(data.functionCount(), 0);
    w.labels.clear();
    w.stats = TimelineFrameStats{};
  }
  const QFontMetrics fontMetrics(p.font());
  f.fontHeight = fontMetrics.height();
  cache.text.begin(p.font());
  if (cache.nameWidthKey != data.trace() || cache.nameWidthFont != p.font().key() ||
      cache.nameWidth.size() != data.functionCount()) {
    cache.nameWidth.resize(data.functionCount());
    for (std::uint32_t fn = 0; fn < data.functionCount(); ++fn)
      cache.nameWidth[fn] = fontMetrics.horizontalAdvance(QString::fromStdString(data.trace()->functions[fn].name));
    cache.nameWidthKey = data.trace();
    cache.nameWidthFont = p.font().key();
  }
  f.fnNormal.resize(data.functionCount());
  f.fnFaded.resize(data.functionCount());
  for (auto& v : f.markColor) v.resize(std::size_t(data.functionCount()) * Frame::kMarkLevels);
  for (auto& v : f.boxFill) v.resize(data.functionCount());
  for (auto& v : f.boxEdge) v.resize(data.functionCount());
  for (std::uint32_t fn = 0; fn < data.functionCount(); ++fn) {
    const QColor& c = data.color(fn);
    f.fnNormal[fn] = c.rgb() | 0xff000000u;
    f.fnFaded[fn] = styled(c, LaneStyle::Faded).rgb() | 0xff000000u;
    f.boxFill[int(LaneStyle::Normal)][fn] = premul(c);
    f.boxEdge[int(LaneStyle::Normal)][fn] = premul(c.darker(130));
    f.boxFill[int(LaneStyle::Faded)][fn] = premul(styled(c, LaneStyle::Faded));
    f.boxEdge[int(LaneStyle::Faded)][fn] = premul(styled(c.darker(130), LaneStyle::Faded));
    f.boxFill[int(LaneStyle::Outline)][fn] = premul(c, 0.40);
    f.boxEdge[int(LaneStyle::Outline)][fn] = premul(c.darker(165));
    // Marks: alpha from 45 % (a sliver of a call) to 100 % (a column full of calls); the
    // predicted outline lane at 60 % of that.
    for (LaneStyle st : {LaneStyle::Normal, LaneStyle::Faded, LaneStyle::Outline}) {
      const QRgb base = st == LaneStyle::Faded ? f.fnFaded[fn] : f.fnNormal[fn];
      const float scale = st == LaneStyle::Outline ? 0.6f : 1.0f;
      for (int level = 0; level < Frame::kMarkLevels; ++level) {
        const float frac = float(level) / float(Frame::kMarkLevels - 1);
        const auto alpha = std::uint32_t(0.45f * 255.f * scale + 0.5f + 0.55f * 255.f * scale * frac);
        f.markColor[int(st)][fn * Frame::kMarkLevels + level] = withAlpha(base, alpha);
      }
    }
  }
  for (LaneStyle st : {LaneStyle::Normal, LaneStyle::Faded, LaneStyle::Outline}) {
    QColor e = colors::stepEven, o = colors::stepOdd;
    if (st == LaneStyle::Faded) {
      e = mix(e, colors::background, 0.45);
      o = mix(o, colors::background, 0.45);
    }
    if (st == LaneStyle::Outline) {  // the predicted steps' strip: a little stronger
      e = e.darker(112);
      o = o.darker(112);
    }
    f.bandColor[int(st)][0] = colors::background.rgb() | 0xff000000u;
    f.bandColor[int(st)][1] = e.rgb() | 0xff000000u;
    f.bandColor[int(st)][2] = o.rgb() | 0xff000000u;
  }

  const bool raster = p.paintEngine() && p.paintEngine()->type() == QPaintEngine::Raster;
  const AxisTicks ticks =
      computeTicks(L.begin, L.end, f.W, fontMetrics.horizontalAdvance(QStringLiteral("888.888 ms")) + 24);
  f.gridTicks = ticks.major;
  PaintCache::Key key{&data, data.version(), L.begin, L.end, L.plot, L.rowHeight, L.scrollY, int(state.mode), L.lanes};
  std::unique_ptr<Canvas> canvas;
  if (raster && cache.reuse && cache.valid && cache.key == key && cache.image.size() == L.plot.size()) {
    stats.cached = true;
  } else {
    cache.valid = false;
    if (raster) {
      // The rows pass paints every pixel of the rows; only what lies below them needs clearing.
      canvas = std::make_unique<RasterCanvas>(L.plot, cache.image, premul(colors::background), false);
      const int below = L.rowTop(L.endVisibleRow());
      if (below < L.plot.top() + L.plot.height() || L.endVisibleRow() <= L.firstVisibleRow())
        canvas->fill(L.plot.left(), std::max(below, L.plot.top()), L.plot.left() + f.W, L.plot.top() + L.plot.height(),
                     premul(colors::background));
    } else {
      canvas = std::make_unique<VectorCanvas>(L.plot, p, premul(colors::background));
    }
    f.canvas = canvas.get();
    // Rows: step bands, separators, grid, computation, boxes, summary marks, ticks. Raster
    // canvases paint the upper half of the rows on a second thread (disjoint pixel rows).
    const std::uint32_t r0 = L.firstVisibleRow(), r1 = L.endVisibleRow();
    const std::uint64_t work = std::uint64_t(r1 - r0) * std::uint64_t(f.lanes) * W;
    static const bool oneThread = qEnvironmentVariableIntValue("PERWIZ_TIMELINE_THREADS") == 1;
    if (canvas->threadSafeRows() && !oneThread && r1 - r0 >= 8 && work >= 100000 &&
        std::thread::hardware_concurrency() > 1) {
      const std::uint32_t mid = r0 + (r1 - r0) / 2;
      std::thread upper([&] { f.rows(r0, mid, cache.scratch[1]); });
      f.rows(mid, r1, cache.scratch[0]);
      upper.join();
    } else {
      f.rows(r0, r1, cache.scratch[0]);
    }
    cache.rowStats = TimelineFrameStats{};
    cache.labels.clear();
    for (PaintScratch& w : cache.scratch) {
      cache.rowStats.rows += w.stats.rows;
      cache.rowStats.boxes += w.stats.boxes;
      cache.rowStats.marks += w.stats.marks;
      for (const BoxLabel& b : w.labels)
        if (int(cache.labels.size()) < kBoxLabels) cache.labels.push_back(b);
    }
    cache.visibleFns = cache.scratch[0].visibleFns;
    for (std::size_t i = 0; i < cache.visibleFns.size(); ++i)
      cache.visibleFns[i] = char(cache.visibleFns[i] | cache.scratch[1].visibleFns[i]);
    if (raster) {
      cache.key = key;
      cache.valid = true;
    }
  }
  stats.rows = cache.rowStats.rows;
  stats.boxes = cache.rowStats.boxes;
  stats.marks = cache.rowStats.marks;
  f.labels = cache.labels;
  const std::vector<char>& visible = cache.visibleFns;
  if (canvas) canvas->finish(p);
  else p.drawImage(L.plot.topLeft(), cache.image);

  p.save();
  p.setClipRect(L.plot);
  f.boxLabels();
  for (int k = 0; k < f.lanes; ++k) f.arrows(f.specs[k]);
  f.selection();
  p.restore();

  f.rankLabels();
  f.axis(ticks);
  if (L.legend.height() > 0) {
    const auto entries = legendEntries(data, state.mode, state.legendAllFunctions ? nullptr : &visible);
    stats.texts += paintLegend(p, L.legend, entries, state.legendMaxLines, &cache.text);
  }
  p.restore();
  stats.milliseconds = double(timer.nsecsElapsed()) / 1e6;
}

}  // namespace perwiz::ui
