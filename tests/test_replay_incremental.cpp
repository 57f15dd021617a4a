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
#include <random>

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
