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
  expected.loopCounts = programCounts(r.out);
  ASSERT_EQ(expected.loopCounts.size(), 7u * kRanks) << r.out;
  const Trace t = loadTrace((s.path() / "smpi").string());
  checkCallsTrace(t, expected, true);
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
