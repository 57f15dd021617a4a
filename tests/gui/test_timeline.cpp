// TimelineView through its public API (perwiz/widgets/): hit testing, selection by mouse and
// keyboard, hypothesis keys, step bands, range sanity, render() pixels, Lanes mode, the level
// of detail bound, threads. Runs offscreen (QT_QPA_PLATFORM=offscreen). The widget library's
// parts (layout, LOD, axis, shading): test_timeline_parts.cpp.
//
// PERWIZ_TIMELINE_SCREENSHOTS=DIR additionally writes PNG screenshots of the ring4 sample and a
// generated 64-rank trace, measured and overlaid with a prediction (Timeline.Screenshots).
#include "perwiz/generator.h"
#include "perwiz/replay.h"
#include "perwiz/scenario.h"
#include "perwiz/trace_builder.h"
#include "perwiz/trace_io.h"
#include "perwiz/widgets/timeline_view.h"

#include "timeline_test_support.h"

#include "perwiz/widgets/palette.h"

#include <QApplication>
#include <QBuffer>
#include <QImage>
#include <QPainter>
#include <QPageSize>
#include <QPdfWriter>
#include <QRegularExpression>
#include <QScrollBar>
#include <QWheelEvent>
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

using namespace perwiz::timeline_test;

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

// The step bands a view keeps between frames (PaintCache::Bands) are those of the drawing
// shown: after a prediction with other times over the same range, and after the refinement of
// the same times, every pixel equals a fresh view's.
TEST(Timeline, KeptStepBandsFollowThePrediction) {
  auto t = smallTrace();
  const std::uint32_t marker = eventNamed(*t, 2, "PRGN_step", 1);
  auto p1 = shifted(*t, 2, marker, 200 * us), p2 = shifted(*t, 2, marker, 500 * us);
  p1->end = p2->end = t->endTime + 500 * us;  // the same range: only the times differ
  auto show = [&](Shown& v, const std::shared_ptr<PredictedTimes>& p) {
    v.view.setPrediction(p);
    v.view.setMode(TimelineMode::Lanes);
    v.view.fitAll();
    return v.view.grab().toImage();
  };
  Shown kept(t), fresh(t);
  const QImage first = show(kept, p1);
  const QImage second = show(kept, p2);
  EXPECT_NE(first, second);  // the step moved on the screen
  EXPECT_EQ(second, show(fresh, p2));
  // The same times drawn again (as a refinement is): the kept bands, the same pixels.
  kept.view.setPrediction(std::shared_ptr<const PredictedTimes>(p2));
  EXPECT_EQ(kept.view.grab().toImage(), second);
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

// Issue #40 item 3: a message's arrow joins the times of the lane it is drawn in. After zeroing
// the receive's wait, the measured lane still shows the measured send -> receive (forward), the
// predicted lane the predicted send -> the predicted receive, which now comes before the send.
TEST(Timeline, ArrowsJoinTheTimesOfTheirLane) {
  TraceBuilder b("late", "test");
  b.begin({2, {}});
  const auto send = b.defineFunction({"MPI_Send", EventKind::MpiCall, MpiOp::Send, ""});
  const auto recv = b.defineFunction({"MPI_Recv", EventKind::MpiCall, MpiOp::Recv, ""});
  b.enter(0, 5000 * us, send);  // a late sender: rank 1 waits from 1000 µs
  b.send(0, 5000 * us, 1, 0, 7, 64, 0);
  b.leave(0, 5100 * us, send);
  b.enter(1, 1000 * us, recv);
  b.recv(1, 6200 * us, 0, 0, 7, 64, 0);
  b.leave(1, 6200 * us, recv);
  b.end();
  auto t = std::make_shared<const Trace>(b.take());
  Replayer rp(*t, Scenario{nullptr, CostMode::Measured, {{HypothesisKind::ZeroWait, EventRef{1, 0, false}, 0}}});
  ASSERT_LT(rp.predicted(1, 0).leave, rp.predicted(0, 0).enter);  // received before it is sent
  Shown s(t, {1000, 300});
  s.view.setPrediction(predictedTimes(rp));
  s.view.setMode(TimelineMode::Lanes);
  const QPointF mSend = s.view.messagePoint(0, 0, 0.0, false), mRecv = s.view.messagePoint(0, 0, 1.0, false);
  const QPointF pSend = s.view.messagePoint(0, 0, 0.0, true), pRecv = s.view.messagePoint(0, 0, 1.0, true);
  for (const QPointF& q : {mSend, mRecv, pSend, pRecv}) ASSERT_TRUE(s.view.rect().contains(q.toPoint()));
  EXPECT_LT(mSend.x(), mRecv.x());         // measured: 5000 µs -> 6200 µs
  EXPECT_NEAR(pSend.x(), mSend.x(), 1.0);  // rank 0 does not move
  EXPECT_LT(pRecv.x(), pSend.x());         // predicted receive, before the send
  EXPECT_NE(pSend.y(), mSend.y());         // each end in its own lane
  EXPECT_NE(pRecv.y(), mRecv.y());
  // The predicted receive end lies on the predicted receive box, not the measured one.
  const QPointF pBox = s.view.eventCenter(1, 0, true), mBox = s.view.eventCenter(1, 0, false);
  EXPECT_LT(std::abs(pRecv.x() - pBox.x()), std::abs(pRecv.x() - mBox.x()));
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
  auto t = generated(spec, "inc");
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
      if (prev->ranks[r]->enters() == out->ranks[r]->enters() && prev->ranks[r]->leaves() == out->ranks[r]->leaves() &&
          prev->ranks[r]->waits() == out->ranks[r]->waits()) {
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

// Issue #40 item 5: a region's label goes into its own visible part, never over a nested box.
// "main" [0, 1000 µs] holds "late_sender" [100, 900 µs], which holds MPI_Recv [150, 850 µs]:
// on 900 px the plot's ~800 px give main ~80 px of its own on each side (10 % of the span)
// and late_sender ~40 px (5 %), too narrow for its name; MPI_Recv is 70 % of the plot. So
// MPI_Recv is named within its box, main left of late_sender (or right of it), late_sender
// nowhere. Rank 1's two short "pad" states give the time -> x scale.
TEST(Timeline, NestedBoxLabelsStayInTheirOwnPart) {
  TraceBuilder b("nested", "test");
  b.begin({2, {}});
  const auto main = b.defineFunction({"main", EventKind::UserState, MpiOp::None, ""});
  const auto late = b.defineFunction({"late_sender", EventKind::UserState, MpiOp::None, ""});
  const auto recv = b.defineFunction({"MPI_Recv", EventKind::MpiCall, classifyMpiName("MPI_Recv"), ""});
  const auto pad = b.defineFunction({"pad", EventKind::UserState, MpiOp::None, ""});
  b.enter(0, 0, main);
  b.enter(0, 100 * us, late);
  b.enter(0, 150 * us, recv);
  b.leave(0, 850 * us, recv);
  b.leave(0, 900 * us, late);
  b.leave(0, 1000 * us, main);
  b.enter(1, 0, pad);
  b.leave(1, 2 * us, pad);
  b.enter(1, 500 * us, pad);
  b.leave(1, 502 * us, pad);
  b.end();
  auto t = std::make_shared<const Trace>(b.take());
  Shown s(t, {900, 300});
  s.view.setVisibleRange(0, 1000 * us);
  // x(t) from the pads' centres, x(1 µs) and x(501 µs).
  const double x1 = s.view.eventCenter(1, 0).x(), x501 = s.view.eventCenter(1, 1).x();
  auto x = [&](double microseconds) { return x1 + (microseconds - 1) * (x501 - x1) / 500; };
  ASSERT_GT(x501 - x1, 300);

  perwiz::ui::TimelineExportOptions o;
  o.wholeTrace = false;
  o.width = s.view.width();
  o.rowHeight = 60;
  o.legend = false;  // the legend names every function too
  const QSize size = s.view.exportSize(o);
  const QString svg = QString::fromUtf8(renderSvg(s.view, size, o));
  // Each label's left x, from the SVG's text elements.
  auto textX = [&](const QString& name) {
    std::vector<double> xs;
    const QRegularExpression re(QStringLiteral("<text[^>]*x=\"([-0-9.]+)\"[^>]*>\\s*") +
                                QRegularExpression::escape(name) + QStringLiteral("\\s*</text>"));
    for (auto it = re.globalMatch(svg); it.hasNext();) xs.push_back(it.next().captured(1).toDouble());
    return xs;
  };
  const QFontMetricsF fm(s.view.font());
  EXPECT_TRUE(textX(QStringLiteral("late_sender")).empty());
  const auto mainX = textX(QStringLiteral("main"));
  ASSERT_EQ(mainX.size(), 1u) << qPrintable(svg);
  const double mainRight = mainX[0] + fm.horizontalAdvance(QStringLiteral("main"));
  EXPECT_TRUE((mainX[0] >= x(0) - 1 && mainRight <= x(100) + 1) || (mainX[0] >= x(900) - 1 && mainRight <= x(1000) + 1))
      << mainX[0] << " " << mainRight << " " << x(100) << " " << x(900);
  const auto recvX = textX(QStringLiteral("MPI_Recv"));
  ASSERT_EQ(recvX.size(), 1u);
  EXPECT_GE(recvX[0], x(150));
  EXPECT_LE(recvX[0] + fm.horizontalAdvance(QStringLiteral("MPI_Recv")), x(850));
}

// Issue #40 item 4: dense traces stay readable. 256 ranks in a 1200 x 700 view: rows keep the
// height of a rank's label (font height + 1; a Lanes row 16 px at least), so every rank is
// named, and those that do not fit scroll (Shift+wheel or the wheel over the names). The
// selection has an amber halo (colors::halo at alpha 150 over white: 255, 222, 105) around it.
TEST(Timeline, DenseTracesKeepLabelledRowsAndScroll) {
  GeneratorSpec spec;
  spec.ranks = 256;
  spec.steps = 4;
  spec.messagesPerStep = 2;
  auto t = generated(spec, "dense");
  Shown s(t, {1200, 700});
  const int fontH = QFontMetrics(s.view.font()).height();
  auto rowHeight = [&] { return s.view.eventCenter(1, 0).y() - s.view.eventCenter(0, 0).y(); };
  EXPECT_GE(rowHeight(), fontH + 1);
  auto* bar = s.view.findChild<QScrollBar*>();
  ASSERT_TRUE(bar);
  EXPECT_TRUE(bar->isVisible());
  EXPECT_GT(bar->maximum(), 256 * (fontH + 1) - 700);  // the rows' height less the plot's at most
  // Lanes (two lanes per row): 16 px at least.
  Replayer r(*t, Scenario{});
  s.view.setPrediction(predictedTimes(r));
  s.view.setMode(TimelineMode::Lanes);
  EXPECT_GE(rowHeight(), std::max(fontH + 1, 16));
  // The wheel over the rank names scrolls the rows; over the plot it zooms.
  const TimeNs span = s.view.visibleEnd() - s.view.visibleBegin();
  const QPointF names(10, 300), plot(600, 300);
  auto wheel = [&](QPointF at, int dy) {
    QWheelEvent e(at, s.view.mapToGlobal(at), QPoint(), QPoint(0, dy), Qt::NoButton, Qt::NoModifier, Qt::NoScrollPhase,
                  false);
    QCoreApplication::sendEvent(&s.view, &e);
  };
  wheel(names, -240);
  EXPECT_GT(bar->value(), 0);
  EXPECT_EQ(s.view.visibleEnd() - s.view.visibleBegin(), span);
  wheel(plot, 240);
  EXPECT_LT(s.view.visibleEnd() - s.view.visibleBegin(), span);  // zoomed in

  // The selection's halo: amber around the selected event, none before.
  s.view.setMode(TimelineMode::Measured);
  bar->setValue(0);
  const std::uint32_t ev = 1;
  s.view.setVisibleRange(t->ranks[0].enter[ev] - 2000, t->ranks[0].leave[ev] + 2000);
  auto amber = [&](const QImage& img) {
    int n = 0;
    for (int y = 0; y < img.height(); ++y)
      for (int x = 0; x < img.width(); ++x) {
        const QColor c = img.pixelColor(x, y);
        n += c.red() > 240 && c.green() > 190 && c.green() < 240 && c.blue() < 150;
      }
    return n;
  };
  const int before = amber(s.view.grab().toImage());
  s.view.setSelection(eventItem(0, ev));
  const QImage selected = s.view.grab().toImage();
  if (const char* dir = std::getenv("PERWIZ_TIMELINE_SCREENSHOTS")) selected.save(QString::fromUtf8(dir) + "/halo.png");
  const int after = amber(selected);
  EXPECT_GT(after, before + 50) << before << " " << after;
}
