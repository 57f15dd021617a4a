// The C++ program under Open MPI, the Fortran one under Open MPI and SMPI (counts derived in
// their header comments).
#include "support.h"

#include "perwiz/trace_io.h"

#include <gtest/gtest.h>

namespace perwiz::tracer_test {
namespace {

constexpr int kRanks = 4;
constexpr int kSteps = 3;

void expectMatched(const Trace& t) {
  EXPECT_EQ(t.messageStats.unmatchedSends, 0u);
  EXPECT_EQ(t.messageStats.unmatchedReceives, 0u);
  EXPECT_EQ(t.messageStats.receiveBeforeSend, 0u);
  EXPECT_TRUE(t.warnings.empty()) << t.warnings.front().toString();
}

TEST(OpenMpi, CxxProgram) {
  Scratch s;
  const RunResult r = run(mpirun(kRanks, PERWIZ_PROG_RING_CXX, {std::to_string(kSteps)}),
                          traceEnv(s.path(), "ring"), s.path());
  ASSERT_EQ(r.exitCode, 0) << r.err;
  const Trace t = loadTrace((s.path() / "ring").string());
  ASSERT_EQ(t.rankCount(), static_cast<std::size_t>(kRanks));
  expectMatched(t);
  EXPECT_EQ(t.steps.size(), static_cast<std::size_t>(kSteps));
  const int N = kSteps;
  for (int r = 0; r < kRanks; ++r) {
    SCOPED_TRACE("rank " + std::to_string(r));
    const int prev = (r + kRanks - 1) % kRanks;
    const std::map<std::string, int> expected = withTracerCalls(
        {{"MPI_Init_thread", 1}, {"MPI_Irecv", 2 * N}, {"MPI_Isend", 2 * N + r + 1},
         {"MPI_Waitall", N + 1}, {"MPI_Allreduce", N}, {"MPI_Recv", prev + 1}, {"MPI_Finalize", 1}},
        true);
    EXPECT_EQ(mpiCallCounts(t, static_cast<std::uint32_t>(r)), expected);
    // Its r+1 extra messages (tag 2) go to the next rank, 64 bytes each.
    int extra = 0;
    for (const MessageEndpoint& m : t.ranks[static_cast<std::size_t>(r)].messages)
      if (m.isSend && m.tag == 2) {
        ++extra;
        EXPECT_EQ(m.peer, (r + 1) % kRanks);
        EXPECT_EQ(m.bytes, 64u);
      }
    EXPECT_EQ(extra, r + 1);
  }
}

// programs/calls.f90: counts derived in its header comment.
// hostExchange: Open MPI (the tracer's start exchanges host names; not under SMPI).
void checkFortranTrace(const Trace& t, int ranks, int steps, bool hostExchange) {
  ASSERT_EQ(t.rankCount(), static_cast<std::size_t>(ranks));
  expectMatched(t);
  // N named steps and one unnamed marker pair: N + 1 parallel steps.
  EXPECT_EQ(t.steps.size(), static_cast<std::size_t>(steps + 1));
  const int N = steps;
  for (int r = 0; r < ranks; ++r) {
    SCOPED_TRACE("rank " + std::to_string(r));
    std::map<std::string, int> expected = {
        {"MPI_Init", 1},      {"MPI_Finalize", 1},   {"MPI_Sendrecv", N}, {"MPI_Irecv", N},
        {"MPI_Isend", N},     {"MPI_Waitall", N},    {"MPI_Allreduce", N}, {"MPI_Comm_split", 1},
        {"MPI_Bcast", 1},     {"MPI_Reduce", 1},     {"MPI_Comm_free", 1}, {"MPI_Barrier", 1}};
    if (r > 0) expected["MPI_Send"] = r;
    if (r == 0) expected["MPI_Recv"] = ranks * (ranks - 1) / 2;
    const auto rank = static_cast<std::uint32_t>(r);
    EXPECT_EQ(mpiCallCounts(t, rank), withTracerCalls(expected, hostExchange));
    EXPECT_EQ(userStates(t, rank, "PRGN_step"), N);
    EXPECT_GT(recordedEventOverhead(t, rank), 0);
    // The sub-communicator's collectives: Bcast and Reduce rooted at world rank r % 2; the
    // Reduce at the root is MPI_IN_PLACE: 4 integers sent and received there.
    for (const CollectiveCall& c : t.ranks[rank].collectives) {
      if (c.comm == 0) continue;
      EXPECT_EQ(c.root, r % 2);
      if (c.op == MpiOp::Reduce && r < 2) {
        EXPECT_EQ(c.bytesSent, 16u);
        EXPECT_EQ(c.bytesReceived, 16u);
      }
    }
  }
  // Rank 0's wildcard receives resolved: r messages of r integers from every rank r > 0.
  std::map<int, int> from;
  for (const MessageEndpoint& m : t.ranks[0].messages)
    if (!m.isSend && m.tag >= 100) {
      ++from[m.peer];
      EXPECT_EQ(m.tag, 100 + m.peer);
      EXPECT_EQ(m.bytes, 4u * m.peer);
    }
  for (int q = 1; q < ranks; ++q) EXPECT_EQ(from[q], q);
}

TEST(OpenMpi, FortranProgram) {
  Scratch s;
  const RunResult r = run(mpirun(kRanks, PERWIZ_PROG_CALLS_F, {std::to_string(kSteps)}),
                          traceEnv(s.path(), "fortran"), s.path());
  ASSERT_EQ(r.exitCode, 0) << r.err;
  checkFortranTrace(loadTrace((s.path() / "fortran").string()), kRanks, kSteps, true);
}

// `use mpi_f08` (Open MPI's mpi_*_f08_ entry points).
TEST(OpenMpi, FortranF08Program) {
  Scratch s;
  const RunResult r = run(mpirun(kRanks, PERWIZ_PROG_CALLS_F08), traceEnv(s.path(), "f08"), s.path());
  ASSERT_EQ(r.exitCode, 0) << r.err;
  const Trace t = loadTrace((s.path() / "f08").string());
  ASSERT_EQ(t.rankCount(), static_cast<std::size_t>(kRanks));
  expectMatched(t);
  EXPECT_EQ(t.steps.size(), 1u);
  const std::map<std::string, int> expected = withTracerCalls(
      {{"MPI_Init", 1}, {"MPI_Finalize", 1}, {"MPI_Irecv", 1}, {"MPI_Isend", 1}, {"MPI_Waitall", 1},
       {"MPI_Allreduce", 1}, {"MPI_Barrier", 1}},
      true);
  for (std::uint32_t rank = 0; rank < kRanks; ++rank) {
    EXPECT_EQ(mpiCallCounts(t, rank), expected) << "rank " << rank;
    // The wildcard receive: from the previous rank, with its tag 40 + source.
    for (const MessageEndpoint& m : t.ranks[rank].messages)
      if (!m.isSend) {
        EXPECT_EQ(m.peer, static_cast<int>((rank + kRanks - 1) % kRanks));
        EXPECT_EQ(m.tag, 40 + m.peer);
      }
  }
}

TEST(Smpi, FortranProgram) {
  Scratch s;
  auto env = traceEnv(s.path(), "fortran");
  const auto extra = smpiEnv();
  env.insert(env.end(), extra.begin(), extra.end());
  const RunResult r = run(smpirun(kRanks, PERWIZ_PROG_CALLS_F_SMPI, {std::to_string(kSteps)}), env, s.path());
  ASSERT_EQ(r.exitCode, 0) << r.err;
  checkFortranTrace(loadTrace((s.path() / "fortran").string()), kRanks, kSteps, false);
}

}  // namespace
}  // namespace perwiz::tracer_test
