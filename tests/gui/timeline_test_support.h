// What the timeline tests share (test_timeline.cpp, test_timeline_parts.cpp): small traces,
// a shown view, rendering, colour comparison.
#pragma once

#include "perwiz/generator.h"
#include "perwiz/replay.h"
#include "perwiz/scenario.h"
#include "perwiz/trace_builder.h"
#include "perwiz/trace_io.h"
#include "perwiz/widgets/timeline_view.h"
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

namespace perwiz::timeline_test {

using namespace perwiz;
using perwiz::ui::TimelineItem;
using perwiz::ui::TimelineMode;
using perwiz::ui::TimelineView;

inline constexpr TimeNs us = 1000;

// 4 ranks, 2 parallel steps (PRGN_step states) on ranks 0-2; rank 3 has no events at all.
//   step 0 [0, 1000 µs]:  rank 0 Send -> rank 1 Recv; ranks 0-2 Barrier [800, 900]
//   step 1 [1000, 2000]:  rank 0 Compute state [1100, 1500] with a nested Isend/Wait;
//                         rank 1 Irecv + Wait; rank 2 nothing inside the step.
// A generated trace (perwiz/generator.h) named `name`.
inline std::shared_ptr<const Trace> generated(const GeneratorSpec& spec, const std::string& name) {
  TraceBuilder b(name, "generated");
  generateTrace(spec, b);
  return std::make_shared<const Trace>(b.take());
}

inline std::shared_ptr<const Trace> smallTrace() {
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

inline std::uint32_t eventNamed(const Trace& t, std::uint32_t rank, const std::string& name, int nth = 0) {
  const RankTrace& rt = t.ranks[rank];
  for (std::uint32_t i = 0; i < rt.size(); ++i)
    if (t.functions[rt.function[i]].name == name && nth-- == 0) return i;
  return kNone32;
}

inline TimelineItem eventItem(std::uint32_t rank, std::uint32_t event, bool predicted = false) {
  TimelineItem it;
  it.kind = TimelineItem::Kind::Event;
  it.rank = rank;
  it.event = event;
  it.predicted = predicted;
  return it;
}

// Measured times with one event moved by `shift` (a hand-made prediction).
inline std::shared_ptr<PredictedTimes> shifted(const Trace& t, std::uint32_t rank, std::uint32_t event, TimeNs shift) {
  auto p = std::make_shared<PredictedTimes>();
  for (const RankTrace& r : t.ranks) {
    auto pr = std::make_shared<PredictedRank>();
    std::vector<TimeNs> enter = r.enter.toVector(), leave = r.leave.toVector();
    if (p->ranks.size() == rank) {
      enter[event] += shift;
      leave[event] += shift;
    }
    pr->ownEnter = enter;
    pr->ownLeave = leave;
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
inline QByteArray renderSvg(const TimelineView& view, QSize size, const perwiz::ui::TimelineExportOptions& options) {
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

inline bool near(QRgb a, QRgb b, int tol = 40) {
  return std::abs(qRed(a) - qRed(b)) + std::abs(qGreen(a) - qGreen(b)) + std::abs(qBlue(a) - qBlue(b)) <= tol;
}

}  // namespace perwiz::timeline_test
