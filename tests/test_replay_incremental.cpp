// Incremental re-simulation equals a full replay (issue #3): random traces, random sequences
// of hypothesis additions and removals; after every step the incremental state is compared
// with a Replayer built from scratch with the same hypotheses.
#include "perwiz/execution_dag.h"
#include "perwiz/generator.h"
#include "perwiz/replay.h"
#include "perwiz/trace_builder.h"

#include "test_traces.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <limits>
#include <random>
#include <thread>

using namespace perwiz;

namespace {

using test::randomTrace;

Hypothesis randomHypothesis(const Trace& t, std::mt19937_64& rng) {
  Hypothesis h;
  const int kind = static_cast<int>(rng() % 6);
  // Compensation (one value, so that a second draw is the same hypothesis: a scenario holds
  // at most one; odd, so that the enter and leave shares differ).
  if (kind == 5) return Hypothesis::compensate(137);
  const std::uint32_t r = static_cast<std::uint32_t>(rng() % t.rankCount());
  const std::uint32_t calls = static_cast<std::uint32_t>(t.ranks[r].mpiCalls.size());
  if (kind <= 2 || t.steps.empty()) {
    // A rank without MPI calls has only its computation to zero.
    h.kind = kind == 0 && calls > 0 ? HypothesisKind::ZeroWait : HypothesisKind::ZeroEvent;
    h.event.rank = r;
    h.event.computation = (kind == 2 || calls == 0) && h.kind == HypothesisKind::ZeroEvent;
    h.event.index = static_cast<std::uint32_t>(rng() % (calls + (h.event.computation ? 1 : 0)));
  } else {
    h.kind = kind == 3 ? HypothesisKind::BalanceCompute : HypothesisKind::BalanceVolume;
    h.step = static_cast<std::uint32_t>(rng() % t.steps.size());
  }
  return h;
}

// Every time, wait and the end of two predictions of a rank, whether they own their arrays or
// share a tail; and maxLeaveFrom against a walk over the leaves.
void expectSameRank(const PredictedRank& a, const PredictedRank& b, const std::string& what) {
  ASSERT_EQ(a.events(), b.events()) << what;
  ASSERT_EQ(a.calls(), b.calls()) << what;
  for (std::size_t e = 0; e < a.events(); ++e) {
    ASSERT_EQ(a.enter(e), b.enter(e)) << what << " event " << e;
    ASSERT_EQ(a.leave(e), b.leave(e)) << what << " event " << e;
  }
  for (std::size_t c = 0; c < a.calls(); ++c) ASSERT_EQ(a.wait(c), b.wait(c)) << what << " call " << c;
  ASSERT_EQ(a.end, b.end) << what;
  TimeNs m = std::numeric_limits<TimeNs>::min();
  for (std::size_t e = a.events(); e-- > 0;) {
    m = std::max(m, b.leave(e));
    if (e % 7 == 0 || e + 1 == a.events()) {
      ASSERT_EQ(a.maxLeaveFrom(e), m) << what << " from " << e;
    }
  }
}

// Three ranks: computation, Barrier 1, computation, Barrier 2, computation to the end.
//   rank 0: B1 [1000, 3010], B2 [3110, 3230], end 3300
//   rank 1: B1 [2000, 3020], B2 [3220, 3225], end 3400
//   rank 2: B1 [3000, 3005], B2 [3055, 3240], end 3250
Trace threeBarriers() {
  test::Tb b(3);
  b.barrier(0, 1000, 3010);
  b.barrier(1, 2000, 3020);
  b.barrier(2, 3000, 3005);
  b.barrier(0, 3110, 3230);
  b.barrier(1, 3220, 3225);
  b.barrier(2, 3055, 3240);
  b.state(0, 3240, 3300, "tail");
  b.state(1, 3300, 3400, "tail");
  b.state(2, 3245, 3250, "tail");
  return b.take();
}

void expectSameAsFull(const Replayer& inc, const Trace& t, const Scenario& base, const std::string& what) {
  Scenario s = base;
  s.hypotheses = inc.scenario().hypotheses;
  Replayer full(t, s);
  ASSERT_EQ(full.scenario().hypotheses, inc.scenario().hypotheses) << what;
  ASSERT_EQ(inc.predictedTime(), full.predictedTime()) << what;
  ASSERT_EQ(inc.predictedEnters(), full.predictedEnters()) << what;
  ASSERT_EQ(inc.predictedLeaves(), full.predictedLeaves()) << what;
}

}  // namespace

TEST(ReplayIncremental, RandomHypothesisSequencesEqualFullReplay) {
  std::mt19937_64 rng(20261122);
  std::uint64_t updates = 0, partial = 0, shifted = 0;
  for (int trial = 0; trial < 64; ++trial) {
    // The last trials are larger (thousands of schedule items): updates there turn into the
    // plain sweep (replayer.cpp, kDenseWindowWords) and meet clean cuts inside it.
    const Trace t = trial < 60 ? randomTrace(rng) : randomTrace(rng, 16, 400);
    if (t.mpiCallCount() == 0) continue;
    Scenario base;
    base.costs = trial % 3 == 2 ? CostMode::Model : CostMode::Measured;
    Replayer inc(t, base);
    // Every other trial as the GUI runs it: index and own copies made up front.
    if (trial % 2 == 1) inc.prepareUpdates();
    std::vector<Hypothesis> active;
    Replayer::EventTimes before = inc.predictedEventTimes();
    // Each rank's previous prediction as the GUI keeps it: a rank of its own, or (after a shift)
    // one that shares an earlier one's arrays (PredictedRank::tail), so that shifts chain.
    std::vector<std::shared_ptr<const PredictedRank>> beforeRanks(t.rankCount());
    for (std::uint32_t r = 0; r < t.rankCount(); ++r) {
      auto p = std::make_shared<PredictedRank>();
      inc.predictedRank(r, *p);
      beforeRanks[r] = std::move(p);
    }
    for (int step = 0; step < 25; ++step) {
      const bool removing = !active.empty() && rng() % 3 == 0;
      std::string what = "trial " + std::to_string(trial) + " step " + std::to_string(step) + ": ";
      if (removing) {
        const std::size_t i = rng() % active.size();
        what += "remove " + active[i].toString();
        ASSERT_TRUE(inc.remove(active[i])) << what;
        active.erase(active.begin() + static_cast<std::ptrdiff_t>(i));
      } else {
        const Hypothesis h = randomHypothesis(t, rng);
        what += "add " + h.toString();
        std::string error;
        ASSERT_TRUE(inc.add(h, &error)) << what << ": " << error;
        if (std::find(active.begin(), active.end(), h) == active.end()) active.push_back(h);
      }
      ++updates;
      if (inc.lastUpdate().recomputed < t.mpiCallCount()) ++partial;
      if (inc.lastUpdate().shifted > 0) ++shifted;
      expectSameAsFull(inc, t, base, what);
      if (HasFatalFailure()) return;
      // UpdateStats::shiftAfterCall is sound: every event a rank enters at or after its call's
      // measured leave moved by exactly `shift` (the GUI copies those times shifted).
      const auto& st = inc.lastUpdate();
      for (std::uint32_t r = 0; r < t.rankCount(); ++r) {
        // predictedRankShifted from the rank's previous prediction equals predictedRank, with
        // the arrays shared or copied.
        auto shared = std::make_shared<PredictedRank>();
        PredictedRank copied, fresh;
        inc.predictedRankShifted(r, beforeRanks[r], *shared, true);
        inc.predictedRankShifted(r, beforeRanks[r], copied, false);
        inc.predictedRank(r, fresh);
        ASSERT_FALSE(copied.tail) << what;
        expectSameRank(*shared, fresh, what + "shared, rank " + std::to_string(r));
        expectSameRank(copied, fresh, what + "copied, rank " + std::to_string(r));
        if (HasFatalFailure()) return;
        if (st.shiftAfterCall.size() > r) {
          beforeRanks[r] = std::move(shared);
        } else {
          beforeRanks[r] = std::make_shared<PredictedRank>(std::move(fresh));
        }
      }
      if (!st.shiftAfterCall.empty()) {
        const Replayer::EventTimes now = inc.predictedEventTimes();
        for (std::uint32_t r = 0; r < t.rankCount(); ++r) {
          const RankTrace& rt = t.ranks[r];
          const TimeNs from = rt.leave[rt.mpiCalls[st.shiftAfterCall[r]]];
          for (std::uint32_t e = 0; e < rt.size(); ++e) {
            if (rt.enter[e] < from) continue;
            ASSERT_EQ(now.enter[r][e], before.enter[r][e] + st.shift) << what << ": rank " << r << " event " << e;
            ASSERT_EQ(now.leave[r][e], before.leave[r][e] + st.shift) << what << ": rank " << r << " event " << e;
          }
        }
      }
      // UpdateStats::ranks is sound: a rank it leaves out kept every predicted time (the GUI
      // shares such ranks' arrays with the previous snapshot).
      const Replayer::EventTimes after = inc.predictedEventTimes();
      const auto& moved = inc.lastUpdate().ranks;
      ASSERT_TRUE(std::is_sorted(moved.begin(), moved.end())) << what;
      for (std::uint32_t r = 0; r < t.rankCount(); ++r)
        if (!std::binary_search(moved.begin(), moved.end(), r)) {
          ASSERT_EQ(after.enter[r], before.enter[r]) << what << ": rank " << r;
          ASSERT_EQ(after.leave[r], before.leave[r]) << what << ": rank " << r;
        }
      before = after;
    }
  }
  // The property is only interesting if most updates were genuinely partial, and some of them
  // ended in a uniform shift (clean_cuts.h).
  EXPECT_GT(partial * 2, updates);
  EXPECT_GT(shifted * 20, updates) << shifted << " of " << updates;
}

// Balancing many steps one by one: the balance's per-unit changes move from a map of the few
// units touched to a per-unit array once they are many (replayer.cpp, GapDelta), and a
// scenario with every step balanced refreshes every unit; each state equals a full replay.
TEST(ReplayIncremental, BalancingEveryStepOneByOneEqualsFullReplay) {
  GeneratorSpec spec;
  spec.ranks = 6;
  spec.steps = 120;
  spec.imbalance = 0.6;
  spec.nonBlocking = true;
  TraceBuilder b("many", "generated");
  generateTrace(spec, b);
  const Trace t = b.take();
  ASSERT_EQ(t.steps.size(), 120u);
  Replayer inc(t, Scenario{});
  for (std::uint32_t k = 0; k < t.steps.size(); ++k) {
    ASSERT_TRUE(inc.add({HypothesisKind::BalanceCompute, {}, k}));
    if (k % 10 == 9 || k < 3) expectSameAsFull(inc, t, Scenario{}, "balanced 0.." + std::to_string(k));
    if (HasFatalFailure()) return;
  }
  for (std::uint32_t k = 0; k < t.steps.size(); k += 2) ASSERT_TRUE(inc.remove({HypothesisKind::BalanceCompute, {}, k}));
  expectSameAsFull(inc, t, Scenario{}, "odd steps balanced");
  for (std::uint32_t k = 1; k < t.steps.size(); k += 2) ASSERT_TRUE(inc.remove({HypothesisKind::BalanceCompute, {}, k}));
  const Replayer base(t, Scenario{});
  EXPECT_EQ(inc.predictedEnters(), base.predictedEnters());
  EXPECT_EQ(inc.predictedLeaves(), base.predictedLeaves());
}

TEST(ReplayIncremental, RemovingEverythingRestoresTheMeasurement) {
  std::mt19937_64 rng(7);
  for (int trial = 0; trial < 10; ++trial) {
    const Trace t = randomTrace(rng);
    Replayer rp(t, Scenario{});
    std::vector<Hypothesis> hs;
    for (int i = 0; i < 8; ++i) {
      const Hypothesis h = randomHypothesis(t, rng);
      if (rp.add(h) && std::find(hs.begin(), hs.end(), h) == hs.end()) hs.push_back(h);
    }
    for (const Hypothesis& h : hs) ASSERT_TRUE(rp.remove(h));
    EXPECT_EQ(rp.predictedTime(), t.endTime) << "trial " << trial;
    for (std::uint32_t r = 0; r < t.rankCount(); ++r)
      for (std::uint32_t i = 0; i < t.ranks[r].mpiCalls.size(); ++i) {
        const std::uint32_t e = t.ranks[r].mpiCalls[i];
        ASSERT_EQ(rp.predicted(r, i).enter, t.ranks[r].enter[e]) << trial << " " << r << ":" << i;
        ASSERT_EQ(rp.predicted(r, i).leave, t.ranks[r].leave[e]) << trial << " " << r << ":" << i;
      }
  }
}

TEST(ReplayIncremental, InvalidHypothesesAreRefusedWithAReason) {
  std::mt19937_64 rng(3);
  const Trace t = randomTrace(rng);
  Replayer rp(t, Scenario{});
  std::string error;
  EXPECT_FALSE(rp.add({HypothesisKind::ZeroWait, EventRef{999, 0, false}, 0}, &error));
  EXPECT_NE(error.find("ranks"), std::string::npos) << error;
  EXPECT_FALSE(rp.add({HypothesisKind::ZeroEvent, EventRef{0, 1000000, false}, 0}, &error));
  EXPECT_NE(error.find("MPI calls"), std::string::npos) << error;
  EXPECT_FALSE(rp.add({HypothesisKind::BalanceCompute, {}, 100000}, &error));
  EXPECT_NE(error.find("parallel steps"), std::string::npos) << error;
  EXPECT_FALSE(rp.remove({HypothesisKind::ZeroWait, EventRef{0, 0, false}, 0}, &error));
  EXPECT_NE(error.find("not in the scenario"), std::string::npos) << error;
  EXPECT_EQ(rp.predictedTime(), t.endTime);
}

// zeroWaitTimes (execution_dag.h) gives, from the DAG alone, T after zeroing any one call's wait;
// the advisor prunes with it, so it must equal a replay with that zero-wait for every call, also
// on top of other hypotheses (zero-waits already present, zeroed events, balanced steps).
TEST(ReplayIncremental, ZeroWaitTimesEqualReplays) {
  std::mt19937_64 rng(4404);
  std::size_t checked = 0, gains = 0;
  for (int trial = 0; trial < 64; ++trial) {
    // The last trials are larger (thousands of schedule items): updates there turn into the
    // plain sweep (replayer.cpp, kDenseWindowWords) and meet clean cuts inside it.
    const Trace t = trial < 60 ? randomTrace(rng) : randomTrace(rng, 16, 400);
    Scenario s;
    if (trial % 3 == 1) s.costs = CostMode::Model;
    if (trial % 3 == 2)
      for (int k = 0; k < 4; ++k) s.hypotheses.push_back(randomHypothesis(t, rng));
    Replayer base(t, s);
    auto r = base.fork();
    std::vector<EventRef> calls;
    for (std::uint32_t rank = 0; rank < t.rankCount(); ++rank)
      for (std::uint32_t i = 0; i < t.ranks[rank].mpiCalls.size(); ++i) calls.push_back(EventRef{rank, i, false});
    calls.push_back(EventRef{0, 0, true});                 // computation: no wait to zero
    calls.push_back(EventRef{static_cast<std::uint32_t>(t.rankCount()), 0, false});  // no such rank
    const std::vector<TimeNs> fast = zeroWaitTimes(base, calls);
    ASSERT_EQ(fast.size(), calls.size());
    for (std::size_t i = 0; i < calls.size(); ++i) {
      const Hypothesis h{HypothesisKind::ZeroWait, calls[i], 0};
      TimeNs replayed = base.predictedTime();
      if (r->validate(h).empty() && r->add(h)) {
        replayed = r->predictedTime();
        if (!std::binary_search(base.scenario().hypotheses.begin(), base.scenario().hypotheses.end(), h))
          r->remove(h);
      }
      ASSERT_EQ(fast[i], replayed) << "trial " << trial << " " << calls[i].toString();
      gains += replayed < base.predictedTime();
      ++checked;
    }
  }
  EXPECT_GT(checked, 2000u);
  EXPECT_GT(gains, 100u);
}

// One rank's prediction (the GUI's per-rank snapshot) is the same as the whole trace's, with
// each MPI call's enter, leave and wait.
TEST(ReplayIncremental, PredictedRankEqualsTheWholePrediction) {
  std::mt19937_64 rng(20261125);
  for (int trial = 0; trial < 10; ++trial) {
    const Trace t = randomTrace(rng);
    Replayer r(t, Scenario{});
    for (int i = 0; i < 3; ++i) r.add(randomHypothesis(t, rng));
    const Replayer::EventTimes all = r.predictedEventTimes();
    PredictedRank one;
    for (std::uint32_t rank = 0; rank < t.rankCount(); ++rank) {
      r.predictedRank(rank, one);
      EXPECT_FALSE(one.tail);
      EXPECT_EQ(one.ownEnter, all.enter[rank]);
      EXPECT_EQ(one.ownLeave, all.leave[rank]);
      TimeNs end = 0;
      for (TimeNs l : all.leave[rank]) end = std::max(end, l);
      EXPECT_EQ(one.end, end);
      ASSERT_EQ(one.calls(), t.ranks[rank].mpiCalls.size());
      for (std::uint32_t c = 0; c < one.calls(); ++c) {
        const PredictedCall p = r.predicted(rank, c);
        const PredictedCall q = one.call(c, t.ranks[rank].mpiCalls[c]);
        EXPECT_EQ(q.enter, p.enter);
        EXPECT_EQ(q.leave, p.leave);
        EXPECT_EQ(q.wait, p.wait);
      }
    }
  }
}

// An update names the ranks it moved: two independent pairs, a change in one pair moves that
// pair only.
TEST(ReplayIncremental, AnUpdateNamesTheRanksItMoved) {
  // Pair A: rank 0 computes 1000 ns, sends to rank 1 (recv [0, 2000]). Pair B: the same, 2 -> 3.
  test::Tb b(4);
  b.send(0, 1000, 1010, 1);
  b.recv(1, 0, 2000, 0);
  b.send(2, 1000, 1010, 3);
  b.recv(3, 0, 2000, 2);
  const Trace t = b.take();
  Replayer r(t, test::simpleScenario());
  // Zeroing rank 2's computation before its send (gap 1000 ns) moves the send to 0, and through
  // the message the receive on rank 3: measured costs keep the message's measured offset (recv
  // return 2000 - send 1000 = 1000 ns), so it returns at 0 + 1000 = 1000 ns. Pair A keeps its times.
  Hypothesis h;
  h.kind = HypothesisKind::ZeroEvent;
  h.event = {2, 0, true};
  std::string error;
  ASSERT_TRUE(r.add(h, &error)) << error;
  EXPECT_EQ(r.lastUpdate().ranks, (std::vector<std::uint32_t>{2, 3}));
  EXPECT_EQ(r.predicted(3, 0).leave, 1000);
  Hypothesis g = h;
  g.event = {0, 0, true};
  ASSERT_TRUE(r.add(g, &error)) << error;
  EXPECT_EQ(r.lastUpdate().ranks, (std::vector<std::uint32_t>{0, 1}));
  // Withdrawing h moves pair B back; a full replay names every rank.
  ASSERT_TRUE(r.remove(h, &error)) << error;
  EXPECT_EQ(r.lastUpdate().ranks, (std::vector<std::uint32_t>{2, 3}));
  r.replayFull();
  EXPECT_EQ(r.lastUpdate().ranks, (std::vector<std::uint32_t>{0, 1, 2, 3}));
}

// Construction followed through ReplayControl: progress ends at 1000 and only grows; a set
// cancel flag stops it with ReplayCancelled.
TEST(ReplayIncremental, ConstructionReportsProgressAndCanBeCancelled) {
  GeneratorSpec spec;
  spec.ranks = 8;
  spec.steps = 10000;  // enough events (> 200,000) for the builder's parallel phases
  TraceBuilder tb("control", "generated");
  generateTrace(spec, tb);
  const Trace t = tb.take();
  ASSERT_GT(t.eventCount(), 200000u);
  {
    ReplayControl c;
    std::atomic<bool> done{false};
    std::vector<std::uint32_t> seen;
    std::thread watcher([&] {
      while (!done.load()) {
        seen.push_back(c.permille.load());
        std::this_thread::yield();
      }
    });
    Replayer r(t, Scenario{}, &c);
    done = true;
    watcher.join();
    EXPECT_EQ(c.permille.load(), 1000u);
    EXPECT_TRUE(std::is_sorted(seen.begin(), seen.end()));
    EXPECT_EQ(r.predictedTime(), r.measuredTime());  // a finished construction is a replayer
  }
  {
    ReplayControl c;
    c.cancel = true;
    EXPECT_THROW(Replayer(t, Scenario{}, &c), ReplayCancelled);
    // Preparing the updates stops the same way; the replayer stays valid and prepares again.
    Replayer r(t, Scenario{});
    EXPECT_THROW(r.prepareUpdates(&c), ReplayCancelled);
    EXPECT_THROW(r.prepareIndex(&c), ReplayCancelled);  // the index part alone, the same
    ReplayControl progress;
    r.prepareIndex(&progress);  // on a const replayer's index: reports its end
    EXPECT_EQ(progress.permille.load(), 1000u);
    r.prepareUpdates();
    ASSERT_TRUE(r.add(Hypothesis{HypothesisKind::BalanceCompute, {}, 3}));
    Scenario balanced;
    balanced.hypotheses.push_back(Hypothesis{HypothesisKind::BalanceCompute, {}, 3});
    EXPECT_EQ(r.predictedLeaves(), Replayer(t, balanced).predictedLeaves());
  }
}

// A change that moves every rank alike at a Barrier shifts everything after it instead of
// recomputing it (docs/model.md, "Uniform shifts").
TEST(ReplayIncremental, AChangeThatMovesEveryRankAlikeShiftsTheRest) {
  // The three ranks of threeBarriers(). B1's last member arrives at 3000 (rank 2): local
  // costs 3010 - 3000 = 10, 20 and 5; B2's at 3220 (rank 1): local costs 3230 - 3220 = 10, 5
  // and 20. Gaps after B1: 100, 200, 50.
  const Trace t = threeBarriers();
  Replayer r(t, test::simpleScenario());
  ASSERT_EQ(r.predictedTime(), 3400);
  // Zeroing rank 2's computation before B1 (3000 ns): it arrives at 0, so B1 gathers at rank
  // 1's 2000 and returns at 2000 + 10 = 2010, 2000 + 20 = 2020, 2000 + 5 = 2005: every rank
  // 1000 ns earlier. B2 and the ends then move by exactly -1000 ns: B2 enters at 2110, 2220,
  // 2055, returns at 2220 + 10 = 2230, 2225, 2240; the ends are 2300, 2400, 2250.
  std::string error;
  ASSERT_TRUE(r.add({HypothesisKind::ZeroEvent, {2, 0, true}, 0}, &error)) << error;
  const UpdateStats& st = r.lastUpdate();
  EXPECT_EQ(st.shift, -1000);
  EXPECT_EQ(st.shiftAfterCall, (std::vector<std::uint32_t>{0, 0, 0}));
  // Recomputed: rank 2's B1 (its gap changed), B1's gather (it reads that enter) and the two
  // other members (they read the gather). Shifted: B2's three members, its gather and the
  // three end sentinels.
  EXPECT_EQ(st.recomputed, 4u);
  EXPECT_EQ(st.shifted, 7u);
  EXPECT_EQ(st.ranks, (std::vector<std::uint32_t>{0, 1, 2}));
  EXPECT_EQ(r.predicted(0, 0).leave, 2010);
  EXPECT_EQ(r.predicted(1, 0).leave, 2020);
  EXPECT_EQ(r.predicted(2, 0).leave, 2005);
  EXPECT_EQ(r.predicted(0, 1).enter, 2110);
  EXPECT_EQ(r.predicted(1, 1).enter, 2220);
  EXPECT_EQ(r.predicted(2, 1).enter, 2055);
  EXPECT_EQ(r.predicted(0, 1).leave, 2230);
  EXPECT_EQ(r.predicted(1, 1).leave, 2225);
  EXPECT_EQ(r.predicted(2, 1).leave, 2240);
  EXPECT_EQ(r.predictedRankEnd(0), 2300);
  EXPECT_EQ(r.predictedRankEnd(1), 2400);
  EXPECT_EQ(r.predictedRankEnd(2), 2250);
  EXPECT_EQ(r.predictedTime(), 2400);
  expectSameAsFull(r, t, test::simpleScenario(), "zero rank 2's first computation");

  // Zeroing rank 0's computation before B1 as well changes nothing after it (rank 1 still
  // arrives last): the update stops at B1's cut with a shift of 0.
  ASSERT_TRUE(r.add({HypothesisKind::ZeroEvent, {0, 0, true}, 0}, &error)) << error;
  EXPECT_EQ(r.lastUpdate().shift, 0);
  EXPECT_TRUE(r.lastUpdate().shiftAfterCall.empty());
  EXPECT_EQ(r.lastUpdate().ranks, (std::vector<std::uint32_t>{0}));
  EXPECT_EQ(r.predicted(0, 0).leave, 2010);
  EXPECT_EQ(r.predictedTime(), 2400);
  expectSameAsFull(r, t, test::simpleScenario(), "zero ranks 0's and 2's first computation");
}

// predictWith (the advisor's evaluation): T of the scenario with one more hypothesis, the
// replayer left as it was.
TEST(ReplayIncremental, PredictWithGivesTheAddsTimeAndLeavesTheReplayerAsItWas) {
  // The three ranks of threeBarriers(): zeroing rank 2's
  // computation before B1 moves every rank 1000 ns earlier at B1's clean cut, so T = 3400 -
  // 1000 = 2400 (rank 1's end, beyond the cut: not computed, its measured 3400 plus Δ).
  const Trace t = threeBarriers();
  Replayer r(t, test::simpleScenario());
  const std::vector<TimeNs> leaves = r.predictedLeaves();
  const Hypothesis zero{HypothesisKind::ZeroEvent, {2, 0, true}, 0};
  EXPECT_EQ(r.predictWith(zero), 2400);
  EXPECT_TRUE(r.scenario().hypotheses.empty());
  EXPECT_EQ(r.predictedTime(), 3400);
  EXPECT_EQ(r.predictedLeaves(), leaves);
  // Rank 1's computation before B1 (2000 ns) zeroed as well would not matter then; alone, B1
  // gathers at rank 2's 3000 still: nothing moves, T stays 3400.
  EXPECT_EQ(r.predictWith({HypothesisKind::ZeroEvent, {1, 0, true}, 0}), 3400);
  // Refused like add(); a hypothesis already in the scenario gives the current T.
  std::string error;
  EXPECT_EQ(r.predictWith({HypothesisKind::ZeroEvent, {7, 0, true}, 0}, &error), -1);
  EXPECT_FALSE(error.empty());
  ASSERT_TRUE(r.add(zero));
  EXPECT_EQ(r.predictWith(zero), 2400);
  expectSameAsFull(r, t, test::simpleScenario(), "after predictWith");
}

TEST(ReplayIncremental, PredictWithEqualsAddThenRemoveOnRandomTraces) {
  std::mt19937_64 rng(4242);
  for (int trial = 0; trial < 80; ++trial) {
    const Trace t = trial < 60 ? randomTrace(rng) : randomTrace(rng, 16, 400);
    Replayer r(t, test::simpleScenario());
    auto twin = r.fork();
    for (int i = 0; i < 6; ++i) {
      const Hypothesis h = randomHypothesis(t, rng);
      const std::string what = "trial " + std::to_string(trial) + " " + h.toString();
      std::string e1, e2;
      const TimeNs got = r.predictWith(h, &e1);
      TimeNs want = -1;
      const bool present =
          std::binary_search(twin->scenario().hypotheses.begin(), twin->scenario().hypotheses.end(), h.canonical());
      if (present) {
        want = twin->predictedTime();
      } else if (twin->add(h, &e2)) {
        want = twin->predictedTime();
        twin->remove(h);
      }
      ASSERT_EQ(got, want) << what << " " << e1 << " / " << e2;
      ASSERT_EQ(r.predictedTime(), twin->predictedTime()) << what;
      ASSERT_EQ(r.predictedLeaves(), twin->predictedLeaves()) << what;
      ASSERT_EQ(r.scenario().hypotheses, twin->scenario().hypotheses) << what;
      // Now and then keep one, so that evaluations start from scenarios with hypotheses too.
      if (rng() % 3 == 0 && r.add(h)) {
        ASSERT_TRUE(twin->add(h)) << what;
      }
    }
    expectSameAsFull(r, t, test::simpleScenario(), "trial " + std::to_string(trial));
  }
}

// A message that crosses the Barrier keeps its sender's time while everything else moves: the
// cut is not clean and the update recomputes what follows instead of shifting it.
TEST(ReplayIncremental, AMessageAcrossACollectiveIsRecomputedNotShifted) {
  // rank 0: Isend to rank 1 [500, 510], Barrier [1000, 3010], Waitall of the Isend [3100, 3110]
  // rank 1: Irecv [100, 110], Barrier [3000, 3005], Waitall of the Irecv [3050, 3060]
  // Measured: the Barrier gathers at 3000 (locals 10 and 5); the message (λ(8) = o + L = 1100)
  // is there at 500 + 1100 = 1600 < 3050, so rank 1's Waitall did not wait (local 10).
  test::Tb b(2);
  b.isend(0, 500, 510, 1, 8, 1);
  b.barrier(0, 1000, 3010);
  b.waitall(0, 3100, 3110, {1}, {}, 1);
  b.irecv(1, 100, 110, 2);
  b.barrier(1, 3000, 3005);
  b.waitall(1, 3050, 3060, {}, {2}, 0);
  const Trace t = b.take();
  Replayer r(t, test::simpleScenario());
  // Zeroing rank 1's computation before the Barrier (2890 ns): it arrives at 110, the Barrier
  // gathers at rank 0's 1000 and returns at 1010 and 1005: both ranks 2000 ns earlier. Rank
  // 1's Waitall enters at 1005 + 45 = 1050, but the message still arrives at 1600: it returns
  // at 1600 + 10 = 1610, not 3060 - 2000 = 1060. Rank 0's Waitall: 1010 + 90 = 1100, 1110.
  std::string error;
  ASSERT_TRUE(r.add({HypothesisKind::ZeroEvent, {1, 1, true}, 0}, &error)) << error;
  EXPECT_EQ(r.lastUpdate().shifted, 0u);
  EXPECT_EQ(r.predicted(0, 1).leave, 1010);
  EXPECT_EQ(r.predicted(1, 1).leave, 1005);
  EXPECT_EQ(r.predicted(1, 2).enter, 1050);
  EXPECT_EQ(r.predicted(1, 2).leave, 1610);
  EXPECT_EQ(r.predicted(0, 2).leave, 1110);
  EXPECT_EQ(r.predictedTime(), 1610);
  expectSameAsFull(r, t, test::simpleScenario(), "zero rank 1's computation before the Barrier");
}

// The effective gaps, local costs and offsets are copied from the program chunk by chunk at the
// first change in each (Replayer::changedValueBytes: chunks of 2 Ki units): a change to one call
// or one step holds a few chunks, not a copy of every unit, and reads across chunk borders, in
// forks and after removing give what a full replay gives.
TEST(ReplayIncremental, AChangeHoldsTheChunksItTouchesAndEqualsAFullReplay) {
  GeneratorSpec spec;
  spec.ranks = 4;
  spec.steps = 40000;  // 4 calls per step and rank: 160,000 units per rank, 79 chunks
  spec.imbalance = 0.5;
  spec.nonBlocking = true;
  TraceBuilder b("chunks", "generated");
  generateTrace(spec, b);
  const Trace t = b.take();
  ASSERT_GT(t.ranks[0].mpiCalls.size(), 64u * 2048u);
  const std::uint64_t copyOfAll = 8 * (t.mpiCallCount() + t.rankCount());  // one array of every unit

  Replayer inc(t, Scenario{});
  inc.prepareUpdates();
  EXPECT_EQ(inc.changedValueBytes(), 0u) << "preparing copies nothing";
  // The last call of the first chunk and the first of the second (rank 0's units begin at 0).
  const Hypothesis lastOfChunk{HypothesisKind::ZeroEvent, {0, 2047, false}};
  const Hypothesis firstOfNext{HypothesisKind::ZeroEvent, {0, 2048, false}};
  ASSERT_TRUE(inc.add(lastOfChunk));
  const std::uint64_t one = inc.changedValueBytes();
  EXPECT_GT(one, 0u);
  EXPECT_LT(one, copyOfAll / 8) << "one call holds a chunk per array, not a copy";
  ASSERT_TRUE(inc.add(firstOfNext));
  expectSameAsFull(inc, t, Scenario{}, "both sides of a chunk border zeroed");
  EXPECT_GT(inc.changedValueBytes(), one) << "the second call is in the next chunk";

  const Hypothesis balance{HypothesisKind::BalanceCompute, {}, 20000};
  ASSERT_TRUE(inc.add(balance));
  expectSameAsFull(inc, t, Scenario{}, "and a step balanced");
  EXPECT_LT(inc.changedValueBytes(), copyOfAll / 8) << "a step holds a chunk or two per rank";

  // A fork copies the chunks it has: its changes leave the original alone.
  const auto fork = inc.fork();
  ASSERT_TRUE(fork->add(Hypothesis{HypothesisKind::ZeroEvent, {3, 150000, false}}));
  expectSameAsFull(*fork, t, Scenario{}, "the fork, one more call zeroed");
  expectSameAsFull(inc, t, Scenario{}, "the original after the fork changed");

  // Compensation changes every unit: every chunk of the gaps and of the local costs.
  ASSERT_TRUE(inc.add(Hypothesis::compensate(137)));
  expectSameAsFull(inc, t, Scenario{}, "compensated");
  EXPECT_GE(inc.changedValueBytes(), 2 * copyOfAll);

  for (const Hypothesis& h : {lastOfChunk, firstOfNext, balance, Hypothesis::compensate(137)})
    ASSERT_TRUE(inc.remove(h));
  const Replayer base(t, Scenario{});
  EXPECT_EQ(inc.predictedEnters(), base.predictedEnters());
  EXPECT_EQ(inc.predictedLeaves(), base.predictedLeaves());
}

// A series of changes, each withdrawn (the advisor's step ranking: one balanced step after the
// other, each added and removed, or evaluated by predictWith): releaseUnchangedCopies gives back
// the chunks whose values are the program's own again, so the series ends holding nothing;
// without it every chunk a change touched stays copied. Chunks of a change still in place stay.
TEST(ReplayIncremental, ReleasingUnchangedCopiesKeepsOnlyTheCurrentChanges) {
  GeneratorSpec spec;
  spec.ranks = 4;
  spec.steps = 20000;  // 4 calls per step and rank: 80,000 units per rank, 40 chunks
  spec.imbalance = 0.5;
  TraceBuilder b("release", "generated");
  generateTrace(spec, b);
  const Trace t = b.take();
  Replayer kept(t, Scenario{}), released(t, Scenario{});
  kept.prepareUpdates();
  released.prepareUpdates();
  const Hypothesis first{HypothesisKind::BalanceCompute, {}, 500};
  ASSERT_TRUE(released.add(first));
  const std::uint64_t oneStep = released.changedValueBytes();  // what one balanced step holds
  ASSERT_GT(oneStep, 0u);
  ASSERT_TRUE(released.remove(first));
  // Steps 1,000 apart: each balance touches other chunks (80 units per step and rank).
  for (std::uint32_t k = 500; k < spec.steps; k += 1000) {
    const Hypothesis h{HypothesisKind::BalanceCompute, {}, k};
    ASSERT_TRUE(kept.add(h));
    ASSERT_TRUE(kept.remove(h));
    ASSERT_TRUE(released.add(h));
    ASSERT_TRUE(released.remove(h));
    released.releaseUnchangedCopies();
    EXPECT_EQ(released.changedValueBytes(), 0u) << "step " << k;
    const TimeNs t0 = released.predictedTime();
    ASSERT_GE(released.predictWith(h), 0);
    EXPECT_EQ(released.predictedTime(), t0);
    released.releaseUnchangedCopies();
    EXPECT_EQ(released.changedValueBytes(), 0u) << "step " << k << ", evaluated";
  }
  // 20 steps in different chunks: without the release about 20 steps' worth stays.
  EXPECT_GE(kept.changedValueBytes(), 15 * oneStep) << "without the release every touched chunk stays";
  EXPECT_EQ(released.predictedLeaves(), kept.predictedLeaves());

  // A change in place keeps its chunks; withdrawn, they go.
  const Hypothesis h{HypothesisKind::BalanceCompute, {}, 10000};
  ASSERT_TRUE(released.add(h));
  released.releaseUnchangedCopies();
  const std::uint64_t inPlace = released.changedValueBytes();
  EXPECT_GT(inPlace, 0u);
  expectSameAsFull(released, t, Scenario{}, "a step balanced after the releases");
  ASSERT_TRUE(released.remove(h));
  released.releaseUnchangedCopies();
  EXPECT_EQ(released.changedValueBytes(), 0u);
  const Replayer base(t, Scenario{});
  EXPECT_EQ(released.predictedLeaves(), base.predictedLeaves());
}

TEST(PredictedRank, SharedTailAndBlockMaximaReadAsOwnValues) {
  // A rank of 10,000 events (three blocks of kMaxBlock and a short one) with random leaves, and
  // a second one that owns its first 5,000 values and reads the rest from the first plus a
  // shift: every read and every maxLeaveFrom equals the same arrays owned whole. Every 997th
  // leave is 10 s late (a long outer region): more than a compact column's block holds, so
  // those values are escapes (time_column.h).
  std::mt19937_64 rng(20261129);
  const std::size_t n = 10000;
  auto root = std::make_shared<PredictedRank>();
  for (std::size_t e = 0; e < n; ++e) {
    root->ownEnter.push_back(TimeNs(e * 10));
    root->ownLeave.push_back(TimeNs(e * 10 + rng() % 100000) + (e % 997 == 0 ? 10'000'000'000 : 0));
  }
  ASSERT_GT(root->ownLeave.escapes(), 0u);
  root->ownWait = {7, 7, 7};
  root->indexLeaves();
  ASSERT_EQ(root->blockMaxLeave.size(), (n + PredictedRank::kMaxBlock - 1) / PredictedRank::kMaxBlock);
  PredictedRank view, whole;
  view.tail = root;
  view.tailShift = -25;
  for (std::size_t e = 0; e < n; ++e) {
    const TimeNs en = e < 5000 ? TimeNs(rng() % 1000) : root->ownEnter[e] - 25;
    const TimeNs le = e < 5000 ? TimeNs(rng() % 200000) : root->ownLeave[e] - 25;
    if (e < 5000) {
      view.ownEnter.push_back(en);
      view.ownLeave.push_back(le);
    }
    whole.ownEnter.push_back(en);
    whole.ownLeave.push_back(le);
  }
  view.ownWait = {1};
  whole.ownWait = {1, 7, 7};
  whole.indexLeaves();
  view.end = whole.end = whole.maxLeaveFrom(0);
  expectSameRank(view, whole, "view");
  expectSameRank(whole, view, "whole");
  expectSameRank(*root, *root, "root");
  EXPECT_EQ(view.maxLeaveFrom(n), std::numeric_limits<TimeNs>::min());
}
