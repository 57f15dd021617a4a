// LogGP vs LogGPS vs LogGPO on the case-study programs (issue #7; docs/validation-models.md).
//
// Per backend, one calibration (perwiz-calibrate: LogGPS and LogGPO; LogGP derived from the
// LogGPS measurement, loggp_derivation.h), then per program: trace a run, predict that same run
// with each model re-pricing every communication call (`predict --costs model`, no hypothesis)
// and compare with what was measured. The paper's validation (Chen et al. 2009, §3.2.2) is the
// same: measured vs predicted execution time of traced applications.
//
// Under SMPI (examples/models/platform.xml, known costs) the runs are deterministic and the test
// checks what follows from the platform (see "What the test asserts" in the doc); under Open MPI
// (4 ranks on this shared 2-core machine) the rows are only recorded.
#include "validation/process.h"
#include "loggp_derivation.h"
#include "model_table.h"
#include "trace_metrics.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <stdlib.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace perwiz::models {
namespace {

namespace fs = std::filesystem;
using Json = nlohmann::json;
using Args = std::vector<std::string>;
using validation::commandLine;
using validation::ProcessResult;
using validation::mustRun;
using validation::runProcess;

enum class Backend { Smpi, OpenMpi };

std::string backendName(Backend b) { return b == Backend::Smpi ? "SMPI" : "Open MPI"; }
fs::path outDir() { return PERWIZ_MODELS_OUT; }
fs::path modelDir(Backend b) { return outDir() / (b == Backend::Smpi ? "smpi" : "openmpi"); }

// The three models, in the table's order, and their files in modelDir.
struct ModelFile {
  const char* name;
  const char* file;
};
constexpr ModelFile kModels[] = {{"LogGP", "loggp.json"}, {"LogGPS", "loggps.json"}, {"LogGPO", "loggpo.json"}};

Json cliJson(Args args) { return perwiz::validation::cliJson(PERWIZ_CLI, std::move(args)); }

Json readJson(const fs::path& file) {
  std::ifstream f(file);
  if (!f) throw std::runtime_error("cannot read " + file.string());
  return Json::parse(f);
}

// SimGrid copies the program and the privatized libraries into TMPDIR under names made from the
// rank number only, so concurrent smpirun runs need their own (examples/validation/ does the same).
struct PrivateTmp {
  std::string path;
  PrivateTmp() {
    path = (fs::temp_directory_path() / "perwiz-models-XXXXXX").string();
    if (!mkdtemp(path.data())) throw std::runtime_error("cannot create a directory like " + path);
  }
  ~PrivateTmp() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
  PrivateTmp(const PrivateTmp&) = delete;
  PrivateTmp& operator=(const PrivateTmp&) = delete;
};

Args openMpiEnv() { return {"OMPI_ALLOW_RUN_AS_ROOT=1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1"}; }

// ---- calibration ----------------------------------------------------------------------------

// perwiz-calibrate --mode MODE between two ranks, written to modelDir(b)/MODE.json.
void calibrate(Backend b, const std::string& mode) {
  const fs::path file = modelDir(b) / (mode + ".json");
  const Args common = {"--mode", mode, "-o", file.string(), "--force", "--name",
                       (b == Backend::Smpi ? "smpi-models-" : "openmpi-") + mode};
  Args argv, env;
  std::unique_ptr<PrivateTmp> tmp;
  if (b == Backend::Smpi) {
    tmp = std::make_unique<PrivateTmp>();
    env = {"TMPDIR=" + tmp->path};
    argv = {PERWIZ_SMPIRUN, "-np", "2", "-platform", PERWIZ_MODELS_PLATFORM, "--log=root.thres:warning",
            PERWIZ_CALIBRATE_SMPI};
  } else {
    env = openMpiEnv();
    argv = {PERWIZ_MPIEXEC, "-np", "2", PERWIZ_CALIBRATE};
  }
  argv.insert(argv.end(), common.begin(), common.end());
  // Open MPI on this shared-memory VM: a stream's time per message is not one line from a few
  // hundred bytes to 1 MiB (copies in and out of cache), which both pair modes call degenerate
  // when the machine is busy; the comparison reports whatever the machine gives.
  if (b == Backend::OpenMpi) argv.push_back("--allow-degenerate");
  mustRun(argv, env);
}

// Both calibrations and the LogGP file derived from the LogGPS one.
void calibrateAll(Backend b) {
  fs::create_directories(modelDir(b));
  calibrate(b, "loggps");
  calibrate(b, "loggpo");
  const Json loggps = readJson(modelDir(b) / "loggps.json");
  const std::string name = (b == Backend::Smpi ? "smpi-models-" : "openmpi-") + std::string("loggp");
  std::ofstream(modelDir(b) / "loggp.json") << loggpFromLoggps(loggps, name).dump(2) << '\n';
}

// ---- one traced run and its predictions -----------------------------------------------------

struct Case {
  std::string program;
  int ranks;
  Args args;
};

struct Measured {
  std::int64_t t = 0, part = 0, comm = 0;
  bool operator==(const Measured&) const = default;
};

struct RunResult {
  Measured measured;
  std::map<std::string, Measured> predicted;  // by model name
  std::uint64_t smallestMessage = 0, largestMessage = 0;  // point-to-point, bytes
};

std::string joined(const Args& args) {
  std::string s;
  for (const std::string& a : args) s += (s.empty() ? "" : " ") + a;
  return s;
}

std::string caseId(Backend b, const Case& c) {
  std::string id = (b == Backend::Smpi ? "smpi-" : "ompi-") + c.program + "-" + std::to_string(c.ranks);
  for (const std::string& a : c.args) id += "_" + a;
  for (char& ch : id)
    if (!std::isalnum(static_cast<unsigned char>(ch)) && ch != '-' && ch != '_') ch = '_';
  return id;
}

// Runs the traced build of C; returns the trace directory.
std::string traceRun(Backend b, const Case& c, const std::string& name) {
  const fs::path dir = outDir() / "traces";
  fs::create_directories(dir);
  fs::remove_all(dir / name);  // the tracer never overwrites: it would pick NAME-1
  Args env = {"PERWIZ_TRACE_DIR=" + dir.string(), "PERWIZ_TRACE_NAME=" + name};
  Args argv;
  std::unique_ptr<PrivateTmp> tmp;
  if (b == Backend::Smpi) {
    tmp = std::make_unique<PrivateTmp>();
    env.push_back("TMPDIR=" + tmp->path);
    env.push_back("LD_LIBRARY_PATH=" PERWIZ_TRACE_SMPI_LIB_DIR);
    argv = {PERWIZ_SMPIRUN, "-np", std::to_string(c.ranks), "-platform", PERWIZ_MODELS_PLATFORM,
            "--log=root.thres:warning", "--cfg=smpi/privatize-libs:" PERWIZ_TRACE_SMPI_LIB_NAME,
            std::string(PERWIZ_EXAMPLES_BIN) + "/" + c.program + "-smpi-traced"};
  } else {
    env.insert(env.end(), {"OMPI_ALLOW_RUN_AS_ROOT=1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1"});
    argv = {PERWIZ_MPIEXEC, "--oversubscribe", "-np", std::to_string(c.ranks), "-x", "LD_PRELOAD=" PERWIZ_TRACE_LIB,
            "-x", "PERWIZ_TRACE_DIR", "-x", "PERWIZ_TRACE_NAME", std::string(PERWIZ_EXAMPLES_BIN) + "/" + c.program};
  }
  argv.insert(argv.end(), c.args.begin(), c.args.end());
  mustRun(argv, env);
  const fs::path trace = dir / name;
  if (!fs::exists(trace)) throw std::runtime_error(commandLine(argv, env) + ": no trace at " + trace.string());
  return trace.string();
}

Measured measure(std::int64_t t, const Json& events) { return {t, timedPartNs(events), communicationNs(events)}; }

RunResult traceAndPredict(Backend b, const Case& c, const std::string& name) {
  const std::string trace = traceRun(b, c, name);
  const Json info = cliJson({"info", trace});
  EXPECT_EQ(info["ranks"].get<int>(), c.ranks) << trace;
  EXPECT_EQ(info["messages"]["unmatched_sends"].get<long>(), 0) << trace;
  EXPECT_EQ(info["messages"]["unmatched_receives"].get<long>(), 0) << trace;

  RunResult r;
  const Json events = cliJson({"events", trace});
  r.measured = measure(info["duration_ns"].get<std::int64_t>(), events);
  r.smallestMessage = UINT64_MAX;
  for (const Json& e : events)
    if (!e.contains("collective"))
      for (const Json& ep : e["endpoints"]) {
        r.smallestMessage = std::min(r.smallestMessage, ep["bytes"].get<std::uint64_t>());
        r.largestMessage = std::max(r.largestMessage, ep["bytes"].get<std::uint64_t>());
      }

  const fs::path predictedDir = outDir() / "predicted";
  fs::create_directories(predictedDir);
  for (const ModelFile& m : kModels) {
    // ALOG: the OTF2 writer refuses some model-mode predictions (an event before the last one
    // written, reported in the doc); the ALOG writer keeps nanoseconds too.
    const fs::path out = predictedDir / (name + "-" + m.name + ".alog");
    fs::remove(out);  // predict never overwrites
    const Json p = cliJson({"predict", trace, "--model", (modelDir(b) / m.file).string(), "--costs", "model", "-o",
                            out.string()});
    EXPECT_EQ(p["model"]["model"], m.name) << "the file must load as " << m.name;
    EXPECT_EQ(p["measured_ns"].get<std::int64_t>(), r.measured.t) << trace;
    r.predicted[m.name] = measure(p["predicted_ns"].get<std::int64_t>(), cliJson({"events", out.string()}));
  }
  return r;
}

void record(Backend b, const Case& c, const RunResult& r) {
  for (const ModelFile& m : kModels) {
    const Measured& p = r.predicted.at(m.name);
    Row row{backendName(b), c.program, joined(c.args), c.ranks, m.name,
            p.t,            r.measured.t, p.part,       r.measured.part, p.comm, r.measured.comm,
            b == Backend::Smpi};
    recordRow(outDir().string(), row);
    std::printf("%s %s %s %d ranks %s: predicted %.3f ms, measured %.3f ms, error %+.2f %% (timed part %+.2f %%, "
                "communication %+.2f %%)\n",
                row.backend.c_str(), c.program.c_str(), row.args.c_str(), c.ranks, m.name, p.t / 1e6,
                r.measured.t / 1e6, row.errorPercent(), row.partErrorPercent(), row.commErrorPercent());
  }
}

double errorPercent(std::int64_t predicted, std::int64_t measured) {
  return 100.0 * static_cast<double>(predicted - measured) / static_cast<double>(measured);
}

// ---- SMPI: what the platform implies --------------------------------------------------------

// platform.xml's costs (its comment gives them): route latency 2 links × 2 µs, 0.8 ns/byte,
// an envelope of 16 bytes per transfer, os = ois = 1.5 µs + 0.3 ns/B, or = 2 µs + 0.2 ns/B for
// eager messages, a rendezvous MPI_Isend 0.5 µs, eager below 16384 bytes.
constexpr double kRouteLatencyUs = 2 * 2.0, kUsPerByte = 0.0008, kEnvelopeBytes = 16;
constexpr double kSendUs = 1.5, kSendUsPerByte = 0.0003, kRecvUs = 2.0, kRecvUsPerByte = 0.0002;
constexpr double kRendezvousIsendUs = 0.5;
constexpr std::uint64_t kEagerLimit = 16383;

// A transfer of k bytes: x(k) = route latency + (k + envelope) per byte.
double transferUs(double k) { return kRouteLatencyUs + (k + kEnvelopeBytes) * kUsPerByte; }

// SMPI computes in doubles and rounds to 1 ns (surf/precision), the file keeps 6 digits.
void expectNear(const Json& j, const char* key, double expected, const char* why) {
  ASSERT_TRUE(j.contains(key)) << key;
  EXPECT_NEAR(j[key].get<double>(), expected, 1e-3 + 1e-5 * std::abs(expected)) << key << ": " << why;
}
void expectLine(const Json& j, const char* key, double a, double b, const char* why) {
  ASSERT_TRUE(j.contains(key)) << key;
  expectNear(j[key], "a", a, why);
  EXPECT_NEAR(j[key]["b_per_byte"].get<double>(), b, 1e-3 * b + 1e-9) << key << ".b_per_byte: " << why;
}

// The calibrations every SMPI prediction uses: written to the build tree (CTest fixture
// models_smpi_calibrated) and checked against the values platform.xml implies, so that the
// bounds below rest on known parameters.
TEST(SmpiCalibration, RecoversThePlatform) {
  calibrateAll(Backend::Smpi);
  const Json gps = readJson(modelDir(Backend::Smpi) / "loggps.json");
  // The calibration's L/G line is P(k) − o_s(k) − o_r(k) = x(k) = L + G·(k − 1).
  expectNear(gps, "L_us", transferUs(1), "x(1): route latency + 17 bytes");
  expectNear(gps, "G_us_per_byte", kUsPerByte, "10 Gb/s");
  EXPECT_EQ(gps["S_bytes"].get<std::uint64_t>(), kEagerLimit);
  expectLine(gps, "send_overhead_us", kSendUs, kSendUsPerByte, "smpi/os");
  expectLine(gps, "recv_overhead_us", kRecvUs, kRecvUsPerByte, "smpi/or");
  // A rendezvous MPI_Send / MPI_Recv with its partner in time lasts the transfer, nothing more.
  expectLine(gps, "sync_send_us", transferUs(0), kUsPerByte, "x(k)");
  expectLine(gps, "sync_recv_us", transferUs(0), kUsPerByte, "x(k)");

  const Json gpo = readJson(modelDir(Backend::Smpi) / "loggpo.json");
  expectNear(gpo, "L_us", transferUs(1), "x(1)");
  expectNear(gpo, "G_us_per_byte", kUsPerByte, "10 Gb/s");
  EXPECT_EQ(gpo["S_bytes"].get<std::uint64_t>(), kEagerLimit);
  expectNear(gpo, "O_ctrl_us", kRendezvousIsendUs, "a rendezvous MPI_Isend (smpi/ois above the limit)");
  expectLine(gpo, "O_i_us", kSendUs, kSendUsPerByte, "an eager MPI_Isend (smpi/ois)");
  expectLine(gpo, "O_c_us", kRecvUs, kRecvUsPerByte, "smpi/or");
  EXPECT_EQ(gpo["progress"], "independent") << "SMPI moves a message whether or not its ranks are in MPI";

  const Json gp = readJson(modelDir(Backend::Smpi) / "loggp.json");
  expectNear(gp, "o_us", (kSendUs + kRecvUs) / 2, "half of the two overheads");
  expectNear(gp, "G_us_per_byte", kUsPerByte + kSendUsPerByte + kRecvUsPerByte, "the eager ping-pong's slope");
}

// Both runs of a case must give the same numbers: SMPI is deterministic, and so is the replay.
RunResult smpiCase(const Case& c) {
  const std::string id = caseId(Backend::Smpi, c);
  const RunResult a = traceAndPredict(Backend::Smpi, c, id + "-a");
  const RunResult b = traceAndPredict(Backend::Smpi, c, id + "-b");
  EXPECT_EQ(a.measured, b.measured) << "two SMPI runs of " << id << " differ";
  for (const ModelFile& m : kModels)
    EXPECT_EQ(a.predicted.at(m.name), b.predicted.at(m.name)) << m.name << " predicts the two runs differently";
  record(Backend::Smpi, c, a);
  return a;
}

double err(const RunResult& r, const char* model) { return errorPercent(r.predicted.at(model).t, r.measured.t); }
double partErr(const RunResult& r, const char* model) {
  return errorPercent(r.predicted.at(model).part, r.measured.part);
}

// Eager messages only: LogGPS's o_s, o_r, L, G and LogGPO's O_i, O_c, L, G are the same
// calibrated numbers (checked above), so the two price every single point-to-point call alike.
// Since issue #20 both overlap the endpoints of one call (a Sendrecv's halves, a Waitall's
// completions: docs/model.md, "Concurrency within a call") and price collectives with SMPI's
// default algorithms ("collectives": "smpi" in the files of perwiz-calibrate-smpi): they tie
// again. Measured on this platform: registration +0.55 %, pipeline +0.57 % (SMPI's linear
// barrier: the root's per-message overheads priced 64 µs where SMPI takes 36–46 µs), stencil
// +2.00 %, for both. Bound 5 %.
constexpr double kEagerBoundPercent = 5.0;
void expectEagerTie(const RunResult& r) {
  ASSERT_LE(r.largestMessage, kEagerLimit) << "the premise: every message is eager";
  EXPECT_LE(std::abs(err(r, "LogGPS")), kEagerBoundPercent);
  EXPECT_LE(std::abs(err(r, "LogGPO")), kEagerBoundPercent);
}

TEST(SmpiModels, Registration) { expectEagerTie(smpiCase({"registration", 16, {}})); }
TEST(SmpiModels, Pipeline) { expectEagerTie(smpiCase({"pipeline", 16, {}})); }
TEST(SmpiModels, Stencil) { expectEagerTie(smpiCase({"stencil", 16, {}})); }

// Rendezvous MPI_Sendrecv of 64–512 KiB. SMPI runs the two directions at once (the platform's
// links are SPLITDUPLEX): the call lasts one transfer x(k) after the later partner. LogGPS and
// LogGPO overlap the two halves (issue #20: the longer side of the call; LogGPO's rendezvous
// O_i(k) is calibrated from the rendezvous Isend + Wait, here clamped at 0 because SMPI's one
// flow is shorter than RAT's handshake by 2 µs + x(0)); LogGP charges 2o after waiting for the
// partner's half, λ = o + G·(k − 1) + L ≈ x(k) from the partner's call, so a partner already
// waiting costs it the transfer again. Measured in the timed part: LogGPS +0.41 %, LogGPO
// +0.56 %, LogGP +4.31 % (before issue #20 LogGPS summed the halves: +7.0 %, LogGPO +12.4 %;
// LogGP's +0.20 % then was the replay shortening its λ to the measured calls as clock skew).
TEST(SmpiModels, BinarySwap) {
  const RunResult r = smpiCase({"binary_swap", 16, {}});
  ASSERT_GT(r.smallestMessage, kEagerLimit) << "the premise: every exchange is rendezvous";
  EXPECT_LE(std::abs(partErr(r, "LogGPS")), 1.0);
  EXPECT_LE(std::abs(partErr(r, "LogGPO")), 1.0);
  EXPECT_LT(std::abs(partErr(r, "LogGPS")), std::abs(partErr(r, "LogGP")));
  EXPECT_LT(std::abs(partErr(r, "LogGPO")), std::abs(partErr(r, "LogGP")));
}

// Blocking MPI_Send/MPI_Recv of 256 KiB (the paper's regime of large messages). SMPI holds each
// send for its transfer, which is LogGPS's t_ss(k) exactly, and a late sender's receive completes
// x(k) after the send is called where LogGPS says o_s(0) + L + t_sr(k): 5.5 µs too late per hop
// of the pipeline's fill (15 hops: 83 µs of 26 ms). Bound 1 %. LogGP's sends never block: every
// block saves at least one transfer on the chain, so LogGP must predict at least
// blocks · x(k) less than measured.
TEST(SmpiModels, PipelineLargeBlocks) {
  const long blocks = 32, bytes = 262144;
  const RunResult r = smpiCase({"pipeline", 16, {"--block-bytes", std::to_string(bytes)}});
  ASSERT_GT(r.smallestMessage, kEagerLimit) << "the premise: every block is rendezvous";
  EXPECT_LE(std::abs(err(r, "LogGPS")), 1.0);
  const double xNs = transferUs(static_cast<double>(bytes)) * 1000;
  EXPECT_LE(static_cast<double>(r.predicted.at("LogGP").t), static_cast<double>(r.measured.t) - blocks * xNs);
}

// Isend/Irecv halos of 16 KiB (rendezvous) completed by one MPI_Waitall: recorded (and checked
// for determinism). Every model sums the Waitall's four completions although SMPI runs them at
// once; see the doc.
TEST(SmpiModels, StencilLargeHalos) {
  const RunResult r = smpiCase({"stencil", 16, {"--n", "2048", "--cell-ns", "1"}});
  EXPECT_GT(r.smallestMessage, kEagerLimit) << "the premise: every halo is rendezvous";
}

// ---- Open MPI: recorded ---------------------------------------------------------------------

TEST(OpenMpiCalibration, Measure) {
  calibrateAll(Backend::OpenMpi);
  for (const ModelFile& m : kModels) EXPECT_EQ(readJson(modelDir(Backend::OpenMpi) / m.file)["model"], m.name);
}

// The validation's workloads (examples/validation/): a few hundred ms after MPI_Init, so that
// the programs' own time is not lost in start-up and scheduling noise.
void openMpiCase(const Case& c) {
  const RunResult r = traceAndPredict(Backend::OpenMpi, c, caseId(Backend::OpenMpi, c));
  for (const ModelFile& m : kModels) EXPECT_GT(r.predicted.at(m.name).t, 0) << m.name;
  record(Backend::OpenMpi, c, r);
}

TEST(OpenMpiModels, BinarySwap) { openMpiCase({"binary_swap", 4, {"--frames", "10"}}); }
TEST(OpenMpiModels, Registration) { openMpiCase({"registration", 4, {"--point-ns", "1e6"}}); }
TEST(OpenMpiModels, Pipeline) { openMpiCase({"pipeline", 4, {"--block-ns", "2e6"}}); }
TEST(OpenMpiModels, Stencil) { openMpiCase({"stencil", 4, {"--iters", "100"}}); }

// ---- the LogGP derivation -------------------------------------------------------------------

// LogGP's message time 2o + L + G·(k − 1) must be the LogGPS eager ping-pong half
// o_s(k) + L + G·(k − 1) + o_r(k) at every size.
TEST(LogGpDerivation, MessageTimeIsThePingPongHalf) {
  const Json gps = {{"model", "LogGPS"}, {"L_us", 4.0136}, {"o_us", 1.5}, {"G_us_per_byte", 0.0008},
                    {"S_bytes", 16383}, {"send_overhead_us", {{"a", 1.5}, {"b_per_byte", 0.0003}}},
                    {"recv_overhead_us", {{"a", 2.0}, {"b_per_byte", 0.0002}}}};
  const Json gp = loggpFromLoggps(gps, "x");
  EXPECT_EQ(gp["model"], "LogGP");
  const double o = gp["o_us"].get<double>(), L = gp["L_us"].get<double>(), G = gp["G_us_per_byte"].get<double>();
  for (double k : {1.0, 100.0, 4096.0, 16383.0, 1048576.0}) {
    const double pingPongHalf = (1.5 + 0.0003 * k) + 4.0136 + 0.0008 * (k - 1) + (2.0 + 0.0002 * k);
    EXPECT_NEAR(2 * o + L + G * (k - 1), pingPongHalf, 1e-9) << k << " bytes";
  }
  EXPECT_DOUBLE_EQ(o, 1.75);  // the intercepts split evenly
}

// Overheads left out of a LogGPS file mean o at each end (docs/model.md §4).
TEST(LogGpDerivation, DefaultOverheads) {
  const Json gp = loggpFromLoggps({{"model", "LogGPS"}, {"L_us", 9.11}, {"o_us", 2.15}, {"S_bytes", 16383}}, "x");
  EXPECT_DOUBLE_EQ(gp["o_us"].get<double>(), 2.15);
  EXPECT_DOUBLE_EQ(gp["L_us"].get<double>(), 9.11);
  EXPECT_DOUBLE_EQ(gp["G_us_per_byte"].get<double>(), 0.0);
  EXPECT_THROW(loggpFromLoggps({{"model", "LogGPO"}}, "x"), std::runtime_error);
}

}  // namespace
}  // namespace perwiz::models
