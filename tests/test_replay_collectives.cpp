// The replay rules of docs/model.md, one hand-computed scenario at a time (issue #3).
// Collectives (§2.5): who waits for whom, SMPI's queues and trees, measured and model costs.
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
  EXPECT_EQ(rp.measuredWait(1, 0), 3000 - 1000);                          // waits for rank 0
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
