// The what-if advisor (issue #4): domino paths (paper Fig. 3 and Fig. 4), the ranking of single
// wait zeroings and the longest-wait choice, the step table (Table 3) and the F3 lower bounds
// (Table 1), plus cancellation, progress, thread independence and a property test on random
// traces against fresh replays.
//
// Every expected number is derived by hand from docs/model.md with the arithmetic next to it.
// Hand-built traces use the small "simple" LogGPS model of the replay-rule tests (replay_rules_support.h):
//   L = 1000 ns, o = 100 ns, S = 1024 B  =>  λ(k) = o + L = 1100 ns for the eager 8-byte messages.
// Notation: E, X measured enter/leave, E', X' predicted; wait = X − E − local (§2); a receive's
// ready time is the sender's enter + λ; a barrier member's ready time is the latest member enter.
#include "perwiz/advisor.h"
#include "perwiz/critical_path.h"
#include "perwiz/execution_dag.h"
#include "perwiz/generator.h"
#include "perwiz/process_group.h"
#include "perwiz/replay.h"
#include "perwiz/scenario.h"
#include "perwiz/trace_builder.h"

#include "test_traces.h"
#include "thread_group.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <limits>
#include <memory>
#include <ostream>
#include <random>
#include <set>
#include <string>
#include <vector>

namespace perwiz {
// Readable EventRef values in gtest messages ("1:0").
void PrintTo(const EventRef& e, std::ostream* os) { *os << e.toString(); }
}  // namespace perwiz

using namespace perwiz;

namespace {

using Rank = std::uint32_t;

using test::Tb;

// L = 1000 ns, o = 100 ns, S = 1024 B: λ(k) = o + L = 1100 ns for an eager message.
Scenario simple(std::vector<Hypothesis> hs = {}) { return test::simpleScenario(std::move(hs)); }

EventRef ev(Rank r, std::uint32_t i) { return EventRef{r, i, false}; }
Hypothesis zeroWait(const EventRef& e) { return {HypothesisKind::ZeroWait, e, 0}; }
Hypothesis balanceCompute(std::uint32_t step) { return {HypothesisKind::BalanceCompute, {}, step}; }

// T of a fresh Replayer: the base scenario plus the given hypotheses.
TimeNs freshT(const Trace& t, const Scenario& base, std::vector<Hypothesis> hs) {
  Scenario s = base;
  s.hypotheses.insert(s.hypotheses.end(), hs.begin(), hs.end());
  return Replayer(t, s).predictedTime();
}

AdvisorOptions opts(unsigned threads = 1, std::size_t top = 10) {
  AdvisorOptions o;
  o.threads = threads;
  o.topCandidates = top;
  return o;
}

// ---- the paper's Fig. 4 ------------------------------------------------------------------
//
// p, q, r = ranks 0, 1, 2. Figure numbering (1-based per process) → PerWiz ids (0-based calls):
//   e_{p,1} = 0:0  p's Send to q            [6000, 6100]   (6000 ns of computation before)
//   e_{q,1} = 1:0  q's Recv from p          [1000, 7200]
//   e_{q,2} = 1:1  q's MPI_Comm_rank        [7700, 7800]   (500 ns computation before)
//   e_{q,3} = 1:2  q's Send to r            [8000, 8100]   (200 ns computation before)
//   e_{r,1} = 2:0  r's Recv from q          [2000, 9200], then 4000 ns of computation
// Measured: wait(1:0) = 6000 + 1100 − 1000 = 6100 (local 100),
//           wait(2:0) = 8000 + 1100 − 2000 = 7100 (local 100) — the longest wait;
//           rank ends p 6100, q 8100, r 9200 + 4000 = 13200 = T.
Trace figure4() {
  Tb b(3);
  b.send(0, 6000, 6100, 1);
  b.recv(1, 1000, 7200, 0);
  b.call(1, 7700, 7800, "MPI_Comm_rank");
  b.send(1, 8000, 8100, 2);
  b.recv(2, 2000, 9200, 1);
  b.state(2, 9200, 13200, "work");
  return b.take();
}

}  // namespace

TEST(Advisor, Figure4DominoPath) {
  const Trace t = figure4();
  Replayer base(t, simple());
  ASSERT_EQ(base.predictedTime(), 13200);
  ASSERT_EQ(base.predicted(1, 0).wait, 6100);
  ASSERT_EQ(base.predicted(2, 0).wait, 7100);

  // zero-wait e_{r,1} (2:0): X' = E + local = 2000 + 100 = 2100, r ends 2100 + 4000 = 6100;
  //   T = max(p 6100, q 8100, r 6100) = 8100.
  const TimeNs tR1 = 8100;
  // zero-wait e_{q,1} (1:0): X' = 1000 + 100 = 1100; 1:1 E' = 1100 + 500 = 1600, X' = 1700;
  //   1:2 E' = 1700 + 200 = 1900, X' = 2000; 2:0 ready = 1900 + 1100 = 3000 > 2000, so
  //   X' = 3000 + 100 = 3100 and r ends 3100 + 4000 = 7100; T = max(6100, 2000, 7100) = 7100.
  const TimeNs tQ1 = 7100;
  ASSERT_LE(tQ1, tR1);  // the domino: zeroing the earlier, shorter wait gains more
  EXPECT_EQ(freshT(t, simple(), {zeroWait(ev(2, 0))}), tR1);
  EXPECT_EQ(freshT(t, simple(), {zeroWait(ev(1, 0))}), tQ1);

  // Fig. 3 from r's end: the best zeroing on r is e_{r,1} (T 8100); it waited for e_{q,3};
  // on q up to e_{q,3} the best is e_{q,1} (7100 ≤ 8100), which waited for e_{p,1}; p has no
  // wait: stop. The path is {e_{p,1}, e_{q,1}, e_{q,3}, e_{r,1}} with weight 7100.
  const DominoResult d = dominoPaths(base, opts());
  EXPECT_EQ(d.predictedNs, tQ1);
  EXPECT_FALSE(d.truncated);
  ASSERT_FALSE(d.paths.empty());
  // By return time (cause before effect): e_{p,1} leaves 6100, e_{q,1} 7200, e_{q,3} 8100,
  // e_{r,1} 9200 → 0:0, 1:0, 1:2, 2:0 — the figure's own order.
  const std::vector<EventRef> expected = {ev(0, 0), ev(1, 0), ev(1, 2), ev(2, 0)};
  EXPECT_EQ(d.paths[0].events, expected);
  EXPECT_EQ(d.paths[0].zeroed, ev(1, 0));  // the earliest waiting event of the chain
  EXPECT_EQ(d.paths[0].predictedNs, tQ1);
  EXPECT_EQ(d.paths[0].fromRank, 2u);
  // Starting from q's own end gives the shorter domino {e_{p,1}, e_{q,1}} with the same T
  // (Fig. 3 line 10 keeps every D_p of minimum weight); it is part of the full one and is
  // listed after it. p's end has no wait to start from.
  ASSERT_EQ(d.paths.size(), 2u);
  EXPECT_EQ(d.paths[1].events, (std::vector<EventRef>{ev(0, 0), ev(1, 0)}));  // leaves 6100, 7200
  EXPECT_EQ(d.paths[1].zeroed, ev(1, 0));
  EXPECT_EQ(d.paths[1].predictedNs, tQ1);
  EXPECT_EQ(d.paths[1].fromRank, 1u);

  // With room for one leaf only, the search stops after q's (r's is never reached): the result
  // is q's short path and says it was cut.
  AdvisorOptions capped = opts();
  capped.maxDominoPaths = 1;
  const DominoResult c = dominoPaths(base, capped);
  EXPECT_TRUE(c.truncated);
  ASSERT_EQ(c.paths.size(), 1u);
  EXPECT_EQ(c.paths[0].events, (std::vector<EventRef>{ev(0, 0), ev(1, 0)}));
  EXPECT_EQ(c.paths[0].fromRank, 1u);
  EXPECT_EQ(c.predictedNs, tQ1);

  // The same answer through advise(), with the longest-wait choice beside it.
  const Advice a = advise(base, opts());
  EXPECT_EQ(a.measuredNs, 13200);
  EXPECT_EQ(a.baseNs, 13200);
  EXPECT_EQ(a.domino.predictedNs, tQ1);
  ASSERT_FALSE(a.domino.paths.empty());
  EXPECT_EQ(a.domino.paths[0].events, expected);
  ASSERT_TRUE(a.hasLongestWait);
  EXPECT_EQ(a.longestWait.event, ev(2, 0));
  EXPECT_EQ(a.longestWait.waitNs, 7100);
  EXPECT_EQ(a.longestWait.predictedNs, tR1);
  // Ranking: 1:0 (T 7100) before 2:0 (T 8100); no other call waits.
  ASSERT_EQ(a.candidates.size(), 2u);
  EXPECT_EQ(a.candidates[0].event, ev(1, 0));
  EXPECT_EQ(a.candidates[0].waitNs, 6100);
  EXPECT_EQ(a.candidates[0].predictedNs, tQ1);
  EXPECT_EQ(a.candidates[1].event, ev(2, 0));
  EXPECT_EQ(a.candidates[1].waitNs, 7100);
  EXPECT_EQ(a.candidates[1].predictedNs, tR1);
  // No PRGN marker: no steps, no regions.
  EXPECT_TRUE(a.steps.empty());
  EXPECT_EQ(a.allStepsBalancedNs, 13200);
  EXPECT_TRUE(a.bounds.empty());
  EXPECT_FALSE(a.cancelled);
}

// ---- the longest wait is not worth fixing; the domino path is -----------------------------

namespace {

// rank 0: Send to 2 [3000, 3100]  Send to 1 [10000, 10100]       (ends 10100)
// rank 1: Recv from 0 [0, 11200]                                   (ends 11200)
// rank 2: Recv from 0 [500, 4200], then 10000 ns of computation    (ends 14200 = T)
// Waits: 1:0 = 10000 + 1100 − 0 = 11100 (local 100) — the longest, off the critical path;
//        2:0 = 3000 + 1100 − 500 = 3600 (local 100) — on it (rank 2 ends last).
Trace longestNotWorth() {
  Tb b(3);
  b.send(0, 3000, 3100, 2);
  b.send(0, 10000, 10100, 1);
  b.recv(1, 0, 11200, 0);
  b.recv(2, 500, 4200, 0);
  b.state(2, 4200, 14200, "work");
  return b.take();
}

}  // namespace

TEST(Advisor, LongestWaitNotWorthFixingDominoIs) {
  const Trace t = longestNotWorth();
  Replayer base(t, simple());
  ASSERT_EQ(base.predictedTime(), 14200);
  // zero-wait 1:0: rank 1 ends at 0 + 100 = 100; ranks 0 and 2 are unchanged: T = 14200.
  const TimeNs tLongest = 14200;
  // zero-wait 2:0: X' = 500 + 100 = 600, rank 2 ends 600 + 10000 = 10600;
  //   T = max(10100, 11200, 10600) = 11200 (now rank 1 ends last).
  const TimeNs tDomino = 11200;

  const Advice a = advise(base, opts());
  ASSERT_TRUE(a.hasLongestWait);
  EXPECT_EQ(a.longestWait.event, ev(1, 0));
  EXPECT_EQ(a.longestWait.waitNs, 11100);
  EXPECT_EQ(a.longestWait.predictedNs, tLongest);
  EXPECT_EQ(a.longestWait.predictedNs, a.measuredNs);
  EXPECT_EQ(a.domino.predictedNs, tDomino);
  EXPECT_LT(a.domino.predictedNs, a.measuredNs);
  ASSERT_EQ(a.domino.paths.size(), 1u);
  // From rank 2's end: 2:0 waited for 0:0; rank 0 has no wait. By return time: 0:0 leaves at
  // 3100, 2:0 at 4200. Ranks 0 and 1 have no critical-path wait to start a path from.
  EXPECT_EQ(a.domino.paths[0].events, (std::vector<EventRef>{ev(0, 0), ev(2, 0)}));
  EXPECT_EQ(a.domino.paths[0].zeroed, ev(2, 0));
  EXPECT_EQ(a.domino.paths[0].fromRank, 2u);

  // Independently, by replay.
  Replayer longest(t, simple({zeroWait(a.longestWait.event)}));
  EXPECT_EQ(longest.predictedTime(), tLongest);
  EXPECT_EQ(longest.predictedRankEnd(1), 100);
  Replayer domino(t, simple({zeroWait(a.domino.paths[0].zeroed)}));
  EXPECT_EQ(domino.predictedTime(), tDomino);
  EXPECT_EQ(domino.predictedRankEnd(2), 10600);
}

TEST(Advisor, CandidatesRanking) {
  const Trace t = longestNotWorth();
  Replayer base(t, simple());
  // Only critical-path waits can shorten T: 2:0 (T 11200, see above) first; 1:0's wait is off
  // the critical path, so it is listed with T = base T = 14200 although it is the longest.
  const Advice a = advise(base, opts());
  ASSERT_EQ(a.candidates.size(), 2u);
  EXPECT_EQ(a.candidates[0].event, ev(2, 0));
  EXPECT_EQ(a.candidates[0].waitNs, 3600);
  EXPECT_EQ(a.candidates[0].predictedNs, 11200);
  EXPECT_EQ(a.candidates[1].event, ev(1, 0));
  EXPECT_EQ(a.candidates[1].waitNs, 11100);
  EXPECT_EQ(a.candidates[1].predictedNs, 14200);
  // The list is cut at topCandidates, best first.
  const Advice one = advise(base, opts(1, 1));
  ASSERT_EQ(one.candidates.size(), 1u);
  EXPECT_EQ(one.candidates[0].event, ev(2, 0));
  EXPECT_EQ(one.candidates[0].predictedNs, 11200);

  // dominoPaths() on its own fills the same list and longest-wait choice.
  std::vector<WaitCandidate> cands;
  WaitCandidate lw;
  std::uint64_t predictions = 0;
  const DominoResult d = dominoPaths(base, opts(), &cands, &lw, &predictions);
  EXPECT_EQ(d.predictedNs, 11200);
  ASSERT_EQ(cands.size(), 2u);
  EXPECT_EQ(cands[0].event, ev(2, 0));
  EXPECT_EQ(cands[1].event, ev(1, 0));
  EXPECT_EQ(lw.event, ev(1, 0));
  EXPECT_EQ(lw.predictedNs, 14200);
  EXPECT_GT(predictions, 0u);
}

// Equal T: the longer wait first. Two independent pairs, both ending at T = 5100:
//   rank 0: Send→1 [1500, 1600];  rank 1: Recv←0 [0, 2700] (wait 1500 + 1100 = 2600, local 100),
//           then 2400 ns of computation (ends 5100)
//   rank 2: Send→3 [3000, 3100];  rank 3: Recv←2 [1000, 4200] (wait 3000 + 1100 − 1000 = 3100,
//           local 100), then 900 ns of computation (ends 5100)
// Zeroing either wait leaves the other pair ending at 5100: T = 5100 for both, so no domino
// path; the list is ordered by wait: 3:0 (3100) before 1:0 (2600) although 1:0 < 3:0 by id.
TEST(Advisor, CandidatesTieOrder) {
  Tb b(4);
  b.send(0, 1500, 1600, 1);
  b.recv(1, 0, 2700, 0);
  b.state(1, 2700, 5100, "work");
  b.send(2, 3000, 3100, 3);
  b.recv(3, 1000, 4200, 2);
  b.state(3, 4200, 5100, "work");
  const Trace t = b.take();
  Replayer base(t, simple());
  ASSERT_EQ(base.predictedTime(), 5100);
  const Advice a = advise(base, opts());
  ASSERT_EQ(a.candidates.size(), 2u);
  EXPECT_EQ(a.candidates[0].event, ev(3, 0));
  EXPECT_EQ(a.candidates[0].waitNs, 3100);
  EXPECT_EQ(a.candidates[0].predictedNs, 5100);
  EXPECT_EQ(a.candidates[1].event, ev(1, 0));
  EXPECT_EQ(a.candidates[1].waitNs, 2600);
  EXPECT_EQ(a.candidates[1].predictedNs, 5100);
  EXPECT_TRUE(a.domino.paths.empty());
  EXPECT_EQ(a.domino.predictedNs, 5100);
  // The longest-wait choice is replayed all the same and gains nothing.
  EXPECT_EQ(a.longestWait.event, ev(3, 0));
  EXPECT_EQ(a.longestWait.predictedNs, 5100);
}

// ---- step table and lower bounds (Table 3, Table 1) --------------------------------------

namespace {

// Two ranks, two PRGN_step steps (one region "PRGN_step"), 8-byte eager messages, barriers.
// rank 0: [0, 200] computation outside the region
//   PRGN [200, 4800]: comp 1000 | 0:0 Send→1 [1200, 1500] | comp 500 | 0:1 Recv←1 [2000, 3900]
//                     | comp 100 | 0:2 Barrier [4000, 4650] | comp 150
//   [4800, 5000] computation outside
//   PRGN [5000, 7000]: comp 1000 | 0:3 Barrier [6000, 6900] | comp 100          (ends 7000)
// rank 1: [0, 100] computation outside
//   PRGN [100, 4700]: comp 200 | 1:0 Recv←0 [300, 2500] | comp 100 | 1:1 Send→0 [2600, 2700]
//                     | comp 1800 | 1:2 Barrier [4500, 4700]
//   [4700, 5000] computation outside
//   PRGN [5000, 7200]: comp 1800 | 1:3 Barrier [6800, 7000] | comp 200          (ends 7200 = T)
// Measured decomposition (§2):
//   1:0 ready = 1200 + 1100 = 2300: wait 2000, local 200;   0:0, 1:1 sends: wait 0, local 300, 100
//   0:1 ready = 2600 + 1100 = 3700: wait 1700, local 200
//   Barrier 1 gather = max(4000, 4500) = 4500: 0:2 wait 500, local 150; 1:2 wait 0, local 200
//   Barrier 2 gather = max(6000, 6800) = 6800: 0:3 wait 800, local 100; 1:3 wait 0, local 200
Trace twoSteps() {
  Tb b(2);
  b.open(0, 200, "PRGN_step");
  b.send(0, 1200, 1500, 1);
  b.recv(0, 2000, 3900, 1);
  b.barrier(0, 4000, 4650);
  b.close(0, 4800, "PRGN_step");
  b.open(0, 5000, "PRGN_step");
  b.barrier(0, 6000, 6900);
  b.close(0, 7000, "PRGN_step");

  b.open(1, 100, "PRGN_step");
  b.recv(1, 300, 2500, 0);
  b.send(1, 2600, 2700, 0);
  b.barrier(1, 4500, 4700);
  b.close(1, 4700, "PRGN_step");
  b.open(1, 5000, "PRGN_step");
  b.barrier(1, 6800, 7000);
  b.close(1, 7200, "PRGN_step");
  return b.take();
}

}  // namespace

TEST(Advisor, StepTableByHand) {
  const Trace t = twoSteps();
  ASSERT_EQ(t.steps.size(), 2u);
  Replayer base(t, simple());
  ASSERT_EQ(base.predictedTime(), 7200);
  ASSERT_EQ(base.predicted(0, 1).wait, 1700);
  ASSERT_EQ(base.predicted(0, 3).wait, 800);

  TimeNs all = 0;
  const std::vector<StepRow> rows = stepTable(base, opts(), &all);
  ASSERT_EQ(rows.size(), 2u);

  // Step 0, computation inside the step's span:
  //   rank 0 [200, 4800]: 1000 + 500 + 100 + 150 = 1750;  rank 1 [100, 4700]: 200 + 100 + 1800 = 2100
  //   mean 1925, max 2100, σ = sqrt((175² + 175²) / 2) = 175.
  EXPECT_EQ(rows[0].step, 0u);
  EXPECT_EQ(rows[0].ranks, 2u);
  EXPECT_EQ(rows[0].meanNs, 1925);
  EXPECT_EQ(rows[0].maxNs, 2100);
  EXPECT_EQ(rows[0].sigmaNs, 175);
  // balance-compute 0 (§5): each rank's parts scaled by 1925 / c_r, cumulative rounding:
  //   rank 0 (×1.1): prefixes 1000, 1500, 1600, 1750 → 1100, 1650, 1760, 1925:
  //     gaps 0:0 1200 + 100 = 1300, 0:1 500 + 50 = 550, 0:2 100 + 10 = 110, 0:3 1350 + 15 = 1365
  //   rank 1 (×11/12): prefixes 200, 300, 2100 → round(183.3) = 183, 275, 1925:
  //     gaps 1:0 300 − 17 = 283, 1:1 100 − 8 = 92, 1:2 1800 − 150 = 1650
  //   replay: 0:0 [1300, 1600]; 1:0 E' 283, ready 1300 + 1100 = 2400, X' 2600; 1:1 [2692, 2792];
  //     0:1 E' 1600 + 550 = 2150, ready 2692 + 1100 = 3792, X' 3992;
  //     Barrier 1: E' 3992 + 110 = 4102 and 2792 + 1650 = 4442: X' 4442 + 150 = 4592, 4442 + 200 = 4642;
  //     Barrier 2: E' 4592 + 1365 = 5957 and 4642 + 2100 = 6742: X' 6842, 6942;
  //     ends 6842 + 100 = 6942 and 6942 + 200 = 7142 → T = 7142.
  EXPECT_EQ(rows[0].predictedNs, 7142);

  // Step 1: rank 0 [5000, 7000]: 1000 + 100 = 1100;  rank 1 [5000, 7200]: 1800 + 200 = 2000
  //   mean 1550, max 2000, σ = 450.
  EXPECT_EQ(rows[1].step, 1u);
  EXPECT_EQ(rows[1].ranks, 2u);
  EXPECT_EQ(rows[1].meanNs, 1550);
  EXPECT_EQ(rows[1].maxNs, 2000);
  EXPECT_EQ(rows[1].sigmaNs, 450);
  // balance-compute 1: rank 0 (×1550/1100): prefixes 1000, 1100 → round(1409.1) = 1409, 1550:
  //     gaps 0:3 1350 + 409 = 1759, end 100 + 41 = 141
  //   rank 1 (×0.775): prefixes 1800, 2000 → 1395, 1550: gaps 1:3 2100 − 405 = 1695, end 200 − 45 = 155
  //   replay (step 0 as measured): Barrier 1 X' 4650, 4700;
  //     Barrier 2: E' 4650 + 1759 = 6409 and 4700 + 1695 = 6395: X' 6409 + 100 = 6509, 6609;
  //     ends 6509 + 141 = 6650 and 6609 + 155 = 6764 → T = 6764.
  EXPECT_EQ(rows[1].predictedNs, 6764);

  // Both steps balanced (the gap changes add up: 0:3 1350 + 15 + 409 = 1774):
  //   as step 0 up to Barrier 1 (X' 4592, 4642); Barrier 2: E' 4592 + 1774 = 6366 and
  //   4642 + 1695 = 6337: X' 6466, 6566; ends 6466 + 141 = 6607, 6566 + 155 = 6721 → T = 6721.
  EXPECT_EQ(all, 6721);

  // Gain bounds: Σ over ranks of (c_r − mean)⁺: step 0 2100 − 1925 = 175 (the gain is
  // 7200 − 7142 = 58), step 1 2000 − 1550 = 450 (gain 436).
  EXPECT_EQ(rows[0].gainBoundNs, 175);
  EXPECT_EQ(rows[1].gainBoundNs, 450);
  EXPECT_TRUE(rows[0].evaluated && rows[1].evaluated);
  // With one prediction allowed, the step with the larger bound (1) is replayed.
  AdvisorOptions one = opts();
  one.maxStepPredictions = 1;
  const std::vector<StepRow> budget = stepTable(base, one);
  EXPECT_FALSE(budget[0].evaluated);
  EXPECT_TRUE(budget[1].evaluated);
  EXPECT_EQ(budget[1].predictedNs, 6764);

  // Fresh replays agree.
  EXPECT_EQ(freshT(t, simple(), {balanceCompute(0)}), 7142);
  EXPECT_EQ(freshT(t, simple(), {balanceCompute(1)}), 6764);
  EXPECT_EQ(freshT(t, simple(), {balanceCompute(0), balanceCompute(1)}), 6721);

  const Advice a = advise(base, opts());
  ASSERT_EQ(a.steps.size(), 2u);
  EXPECT_EQ(a.steps[0].predictedNs, 7142);
  EXPECT_EQ(a.steps[1].predictedNs, 6764);
  EXPECT_EQ(a.allStepsBalancedNs, 6721);

  AdvisorOptions noSteps = opts();
  noSteps.steps = false;
  noSteps.bounds = false;
  const Advice b = advise(base, noSteps);
  EXPECT_TRUE(b.steps.empty());
  EXPECT_TRUE(b.bounds.empty());
}

// The gain bound holds for every step of random traces, and a budget replays exactly the steps
// with the largest bounds, with the same results as replaying all of them.
TEST(Advisor, StepGainBoundsHoldAndTheBudgetTakesTheLargest) {
  std::mt19937_64 rng(1616);
  int steps = 0, skipped = 0;
  for (int trial = 0; trial < 25; ++trial) {
    const Trace t = test::randomTrace(rng, 6, 12);
    if (t.steps.size() < 4) continue;
    Replayer base(t, Scenario{});
    const std::vector<StepRow> all = stepTable(base, opts());
    for (const StepRow& r : all) {
      ASSERT_TRUE(r.evaluated);
      EXPECT_LE(base.predictedTime() - r.predictedNs, r.gainBoundNs) << "trial " << trial << " step " << r.step;
      ++steps;
    }
    AdvisorOptions some = opts();
    some.maxStepPredictions = 2;
    const std::vector<StepRow> two = stepTable(base, some);
    TimeNs leastChosen = std::numeric_limits<TimeNs>::max(), mostSkipped = 0;
    std::size_t replayed = 0;
    for (std::size_t k = 0; k < two.size(); ++k) {
      if (!two[k].evaluated) {
        mostSkipped = std::max(mostSkipped, two[k].gainBoundNs);
        ++skipped;
        continue;
      }
      EXPECT_EQ(two[k].predictedNs, all[k].predictedNs) << "trial " << trial << " step " << k;
      if (all[k].sigmaNs > 0) {  // needed a replay (its ranks compute different amounts)
        ++replayed;
        leastChosen = std::min(leastChosen, two[k].gainBoundNs);
      }
    }
    EXPECT_LE(replayed, 2u);
    if (replayed == 2) {
      EXPECT_GE(leastChosen, mostSkipped) << "trial " << trial;
    }
  }
  EXPECT_GT(steps, 100);
  EXPECT_GT(skipped, 20);
}

TEST(Advisor, LowerBoundsByHand) {
  const Trace t = twoSteps();
  Replayer base(t, simple());
  const std::vector<RegionBounds> bounds = lowerBounds(base);
  ASSERT_EQ(bounds.size(), 1u);
  const RegionBounds& rb = bounds[0];
  EXPECT_EQ(rb.region, "PRGN_step");
  ASSERT_EQ(rb.perRank.size(), 2u);

  // Rank 0 inside the spans [200, 4800] and [5000, 7000]:
  //   calc  1000 + 500 + 100 + 150 + 1000 + 100 = 2850
  //   wait  0 + 1700 + 500 + 800 = 3000
  //   send  0:0 300 + half of Barrier 1's local 150 (75) + half of Barrier 2's 100 (50) = 425
  //   recv  0:1 200 + 75 + 50 = 325
  //   outside 7000 − (2850 + 425 + 325 + 3000) = 400   ([0, 200] and [4800, 5000])
  const RegionBreakdown& r0 = rb.perRank[0];
  EXPECT_EQ(r0.calculation, 2850);
  EXPECT_EQ(r0.waiting, 3000);
  EXPECT_EQ(r0.sending, 425);
  EXPECT_EQ(r0.receiving, 325);
  EXPECT_EQ(r0.outside, 400);
  // Rank 1 inside [100, 4700] and [5000, 7200]:
  //   calc  200 + 100 + 1800 + 1800 + 200 = 4100
  //   wait  2000 (1:0)
  //   send  1:1 100 + 200 / 2 + 200 / 2 = 300
  //   recv  1:0 200 + 100 + 100 = 400
  //   outside 7200 − (4100 + 300 + 400 + 2000) = 400   ([0, 100] and [4700, 5000])
  const RegionBreakdown& r1 = rb.perRank[1];
  EXPECT_EQ(r1.calculation, 4100);
  EXPECT_EQ(r1.waiting, 2000);
  EXPECT_EQ(r1.sending, 300);
  EXPECT_EQ(r1.receiving, 400);
  EXPECT_EQ(r1.outside, 400);

  // T(Q) = max_r outside + calc' + comm' + wait', with mean(calc) = (2850 + 4100) / 2 = 3475 and
  // mean(send + recv) = (750 + 700) / 2 = 725:
  struct Row {
    bool q1, q2, q3;
    TimeNs t;
  };
  const Row expected[] = {
      {false, false, false, 7200},  // max(400 + 2850 + 750 + 3000 = 7000, 400 + 4100 + 700 + 2000 = 7200)
      {true, false, false, 5200},   // max(400 + 2850 + 750 = 4000,        400 + 4100 + 700 = 5200)
      {false, true, false, 7625},   // max(400 + 3475 + 750 + 3000 = 7625, 400 + 3475 + 700 + 2000 = 6575)
      {false, false, true, 7225},   // max(400 + 2850 + 725 + 3000 = 6975, 400 + 4100 + 725 + 2000 = 7225)
      {true, true, false, 4625},    // max(400 + 3475 + 750 = 4625,        400 + 3475 + 700 = 4575)
      {true, false, true, 5225},    // max(400 + 2850 + 725 = 3975,        400 + 4100 + 725 = 5225)
      {false, true, true, 7600},    // max(400 + 3475 + 725 + 3000 = 7600, 400 + 3475 + 725 + 2000 = 6600)
      {true, true, true, 4600},     // max(400 + 3475 + 725 = 4600,        4600)
  };
  ASSERT_EQ(rb.rows.size(), 8u);
  const char* names[] = {"", "Q1", "Q2", "Q3", "Q1+Q2", "Q1+Q3", "Q2+Q3", "Q1+Q2+Q3"};
  for (std::size_t i = 0; i < 8; ++i) {
    EXPECT_EQ(rb.rows[i].q1, expected[i].q1) << i;
    EXPECT_EQ(rb.rows[i].q2, expected[i].q2) << i;
    EXPECT_EQ(rb.rows[i].q3, expected[i].q3) << i;
    EXPECT_EQ(rb.rows[i].predictedNs, expected[i].t) << names[i];
    EXPECT_EQ(rb.rows[i].assumptions(), names[i]);
  }
  // The row without assumptions is the measured T.
  EXPECT_EQ(rb.rows[0].predictedNs, base.measuredTime());

  const Advice a = advise(base, opts());
  ASSERT_EQ(a.bounds.size(), 1u);
  EXPECT_EQ(a.bounds[0].rows[7].predictedNs, 4600);
}

// A rank that never enters the region keeps its end time; the means are over the ranks that do.
TEST(Advisor, LowerBoundsRankOutsideRegion) {
  // rank 0: PRGN [0, 1000] { comp 1000 }                              (ends 1000)
  // rank 1: PRGN [0, 3000] { comp 3000 }                              (ends 3000)
  // rank 2: no region; a state "work" [0, 2500]                        (ends 2500)
  // Ranks 0 and 1 have no MPI calls: everything is calculation. mean(calc) = (1000 + 3000) / 2 = 2000.
  //   —:  max(1000, 3000, 2500) = 3000;   Q2: max(2000, 2000, 2500) = 2500
  Tb b(3);
  b.state(0, 0, 1000, "PRGN_step");
  b.state(1, 0, 3000, "PRGN_step");
  b.state(2, 0, 2500, "work");
  const Trace t = b.take();
  Replayer base(t, simple());
  const auto bounds = lowerBounds(base);
  ASSERT_EQ(bounds.size(), 1u);
  EXPECT_EQ(bounds[0].perRank[0].calculation, 1000);
  EXPECT_EQ(bounds[0].perRank[1].calculation, 3000);
  EXPECT_EQ(bounds[0].perRank[2].calculation, 0);
  EXPECT_EQ(bounds[0].perRank[2].outside, 2500);
  EXPECT_EQ(bounds[0].rows[0].predictedNs, 3000);
  EXPECT_EQ(bounds[0].rows[2].predictedNs, 2500);  // Q2
  EXPECT_EQ(bounds[0].rows[1].predictedNs, 3000);  // Q1: no wait anywhere
}

namespace {
// One rank's breakdown of a region, every part (hand-derived values in the tests' comments).
void expectBreakdown(const RegionBreakdown& b, TimeNs sending, TimeNs receiving, TimeNs waiting, TimeNs calculation,
                     TimeNs outside, const char* what) {
  EXPECT_EQ(b.sending, sending) << what;
  EXPECT_EQ(b.receiving, receiving) << what;
  EXPECT_EQ(b.waiting, waiting) << what;
  EXPECT_EQ(b.calculation, calculation) << what;
  EXPECT_EQ(b.outside, outside) << what;
}
}  // namespace

// The local cost of a call is split by its message roles: a Sendrecv half and half, a Waitall
// in proportion of the sends and receives it completes; posting calls by their own role.
// Both ranks, PRGN [0, 5000], 8-byte eager messages:
//   rank 0: Sendrecv↔1 [0, 1400] | Irecv q1 [1400, 1500] | Irecv q2 [1500, 1600] | Isend→1 q3 [1600, 1700]
//           | Waitall {q3 send; q1, q2 receive} [1700, 3000] | computation to 5000
//   rank 1: Sendrecv↔0 [0, 1400] | Irecv q1 [1400, 1500] | Isend→0 q2 [1500, 1600] | Isend→0 q3 [1600, 1700]
//           | Waitall {q2, q3 send; q1 receive} [1700, 3000] | computation to 5000
// Sendrecv: ready = 0 + 1100: wait 1100, local 300 → 150 sending, 150 receiving.
// Waitall on rank 0: its receives were posted by rank 1 at 1500 and 1600: ready 1600 + 1100 = 2700,
//   wait 1000, local 300 → 1 of 3 roles a send: 100 sending, 200 receiving.
// Waitall on rank 1: its receive was posted by rank 0 at 1600: ready 2700, wait 1000, local 300
//   → 2 of 3 roles sends: 200 sending, 100 receiving.
TEST(Advisor, LowerBoundsSplitByRoles) {
  Tb b(2);
  b.open(0, 0, "PRGN_step");
  b.sendrecv(0, 0, 1400, 1);
  b.irecv(0, 1400, 1500, 1);
  b.irecv(0, 1500, 1600, 2);
  b.isend(0, 1600, 1700, 1, 8, 3);
  b.waitall(0, 1700, 3000, {3}, {1, 2}, 1);
  b.close(0, 5000, "PRGN_step");
  b.open(1, 0, "PRGN_step");
  b.sendrecv(1, 0, 1400, 0);
  b.irecv(1, 1400, 1500, 1);
  b.isend(1, 1500, 1600, 0, 8, 2);
  b.isend(1, 1600, 1700, 0, 8, 3);
  b.waitall(1, 1700, 3000, {2, 3}, {1}, 0);
  b.close(1, 5000, "PRGN_step");
  const Trace t = b.take();
  Replayer base(t, simple());
  ASSERT_EQ(base.predicted(0, 0).wait, 1100);
  ASSERT_EQ(base.predicted(0, 4).wait, 1000);
  ASSERT_EQ(base.predicted(1, 4).wait, 1000);
  const auto bounds = lowerBounds(base);
  ASSERT_EQ(bounds.size(), 1u);
  // rank 0: sending 150 + Isend post 100 + 100 = 350; receiving 150 + two Irecv posts 200 + 200 = 550
  expectBreakdown(bounds[0].perRank[0], 350, 550, 1100 + 1000, 2000, 0, "rank 0");
  // rank 1: sending 150 + two Isend posts 200 + 200 = 550; receiving 150 + Irecv post 100 + 100 = 350
  expectBreakdown(bounds[0].perRank[1], 550, 350, 2100, 2000, 0, "rank 1");
  // Q1: 2000 + 900 + 0 = 2900 on both ranks; Q3: mean(900, 900) = 900, unchanged: 5000.
  EXPECT_EQ(bounds[0].rows[1].predictedNs, 2900);
  EXPECT_EQ(bounds[0].rows[3].predictedNs, 5000);
}

// Half-recorded requests (docs/trace-model.md; OTF 1 and ALOG write them) count by the half the
// trace holds: a non-blocking send posted and never completed is a sending role of its post
// call, a receive completed in a Wait whose post is not in the trace a receiving role of the Wait.
// Both ranks, PRGN [0, 2000], 8-byte eager message (λ = o + L = 1100):
//   rank 0: Isend→1 q1 [0, 100] (no completion in the trace) | computation to 2000
//   rank 1: computation [0, 50] | MPI_Wait [50, 1500] completing a receive from 0 (no Irecv) |
//           computation to 2000
// Nothing holds the half-recorded send (no dependency): Isend wait 0, local 100, its one role a
// send → sending 100. The Wait's receive depends on the send's post: ready = 0 + 1100 = 1100,
// wait 1100 − 50 = 1050, local 1500 − 1100 = 400, its one role a receive → receiving 400.
// (Without the roles each call would count half and half: 50/50 and 200/200.)
TEST(Advisor, LowerBoundsHalfRecordedRequestsCountTheirHalf) {
  Tb b(2);
  b.open(0, 0, "PRGN_step");
  b.isend(0, 0, 100, 1, 8, 1);
  b.close(0, 2000, "PRGN_step");
  b.open(1, 0, "PRGN_step");
  b.wait(1, 50, 1500, {{false, 9, 0, 8}}, "MPI_Wait");
  b.close(1, 2000, "PRGN_step");
  const Trace t = b.take();
  ASSERT_EQ(t.ranks[0].messages.size(), 1u);
  ASSERT_EQ(t.ranks[1].messages.size(), 1u);
  ASSERT_TRUE(t.ranks[0].messages[0].halfRecorded());
  ASSERT_TRUE(t.ranks[1].messages[0].halfRecorded());
  ASSERT_TRUE(t.ranks[1].messages[0].matched());
  Replayer base(t, simple());
  ASSERT_EQ(base.predicted(0, 0).wait, 0);
  ASSERT_EQ(base.predicted(1, 0).wait, 1050);
  const auto bounds = lowerBounds(base);
  ASSERT_EQ(bounds.size(), 1u);
  expectBreakdown(bounds[0].perRank[0], 100, 0, 0, 1900, 0, "rank 0");
  expectBreakdown(bounds[0].perRank[1], 0, 400, 1050, 50 + 500, 0, "rank 1");
}

// ---- cancellation, progress, threads ------------------------------------------------------

namespace {

// The advisor's property tests use smaller traces than the replay's.
Trace randomTrace(std::mt19937_64& rng) { return test::randomTrace(rng, 6, 5); }

// A trace big enough that the advisor runs many predictions.
Trace mediumTrace() {
  GeneratorSpec s;
  s.ranks = 8;
  s.steps = 12;
  s.seed = 11;
  s.pattern = P2PPattern::Random;
  s.imbalance = 0.6;
  s.messagesPerStep = 2;
  TraceBuilder b("medium", "generated");
  generateTrace(s, b);
  return b.take();
}

void expectSameAdvice(const Advice& a, const Advice& b, const std::string& what) {
  EXPECT_EQ(a.measuredNs, b.measuredNs) << what;
  EXPECT_EQ(a.baseNs, b.baseNs) << what;
  EXPECT_EQ(a.domino.predictedNs, b.domino.predictedNs) << what;
  EXPECT_EQ(a.domino.truncated, b.domino.truncated) << what;
  ASSERT_EQ(a.domino.paths.size(), b.domino.paths.size()) << what;
  for (std::size_t i = 0; i < a.domino.paths.size(); ++i) {
    EXPECT_EQ(a.domino.paths[i].events, b.domino.paths[i].events) << what << " path " << i;
    EXPECT_EQ(a.domino.paths[i].zeroed, b.domino.paths[i].zeroed) << what << " path " << i;
    EXPECT_EQ(a.domino.paths[i].predictedNs, b.domino.paths[i].predictedNs) << what << " path " << i;
    EXPECT_EQ(a.domino.paths[i].fromRank, b.domino.paths[i].fromRank) << what << " path " << i;
  }
  ASSERT_EQ(a.candidates.size(), b.candidates.size()) << what;
  for (std::size_t i = 0; i < a.candidates.size(); ++i) {
    EXPECT_EQ(a.candidates[i].event, b.candidates[i].event) << what << " candidate " << i;
    EXPECT_EQ(a.candidates[i].waitNs, b.candidates[i].waitNs) << what << " candidate " << i;
    EXPECT_EQ(a.candidates[i].predictedNs, b.candidates[i].predictedNs) << what << " candidate " << i;
  }
  EXPECT_EQ(a.hasLongestWait, b.hasLongestWait) << what;
  EXPECT_EQ(a.longestWait.event, b.longestWait.event) << what;
  EXPECT_EQ(a.longestWait.predictedNs, b.longestWait.predictedNs) << what;
  ASSERT_EQ(a.steps.size(), b.steps.size()) << what;
  for (std::size_t i = 0; i < a.steps.size(); ++i) {
    EXPECT_EQ(a.steps[i].sigmaNs, b.steps[i].sigmaNs) << what << " step " << i;
    EXPECT_EQ(a.steps[i].meanNs, b.steps[i].meanNs) << what << " step " << i;
    EXPECT_EQ(a.steps[i].maxNs, b.steps[i].maxNs) << what << " step " << i;
    EXPECT_EQ(a.steps[i].predictedNs, b.steps[i].predictedNs) << what << " step " << i;
  }
  EXPECT_EQ(a.allStepsBalancedNs, b.allStepsBalancedNs) << what;
  ASSERT_EQ(a.bounds.size(), b.bounds.size()) << what;
  for (std::size_t i = 0; i < a.bounds.size(); ++i)
    for (std::size_t k = 0; k < a.bounds[i].rows.size(); ++k)
      EXPECT_EQ(a.bounds[i].rows[k].predictedNs, b.bounds[i].rows[k].predictedNs) << what;
  EXPECT_EQ(a.cancelled, b.cancelled) << what;
}

}  // namespace

TEST(Advisor, CancelledBeforeStart) {
  const Trace t = mediumTrace();
  Replayer base(t, Scenario{});
  std::atomic<bool> cancel{true};
  AdvisorOptions o = opts(4);
  o.cancel = &cancel;
  const Advice a = advise(base, o);
  EXPECT_TRUE(a.cancelled);
  EXPECT_EQ(a.measuredNs, t.endTime);
  EXPECT_TRUE(a.steps.empty());   // skipped once cancelled
  EXPECT_TRUE(a.bounds.empty());
  // Whatever was reported is not worse than doing nothing.
  EXPECT_LE(a.domino.predictedNs, a.baseNs);
}

TEST(Advisor, CancelledWhileRunning) {
  const Trace t = mediumTrace();
  Replayer base(t, Scenario{});
  for (unsigned threads : {1u, 4u}) {
    std::atomic<bool> cancel{false};
    int calls = 0;
    AdvisorOptions o = opts(threads);
    o.cancel = &cancel;
    // Cancel from inside the run, at its third progress report.
    o.progress = [&](double, const std::string&) {
      if (++calls == 3) cancel = true;
    };
    const Advice a = advise(base, o);
    EXPECT_TRUE(a.cancelled) << threads;
    EXPECT_GE(calls, 3) << threads;
    const Advice full = advise(base, opts(threads));
    EXPECT_FALSE(full.cancelled);
    EXPECT_GT(full.predictions, a.predictions) << threads;
  }
}

TEST(Advisor, ProgressIsMonotoneAndEndsAtOne) {
  const Trace t = mediumTrace();
  ASSERT_GT(t.steps.size(), 0u);
  Replayer base(t, Scenario{});
  for (unsigned threads : {1u, 4u}) {
    std::vector<double> seen;
    std::vector<std::string> stages;
    AdvisorOptions o = opts(threads);
    o.progress = [&](double f, const std::string& stage) {
      seen.push_back(f);
      stages.push_back(stage);
    };
    const Advice a = advise(base, o);
    ASSERT_FALSE(a.cancelled);
    ASSERT_GE(seen.size(), 2u) << threads;
    for (std::size_t i = 0; i < seen.size(); ++i) {
      EXPECT_GE(seen[i], 0.0) << i;
      EXPECT_LE(seen[i], 1.0) << i;
      if (i > 0) {
        EXPECT_GE(seen[i], seen[i - 1]) << "threads " << threads << ": report " << i << " (" << stages[i]
                                        << ") after " << seen[i - 1] << " (" << stages[i - 1] << ")";
      }
    }
    EXPECT_EQ(seen.back(), 1.0) << threads;
  }
}

TEST(Advisor, OneThreadAndFourThreadsAgree) {
  std::mt19937_64 rng(4242);
  for (int trial = 0; trial < 6; ++trial) {
    const Trace t = randomTrace(rng);
    Replayer base(t, Scenario{});
    const Advice one = advise(base, opts(1, 8));
    const Advice four = advise(base, opts(4, 8));
    expectSameAdvice(one, four, "trial " + std::to_string(trial));
  }
  const Trace m = mediumTrace();
  Replayer base(m, Scenario{});
  expectSameAdvice(advise(base, opts(1, 5)), advise(base, opts(4, 5)), "medium");
  // The base replayer is left as it was.
  EXPECT_EQ(base.predictedTime(), m.endTime);
  EXPECT_TRUE(base.scenario().hypotheses.empty());
}

// ---- property test against fresh replays -------------------------------------------------

// A base lent to the advisor (AdvisorOptions::lentBase: the calling thread predicts on it
// instead of a fork) gives the same advice, with one thread and with several, and is left as it
// was: the same scenario and every call's predicted times (a base scenario with a hypothesis
// too, which every prediction starts from).
TEST(Advisor, ALentBaseGivesTheSameAdviceAndIsLeftAsItWas) {
  std::mt19937_64 rng(777);
  for (int trial = 0; trial < 8; ++trial) {
    const Trace t = trial == 0 ? mediumTrace() : randomTrace(rng);
    Scenario sc{};
    if (trial % 2 == 1 && !t.steps.empty()) sc.hypotheses.push_back(balanceCompute(0));
    Replayer reference(t, sc), lent(t, sc);
    const std::string what = "trial " + std::to_string(trial);
    std::vector<PredictedCall> before;
    for (Rank r = 0; r < t.rankCount(); ++r)
      for (std::uint32_t i = 0; i < t.ranks[r].mpiCalls.size(); ++i) before.push_back(lent.predicted(r, i));
    for (unsigned threads : {1u, 3u}) {
      AdvisorOptions o = opts(threads, 6);
      const Advice expected = advise(reference, o);
      o.lentBase = &lent;
      expectSameAdvice(advise(lent, o), expected, what + ", " + std::to_string(threads) + " threads");
      EXPECT_EQ(lent.scenario().hypotheses, sc.hypotheses) << what;
      EXPECT_EQ(lent.predictedTime(), reference.predictedTime()) << what;
      std::size_t k = 0;
      for (Rank r = 0; r < t.rankCount(); ++r)
        for (std::uint32_t i = 0; i < t.ranks[r].mpiCalls.size(); ++i, ++k) {
          const PredictedCall now = lent.predicted(r, i);
          EXPECT_EQ(now.enter, before[k].enter) << what << " " << r << ":" << i;
          EXPECT_EQ(now.leave, before[k].leave) << what << " " << r << ":" << i;
          EXPECT_EQ(now.wait, before[k].wait) << what << " " << r << ":" << i;
        }
    }
  }
}

// perwiz-mpi advise's core (AdvisorOptions::group): P "processes" (threads of a ThreadGroup),
// each with its own replay of the same trace (lent, as perwiz-mpi lends it), deal the
// predictions among them; every one returns the advice of one process alone, the number of
// predictions included, for P = 1..4.
TEST(Advisor, AGroupOfProcessesGivesTheAdviceOfOne) {
  std::mt19937_64 rng(4242);
  for (int trial = 0; trial < 6; ++trial) {
    const Trace t = trial == 0 ? mediumTrace() : randomTrace(rng);
    Scenario sc{};
    if (trial % 3 == 2) sc.costs = CostMode::Model;
    Replayer reference(t, sc);
    const AdvisorOptions o = opts(2, 6);
    const Advice expected = advise(reference, o);
    for (std::uint32_t P = 1; P <= 4; ++P) {
      std::vector<Advice> got(P);
      const auto errors = test::runGroup(P, [&](ProcessGroup& g) {
        Replayer mine(t, sc);
        AdvisorOptions mo = o;
        mo.group = &g;
        mo.lentBase = &mine;
        got[g.rank()] = advise(mine, mo);
      });
      for (std::uint32_t q = 0; q < P; ++q) {
        const std::string what =
            "trial " + std::to_string(trial) + ", P = " + std::to_string(P) + ", process " + std::to_string(q);
        ASSERT_FALSE(errors[q]) << what;
        expectSameAdvice(got[q], expected, what);
        EXPECT_EQ(got[q].predictions, expected.predictions) << what;
      }
    }
  }
}

TEST(Advisor, PropertyEveryPredictionIsAReplay) {
  std::mt19937_64 rng(20260404);
  std::size_t checkedCandidates = 0, checkedOffPath = 0, checkedPaths = 0, gains = 0;
  for (int trial = 0; trial < 20; ++trial) {
    const Trace t = randomTrace(rng);
    // Mostly the default scenario; some trials in model cost mode, some starting from a
    // scenario that already balances step 0 (the advisor works on top of the base scenario).
    Scenario sc{};
    if (trial % 3 == 2) sc.costs = CostMode::Model;
    if (trial % 4 == 3 && !t.steps.empty()) sc.hypotheses.push_back(balanceCompute(0));
    Replayer base(t, sc);
    const TimeNs t0 = base.predictedTime();
    const std::string what = "trial " + std::to_string(trial);

    // Every call with a positive wait, and the critical path's waits (the only ones simulated).
    std::vector<EventRef> waiting;
    for (Rank r = 0; r < t.rankCount(); ++r)
      for (std::uint32_t i = 0; i < t.ranks[r].mpiCalls.size(); ++i)
        if (base.predicted(r, i).wait > 0) waiting.push_back(ev(r, i));
    std::set<EventRef> onPath;
    for (const CriticalSegment& s : criticalPath(base).segments)
      if (s.kind == CriticalSegment::Kind::Message || s.kind == CriticalSegment::Kind::Skew)
        onPath.insert(ev(s.rank, s.index));

    // With an unlimited list every waiting call is a candidate, with its exact T.
    const Advice all = advise(base, opts(2, std::numeric_limits<std::size_t>::max()));
    ASSERT_EQ(all.candidates.size(), waiting.size()) << what;
    std::vector<WaitCandidate> truth;
    for (const WaitCandidate& c : all.candidates) {
      EXPECT_EQ(c.waitNs, base.predicted(c.event.rank, c.event.index).wait) << what;
      const TimeNs fresh = freshT(t, sc, {zeroWait(c.event)});
      EXPECT_EQ(c.predictedNs, fresh) << what << " candidate " << c.event.toString();
      // Zeroing never lengthens the run, and gains at most the wait (§8.1).
      EXPECT_LE(fresh, t0) << what;
      EXPECT_GE(fresh, t0 - c.waitNs) << what;
      // The pruning claim: a wait off the critical path leaves T unchanged.
      if (!onPath.count(c.event)) {
        EXPECT_EQ(fresh, t0) << what << " off-path " << c.event.toString();
        ++checkedOffPath;
      }
      if (fresh < t0) ++gains;
      truth.push_back({c.event, c.waitNs, fresh});
      ++checkedCandidates;
    }
    // Sorted best first: by T, then by wait (longest first), then by id.
    auto better = [](const WaitCandidate& a, const WaitCandidate& b) {
      if (a.predictedNs != b.predictedNs) return a.predictedNs < b.predictedNs;
      if (a.waitNs != b.waitNs) return a.waitNs > b.waitNs;
      return a.event < b.event;
    };
    std::sort(truth.begin(), truth.end(), better);
    for (std::size_t i = 0; i < truth.size(); ++i) EXPECT_EQ(all.candidates[i].event, truth[i].event) << what << " " << i;

    // The default top 10 (branch and bound) is the head of the true ranking; every waiting call
    // left out would give at least the 10th T.
    const Advice top = advise(base, opts(2, 10));
    ASSERT_EQ(top.candidates.size(), std::min<std::size_t>(10, truth.size())) << what;
    for (std::size_t i = 0; i < top.candidates.size(); ++i) {
      EXPECT_EQ(top.candidates[i].event, truth[i].event) << what << " top " << i;
      EXPECT_EQ(top.candidates[i].predictedNs, truth[i].predictedNs) << what << " top " << i;
    }
    std::set<EventRef> listed;
    for (const WaitCandidate& c : top.candidates) listed.insert(c.event);
    std::size_t sampled = 0;
    for (const EventRef& e : waiting) {
      if (listed.count(e) || sampled >= 8) continue;
      ++sampled;
      EXPECT_GE(freshT(t, sc, {zeroWait(e)}), top.candidates.back().predictedNs) << what << " " << e.toString();
    }

    // Domino paths: each path's T is a replay of zeroing its `zeroed` event; the overall T is
    // the best single zeroing (every rank's search starts with the minimum over all its calls).
    const TimeNs bestSingle = std::min(t0, truth.empty() ? t0 : truth.front().predictedNs);
    EXPECT_EQ(top.domino.predictedNs, bestSingle) << what;
    EXPECT_EQ(all.domino.predictedNs, bestSingle) << what;
    if (bestSingle == t0) {
      EXPECT_TRUE(top.domino.paths.empty()) << what;
    }
    std::set<std::vector<EventRef>> distinct;
    for (const DominoPath& d : top.domino.paths) {
      EXPECT_EQ(d.predictedNs, top.domino.predictedNs) << what;
      EXPECT_EQ(freshT(t, sc, {zeroWait(d.zeroed)}), d.predictedNs) << what << " zeroed " << d.zeroed.toString();
      EXPECT_NE(std::find(d.events.begin(), d.events.end(), d.zeroed), d.events.end()) << what;
      EXPECT_GE(d.events.size(), 2u) << what;
      EXPECT_TRUE(distinct.insert(d.events).second) << what << ": duplicate path";
      for (std::size_t i = 1; i < d.events.size(); ++i)  // by return time
        EXPECT_LE(base.predicted(d.events[i - 1].rank, d.events[i - 1].index).leave,
                  base.predicted(d.events[i].rank, d.events[i].index).leave)
            << what;
      ++checkedPaths;
    }
    // The longest-wait choice is the call with the largest wait, replayed.
    if (!waiting.empty()) {
      ASSERT_TRUE(top.hasLongestWait) << what;
      TimeNs maxWait = 0;
      for (const EventRef& e : waiting) maxWait = std::max(maxWait, base.predicted(e.rank, e.index).wait);
      EXPECT_EQ(top.longestWait.waitNs, maxWait) << what;
      EXPECT_EQ(top.longestWait.predictedNs, freshT(t, sc, {zeroWait(top.longestWait.event)})) << what;
    }
    // Step rows are replays too.
    for (const StepRow& s : top.steps)
      EXPECT_EQ(s.predictedNs, freshT(t, sc, {balanceCompute(s.step)})) << what << " step " << s.step;
    // The base replayer is unchanged by all of this.
    EXPECT_EQ(base.predictedTime(), t0) << what;
  }
  // The property must have been exercised.
  RecordProperty("candidates", static_cast<int>(checkedCandidates));
  RecordProperty("off_path", static_cast<int>(checkedOffPath));
  RecordProperty("paths", static_cast<int>(checkedPaths));
  RecordProperty("gains", static_cast<int>(gains));
  EXPECT_GT(checkedCandidates, 200u);
  EXPECT_GT(checkedOffPath, 100u);
  EXPECT_GT(checkedPaths, 10u);
  EXPECT_GT(gains, 50u);
}

// zeroWaitTimes() (execution_dag.h), which the domino search uses as its bound, claims to be exact:
// T with one zero-wait, for many calls at once, without replaying. Every call of random traces
// (with and without a wait; computation ids and out-of-range ids give T).
TEST(Advisor, ZeroWaitTimesEqualReplays) {
  std::mt19937_64 rng(99);
  std::size_t checked = 0;
  for (int trial = 0; trial < 12; ++trial) {
    const Trace t = randomTrace(rng);
    Scenario sc{};
    if (trial % 3 == 1) sc.costs = CostMode::Model;
    if (trial % 4 == 2 && !t.steps.empty()) sc.hypotheses.push_back(balanceCompute(0));
    Replayer base(t, sc);
    std::vector<EventRef> calls;
    for (Rank r = 0; r < t.rankCount(); ++r)
      for (std::uint32_t i = 0; i < t.ranks[r].mpiCalls.size(); ++i) calls.push_back(ev(r, i));
    calls.push_back(EventRef{0, 0, true});
    calls.push_back(ev(0, static_cast<std::uint32_t>(t.ranks[0].mpiCalls.size())));
    const std::vector<TimeNs> fast = zeroWaitTimes(base, calls);
    ASSERT_EQ(fast.size(), calls.size());
    for (std::size_t k = 0; k + 2 < calls.size(); ++k) {
      EXPECT_EQ(fast[k], freshT(t, sc, {zeroWait(calls[k])})) << "trial " << trial << " " << calls[k].toString();
      ++checked;
    }
    EXPECT_EQ(fast[calls.size() - 2], base.predictedTime());
    EXPECT_EQ(fast[calls.size() - 1], base.predictedTime());
  }
  EXPECT_GT(checked, 300u);
}

TEST(ComputationSpread, OneFormulaForTheStepTableAndTheCharts) {
  // Ranks 0..3 compute 10, 20, absent (−1), 40 ns: n = 3, Σ = 70, mean = 70/3 = 23.33 → 23;
  // Σ(c − mean)² = 13.33² + 3.33² + 16.67² = 177.78 + 11.11 + 277.78 = 466.67, σ = √(466.67/3)
  // = √155.56 = 12.47 → 12; balanced mean (2·70 + 3) / 6 = 143 / 6 = 23 (integer division).
  const std::vector<TimeNs> c = {10, 20, -1, 40};
  const ComputationSpread s = computationSpread(c);
  EXPECT_EQ(s.ranks, 3u);
  EXPECT_EQ(s.meanNs, 23);
  EXPECT_EQ(s.sigmaNs, 12);
  EXPECT_EQ(s.maxNs, 40);
  EXPECT_EQ(s.leastNs, 10);
  EXPECT_EQ(s.balancedMeanNs, 23);
  // Large values where E[x²] − mean² in doubles loses every digit: 10^12 + {0, 1, 2} ns, σ =
  // √(2/3) = 0.816 → 1 (the two-pass formula keeps it).
  const TimeNs big = 1'000'000'000'000;
  const ComputationSpread b = computationSpread(std::vector<TimeNs>{big, big + 1, big + 2});
  EXPECT_EQ(b.meanNs, big + 1);
  EXPECT_EQ(b.sigmaNs, 1);
  EXPECT_EQ(computationSpread(std::vector<TimeNs>{-1, -1}).ranks, 0u);
}
