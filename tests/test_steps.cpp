// Parallel steps (paper §2.1): k-th execution of the region on every rank.
#include "perwiz/trace_builder.h"

#include <gtest/gtest.h>

using namespace perwiz;

namespace {
// Two ranks, each: PRGN_iter { MPI_Send } twice, and a user state "Solve" around everything.
Trace twoStepTrace(bool rankOneSkipsSecondStep = false) {
  TraceBuilder b;
  b.begin({2, {}});
  auto solve = b.defineFunction({"Solve", EventKind::UserState, MpiOp::None, ""});
  auto prgn = b.defineFunction({"PRGN_iter", EventKind::UserState, MpiOp::None, ""});
  auto bar = b.defineFunction({"MPI_Barrier", EventKind::MpiCall, MpiOp::Barrier, ""});
  for (std::uint32_t r = 0; r < 2; ++r) {
    b.enter(r, 0, solve);
    // step k on rank r spans [100k, 100k + 50 + 10r]; a barrier inside at 100k+40.
    for (int k = 0; k < 2; ++k) {
      if (rankOneSkipsSecondStep && r == 1 && k == 1) continue;
      b.enter(r, 100 * k, prgn);
      b.enter(r, 100 * k + 40, bar);
      b.leave(r, 100 * k + 45, bar);
      b.leave(r, 100 * k + 50 + 10 * r, prgn);
    }
    b.leave(r, 300, solve);
  }
  b.end();
  return b.take();
}
}  // namespace

TEST(Steps, PrgnStatesFormStepsWithSpansAndEventRanges) {
  Trace t = twoStepTrace();
  ASSERT_EQ(t.steps.size(), 2u);
  ASSERT_EQ(t.regionFunctions.size(), 1u);
  EXPECT_EQ(t.functions[t.regionFunctions[0]].name, "PRGN_iter");
  // Events per rank: 0 Solve, 1 PRGN(step0), 2 Barrier, 3 PRGN(step1), 4 Barrier.
  const StepSpan& s01 = t.steps[1].ranks[0];
  EXPECT_EQ(t.stepBegin(1, 0), 100);
  EXPECT_EQ(t.stepEnd(1, 0), 150);  // 100*1 + 50 + 10*0
  EXPECT_EQ(s01.marker, 3u);
  EXPECT_EQ(s01.firstEvent(), 3u);
  EXPECT_EQ(s01.lastEvent, 5u);
  EXPECT_EQ(t.stepEnd(0, 1), 60);  // 0 + 50 + 10*1
  EXPECT_TRUE(t.warnings.empty());
}

TEST(Steps, MissingStepOnARankIsReported) {
  Trace t = twoStepTrace(true);
  ASSERT_EQ(t.steps.size(), 2u);
  EXPECT_FALSE(t.steps[1].ranks[1].present());
  bool warned = false;
  for (const auto& w : t.warnings)
    warned |= w.message.find("executes the parallel region 1 times") != std::string::npos;
  EXPECT_TRUE(warned);
}

TEST(Steps, AnyStateCanBeDeclaredTheParallelRegion) {
  Trace t = twoStepTrace();
  ASSERT_TRUE(declareParallelRegion(t, "Solve"));
  ASSERT_EQ(t.steps.size(), 1u);
  EXPECT_EQ(t.stepBegin(0, 1), 0);
  EXPECT_EQ(t.stepEnd(0, 1), 300);
  EXPECT_EQ(t.steps[0].ranks[1].lastEvent, 5u);  // everything nested inside Solve
  EXPECT_FALSE(declareParallelRegion(t, "NoSuchState"));
  EXPECT_EQ(t.steps.size(), 1u);  // unchanged
}
