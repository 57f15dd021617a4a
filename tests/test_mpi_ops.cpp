#include "perwiz/mpi_ops.h"

#include <gtest/gtest.h>

using namespace perwiz;

TEST(MpiOps, ClassifiesTheSpellingsTracersUse) {
  EXPECT_EQ(classifyMpiName("MPI_Send"), MpiOp::Send);         // Score-P, wrappergen
  EXPECT_EQ(classifyMpiName("PMPI_Send"), MpiOp::Send);        // SimGrid
  EXPECT_EQ(classifyMpiName("SEND"), MpiOp::Send);             // MPE automatic logging
  EXPECT_EQ(classifyMpiName("Send"), MpiOp::Send);             // user state in monte.log
  EXPECT_EQ(classifyMpiName("ALLREDUCE"), MpiOp::Allreduce);
  EXPECT_EQ(classifyMpiName("SENDRECV_REPLAC"), MpiOp::SendrecvReplace);  // CLOG truncation
  EXPECT_EQ(classifyMpiName("MPI_Comm_rank"), MpiOp::OtherMpi);
  EXPECT_EQ(classifyMpiName("WAIT"), MpiOp::Wait);
  EXPECT_EQ(classifyMpiName("Compute"), MpiOp::None);
  EXPECT_EQ(classifyMpiName("PRGN_step"), MpiOp::None);
  // Mixed-case generic words are user states, upper-case MPE names are MPI calls.
  EXPECT_EQ(classifyMpiName("Init"), MpiOp::None);
  EXPECT_EQ(classifyMpiName("INIT"), MpiOp::Init);
  EXPECT_EQ(classifyMpiName("Test"), MpiOp::None);
}

TEST(MpiOps, CallClassesAndOtf2CollectiveNumbers) {
  EXPECT_EQ(callClass(MpiOp::Sendrecv), CallClass::SendRecv);
  EXPECT_EQ(callClass(MpiOp::Waitall), CallClass::Completion);
  EXPECT_EQ(callClass(MpiOp::Bcast), CallClass::Collective);
  EXPECT_TRUE(isCollective(MpiOp::Barrier));
  EXPECT_FALSE(isCollective(MpiOp::Recv));
  // OTF2 3.0: BARRIER 0, ALLREDUCE 11, REDUCE_SCATTER_BLOCK 16.
  EXPECT_EQ(mpiOpFromOtf2Collective(0), MpiOp::Barrier);
  EXPECT_EQ(mpiOpFromOtf2Collective(11), MpiOp::Allreduce);
  EXPECT_EQ(mpiOpFromOtf2Collective(16), MpiOp::ReduceScatterBlock);
  EXPECT_EQ(mpiOpFromOtf2Collective(17), MpiOp::None);  // CREATE_HANDLE is not a collective op
  for (int i = 0; i <= 16; ++i) EXPECT_EQ(otf2CollectiveFromMpiOp(mpiOpFromOtf2Collective(i)), i);
  EXPECT_EQ(mpiOpName(MpiOp::Allreduce), "MPI_Allreduce");
}
