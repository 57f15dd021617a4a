// TimelineView (issue #5): hit testing, selection by mouse and keyboard, hypothesis keys, step
// bands, range sanity, render() pixels, Lanes mode, the level of detail bound, and the LOD /
// palette / axis helpers. Runs offscreen (QT_QPA_PLATFORM=offscreen).
//
// PERWIZ_TIMELINE_SCREENSHOTS=DIR additionally writes PNG screenshots of the ring4 sample and a
// generated 64-rank trace, measured and overlaid with a prediction (Timeline.Screenshots).
#include "perwiz/generator.h"
#include "perwiz/replay.h"
#include "perwiz/scenario.h"
#include "perwiz/trace_builder.h"
#include "perwiz/trace_io.h"
#include "perwiz/widgets/timeline_view.h"

#include "palette.h"
#include "time_axis.h"
#include "time_shading.h"
#include "timeline_data.h"
#include "timeline_layout.h"
#include "timeline_lod.h"

#include <QApplication>
#include <QBuffer>
#include <QImage>
#include <QPainter>
#include <QPageSize>
#include <QPdfWriter>
#include <QSvgGenerator>
#include <QSvgRenderer>
#include <QTemporaryDir>
#include <QTest>
#include <QHelpEvent>
#include <QToolTip>

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <limits>
#include <memory>
#include <random>

using namespace perwiz;
using perwiz::ui::TimelineItem;
using perwiz::ui::TimelineMode;
using perwiz::ui::TimelineView;

namespace {

constexpr TimeNs us = 1000;

// 4 ranks, 2 parallel steps (PRGN_step states) on ranks 0-2; rank 3 has no events at all.
//   step 0 [0, 1000 µs]:  rank 0 Send -> rank 1 Recv; ranks 0-2 Barrier [800, 900]
//   step 1 [1000, 2000]:  rank 0 Compute state [1100, 1500] with a nested Isend/Wait;
//                         rank 1 Irecv + Wait; rank 2 nothing inside the step.
std::shared_ptr<const Trace> smallTrace() {
  TraceBuilder b("hand", "test");
  b.begin({4, {}});
  auto mpi = [&](const char* n) { return b.defineFunction({n, EventKind::MpiCall, classifyMpiName(n), ""}); };
  const auto send = mpi("MPI_Send"), recv = mpi("MPI_Recv"), barrier = mpi("MPI_Barrier");
  const auto isend = mpi("MPI_Isend"), irecv = mpi("MPI_Irecv"), wait = mpi("MPI_Wait");
  const auto step = b.defineFunction({"PRGN_step", EventKind::UserState, MpiOp::None, ""});
  const auto compute = b.defineFunction({"Compute", EventKind::UserState, MpiOp::None, ""});
  for (std::uint32_t r = 0; r < 3; ++r) {
    b.enter(r, 0, step);
    if (r == 0) {
      b.enter(0, 100 * us, send);
      b.send(0, 100 * us, 1, 0, 7, 1024, 0);
      b.leave(0, 200 * us, send);
    }
    if (r == 1) {
      b.enter(1, 50 * us, recv);
      b.recv(1, 400 * us, 0, 0, 7, 1024, 0);
      b.leave(1, 400 * us, recv);
    }
    b.enter(r, 800 * us, barrier);
    b.collective(r, 900 * us, MpiOp::Barrier, 0, -1, 0, 0);
    b.leave(r, 900 * us, barrier);
    b.leave(r, 1000 * us, step);
    b.enter(r, 1000 * us, step);
    if (r == 0) {
      b.enter(0, 1100 * us, compute);
      b.enter(0, 1200 * us, isend);
      b.send(0, 1200 * us, 1, 0, 8, 64, 11);
      b.leave(0, 1210 * us, isend);
      b.enter(0, 1300 * us, wait);
      b.isendComplete(0, 1350 * us, 11);
      b.leave(0, 1350 * us, wait);
      b.leave(0, 1500 * us, compute);
    }
    if (r == 1) {
      b.enter(1, 1100 * us, irecv);
      b.irecvRequest(1, 1100 * us, 21);
      b.leave(1, 1110 * us, irecv);
      b.enter(1, 1400 * us, wait);
      b.recv(1, 1600 * us, 0, 0, 8, 64, 21);
      b.leave(1, 1600 * us, wait);
    }
    b.leave(r, 2000 * us, step);
  }
  b.end();
  return std::make_shared<const Trace>(b.take());
}

std::uint32_t eventNamed(const Trace& t, std::uint32_t rank, const std::string& name, int nth = 0) {
  const RankTrace& rt = t.ranks[rank];
  for (std::uint32_t i = 0; i < rt.size(); ++i)
    if (t.functions[rt.function[i]].name == name && nth-- == 0) return i;
  return kNone32;
}

TimelineItem eventItem(std::uint32_t rank, std::uint32_t event, bool predicted = false) {
  TimelineItem it;
  it.kind = TimelineItem::Kind::Event;
  it.rank = rank;
  it.event = event;
  it.predicted = predicted;
  return it;
}

// Measured times with one event moved by `shift` (a hand-made prediction).
std::shared_ptr<PredictedTimes> shifted(const Trace& t, std::uint32_t rank, std::uint32_t event, TimeNs shift) {
  auto p = std::make_shared<PredictedTimes>();
  for (const RankTrace& r : t.ranks) {
    auto pr = std::make_shared<PredictedRank>();
    pr->enter = r.enter.toVector();
    pr->leave = r.leave.toVector();
    if (p->ranks.size() == rank) {
      pr->enter[event] += shift;
      pr->leave[event] += shift;
    }
    p->ranks.push_back(std::move(pr));
  }
  p->end = t.endTime;
  return p;
}

struct Shown {
  TimelineView view;
  explicit Shown(std::shared_ptr<const Trace> t, QSize size = {800, 400}) {
    view.resize(size);
    view.setTrace(std::move(t));
    view.show();
    EXPECT_TRUE(QTest::qWaitForWindowExposed(&view));
  }
};

// The view rendered as SVG with `options`.
QByteArray renderSvg(const TimelineView& view, QSize size, const perwiz::ui::TimelineExportOptions& options) {
  QBuffer svg;
  svg.open(QIODevice::WriteOnly);
  QSvgGenerator gen;
  gen.setOutputDevice(&svg);
  gen.setSize(size);
  gen.setViewBox(QRect(QPoint(0, 0), size));
  {
    QPainter p(&gen);
    view.render(p, QRect(QPoint(0, 0), size), options);
  }
  return svg.data();
}

bool near(QRgb a, QRgb b, int tol = 40) {
  return std::abs(qRed(a) - qRed(b)) + std::abs(qGreen(a) - qGreen(b)) + std::abs(qBlue(a) - qBlue(b)) <= tol;
}

}  // namespace

TEST(Timeline, EventCenterHitsTheEvent) {
  auto t = smallTrace();
  Shown s(t);
  for (std::uint32_t r = 0; r < 3; ++r)
    for (const char* name : {"MPI_Barrier", "MPI_Send", "MPI_Recv", "MPI_Wait", "MPI_Irecv"}) {
      const std::uint32_t e = eventNamed(*t, r, name);
      if (e == kNone32) continue;
      const QPointF c = s.view.eventCenter(r, e);
      ASSERT_GE(c.x(), 0) << name;
      EXPECT_EQ(s.view.itemAt(c), eventItem(r, e)) << name << " on rank " << r;
    }
  // Nested: the Isend inside Compute is hit, not its parent.
  const std::uint32_t is = eventNamed(*t, 0, "MPI_Isend");
  s.view.setVisibleRange(1150 * us, 1400 * us);
  EXPECT_EQ(s.view.itemAt(s.view.eventCenter(0, is)), eventItem(0, is));
  // Not visible -> a point outside the widget.
  s.view.setVisibleRange(0, 500 * us);
  const QPointF out = s.view.eventCenter(0, is);
  EXPECT_FALSE(s.view.rect().contains(out.toPoint()));
}

TEST(Timeline, ClickSelectsAndEmits) {
  auto t = smallTrace();
  Shown s(t);
  const std::uint32_t send = eventNamed(*t, 0, "MPI_Send");
  std::vector<TimelineItem> got;
  QObject::connect(&s.view, &TimelineView::selectionChanged, [&](const TimelineItem& it) { got.push_back(it); });
  QTest::mouseClick(&s.view, Qt::LeftButton, {}, s.view.eventCenter(0, send).toPoint());
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0], eventItem(0, send));
  EXPECT_EQ(s.view.selection(), eventItem(0, send));
  // The partner is the receive on rank 1; P goes there.
  const std::uint32_t recv = eventNamed(*t, 1, "MPI_Recv");
  ASSERT_FALSE(s.view.partners().empty());
  EXPECT_EQ(s.view.partners().front(), eventItem(1, recv));
  QTest::keyClick(&s.view, Qt::Key_P);
  EXPECT_EQ(s.view.selection(), eventItem(1, recv));
  QTest::keyClick(&s.view, Qt::Key_P);  // and back
  EXPECT_EQ(s.view.selection(), eventItem(0, send));
  // Right: the next event on the row (markers skipped): the Barrier.
  QTest::keyClick(&s.view, Qt::Key_Right);
  EXPECT_EQ(s.view.selection(), eventItem(0, eventNamed(*t, 0, "MPI_Barrier")));
  QTest::keyClick(&s.view, Qt::Key_Left);
  EXPECT_EQ(s.view.selection(), eventItem(0, send));
  // Collective partners: the Barrier of the other ranks.
  s.view.setSelection(eventItem(0, eventNamed(*t, 0, "MPI_Barrier")));
  EXPECT_EQ(s.view.partners().size(), 2u);
  // Tooltip text names the function and the rank.
  const QString tip = s.view.toolTipFor(eventItem(0, send));
  EXPECT_TRUE(tip.contains("MPI_Send"));
  EXPECT_TRUE(tip.contains("rank 0"));
}

// A message is selected by clicking its arrow (on it or within 3 px); its partners are the
// receiving call, then the sending one; Z asks to zero the receiver's wait for it.
TEST(Timeline, ClickOnAMessageArrowSelectsTheMessage) {
  auto t = smallTrace();
  Shown s(t);
  const std::uint32_t send = eventNamed(*t, 0, "MPI_Send"), recv = eventNamed(*t, 1, "MPI_Recv");
  std::uint32_t endpoint = kNone32;
  for (std::uint32_t j = 0; j < t->ranks[0].messages.size(); ++j)
    if (t->ranks[0].messages[j].isSend && t->ranks[0].messages[j].event == send) endpoint = j;
  ASSERT_NE(endpoint, kNone32);
  TimelineItem msg;
  msg.kind = TimelineItem::Kind::Message;
  msg.rank = 0;
  msg.event = endpoint;
  const QPointF mid = s.view.messagePoint(0, endpoint, 0.5);
  ASSERT_GE(mid.x(), 0);
  // The arrow's unit normal, from two points along it.
  const QPointF dir = s.view.messagePoint(0, endpoint, 0.6) - s.view.messagePoint(0, endpoint, 0.4);
  const double len = std::hypot(dir.x(), dir.y());
  ASSERT_GT(len, 0);
  const QPointF normal(-dir.y() / len, dir.x() / len);
  EXPECT_EQ(s.view.itemAt(mid + normal * 2.5), msg);   // within 3 px
  EXPECT_NE(s.view.itemAt(mid + normal * 6.0), msg);   // not beyond
  TimelineItem got;
  QObject::connect(&s.view, &TimelineView::selectionChanged, [&](const TimelineItem& it) { got = it; });
  QTest::mouseClick(&s.view, Qt::LeftButton, {}, mid.toPoint());
  EXPECT_EQ(got, msg);
  EXPECT_EQ(s.view.selection(), msg);
  ASSERT_GE(s.view.partners().size(), 2u);
  EXPECT_EQ(s.view.partners()[0], eventItem(1, recv));
  EXPECT_EQ(s.view.partners()[1], eventItem(0, send));
  // The tooltip says what it is: both calls, the bytes.
  const QString tip = s.view.toolTipFor(msg);
  EXPECT_TRUE(tip.contains("Message")) << tip.toStdString();
  EXPECT_TRUE(tip.contains("MPI_Send") && tip.contains("MPI_Recv")) << tip.toStdString();
  EXPECT_TRUE(tip.contains(QString::number(t->ranks[0].messages[endpoint].bytes) + " B")) << tip.toStdString();
  // Inside the Send box near the arrow's start the call wins.
  EXPECT_EQ(s.view.itemAt(s.view.messagePoint(0, endpoint, 0.0)), eventItem(0, send));
  std::vector<std::pair<HypothesisKind, TimelineItem>> asked;
  QObject::connect(&s.view, &TimelineView::hypothesisRequested,
                   [&](HypothesisKind k, const TimelineItem& it) { asked.emplace_back(k, it); });
  QTest::keyClick(&s.view, Qt::Key_Z);
  QTest::keyClick(&s.view, Qt::Key_E);  // not for a message
  ASSERT_EQ(asked.size(), 1u);
  EXPECT_EQ(asked[0].first, HypothesisKind::ZeroWait);
  EXPECT_EQ(asked[0].second, msg);
  // P goes to the receiving call.
  QTest::keyClick(&s.view, Qt::Key_P);
  EXPECT_EQ(s.view.selection(), eventItem(1, recv));
}

// A prepared timeline is swapped in only for the trace it was made for.
TEST(Timeline, PreparedTimelineIsUsedForItsOwnTraceOnly) {
  auto a = smallTrace(), b = smallTrace();
  const perwiz::ui::PreparedTimeline pa = perwiz::ui::prepareTimeline(a);
  TimelineView v;
  v.setTrace(a, pa);
  EXPECT_EQ(v.base(), pa.base);
  v.setTrace(b, pa);  // made for another trace: the view builds its own
  ASSERT_NE(v.base(), nullptr);
  EXPECT_NE(v.base(), pa.base);
  EXPECT_EQ(v.base()->tracePtr(), b);
  v.setTrace(a);  // none given: built here
  EXPECT_NE(v.base(), pa.base);
  EXPECT_EQ(v.base()->tracePtr(), a);
}

// A predicted step spans its marker's predicted times: rank 2's second step, measured over
// [1000, 2000) µs, predicted 200 µs later over [1200, 2200) µs.
TEST(Timeline, PredictedStepFollowsItsMarker) {
  auto t = smallTrace();
  Shown s(t);
  const std::uint32_t marker = eventNamed(*t, 2, "PRGN_step", 1);
  auto p = shifted(*t, 2, marker, 200 * us);
  p->end = t->endTime + 200 * us;
  s.view.setPrediction(p);
  s.view.setMode(TimelineMode::Overlay);  // both drawings on one row
  s.view.fitAll();
  // x of a time on rank 2's row, from the two centres (1500 µs measured, 1700 µs predicted).
  const QPointF cm = s.view.eventCenter(2, marker, false), cp = s.view.eventCenter(2, marker, true);
  ASSERT_GT(cp.x(), cm.x());
  s.view.setMode(TimelineMode::Predicted);
  auto at = [&](double us_) { return QPointF(cm.x() + (us_ - 1500) * (cp.x() - cm.x()) / 200, cp.y()); };
  EXPECT_EQ(s.view.itemAt(at(1100)).kind, TimelineItem::Kind::None);  // before the predicted step
  for (double x : {1250.0, 2150.0}) {
    const TimelineItem got = s.view.itemAt(at(x));
    EXPECT_EQ(got.kind, TimelineItem::Kind::Step) << x;
    EXPECT_EQ(got.step, 1u) << x;
    EXPECT_TRUE(got.predicted) << x;
  }
  s.view.setMode(TimelineMode::Measured);  // the measured step is where it was
  EXPECT_EQ(s.view.itemAt(at(1100)).kind, TimelineItem::Kind::Step);
  EXPECT_EQ(s.view.itemAt(at(2150)).kind, TimelineItem::Kind::None);
}

// A prediction that reorders a channel's sends (the first send now after the second) keeps
// each arrow's message: clicking an arrow selects the message drawn there.
TEST(Timeline, ReorderedPredictedArrowsSelectTheirOwnMessage) {
  TraceBuilder b("reorder", "test");
  b.begin({2, {}});
  const auto send = b.defineFunction({"MPI_Send", EventKind::MpiCall, classifyMpiName("MPI_Send"), ""});
  const auto recv = b.defineFunction({"MPI_Recv", EventKind::MpiCall, classifyMpiName("MPI_Recv"), ""});
  for (TimeNs at : {100 * us, 300 * us}) {  // sends A and B, 10 µs each
    b.enter(0, at, send);
    b.send(0, at, 1, 0, 7, 64, 0);
    b.leave(0, at + 10 * us, send);
  }
  for (TimeNs at : {500 * us, 700 * us}) {
    b.enter(1, at, recv);
    b.recv(1, at + 10 * us, 0, 0, 7, 64, 0);
    b.leave(1, at + 10 * us, recv);
  }
  b.end();
  auto t = std::make_shared<const Trace>(b.take());
  std::uint32_t endA = kNone32, endB = kNone32;
  for (std::uint32_t j = 0; j < t->ranks[0].messages.size(); ++j)
    if (t->ranks[0].messages[j].isSend) (endA == kNone32 ? endA : endB) = j;
  ASSERT_NE(endB, kNone32);
  Shown s(t);
  // Send A moved to 400 µs: after B (300 µs), so the predicted channel is sorted B, A.
  s.view.setPrediction(shifted(*t, 0, t->ranks[0].messages[endA].event, 300 * us));
  s.view.setMode(TimelineMode::Predicted);
  for (std::uint32_t endpoint : {endA, endB}) {
    const QPointF mid = s.view.messagePoint(0, endpoint, 0.5, true);
    ASSERT_GE(mid.x(), 0);
    const TimelineItem got = s.view.itemAt(mid);
    EXPECT_EQ(got.kind, TimelineItem::Kind::Message);
    EXPECT_EQ(got.rank, 0u);
    EXPECT_EQ(got.event, endpoint) << (endpoint == endA ? "A" : "B");
  }
}

// Rank labels: the column fits every name in bold (the selected rank's), so "rank 1 (node-1)"
// is never cut; a name longer than the column's cap is elided.
TEST(Timeline, RankLabelColumnFitsTheNamesInBold) {
  TraceBuilder b("names", "test");
  b.begin({3, {"rank 0 (node-0)", "rank 1 (node-1)", "rank 2 (a node with a very long host name indeed)"}});
  const auto fn = b.defineFunction({"MPI_Barrier", EventKind::MpiCall, classifyMpiName("MPI_Barrier"), ""});
  for (std::uint32_t r = 0; r < 3; ++r) {
    b.enter(r, 0, fn);
    b.leave(r, 10 * us, fn);
  }
  b.end();
  auto t = std::make_shared<const Trace>(b.take());
  perwiz::ui::TimelineData data;
  data.setTrace(t);
  QFont font = QApplication::font();
  QFont bold = font;
  bold.setBold(true);
  perwiz::ui::LayoutInput in;
  in.area = QRect(0, 0, 1600, 400);
  in.end = 10 * us;
  in.font = font;
  const perwiz::ui::TimelineLayout L = perwiz::ui::computeLayout(data, in);
  const QFontMetrics fm(bold);
  // The label text starts 6 px in and keeps 4 px before the column's edge.
  EXPECT_GE(L.labels.width() - 10, fm.horizontalAdvance(QStringLiteral("rank 1 (node-1)")));
  EXPECT_LE(L.labels.width(), 1600 / 4);  // capped: the long name is elided, not the plot squeezed
}

TEST(Timeline, HypothesisKeys) {
  auto t = smallTrace();
  Shown s(t);
  std::vector<std::pair<HypothesisKind, TimelineItem>> got;
  QObject::connect(&s.view, &TimelineView::hypothesisRequested,
                   [&](HypothesisKind k, const TimelineItem& it) { got.emplace_back(k, it); });
  const std::uint32_t recv = eventNamed(*t, 1, "MPI_Recv");
  QTest::mouseClick(&s.view, Qt::LeftButton, {}, s.view.eventCenter(1, recv).toPoint());
  QTest::keyClick(&s.view, Qt::Key_Z);
  QTest::keyClick(&s.view, Qt::Key_E);
  QTest::keyClick(&s.view, Qt::Key_B);  // not for an event
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(got[0].first, HypothesisKind::ZeroWait);
  EXPECT_EQ(got[0].second, eventItem(1, recv));
  EXPECT_EQ(got[1].first, HypothesisKind::ZeroEvent);
}

TEST(Timeline, ClickInStepBandSelectsStep) {
  auto t = smallTrace();
  Shown s(t);
  // Rank 2's second step has no events: the centre of its marker is empty band.
  const std::uint32_t marker = eventNamed(*t, 2, "PRGN_step", 1);
  ASSERT_NE(marker, kNone32);
  const QPointF c = s.view.eventCenter(2, marker);
  ASSERT_GE(c.x(), 0);
  TimelineItem got;
  QObject::connect(&s.view, &TimelineView::selectionChanged, [&](const TimelineItem& it) { got = it; });
  QTest::mouseClick(&s.view, Qt::LeftButton, {}, c.toPoint());
  EXPECT_EQ(got.kind, TimelineItem::Kind::Step);
  EXPECT_EQ(got.rank, 2u);
  EXPECT_EQ(got.step, 1u);
  std::vector<HypothesisKind> kinds;
  QObject::connect(&s.view, &TimelineView::hypothesisRequested,
                   [&](HypothesisKind k, const TimelineItem&) { kinds.push_back(k); });
  QTest::keyClick(&s.view, Qt::Key_B);
  QTest::keyClick(&s.view, Qt::Key_V);
  QTest::keyClick(&s.view, Qt::Key_Z);  // not for a step
  EXPECT_EQ(kinds, (std::vector<HypothesisKind>{HypothesisKind::BalanceCompute, HypothesisKind::BalanceVolume}));
  // Empty space outside any step and event: nothing.
  EXPECT_EQ(s.view.itemAt(QPointF(2, 2)).kind, TimelineItem::Kind::None);
}

TEST(Timeline, ContextMenuAndRightDrag) {
  auto t = smallTrace();
  Shown s(t);
  std::vector<TimelineItem> got;
  QObject::connect(&s.view, &TimelineView::contextMenuRequestedFor,
                   [&](const TimelineItem& it, const QPoint&) { got.push_back(it); });
  const std::uint32_t recv = eventNamed(*t, 1, "MPI_Recv");
  const QPoint at = s.view.eventCenter(1, recv).toPoint();
  // A right click asks for the menu of the item under the mouse (and selects it). Platforms
  // send the QContextMenuEvent after the press (X11) or after the release (Windows).
  QContextMenuEvent menu(QContextMenuEvent::Mouse, at, s.view.mapToGlobal(at));
  QTest::mousePress(&s.view, Qt::RightButton, {}, at);
  QApplication::sendEvent(&s.view, &menu);
  EXPECT_TRUE(got.empty());  // not before the release: it could become a drag
  QTest::mouseRelease(&s.view, Qt::RightButton, {}, at);
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0], eventItem(1, recv));
  EXPECT_EQ(s.view.selection(), eventItem(1, recv));
  // The keyboard menu key: the selection's menu.
  QContextMenuEvent key(QContextMenuEvent::Keyboard, QPoint(5, 5), s.view.mapToGlobal(QPoint(5, 5)));
  QApplication::sendEvent(&s.view, &key);
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(got[1], eventItem(1, recv));
  // A right drag zooms to the band and asks for no menu.
  const QPoint b = s.view.eventCenter(1, eventNamed(*t, 1, "MPI_Barrier")).toPoint();
  QTest::mousePress(&s.view, Qt::RightButton, {}, at);
  QTest::mouseMove(&s.view, (at + b) / 2);
  QTest::mouseMove(&s.view, b);
  QTest::mouseRelease(&s.view, Qt::RightButton, {}, b);
  EXPECT_EQ(got.size(), 2u);
  EXPECT_LT(s.view.visibleEnd() - s.view.visibleBegin(), t->endTime / 2);
  // Windows order: release, then the menu event.
  s.view.fitAll();
  QTest::mouseClick(&s.view, Qt::RightButton, {}, at);
  QApplication::sendEvent(&s.view, &menu);
  EXPECT_EQ(got.size(), 3u);
}

TEST(Timeline, KeyboardAndHighlights) {
  auto t = smallTrace();
  Shown s(t);
  const std::uint32_t send = eventNamed(*t, 0, "MPI_Send");
  s.view.setSelection(eventItem(0, send));
  QTest::keyClick(&s.view, Qt::Key_Down);  // rank 1, the event under the Send: the Recv
  EXPECT_EQ(s.view.selection(), eventItem(1, eventNamed(*t, 1, "MPI_Recv")));
  QTest::keyClick(&s.view, Qt::Key_Up);
  EXPECT_EQ(s.view.selection().rank, 0u);
  QTest::keyClick(&s.view, Qt::Key_Escape);
  EXPECT_EQ(s.view.selection().kind, TimelineItem::Kind::None);
  // Highlights and a selection are drawn over the cached plot (only decorations change).
  s.view.setVisibleRange(0, t->endTime - 1);
  s.view.grab();
  EXPECT_FALSE(s.view.lastFrameStats().cached);
  s.view.setHighlighted({eventItem(0, send), eventItem(1, eventNamed(*t, 1, "MPI_Recv"))});
  s.view.setSelection(eventItem(2, eventNamed(*t, 2, "MPI_Barrier")));
  const QImage img = s.view.grab().toImage();
  EXPECT_TRUE(s.view.lastFrameStats().cached);
  const QPointF c = s.view.eventCenter(0, send);
  // The highlight outline sits just outside the box: magenta-ish above its top edge somewhere.
  bool magenta = false;
  for (int dy = -8; dy <= 0 && !magenta; ++dy)
    magenta = near(img.pixel(int(c.x()), int(c.y()) - 8 + dy), perwiz::ui::colors::highlight.rgb(), 60);
  EXPECT_TRUE(magenta);
  // Clearing the trace.
  s.view.setTrace(nullptr);
  EXPECT_EQ(s.view.trace(), nullptr);
  EXPECT_EQ(s.view.itemAt(QPointF(100, 20)).kind, TimelineItem::Kind::None);
  EXPECT_LT(s.view.eventCenter(0, 0).x(), 0);
  s.view.grab();
}

TEST(Timeline, RangeStaysSane) {
  auto t = smallTrace();
  Shown s(t);
  auto sane = [&] {
    EXPECT_LT(s.view.visibleBegin(), s.view.visibleEnd());
    EXPECT_GE(s.view.visibleBegin(), 0);
    EXPECT_LE(s.view.visibleEnd(), t->endTime);
  };
  EXPECT_EQ(s.view.visibleBegin(), 0);
  EXPECT_EQ(s.view.visibleEnd(), t->endTime);
  for (int i = 0; i < 40; ++i) QTest::keyClick(&s.view, Qt::Key_W);
  sane();
  EXPECT_LT(s.view.visibleEnd() - s.view.visibleBegin(), 1000);
  for (int i = 0; i < 10; ++i) QTest::keyClick(&s.view, Qt::Key_D);
  sane();
  for (int i = 0; i < 60; ++i) QTest::keyClick(&s.view, Qt::Key_S);
  sane();
  EXPECT_EQ(s.view.visibleEnd() - s.view.visibleBegin(), t->endTime);
  // Wheel zoom around the cursor keeps the time under it.
  const QPointF at = s.view.eventCenter(0, eventNamed(*t, 0, "MPI_Send"));
  const TimelineItem before = s.view.itemAt(at);
  QWheelEvent wheel(at, s.view.mapToGlobal(at), QPoint(), QPoint(0, 240), Qt::NoButton, Qt::NoModifier,
                    Qt::NoScrollPhase, false);
  QApplication::sendEvent(&s.view, &wheel);
  sane();
  EXPECT_LT(s.view.visibleEnd() - s.view.visibleBegin(), t->endTime);
  EXPECT_EQ(s.view.itemAt(at), before);
  s.view.setVisibleRange(-500, t->endTime * 3);
  sane();
  s.view.setVisibleRange(700 * us, 600 * us);
  sane();
  // Shift+drag zooms to the band.
  s.view.fitAll();
  const QPoint a = s.view.eventCenter(0, eventNamed(*t, 0, "MPI_Send")).toPoint();
  const QPoint b = s.view.eventCenter(0, eventNamed(*t, 0, "MPI_Barrier")).toPoint();
  QTest::mousePress(&s.view, Qt::LeftButton, Qt::ShiftModifier, a);
  QTest::mouseMove(&s.view, (a + b) / 2);
  QTest::mouseMove(&s.view, b);
  QTest::mouseRelease(&s.view, Qt::LeftButton, Qt::ShiftModifier, b);
  sane();
  EXPECT_NEAR(double(s.view.visibleBegin()), 150.0 * us, 20.0 * us);
  EXPECT_NEAR(double(s.view.visibleEnd()), 850.0 * us, 20.0 * us);
  QTest::keyClick(&s.view, Qt::Key_F);
  EXPECT_EQ(s.view.visibleEnd(), t->endTime);
}

TEST(Timeline, DeepZoomDrawsTheEnclosingBoxes) {
  auto t = smallTrace();
  Shown s(t);
  // 40 ns inside rank 0's Compute state (400 µs long: ~10^7 px wide at this zoom).
  s.view.setVisibleRange(1250 * us, 1250 * us + 40);
  const QImage img = s.view.grab().toImage();
  EXPECT_EQ(s.view.visibleEnd() - s.view.visibleBegin(), 40);
  EXPECT_GE(s.view.lastFrameStats().boxes, 1);
  const std::uint32_t compute = eventNamed(*t, 0, "Compute");
  const QPointF c = s.view.eventCenter(0, compute);
  ASSERT_GE(c.x(), 0);
  EXPECT_EQ(s.view.itemAt(c), eventItem(0, compute));
  // Selecting it and the partner arrows of a far-away call paint without trouble.
  s.view.setSelection(eventItem(0, compute));
  s.view.setSelection(eventItem(0, eventNamed(*t, 0, "MPI_Send")));
  s.view.grab();
}

TEST(Timeline, RenderDrawsBoxesWhereTheScreenHasThem) {
  auto t = smallTrace();
  // Tall enough that the rows get the largest height (36 px) on screen too.
  Shown s(t, {900, 400});
  perwiz::ui::TimelineExportOptions o;
  o.wholeTrace = true;
  o.width = s.view.width();
  o.rowHeight = 36;
  const QSize size = s.view.exportSize(o);
  EXPECT_EQ(size.width(), 900);
  EXPECT_GT(size.height(), 4 * 36);
  QImage img(size, QImage::Format_ARGB32_Premultiplied);
  img.fill(Qt::red);
  {
    QPainter p(&img);
    s.view.render(p, QRect(QPoint(0, 0), size), o);
  }
  EXPECT_EQ(img.size(), size);
  EXPECT_NE(img.pixel(1, 1), QColor(Qt::red).rgb());  // everything painted
  const QRgb white = qRgb(255, 255, 255);
  const QRgb sendColor = perwiz::ui::mpiOpColor(MpiOp::Send).rgb();
  const QRgb barrierColor = perwiz::ui::mpiOpColor(MpiOp::Barrier).rgb();
  const QPointF send = s.view.eventCenter(0, eventNamed(*t, 0, "MPI_Send"));
  const QPointF barrier = s.view.eventCenter(2, eventNamed(*t, 2, "MPI_Barrier"));
  EXPECT_TRUE(near(img.pixel(send.toPoint()), sendColor)) << std::hex << img.pixel(send.toPoint());
  EXPECT_TRUE(near(img.pixel(barrier.toPoint()), barrierColor)) << std::hex << img.pixel(barrier.toPoint());
  // Rank 3 has no events: its row at the same x is background.
  const int emptyY = int(send.y()) + 3 * 36;
  EXPECT_TRUE(near(img.pixel(int(send.x()), emptyY), white, 30)) << std::hex << img.pixel(int(send.x()), emptyY);
  // Rank 2 has no Send: at the Send's x its row shows the step band, not a box.
  const QRgb band = img.pixel(int(send.x()), int(send.y()) + 2 * 36);
  EXPECT_TRUE(near(band, perwiz::ui::colors::stepEven.rgb(), 30)) << std::hex << band;
  // The screen shows the same.
  const QImage screen = s.view.grab().toImage().convertToFormat(QImage::Format_ARGB32_Premultiplied);
  EXPECT_TRUE(near(screen.pixel(send.toPoint()), sendColor));

  // Vector export: SVG with rectangles and text.
  const QByteArray out = renderSvg(s.view, size, o);
  EXPECT_GT(out.size(), 1000);
  EXPECT_TRUE(out.contains("MPI_Send"));  // the legend
}

TEST(Timeline, LanesPutThePredictedBoxElsewhere) {
  auto t = smallTrace();
  Shown s(t);
  const std::uint32_t send = eventNamed(*t, 0, "MPI_Send");
  s.view.setPrediction(shifted(*t, 0, send, 300 * us));
  s.view.setMode(TimelineMode::Lanes);
  const QPointF m = s.view.eventCenter(0, send, false);
  const QPointF p = s.view.eventCenter(0, send, true);
  EXPECT_GT(p.x(), m.x() + 50);  // 300 µs of 2 ms over ~700 px
  EXPECT_GT(p.y(), m.y());       // the predicted lane is below
  EXPECT_EQ(s.view.itemAt(p), eventItem(0, send, true));
  EXPECT_EQ(s.view.itemAt(m), eventItem(0, send, false));
  s.view.setMode(TimelineMode::Overlay);
  const QPointF po = s.view.eventCenter(0, send, true);
  EXPECT_GT(po.x(), s.view.eventCenter(0, send, false).x() + 50);
  EXPECT_NEAR(po.y(), s.view.eventCenter(0, send, false).y(), 1.0);  // same row, drawn over
  s.view.setMode(TimelineMode::Predicted);
  EXPECT_EQ(s.view.itemAt(p).predicted, true);
  // Painting every mode works and draws boxes.
  for (TimelineMode mode : {TimelineMode::Measured, TimelineMode::Predicted, TimelineMode::Overlay, TimelineMode::Lanes}) {
    s.view.setMode(mode);
    s.view.grab();
    EXPECT_GT(s.view.lastFrameStats().boxes, 5);
  }
}

TEST(Timeline, ManyTinyEventsAreSummarised) {
  // 4 ranks x 25000 calls of 1 µs every 4 µs: 100000 events, far below a pixel at 400 px.
  TraceBuilder b("tiny", "test");
  const std::uint32_t ranks = 4, calls = 25000;
  b.begin({ranks, {}});
  const auto send = b.defineFunction({"MPI_Send", EventKind::MpiCall, MpiOp::Send, ""});
  const auto recv = b.defineFunction({"MPI_Recv", EventKind::MpiCall, MpiOp::Recv, ""});
  for (std::uint32_t r = 0; r < ranks; ++r)
    for (std::uint32_t i = 0; i < calls; ++i) {
      const TimeNs t0 = TimeNs(i) * 4 * us;
      const bool sender = r % 2 == 0;
      b.enter(r, t0, sender ? send : recv);
      if (sender) b.send(r, t0, std::int32_t(r + 1), 0, 0, 8, 0);
      else b.recv(r, t0 + us, std::int32_t(r - 1), 0, 0, 8, 0);
      b.leave(r, t0 + us, sender ? send : recv);
    }
  b.end();
  auto t = std::make_shared<const Trace>(b.take());
  ASSERT_EQ(t->eventCount(), 100000u);
  Shown s(t, {400 + 70, 300});
  s.view.grab();
  const auto st = s.view.lastFrameStats();
  const int bound = 4 * st.rows * st.columns + 200;
  EXPECT_GT(st.marks, 0);
  EXPECT_LT(st.primitives(), bound) << "boxes " << st.boxes << " marks " << st.marks << " arrows " << st.arrows;
  EXPECT_LT(st.boxes, 100);
  EXPECT_LE(st.columns, 400);
  EXPECT_GE(st.columns, 300);
  // Zoomed to 1 %: still bounded, and zoomed to 10 calls the calls are boxes.
  s.view.setVisibleRange(50000 * us, 51000 * us);
  s.view.grab();
  EXPECT_LT(s.view.lastFrameStats().primitives(), bound);
  s.view.setVisibleRange(50000 * us, 50040 * us);
  s.view.grab();
  EXPECT_GE(s.view.lastFrameStats().boxes, 4 * 9);
  EXPECT_LE(s.view.lastFrameStats().boxes, 4 * 12);
}

TEST(TimelineLod, SummaryKeepsTheBusyTime) {
  // One rank, 1000 calls of 10 ns every 100 ns: any level's busy total is ~10 % of the range.
  TraceBuilder b("lod", "test");
  b.begin({1, {}});
  const auto f = b.defineFunction({"MPI_Send", EventKind::MpiCall, MpiOp::Send, ""});
  for (int i = 0; i < 1000; ++i) {
    b.enter(0, i * 100, f);
    b.leave(0, i * 100 + 10, f);
  }
  b.end();
  const Trace t = b.take();
  const std::vector<ui::FnRole> roles{ui::FnRole::Mpi};
  const ui::RankShape shape = ui::buildShape(t.ranks[0], roles);
  const ui::LodGrid grid = ui::makeGrid(t.endTime + 1, 1000, 1);
  ui::RankTimes times{t.ranks[0].enter, t.ranks[0].leave, t.ranks[0].function.data(), 1000};
  const ui::RankLod lod = ui::buildLod(grid, times, shape, roles);
  // (grid: w0 = 64 ns; 2000 and 3000 columns put 50 and 33 ns in a pixel: level 0's buckets
  // split over two columns; 20000 columns sweep the events.)
  for (int columns : {50, 200, 1000, 2000, 3000, 20000}) {
    std::vector<ui::ColumnMark> marks(static_cast<std::size_t>(columns));
    std::vector<std::uint32_t> boxes;
    ui::LaneQuery q{0, 100000, 100000.0 / columns, columns};
    ui::queryLane(grid, lod, times, shape, roles, q, marks.data(), boxes);
    double busy = 0;
    for (const auto& m : marks) busy += m.busy;
    for (std::uint32_t i : boxes) busy += double(t.ranks[0].leave[i] - t.ranks[0].enter[i]);
    EXPECT_NEAR(busy, 10000.0, 300.0) << columns << " columns";
  }
}

TEST(TimelinePalette, TraceColoursAndTicks) {
  EXPECT_EQ(ui::parseTraceColor("blue:gray3"), QColor(Qt::blue));
  EXPECT_EQ(ui::parseTraceColor("light_gray"), QColor("lightgray"));
  EXPECT_EQ(ui::parseTraceColor("forest green:vlines3"), QColor("forestgreen"));
  EXPECT_EQ(ui::parseTraceColor("gray50"), QColor(128, 128, 128));
  EXPECT_TRUE(ui::parseTraceColor("red3").isValid());
  EXPECT_FALSE(ui::parseTraceColor("").isValid());
  EXPECT_FALSE(ui::parseTraceColor("nosuchcolour").isValid());
  EXPECT_NE(ui::mpiOpColor(MpiOp::Send), ui::mpiOpColor(MpiOp::Recv));
  EXPECT_EQ(ui::formatTime(1500), QString::fromUtf8("1.5 µs"));
  EXPECT_EQ(ui::formatTime(2 * 1000 * 1000), QString("2 ms"));
  const auto ticks = ui::computeTicks(0, 1000000, 1000, 100);  // 1 ms over 1000 px
  EXPECT_EQ(ticks.step, 100000);
  ASSERT_FALSE(ticks.major.empty());
  EXPECT_EQ(ticks.major[1].label, QString::fromUtf8("100 µs"));
  const auto deep = ui::computeTicks(12000000000LL, 12000010000LL, 1000, 100);  // 10 µs at 12 s
  EXPECT_FALSE(deep.baseLabel.isEmpty());
}

// Issue #15: the axis near the ends of the int64 range. `t += step` used to wrap past 2^63 − 1
// and the tick loop never ended (a trace spanning ~2^63 ns hung the GUI).
TEST(TimelineAxis, TicksNearTheInt64LimitsEnd) {
  constexpr TimeNs kMax = std::numeric_limits<TimeNs>::max();  // 9223372036854775807
  // 100 ns below the limit over 1000 px, 80 px apart: at least 8 ns between labels -> step 10,
  // minor 2. Major ticks ...710 to ...800 (the next, ...810, is beyond the limit): 10; relative
  // to the base ...770000 (step · 1000 below begin), the first label is 5710 ns.
  const auto top = ui::computeTicks(kMax - 100, kMax, 1000, 80);
  EXPECT_EQ(top.step, 10);
  ASSERT_EQ(top.major.size(), 10u);
  EXPECT_EQ(top.major.front().time, 9223372036854775710);
  EXPECT_EQ(top.major.back().time, 9223372036854775800);
  EXPECT_EQ(top.base, 9223372036854770000);
  EXPECT_EQ(top.major.front().label, QString("5710 ns"));
  // Minor ticks every 2 ns from ...708 to ...806, less the 10 major positions: 50 − 10 = 40.
  EXPECT_EQ(top.minor.size(), 40u);
  // The whole int64 range: span 2^64 ns / 1000 px · 80 px = 1.48e18 ns -> step 2e18. Ticks
  // −8e18 … 8e18 (−9.2e18 and 9.2e18 bound the range): 9.
  const auto all = ui::computeTicks(std::numeric_limits<TimeNs>::min(), kMax, 1000, 80);
  EXPECT_EQ(all.step, 2000000000000000000);
  ASSERT_EQ(all.major.size(), 9u);
  EXPECT_EQ(all.major.front().time, -8000000000000000000);
  EXPECT_EQ(all.major.back().time, 8000000000000000000);
  EXPECT_FALSE(ui::formatTime(std::numeric_limits<TimeNs>::min()).isEmpty());
}

TEST(TimelineAxis, TraceSpanningTwoToThe63Nanoseconds) {
  // SEND on rank 0 from 1 µs to 9223372036854774 µs (the latest time ALOG holds): the trace
  // ends 1807 ns below 2^63 ns.
  QTemporaryDir dir;
  ASSERT_TRUE(dir.isValid());
  const std::string path = dir.filePath("span63.alog").toStdString();
  {
    std::ofstream f(path);
    f << "-6 0 0 0 0 0\n-13 0 161 162 0 0 blue:gray3 SEND\n161 0 0 1 0 1\n162 0 0 2 0 9223372036854774\n";
  }
  auto t = std::make_shared<const Trace>(loadTrace(path));
  ASSERT_EQ(t->endTime, 9223372036854774000);
  // Over 800 px, 80 px apart: 9.2e17 ns at least -> step 1e18; ticks 0 … 9e18: 10.
  const auto ticks = ui::computeTicks(0, t->endTime, 800, 80);
  EXPECT_EQ(ticks.step, 1000000000000000000);
  EXPECT_EQ(ticks.major.size(), 10u);
  // The view paints its axis (and everything else) for the whole trace and for its last 100 ns.
  Shown s(t);
  s.view.grab();
  s.view.setVisibleRange(t->endTime - 100, t->endTime);
  EXPECT_EQ(s.view.visibleEnd(), t->endTime);
  s.view.grab();
}

// The marked-time index: overlapping spans merge, C(t) and per-column shares equal a brute-force
// count over the raw spans (random spans, random views).
TEST(TimeShading, ColumnSharesEqualBruteForce) {
  // Hand case: [10, 20) and [15, 30) merge into [10, 30); [40, 50) stays apart: total 20 + 10.
  perwiz::ui::TimeShading hand({{{15, 30}, {10, 20}, {40, 50}, {60, 60}}});
  EXPECT_EQ(hand.total(), 30);
  EXPECT_EQ(hand.markedBefore(0, 25), 15);  // [10, 25)
  EXPECT_EQ(hand.markedBefore(0, 45), 25);  // 20 + [40, 45)
  float f[4];
  // Columns of 10 ns from 0: [0,10) 0, [10,20) 1, [20,30) 1, [30,40) 0.
  ASSERT_TRUE(hand.columnFractions(0, 0, 10.0, 4, f));
  EXPECT_FLOAT_EQ(f[0], 0.f);
  EXPECT_FLOAT_EQ(f[1], 1.f);
  EXPECT_FLOAT_EQ(f[2], 1.f);
  EXPECT_FLOAT_EQ(f[3], 0.f);
  EXPECT_FALSE(hand.columnFractions(0, 100, 10.0, 4, f));  // nothing in view

  std::mt19937_64 rng(7);
  for (int round = 0; round < 20; ++round) {
    std::vector<std::vector<std::pair<TimeNs, TimeNs>>> spans(3);
    for (auto& r : spans) {
      const int n = int(rng() % 400);
      for (int i = 0; i < n; ++i) {
        const TimeNs b = TimeNs(rng() % 100000), len = TimeNs(rng() % 700);
        r.emplace_back(b, b + len);
      }
    }
    perwiz::ui::TimeShading sh(spans);
    auto marked = [&](std::size_t r, TimeNs a, TimeNs b) {  // |[a, b) ∩ ∪ spans| by counting ns
      std::vector<char> on(std::size_t(b - a), 0);
      for (const auto& [x, y] : spans[r])
        for (TimeNs t = std::max(x, a); t < std::min(y, b); ++t) on[std::size_t(t - a)] = 1;
      return TimeNs(std::count(on.begin(), on.end(), 1));
    };
    TimeNs total = 0;
    for (std::size_t r = 0; r < 3; ++r) total += marked(r, 0, 101000);
    EXPECT_EQ(sh.total(), total);
    const TimeNs begin = TimeNs(rng() % 50000);
    const int columns = 1 + int(rng() % 300);
    const double px = 1.0 + double(rng() % 400);
    std::vector<float> out(std::size_t(columns), -1.f);
    for (std::uint32_t r = 0; r < 3; ++r) {
      const bool any = sh.columnFractions(r, begin, px, columns, out.data());
      bool expectAny = false;
      for (int c = 0; c < columns; ++c) {
        const TimeNs t0 = begin + TimeNs(std::llround(c * px)), t1 = begin + TimeNs(std::llround((c + 1) * px));
        const TimeNs m = marked(r, t0, t1);
        expectAny = expectAny || m > 0;
        if (any) {
          EXPECT_NEAR(out[std::size_t(c)], double(m) / double(t1 - t0), 1e-6) << "column " << c;
        }
      }
      EXPECT_EQ(any, expectAny);
    }
  }
}

// The step band: each pixel column shows the step under its centre, however many steps share a
// column (the painter skips those covering no centre).
TEST(TimelineSteps, EachColumnTakesTheStepUnderItsCentre) {
  using perwiz::ui::RankSteps;
  // Steps as a drawing reads them: step i's marker is event i, whose enter and leave are the
  // step's begin and end.
  struct Steps {
    std::vector<TimeNs> begin, end;
    std::vector<perwiz::ui::StepOnRank> list;
    void add(TimeNs b, TimeNs e) {
      list.push_back({std::uint32_t(list.size()), std::uint32_t(list.size())});
      begin.push_back(b);
      end.push_back(e);
    }
    RankSteps view() const {
      perwiz::ui::RankTimes t;
      t.enter = perwiz::ui::TimeView(begin.data());
      t.leave = perwiz::ui::TimeView(end.data());
      t.size = std::uint32_t(begin.size());
      return RankSteps(list, t);
    }
  };
  auto columnsOf = [](const RankSteps& rs, TimeNs begin, double px, int W) {
    std::vector<std::size_t> out(std::size_t(W), std::size_t(-2));
    perwiz::ui::forStepColumns(rs, begin, px, W, [&](int c0, int c1, std::size_t i) {
      ASSERT_LE(0, c0);
      ASSERT_LT(c0, c1);
      ASSERT_LE(c1, W);
      for (int c = c0; c < c1; ++c) {
        EXPECT_EQ(out[std::size_t(c)], std::size_t(-2)) << "column " << c << " filled twice";
        out[std::size_t(c)] = i;
      }
    });
    return out;
  };
  // Hand case, 10 ns columns from 0 (centres 5, 15, 25, 35, 45): step 0 = [0, 12) holds the
  // centre 5; steps 1-3 = [12, 13), [13, 14), [14, 15) hold none (15 is not < 15); step 4 =
  // [15, 30) holds 15 and 25; 35 is in no step; step 5 = [40, 100) holds 45.
  Steps hand;
  for (auto [b, e] : {std::pair<TimeNs, TimeNs>{0, 12}, {12, 13}, {13, 14}, {14, 15}, {15, 30}, {40, 100}}) hand.add(b, e);
  const std::size_t none = hand.list.size();
  EXPECT_EQ(columnsOf(hand.view(), 0, 10.0, 5), (std::vector<std::size_t>{0, 4, 4, none, 5}));
  // Looked up by step and by time.
  EXPECT_EQ(hand.view().find(4), 4u);
  EXPECT_EQ(hand.view().find(6), none);
  EXPECT_EQ(hand.view().firstEndingAfter(35), 5u);  // ends 12, 13, 14, 15, 30, 100: 100 is the first > 35
  EXPECT_EQ(hand.view().firstEndingAfter(14), 3u);  // 15 is the first > 14
  EXPECT_EQ(hand.view().firstEndingAfter(100), none);

  // Random runs of steps (most far narrower than a column, some wider, some gaps) against the
  // definition: the step i with begin_i <= centre < end_i. Columns of a power-of-two width from
  // an integer begin make every centre an exact double.
  std::mt19937_64 rng(11);
  for (int round = 0; round < 200; ++round) {
    Steps rs;
    TimeNs t = TimeNs(rng() % 50);
    const int n = int(rng() % 3000);
    for (int i = 0; i < n; ++i) {
      if (rng() % 5 == 0) t += TimeNs(rng() % 40);  // a gap
      const TimeNs len = rng() % 10 == 0 ? TimeNs(rng() % 400) : TimeNs(rng() % 6);
      rs.add(t, t + len);
      t += len;
    }
    const double px = double(1u << (rng() % 7));
    const int W = 1 + int(rng() % 500);
    const TimeNs begin = TimeNs(rng() % 2000);
    const auto got = columnsOf(rs.view(), begin, px, W);
    for (int c = 0; c < W; ++c) {
      const double centre = double(begin) + (c + 0.5) * px;
      std::size_t want = rs.list.size();
      for (std::size_t i = 0; i < rs.list.size(); ++i)
        if (double(rs.begin[i]) <= centre && centre < double(rs.end[i])) {
          want = i;
          break;
        }
      ASSERT_EQ(got[std::size_t(c)], want) << "round " << round << ", column " << c;
    }
  }
}

// Marked time is drawn as a red strip at the bottom of the measured row, only where it is.
TEST(Timeline, MarkedTimeStrip) {
  auto t = smallTrace();
  Shown s(t, {900, 400});
  const std::uint32_t recv = eventNamed(*t, 1, "MPI_Recv");
  // Mark the last 200 µs of rank 1's Recv [50, 400] µs (its "overhead").
  std::vector<std::vector<std::pair<TimeNs, TimeNs>>> spans(4);
  spans[1].emplace_back(200 * us, 400 * us);
  s.view.setMarkedTime(spans, QStringLiteral("overhead"));
  EXPECT_EQ(s.view.markedTimeTotal(), 200 * us);
  const QImage img = s.view.grab().toImage().convertToFormat(QImage::Format_ARGB32_Premultiplied);
  // Rulers: rank 0's Send [100, 200] µs is centred at 150 µs, rank 1's Recv [50, 400] µs at 225 µs.
  const QPointF sendC = s.view.eventCenter(0, eventNamed(*t, 0, "MPI_Send"));
  const QPointF recvC = s.view.eventCenter(1, recv);
  const double x150 = sendC.x(), pxPerUs = (recvC.x() - x150) / 75.0;
  // Scan down from a row's centre line to the next row's centre: is there a strip-red pixel?
  const double rowPitch = recvC.y() - sendC.y();
  auto redBelow = [&](const QImage& img, double x, double y0) {
    for (int y = int(y0); y < int(y0 + rowPitch) && y < img.height(); ++y) {
      const QRgb px = img.pixel(int(x), y);
      if (qRed(px) > 180 && qGreen(px) < 110 && qBlue(px) < 110) return true;
    }
    return false;
  };
  EXPECT_TRUE(redBelow(img, x150 + 150 * pxPerUs, recvC.y()));   // 300 µs: marked
  EXPECT_FALSE(redBelow(img, x150 - 50 * pxPerUs, recvC.y()));   // 100 µs: in the Recv, unmarked
  EXPECT_FALSE(redBelow(img, x150 + 150 * pxPerUs, sendC.y()));  // rank 0's row: unmarked
  // Cleared: no strip.
  s.view.setMarkedTime({}, QString());
  EXPECT_EQ(s.view.markedTimeTotal(), 0);
  const QImage after = s.view.grab().toImage().convertToFormat(QImage::Format_ARGB32_Premultiplied);
  EXPECT_FALSE(redBelow(after, x150 + 150 * pxPerUs, recvC.y()));
}

TEST(Timeline, Screenshots) {
  const char* dir = std::getenv("PERWIZ_TIMELINE_SCREENSHOTS");
  if (!dir) GTEST_SKIP() << "set PERWIZ_TIMELINE_SCREENSHOTS=DIR to write PNGs";
  auto shoot = [&](std::shared_ptr<const Trace> t, const std::string& name, int rowHeight, int width) {
    TimelineView v;
    v.resize(width, 600);
    v.setTrace(t);
    Scenario sc;
    std::vector<Hypothesis> hs;
    for (std::uint32_t k = 0; k < t->steps.size(); ++k) hs.push_back(Hypothesis{HypothesisKind::BalanceCompute, {}, k});
    sc.hypotheses = hs;
    Replayer rp(*t, sc);
    v.setPrediction(predictedTimes(rp));
    for (auto [mode, suffix] : {std::pair{TimelineMode::Measured, "measured"}, std::pair{TimelineMode::Overlay, "overlay"},
                                std::pair{TimelineMode::Lanes, "lanes"}}) {
      v.setMode(mode);
      ui::TimelineExportOptions o;
      o.width = width;
      o.rowHeight = rowHeight;
      QImage img(v.exportSize(o), QImage::Format_RGB32);
      {
        QPainter p(&img);
        v.render(p, img.rect(), o);
      }
      const std::string path = std::string(dir) + "/" + name + "-" + suffix + ".png";
      EXPECT_TRUE(img.save(QString::fromStdString(path)));
      std::printf("%s: %.1f ms, %d boxes, %d marks, %d arrows\n", path.c_str(), v.lastFrameStats().milliseconds,
                  v.lastFrameStats().boxes, v.lastFrameStats().marks, v.lastFrameStats().arrows);
    }
    {  // The vector path: SVG, rasterised again for a look, and PDF.
      v.setMode(TimelineMode::Overlay);
      ui::TimelineExportOptions o;
      o.width = width;
      o.rowHeight = rowHeight;
      const QSize size = v.exportSize(o);
      const QString svgPath = QString::fromStdString(std::string(dir) + "/" + name + "-overlay.svg");
      QSvgGenerator gen;
      gen.setFileName(svgPath);
      gen.setSize(size);
      gen.setViewBox(QRect(QPoint(0, 0), size));
      {
        QPainter p(&gen);
        v.render(p, QRect(QPoint(0, 0), size), o);
      }
      QSvgRenderer svg(svgPath);
      QImage back(size, QImage::Format_RGB32);
      back.fill(Qt::white);
      {
        QPainter p(&back);
        svg.render(&p);
      }
      back.save(QString::fromStdString(std::string(dir) + "/" + name + "-overlay-svg.png"));
      QPdfWriter pdf(QString::fromStdString(std::string(dir) + "/" + name + "-overlay.pdf"));
      pdf.setResolution(72);
      pdf.setPageMargins(QMarginsF(0, 0, 0, 0));
      pdf.setPageSize(QPageSize(QSizeF(size), QPageSize::Point, QString(), QPageSize::ExactMatch));
      {
        QPainter p(&pdf);
        v.render(p, QRect(QPoint(0, 0), size), o);
      }
    }
    // The widget itself, zoomed into the middle, with a selection.
    v.setMode(TimelineMode::Measured);
    v.show();
    v.setVisibleRange(t->endTime * 4 / 10, t->endTime * 4 / 10 + t->endTime / 20);
    v.grab().save(QString::fromStdString(std::string(dir) + "/" + name + "-widget.png"));
    v.setVisibleRange(t->endTime / 2, t->endTime / 2 + 60);  // 60 ns: labels relative to a base
    v.grab().save(QString::fromStdString(std::string(dir) + "/" + name + "-deep.png"));
  };
  shoot(std::make_shared<const Trace>(loadTrace(PERWIZ_SAMPLE "/ring4.alog")), "ring4", 40, 1200);
  GeneratorSpec spec;
  spec.ranks = 64;
  spec.steps = 12;
  spec.imbalance = 0.4;
  spec.nonBlocking = true;
  spec.seed = 7;
  TraceBuilder tb("gen", "generated");
  generateTrace(spec, tb);
  shoot(std::make_shared<const Trace>(tb.take()), "gen64", 9, 1400);
  // For the docs: 16 ranks, imbalanced ring steps.
  GeneratorSpec docs;
  docs.ranks = 16;
  docs.steps = 6;
  docs.imbalance = 0.6;
  docs.seed = 3;
  docs.messageBytes = 65536;
  TraceBuilder dcb("docs", "generated");
  generateTrace(docs, dcb);
  shoot(std::make_shared<const Trace>(dcb.take()), "docs16", 22, 1100);
  // Dense: 256 ranks, ~200000 events, the widget at full view and zoomed (LOD summaries).
  GeneratorSpec dense;
  dense.ranks = 256;
  dense.imbalance = 0.2;
  dense.nonBlocking = true;
  dense = specForEventCount(dense, 200000);
  TraceBuilder db("dense", "generated");
  generateTrace(dense, db);
  auto dt = std::make_shared<const Trace>(db.take());
  TimelineView v;
  v.resize(1400, 900);
  v.setTrace(dt);
  v.show();
  v.grab().save(QString::fromStdString(std::string(dir) + "/dense-full.png"));
  v.setVisibleRange(dt->endTime / 3, dt->endTime / 3 + dt->endTime / 40);
  v.grab().save(QString::fromStdString(std::string(dir) + "/dense-zoom.png"));
}

int main(int argc, char** argv) {
  if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) qputenv("QT_QPA_PLATFORM", "offscreen");
  QApplication app(argc, argv);
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}

// A predicted drawing that shares the ranks a change did not move with the previous one (the
// GUI's worker makes such drawings) looks exactly like one built from scratch: the same pixels
// in every mode and range, with steps, arrows and the level of detail.
TEST(Timeline, IncrementalPredictedDrawingEqualsAFreshOne) {
  GeneratorSpec spec;
  spec.ranks = 12;
  spec.steps = 60;
  spec.imbalance = 0.3;
  spec.nonBlocking = true;
  TraceBuilder b("inc", "generated");
  generateTrace(spec, b);
  auto t = std::make_shared<const Trace>(b.take());
  // Two scenarios: zero the computation before rank 5's last call (moves little), then also
  // balance step 10 (moves much).
  Scenario s1;
  s1.hypotheses.push_back(Hypothesis{HypothesisKind::ZeroEvent, {5, std::uint32_t(t->ranks[5].mpiCalls.size() - 1), true}, 0});
  Scenario s2 = s1;
  s2.hypotheses.push_back(Hypothesis{HypothesisKind::BalanceCompute, {}, 10});
  const auto base = predictedTimes(Replayer(*t, Scenario{}));
  // p1, p2 share every rank whose times equal the previous prediction's, as the worker does.
  auto share = [](std::shared_ptr<const PredictedTimes> prev, std::shared_ptr<const PredictedTimes> next) {
    auto out = std::make_shared<PredictedTimes>(*next);
    int shared = 0;
    for (std::size_t r = 0; r < out->ranks.size(); ++r)
      if (prev->ranks[r]->enter == out->ranks[r]->enter && prev->ranks[r]->leave == out->ranks[r]->leave &&
          prev->ranks[r]->wait == out->ranks[r]->wait) {
        out->ranks[r] = prev->ranks[r];
        ++shared;
      }
    return std::pair{std::shared_ptr<const PredictedTimes>(out), shared};
  };
  const auto [p1, shared1] = share(base, predictedTimes(Replayer(*t, s1)));
  const auto [p2, shared2] = share(p1, predictedTimes(Replayer(*t, s2)));
  EXPECT_GT(shared1, 0);  // the first change left ranks alone: those are reused
  EXPECT_LT(shared2, 12);  // the second moved some

  TimelineView incremental, fresh;
  for (TimelineView* v : {&incremental, &fresh}) {
    v->resize(900, 500);
    v->setTrace(t);
  }
  incremental.setPrediction(base);
  incremental.setPrediction(p1);
  incremental.setPrediction(p2);
  fresh.setPrediction(p2);
  for (TimelineMode mode : {TimelineMode::Overlay, TimelineMode::Lanes, TimelineMode::Predicted}) {
    for (auto [b0, e0] : {std::pair{TimeNs(0), t->endTime}, std::pair{t->endTime / 3, t->endTime / 3 + t->endTime / 50}}) {
      for (TimelineView* v : {&incremental, &fresh}) {
        v->setMode(mode);
        v->setVisibleRange(b0, e0);
      }
      const QImage a = incremental.grab().toImage(), f = fresh.grab().toImage();
      EXPECT_TRUE(a == f) << "mode " << int(mode) << " range " << b0 << ".." << e0;
    }
  }
}

// A predicted drawing built after a uniform shift (the GUI's worker after a toggle that moved
// every rank alike: Drawing::pieces) summarises the same events within a bucket of one built
// from scratch: per lane the same boxes, the same busy time in all and in every window of
// columns up to the buckets at its two edges; frames finer than level 0 read the times and
// are the same pixels. Undoing the change composes the pieces back to no shift.
TEST(Timeline, ShiftedPredictedDrawingIsWithinABucketOfAFreshOne) {
  GeneratorSpec spec;
  // Few long steps (about 2,000 events per rank: a frame of the whole trace reads the LOD
  // tables) and a large imbalance: balancing step 0 moves the rest by several buckets.
  spec.ranks = 12;
  spec.steps = 60;
  spec.messagesPerStep = 15;
  spec.imbalance = 0.9;
  spec.nonBlocking = true;
  TraceBuilder b("shift", "generated");
  generateTrace(spec, b);
  auto t = std::make_shared<const Trace>(b.take());

  TimelineView shifted, fresh;
  for (TimelineView* v : {&shifted, &fresh}) {
    v->resize(900, 500);
    v->setTrace(t);
  }
  const auto base = shifted.base();
  Replayer r(*t, Scenario{});
  r.prepareUpdates();
  auto before = predictedTimes(r);
  auto drawing = ui::buildDrawing(base, before, nullptr, nullptr);
  // The worker's way after one update that shifted: the moved ranks' times from the previous
  // ones, and a drawing that moves the previous one's tables.
  auto next = [&](std::shared_ptr<const PredictedTimes> prev, std::shared_ptr<const ui::Drawing> prevDrawing) {
    const UpdateStats& st = r.lastUpdate();
    EXPECT_FALSE(st.shiftAfterCall.empty());
    auto times = std::make_shared<PredictedTimes>();
    ui::DrawingShift sh;
    sh.delta = st.shift;
    sh.firstEvent.assign(t->rankCount(), 0);
    times->ranks = prev->ranks;
    for (std::uint32_t rank = 0; rank < t->rankCount(); ++rank) {
      auto out = std::make_shared<PredictedRank>();
      sh.firstEvent[rank] = r.predictedRankShifted(rank, *prev->ranks[rank], *out);
      times->end = std::max(times->end, out->end);
      times->ranks[rank] = std::move(out);
    }
    std::shared_ptr<const PredictedTimes> p = times;
    return std::pair{p, ui::buildDrawing(base, p, prevDrawing.get(), &sh)};
  };
  auto compare = [&](std::shared_ptr<const PredictedTimes> times, std::shared_ptr<const ui::Drawing> d, const std::string& what) {
    ASSERT_TRUE(ui::isProvisional(*d)) << what;
    const auto exact = ui::buildDrawing(base, times, nullptr, nullptr);
    ASSERT_EQ(d->grid.w0, exact->grid.w0);
    const TimeNs end = times->end;
    for (auto [b0, e0] : {std::pair{TimeNs(0), end}, std::pair{end / 4, end / 4 + end / 2}}) {
      ui::LaneQuery q;
      q.begin = b0;
      q.end = e0;
      q.columns = 900;
      q.nsPerPx = double(e0 - b0) / q.columns;
      const int level = d->grid.levelFor(q.nsPerPx);
      ASSERT_GE(level, 0) << what;
      const double bw = double(d->grid.bucketWidth(level));
      for (std::uint32_t rank = 0; rank < t->rankCount(); ++rank) {
        std::vector<ui::ColumnMark> mp(q.columns), mf(q.columns);
        std::vector<std::uint32_t> bp, bf;
        ui::queryDrawingLane(*d, rank, base->shape(rank), base->roles(), q, mp.data(), bp);
        ui::queryDrawingLane(*exact, rank, base->shape(rank), base->roles(), q, mf.data(), bf);
        std::sort(bp.begin(), bp.end());
        std::sort(bf.begin(), bf.end());
        const std::string where = what + ", rank " + std::to_string(rank) + ", range " + std::to_string(b0) + ".." + std::to_string(e0);
        EXPECT_EQ(bp, bf) << where;
        // Every window of 8 columns holds the fresh busy time up to two buckets' (a bucket at
        // each edge may fall on the other side of it).
        double allP = 0, allF = 0;
        for (int c = 0; c < q.columns; ++c) allP += mp[c].busy, allF += mf[c].busy;
        EXPECT_NEAR(allP, allF, 2 * bw + 1e-3 * allF) << where;
        for (int c = 0; c + 8 <= q.columns; c += 8) {
          double wp = 0, wf = 0;
          for (int k = c; k < c + 8; ++k) wp += mp[k].busy, wf += mf[k].busy;
          EXPECT_NEAR(wp, wf, 2 * bw + 1e-3 * allF) << where << ", columns " << c << "..";
        }
      }
    }
    // Arrows: the same arrows in the same order as the exact drawing's, each with its own
    // message; the moved part taken from the earlier drawing (a piece with a shift).
    ASSERT_EQ(d->arrows.channels.size(), exact->arrows.channels.size());
    auto arrowsOf = [](const ui::ArrowChannel& ch) {
      std::vector<std::tuple<TimeNs, TimeNs, std::uint32_t>> out;
      for (const ui::ArrowPiece& pc : ch.pieces)
        for (std::uint32_t i = pc.lo; i < pc.hi; ++i) out.emplace_back(pc.send(i), pc.recv(i), pc.arrays->source(i));
      return out;
    };
    std::size_t movedPieces = 0;
    for (std::size_t c = 0; c < d->arrows.channels.size(); ++c) {
      const ui::ArrowChannel& pc = *d->arrows.channels[c];
      EXPECT_EQ(arrowsOf(pc), arrowsOf(*exact->arrows.channels[c])) << what << ", channel " << c;
      // (an earlier drawing's arrays are shared with it: both drawings are alive here)
      movedPieces += std::count_if(pc.pieces.begin(), pc.pieces.end(), [](const ui::ArrowPiece& x) { return x.arrays.use_count() > 1; });
      // The search bounds hold for every arrow (the pieces' arrays may hold more than they draw).
      EXPECT_GE(pc.lag, exact->arrows.channels[c]->lag) << what << ", channel " << c;
      EXPECT_GE(pc.lead, exact->arrows.channels[c]->lead) << what << ", channel " << c;
    }
    EXPECT_GT(movedPieces, 0u) << what << ": no channel took the earlier drawing's arrows";
    // Finer than level 0: the times themselves, the same pixels.
    shifted.setPrediction(times, d);
    fresh.setPrediction(nullptr);
    fresh.setPrediction(times);
    for (TimelineMode mode : {TimelineMode::Overlay, TimelineMode::Lanes, TimelineMode::Predicted}) {
      for (TimelineView* v : {&shifted, &fresh}) {
        v->setMode(mode);
        v->setVisibleRange(end / 2, end / 2 + end / 5000);
      }
      EXPECT_TRUE(shifted.grab().toImage() == fresh.grab().toImage()) << what << ", mode " << int(mode);
    }
  };
  ASSERT_TRUE(r.add(Hypothesis{HypothesisKind::BalanceCompute, {}, 0}));
  // Several level-0 buckets: a drawing that did not move the tables would be caught.
  EXPECT_LT(r.lastUpdate().shift, -4 * drawing->grid.w0);
  auto [p1, d1] = next(before, drawing);
  compare(p1, d1, "balanced step 0");
  ASSERT_TRUE(r.remove(Hypothesis{HypothesisKind::BalanceCompute, {}, 0}));
  auto [p2, d2] = next(p1, d1);
  for (const auto& pieces : d2->pieces) {
    ASSERT_TRUE(pieces);
    EXPECT_EQ(pieces->size(), 2u);
    EXPECT_EQ(pieces->back().shift, 0);  // moved there and back
  }
  compare(p2, d2, "and undone");
}

// Threads (issue #37): each a row right under its rank (threads of no rank last), drawn as
// measured in every mode, labelled, never selected; their tooltip says they are shown as
// measured. A trace of threads only draws them too.
namespace {
// 2 ranks: rank 0 MPI_Send [100, 200] µs, rank 1 MPI_Recv [50, 400] µs; thread "OMP 1" of
// rank 0 runs "work" [100, 900] µs; thread "helper" of no rank runs "work" [0, 500] µs.
std::shared_ptr<const Trace> threadedTrace() {
  TraceBuilder b("hand", "test");
  b.begin({2, {}, {{"helper", -1}, {"OMP 1", 0}}});
  const auto send = b.defineFunction({"MPI_Send", EventKind::MpiCall, MpiOp::Send, ""});
  const auto recv = b.defineFunction({"MPI_Recv", EventKind::MpiCall, MpiOp::Recv, ""});
  const auto work = b.defineFunction({"work", EventKind::UserState, MpiOp::None, "forest green"});
  b.enter(0, 100 * us, send);
  b.send(0, 100 * us, 1, 0, 7, 64, 0);
  b.leave(0, 200 * us, send);
  b.enter(1, 50 * us, recv);
  b.recv(1, 400 * us, 0, 0, 7, 64, 0);
  b.leave(1, 400 * us, recv);
  b.threadEnter(0, 0, work);
  b.threadLeave(0, 500 * us, work);
  b.threadEnter(1, 100 * us, work);
  b.threadLeave(1, 900 * us, work);
  b.end();
  return std::make_shared<const Trace>(b.take());
}
}  // namespace

TEST(Timeline, ThreadsAreRowsUnderTheirRankDrawnAsMeasured) {
  auto t = threadedTrace();
  ASSERT_EQ(t->threads.size(), 2u);
  ASSERT_EQ(t->threads[0].events.name, "OMP 1");  // by rank: rank 0's first, no rank's last
  Shown s(t, {900, 400});
  perwiz::ui::TimelineExportOptions o;
  o.wholeTrace = true;
  o.width = s.view.width();
  o.rowHeight = 36;
  o.legend = false;
  const QSize size = s.view.exportSize(o);
  EXPECT_GT(size.height(), 4 * 36);  // four rows: rank 0, OMP 1, rank 1, helper
  auto render = [&] {
    QImage img(size, QImage::Format_ARGB32_Premultiplied);
    img.fill(Qt::red);
    QPainter p(&img);
    s.view.render(p, QRect(QPoint(0, 0), size), o);
    return img;
  };
  const QRgb sendColor = perwiz::ui::mpiOpColor(MpiOp::Send).rgb();
  const QRgb recvColor = perwiz::ui::mpiOpColor(MpiOp::Recv).rgb();
  const QRgb workColor = perwiz::ui::functionColor(t->functions[t->threads[0].events.function[0]]).rgb();
  const QRgb white = qRgb(255, 255, 255);
  QImage img = render();
  if (const char* dir = std::getenv("PERWIZ_TIMELINE_SCREENSHOTS")) img.save(QString(dir) + "/threads-measured.png");
  // Rows are 36 px apart from rank 0's: the Send's centre at 150 µs, rank 0's row.
  const QPointF send = s.view.eventCenter(0, eventNamed(*t, 0, "MPI_Send"));
  // (12 px above the boxes' centres: clear of their labels and of the arrow.)
  const int x150 = int(send.x()), y0 = int(send.y()) - 12;
  EXPECT_TRUE(near(img.pixel(x150, y0), sendColor)) << std::hex << img.pixel(x150, y0);
  EXPECT_TRUE(near(img.pixel(x150, y0 + 36), workColor)) << std::hex << img.pixel(x150, y0 + 36);  // OMP 1
  EXPECT_TRUE(near(img.pixel(x150, y0 + 72), recvColor)) << std::hex << img.pixel(x150, y0 + 72);  // rank 1
  EXPECT_TRUE(near(img.pixel(x150, y0 + 108), workColor)) << std::hex << img.pixel(x150, y0 + 108); // helper
  // helper stops at 500 µs, OMP 1 runs to 900 µs: at 700 µs only OMP 1 is busy.
  const double pxPerUs = (send.x() - s.view.eventCenter(1, eventNamed(*t, 1, "MPI_Recv")).x()) / (150.0 - 225.0);
  const int x700 = int(send.x() + 550 * pxPerUs);
  EXPECT_TRUE(near(img.pixel(x700, y0 + 36), workColor)) << std::hex << img.pixel(x700, y0 + 36);
  EXPECT_TRUE(near(img.pixel(x700, y0 + 108), white, 60)) << std::hex << img.pixel(x700, y0 + 108);
  // A thread's row selects nothing; its tooltip names the event and says why.
  EXPECT_EQ(s.view.itemAt(QPointF(x150, y0 + 36)).kind, TimelineItem::Kind::None);
  // A prediction moves the ranks only: the threads' pixels stay where they were.
  s.view.setPrediction(shifted(*t, 0, eventNamed(*t, 0, "MPI_Send"), 300 * us));
  s.view.setMode(TimelineMode::Predicted);
  o.mode = TimelineMode::Predicted;
  img = render();
  EXPECT_TRUE(near(img.pixel(x150, y0 + 36), workColor)) << std::hex << img.pixel(x150, y0 + 36);
  EXPECT_TRUE(near(img.pixel(x700, y0 + 36), workColor)) << std::hex << img.pixel(x700, y0 + 36);
  // Overlay draws a thread as an unmoved rank: faded measured under the outlined predicted,
  // the same colour along the box and on both threads' "work".
  s.view.setMode(TimelineMode::Overlay);
  o.mode = TimelineMode::Overlay;
  img = render();
  EXPECT_FALSE(near(img.pixel(x150, y0 + 36), white, 30)) << std::hex << img.pixel(x150, y0 + 36);
  EXPECT_EQ(img.pixel(x150, y0 + 36), img.pixel(x700, y0 + 36));
  EXPECT_EQ(img.pixel(x150, y0 + 36), img.pixel(x150, y0 + 108));
  s.view.setMode(TimelineMode::Lanes);
  s.view.grab();
  EXPECT_GT(s.view.lastFrameStats().boxes, 3);
  // The labels column names the threads (SVG text).
  const QByteArray svg = renderSvg(s.view, size, o);
  EXPECT_TRUE(svg.contains("OMP 1"));
  EXPECT_TRUE(svg.contains("helper"));
}

TEST(Timeline, ThreadTooltipSaysTheThreadIsShownAsMeasured) {
  auto t = threadedTrace();
  Shown s(t, {900, 400});
  const QPointF send = s.view.eventCenter(0, eventNamed(*t, 0, "MPI_Send"));
  const QPointF onThread(send.x(), send.y() + (s.view.eventCenter(1, eventNamed(*t, 1, "MPI_Recv")).y() - send.y()) / 2);
  QHelpEvent help(QEvent::ToolTip, onThread.toPoint(), s.view.mapToGlobal(onThread.toPoint()));
  QApplication::sendEvent(&s.view, &help);
  const QString text = QToolTip::text();
  EXPECT_TRUE(text.contains("work")) << text.toStdString();
  EXPECT_TRUE(text.contains("OMP 1")) << text.toStdString();
  EXPECT_TRUE(text.contains("shown as measured")) << text.toStdString();
}

TEST(Timeline, ThreadOnlyTraceDrawsItsThreads) {
  TraceBuilder b("hand", "test");
  b.begin({0, {}, {{"main", -1}, {"pthread 1", -1}}});
  const auto work = b.defineFunction({"work", EventKind::UserState, MpiOp::None, ""});
  b.threadEnter(0, 0, work);
  b.threadLeave(0, 1000, work);
  b.threadEnter(1, 200, work);
  b.threadLeave(1, 800, work);
  b.end();
  auto t = std::make_shared<const Trace>(b.take());
  Shown s(t);
  s.view.grab();
  EXPECT_EQ(s.view.lastFrameStats().rows, 2);
  EXPECT_GE(s.view.lastFrameStats().boxes + s.view.lastFrameStats().marks, 2);
}
