// What the replay-rule tests share (test_replay_*.cpp): the small LogGPS network, hand-built
// traces and replay helpers.
#pragma once

#include "perwiz/critical_path.h"
#include "perwiz/execution_dag.h"
#include "perwiz/generator.h"
#include "perwiz/replay.h"
#include "perwiz/scenario.h"
#include "perwiz/trace_builder.h"
#include "perwiz/trace_io.h"

#include "test_support.h"
#include "test_traces.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

namespace perwiz::replay_rules {

using namespace perwiz;

using Rank = std::uint32_t;
using test::Tb;

inline LogGpsParams simpleParams() {
  LogGpsParams p;
  p.name = "simple";
  p.L = 1000;
  p.o = 100;
  p.S = 1024;
  return p;
}

inline Scenario scenarioOf(const LogGpsParams& p, CostMode costs = CostMode::Measured,
                           std::vector<Hypothesis> hs = {}) {
  return Scenario{std::make_shared<LogGpsModel>(p), costs, std::move(hs)};
}
inline Scenario simple(std::vector<Hypothesis> hs = {}) {
  return scenarioOf(simpleParams(), CostMode::Measured, std::move(hs));
}

inline Hypothesis zeroWait(Rank r, std::uint32_t i) { return {HypothesisKind::ZeroWait, EventRef{r, i, false}, 0}; }
inline Hypothesis zeroCall(Rank r, std::uint32_t i) { return {HypothesisKind::ZeroEvent, EventRef{r, i, false}, 0}; }
inline Hypothesis zeroComp(Rank r, std::uint32_t i) { return {HypothesisKind::ZeroEvent, EventRef{r, i, true}, 0}; }
inline Hypothesis balanceCompute(std::uint32_t step) { return {HypothesisKind::BalanceCompute, {}, step}; }
inline Hypothesis balanceVolume(std::uint32_t step) { return {HypothesisKind::BalanceVolume, {}, step}; }

// Predicted enter, leave and wait of call r:i.
inline ::testing::AssertionResult callIs(const Replayer& rp, Rank r, std::uint32_t i, TimeNs enter, TimeNs leave,
                                         TimeNs wait) {
  const PredictedCall c = rp.predicted(r, i);
  if (c.enter == enter && c.leave == leave && c.wait == wait) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << r << ":" << i << " predicted [" << c.enter << ", " << c.leave << "] wait "
                                       << c.wait << ", expected [" << enter << ", " << leave << "] wait " << wait;
}

// Identity property: predicted == measured for every call, wait == measured wait.
inline void expectIdentity(const Replayer& rp, const Trace& t) {
  EXPECT_EQ(rp.predictedTime(), t.endTime);
  for (Rank r = 0; r < t.rankCount(); ++r) {
    const RankTrace& rt = t.ranks[r];
    EXPECT_EQ(rp.predictedRankEnd(r), rp.measuredRankEnd(r)) << "rank " << r;
    for (std::uint32_t i = 0; i < rt.mpiCalls.size(); ++i) {
      const std::uint32_t e = rt.mpiCalls[i];
      EXPECT_TRUE(callIs(rp, r, i, rt.enter[e], rt.leave[e], rp.measuredWait(r, i)));
    }
  }
}

// Predicted enter, leave, wait of every call, rank ends and T: equal in both replayers.
inline void expectSameReplay(const Replayer& a, const Replayer& b, const std::string& what) {
  const Trace& t = a.trace();
  ASSERT_EQ(a.predictedTime(), b.predictedTime()) << what;
  for (Rank r = 0; r < t.rankCount(); ++r) {
    EXPECT_EQ(a.predictedRankEnd(r), b.predictedRankEnd(r)) << what << " rank " << r;
    for (std::uint32_t i = 0; i < t.ranks[r].mpiCalls.size(); ++i) {
      const PredictedCall x = a.predicted(r, i), y = b.predicted(r, i);
      EXPECT_EQ(x.enter, y.enter) << what << " " << r << ":" << i;
      EXPECT_EQ(x.leave, y.leave) << what << " " << r << ":" << i;
      EXPECT_EQ(x.wait, y.wait) << what << " " << r << ":" << i;
    }
  }
}

// A model whose eager λ depends on k, so that the two protocols are told apart by the numbers:
// o_s(k) = 100 + 1·k ns, L = 1000, S = 1024 (o_r = o = 100).
//   eager      λ(1024) = o_s(1024) + L = 100 + 1024 + 1000 = 2124
//   rendezvous λ(1025) = o_s(0) + L    = 100 + 1000        = 1100  (the REQ)
inline LogGpsParams slopedParams() {
  LogGpsParams p = simpleParams();
  p.name = "sloped";
  p.sendOverhead = LinearCost{100, 1};
  return p;
}

// 0 → 1 → 2 → 3, each rank receives then forwards (64 B, eager, λ = 1100):
//   rank 0: Send [1000, 1100]
//   rank 1: Recv [0, 2300]  Send [2300, 2400]
//   rank 2: Recv [0, 3600]  Send [3600, 3700]
//   rank 3: Recv [0, 4900]
inline Trace chain() {
  Tb b(4);
  b.send(0, 1000, 1100, 1, 64);
  b.recv(1, 0, 2300, 0, 64);
  b.send(1, 2300, 2400, 2, 64);
  b.recv(2, 0, 3600, 1, 64);
  b.send(2, 3600, 3700, 3, 64);
  b.recv(3, 0, 4900, 2, 64);
  return b.take();
}

}  // namespace perwiz::replay_rules
