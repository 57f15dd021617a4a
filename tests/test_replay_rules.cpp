// The replay rules of docs/model.md, one hand-computed scenario at a time (issue #3).
//
// Every trace here is built by hand (2-4 ranks) and every expected number is derived in the
// test from the documented formula, with the arithmetic in a comment next to it. Unless a test
// says otherwise the network is the small "simple" LogGPS model:
//   L = 1000 ns, o = 100 ns, S = 1024 B, g = G = 0, s = 0
//   => o_s(k) = o_r(k) = o = 100, λ(k) = o_s(k) + L = 1100 for eager messages and
//      λ(k) = o_s(0) + L = 1100 for the REQ of a rendezvous message (§2.2).
// Notation as in the doc: E, X measured enter/leave, E', X' predicted; wait = X − E − local.
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

using namespace perwiz;

namespace {

using Rank = std::uint32_t;
using test::Tb;

LogGpsParams simpleParams() {
  LogGpsParams p;
  p.name = "simple";
  p.L = 1000;
  p.o = 100;
  p.S = 1024;
  return p;
}

Scenario scenarioOf(const LogGpsParams& p, CostMode costs = CostMode::Measured,
                    std::vector<Hypothesis> hs = {}) {
  return Scenario{std::make_shared<LogGpsModel>(p), costs, std::move(hs)};
}
Scenario simple(std::vector<Hypothesis> hs = {}) {
  return scenarioOf(simpleParams(), CostMode::Measured, std::move(hs));
}

Hypothesis zeroWait(Rank r, std::uint32_t i) { return {HypothesisKind::ZeroWait, EventRef{r, i, false}, 0}; }
Hypothesis zeroCall(Rank r, std::uint32_t i) { return {HypothesisKind::ZeroEvent, EventRef{r, i, false}, 0}; }
Hypothesis zeroComp(Rank r, std::uint32_t i) { return {HypothesisKind::ZeroEvent, EventRef{r, i, true}, 0}; }
Hypothesis balanceCompute(std::uint32_t step) { return {HypothesisKind::BalanceCompute, {}, step}; }
Hypothesis balanceVolume(std::uint32_t step) { return {HypothesisKind::BalanceVolume, {}, step}; }

// Predicted enter, leave and wait of call r:i.
::testing::AssertionResult callIs(const Replayer& rp, Rank r, std::uint32_t i, TimeNs enter,
                                  TimeNs leave, TimeNs wait) {
  const PredictedCall c = rp.predicted(r, i);
  if (c.enter == enter && c.leave == leave && c.wait == wait) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure()
         << r << ":" << i << " predicted [" << c.enter << ", " << c.leave << "] wait " << c.wait
         << ", expected [" << enter << ", " << leave << "] wait " << wait;
}

// Identity property: predicted == measured for every call, wait == measured wait.
void expectIdentity(const Replayer& rp, const Trace& t) {
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
void expectSameReplay(const Replayer& a, const Replayer& b, const std::string& what) {
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

}  // namespace

// ---- §2.1 / §2.2: eager (k ≤ S) and rendezvous (k > S) on both sides of S ------------------

// A model whose eager λ depends on k, so that the two protocols are told apart by the numbers:
// o_s(k) = 100 + 1·k ns, L = 1000, S = 1024 (o_r = o = 100).
//   eager      λ(1024) = o_s(1024) + L = 100 + 1024 + 1000 = 2124
//   rendezvous λ(1025) = o_s(0) + L    = 100 + 1000        = 1100  (the REQ)
LogGpsParams slopedParams() {
  LogGpsParams p = simpleParams();
  p.name = "sloped";
  p.sendOverhead = LinearCost{100, 1};
  return p;
}

TEST(ReplayRules, ArrivalDelayOnBothSidesOfS) {
  LogGpsModel m(slopedParams());
  EXPECT_FALSE(m.synchronous(1024));  // k = S: eager
  EXPECT_TRUE(m.synchronous(1025));   // k = S + 1: rendezvous
  EXPECT_EQ(m.arrivalDelay(1024), 100 + 1024 + 1000);
  EXPECT_EQ(m.arrivalDelay(1025), 100 + 1000);
}

// Late sender: rank 0 computes 5000 ns before sending; rank 1 posts its receive at 3000.
//   rank 0: Send(k) [5000, 5200]        rank 1: Recv(k) [3000, 9000]
Trace lateSender(std::uint64_t k) {
  Tb b(2);
  b.send(0, 5000, 5200, 1, k);
  b.recv(1, 3000, 9000, 0, k);
  return b.take();
}

TEST(ReplayRules, EagerAtSLateSender) {
  const Trace t = lateSender(1024);
  Replayer rp(t, scenarioOf(slopedParams()));
  expectIdentity(rp, t);
  // Send, eager: no dependency, t_wait = 0.
  EXPECT_EQ(rp.measuredWait(0, 0), 0);
  // Recv: t_wait = max(t_u + λ(k) − t_v, 0) = max(5000 + 2124 − 3000, 0) = 4124;
  // t_recv = t_all − t_wait = 6000 − 4124 = 1876.
  EXPECT_EQ(rp.measuredWait(1, 0), 4124);

  // Zero the sender's computation (0:c0): the send is called at 0.
  ASSERT_TRUE(rp.add(zeroComp(0, 0)));
  // Send: E' = 0 + gap' 0 = 0, X' = E' + local = 0 + 200 = 200.
  EXPECT_TRUE(callIs(rp, 0, 0, 0, 200, 0));
  // Recv: X' = max(E', t'_u + λ) + local = max(3000, 0 + 2124) + 1876 = 4876, wait 0.
  EXPECT_TRUE(callIs(rp, 1, 0, 3000, 4876, 0));
  EXPECT_EQ(rp.predictedTime(), 4876);
}

TEST(ReplayRules, RendezvousAboveSLateSender) {
  const Trace t = lateSender(1025);
  Replayer rp(t, scenarioOf(slopedParams()));
  expectIdentity(rp, t);
  // Recv: t_wait = max(t_u + (o + L) − t_v, 0) = 5000 + 1100 − 3000 = 3100; local 6000 − 3100 = 2900.
  EXPECT_EQ(rp.measuredWait(1, 0), 3100);
  // Send, rendezvous: t_wait = max(t_v − t_u − (o + L), 0) = max(3000 − 5000 − 1100, 0) = 0;
  // local = 200.
  EXPECT_EQ(rp.measuredWait(0, 0), 0);

  ASSERT_TRUE(rp.add(zeroComp(0, 0)));
  // Now the receiver is late: send X' = max(E', t'_v − λ) + local = max(0, 3000 − 1100) + 200
  // = 2100, wait 1900.
  EXPECT_TRUE(callIs(rp, 0, 0, 0, 2100, 1900));
  // Recv: X' = max(3000, 0 + 1100) + 2900 = 5900, wait 0.
  EXPECT_TRUE(callIs(rp, 1, 0, 3000, 5900, 0));
  EXPECT_EQ(rp.predictedTime(), 5900);
}

// Late receiver: rank 1 computes 5000 ns before receiving.
//   rank 0: Send(k) [0, 5300]          rank 1: Recv(k) [5000, 5150]
Trace lateReceiver(std::uint64_t k) {
  Tb b(2);
  b.send(0, 0, 5300, 1, k);
  b.recv(1, 5000, 5150, 0, k);
  return b.take();
}

TEST(ReplayRules, EagerAtSLateReceiver) {
  const Trace t = lateReceiver(1024);
  Replayer rp(t, scenarioOf(slopedParams()));
  expectIdentity(rp, t);
  // Eager send never waits: t_wait = 0, t_send = t_all = 5300.
  EXPECT_EQ(rp.measuredWait(0, 0), 0);
  // Recv: max(0 + 2124 − 5000, 0) = 0, local 150.
  EXPECT_EQ(rp.measuredWait(1, 0), 0);

  ASSERT_TRUE(rp.add(zeroComp(1, 0)));  // the receive is called at 0
  // The eager send has no dependency: unchanged [0, 5300].
  EXPECT_TRUE(callIs(rp, 0, 0, 0, 5300, 0));
  // Recv: X' = max(0, 0 + 2124) + 150 = 2274, wait 2124.
  EXPECT_TRUE(callIs(rp, 1, 0, 0, 2274, 2124));
  EXPECT_EQ(rp.predictedTime(), 5300);
}

TEST(ReplayRules, RendezvousAboveSLateReceiver) {
  const Trace t = lateReceiver(1025);
  Replayer rp(t, scenarioOf(slopedParams()));
  expectIdentity(rp, t);
  // Send: t_wait = max(t_v − t_u − (o + L), 0) = 5000 − 0 − 1100 = 3900; t_send = 5300 − 3900 = 1400.
  EXPECT_EQ(rp.measuredWait(0, 0), 3900);
  // Recv: max(0 + 1100 − 5000, 0) = 0, local 150.
  EXPECT_EQ(rp.measuredWait(1, 0), 0);

  ASSERT_TRUE(rp.add(zeroComp(1, 0)));
  // Send: X' = max(0, t'_v − λ) + t_send = max(0, 0 − 1100) + 1400 = 1400, wait 0.
  EXPECT_TRUE(callIs(rp, 0, 0, 0, 1400, 0));
  // Recv: X' = max(0, 0 + 1100) + 150 = 1250, wait 1100.
  EXPECT_TRUE(callIs(rp, 1, 0, 0, 1250, 1100));
  EXPECT_EQ(rp.predictedTime(), 1400);
}

TEST(ReplayRules, SsendBelowSIsEager) {
  // §2.6: the size decides, not the name. MPI_Ssend of 64 B with a late receiver:
  //   rank 0: Ssend [0, 5300]     rank 1: Recv [5000, 5150]
  Tb b(2);
  b.send(0, 0, 5300, 1, 64, 0, "MPI_Ssend");
  b.recv(1, 5000, 5150, 0, 64);
  const Trace t = b.take();
  Replayer rp(t, simple());
  expectIdentity(rp, t);
  EXPECT_EQ(rp.measuredWait(0, 0), 0);  // eager: no dependency, t_send = t_all
  ASSERT_TRUE(rp.add(zeroComp(1, 0)));
  EXPECT_TRUE(callIs(rp, 0, 0, 0, 5300, 0));
  EXPECT_TRUE(callIs(rp, 1, 0, 0, 1250, 1100));  // max(0, 0 + 1100) + 150
}

// ---- Late-sender chain and the domino effect (paper §2.2, Fig. 4) --------------------------

// 0 → 1 → 2 → 3, each rank receives then forwards (64 B, eager, λ = 1100):
//   rank 0: Send [1000, 1100]
//   rank 1: Recv [0, 2300]  Send [2300, 2400]
//   rank 2: Recv [0, 3600]  Send [3600, 3700]
//   rank 3: Recv [0, 4900]
Trace chain() {
  Tb b(4);
  b.send(0, 1000, 1100, 1, 64);
  b.recv(1, 0, 2300, 0, 64);
  b.send(1, 2300, 2400, 2, 64);
  b.recv(2, 0, 3600, 1, 64);
  b.send(2, 3600, 3700, 3, 64);
  b.recv(3, 0, 4900, 2, 64);
  return b.take();
}

TEST(ReplayRules, LateSenderChain) {
  const Trace t = chain();
  Replayer rp(t, simple());
  expectIdentity(rp, t);
  // Each receive waits for the previous rank's send: t_wait = t_u + λ − t_v.
  EXPECT_EQ(rp.measuredWait(1, 0), 1000 + 1100 - 0);  // 2100, local 2300 − 2100 = 200
  EXPECT_EQ(rp.measuredWait(2, 0), 2300 + 1100 - 0);  // 3400, local 200
  EXPECT_EQ(rp.measuredWait(3, 0), 3600 + 1100 - 0);  // 4700, local 200
  EXPECT_EQ(rp.measuredWait(1, 1), 0);

  // Rank 0 sends at once (0:c0 zeroed): every wait down the chain shrinks by 1000.
  ASSERT_TRUE(rp.add(zeroComp(0, 0)));
  EXPECT_TRUE(callIs(rp, 0, 0, 0, 100, 0));
  // 1:0: X' = max(0, 0 + 1100) + 200 = 1300; 1:1 = [1300, 1400].
  EXPECT_TRUE(callIs(rp, 1, 0, 0, 1300, 1100));
  EXPECT_TRUE(callIs(rp, 1, 1, 1300, 1400, 0));
  // 2:0: X' = max(0, 1300 + 1100) + 200 = 2600; 2:1 = [2600, 2700].
  EXPECT_TRUE(callIs(rp, 2, 0, 0, 2600, 2400));
  EXPECT_TRUE(callIs(rp, 2, 1, 2600, 2700, 0));
  // 3:0: X' = max(0, 2600 + 1100) + 200 = 3900.
  EXPECT_TRUE(callIs(rp, 3, 0, 0, 3900, 3700));
  EXPECT_EQ(rp.predictedTime(), 3900);

  // Instead, rank 1's receive does not wait (zero-wait 1:0): the domino runs down the chain.
  ASSERT_TRUE(rp.setHypotheses({zeroWait(1, 0)}));
  EXPECT_TRUE(callIs(rp, 0, 0, 1000, 1100, 0));  // the partner's own timeline is unchanged
  // 1:0: X' = E' + local = 0 + 200 = 200; 1:1 = [200, 300].
  EXPECT_TRUE(callIs(rp, 1, 0, 0, 200, 0));
  EXPECT_TRUE(callIs(rp, 1, 1, 200, 300, 0));
  // 2:0: X' = max(0, 200 + 1100) + 200 = 1500, wait 1300; 2:1 = [1500, 1600].
  EXPECT_TRUE(callIs(rp, 2, 0, 0, 1500, 1300));
  EXPECT_TRUE(callIs(rp, 2, 1, 1500, 1600, 0));
  // 3:0: X' = max(0, 1500 + 1100) + 200 = 2800, wait 2600.
  EXPECT_TRUE(callIs(rp, 3, 0, 0, 2800, 2600));
  EXPECT_EQ(rp.predictedTime(), 2800);
}

// Fig. 4 in small: p = rank 0, q = rank 1, r = rank 2, and rank 3 the late sender to p.
//   rank 3: Send→0 [3000, 3100]
//   rank 0 (p): Recv←3 [0, 4300]   (e_p1)    Send→1 [4400, 4500]
//   rank 1 (q): Recv←0 [0, 5700]   (e_q1)    Send→2 [5900, 6000]  (e_q3)
//   rank 2 (r): Recv←1 [2000, 7200] (e_r1)
// Zeroing the wait of e_p1 lets p send earlier, which shortens e_q1's wait, so q sends earlier,
// which shortens e_r1's wait: the domino path e_p1, e_q1, e_q3, e_r1.
Trace domino() {
  Tb b(4);
  b.send(3, 3000, 3100, 0, 64);
  b.recv(0, 0, 4300, 3, 64);
  b.send(0, 4400, 4500, 1, 64);
  b.recv(1, 0, 5700, 0, 64);
  b.send(1, 5900, 6000, 2, 64);
  b.recv(2, 2000, 7200, 1, 64);
  return b.take();
}

TEST(ReplayRules, DominoEffectOfZeroWait) {
  const Trace t = domino();
  Replayer rp(t, simple());
  expectIdentity(rp, t);
  EXPECT_EQ(rp.measuredWait(0, 0), 3000 + 1100 - 0);     // e_p1: 4100, local 200
  EXPECT_EQ(rp.measuredWait(1, 0), 4400 + 1100 - 0);     // e_q1: 5500, local 200 (the longest)
  EXPECT_EQ(rp.measuredWait(2, 0), 5900 + 1100 - 2000);  // e_r1: 5000, local 200
  EXPECT_EQ(rp.predictedTime(), 7200);

  ASSERT_TRUE(rp.add(zeroWait(0, 0)));
  // p: Recv X' = 0 + 200 = 200; Send E' = 200 + gap 100 = 300, X' = 400.
  EXPECT_TRUE(callIs(rp, 0, 0, 0, 200, 0));
  EXPECT_TRUE(callIs(rp, 0, 1, 300, 400, 0));
  // q: e_q1 X' = max(0, 300 + 1100) + 200 = 1600, wait 1400 (was 5500);
  //    e_q3 E' = 1600 + 200 = 1800, X' = 1900.
  EXPECT_TRUE(callIs(rp, 1, 0, 0, 1600, 1400));
  EXPECT_TRUE(callIs(rp, 1, 1, 1800, 1900, 0));
  // r: e_r1 X' = max(2000, 1800 + 1100) + 200 = 3100, wait 900 (was 5000).
  EXPECT_TRUE(callIs(rp, 2, 0, 2000, 3100, 900));
  // The late sender itself is unchanged.
  EXPECT_TRUE(callIs(rp, 3, 0, 3000, 3100, 0));
  EXPECT_EQ(rp.predictedTime(), 3100);  // max(400, 1900, 3100, 3100)
  const TimeNs dominoT = rp.predictedTime();

  // Zeroing the longest wait (e_q1, 5500 ns) instead gains less: the domino is the point.
  ASSERT_TRUE(rp.setHypotheses({zeroWait(1, 0)}));
  // q: e_q1 [0, 200]; e_q3 [400, 500]. r: X' = max(2000, 400 + 1100) + 200 = 2200, wait 0.
  EXPECT_TRUE(callIs(rp, 1, 0, 0, 200, 0));
  EXPECT_TRUE(callIs(rp, 1, 1, 400, 500, 0));
  EXPECT_TRUE(callIs(rp, 2, 0, 2000, 2200, 0));
  // p still waits for rank 3: [0, 4300], send [4400, 4500].
  EXPECT_TRUE(callIs(rp, 0, 0, 0, 4300, 4100));
  EXPECT_EQ(rp.predictedTime(), 4500);
  EXPECT_LT(dominoT, rp.predictedTime());
}

// ---- §2.3 Sendrecv rings -------------------------------------------------------------------

// Three ranks, each one MPI_Sendrecv sending to r+1 and receiving from r−1 (mod 3), entered at
// 1000, 5000, 2000 (leaves given per case).
Trace ring(std::uint64_t bytes, TimeNs leave0) {
  Tb b(3);
  b.sendrecv(0, 1000, leave0, 1, bytes, 2, bytes);
  b.sendrecv(1, 5000, 5300, 2, bytes, 0, bytes);
  b.sendrecv(2, 2000, 6400, 0, bytes, 1, bytes);
  return b.take();
}

TEST(ReplayRules, SendrecvRingEager) {
  // 64 B: only the receive halves have dependencies (+λ = 1100).
  // rank 0: ready = max(1000, t_2 + λ = 2000 + 1100) = 3100 → wait 2100; leave 3400, local 300.
  // rank 1: ready = max(5000, t_0 + λ = 2100)         = 5000 → wait 0;    leave 5300, local 300.
  // rank 2: ready = max(2000, t_1 + λ = 6100)         = 6100 → wait 4100; leave 6400, local 300.
  const Trace t = ring(64, 3400);
  Replayer rp(t, simple());
  expectIdentity(rp, t);
  EXPECT_EQ(rp.measuredWait(0, 0), 2100);
  EXPECT_EQ(rp.measuredWait(1, 0), 0);
  EXPECT_EQ(rp.measuredWait(2, 0), 4100);

  // Model mode: the halves of a Sendrecv overlap (docs/model.md, "Concurrency within a call"):
  // send side max(o_s(64), g) = 100, receive side o_r(64) = 100 (no per-byte parts, G = 0), the
  // call costs the larger, 100: X' = ready + 100 = 3200, 5100, 6200. (Summed, as before issue
  // #20: 200.)
  Replayer model(t, scenarioOf(simpleParams(), CostMode::Model));
  EXPECT_TRUE(callIs(model, 0, 0, 1000, 3200, 2100));
  EXPECT_TRUE(callIs(model, 1, 0, 5000, 5100, 0));
  EXPECT_TRUE(callIs(model, 2, 0, 2000, 6200, 4100));
  // Half duplex: one link for both directions, one side; still no per-byte part: 100.
  LogGpsParams half = simpleParams();
  half.halfDuplex = true;
  Replayer halfModel(t, scenarioOf(half, CostMode::Model));
  EXPECT_TRUE(callIs(halfModel, 0, 0, 1000, 3200, 2100));

  ASSERT_TRUE(rp.add(zeroComp(1, 0)));  // rank 1 enters at 0
  // rank 1: X' = max(0, E'_0 + λ = 1000 + 1100) + 300 = 2400, wait 2100.
  EXPECT_TRUE(callIs(rp, 1, 0, 0, 2400, 2100));
  // rank 2: X' = max(2000, E'_1 + λ = 0 + 1100) + 300 = 2300, wait 0.
  EXPECT_TRUE(callIs(rp, 2, 0, 2000, 2300, 0));
  // rank 0: X' = max(1000, E'_2 + λ = 2000 + 1100) + 300 = 3400, wait 2100.
  EXPECT_TRUE(callIs(rp, 0, 0, 1000, 3400, 2100));
  EXPECT_EQ(rp.predictedTime(), 3400);
}

TEST(ReplayRules, SendrecvRingRendezvous) {
  // 2048 B > S: the send halves wait for the receiver's call too (−λ):
  // t_wait = min(max(0, t_u + λ − t, t_v − λ − t), t_all)
  // rank 0: max(in 2000 + 1100 = 3100, out 5000 − 1100 = 3900) − 1000 = 2900; leave 4200 (local 300)
  // rank 1: max(in 1000 + 1100 = 2100, out 2000 − 1100 = 900) < 5000 → 0;    leave 5300 (local 300)
  // rank 2: max(in 5000 + 1100 = 6100, out 1000 − 1100 = −100) − 2000 = 4100; leave 6400 (local 300)
  const Trace t = ring(2048, 4200);
  Replayer rp(t, simple());
  expectIdentity(rp, t);
  EXPECT_EQ(rp.measuredWait(0, 0), 2900);
  EXPECT_EQ(rp.measuredWait(1, 0), 0);
  EXPECT_EQ(rp.measuredWait(2, 0), 4100);

  ASSERT_TRUE(rp.add(zeroComp(0, 0)));  // rank 0 enters at 0: it now waits for its late receiver
  // rank 0: X' = max(0, 2000 + 1100, 5000 − 1100) + 300 = 3900 + 300 = 4200, wait 3900.
  EXPECT_TRUE(callIs(rp, 0, 0, 0, 4200, 3900));
  // rank 1: max(5000, 0 + 1100, 2000 − 1100) + 300 = 5300.
  EXPECT_TRUE(callIs(rp, 1, 0, 5000, 5300, 0));
  // rank 2: max(2000, 5000 + 1100, 0 − 1100) + 300 = 6400, wait 4100.
  EXPECT_TRUE(callIs(rp, 2, 0, 2000, 6400, 4100));

  ASSERT_TRUE(rp.setHypotheses({zeroComp(1, 0)}));  // rank 1 enters at 0 instead
  // rank 1: max(0, 1000 + 1100, 2000 − 1100) + 300 = 2400, wait 2100.
  EXPECT_TRUE(callIs(rp, 1, 0, 0, 2400, 2100));
  // rank 0: max(1000, 2000 + 1100, 0 − 1100) + 300 = 3400, wait 2100.
  EXPECT_TRUE(callIs(rp, 0, 0, 1000, 3400, 2100));
  // rank 2: max(2000, 0 + 1100, 1000 − 1100) + 300 = 2300, wait 0.
  EXPECT_TRUE(callIs(rp, 2, 0, 2000, 2300, 0));
  EXPECT_EQ(rp.predictedTime(), 3400);
}

// ---- §2.4 Isend / Irecv / Waitall ----------------------------------------------------------

// m1: 0 → 1, 64 B (eager) Isend req 1;  m2: 1 → 0, 2048 B (rendezvous) Isend req 2.
//   rank 0: Isend m1 [1000, 1050]  Irecv m2 [4000, 4050]  Waitall {m1, m2} [4100, 4200]
//   rank 1: Irecv m1 [500, 550]    Isend m2 [550, 600]    Waitall {m1, m2} [600, 3000]
Trace nonBlocking() {
  Tb b(2);
  b.isend(0, 1000, 1050, 1, 64, 1);
  b.irecv(0, 4000, 4050, 2);
  b.wait(0, 4100, 4200, {{true, 1}, {false, 2, 1, 2048}});
  b.irecv(1, 500, 550, 1);
  b.isend(1, 550, 600, 0, 2048, 2);
  b.wait(1, 600, 3000, {{false, 1, 0, 64}, {true, 2}});
  return b.take();
}

TEST(ReplayRules, IsendIrecvWaitall) {
  const Trace t = nonBlocking();
  ASSERT_EQ(t.messageStats.matched, 2u);
  Replayer rp(t, simple());
  expectIdentity(rp, t);
  // Posting calls have no dependency.
  for (Rank r = 0; r < 2; ++r)
    for (std::uint32_t i = 0; i < 2; ++i) EXPECT_EQ(rp.measuredWait(r, i), 0) << r << ":" << i;
  // rank 1's Waitall (E = 600) has one dependency per request and waits for the latest:
  //   Irecv of m1: sender's post 1000 + λ = 2100;
  //   Isend of m2 (rendezvous): receiver's post (rank 0's Irecv) 4000 − λ = 2900;
  //   wait = 2900 − 600 = 2300, local = 2400 − 2300 = 100.
  EXPECT_EQ(rp.measuredWait(1, 2), 2300);
  // rank 0's Waitall (E = 4100): Irecv of m2: 550 + 1100 = 1650 ≤ 4100; m1 is eager (no
  // dependency) → wait 0, local 100.
  EXPECT_EQ(rp.measuredWait(0, 2), 0);

  // Rank 0 posts its Irecv at once (0:c1, 2950 ns, zeroed).
  ASSERT_TRUE(rp.add(zeroComp(0, 1)));
  // rank 0: Isend [1000, 1050], Irecv [1050, 1100], Waitall E' = 1100 + 50 = 1150,
  //   X' = max(1150, 550 + 1100) + 100 = 1750, wait 500.
  EXPECT_TRUE(callIs(rp, 0, 1, 1050, 1100, 0));
  EXPECT_TRUE(callIs(rp, 0, 2, 1150, 1750, 500));
  // rank 1: Waitall X' = max(600, 1000 + 1100, 1050 − 1100) + 100 = 2200, wait 1500.
  EXPECT_TRUE(callIs(rp, 1, 2, 600, 2200, 1500));
  EXPECT_EQ(rp.predictedTime(), 2200);

  // And rank 0 also posts its Isend at once (0:c0): everything on rank 0 moves 1000 earlier.
  ASSERT_TRUE(rp.add(zeroComp(0, 0)));
  // rank 0: Isend [0, 50], Irecv [50, 100], Waitall E' = 150,
  //   X' = max(150, 550 + 1100) + 100 = 1750, wait = 1650 − 150 = 1500.
  EXPECT_TRUE(callIs(rp, 0, 0, 0, 50, 0));
  EXPECT_TRUE(callIs(rp, 0, 2, 150, 1750, 1500));
  // rank 1: X' = max(600, 0 + 1100, 50 − 1100) + 100 = 1200, wait 500.
  EXPECT_TRUE(callIs(rp, 1, 2, 600, 1200, 500));
  EXPECT_EQ(rp.predictedTime(), 1750);
}

TEST(ReplayRules, NonBlockingRoleCostsModelMode) {
  // The same trace priced by the sloped model (o_s(k) = 100 + k, o_r = 100, t_ss(k) = 2300 + k,
  // t_sr = 2300, λ = 1100 + k eager / 1100 rendezvous). Per endpoint (docs/model.md §3):
  //   0:0 Isend m1 (64 B, eager) post: max(o_s(64), g) = 164
  //   0:1 Irecv m2 post: 0
  //   0:2 Waitall: Isend m1 completion (eager) 0 + Irecv m2 completion (rdv) t_sr(2048) = 2300
  //   1:0 Irecv m1 post: 0
  //   1:1 Isend m2 (2048 B, rendezvous) post: o_s(0) = 100
  //   1:2 Waitall: Irecv m1 completion o_r(64) = 100 (receive side) and Isend m2 completion
  //       max(t_ss(2048) − o_s(0), 0) = 4348 − 100 = 4248 (send side) overlap: the larger, 4248
  //       (docs/model.md, "Concurrency within a call"; summed before issue #20: 4348)
  const Trace t = nonBlocking();
  Replayer rp(t, scenarioOf(slopedParams(), CostMode::Model));
  // rank 0 (gaps 1000, 2950, 50): Isend [1000, 1164], Irecv [4114, 4114], Waitall E' = 4164.
  EXPECT_TRUE(callIs(rp, 0, 0, 1000, 1164, 0));
  EXPECT_TRUE(callIs(rp, 0, 1, 4114, 4114, 0));
  // rank 1 (gaps 500, 0, 0): Irecv [500, 500], Isend [500, 600], Waitall E' = 600.
  EXPECT_TRUE(callIs(rp, 1, 0, 500, 500, 0));
  EXPECT_TRUE(callIs(rp, 1, 1, 500, 600, 0));
  // 1:2: X' = max(600, m1: 1000 + λ(64) = 2164, m2: 4114 − 1100 = 3014) + 4248 = 7262.
  EXPECT_TRUE(callIs(rp, 1, 2, 600, 7262, 2414));
  // 0:2: X' = max(4164, m2: 500 + 1100) + 2300 = 6464.
  EXPECT_TRUE(callIs(rp, 0, 2, 4164, 6464, 0));
  EXPECT_EQ(rp.predictedTime(), 7262);
}

TEST(ReplayRules, ModelModeKeepsNonCommunicationCosts) {
  //   rank 0: MPI_Comm_rank [0, 700]  Send 64 B [700, 5000]    rank 1: Recv [0, 9000]
  Tb b(2);
  b.call(0, 0, 700, "MPI_Comm_rank");
  b.send(0, 700, 5000, 1, 64);
  b.recv(1, 0, 9000, 0, 64);
  const Trace t = b.take();
  Replayer rp(t, scenarioOf(simpleParams(), CostMode::Model));
  EXPECT_TRUE(callIs(rp, 0, 0, 0, 700, 0));      // not communication: measured 700
  EXPECT_TRUE(callIs(rp, 0, 1, 700, 800, 0));    // max(o_s, g) = 100
  EXPECT_TRUE(callIs(rp, 1, 0, 0, 1900, 1800));  // max(0, 700 + 1100) + o_r 100
}

// ---- §2.5 Collectives ----------------------------------------------------------------------

// Three ranks entering a collective at 1000, 3000, 2000 with the given leaves.
Trace collective3(MpiOp op, std::int32_t root, std::vector<TimeNs> leaves,
                  std::vector<TimeNs> enters = {1000, 3000, 2000}) {
  Tb b(3);
  for (Rank r = 0; r < 3; ++r) b.coll(r, enters[r], leaves[r], op, root);
  return b.take();
}

TEST(ReplayRules, BarrierWaitsForTheLastMember) {
  const Trace t = collective3(MpiOp::Barrier, -1, {3200, 3200, 3200});
  Replayer rp(t, simple());
  expectIdentity(rp, t);
  // The gather vertex is the latest enter, 3000: waits 3000 − E = 2000, 0, 1000; local 200.
  EXPECT_EQ(rp.measuredWait(0, 0), 2000);
  EXPECT_EQ(rp.measuredWait(1, 0), 0);
  EXPECT_EQ(rp.measuredWait(2, 0), 1000);

  ASSERT_TRUE(rp.add(zeroComp(1, 0)));  // the last member arrives at 0 instead
  // gather' = max(1000, 0, 2000) = 2000; X' = 2000 + 200 = 2200 for everyone.
  EXPECT_TRUE(callIs(rp, 0, 0, 1000, 2200, 1000));
  EXPECT_TRUE(callIs(rp, 1, 0, 0, 2200, 2000));
  EXPECT_TRUE(callIs(rp, 2, 0, 2000, 2200, 0));
}

TEST(ReplayRules, BcastRootKnownAndUnknown) {
  // Root 2 known: non-roots wait for the root's enter (2000), the root does not wait.
  {
    const Trace t = collective3(MpiOp::Bcast, 2, {3200, 3200, 3200});
    Replayer rp(t, simple());
    expectIdentity(rp, t);
    EXPECT_EQ(rp.measuredWait(0, 0), 2000 - 1000);  // 1000, local 2200 − 1000 = 1200
    EXPECT_EQ(rp.measuredWait(1, 0), 0);            // root called at 2000 < 3000; local 200
    EXPECT_EQ(rp.measuredWait(2, 0), 0);            // the root: local 1200

    ASSERT_TRUE(rp.add(zeroComp(2, 0)));  // the root calls at 0
    EXPECT_TRUE(callIs(rp, 2, 0, 0, 1200, 0));
    // rank 0: X' = max(1000, 0) + 1200 = 2200; rank 1: max(3000, 0) + 200 = 3200.
    EXPECT_TRUE(callIs(rp, 0, 0, 1000, 2200, 0));
    EXPECT_TRUE(callIs(rp, 1, 0, 3000, 3200, 0));
  }
  // Root unknown (-1, as ALOG records it): treated like a barrier — everyone waits for 3000.
  {
    const Trace t = collective3(MpiOp::Bcast, -1, {3200, 3200, 3200});
    Replayer rp(t, simple());
    expectIdentity(rp, t);
    EXPECT_EQ(rp.measuredWait(0, 0), 2000);
    EXPECT_EQ(rp.measuredWait(1, 0), 0);
    EXPECT_EQ(rp.measuredWait(2, 0), 1000);

    ASSERT_TRUE(rp.add(zeroComp(2, 0)));
    // gather' = max(1000, 3000, 0) = 3000: rank 2 now waits 3000, X' = 3000 + 200.
    EXPECT_TRUE(callIs(rp, 2, 0, 0, 3200, 3000));
    EXPECT_TRUE(callIs(rp, 0, 0, 1000, 3200, 2000));
  }
}

TEST(ReplayRules, ReduceRootWaitsForMembers) {
  // Root 0; members leave as soon as they have called (local 200).
  const Trace t = collective3(MpiOp::Reduce, 0, {3200, 3200, 2200});
  Replayer rp(t, simple());
  expectIdentity(rp, t);
  EXPECT_EQ(rp.measuredWait(0, 0), 3000 - 1000);  // root waits for the last member: 2000
  EXPECT_EQ(rp.measuredWait(1, 0), 0);
  EXPECT_EQ(rp.measuredWait(2, 0), 0);

  ASSERT_TRUE(rp.add(zeroComp(1, 0)));
  // rank 1: [0, 200]; root: X' = max(1000, max(1000, 0, 2000)) + 200 = 2200, wait 1000.
  EXPECT_TRUE(callIs(rp, 1, 0, 0, 200, 0));
  EXPECT_TRUE(callIs(rp, 0, 0, 1000, 2200, 1000));
  EXPECT_TRUE(callIs(rp, 2, 0, 2000, 2200, 0));
}

// SMPI's collective family in model mode (issue #20; docs/model.md §3). simpleParams with
// G = 1 ns/B: hop(100) = o_s + L + G·99 + o_r = 100 + 1099 + 100 = 1299, of which 99 per byte
// (fixed 1200); an eager send costs s = o = 100.
LogGpsParams smpiFamily() {
  LogGpsParams p = simpleParams();
  p.G = 1;
  p.smpiCollectives = true;
  return p;
}

TEST(ReplayRules, SmpiLinearReduceQueuesAtTheRootsLink) {
  // Reduce of 100 B into rank 0 of 4; the members call at 0 (root), 1000, 5000, 5000.
  Tb b(4);
  b.coll(0, 0, 9000, MpiOp::Reduce, 0, 100);
  b.coll(1, 1000, 1100, MpiOp::Reduce, 0, 100);
  b.coll(2, 5000, 5100, MpiOp::Reduce, 0, 100);
  b.coll(3, 5000, 5100, MpiOp::Reduce, 0, 100);
  const Trace t = b.take();
  const LogGpsParams p = smpiFamily();
  EXPECT_EQ(LogGpsModel(p).collectiveQueue(MpiOp::Reduce, 100, 4), 99);
  Replayer rp(t, scenarioOf(p, CostMode::Model));
  // The root's link carries each message q = 99 from its member's call, latest first: the two
  // at 5000 end at 5000 + 2·99 = 5198; the one at 1000 at 1000 + 3·99 = 1297; the root posted
  // at 0: 0 + 3·99 = 297. The gather: 5198. The root's cost without its link's share:
  // memberCost − 3·q = (1200 + 3·99 + 2·o_r(0)) − 297 = 1697 − 297 = 1400: leaves at 6598.
  // (All at the last call, as before: 5000 + 1697 = 6697; the member at 1000 had gone.)
  EXPECT_TRUE(callIs(rp, 0, 0, 0, 6598, 5198));
  EXPECT_TRUE(callIs(rp, 1, 0, 1000, 1100, 0));  // non-roots: their eager send, s = 100
  EXPECT_TRUE(callIs(rp, 3, 0, 5000, 5100, 0));
  // The critical path runs from the member whose message went last (rank 2, the first of the
  // two at 5000) through the root's Reduce.
  const CriticalPath cp = criticalPath(rp);
  EXPECT_EQ(cp.length, rp.predictedTime());
  bool viaRank2 = false;
  for (const CriticalSegment& s : cp.segments)
    if (s.kind == CriticalSegment::Kind::Message && s.rank == 0 && s.fromRank == 2) viaRank2 = true;
  EXPECT_TRUE(viaRank2);
  ExecutionDag dag(rp);
  EXPECT_EQ(dag.criticalPath().length, rp.predictedTime());
}

TEST(ReplayRules, SmpiLinearBarrierQueuesAtRankZerosLinkAndLetsItGoFirst) {
  // Barrier of 4 with the gap g = 50 (0-byte messages: each holds rank 0's link for g); the
  // members call at 0 (rank 0), 1000, 5000, 5000.
  Tb b(4);
  b.coll(0, 0, 9000, MpiOp::Barrier);
  b.coll(1, 1000, 9000, MpiOp::Barrier);
  b.coll(2, 5000, 9000, MpiOp::Barrier);
  b.coll(3, 5000, 9000, MpiOp::Barrier);
  const Trace t = b.take();
  LogGpsParams p = smpiFamily();
  p.g = 50;
  EXPECT_EQ(LogGpsModel(p).collectiveQueue(MpiOp::Barrier, 0, 4), 50);
  Replayer rp(t, scenarioOf(p, CostMode::Model));
  // The gather: max(0 + 3·50, 1000 + 3·50, 5000 + 2·50) = 5100. hop(0) = o + L + o = 1200, no
  // per-byte part. In: 1200 + 2·max(g, o_r(0)) = 1400; out: 1200 + 2·max(g, o_s(0)) = 1400.
  // Without the link's share 3·50: rank 0 costs 1400 − 150 = 1250 and leaves at 6350 (its
  // eager releases return at once); the others 2800 − 150 = 2650 and leave at 7750.
  EXPECT_TRUE(callIs(rp, 0, 0, 0, 6350, 5100));
  EXPECT_TRUE(callIs(rp, 1, 0, 1000, 7750, 4100));
  EXPECT_TRUE(callIs(rp, 3, 0, 5000, 7750, 100));
  EXPECT_EQ(rp.predictedTime(), 7750);
}

TEST(ReplayRules, SmpiBcastWaitsForLateAncestors) {
  // Bcast of 100 B from rank 0 of 4: the binomial tree 0 → 2, 0 → 1 (in that order), 2 → 3.
  // A parent's c messages share its link: a child receives h = 1200 + c·99 after its parent's
  // receive and the sends before its own (h = 1398 under the root, 1299 under rank 2).
  // Rank 2 calls late, at 3000; the others at 0.
  Tb b(4);
  b.coll(0, 0, 200, MpiOp::Bcast, 0, 100);
  b.coll(1, 0, 9000, MpiOp::Bcast, 0, 100);
  b.coll(2, 3000, 9000, MpiOp::Bcast, 0, 100);
  b.coll(3, 0, 9000, MpiOp::Bcast, 0, 100);
  const Trace t = b.take();
  Replayer rp(t, scenarioOf(smpiFamily(), CostMode::Model));
  // receive(child) = max(call(child), receive(parent) + i·s) + h; receive(root) = its call.
  //   0: two sends, 200
  //   2: max(3000, 0 + 0) + 1398 = 4398, then one send: leaves 4498
  //   1: max(0, 0 + 1·100) + 1398 = 1498
  //   3: max(0, 4398 + 0) + 1299 = 5697 (waiting for the root alone, it would leave at
  //      0 + 1398 + 1299 = 2697)
  EXPECT_TRUE(callIs(rp, 0, 0, 0, 200, 0));
  EXPECT_TRUE(callIs(rp, 2, 0, 3000, 4498, 0));
  EXPECT_TRUE(callIs(rp, 1, 0, 0, 1498, 100));
  EXPECT_TRUE(callIs(rp, 3, 0, 0, 5697, 4398));
  std::vector<CollectiveTreeDep> deps;
  TimeNs local = 0;
  // Rank 3's dependencies: on rank 2 (relative 2) with h_2 + e(2 → 3) − h_3 = 1398 + 1299 −
  // 1299 and on the root with (1398 + 1299) − 1299, both 1398; its cost h_3 = 1299.
  ASSERT_TRUE(LogGpsModel(smpiFamily()).collectiveTree(MpiOp::Bcast, 100, 4, 3, deps, local));
  ASSERT_EQ(deps.size(), 2u);
  EXPECT_EQ(deps[0].relative, 2u);
  EXPECT_EQ(deps[0].offset, 1398);
  EXPECT_EQ(deps[1].relative, 0u);
  EXPECT_EQ(deps[1].offset, 1398);
  EXPECT_EQ(local, 1299);
  EXPECT_EQ(criticalPath(rp).length, rp.predictedTime());
}

TEST(ReplayRules, ScanWaitsForLowerRanks) {
  // Enters 3000, 1000, 2000; member i waits for members 0 … i−1.
  const Trace t = collective3(MpiOp::Scan, -1, {3200, 3200, 3200}, {3000, 1000, 2000});
  Replayer rp(t, simple());
  expectIdentity(rp, t);
  EXPECT_EQ(rp.measuredWait(0, 0), 0);
  EXPECT_EQ(rp.measuredWait(1, 0), 3000 - 1000);                     // waits for rank 0
  EXPECT_EQ(rp.measuredWait(2, 0), std::max<TimeNs>(3000, 1000) - 2000);  // 1000

  ASSERT_TRUE(rp.add(zeroComp(0, 0)));  // rank 0 calls at 0
  EXPECT_TRUE(callIs(rp, 0, 0, 0, 200, 0));
  EXPECT_TRUE(callIs(rp, 1, 0, 1000, 1200, 0));  // max(1000, 0) + 200
  EXPECT_TRUE(callIs(rp, 2, 0, 2000, 2200, 0));  // max(2000, 0, 1000) + 200
}

TEST(ReplayRules, AllreduceMeasuredAndModel) {
  // Four ranks enter at 1000, 3000, 2000, 500; all leave at 3300 (local 300).
  Tb b(4);
  const TimeNs enters[] = {1000, 3000, 2000, 500};
  for (Rank r = 0; r < 4; ++r) b.coll(r, enters[r], 3300, MpiOp::Allreduce, -1, 8);
  const Trace t = b.take();
  Replayer rp(t, simple());
  expectIdentity(rp, t);
  for (Rank r = 0; r < 4; ++r) EXPECT_EQ(rp.measuredWait(r, 0), 3000 - enters[r]) << r;

  // zero-event of the last member's call: it takes no time, but the others still wait for it
  // to *call* (gather = 3000): they are unchanged.
  ASSERT_TRUE(rp.add(zeroCall(1, 0)));
  EXPECT_TRUE(callIs(rp, 1, 0, 3000, 3000, 0));
  EXPECT_TRUE(callIs(rp, 0, 0, 1000, 3300, 2000));
  EXPECT_EQ(rp.predictedTime(), 3300);
  ASSERT_TRUE(rp.remove(zeroCall(1, 0)));
  ASSERT_TRUE(rp.add(zeroComp(1, 0)));
  // gather' = max(1000, 0, 2000, 500) = 2000 → X' = 2300; waits 1000, 2000, 0, 1500.
  for (Rank r = 0; r < 4; ++r) {
    const TimeNs e = r == 1 ? 0 : enters[r];
    EXPECT_TRUE(callIs(rp, r, 0, e, 2300, 2000 - e));
  }

  // Model mode: Allreduce costs 2·d·hop(k), d = ⌈log2 4⌉ = 2,
  // hop(8) = o_s(8) + L + o_r(8) = 100 + 1000 + 100 = 1200 → local 4800; X' = 3000 + 4800.
  Replayer model(t, scenarioOf(simpleParams(), CostMode::Model));
  for (Rank r = 0; r < 4; ++r) EXPECT_TRUE(callIs(model, r, 0, enters[r], 7800, 3000 - enters[r]));
  EXPECT_EQ(model.predictedTime(), 7800);
}

TEST(ReplayRules, BarrierModelCost) {
  // Barrier in model mode: d·hop(0), P = 3 → d = ⌈log2 3⌉ = 2, hop(0) = 100 + 1000 + 100 = 1200,
  // local 2400; X' = gather 3000 + 2400 = 5400.
  const Trace t = collective3(MpiOp::Barrier, -1, {3200, 3200, 3200});
  Replayer rp(t, scenarioOf(simpleParams(), CostMode::Model));
  EXPECT_TRUE(callIs(rp, 0, 0, 1000, 5400, 2000));
  EXPECT_TRUE(callIs(rp, 1, 0, 3000, 5400, 0));
  EXPECT_TRUE(callIs(rp, 2, 0, 2000, 5400, 1000));
}

// ---- §5 zero-event of calls and computation ------------------------------------------------

//   rank 0: Send [1000, 1500]  Send [2200, 2300]  then a user state "tail" [2300, 4000]
//   rank 1: Recv [0, 2300]     Recv [2300, 3500]
// Measured: 1:0 waits 1000 + 1100 − 0 = 2100 (local 200); 1:1 waits 2200 + 1100 − 2300 = 1000
// (local 200). Rank 0 has 2 calls, so its computation after the last call is "0:c2" (1700 ns).
Trace twoSends() {
  Tb b(2);
  b.send(0, 1000, 1500, 1, 64);
  b.send(0, 2200, 2300, 1, 64);
  b.state(0, 2300, 4000, "tail");
  b.recv(1, 0, 2300, 0, 64);
  b.recv(1, 2300, 3500, 0, 64);
  return b.take();
}

TEST(ReplayRules, ZeroEventOfCallsAndComputation) {
  const Trace t = twoSends();
  Replayer rp(t, simple());
  expectIdentity(rp, t);
  EXPECT_EQ(rp.measuredWait(1, 0), 2100);
  EXPECT_EQ(rp.measuredWait(1, 1), 1000);
  EXPECT_EQ(rp.measuredRankEnd(0), 4000);

  // zero-event 0:0: the first send takes no time.
  ASSERT_TRUE(rp.add(zeroCall(0, 0)));
  EXPECT_TRUE(callIs(rp, 0, 0, 1000, 1000, 0));
  EXPECT_TRUE(callIs(rp, 0, 1, 1700, 1800, 0));  // E' = 1000 + 700
  EXPECT_EQ(rp.predictedRankEnd(0), 1800 + 1700);
  EXPECT_TRUE(callIs(rp, 1, 0, 0, 2300, 2100));  // max(0, 1000 + 1100) + 200
  // 1:1: X' = max(2300, 1700 + 1100) + 200 = 3000, wait 500.
  EXPECT_TRUE(callIs(rp, 1, 1, 2300, 3000, 500));
  EXPECT_EQ(rp.predictedTime(), 3500);  // max(3500, 3000)

  // zero-event 0:c1 alone: the second send follows the first at once.
  ASSERT_TRUE(rp.setHypotheses({zeroComp(0, 1)}));
  EXPECT_TRUE(callIs(rp, 0, 1, 1500, 1600, 0));
  // 1:1: X' = max(2300, 1500 + 1100) + 200 = 2800, wait 300.
  EXPECT_TRUE(callIs(rp, 1, 1, 2300, 2800, 300));
  EXPECT_EQ(rp.predictedTime(), 1600 + 1700);  // rank 0's tail: 3300 > 2800

  // zero-event 0:c2: the computation after the last call.
  ASSERT_TRUE(rp.setHypotheses({zeroComp(0, 2)}));
  EXPECT_EQ(rp.predictedRankEnd(0), 2300);
  EXPECT_EQ(rp.predictedTime(), 3500);  // rank 1 is now the last

  // All three: send0 [1000, 1000], send1 [1000, 1100], rank 0 ends at 1100;
  // 1:1: X' = max(2300, 1000 + 1100) + 200 = 2500, wait 0.
  ASSERT_TRUE(rp.setHypotheses({zeroCall(0, 0), zeroComp(0, 1), zeroComp(0, 2)}));
  EXPECT_TRUE(callIs(rp, 0, 1, 1000, 1100, 0));
  EXPECT_EQ(rp.predictedRankEnd(0), 1100);
  EXPECT_TRUE(callIs(rp, 1, 1, 2300, 2500, 0));
  EXPECT_EQ(rp.predictedTime(), 2500);

  // zero-wait keeps the local cost, zero-event drops it too.
  ASSERT_TRUE(rp.setHypotheses({zeroWait(1, 1)}));
  EXPECT_TRUE(callIs(rp, 1, 1, 2300, 2500, 0));  // E' + local = 2300 + 200
  ASSERT_TRUE(rp.setHypotheses({zeroCall(1, 1)}));
  EXPECT_TRUE(callIs(rp, 1, 1, 2300, 2300, 0));
  EXPECT_EQ(rp.predictedRankEnd(1), 2300);
}

TEST(ReplayRules, MapTimeOfOtherEvents) {
  // §2.8: inside a call the same offset from its start, clamped to its predicted length; inside
  // a computation gap proportionally to the gap's predicted length.
  const Trace t = twoSends();
  Replayer rp(t, simple({zeroCall(0, 0)}));
  // 0:0 measured [1000, 1500], predicted [1000, 1000]: 1200 → 1000 + min(200, 0) = 1000.
  EXPECT_EQ(rp.mapTime(0, 1200), 1000);
  // Gap [1500, 2200] → [1000, 1700] (same length 700): 1850 → 1000 + 350 = 1350.
  EXPECT_EQ(rp.mapTime(0, 1850), 1350);
  // 0:1 measured [2200, 2300], predicted [1700, 1800]: its leave (the "tail" state's enter) → 1800.
  EXPECT_EQ(rp.mapTime(0, 2300), 1800);
  // The tail gap [2300, 4000] → [1800, 3500]: 3150 → 1800 + 850 = 2650; the rank's end → 3500.
  EXPECT_EQ(rp.mapTime(0, 3150), 2650);
  EXPECT_EQ(rp.mapTime(0, 4000), 3500);
  // The tail computation zeroed (0:c2): the whole gap maps to its start.
  ASSERT_TRUE(rp.add(zeroComp(0, 2)));
  EXPECT_EQ(rp.mapTime(0, 3150), 1800);
  EXPECT_EQ(rp.mapTime(0, 4000), 1800);
}

TEST(ReplayRules, TestThatCompletedNothingHasNoDependency) {
  //   rank 0: Send [3000, 3100]
  //   rank 1: Irecv req 1 [0, 50]   MPI_Test [100, 150] (nothing)   MPI_Wait req 1 [200, 4300]
  Tb b(2);
  b.send(0, 3000, 3100, 1, 64);
  b.irecv(1, 0, 50, 1);
  b.call(1, 100, 150, "MPI_Test");
  b.wait(1, 200, 4300, {{false, 1, 0, 64}}, "MPI_Wait");
  const Trace t = b.take();
  Replayer rp(t, simple());
  expectIdentity(rp, t);
  EXPECT_EQ(rp.measuredWait(1, 1), 0);
  // The Wait depends on the sender's call: 3000 + 1100 − 200 = 3900, local 200.
  EXPECT_EQ(rp.measuredWait(1, 2), 3900);
  ASSERT_TRUE(rp.add(zeroComp(0, 0)));
  EXPECT_TRUE(callIs(rp, 1, 1, 100, 150, 0));
  // Wait: X' = max(200, 0 + 1100) + 200 = 1300, wait 900.
  EXPECT_TRUE(callIs(rp, 1, 2, 200, 1300, 900));
}

TEST(ReplayRules, AddAndRemoveIgnoreUnusedFields) {
  // A zero-wait's step and a balance's event are not part of the hypothesis (Scenario::normalize
  // zeroes them): add/remove must treat them like the canonical hypothesis.
  const Trace t = chain();
  Replayer rp(t, simple());
  Hypothesis zw = zeroWait(1, 0);
  zw.step = 5;
  ASSERT_TRUE(rp.add(zw));
  EXPECT_EQ(rp.scenario().hypotheses, std::vector<Hypothesis>{zeroWait(1, 0)});
  EXPECT_TRUE(callIs(rp, 3, 0, 0, 2800, 2600));  // as in LateSenderChain
  ASSERT_TRUE(rp.remove(zw));
  EXPECT_TRUE(rp.scenario().hypotheses.empty());
  expectIdentity(rp, t);

  Tb b(2);
  b.open(0, 0, "PRGN_step");
  b.coll(0, 1000, 1100, MpiOp::Barrier);
  b.close(0, 1100, "PRGN_step");
  b.open(1, 0, "PRGN_step");
  b.coll(1, 0, 1100, MpiOp::Barrier);
  b.close(1, 1100, "PRGN_step");
  const Trace s = b.take();
  Replayer bal(s, simple({balanceCompute(0)}));
  Hypothesis again = balanceCompute(0);
  again.event = EventRef{1, 2, true};
  ASSERT_TRUE(bal.add(again));  // the same hypothesis: balancing twice would change nothing
  EXPECT_EQ(bal.scenario().hypotheses.size(), 1u);
  EXPECT_TRUE(callIs(bal, 0, 0, 500, 600, 0));  // as in BalanceComputeRankWithoutComputation
  EXPECT_TRUE(callIs(bal, 1, 0, 500, 600, 0));
}

TEST(ReplayRules, HypothesisValidation) {
  const Trace t = twoSends();
  Replayer rp(t, simple());
  EXPECT_EQ(rp.validate(zeroComp(0, 2)), "");  // N = 2 calls: c2 is after the last call
  EXPECT_NE(rp.validate(zeroComp(0, 3)), "");
  EXPECT_NE(rp.validate(zeroCall(0, 2)), "");  // calls are 0 and 1
  EXPECT_NE(rp.validate(zeroWait(0, 2)), "");
  EXPECT_NE(rp.validate(Hypothesis{HypothesisKind::ZeroWait, EventRef{0, 1, true}, 0}), "");
  EXPECT_NE(rp.validate(zeroCall(2, 0)), "");  // 2 ranks
  EXPECT_NE(rp.validate(balanceCompute(0)), "");  // no parallel steps
  EXPECT_NE(rp.validate(balanceVolume(0)), "");
  std::string error;
  EXPECT_FALSE(rp.add(zeroCall(0, 2), &error));
  EXPECT_FALSE(error.empty());
  EXPECT_FALSE(rp.remove(zeroCall(0, 0), &error));  // not in the scenario
  EXPECT_TRUE(rp.scenario().hypotheses.empty());
  expectIdentity(rp, t);
}

// ---- §5 balance-compute ---------------------------------------------------------------------

// Three ranks, one PRGN step [500, 3700 + b_r] with computation a_r before a barrier and b_r
// after it; 500 ns before the step and 300 ns after it are outside the step.
//   a = {1000, 3000, 601}, b = {500, 1000, 200}
//   Barrier1 [500 + a_r, 3700]   PRGN leave 3700 + b_r   Barrier2 [3700 + b_r + 300, 5100]
// With `secondStep`, ranks 0 and 1 then run a second step [5200, 5200 + d_r] with no MPI call,
// d = {700, 250}; rank 2 ends after Barrier2.
namespace {
Trace imbalancedStep(bool secondStep) {
  const TimeNs a[] = {1000, 3000, 601}, bb[] = {500, 1000, 200}, d[] = {700, 250};
  Tb b(3);
  for (Rank r = 0; r < 3; ++r) {
    b.open(r, 500, "PRGN_step");
    b.coll(r, 500 + a[r], 3700, MpiOp::Barrier);
    b.close(r, 3700 + bb[r], "PRGN_step");
    b.coll(r, 3700 + bb[r] + 300, 5100, MpiOp::Barrier);
    if (secondStep && r < 2) {
      b.open(r, 5200, "PRGN_step");
      b.close(r, 5200 + d[r], "PRGN_step");
    }
  }
  return b.take();
}
}  // namespace

TEST(ReplayRules, BalanceComputeImbalancedStep) {
  const Trace t = imbalancedStep(false);
  ASSERT_EQ(t.steps.size(), 1u);
  Replayer rp(t, simple());
  expectIdentity(rp, t);
  // Barrier1 gather = 3500: waits 2000, 0, 2399 (local 200); Barrier2 gather = 5000 (local 100).
  EXPECT_EQ(rp.measuredWait(2, 0), 3500 - 1101);

  // c_r = a_r + b_r = 1500, 4000, 801; mean = round(6301 / 3) = 2100.
  // Each rank's parts scaled by mean / c_r with cumulative rounding:
  //   rank 0: a' = 1000·2100/1500 = 1400,            b' = 2100 − 1400 = 700
  //   rank 1: a' = 3000·2100/4000 = 1575,            b' = 2100 − 1575 = 525
  //   rank 2: a' = round(601·2100/801 = 1575.66) = 1576, b' = 2100 − 1576 = 524
  ASSERT_TRUE(rp.add(balanceCompute(0)));
  const TimeNs a2[] = {1400, 1575, 1576};
  // Barrier1: E' = 500 + a' = 1900, 2075, 2076; gather' = 2076; X' = 2076 + 200 = 2276.
  for (Rank r = 0; r < 3; ++r) EXPECT_TRUE(callIs(rp, r, 0, 500 + a2[r], 2276, 2076 - (500 + a2[r])));
  // Barrier2: E' = 2276 + b' + 300 = 3276, 3101, 3100; gather' = 3276; X' = 3276 + 100 = 3376.
  const TimeNs e2[] = {3276, 3101, 3100};
  for (Rank r = 0; r < 3; ++r) EXPECT_TRUE(callIs(rp, r, 1, e2[r], 3376, 3276 - e2[r]));
  EXPECT_EQ(rp.predictedTime(), 3376);
  // Every rank's computation inside the step is now the mean:
  // (E'_B1 − 500) + (E'_B2 − X'_B1 − 300) = 2100.
  for (Rank r = 0; r < 3; ++r) {
    const TimeNs inStep = (rp.predicted(r, 0).enter - 500) +
                          (rp.predicted(r, 1).enter - rp.predicted(r, 0).leave - 300);
    EXPECT_EQ(inStep, 2100) << "rank " << r;
  }
  // §2.8: the step marker's enter (500) lies inside the gap before Barrier1, which is scaled
  // from [0, 500 + a_r] to [0, 500 + a'_r]: rank 0: 500·1900/1500 = 633.3 → 633;
  // rank 1: 500·2075/3500 = 296.4 → 296.
  EXPECT_EQ(rp.mapTime(0, 500), 633);
  EXPECT_EQ(rp.mapTime(1, 500), 296);
}

// The computation balance-compute equalises, of every step at once (Replayer::stepComputations)
// and step by step, on imbalancedStep(true):
//   step 0: c_r = a_r (before Barrier1) + b_r (after it) = 1500, 4000, 801
//   step 1: the gap from Barrier2's leave (5100) to the rank's end, inside [5200, 5200 + d_r]:
//           d_r = 700, 250; rank 2 has no step 1: -1.
TEST(ReplayRules, StepComputationOfEveryStepAtOnce) {
  const Trace t = imbalancedStep(true);
  ASSERT_EQ(t.steps.size(), 2u);
  Replayer rp(t, simple());
  EXPECT_EQ(rp.stepComputations(), (std::vector<TimeNs>{1500, 4000, 801, 700, 250, -1}));
  EXPECT_EQ(rp.stepComputation(0), (std::vector<TimeNs>{1500, 4000, 801}));
  EXPECT_EQ(rp.stepComputation(1), (std::vector<TimeNs>{700, 250, -1}));
}

// On generated traces (imbalance, non-blocking calls, many steps): every step at once equals
// the step-by-step search.
TEST(ReplayRules, StepComputationsEqualStepByStep) {
  for (std::uint32_t seed = 1; seed <= 4; ++seed) {
    GeneratorSpec spec;
    spec.ranks = 3 + seed;
    spec.steps = 40 * seed;
    spec.imbalance = 0.5;
    spec.nonBlocking = seed % 2 == 0;
    spec.seed = seed;
    TraceBuilder tb("steps", "generated");
    generateTrace(spec, tb);
    const Trace t = tb.take();
    ASSERT_EQ(t.steps.size(), spec.steps);
    Replayer rp(t, Scenario{});
    const std::vector<TimeNs> all = rp.stepComputations();
    ASSERT_EQ(all.size(), t.steps.size() * t.rankCount());
    for (std::uint32_t k = 0; k < t.steps.size(); ++k) {
      const std::vector<TimeNs> one = rp.stepComputation(k);
      ASSERT_EQ(one.size(), t.rankCount());
      for (std::uint32_t r = 0; r < t.rankCount(); ++r) {
        ASSERT_EQ(all[std::size_t(k) * t.rankCount() + r], one[r]) << "seed " << seed << ", step " << k << ", rank " << r;
        EXPECT_GE(one[r], 0);
      }
    }
  }
}

TEST(ReplayRules, BalanceComputeRankWithoutComputation) {
  // rank 0: PRGN [0, 1100] { compute 1000, Barrier [1000, 1100] }
  // rank 1: PRGN [0, 1100] { Barrier [0, 1100] }  — no computation in the step.
  Tb b(2);
  b.open(0, 0, "PRGN_step");
  b.coll(0, 1000, 1100, MpiOp::Barrier);
  b.close(0, 1100, "PRGN_step");
  b.open(1, 0, "PRGN_step");
  b.coll(1, 0, 1100, MpiOp::Barrier);
  b.close(1, 1100, "PRGN_step");
  const Trace t = b.take();
  Replayer rp(t, simple());
  EXPECT_EQ(rp.measuredWait(1, 0), 1000);  // local 100 on both
  // mean = (1000 + 0) / 2 = 500: rank 0 scaled to 500, rank 1 gets 500 added to its first gap.
  ASSERT_TRUE(rp.add(balanceCompute(0)));
  // Both enter at 500, gather 500, X' = 600.
  EXPECT_TRUE(callIs(rp, 0, 0, 500, 600, 0));
  EXPECT_TRUE(callIs(rp, 1, 0, 500, 600, 0));
}

// ---- §5 balance-volume under the model -----------------------------------------------------

// One PRGN step with two messages: m_a 0 → 1 of 512 B (eager) and m_b 1 → 0 of kb B.
//   rank 0: PRGN [500, 9000] { Send m_a [1000, 2000]  Recv m_b [2000, 9000] }
//   rank 1: PRGN [100, 3600] { Recv m_a [200, 3000]   Send m_b [3100, 3600] }
Trace volumeStep(std::uint64_t kb) {
  Tb b(2);
  b.open(0, 500, "PRGN_step");
  b.send(0, 1000, 2000, 1, 512);
  b.recv(0, 2000, 9000, 1, kb);
  b.close(0, 9000, "PRGN_step");
  b.open(1, 100, "PRGN_step");
  b.recv(1, 200, 3000, 0, 512);
  b.send(1, 3100, 3600, 0, kb);
  b.close(1, 3600, "PRGN_step");
  return b.take();
}

// The sloped model: o_s(k) = 100 + k, o_r(k) = 100, L = 1000, S = 1024, defaults for the rest:
//   t_ss(k) = o_s(k) + 2·(o_s(0) + L) = 100 + k + 2200 = 2300 + k
//   t_sr(k) = o_r(k) + 2·(o_r(0) + L) = 100 + 2200     = 2300
//   λ(k) = 1100 + k (eager), 1100 (rendezvous)
TEST(ReplayRules, BalanceVolumeTurnsSmallMessageRendezvousModelMode) {
  const Trace t = volumeStep(2048);
  ASSERT_EQ(t.steps.size(), 1u);
  Replayer rp(t, scenarioOf(slopedParams(), CostMode::Model));
  // No hypothesis, model costs:
  //   0:0 Send 512 eager: local max(o_s(512), g) = 612; E' = 1000 → X' = 1612.
  EXPECT_TRUE(callIs(rp, 0, 0, 1000, 1612, 0));
  //   1:0 Recv 512: X' = max(200, 1000 + λ(512) = 2612) + o_r = 2612 + 100 = 2712, wait 2412.
  EXPECT_TRUE(callIs(rp, 1, 0, 200, 2712, 2412));
  //   1:1 Send 2048 rendezvous: E' = 2712 + 100 = 2812; dep on 0:1's E' = 1612: 1612 − 1100 = 512;
  //       X' = 2812 + t_ss(2048) = 2812 + 4348 = 7160.
  EXPECT_TRUE(callIs(rp, 1, 1, 2812, 7160, 0));
  //   0:1 Recv 2048: E' = 1612; X' = max(1612, 2812 + 1100) + t_sr = 3912 + 2300 = 6212.
  EXPECT_TRUE(callIs(rp, 0, 1, 1612, 6212, 2300));
  EXPECT_EQ(rp.predictedTime(), 7160);

  // Balance the volume: k' = round((512 + 2048) / 2) = 1280 > S → both rendezvous.
  ASSERT_TRUE(rp.add(balanceVolume(0)));
  //   0:0 Send 1280 (now synchronous): local t_ss(1280) = 3580; dep on 1:0's E' − λ = 200 − 1100;
  //       X' = max(1000, −900) + 3580 = 4580.
  EXPECT_TRUE(callIs(rp, 0, 0, 1000, 4580, 0));
  //   1:0 Recv: λ(1280) = 1100 (REQ); X' = max(200, 1000 + 1100) + t_sr = 2100 + 2300 = 4400.
  EXPECT_TRUE(callIs(rp, 1, 0, 200, 4400, 1900));
  //   1:1 Send: E' = 4500; dep on 0:1's E' = 4580: 4580 − 1100 = 3480 → X' = 4500 + 3580 = 8080.
  EXPECT_TRUE(callIs(rp, 1, 1, 4500, 8080, 0));
  //   0:1 Recv: E' = 4580; X' = max(4580, 4500 + 1100) + 2300 = 7900, wait 1020.
  EXPECT_TRUE(callIs(rp, 0, 1, 4580, 7900, 1020));
  EXPECT_EQ(rp.predictedTime(), 8080);

  ASSERT_TRUE(rp.remove(balanceVolume(0)));
  EXPECT_EQ(rp.predictedTime(), 7160);
}

TEST(ReplayRules, BalanceVolumeTurnsLargeMessageEagerModelMode) {
  const Trace t = volumeStep(1500);
  Replayer rp(t, scenarioOf(slopedParams(), CostMode::Model));
  // No hypothesis: as above for m_a (0:0 [1000, 1612], 1:0 [200, 2712]);
  //   1:1 Send 1500 rendezvous: E' = 2812, X' = 2812 + t_ss(1500) = 2812 + 3800 = 6612.
  EXPECT_TRUE(callIs(rp, 1, 1, 2812, 6612, 0));
  EXPECT_TRUE(callIs(rp, 0, 1, 1612, 6212, 2300));  // max(1612, 2812 + 1100) + 2300

  // k' = round((512 + 1500) / 2) = 1006 ≤ S → both eager: λ(1006) = 1100 + 1006 = 2106;
  // locals: send max(o_s(1006), g) = 1106, recv o_r = 100.
  ASSERT_TRUE(rp.add(balanceVolume(0)));
  EXPECT_TRUE(callIs(rp, 0, 0, 1000, 2106, 0));     // 1000 + 1106
  EXPECT_TRUE(callIs(rp, 1, 0, 200, 3206, 2906));   // max(200, 1000 + 2106) + 100
  EXPECT_TRUE(callIs(rp, 1, 1, 3306, 4412, 0));     // eager: no wait for the receiver; 3306 + 1106
  EXPECT_TRUE(callIs(rp, 0, 1, 2106, 5512, 3306));  // max(2106, 3306 + 2106) + 100
  EXPECT_EQ(rp.predictedTime(), 5512);
}

TEST(ReplayRules, BalanceVolumeMeasuredModeAdjustsLocalCosts) {
  const Trace t = volumeStep(2048);
  Replayer rp(t, scenarioOf(slopedParams()));
  expectIdentity(rp, t);
  // Measured decomposition:
  //   0:0 Send 512 eager: wait 0, local 1000.
  //   1:0 Recv 512: wait = 1000 + λ(512) − 200 = 1000 + 1612 − 200 = 2412, local 2800 − 2412 = 388.
  //   1:1 Send 2048: wait = max(t_v − t_u − λ, 0) = max(2000 − 3100 − 1100, 0) = 0, local 500.
  //   0:1 Recv 2048: wait = 3100 + 1100 − 2000 = 2200, local 7000 − 2200 = 4800.
  EXPECT_EQ(rp.measuredWait(0, 0), 0);
  EXPECT_EQ(rp.measuredWait(1, 0), 2412);
  EXPECT_EQ(rp.measuredWait(1, 1), 0);
  EXPECT_EQ(rp.measuredWait(0, 1), 2200);

  // k' = 1280: local' = local + roleCost(k') − roleCost(k), never below 0:
  //   0:0: 1000 + (t_ss(1280) − o_s(512)) = 1000 + (3580 − 612) = 3968
  //   1:0:  388 + (t_sr(1280) − o_r(512)) =  388 + (2300 − 100) = 2588
  //   1:1:  500 + (t_ss(1280) − t_ss(2048)) = 500 + (3580 − 4348) = −268 → 0
  //   0:1: 4800 + (t_sr(1280) − t_sr(2048)) = 4800 + 0 = 4800
  ASSERT_TRUE(rp.add(balanceVolume(0)));
  EXPECT_TRUE(callIs(rp, 0, 0, 1000, 4968, 0));     // max(1000, 200 − 1100) + 3968
  EXPECT_TRUE(callIs(rp, 1, 0, 200, 4688, 1900));   // max(200, 1000 + 1100) + 2588
  EXPECT_TRUE(callIs(rp, 1, 1, 4788, 4788, 0));     // max(4788, 4968 − 1100) + 0
  EXPECT_TRUE(callIs(rp, 0, 1, 4968, 10688, 920));  // max(4968, 4788 + 1100) + 4800
  EXPECT_EQ(rp.predictedTime(), 10688);
}

// ---- §3 model mode with the Japanese paper's Table 5 ---------------------------------------

// A ping of k bytes: rank 0 Send [0, 50 ms], rank 1 Recv [0, 60 ms] (measured times only
// provide the gaps, here 0; model mode prices the calls).
Trace ping(std::uint64_t k) {
  Tb b(2);
  b.send(0, 0, 50'000'000, 1, k);
  b.recv(1, 0, 60'000'000, 0, k);
  return b.take();
}

struct PingCase {
  const char* preset;
  std::uint64_t k;
  TimeNs sendLocal, recvLocal, lambda;
};

TEST(ReplayRules, Table5PingModelMode) {
  const PingCase cases[] = {
      // Ethernet, eager k = 1000: o_s = 12.1 + 0.0901·1000 = 102.2 µs; o_r = 12.1 + 0.0568·1000
      // = 68.9 µs; λ = o_s(k) + L = 102.2 + 69.35 = 171.55 µs.
      {"ethernet-table5", 1000, 102'200, 68'900, 171'550},
      // Ethernet, k = S = 127999 (still eager): o_s = 12.1 + 0.0901·127999 = 11544.8099 µs;
      // o_r = 12.1 + 0.0568·127999 = 7282.4432 µs; λ = 11544.8099 + 69.35 = 11614.1599 µs.
      {"ethernet-table5", 127'999, 11'544'810, 7'282'443, 11'614'160},
      // Ethernet, rendezvous k = 200000: t_ss = 175 + 0.0859·200000 = 17355 µs;
      // t_sr = 264 + 0.0900·200000 = 18264 µs; λ = o_s(0) + L = 12.1 + 69.35 = 81.45 µs.
      {"ethernet-table5", 200'000, 17'355'000, 18'264'000, 81'450},
      // Myrinet, eager k = 1000: o_s = 2.15 + 0.00188·1000 = 4.03 µs; o_r = 2.15 + 0.000937·1000
      // = 3.087 µs; λ = 4.03 + 9.11 = 13.14 µs.
      {"myrinet-table5", 1000, 4'030, 3'087, 13'140},
      // Myrinet, rendezvous k = 20000 > 16383: t_ss = 28.9 + 0.00358·20000 = 100.5 µs;
      // t_sr = 90.3 + 0.00485·20000 = 187.3 µs; λ = o_s(0) + L = 2.15 + 9.11 = 11.26 µs.
      {"myrinet-table5", 20'000, 100'500, 187'300, 11'260},
  };
  for (const PingCase& c : cases) {
    SCOPED_TRACE(std::string(c.preset) + " k=" + std::to_string(c.k));
    const Trace t = ping(c.k);
    Replayer rp(t, Scenario{std::shared_ptr<const NetworkModel>(networkPreset(c.preset)), CostMode::Model, {}});
    EXPECT_EQ(rp.report().skewedDependencies, 0u);
    // Send: no wait (eager: no dependency; rendezvous: the receive was called at 0, 0 − λ < 0),
    // X' = 0 + local.
    EXPECT_TRUE(callIs(rp, 0, 0, 0, c.sendLocal, 0));
    // Recv: X' = max(0, 0 + λ) + local, wait λ.
    EXPECT_TRUE(callIs(rp, 1, 0, 0, c.lambda + c.recvLocal, c.lambda));
    const PredictedCall s = rp.predicted(0, 0), r = rp.predicted(1, 0);
    EXPECT_EQ(s.leave - s.enter - s.wait, c.sendLocal);
    EXPECT_EQ(r.leave - r.enter - r.wait, c.recvLocal);
  }
}

// Eager data that moves once its receive is posted ("eager_transfer": "at-receive",
// docs/model.md §2.2; SMPI's default): the receive costs L + G·(k − 1) + o_r(k) from
// max(its own call, the send's call + o_s(k)). Model mode, k = 1001 (eager), with
//   L = 1000, G = 0.5 ns/B, o_s(k) = o_r(k) = o = 100:
//   wire(1001) = L + G·1000 = 1500; receive local = 1500 + 100 = 1600; dependency = o_s = 100.
TEST(ReplayRules, EagerAtReceiveModelMode) {
  LogGpsParams p = simpleParams();
  p.G = 0.5;
  p.S = 4096;
  p.eagerAtReceive = true;
  const LogGpsModel m(p);
  EXPECT_EQ(m.receiveDelay(CommRole::BlockingRecv, 1001), 100);   // o_s(1001)
  EXPECT_EQ(m.receiveDelay(CommRole::IrecvComplete, 1001), 100);
  EXPECT_EQ(m.roleCost(CommRole::BlockingRecv, 1001), 1600);     // 1000 + 0.5·1000 + 100
  EXPECT_EQ(m.roleCost(CommRole::IrecvComplete, 1001), 1600);
  EXPECT_EQ(m.roleCost(CommRole::BlockingSend, 1001), 100);      // o_s: the send returns
  EXPECT_EQ(m.arrivalDelay(1001), 1600);  // o_s + wire: unchanged (where the data would be)
  // Rendezvous is untouched: REQ at o_s(0) + L = 1100, receive t_sr = 3o + 2L = 2300 (default).
  EXPECT_EQ(m.receiveDelay(CommRole::BlockingRecv, 5000), 1100);
  // A hop of a collective carries the wire: o_s + L + G·(k − 1) + o_r = 100 + 1500 + 100; a
  // Bcast over 2 ranks is one hop.
  EXPECT_EQ(m.collectiveCost(MpiOp::Bcast, 1001, 2), 1700);

  // Receiver early (called at 0, the send at 5000): X' = max(0, 5000 + 100) + 1600 = 6700,
  // wait 5100. (At-send would give max(0, 5000 + 1600) + 100 = 6700 too: the same when the
  // receiver waits.)
  {
    Tb b(2);
    b.send(0, 5000, 5200, 1, 1001);
    b.recv(1, 0, 9000, 0, 1001);
    const Trace t = b.take();
    Replayer rp(t, scenarioOf(p, CostMode::Model));
    EXPECT_TRUE(callIs(rp, 0, 0, 5000, 5100, 0));
    EXPECT_TRUE(callIs(rp, 1, 0, 0, 6700, 5100));
  }
  // Receiver late (the send at 0, the receive at 5000): the data moves only now,
  // X' = max(5000, 0 + 100) + 1600 = 6600, wait 0. At-send it would have arrived at 1600 and
  // the receive would end at 5000 + 100 = 5100.
  {
    Tb b(2);
    b.send(0, 0, 200, 1, 1001);
    b.recv(1, 5000, 5300, 0, 1001);
    const Trace t = b.take();
    Replayer rp(t, scenarioOf(p, CostMode::Model));
    EXPECT_TRUE(callIs(rp, 1, 0, 5000, 6600, 0));
    LogGpsParams atSend = p;
    atSend.eagerAtReceive = false;
    Replayer sender(t, scenarioOf(atSend, CostMode::Model));
    EXPECT_TRUE(callIs(sender, 1, 0, 5000, 5100, 0));
  }
}

// ---- §2.7 clock skew and §2.6 cycles --------------------------------------------------------

TEST(ReplayRules, ClockSkewReceiveBeforeSend) {
  //   rank 0: MPI_Comm_rank [2000, 5000]  Send [5000, 5100]
  //   rank 1: Recv [1000, 4500]  — completes before its send is called
  Tb b(2);
  b.call(0, 2000, 5000, "MPI_Comm_rank");
  b.send(0, 5000, 5100, 1, 64);
  b.recv(1, 1000, 4500, 0, 64);
  const Trace t = b.take();
  EXPECT_EQ(t.messageStats.receiveBeforeSend, 1u);
  Replayer rp(t, simple());
  // T_src + off = 5000 + 1100 = 6100 > X = 4500: offset shortened to X − T_src = −500.
  EXPECT_EQ(rp.report().skewedDependencies, 1u);
  EXPECT_FALSE(rp.report().notes.empty());
  expectIdentity(rp, t);
  // ready = X = 4500 → wait 3500, local 0.
  EXPECT_EQ(rp.measuredWait(1, 0), 3500);

  // Later changes still propagate through the message: the send moves 3000 earlier.
  ASSERT_TRUE(rp.add(zeroCall(0, 0)));
  EXPECT_TRUE(callIs(rp, 0, 1, 2000, 2100, 0));
  // Recv: X' = max(1000, 2000 − 500) + 0 = 1500, wait 500.
  EXPECT_TRUE(callIs(rp, 1, 0, 1000, 1500, 500));
}

TEST(ReplayRules, ModelModeKeepsASlowerNetworksDelays) {
  // A trace from a fast network retargeted to a slower one: the message took 400 ns,
  //   rank 0: Send 64 B [0, 100]
  //   rank 1: Recv [0, 500]
  // and the model's λ(64) = o + L = 100 + 1000 = 1100 > X − T_src = 500.
  Tb b(2);
  b.send(0, 0, 100, 1, 64);
  b.recv(1, 0, 500, 0, 64);
  const Trace t = b.take();
  // Measured costs: judged against the measured times, the dependency is skew (shortened to
  // X − T_src = 500): the replay reproduces L.
  {
    Replayer rp(t, simple());
    EXPECT_EQ(rp.report().skewedDependencies, 1u);
    expectIdentity(rp, t);
  }
  // Model costs: the offset is the target network's, not a measurement: kept. The send costs
  // o = 100; the receive X' = max(0, 0 + 1100) + o = 1200, wait 1100 (it was shortened to 500,
  // X' = 600, before issue #20).
  {
    Replayer rp(t, scenarioOf(simpleParams(), CostMode::Model));
    EXPECT_EQ(rp.report().skewedDependencies, 0u);
    EXPECT_TRUE(callIs(rp, 0, 0, 0, 100, 0));
    EXPECT_TRUE(callIs(rp, 1, 0, 0, 1200, 1100));
  }
  // A partner called after this call returned is skew in both modes: a receive at [0, 500] of a
  // send called at 2000.
  {
    Tb c(2);
    c.send(0, 2000, 2100, 1, 64);
    c.recv(1, 0, 500, 0, 64);
    const Trace late = c.take();
    Replayer rp(late, scenarioOf(simpleParams(), CostMode::Model));
    EXPECT_EQ(rp.report().skewedDependencies, 1u);
  }
}

TEST(ReplayRules, HeadToHeadRendezvousCycleIsBroken) {
  // Both ranks MPI_Send 2048 B (> S) first, then receive: completed in the real run, so the
  // library buffered them; the replay cuts a rendezvous dependency.
  //   rank 0: Send [0, 1000]    Recv [1000, 2000]
  //   rank 1: Send [100, 1100]  Recv [1100, 2100]
  Tb b(2);
  b.send(0, 0, 1000, 1, 2048);
  b.recv(0, 1000, 2000, 1, 2048);
  b.send(1, 100, 1100, 0, 2048);
  b.recv(1, 1100, 2100, 0, 2048);
  const Trace t = b.take();
  Replayer rp(t, simple());
  EXPECT_GE(rp.report().brokenCycles, 1u);
  expectIdentity(rp, t);
  ExecutionDag dag(rp);
  EXPECT_TRUE(dag.acyclic());
  EXPECT_EQ(criticalPath(rp).length, rp.predictedTime());
  // Receives: 0:1 waits 100 + 1100 − 1000 = 200 (local 800); 1:1: 0 + 1100 − 1100 = 0.
  // Sends: the surviving rendezvous dependency (if any) is t_v − λ − t_u ≤ 1100 − 1100 − 0 → 0.
  EXPECT_EQ(rp.measuredWait(0, 1), 200);
  EXPECT_EQ(rp.measuredWait(1, 1), 0);
  EXPECT_EQ(rp.measuredWait(0, 0), 0);
  EXPECT_EQ(rp.measuredWait(1, 0), 0);

  // Rank 1 starts at once (1:c0): whichever send kept its dependency, it is satisfied
  // (0:0: max(0, 1000 − 1100) = 0; 1:0: max(0, 1000 − 1100) = 0), so
  //   0:0 [0, 1000], 1:0 [0, 1000],
  //   0:1 X' = max(1000, 0 + 1100) + 800 = 1900, 1:1 X' = max(1000, 0 + 1100) + 1000 = 2100.
  ASSERT_TRUE(rp.add(zeroComp(1, 0)));
  EXPECT_TRUE(callIs(rp, 0, 0, 0, 1000, 0));
  EXPECT_TRUE(callIs(rp, 1, 0, 0, 1000, 0));
  EXPECT_TRUE(callIs(rp, 0, 1, 1000, 1900, 100));
  EXPECT_TRUE(callIs(rp, 1, 1, 1000, 2100, 100));
}

// ---- §1 critical path ----------------------------------------------------------------------

TEST(ReplayRules, CriticalPathOfALateSender) {
  //   rank 0: Send [5000, 5100]    rank 1: Recv [1000, 6300]
  // Recv waits 5000 + 1100 − 1000 = 5100, local 200; T = 6300.
  Tb b(2);
  b.send(0, 5000, 5100, 1, 64);
  b.recv(1, 1000, 6300, 0, 64);
  const Trace t = b.take();
  Replayer rp(t, simple());
  {
    const CriticalPath cp = criticalPath(rp);
    EXPECT_EQ(cp.length, rp.predictedTime());
    EXPECT_EQ(cp.length, 6300);
    // source → 0:c0 (5000) → enter(0:0) → message edge (λ + local = 1300) → leave(1:0).
    EXPECT_EQ(cp.callIds, (std::vector<std::string>{"0:0", "1:0"}));
    ASSERT_EQ(cp.segments.size(), 2u);
    EXPECT_EQ(cp.segments[0].kind, CriticalSegment::Kind::Computation);
    EXPECT_EQ(cp.segments[0].id(), "0:c0");
    EXPECT_EQ(cp.segments[0].end, 5000);
    EXPECT_EQ(cp.segments[1].kind, CriticalSegment::Kind::Message);
    EXPECT_EQ(cp.segments[1].id(), "1:0");
    EXPECT_EQ(cp.segments[1].fromRank, 0u);
    EXPECT_EQ(cp.segments[1].fromIndex, 0u);
    EXPECT_EQ(cp.segments[1].begin, 5000);
    EXPECT_EQ(cp.segments[1].end, 6300);
  }
  // The receive does not wait: rank 0 is now the last (5100): 0:c0 then the send's local cost.
  ASSERT_TRUE(rp.add(zeroWait(1, 0)));
  {
    const CriticalPath cp = criticalPath(rp);
    EXPECT_EQ(cp.length, 5100);
    EXPECT_EQ(cp.length, rp.predictedTime());
    EXPECT_EQ(cp.callIds, (std::vector<std::string>{"0:0"}));
  }
  // The sender computes nothing: Recv X' = max(1000, 0 + 1100) + 200 = 1300 — the message edge
  // (0 + 1100 + 200) still beats program order (1000 + 200).
  ASSERT_TRUE(rp.setHypotheses({zeroComp(0, 0)}));
  {
    const CriticalPath cp = criticalPath(rp);
    EXPECT_EQ(cp.length, 1300);
    EXPECT_EQ(cp.length, rp.predictedTime());
    EXPECT_EQ(cp.callIds, (std::vector<std::string>{"0:0", "1:0"}));
  }
}

TEST(ReplayRules, CriticalPathTiePrefersProgramOrder) {
  // The receive is called exactly when the message arrives: 6100 = 5000 + 1100. Both paths to
  // its leave are 6300; program order wins, so the send is not on the path.
  Tb b(2);
  b.send(0, 5000, 5100, 1, 64);
  b.recv(1, 6100, 6300, 0, 64);
  const Trace t = b.take();
  Replayer rp(t, simple());
  EXPECT_EQ(rp.measuredWait(1, 0), 0);
  const CriticalPath cp = criticalPath(rp);
  EXPECT_EQ(cp.length, 6300);
  EXPECT_EQ(cp.callIds, (std::vector<std::string>{"1:0"}));
  ASSERT_EQ(cp.segments.size(), 2u);
  EXPECT_EQ(cp.segments[0].id(), "1:c0");
  EXPECT_EQ(cp.segments[1].kind, CriticalSegment::Kind::Call);
}

TEST(ReplayRules, CriticalPathOfTheChain) {
  const Trace t = chain();
  Replayer rp(t, simple());
  const CriticalPath cp = criticalPath(rp);
  EXPECT_EQ(cp.length, 4900);
  // Each message edge contributes the partner's call and the waiting call.
  EXPECT_EQ(cp.callIds, (std::vector<std::string>{"0:0", "1:0", "1:1", "2:0", "2:1", "3:0"}));
}

// ---- §6 incremental add/remove equals a fresh replay ---------------------------------------

// Three ranks, two PRGN steps, every kind of call (times are plausible, not derived).
//   step 0: Sendrecv ring (0→1 512 B, 1→2 2048 B, 2→0 800 B), Allreduce
//   step 1: 0 → 2 Isend 3000 B / Irecv + Wait; 1 → 0 Isend 100 B / Irecv + Waitall;
//           2 → 1 Send/Recv 1200 B; Barrier
//   then:   Bcast (root 0), Reduce (root 2), rank 0 computes until 13000.
// Calls per rank: 0 Sendrecv, 1 Allreduce, 2-4 step-1 p2p, 5 Barrier, 6 Bcast, 7 Reduce.
Trace kitchenSink() {
  Tb b(3);
  // rank 0
  b.open(0, 100, "PRGN_it");
  b.sendrecv(0, 1000, 2500, 1, 512, 2, 800);
  b.coll(0, 3000, 5200, MpiOp::Allreduce);
  b.close(0, 5200, "PRGN_it");
  b.open(0, 5300, "PRGN_it");
  b.irecv(0, 5400, 5450, 1);
  b.isend(0, 5450, 5500, 2, 3000, 2);
  b.wait(0, 7000, 9000, {{false, 1, 1, 100}, {true, 2}});
  b.coll(0, 9500, 11100, MpiOp::Barrier);
  b.close(0, 11100, "PRGN_it");
  b.coll(0, 11500, 11600, MpiOp::Bcast, 0);
  b.coll(0, 12000, 12100, MpiOp::Reduce, 2);
  b.state(0, 12100, 13000, "post");
  // rank 1
  b.open(1, 100, "PRGN_it");
  b.sendrecv(1, 2000, 3500, 2, 2048, 0, 512);
  b.coll(1, 5000, 5200, MpiOp::Allreduce);
  b.close(1, 5200, "PRGN_it");
  b.open(1, 5300, "PRGN_it");
  b.isend(1, 6000, 6050, 0, 100, 3);
  b.wait(1, 8000, 8100, {{true, 3}}, "MPI_Wait");
  b.recv(1, 8100, 10000, 2, 1200);
  b.coll(1, 10500, 11100, MpiOp::Barrier);
  b.close(1, 11100, "PRGN_it");
  b.coll(1, 11200, 11700, MpiOp::Bcast, 0);
  b.coll(1, 12000, 12100, MpiOp::Reduce, 2);
  // rank 2
  b.open(2, 100, "PRGN_it");
  b.sendrecv(2, 1500, 4000, 0, 800, 1, 2048);
  b.coll(2, 4500, 5200, MpiOp::Allreduce);
  b.close(2, 5200, "PRGN_it");
  b.open(2, 5300, "PRGN_it");
  b.irecv(2, 5400, 5450, 4);
  b.send(2, 6000, 9500, 1, 1200);
  b.wait(2, 9500, 9600, {{false, 4, 0, 3000}}, "MPI_Wait");
  b.coll(2, 10800, 11100, MpiOp::Barrier);
  b.close(2, 11100, "PRGN_it");
  b.coll(2, 11300, 11700, MpiOp::Bcast, 0);
  b.coll(2, 11800, 12200, MpiOp::Reduce, 2);
  return b.take();
}

TEST(ReplayRules, IncrementalEqualsFreshReplay) {
  const Trace t = kitchenSink();
  ASSERT_EQ(t.steps.size(), 2u);
  ASSERT_EQ(t.messageStats.matched, 6u);
  const std::vector<Hypothesis> all = {
      zeroWait(2, 0),  zeroWait(0, 4),  zeroWait(1, 4), zeroWait(2, 7), zeroWait(0, 5),
      zeroCall(1, 0),  zeroCall(2, 3),  zeroCall(0, 6), zeroComp(0, 4), zeroComp(1, 1),
      zeroComp(0, 8),  zeroComp(2, 5),  balanceCompute(0), balanceCompute(1),
      balanceVolume(0), balanceVolume(1)};
  for (CostMode costs : {CostMode::Measured, CostMode::Model}) {
    const Scenario base = scenarioOf(slopedParams(), costs);
    Replayer inc(t, base);
    if (costs == CostMode::Measured) expectIdentity(inc, t);
    auto compare = [&](const std::string& what) {
      Scenario s = base;
      s.hypotheses = inc.scenario().hypotheses;
      Replayer fresh(t, s);
      expectSameReplay(inc, fresh, std::string(costModeName(costs)) + ": " + what);
    };
    // Each kind on its own: add, compare, remove, compare with the empty scenario.
    for (const Hypothesis& h : all) {
      ASSERT_TRUE(inc.add(h)) << h.toString();
      compare("after add " + h.toString());
      ASSERT_TRUE(inc.remove(h)) << h.toString();
      compare("after remove " + h.toString());
    }
    // All of them, one after another, then removed in another order.
    for (const Hypothesis& h : all) {
      ASSERT_TRUE(inc.add(h));
      compare("accumulating " + h.toString());
    }
    for (std::size_t i = 0; i < all.size(); ++i) {
      const Hypothesis& h = all[(i * 7) % all.size()];  // 7 is coprime with 16: a permutation
      ASSERT_TRUE(inc.remove(h)) << h.toString();
      compare("removing " + h.toString());
    }
    EXPECT_TRUE(inc.scenario().hypotheses.empty());
    Replayer empty(t, base);
    expectSameReplay(inc, empty, "all removed");
    // setHypotheses equals the fresh replay too.
    ASSERT_TRUE(inc.setHypotheses(all));
    compare("setHypotheses");
  }
}

// ---- §5 scenario JSON and event references --------------------------------------------------

TEST(ReplayRules, ScenarioJsonRoundTripIsCanonical) {
  const std::vector<Hypothesis> hs = {zeroWait(1, 5), zeroComp(0, 3), balanceCompute(2),
                                      balanceVolume(2), zeroCall(3, 17)};
  Scenario s = scenarioOf(slopedParams(), CostMode::Model, hs);
  const std::string json = s.toJson();
  Scenario back;
  std::string error;
  ASSERT_TRUE(scenarioFromJson(json, "scenario.json", back, &error)) << error;
  EXPECT_EQ(back.toJson(), json);
  EXPECT_EQ(back.costs, CostMode::Model);
  ASSERT_NE(back.model, nullptr);
  EXPECT_EQ(dynamic_cast<const LogGpsModel&>(*back.model).params(), slopedParams());
  Scenario sorted = s;
  sorted.normalize();
  EXPECT_EQ(back.hypotheses, sorted.hypotheses);
  EXPECT_EQ(back.hypotheses.size(), hs.size());

  // Order-independent: reversed, with a duplicate and with an unused field set, same JSON.
  std::vector<Hypothesis> shuffled(hs.rbegin(), hs.rend());
  shuffled.push_back(zeroWait(1, 5));
  Hypothesis noisy = balanceVolume(2);
  noisy.event = EventRef{7, 7, true};  // ignored for a balance hypothesis
  shuffled.push_back(noisy);
  Hypothesis noisy2 = zeroComp(0, 3);
  noisy2.step = 9;  // ignored for a zero-event hypothesis
  shuffled.insert(shuffled.begin(), noisy2);
  EXPECT_EQ(scenarioOf(slopedParams(), CostMode::Model, shuffled).toJson(), json);

  // The hypotheses in the JSON text appear in canonical order whatever the input order.
  const std::string reordered = R"({"perwiz_scenario": 1, "costs": "model", "hypotheses": [
      {"kind": "balance-volume", "step": 2}, {"kind": "zero-event", "event": "3:17"},
      {"kind": "zero-wait", "event": "1:5"}, {"kind": "zero-event", "event": "0:c3"},
      {"kind": "balance-compute", "step": 2}, {"kind": "zero-wait", "event": "1:5"}]})";
  Scenario parsed;
  ASSERT_TRUE(scenarioFromJson(reordered, "r.json", parsed, &error)) << error;
  parsed.model = s.model;
  EXPECT_EQ(parsed.toJson(), json);

  // A scenario with a preset name as its model.
  Scenario preset;
  ASSERT_TRUE(scenarioFromJson(R"({"perwiz_scenario": 1, "model": "ethernet-table5"})", "p.json",
                               preset, &error))
      << error;
  ASSERT_NE(preset.model, nullptr);
  EXPECT_EQ(preset.model->name(), "ethernet-table5");
  EXPECT_EQ(preset.costs, CostMode::Measured);

  // Errors name the source.
  Scenario bad;
  EXPECT_FALSE(scenarioFromJson(R"({"perwiz_scenario": 1, "hypotheses": [{"kind": "zero-wait", "event": "0:c1"}]})",
                                "z.json", bad, &error));
  EXPECT_EQ(error.rfind("z.json: ", 0), 0u) << error;
  EXPECT_FALSE(scenarioFromJson(R"({"perwiz_scenario": 1, "hypotheses": [{"kind": "zero-all", "event": "0:1"}]})",
                                "k.json", bad, &error));
  EXPECT_FALSE(scenarioFromJson(R"({"perwiz_scenario": 1, "typo": 2})", "u.json", bad, &error));
  EXPECT_FALSE(scenarioFromJson(R"({"perwiz_scenario": 2})", "v.json", bad, &error));
  EXPECT_FALSE(scenarioFromJson(R"({"perwiz_scenario": 1, "costs": "fast"})", "c.json", bad, &error));
  EXPECT_FALSE(scenarioFromJson("[1, 2]", "a.json", bad, &error));
}

TEST(ReplayRules, EventRefParseAndFormat) {
  EventRef e;
  ASSERT_TRUE(parseEventRef("3:17", e));
  EXPECT_EQ(e, (EventRef{3, 17, false}));
  EXPECT_EQ(e.toString(), "3:17");
  ASSERT_TRUE(parseEventRef("3:c4", e));
  EXPECT_EQ(e, (EventRef{3, 4, true}));
  EXPECT_EQ(e.toString(), "3:c4");
  ASSERT_TRUE(parseEventRef("0:c0", e));
  EXPECT_EQ(e, (EventRef{0, 0, true}));
  EXPECT_EQ((EventRef{12, 0, false}).toString(), "12:0");
  for (const char* bad : {"", "3", ":4", "3:", "3:c", "c3:4", "a:1", "3:x", "3:-1", "-1:2", "3:4x",
                          "3:c4c", " 3:4", "3:4 ", "3::4", "3:C4", "3:+4", "3:cc4", "99999999999:1",
                          "3:17:2", "3.0:1"}) {
    EventRef out{9, 9, false};
    EXPECT_FALSE(parseEventRef(bad, out)) << '"' << bad << '"';
  }
  // Hypothesis text forms.
  EXPECT_EQ(zeroWait(1, 5).toString(), "zero-wait 1:5");
  EXPECT_EQ(zeroComp(0, 3).toString(), "zero-event 0:c3");
  EXPECT_EQ(balanceCompute(2).toString(), "balance-compute step 2");
  EXPECT_EQ(balanceVolume(0).toString(), "balance-volume step 0");
}

// The predicted trace L' stays in time order when the prediction lengthens a call: a state
// entered at the instant the call left (measured) must start at its predicted leave, not at
// "enter + measured duration" inside the longer predicted call. (Model mode prices the barrier
// far above its measured 10 ns; the OTF2 writer refuses a trace that goes backwards.)
TEST(ReplayRules, PredictedTraceStaysOrderedWhenACallGrows) {
  test::Tb b(2);
  for (test::Rank r = 0; r < 2; ++r) {
    b.coll(r, 1000, 1010, MpiOp::Barrier);
    b.state(r, 1010, 5000, "PRGN_step");  // entered as the barrier returns
  }
  const Trace t = b.take();
  Replayer rp(t, scenarioOf(simpleParams(), CostMode::Model));
  const Trace lp = rp.predictedTrace();
  for (std::uint32_t r = 0; r < 2; ++r) {
    const RankTrace& rt = lp.ranks[r];  // rank 0 also holds the scenario's point event
    std::uint32_t barrier = kNone32, state = kNone32;
    for (std::uint32_t e = 0; e < rt.size(); ++e) {
      const std::string& name = lp.functions[rt.function[e]].name;
      if (name == "MPI_Barrier") barrier = e;
      if (name == "PRGN_step") state = e;
    }
    ASSERT_NE(barrier, kNone32);
    ASSERT_NE(state, kNone32);
    EXPECT_GT(rt.leave[barrier] - rt.enter[barrier], 10);  // the model made it longer ...
    EXPECT_EQ(rt.enter[state], rt.leave[barrier]);         // ... and the state starts as it returns
    EXPECT_GE(rt.leave[state], rt.enter[state]);
  }
  EXPECT_NO_THROW(saveTrace(lp, (test::freshDir("grown-call") / "lp.otf2").string()));
}
