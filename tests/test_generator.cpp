// Synthetic trace generator: counts derived by hand from the spec, matching, causality,
// determinism and the streaming order the writers rely on.
#include "model_invariants.h"
#include "perwiz/generator.h"
#include "perwiz/trace_builder.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>

using namespace perwiz;

namespace {

Trace build(const GeneratorSpec& spec) {
  TraceBuilder builder("generated", "generated");
  generateTrace(spec, builder);
  Trace t = builder.take();
  // Every generated shape must be a well-formed model.
  EXPECT_EQ(perwiz::test::modelViolation(t), "");
  return t;
}

std::uint64_t totalMessages(const Trace& t, bool sends) {
  std::uint64_t n = 0;
  for (const auto& r : t.ranks)
    for (const auto& m : r.messages) n += m.isSend == sends ? 1 : 0;
  return n;
}

std::uint64_t mpiCallsOn(const Trace& t, std::uint32_t rank) {
  return t.ranks[rank].mpiCalls.size();
}

GeneratorSpec baseSpec() {
  GeneratorSpec s;
  s.ranks = 4;
  s.steps = 5;
  s.seed = 7;
  s.computeNs = 100000;
  s.imbalance = 0.0;
  s.messageBytes = 4096;
  s.messagesPerStep = 1;
  s.pattern = P2PPattern::Ring;
  s.collective = MpiOp::Allreduce;
  return s;
}

}  // namespace

TEST(GeneratorCounts, RingBlocking) {
  GeneratorSpec s = baseSpec();
  s.messagesPerStep = 2;
  // Per rank and step: PRGN_step + 2 Sendrecv + Allreduce = 4 events, 3 of them MPI calls.
  // 4 ranks x 5 steps: 80 events, 60 calls. Each rank sends 2 per step: 4*2*5 = 40 messages.
  Trace t = build(s);
  EXPECT_EQ(generatedEventCount(s), 80u);
  EXPECT_EQ(t.eventCount(), 80u);
  EXPECT_EQ(t.mpiCallCount(), 60u);
  EXPECT_EQ(totalMessages(t, true), 40u);
  EXPECT_EQ(totalMessages(t, false), 40u);
  EXPECT_EQ(t.messageStats.matched, 40u);
  EXPECT_EQ(t.messageStats.unmatchedSends, 0u);
  EXPECT_EQ(t.messageStats.unmatchedReceives, 0u);
  // One Allreduce per step, all 4 ranks in each.
  ASSERT_EQ(t.collectives.size(), 5u);
  for (const auto& c : t.collectives) {
    EXPECT_EQ(c.op, MpiOp::Allreduce);
    EXPECT_EQ(c.participants, 4u);
  }
  EXPECT_EQ(t.steps.size(), 5u);
  EXPECT_TRUE(t.warnings.empty()) << t.warnings.front().toString();
  // Ring: rank r sends to r+1 and receives from r-1.
  for (std::uint32_t r = 0; r < 4; ++r)
    for (const auto& m : t.ranks[r].messages)
      EXPECT_EQ(m.peer, static_cast<std::int32_t>(m.isSend ? (r + 1) % 4 : (r + 3) % 4));
}

TEST(GeneratorCounts, RingNonBlocking) {
  GeneratorSpec s = baseSpec();
  s.ranks = 3;
  s.steps = 4;
  s.nonBlocking = true;
  // Per rank and step: PRGN_step + Isend + Irecv + Waitall + Allreduce = 5 events (4 MPI).
  // 3 ranks x 4 steps: 60 events, 48 calls, 3*4 = 12 messages.
  Trace t = build(s);
  EXPECT_EQ(generatedEventCount(s), 60u);
  EXPECT_EQ(t.eventCount(), 60u);
  EXPECT_EQ(t.mpiCallCount(), 48u);
  EXPECT_EQ(t.messageStats.matched, 12u);
  EXPECT_EQ(t.messageStats.unmatchedSends + t.messageStats.unmatchedReceives, 0u);
  EXPECT_TRUE(t.warnings.empty()) << t.warnings.front().toString();
  // Sends are posted by Isend and completed by Waitall; receives posted by Irecv, completed by
  // Waitall; every one carries a non-zero request.
  for (std::uint32_t r = 0; r < 3; ++r) {
    for (const auto& m : t.ranks[r].messages) {
      EXPECT_NE(m.request, 0u);
      ASSERT_NE(m.event, kNone32);
      ASSERT_NE(m.postEvent, kNone32);
      EXPECT_EQ(t.fn(r, m.postEvent).op, m.isSend ? MpiOp::Isend : MpiOp::Irecv);
      EXPECT_EQ(t.fn(r, m.event).op, MpiOp::Waitall);
    }
  }
}

TEST(GeneratorCounts, MasterWorkerBlocking) {
  GeneratorSpec s = baseSpec();
  s.steps = 3;
  s.pattern = P2PPattern::MasterWorker;
  s.collective = MpiOp::Barrier;
  // Worker per step: PRGN_step + Send + Barrier = 3; master: PRGN_step + 3 Recv + Barrier = 5.
  // Per step 3*3 + 5 = 14, 3 steps: 42 events. Messages: 3 workers x 3 steps = 9.
  Trace t = build(s);
  EXPECT_EQ(generatedEventCount(s), 42u);
  EXPECT_EQ(t.eventCount(), 42u);
  EXPECT_EQ(mpiCallsOn(t, 0), 3u * 4u);
  EXPECT_EQ(mpiCallsOn(t, 1), 3u * 2u);
  EXPECT_EQ(t.messageStats.matched, 9u);
  EXPECT_EQ(t.collectives.size(), 3u);
  for (const auto& m : t.ranks[0].messages) EXPECT_FALSE(m.isSend);
  for (std::uint32_t r = 1; r < 4; ++r)
    for (const auto& m : t.ranks[r].messages) {
      EXPECT_TRUE(m.isSend);
      EXPECT_EQ(m.peer, 0);
    }
}

TEST(GeneratorCounts, MasterWorkerNonBlocking) {
  GeneratorSpec s = baseSpec();
  s.steps = 2;
  s.pattern = P2PPattern::MasterWorker;
  s.nonBlocking = true;
  // Worker per step: PRGN_step + Isend + Waitall + Allreduce = 4; master: PRGN_step + 3 Irecv +
  // Waitall + Allreduce = 6. Per step 3*4 + 6 = 18, 2 steps: 36 events, 6 messages.
  Trace t = build(s);
  EXPECT_EQ(generatedEventCount(s), 36u);
  EXPECT_EQ(t.eventCount(), 36u);
  EXPECT_EQ(t.messageStats.matched, 6u);
  EXPECT_TRUE(t.warnings.empty()) << t.warnings.front().toString();
}

TEST(GeneratorCounts, PairsWithOddRankCount) {
  GeneratorSpec s = baseSpec();
  s.ranks = 5;
  s.steps = 3;
  s.pattern = P2PPattern::Pairs;
  s.collective = MpiOp::None;
  // Ranks 0..3 pair up (0-1, 2-3): PRGN_step + Sendrecv = 2 each; rank 4 has no partner:
  // PRGN_step only. Per step 4*2 + 1 = 9, 3 steps: 27 events; messages 4 per step = 12.
  Trace t = build(s);
  EXPECT_EQ(generatedEventCount(s), 27u);
  EXPECT_EQ(t.eventCount(), 27u);
  EXPECT_EQ(t.messageStats.matched, 12u);
  EXPECT_TRUE(t.collectives.empty());
  EXPECT_TRUE(t.ranks[4].messages.empty());
  for (std::uint32_t r = 0; r < 4; ++r)
    for (const auto& m : t.ranks[r].messages) EXPECT_EQ(m.peer, static_cast<std::int32_t>(r ^ 1));
}

TEST(GeneratorCounts, NoPointToPoint) {
  GeneratorSpec s = baseSpec();
  s.pattern = P2PPattern::None;
  s.collective = MpiOp::Bcast;
  // PRGN_step + Bcast per rank and step: 2 * 4 * 5 = 40 events, no messages.
  Trace t = build(s);
  EXPECT_EQ(t.eventCount(), 40u);
  EXPECT_EQ(generatedEventCount(s), 40u);
  EXPECT_EQ(totalMessages(t, true) + totalMessages(t, false), 0u);
  ASSERT_EQ(t.collectives.size(), 5u);
  EXPECT_EQ(t.collectives[0].op, MpiOp::Bcast);
  for (const auto& r : t.ranks)
    for (const auto& c : r.collectives) EXPECT_EQ(c.root, 0);
}

TEST(GeneratorCounts, RandomPatternIsAPermutationWithoutSelfMessages) {
  GeneratorSpec s = baseSpec();
  s.ranks = 6;
  s.steps = 8;
  s.pattern = P2PPattern::Random;
  s.messagesPerStep = 2;
  // Same shape as Ring: (1 + 2 + 1) * 6 * 8 = 192 events; 6*2*8 = 96 messages.
  Trace t = build(s);
  EXPECT_EQ(t.eventCount(), 192u);
  EXPECT_EQ(generatedEventCount(s), 192u);
  EXPECT_EQ(t.messageStats.matched, 96u);
  std::set<std::int32_t> destinationsOfRank0;
  for (std::uint32_t r = 0; r < 6; ++r)
    for (const auto& m : t.ranks[r].messages) {
      EXPECT_NE(m.peer, static_cast<std::int32_t>(r));
      if (r == 0 && m.isSend) destinationsOfRank0.insert(m.peer);
    }
  // 8 random permutations: rank 0 would always pick the same partner only with a broken rng.
  EXPECT_GT(destinationsOfRank0.size(), 1u);
}

TEST(GeneratorCounts, SpecForEventCount) {
  GeneratorSpec s = baseSpec();
  // Ring, 1 Sendrecv, Allreduce: 3 events per rank and step, 12 per step on 4 ranks.
  // 100 events need ceil(100 / 12) = 9 steps (108 events; 8 steps give only 96).
  GeneratorSpec sized = specForEventCount(s, 100);
  EXPECT_EQ(sized.steps, 9u);
  EXPECT_EQ(generatedEventCount(sized), 108u);
  EXPECT_EQ(specForEventCount(s, 12).steps, 1u);
  EXPECT_EQ(specForEventCount(s, 13).steps, 2u);
  EXPECT_EQ(sized.ranks, s.ranks);
  EXPECT_EQ(sized.seed, s.seed);
}

TEST(GeneratorDeterminism, SameSeedSameTraceOtherSeedDifferent) {
  GeneratorSpec s = baseSpec();
  s.imbalance = 0.4;
  s.pattern = P2PPattern::Random;
  Trace a = build(s);
  Trace b = build(s);
  std::string why;
  EXPECT_TRUE(a.sameModel(b, &why)) << why;
  s.seed = 8;
  Trace c = build(s);
  EXPECT_FALSE(a.sameModel(c));
}

TEST(GeneratorTiming, NoImbalanceGivesEqualCompute) {
  GeneratorSpec s = baseSpec();
  Trace t = build(s);
  // Each step opens with PRGN_step; the first MPI call starts after exactly computeNs.
  for (std::uint32_t r = 0; r < t.rankCount(); ++r) {
    const RankTrace& rt = t.ranks[r];
    for (std::uint32_t e = 0; e + 1 < rt.size(); ++e) {
      if (t.fn(r, e).name != "PRGN_step") continue;
      EXPECT_EQ(rt.enter[e + 1] - rt.enter[e], s.computeNs) << "rank " << r << " event " << e;
    }
  }
}

TEST(GeneratorTiming, ImbalanceSpreadsComputeWithinBounds) {
  GeneratorSpec s = baseSpec();
  s.imbalance = 0.5;
  s.steps = 20;
  Trace t = build(s);
  std::set<TimeNs> distinct;
  for (std::uint32_t r = 0; r < t.rankCount(); ++r) {
    const RankTrace& rt = t.ranks[r];
    for (std::uint32_t e = 0; e + 1 < rt.size(); ++e) {
      if (t.fn(r, e).name != "PRGN_step") continue;
      TimeNs compute = rt.enter[e + 1] - rt.enter[e];
      // computeNs * (1 + 0.5 u), u in [-1, 1]: between 50000 and 150000 ns.
      EXPECT_GE(compute, 50000);
      EXPECT_LE(compute, 150000);
      distinct.insert(compute);
    }
  }
  EXPECT_GT(distinct.size(), 10u);
}

TEST(GeneratorTiming, ReceivesNeverBeforeSendPlusTransfer) {
  for (bool nonBlocking : {false, true}) {
    for (P2PPattern p : {P2PPattern::Ring, P2PPattern::MasterWorker, P2PPattern::Random}) {
      GeneratorSpec s = baseSpec();
      s.imbalance = 0.8;
      s.pattern = p;
      s.nonBlocking = nonBlocking;
      s.messagesPerStep = 3;
      Trace t = build(s);
      // latency 5000 ns + 4096 bytes at 1 byte/ns.
      const TimeNs minTransfer = 5000 + 4096;
      EXPECT_EQ(t.messageStats.receiveBeforeSend, 0u);
      std::uint64_t checked = 0;
      for (const auto& r : t.ranks)
        for (const auto& m : r.messages) {
          if (!m.isSend) continue;
          ASSERT_TRUE(m.matched());
          const MessageEndpoint& recv = t.ranks[m.matchRank].messages[m.matchIndex];
          EXPECT_FALSE(recv.isSend);
          EXPECT_GE(recv.time, m.time + minTransfer);
          ++checked;
        }
      EXPECT_GT(checked, 0u);
    }
  }
}

TEST(GeneratorTiming, CollectiveEndsAfterLastEnter) {
  GeneratorSpec s = baseSpec();
  s.imbalance = 0.7;
  Trace t = build(s);
  std::vector<TimeNs> lastEnter(t.collectives.size(), 0), firstLeave(t.collectives.size(),
                                                                      INT64_MAX);
  for (const auto& r : t.ranks)
    for (const auto& c : r.collectives) {
      ASSERT_LT(c.instance, t.collectives.size());
      lastEnter[c.instance] = std::max(lastEnter[c.instance], r.enter[c.event]);
      firstLeave[c.instance] = std::min(firstLeave[c.instance], r.leave[c.event]);
    }
  for (std::size_t i = 0; i < t.collectives.size(); ++i) EXPECT_GE(firstLeave[i], lastEnter[i]);
}

TEST(GeneratorSteps, EveryStepPresentOnEveryRank) {
  GeneratorSpec s = baseSpec();
  s.steps = 7;
  s.ranks = 3;
  Trace t = build(s);
  ASSERT_EQ(t.steps.size(), 7u);
  for (const auto& step : t.steps) {
    ASSERT_EQ(step.ranks.size(), 3u);
    for (const auto& span : step.ranks) {
      EXPECT_TRUE(span.present());
      EXPECT_LE(span.begin, span.end);
    }
  }
  // Steps follow each other on each rank.
  for (std::size_t k = 1; k < t.steps.size(); ++k)
    for (std::size_t r = 0; r < 3; ++r)
      EXPECT_GE(t.steps[k].ranks[r].begin, t.steps[k - 1].ranks[r].end);
}

namespace {

// Checks the streaming contract without building a model: per-rank time order, and every
// record of step k (delimited by PRGN_step) before any record of step k+1.
class OrderCheckingSink : public TraceSink {
 public:
  std::uint32_t stepFn = kNone32;
  std::vector<TimeNs> last;
  std::vector<std::uint32_t> stepsLeft;  // per rank: PRGN_step leaves seen
  std::uint64_t enters = 0, leaves = 0, sends = 0, recvs = 0, outOfOrder = 0, interleavedSteps = 0;
  std::vector<std::string> names;

  void begin(const TraceHeader& h) override {
    last.assign(h.ranks, 0);
    stepsLeft.assign(h.ranks, 0);
  }
  std::uint32_t defineFunction(const Function& f) override {
    names.push_back(f.name);
    if (f.name == "PRGN_step") stepFn = static_cast<std::uint32_t>(names.size() - 1);
    return static_cast<std::uint32_t>(names.size() - 1);
  }
  std::uint32_t defineComm(const Communicator&) override { return 1; }
  void at(std::uint32_t r, TimeNs t) {
    if (t < last[r]) ++outOfOrder;
    last[r] = t;
  }
  void enter(std::uint32_t r, TimeNs t, std::uint32_t f) override {
    at(r, t);
    ++enters;
    // Entering step k+1 on rank r while another rank has not yet left step k.
    if (f == stepFn)
      for (auto n : stepsLeft)
        if (n < stepsLeft[r]) ++interleavedSteps;
  }
  void leave(std::uint32_t r, TimeNs t, std::uint32_t f) override {
    at(r, t);
    ++leaves;
    if (f == stepFn) ++stepsLeft[r];
  }
  void point(std::uint32_t r, TimeNs t, std::uint32_t, std::string_view) override { at(r, t); }
  void send(std::uint32_t r, TimeNs t, std::int32_t, std::uint32_t, std::int32_t, std::uint64_t,
            std::uint64_t) override {
    at(r, t);
    ++sends;
  }
  void recv(std::uint32_t r, TimeNs t, std::int32_t, std::uint32_t, std::int32_t, std::uint64_t,
            std::uint64_t) override {
    at(r, t);
    ++recvs;
  }
  void isendComplete(std::uint32_t r, TimeNs t, std::uint64_t) override { at(r, t); }
  void irecvRequest(std::uint32_t r, TimeNs t, std::uint64_t) override { at(r, t); }
  void collective(std::uint32_t r, TimeNs t, MpiOp, std::uint32_t, std::int32_t, std::uint64_t,
                  std::uint64_t) override {
    at(r, t);
  }
  void end() override {}
};

}  // namespace

TEST(GeneratorStream, RecordsInRankTimeOrderAndStepByStep) {
  GeneratorSpec s = baseSpec();
  s.ranks = 5;
  s.steps = 6;
  s.imbalance = 0.9;
  s.pattern = P2PPattern::Random;
  s.nonBlocking = true;
  s.messagesPerStep = 2;
  OrderCheckingSink sink;
  generateTrace(s, sink);
  EXPECT_EQ(sink.outOfOrder, 0u);
  EXPECT_EQ(sink.interleavedSteps, 0u);
  EXPECT_EQ(sink.enters, generatedEventCount(s));
  EXPECT_EQ(sink.leaves, sink.enters);
  // Random, 2 exchanges: every rank sends and receives 2 per step: 5*2*6 = 60 each.
  EXPECT_EQ(sink.sends, 60u);
  EXPECT_EQ(sink.recvs, 60u);
  // Only the functions this shape uses are defined.
  std::vector<std::string> expected = {"PRGN_step", "MPI_Isend", "MPI_Irecv", "MPI_Waitall",
                                       "MPI_Allreduce"};
  EXPECT_EQ(sink.names, expected);

  OrderCheckingSink masterWorker;
  s.pattern = P2PPattern::MasterWorker;
  s.nonBlocking = false;
  s.collective = MpiOp::None;
  generateTrace(s, masterWorker);
  EXPECT_EQ(masterWorker.outOfOrder, 0u);
  expected = {"PRGN_step", "MPI_Send", "MPI_Recv"};
  EXPECT_EQ(masterWorker.names, expected);
}

TEST(GeneratorPattern, NamesRoundTrip) {
  for (P2PPattern p : {P2PPattern::None, P2PPattern::Ring, P2PPattern::Pairs,
                       P2PPattern::MasterWorker, P2PPattern::Random}) {
    bool ok = false;
    EXPECT_EQ(parsePattern(patternName(p), &ok), p);
    EXPECT_TRUE(ok);
  }
  bool ok = true;
  parsePattern("star", &ok);
  EXPECT_FALSE(ok);
}
