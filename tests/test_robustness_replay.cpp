// Issue #15 reproducers for the replay and compensation (hand-written ALOG, written at run time):
// calls left open at the end of a rank (a heap overflow in the compensation's walk), and
// predictions that leave the int64 ns range (a message of 2^63 − 1 bytes, a huge overhead per
// event, a trace spanning ~2^63 ns), which must be errors naming the input, never results.
#include "perwiz/checked_time.h"
#include "perwiz/compensation.h"
#include "perwiz/critical_path.h"
#include "perwiz/execution_dag.h"
#include "perwiz/network_model.h"
#include "perwiz/replay.h"
#include "perwiz/trace_io.h"

#include "cli_runner.h"
#include "test_support.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <limits>
#include <string>

namespace fs = std::filesystem;
using namespace perwiz;

namespace {

constexpr TimeNs kMax = std::numeric_limits<TimeNs>::max();

test::CliResult cli(const fs::path& dir, const std::vector<std::string>& args) {
  return test::runProgram(PERWIZ_CLI, dir, args);
}

struct Input {
  fs::path dir, file;
};

Input alog(const std::string& name, const std::string& text) {
  Input in;
  in.dir = test::freshDir("Robustness_" + name);
  in.file = test::writeFile(in.dir / (name + ".alog"), text);
  return in;
}

// The fuzzer's input: rank 2 enters BARRIER at 5 µs and SEND at 7 µs and closes neither. The
// reader closes both at the trace's end (7 µs): BARRIER [5000, 7000] ns and SEND [7000, 7000]
// ns at depth 1, "inside" BARRIER by nesting but entered at its leave, so the replay program
// makes SEND a unit of its own (a call is a unit when it starts at or after the previous
// unit's leave). The compensation's walk used to follow the depths instead: it kept BARRIER
// open under SEND and stepped past rank 2's last unit when it closed both at the end.
const char* kOpenAtEnd =
    "-6 0 0 0 0 0\n"  // time origin 0 (else the first record's time)
    "-13 0 11 12 0 0 yellow:dimple3 BARRIER\n"
    "-13 0 161 162 0 0 blue:gray3 SEND\n"
    "11 2 0 1 0 5\n"
    "161 2 0 1 0 7\n";

// Improper nesting on rank 0 (the other way the depths and the units disagree): BARRIER
// [1, 3] µs, SEND entered at 2 µs inside it and left at 6 µs after BARRIER's leave, RECV
// [4, 5] µs entered while SEND is still open (depth 1). The program: BARRIER is unit 0, SEND
// nested in it (entered before its leave), RECV unit 1 (entered after BARRIER's leave), the
// end sentinel unit 2 at 6 µs.
const char* kImproper =
    "-6 0 0 0 0 0\n"
    "-13 0 11 12 0 0 yellow:dimple3 BARRIER\n"
    "-13 0 161 162 0 0 blue:gray3 SEND\n"
    "-13 0 155 156 0 0 green:light_gray RECV\n"
    "11 0 0 0 0 1\n"
    "161 0 0 0 0 2\n"
    "12 0 0 0 0 3\n"
    "155 0 0 0 0 4\n"
    "156 0 0 0 0 5\n"
    "162 0 0 0 0 6\n";

// One message of 2^63 − 1 bytes from rank 0 (SEND [1, 3] µs) to rank 1 (RECV [1, 5] µs).
const char* kHugeMessage =
    "-6 0 0 0 0 0\n"
    "-13 0 161 162 0 0 blue:gray3 SEND\n"
    "-13 0 155 156 0 0 green:light_gray RECV\n"
    "161 0 0 1 0 1\n"
    "-101 0 0 1 0 2 99 9223372036854775807\n"
    "162 0 0 2 0 3\n"
    "155 1 0 1 0 1\n"
    "-102 1 0 0 0 4 99 9223372036854775807\n"
    "156 1 0 2 0 5\n";

// A network model whose price grows with the message size (G = 1 µs per byte): a message of
// 2^63 − 1 bytes costs ~9.2e21 ns, far beyond int64.
const char* kPerByteModel =
    R"({"model": "LogGPS", "name": "per-byte", "L_us": 1, "o_us": 1, "G_us_per_byte": 1, "S_bytes": 1024,
        "send_overhead_us": {"a": 1, "b_per_byte": 1}, "recv_overhead_us": {"a": 1, "b_per_byte": 1}})";

Scenario compensated(std::int64_t overheadNs, CostMode costs = CostMode::Measured) {
  return Scenario{defaultNetworkModel(), costs, {Hypothesis::compensate(overheadNs)}};
}

}  // namespace

// ---- calls left open at the end of a rank ---------------------------------------------------

TEST(RobustnessCompensation, CallsOpenAtTheEndOfARank) {
  const Input in = alog("open_at_end", kOpenAtEnd);
  const Trace t = loadTrace(in.file.string());
  ASSERT_EQ(t.rankCount(), 3u);
  const RankTrace& r2 = t.ranks[2];
  ASSERT_EQ(r2.size(), 2u);
  EXPECT_EQ(r2.enter, (std::vector<TimeNs>{5000, 7000}));
  EXPECT_EQ(r2.leave, (std::vector<TimeNs>{7000, 7000}));
  EXPECT_EQ(r2.depth, (std::vector<std::uint8_t>{0, 1}));

  // 100 ns per event: 50 at each record. BARRIER's enter share is its own (local 50); SEND is a
  // unit of its own, so BARRIER has returned when SEND enters: BARRIER's leave share opens
  // SEND's (empty) gap, SEND's enter share is its local cost, its leave share the end's gap.
  // Measured: gap 5000, BARRIER 2000 (no partner: no wait), SEND 0, end gap 0.
  // Compensated: gap 5000, BARRIER 2000 − 50 = 1950, SEND's gap and cost max(0, 0 − 50) = 0,
  // T = 5000 + 1950 = 6950 ns (measured 7000).
  const Replayer rp(t, compensated(100));
  EXPECT_TRUE(rp.overflow().empty()) << rp.overflow();
  EXPECT_EQ(rp.measuredTime(), 7000);
  EXPECT_EQ(rp.predictedTime(), 6950);
  EXPECT_EQ(rp.predicted(2, 0).enter, 5000);
  EXPECT_EQ(rp.predicted(2, 0).leave, 6950);
  EXPECT_EQ(rp.predicted(2, 1).enter, 6950);
  EXPECT_EQ(rp.predicted(2, 1).leave, 6950);
  // The predicted trace maps every event (mapTime through the compensated gaps).
  const Trace predicted = rp.predictedTrace();
  EXPECT_EQ(predicted.ranks[2].leave.back(), 6950);
  // The paper's delay algorithm walks the same charges.
  const DelayCompensation dc = compensateByDelays(t, {100, 100, 100}, defaultNetworkModel());
  EXPECT_EQ(dc.end, 6950);

  // In cost mode "model" the replay prices BARRIER (a collective of one rank: no rounds, 0 ns)
  // and leaves it alone; SEND has no message and keeps its measured 0 ns. 1000 ns per event:
  // T = gap 5000 + 0 = 5000 ns.
  const Replayer model(t, compensated(1000, CostMode::Model));
  EXPECT_TRUE(model.overflow().empty()) << model.overflow();
  EXPECT_EQ(model.predictedTime(), 5000);
}

TEST(RobustnessCompensation, ImproperNestingAcrossUnits) {
  const Input in = alog("improper", kImproper);
  const Trace t = loadTrace(in.file.string());
  ASSERT_EQ(t.rankCount(), 1u);
  ASSERT_EQ(t.ranks[0].size(), 3u);
  EXPECT_EQ(t.ranks[0].depth, (std::vector<std::uint8_t>{0, 1, 1}));  // RECV entered under SEND
  // 100 ns per event, 50 per record. BARRIER (unit 0) holds its enter share, SEND's enter share
  // (nested, inside it) and SEND's leave share (SEND closes first, by depth, when RECV enters):
  // 150. BARRIER's leave share opens RECV's gap (50); RECV's enter share is its own (50), its
  // leave share opens the end's gap (50).
  // Measured: gap 1000, BARRIER 2000, gap 1000, RECV 1000, end gap 6000 − 5000 = 1000.
  // Compensated: 1000 + (2000 − 150) + (1000 − 50) + (1000 − 50) + (1000 − 50) = 5700 ns.
  const Replayer rp(t, compensated(100));
  EXPECT_EQ(rp.measuredTime(), 6000);
  EXPECT_EQ(rp.predictedTime(), 5700);
  EXPECT_EQ(compensateByDelays(t, {100}, defaultNetworkModel()).end, 5700);
}

TEST(RobustnessCompensation, CliOnCallsOpenAtTheEnd) {
  const Input in = alog("open_at_end_cli", kOpenAtEnd);
  // compensate: T 7 µs -> 6.95 µs (derived above).
  const test::CliResult c = cli(in.dir, {"compensate", in.file.string(), "--overhead-ns", "100", "--json"});
  ASSERT_EQ(c.status, 0) << c.err;
  EXPECT_NE(c.out.find("\"compensated_ns\": 6950"), std::string::npos) << c.out;
  // predict --costs model with 1000 ns per event: 5000 ns (derived above).
  const test::CliResult p =
      cli(in.dir, {"predict", in.file.string(), "--compensate-ns", "1000", "--costs", "model", "--json"});
  ASSERT_EQ(p.status, 0) << p.err;
  EXPECT_NE(p.out.find("\"predicted_ns\": 5000"), std::string::npos) << p.out;
}

// ---- predictions beyond the int64 ns range ------------------------------------------------

TEST(RobustnessOverflow, CheckedArithmetic) {
  EXPECT_EQ(satAdd(kMax - 1, 1), kMax - 1 + 1);
  EXPECT_EQ(satAdd(kMax, 1), kTimeOverflow);
  EXPECT_EQ(satAdd(kMax / 2 + 1, kMax / 2 + 1), kTimeOverflow);
  EXPECT_EQ(satAdd(-kMax, -2), kTimeUnderflow);
  EXPECT_EQ(satSub(0, kTimeUnderflow), kTimeOverflow);
  EXPECT_EQ(satMul(kMax / 2, 3), kTimeOverflow);
  EXPECT_EQ(satMul(kMax / 2, -3), kTimeUnderflow);
  TimeNs out = 0;
  EXPECT_FALSE(checkedAdd(kMax, 1, &out));
  EXPECT_TRUE(checkedMul(1000, 1000, &out));
  EXPECT_EQ(out, 1000000);
}

TEST(RobustnessOverflow, HugeMessageIsAnErrorNotAResult) {
  const Input in = alog("huge_message", kHugeMessage);
  const fs::path modelFile = test::writeFile(in.dir / "per-byte.json", kPerByteModel);
  const Trace t = loadTrace(in.file.string());
  ASSERT_EQ(t.ranks[0].messages.size(), 1u);
  EXPECT_EQ(t.ranks[0].messages[0].bytes, 9223372036854775807ull);
  std::string error;
  std::shared_ptr<const NetworkModel> perByte = loadNetworkModel(modelFile.string(), &error);
  ASSERT_TRUE(perByte) << error;

  // Cost mode "model": SEND's local cost is the model's price of the message, o + G·k µs with
  // k = 2^63 − 1 (~9.2e21 ns): it does not fit; the sweep saturates and the replay says which
  // call and which message did it instead of printing a time.
  const Replayer rp(t, Scenario{perByte, CostMode::Model, {}});
  const std::string problem = rp.overflow();
  EXPECT_NE(problem.find("int64"), std::string::npos) << problem;
  EXPECT_NE(problem.find("call 0:0 (SEND)"), std::string::npos) << problem;
  EXPECT_NE(problem.find("9223372036854775807 bytes"), std::string::npos) << problem;
  EXPECT_NE(problem.find("'per-byte'"), std::string::npos) << problem;
  EXPECT_EQ(rp.predictedTime(), kTimeOverflow);  // saturated, never wrapped to 0 or below
  // The DAG's longest path saturates with it (it used to wrap to −9.2e18 ns).
  const CriticalPath cp = criticalPath(rp);
  EXPECT_EQ(cp.length, kTimeOverflow);
  for (const CriticalSegment& s : cp.segments) EXPECT_GE(s.end, s.begin);
  EXPECT_EQ(ExecutionDag(rp).criticalPath().length, kTimeOverflow);  // the reference agrees

  // Cost mode "measured": the message is a rendezvous (k > S) whose REQ arrives o_s(0) + L =
  // 2 µs after the send starts; the measured costs fit and the prediction is the measurement.
  const Replayer measured(t, Scenario{perByte, CostMode::Measured, {}});
  EXPECT_TRUE(measured.overflow().empty()) << measured.overflow();
  EXPECT_EQ(measured.predictedTime(), 5000);
}

TEST(RobustnessOverflow, HugeMessageCliExitsWithTheProblem) {
  const Input in = alog("huge_message_cli", kHugeMessage);
  const fs::path modelFile = test::writeFile(in.dir / "per-byte.json", kPerByteModel);
  const std::string file = in.file.string();
  for (const std::string cmd : {"predict", "critical-path", "advise"}) {
    const test::CliResult r = cli(in.dir, {cmd, file, "--costs", "model", "--model", modelFile.string()});
    EXPECT_EQ(r.status, 1) << cmd << ": " << r.out << r.err;
    EXPECT_NE(r.err.find(file + ": the predicted time exceeds the int64 range"), std::string::npos) << cmd << ": " << r.err;
    EXPECT_NE(r.err.find("9223372036854775807 bytes"), std::string::npos) << cmd << ": " << r.err;
    EXPECT_EQ(r.out.find("predicted T"), std::string::npos) << cmd << ": " << r.out;
  }
  // The default model (myrinet-score) has no per-byte terms: the same message is a rendezvous
  // of 3o + 2L = 3 · 2150 + 2 · 9110 = 24670 ns, which fits.
  const test::CliResult ok = cli(in.dir, {"predict", file, "--costs", "model", "--json"});
  EXPECT_EQ(ok.status, 0) << ok.err;
}

TEST(RobustnessOverflow, HugeCompensationIsRefusedNaming) {
  const Input in = alog("huge_compensation", kOpenAtEnd);
  const Trace t = loadTrace(in.file.string());
  // Rank 2 has 2 events: (2^63 − 1) · 2 ns of overhead does not fit.
  const Replayer rp(t, Scenario{});
  const std::string problem = rp.validate(Hypothesis::compensate(kMax));
  EXPECT_NE(problem.find("compensate 9223372036854775807 ns per event"), std::string::npos) << problem;
  EXPECT_NE(problem.find("rank 2"), std::string::npos) << problem;
  // Half of it fits (2 · (2^62 − 1) < 2^63): every call and every gap holding a record
  // collapses to 0; the 5000 ns before BARRIER hold no record and stay. T = 5000 ns —
  // compensation never lengthens T (it used to wrap and give 4.6e9 s).
  const Replayer half(t, compensated(kMax / 2));
  EXPECT_TRUE(half.overflow().empty()) << half.overflow();
  EXPECT_EQ(half.predictedTime(), 5000);
  EXPECT_LE(compensateByDelays(t, {kMax / 2, kMax / 2, kMax / 2}, defaultNetworkModel()).end, 7000);

  const std::string file = in.file.string();
  const test::CliResult c = cli(in.dir, {"compensate", file, "--overhead-ns", "9223372036854775807"});
  EXPECT_EQ(c.status, 2) << c.out << c.err;
  EXPECT_NE(c.err.find("compensate 9223372036854775807 ns per event: rank 2's 2 events"), std::string::npos) << c.err;
  EXPECT_NE(c.err.find(file), std::string::npos) << c.err;
  const test::CliResult p = cli(in.dir, {"predict", file, "--compensate-ns", "9223372036854775807"});
  EXPECT_EQ(p.status, 2) << p.out << p.err;
  EXPECT_NE(p.err.find("compensate 9223372036854775807 ns per event: rank 2's 2 events"), std::string::npos) << p.err;
  EXPECT_NE(p.err.find(file), std::string::npos) << p.err;
}

TEST(RobustnessOverflow, TraceSpanningTwoToThe63Nanoseconds) {
  // Rank 0: SEND [1 µs, 9223372036854774 µs], the latest time ALOG can hold: the trace ends at
  // 9223372036854774000 ns, 1807 ns below the int64 limit. The measured replay reproduces it
  // (it fits), compensation shortens it.
  const Input in = alog("span63", "-6 0 0 0 0 0\n"
                                  "-13 0 161 162 0 0 blue:gray3 SEND\n"
                                  "161 0 0 1 0 1\n"
                                  "162 0 0 2 0 9223372036854774\n");
  const Trace t = loadTrace(in.file.string());
  ASSERT_EQ(t.endTime, 9223372036854774000);
  const Replayer rp(t, Scenario{});
  EXPECT_TRUE(rp.overflow().empty()) << rp.overflow();
  EXPECT_EQ(rp.predictedTime(), 9223372036854774000);
  EXPECT_EQ(criticalPath(rp).length, 9223372036854774000);
  EXPECT_EQ(ExecutionDag(rp).criticalPath().length, 9223372036854774000);
  // 2000 ns per event: the gap before SEND holds no record (nothing to remove), SEND loses its
  // enter share 1000, its leave share falls in the empty gap at the end (clamped to 0):
  // T = 9223372036854774000 − 1000.
  const Replayer c(t, compensated(2000));
  EXPECT_EQ(c.predictedTime(), 9223372036854773000);
}

TEST(RobustnessOverflow, ModelCostOnTopOfANearlyFullTrace) {
  // Ranks 0 and 1 compute until 9223372036854773 µs, then rank 0 sends 1000 bytes to rank 1
  // (both calls end at 9223372036854774 µs). Measured, everything fits (the model's delivery
  // time, 1001 + L 1 + G · 999 = 2001 µs, lies after the receive returned and is shortened to
  // the measured 1 µs like clock skew). In cost mode "model" under the per-byte model the send
  // and the receive each cost o + G · 1000 = 1001 µs, beyond the 2807 ns left below 2^63 ns
  // from their start. The error names the message.
  const Input in = alog("span63_model", "-6 0 0 0 0 0\n"
                                        "-13 0 161 162 0 0 blue:gray3 SEND\n"
                                        "-13 0 155 156 0 0 green:light_gray RECV\n"
                                        "161 0 0 1 0 9223372036854773\n"
                                        "-101 0 0 1 0 9223372036854773 99 1000\n"
                                        "162 0 0 2 0 9223372036854774\n"
                                        "155 1 0 1 0 9223372036854773\n"
                                        "-102 1 0 0 0 9223372036854774 99 1000\n"
                                        "156 1 0 2 0 9223372036854774\n");
  const fs::path modelFile = test::writeFile(in.dir / "per-byte.json", kPerByteModel);
  const Trace t = loadTrace(in.file.string());
  std::string error;
  std::shared_ptr<const NetworkModel> perByte = loadNetworkModel(modelFile.string(), &error);
  ASSERT_TRUE(perByte) << error;
  const Replayer measured(t, Scenario{perByte, CostMode::Measured, {}});
  EXPECT_TRUE(measured.overflow().empty()) << measured.overflow();
  EXPECT_EQ(measured.predictedTime(), 9223372036854774000);
  EXPECT_EQ(measured.report().skewedDependencies, 1u);
  const Replayer rp(t, Scenario{perByte, CostMode::Model, {}});
  EXPECT_NE(rp.overflow().find("the message of 1000 bytes sent by call 0:0 (SEND), received by call 1:0 (RECV)"),
            std::string::npos)
      << rp.overflow();
  const test::CliResult r =
      cli(in.dir, {"predict", in.file.string(), "--costs", "model", "--model", modelFile.string()});
  EXPECT_EQ(r.status, 1) << r.out << r.err;
  EXPECT_NE(r.err.find("exceeds the int64 range"), std::string::npos) << r.err;
}

// ---- hypothesis checks without a replayer (the GUI's snapshots) ------------------------------

TEST(RobustnessValidate, SnapshotChecksAgreeWithTheReplayer) {
  // kImproper: rank 0's SEND (MPI index 1) lies inside BARRIER (index 0); RECV (index 2) is a
  // unit of its own.
  const Input in = alog("improper_validate", kImproper);
  const Trace t = loadTrace(in.file.string());
  const Replayer rp(t, Scenario{});
  ASSERT_EQ(rp.nestedCalls().size(), t.rankCount());
  EXPECT_EQ(rp.nestedCalls()[0], (std::vector<std::uint32_t>{1}));
  std::vector<Hypothesis> probes;
  for (std::uint32_t rank = 0; rank < 3; ++rank)
    for (std::uint32_t index = 0; index < 5; ++index)
      for (bool computation : {false, true}) {
        probes.push_back(Hypothesis{HypothesisKind::ZeroWait, EventRef{rank, index, computation}, 0});
        probes.push_back(Hypothesis{HypothesisKind::ZeroEvent, EventRef{rank, index, computation}, 0});
      }
  for (std::uint32_t step = 0; step < 3; ++step) {
    probes.push_back(Hypothesis{HypothesisKind::BalanceCompute, {}, step});
    probes.push_back(Hypothesis{HypothesisKind::BalanceVolume, {}, step});
  }
  probes.push_back(Hypothesis::compensate(100));
  probes.push_back(Hypothesis::compensate(-5));
  int refused = 0;
  for (const Hypothesis& h : probes) {
    const std::string expected = rp.validate(h);
    EXPECT_EQ(validateHypothesis(t, rp.nestedCalls(), h, {}), expected) << h.toString();
    refused += !expected.empty();
  }
  // The nested SEND is refused by both, with the reason; RECV and BARRIER are not.
  const Hypothesis send{HypothesisKind::ZeroWait, EventRef{0, 1, false}, 0};
  EXPECT_NE(validateHypothesis(t, rp.nestedCalls(), send, {}).find("inside another MPI call"), std::string::npos);
  EXPECT_EQ(validateHypothesis(t, rp.nestedCalls(), Hypothesis{HypothesisKind::ZeroWait, EventRef{0, 2, false}, 0}, {}), "");
  EXPECT_GT(refused, 10);
  // A second compensation conflicts with one already applied.
  EXPECT_FALSE(validateHypothesis(t, rp.nestedCalls(), Hypothesis::compensate(200), {Hypothesis::compensate(100)}).empty());
}
