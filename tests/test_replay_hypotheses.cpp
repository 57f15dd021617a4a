// The replay rules of docs/model.md, one hand-computed scenario at a time (issue #3).
// Hypotheses (§5, §6): zero-event, balance-compute, balance-volume, incremental add/remove equal to a fresh replay,
// scenario JSON and event references, the predicted trace.
//
// Every trace here is built by hand (2-4 ranks) and every expected number is derived in the
// test from the documented formula, with the arithmetic in a comment next to it. Unless a test
// says otherwise the network is the small "simple" LogGPS model:
//   L = 1000 ns, o = 100 ns, S = 1024 B, g = G = 0, s = 0
//   => o_s(k) = o_r(k) = o = 100, λ(k) = o_s(k) + L = 1100 for eager messages and
//      λ(k) = o_s(0) + L = 1100 for the REQ of a rendezvous message (§2.2).
// Notation as in the doc: E, X measured enter/leave, E', X' predicted; wait = X − E − local.
#include "replay_rules_support.h"

using namespace perwiz;
using namespace perwiz::replay_rules;

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
  EXPECT_NE(rp.validate(zeroCall(2, 0)), "");     // 2 ranks
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
    const TimeNs inStep =
        (rp.predicted(r, 0).enter - 500) + (rp.predicted(r, 1).enter - rp.predicted(r, 0).leave - 300);
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
        ASSERT_EQ(all[std::size_t(k) * t.rankCount() + r], one[r])
            << "seed " << seed << ", step " << k << ", rank " << r;
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
  const std::vector<Hypothesis> all = {zeroWait(2, 0),    zeroWait(0, 4),    zeroWait(1, 4),   zeroWait(2, 7),
                                       zeroWait(0, 5),    zeroCall(1, 0),    zeroCall(2, 3),   zeroCall(0, 6),
                                       zeroComp(0, 4),    zeroComp(1, 1),    zeroComp(0, 8),   zeroComp(2, 5),
                                       balanceCompute(0), balanceCompute(1), balanceVolume(0), balanceVolume(1)};
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
  const std::vector<Hypothesis> hs = {zeroWait(1, 5), zeroComp(0, 3), balanceCompute(2), balanceVolume(2),
                                      zeroCall(3, 17)};
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
  ASSERT_TRUE(scenarioFromJson(R"({"perwiz_scenario": 1, "model": "ethernet-table5"})", "p.json", preset, &error))
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
  for (const char* bad :
       {"",      "3",    ":4",   "3:",   "3:c",  "c3:4", "a:1",   "3:x",           "3:-1",   "-1:2", "3:4x",
        "3:c4c", " 3:4", "3:4 ", "3::4", "3:C4", "3:+4", "3:cc4", "99999999999:1", "3:17:2", "3.0:1"}) {
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
