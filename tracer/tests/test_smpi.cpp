// Traced runs under SimGrid's SMPI: every rank inside one process, each with its own copy of
// the tracer (smpi/privatize-libs). 16 ranks writing rank-dependent records must each find
// exactly their own events in the trace.
#include "mpi_calls_check.h"
#include "support.h"

#include "perwiz/trace_io.h"

#include <gtest/gtest.h>

namespace perwiz::tracer_test {
namespace {

TEST(Smpi, SixteenRanksEachRecordTheirOwnCalls) {
  Scratch s;
  constexpr int kRanks = 16;
  constexpr int kSteps = 2;
  auto env = traceEnv(s.path(), "smpi");
  const auto extra = smpiEnv();
  env.insert(env.end(), extra.begin(), extra.end());
  const RunResult r = run(smpirun(kRanks, PERWIZ_PROG_CALLS_SMPI, {std::to_string(kSteps), "nocancel"}),
                          env, s.path());
  ASSERT_EQ(r.exitCode, 0) << r.err;
  CallsRun expected;
  expected.ranks = kRanks;
  expected.steps = kSteps;
  expected.cancel = false;
  expected.hostExchange = false;
  expected.loopCounts = programCounts(r.out);
  ASSERT_EQ(expected.loopCounts.size(), 7u * kRanks) << r.out;
  const Trace t = loadTrace((s.path() / "smpi").string());
  checkCallsTrace(t, expected, true);
}

// SMPI's MPI_Testall completes and nulls the requests that are done even when it returns
// flag = 0 (MPI says it must leave them alone). Here rank 0's eager send is done calls before
// its receive (rank 1 sends 1 ms late): the send's completion is in the call that nulled it.
TEST(Smpi, TestallThatNullsADoneRequestEarlyStillRecordsItsCompletion) {
  Scratch s;
  auto env = traceEnv(s.path(), "early");
  const auto extra = smpiEnv();
  env.insert(env.end(), extra.begin(), extra.end());
  const RunResult r = run(smpirun(2, PERWIZ_PROG_CALLS_SMPI, {"testall-early"}), env, s.path());
  ASSERT_EQ(r.exitCode, 0) << r.err;
  const auto counts = programCounts(r.out);
  ASSERT_EQ(counts.count({0, "MPI_Testall"}), 1u) << r.out;
  ASSERT_GT(counts.at({0, "MPI_Testall"}), 1) << "the scenario needs the send done before the receive";
  const Trace t = loadTrace((s.path() / "early").string());
  for (const auto& w : t.warnings) ADD_FAILURE() << w.toString();
  const RankTrace& r0 = t.ranks[0];
  std::vector<std::uint32_t> testalls;
  for (std::uint32_t e = 0; e < r0.size(); ++e)
    if (t.functions[r0.function[e]].name == "MPI_Testall") testalls.push_back(e);
  ASSERT_EQ(static_cast<int>(testalls.size()), counts.at({0, "MPI_Testall"}));
  ASSERT_EQ(r0.messages.size(), 2u);
  for (std::size_t i = 0; i < r0.messages.size(); ++i) {
    const MessageEndpoint m = r0.messages[i];
    EXPECT_TRUE(m.matched());
    // The send completes in the first Testall (eager: done at once), the receive in the last.
    EXPECT_EQ(m.event, m.isSend ? testalls.front() : testalls.back()) << (m.isSend ? "send" : "receive");
  }
}

// Without smpi/privatize-libs all ranks would share one copy: the run stops and says why.
TEST(Smpi, SharedLibraryCopyIsRefusedWithTheOptionToUse) {
  Scratch s;
  auto env = traceEnv(s.path(), "shared");
  const auto extra = smpiEnv();
  env.insert(env.end(), extra.begin(), extra.end());
  const RunResult r = run(smpirun(2, PERWIZ_PROG_CALLS_SMPI, {"1", "nocancel"}, false), env, s.path());
  EXPECT_NE(r.exitCode, 0);
  EXPECT_NE(r.err.find("--cfg=smpi/privatize-libs:libperwiz-trace.so"), std::string::npos) << r.err;
}

// Markers in an SMPI program without the tracer (SimGrid's MPI_Pcontrol would abort).
TEST(Smpi, UntracedProgramWithMarkersRuns) {
  Scratch s;
  auto env = traceEnv(s.path(), "none");
  const auto extra = smpiEnv();
  env.insert(env.end(), extra.begin(), extra.end());
  const RunResult r = run(smpirun(2, PERWIZ_PROG_CALLS_SMPI_PLAIN, {"2", "nocancel"}, false), env, s.path());
  EXPECT_EQ(r.exitCode, 0) << r.err;
  EXPECT_FALSE(fs::exists(s.path() / "none"));
}

}  // namespace
}  // namespace perwiz::tracer_test
