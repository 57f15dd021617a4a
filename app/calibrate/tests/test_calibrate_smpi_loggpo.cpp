// perwiz-calibrate-smpi --mode loggpo on a simulated platform whose network is known exactly:
// the fitted LogGPO parameters must be what SimGrid's SMPI model implies (derived below), and
// the model file must load and drive `perwiz-cli predict`.
//
// SMPI 3.32 (src/smpi/mpi/smpi_request.cpp; see also test_calibrate_smpi.cpp):
//   * MPI_Isend sleeps smpi/ois(k) before it returns, for every size; a send of
//     k < smpi/send-is-detached-thresh bytes is detached (eager), so its MPI_Wait returns at once;
//   * the receive of an eager message sleeps smpi/or(k) when the data is in (in MPI_Wait);
//   * a transfer takes route latency + (k + 16) / bandwidth (16 bytes of envelope), and it runs
//     as soon as both sides are posted, whatever the ranks do meanwhile.
// smpi/ois is piecewise: "0:4e-6:3e-10;19999:1.5e-6:0" prices sizes up to 19999 with the first
// segment and larger ones with the second (SMPI takes a segment for sizes above its start), so
// rendezvous MPI_Isends cost a constant 1.5 µs.
#include "calibrate_test_support.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <string>

using namespace perwiz;
using namespace perwiz::calibrate::test;

namespace {

// ---- the configuration ------------------------------------------------------------------------
constexpr double kLinkLatencyNs = 5000;  // lat="5us"; a message crosses two links
constexpr double kBytesPerNs = 1.0;      // bw="1GBps"
constexpr int kEagerLimit = 20000;       // smpi/send-is-detached-thresh = async-small-thresh
constexpr double kEnvelopeBytes = 16;
constexpr double kOiA = 4000, kOiB = 0.3;  // smpi/ois first segment (ns, ns/byte)
constexpr double kOrA = 5000, kOrB = 0.1;  // smpi/or:0:5e-6:1e-10
constexpr double kIsendRendezvous = 1500;  // smpi/ois second segment

const char* kPlatform = R"(<?xml version='1.0'?>
<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">
<platform version="4.1">
  <cluster id="calib" prefix="node-" suffix="" radical="0-1" speed="1Gf" bw="1GBps" lat="5us"/>
</platform>
)";

std::string command(const std::filesystem::path& dir, int ranks, const std::string& args) {
  const std::string eager = std::to_string(kEagerLimit);
  return smpirunCommand(PERWIZ_SMPIRUN, dir, kPlatform, "node-0\nnode-1\n", ranks,
                        PERWIZ_CALIBRATE_SMPI,
                        {"smpi/simulate-computation:no", "smpi/wtime:0", "smpi/bw-factor:0:1",
                         "smpi/lat-factor:0:1", "network/crosstraffic:0", "smpi/os:0:3e-6:2e-10",
                         "smpi/ois:0:4e-6:3e-10;19999:1.5e-6:0", "smpi/or:0:5e-6:1e-10",
                         "smpi/send-is-detached-thresh:" + eager, "smpi/async-small-thresh:" + eager},
                        "--mode loggpo " + args);
}

// ---- what the model implies, by hand -----------------------------------------------------------
// O_i(k) = MPI_Isend + MPI_Wait of an eager message = ois(k) (the Wait of a detached send is
// empty):                                                  a = 4 µs, b = 0.3 ns/byte.
// O_c(k) = MPI_Irecv + MPI_Wait of an arrived eager message = or(k): a = 5 µs, b = 0.1 ns/byte.
// The ping-pong half is ois(k) + 2·5 µs + (k + 16)·1 ns + or(k), so the wire line
// L + G·(k − 1) = 10 µs + (k + 16) ns:        G = 1 ns/byte, L = 10 µs + 17 ns = 10.017 µs.
constexpr double kExpectedG = 1 / kBytesPerNs;
constexpr double kExpectedL = 2 * kLinkLatencyNs + (kEnvelopeBytes + 1) * kExpectedG;
// O' = the MPI_Isend of a rendezvous message = 1.5 µs.
// S: sends below 20000 bytes are eager, so S = 19999 (bisection between 16384 and 32768).
// Progress: a rendezvous transfer runs once both sides are posted, also while the ranks sleep,
// so after 1 ms away neither side's MPI_Wait has anything left: independent progress.

// Intercepts within 1 ns (surf/precision), slopes within 0.1 %.
constexpr double kInterceptTolNs = 1.0;
constexpr double kSlopeRelTol = 1e-3;

const std::string kSizes = "--min-size 1 --max-size 131072 --reps 3 --warmup 1";

TEST(CalibrateSmpiLogGpo, MeasuresTheConfiguredNetwork) {
  const auto dir = freshDir("smpi_loggpo");
  const auto model = dir / "sim-loggpo.json";
  const CommandResult r =
      runCommand(command(dir, 2, kSizes + " --json -o '" + model.string() + "'"), dir);
  ASSERT_EQ(r.status, 0) << r.command << "\n" << r.err;
  const LogGpoParams p = loadLogGpo(model);
  EXPECT_EQ(p.name, "sim-loggpo");
  EXPECT_NEAR(p.L, kExpectedL, kInterceptTolNs);
  EXPECT_NEAR(p.G, kExpectedG, kSlopeRelTol * kExpectedG);
  EXPECT_NEAR(p.Oi.a, kOiA, kInterceptTolNs);
  EXPECT_NEAR(p.Oi.b, kOiB, kSlopeRelTol * kOiB);
  EXPECT_NEAR(p.Oc.a, kOrA, kInterceptTolNs);
  EXPECT_NEAR(p.Oc.b, kOrB, kSlopeRelTol * kOrB);
  EXPECT_NEAR(p.Octrl, kIsendRendezvous, kInterceptTolNs);
  EXPECT_EQ(p.S, static_cast<std::uint64_t>(kEagerLimit - 1));
  EXPECT_EQ(p.progress, ProgressStrategy::Independent);

  const nlohmann::json summary = nlohmann::json::parse(r.out);
  EXPECT_EQ(summary["threshold"]["status"], "found");
  // One warning, and the model's own: SMPI's rendezvous is one flow, L after both are posted,
  // while RAT's handshake has three flights. With this platform's unit latency factor the
  // rendezvous Isend + Wait, ois(k) + 2·5 µs + (k + 16)·1 ns = 11516 + k ns, is shorter than
  // RAT's 3O' + 2L + G(k − 1) = 3·1500 + 2·10017 + (k − 1) = 24533 + k ns, so O_i(k) of the
  // rendezvous sizes would be 11516 − 24533 = −13017 ns: set to 0, with a warning. (Under
  // SMPI's default factors a big message's latency is 11.6 times larger and O_i(k) positive.)
  ASSERT_EQ(summary["warnings"].size(), 1u) << summary["warnings"].dump();
  EXPECT_NE(summary["warnings"][0].get<std::string>().find("intercept -13017"), std::string::npos)
      << summary["warnings"].dump();
  ASSERT_TRUE(p.OiRendezvous.has_value());
  EXPECT_EQ(p.OiRendezvous->a, 0);
  EXPECT_NEAR(p.OiRendezvous->b, 0, 1e-3);
  EXPECT_EQ(summary["progress"]["sender_overlaps"], true);
  EXPECT_EQ(summary["progress"]["receiver_overlaps"], true);
  // The probe ran on the largest size, 131072 bytes: alone, the sender's Wait carries the whole
  // transfer after its 1.5 µs Isend, 10 µs + (131072 + 16) ns = 141.088 µs.
  EXPECT_NEAR(summary["progress"]["sender_wait_alone_us"].get<double>(),
              (2 * kLinkLatencyNs + (131072 + kEnvelopeBytes) / kBytesPerNs) / 1000, 0.001);
}

TEST(CalibrateSmpiLogGpo, TheModelDrivesAPrediction) {
  const auto dir = freshDir("smpi_loggpo_predict");
  const auto model = dir / "m.json";
  const CommandResult r = runCommand(
      command(dir, 2, kSizes + " --name simulated-loggpo -o '" + model.string() + "'"), dir);
  ASSERT_EQ(r.status, 0) << r.command << "\n" << r.err;
  const CommandResult p = runCommand(std::string(PERWIZ_CLI) + " predict --model '" +
                                         model.string() + "' --json '" + PERWIZ_SAMPLE_TRACE + "'",
                                     dir);
  ASSERT_EQ(p.status, 0) << p.command << "\n" << p.err;
  const nlohmann::json j = nlohmann::json::parse(p.out);
  EXPECT_EQ(j["model"]["name"], "simulated-loggpo");
  EXPECT_EQ(j["model"]["model"], "LogGPO");
  // The parameters went through perwiz::core's loader and back out.
  EXPECT_NEAR(j["model"]["O_ctrl_us"].get<double>(), kIsendRendezvous / 1000, 1e-6);
  EXPECT_NEAR(j["model"]["L_us"].get<double>(), kExpectedL / 1000, kInterceptTolNs / 1000);
}

TEST(CalibrateSmpiLogGpo, RefusesOneRankAndAnExistingOutput) {
  const auto dir = freshDir("smpi_loggpo_usage");
  CommandResult r = runCommand(command(dir, 1, "-o '" + (dir / "m.json").string() + "'"), dir);
  EXPECT_EQ(r.status, 2) << r.command;
  EXPECT_NE(r.err.find("needs 2 MPI ranks"), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(dir / "m.json"));

  const auto taken = dir / "taken.json";
  writeFile(taken, "precious\n");
  r = runCommand(command(dir, 2, kSizes + " -o '" + taken.string() + "'"), dir);
  EXPECT_EQ(r.status, 2) << r.command;
  EXPECT_NE(r.err.find(taken.string() + ": file exists; use --force"), std::string::npos) << r.err;
  EXPECT_EQ(readFile(taken), "precious\n");
}

}  // namespace
