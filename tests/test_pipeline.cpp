// PipelinedSink must be invisible: the same model as feeding the builder directly.
#include "perwiz/generator.h"
#include "perwiz/pipelined_sink.h"
#include "perwiz/trace_builder.h"
#include "perwiz/trace_io.h"
#include "model_invariants.h"
#include "test_support.h"

#include <gtest/gtest.h>
#include <stdexcept>

using namespace perwiz;

namespace {

Trace generated(std::size_t batch, bool pipelined) {
  GeneratorSpec spec;
  spec.ranks = 5;
  spec.steps = 40;
  spec.nonBlocking = true;
  spec.imbalance = 0.3;
  spec.seed = 7;
  TraceBuilder b;
  if (!pipelined) {
    generateTrace(spec, b);
    b.end();
    return b.take();
  }
  {
    PipelinedSink pipe(b, batch);
    generateTrace(spec, pipe);
    pipe.end();
  }
  return b.take();
}

// A sink that fails on the n-th enter, to check that worker errors reach the producer.
class FailingSink final : public TraceSink {
 public:
  void begin(const TraceHeader&) override {}
  std::uint32_t defineFunction(const Function&) override { return 0; }
  std::uint32_t defineComm(const Communicator&) override { return 1; }
  void enter(std::uint32_t, TimeNs, std::uint32_t) override {
    if (++enters == 100) throw std::runtime_error("sink failed");
  }
  void leave(std::uint32_t, TimeNs, std::uint32_t) override {}
  void point(std::uint32_t, TimeNs, std::uint32_t, std::string_view) override {}
  void send(std::uint32_t, TimeNs, std::int32_t, std::uint32_t, std::int32_t, std::uint64_t,
            std::uint64_t) override {}
  void recv(std::uint32_t, TimeNs, std::int32_t, std::uint32_t, std::int32_t, std::uint64_t,
            std::uint64_t) override {}
  void isendComplete(std::uint32_t, TimeNs, std::uint64_t) override {}
  void irecvRequest(std::uint32_t, TimeNs, std::uint64_t) override {}
  void collective(std::uint32_t, TimeNs, MpiOp, std::uint32_t, std::int32_t, std::uint64_t,
                  std::uint64_t) override {}
  void end() override {}
  int enters = 0;
};

}  // namespace

TEST(Pipeline, SameModelForAnyBatchSize) {
  Trace direct = generated(0, false);
  ASSERT_EQ(test::modelViolation(direct), "");
  for (std::size_t batch : {1u, 7u, 1000u, 1u << 14}) {
    Trace piped = generated(batch, true);
    std::string why;
    EXPECT_TRUE(direct.sameModel(piped, &why)) << "batch " << batch << ": " << why;
    EXPECT_EQ(direct.warnings, piped.warnings);
  }
}

TEST(Pipeline, LoadTraceGivesTheSameModelPipelinedOrNot) {
  std::vector<std::string> inputs;
  for (const auto& f : test::sharedAlogFiles()) inputs.push_back(f.string());
  for (const auto& a : test::sharedOtf2Archives()) inputs.push_back(a.string());
  if (inputs.empty()) GTEST_SKIP() << "../shared/traces absent";
  for (const auto& in : inputs) {
    SCOPED_TRACE(in);
    LoadOptions one;
    one.pipelined = false;
    Trace a = loadTrace(in, one);
    Trace b = loadTrace(in);
    std::string why;
    EXPECT_TRUE(a.sameModel(b, &why)) << why;
    EXPECT_EQ(a.warnings, b.warnings);
    EXPECT_EQ(a.sourceRecords, b.sourceRecords);
  }
}

TEST(Pipeline, AnErrorInTheWorkerReachesTheProducer) {
  FailingSink target;
  PipelinedSink pipe(target, 16);
  pipe.begin({1, {}});
  for (int i = 0; i < 1000; ++i) pipe.enter(0, i, 0);
  EXPECT_THROW(pipe.end(), std::runtime_error);
  EXPECT_EQ(target.enters, 100);  // the worker stopped replaying after the failure
}
