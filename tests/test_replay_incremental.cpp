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
  std::uint64_t updates = 0, partial = 0;
  for (int trial = 0; trial < 60; ++trial) {
    const Trace t = randomTrace(rng);
    if (t.mpiCallCount() == 0) continue;
    Scenario base;
    base.costs = trial % 3 == 2 ? CostMode::Model : CostMode::Measured;
    Replayer inc(t, base);
    // Every other trial as the GUI runs it: index and own copies made up front.
    if (trial % 2 == 1) inc.prepareUpdates();
    std::vector<Hypothesis> active;
    Replayer::EventTimes before = inc.predictedEventTimes();
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
      expectSameAsFull(inc, t, base, what);
      if (HasFatalFailure()) return;
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
  // The property is only interesting if most updates were genuinely partial.
  EXPECT_GT(partial * 2, updates);
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
  for (int trial = 0; trial < 60; ++trial) {
    const Trace t = randomTrace(rng);
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
      EXPECT_EQ(one.enter, all.enter[rank]);
      EXPECT_EQ(one.leave, all.leave[rank]);
      TimeNs end = 0;
      for (TimeNs l : all.leave[rank]) end = std::max(end, l);
      EXPECT_EQ(one.end, end);
      ASSERT_EQ(one.wait.size(), t.ranks[rank].mpiCalls.size());
      for (std::uint32_t c = 0; c < one.wait.size(); ++c) {
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
    r.prepareUpdates();
    ASSERT_TRUE(r.add(Hypothesis{HypothesisKind::BalanceCompute, {}, 3}));
    Scenario balanced;
    balanced.hypotheses.push_back(Hypothesis{HypothesisKind::BalanceCompute, {}, 3});
    EXPECT_EQ(r.predictedLeaves(), Replayer(t, balanced).predictedLeaves());
  }
}
