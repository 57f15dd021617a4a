// perwiz-calibrate-smpi on SimGrid clusters with SMPI's *default* settings: the
// LogGPS parameters must be what SMPI's model implies for the platform.
//
// SMPI 3.32's defaults (the strings of libsimgrid 3.32, `smpi/lat-factor`, `smpi/bw-factor`):
//   * a transfer of k bytes carries k + 16 (the envelope) and takes
//     route latency · LF(k) + (k + 16) / (bandwidth · BF(k)), LF and BF piecewise in k:
//     LF = 2.01467 below 257 bytes … 11.6436 from 65472; BF = 0.940694 from 65472 bytes;
//   * smpi/os, smpi/or are 0; smpi/send-is-detached-thresh is 65536 (a send of fewer bytes
//     returns at once), smpi/async-small-thresh is 0: an eager message moves only once its
//     receive is posted, so "a message that has already arrived" does not exist.
// The first version of the calibration took L, G from the ping-pong less the receive of an
// arrived message and wrote L = G = 0 here (all cost in o_r). What SMPI's model implies:
//   L = route latency · LF(small) — the latency of the smallest messages;
//   G = 1 / (bandwidth · BF(large)) — the time per byte of long streams.
#include "calibrate_test_support.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <string>

using namespace perwiz;
using namespace perwiz::calibrate::test;

namespace {

constexpr double kLatFactorSmall = 2.01467;  // smpi/lat-factor, sizes below 257 bytes
constexpr double kBwFactorLarge = 0.940694;  // smpi/bw-factor, sizes from 65472 bytes

struct Platform {
  const char* name;
  const char* bw;            // the cluster's link bandwidth attribute
  double bytesPerSecond;     // the same in bytes/s
  const char* lat;           // the link latency attribute
  double linkLatencyNs;
};

// Myrinet-like (2 Gb/s, 5 µs links) and Ethernet-like (100 Mb/s, 50 µs links); a message
// crosses the sender's and the receiver's private link (the backbone adds no latency).
const Platform kMyrinet{"myrinet", "2Gbps", 2e9 / 8, "5us", 5000};
const Platform kEthernet{"ethernet", "100Mbps", 100e6 / 8, "50us", 50000};

std::string platformXml(const Platform& p) {
  return std::string(R"(<?xml version='1.0'?>
<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">
<platform version="4.1">
  <cluster id=")") + p.name + R"(" prefix="node-" suffix="" radical="0-1" speed="1Gf" bw=")" + p.bw +
         R"(" lat=")" + p.lat + R"(" bb_bw="100Gbps" bb_lat="0us"/>
</platform>
)";
}

struct Calibration {
  CommandResult result;
  std::filesystem::path model;
};

// `dir`: a directory of the test's own (ctest runs the tests of this file side by side).
Calibration calibrate(const Platform& p, const std::string& dirName, const std::string& args) {
  const auto dir = freshDir(dirName);
  writeFile(dir / "platform.xml", platformXml(p));
  writeFile(dir / "hosts", "node-0\nnode-1\n");
  Calibration run;
  run.model = dir / (std::string(p.name) + ".json");
  // Nothing but the platform and quiet logs: SMPI's defaults otherwise.
  const std::string command = "TMPDIR='" + dir.string() + "' " + std::string(PERWIZ_SMPIRUN) + " -np 2 -platform '" +
                              (dir / "platform.xml").string() + "' -hostfile '" + (dir / "hosts").string() + "' '" +
                              PERWIZ_CALIBRATE_SMPI + "' --log=root.thres:warning -o '" + run.model.string() + "' " + args;
  run.result = runCommand(command, dir);
  return run;
}

void expectImpliedParameters(const Platform& p) {
  SCOPED_TRACE(p.name);
  const Calibration run = calibrate(p, std::string("smpi_default_") + p.name, "--json");
  ASSERT_EQ(run.result.status, 0) << run.result.command << "\n" << run.result.err;
  const LogGpsParams m = loadLogGps(run.model);
  // By hand: L = 2 links · latency · 2.01467; G = 1 / (bandwidth · 0.940694).
  const double L = 2 * p.linkLatencyNs * kLatFactorSmall;
  const double G = 1e9 / (p.bytesPerSecond * kBwFactorLarge);
  // The issue's bound is 25 %; this machine is deterministic and lands within 1 %.
  EXPECT_GT(m.L, 0);
  EXPECT_GT(m.G, 0);
  EXPECT_NEAR(m.L, L, 0.05 * L) << "L (ns)";
  EXPECT_NEAR(m.G, G, 0.05 * G) << "G (ns/byte)";
  // Sends below smpi/send-is-detached-thresh (65536) return at once: S = 65535.
  EXPECT_EQ(m.S, 65535u);
  // The receive moves eager data: the file says so, and o_r is what is left beyond the wire.
  EXPECT_TRUE(m.eagerAtReceive);
  const nlohmann::json summary = nlohmann::json::parse(run.result.out);
  EXPECT_EQ(summary["eager_transfer"], "at-receive");
  EXPECT_TRUE(summary["degenerate"].empty()) << summary["degenerate"].dump();
  // A rendezvous send with its receiver ready lasts the transfer of a large message:
  // t_ss(k) = 2·latency·11.6436 + (k + 16)·G (LF and BF of sizes from 65472 bytes).
  EXPECT_NEAR(m.syncSend.b, G, 0.01 * G);
  EXPECT_NEAR(m.syncSend.a, 2 * p.linkLatencyNs * 11.6436 + 16 * G, 0.01 * m.syncSend.a);
  // g: a stream of empty messages takes each one's 16-byte header through the link at the
  // small sizes' bandwidth factor, 16 / (bandwidth · 0.812084).
  const double g = 16e9 / (p.bytesPerSecond * 0.812084);
  EXPECT_NEAR(m.g, g, 0.01 * g) << "g (ns)";
  // An exchange: SimGrid's cross traffic puts 5 % of each flow's bytes on the opposite
  // direction (the acknowledgements), so an exchange takes 1.05 × G per byte: cross_traffic 0.05.
  EXPECT_FALSE(m.halfDuplex);
  EXPECT_NEAR(m.crossTraffic, 0.05, 0.005);
}

TEST(CalibrateSmpiDefault, MyrinetLikeClusterGivesTheImpliedLAndG) { expectImpliedParameters(kMyrinet); }

TEST(CalibrateSmpiDefault, EthernetLikeClusterGivesTheImpliedLAndG) { expectImpliedParameters(kEthernet); }

TEST(CalibrateSmpiDefault, TheSummaryPrintsSaneUnits) {
  const Calibration run = calibrate(kMyrinet, "smpi_default_units", "--force");
  ASSERT_EQ(run.result.status, 0) << run.result.err;
  // G = 4.252 ns/byte is 235 MB/s: printed in ns/byte with the bandwidth beside it (the first
  // version printed "G = 0.000000 µs/byte (12595814173.2 MB/s)").
  EXPECT_NE(run.result.out.find("G = 4.25"), std::string::npos) << run.result.out;
  EXPECT_NE(run.result.out.find(" ns/byte (235.2 MB/s)"), std::string::npos) << run.result.out;
  EXPECT_NE(run.result.out.find("once the receive is posted"), std::string::npos) << run.result.out;
}

// --mode loggpo on the Myrinet-like cluster: the same L and G, and the rendezvous O_i(k) that
// makes RAT's blocking send (3O' + 2L + O_i(k) + G(k − 1)) last SMPI's rendezvous transfer
// t_ss(k) = 2·latency·11.6436 + (k + 16)·G: by hand O_i(k) = 2·latency·11.6436 + 17·G − 3O' − 2L,
// with the calibrated O' and L (about 76 µs: the larger latency factor of big messages).
TEST(CalibrateSmpiDefault, LogGpoGivesTheImpliedParameters) {
  const Platform& p = kMyrinet;
  const Calibration run = calibrate(p, "smpi_default_loggpo", "--mode loggpo --json");
  ASSERT_EQ(run.result.status, 0) << run.result.command << "\n" << run.result.err;
  const LogGpoParams m = loadLogGpo(run.model);
  const double L = 2 * p.linkLatencyNs * kLatFactorSmall;
  const double G = 1e9 / (p.bytesPerSecond * kBwFactorLarge);
  EXPECT_NEAR(m.L, L, 0.05 * L) << "L (ns)";
  EXPECT_NEAR(m.G, G, 0.05 * G) << "G (ns/byte)";
  EXPECT_EQ(m.S, 65535u);
  EXPECT_TRUE(m.eagerAtReceive);
  EXPECT_EQ(m.progress, ProgressStrategy::Independent);  // SMPI moves data while ranks sleep
  EXPECT_TRUE(m.smpiCollectives);                         // the SMPI build's default
  ASSERT_TRUE(m.OiRendezvous.has_value());
  const double oir = 2 * p.linkLatencyNs * 11.6436 + 17 * m.G - 3 * m.Octrl - 2 * m.L;
  EXPECT_NEAR(m.OiRendezvous->a, oir, 0.01 * oir) << "rendezvous O_i(k) intercept (ns)";
  EXPECT_NEAR(m.OiRendezvous->b, 0, 0.01 * G) << "rendezvous O_i(k) slope (ns/byte)";
}

}  // namespace
