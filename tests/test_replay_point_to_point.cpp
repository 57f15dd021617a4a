// The replay rules of docs/model.md, one hand-computed scenario at a time (issue #3).
// Point-to-point rules: eager and rendezvous on both sides of S (§2.1, §2.2), late-sender chains and the domino effect,
// Sendrecv rings (§2.3), Isend/Irecv/Waitall (§2.4), model mode with the Japanese paper's Table 5 (§3), clock skew and
// cycles (§2.6, §2.7), the critical path (§1).
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

// ---- §2.1 / §2.2: eager (k ≤ S) and rendezvous (k > S) on both sides of S ------------------

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
  EXPECT_EQ(m.receiveDelay(CommRole::BlockingRecv, 1001), 100);  // o_s(1001)
  EXPECT_EQ(m.receiveDelay(CommRole::IrecvComplete, 1001), 100);
  EXPECT_EQ(m.roleCost(CommRole::BlockingRecv, 1001), 1600);  // 1000 + 0.5·1000 + 100
  EXPECT_EQ(m.roleCost(CommRole::IrecvComplete, 1001), 1600);
  EXPECT_EQ(m.roleCost(CommRole::BlockingSend, 1001), 100);  // o_s: the send returns
  EXPECT_EQ(m.arrivalDelay(1001), 1600);                     // o_s + wire: unchanged (where the data would be)
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
