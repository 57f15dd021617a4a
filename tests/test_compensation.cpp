// Measurement-overhead compensation (issue #7; Malony, Shende, Morris, Wolf, IJHPCA 2007;
// docs/compensation.md): every two- and three-process scenario of the paper's figures, the
// master–worker run of its Table 1, combination with other hypotheses, the scenario JSON, and the
// replay against the paper's delay algorithm on random traces.
//
// Conventions (docs/compensation.md §2). Every traced event costs O = 200 ns: h = 100 ns for its
// enter record and h for its leave record, each spent just after the record's timestamp (the
// tracer reads the clock, then writes). So a user state between calls puts 2h into that
// computation; an MPI call puts h (its enter) into its own cost and h (its leave) into the
// computation after it.
//
// The paper's quantities, for a process at a call: o = its overhead before the call's timestamp
// (2h per earlier event), w = its measured wait, x = its delay (how much earlier it would be
// without instrumentation). Its rules (Figs. 2–12), applied message by message:
//   receiver:  x2' = min(x1, x2 + w)          w' = w + x2 − x2'
// i.e. case "x1 ≥ x2 + w": w' = 0, x2' = x2 + w; case "x1 < x2 + w": w' = w + (x2 − x1), x2' = x1.
// Compensated times: a call's enter is E − (x at its enter); a receive returns at
// Re − (x2' + h) (its enter share h, spent inside it, is removed too).
//
// Unless a test says otherwise the network has no latency and no overhead (λ = 0, as in the
// paper's figures): a receive that waited returns at the send's timestamp + h, when the message
// leaves after the sender's enter record.
#include "perwiz/compensation.h"
#include "perwiz/critical_path.h"
#include "perwiz/execution_dag.h"
#include "perwiz/replay.h"
#include "perwiz/scenario.h"

#include "compensation_traces.h"
#include "test_traces.h"

#include <gtest/gtest.h>

#include <memory>
#include <random>
#include <string>
#include <vector>

using namespace perwiz;

namespace {

using Rank = std::uint32_t;
using test::Tb;

constexpr TimeNs h = 100;     // share of each record
constexpr TimeNs kO = 2 * h;  // overhead per event

std::shared_ptr<const NetworkModel> paperNet() {
  LogGpsParams p;
  p.name = "no-latency";
  p.S = 1 << 20;  // every message here is eager
  return std::make_shared<LogGpsModel>(p);
}

// L = 1000, o = 100: λ(k) = o + L = 1100 ns for the small eager messages of the tests.
std::shared_ptr<const NetworkModel> simpleNet() {
  LogGpsParams p;
  p.name = "simple";
  p.L = 1000;
  p.o = 100;
  p.S = 1024;
  return std::make_shared<LogGpsModel>(p);
}

// n user states of `len` ns every `period` ns from t: [t, t+len], [t+period, t+period+len], ...
void states(Tb& b, Rank r, TimeNs t, int n, TimeNs len = 1000, TimeNs period = 2000) {
  for (int i = 0; i < n; ++i) b.state(r, t + period * i, t + period * i + len, "work");
}

// The replay under `compensate o` and the paper's delay algorithm (compensation.h), which must
// agree on every call; the tests then check both against the paper's formulas.
struct Compensated {
  std::unique_ptr<Replayer> rp;
  DelayCompensation ref;
  const DelayCompensation::Call& call(Rank r, std::uint32_t i) const { return ref.calls[r][i]; }
};

Compensated compensate(const Trace& t, TimeNs o, std::shared_ptr<const NetworkModel> net = paperNet()) {
  Compensated c;
  c.rp = std::make_unique<Replayer>(t, Scenario{net, CostMode::Measured, {Hypothesis::compensate(o)}});
  c.ref = compensateByDelays(t, std::vector<TimeNs>(t.rankCount(), o), net);
  EXPECT_EQ(c.rp->predictedTime(), c.ref.end);
  for (Rank r = 0; r < t.rankCount(); ++r) {
    EXPECT_EQ(c.rp->predictedRankEnd(r), c.ref.rankEnd[r]) << "rank " << r;
    for (std::uint32_t i = 0; i < t.ranks[r].mpiCalls.size(); ++i) {
      const PredictedCall p = c.rp->predicted(r, i);
      EXPECT_EQ(p.enter, c.ref.calls[r][i].enter) << r << ":" << i;
      EXPECT_EQ(p.leave, c.ref.calls[r][i].leave) << r << ":" << i;
      EXPECT_EQ(p.wait, c.ref.calls[r][i].wait) << r << ":" << i;
    }
  }
  return c;
}

::testing::AssertionResult callIs(const Compensated& c, Rank r, std::uint32_t i, TimeNs enter, TimeNs leave,
                                  TimeNs wait) {
  const PredictedCall p = c.rp->predicted(r, i);
  if (p.enter == enter && p.leave == leave && p.wait == wait) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << r << ":" << i << " compensated [" << p.enter << ", " << p.leave
                                       << "] wait " << p.wait << ", expected [" << enter << ", " << leave
                                       << "] wait " << wait;
}

}  // namespace

// ---- 3.1.1 One send (Fig. 2) -----------------------------------------------------------------

// P1 (rank 0): `n1` states from 1000, Send [7000, 7500].  P2 (rank 1): `n2` states from 1000,
// Recv [6500, 7100]: the message leaves at 7000 + h, so w = 500 and the receive's cost is h.
Trace oneSend(int n1, int n2) {
  Tb b(2);
  states(b, 0, 1000, n1);
  b.send(0, 7000, 7500, 1);
  states(b, 1, 1000, n2);
  b.recv(1, 6500, 7100, 0);
  return b.take();
}

TEST(CompensationPaper, OneSendCase1ReceiverWouldNotHaveWaited) {
  const Compensated c = compensate(oneSend(3, 0), kO);
  // o1 = 3 states · 2h = 600; o2 = 0; w = 500.
  const TimeNs o1 = 6 * h, o2 = 0, w = 500;
  ASSERT_GE(o1, o2 + w);  // case 1
  const TimeNs x2 = o2 + w;  // x2 = min(o1, o2 + w) = o2 + w = 500: the wait was all overhead
  EXPECT_EQ(c.call(0, 0).delayEnter, o1);  // what the message carries
  EXPECT_EQ(c.call(1, 0).delayEnter, o2);
  EXPECT_EQ(c.call(1, 0).delayLeave, x2 + h);
  // Rb' = 6500 − o2 = 6500, w' = 0, Re' = 7100 − (x2 + h) = 6500.
  EXPECT_TRUE(callIs(c, 1, 0, 6500 - o2, 7100 - (x2 + h), 0));
  // The send: S' = 7000 − o1 = 6400, its cost 500 less its enter share: leave 6400 + 400 = 6800.
  EXPECT_TRUE(callIs(c, 0, 0, 7000 - o1, 6800, 0));
  EXPECT_EQ(c.rp->predictedTime(), 6800);
}

TEST(CompensationPaper, OneSendCase2WaitShrinks) {
  const Compensated c = compensate(oneSend(1, 0), kO);
  // o1 = 2h = 200 < o2 + w = 0 + 500: case 2, x2 = o1, w' = w + (o2 − o1) = 300 (shorter).
  const TimeNs o1 = 2 * h, o2 = 0, w = 500;
  ASSERT_LT(o1, o2 + w);
  const TimeNs x2 = o1, wc = w + (o2 - o1);
  EXPECT_EQ(wc, 300);
  EXPECT_EQ(c.call(1, 0).delayLeave, x2 + h);
  // Rb' = 6500; Re' = Rb' + w' = 6800 = 7100 − (x2 + h) = S' = 7000 − o1.
  EXPECT_TRUE(callIs(c, 1, 0, 6500 - o2, 7100 - (x2 + h), wc));
  EXPECT_EQ(6500 - o2 + wc, 7000 - o1);
}

TEST(CompensationPaper, OneSendCase2WaitGrows) {
  // "w' can increase or decrease, depending on the relation of o1 to o2": here P2 has more
  // overhead than P1, so without instrumentation it would have waited longer.
  const Compensated c = compensate(oneSend(0, 2), kO);
  const TimeNs o1 = 0, o2 = 4 * h, w = 500;  // o2 = 2 states · 2h
  ASSERT_LT(o1, o2 + w);
  const TimeNs x2 = o1, wc = w + (o2 - o1);  // 500 + 400 = 900 > w
  EXPECT_EQ(wc, 900);
  EXPECT_TRUE(callIs(c, 1, 0, 6500 - o2, 7100 - (x2 + h), wc));  // [6100, 7000]
}

// ---- 3.1.2 Two sends (Figs. 3, 4) ----------------------------------------------------------

// P1: `n1` states from 1000, Send [7000, 7200], `n1a` states from 8000, Send [s2, s2 + 200].
// P2: Recv [6500, 7100], `n2a` states from 8000, Recv [s2 − 200, s2 + h].
// Second message (the paper's names): O1 = o1 + o1a with o1a = 2h (send 1) + n1a·2h;
// O2 = x2 + o2a with o2a = 2h (receive 1's enter and leave) + n2a·2h; y = 200.
Trace twoSends(int n1, int n1a, int n2a, TimeNs s2) {
  Tb b(2);
  states(b, 0, 1000, n1);
  b.send(0, 7000, 7200, 1);
  states(b, 0, 8000, n1a);
  b.send(0, s2, s2 + 200, 1);
  b.recv(1, 6500, 7100, 0);
  states(b, 1, 8000, n2a);
  b.recv(1, s2 - 200, s2 + h, 0);
  return b.take();
}

TEST(CompensationPaper, TwoSendsCase1) {
  const Compensated c = compensate(twoSends(3, 3, 0, 14000), kO);
  // First message: o1 = 600 ≥ o2 + w = 0 + 500 → x2 = 500.
  const TimeNs x2 = 500;
  EXPECT_EQ(c.call(1, 0).delayLeave, x2 + h);
  // Second: O1 = 600 + (2h + 6h) = 1400; O2 = x2 + 2h = 700; y = 200; O1 ≥ O2 + y →
  // y' = 0, x2' = O2 + y = 900.
  const TimeNs O1 = 1400, O2 = 700, y = 200;
  ASSERT_GE(O1, O2 + y);
  EXPECT_EQ(c.call(0, 1).delayEnter, O1);
  EXPECT_EQ(c.call(1, 1).delayEnter, O2);
  // Recv 2: [13800 − O2, 14100 − (x2' + h)] = [13100, 13100].
  EXPECT_TRUE(callIs(c, 1, 1, 13800 - O2, 14100 - (O2 + y + h), 0));
}

TEST(CompensationPaper, TwoSendsCase2) {
  const Compensated c = compensate(twoSends(1, 5, 0, 20000), kO);
  // First: o1 = 200 < 500 → x2 = o1 = 200, w' = 500 + 0 − 200 = 300.
  EXPECT_TRUE(callIs(c, 1, 0, 6500, 7100 - (200 + h), 300));
  // Second: O1 = 200 + (2h + 10h) = 1400; O2 = 200 + 2h = 400; O1 ≥ O2 + y = 600 →
  // y' = 0, x2' = 600: [19800 − 400, 20100 − 700] = [19400, 19400].
  const TimeNs O1 = 1400, O2 = 400, y = 200;
  ASSERT_GE(O1, O2 + y);
  EXPECT_EQ(c.call(0, 1).delayEnter, O1);
  EXPECT_TRUE(callIs(c, 1, 1, 19800 - O2, 20100 - (O2 + y + h), 0));
}

TEST(CompensationPaper, TwoSendsCase3) {
  const Compensated c = compensate(twoSends(3, 0, 2, 14000), kO);
  // First: case 1, x2 = 500. Second: O1 = 600 + 2h = 800; O2 = 500 + (2h + 4h) = 1100;
  // y = 200; O1 < O2 + y → y' = y + (O2 − O1) = 500, x2' = O1 = 800.
  const TimeNs O1 = 800, O2 = 1100, y = 200;
  ASSERT_LT(O1, O2 + y);
  const TimeNs yc = y + (O2 - O1);
  EXPECT_EQ(c.call(1, 1).delayEnter, O2);
  EXPECT_EQ(c.call(1, 1).delayLeave, O1 + h);
  // [13800 − 1100, 14100 − 900] = [12700, 13200].
  EXPECT_TRUE(callIs(c, 1, 1, 13800 - O2, 14100 - (O1 + h), yc));
}

TEST(CompensationPaper, TwoSendsCase4) {
  const Compensated c = compensate(twoSends(1, 0, 1, 14000), kO);
  // First: case 2, x2 = 200. Second: O1 = 200 + 2h = 400; O2 = 200 + 4h = 600; y = 200;
  // O1 < O2 + y → y' = 200 + 200 = 400, x2' = 400: [13200, 13600].
  const TimeNs O1 = 400, O2 = 600, y = 200;
  ASSERT_LT(O1, O2 + y);
  EXPECT_TRUE(callIs(c, 1, 1, 13800 - O2, 14100 - (O1 + h), y + (O2 - O1)));
}

// ---- 3.1.3 Handshake (Figs. 5, 6) ----------------------------------------------------------

// P1: `n1` states from 1000, Send [7000, 7200] to P2, Recv [r1, s2 + h] from P2.
// P2: Recv [6500, 7100], `n2a` states of 400 ns from 7300 (600 apart), Send [s2, s2 + 200].
// Second message: O2 = x2 + o2a (o2a = 2h + n2a·2h) is what P2's send carries; O1 = o1 + 2h
// (send 1); P1's wait w1 = s2 − r1. The paper's rules with 1 and 2 swapped:
//   O2 < O1 + w1: w1' = w1 + (O1 − O2), x1' = O2;   O2 ≥ O1 + w1: w1' = 0, x1' = O1 + w1.
Trace handshake(int n1, int n2a, TimeNs r1, TimeNs s2) {
  Tb b(2);
  states(b, 0, 1000, n1);
  b.send(0, 7000, 7200, 1);
  b.recv(0, r1, s2 + h, 1);
  b.recv(1, 6500, 7100, 0);
  states(b, 1, 7300, n2a, 400, 600);
  b.send(1, s2, s2 + 200, 0);
  return b.take();
}

TEST(CompensationPaper, HandshakeCase1) {
  const Compensated c = compensate(handshake(3, 0, 7500, 8000), kO);
  // First: o1 = 600 ≥ 500 → x2 = 500. Second: O2 = 500 + 2h = 700, O1 = 600 + 2h = 800,
  // w1 = 500; O2 < O1 + w1 → w1' = 500 + 100 = 600, x1' = 700: [7500 − 800, 8100 − 800].
  const TimeNs O1 = 800, O2 = 700, w1 = 500;
  ASSERT_LT(O2, O1 + w1);
  EXPECT_EQ(c.call(1, 1).delayEnter, O2);  // what P2's send carries
  EXPECT_TRUE(callIs(c, 0, 1, 7500 - O1, 8100 - (O2 + h), w1 + (O1 - O2)));
  // The handshake synchronises: P1's receive returns when P2's send starts (λ = 0).
  EXPECT_EQ(c.rp->predicted(0, 1).leave, c.rp->predicted(1, 1).enter);
}

TEST(CompensationPaper, HandshakeCase2) {
  const Compensated c = compensate(handshake(1, 1, 7500, 8000), kO);
  // First: o1 = 200 < 500 → x2 = 200. Second: O2 = 200 + (2h + 2h) = 600; O1 = 200 + 2h =
  // 400; w1 = 500; O2 < O1 + w1 → w1' = 500 + (400 − 600) = 300, x1' = 600: [7100, 7400].
  const TimeNs O1 = 400, O2 = 600, w1 = 500;
  ASSERT_LT(O2, O1 + w1);
  EXPECT_TRUE(callIs(c, 0, 1, 7500 - O1, 8100 - (O2 + h), w1 + (O1 - O2)));
  EXPECT_EQ(c.rp->predicted(0, 1).leave, c.rp->predicted(1, 1).enter);
}

TEST(CompensationPaper, HandshakeCase3) {
  const Compensated c = compensate(handshake(3, 3, 8800, 9000), kO);
  // First: x2 = 500. Second: O2 = 500 + (2h + 6h) = 1300; O1 = 800; w1 = 200;
  // O2 ≥ O1 + w1 → w1' = 0, x1' = O1 + w1 = 1000: [8000, 9100 − 1100] = [8000, 8000].
  const TimeNs O1 = 800, O2 = 1300, w1 = 200;
  ASSERT_GE(O2, O1 + w1);
  EXPECT_TRUE(callIs(c, 0, 1, 8800 - O1, 9100 - (O1 + w1 + h), 0));
  // P2's send now comes before P1 asks: 9000 − 1300 = 7700 < 8000.
  EXPECT_LT(c.rp->predicted(1, 1).enter, c.rp->predicted(0, 1).enter);
}

TEST(CompensationPaper, HandshakeCase4) {
  const Compensated c = compensate(handshake(1, 3, 8800, 9000), kO);
  // First: x2 = 200. Second: O2 = 200 + 800 = 1000; O1 = 400; w1 = 200; O2 ≥ 600 →
  // w1' = 0, x1' = 600: [8400, 8400].
  const TimeNs O1 = 400, O2 = 1000, w1 = 200;
  ASSERT_GE(O2, O1 + w1);
  EXPECT_TRUE(callIs(c, 0, 1, 8800 - O1, 9100 - (O1 + w1 + h), 0));
}

// A rendezvous send waits for its receiver: the same rule with the roles swapped inside one
// message (the receiver's delay travels back with the handshake).
TEST(CompensationPaper, RendezvousSenderTakesTheReceiversDelay) {
  Tb b(2);
  b.send(0, 1000, 7300, 1, 2 << 20);  // above S: waits for the receive (λ = 0) until 7000
  states(b, 1, 1000, 3);
  b.recv(1, 7000, 7400, 0, 2 << 20);
  const Compensated c = compensate(b.take(), kO);
  // Sender: x = 0 at its enter, w = 6000; the receiver's x at its enter = 600 (slack 0):
  // x' = min(0 + 6000, 600) = 600, w' = 6000 − 600 = 5400; cost 300 − h = 200:
  // [1000, 7300 − 700] = [1000, 6600] = the receive's enter 6400 + 200.
  EXPECT_TRUE(callIs(c, 0, 0, 1000, 6600, 5400));
  EXPECT_TRUE(callIs(c, 1, 0, 6400, 6700, 0));  // cost 400 − h = 300
}

// ---- 3.2.1 Pipeline (Fig. 8) ---------------------------------------------------------------

// P1: `n1` states, Send [7000, 7200] to P2. P2: Recv [6500, 7100], Send [7300, 7500] to P3.
// P3: `n3` states, Recv [7000, 7400] (7300 + h): w3 = 300.
Trace pipeline(int n1, int n3) {
  Tb b(3);
  states(b, 0, 1000, n1);
  b.send(0, 7000, 7200, 1);
  b.recv(1, 6500, 7100, 0);
  b.send(1, 7300, 7500, 2);
  states(b, 2, 1000, n3);
  b.recv(2, 7000, 7400, 1);
  return b.take();
}

TEST(CompensationPaper, PipelineCase1) {
  const Compensated c = compensate(pipeline(3, 0), kO);
  // First: x1 = 600 ≥ x2 + w2 = 0 + 500 → x2' = 500. P2's send carries 500 + 2h = 700.
  // Second: 700 ≥ o3 + w3 = 0 + 300 → w3' = 0, x3 = 300: [7000, 7400 − 400] = [7000, 7000].
  EXPECT_EQ(c.call(1, 1).delayEnter, 700);
  const TimeNs x2s = 700, o3 = 0, w3 = 300;
  ASSERT_GE(x2s, o3 + w3);
  EXPECT_TRUE(callIs(c, 2, 0, 7000 - o3, 7400 - (o3 + w3 + h), 0));
}

TEST(CompensationPaper, PipelineCase2) {
  const Compensated c = compensate(pipeline(0, 2), kO);
  // First: x1 = 0 < 500 → x2' = 0 (w2' = 500). P2's send carries 0 + 2h = 200.
  // Second: 200 < o3 + w3 = 400 + 300 → w3' = 300 + (400 − 200) = 500, x3 = 200:
  // [7000 − 400, 7400 − 300] = [6600, 7100].
  EXPECT_TRUE(callIs(c, 1, 0, 6500, 7000, 500));
  const TimeNs x2s = 200, o3 = 4 * h, w3 = 300;
  ASSERT_LT(x2s, o3 + w3);
  EXPECT_TRUE(callIs(c, 2, 0, 7000 - o3, 7400 - (x2s + h), w3 + (o3 - x2s)));
  // "Independent of the first message": P3 saw only x2' (its result is that of a lone send
  // carrying 200).
  EXPECT_EQ(c.call(2, 0).delayLeave, x2s + h);
}

// ---- 3.2.2 Two receive (Figs. 9–12) --------------------------------------------------------

// P1 (rank 0): `n1` states, Send [s1, s1 + 200] to P2. P3 (rank 2): `n3` states, Send [s3, s3 +
// 200] to P2. P2 (rank 1): Recv from P1 [6500, s1 + h], Recv from P3 [r2, s3 + h].
Trace twoReceive(int n1, TimeNs s1, int n3, TimeNs r2, TimeNs s3) {
  Tb b(3);
  states(b, 0, 1000, n1);
  b.send(0, s1, s1 + 200, 1);
  states(b, 2, 1000, n3);
  b.send(2, s3, s3 + 200, 1);
  b.recv(1, 6500, s1 + h, 0);
  b.recv(1, r2, s3 + h, 2);
  return b.take();
}

TEST(CompensationPaper, TwoReceiveCase1NoWaitAfter) {
  const Compensated c = compensate(twoReceive(3, 7000, 5, 11800, 12000), kO);
  // First: o1 = 600 ≥ 500 → x2 = 500. Second: o3 = 5·2h = 1000; O2 = 500 + 2h = 700;
  // y = 200; o3 ≥ O2 + y → y' = 0, x2' = 900: [11100, 12100 − 1000] = [11100, 11100].
  const TimeNs o3 = 1000, O2 = 700, y = 200;
  ASSERT_GE(o3, O2 + y);
  EXPECT_TRUE(callIs(c, 1, 0, 6500, 6500, 0));
  EXPECT_TRUE(callIs(c, 1, 1, 11800 - O2, 12100 - (O2 + y + h), 0));
}

TEST(CompensationPaper, TwoReceiveCase2SecondWaits) {
  const Compensated c = compensate(twoReceive(3, 7000, 3, 11800, 12000), kO);
  // First: x2 = 500. Second: o3 = 600 < O2 + y = 900 → y' = 200 + (700 − 600) = 300,
  // x2' = 600: [11100, 11400].
  const TimeNs o3 = 600, O2 = 700, y = 200;
  ASSERT_LT(o3, O2 + y);
  EXPECT_TRUE(callIs(c, 1, 1, 11800 - O2, 12100 - (o3 + h), y + (O2 - o3)));
}

TEST(CompensationPaper, TwoReceiveCase3BothWait) {
  const Compensated c = compensate(twoReceive(1, 7000, 1, 11800, 12000), kO);
  // First: o1 = 200 < 500 → x2 = 200, w' = 300. Second: o3 = 200; O2 = 200 + 2h = 400;
  // y = 200; o3 < 600 → y' = 200 + 200 = 400, x2' = 200: [11400, 11800].
  EXPECT_TRUE(callIs(c, 1, 0, 6500, 6800, 300));
  const TimeNs o3 = 200, O2 = 400, y = 200;
  ASSERT_LT(o3, O2 + y);
  EXPECT_TRUE(callIs(c, 1, 1, 11800 - O2, 12100 - (o3 + h), y + (O2 - o3)));
}

TEST(CompensationPaper, TwoReceiveCase4SendsReorderButReceivesKeepTheirOrder) {
  // P1 has no state (o1 = 0), P3 three (o3 = 600): P3's send, measured 500 ns after P1's,
  // would have come first: S3' = 7500 − 600 = 6900 < S1' = 7000.
  const Compensated c = compensate(twoReceive(0, 7000, 3, 7300, 7500), kO);
  EXPECT_EQ(c.rp->predicted(2, 0).enter, 6900);
  EXPECT_EQ(c.rp->predicted(0, 0).enter, 7000);
  // P2 still receives P1's message first (the measured matching is kept; §3.2.2).
  // First: o1 = 0 < o2 + w = 500 → x2 = 0, w' = 500: [6500, 7100 − 100] = [6500, 7000].
  EXPECT_TRUE(callIs(c, 1, 0, 6500, 7000, 500));
  // Second: O2 = 0 + 2h = 200, y = 200, o3 = 600 ≥ 400 → y' = 0, x2' = 400:
  // [7300 − 200, 7600 − 500] = [7100, 7100], after the first receive.
  EXPECT_TRUE(callIs(c, 1, 1, 7100, 7100, 0));
}

// ---- 4.3.3 Collectives: through the minimum delay ------------------------------------------

// Barrier, the last member measured at 7000 (rank 0), every member returning at 7000 + h.
// Member m's delay x_m reaches the gather with its slack (how much before the last it
// arrived): x_node = min_m (x_m + 7000 − E_m); every member then takes x' = min(x_m + w_m,
// x_node) and returns at 7100 − (x' + h).
Trace barrier(int n0, TimeNs e1, int n2, TimeNs e2) {
  Tb b(3);
  states(b, 0, 1000, n0, 500, 1000);
  b.barrier(0, 7000, 7000 + h);
  b.barrier(1, e1, 7000 + h);
  states(b, 2, 1000, n2);
  b.barrier(2, e2, 7000 + h);
  return b.take();
}

TEST(CompensationPaper, BarrierCompletesWithTheLeastDelayedMember) {
  const Compensated c = compensate(barrier(3, 5000, 1, 6000), kO);
  // x = 600, 0, 200 at 7000, 5000, 6000: x_node = min(600 + 0, 0 + 2000, 200 + 1000) = 600.
  // Every member: x' = min(x + w, 600) = 600 → returns at 7100 − (600 + h) = 6400.
  for (Rank r = 0; r < 3; ++r) EXPECT_EQ(c.rp->predicted(r, 0).leave, 6400) << r;
  EXPECT_TRUE(callIs(c, 1, 0, 5000, 6400, 1400));  // w' = 2000 − (600 − 0)
}

TEST(CompensationPaper, BarrierLastArrivalChanges) {
  const Compensated c = compensate(barrier(5, 6800, 1, 6000), kO);
  // x = 1000, 0, 200 at 7000, 6800, 6000: x_node = min(1000, 0 + 200, 200 + 1000) = 200:
  // rank 1 is now the last to arrive (6800), rank 0 (6000) waits 800 for it; all return at
  // 7100 − 300 = 6800. The paper's on-the-fly rule, seeing delays only, would take
  // min(1000, 0, 200) = 0 as if every member had arrived with the last one, and end the barrier
  // at 7000 instead.
  EXPECT_TRUE(callIs(c, 0, 0, 6000, 6800, 800));
  EXPECT_TRUE(callIs(c, 1, 0, 6800, 6800, 0));
  EXPECT_TRUE(callIs(c, 2, 0, 5800, 6800, 1000));
}

// ---- 5 The master–worker experiment of Table 1 ---------------------------------------------

// The instrumented master–worker run of compensation_traces.h, with its true (uninstrumented)
// times derived there.
using test::masterWorker;

TEST(CompensationTable1, MasterWorkerRecoversTheUninstrumentedRun) {
  const Trace t = masterWorker();
  EXPECT_EQ(t.endTime, 27900);
  const Compensated c = compensate(t, kO, simpleNet());
  EXPECT_TRUE(callIs(c, 0, 0, 1000, 1100, 0));
  EXPECT_TRUE(callIs(c, 0, 1, 1100, 1200, 0));
  EXPECT_TRUE(callIs(c, 0, 2, 1200, 13300, 13250 - 1200));
  EXPECT_TRUE(callIs(c, 0, 3, 13300, 23400, 23350 - 13300));
  EXPECT_TRUE(callIs(c, 1, 0, 1000, 2150, 2100 - 1000));
  EXPECT_TRUE(callIs(c, 1, 1, 12150, 12250, 0));
  EXPECT_TRUE(callIs(c, 2, 0, 1000, 2250, 2200 - 1000));
  EXPECT_TRUE(callIs(c, 2, 1, 22250, 22350, 0));
  EXPECT_EQ(c.rp->predictedTime(), 23400);
  // The work states land on their true times too (the compensated timeline, not only the calls).
  const Replayer::EventTimes times = c.rp->predictedEventTimes();
  int works = 0;
  for (std::uint32_t e = 0; e < t.ranks[2].size(); ++e) {
    if (t.kind(2, e) != EventKind::UserState) continue;
    const TimeNs i = (t.ranks[2].enter[e] - 2650) / 1200;
    EXPECT_EQ(times.enter[2][e], 2250 + 1000 * i) << "work " << i;
    EXPECT_EQ(times.leave[2][e], 3250 + 1000 * i) << "work " << i;
    ++works;
  }
  EXPECT_EQ(works, 20);

  // Local-only compensation (§2): each rank less its own events × O, nothing propagated.
  // M: 4 events → 27900 − 800 = 27100, far from the true 23400: it cannot know that the
  // workers' results would have come 4500 ns earlier. W2: 22 events → 26850 − 4400 = 22450,
  // not 22350 either.
  const std::vector<RankInstrumentation> local = rankOverheads(t, {kO, kO, kO});
  EXPECT_EQ(local[0].localOnlyEnd, 27900 - 4 * kO);
  EXPECT_EQ(local[2].localOnlyEnd, 26850 - 22 * kO);
  EXPECT_GT(local[0].localOnlyEnd - 23400, 3000);
  EXPECT_NE(local[2].localOnlyEnd, 22350);
  EXPECT_EQ(c.rp->predictedRankEnd(0), 23400);
  EXPECT_EQ(c.rp->predictedRankEnd(2), 22350);
  EXPECT_EQ(c.ref.rankDelay[0], 27900 - 23400);  // the master's delay: mostly the workers' overhead
}

// ---- Compensation as one hypothesis among others -------------------------------------------

TEST(CompensationHypothesis, CombinesWithZeroEvent) {
  const Trace t = masterWorker();
  // Compensated, and W2's work (the computation before its call 1, 2:c1) takes no time:
  // W2's Send enters when its Recv returns, 2250, so its message reaches M at 2250 + 1100 =
  // 3350, long before M's Recv2 is called at 13300: Recv2 = [13300, 13300 + 50], T = 13350.
  const Hypothesis zero{HypothesisKind::ZeroEvent, EventRef{2, 1, true}, 0};
  Replayer both(t, Scenario{simpleNet(), CostMode::Measured, {Hypothesis::compensate(kO), zero}});
  EXPECT_EQ(both.predicted(2, 1).enter, 2250);
  EXPECT_EQ(both.predicted(0, 3).enter, 13300);
  EXPECT_EQ(both.predicted(0, 3).leave, 13350);
  EXPECT_EQ(both.predictedTime(), 13350);
  // Without compensation the same zeroing leaves every overhead in: W2's Send at 2550 (its gap
  // gone) → arrival 3650 < Recv2's enter 15700: Recv2 [15700, 15700 + 150], T = 15850.
  Replayer zeroOnly(t, Scenario{simpleNet(), CostMode::Measured, {zero}});
  EXPECT_EQ(zeroOnly.predictedTime(), 15850);

  // In either order, incrementally, the result is the same.
  Replayer inc(t, Scenario{simpleNet(), CostMode::Measured, {}});
  ASSERT_TRUE(inc.add(zero));
  ASSERT_TRUE(inc.add(Hypothesis::compensate(kO)));
  EXPECT_EQ(inc.predictedEnters(), both.predictedEnters());
  EXPECT_EQ(inc.predictedLeaves(), both.predictedLeaves());
  ASSERT_TRUE(inc.remove(Hypothesis::compensate(kO)));
  EXPECT_EQ(inc.predictedLeaves(), zeroOnly.predictedLeaves());
}

TEST(CompensationHypothesis, ZeroOverheadIsTheMeasurement) {
  const Trace t = masterWorker();
  Replayer rp(t, Scenario{simpleNet(), CostMode::Measured, {Hypothesis::compensate(0)}});
  EXPECT_EQ(rp.predictedTime(), t.endTime);
  const Replayer::EventTimes times = rp.predictedEventTimes();
  for (Rank r = 0; r < t.rankCount(); ++r) {
    EXPECT_EQ(times.enter[r], t.ranks[r].enter) << r;
    EXPECT_EQ(times.leave[r], t.ranks[r].leave) << r;
  }
}

TEST(CompensationHypothesis, AtMostOneCompensationAndOnlyWithAnOverhead) {
  const Trace t = masterWorker();
  Replayer rp(t, Scenario{simpleNet(), CostMode::Measured, {Hypothesis::compensate(kO)}});
  std::string error;
  EXPECT_FALSE(rp.add(Hypothesis::compensate(300), &error));
  EXPECT_NE(error.find("two compensations"), std::string::npos) << error;
  EXPECT_TRUE(rp.add(Hypothesis::compensate(kO)));  // the same one again: nothing changes
  EXPECT_EQ(rp.predictedTime(), 23400);
  EXPECT_FALSE(rp.setHypotheses({Hypothesis::compensate(1), Hypothesis::compensate(2)}, &error));
  EXPECT_EQ(rp.predictedTime(), 23400);  // refused: the scenario is unchanged
  EXPECT_EQ(rp.validate(Hypothesis::compensate(-3)).find("0 ns per event or more") != std::string::npos, true);
  // This trace (built in memory) records no overhead of its own.
  Replayer plain(t, Scenario{});
  const std::string problem = plain.validate(Hypothesis::compensateFromTrace());
  EXPECT_NE(problem.find("records no instrumentation overhead"), std::string::npos) << problem;
  EXPECT_FALSE(plain.add(Hypothesis::compensateFromTrace()));
}

// The overhead the tracer recorded (trace.h: per record; an event is two records).
TEST(CompensationHypothesis, FromTraceUsesTheRecordedOverhead) {
  const Trace t = test::withRecordedOverhead(masterWorker(), 100);
  EXPECT_EQ(recordedOverhead(t), (std::vector<TimeNs>{200, 200, 200}));
  Replayer fromTrace(t, Scenario{simpleNet(), CostMode::Measured, {Hypothesis::compensateFromTrace()}});
  Replayer given(t, Scenario{simpleNet(), CostMode::Measured, {Hypothesis::compensate(200)}});
  EXPECT_EQ(fromTrace.predictedLeaves(), given.predictedLeaves());
  // The overhead points sit at each rank's end, so the Table 1 result is unchanged.
  EXPECT_EQ(fromTrace.predictedTime(), 23400);
  // A rank without the record: the trace does not record the overhead.
  EXPECT_TRUE(recordedOverhead(masterWorker()).empty());
}

// ---- The scenario's JSON form --------------------------------------------------------------

TEST(CompensationJson, RoundTripIsCanonical) {
  Scenario s;
  s.hypotheses = {Hypothesis::compensate(480), {HypothesisKind::ZeroWait, EventRef{1, 5, false}, 0},
                  {HypothesisKind::BalanceCompute, {}, 2}};
  const std::string json = s.toJson();
  EXPECT_NE(json.find("\"kind\": \"compensate\""), std::string::npos) << json;
  EXPECT_NE(json.find("\"overhead_ns\": 480"), std::string::npos) << json;
  Scenario back;
  std::string error;
  ASSERT_TRUE(scenarioFromJson(json, "s.json", back, &error)) << error;
  EXPECT_EQ(back.hypotheses.size(), 3u);
  EXPECT_EQ(back.hypotheses.back(), Hypothesis::compensate(480));  // sorted last (kind order)
  EXPECT_EQ(back.toJson(), json);

  Scenario fromTrace;
  fromTrace.hypotheses = {Hypothesis::compensateFromTrace()};
  const std::string j2 = fromTrace.toJson();
  EXPECT_NE(j2.find("\"overhead_ns\": \"trace\""), std::string::npos) << j2;
  ASSERT_TRUE(scenarioFromJson(j2, "t.json", back, &error)) << error;
  ASSERT_EQ(back.hypotheses.size(), 1u);
  EXPECT_TRUE(back.hypotheses[0].overheadFromTrace());
  EXPECT_EQ(back.hypotheses[0].toString(), "compensate overhead recorded in the trace");
  EXPECT_EQ(Hypothesis::compensate(480).toString(), "compensate 480 ns/event");
}

TEST(CompensationJson, BadCompensationsNameTheFile) {
  const auto parse = [](const std::string& hyps, std::string& error) {
    Scenario s;
    return scenarioFromJson("{\"perwiz_scenario\": 1, \"hypotheses\": [" + hyps + "]}", "bad.json", s, &error);
  };
  std::string error;
  EXPECT_FALSE(parse("{\"kind\": \"compensate\", \"overhead_ns\": -5}", error));
  EXPECT_EQ(error.rfind("bad.json: ", 0), 0u) << error;
  EXPECT_NE(error.find("overhead_ns"), std::string::npos) << error;
  EXPECT_FALSE(parse("{\"kind\": \"compensate\"}", error));
  EXPECT_NE(error.find("overhead_ns"), std::string::npos) << error;
  EXPECT_FALSE(parse("{\"kind\": \"compensate\", \"overhead_ns\": \"lots\"}", error));
  EXPECT_FALSE(parse("{\"kind\": \"compensate\", \"overhead_ns\": 1}, {\"kind\": \"compensate\", \"overhead_ns\": 2}", error));
  EXPECT_NE(error.find("two compensations"), std::string::npos) << error;
  // The same compensation twice is one.
  Scenario s;
  ASSERT_TRUE(scenarioFromJson("{\"perwiz_scenario\": 1, \"hypotheses\": [{\"kind\": \"compensate\", \"overhead_ns\": "
                               "7}, {\"kind\": \"compensate\", \"overhead_ns\": 7}]}",
                               "ok.json", s, &error)) << error;
  EXPECT_EQ(s.hypotheses.size(), 1u);
}

// ---- The replay equals the paper's rules beyond the figures --------------------------------

// Random generated traces (every point-to-point pattern, blocking and not, eager and
// rendezvous, every collective kind, parallel-step states): the replay with reduced costs and
// the delay algorithm agree on every call, for even and odd overheads and for overheads larger
// than some gaps (clamped: a gap or cost never becomes negative).
TEST(CompensationEquivalence, ReplayEqualsDelayAlgorithmOnRandomTraces) {
  std::mt19937_64 rng(7007);
  for (int trial = 0; trial < 40; ++trial) {
    const Trace t = test::randomTrace(rng);
    for (TimeNs o : {TimeNs{1}, TimeNs{137}, TimeNs{2000}, TimeNs{400000}}) {
      SCOPED_TRACE("trial " + std::to_string(trial) + " o " + std::to_string(o));
      const Compensated c = compensate(t, o, nullptr);
      if (HasFailure()) return;
      EXPECT_LE(c.rp->predictedTime(), t.endTime);  // removing overhead never lengthens a run
      // The compensated timeline keeps every rank's events in order and nested.
      const Replayer::EventTimes times = c.rp->predictedEventTimes();
      for (Rank r = 0; r < t.rankCount(); ++r)
        for (std::uint32_t e = 0; e < t.ranks[r].size(); ++e) {
          ASSERT_LE(times.enter[r][e], times.leave[r][e]) << r << " " << e;
          if (e > 0) {
            ASSERT_LE(times.enter[r][e - 1], times.enter[r][e]) << r << " " << e;
          }
        }
    }
  }
}

// Incremental updates with compensation among the other kinds equal a full replay (the
// property test of test_replay_incremental.cpp draws compensations too).
TEST(CompensationEquivalence, IncrementalWithOtherHypothesesEqualsFull) {
  std::mt19937_64 rng(4242);
  for (int trial = 0; trial < 20; ++trial) {
    const Trace t = test::randomTrace(rng);
    Replayer inc(t, Scenario{});
    std::vector<Hypothesis> hs = {Hypothesis::compensate(250)};
    for (std::uint32_t r = 0; r < t.rankCount() && hs.size() < 4; ++r)
      if (!t.ranks[r].mpiCalls.empty()) hs.push_back({HypothesisKind::ZeroWait, EventRef{r, 0, false}, 0});
    if (!t.steps.empty()) hs.push_back({HypothesisKind::BalanceCompute, {}, 0});
    for (const Hypothesis& h : hs) ASSERT_TRUE(inc.add(h)) << h.toString();
    Scenario all;
    all.hypotheses = hs;
    Replayer full(t, all);
    EXPECT_EQ(inc.predictedEnters(), full.predictedEnters()) << trial;
    EXPECT_EQ(inc.predictedLeaves(), full.predictedLeaves()) << trial;
    // Removing the compensation leaves exactly the others.
    ASSERT_TRUE(inc.remove(hs[0]));
    Scenario rest;
    rest.hypotheses.assign(hs.begin() + 1, hs.end());
    Replayer fullRest(t, rest);
    EXPECT_EQ(inc.predictedLeaves(), fullRest.predictedLeaves()) << trial;
  }
}

// The predicted trace L' of a compensation carries the hypothesis, and the critical path of
// the compensated run is computed on the compensated costs.
TEST(CompensationHypothesis, PredictedTraceAndCriticalPath) {
  const Trace t = masterWorker();
  Replayer rp(t, Scenario{simpleNet(), CostMode::Measured, {Hypothesis::compensate(kO)}});
  const Trace lp = rp.predictedTrace();
  EXPECT_EQ(lp.endTime, 23400);
  const auto recorded = scenariosRecordedIn(lp);
  ASSERT_EQ(recorded.size(), 1u);
  EXPECT_NE(recorded[0].find("\"compensate\""), std::string::npos) << recorded[0];
  // Critical path: W2's chain (its 20 states of work) and M's last receive: length T.
  const CriticalPath cp = criticalPath(rp);
  EXPECT_EQ(cp.length, 23400);
  ASSERT_FALSE(cp.callIds.empty());
  EXPECT_EQ(cp.callIds.back(), "0:3");
}
