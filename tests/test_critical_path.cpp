// The critical path by a backward walk over the replay (critical_path.h) against hand-derived
// totals and against the reference longest path of the Boost.Graph DAG (execution_dag.h).
#include "perwiz/critical_path.h"
#include "perwiz/execution_dag.h"
#include "perwiz/replay.h"
#include "perwiz/scenario.h"
#include "perwiz/trace_io.h"

#include "test_support.h"
#include "test_traces.h"

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

using namespace perwiz;

namespace {

// L = 1000 ns, o = 100 ns, S = 1024 B: λ(k) = o + L = 1100 ns for an eager message.
Scenario simple(std::vector<Hypothesis> hs = {}) { return test::simpleScenario(std::move(hs)); }

std::uint32_t functionNamed(const Trace& t, const std::string& name) {
  for (std::uint32_t f = 0; f < t.functions.size(); ++f)
    if (t.functions[f].name == name) return f;
  return kNone32;
}

::testing::AssertionResult sameSegments(const CriticalPath& a, const CriticalPath& b) {
  if (a.length != b.length) return ::testing::AssertionFailure() << "length " << a.length << " vs " << b.length;
  if (a.segments.size() != b.segments.size())
    return ::testing::AssertionFailure() << a.segments.size() << " vs " << b.segments.size() << " segments";
  for (std::size_t i = 0; i < a.segments.size(); ++i) {
    const CriticalSegment &x = a.segments[i], &y = b.segments[i];
    if (x.kind != y.kind || x.rank != y.rank || x.index != y.index || x.fromRank != y.fromRank ||
        x.fromIndex != y.fromIndex || x.begin != y.begin || x.end != y.end)
      return ::testing::AssertionFailure() << "segment " << i << ": " << x.id() << " [" << x.begin << ", " << x.end
                                           << "] vs " << y.id() << " [" << y.begin << ", " << y.end << "]";
  }
  if (a.callIds != b.callIds) return ::testing::AssertionFailure() << "call ids differ";
  return ::testing::AssertionSuccess();
}

// Segments of a longest path are contiguous from 0 to its length, and the totals add them up.
// (A segment may end before it begins: a rendezvous send's wait for its receiver's post has
// the negative offset −λ, docs/model.md; the sum is still the length.)
void expectConsistent(const Trace& t, const CriticalPath& cp, const std::string& what) {
  TimeNs at = 0, comp = 0, call = 0, wait = 0, skew = 0;
  std::vector<TimeNs> rank(t.rankCount(), 0), fn(t.functions.size(), 0);
  std::uint64_t calls = 0;
  for (const CriticalSegment& s : cp.segments) {
    ASSERT_EQ(s.begin, at) << what << ": " << s.id();
    at = s.end;
    const TimeNs ns = s.end - s.begin;
    // A skew segment steps back in time and is never a wait; every other segment is >= 0.
    EXPECT_EQ(s.kind == CriticalSegment::Kind::Skew, ns < 0) << what << ": " << s.id();
    if (s.kind == CriticalSegment::Kind::Skew) {
      ++calls;
      skew += ns;
      continue;
    }
    rank[s.rank] += ns;
    if (s.kind == CriticalSegment::Kind::Computation) {
      comp += ns;
      continue;
    }
    ++calls;
    (s.kind == CriticalSegment::Kind::Call ? call : wait) += ns;
    fn[t.ranks[s.rank].function[t.ranks[s.rank].mpiCalls[s.index]]] += ns;
  }
  EXPECT_EQ(at, cp.length) << what;
  EXPECT_EQ(cp.totals.segments, cp.segments.size()) << what;
  EXPECT_EQ(cp.totals.calls, calls) << what;
  EXPECT_EQ(cp.totals.computationNs, comp) << what;
  EXPECT_EQ(cp.totals.callNs, call) << what;
  EXPECT_EQ(cp.totals.waitNs, wait) << what;
  EXPECT_EQ(cp.totals.skewNs, skew) << what;
  // The path's time adds up: computation + calls + waits + skew = length.
  EXPECT_EQ(comp + call + wait + skew, cp.length) << what;
  EXPECT_EQ(cp.totals.perRank, rank) << what;
  EXPECT_EQ(cp.totals.perFunction, fn) << what;
}

}  // namespace

TEST(CriticalPathWalk, TotalsOfALateSender) {
  //   rank 0: Send [5000, 5100]    rank 1: Recv [1000, 6300]
  // The receive returns at max(1000, 5000 + λ) + local = 6100 + 200 = 6300 = T. The path:
  // 0:c0 [0, 5000] (computation on rank 0), then the wait of 1:0 for 0:0 [5000, 6300]
  // (λ + local = 1300, on rank 1, in MPI_Recv).
  test::Tb b(2);
  b.send(0, 5000, 5100, 1, 64);
  b.recv(1, 1000, 6300, 0, 64);
  const Trace t = b.take();
  Replayer rp(t, simple());
  for (const auto listing : {CriticalPathListing::TotalsOnly, CriticalPathListing::Segments, CriticalPathListing::Full}) {
    const CriticalPath cp = criticalPath(rp, listing);
    EXPECT_EQ(cp.length, 6300);
    EXPECT_EQ(cp.totals.segments, 2u);
    EXPECT_EQ(cp.totals.calls, 1u);
    EXPECT_EQ(cp.totals.computationNs, 5000);
    EXPECT_EQ(cp.totals.callNs, 0);
    EXPECT_EQ(cp.totals.waitNs, 1300);
    EXPECT_EQ(cp.totals.perRank, (std::vector<TimeNs>{5000, 1300}));
    const std::uint32_t recv = functionNamed(t, "MPI_Recv");
    ASSERT_NE(recv, kNone32);
    EXPECT_EQ(cp.totals.perFunction[recv], 1300);
    EXPECT_EQ(cp.segments.size(), listing == CriticalPathListing::TotalsOnly ? 0u : 2u);
    EXPECT_EQ(cp.callIds.size(), listing == CriticalPathListing::Full ? 2u : 0u);
  }
  // Zeroing the receive's wait: it returns at 1000 + 200 = 1200; rank 0 ends last at 5100:
  // 0:c0 [0, 5000] then the send's local cost [5000, 5100].
  ASSERT_TRUE(rp.add({HypothesisKind::ZeroWait, EventRef{1, 0, false}, 0}));
  const CriticalPath cp = criticalPath(rp);
  EXPECT_EQ(cp.length, 5100);
  EXPECT_EQ(cp.totals.computationNs, 5000);
  EXPECT_EQ(cp.totals.callNs, 100);
  EXPECT_EQ(cp.totals.waitNs, 0);
  EXPECT_EQ(cp.callIds, (std::vector<std::string>{"0:0"}));
}

TEST(CriticalPathWalk, FirstSegmentsArePrefixOfTheFullListing) {
  std::mt19937_64 rng(7);
  const Trace t = test::randomTrace(rng, 6, 8);
  Replayer rp(t, Scenario{});
  const CriticalPath full = criticalPath(rp, CriticalPathListing::Full);
  ASSERT_GE(full.segments.size(), 4u);
  for (std::size_t k : {std::size_t{0}, std::size_t{1}, std::size_t{3}, full.segments.size() - 1, full.segments.size(),
                        full.segments.size() + 5}) {
    const CriticalPath cp = criticalPath(rp, CriticalPathListing::Segments, k);
    ASSERT_EQ(cp.segments.size(), std::min(k, full.segments.size())) << k;
    for (std::size_t i = 0; i < cp.segments.size(); ++i) EXPECT_EQ(cp.segments[i].id(), full.segments[i].id()) << k;
    EXPECT_EQ(cp.totals.segments, full.totals.segments) << k;  // totals cover the whole path
    EXPECT_EQ(cp.totals.perRank, full.totals.perRank) << k;
  }
}

// The walk and the DAG's longest path agree on random traces, with and without hypotheses
// (their tie rules are the same for program order; among equal dependencies they may pick
// different but equally long paths).
TEST(CriticalPathWalk, EqualsTheDagOnRandomTraces) {
  std::mt19937_64 rng(2026);
  int compared = 0, identical = 0;
  for (int i = 0; i < 60; ++i) {
    const Trace t = test::randomTrace(rng);
    Replayer rp(t, Scenario{});
    const std::string what = "trace " + std::to_string(i);
    // Equal times tie (the generator's collectives end together; balancing equalises
    // computations), and on a tie both paths are longest paths: compared by length, by
    // consistency and by each segment ending at its call's predicted time. Segment by segment
    // where the DAG's path agrees (most traces; counted).
    auto check = [&](const std::string& label) {
      const CriticalPath walk = criticalPath(rp);
      const ExecutionDag dag(rp);
      const CriticalPath ref = dag.criticalPath();
      EXPECT_EQ(walk.length, rp.predictedTime()) << what << label;
      EXPECT_EQ(walk.length, ref.length) << what << label;
      identical += sameSegments(walk, ref) ? 1 : 0;
      for (const CriticalSegment& s : walk.segments) {
        const std::uint32_t calls = static_cast<std::uint32_t>(t.ranks[s.rank].mpiCalls.size());
        if (s.kind == CriticalSegment::Kind::Computation) {
          EXPECT_EQ(s.end, s.index < calls ? rp.predicted(s.rank, s.index).enter : rp.predictedRankEnd(s.rank))
              << what << label << " " << s.id();
        } else {
          EXPECT_EQ(s.end, rp.predicted(s.rank, s.index).leave) << what << label << " " << s.id();
          if (s.kind == CriticalSegment::Kind::Call) {
            EXPECT_EQ(s.begin, rp.predicted(s.rank, s.index).enter);
          }
          if ((s.kind == CriticalSegment::Kind::Message || s.kind == CriticalSegment::Kind::Skew) && s.fromRank != kNone32) {
            EXPECT_EQ(s.begin, rp.predicted(s.fromRank, s.fromIndex).enter) << what << label << " " << s.id();
          }
        }
      }
      expectConsistent(t, walk, what + label);
      const DagShape shape = dagShape(rp);
      EXPECT_EQ(shape.vertices, dag.vertexCount()) << what << label;
      EXPECT_EQ(shape.edges, dag.edgeCount()) << what << label;
      EXPECT_TRUE(shape.acyclic) << what << label;
      EXPECT_TRUE(dag.acyclic()) << what << label;
      ++compared;
    };
    check("");
    // Zero the wait of the longest-waiting call on the path, then balance step 0.
    const CriticalPath cp = criticalPath(rp);
    for (const CriticalSegment& s : cp.segments)
      if (s.kind == CriticalSegment::Kind::Message) {
        ASSERT_TRUE(rp.add({HypothesisKind::ZeroWait, EventRef{s.rank, s.index, false}, 0}));
        check(" + zero-wait " + s.id());
        break;
      }
    if (!t.steps.empty()) {
      ASSERT_TRUE(rp.add({HypothesisKind::BalanceCompute, {}, 0}));
      check(" + balance-compute 0");
    }
  }
  EXPECT_GE(compared, 120);
  EXPECT_GE(identical * 2, compared) << identical << " of " << compared << " paths identical to the DAG's";
}

TEST(CriticalPathWalk, IdentityOnTheSamples) {
  for (const std::string name : {"ring4.alog", "binary_swap_8", "registration_8", "stencil_8", "pipeline_8.alog"}) {
    const std::string f = std::string(PERWIZ_SAMPLE) + "/" + name;
    const Trace t = loadTrace(f);
    Replayer rp(t, Scenario{});
    const CriticalPath cp = criticalPath(rp);
    EXPECT_EQ(cp.length, t.endTime) << f;
    expectConsistent(t, cp, f);
  }
}

// Clock skew on the path (issue #37): rank 1 enters the Barrier at 300 ns, after rank 0 left
// it at 200 ns (their clocks disagree). The measured path ends on rank 0 at 5100 ns:
//   1:c0 [0, 300]        computation on rank 1 before its Barrier
//   0:0 for 1:0 [300, 200]  the Barrier's gather took rank 1's late enter: a step back of 100
//   0:c1 [200, 5000]     computation on rank 0
//   0:1 [5000, 5100]     MPI_Comm_rank's local cost
// 300 − 100 + 4800 + 100 = 5100 = T. The step back is a Skew segment, never a wait, and the
// totals are those of the whole path whatever is listed.
TEST(CriticalPathWalk, ClockSkewIsItsOwnSegmentNeverANegativeWait) {
  test::Tb b(2);
  b.barrier(0, 100, 200);
  b.call(0, 5000, 5100, "MPI_Comm_rank");
  b.barrier(1, 300, 400);
  const Trace t = b.take();
  Replayer rp(t, Scenario{});
  ASSERT_EQ(rp.predictedTime(), 5100);
  const CriticalPath cp = criticalPath(rp);
  ASSERT_EQ(cp.segments.size(), 4u);
  EXPECT_EQ(cp.segments[0].kind, CriticalSegment::Kind::Computation);
  EXPECT_EQ(cp.segments[0].id(), "1:c0");
  EXPECT_EQ(cp.segments[1].kind, CriticalSegment::Kind::Skew);
  EXPECT_EQ(cp.segments[1].id(), "0:0");
  EXPECT_EQ(cp.segments[1].fromRank, 1u);
  EXPECT_EQ(cp.segments[1].begin, 300);
  EXPECT_EQ(cp.segments[1].end, 200);
  EXPECT_EQ(cp.segments[2].id(), "0:c1");
  EXPECT_EQ(cp.segments[3].kind, CriticalSegment::Kind::Call);
  EXPECT_EQ(cp.totals.computationNs, 300 + 4800);
  EXPECT_EQ(cp.totals.callNs, 100);
  EXPECT_EQ(cp.totals.waitNs, 0);
  EXPECT_EQ(cp.totals.skewNs, -100);
  expectConsistent(t, cp, "skew");
  // The partner of the skewed dependency is on the path's call list too.
  EXPECT_EQ(cp.callIds, (std::vector<std::string>{"1:0", "0:0", "0:1"}));
  for (std::size_t first : {std::size_t{0}, std::size_t{1}, std::size_t{2}}) {
    const CriticalPath part = criticalPath(rp, CriticalPathListing::Segments, first);
    EXPECT_EQ(part.totals.skewNs, -100) << first;
    EXPECT_EQ(part.totals.waitNs, 0) << first;
    EXPECT_EQ(part.totals.computationNs, 5100) << first;
  }
}
