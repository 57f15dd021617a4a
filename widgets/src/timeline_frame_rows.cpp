// Rows of a timeline frame: bands, lane contents and the marked strip (timeline_frame.h).
#include "timeline_frame.h"

#include <QPaintEngine>

#include <algorithm>
#include <cmath>
#include <memory>
#include <thread>

namespace perwiz::ui::frame_detail {

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

void Frame::rows(std::uint32_t from, std::uint32_t to, PaintScratch& w) {
  const QRgb sep = premul(colors::separator), laneSep = premul(QColor(242, 242, 242));
  const QRgb grid = premul(QColor(0, 0, 0), 0.06);
  for (std::uint32_t slot = from; slot < to; ++slot) {
    const std::uint32_t r = L.rowIn(slot);
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
  const QRgb* pal = colors->bandColor[int(spec.style)];
  auto& band = w.band[k];
  if (spec.style == LaneStyle::Outline) {  // predicted steps: a strip under the measured row
    if (lane.height() < 12) return;
    lane.top = lane.bottom - 3;
  }
  // The colour index of each column: from the frames before when they read the same steps
  // (PaintCache::Bands), else found now and kept.
  PaintCache::Bands& kept = cache.bands[spec.predicted ? 1 : 0];
  std::vector<std::uint8_t>& cls = kept.rows[r];
  if (!kept.valid[r]) {
    // Found by the prediction worker when it drew for these columns (Drawing::bandColumns:
    // the times it read are in the other core's cache, a read from here costs a miss per step).
    const ColumnView v{L.begin, L.nsPerPx(), W};
    if (d.bandView.sameColumns(v) && r < d.bandColumns.size() && d.bandColumns[r].size() == std::size_t(W))
      cls = d.bandColumns[r];
    else
      stepBandClasses(rs, v, cls);
    kept.valid[r] = 1;
  }
  for (int c = 0; c < W; ++c) band[std::size_t(c)] = pal[cls[std::size_t(c)]];
  canvas->row(L.plot.left(), lane.top, lane.bottom, band.data(), W);
}

void Frame::content(std::uint32_t r, int laneIndex, PaintScratch& w) {
  const LaneSpec& spec = specs[laneIndex];
  const Drawing& d = data.drawing(spec.predicted);
  const RankTimes& t = d.times[r];
  const RankLod& lod = *d.lod[r];
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
  const auto [m0, m1] = queryDrawingLane(d, r, shape, data.roles(), q, marks.data(), boxes);
  // Overlay: the measured (faded) lane records the colour it leaves in each column of its
  // top-level box area (0 = not known), so the predicted lane drawn over it can pre-blend its
  // translucent marks instead of blending pixel by pixel.
  QRgb* record = lanes == 2 && laneIndex == 0 && specs[1].style == LaneStyle::Outline ? w.band[0].data() : nullptr;
  paintBoxes(spec, t, shape, lane, record, w);
  paintMarks(spec, lane, laneIndex, m0, m1, record, w);
  placeLabels(w);
}

void Frame::placeLabels(PaintScratch& w) {
  if (w.candidates.empty()) return;
  auto& cover = w.cover;
  for (const PaintScratch::LabelCandidate& c : w.candidates) {
    if (int(w.labels.size()) >= kBoxLabels) break;
    // The widest run of the box's columns with nothing deeper drawn over them.
    const std::uint8_t own = std::uint8_t(std::min(c.depth, 63) + 1);
    int best0 = 0, best1 = 0;
    for (int x = c.c0; x < c.c1;) {
      while (x < c.c1 && cover[x] > own) ++x;
      const int run0 = x;
      while (x < c.c1 && cover[x] <= own) ++x;
      if (x - run0 > best1 - best0) best0 = run0, best1 = x;
    }
    if (best1 - best0 >= cache.nameWidth[c.fn] + 8)
      w.labels.push_back({QRect(L.plot.left() + best0, c.top, best1 - best0, c.bottom - c.top), c.fn});
  }
  w.candidates.clear();
  std::fill(cover.begin(), cover.end(), std::uint8_t(0));
}

// The boxes of the events wide enough to draw (w.boxes), shallow first so nested ones end on
// top, and the labels of those wide enough to name.
void Frame::paintBoxes(const LaneSpec& spec, const RankTimes& t, const RankShape& shape,
                       const TimelineLayout::Span& lane, QRgb* record, PaintScratch& w) {
  auto& boxes = w.boxes;
  // Labels only where a row is tall enough for text, and not in a faded (measured overlay) lane.
  const bool labelled = spec.style != LaneStyle::Faded && lane.height() >= fontHeight - 2;
  std::sort(boxes.begin(), boxes.end(), [&](std::uint32_t a, std::uint32_t b) {
    return shape.depth[a] != shape.depth[b] ? shape.depth[a] < shape.depth[b] : a < b;
  });
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
    const QRgb edge = colors->boxEdge[st][fn];
    if (spec.style == LaneStyle::Outline && x1 - x0 <= 3) {  // all edge anyway
      canvas->fill(x0, b.top, x1, b.bottom, edge);
    } else if (spec.style == LaneStyle::Outline) {
      canvas->fill(x0 + 1, b.top + 1, x1 - 1, b.bottom - 1, colors->boxFill[st][fn]);
      canvas->fill(x0, b.top, x1, b.top + 1, edge);
      canvas->fill(x0, b.bottom - 1, x1, b.bottom, edge);
      canvas->fill(x0, b.top, x0 + 1, b.bottom, edge);
      canvas->fill(x1 - 1, b.top, x1, b.bottom, edge);
    } else {
      canvas->fill(x0, b.top, x1, b.bottom, colors->boxFill[st][fn]);
      if (x1 - x0 >= 6 && b.height() >= 6) {  // separate neighbours of the same colour
        canvas->fill(x0, b.top, x0 + 1, b.bottom, edge);
        canvas->fill(x1 - 1, b.top, x1, b.bottom, edge);
      }
    }
    ++w.stats.boxes;
    w.visibleFns[fn] = 1;
    const int c0 = std::clamp(x0 - L.plot.left(), 0, W), c1 = std::clamp(x1 - L.plot.left(), 0, W);
    if (labelled && int(w.candidates.size()) < kBoxLabels && b.height() >= fontHeight - 2 &&
        c1 - c0 >= cache.nameWidth[fn] + 8)
      w.candidates.push_back({c0, c1, b.top, b.bottom, int(shape.depth[i]), fn});
    // The columns each box covers, from the first candidate on: boxes come shallow first, so
    // the ones before it cannot lie over a candidate's own part.
    if (!w.candidates.empty()) {
      const std::uint8_t own = std::uint8_t(std::min<int>(shape.depth[i], 63) + 1);
      for (int c = c0; c < c1; ++c) w.cover[c] = std::max(w.cover[c], own);
    }
  }
}

// Summary marks of the narrow events (w.marks, columns m0..m1), grouped by nesting depth (few
// groups), and the ticks of point events.
void Frame::paintMarks(const LaneSpec& spec, const TimelineLayout::Span& lane, int laneIndex, int m0, int m1,
                       QRgb* record, PaintScratch& w) {
  auto& marks = w.marks;  // kept zeroed between lanes
  const QRgb* under = spec.style == LaneStyle::Outline ? w.band[0].data() : nullptr;
  const double px = L.nsPerPx();
  auto& col = w.colors;
  std::int8_t groupOf[64];
  std::fill(std::begin(groupOf), std::end(groupOf), std::int8_t(-1));
  std::uint8_t depths[8];
  int nd = 0;
  bool points = false;
  const QRgb* markLut = colors->markColor[int(spec.style)].data();
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
    if (!w.candidates.empty()) w.cover[c] = std::max<std::uint8_t>(w.cover[c], std::uint8_t(dep + 1));
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

}  // namespace perwiz::ui::frame_detail
