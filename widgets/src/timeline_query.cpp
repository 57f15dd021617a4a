#include "timeline_query.h"

#include "time_axis.h"
#include "timeline_data.h"
#include "timeline_painter.h"

#include <QObject>

#include <algorithm>
#include <cmath>
#include <limits>

namespace perwiz::ui {

namespace {

constexpr double kArrowHitPx = 3.0;  // a click this close to an arrow selects its message

// Best event of a drawing on a rank at time t within `slack` ns: containing beats nearby,
// deeper beats shallower. kNone32 if none.
std::uint32_t eventAt(const TimelineData& data, bool predicted, std::uint32_t rank, TimeNs t,
                      TimeNs slack) {
  const Drawing& d = data.drawing(predicted);
  const RankTimes& rt = d.times[rank];
  const RankShape& shape = data.shape(rank);
  if (rt.size == 0) return kNone32;
  const TimeView en = rt.enter;
  const std::uint32_t last = en.partitionPoint(rt.size, [&](TimeNs e) { return e <= t + slack; });
  std::uint32_t best = kNone32;
  TimeNs bestDist = std::numeric_limits<TimeNs>::max();
  int bestDepth = -1;
  auto consider = [&](std::uint32_t i) {
    const FnRole role = data.role(rt.function[i]);
    if (role == FnRole::Marker) return;
    const TimeNs a = rt.enter[i], b = std::max(rt.leave[i], a);
    const TimeNs dist = t < a ? a - t : (t > b ? t - b : 0);
    if (dist > slack) return;
    const int depth = role == FnRole::Point ? 100 : shape.depth[i];
    if (dist < bestDist || (dist == bestDist && depth >= bestDepth)) {
      best = i;
      bestDist = dist;
      bestDepth = depth;
    }
  };
  if (last == 0) return kNone32;
  // Events entered shortly before t (nearby narrow ones) ...
  int scanned = 0;
  for (std::uint32_t i = last; i-- > 0 && scanned < 96; ++scanned) {
    consider(i);
    if (rt.enter[i] < t - slack && scanned > 8) break;
  }
  // ... and the ones that contain t (ancestors of the last entered).
  for (std::uint32_t j = last - 1; j != kNone32; j = shape.parent[j]) consider(j);
  return best;
}

TimelineItem stepAt(const TimelineData& data, bool predicted, std::uint32_t rank, TimeNs t) {
  const RankSteps& s = data.drawing(predicted).steps[rank];
  const std::size_t i = s.firstEndingAfter(t);
  TimelineItem out;
  if (i < s.size() && s.begin(i) <= t) {
    out.kind = TimelineItem::Kind::Step;
    out.rank = rank;
    out.step = s.step(i);
    out.predicted = predicted;
  }
  return out;
}

// The message arrow of drawing `pred` nearest to `pos`, if one passes within `slackPx`: the
// arrows as Frame::arrows draws them (send end on the sender's lane centre, receive end on the
// receiver's). Each channel is searched by its sorted send times: an arrow spans at most
// [send - lead, send + lag] in time. `dist` gets the distance in pixels.
TimelineItem arrowAt(const TimelineData& data, const TimelineLayout& L, bool pred, const QPointF& pos,
                     double slackPx, double& dist) {
  TimelineItem best;
  const Drawing& d = data.drawing(pred);
  const double px = L.nsPerPx();
  const TimeNs t = L.time(pos.x());
  const TimeNs slack = TimeNs(std::ceil(slackPx * px));
  constexpr std::uint32_t kMaxPerChannel = 4096;  // bounds a click on a crowded zoomed-out frame
  for (const auto& chp : d.arrows.channels) {
    const ArrowChannel& ch = *chp;
    const double ys = L.lane(ch.src, pred && L.lanes).center(), yd = L.lane(ch.dst, pred && L.lanes).center();
    if (pos.y() < std::min(ys, yd) - slackPx || pos.y() > std::max(ys, yd) + slackPx) continue;
    for (const ArrowPiece& pc : ch.pieces) {
      const std::uint32_t lo = pc.firstSendingFrom(t - ch.lag - slack, pc.lo);
      const std::uint32_t hi = pc.firstSendingFrom(t + ch.lead + slack + 1, lo);  // sends <= t + lead + slack
      std::uint32_t seen = 0;
      for (std::uint32_t i = lo; i != hi && seen < kMaxPerChannel; ++i, ++seen) {
        const QPointF a(L.x(pc.send(i)), ys), e(L.x(pc.recv(i)), yd);
        const QPointF ab = e - a, ap = pos - a;
        const double len2 = QPointF::dotProduct(ab, ab);
        const double u = len2 > 0 ? std::clamp(QPointF::dotProduct(ap, ab) / len2, 0.0, 1.0) : 0.0;
        const QPointF q = a + ab * u - pos;
        const double dd = std::sqrt(QPointF::dotProduct(q, q));
        if (dd <= slackPx && dd < dist) {
          dist = dd;
          best.kind = TimelineItem::Kind::Message;
          best.rank = ch.src;
          best.event = d.base->arrowSources()[pc.arrays->source(i)].endpoint;
          best.predicted = pred && data.hasPrediction();
        }
      }
    }
  }
  return best;
}

}  // namespace

TimelineItem hitTest(const TimelineData& data, const TimelineLayout& L, TimelineMode mode,
                     const QPointF& pos) {
  TimelineItem none;
  if (!data.trace() || !L.plot.contains(pos.toPoint())) return none;
  const int row = L.rowAt(pos.y());
  // A thread's row is drawn as measured and offers nothing to select (threadToolTip says so).
  if (row < 0 || std::uint32_t(row) >= data.rankCount()) return none;
  const std::uint32_t rank = std::uint32_t(row);
  LaneSpec specs[2];
  const int n = lanesFor(mode, data.hasPrediction(), specs);
  std::vector<bool> order;  // drawings to try, first wins
  if (L.lanes) order.push_back(L.inPredictedLane(pos.y()));
  else
    for (int k = 0; k < n; ++k) order.push_back(specs[k].predicted);
  const TimeNs t = L.time(pos.x());
  const TimeNs slack = TimeNs(std::ceil(3.0 * L.nsPerPx()));
  // Arrows are drawn over the boxes: one within 3 px is what the click means, except inside a
  // box on the arrow's own rows.
  {
    double dist = std::numeric_limits<double>::max();
    TimelineItem msg;
    for (bool pred : order) {
      const TimelineItem m = arrowAt(data, L, pred, pos, kArrowHitPx, dist);
      if (m.kind == TimelineItem::Kind::Message) msg = m;
    }
    if (msg.kind == TimelineItem::Kind::Message) {
      // On the arrow's own rows a call drawn under the point is what was meant (the arrow
      // leaves and enters its calls; a zoomed-in arrow runs along them).
      const std::uint32_t recvRank = messageEnds(*data.trace(), msg).recvRank;
      bool atEnd = false;
      if (rank == msg.rank || rank == recvRank) {
        const std::uint32_t e = eventAt(data, msg.predicted, rank, t, 0);
        for (std::uint32_t j = e; j != kNone32 && !atEnd; j = data.shape(rank).parent[j])
          atEnd = eventBox(data, L, rank, j, msg.predicted).contains(pos);
      }
      if (!atEnd) return msg;
    }
  }
  for (bool pred : order) {
    const std::uint32_t e = eventAt(data, pred, rank, t, slack);
    if (e != kNone32) {
      TimelineItem it;
      it.kind = TimelineItem::Kind::Event;
      it.rank = rank;
      it.event = e;
      it.predicted = pred && data.hasPrediction();
      return it;
    }
  }
  for (bool pred : order) {
    TimelineItem s = stepAt(data, pred, rank, t);
    if (s.kind == TimelineItem::Kind::Step) {
      s.predicted = pred && data.hasPrediction();
      return s;
    }
  }
  return none;
}

QString threadToolTip(const TimelineData& data, const TimelineLayout& L, const QPointF& pos) {
  const Trace* tr = data.trace();
  if (!tr || !L.plot.contains(pos.toPoint())) return {};
  const int row = L.rowAt(pos.y());
  if (row < 0 || std::uint32_t(row) < data.rankCount() || std::uint32_t(row) >= data.rowCount()) return {};
  const ThreadTrace& th = tr->threads[std::uint32_t(row) - data.rankCount()];
  const QString where = th.rank >= 0
                            ? QObject::tr("%1 (a thread of %2)")
                                  .arg(QString::fromStdString(th.events.name).toHtmlEscaped(),
                                       QString::fromStdString(tr->ranks[std::uint32_t(th.rank)].name).toHtmlEscaped())
                            : QString::fromStdString(th.events.name).toHtmlEscaped();
  QString s;
  const std::uint32_t e = eventAt(data, false, std::uint32_t(row), L.time(pos.x()), TimeNs(std::ceil(3.0 * L.nsPerPx())));
  if (e != kNone32) {
    const RankTrace& rt = th.events;
    const TimeNs a = rt.enter[e], b = rt.leave[e];
    s = QObject::tr("<b>%1</b> on %2").arg(QString::fromStdString(tr->functions[rt.function[e]].name).toHtmlEscaped(), where);
    s += a == b ? QObject::tr("<br>at %1").arg(formatTime(a, 1))
                : QObject::tr("<br>measured: %1 – %2, duration %3").arg(formatTime(a, 1), formatTime(b, 1), formatDuration(b - a));
  } else {
    s = QObject::tr("<b>%1</b>").arg(where);
  }
  return s + QObject::tr("<br><span style='color:gray'>Threads are shown as measured: the prediction replays the MPI ranks.</span>");
}

bool messageArrow(const TimelineData& data, const TimelineLayout& L, const TimelineItem& item, bool predicted,
                  QPointF& from, QPointF& to) {
  const MessageEnds m = data.trace() ? messageEnds(*data.trace(), item) : MessageEnds{};
  if (!m.send || !m.recv) return false;
  from = QPointF(L.x(data.endpointTime(predicted, item.rank, *m.send)), L.lane(item.rank, predicted && L.lanes).center());
  to = QPointF(L.x(data.endpointTime(predicted, m.recvRank, *m.recv)), L.lane(m.recvRank, predicted && L.lanes).center());
  return true;
}

std::vector<TimelineItem> partnersOf(const TimelineData& data, const TimelineItem& item) {
  std::vector<TimelineItem> out;
  const Trace* tr = data.trace();
  // Event r:e as a partner, once (never the item itself).
  auto add = [&](std::uint32_t r, std::uint32_t e) {
    if (e == kNone32 || r >= tr->rankCount() || e >= tr->ranks[r].size()) return;
    if (item.kind == TimelineItem::Kind::Event && r == item.rank && e == item.event) return;
    TimelineItem p;
    p.kind = TimelineItem::Kind::Event;
    p.rank = r;
    p.event = e;
    p.predicted = item.predicted;
    if (std::find(out.begin(), out.end(), p) == out.end()) out.push_back(p);
  };
  if (tr && item.kind == TimelineItem::Kind::Message) {
    // The receiving call first (P goes there), then the sending call(s).
    const MessageEnds m = messageEnds(*tr, item);
    if (m.recv) {
      add(m.recvRank, m.recv->event);
      add(m.recvRank, m.recv->postEvent);
    }
    if (m.send) {
      add(item.rank, m.send->postEvent);
      add(item.rank, m.send->event);
    }
    return out;
  }
  if (!tr || item.kind != TimelineItem::Kind::Event || item.rank >= tr->rankCount()) return out;
  const RankTrace& rt = tr->ranks[item.rank];
  for (const MessageEndpoint& m : rt.messages) {
    if ((m.event != item.event && m.postEvent != item.event) || !m.matched()) continue;
    if (m.matchRank >= tr->rankCount() || m.matchIndex >= tr->ranks[m.matchRank].messages.size()) continue;
    const MessageEndpoint& o = tr->ranks[m.matchRank].messages[m.matchIndex];
    add(m.matchRank, o.event);
    if (o.postEvent != o.event) add(m.matchRank, o.postEvent);
  }
  for (const CollectiveCall& c : rt.collectives) {
    if (c.event != item.event || c.instance == kNone32) continue;
    std::vector<TimelineItem> members;
    for (std::uint32_t r = 0; r < tr->rankCount(); ++r) {
      if (r == item.rank) continue;
      for (const CollectiveCall& o : tr->ranks[r].collectives)
        if (o.instance == c.instance) {
          TimelineItem p;
          p.kind = TimelineItem::Kind::Event;
          p.rank = r;
          p.event = o.event;
          p.predicted = item.predicted;
          members.push_back(p);
          break;
        }
    }
    // Ranks after this one first, so repeated P walks around the communicator.
    std::stable_partition(members.begin(), members.end(), [&](const TimelineItem& p) { return p.rank > item.rank; });
    for (const TimelineItem& p : members)
      if (std::find(out.begin(), out.end(), p) == out.end()) out.push_back(p);
  }
  return out;
}

TimelineItem neighbourEvent(const TimelineData& data, const TimelineItem& item, int direction) {
  const Trace* tr = data.trace();
  TimelineItem out;
  if (!tr || item.kind != TimelineItem::Kind::Event || item.rank >= tr->rankCount()) return out;
  const RankTrace& rt = tr->ranks[item.rank];
  std::int64_t i = std::int64_t(item.event) + direction;
  while (i >= 0 && i < std::int64_t(rt.size()) && !data.drawnEvent(item.rank, std::uint32_t(i))) i += direction;
  if (i < 0 || i >= std::int64_t(rt.size())) return out;
  out = item;
  out.event = std::uint32_t(i);
  return out;
}

TimelineItem eventNear(const TimelineData& data, std::uint32_t rank, TimeNs t, bool predicted) {
  TimelineItem out;
  const Trace* tr = data.trace();
  if (!tr || rank >= tr->rankCount()) return out;
  // Widen the search until something is found (or the whole trace has been covered).
  const TimeNs span = std::max<TimeNs>(data.end(), 1);
  std::uint32_t e = kNone32;
  for (TimeNs slack = 0; e == kNone32; slack = slack ? slack * 4 : 1000) {
    e = eventAt(data, predicted, rank, t, slack);
    if (slack > span) break;
  }
  if (e == kNone32) return out;
  out.kind = TimelineItem::Kind::Event;
  out.rank = rank;
  out.event = e;
  out.predicted = predicted && data.hasPrediction();
  return out;
}

QString toolTipText(const TimelineData& data, const TimelineItem& item) {
  const Trace* tr = data.trace();
  if (!tr || item.rank >= tr->rankCount()) return {};
  const RankTrace& rt = tr->ranks[item.rank];
  const QString rankName = QString::fromStdString(rt.name).toHtmlEscaped();
  QString s;
  if (item.kind == TimelineItem::Kind::Event && item.event < rt.size()) {
    const Function& fn = tr->fn(item.rank, item.event);
    const TimeNs e = rt.enter[item.event], x = rt.leave[item.event];
    const std::uint32_t call = data.mpiIndexOf(item.rank, item.event);
    s += QObject::tr("<b>%1</b> on %2").arg(QString::fromStdString(fn.name).toHtmlEscaped(), rankName);
    if (call != kNone32) s += QStringLiteral(" <span style='color:gray'>(%1)</span>").arg(QString::fromStdString(eventId(item.rank, call)));
    if (fn.kind == EventKind::Point) {
      s += QObject::tr("<br>at %1").arg(formatTime(e, 1));
      for (const PointLabel& l : rt.labels)
        if (l.event == item.event) s += QStringLiteral("<br>%1").arg(QString::fromStdString(l.text).toHtmlEscaped().left(200));
    } else {
      s += QObject::tr("<br>measured: %1 – %2, duration %3")
               .arg(formatTime(e, 1), formatTime(x, 1), formatDuration(x - e));
      if (const auto* pr = data.prediction()) {
        const TimeNs pe = pr->ranks[item.rank]->enter(item.event), px = pr->ranks[item.rank]->leave(item.event);
        s += QObject::tr("<br>predicted: %1 – %2, duration %3")
                 .arg(formatTime(pe, 1), formatTime(px, 1), formatDuration(px - pe));
      }
    }
    if (call != kNone32) {
      const std::optional<TimeNs> mw = data.measuredWait(item.rank, call);
      const std::optional<TimeNs> pw = data.predictedWait(item.rank, call);
      if (mw || pw) {
        s += QObject::tr("<br>wait:");
        if (mw) s += QObject::tr(" %1 measured").arg(formatDuration(*mw));
        if (pw) s += QObject::tr("%1 %2 predicted").arg(mw ? QStringLiteral(",") : QString(), formatDuration(*pw));
      }
    }
    int shown = 0;
    for (const MessageEndpoint& m : rt.messages) {
      if (m.event != item.event && m.postEvent != item.event) continue;
      if (++shown > 4) {
        s += QStringLiteral("<br>…");
        break;
      }
      s += QObject::tr("<br>%1 %2 B %3 rank %4, tag %5%6")
               .arg(m.isSend ? QObject::tr("send") : QObject::tr("receive"))
               .arg(m.bytes)
               .arg(m.isSend ? QObject::tr("to") : QObject::tr("from"))
               .arg(m.peer)
               .arg(m.tag)
               .arg(m.matched() ? QString() : QObject::tr(" (unmatched)"));
    }
    for (const CollectiveCall& c : rt.collectives)
      if (c.event == item.event && c.instance != kNone32 && c.instance < tr->collectives.size())
        s += QObject::tr("<br>collective #%1 on %2 ranks").arg(c.instance).arg(tr->collectives[c.instance].participants);
    return s;
  }
  if (item.kind == TimelineItem::Kind::Message) {
    const auto [send, recv, rr] = messageEnds(*tr, item);
    if (!send) return {};
    auto call = [&](std::uint32_t r, std::uint32_t e) {
      if (e == kNone32 || e >= tr->ranks[r].size()) return QObject::tr("(no call)");
      const std::uint32_t c = data.mpiIndexOf(r, e);
      QString name = QString::fromStdString(tr->fn(r, e).name).toHtmlEscaped();
      if (c != kNone32) name += QStringLiteral(" <span style='color:gray'>(%1)</span>").arg(QString::fromStdString(eventId(r, c)));
      return name;
    };
    s += QObject::tr("<b>Message</b> %1 → %2").arg(rankName, recv ? QString::fromStdString(tr->ranks[rr].name).toHtmlEscaped()
                                                                    : QObject::tr("(unmatched)"));
    s += QObject::tr("<br>%1 B, tag %2").arg(send->bytes).arg(send->tag);
    s += QObject::tr("<br>sent by %1 at %2").arg(call(item.rank, send->postEvent), formatTime(send->time, 1));
    if (recv) {
      s += QObject::tr("<br>received by %1 at %2").arg(call(rr, recv->event), formatTime(recv->time, 1));
      const std::uint32_t c = recv->event == kNone32 ? kNone32 : data.mpiIndexOf(rr, recv->event);
      if (c != kNone32) {
        const std::optional<TimeNs> mw = data.measuredWait(rr, c);
        const std::optional<TimeNs> pw = data.predictedWait(rr, c);
        if (mw || pw) {
          s += QObject::tr("<br>receiver's wait:");
          if (mw) s += QObject::tr(" %1 measured").arg(formatDuration(*mw));
          if (pw) s += QObject::tr("%1 %2 predicted").arg(mw ? QStringLiteral(",") : QString(), formatDuration(*pw));
        }
      }
      s += QObject::tr("<br><span style='color:gray'>Z: zero the receiver's wait</span>");
    }
    return s;
  }
  if (item.kind == TimelineItem::Kind::Step) {
    s += QObject::tr("<b>Parallel step %1</b> on %2").arg(item.step).arg(rankName);
    TimeNs b = 0, e = 0;
    if (data.stepSpan(false, item.step, item.rank, b, e))
      s += QObject::tr("<br>measured: %1 – %2, duration %3").arg(formatTime(b, 1), formatTime(e, 1), formatDuration(e - b));
    if (data.hasPrediction() && data.stepSpan(true, item.step, item.rank, b, e))
      s += QObject::tr("<br>predicted: %1 – %2, duration %3").arg(formatTime(b, 1), formatTime(e, 1), formatDuration(e - b));
    s += QObject::tr("<br><span style='color:gray'>B: balance computation, V: balance volume</span>");
    return s;
  }
  return {};
}

}  // namespace perwiz::ui
