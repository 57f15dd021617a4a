// The identity property (issue #3): with no hypothesis in cost mode `measured`, the replay
// reproduces the measured trace exactly, event by event, on every trace we have.
#include "perwiz/critical_path.h"
#include "perwiz/execution_dag.h"
#include "perwiz/generator.h"
#include "perwiz/replay.h"
#include "perwiz/trace_builder.h"
#include "perwiz/trace_io.h"
#include "model_invariants.h"
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
  EXPECT_EQ(criticalPath(rp, CriticalPathListing::TotalsOnly).length, t.endTime) << what;
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

// The case-study traces bundled by scripts/regenerate_samples.sh (libperwiz-trace under SMPI,
// docs/examples.md): they load with every message and collective matched, have their PRGN steps,
// replay to themselves, and show the problem their case study is about.
TEST(ReplayIdentity, BundledCaseStudies) {
  for (const std::string name : {"binary_swap_8", "registration_8", "stencil_8", "pipeline_8.alog"}) {
    SCOPED_TRACE(name);
    const Trace t = loadTrace(std::string(PERWIZ_SAMPLE) + "/" + name);
    EXPECT_EQ(t.rankCount(), 8u);
    EXPECT_EQ(test::modelViolation(t), "");
    EXPECT_GT(t.messageStats.matched, 0u);
    EXPECT_EQ(t.messageStats.unmatchedSends + t.messageStats.unmatchedReceives, 0u);
    EXPECT_FALSE(t.steps.empty());
    expectIdentity(t, name);
    if (name == "binary_swap_8") {
      // 8 ranks: log2 8 = 3 compositing stages, each a step; balancing every stage must help
      // (the block split is imbalanced: that is the case study).
      EXPECT_EQ(t.steps.size(), 3u);
      Scenario s;
      for (std::uint32_t k = 0; k < t.steps.size(); ++k) s.hypotheses.push_back({HypothesisKind::BalanceCompute, {}, k});
      Replayer r(t, s);
      EXPECT_LT(r.predictedTime(), t.endTime - t.startTime);
    }
  }
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

// Cost mode `model` retargets a trace to another network (the Japanese paper's Table 4): the
// same measured trace predicted for Ethernet and for Myrinet. With messages of 200 kB (above
// both thresholds S = 127999 and 16383 B, so rendezvous) every send costs t_ss(k) and every receive t_sr(k) from
// Table 5, which are about 20 times larger on Ethernet; measured mode ignores the model's costs
// and reproduces the trace whatever the network.
TEST(ReplayModelMode, RetargetsToEthernetAndMyrinet) {
  GeneratorSpec s;
  s.ranks = 8;
  s.steps = 5;
  s.messageBytes = 200000;
  s.collective = MpiOp::Allreduce;
  s.seed = 11;
  TraceBuilder b("gen", "generated");
  generateTrace(s, b);
  const Trace t = b.take();
  auto predict = [&](const char* preset, CostMode mode) {
    Scenario sc;
    sc.model = networkPreset(preset);
    sc.costs = mode;
    return Replayer(t, sc).predictedTime();
  };
  const TimeNs eth = predict("ethernet-table5", CostMode::Model);
  const TimeNs myr = predict("myrinet-table5", CostMode::Model);
  EXPECT_GT(eth, myr);
  // Lower bound for Ethernet: every rank runs one MPI_Sendrecv of 200000 B per step, whose
  // model cost is the longer of its synchronous send and synchronous receive, which overlap
  // (docs/model.md, "Concurrency within a call"): t_ss = 175 + 0.0859·200000 = 17355 µs,
  // t_sr = 264 + 0.0900·200000 = 18264 µs; a rank's end is at least the sum of its local costs
  // over the 5 steps.
  EXPECT_GE(eth, 5 * 18264000);
  // Myrinet: t_ss = 28.9 + 0.00358·200000 = 744.9 µs, t_sr = 90.3 + 0.00485·200000 = 1060.3 µs.
  EXPECT_GE(myr, 5 * 1060300);
  EXPECT_EQ(predict("ethernet-table5", CostMode::Measured), t.endTime);
  EXPECT_EQ(predict("myrinet-table5", CostMode::Measured), t.endTime);
}
