// Two runs side by side (issue #41, perwiz/compare.h): the alignment of their events on
// identical traces, on traces with known events inserted and removed, and every metric of a
// hand-built pair against values derived by hand; then perwiz-cli compare's output and errors.
#include "cli_runner.h"
#include "test_support.h"
#include "test_traces.h"

#include "perwiz/compare.h"
#include "perwiz/replay.h"
#include "perwiz/trace_builder.h"
#include "perwiz/trace_io.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <random>
#include <set>

namespace perwiz {
namespace {

using test::Tb;

Trace generated(std::uint64_t insertEvery, std::uint64_t insertPhase, std::uint32_t ranks = 6,
                bool nonBlocking = false) {
  GeneratorSpec s;
  s.ranks = ranks;
  s.steps = 40;
  s.imbalance = 0.4;
  s.nonBlocking = nonBlocking;
  s.insertEvery = insertEvery;
  s.insertPhase = insertPhase;
  TraceBuilder b("generated", "generated");
  generateTrace(s, b);
  return b.take();
}

// The events of `rank` whose function is `name`.
std::vector<std::uint32_t> eventsNamed(const Trace& t, std::uint32_t rank, const std::string& name) {
  std::vector<std::uint32_t> out;
  for (std::uint32_t i = 0; i < t.ranks[rank].size(); ++i)
    if (t.functions[t.ranks[rank].function[i]].name == name) out.push_back(i);
  return out;
}

std::vector<std::uint32_t> onlyInA(const RankAlignment& ra) {
  std::vector<std::uint32_t> out;
  for (std::uint32_t i = 0; i < ra.toB.size(); ++i)
    if (ra.toB[i] == kNone32) out.push_back(i);
  return out;
}

// Every pair joins events of one function, and the pairs keep both streams' order.
void expectValidPairs(const Trace& a, const Trace& b, const RankAlignment& ra) {
  std::uint32_t last = 0;
  bool first = true;
  for (std::uint32_t i = 0; i < ra.toB.size(); ++i) {
    const std::uint32_t j = ra.toB[i];
    if (j == kNone32) continue;
    ASSERT_LT(j, b.ranks[ra.rankB].size());
    EXPECT_EQ(a.functions[a.ranks[ra.rankA].function[i]].name, b.functions[b.ranks[ra.rankB].function[j]].name)
        << "rank " << ra.rankA << " event " << i;
    if (!first) {
      EXPECT_GT(j, last) << "pairs out of order at event " << i;
    }
    last = j;
    first = false;
  }
}

TEST(Compare, IdenticalTracesPairEveryEventAndDifferInNothing) {
  const Trace a = generated(0, 0, 6, true);
  const Trace b = generated(0, 0, 6, true);
  const TraceAlignment al = alignTraces(a, b);
  ASSERT_EQ(al.ranks.size(), 6u);
  EXPECT_EQ(al.paired, a.eventCount());
  EXPECT_EQ(al.onlyA, 0u);
  EXPECT_EQ(al.onlyB, 0u);
  EXPECT_DOUBLE_EQ(al.pairedShare(), 1.0);
  EXPECT_EQ(alignmentProblem(al), "");
  for (const RankAlignment& ra : al.ranks) {
    for (std::uint32_t i = 0; i < ra.toB.size(); ++i) ASSERT_EQ(ra.toB[i], i);
    EXPECT_TRUE(ra.onlyInB(std::uint32_t(b.ranks[ra.rankB].size())).empty());
  }
  const Comparison c = compareTraces(a, b, al);
  EXPECT_EQ(c.measuredA, c.measuredB);
  EXPECT_FALSE(c.predicted.has_value());
  for (const RankDifference& r : c.ranks) EXPECT_EQ(r.endA, r.endB);
  ASSERT_EQ(c.steps.size(), a.steps.size());
  for (std::uint32_t k = 0; k < c.steps.size(); ++k) {
    EXPECT_EQ(c.steps[k].stepA, k);
    EXPECT_EQ(c.steps[k].stepB, k);
    EXPECT_EQ(c.steps[k].a, c.steps[k].b);
    EXPECT_GT(c.steps[k].a, 0);
  }
  for (const FunctionDifference& f : c.functions) {
    EXPECT_EQ(f.a, f.b) << f.name;
    EXPECT_EQ(f.countA, f.countB) << f.name;
  }
  EXPECT_TRUE(c.changed.empty());
  EXPECT_TRUE(c.edits.empty());
}

TEST(Compare, InsertedAndRemovedEventsAreExactlyThoseReported) {
  // A has a state "inserted" before every 37th MPI call from the first, B from the 11th: the
  // runs differ in exactly those states (nothing else of the generator's output changes).
  const Trace a = generated(37, 0);
  const Trace b = generated(37, 11);
  const TraceAlignment al = alignTraces(a, b);
  std::uint64_t expectedA = 0, expectedB = 0;
  for (const RankAlignment& ra : al.ranks) {
    const auto insA = eventsNamed(a, ra.rankA, "inserted"), insB = eventsNamed(b, ra.rankB, "inserted");
    ASSERT_FALSE(insA.empty());
    ASSERT_FALSE(insB.empty());
    EXPECT_EQ(onlyInA(ra), insA) << "rank " << ra.rankA;
    EXPECT_EQ(ra.onlyInB(std::uint32_t(b.ranks[ra.rankB].size())), insB) << "rank " << ra.rankA;
    EXPECT_EQ(ra.onlyA, insA.size());
    EXPECT_EQ(ra.onlyB, insB.size());
    expectValidPairs(a, b, ra);
    expectedA += insA.size();
    expectedB += insB.size();
  }
  EXPECT_EQ(al.onlyA, expectedA);
  EXPECT_EQ(al.onlyB, expectedB);
  EXPECT_EQ(al.paired, a.eventCount() - expectedA);
  // Nothing else differs: every paired event took as long, every total but "inserted"'s count agrees.
  CompareOptions o;
  o.top = 1000;
  const Comparison c = compareTraces(a, b, al, nullptr, o);
  EXPECT_TRUE(c.changed.empty());
  EXPECT_EQ(c.measuredA, c.measuredB);
  EXPECT_EQ(c.edits.size(), std::min<std::uint64_t>(o.top, expectedA + expectedB));
  for (const EventEdit& e : c.edits) EXPECT_EQ(e.function, "inserted");
  for (const FunctionDifference& f : c.functions) {
    EXPECT_EQ(f.a, f.b) << f.name;
    if (f.name == "inserted") {
      EXPECT_EQ(f.countA, expectedA);
      EXPECT_EQ(f.countB, expectedB);
    } else {
      EXPECT_EQ(f.countA, f.countB) << f.name;
    }
  }
}

// Random streams of four functions; B removes k events chosen where the removal has one
// minimal explanation (the event differs from both neighbours and edits are 16 apart) and
// inserts k events of functions A lacks.
TEST(Compare, RandomEditsAreFoundExactly) {
  std::mt19937_64 rng(41);
  const std::uint32_t ranks = 3, n = 3000, k = 40;
  Tb ta(ranks), tb(ranks);
  std::vector<std::vector<std::uint32_t>> removed(ranks), inserted(ranks);
  const char* names[] = {"a", "b", "c", "d"};
  for (std::uint32_t r = 0; r < ranks; ++r) {
    std::vector<int> seq(n);
    for (auto& x : seq) x = int(rng() % 4);
    // Edit places: every 70 events or so, alternately a removal and an insertion.
    std::set<std::uint32_t> removeAt, insertBefore;
    for (std::uint32_t e = 0; e < k; ++e) {
      const std::uint32_t at = 20 + e * 70 + std::uint32_t(rng() % 30);
      if (e % 2 == 0) {
        seq[at] = (seq[at - 1] + 1) % 4;  // differs from both neighbours
        if (seq[at] == seq[at + 1]) seq[at] = (seq[at] + 1) % 4;
        if (seq[at] == seq[at - 1]) seq[at] = (seq[at] + 1) % 4;
        removeAt.insert(at);
      } else {
        insertBefore.insert(at);
      }
    }
    TimeNs t = 0, tB = 0;
    std::uint32_t indexB = 0;
    for (std::uint32_t i = 0; i < n; ++i) {
      ta.state(r, t, t + 10, names[seq[i]]);
      if (insertBefore.count(i)) {
        tb.state(r, tB, tB + 3, "new" + std::to_string(i));
        inserted[r].push_back(indexB++);
        tB += 3;
      }
      if (removeAt.count(i)) {
        removed[r].push_back(i);
      } else {
        tb.state(r, tB, tB + 10, names[seq[i]]);
        ++indexB;
        tB += 10;
      }
      t += 10;
    }
  }
  const Trace a = ta.take(), b = tb.take();
  const TraceAlignment al = alignTraces(a, b);
  for (const RankAlignment& ra : al.ranks) {
    EXPECT_EQ(onlyInA(ra), removed[ra.rankA]) << "rank " << ra.rankA;
    EXPECT_EQ(ra.onlyInB(std::uint32_t(b.ranks[ra.rankB].size())), inserted[ra.rankA]) << "rank " << ra.rankA;
    expectValidPairs(a, b, ra);
  }
}

TEST(Compare, ALargeInsertedBlockIsFoundBeyondTheNearSearch) {
  // 5,000 events of one function inserted in one place: more than the walk tries one by one.
  Tb ta(1), tb(1);
  TimeNs t = 0;
  for (std::uint32_t i = 0; i < 2000; ++i, t += 10) {
    const std::string name = i % 3 == 0 ? "x" : (i % 3 == 1 ? "y" : "z");
    ta.state(0, t, t + 10, name);
    if (i == 1000)
      for (std::uint32_t j = 0; j < 5000; ++j) tb.state(0, t + j, t + j + 1, "spin");
    tb.state(0, t + (i >= 1000 ? 5000 : 0), t + 10 + (i >= 1000 ? 5000 : 0), name);
  }
  const Trace a = ta.take(), b = tb.take();
  const TraceAlignment al = alignTraces(a, b);
  ASSERT_EQ(al.ranks.size(), 1u);
  EXPECT_EQ(al.onlyA, 0u);
  EXPECT_EQ(al.onlyB, 5000u);
  EXPECT_EQ(al.paired, 2000u);
  const auto onlyB = al.ranks[0].onlyInB(std::uint32_t(b.ranks[0].size()));
  ASSERT_EQ(onlyB.size(), 5000u);
  EXPECT_EQ(onlyB.front(), 1000u);
  EXPECT_EQ(onlyB.back(), 5999u);
}

// Every metric of a hand-built pair (times in ns):
//   A rank 0: PRGN_s [0,35] { f [0,10], g [10,30], f [30,35] }
//   A rank 1: PRGN_s [0,50] { g [0,20], f [20,50] }
//   B rank 0: PRGN_s [0,40] { f [0,12], g [12,25], f [25,33], g [33,40] }   (a g added at the end)
//   B rank 1: PRGN_s [0,45] { f [0,5], g [5,20], f [20,45] }                (an f added at the start)
TEST(Compare, HandBuiltPairGivesEveryMetricDerivedByHand) {
  Tb ta(2), tb(2);
  ta.open(0, 0, "PRGN_s");
  ta.state(0, 0, 10, "f");
  ta.state(0, 10, 30, "g");
  ta.state(0, 30, 35, "f");
  ta.close(0, 35, "PRGN_s");
  ta.open(1, 0, "PRGN_s");
  ta.state(1, 0, 20, "g");
  ta.state(1, 20, 50, "f");
  ta.close(1, 50, "PRGN_s");
  tb.open(0, 0, "PRGN_s");
  tb.state(0, 0, 12, "f");
  tb.state(0, 12, 25, "g");
  tb.state(0, 25, 33, "f");
  tb.state(0, 33, 40, "g");
  tb.close(0, 40, "PRGN_s");
  tb.open(1, 0, "PRGN_s");
  tb.state(1, 0, 5, "f");
  tb.state(1, 5, 20, "g");
  tb.state(1, 20, 45, "f");
  tb.close(1, 45, "PRGN_s");
  const Trace a = ta.take(), b = tb.take();
  const TraceAlignment al = alignTraces(a, b);
  ASSERT_EQ(al.ranks.size(), 2u);
  // Rank 0: A's four events are B's first four; B's 5th (the g at 33) is B's only.
  EXPECT_EQ(al.ranks[0].toB, (std::vector<std::uint32_t>{0, 1, 2, 3}));
  EXPECT_EQ(al.ranks[0].onlyInB(5), (std::vector<std::uint32_t>{4}));
  // Rank 1: PRGN_s with PRGN_s, A's g and f with B's 3rd and 4th; B's f at 0 is B's only.
  EXPECT_EQ(al.ranks[1].toB, (std::vector<std::uint32_t>{0, 2, 3}));
  EXPECT_EQ(al.ranks[1].onlyInB(4), (std::vector<std::uint32_t>{1}));
  EXPECT_EQ(al.paired, 7u);
  EXPECT_EQ(al.onlyB, 2u);

  const Comparison c = compareTraces(a, b, al);
  EXPECT_EQ(c.measuredA, 50);  // max(35, 50)
  EXPECT_EQ(c.measuredB, 45);  // max(40, 45)
  ASSERT_EQ(c.ranks.size(), 2u);
  EXPECT_EQ(c.ranks[0].endA, 35);
  EXPECT_EQ(c.ranks[0].endB, 40);
  EXPECT_EQ(c.ranks[1].endA, 50);
  EXPECT_EQ(c.ranks[1].endB, 45);
  EXPECT_EQ(c.ranks[0].onlyB, 1u);
  EXPECT_EQ(c.ranks[1].onlyB, 1u);
  // The one step: from the earliest marker enter to the latest leave, A 50 − 0, B 45 − 0.
  ASSERT_EQ(c.steps.size(), 1u);
  EXPECT_EQ(c.steps[0].a, 50);
  EXPECT_EQ(c.steps[0].b, 45);
  // Function totals: f A 10 + 5 + 30 = 45 (3 events), B 12 + 8 + 5 + 25 = 50 (4);
  // g A 20 + 20 = 40 (2), B 13 + 7 + 15 = 35 (3); PRGN_s A 35 + 50 = 85, B 40 + 45 = 85.
  auto fn = [&](const std::string& name) {
    for (const FunctionDifference& f : c.functions)
      if (f.name == name) return f;
    ADD_FAILURE() << "no function " << name;
    return FunctionDifference{};
  };
  EXPECT_EQ(fn("f").a, 45);
  EXPECT_EQ(fn("f").b, 50);
  EXPECT_EQ(fn("f").countA, 3u);
  EXPECT_EQ(fn("f").countB, 4u);
  EXPECT_EQ(fn("g").a, 40);
  EXPECT_EQ(fn("g").b, 35);
  EXPECT_EQ(fn("g").countB, 3u);
  EXPECT_EQ(fn("PRGN_s").a, 85);
  EXPECT_EQ(fn("PRGN_s").b, 85);
  // Largest difference first: f (+5) and g (−5) before PRGN_s (0).
  EXPECT_EQ(c.functions.back().name, "PRGN_s");
  // Changed events by |B − A|: rank 0's g 20 → 13 (7); then the 5s in (rank, event) order:
  // rank 0's PRGN_s 35 → 40, rank 1's PRGN_s 50 → 45, g 20 → 15, f 30 → 25; then rank 0's
  // second f 5 → 8 (3) and first f 10 → 12 (2).
  ASSERT_EQ(c.changed.size(), 7u);
  const std::vector<std::pair<std::uint32_t, std::uint32_t>> order = {{0, 2}, {0, 0}, {1, 0}, {1, 1},
                                                                      {1, 2}, {0, 3}, {0, 1}};
  for (std::size_t i = 0; i < order.size(); ++i) {
    EXPECT_EQ(std::pair(c.changed[i].rankA, c.changed[i].eventA), order[i]) << i;
  }
  EXPECT_EQ(c.changed[0].function, "g");
  EXPECT_EQ(c.changed[0].durationA, 20);
  EXPECT_EQ(c.changed[0].durationB, 13);
  EXPECT_EQ(c.changed[0].step, 0u);
  // Marked beyond a threshold, rank by rank: above 4 ns the 7 and the four 5s; above 5 ns the 7.
  CompareOptions mark;
  mark.markAbove = 4;
  const Comparison m4 = compareTraces(a, b, al, nullptr, mark);
  EXPECT_EQ(m4.markedCount, 5u);
  ASSERT_EQ(m4.marked.size(), 5u);
  const std::vector<EventPair> expected4 = {{0, 0, 0, 0}, {0, 2, 0, 2}, {1, 0, 1, 0}, {1, 1, 1, 2}, {1, 2, 1, 3}};
  EXPECT_EQ(m4.marked, expected4);
  mark.markAbove = 5;
  mark.markLimit = 10;
  const Comparison m5 = compareTraces(a, b, al, nullptr, mark);
  EXPECT_EQ(m5.markedCount, 1u);
  EXPECT_EQ(m5.marked, (std::vector<EventPair>{{0, 2, 0, 2}}));
  mark.markAbove = 0;
  mark.markLimit = 3;  // 7 changed events, the first 3 kept
  const Comparison m0 = compareTraces(a, b, al, nullptr, mark);
  EXPECT_EQ(m0.markedCount, 7u);
  EXPECT_EQ(m0.marked.size(), 3u);
  EXPECT_TRUE(c.marked.empty());  // without a threshold nothing is marked
  // The events of B only: rank 0's g at 33 (7 ns) and rank 1's f at 0 (5 ns).
  ASSERT_EQ(c.edits.size(), 2u);
  EXPECT_TRUE(c.edits[0].inB);
  EXPECT_EQ(c.edits[0].rank, 0u);
  EXPECT_EQ(c.edits[0].event, 4u);
  EXPECT_EQ(c.edits[0].function, "g");
  EXPECT_EQ(c.edits[0].enter, 33);
  EXPECT_EQ(c.edits[0].duration, 7);
  EXPECT_EQ(c.edits[1].rank, 1u);
  EXPECT_EQ(c.edits[1].event, 1u);
  EXPECT_EQ(c.edits[1].function, "f");
}

TEST(Compare, APredictionWithoutHypothesesIsTheMeasurement) {
  // A′ of no hypothesis reproduces A (the generator's traces replay exactly): compared with A
  // itself, every predicted figure is the measured one and nothing was missed.
  const Trace a = generated(0, 0, 4);
  const auto replayer = std::make_unique<Replayer>(a, Scenario{});  // the default model, as generated
  const auto p = predictedTimes(*replayer);
  const TraceAlignment al = alignTraces(a, a);
  const Comparison c = compareTraces(a, a, al, p.get());
  ASSERT_TRUE(c.predicted.has_value());
  EXPECT_EQ(*c.predicted, c.measuredA);
  for (const RankDifference& r : c.ranks) EXPECT_EQ(r.endPredicted, r.endA);
  for (const StepDifference& s : c.steps) EXPECT_EQ(s.predicted, s.a);
  for (const FunctionDifference& f : c.functions) EXPECT_EQ(f.predicted, f.a) << f.name;
  EXPECT_TRUE(c.missed.empty());
}

TEST(Compare, APredictionUnderAHypothesisIsTheReplayers) {
  const Trace a = generated(0, 0, 4);
  const Trace b = generated(0, 0, 4);
  Scenario s;
  s.hypotheses.push_back({HypothesisKind::BalanceCompute, {}, 3});
  const auto replayer = std::make_unique<Replayer>(a, s);
  const auto p = predictedTimes(*replayer);
  const Comparison c = compareTraces(a, b, alignTraces(a, b), p.get());
  ASSERT_TRUE(c.predicted.has_value());
  EXPECT_EQ(*c.predicted, replayer->predictedTime());
  EXPECT_LT(*c.predicted, c.measuredB);  // balancing a step of an imbalanced run saves time
  for (const RankDifference& r : c.ranks) EXPECT_EQ(r.endPredicted, replayer->predictedRankEnd(r.rankA));
  EXPECT_FALSE(c.missed.empty());
}

TEST(Compare, UnrelatedTracesAndBadRankMapsAreRefused) {
  Tb ta(2), tb(2), none(0);
  for (std::uint32_t r = 0; r < 2; ++r)
    for (TimeNs t = 0; t < 100; t += 10) {
      ta.state(r, t, t + 5, "solve");
      tb.state(r, t, t + 5, "render");
    }
  const Trace a = ta.take(), b = tb.take(), empty = none.take();
  const std::string why = alignmentProblem(alignTraces(a, b));
  EXPECT_NE(why.find("only 0 % of the events pair up"), std::string::npos) << why;
  EXPECT_EQ(alignmentProblem(alignTraces(a, empty)), "the traces have no ranks in common");
  EXPECT_THROW(alignTraces(a, b, {{0, 2}}), std::invalid_argument);
  EXPECT_THROW(alignTraces(a, b, {{0, 0}, {1, 0}}), std::invalid_argument);
  // A mapping pairs the ranks it names only.
  const TraceAlignment swapped = alignTraces(a, a, {{0, 1}});
  ASSERT_EQ(swapped.ranks.size(), 1u);
  EXPECT_EQ(swapped.ranks[0].rankB, 1u);
  EXPECT_EQ(swapped.unpairedA, (std::vector<std::uint32_t>{1}));
  EXPECT_EQ(swapped.unpairedB, (std::vector<std::uint32_t>{0}));
}

// ---- perwiz-cli compare ----

std::filesystem::path generateFile(const std::filesystem::path& dir, const std::string& name,
                                   const std::vector<std::string>& extra) {
  std::vector<std::string> args = {"generate", (dir / name).string(), "--ranks", "4", "--steps",
                                   "12",       "--imbalance",         "0.4"};
  args.insert(args.end(), extra.begin(), extra.end());
  const test::CliResult r = test::runProgram(PERWIZ_CLI, dir, args);
  EXPECT_EQ(r.status, 0) << r.err;
  return dir / name;
}

TEST(CompareCli, JsonGivesTheRunsThePredictionAndItsError) {
  const auto dir = test::freshDir("compare_cli_json");
  const auto a = generateFile(dir, "a.otf2", {"--insert-every", "20"});
  const auto b = generateFile(dir, "b.otf2", {"--insert-every", "20", "--insert-phase", "7"});
  const test::CliResult r =
      test::runProgram(PERWIZ_CLI, dir, {"compare", a.string(), b.string(), "--balance-compute", "2", "--json"});
  ASSERT_EQ(r.status, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  const Trace tb = loadTrace(b.string());
  // predict's own figures for A under the same hypothesis.
  const test::CliResult pred =
      test::runProgram(PERWIZ_CLI, dir, {"predict", a.string(), "--balance-compute", "2", "--json"});
  ASSERT_EQ(pred.status, 0) << pred.err;
  const auto pr = nlohmann::json::parse(pred.out);
  EXPECT_EQ(j["measured_a_ns"].get<TimeNs>(), pr["measured_ns"].get<TimeNs>());
  EXPECT_EQ(j["predicted_ns"].get<TimeNs>(), pr["predicted_ns"].get<TimeNs>());
  EXPECT_EQ(j["measured_b_ns"].get<TimeNs>(), tb.endTime);
  EXPECT_EQ(j["prediction_error_ns"].get<TimeNs>(), pr["predicted_ns"].get<TimeNs>() - tb.endTime);
  EXPECT_EQ(j["hypotheses"].size(), 1u);
  ASSERT_EQ(j["per_rank"].size(), 4u);
  for (const auto& x : j["per_rank"]) {
    const std::uint32_t rank = x["rank_a"].get<std::uint32_t>();
    EXPECT_EQ(x["prediction_error_ns"].get<TimeNs>(),
              x["predicted_end_ns"].get<TimeNs>() - x["end_b_ns"].get<TimeNs>());
    EXPECT_EQ(x["predicted_end_ns"].get<TimeNs>(), pr["per_rank"][rank]["predicted_end_ns"].get<TimeNs>());
  }
  EXPECT_EQ(j["per_step"].size(), 12u);
  EXPECT_GT(j["only_in_a"].get<int>(), 0);
  EXPECT_GT(j["only_in_b"].get<int>(), 0);
  for (const char* key : {"per_function", "per_function_rank", "changed_events", "prediction_misses", "one_run_only"})
    EXPECT_TRUE(j.contains(key)) << key;
}

TEST(CompareCli, RunsOfDifferentProgramsAndBadMapsGetAClearError) {
  const auto dir = test::freshDir("compare_cli_errors");
  const auto a = generateFile(dir, "a.otf2", {});
  const auto other = generateFile(dir, "other.otf2", {"--nonblocking", "--collective", "none"});
  test::CliResult r = test::runProgram(PERWIZ_CLI, dir, {"compare", a.string(), other.string()});
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("cannot be compared with"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("do not look like runs of one program"), std::string::npos) << r.err;
  r = test::runProgram(PERWIZ_CLI, dir, {"compare", a.string(), a.string(), "--rank-map", "0:9"});
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("rank 9 of the second trace does not exist"), std::string::npos) << r.err;
  r = test::runProgram(PERWIZ_CLI, dir, {"compare", a.string(), a.string(), "--rank-map", "zero"});
  EXPECT_EQ(r.status, 2);
  r = test::runProgram(PERWIZ_CLI, dir, {"compare", a.string(), (dir / "missing.otf2").string()});
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("missing.otf2"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace perwiz
