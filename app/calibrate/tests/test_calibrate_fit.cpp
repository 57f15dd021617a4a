// perwiz-calibrate without MPI: statistics, the fit from times to LogGPS parameters, the model
// file (read back through perwiz::core's parser), the output-file rules and the options.
#include "calibrate_test_support.h"

#include "loggps_fit.h"
#include "model_json.h"
#include "options.h"
#include "output_file.h"
#include "stats.h"

#include "perwiz/network_model.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <vector>

using namespace perwiz;
using namespace perwiz::calibrate;

namespace {

// ---- statistics -------------------------------------------------------------------------------

TEST(CalibrateStats, MedianAndMinimum) {
  EXPECT_DOUBLE_EQ(median({5, 1, 3}), 3);        // odd count: the middle value
  EXPECT_DOUBLE_EQ(median({4, 1, 3, 2}), 2.5);   // even count: mean of 2 and 3
  EXPECT_DOUBLE_EQ(summarize({4, 1, 3, 2}, Statistic::Min), 1);
  EXPECT_DOUBLE_EQ(summarize({9, 1000, 10}, Statistic::Median), 10);  // one outlier moves nothing
  EXPECT_TRUE(std::isnan(summarize({}, Statistic::Median)));
  EXPECT_THROW(statisticFromName("mean"), std::invalid_argument);
}

TEST(CalibrateStats, LeastSquaresRecoversALine) {
  // y = 7 + 0.25·x exactly: the fit is the line, residual 0.
  const std::vector<double> x{0, 1, 16, 1024, 65536}, y{7, 7.25, 11, 263, 16391};
  const LineFit f = fitLine(x, y);
  EXPECT_NEAR(f.a, 7, 1e-9);
  EXPECT_NEAR(f.b, 0.25, 1e-12);
  EXPECT_EQ(f.points, 5u);
  EXPECT_LT(f.maxResidual, 1e-9);
  // Noisy points: y = 1 + 2x + e with e = +1, −1, +1, −1 at x = 0..3. Least squares by hand:
  // x̄ = 1.5, ȳ = 4, Sxx = 5, Sxy = Σ(x − x̄)(y − ȳ) = 8 → b = 1.6, a = ȳ − b·x̄ = 1.6.
  const LineFit g = fitLine({0, 1, 2, 3}, {2, 2, 6, 6});
  EXPECT_NEAR(g.b, 1.6, 1e-12);
  EXPECT_NEAR(g.a, 1.6, 1e-12);
  // One point: a flat line through it; none: invalid.
  const LineFit one = fitLine({8}, {3});
  EXPECT_DOUBLE_EQ(one.a, 3);
  EXPECT_DOUBLE_EQ(one.b, 0);
  EXPECT_FALSE(fitLine({}, {}).valid());
}

// ---- the LogGPS fit ---------------------------------------------------------------------------

// The Japanese paper's Table 5 (Myrinet) in ns, with L = 9.11 µs, S = 16383 and G = 0.5 ns/B.
constexpr double kL = 9110, kG = 0.5;
double osNs(double k) { return 2150 + 1.88 * k; }
double orNs(double k) { return 2150 + 0.937 * k; }
double tssNs(double k) { return 28900 + 3.58 * k; }
double tsrNs(double k) { return 90300 + 4.85 * k; }

// What an exact LogGPS machine would measure (seconds): a ping-pong half is the eager
// message's arrival o_s(k) + L + G·(k − 1) plus the receive overhead o_r(k).
LogGpsMeasurement syntheticMeasurement(std::uint64_t S) {
  LogGpsMeasurement m;
  m.S = S;
  std::vector<std::uint64_t> sizes = messageSizes(0, 65536);
  sizes.push_back(S);
  sizes.push_back(S + 1);
  std::sort(sizes.begin(), sizes.end());
  sizes.erase(std::unique(sizes.begin(), sizes.end()), sizes.end());
  for (std::uint64_t bytes : sizes) {
    const double k = static_cast<double>(bytes);
    SizeTimes t;
    t.bytes = bytes;
    if (bytes <= S) {
      t.sendReady = osNs(k) / 1e9;
      t.recvLate = orNs(k) / 1e9;
      t.pingPongHalf = (osNs(k) + kL + kG * (k - 1) + orNs(k)) / 1e9;
    } else {
      t.sendReady = tssNs(k) / 1e9;
      t.recvLate = tsrNs(k) / 1e9;
      t.pingPongHalf = (tssNs(k) + tsrNs(k)) / 2e9;  // not used by the fit
    }
    // A long stream's time per message: the per-message cost g = 700 ns plus G·k (the wire is
    // the bottleneck). The fit takes G from the synchronous sizes' slope.
    t.streamGap = (700 + kG * k) / 1e9;
    m.sizes.push_back(t);
  }
  return m;
}

TEST(CalibrateFit, RecoversTheParametersOfAnExactMachine) {
  const LogGpsFit f = fitLogGps(syntheticMeasurement(16383));
  EXPECT_TRUE(f.warnings.empty()) << f.warnings.front();
  EXPECT_EQ(f.S, 16383u);
  EXPECT_NEAR(f.L, kL, 1e-6);
  EXPECT_NEAR(f.G, kG, 1e-9);
  EXPECT_NEAR(f.o, 2150, 1e-6);  // o = o_s(0)
  EXPECT_NEAR(f.sendOverhead.a, 2150, 1e-6);
  EXPECT_NEAR(f.sendOverhead.b, 1.88, 1e-9);
  EXPECT_NEAR(f.recvOverhead.a, 2150, 1e-6);
  EXPECT_NEAR(f.recvOverhead.b, 0.937, 1e-9);
  EXPECT_NEAR(f.syncSend.a, 28900, 1e-6);
  EXPECT_NEAR(f.syncSend.b, 3.58, 1e-9);
  EXPECT_NEAR(f.syncRecv.a, 90300, 1e-6);
  EXPECT_NEAR(f.syncRecv.b, 4.85, 1e-9);
  // Eager: 0, the 14 powers of two 1 … 8192, and S = 16383; synchronous: S + 1 = 16384, 32768,
  // 65536.
  EXPECT_EQ(f.sendOverhead.points, 16u);
  EXPECT_EQ(f.syncSend.points, 3u);
}

TEST(CalibrateFit, NegativeValuesAreClampedOrDegenerate) {
  LogGpsMeasurement m = syntheticMeasurement(16383);
  // A receive that gets faster with size (noise), and a ping-pong faster than both overheads.
  for (SizeTimes& t : m.sizes)
    if (t.bytes <= m.S) {
      t.recvLate = (3000 - 0.01 * static_cast<double>(t.bytes)) / 1e9;
      t.pingPongHalf = t.sendReady;  // L + G·(k − 1) = −o_r(k) < 0
    }
  const LogGpsFit f = fitLogGps(m);
  // o_r's negative slope is clamped with a warning: the line stays legal.
  EXPECT_EQ(f.recvOverhead.b, 0);
  EXPECT_GT(f.recvOverhead.a, 0);
  std::string all;
  for (const std::string& w : f.warnings) all += w + "\n";
  EXPECT_NE(all.find("receive overhead o_r(k): slope"), std::string::npos) << all;
  // G still comes from the stream (0.5 ns/byte). What the ping-pong leaves for the wire at the
  // small sizes (k ≤ 64) is −o_r(k) − G·(k − 1) = −3000 + 0.01·k − 0.5·(k − 1) ns < 0: L is not
  // a latency, which makes the result degenerate (perwiz-calibrate exits 1), L written as 0.
  EXPECT_NEAR(f.G, kG, 1e-9);
  EXPECT_EQ(f.L, 0);
  ASSERT_EQ(f.degenerate.size(), 1u);
  EXPECT_NE(f.degenerate[0].find("latency L"), std::string::npos) << f.degenerate[0];
  EXPECT_NE(f.degenerate[0].find("the ping-pong is faster"), std::string::npos) << f.degenerate[0];
}

TEST(CalibrateFit, AFlatStreamMakesGDegenerate) {
  LogGpsMeasurement m = syntheticMeasurement(16383);
  for (SizeTimes& t : m.sizes) t.streamGap = 900e-9;  // no size takes longer per message
  const LogGpsFit f = fitLogGps(m);
  EXPECT_EQ(f.G, 0);
  ASSERT_FALSE(f.degenerate.empty());
  EXPECT_NE(f.degenerate[0].find("gap per byte G"), std::string::npos) << f.degenerate[0];
  // Under SMPI's default settings the old method (G from the ping-pong less the receive of an
  // arrived message) gave L = G = 0 without a word; see the receiver-driven test below.
}

TEST(CalibrateFit, AStreamThatIsNotOneBandwidthIsDegenerate) {
  LogGpsMeasurement m = syntheticMeasurement(16383);
  // The synchronous sizes 16384, 32768, 65536: 0.5 ns/B, then 4× slower at the largest. The
  // least-squares line misses a point by far more than 10 % of the largest time.
  for (SizeTimes& t : m.sizes)
    if (t.bytes == 65536) t.streamGap = (700 + 2.0 * 65536) / 1e9;
  const LogGpsFit f = fitLogGps(m);
  ASSERT_FALSE(f.degenerate.empty());
  EXPECT_NE(f.degenerate[0].find("not one bandwidth"), std::string::npos) << f.degenerate[0];
}

// A machine whose eager data moves only once the receive is posted (SMPI's default,
// smpi/async-small-thresh = 0): the receive of a message that "has arrived" lasts the whole
// transfer, T_r(k) = L + G·(k − 1) + o_r(k), and the ping-pong half is o_s(k) + T_r(k).
TEST(CalibrateFit, ReceiverDrivenMachine) {
  constexpr double L = 20147, G = 4.25, orSlope = 0.3;  // ns, ns/B, ns/B (o_r(0) = 0)
  LogGpsMeasurement m = syntheticMeasurement(65535);
  for (SizeTimes& t : m.sizes) {
    const double k = static_cast<double>(t.bytes);
    const double wire = L + G * (k > 0 ? k - 1 : 0);
    if (t.bytes <= 65535) {
      t.sendReady = 10e-9;
      t.recvLate = (wire + orSlope * k) / 1e9;
      t.pingPongHalf = t.sendReady + t.recvLate;
    }
    t.streamGap = (116000 + G * k) / 1e9;
  }
  const LogGpsFit f = fitLogGps(m);
  EXPECT_TRUE(f.degenerate.empty()) << f.degenerate.front();
  EXPECT_TRUE(f.receiverDriven);
  // The wire's share (P − T_s − T_r) / (P − T_s) is 0 at every eager size.
  EXPECT_NEAR(f.wireShare, 0, 1e-9);
  // L: T_r(k) − G·(k − 1) at k ≤ 64 is L + 0.3·k: the median over 0, 1, 2, 4, …, 64 (8 sizes)
  // is between k = 4 and 8: L + 0.3·6 = L + 1.8 ns.
  EXPECT_NEAR(f.L, L + 1.8, 1e-6);
  EXPECT_NEAR(f.G, G, 1e-9);
  // o_r: y(k) = T_r(k) − L_fit − G·(k − 1) = 0.3·k − 1.8 at every eager size k, fitted through
  // the origin (o_r(0) = 0: L holds the constant part) on relative errors, weights
  // w = 1 / T_r(k)²: b = Σ w·k·y / Σ w·k².
  double swky = 0, swkk = 0;
  for (const SizeTimes& t : m.sizes)
    if (t.bytes <= 65535) {
      const double k = static_cast<double>(t.bytes), tr = L + G * (k > 0 ? k - 1 : 0) + orSlope * k;
      swky += k * (orSlope * k - 1.8) / (tr * tr);
      swkk += k * k / (tr * tr);
    }
  EXPECT_NEAR(f.recvOverhead.b, swky / swkk, 1e-9);
  EXPECT_EQ(f.recvOverhead.a, 0);
  const std::string text = modelJson(f, "smpi-default");
  EXPECT_NE(text.find("\"eager_transfer\": \"at-receive\""), std::string::npos) << text;
  std::string error;
  const auto model = networkModelFromJson(text, "smpi-default.json", &error);
  ASSERT_TRUE(model) << error;
  EXPECT_TRUE(dynamic_cast<const LogGpsModel&>(*model).params().eagerAtReceive);
}

TEST(CalibrateFit, NoSynchronousSizeLeavesTheSyncLinesToTheModel) {
  LogGpsMeasurement m = syntheticMeasurement(16383);
  m.threshold = ThresholdStatus::NoneSynchronous;
  m.S = 65536;
  const LogGpsFit f = fitLogGps(m);
  EXPECT_FALSE(f.syncSend.valid());
  EXPECT_FALSE(f.syncRecv.valid());
  EXPECT_EQ(f.S, 65536u);
  EXPECT_GE(f.warnings.size(), 3u);  // the threshold and both synchronous lines
}

// ---- the model file ---------------------------------------------------------------------------

TEST(CalibrateModelFile, HasExactlyTheDocumentedKeysAndLoadsInCore) {
  const LogGpsFit f = fitLogGps(syntheticMeasurement(16383));
  const std::string text = modelJson(f, "unit-cluster");

  // docs/model.md §4 "Parameter files", in its order; the loader rejects any other key.
  const std::vector<std::string> expectedKeys{
      "model",  "version", "name",    "L_us",    "o_us",
      "g_us",   "G_us_per_byte",      "P",
      "S_bytes", "s_bytes", "send_overhead_us", "recv_overhead_us",
      "sync_send_us", "sync_recv_us"};
  const nlohmann::ordered_json j = nlohmann::ordered_json::parse(text);
  std::vector<std::string> keys;
  for (auto it = j.begin(); it != j.end(); ++it) keys.push_back(it.key());
  EXPECT_EQ(keys, expectedKeys);

  std::string error;
  const auto model = networkModelFromJson(text, "unit-cluster.json", &error);
  ASSERT_TRUE(model) << error;
  const LogGpsParams& p = dynamic_cast<const LogGpsModel&>(*model).params();
  EXPECT_EQ(p.name, "unit-cluster");
  // The file has µs rounded to 6 significant digits; every value here has fewer, so only the
  // µs → ns conversion's last bit may differ.
  auto near = [](double actual, double expected) {
    EXPECT_NEAR(actual, expected, 1e-12 * std::fabs(expected)) << "expected " << expected;
  };
  near(p.L, kL);
  near(p.G, kG);
  near(p.o, 2150);
  EXPECT_EQ(p.S, 16383u);
  near(p.sendOverhead.a, 2150);
  near(p.sendOverhead.b, 1.88);
  near(p.recvOverhead.a, 2150);
  near(p.recvOverhead.b, 0.937);
  near(p.syncSend.a, 28900);
  near(p.syncSend.b, 3.58);
  near(p.syncRecv.a, 90300);
  near(p.syncRecv.b, 4.85);
  // g: the stream's time per message at its smallest size, 0 bytes: 700 ns + G·0.
  near(p.g, 700);
  EXPECT_EQ(p.s, 0u);
  EXPECT_EQ(p.P, 0u);
}

TEST(CalibrateModelFile, RoundsToSixSignificantDigits) {
  EXPECT_DOUBLE_EQ(roundSignificant(10.0169999999), 10.017);
  EXPECT_DOUBLE_EQ(roundSignificant(0.000123456789), 0.000123457);
  EXPECT_DOUBLE_EQ(roundSignificant(0), 0);
}

// ---- output files -----------------------------------------------------------------------------

TEST(CalibrateOutput, RefusesToOverwriteWithoutForce) {
  const auto dir = test::freshDir("output_rules");
  const auto path = dir / "model.json";
  EXPECT_NO_THROW(checkOutputPath(path.string(), false));
  writeOutputFile(path.string(), "first", false);
  EXPECT_EQ(test::readFile(path), "first\n");

  try {
    checkOutputPath(path.string(), false);
    ADD_FAILURE() << "an existing file was accepted without --force";
  } catch (const OutputError& e) {
    EXPECT_NE(std::string(e.what()).find(path.string() + ": file exists"), std::string::npos)
        << e.what();
  }
  EXPECT_THROW(writeOutputFile(path.string(), "second", false), OutputError);
  EXPECT_EQ(test::readFile(path), "first\n");  // untouched

  EXPECT_NO_THROW(checkOutputPath(path.string(), true));
  writeOutputFile(path.string(), "second", true);
  EXPECT_EQ(test::readFile(path), "second\n");
  // Only the model file is left: the temporary one was renamed over it.
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir), {}), 1);

  EXPECT_THROW(checkOutputPath((dir / "missing" / "m.json").string(), false), OutputError);
  EXPECT_THROW(checkOutputPath(dir.string(), true), OutputError);  // a directory
}

TEST(CalibrateOutput, ADegenerateModelIsAnErrorUnlessAllowed) {
  const auto dir = test::freshDir("output_degenerate");
  CalibrateOptions o;
  o.output = (dir / "model.json").string();
  const std::vector<std::string> why{"gap per byte G = 0.000 ns/byte ≤ 0: ..."};
  auto summary = [](const CalibrateOptions&) { return std::string(); };
  EXPECT_EQ(publishModel(o, "{}", summary, why), kExitFailure);
  EXPECT_FALSE(std::filesystem::exists(o.output));  // nothing written
  o.allowDegenerate = true;
  EXPECT_EQ(publishModel(o, "{}", summary, why), kExitOk);
  EXPECT_EQ(test::readFile(o.output), "{}\n");
  // Without reasons the flag changes nothing.
  o.allowDegenerate = false;
  o.force = true;
  EXPECT_EQ(publishModel(o, "{\"a\": 1}", summary, {}), kExitOk);
  EXPECT_EQ(test::readFile(o.output), "{\"a\": 1}\n");
}

// ---- options ----------------------------------------------------------------------------------

ParseResult parse(std::vector<std::string> args, CalibrateOptions& o) {
  args.insert(args.begin(), "perwiz-calibrate");
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  return parseOptions(static_cast<int>(argv.size()), argv.data(), o);
}

TEST(CalibrateOptions, ParsesAndRejects) {
  CalibrateOptions o;
  ParseResult r = parse({"-o", "dir/my-cluster.json", "--max-size", "4096", "--statistic", "min",
                         "--reps", "5", "--json"}, o);
  EXPECT_TRUE(r.run);
  EXPECT_EQ(o.output, "dir/my-cluster.json");
  EXPECT_EQ(o.maxSize, 4096u);
  EXPECT_EQ(o.statistic, Statistic::Min);
  EXPECT_EQ(o.repetitions, 5);
  EXPECT_TRUE(o.json);
  EXPECT_FALSE(o.allowDegenerate);
  EXPECT_EQ(modelName(o), "my-cluster");
  CalibrateOptions lenient;
  EXPECT_TRUE(parse({"--allow-degenerate"}, lenient).run);
  EXPECT_TRUE(lenient.allowDegenerate);  // the file's stem, as the model loader would name it

  CalibrateOptions bad;
  r = parse({"--min-size", "100", "--max-size", "10"}, bad);
  EXPECT_FALSE(r.run);
  EXPECT_EQ(r.status, kExitBadUsage);
  EXPECT_NE(r.err.find("--min-size"), std::string::npos) << r.err;
  EXPECT_EQ(parse({"--mode", "logp"}, bad).status, kExitBadUsage);
  EXPECT_EQ(parse({"--reps", "0"}, bad).status, kExitBadUsage);

  CalibrateOptions help;
  r = parse({"--help"}, help);
  EXPECT_FALSE(r.run);
  EXPECT_EQ(r.status, kExitOk);
  EXPECT_NE(r.out.find("--force"), std::string::npos);
}

TEST(CalibrateOptions, MessageSizesArePowersOfTwoBetweenTheBounds) {
  EXPECT_EQ(messageSizes(0, 16), (std::vector<std::uint64_t>{0, 1, 2, 4, 8, 16}));
  EXPECT_EQ(messageSizes(3, 100), (std::vector<std::uint64_t>{3, 4, 8, 16, 32, 64, 100}));
  EXPECT_EQ(messageSizes(5, 5), (std::vector<std::uint64_t>{5}));
}

}  // namespace
