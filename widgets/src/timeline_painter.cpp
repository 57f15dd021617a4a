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
#include <QPainterPath>

#include <algorithm>
#include <cmath>
#include <memory>
#include <thread>

namespace perwiz::ui {

namespace {

constexpr int kArrowBudget = 6000;    // arrows (aggregated or not) per frame
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
  QRgb bandColor[3][3] = {};            // [style][background, even, odd]

  std::vector<AxisTick> gridTicks{};

  void rows(std::uint32_t from, std::uint32_t to, PaintScratch& w);
  void bands(std::uint32_t r, int lane, PaintScratch& w);
  void content(std::uint32_t r, int lane, PaintScratch& w);
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
      const int x = int(std::lround(L.x(t.time)));
      canvas->fill(x, top, x + 1, top + L.rowHeight, grid);
    }
    for (int k = 0; k < lanes; ++k) content(r, k, w);
  }
}

void Frame::bands(std::uint32_t r, int k, PaintScratch& w) {
  // Every pixel of the lane is written here (the canvas is not cleared beforehand).
  const LaneSpec& spec = specs[k];
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
  // narrower ones alias, which a background can afford): O(columns + steps), integers only.
  const double px = L.nsPerPx();
  for (int c = 0; c < W; ++c) {
    const TimeNs tc = L.begin + TimeNs((c + 0.5) * px);
    while (i < n && rs.end[i] <= tc) ++i;
    band[c] = i < n && rs.begin[i] <= tc ? pal[1 + (rs.step[i] & 1u)] : pal[0];
  }
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
    const int x0 = int(std::lround(L.x(lod.firstEnter)));
    const int x1 = int(std::lround(L.x(lod.lastLeave)));
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
  for (std::uint32_t i : boxes) {
    const std::uint32_t fn = t.function[i];
    int x0 = int(std::lround(L.x(t.enter[i])));
    int x1 = int(std::lround(L.x(t.leave[i])));
    if (x1 <= x0) x1 = x0 + 1;
    const TimelineLayout::Span b = L.box(lane, shape.depth[i]);
    const QColor& c = data.color(fn);
    if (spec.style == LaneStyle::Outline) {
      canvas->fill(x0, b.top, x1, b.bottom, premul(c, 0.40));
      const QRgb edge = premul(c.darker(165));
      canvas->fill(x0, b.top, x1, b.top + 1, edge);
      canvas->fill(x0, b.bottom - 1, x1, b.bottom, edge);
      canvas->fill(x0, b.top, x0 + 1, b.bottom, edge);
      canvas->fill(x1 - 1, b.top, x1, b.bottom, edge);
    } else {
      canvas->fill(x0, b.top, x1, b.bottom, premul(styled(c, spec.style)));
      if (x1 - x0 >= 6 && b.height() >= 6) {  // separate neighbours of the same colour
        const QRgb edge = premul(styled(c.darker(130), spec.style));
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
  const std::vector<QRgb>& fnColor = spec.style == LaneStyle::Faded ? fnFaded : fnNormal;
  const double invPx = 1.0 / px;
  const double alphaScale = spec.style == LaneStyle::Outline ? 0.6 : 1.0;
  // Top-level marks in a lane of its own sit on the step band only: pre-blend them with it so
  // the canvas copies them (opaque) instead of blending pixel by pixel.
  const QRgb* band = spec.style == LaneStyle::Outline ? nullptr : w.band[laneIndex].data();
  for (int c = m0; c < m1; ++c) {
    ColumnMark& m = marks[c];
    points = points || m.point;
    if (m.busy <= 0.f || m.fn >= data.functionCount()) {
      col[c] = 0;
      continue;
    }
    const double frac = std::min(1.0, double(m.busy) * invPx);
    col[c] = withAlpha(fnColor[m.fn], std::uint32_t((0.45 + 0.55 * frac) * alphaScale * 255.0 + 0.5));
    w.visibleFns[m.fn] = 1;
    ++w.stats.marks;
    const std::uint8_t dep = std::min<std::uint8_t>(m.depth, 63);
    if (band && dep == 0) col[c] = over(col[c], band[c]);
    if (groupOf[dep] < 0) {
      if (nd < 8) {
        depths[nd] = dep;
        groupOf[dep] = std::int8_t(nd++);
      } else {
        groupOf[dep] = 7;
      }
    }
    m.depth = std::uint8_t(groupOf[dep]);  // reused as the group from here on
  }
  for (int k = 0; k < nd; ++k) {
    const TimelineLayout::Span b = L.box(lane, depths[k]);
    const QRgb* src = col.data();
    if (nd > 1) {
      auto& c2 = w.colors2;
      for (int c = m0; c < m1; ++c) c2[c] = col[c] && marks[c].depth == k ? col[c] : 0;
      src = c2.data();
    }
    canvas->columns(L.plot.left() + m0, b.top, b.bottom, src + m0, m1 - m0);
  }
  if (points) {
    const TimelineLayout::Span tk = L.tick(lane);
    const QRgb pc = premul(styled(colors::point, spec.style));
    for (int c = m0; c < m1; ++c) col[c] = marks[c].point ? pc : 0;
    canvas->columns(L.plot.left() + m0, tk.top, tk.bottom, col.data() + m0, m1 - m0);
  }
  if (m0 < m1) std::fill(marks.begin() + m0, marks.begin() + m1, ColumnMark{});
}

void Frame::boxLabels() {
  if (labels.empty()) return;
  p.save();
  p.setPen(colors::text);
  for (const BoxLabel& b : labels) {
    const QColor& c = data.color(b.fn);
    p.setPen(c.lightnessF() < 0.45f ? QColor(Qt::white) : colors::text);
    p.drawText(b.rect, Qt::AlignCenter, QString::fromStdString(data.trace()->functions[b.fn].name));
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
    if (est <= std::uint64_t(kArrowBudget) || bin >= W) break;
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
      const QPointF a(L.plot.left() + xs, ys), b(L.x(ai.recv[i]), yd);
      lines.emplace_back(a, b);
      if (j - i > 1) counts.push_back({a + (b - a) * 0.6, j - i});
      i = j;
    }
  }
  stats.arrows += int(lines.size());
  p.save();
  const bool few = lines.size() <= kArrowHeadsUpTo;
  p.setRenderHint(QPainter::Antialiasing, few);
  const QColor c = spec.style == LaneStyle::Faded ? colors::arrowFaded : colors::arrow;
  p.setPen(QPen(c, 1));
  if (few) {  // heads
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
        const QPointF here(L.x(data.endpointTime(pred, sel.rank, m)), laneY(sel.rank, pred));
        const QPointF there(L.x(data.endpointTime(pred, m.matchRank, o)), laneY(m.matchRank, pred));
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
        const QRectF rect(QPointF(L.x(b), lane.top + 0.5), QPointF(L.x(e), lane.bottom - 0.5));
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
    p.setFont(r == selRank ? bold : QFont(p.font()));
    if (r == selRank) p.fillRect(QRect(L.labels.left(), top, L.labels.width() - 1, L.rowHeight), QColor(255, 236, 200));
    p.setPen(colors::text);
    p.drawText(QRect(L.labels.left() + 6, y, L.labels.width() - 10 - tagW, h), Qt::AlignVCenter | Qt::AlignLeft,
               QString::fromStdString(tr.ranks[r].name));
    p.setFont(QFont(p.font()));
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
    const int x = int(std::lround(L.x(t.time)));
    p.drawLine(x, y, x, y + 3);
  }
  p.setPen(colors::text);
  for (const AxisTick& t : ticks.major) {
    const int x = int(std::lround(L.x(t.time)));
    p.drawLine(x, y, x, y + 5);
    const int w = fm.horizontalAdvance(t.label);
    const int lx = std::clamp(x - w / 2, L.axis.left(), L.area.right() - w - 2);
    p.drawText(QPoint(lx, y + 6 + fm.ascent()), t.label);
    ++stats.texts;
  }
  if (!ticks.baseLabel.isEmpty()) {
    p.drawText(QRect(L.area.left() + 2, y + 5, L.labels.width() - 4, fm.height()), Qt::AlignRight | Qt::AlignVCenter,
               ticks.baseLabel);
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
  double x0 = L.x(t.enter[event]);
  double x1 = L.x(t.leave[event]);
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
  p.fillRect(L.area, colors::background);
  if (!data.trace() || data.rankCount() == 0) {
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
    }
    w.visibleFns.assign(data.functionCount(), 0);
    w.labels.clear();
    w.stats = TimelineFrameStats{};
  }
  const QFontMetrics fontMetrics(p.font());
  f.fontHeight = fontMetrics.height();
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
  for (std::uint32_t fn = 0; fn < data.functionCount(); ++fn) {
    f.fnNormal[fn] = data.color(fn).rgb() | 0xff000000u;
    f.fnFaded[fn] = styled(data.color(fn), LaneStyle::Faded).rgb() | 0xff000000u;
  }
  for (LaneStyle st : {LaneStyle::Normal, LaneStyle::Faded, LaneStyle::Outline}) {
    QColor e = colors::stepEven, o = colors::stepOdd;
    if (st == LaneStyle::Faded) {
      e = mix(e, colors::background, 0.45);
      o = mix(o, colors::background, 0.45);
    }
    if (st == LaneStyle::Outline) {
      e = e.darker(125);
      o = o.darker(125);
    }
    f.bandColor[int(st)][0] = colors::background.rgb() | 0xff000000u;
    f.bandColor[int(st)][1] = e.rgb() | 0xff000000u;
    f.bandColor[int(st)][2] = o.rgb() | 0xff000000u;
  }

  const bool raster = p.paintEngine() && p.paintEngine()->type() == QPaintEngine::Raster;
  std::unique_ptr<Canvas> canvas;
  if (raster) {
    // The rows pass paints every pixel of the rows; only what lies below them needs clearing.
    canvas = std::make_unique<RasterCanvas>(L.plot, cache.image, premul(colors::background), false);
    const int below = L.rowTop(L.endVisibleRow());
    if (below < L.plot.top() + L.plot.height() || L.endVisibleRow() <= L.firstVisibleRow())
      canvas->fill(L.plot.left(), std::max(below, L.plot.top()), L.plot.left() + f.W, L.plot.top() + L.plot.height(),
                   premul(colors::background));
  } else canvas = std::make_unique<VectorCanvas>(L.plot, p, premul(colors::background));
  f.canvas = canvas.get();

  const AxisTicks ticks =
      computeTicks(L.begin, L.end, f.W, fontMetrics.horizontalAdvance(QStringLiteral("888.888 ms")) + 24);
  f.gridTicks = ticks.major;
  // Rows: step bands, separators, grid, computation, boxes, summary marks, ticks. Raster
  // canvases paint the upper half of the rows on a second thread (disjoint pixel rows).
  const std::uint32_t r0 = L.firstVisibleRow(), r1 = L.endVisibleRow();
  const std::uint64_t work = std::uint64_t(r1 - r0) * std::uint64_t(f.lanes) * W;
  if (canvas->threadSafeRows() && r1 - r0 >= 8 && work >= 100000 && std::thread::hardware_concurrency() > 1) {
    const std::uint32_t mid = r0 + (r1 - r0) / 2;
    std::thread upper([&] { f.rows(r0, mid, cache.scratch[1]); });
    f.rows(mid, r1, cache.scratch[0]);
    upper.join();
  } else {
    f.rows(r0, r1, cache.scratch[0]);
  }
  for (PaintScratch& w : cache.scratch) {
    stats.rows += w.stats.rows;
    stats.boxes += w.stats.boxes;
    stats.marks += w.stats.marks;
    for (const BoxLabel& b : w.labels)
      if (int(f.labels.size()) < kBoxLabels) f.labels.push_back(b);
  }
  std::vector<char>& visible = cache.scratch[0].visibleFns;
  for (std::size_t i = 0; i < visible.size(); ++i) visible[i] = char(visible[i] | cache.scratch[1].visibleFns[i]);
  canvas->finish(p);

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
    stats.texts += paintLegend(p, L.legend, entries, state.legendMaxLines);
  }
  p.restore();
  stats.milliseconds = double(timer.nsecsElapsed()) / 1e6;
}

}  // namespace perwiz::ui
