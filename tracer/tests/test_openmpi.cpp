// Traced runs under Open MPI (mpirun, 4 ranks oversubscribed on this 2-core machine): the C
// program linked with the tracer and preloaded, C++ and Fortran programs, both formats, an
// existing trace left alone, the identity prediction, clock alignment forced on one host.
#include "mpi_calls_check.h"
#include "support.h"

#include "perwiz/trace_io.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cstdlib>
#include <sstream>

namespace perwiz::tracer_test {
namespace {

constexpr int kRanks = 4;
constexpr int kSteps = 3;

CallsRun callsRun(const RunResult& r) {
  CallsRun run;
  run.ranks = kRanks;
  run.steps = kSteps;
  run.loopCounts = programCounts(r.out);
  return run;
}

TEST(OpenMpi, LinkedCProgramRecordsEveryCall) {
  Scratch s;
  const RunResult r = run(mpirun(kRanks, PERWIZ_PROG_CALLS, {std::to_string(kSteps)}),
                          traceEnv(s.path(), "calls"), s.path());
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_NE(r.err.find("perwiz-trace: wrote " + (s.path() / "calls").string()), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(s.path() / "calls" / "perwiz-raw")) << "raw files left after a complete run";
  const Trace t = loadTrace((s.path() / "calls").string());
  checkCallsTrace(t, callsRun(r), true);
}

// The same program built without the tracer, traced through LD_PRELOAD.
TEST(OpenMpi, PreloadedTracerRecordsEveryCall) {
  Scratch s;
  auto argv = mpirun(kRanks, PERWIZ_PROG_CALLS_PLAIN, {std::to_string(kSteps)});
  argv.insert(argv.begin() + 1, {"-x", "LD_PRELOAD=" PERWIZ_TEST_TRACER_LIB});
  const RunResult r = run(argv, traceEnv(s.path(), "preload"), s.path());
  ASSERT_EQ(r.exitCode, 0) << r.err;
  const Trace t = loadTrace((s.path() / "preload").string());
  checkCallsTrace(t, callsRun(r), true);
}

// A small buffer (160 KiB) filled several times by 1000 steps: every flush is recorded as a
// perwiz_trace_flush region between calls, and no record is lost or reordered.
TEST(OpenMpi, BufferFlushesAreRecordedAndLoseNothing) {
  Scratch s;
  constexpr int kManySteps = 1000;
  auto env = traceEnv(s.path(), "flushes");
  env.push_back("PERWIZ_TRACE_BUFFER=160");
  const RunResult r = run(mpirun(kRanks, PERWIZ_PROG_CALLS, {std::to_string(kManySteps)}), env, s.path());
  ASSERT_EQ(r.exitCode, 0) << r.err;
  const Trace t = loadTrace((s.path() / "flushes").string());
  CallsRun expected = callsRun(r);
  expected.steps = kManySteps;
  checkCallsTrace(t, expected, true);
  // Per step and rank at least 5 calls of >= 2 records of 16 bytes: > 160 bytes a step, so
  // 1000 steps fill 160 KiB at least once.
  for (std::uint32_t rank = 0; rank < t.rankCount(); ++rank)
    EXPECT_GE(userStates(t, rank, "perwiz_trace_flush"), 1) << "rank " << rank;
}

// Without the tracer the markers are no-ops and nothing is written.
TEST(OpenMpi, UntracedProgramWithMarkersWritesNothing) {
  Scratch s;
  const RunResult r = run(mpirun(2, PERWIZ_PROG_CALLS_PLAIN, {"2"}), traceEnv(s.path(), "none"), s.path());
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_FALSE(fs::exists(s.path() / "none"));
}

// PERWIZ_FORMAT=otf2,alog writes both from the same records: the ALOG file must be the model
// core's own OTF2 -> ALOG conversion of the OTF2 archive gives, and hold the same calls.
TEST(OpenMpi, AlogOutputLoadsTheSameModel) {
  Scratch s;
  const RunResult r = run(mpirun(kRanks, PERWIZ_PROG_CALLS, {std::to_string(kSteps)}),
                          traceEnv(s.path(), "both", "otf2,alog"), s.path());
  ASSERT_EQ(r.exitCode, 0) << r.err;
  const Trace otf2 = loadTrace((s.path() / "both").string());
  const Trace alog = loadTrace((s.path() / "both" / "traces.alog").string());
  EXPECT_EQ(alog.format, "alog");
  saveTrace(otf2, (s.path() / "converted.alog").string());
  const Trace converted = loadTrace((s.path() / "converted.alog").string());
  std::string why;
  EXPECT_TRUE(alog.sameModel(converted, &why)) << why;
  checkCallsTrace(alog, callsRun(r), false);
}

// PERWIZ_FORMAT=otf2,otf: the run also comes as OTF version 1, with the same
// counts as its OTF2 (OTF 1 keeps no request ids, so the models differ in which call completes
// a non-blocking message; everything info counts is the same).
TEST(OpenMpi, OtfOutputHasTheSameCounts) {
  Scratch s;
  const RunResult r = run(mpirun(kRanks, PERWIZ_PROG_CALLS, {std::to_string(kSteps)}),
                          traceEnv(s.path(), "three", "otf2,otf"), s.path());
  ASSERT_EQ(r.exitCode, 0) << r.err;
  const Trace otf2 = loadTrace((s.path() / "three").string());
  const Trace otf = loadTrace((s.path() / "three" / "traces.otf").string());
  EXPECT_EQ(otf.format, "otf");
  ASSERT_EQ(otf.rankCount(), otf2.rankCount());
  EXPECT_EQ(otf.eventCount(), otf2.eventCount());
  EXPECT_EQ(otf.mpiCallCount(), otf2.mpiCallCount());
  EXPECT_EQ(otf.messageStats.matched, otf2.messageStats.matched);
  EXPECT_EQ(otf.collectives.size(), otf2.collectives.size());
  EXPECT_EQ(otf.endTime, otf2.endTime);
  for (std::uint32_t k = 0; k < otf.rankCount(); ++k) {
    EXPECT_EQ(otf.ranks[k].enter, otf2.ranks[k].enter) << "rank " << k;
    EXPECT_EQ(otf.ranks[k].leave, otf2.ranks[k].leave) << "rank " << k;
    EXPECT_EQ(otf.ranks[k].messages.size(), otf2.ranks[k].messages.size()) << "rank " << k;
  }
}

TEST(OpenMpi, ExistingTraceIsNotOverwritten) {
  Scratch s;
  const auto argv = mpirun(2, PERWIZ_PROG_CALLS, {"1"});
  auto env = traceEnv(s.path(), "again");
  env.push_back("PERWIZ_TRACE_KEEP_RAW=1");  // to run the converter on it once more below
  ASSERT_EQ(run(argv, env, s.path()).exitCode, 0);
  const std::string firstDefs = readFile(s.path() / "again" / "traces.def");
  ASSERT_FALSE(firstDefs.empty());
  const RunResult second = run(argv, env, s.path());
  ASSERT_EQ(second.exitCode, 0) << second.err;
  EXPECT_NE(second.err.find("already exists and is not overwritten"), std::string::npos) << second.err;
  EXPECT_EQ(readFile(s.path() / "again" / "traces.def"), firstDefs);
  EXPECT_EQ(loadTrace((s.path() / "again-1").string()).rankCount(), 2u);
  // Converting the first run's raw files again would overwrite its trace: refused.
  const RunResult convert = run({PERWIZ_TEST_CONVERTER, (s.path() / "again").string()}, {}, s.path());
  EXPECT_EQ(convert.exitCode, 1);
  EXPECT_NE(convert.err.find("already exists; not overwriting"), std::string::npos) << convert.err;
  EXPECT_EQ(readFile(s.path() / "again" / "traces.def"), firstDefs);
}

// perwiz-cli predict without hypotheses replays the measured run exactly.
TEST(OpenMpi, PredictionWithoutHypothesesIsTheMeasuredTime) {
  Scratch s;
  ASSERT_EQ(run(mpirun(kRanks, PERWIZ_PROG_CALLS, {std::to_string(kSteps)}), traceEnv(s.path(), "id"),
                s.path()).exitCode, 0);
  const RunResult r = run({PERWIZ_TEST_CLI, "predict", (s.path() / "id").string(), "--json"}, {}, s.path());
  ASSERT_EQ(r.exitCode, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_TRUE(j["hypotheses"].empty());
  EXPECT_GT(j["measured_ns"].get<std::int64_t>(), 0);
  EXPECT_EQ(j["predicted_ns"].get<std::int64_t>(), j["measured_ns"].get<std::int64_t>());
}

// PERWIZ_CLOCK_SYNC=always measures offsets on one host, where the true offset is 0: every
// measured one must be far below a millisecond, and the aligned trace must still match.
TEST(OpenMpi, ForcedClockAlignmentMeasuresSmallOffsetsOnOneHost) {
  Scratch s;
  auto env = traceEnv(s.path(), "sync");
  env.push_back("PERWIZ_CLOCK_SYNC=always");
  env.push_back("PERWIZ_TRACE_KEEP_RAW=1");
  // Two ranks: with more than there are cores, busy-polling bystanders would stretch the
  // ping-pong's round trips (the offset error is at most half the shortest one).
  constexpr int kSyncRanks = 2;
  const RunResult r = run(mpirun(kSyncRanks, PERWIZ_PROG_CALLS, {"1"}), env, s.path());
  ASSERT_EQ(r.exitCode, 0) << r.err;
  for (int rank = 1; rank < kSyncRanks; ++rank) {
    const std::string defs = readFile(s.path() / "sync" / "perwiz-raw" / ("rank-" + std::to_string(rank) + ".def"));
    int lines = 0;
    for (std::size_t pos = defs.find("clock "); pos != std::string::npos; pos = defs.find("clock ", pos + 1)) {
      std::istringstream line(defs.substr(pos, defs.find('\n', pos) - pos));
      std::string word, when;
      long long local = 0, offset = 0;
      line >> word >> when >> local >> offset;
      EXPECT_LT(std::llabs(offset), 1'000'000) << "rank " << rank << " " << when;
      ++lines;
    }
    EXPECT_EQ(lines, 2) << "rank " << rank << ": offsets at MPI_Init and MPI_Finalize\n" << defs;
  }
  const Trace t = loadTrace((s.path() / "sync").string());
  EXPECT_EQ(t.messageStats.unmatchedSends + t.messageStats.unmatchedReceives, 0u);
}

}  // namespace
}  // namespace perwiz::tracer_test
