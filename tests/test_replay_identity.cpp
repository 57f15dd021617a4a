// The identity property (issue #3): with no hypothesis in cost mode `measured`, the replay
// reproduces the measured trace exactly, event by event, on every trace we have.
#include "perwiz/execution_dag.h"
#include "perwiz/generator.h"
#include "perwiz/replay.h"
#include "perwiz/trace_builder.h"
#include "perwiz/trace_io.h"
#include "test_support.h"

#include <gtest/gtest.h>

using namespace perwiz;

namespace {

// Every MPI call's predicted enter and leave equal the measured ones; so do the rank ends,
// T, every other event's times (through mapTime) and the predicted trace as a whole.
void expectIdentity(const Trace& t, const std::string& what) {
  Replayer rp(t, Scenario{});
  ASSERT_EQ(rp.predictedTime(), t.endTime) << what;
  std::uint64_t mismatches = 0;
  for (std::uint32_t r = 0; r < t.rankCount(); ++r) {
    const RankTrace& rt = t.ranks[r];
    EXPECT_EQ(rp.predictedRankEnd(r), rp.measuredRankEnd(r)) << what << " rank " << r;
    for (std::uint32_t i = 0; i < rt.mpiCalls.size(); ++i) {
      const std::uint32_t e = rt.mpiCalls[i];
      const PredictedCall c = rp.predicted(r, i);
      if (c.enter != rt.enter[e] || c.leave != rt.leave[e] || c.wait != rp.measuredWait(r, i)) {
        if (++mismatches <= 5)
          ADD_FAILURE() << what << ": call " << r << ":" << i << " measured [" << rt.enter[e] << ", "
                        << rt.leave[e] << "] predicted [" << c.enter << ", " << c.leave << "]";
      }
    }
    for (std::uint32_t e = 0; e < rt.size(); ++e) {
      if (rp.mapTime(r, rt.enter[e]) != rt.enter[e] || rp.mapTime(r, rt.leave[e]) != rt.leave[e])
        if (++mismatches <= 5) ADD_FAILURE() << what << ": event " << r << "/" << e << " moved";
    }
  }
  EXPECT_EQ(mismatches, 0u) << what;
  ExecutionDag dag(rp);
  EXPECT_TRUE(dag.acyclic()) << what;
  EXPECT_EQ(dag.criticalPath().length, t.endTime) << what;
}

}  // namespace

TEST(ReplayIdentity, SharedAlogTraces) {
  const auto files = test::sharedAlogFiles();
  if (files.empty()) GTEST_SKIP() << "../shared/traces absent";
  for (const auto& f : files) {
    Trace t = loadTrace(f.string());
    expectIdentity(t, f.filename().string());
  }
}

TEST(ReplayIdentity, SharedOtf2Traces) {
  const auto dirs = test::sharedOtf2Archives();
  if (dirs.empty()) GTEST_SKIP() << "../shared/traces absent";
  for (const auto& d : dirs) {
    Trace t = loadTrace(d.string());
    expectIdentity(t, d.string());
  }
}

TEST(ReplayIdentity, BundledSample) {
  Trace t = loadTrace(std::string(PERWIZ_SAMPLE) + "/ring4.alog");
  expectIdentity(t, "ring4.alog");
}

TEST(ReplayIdentity, GeneratedShapes) {
  for (P2PPattern pattern : {P2PPattern::Ring, P2PPattern::Pairs, P2PPattern::MasterWorker,
                             P2PPattern::Random, P2PPattern::None}) {
    for (bool nonBlocking : {false, true}) {
      for (MpiOp coll : {MpiOp::Allreduce, MpiOp::Bcast, MpiOp::Reduce, MpiOp::Barrier, MpiOp::None}) {
        GeneratorSpec s;
        s.ranks = 5;
        s.steps = 6;
        s.pattern = pattern;
        s.nonBlocking = nonBlocking;
        s.collective = coll;
        s.imbalance = 0.4;
        s.messageBytes = nonBlocking ? 100000 : 512;  // rendezvous and eager
        s.seed = 7;
        TraceBuilder b("gen", "generated");
        generateTrace(s, b);
        expectIdentity(b.take(), std::string(patternName(pattern)) + (nonBlocking ? "/nb/" : "/b/") +
                                     std::string(mpiOpName(coll)));
      }
    }
  }
}
