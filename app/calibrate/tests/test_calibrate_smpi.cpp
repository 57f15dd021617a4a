// perwiz-calibrate-smpi on a simulated platform whose network is known exactly: the fitted
// LogGPS parameters must be what SimGrid's SMPI model implies for that configuration.
//
// How SMPI 3.32 prices a point-to-point message (src/smpi/mpi/smpi_request.cpp, checked
// against runs of this program):
//   * a send of k < smpi/send-is-detached-thresh bytes is "detached" (eager): MPI_Send sleeps
//     smpi/os(k) and returns; larger sends block until the transfer is over (rendezvous);
//   * with smpi/async-small-thresh equal to that threshold, an eager message travels at once,
//     before its receive is posted (without it SMPI waits for the receive, unlike real eager
//     protocols, and an already-arrived message does not exist);
//   * the receive of an eager message sleeps smpi/or(k) after the data is in;
//   * the transfer carries k + 16 bytes (the MPI envelope) and takes
//     route latency · lat-factor + (k + 16) / (bandwidth · bw-factor);
//     we set both factors to 1 (the defaults are piecewise corrections fitted to a real
//     cluster), TCP cross traffic off, and computation between calls is not simulated
//     (smpi/simulate-computation:no, smpi/wtime:0) so that only the network model counts.
#include "calibrate_test_support.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <filesystem>
#include <string>

using namespace perwiz;
using namespace perwiz::calibrate::test;

namespace {

// ---- the configuration ------------------------------------------------------------------------
// Platform: a <cluster> of two hosts; each has a private link of latency 5 µs and bandwidth
// 1 GB/s, and a message from one to the other crosses both links.
constexpr double kLinkLatencyNs = 5000;  // lat="5us"
constexpr double kBytesPerNs = 1.0;      // bw="1GBps" = 10^9 bytes/s
constexpr double kOsA = 3000, kOsB = 0.2;  // smpi/os:0:3e-6:2e-10  (ns, ns/byte)
constexpr double kOrA = 5000, kOrB = 0.1;  // smpi/or:0:5e-6:1e-10
constexpr int kEagerLimit = 20000;         // smpi/send-is-detached-thresh = async-small-thresh
constexpr int kEnvelopeBytes = 16;         // SMPI adds it to every message

const char* kPlatform = R"(<?xml version='1.0'?>
<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">
<platform version="4.1">
  <cluster id="calib" prefix="node-" suffix="" radical="0-1" speed="1Gf" bw="1GBps" lat="5us"/>
</platform>
)";

// ---- what the model implies, by hand ----------------------------------------------------------
// Route latency: two links.                                     Lr = 2 · 5 µs = 10 µs
constexpr double kRouteLatencyNs = 2 * kLinkLatencyNs;
// G is the time per byte of the transfer: 1 / bandwidth.         G = 1 ns/byte
constexpr double kExpectedG = 1 / kBytesPerNs;
// Ping-pong half = o_s(k) + Lr + (k + 16)·G + o_r(k), so the wire line L + G·(k − 1) is
// Lr + (k + 16)·G:  L = Lr + 17·G = 10.017 µs.
constexpr double kExpectedL = kRouteLatencyNs + (kEnvelopeBytes + 1) * kExpectedG;
// A rendezvous send or receive, partner in time, lasts the transfer: Lr + (k + 16)·G, so
// t_ss(k) = t_sr(k) = (Lr + 16·G) + G·k = 10.016 µs + 0.001 µs/byte · k.
constexpr double kExpectedSyncA = kRouteLatencyNs + kEnvelopeBytes * kExpectedG;
// Sends of k < 20000 bytes are eager, so the largest eager message is S = 19999.
constexpr std::uint64_t kExpectedS = kEagerLimit - 1;

// Stated tolerance: intercepts within 1 ns (smpirun sets surf/precision to 1e-9 s), slopes
// within 0.1 %; the model file also rounds to 6 significant digits (1 ns of 10 µs).
constexpr double kInterceptTolNs = 1.0;
constexpr double kSlopeRelTol = 1e-3;

std::string smpiCommand(const std::filesystem::path& dir, int ranks, const std::string& args) {
  writeFile(dir / "platform.xml", kPlatform);
  writeFile(dir / "hosts", "node-0\nnode-1\n");
  const std::string eager = std::to_string(kEagerLimit);
  return "TMPDIR='" + dir.string() + "' " + std::string(PERWIZ_SMPIRUN) + " -np " + std::to_string(ranks) + " -platform '" +
         (dir / "platform.xml").string() + "' -hostfile '" + (dir / "hosts").string() + "' '" +
         PERWIZ_CALIBRATE_SMPI + "'" +
         " --cfg=smpi/simulate-computation:no --cfg=smpi/wtime:0"
         " --cfg=smpi/bw-factor:0:1 --cfg=smpi/lat-factor:0:1 --cfg=network/crosstraffic:0"
         " --cfg=smpi/os:0:3e-6:2e-10 --cfg=smpi/or:0:5e-6:1e-10"
         " --cfg=smpi/send-is-detached-thresh:" + eager +
         " --cfg=smpi/async-small-thresh:" + eager + " --log=root.thres:warning " + args;
}

void expectLine(const LinearCost& actual, double a, double b, const char* what) {
  EXPECT_NEAR(actual.a, a, kInterceptTolNs) << what << " intercept (ns)";
  EXPECT_NEAR(actual.b, b, kSlopeRelTol * b) << what << " slope (ns/byte)";
}

void expectConfiguredNetwork(const LogGpsParams& p) {
  EXPECT_NEAR(p.L, kExpectedL, kInterceptTolNs);
  EXPECT_NEAR(p.G, kExpectedG, kSlopeRelTol * kExpectedG);
  EXPECT_EQ(p.S, kExpectedS);
  EXPECT_NEAR(p.o, kOsA, kInterceptTolNs);  // o = o_s(0)
  expectLine(p.sendOverhead, kOsA, kOsB, "o_s(k)");
  expectLine(p.recvOverhead, kOrA, kOrB, "o_r(k)");
  expectLine(p.syncSend, kExpectedSyncA, kExpectedG, "t_ss(k)");
  expectLine(p.syncRecv, kExpectedSyncA, kExpectedG, "t_sr(k)");
}

// Sizes 1 … 131072: the list has 16384 (eager) and 32768 (synchronous), so S is found by
// bisection. Size 0 is left out: smpi/os "0:a:b" starts *after* 0 bytes in some SimGrid versions.
const std::string kSizes = "--min-size 1 --max-size 131072 --reps 3 --warmup 1";

TEST(CalibrateSmpi, MeasuresTheConfiguredNetwork) {
  const auto dir = freshDir("smpi_network");
  const auto model = dir / "sim.json";
  const CommandResult r =
      runCommand(smpiCommand(dir, 2, kSizes + " --json -o '" + model.string() + "'"), dir);
  ASSERT_EQ(r.status, 0) << r.command << "\n" << r.err;
  expectConfiguredNetwork(loadLogGps(model));
  EXPECT_EQ(loadLogGps(model).name, "sim");  // named after the file

  // The summary agrees: the threshold was found, nothing was clamped.
  const nlohmann::json summary = nlohmann::json::parse(r.out);
  EXPECT_EQ(summary["threshold"]["status"], "found");
  EXPECT_TRUE(summary["warnings"].empty()) << summary["warnings"].dump();
  EXPECT_EQ(summary["output"], model.string());
}

TEST(CalibrateSmpi, TheModelDrivesAPrediction) {
  const auto dir = freshDir("smpi_predict");
  const auto model = dir / "sim.json";
  const CommandResult r =
      runCommand(smpiCommand(dir, 2, kSizes + " --name simulated -o '" + model.string() + "'"), dir);
  ASSERT_EQ(r.status, 0) << r.command << "\n" << r.err;
  const CommandResult p = runCommand(std::string(PERWIZ_CLI) + " predict --model '" +
                                         model.string() + "' --json '" + PERWIZ_SAMPLE_TRACE + "'",
                                     dir);
  ASSERT_EQ(p.status, 0) << p.command << "\n" << p.err;
  const nlohmann::json j = nlohmann::json::parse(p.out);
  EXPECT_EQ(j["model"]["name"], "simulated");
  EXPECT_NEAR(j["model"]["L_us"].get<double>(), kExpectedL / 1000, kInterceptTolNs / 1000);
}

TEST(CalibrateSmpi, ThreeRanksMeasureBetweenTheFirstTwo) {
  const auto dir = freshDir("smpi_three");
  const auto model = dir / "three.json";
  // Rank 2 lands on node-0 beside rank 0 and stays idle: ranks 0 and 1 still measure node-0
  // to node-1.
  const CommandResult r = runCommand(smpiCommand(dir, 3, kSizes + " -o '" + model.string() + "'"), dir);
  ASSERT_EQ(r.status, 0) << r.command << "\n" << r.err;
  expectConfiguredNetwork(loadLogGps(model));
}

TEST(CalibrateSmpi, RefusesOneRank) {
  const auto dir = freshDir("smpi_one_rank");
  const CommandResult r = runCommand(smpiCommand(dir, 1, "-o '" + (dir / "m.json").string() + "'"), dir);
  EXPECT_EQ(r.status, 2) << r.command;
  EXPECT_NE(r.err.find("needs 2 MPI ranks"), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(dir / "m.json"));
}

TEST(CalibrateSmpi, RefusesAnExistingOutputUnlessForced) {
  const auto dir = freshDir("smpi_existing");
  const auto model = dir / "taken.json";
  writeFile(model, "precious\n");
  CommandResult r = runCommand(smpiCommand(dir, 2, kSizes + " -o '" + model.string() + "'"), dir);
  EXPECT_EQ(r.status, 2) << r.command;
  EXPECT_NE(r.err.find(model.string() + ": file exists; use --force"), std::string::npos) << r.err;
  EXPECT_EQ(readFile(model), "precious\n");

  r = runCommand(smpiCommand(dir, 2, kSizes + " --force -o '" + model.string() + "'"), dir);
  ASSERT_EQ(r.status, 0) << r.command << "\n" << r.err;
  expectConfiguredNetwork(loadLogGps(model));
}

}  // namespace
