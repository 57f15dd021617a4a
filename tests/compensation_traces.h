// Traces shared by the compensation tests (test_compensation.cpp, test_compensation_cli.cpp):
// the instrumented master–worker run of the paper's Table 1 and a way to give a trace the
// tracer's record of its own overhead.
#pragma once

#include "perwiz/trace_builder.h"

#include "test_traces.h"

#include <algorithm>
#include <string>
#include <vector>

namespace perwiz::test {

// The run without instrumentation (λ = 1100 ns):
//   M (rank 0): computes 1000; Send→W1 (cost 100); Send→W2 (100); Recv←W1 (50); Recv←W2 (50).
//   W1 (rank 1): computes 1000; Recv←M (50); 10 work states of 1000; Send→M (100).
//   W2 (rank 2): computes 1000; Recv←M (50); 20 work states of 1000; Send→M (100).
// True times:
//   M:  Send1 [1000, 1100], Send2 [1100, 1200], Recv1 [1200, 13300], Recv2 [13300, 23400]
//   W1: Recv [1000, 2150] (message at 1000 + 1100), work i [2150 + 1000i, 3150 + 1000i],
//       Send [12150, 12250]
//   W2: Recv [1000, 2250] (1100 + 1100), work [2250 + 1000i, 3250 + 1000i], Send [22250, 22350]
//   Recv1 returns 12150 + 1100 + 50 = 13300; Recv2 22250 + 1100 + 50 = 23400 = T.
// Instrumented with 200 ns per event: every record costs 100 after its timestamp, so a call
// [E, X] does its work from E + 100 (a send's message leaves then) and the next event starts at
// X + 100; a state takes 1200.
//   M:  Send1 [1000, 1200], Send2 [1300, 1500] (leaves 1400), Recv1 [1600, 15600] (message
//       14450 + 1100, + 50), Recv2 [15700, 27900] (26750 + 1100 + 50)
//   W1: Recv [1000, 2250] (1100 + 1100 + 50), work i [2350 + 1200i, 3450 + 1200i],
//       Send [14350, 14550] (leaves 14450)
//   W2: Recv [1000, 2550] (1400 + 1100 + 50), work i [2650 + 1200i, 3750 + 1200i],
//       Send [26650, 26850] (leaves 26750)
inline Trace masterWorker() {
  Tb b(3);
  b.send(0, 1000, 1200, 1);
  b.send(0, 1300, 1500, 2);
  b.recv(0, 1600, 15600, 1);
  b.recv(0, 15700, 27900, 2);
  b.recv(1, 1000, 2250, 0);
  for (int i = 0; i < 10; ++i) b.state(1, 2350 + 1200 * i, 3450 + 1200 * i, "work");
  b.send(1, 14350, 14550, 0);
  b.recv(2, 1000, 2550, 0);
  for (int i = 0; i < 20; ++i) b.state(2, 2650 + 1200 * i, 3750 + 1200 * i, "work");
  b.send(2, 26650, 26850, 0);
  return b.take();
}

// `t` with the tracer's overhead record (trace.h, kEventOverheadPoint: `perRecord` ns per
// record) on every rank, as a point at the rank's end: after its last call, where its own
// share has no time to take (the computation after the last call is empty).
inline Trace withRecordedOverhead(const Trace& t, TimeNs perRecord) {
  class Adder final : public TraceSink {
   public:
    Adder(TraceBuilder& out, std::vector<TimeNs> ends, std::string label)
        : out_(out), ends_(std::move(ends)), label_(std::move(label)) {}
    void begin(const TraceHeader& h) override { out_.begin(h); }
    std::uint32_t defineFunction(const Function& f) override { return out_.defineFunction(f); }
    std::uint32_t defineComm(const Communicator& c) override { return out_.defineComm(c); }
    void enter(std::uint32_t r, TimeNs t, std::uint32_t f) override { out_.enter(r, t, f); }
    void leave(std::uint32_t r, TimeNs t, std::uint32_t f) override { out_.leave(r, t, f); }
    void point(std::uint32_t r, TimeNs t, std::uint32_t f, std::string_view l) override { out_.point(r, t, f, l); }
    void send(std::uint32_t r, TimeNs t, std::int32_t p, std::uint32_t c, std::int32_t tag, std::uint64_t b,
              std::uint64_t q) override { out_.send(r, t, p, c, tag, b, q); }
    void recv(std::uint32_t r, TimeNs t, std::int32_t p, std::uint32_t c, std::int32_t tag, std::uint64_t b,
              std::uint64_t q) override { out_.recv(r, t, p, c, tag, b, q); }
    void isendComplete(std::uint32_t r, TimeNs t, std::uint64_t q) override { out_.isendComplete(r, t, q); }
    void irecvRequest(std::uint32_t r, TimeNs t, std::uint64_t q) override { out_.irecvRequest(r, t, q); }
    void collective(std::uint32_t r, TimeNs t, MpiOp op, std::uint32_t c, std::int32_t root, std::uint64_t s,
                    std::uint64_t v) override { out_.collective(r, t, op, c, root, s, v); }
    void end() override {
      const std::uint32_t fn = out_.defineFunction(Function{kEventOverheadPoint, EventKind::Point, MpiOp::None, ""});
      for (std::uint32_t r = 0; r < ends_.size(); ++r) out_.point(r, ends_[r], fn, label_);
      out_.end();
    }

   private:
    TraceBuilder& out_;
    std::vector<TimeNs> ends_;
    std::string label_;
  };
  std::vector<TimeNs> ends(t.rankCount(), 0);
  for (std::uint32_t r = 0; r < t.rankCount(); ++r)
    for (TimeNs l : t.ranks[r].leave) ends[r] = std::max(ends[r], l);
  TraceBuilder b(t.source, t.format);
  Adder adder(b, ends, std::to_string(perRecord));
  emitTrace(t, adder);
  return b.take();
}

}  // namespace perwiz::test
