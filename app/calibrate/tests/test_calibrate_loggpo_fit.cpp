// The LogGPO fit without MPI: parameters recovered from the times an exact LogGPO machine would
// produce, the progress decision, clamping and fallbacks, and the model file read back through
// perwiz::core's parser.
#include "calibrate_test_support.h"

#include "loggpo_fit.h"
#include "options.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

using namespace perwiz;
using namespace perwiz::calibrate;

namespace {

// An exact machine (ns): L = 9.11 µs, G = 0.5 ns/B, O_i(k) = 2000 + 1.2·k, O_c(k) = 1500 + 0.3·k,
// O' = 800, S = 16383.
constexpr double kL = 9110, kG = 0.5, kOctrl = 800;
constexpr std::uint64_t kS = 16383;
double oiNs(double k) { return 2000 + 1.2 * k; }
double ocNs(double k) { return 1500 + 0.3 * k; }
// O_i(k) of the rendezvous sizes (registering the buffer): 30 µs + 0.2·k.
double oiRendezvousNs(double k) { return 30000 + 0.2 * k; }

// What it would measure (seconds): eager sizes k ≤ S have Isend + Wait = O_i(k),
// Irecv + Wait = O_c(k) and a ping-pong half T_c = O_i(k) + G·(k − 1) + L + O_c(k);
// rendezvous sizes an Isend of O' and an Isend + Wait of 3O' + 2L + O_i(k) + G(k − 1) (REQ,
// answer, ACK flight, RDMA write; their other times are not used by the fit, so they are
// deliberately absurd: a fit that used them would fail).
LogGpoMeasurement exactMachine() {
  LogGpoMeasurement m;
  m.S = kS;
  std::vector<std::uint64_t> sizes = messageSizes(1, 65536);
  sizes.push_back(kS);
  sizes.push_back(kS + 1);
  std::sort(sizes.begin(), sizes.end());
  sizes.erase(std::unique(sizes.begin(), sizes.end()), sizes.end());
  for (std::uint64_t bytes : sizes) {
    const double k = static_cast<double>(bytes);
    LogGpoSizeTimes t;
    t.bytes = bytes;
    if (bytes <= kS) {
      t.isendTotal = oiNs(k) / 1e9;
      t.isendPost = t.isendTotal;
      t.recvTotal = ocNs(k) / 1e9;
      t.pingPongHalf = (oiNs(k) + kG * (k - 1) + kL + ocNs(k)) / 1e9;
    } else {
      t.isendPost = kOctrl / 1e9;
      t.isendTotal = (3 * kOctrl + 2 * kL + oiRendezvousNs(k) + kG * (k - 1)) / 1e9;
      t.recvTotal = t.pingPongHalf = 1.0;  // one second: unused
    }
    // A long stream's time per message: 600 ns plus G·k (the fit takes G from the rendezvous
    // sizes' slope, wire_fit.h).
    t.streamGap = (600 + kG * k) / 1e9;
    m.sizes.push_back(t);
  }
  m.progress.measured = true;
  m.progress.bytes = 65536;
  m.progress.awaySeconds = 1e-3;
  return m;
}

TEST(CalibrateLogGpoFit, RecoversTheParametersOfAnExactMachine) {
  LogGpoMeasurement m = exactMachine();
  // Independent progress: both Waits after the time away are (nearly) empty.
  m.progress.senderAlone = 40e-6;
  m.progress.senderAfterAway = 0.1e-6;
  m.progress.receiverAlone = 45e-6;
  m.progress.receiverAfterAway = 0.2e-6;
  const LogGpoFit f = fitLogGpo(m);
  EXPECT_TRUE(f.warnings.empty()) << f.warnings.front();
  EXPECT_EQ(f.S, kS);
  EXPECT_NEAR(f.L, kL, 1e-6);
  EXPECT_NEAR(f.G, kG, 1e-9);
  EXPECT_NEAR(f.Oi.a, 2000, 1e-6);
  EXPECT_NEAR(f.Oi.b, 1.2, 1e-9);
  EXPECT_NEAR(f.Oc.a, 1500, 1e-6);
  EXPECT_NEAR(f.Oc.b, 0.3, 1e-9);
  EXPECT_NEAR(f.Octrl, kOctrl, 1e-9);
  EXPECT_NEAR(f.OiRendezvous.a, 30000, 1e-6);
  EXPECT_NEAR(f.OiRendezvous.b, 0.2, 1e-9);
  EXPECT_EQ(f.OiRendezvous.points, 3u);
  // Eager: the 14 powers of two 1 … 8192 and S; rendezvous: S + 1 = 16384, 32768, 65536.
  EXPECT_EQ(f.Oi.points, 15u);
  EXPECT_EQ(f.rendezvousSizes, 3u);
  EXPECT_TRUE(f.senderOverlaps);
  EXPECT_TRUE(f.receiverOverlaps);
  EXPECT_TRUE(f.independentProgress);
}

TEST(CalibrateLogGpoFit, OneSideWithoutOverlapMeansDependentProgress) {
  // The receiver's Wait still carries the transfer after 1 ms away (40 → 30 µs is more than half
  // of 40): the handshake waited for it, which independent progress would not.
  EXPECT_TRUE(sideOverlaps(40e-6, 19.9e-6));
  EXPECT_FALSE(sideOverlaps(40e-6, 20e-6));
  EXPECT_FALSE(sideOverlaps(40e-6, std::numeric_limits<double>::quiet_NaN()));
  LogGpoMeasurement m = exactMachine();
  m.progress.senderAlone = 40e-6;
  m.progress.senderAfterAway = 1e-6;
  m.progress.receiverAlone = 40e-6;
  m.progress.receiverAfterAway = 30e-6;
  const LogGpoFit f = fitLogGpo(m);
  EXPECT_TRUE(f.senderOverlaps);
  EXPECT_FALSE(f.receiverOverlaps);
  EXPECT_FALSE(f.independentProgress);
}

TEST(CalibrateLogGpoFit, WithoutRendezvousSizesOPrimeAndProgressFallBackWithWarnings) {
  LogGpoMeasurement m = exactMachine();
  m.sizes.erase(std::remove_if(m.sizes.begin(), m.sizes.end(),
                               [](const LogGpoSizeTimes& t) { return t.bytes > kS; }),
                m.sizes.end());
  m.threshold = ThresholdStatus::NoneSynchronous;
  m.progress = {};
  const LogGpoFit f = fitLogGpo(m);
  EXPECT_NEAR(f.Octrl, 2000, 1e-6);  // O_i(0)
  EXPECT_FALSE(f.independentProgress);
  std::string all;
  for (const std::string& w : f.warnings) all += w + "\n";
  EXPECT_NE(all.find("O': no rendezvous size"), std::string::npos) << all;
  EXPECT_NE(all.find("progress strategy: no rendezvous size"), std::string::npos) << all;
  EXPECT_NE(all.find("no rendezvous send up to the largest size"), std::string::npos) << all;
}

TEST(CalibrateLogGpoFit, NegativeValuesAreClampedOrDegenerate) {
  LogGpoMeasurement m = exactMachine();
  // A copy that gets cheaper with size (noise), and a ping-pong faster than both overheads.
  for (LogGpoSizeTimes& t : m.sizes)
    if (t.bytes <= kS) {
      t.recvTotal = (3000 - 0.01 * static_cast<double>(t.bytes)) / 1e9;
      t.pingPongHalf = t.isendTotal;  // L + G·(k − 1) = −O_c(k) < 0
    }
  const LogGpoFit f = fitLogGpo(m);
  EXPECT_EQ(f.Oc.b, 0);
  std::string all;
  for (const std::string& w : f.warnings) all += w + "\n";
  EXPECT_NE(all.find("copy overhead O_c(k): slope"), std::string::npos) << all;
  // G comes from the stream (0.5 ns/B); what the ping-pong leaves at k ≤ 64 is −O_c(k) −
  // G·(k − 1) < 0: L is not a latency, the result is degenerate (exit 1), L written as 0.
  EXPECT_NEAR(f.G, kG, 1e-9);
  EXPECT_EQ(f.L, 0);
  ASSERT_EQ(f.degenerate.size(), 1u);
  EXPECT_NE(f.degenerate[0].find("latency L"), std::string::npos) << f.degenerate[0];
}

TEST(CalibrateLogGpoModelFile, HasTheDocumentedKeysAndLoadsInCore) {
  LogGpoMeasurement m = exactMachine();
  m.progress.senderAlone = m.progress.receiverAlone = 40e-6;
  m.progress.senderAfterAway = m.progress.receiverAfterAway = 1e-6;
  const LogGpoFit f = fitLogGpo(m);
  const std::string text = loggpoModelJson(f, "exact");
  const nlohmann::json j = nlohmann::json::parse(text);
  std::vector<std::string> keys;
  for (auto it = j.begin(); it != j.end(); ++it) keys.push_back(it.key());
  std::sort(keys.begin(), keys.end());
  // docs/model.md §4, LogGPO parameter file.
  EXPECT_EQ(keys, (std::vector<std::string>{"G_us_per_byte", "L_us", "O_c_us", "O_ctrl_us", "O_i_rendezvous_us", "O_i_us", "P",
                                            "S_bytes", "g_us", "model", "name", "progress", "transfer", "version"}));
  EXPECT_EQ(j["model"], "LogGPO");
  EXPECT_EQ(j["transfer"], "RAT");

  const auto dir = test::freshDir("loggpo_model_file");
  test::writeFile(dir / "exact.json", text);
  const LogGpoParams p = test::loadLogGpo(dir / "exact.json");
  EXPECT_EQ(p.name, "exact");
  EXPECT_NEAR(p.L, kL, 1e-3);  // 6 significant digits of µs
  EXPECT_NEAR(p.G, kG, 1e-9);
  EXPECT_NEAR(p.Octrl, kOctrl, 1e-6);
  // g: the stream at its smallest size, 1 byte: (600 ns + G·1) − G·1.
  EXPECT_NEAR(p.g, 600, 1e-6);
  EXPECT_NEAR(p.Oi.a, 2000, 1e-6);
  EXPECT_NEAR(p.Oi.b, 1.2, 1e-9);
  EXPECT_NEAR(p.Oc.a, 1500, 1e-6);
  EXPECT_NEAR(p.Oc.b, 0.3, 1e-9);
  ASSERT_TRUE(p.OiRendezvous.has_value());
  EXPECT_NEAR(p.OiRendezvous->a, 30000, 1e-3);
  EXPECT_NEAR(p.OiRendezvous->b, 0.2, 1e-9);
  EXPECT_EQ(p.S, kS);
  EXPECT_EQ(p.progress, ProgressStrategy::Independent);
}

}  // namespace
