// The distributed replay (perwiz/distributed.h) against the serial one: P "processes" as
// threads (thread_group.h) must give every rank's predicted end and T to the nanosecond.
#include "perwiz/advisor.h"
#include "perwiz/distributed.h"
#include "perwiz/execution_dag.h"
#include "perwiz/generator.h"
#include "perwiz/trace_builder.h"
#include "perwiz/trace_io.h"
#include "test_support.h"
#include "thread_group.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <set>
#include <mutex>

namespace fs = std::filesystem;
using namespace perwiz;
using perwiz::test::freshDir;
using perwiz::test::runGroup;

namespace {

const fs::path kSamples = PERWIZ_SAMPLE;

fs::path generated(const std::string& name, const GeneratorSpec& spec) {
  const fs::path dir = freshDir("Distributed_" + name) / "trace";
  auto w = makeOtf2Writer(dir.string());
  generateTrace(spec, *w);
  return dir;
}

struct Serial {
  TimeNs measured = 0, predicted = 0;
  std::vector<TimeNs> measuredEnd, predictedEnd;
  std::uint64_t brokenCycles = 0;
  CriticalPath path, firstSegments;  // the full listing, and the first kFirst segments
  std::map<std::string, TimeNs> pathByFunction;  // the path's time per function name (non-zero)
  std::vector<std::string> callFunction, partnerFunction;  // per segment of `path` ("" if none)
};

constexpr std::size_t kFirst = 7;

std::string nameOfCall(const Trace& t, std::uint32_t rank, std::uint32_t index) {
  if (rank == kNone32) return "";
  return t.functions[t.ranks[rank].function[t.ranks[rank].mpiCalls.at(index)]].name;
}

Serial serial(const fs::path& path, const Scenario& s) {
  const Trace t = loadTrace(path.string());
  Replayer rp(t, s);
  Serial out;
  out.measured = rp.measuredTime();
  out.predicted = rp.predictedTime();
  out.brokenCycles = rp.report().brokenCycles;
  for (std::uint32_t r = 0; r < t.rankCount(); ++r) {
    out.measuredEnd.push_back(rp.measuredRankEnd(r));
    out.predictedEnd.push_back(rp.predictedRankEnd(r));
  }
  out.path = criticalPath(rp, CriticalPathListing::Full);
  out.firstSegments = criticalPath(rp, CriticalPathListing::Segments, kFirst);
  for (std::uint32_t f = 0; f < t.functions.size(); ++f)
    if (out.path.totals.perFunction[f] != 0) out.pathByFunction[t.functions[f].name] += out.path.totals.perFunction[f];
  for (const CriticalSegment& g : out.path.segments) {
    out.callFunction.push_back(g.kind == CriticalSegment::Kind::Computation ? "" : nameOfCall(t, g.rank, g.index));
    out.partnerFunction.push_back(nameOfCall(t, g.fromRank, g.fromIndex));
  }
  return out;
}

std::vector<DistributedPrediction> distributed(const fs::path& path, const Scenario& s, std::uint32_t P,
                                               CriticalPathListing listing = CriticalPathListing::Full,
                                               std::size_t first = static_cast<std::size_t>(-1)) {
  std::vector<DistributedPrediction> out(P);
  DistributedOptions o;
  o.scenario = s;
  o.criticalPath = true;
  o.pathListing = listing;
  o.pathFirstSegments = first;
  const auto errors = runGroup(P, [&](ProcessGroup& g) { out[g.rank()] = predictDistributed(path.string(), o, g); });
  for (std::uint32_t q = 0; q < P; ++q)
    if (errors[q]) std::rethrow_exception(errors[q]);
  return out;
}

bool sameSegment(const CriticalSegment& a, const CriticalSegment& b) {
  return a.kind == b.kind && a.rank == b.rank && a.index == b.index && a.fromRank == b.fromRank &&
         a.fromIndex == b.fromIndex && a.begin == b.begin && a.end == b.end;
}

// The distributed critical path is the serial one: length and totals on every process, the
// listing (segments, call ids, functions) on process 0.
void expectSamePath(const Serial& ref, const DistributedPrediction& d, bool processZero) {
  const CriticalPath& cp = d.criticalPath;
  EXPECT_EQ(cp.length, ref.path.length);
  EXPECT_EQ(cp.totals.computationNs, ref.path.totals.computationNs);
  EXPECT_EQ(cp.totals.callNs, ref.path.totals.callNs);
  EXPECT_EQ(cp.totals.waitNs, ref.path.totals.waitNs);
  EXPECT_EQ(cp.totals.segments, ref.path.totals.segments);
  EXPECT_EQ(cp.totals.calls, ref.path.totals.calls);
  EXPECT_EQ(cp.totals.perRank, ref.path.totals.perRank);
  std::map<std::string, TimeNs> byFunction;
  ASSERT_EQ(cp.totals.perFunction.size(), d.pathFunctions.size());
  for (std::size_t f = 0; f < d.pathFunctions.size(); ++f)
    if (cp.totals.perFunction[f] != 0) byFunction[d.pathFunctions[f]] += cp.totals.perFunction[f];
  EXPECT_EQ(byFunction, ref.pathByFunction);
  if (!processZero) {
    EXPECT_TRUE(cp.segments.empty());
    return;
  }
  ASSERT_EQ(cp.segments.size(), ref.path.segments.size());
  std::size_t differ = 0;
  for (std::size_t i = 0; i < cp.segments.size(); ++i)
    if (!sameSegment(cp.segments[i], ref.path.segments[i]) && differ++ == 0)
      ADD_FAILURE() << "segment " << i << " of " << cp.segments.size() << ": " << cp.segments[i].id() << " from "
                    << cp.segments[i].fromRank << ":" << cp.segments[i].fromIndex << " [" << cp.segments[i].begin
                    << ", " << cp.segments[i].end << "], serial " << ref.path.segments[i].id() << " from "
                    << ref.path.segments[i].fromRank << ":" << ref.path.segments[i].fromIndex << " ["
                    << ref.path.segments[i].begin << ", " << ref.path.segments[i].end << "]";
  EXPECT_EQ(differ, 0u);
  EXPECT_EQ(cp.callIds, ref.path.callIds);
  EXPECT_EQ(d.segmentFunction, ref.callFunction);
  EXPECT_EQ(d.partnerFunction, ref.partnerFunction);
}

// Every process of every P in `ps` agrees with the serial replay to the nanosecond.
void expectEqualToSerial(const fs::path& path, const Scenario& s, std::initializer_list<std::uint32_t> ps) {
  const Serial ref = serial(path, s);
  for (std::uint32_t P : ps) {
    SCOPED_TRACE(path.string() + " on " + std::to_string(P) + " processes");
    const auto all = distributed(path, s, P);
    // The text report's listing: the first kFirst segments only, no call ids.
    const auto first = distributed(path, s, P, CriticalPathListing::Segments, kFirst);
    ASSERT_EQ(first[0].criticalPath.segments.size(), ref.firstSegments.segments.size());
    for (std::size_t i = 0; i < ref.firstSegments.segments.size(); ++i)
      EXPECT_TRUE(sameSegment(first[0].criticalPath.segments[i], ref.firstSegments.segments[i])) << "segment " << i;
    EXPECT_TRUE(first[0].criticalPath.callIds.empty());
    for (std::uint32_t q = 0; q < P; ++q) {
      SCOPED_TRACE("process " + std::to_string(q));
      const DistributedPrediction& d = all[q];
      EXPECT_EQ(d.measured, ref.measured);
      EXPECT_EQ(d.predicted, ref.predicted);
      EXPECT_EQ(d.measuredEnd, ref.measuredEnd);
      EXPECT_EQ(d.predictedEnd, ref.predictedEnd);
      EXPECT_EQ(d.brokenCycles, ref.brokenCycles);
      expectSamePath(ref, d, q == 0);
      if (P > 1 && d.ranks >= P) {
        // The ranks really were split: enters crossed between processes, over several rounds.
        EXPECT_GT(d.enterSent, 0u);
        EXPECT_GT(d.ghostCalls, 0u);
        EXPECT_GT(d.rounds, 1u);
      }
    }
  }
}

Scenario withHypotheses(std::vector<Hypothesis> hs, CostMode costs = CostMode::Measured) {
  Scenario s;
  s.costs = costs;
  s.hypotheses = std::move(hs);
  s.normalize();
  return s;
}

Hypothesis zeroWait(std::uint32_t r, std::uint32_t i) { return {HypothesisKind::ZeroWait, EventRef{r, i, false}, 0}; }
Hypothesis zeroEvent(std::uint32_t r, std::uint32_t i, bool computation) {
  return {HypothesisKind::ZeroEvent, EventRef{r, i, computation}, 0};
}

}  // namespace

TEST(DistributedReplay, RankShares) {
  // [R·i/n, R·(i+1)/n): 7 ranks on 3 processes are 0-1, 2-3, 4-6; 2 ranks on 4: two idle.
  EXPECT_EQ(rankShare(7, 0, 3).first, 0u);
  EXPECT_EQ(rankShare(7, 0, 3).last, 2u);
  EXPECT_EQ(rankShare(7, 1, 3).last, 4u);
  EXPECT_EQ(rankShare(7, 2, 3).last, 7u);
  EXPECT_EQ(rankShare(2, 0, 4).size(), 0u);
  EXPECT_EQ(rankShare(2, 1, 4).size(), 1u);
  for (std::uint32_t R : {1u, 2u, 7u, 64u, 255u})
    for (std::uint32_t n : {1u, 2u, 3u, 4u, 64u})
      for (std::uint32_t r = 0; r < R; ++r) EXPECT_TRUE(rankShare(R, shareOfRank(R, r, n), n).contains(r)) << R << " " << n << " " << r;
}

TEST(DistributedReplay, GeneratedShapesEqualTheSerialReplay) {
  GeneratorSpec ring;
  ring.ranks = 7;  // not divisible by 2, 3 or 4
  ring.steps = 6;
  ring.imbalance = 0.4;
  expectEqualToSerial(generated("ring", ring), {}, {1, 2, 3, 4});

  GeneratorSpec nb = ring;
  nb.nonBlocking = true;
  nb.messageBytes = 1 << 20;  // rendezvous
  nb.collective = MpiOp::Bcast;
  nb.seed = 3;
  expectEqualToSerial(generated("nonblocking", nb), {}, {2, 3, 4});

  GeneratorSpec pairs = ring;
  pairs.ranks = 6;
  pairs.pattern = P2PPattern::Pairs;
  pairs.collective = MpiOp::Reduce;
  pairs.seed = 5;
  expectEqualToSerial(generated("pairs", pairs), {}, {4, 5});

  GeneratorSpec mw = ring;
  mw.ranks = 5;
  mw.pattern = P2PPattern::MasterWorker;
  mw.collective = MpiOp::Barrier;
  expectEqualToSerial(generated("masterworker", mw), {}, {2, 3});

  GeneratorSpec random = ring;
  random.ranks = 9;
  random.pattern = P2PPattern::Random;
  random.messagesPerStep = 3;
  random.seed = 11;
  expectEqualToSerial(generated("random", random), {}, {2, 4});
}

// Every collective rule across processes (docs/model.md §2.5): Scan (each member waits for the
// ones before it: sent one by one), rooted collectives whose root is on another process, and a
// communicator that reaches some processes only. Durations vary per rank so that every rule
// decides some end.
TEST(DistributedReplay, CollectiveRulesAcrossProcesses) {
  const fs::path dir = freshDir("Distributed_collectives") / "trace";
  {
    auto w = makeOtf2Writer(dir.string());
    TraceSink& s = *w;
    constexpr std::uint32_t R = 6;
    s.begin(TraceHeader{R, {}});
    auto fn = [&](const char* name, EventKind k, MpiOp op) { return s.defineFunction(Function{name, k, op, ""}); };
    const std::uint32_t work = fn("work", EventKind::UserState, MpiOp::None);
    const std::uint32_t scan = fn("MPI_Scan", EventKind::MpiCall, MpiOp::Scan);
    const std::uint32_t reduce = fn("MPI_Reduce", EventKind::MpiCall, MpiOp::Reduce);
    const std::uint32_t bcast = fn("MPI_Bcast", EventKind::MpiCall, MpiOp::Bcast);
    const std::uint32_t gather = fn("MPI_Gather", EventKind::MpiCall, MpiOp::Gather);
    const std::uint32_t allgather = fn("MPI_Allgather", EventKind::MpiCall, MpiOp::Allgather);
    const std::uint32_t barrier = fn("MPI_Barrier", EventKind::MpiCall, MpiOp::Barrier);
    const std::uint32_t sub = s.defineComm(Communicator{"sub", {1, 3, 4, 5}, false});
    struct Op {
      std::uint32_t f;
      MpiOp op;
      std::uint32_t comm;
      std::int32_t root;
    };
    const Op ops[] = {{scan, MpiOp::Scan, 0, -1},          {reduce, MpiOp::Reduce, 0, 4},
                      {bcast, MpiOp::Bcast, 0, 2},         {gather, MpiOp::Gather, sub, 5},
                      {allgather, MpiOp::Allgather, sub, -1}, {barrier, MpiOp::Barrier, 0, -1},
                      {scan, MpiOp::Scan, 0, -1},          {bcast, MpiOp::Bcast, sub, 3}};
    for (std::uint32_t r = 0; r < R; ++r) {
      TimeNs t = 0;
      for (std::uint32_t k = 0; k < std::size(ops); ++k) {
        const Op& o = ops[k];
        const bool member = o.comm == 0 || r == 1 || r == 3 || r == 4 || r == 5;
        if (!member) continue;
        const TimeNs compute = 1000 + 377 * ((r * 7 + k * 3) % 5);
        s.enter(r, t, work);
        t += compute;
        s.leave(r, t, work);
        // Every call ends at the latest member's start of this operation plus a little:
        // the member entering last waits least.
        const TimeNs end = 1000 * (k + 1) * 4 + 50;
        s.enter(r, t, o.f);
        s.collective(r, t + 1, o.op, o.comm, o.root, 64, 64);
        t = std::max(t + 10, end);
        s.leave(r, t, o.f);
      }
    }
    s.end();
  }
  expectEqualToSerial(dir, {}, {1, 2, 3, 4, 5, 6});
  expectEqualToSerial(dir, withHypotheses({zeroEvent(3, 2, true), zeroWait(4, 1)}), {2, 3});
  expectEqualToSerial(dir, withHypotheses({}, CostMode::Model), {2, 3, 4});
}

TEST(DistributedReplay, MoreProcessesThanRanksLeaveSomeIdle) {
  GeneratorSpec spec;
  spec.ranks = 3;
  spec.steps = 3;
  expectEqualToSerial(generated("idle", spec), {}, {4, 6});
}

TEST(DistributedReplay, HypothesesAndCostModeModel) {
  GeneratorSpec spec;
  spec.ranks = 6;
  spec.steps = 5;
  spec.imbalance = 0.5;
  spec.nonBlocking = true;
  const fs::path path = generated("hypotheses", spec);
  // Zero-waits and zero-events on ranks of different processes, a computation among them.
  const Scenario s = withHypotheses({zeroWait(1, 4), zeroWait(4, 7), zeroEvent(2, 3, false), zeroEvent(5, 2, true)});
  expectEqualToSerial(path, s, {1, 2, 3, 4});
  expectEqualToSerial(path, withHypotheses({}, CostMode::Model), {2, 3});
  // Balance-compute takes the step's mean over every process's ranks.
  Hypothesis b1{HypothesisKind::BalanceCompute, {}, 1}, b3{HypothesisKind::BalanceCompute, {}, 3};
  expectEqualToSerial(path, withHypotheses({b1}), {2, 3, 4});
  expectEqualToSerial(path, withHypotheses({b1, b3, zeroWait(2, 4)}), {1, 4, 5});
  expectEqualToSerial(path, withHypotheses({b3}, CostMode::Model), {3});
  expectEqualToSerial(path, withHypotheses({zeroWait(0, 5)}, CostMode::Model), {3});
}

// DistributedSession (the distributed advisor's engine): one share loaded, then prediction
// after prediction, each T equal to a serial replay of the same scenario, on P = 1 to 4; the
// base as predictDistributed gives it; a hypothesis the session cannot take refused on every
// process.
TEST(DistributedReplay, ASessionPredictsOneScenarioAfterTheOther) {
  GeneratorSpec spec;
  spec.ranks = 7;
  spec.steps = 6;
  spec.imbalance = 0.4;
  spec.nonBlocking = true;
  const fs::path path = generated("session", spec);
  const Trace t = loadTrace(path.string());
  // Each rank's longest wait in the serial base (zeroing it may move T).
  auto longest = [&](std::uint32_t r) {
    const Replayer rp(t, Scenario{});
    std::uint32_t best = 0;
    for (std::uint32_t i = 0; i < t.ranks[r].mpiCalls.size(); ++i)
      if (rp.predicted(r, i).wait > rp.predicted(r, best).wait) best = i;
    return zeroWait(r, best);
  };
  auto balance = [](std::uint32_t k) { return Hypothesis{HypothesisKind::BalanceCompute, {}, k}; };
  const std::vector<std::vector<Hypothesis>> series = {{longest(1)},
                                                       {balance(1)},
                                                       {},
                                                       {balance(2), longest(4), zeroEvent(2, 3, false)},
                                                       {balance(4), longest(6)},
                                                       {balance(1), balance(4)},
                                                       {zeroEvent(5, 2, true)},
                                                       {balance(3)}};
  for (const CostMode costs : {CostMode::Measured, CostMode::Model}) {
    Scenario base;
    base.costs = costs;
    std::vector<TimeNs> expected;
    for (const auto& extra : series) {
      Scenario s = base;
      s.hypotheses = extra;
      expected.push_back(Replayer(t, s).predictedTime());
    }
    const TimeNs baseT = Replayer(t, base).predictedTime();
    // The series moves T: a session that kept its first prediction would fail.
    ASSERT_GE(std::set<TimeNs>(expected.begin(), expected.end()).size(), 4u)
        << ::testing::PrintToString(expected) << " base " << baseT;
    for (std::uint32_t P = 1; P <= 4; ++P) {
      std::vector<std::vector<TimeNs>> got(P);
      std::vector<TimeNs> gotBase(P);
      DistributedOptions o;
      o.scenario = base;
      const auto errors = runGroup(P, [&](ProcessGroup& g) {
        DistributedSession session(path.string(), o, g);
        gotBase[g.rank()] = session.base().predicted;
        for (const auto& extra : series) got[g.rank()].push_back(session.predictWith(extra));
      });
      for (std::uint32_t q = 0; q < P; ++q) {
        ASSERT_FALSE(errors[q]) << "P = " << P;
        EXPECT_EQ(gotBase[q], baseT) << "P = " << P << ", process " << q;
        EXPECT_EQ(got[q], expected) << "P = " << P << ", process " << q;
      }
    }
  }
  // A balance of message volumes needs the ghosts' steps, which the session did not bring.
  DistributedOptions o;
  const auto errors = runGroup(3, [&](ProcessGroup& g) {
    DistributedSession session(path.string(), o, g);
    session.predictWith({{HypothesisKind::BalanceVolume, {}, 1}});
  });
  for (const auto& e : errors) {
    ASSERT_TRUE(e);
    try {
      std::rethrow_exception(e);
    } catch (const GroupError& g) {
      EXPECT_NE(std::string(g.what()).find("from the start"), std::string::npos) << g.what();
    }
  }
}

// The traces the distributed advisor's parts are checked on: an imbalanced blocking ring with
// an Allreduce per step (7 ranks), imbalanced random non-blocking messages without collectives
// (6 ranks), and the samples with parallel steps, as ALOG and OTF2.
// Messages across collectives of every rank: in even steps each rank's Isend (a late message)
// before an Allreduce is received after it (a read across the cut: the Allreduce is no clean
// cut; the last step is one); in odd steps rank 0 sends to ranks 2 and 1 after a Bcast it
// roots, which they receive before their own Bcast (the Bcast's B_k reads times after it: no
// closed cut). Per-rank computations vary by step.
fs::path crossingTrace(const std::string& tag, std::uint32_t R, std::uint32_t steps) {
  const fs::path dir = freshDir("Distributed_crossing_" + tag) / "trace";
  auto w = makeOtf2Writer(dir.string());
  TraceSink& s = *w;
  s.begin(TraceHeader{R, {}});
  auto fn = [&](const char* name, EventKind k, MpiOp op) { return s.defineFunction(Function{name, k, op, ""}); };
  const std::uint32_t step = fn("PRGN_step", EventKind::UserState, MpiOp::None);
  const std::uint32_t isend = fn("MPI_Isend", EventKind::MpiCall, MpiOp::Isend);
  const std::uint32_t send = fn("MPI_Send", EventKind::MpiCall, MpiOp::Send);
  const std::uint32_t recv = fn("MPI_Recv", EventKind::MpiCall, MpiOp::Recv);
  const std::uint32_t wait = fn("MPI_Wait", EventKind::MpiCall, MpiOp::Wait);
  const std::uint32_t allreduce = fn("MPI_Allreduce", EventKind::MpiCall, MpiOp::Allreduce);
  const std::uint32_t bcast = fn("MPI_Bcast", EventKind::MpiCall, MpiOp::Bcast);
  auto compute = [](std::uint32_t r, std::uint32_t k) -> TimeNs { return 100000 + 20000 * ((r * 5 + k * 3) % 7); };
  std::uint64_t request = 1;
  for (std::uint32_t k = 0; k < steps; ++k) {
    const TimeNs t0 = TimeNs{k} * 1000000;
    for (std::uint32_t r = 0; r < R; ++r) {
      s.enter(r, t0, step);
      const TimeNs c = t0 + compute(r, k);
      if (k % 2 == 0) {
        const std::uint32_t from = (r + R - 1) % R, to = (r + 1) % R;
        const std::uint64_t q = request++;
        s.enter(r, c, isend);
        s.send(r, c + 100, static_cast<std::int32_t>(to), 0, 0, 512, q);
        s.leave(r, c + 2000, isend);
        s.enter(r, t0 + 400000, allreduce);
        s.collective(r, t0 + 400001, MpiOp::Allreduce, 0, -1, 8, 8);
        s.leave(r, t0 + 450000, allreduce);
        const TimeNs arrived = t0 + compute(from, k) + 100 + 420000;  // after the receive is posted
        s.enter(r, t0 + 460000, recv);
        s.recv(r, arrived, static_cast<std::int32_t>(from), 0, 0, 512, 0);
        s.leave(r, arrived + 100, recv);
        s.enter(r, arrived + 200, wait);
        s.isendComplete(r, arrived + 300, q);
        s.leave(r, arrived + 400, wait);
      } else {
        if (r == 0) {
          s.enter(r, t0 + 300000, bcast);
          s.collective(r, t0 + 300001, MpiOp::Bcast, 0, 0, 64, 0);
          s.leave(r, t0 + 300100, bcast);
          for (std::uint32_t to : {2u, 1u}) {  // rank 1 reads a time two calls after the Bcast
            const TimeNs at = t0 + 300200 + (to == 1 ? 1000 : 0);
            s.enter(r, at, send);
            s.send(r, at + 100, static_cast<std::int32_t>(to), 0, 1, 256, 0);
            s.leave(r, at + 800, send);
          }
        } else {
          if (r <= 2) {
            s.enter(r, c, recv);
            s.recv(r, t0 + 320000 + 1000 * r, 0, 0, 1, 256, 0);
            s.leave(r, t0 + 320100 + 1000 * r, recv);
          }
          s.enter(r, t0 + 330000, bcast);
          s.collective(r, t0 + 330001, MpiOp::Bcast, 0, 0, 0, 64);
          s.leave(r, t0 + 340000, bcast);
        }
      }
      s.leave(r, t0 + 900000, step);
    }
  }
  s.end();
  return dir;
}

// The message of a process's exception (a failed runGroup), "" for none.
std::string errorText(const std::exception_ptr& e) {
  try {
    if (e) std::rethrow_exception(e);
  } catch (const std::exception& x) {
    return x.what();
  }
  return "";
}

static std::vector<fs::path> advisorTraces(const std::string& tag) {
  GeneratorSpec a;
  a.ranks = 7;
  a.steps = 8;
  a.imbalance = 0.6;
  GeneratorSpec b;
  b.ranks = 6;
  b.steps = 6;
  b.imbalance = 0.8;
  b.nonBlocking = true;
  b.pattern = P2PPattern::Random;
  b.collective = MpiOp::None;
  std::vector<fs::path> traces{generated(tag + "_a", a), generated(tag + "_b", b), crossingTrace(tag, 6, 7)};
  for (const char* name : {"stencil_8", "binary_swap_8", "pipeline_8.alog", "ring4.alog"})
    traces.push_back(kSamples / name);
  return traces;
}

// The lower bounds per region (F3) over a session's shares: every process gets the rows and
// every rank's breakdown that the serial lowerBounds() gives, P = 1 to 4, on generated traces
// (blocking, non-blocking, imbalanced, with and without collectives) and the bundled samples;
// P = 2 and 3 on the shared ALOG files and OTF2 archives where present.
TEST(DistributedReplay, LowerBoundsOverSharesAreTheSerialOnes) {
  std::vector<fs::path> traces = advisorTraces("bounds");
  const std::size_t own = traces.size();
  for (const fs::path& p : perwiz::test::sharedAlogFiles()) traces.push_back(p);  // none where absent
  for (const fs::path& p : perwiz::test::sharedOtf2Archives()) traces.push_back(p);
  std::size_t rows = 0;
  for (std::size_t i = 0; i < traces.size(); ++i) {
    const fs::path& path = traces[i];
    const Trace t = loadTrace(path.string());
    const std::vector<RegionBounds> expected = lowerBounds(Replayer(t, Scenario{}));
    for (std::uint32_t P = i < own ? 1 : 2; P <= (i < own ? 4u : 3u); ++P) {
      std::vector<std::vector<RegionBounds>> got(P);
      const auto errors = runGroup(P, [&](ProcessGroup& g) {
        DistributedSession session(path.string(), DistributedOptions{}, g);
        got[g.rank()] = lowerBounds(session.replayer(), session.ownRanks(), g);
      });
      for (std::uint32_t q = 0; q < P; ++q) {
        const std::string what =
            path.filename().string() + ", P = " + std::to_string(P) + ", process " + std::to_string(q);
        ASSERT_FALSE(errors[q]) << what;
        ASSERT_EQ(got[q].size(), expected.size()) << what;
        for (std::size_t g = 0; g < expected.size(); ++g) {
          EXPECT_EQ(got[q][g].region, expected[g].region) << what;
          ASSERT_EQ(got[q][g].rows.size(), expected[g].rows.size()) << what;
          for (std::size_t k = 0; k < expected[g].rows.size(); ++k) {
            EXPECT_EQ(got[q][g].rows[k].predictedNs, expected[g].rows[k].predictedNs) << what << " row " << k;
            ++rows;
          }
          ASSERT_EQ(got[q][g].perRank.size(), expected[g].perRank.size()) << what;
          for (std::size_t r = 0; r < expected[g].perRank.size(); ++r) {
            const RegionBreakdown &x = got[q][g].perRank[r], &y = expected[g].perRank[r];
            EXPECT_TRUE(x.outside == y.outside && x.calculation == y.calculation && x.sending == y.sending &&
                        x.receiving == y.receiving && x.waiting == y.waiting)
                << what << " rank " << r;
          }
        }
      }
    }
  }
  EXPECT_GT(rows, 100u);
}

// The step table's spread columns over a session's shares: every process gets stepTable()'s
// step, ranks, mean, max, σ and gain bound for every step, P = 1 to 4 (advisorTraces()).
TEST(DistributedReplay, StepSpreadsOverSharesAreTheSerialOnes) {
  std::vector<fs::path> traces = advisorTraces("spreads");
  std::size_t rows = 0, spread = 0;
  for (const fs::path& path : traces) {
    const Trace t = loadTrace(path.string());
    const std::vector<StepRow> expected = stepTable(Replayer(t, Scenario{}));
    for (std::uint32_t P = 1; P <= 4; ++P) {
      std::vector<std::vector<StepRow>> got(P);
      const auto errors = runGroup(P, [&](ProcessGroup& g) {
        DistributedSession session(path.string(), DistributedOptions{}, g);
        got[g.rank()] = stepSpreads(session.replayer(), session.ownRanks(), g);
      });
      for (std::uint32_t q = 0; q < P; ++q) {
        const std::string what =
            path.filename().string() + ", P = " + std::to_string(P) + ", process " + std::to_string(q);
        ASSERT_FALSE(errors[q]) << what;
        ASSERT_EQ(got[q].size(), expected.size()) << what;
        for (std::size_t k = 0; k < expected.size(); ++k) {
          const StepRow &x = got[q][k], &y = expected[k];
          EXPECT_TRUE(x.step == y.step && x.ranks == y.ranks && x.meanNs == y.meanNs && x.maxNs == y.maxNs &&
                      x.sigmaNs == y.sigmaNs && x.gainBoundNs == y.gainBoundNs)
              << what << " step " << k << ": sigma " << x.sigmaNs << " / " << y.sigmaNs;
          ++rows;
          spread += y.sigmaNs > 0;
        }
      }
    }
  }
  EXPECT_GT(rows, 100u);
  EXPECT_GT(spread, 50u);  // the steps are imbalanced: σ is no zero everywhere
}

// The longest wait over a session's shares, and the prediction of zeroing it on the session:
// advise()'s longestWait (event, wait, predicted T) on every process, P = 1 to 4.
TEST(DistributedReplay, TheLongestWaitOverSharesIsTheSerialOne) {
  std::vector<fs::path> traces = advisorTraces("longest");
  std::size_t waits = 0;
  for (const fs::path& path : traces) {
    const Trace t = loadTrace(path.string());
    AdvisorOptions o;
    o.steps = false;
    o.bounds = false;
    const Advice expected = advise(Replayer(t, Scenario{}), o);
    for (std::uint32_t P = 1; P <= 4; ++P) {
      std::vector<WaitCandidate> got(P);
      const auto errors = runGroup(P, [&](ProcessGroup& g) {
        DistributedSession session(path.string(), DistributedOptions{}, g);
        WaitCandidate w = longestWait(session.replayer(), session.ownRanks(), g);
        if (w.waitNs > 0) w.predictedNs = session.predictWith({{HypothesisKind::ZeroWait, w.event, 0}});
        got[g.rank()] = w;
      });
      for (std::uint32_t q = 0; q < P; ++q) {
        const std::string what =
            path.filename().string() + ", P = " + std::to_string(P) + ", process " + std::to_string(q);
        ASSERT_FALSE(errors[q]) << what;
        EXPECT_EQ(got[q].waitNs > 0, expected.hasLongestWait) << what;
        EXPECT_EQ(got[q].event, expected.longestWait.event) << what;
        EXPECT_EQ(got[q].waitNs, expected.longestWait.waitNs) << what;
        EXPECT_EQ(got[q].predictedNs, expected.longestWait.predictedNs) << what;
        waits += got[q].waitNs > 0;
      }
    }
  }
  EXPECT_GT(waits, 30u);
}

// The waits of the base's critical path over a session's shares (the domino search's
// candidates): the serial list, in order, with each wait and partner, on every process, P = 1
// to 4; and again after a prediction when the base is swept once more.
TEST(DistributedReplay, TheCriticalPathsWaitsOverSharesAreTheSerialOnes) {
  std::vector<fs::path> traces = advisorTraces("waits");
  std::size_t waits = 0;
  for (const fs::path& path : traces) {
    const Trace t = loadTrace(path.string());
    const Replayer serial(t, Scenario{});
    const std::vector<CriticalWait> expected =
        criticalWaits(criticalPath(serial, CriticalPathListing::Segments), serial);
    for (std::uint32_t P = 1; P <= 4; ++P) {
      std::vector<std::vector<CriticalWait>> got(P), again(P);
      const auto errors = runGroup(P, [&](ProcessGroup& g) {
        DistributedSession session(path.string(), DistributedOptions{}, g);
        got[g.rank()] = session.criticalWaits();
        if (!got[g.rank()].empty()) session.predictWith({{HypothesisKind::ZeroWait, got[g.rank()][0].event, 0}});
        session.predictWith({});
        again[g.rank()] = session.criticalWaits();
      });
      for (std::uint32_t q = 0; q < P; ++q) {
        const std::string what =
            path.filename().string() + ", P = " + std::to_string(P) + ", process " + std::to_string(q);
        ASSERT_FALSE(errors[q]) << what;
        EXPECT_EQ(got[q], expected) << what;
        EXPECT_EQ(again[q], expected) << what;
        waits += got[q].size();
      }
    }
  }
  EXPECT_GT(waits, 100u);
}

// The domino search's exact bounds over a session's shares: zeroWaitTimes() for every MPI call
// of the trace (and a computation, a call out of range: T) equal the serial ones on every
// process, P = 1 to 4, in both cost modes (model: every collective member a ghost; measured:
// proxies) and with a hypothesis in the base; P = 2 and 3 on the shared ALOG and OTF2 traces.
TEST(DistributedReplay, ZeroWaitTimesOverSharesAreTheSerialOnes) {
  std::vector<fs::path> traces = advisorTraces("zerowait");
  const std::size_t own = traces.size();
  for (const fs::path& p : perwiz::test::sharedAlogFiles()) traces.push_back(p);  // none where absent
  for (const fs::path& p : perwiz::test::sharedOtf2Archives()) traces.push_back(p);
  std::size_t lower = 0, compared = 0;
  for (std::size_t i = 0; i < traces.size(); ++i) {
    const fs::path& path = traces[i];
    const Trace t = loadTrace(path.string());
    for (int mode = 0; mode < (i < own ? 3 : 1); ++mode) {
      // mode 0: measured costs; 1: model costs; 2: a call of rank 0 zeroed in the base.
      const Scenario base =
          withHypotheses(mode == 2 ? std::vector<Hypothesis>{zeroEvent(0, 1, false)} : std::vector<Hypothesis>{},
                         mode == 1 ? CostMode::Model : CostMode::Measured);
      const Replayer serial(t, base);
      std::vector<EventRef> calls;
      for (std::uint32_t r = 0; r < t.rankCount(); ++r)
        for (std::uint32_t k = 0; k < t.ranks[r].mpiCalls.size(); ++k) calls.push_back({r, k, false});
      calls.push_back({0, 0, true});
      calls.push_back({static_cast<std::uint32_t>(t.rankCount()), 0, false});
      const std::vector<TimeNs> expected = zeroWaitTimes(serial, calls);
      for (std::uint32_t P = i < own ? 1 : 2; P <= (i < own ? 4u : 3u); ++P) {
        std::vector<std::vector<TimeNs>> got(P);
        const auto errors = runGroup(P, [&](ProcessGroup& g) {
          DistributedOptions o;
          o.scenario = base;
          DistributedSession session(path.string(), o, g);
          got[g.rank()] = session.zeroWaitTimes(calls);
        });
        for (std::uint32_t q = 0; q < P; ++q) {
          const std::string what = path.filename().string() + ", mode " + std::to_string(mode) +
                                   ", P = " + std::to_string(P) + ", process " + std::to_string(q);
          ASSERT_FALSE(errors[q]) << what << ": " << errorText(errors[q]);
          ASSERT_EQ(got[q].size(), calls.size()) << what;
          for (std::size_t k = 0; k < calls.size(); ++k)
            EXPECT_EQ(got[q][k], expected[k]) << what << ", call " << calls[k].rank << ":" << calls[k].index;
          compared += calls.size();
        }
      }
      for (TimeNs x : expected) lower += x < serial.predictedTime();
    }
  }
  EXPECT_GT(compared, 10000u);
  EXPECT_GT(lower, 20u);  // zeroings that shorten the run: the bounds are not all T
}

// A session's evaluations (the distributed advisor's predictions, each recomputing what its
// job changes and stopping at a cut where every rank moved alike) are the serial predictions:
// every critical wait zeroed, every third call's wait zeroed, every computation and every fourth
// call zeroed,
// every step balanced, pairs; P = 1 to 4, both cost modes and a hypothesis in the base. The
// base's results are back afterwards (its critical waits), and some evaluations end at a cut.
TEST(DistributedReplay, ASessionsEvaluationsAreTheSerialPredictions) {
  const std::vector<fs::path> traces = advisorTraces("evaluate");
  std::uint64_t compared = 0, atCut = 0, changed = 0;
  for (const fs::path& path : traces) {
    const Trace t = loadTrace(path.string());
    for (int mode = 0; mode < 3; ++mode) {
      const Scenario base =
          withHypotheses(mode == 2 ? std::vector<Hypothesis>{zeroEvent(1, 2, true)} : std::vector<Hypothesis>{},
                         mode == 1 ? CostMode::Model : CostMode::Measured);
      Replayer serial(t, base);
      const std::vector<CriticalWait> waits =
          criticalWaits(criticalPath(serial, CriticalPathListing::Segments), serial);
      std::vector<std::vector<Hypothesis>> jobs;
      for (const CriticalWait& w : waits) jobs.push_back({{HypothesisKind::ZeroWait, w.event, 0}});
      for (std::uint32_t r = 0; r < t.rankCount(); ++r)
        for (std::uint32_t k = 0; k < t.ranks[r].mpiCalls.size(); ++k) {
          if (k % 3 == r % 3) jobs.push_back({zeroWait(r, k)});
          jobs.push_back({zeroEvent(r, k, true)});  // the computation before the call
          if (k % 4 == r % 4) jobs.push_back({zeroEvent(r, k, false)});
        }
      for (std::uint32_t k = 0; k < t.steps.size(); ++k) jobs.push_back({{HypothesisKind::BalanceCompute, {}, k}});
      if (!t.steps.empty() && !waits.empty())
        jobs.push_back({{HypothesisKind::BalanceCompute, {}, 0}, {HypothesisKind::ZeroWait, waits.back().event, 0}});
      std::vector<TimeNs> expected;
      for (const auto& job : jobs) {
        Scenario s = base;
        s.hypotheses.insert(s.hypotheses.end(), job.begin(), job.end());
        s.normalize();
        expected.push_back(Replayer(t, s).predictedTime());  // a full replay of each (not predictWith's path)
        changed += expected.back() != serial.predictedTime();
      }
      for (std::uint32_t P = 1; P <= 4; ++P) {
        std::vector<std::vector<TimeNs>> got(P);
        std::vector<std::vector<CriticalWait>> after(P);
        std::vector<EvaluationStats> stats(P);
        const auto errors = runGroup(P, [&](ProcessGroup& g) {
          DistributedOptions o;
          o.scenario = base;
          DistributedSession session(path.string(), o, g);
          got[g.rank()] = session.evaluate(jobs);
          after[g.rank()] = session.criticalWaits();
          stats[g.rank()] = session.evaluationStats();
        });
        for (std::uint32_t q = 0; q < P; ++q) {
          const std::string what = path.filename().string() + ", mode " + std::to_string(mode) +
                                   ", P = " + std::to_string(P) + ", process " + std::to_string(q);
          ASSERT_FALSE(errors[q]) << what << ": " << errorText(errors[q]);
          ASSERT_EQ(got[q].size(), jobs.size()) << what;
          for (std::size_t k = 0; k < jobs.size(); ++k)
            EXPECT_EQ(got[q][k], expected[k]) << what << ", job " << k << ": " << jobs[k][0].toString();
          EXPECT_EQ(after[q], waits) << what;
          compared += jobs.size();
        }
        atCut += stats[0].atCut;
        // The generated ring's Allreduce closes each of its 8 steps, no message crosses one: 8
        // cuts. The crossing trace's Allreduces are crossed by messages, its Bcasts read later
        // times: none.
        if (path == traces[0]) {
          EXPECT_EQ(stats[0].cuts, 8u) << "P = " << P;
        }
        if (path == traces[2]) {
          EXPECT_EQ(stats[0].cuts, 0u) << "P = " << P;
        }
      }
    }
  }
  EXPECT_GT(compared, 5000u);
  EXPECT_GT(changed, 100u);  // jobs that move T
  EXPECT_GT(atCut, 100u);    // the cuts are used
}

// The whole advice over a session's shares equals the serial advise()'s, field by field: domino
// paths, candidates, the longest wait, the step table (every step; and 3 by their bound), all
// steps balanced, the lower bounds, the number of predictions; P = 1 to 4, both cost modes;
// P = 2 on the shared ALOG and OTF2 traces.
void expectSameAdvice(const Advice& x, const Advice& y, const std::string& what) {
  EXPECT_EQ(x.measuredNs, y.measuredNs) << what;
  EXPECT_EQ(x.baseNs, y.baseNs) << what;
  EXPECT_EQ(x.domino.predictedNs, y.domino.predictedNs) << what;
  EXPECT_EQ(x.domino.truncated, y.domino.truncated) << what;
  ASSERT_EQ(x.domino.paths.size(), y.domino.paths.size()) << what;
  for (std::size_t i = 0; i < x.domino.paths.size(); ++i) {
    const DominoPath &p = x.domino.paths[i], &q = y.domino.paths[i];
    EXPECT_TRUE(p.events == q.events && p.zeroed == q.zeroed && p.predictedNs == q.predictedNs &&
                p.fromRank == q.fromRank)
        << what << ", path " << i;
  }
  ASSERT_EQ(x.candidates.size(), y.candidates.size()) << what;
  for (std::size_t i = 0; i < x.candidates.size(); ++i)
    EXPECT_TRUE(x.candidates[i].event == y.candidates[i].event && x.candidates[i].waitNs == y.candidates[i].waitNs &&
                x.candidates[i].predictedNs == y.candidates[i].predictedNs)
        << what << ", candidate " << i << ": " << x.candidates[i].event.toString() << " " << x.candidates[i].predictedNs
        << " / " << y.candidates[i].event.toString() << " " << y.candidates[i].predictedNs;
  EXPECT_EQ(x.hasLongestWait, y.hasLongestWait) << what;
  EXPECT_TRUE(x.longestWait.event == y.longestWait.event && x.longestWait.waitNs == y.longestWait.waitNs &&
              x.longestWait.predictedNs == y.longestWait.predictedNs)
      << what;
  ASSERT_EQ(x.steps.size(), y.steps.size()) << what;
  for (std::size_t k = 0; k < x.steps.size(); ++k) {
    const StepRow &a = x.steps[k], &b = y.steps[k];
    EXPECT_TRUE(a.step == b.step && a.ranks == b.ranks && a.meanNs == b.meanNs && a.maxNs == b.maxNs &&
                a.sigmaNs == b.sigmaNs && a.predictedNs == b.predictedNs && a.gainBoundNs == b.gainBoundNs &&
                a.evaluated == b.evaluated)
        << what << ", step " << k << ": " << a.predictedNs << " / " << b.predictedNs;
  }
  EXPECT_EQ(x.allStepsBalancedNs, y.allStepsBalancedNs) << what;
  ASSERT_EQ(x.bounds.size(), y.bounds.size()) << what;
  for (std::size_t g = 0; g < x.bounds.size(); ++g) {
    ASSERT_EQ(x.bounds[g].rows.size(), y.bounds[g].rows.size()) << what;
    for (std::size_t k = 0; k < x.bounds[g].rows.size(); ++k)
      EXPECT_EQ(x.bounds[g].rows[k].predictedNs, y.bounds[g].rows[k].predictedNs) << what << ", bound " << k;
  }
  EXPECT_EQ(x.predictions, y.predictions) << what;
}

TEST(DistributedReplay, TheAdviceOverSharesIsTheSerialOne) {
  std::vector<fs::path> traces = advisorTraces("advice");
  const std::size_t own = traces.size();
  for (const fs::path& p : perwiz::test::sharedAlogFiles()) traces.push_back(p);  // none where absent
  for (const fs::path& p : perwiz::test::sharedOtf2Archives()) traces.push_back(p);
  std::size_t paths = 0, steps = 0;
  for (std::size_t i = 0; i < traces.size(); ++i) {
    const fs::path& path = traces[i];
    const Trace t = loadTrace(path.string());
    for (int mode = 0; mode < (i < own ? 3 : 1); ++mode) {
      const Scenario base = withHypotheses({}, mode == 1 ? CostMode::Model : CostMode::Measured);
      AdvisorOptions o;
      o.threads = 2;
      o.topCandidates = 6;
      o.maxStepPredictions = mode == 2 ? 3 : 0;
      const Advice expected = advise(Replayer(t, base), o);
      paths += expected.domino.paths.size();
      steps += expected.steps.size();
      for (std::uint32_t P = i < own ? 1 : 2; P <= (i < own ? 4u : 2u); ++P) {
        std::vector<Advice> got(P);
        const auto errors = runGroup(P, [&](ProcessGroup& g) {
          DistributedOptions d;
          d.scenario = base;
          DistributedSession session(path.string(), d, g);
          got[g.rank()] = adviseOverShares(session, o);
        });
        for (std::uint32_t q = 0; q < P; ++q) {
          const std::string what = path.filename().string() + ", mode " + std::to_string(mode) +
                                   ", P = " + std::to_string(P) + ", process " + std::to_string(q);
          ASSERT_FALSE(errors[q]) << what << ": " << errorText(errors[q]);
          expectSameAdvice(got[q], expected, what);
        }
      }
    }
  }
  EXPECT_GT(paths, 10u);
  EXPECT_GT(steps, 50u);
}

// The ranking's calls off the critical path over a session's shares: the `top` longest waits
// but the critical path's (the test sorts every waiting call of the serial replay itself: by
// wait, longest first, then by call), at the base's T, P = 1 to 4.
TEST(DistributedReplay, TheRankingsOtherWaitsOverSharesAreTheSerialOnes) {
  std::vector<fs::path> traces = advisorTraces("others");
  std::size_t listed = 0;
  for (const fs::path& path : traces) {
    const Trace t = loadTrace(path.string());
    const Replayer serial(t, Scenario{});
    const std::vector<CriticalWait> cp = criticalWaits(criticalPath(serial, CriticalPathListing::Segments), serial);
    std::set<EventRef> onPath;
    for (const CriticalWait& w : cp) onPath.insert(w.event);
    std::vector<WaitCandidate> all;
    for (std::uint32_t r = 0; r < t.rankCount(); ++r)
      for (std::uint32_t i = 0; i < t.ranks[r].mpiCalls.size(); ++i) {
        const EventRef e{r, i, false};
        if (serial.predicted(r, i).wait > 0 && !onPath.count(e))
          all.push_back({e, serial.predicted(r, i).wait, serial.predictedTime()});
      }
    std::sort(all.begin(), all.end(), [](const WaitCandidate& x, const WaitCandidate& y) {
      return x.waitNs != y.waitNs ? x.waitNs > y.waitNs : x.event < y.event;
    });
    for (const std::size_t top : {std::size_t{1}, std::size_t{10}, all.size() + 3}) {
      const std::vector<WaitCandidate> expected(all.begin(),
                                                all.begin() + static_cast<std::ptrdiff_t>(std::min(top, all.size())));
      for (std::uint32_t P = 1; P <= 4; ++P) {
        std::vector<std::vector<WaitCandidate>> got(P);
        const auto errors = runGroup(P, [&](ProcessGroup& g) {
          DistributedSession session(path.string(), DistributedOptions{}, g);
          got[g.rank()] = otherWaits(session.replayer(), session.ownRanks(), g, top, session.criticalWaits(),
                                     session.base().predicted);
        });
        for (std::uint32_t q = 0; q < P; ++q) {
          const std::string what = path.filename().string() + ", top " + std::to_string(top) +
                                   ", P = " + std::to_string(P) + ", process " + std::to_string(q);
          ASSERT_FALSE(errors[q]) << what;
          ASSERT_EQ(got[q].size(), expected.size()) << what;
          for (std::size_t k = 0; k < expected.size(); ++k)
            EXPECT_TRUE(got[q][k].event == expected[k].event && got[q][k].waitNs == expected[k].waitNs &&
                        got[q][k].predictedNs == expected[k].predictedNs)
                << what << " place " << k;
          listed += got[q].size();
        }
      }
    }
  }
  EXPECT_GT(listed, 200u);
}

// A ring of blocking MPI_Send then MPI_Recv per parallel step whose message sizes differ per rank
// and step (eager, 1 KB to 61 KB, so that no rendezvous cycle forms), with a per-rank
// computation; an Allreduce closes every second step.
fs::path volumeRing(std::uint32_t R, std::uint32_t steps, std::uint64_t base = 1000) {
  const fs::path dir = freshDir("Distributed_volume_" + std::to_string(R) + "_" + std::to_string(base)) / "trace";
  auto w = makeOtf2Writer(dir.string());
  TraceSink& s = *w;
  s.begin(TraceHeader{R, {}});
  auto fn = [&](const char* name, EventKind k, MpiOp op) { return s.defineFunction(Function{name, k, op, ""}); };
  const std::uint32_t step = fn("PRGN_step", EventKind::UserState, MpiOp::None);
  const std::uint32_t send = fn("MPI_Send", EventKind::MpiCall, MpiOp::Send);
  const std::uint32_t recv = fn("MPI_Recv", EventKind::MpiCall, MpiOp::Recv);
  const std::uint32_t allreduce = fn("MPI_Allreduce", EventKind::MpiCall, MpiOp::Allreduce);
  auto compute = [](std::uint32_t r, std::uint32_t k) -> TimeNs { return 100000 + 20000 * ((r * 5 + k) % 7); };
  auto bytes = [&](std::uint32_t r, std::uint32_t k) -> std::uint64_t { return base + 15000 * ((r * 3 + k) % 5); };
  for (std::uint32_t k = 0; k < steps; ++k) {
    const TimeNs t0 = TimeNs{k} * 1000000;
    for (std::uint32_t r = 0; r < R; ++r) {
      const std::uint32_t from = (r + R - 1) % R, to = (r + 1) % R;
      const TimeNs sendAt = t0 + compute(r, k);
      const TimeNs fromSend = t0 + compute(from, k) + 100;
      s.enter(r, t0, step);
      s.enter(r, sendAt, send);
      s.send(r, sendAt + 100, static_cast<std::int32_t>(to), 0, 0, bytes(r, k), 0);
      s.leave(r, sendAt + 2000, send);
      const TimeNs recvAt = sendAt + 2000;
      const TimeNs arrived = std::max(recvAt + 1000, fromSend + 5000 + static_cast<TimeNs>(bytes(from, k)));
      s.enter(r, recvAt, recv);
      s.recv(r, arrived, static_cast<std::int32_t>(from), 0, 0, bytes(from, k), 0);
      s.leave(r, arrived + 100, recv);
      if (k % 2 == 1) {
        s.enter(r, 700000 + t0, allreduce);
        s.collective(r, 700001 + t0, MpiOp::Allreduce, 0, -1, 8, 8);
        s.leave(r, 800000 + t0, allreduce);
      }
      s.leave(r, 900000 + t0, step);
    }
  }
  s.end();
  return dir;
}

// Balance-volume: a step's mean size over every process's messages (each counted by the process
// of its send); a receive on one process of a send on another is repriced by the ghost send's
// step.
TEST(DistributedReplay, BalanceVolumeTakesTheMeanOverEveryProcess) {
  const fs::path path = volumeRing(7, 5);
  Hypothesis v1{HypothesisKind::BalanceVolume, {}, 1}, v3{HypothesisKind::BalanceVolume, {}, 3};
  Hypothesis b2{HypothesisKind::BalanceCompute, {}, 2};
  // The hypotheses change the prediction (else equality would prove nothing).
  const Scenario volumes = withHypotheses({v1, v3}, CostMode::Model);
  ASSERT_NE(serial(path, volumes).predicted, serial(path, withHypotheses({}, CostMode::Model)).predicted);
  expectEqualToSerial(path, volumes, {1, 2, 3, 4});
  expectEqualToSerial(path, withHypotheses({v1, b2, zeroWait(3, 4)}, CostMode::Model), {2, 5});
  expectEqualToSerial(path, withHypotheses({v3}), {2, 3});
  expectEqualToSerial(volumeRing(10, 4), withHypotheses({v1, v3}, CostMode::Model), {3, 4});
}

// Rendezvous cycles: a ring of blocking sends of 100 KB and more, each waiting for the next
// rank's receive, which follows that rank's own send. The serial schedule cuts one dependency
// per cycle (reported as broken_cycles); the processes cut the same one, from the same stall.
TEST(DistributedReplay, RendezvousCyclesAreCutAsTheSerialScheduleCutsThem) {
  const fs::path path = volumeRing(7, 4, 100000);
  const Serial ref = serial(path, {});
  ASSERT_GT(ref.brokenCycles, 0u);
  expectEqualToSerial(path, {}, {1, 2, 3, 4, 7});
  expectEqualToSerial(path, withHypotheses({}, CostMode::Model), {2, 3});
  expectEqualToSerial(path, withHypotheses({zeroWait(2, 1), {HypothesisKind::BalanceVolume, {}, 2}}, CostMode::Model),
                      {2, 4});
}

TEST(DistributedReplay, BundledSamples) {
  for (const char* name : {"binary_swap_8", "stencil_8", "registration_8", "pipeline_8.alog", "ring4.alog"})
    expectEqualToSerial(kSamples / name, {}, {2, 3, 4});
}

TEST(DistributedReplay, SharedTraces) {
  if (perwiz::test::sharedTraces().empty()) GTEST_SKIP() << "../shared/traces absent";
  std::size_t n = 0;
  for (const fs::path& p : perwiz::test::sharedOtf2Archives()) {
    expectEqualToSerial(p, {}, {2, 3});
    ++n;
  }
  EXPECT_GT(n, 0u);
}

TEST(DistributedReplay, AMissingLocationFileIsReportedOnEveryProcess) {
  GeneratorSpec spec;
  spec.ranks = 4;
  spec.steps = 2;
  const fs::path dir = generated("missing", spec);
  std::vector<fs::path> evts;
  for (const auto& e : fs::directory_iterator(dir / "traces"))
    if (e.path().extension() == ".evt") evts.push_back(e.path());
  ASSERT_FALSE(evts.empty());
  std::sort(evts.begin(), evts.end());
  fs::remove(evts.back());
  for (std::uint32_t P : {1u, 2u, 3u}) {
    DistributedOptions o;
    const auto errors = runGroup(P, [&](ProcessGroup& g) { predictDistributed(dir.string(), o, g); });
    for (std::uint32_t q = 0; q < P; ++q) {
      ASSERT_TRUE(errors[q]) << "process " << q << " of " << P;
      try {
        std::rethrow_exception(errors[q]);
      } catch (const GroupError& e) {
        const std::string what = e.what();
        EXPECT_NE(what.find(evts.back().filename().string()), std::string::npos) << what;
        EXPECT_NE(what.find("process " + std::to_string(P - 1)), std::string::npos) << what;  // the last share's
      }
    }
  }
}

TEST(DistributedReplay, AHypothesisOutsideTheTraceIsReportedOnEveryProcess) {
  GeneratorSpec spec;
  spec.ranks = 4;
  spec.steps = 2;
  const fs::path path = generated("badhyp", spec);
  for (const Hypothesis& h : {zeroWait(9, 0), zeroWait(2, 100000), Hypothesis{HypothesisKind::BalanceCompute, {}, 7}}) {
    DistributedOptions o;
    o.scenario = withHypotheses({h});
    const auto errors = runGroup(3, [&](ProcessGroup& g) { predictDistributed(path.string(), o, g); });
    for (std::uint32_t q = 0; q < 3; ++q) {
      ASSERT_TRUE(errors[q]);
      try {
        std::rethrow_exception(errors[q]);
      } catch (const GroupError& e) {
        const std::string what = e.what();
        EXPECT_NE(what.find(h.targetsEvent() ? "event " + h.event.toString() : std::string("step 7: the trace has 2")),
                  std::string::npos)
            << what;
      }
    }
  }
}

namespace {

std::string bytesOf(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// The files of an OTF2 archive written at `anchor` (X.otf2): X.def and every file of X/, by
// name relative to X/.. (the anchor itself holds a random trace identifier: left out).
std::map<std::string, std::string> archiveFiles(const fs::path& anchor) {
  std::map<std::string, std::string> out;
  const fs::path dir = anchor.parent_path(), stem = anchor.stem();
  out["def"] = bytesOf(dir / (stem.string() + ".def"));
  for (const auto& e : fs::directory_iterator(dir / stem)) out[e.path().filename().string()] = bytesOf(e.path());
  return out;
}

// perwiz-cli predict -o's archive and the processes' one, for P processes.
void expectSameArchive(const fs::path& trace, const Scenario& s, std::uint32_t P, const std::string& tag) {
  const fs::path dir = freshDir("Distributed_output_" + tag + "_" + std::to_string(P));
  const Trace t = loadTrace(trace.string());
  Replayer rp(t, s);
  saveTrace(rp.predictedTrace(), (dir / "serial.otf2").string());
  DistributedOptions o;
  o.scenario = s;
  o.output = (dir / "mpi.otf2").string();
  std::vector<DistributedPrediction> out(P);
  const auto errors = runGroup(P, [&](ProcessGroup& g) { out[g.rank()] = predictDistributed(trace.string(), o, g); });
  for (std::uint32_t q = 0; q < P; ++q)
    if (errors[q]) std::rethrow_exception(errors[q]);
  const auto a = archiveFiles(dir / "serial.otf2"), b = archiveFiles(dir / "mpi.otf2");
  ASSERT_EQ(a.size(), b.size()) << tag << " P=" << P;
  for (const auto& [name, bytes] : a) {
    ASSERT_TRUE(b.contains(name)) << name;
    EXPECT_TRUE(bytes == b.at(name)) << tag << " P=" << P << ": " << name << " differs";
  }
  // And read back: the same model, event for event.
  const Trace x = loadTrace((dir / "serial.otf2").string()), y = loadTrace((dir / "mpi.otf2").string());
  ASSERT_EQ(x.rankCount(), y.rankCount());
  for (std::uint32_t r = 0; r < x.rankCount(); ++r) {
    EXPECT_EQ(x.ranks[r].enter, y.ranks[r].enter) << tag << " rank " << r;
    EXPECT_EQ(x.ranks[r].leave, y.ranks[r].leave) << tag << " rank " << r;
  }
  EXPECT_EQ(x.endTime, out[0].predicted) << tag;
}

}  // namespace

// -o: the processes write one archive, each its ranks' event files, process 0 the definitions;
// every file but the anchor (a random trace identifier) is perwiz-cli's byte for byte. Shapes:
// a ring with a balanced step and a zeroed wait (P = 2, 3, one more process than ranks), a
// non-blocking pattern in cost mode model with balance-volume (ghost steps), ALOG samples.
TEST(DistributedReplay, ThePredictedTraceIsPerwizClisByteForByte) {
  GeneratorSpec ring;
  ring.ranks = 7;
  ring.steps = 8;
  ring.imbalance = 0.3;
  const fs::path r = generated("out_ring", ring);
  const Scenario s = withHypotheses({zeroWait(1, 3), zeroEvent(5, 2, true), {HypothesisKind::BalanceCompute, {}, 1}});
  for (std::uint32_t P : {2u, 3u, 8u}) expectSameArchive(r, s, P, "ring");
  expectSameArchive(volumeRing(6, 5), withHypotheses({{HypothesisKind::BalanceVolume, {}, 2}}, CostMode::Model), 4,
                    "volume");
  expectSameArchive(kSamples / "pipeline_8.alog", withHypotheses({zeroWait(2, 1)}), 3, "pipeline");
  expectSameArchive(kSamples / "stencil_8", {}, 3, "stencil");
}

// An output the processes cannot write is refused by every process before the replay, and
// nothing is left at the path: another format, an existing archive (kept byte for byte).
TEST(DistributedReplay, AnOutputThatCannotBeWrittenIsRefusedOnEveryProcess) {
  GeneratorSpec spec;
  spec.ranks = 4;
  spec.steps = 2;
  const fs::path trace = generated("out_refused", spec);
  const fs::path dir = freshDir("Distributed_out_refused");
  {
    std::ofstream(dir / "there.otf2") << "someone else's";
  }
  const std::string sentinel = bytesOf(dir / "there.otf2");
  for (const auto& [path, words] : std::vector<std::pair<fs::path, std::string>>{
           {dir / "x.alog", "OTF2 only"}, {dir / "there.otf2", "already exists"}}) {
    DistributedOptions o;
    o.output = path.string();
    const auto errors = runGroup(3, [&](ProcessGroup& g) { predictDistributed(trace.string(), o, g); });
    for (std::uint32_t q = 0; q < 3; ++q) {
      ASSERT_TRUE(errors[q]) << path;
      try {
        std::rethrow_exception(errors[q]);
      } catch (const GroupError& e) {
        EXPECT_NE(std::string(e.what()).find(words), std::string::npos) << e.what();
      }
    }
  }
  EXPECT_FALSE(fs::exists(dir / "x.alog"));
  EXPECT_EQ(bytesOf(dir / "there.otf2"), sentinel);
}

namespace {

// Generated records, with each rank's tracer overhead recorded as PERWIZ_EVENT_OVERHEAD_NS
// before its first record (as libperwiz-trace writes it); a rank with no value gets none.
class OverheadRecorder final : public TraceSink {
 public:
  OverheadRecorder(TraceSink& out, std::vector<TimeNs> perRecord) : out_(out), perRecord_(std::move(perRecord)) {}
  void begin(const TraceHeader& h) override {
    out_.begin(h);
    fn_ = out_.defineFunction(Function{kEventOverheadPoint, EventKind::Point, MpiOp::None, ""});
    done_.assign(h.ranks, false);
  }
  std::uint32_t defineFunction(const Function& f) override { return out_.defineFunction(f); }
  std::uint32_t defineComm(const Communicator& c) override { return out_.defineComm(c); }
  void enter(std::uint32_t r, TimeNs t, std::uint32_t f) override {
    first(r, t);
    out_.enter(r, t, f);
  }
  void leave(std::uint32_t r, TimeNs t, std::uint32_t f) override { out_.leave(r, t, f); }
  void point(std::uint32_t r, TimeNs t, std::uint32_t f, std::string_view l) override {
    first(r, t);
    out_.point(r, t, f, l);
  }
  void send(std::uint32_t r, TimeNs t, std::int32_t p, std::uint32_t c, std::int32_t tag, std::uint64_t b,
            std::uint64_t q) override {
    out_.send(r, t, p, c, tag, b, q);
  }
  void recv(std::uint32_t r, TimeNs t, std::int32_t p, std::uint32_t c, std::int32_t tag, std::uint64_t b,
            std::uint64_t q) override {
    out_.recv(r, t, p, c, tag, b, q);
  }
  void isendComplete(std::uint32_t r, TimeNs t, std::uint64_t q) override { out_.isendComplete(r, t, q); }
  void irecvRequest(std::uint32_t r, TimeNs t, std::uint64_t q) override { out_.irecvRequest(r, t, q); }
  void collective(std::uint32_t r, TimeNs t, MpiOp op, std::uint32_t c, std::int32_t root, std::uint64_t s,
                  std::uint64_t v) override {
    out_.collective(r, t, op, c, root, s, v);
  }
  void end() override { out_.end(); }

 private:
  void first(std::uint32_t r, TimeNs t) {
    if (r >= done_.size() || done_[r]) return;
    done_[r] = true;
    if (r < perRecord_.size() && perRecord_[r] >= 0) out_.point(r, t, fn_, std::to_string(perRecord_[r]));
  }
  TraceSink& out_;
  std::vector<TimeNs> perRecord_;
  std::uint32_t fn_ = 0;
  std::vector<bool> done_;
};

fs::path withRecordedOverhead(const std::string& name, const GeneratorSpec& spec, std::vector<TimeNs> perRecord) {
  const fs::path dir = freshDir("Distributed_" + name) / "trace";
  auto w = makeOtf2Writer(dir.string());
  OverheadRecorder rec(*w, std::move(perRecord));
  generateTrace(spec, rec);
  return dir;
}

}  // namespace

// Compensation (docs/compensation.md) replayed by the processes: each takes the overhead out
// of its own ranks' gaps and calls; a ghost's enter comes from its owner, compensated there.
// Equal to the serial replay in T, every rank's end and the critical path, and -o writes the
// serial predicted trace (the compensated records' placement included) byte for byte.
TEST(DistributedReplay, CompensationEqualsTheSerialReplay) {
  GeneratorSpec spec;
  spec.ranks = 6;
  spec.steps = 10;
  spec.imbalance = 0.3;
  spec.nonBlocking = true;
  // Per record: 150 + 40·r ns, different on every rank (so a process using another's value,
  // or the overhead of ranks it does not hold, changes the result).
  std::vector<TimeNs> perRecord;
  for (TimeNs r = 0; r < 6; ++r) perRecord.push_back(150 + 40 * r);
  const fs::path recorded = withRecordedOverhead("compensate", spec, perRecord);
  const Scenario fromTrace = withHypotheses({Hypothesis::compensateFromTrace()});
  ASSERT_LT(serial(recorded, fromTrace).predicted, serial(recorded, {}).predicted);  // it removes something
  expectEqualToSerial(recorded, fromTrace, {2, 3, 4});
  expectEqualToSerial(recorded, withHypotheses({Hypothesis::compensate(900), zeroWait(2, 3),
                                                {HypothesisKind::BalanceCompute, {}, 1}}),
                      {2, 3});
  expectSameArchive(recorded, fromTrace, 3, "compensate");
}

// Compensation from a trace one rank of which recorded no overhead: refused as perwiz-cli
// refuses it, by every process (the rank's owner finds it).
TEST(DistributedReplay, CompensationFromATraceWithoutTheOverheadIsRefusedOnEveryProcess) {
  GeneratorSpec spec;
  spec.ranks = 4;
  spec.steps = 2;
  const fs::path path = withRecordedOverhead("compensate_missing", spec, {100, 100, 100, -1});
  DistributedOptions o;
  o.scenario = withHypotheses({Hypothesis::compensateFromTrace()});
  const auto errors = runGroup(3, [&](ProcessGroup& g) { predictDistributed(path.string(), o, g); });
  for (std::uint32_t q = 0; q < 3; ++q) {
    ASSERT_TRUE(errors[q]);
    try {
      std::rethrow_exception(errors[q]);
    } catch (const GroupError& e) {
      EXPECT_NE(std::string(e.what()).find("records no instrumentation overhead"), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("process 2"), std::string::npos) << e.what();  // rank 3's owner
    }
  }
}

namespace {

// writePredictedOtf2 (rank by rank) against saveTrace(predictedTrace()) (L' whole).
void expectRankByRankArchive(const fs::path& trace, const Scenario& s, const std::string& tag) {
  const fs::path dir = freshDir("PredictedOtf2_" + tag);
  const Trace t = loadTrace(trace.string());
  Replayer rp(t, s);
  saveTrace(rp.predictedTrace(), (dir / "whole.otf2").string());
  writePredictedOtf2(rp, (dir / "ranks.otf2").string());
  const auto a = archiveFiles(dir / "whole.otf2"), b = archiveFiles(dir / "ranks.otf2");
  ASSERT_EQ(a.size(), b.size()) << tag;
  for (const auto& [name, bytes] : a) {
    ASSERT_TRUE(b.contains(name)) << name;
    EXPECT_TRUE(bytes == b.at(name)) << tag << ": " << name << " differs";
  }
}

}  // namespace

// perwiz-cli predict -o writes OTF2 rank by rank (one rank's L' at a time): the archive is the
// one L' built whole gives, byte for byte. Shapes: hypotheses on a generated ring, recorded
// overheads (a labelled point on every rank) with compensation, ALOG and OTF2 samples, and a
// trace that is itself a prediction (its scenario's function is in the file's table already).
TEST(PredictedTraceOtf2, RankByRankIsTheArchiveOfTheWholeTrace) {
  GeneratorSpec ring;
  ring.ranks = 5;
  ring.steps = 6;
  ring.imbalance = 0.3;
  const fs::path r = generated("rank_by_rank", ring);
  const Scenario s = withHypotheses({zeroWait(1, 3), {HypothesisKind::BalanceCompute, {}, 1}});
  expectRankByRankArchive(r, s, "ring");
  std::vector<TimeNs> perRecord{120, 90, 300, 45, 60};
  expectRankByRankArchive(withRecordedOverhead("rank_by_rank_overhead", ring, perRecord),
                          withHypotheses({Hypothesis::compensateFromTrace()}), "compensated");
  expectRankByRankArchive(kSamples / "pipeline_8.alog", withHypotheses({zeroWait(2, 1)}), "pipeline");
  for (const char* name : {"binary_swap_8", "stencil_8", "registration_8", "ring4.alog"})
    expectRankByRankArchive(kSamples / name, {}, name);
  // Real traces of other tracers (Score-P, ...), when ../shared is here.
  std::size_t k = 0;
  for (const fs::path& p : perwiz::test::sharedOtf2Archives())
    expectRankByRankArchive(p, withHypotheses({zeroWait(0, 1)}), "shared" + std::to_string(k++));
  // A prediction predicted again.
  const fs::path again = freshDir("PredictedOtf2_again") / "first.otf2";
  {
    const Trace t = loadTrace(r.string());
    Replayer rp(t, s);
    writePredictedOtf2(rp, again.string());
  }
  expectRankByRankArchive(again, withHypotheses({zeroWait(0, 2)}), "predicted_again");
  // Nothing is overwritten: the archive just written is refused, and stays.
  const Trace t = loadTrace(r.string());
  Replayer rp(t, s);
  const std::string before = bytesOf(again.parent_path() / "first.def");
  EXPECT_THROW(writePredictedOtf2(rp, again.string()), std::runtime_error);
  EXPECT_EQ(bytesOf(again.parent_path() / "first.def"), before);
}

// --- mergeShareWarnings: the whole trace's warnings from its shares' ------------------------

namespace {
Diagnostic warning(std::string position, std::string message) {
  return Diagnostic{"t.otf2", -1, std::move(position), std::move(message)};
}
std::vector<std::string> texts(const std::vector<Diagnostic>& ds) {
  std::vector<std::string> out;
  for (const Diagnostic& d : ds) out.push_back(d.position + "|" + d.message);
  return out;
}
}  // namespace

TEST(ShareWarnings, CountsAddUpAndRepeatedAnomaliesAreSaidAsTheWholeLoadSaysThem) {
  const std::string bad = "MPI_Send to an undefined rank";
  std::vector<std::vector<Diagnostic>> shares = {
      {warning("definitions", "string 7 undefined"),           // every share reads the definitions
       warning("location 0, event 3", bad),                    // the first occurrence of `bad`
       warning("", "1 RMA_WIN_CREATE records skipped (not modelled by PerWiz)"),
       warning("", "2 records in total: " + bad)},
      {warning("definitions", "string 7 undefined"),
       warning("location 2, event 9", bad),                    // share 1's first: not the trace's
       warning("location 3, event 1", "a state ends that never began"),
       warning("", "1 RMA_WIN_CREATE records skipped (not modelled by PerWiz)"),
       warning("", "3 RMA_PUT records skipped (not modelled by PerWiz)"),
       warning("", "1 records in total: " + bad)},
      {warning("", "1 records in total: a lone anomaly"),       // once in the whole trace
       warning("location 5, event 2", "a lone anomaly")}};
  const auto merged = texts(mergeShareWarnings(shares, false));
  // RMA_WIN_CREATE: 1 + 1 = 2; RMA_PUT: 3; `bad`: 2 + 1 = 3 in total, said at its first
  // occurrence (share 0's) only; the lone anomaly: 1 in total, so no total line (as the whole
  // load, which gives "N records in total" from N = 2 on).
  const std::vector<std::string> expected = {
      "definitions|string 7 undefined",
      "location 0, event 3|" + bad,
      "location 3, event 1|a state ends that never began",
      "location 5, event 2|a lone anomaly",
      "|2 RMA_WIN_CREATE records skipped (not modelled by PerWiz)",
      "|3 records in total: " + bad,
      "|3 RMA_PUT records skipped (not modelled by PerWiz)",
  };
  EXPECT_EQ(merged, expected);
  // Shares that read the whole file give the same warnings: the first share's are the trace's.
  EXPECT_EQ(texts(mergeShareWarnings({shares[0], shares[0]}, true)), texts(shares[0]));
  EXPECT_TRUE(mergeShareWarnings({}, false).empty());
}

TEST(ShareWarnings, SharedTracesInSharesGiveTheWholeLoadsCounts) {
  if (perwiz::test::sharedTraces().empty()) GTEST_SKIP() << "../shared/traces absent";
  // Every count summary of the whole load ("N X records skipped", "N records in total: M",
  // "N message or collective record(s) of threads ...") is what the shares' merged warnings
  // say, and no merged warning is one the whole load does not give (by kind: a share caps its
  // own list of a kind, so the listed ones and "N more warnings of the kind" may differ).
  auto isCount = [](const Diagnostic& d) {
    return d.line == -1 && d.position.empty() && !d.message.empty() && std::isdigit(static_cast<unsigned char>(d.message[0])) &&
           d.message.find("more warnings of the kind") == std::string::npos;
  };
  std::size_t traces = 0, counts = 0;
  for (const fs::path& p : perwiz::test::sharedOtf2Archives()) {
    const Trace whole = loadTrace(p.string());
    std::vector<std::string> wholeCounts;
    for (const Diagnostic& d : whole.warnings)
      if (isCount(d)) wholeCounts.push_back(d.toString());
    std::sort(wholeCounts.begin(), wholeCounts.end());
    for (std::uint32_t P : {2u, 3u}) {
      std::vector<std::vector<Diagnostic>> shares;
      for (std::uint32_t i = 0; i < P; ++i) {
        LoadOptions o;
        o.shareIndex = i;
        o.shareCount = P;
        shares.push_back(loadTrace(p.string(), o).warnings);
      }
      std::vector<std::string> mergedCounts;
      for (const Diagnostic& d : mergeShareWarnings(shares, false))
        if (isCount(d)) mergedCounts.push_back(d.toString());
      std::sort(mergedCounts.begin(), mergedCounts.end());
      EXPECT_EQ(mergedCounts, wholeCounts) << p << " in " << P << " shares";
      counts += wholeCounts.size();
    }
    ++traces;
  }
  EXPECT_GT(traces, 0u);
  RecordProperty("count_summaries_compared", static_cast<int>(counts));
}
