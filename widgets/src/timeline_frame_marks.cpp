// Marks over a timeline frame: box labels, arrows, the selection, rank labels and the time
// axis (timeline_frame.h).
#include "timeline_frame.h"
#include "timeline_query.h"

#include <QFontMetrics>

#include <algorithm>
#include <cmath>

namespace perwiz::ui::frame_detail {

void Frame::boxLabels() {
  if (labels.empty()) return;
  p.save();
  p.setPen(colors::text);
  // A nested box's label would be written over its parent's (both centred in the row): a label
  // whose text would touch one already drawn is left out.
  std::vector<QRectF> drawn;
  drawn.reserve(labels.size());
  for (const BoxLabel& b : labels) {
    const QPointF at(b.rect.left() + (b.rect.width() - cache.nameWidth[b.fn]) / 2.0,
                     b.rect.top() + (b.rect.height() - fontHeight) / 2.0);
    const QRectF textRect(at.x() - 2, at.y(), cache.nameWidth[b.fn] + 4, fontHeight);
    if (std::any_of(drawn.begin(), drawn.end(), [&](const QRectF& r) { return r.intersects(textRect); })) continue;
    drawn.push_back(textRect);
    const QColor& c = data.color(b.fn);
    const int luma = (299 * c.red() + 587 * c.green() + 114 * c.blue()) / 1000;
    p.setPen(luma < 140 ? QColor(Qt::white) : colors::text);
    cache.text.draw(p, at, QString::fromStdString(data.trace()->functions[b.fn].name));
    ++stats.texts;
  }
  p.restore();
}

void Frame::arrows(const LaneSpec& spec) {
  const Drawing& d = data.drawing(spec.predicted);
  const ArrowIndex& ai = d.arrows;
  if (ai.channels.empty()) return;
  auto visible = [&](std::uint32_t r) { return L.rowVisible(r); };
  struct Range {
    const ArrowChannel* channel;
    const ArrowPiece* piece;
    std::uint32_t lo, hi;
  };
  std::vector<Range> ranges;
  std::uint64_t total = 0;
  for (const auto& chp : ai.channels) {
    const ArrowChannel& ch = *chp;
    if (!visible(ch.src) && !visible(ch.dst)) continue;
    for (const ArrowPiece& pc : ch.pieces) {
      const std::uint32_t lo = pc.firstSendingFrom(L.begin - ch.lag, pc.lo);
      const std::uint32_t hi = pc.firstSendingFrom(L.end + ch.lead, lo);
      if (lo == hi) continue;
      ranges.push_back({&ch, &pc, lo, hi});
      total += std::uint64_t(hi - lo);
    }
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
  lines.reserve(std::min<std::uint64_t>(total, kArrowBudget * 2));
  for (const Range& rg : ranges) {
    const ArrowChannel& ch = *rg.channel;
    const ArrowPiece& pc = *rg.piece;
    const auto& sends = pc.arrays->send;
    const double ys = laneY(ch.src, spec.predicted), yd = laneY(ch.dst, spec.predicted);
    for (std::uint32_t i = rg.lo; i < rg.hi;) {
      const double xs = double(pc.send(i) - L.begin) / px;
      std::uint32_t j = i + 1;
      if (bin > 1 || (j < rg.hi && sends[j] - sends[i] < px)) {
        const double binStart = std::floor(xs / bin) * bin;
        const TimeNs binEnd = L.begin + TimeNs(std::ceil((binStart + bin) * px));
        j = std::uint32_t(std::lower_bound(sends.begin() + i + 1, sends.begin() + rg.hi, binEnd - pc.shift) - sends.begin());
      }
      QPointF a(L.plot.left() + xs, ys), b(L.x(pc.recv(i)), yd);
      clipToMargin(a, b, L);
      lines.emplace_back(a, b);
      i = j;
    }
  }
  stats.arrows += int(lines.size());
  p.save();
  const bool few = lines.size() <= kArrowHeadsUpTo;
  p.setRenderHint(QPainter::Antialiasing, few);
  // Aggregated or crowded arrows are drawn translucent so they do not hide the rows. An
  // aggregated arrow stands for the messages of its bin (the first one's line), without a count:
  // numbers over zoomed-out rows hid them and said nothing; zooming in separates them.
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
  // The selection stands out among hundreds of boxes and arrows: a wide amber halo under its
  // outline or arrow (issue #40 item 4).
  const QPen halo(colors::halo, 7, Qt::SolidLine, Qt::RoundCap, Qt::RoundJoin);
  auto outline = [&](const TimelineItem& it, const QColor& c, qreal w, bool withHalo = false) {
    if (it.kind != TimelineItem::Kind::Event) return;
    for (int k = 0; k < lanes; ++k) {
      const QRectF r = eventBox(data, L, it.rank, it.event, specs[k].predicted);
      if (r.isEmpty() || !r.intersects(QRectF(L.plot))) continue;
      if (withHalo) {
        p.setPen(halo);
        p.drawRect(r.adjusted(-w, -w, w, w));
      }
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
        const TimeNs t0 = data.endpointTime(pred, sel.rank, m), t1 = data.endpointTime(pred, m.matchRank, o);
        QPointF here(L.x(t0), laneY(sel.rank, pred));
        QPointF there(L.x(t1), laneY(m.matchRank, pred));
        clipToMargin(here, there, L);
        // A message received before it is sent (a zeroed wait: the receive no longer waits for
        // it) is drawn dashed: both ends are the lane's times, the dependency is gone.
        p.setPen(QPen(colors::partner, 2, (m.isSend ? t1 < t0 : t0 < t1) ? Qt::DashLine : Qt::SolidLine));
        if (m.isSend) drawArrow(p, here, there);
        else drawArrow(p, there, here);
        ++stats.arrows;
      }
    }
    for (const TimelineItem& pt : state.partners) outline(pt, colors::partner, 2);
    outline(sel, colors::selection, 2.5, true);
  }
  if (sel.kind == TimelineItem::Kind::Message) {
    // The selected message's arrow, bold, in every lane shown; its two calls outlined.
    for (int k = 0; k < lanes; ++k) {
      QPointF a, b;
      if (!messageArrow(data, L, sel, specs[k].predicted, a, b)) break;
      const bool backwards = b.x() < a.x();  // a zeroed wait: received before it was sent
      clipToMargin(a, b, L);
      p.setPen(halo);
      p.drawLine(a, b);
      p.setPen(QPen(colors::selection, 2.5, backwards ? Qt::DashLine : Qt::SolidLine));
      drawArrow(p, a, b);
      ++stats.arrows;
    }
    for (const TimelineItem& pt : state.partners) outline(pt, colors::partner, 2);
  }
  if (sel.kind == TimelineItem::Kind::Step) {
    const std::uint32_t r0 = L.firstVisibleRow(), r1 = L.endVisibleRow();
    for (int k = 0; k < lanes; ++k) {
      const bool pred = specs[k].predicted;
      for (std::uint32_t slot = r0; slot < r1; ++slot) {
        const std::uint32_t r = L.rowIn(slot);
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

bool Frame::provisionalShown(TimelineMode mode) const {
  if (!data.hasPrediction() || mode == TimelineMode::Measured) return false;
  const Drawing& d = data.drawing(true);
  return isProvisional(d) && d.grid.levelFor(L.nsPerPx()) >= 0;  // finer frames read the times
}

// A rounded label in the plot's top-right corner, `row` labels down; left out where it does not
// fit.
void Frame::cornerLabel(const QString& text, int row, const QColor& edge, const QColor& fill, const QColor& ink) {
  const QFontMetrics fm(p.font());
  const int w = fm.horizontalAdvance(text) + 12, h = fm.height() + 4;
  const QRect r(L.plot.right() - w - 4, L.plot.top() + 4 + row * (h + 4), w, h);
  if (r.left() <= L.plot.left() || h * (row + 2) > L.plot.height()) return;  // no room: the legend says it
  p.save();
  p.setPen(edge);
  p.setBrush(fill);
  p.drawRoundedRect(QRectF(r).adjusted(0.5, 0.5, -0.5, -0.5), 3, 3);
  p.setPen(ink);
  p.drawText(r, Qt::AlignCenter, text);
  p.restore();
  ++stats.texts;
}

// Which view the plot shows, in its top-right corner, once there is a prediction to compare:
// measured and predicted look alike, so the canvas says which is which. A provisional drawing
// says so under it, until the exact one replaces it.
void Frame::viewLabel(TimelineMode mode) {
  if (!data.hasPrediction()) return;
  if (provisionalShown(mode))
    cornerLabel(QObject::tr("Provisional drawing: the exact one follows"), 1, QColor(190, 120, 0),
                QColor(255, 244, 214), QColor(110, 60, 0));
  QString text;
  switch (mode) {
    case TimelineMode::Measured: return;  // the plain trace needs no name
    case TimelineMode::Predicted: text = QObject::tr("Predicted"); break;
    case TimelineMode::Overlay: text = QObject::tr("Overlay: measured faded, predicted outlined"); break;
    case TimelineMode::Lanes: text = QObject::tr("Lanes: m measured, p predicted"); break;
  }
  cornerLabel(text, 0, QColor(120, 120, 120), QColor(255, 255, 255, 215), QColor(40, 40, 40));
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
  const QFontMetrics boldFm(bold);
  const int textW = L.labels.width() - 10 - tagW;
  int freeFrom = L.labels.top();  // labels are written top down without overlapping
  for (std::uint32_t slot = r0; slot < r1; ++slot) {
    const std::uint32_t r = L.rowIn(slot);
    if (slot % std::uint32_t(every) != 0 && r != selRank) continue;
    const int top = L.rowTop(r);
    const int h = std::max(L.rowHeight, fm.height());
    int y = every > 1 ? top + L.rowHeight / 2 - h / 2 : top;
    // A label taller than its row stays inside the label column (rank 0's at the top edge);
    // one that would then overlap the label above it is left out (the selected rank's is not).
    // A row's own label (as tall as the row) is clipped like the row where the plot cuts it.
    if (h > L.rowHeight) y = std::clamp(y, L.labels.top(), std::max(L.labels.top(), L.labels.bottom() + 1 - h));
    if (every > 1 && y < freeFrom && r != selRank) continue;
    freeFrom = y + (every > 1 ? fm.height() : h);
    // A thread's name is indented under its rank's, in grey (drawn as measured).
    const bool thread = r >= tr.rankCount();
    p.setPen(thread ? QColor(105, 105, 105) : colors::text);
    const QString name = thread ? QStringLiteral("  ") + QString::fromStdString(tr.threads[r - tr.rankCount()].events.name)
                                : QString::fromStdString(tr.ranks[r].name);
    // Too long for the column (it is at most a quarter of the width): elided, never cut.
    if (r == selRank) {
      p.fillRect(QRect(L.labels.left(), top, L.labels.width() - 1, L.rowHeight), QColor(255, 236, 200));
      const QFont keep = p.font();
      p.setFont(bold);
      p.drawText(QRect(L.labels.left() + 6, y, textW, h), Qt::AlignVCenter | Qt::AlignLeft,
                 boldFm.elidedText(name, Qt::ElideRight, textW));
      p.setFont(keep);
    } else {
      cache.text.draw(p, QPointF(L.labels.left() + 6, y + (h - fm.height()) / 2.0),
                      fm.horizontalAdvance(name) <= textW ? name : fm.elidedText(name, Qt::ElideRight, textW));
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

}  // namespace perwiz::ui::frame_detail
