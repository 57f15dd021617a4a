#include "timeline_painter.h"

#include "timeline_frame.h"

#include "perwiz/widgets/palette.h"
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
#include <latch>
#include <thread>

namespace perwiz::ui {

using namespace frame_detail;

QRectF eventBox(const TimelineData& data, const TimelineLayout& L, std::uint32_t rank,
                std::uint32_t event, bool predicted) {
  if (!data.base() || rank >= data.rowCount() || event >= data.base()->rowEvents(rank).size()) return {};
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

void ColorTables::build(const TimelineData& data) {
  const std::uint32_t n = data.functionCount();
  fnNormal.resize(n);
  fnFaded.resize(n);
  for (auto& v : markColor) v.resize(std::size_t(n) * kMarkLevels);
  for (auto& v : boxFill) v.resize(n);
  for (auto& v : boxEdge) v.resize(n);
  for (std::uint32_t fn = 0; fn < n; ++fn) {
    const QColor& c = data.color(fn);
    fnNormal[fn] = c.rgb() | 0xff000000u;
    fnFaded[fn] = styled(c, LaneStyle::Faded).rgb() | 0xff000000u;
    boxFill[int(LaneStyle::Normal)][fn] = premul(c);
    boxEdge[int(LaneStyle::Normal)][fn] = premul(c.darker(130));
    boxFill[int(LaneStyle::Faded)][fn] = premul(styled(c, LaneStyle::Faded));
    boxEdge[int(LaneStyle::Faded)][fn] = premul(styled(c.darker(130), LaneStyle::Faded));
    boxFill[int(LaneStyle::Outline)][fn] = premul(c, 0.40);
    boxEdge[int(LaneStyle::Outline)][fn] = premul(c.darker(165));
    // Marks: alpha from 45 % (a sliver of a call) to 100 % (a column full of calls); the
    // predicted outline lane at 60 % of that.
    for (LaneStyle st : {LaneStyle::Normal, LaneStyle::Faded, LaneStyle::Outline}) {
      const QRgb base = st == LaneStyle::Faded ? fnFaded[fn] : fnNormal[fn];
      const float scale = st == LaneStyle::Outline ? 0.6f : 1.0f;
      for (int level = 0; level < kMarkLevels; ++level) {
        const float frac = float(level) / float(kMarkLevels - 1);
        const auto alpha = std::uint32_t(0.45f * 255.f * scale + 0.5f + 0.55f * 255.f * scale * frac);
        markColor[int(st)][fn * kMarkLevels + level] = withAlpha(base, alpha);
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
    bandColor[int(st)][0] = colors::background.rgb() | 0xff000000u;
    bandColor[int(st)][1] = e.rgb() | 0xff000000u;
    bandColor[int(st)][2] = o.rgb() | 0xff000000u;
  }
  traceVersion = data.traceVersion();
}

namespace {

// The per-thread scratch of the rows pass, sized to the plot's columns.
void prepareScratch(PaintCache& cache, const TimelineData& data, std::size_t W) {
  for (PaintScratch& w : cache.scratch) {
    if (w.marks.size() != W) {
      w.marks.assign(W, ColumnMark{});
      w.colors.resize(W);
      w.colors2.resize(W);
      w.band[0].resize(W);
      w.band[1].resize(W);
      w.group.resize(W);
      w.fractions.resize(W);
      w.cover.assign(W, 0);
    }
    w.visibleFns.assign(data.functionCount(), 0);
    w.labels.clear();
    w.stats = TimelineFrameStats{};
  }
}

// The step bands kept from the frames before: dropped where the steps' times, the range or the
// width changed, and always without reuse (before the rows pass: its threads then write rows
// of their own only).
void prepareBands(PaintCache& cache, const TimelineData& data, const TimelineLayout& L, int W) {
  for (int k = 0; k < 2; ++k) {
    PaintCache::Bands& b = cache.bands[k];
    const std::shared_ptr<const void> times = data.stepTimes(k == 1);
    auto same = [&](const PaintCache::Bands& c) {
      return cache.reuse && !c.times.owner_before(times) && !times.owner_before(c.times) && !c.times.expired() &&
             c.begin == L.begin && c.nsPerPx == L.nsPerPx() && c.columns == W && c.valid.size() == data.rowCount();
    };
    if (same(b)) continue;
    std::swap(b, cache.otherBands[k]);  // the view before's, kept
    if (same(b)) continue;
    b.times = times;
    b.begin = L.begin;
    b.nsPerPx = L.nsPerPx();
    b.columns = W;
    b.rows.resize(data.rowCount());
    b.valid.assign(data.rowCount(), 0);
  }
}

// The rows: step bands, separators, grid, computation, boxes, summary marks, ticks, into the
// frame's canvas; their statistics, labels and visible functions into the cache. Raster
// canvases paint the upper half of the rows on a second thread (disjoint pixel rows).
void paintRows(Frame& f, PaintCache& cache, std::size_t W) {
  const TimelineLayout& L = f.L;
  const std::uint32_t r0 = L.firstVisibleRow(), r1 = L.endVisibleRow();
  const std::uint64_t work = std::uint64_t(r1 - r0) * std::uint64_t(f.lanes) * W;
  static const bool oneThread = qEnvironmentVariableIntValue("PERWIZ_TIMELINE_THREADS") == 1;
  if (f.canvas->threadSafeRows() && !oneThread && r1 - r0 >= 8 && work >= 100000 &&
      std::thread::hardware_concurrency() > 1) {
    const std::uint32_t mid = r0 + (r1 - r0) / 2;
    std::latch upperDone(1);  // (QThreadPool::waitForDone would also end the pool's thread)
    cache.rowThread.start([&] {
      f.rows(r0, mid, cache.scratch[1]);
      upperDone.count_down();
    });
    f.rows(mid, r1, cache.scratch[0]);
    upperDone.wait();
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
}

}  // namespace

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
  if (!data.trace() || data.rowCount() == 0) {
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
  prepareScratch(cache, data, W);
  prepareBands(cache, data, L, f.W);
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
  if (cache.colors.traceVersion != data.traceVersion()) cache.colors.build(data);
  f.colors = &cache.colors;

  const bool raster = p.paintEngine() && p.paintEngine()->type() == QPaintEngine::Raster;
  const AxisTicks ticks =
      computeTicks(L.begin, L.end, f.W, fontMetrics.horizontalAdvance(QStringLiteral("888.888 ms")) + 24);
  f.gridTicks = ticks.major;
  const std::uint64_t version = state.mode == TimelineMode::Measured ? data.measuredVersion() : data.version();
  PaintCache::Key key{&data, version, L.begin, L.end, L.plot, L.rowHeight, L.scrollY, int(state.mode), L.lanes};
  std::unique_ptr<Canvas> canvas;
  if (raster && cache.reuse && cache.valid && cache.key == key && cache.image.size() == L.plot.size()) {
    stats.cached = true;
  } else {
    cache.valid = false;
    if (raster) {
      // The rows pass paints every pixel of the rows; only what lies below them needs clearing.
      canvas = std::make_unique<RasterCanvas>(L.plot, cache.image, premul(colors::background), false);
      const int below = L.slotTop(L.endVisibleRow());
      if (below < L.plot.top() + L.plot.height() || L.endVisibleRow() <= L.firstVisibleRow())
        canvas->fill(L.plot.left(), std::max(below, L.plot.top()), L.plot.left() + f.W, L.plot.top() + L.plot.height(),
                     premul(colors::background));
    } else {
      canvas = std::make_unique<VectorCanvas>(L.plot, p, premul(colors::background));
    }
    f.canvas = canvas.get();
    paintRows(f, cache, W);
    if (raster) {
      cache.key = key;
      cache.valid = true;
    }
  }
  stats.rows = cache.rowStats.rows;
  stats.boxes = cache.rowStats.boxes;
  stats.marks = cache.rowStats.marks;
  stats.provisional = f.provisionalShown(state.mode);
  f.labels = cache.labels;
  const std::vector<char>& visible = cache.visibleFns;
  if (canvas) canvas->finish(p);
  else p.drawImage(L.plot.topLeft(), cache.image);

  p.save();
  p.setClipRect(L.plot);
  f.boxLabels();
  for (int k = 0; k < f.lanes; ++k) f.arrows(f.specs[k]);
  f.selection();
  if (state.viewLabel) f.viewLabel(state.mode);
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
