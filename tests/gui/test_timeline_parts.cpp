// The timeline widget library's parts below TimelineView (widgets/src, through the
// perwiz_widgets_internal include set): layout, level of detail, axis ticks, time shading,
// step columns, palette and the shifted predicted drawing.
#include "timeline_test_support.h"

#include "perwiz/widgets/palette.h"
#include "time_axis.h"
#include "time_shading.h"
#include "timeline_data.h"
#include "timeline_layout.h"
#include "timeline_lod.h"

using namespace perwiz::timeline_test;

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

TEST(TimelineLod, ParentColumnGivesBackEveryParent) {
  // The compact parents (parent_column.h) read back exactly what was appended: blocks with one
  // parent (kNone32 and `main`), blocks of region/call pairs (129 distinct), a nesting chain
  // whose block has 256 distinct parents (the table takes 255, the last one is far), random
  // blocks, and a short last block still plain.
  std::mt19937 rng(5);
  std::vector<std::uint32_t> want;
  for (std::size_t i = 0; i < 512; ++i) want.push_back(i == 0 ? kNone32 : 0);
  for (std::size_t i = 0; i < 1024; ++i) want.push_back(i % 2 ? std::uint32_t(want.size() - 1) : 0);
  for (std::size_t i = 0; i < 300; ++i) want.push_back(std::uint32_t(want.size() - 1));
  for (std::size_t i = 0; i < 2000; ++i) want.push_back(std::uint32_t(rng() % 4 == 0 ? want.size() - 1 : rng() % 3));
  for (std::size_t i = 0; i < 77; ++i) want.push_back(std::uint32_t(rng() % want.size()));
  ui::ParentColumn c;
  for (std::uint32_t p : want) c.push_back(p);
  ASSERT_EQ(c.size(), want.size());
  for (std::size_t i = 0; i < want.size(); ++i) ASSERT_EQ(c[i], want[i]) << i;
  EXPECT_GT(c.farCount(), 0u);
  EXPECT_LT(c.bytes(), want.size() * 4);
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

// Issue #40 item 8: labels relative to a base keep at most four digits before the point. 1 ms at
// 1.5514 s over 1000 px, 100 px apart: step 100 µs (1 ms · 100 / 1000); the base is the step ·
// 1000 = 100 ms multiple below, 1.5 s; the first tick, 1551.4 ms, is 51.4 ms after it, which
// reads "51.4 ms" (51400 µs has five digits), the next one 100 µs later "51.5 ms".
TEST(TimelineAxis, RelativeLabelsTakeAUnitThatKeepsThemShort) {
  const auto t = ui::computeTicks(1551400000LL, 1552400000LL, 1000, 100);
  EXPECT_EQ(t.step, 100000);
  EXPECT_EQ(t.base, 1500000000LL);
  EXPECT_TRUE(t.baseLabel.startsWith(QStringLiteral("1.5 s"))) << t.baseLabel.toStdString();
  ASSERT_GE(t.major.size(), 2u);
  EXPECT_EQ(t.major[0].label, QStringLiteral("51.4 ms"));
  EXPECT_EQ(t.major[1].label, QStringLiteral("51.5 ms"));
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

// A rank's steps: the step is the index while the rank has every step from the first (4 B a
// step); the first one missing stores the steps (and those before it) explicitly.
TEST(TimelineSteps, ListsGiveBackStepsAndMarkersDenseOrNot) {
  perwiz::ui::StepList dense, sparse;
  for (std::uint32_t k = 0; k < 5; ++k) dense.push_back({k, 10 * k});
  for (std::uint32_t k : {0u, 1u, 3u, 7u}) sparse.push_back({k, 100 + k});
  ASSERT_EQ(dense.size(), 5u);
  ASSERT_EQ(sparse.size(), 4u);
  for (std::uint32_t i = 0; i < 5; ++i) {
    EXPECT_EQ(dense.step(i), i);
    EXPECT_EQ(dense.marker(i), 10 * i);
    EXPECT_EQ(dense.find(i), i);
  }
  EXPECT_EQ(dense.find(5), 5u);
  const std::uint32_t want[] = {0, 1, 3, 7};
  for (std::uint32_t i = 0; i < 4; ++i) {
    EXPECT_EQ(sparse.step(i), want[i]);
    EXPECT_EQ(sparse.marker(i), 100 + want[i]);
    EXPECT_EQ(sparse.find(want[i]), i);
  }
  EXPECT_EQ(sparse.find(2), 4u);  // absent: size()
  EXPECT_EQ(sparse.find(8), 4u);
  // 1,000 steps: 4 B each with every step, 8 B each when one is missing (step 0 here).
  perwiz::ui::StepList all, gap;
  all.reserve(1000);
  gap.reserve(1000);
  for (std::uint32_t k = 0; k < 1000; ++k) all.push_back({k, k});
  for (std::uint32_t k = 1; k <= 1000; ++k) gap.push_back({k, k});
  EXPECT_EQ(all.bytes(), 1000u * 4);
  EXPECT_EQ(gap.bytes(), 1000u * 8);
}

// The step band: each pixel column shows the step under its centre, however many steps share a
// column (the painter skips those covering no centre).
TEST(TimelineSteps, EachColumnTakesTheStepUnderItsCentre) {
  using perwiz::ui::RankSteps;
  // Steps as a drawing reads them: step i's marker is event i, whose enter and leave are the
  // step's begin and end.
  struct Steps {
    std::vector<TimeNs> begin, end;
    perwiz::ui::StepList list;
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
  for (auto [b, e] : {std::pair<TimeNs, TimeNs>{0, 12}, {12, 13}, {13, 14}, {14, 15}, {15, 30}, {40, 100}})
    hand.add(b, e);
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
    // By time, from any start (RankSteps::firstEndingAfter reads every 16th end from its
    // samples): the first step at or after `from` ending after q, by a walk of the ends.
    const RankSteps view = rs.view();
    for (int k = 0; k < 100; ++k) {
      const TimeNs q = TimeNs(rng() % std::uint64_t(t + 60)) - 10;
      const std::size_t from = k % 2 ? 0 : std::size_t(rng() % (rs.list.size() + 3));
      std::size_t want = from;
      while (want < rs.list.size() && rs.end[want] <= q) ++want;
      ASSERT_EQ(view.firstEndingAfter(q, from), want) << "round " << round << ", t " << q << ", from " << from;
    }
  }
}

// Arrow ends (TimelineBase::ArrowEnd): every matched endpoint's measured time comes back
// exactly, and a predicted end keeps its distance to the nearer end of its moved event: one
// recorded at a call's leave (a receive completed as the call returns, the common case) stays at
// the predicted leave, one at the enter at the predicted enter.
TEST(Timeline, ArrowEndsKeepTheirPlaceInTheirEvent) {
  TraceBuilder b("ends", "test");
  b.begin({2, {}});
  const auto send = b.defineFunction({"MPI_Send", EventKind::MpiCall, MpiOp::Send, ""});
  const auto recv = b.defineFunction({"MPI_Recv", EventKind::MpiCall, MpiOp::Recv, ""});
  b.enter(0, 100, send);
  b.send(0, 100, 1, 0, 7, 64, 0);  // at the enter
  b.leave(0, 150, send);
  b.enter(1, 50, recv);
  b.recv(1, 400, 0, 0, 7, 64, 0);  // at the leave
  b.leave(1, 400, recv);
  b.enter(1, 500, recv);
  b.recv(1, 530, 0, 0, 8, 64, 0);  // inside, nearer the enter (30 ns after it)
  b.leave(1, 600, recv);
  b.enter(0, 700, send);
  b.send(0, 790, 1, 0, 8, 64, 0);  // inside, nearer the leave (10 ns before it)
  b.leave(0, 800, send);
  // Far: 5 s after the enter of a 10 s send, 6 s after the enter of a 12 s receive (more than
  // 32 bits of ns from either end: the base's far table).
  constexpr TimeNs kS = 1'000'000'000;
  b.enter(0, 1000, send);
  b.send(0, 1000 + 5 * kS, 1, 0, 9, 64, 0);
  b.leave(0, 1000 + 10 * kS, send);
  b.enter(1, 900, recv);
  b.recv(1, 900 + 6 * kS, 0, 0, 9, 64, 0);
  b.leave(1, 900 + 12 * kS, recv);
  b.end();
  auto t = std::make_shared<const Trace>(b.take());
  ui::TimelineBase base(t);
  ASSERT_EQ(base.arrowSources().size(), 3u);
  for (std::uint32_t r = 0; r < 2; ++r)
    for (const MessageEndpoint& m : t->ranks[r].messages)
      EXPECT_EQ(base.measuredEnd(r, base.arrowEnd(r, m)), m.time) << "rank " << r << " at " << m.time;
  // The table gives the same ends back, far ones included: sends at 100, 790 and 1000 + 5 s
  // (by send time), received at 400, 530 and 900 + 6 s.
  ASSERT_EQ(base.channels().size(), 1u);
  const std::vector<TimeNs> sends{100, 790, 1000 + 5 * kS}, recvs{400, 530, 900 + 6 * kS};
  for (std::uint32_t i = 0; i < 3; ++i) {
    EXPECT_EQ(base.measuredEnd(0, base.arrowSend(i)), sends[i]) << i;
    EXPECT_EQ(base.measuredEnd(1, base.arrowRecv(i)), recvs[i]) << i;
  }
  EXPECT_EQ(base.arrowSources()[2].sendValue, ui::TimelineBase::ArrowSource::kFar);
  EXPECT_NE(base.arrowSources()[1].sendValue, ui::TimelineBase::ArrowSource::kFar);
  // A prediction that moves and stretches every event: [enter, leave] -> [enter + 1000,
  // enter + 1000 + 3 * (leave - enter)].
  PredictedTimes p;
  for (std::uint32_t r = 0; r < 2; ++r) {
    auto pr = std::make_shared<PredictedRank>();
    for (std::uint32_t i = 0; i < t->ranks[r].size(); ++i) {
      const TimeNs e = t->ranks[r].enter[i], x = t->ranks[r].leave[i];
      pr->ownEnter.push_back(e + 1000);
      pr->ownLeave.push_back(e + 1000 + 3 * (x - e));
    }
    pr->ownWait = std::vector<TimeNs>(t->ranks[r].mpiCalls.size(), 0);
    p.ranks.push_back(pr);
  }
  auto at = [&](std::uint32_t r, std::size_t k) {
    return base.predictedEnd(r, base.arrowEnd(r, t->ranks[r].messages[k]), p);
  };
  EXPECT_EQ(at(0, 0), 100 + 1000);                 // at the enter: the predicted enter
  EXPECT_EQ(at(1, 0), 50 + 1000 + 3 * 350);        // at the leave: the predicted leave (2100)
  EXPECT_EQ(at(1, 1), 500 + 1000 + 30);            // 30 ns after the predicted enter
  EXPECT_EQ(at(0, 1), 700 + 1000 + 3 * 100 - 10);  // 10 ns before the predicted leave
}

// A drawing built into spares (ui::DrawingSpares: arrays whose pages were touched in idle
// time, or a replaced drawing's) is the drawing built into fresh memory, and writes into the
// spares' memory; a drawing is harvested only when nothing else holds it.
TEST(Timeline, ADrawingBuiltIntoSparesIsTheSameAndUsesTheirMemory) {
  GeneratorSpec spec;
  spec.ranks = 8;
  spec.steps = 30;
  spec.imbalance = 0.6;
  spec.nonBlocking = true;
  auto t = generated(spec, "spares");
  TimelineView view;
  view.setTrace(t);
  const auto base = view.base();
  Replayer r(*t, Scenario{});
  auto first = ui::buildDrawing(base, predictedTimes(r), nullptr, nullptr);
  ui::DrawingSpares spares;
  ASSERT_TRUE(spares.fill(*first, {}));
  EXPECT_GT(spares.bytes(), 0u);
  auto& sp = spares.impl();
  std::vector<const ui::LodBucket*> lodMemory(t->rankCount());
  std::vector<const void*> arrowMemory(sp.arrows.size());
  for (std::uint32_t k = 0; k < t->rankCount(); ++k) {
    ASSERT_NE(sp.lodOf(k), nullptr);
    lodMemory[k] = sp.lod[k].levels[0].data();
  }
  for (std::uint32_t c = 0; c < sp.arrows.size(); ++c)
    arrowMemory[c] = sp.arrowsOf(c) ? sp.arrows[c].send.storage() : nullptr;

  // Balancing step 1 moves every rank: both builds rebuild every table and channel.
  ASSERT_TRUE(r.add(Hypothesis{HypothesisKind::BalanceCompute, {}, 1}));
  const auto times = predictedTimes(r);
  auto fresh = ui::buildDrawing(base, times, first.get(), nullptr);
  auto reused = ui::buildDrawing(base, times, first.get(), nullptr, {}, &spares);
  ASSERT_TRUE(fresh && reused);
  for (std::uint32_t k = 0; k < t->rankCount(); ++k) {
    const ui::RankLod &f = *fresh->lod[k], &u = *reused->lod[k];
    EXPECT_EQ(u.levels[0].data(), lodMemory[k]) << "rank " << k;  // the spare's memory
    ASSERT_EQ(f.levels.size(), u.levels.size());
    for (std::size_t l = 0; l < f.levels.size(); ++l) {
      ASSERT_EQ(f.levels[l].size(), u.levels[l].size());
      for (std::size_t i = 0; i < f.levels[l].size(); ++i) {
        const ui::LodBucket &x = f.levels[l][i], &y = u.levels[l][i];
        ASSERT_TRUE(x.packed == y.packed && x.busy == y.busy && x.top == y.top)
            << "rank " << k << " level " << l << " bucket " << i;
      }
    }
    EXPECT_EQ(f.classes, u.classes);
    EXPECT_EQ(f.classMaxDuration, u.classMaxDuration);
    EXPECT_EQ(f.firstEnter, u.firstEnter);
    EXPECT_EQ(f.lastLeave, u.lastLeave);
  }
  ASSERT_EQ(fresh->arrows.channels.size(), reused->arrows.channels.size());
  for (std::size_t c = 0; c < fresh->arrows.channels.size(); ++c) {
    const ui::ArrowArrays &f = *fresh->arrows.channels[c]->pieces[0].arrays,
                          &u = *reused->arrows.channels[c]->pieces[0].arrays;
    EXPECT_EQ(f.send, u.send);
    EXPECT_EQ(f.recv, u.recv);
    EXPECT_EQ(f.order, u.order);
    EXPECT_EQ(f.first, u.first);
    EXPECT_EQ(f.lag, u.lag);
    EXPECT_EQ(f.lead, u.lead);
    if (arrowMemory[c]) {
      EXPECT_EQ(u.send.storage(), arrowMemory[c]) << "channel " << c;
    }
  }
  EXPECT_EQ(spares.bytes(), 0u);  // all taken

  // Harvest: not while another holds the drawing; then its arrays, and the drawing goes.
  auto held = reused;
  spares.harvest(reused);
  EXPECT_NE(reused, nullptr);
  EXPECT_EQ(spares.bytes(), 0u);
  held.reset();
  std::size_t arrays = 0;  // its tables and arrow arrays
  for (const auto& l : reused->lod) arrays += l->bytes();
  for (const auto& c : reused->arrows.channels)
    arrays += c->pieces[0].arrays->send.capacityBytes() + c->pieces[0].arrays->recv.capacityBytes();
  spares.harvest(reused);
  EXPECT_EQ(reused, nullptr);
  EXPECT_EQ(spares.bytes(), arrays);
  // A rank whose table a later drawing shares is not taken from the earlier one.
  auto later = ui::buildDrawing(base, times, fresh.get(), nullptr);  // same times: every table shared
  spares.clear();
  spares.harvest(fresh);
  EXPECT_EQ(fresh, nullptr);
  EXPECT_EQ(spares.bytes(), 0u);
}

// A drawing built for a view's columns (the prediction worker's, ui::ColumnView) brings every
// row's step band in them: per column the step whose [marker enter, marker leave) holds the
// column's centre, 1 for an even step, 2 for an odd one, 0 for none; a rank the next drawing
// keeps keeps its band, a moved one gets its new one; a drawing for other columns, or for
// none, brings none (the painter finds the band itself).
TEST(Timeline, ADrawingForAViewBringsItsStepBands) {
  GeneratorSpec spec;
  spec.ranks = 6;
  spec.steps = 40;
  spec.imbalance = 0.6;
  auto t = generated(spec, "bands");
  TimelineView view;
  view.setTrace(t);
  const auto base = view.base();
  Replayer r(*t, Scenario{});
  const auto before = predictedTimes(r);
  // 300 columns over the whole prediction with every row shown, and 200 over its middle third
  // with the rows in slots 1-3 shown (no threads: a row is its slot).
  const ui::ColumnView whole{0, double(before->end + 1) / 300.0, 300, 0, 6};
  const ui::ColumnView middle{before->end / 3, double(before->end / 3) / 200.0, 200, 1, 4};
  // The definition, from the trace's step markers and the prediction's times.
  auto byDefinition = [&](const PredictedTimes& p, std::uint32_t rank, const ui::ColumnView& v) {
    std::vector<std::uint8_t> want(std::size_t(v.columns), 0);
    const ui::StepList& steps = base->stepsOf(rank);
    const PredictedRank& pr = *p.ranks[rank];
    for (int c = 0; c < v.columns; ++c) {
      const TimeNs centre = v.begin + TimeNs((c + 0.5) * v.nsPerPx);
      for (std::size_t i = 0; i < steps.size(); ++i) {
        const TimeNs b = pr.enter(steps.marker(i)), e = std::max(b, pr.leave(steps.marker(i)));
        if (b <= centre && centre < e) {
          want[std::size_t(c)] = std::uint8_t(1 + (steps.step(i) & 1u));
          break;
        }
      }
    }
    return want;
  };
  auto first = ui::buildDrawing(base, before, nullptr, nullptr, {}, nullptr, &whole);
  ASSERT_TRUE(first);
  EXPECT_EQ(first->bandView, whole);
  ASSERT_EQ(first->bandColumns.size(), base->rowCount());
  int stepped = 0;  // columns in a step, over all ranks (the test's own check that it tests)
  for (std::uint32_t k = 0; k < t->rankCount(); ++k) {
    EXPECT_EQ(first->bandColumns[k], byDefinition(*before, k, whole)) << "rank " << k;
    stepped +=
        int(std::count_if(first->bandColumns[k].begin(), first->bandColumns[k].end(), [](auto c) { return c != 0; }));
  }
  EXPECT_GT(stepped, 6 * 300 / 4);

  // Balancing step 7 moves every rank; zeroing one late call moves few.
  ASSERT_TRUE(r.add(Hypothesis{HypothesisKind::BalanceCompute, {}, 7}));
  const auto balanced = predictedTimes(r);
  auto second = ui::buildDrawing(base, balanced, first.get(), nullptr, {}, nullptr, &middle);
  ASSERT_TRUE(second);
  for (std::uint32_t k = 0; k < t->rankCount(); ++k) {
    if (k >= 1 && k < 4)
      EXPECT_EQ(second->bandColumns[k], byDefinition(*balanced, k, middle)) << "rank " << k;
    else  // a row not shown gets no band (a trace of many ranks shows few)
      EXPECT_TRUE(second->bandColumns[k].empty()) << "rank " << k;
  }
  auto again = ui::buildDrawing(base, balanced, second.get(), nullptr, {}, nullptr, &middle);  // every rank kept
  for (std::uint32_t k = 0; k < t->rankCount(); ++k)
    EXPECT_EQ(again->bandColumns[k], second->bandColumns[k]) << "rank " << k;

  auto none = ui::buildDrawing(base, balanced, second.get(), nullptr);
  EXPECT_TRUE(none->bandColumns.empty());
  EXPECT_EQ(none->bandView.columns, 0);
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
  auto t = generated(spec, "shift");

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
  auto next = [&](std::shared_ptr<const PredictedTimes> prev, std::shared_ptr<const ui::Drawing> prevDrawing,
                  bool tables = true) {
    const UpdateStats& st = r.lastUpdate();
    EXPECT_FALSE(st.shiftAfterCall.empty());
    auto times = std::make_shared<PredictedTimes>();
    ui::DrawingShift sh;
    sh.delta = st.shift;
    sh.tables = tables;
    sh.firstEvent.assign(t->rankCount(), 0);
    times->ranks = prev->ranks;
    for (std::uint32_t rank = 0; rank < t->rankCount(); ++rank) {
      auto out = std::make_shared<PredictedRank>();
      sh.firstEvent[rank] = r.predictedRankShifted(rank, prev->ranks[rank], *out);  // sharing prev's arrays
      times->end = std::max(times->end, out->end);
      times->ranks[rank] = std::move(out);
    }
    std::shared_ptr<const PredictedTimes> p = times;
    return std::pair{p, ui::buildDrawing(base, p, prevDrawing.get(), &sh)};
  };
  auto compare = [&](std::shared_ptr<const PredictedTimes> times, std::shared_ptr<const ui::Drawing> d,
                     const std::string& what) {
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
        const std::string where =
            what + ", rank " + std::to_string(rank) + ", range " + std::to_string(b0) + ".." + std::to_string(e0);
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
    // Step bands: the moved samples find the same step as the exact drawing's at every step's
    // end and just before it (the samples decide which block of steps is searched).
    std::size_t sampled = 0;
    for (std::uint32_t rank = 0; rank < t->rankCount(); ++rank) {
      const ui::RankSteps& sp = d->steps[rank];
      const ui::RankSteps& sf = exact->steps[rank];
      ASSERT_EQ(sp.size(), sf.size()) << what;
      if (sf.size() >= 2 * ui::RankSteps::kSample) ++sampled;
      for (std::size_t i = 0; i < sf.size(); ++i)
        for (TimeNs at : {sf.end(i) - 1, sf.end(i)})
          ASSERT_EQ(sp.firstEndingAfter(at), sf.firstEndingAfter(at)) << what << ", rank " << rank << ", step " << i;
    }
    EXPECT_GT(sampled, 0u) << what;
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
      movedPieces += std::count_if(pc.pieces.begin(), pc.pieces.end(),
                                   [](const ui::ArrowPiece& x) { return x.arrays.use_count() > 1; });
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
      // Read from the times, such a frame is final (issue #40: only frames drawn from moved
      // tables are provisional).
      EXPECT_FALSE(shifted.lastFrameStats().provisional) << what;
    }
    // At full view the frame reads the moved tables: marked provisional (on screen, the badge),
    // until the exact drawing of the same times replaces it; a Measured frame never is.
    shifted.setVisibleRange(0, end);
    shifted.setMode(TimelineMode::Lanes);
    const QImage provisionalFrame = shifted.grab().toImage();
    EXPECT_TRUE(shifted.lastFrameStats().provisional) << what;
    shifted.setMode(TimelineMode::Measured);
    shifted.grab();
    EXPECT_FALSE(shifted.lastFrameStats().provisional) << what;
    shifted.setMode(TimelineMode::Lanes);
    shifted.setPrediction(times, exact);
    const QImage exactFrame = shifted.grab().toImage();
    EXPECT_FALSE(shifted.lastFrameStats().provisional) << what;
    // The badge's pixels: the frames differ in its box at the plot's top right corner (it is
    // the only amber there: 255, 244, 214, opaque).
    auto amber = [](const QImage& img) {
      int n = 0;
      for (int y = 0; y < img.height() / 4; ++y)
        for (int x = img.width() / 2; x < img.width(); ++x) n += img.pixel(x, y) == qRgb(255, 244, 214);
      return n;
    };
    EXPECT_GT(amber(provisionalFrame), 100) << what;
    EXPECT_EQ(amber(exactFrame), 0) << what;

    // The refinement (the worker's exact drawing of the same times, built over the provisional
    // one): the tables of every rank drawn from pieces are built afresh and equal a fresh
    // build's; the arrows (exact already) are the provisional drawing's own channels.
    const auto refined = ui::buildDrawing(base, times, d.get(), nullptr);
    ASSERT_TRUE(refined);
    EXPECT_FALSE(ui::isProvisional(*refined)) << what;
    for (std::uint32_t rank = 0; rank < t->rankCount(); ++rank) {
      const ui::RankLod &a = *refined->lod[rank], &b = *exact->lod[rank];
      EXPECT_NE(refined->lod[rank], d->lod[rank]) << what << ", rank " << rank;  // moved: built afresh
      EXPECT_EQ(a.classes, b.classes) << what << ", rank " << rank;
      EXPECT_EQ(a.firstEnter, b.firstEnter) << what << ", rank " << rank;
      EXPECT_EQ(a.lastLeave, b.lastLeave) << what << ", rank " << rank;
      ASSERT_EQ(a.levels.size(), b.levels.size()) << what;
      for (std::size_t l = 0; l < a.levels.size(); ++l) {
        ASSERT_EQ(a.levels[l].size(), b.levels[l].size()) << what << ", level " << l;
        for (std::size_t k = 0; k < a.levels[l].size(); ++k) {
          const ui::LodBucket &x = a.levels[l][k], &y = b.levels[l][k];
          ASSERT_TRUE(x.packed == y.packed && x.busy == y.busy && x.top == y.top)
              << what << ", rank " << rank << ", level " << l << ", bucket " << k;
        }
      }
    }
    for (std::size_t c = 0; c < refined->arrows.channels.size(); ++c) {
      EXPECT_EQ(refined->arrows.channels[c], d->arrows.channels[c]) << what << ", channel " << c;
      EXPECT_EQ(arrowsOf(*refined->arrows.channels[c]), arrowsOf(*exact->arrows.channels[c])) << what;
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

  // A shift that moves the arrows only (the worker's way below provisionalEvents_): the tables
  // of every moved rank built exactly, so the drawing is final at once; the arrows past the
  // cuts still the earlier drawing's, moved, and the same as the exact drawing's.
  ASSERT_TRUE(r.add(Hypothesis{HypothesisKind::BalanceCompute, {}, 0}));
  auto [p3, d3] = next(p2, d2, false);
  EXPECT_FALSE(ui::isProvisional(*d3));
  const auto exact3 = ui::buildDrawing(base, p3, nullptr, nullptr);
  for (std::uint32_t rank = 0; rank < t->rankCount(); ++rank) {
    const ui::RankLod &a = *d3->lod[rank], &b = *exact3->lod[rank];
    EXPECT_EQ(a.classes, b.classes) << "rank " << rank;
    ASSERT_EQ(a.levels.size(), b.levels.size());
    for (std::size_t l = 0; l < a.levels.size(); ++l) {
      ASSERT_EQ(a.levels[l].size(), b.levels[l].size()) << "level " << l;
      for (std::size_t k = 0; k < a.levels[l].size(); ++k) {
        const ui::LodBucket &x = a.levels[l][k], &y = b.levels[l][k];
        ASSERT_TRUE(x.packed == y.packed && x.busy == y.busy && x.top == y.top)
            << "rank " << rank << ", level " << l << ", bucket " << k;
      }
    }
  }
  std::size_t moved3 = 0;
  for (std::size_t c = 0; c < d3->arrows.channels.size(); ++c) {
    const ui::ArrowChannel& ch = *d3->arrows.channels[c];
    std::vector<std::tuple<TimeNs, TimeNs, std::uint32_t>> got, want;
    for (const ui::ArrowPiece& pc : ch.pieces)
      for (std::uint32_t i = pc.lo; i < pc.hi; ++i) got.emplace_back(pc.send(i), pc.recv(i), pc.arrays->source(i));
    for (const ui::ArrowPiece& pc : exact3->arrows.channels[c]->pieces)
      for (std::uint32_t i = pc.lo; i < pc.hi; ++i) want.emplace_back(pc.send(i), pc.recv(i), pc.arrays->source(i));
    EXPECT_EQ(got, want) << "channel " << c;
    moved3 += std::count_if(ch.pieces.begin(), ch.pieces.end(),
                            [](const ui::ArrowPiece& x) { return x.arrays.use_count() > 1; });
  }
  EXPECT_GT(moved3, 0u) << "no channel took the earlier drawing's arrows";
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

int main(int argc, char** argv) {
  if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) qputenv("QT_QPA_PLATFORM", "offscreen");
  QApplication app(argc, argv);
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}

// Issue #40 item 5: the functions of one trace get colours of their own. MPI families keep a
// hue (MPI_Wait and MPI_Waitall both red to orange, hue within 40° of red) with shades far enough
// apart to tell; other MPI calls (Comm_rank, Comm_split, Initialized) are tinted greys of
// their own; a non-blocking collective is a lighter shade of its blocking one; user regions
// are spread over the hues. "Apart" is the weighted RGB distance ("redmean") of at least 40:
// about the smallest difference that reads as another colour next to each other.
TEST(TimelinePalette, EveryFunctionOfATraceHasItsOwnColour) {
  TraceBuilder b("palette", "test");
  b.begin({1, {}});
  std::vector<std::string> names;
  TimeNs at = 0;
  auto def = [&](const std::string& n, EventKind k) {  // each called once
    names.push_back(n);
    const auto f = b.defineFunction({n, k, k == EventKind::MpiCall ? classifyMpiName(n) : MpiOp::None, ""});
    b.enter(0, at, f);
    b.leave(0, at += 10, f);
  };
  for (const char* n :
       {"MPI_Wait", "MPI_Waitall", "MPI_Comm_rank", "MPI_Comm_split", "MPI_Initialized", "MPI_Iallgather",
        "MPI_Allgather", "MPI_Send", "MPI_Recv", "MPI_Allreduce", "MPI_Init", "MPI_Finalize"})
    def(n, EventKind::MpiCall);
  for (const char* n : {"main", "late_sender", "solve", "exchange", "compute", "io", "setup", "finish"})
    def(n, EventKind::UserState);
  b.end();
  const Trace t = b.take();
  const std::vector<QColor> c = ui::functionColors(t);
  ASSERT_EQ(c.size(), names.size());
  auto distance = [](const QColor& a, const QColor& b) {  // "redmean" weighted RGB distance
    const double rm = (a.red() + b.red()) / 2.0, dr = a.red() - b.red(), dg = a.green() - b.green(),
                 db = a.blue() - b.blue();
    return std::sqrt((2 + rm / 256) * dr * dr + 4 * dg * dg + (2 + (255 - rm) / 256) * db * db);
  };
  for (std::size_t i = 0; i < c.size(); ++i)
    for (std::size_t j = i + 1; j < c.size(); ++j)
      EXPECT_GE(distance(c[i], c[j]), 40)
          << names[i] << " " << c[i].name().toStdString() << " vs " << names[j] << " " << c[j].name().toStdString();
  auto hueDeg = [](const QColor& q) { return q.hsvHueF() * 360; };
  auto fromRed = [&](const QColor& q) { return std::min(hueDeg(q), 360 - hueDeg(q)); };
  EXPECT_LT(fromRed(c[0]), 40);                                                          // MPI_Wait: red
  EXPECT_LT(fromRed(c[1]), 40);                                                          // MPI_Waitall: red to orange
  for (std::size_t i : {2u, 3u, 4u}) EXPECT_LT(c[i].hsvSaturationF(), 0.3) << names[i];  // tinted greys
  EXPECT_GT(c[5].lightnessF(), c[6].lightnessF());  // Iallgather lighter than Allgather
  EXPECT_NEAR(hueDeg(c[5]), hueDeg(c[6]), 5);       // of its hue
  // A trace's own colour still wins.
  TraceBuilder own("own", "test");
  own.begin({1, {}});
  const auto wait = own.defineFunction({"MPI_Wait", EventKind::MpiCall, MpiOp::Wait, "forest green"});
  own.enter(0, 0, wait);
  own.leave(0, 10, wait);
  own.end();
  EXPECT_EQ(ui::functionColors(own.take())[0], QColor("forestgreen"));
}
