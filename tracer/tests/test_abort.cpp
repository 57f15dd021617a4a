// Runs that do not finish (MPI_Abort, a crash): the aborting rank says what is missing and how
// to convert what was flushed; the converter makes a readable trace of it.
#include "support.h"

#include "perwiz/trace_io.h"

#include <gtest/gtest.h>

namespace perwiz::tracer_test {
namespace {

TEST(OpenMpi, AbortLeavesAReadablePartialTrace) {
  Scratch s;
  constexpr int kRanks = 3;
  constexpr int kRing = 4;
  const RunResult r = run(mpirun(kRanks, PERWIZ_PROG_ABORT, {std::to_string(kRing)}),
                          traceEnv(s.path(), "aborted"), s.path());
  EXPECT_NE(r.exitCode, 0);
  EXPECT_NE(r.err.find("MPI_Abort(3) on rank 1"), std::string::npos) << r.err;
  const std::string hint = "perwiz-trace-convert " + (s.path() / "aborted").string();
  EXPECT_NE(r.err.find(hint), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(s.path() / "aborted" / "traces.otf2"));

  const RunResult c = run({PERWIZ_TEST_CONVERTER, (s.path() / "aborted").string()}, {}, s.path());
  ASSERT_EQ(c.exitCode, 0) << c.err;
  EXPECT_NE(c.err.find("rank 1: called MPI_Abort(3)"), std::string::npos) << c.err;
  EXPECT_NE(c.err.find("incomplete run"), std::string::npos) << c.err;
  EXPECT_TRUE(fs::exists(s.path() / "aborted" / "perwiz-raw")) << "raw files of an incomplete run are kept";
  const Trace t = loadTrace((s.path() / "aborted").string());
  ASSERT_EQ(t.rankCount(), static_cast<std::size_t>(kRanks));
  // Rank 1 flushed everything up to its MPI_Abort.
  // (The tracer's start is there; its finish is not.)
  const std::map<std::string, int> aborting = withTracerCalls(
      {{"MPI_Init", 1}, {"MPI_Sendrecv", kRing}, {"MPI_Barrier", 1}, {"MPI_Abort", 1}}, true, false);
  EXPECT_EQ(mpiCallCounts(t, 1), aborting);
  // The others were stopped by mpirun's signal; what they flushed on the way out is whole:
  // every call up to the Barrier (all ranks had entered it before rank 1 could leave it and
  // abort), then the receive they wait in if the signal came late enough; or nothing at all
  // if they were killed outright.
  for (std::uint32_t rank : {0u, 2u}) {
    auto calls = mpiCallCounts(t, rank);
    if (calls.empty()) continue;
    EXPECT_LE(calls["MPI_Recv"], 1) << "rank " << rank;
    calls.erase("MPI_Recv");
    const std::map<std::string, int> upToBarrier = withTracerCalls(
        {{"MPI_Init", 1}, {"MPI_Sendrecv", kRing}, {"MPI_Barrier", 1}}, true, false);
    EXPECT_EQ(calls, upToBarrier) << "rank " << rank;
  }
}

// A rank that crashes (SIGSEGV) flushes its records in the tracer's signal handler, then dies
// the way it would have (Open MPI's handler reports the fault).
TEST(OpenMpi, CrashedRankFlushesItsRecords) {
  Scratch s;
  constexpr int kRanks = 3;
  constexpr int kRing = 2;
  const RunResult r = run(mpirun(kRanks, PERWIZ_PROG_ABORT, {std::to_string(kRing), "segv"}),
                          traceEnv(s.path(), "crashed"), s.path());
  EXPECT_NE(r.exitCode, 0);
  const RunResult c = run({PERWIZ_TEST_CONVERTER, (s.path() / "crashed").string()}, {}, s.path());
  ASSERT_EQ(c.exitCode, 0) << c.err;
  EXPECT_NE(c.err.find("rank 1: was stopped by signal 11"), std::string::npos) << c.err;
  const Trace t = loadTrace((s.path() / "crashed").string());
  const std::map<std::string, int> beforeCrash = withTracerCalls(
      {{"MPI_Init", 1}, {"MPI_Sendrecv", kRing}, {"MPI_Barrier", 1}}, true, false);
  EXPECT_EQ(mpiCallCounts(t, 1), beforeCrash);
}

}  // namespace
}  // namespace perwiz::tracer_test
