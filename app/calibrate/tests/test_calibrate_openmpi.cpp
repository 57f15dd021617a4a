// perwiz-calibrate under Open MPI on this machine, 2 ranks. Timings are noisy here (shared
// cores), so nothing is compared with an exact value: the run must succeed, write a model that
// perwiz::core loads, and every measured time must be positive and every parameter plausible.
// docs/calibrate.md records what this machine measured.
#include "calibrate_test_support.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cstdlib>
#include <filesystem>
#include <string>

using namespace perwiz;
using namespace perwiz::calibrate::test;

namespace {

constexpr std::uint64_t kMaxSize = 1 << 20;

std::string mpirunCommand(int ranks, const std::string& args) {
  // As root (CI, containers) Open MPI refuses to start without these.
  setenv("OMPI_ALLOW_RUN_AS_ROOT", "1", 0);
  setenv("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1", 0);
  // --oversubscribe: a machine with one core still runs the 2 ranks (slower, not wrong).
  return std::string(PERWIZ_MPIEXEC) + " -np " + std::to_string(ranks) + " --oversubscribe '" +
         PERWIZ_CALIBRATE_BIN + "' " + args;
}

TEST(CalibrateOpenMpi, WritesAPlausibleModel) {
  const auto dir = freshDir("openmpi_run");
  const auto model = dir / "this-machine.json";
  const CommandResult r = runCommand(
      mpirunCommand(2, "--max-size " + std::to_string(kMaxSize) + " --allow-degenerate --json --name this-machine -o '" +
                           model.string() + "'"),
      dir);
  // --allow-degenerate: on this shared-memory VM a stream's time per message is not one line
  // from a few hundred bytes to kMaxSize (in-cache and out-of-cache copies), which a busy
  // machine pushes past the 10 % the fit allows (docs/calibrate.md); any reason is reported.
  ASSERT_EQ(r.status, 0) << r.command << "\n" << r.err;

  // Every summarised time is a real duration.
  const nlohmann::json summary = nlohmann::json::parse(r.out);
  ASSERT_FALSE(summary["sizes"].empty());
  for (const auto& s : summary["sizes"])
    for (const char* key : {"pingpong_half_us", "send_us", "recv_us"}) {
      ASSERT_TRUE(s[key].is_number()) << s.dump();
      EXPECT_GT(s[key].get<double>(), 0) << key << " of " << s.dump();
    }

  const LogGpsParams p = loadLogGps(model);
  EXPECT_EQ(p.name, "this-machine");
  EXPECT_LE(p.S, kMaxSize);
  // Plausible for any machine this runs on: sub-millisecond latency and overheads.
  constexpr double kMillisecondNs = 1e6;
  EXPECT_LT(p.L, kMillisecondNs);
  EXPECT_LT(p.sendOverhead.a, kMillisecondNs);
  EXPECT_LT(p.recvOverhead.a, kMillisecondNs);
  EXPECT_LT(p.syncSend.a, kMillisecondNs);
  EXPECT_LT(p.syncRecv.a, kMillisecondNs);
  // The largest messages take time per byte: the send line that covers kMaxSize (synchronous if
  // S was found below it) has a slope between 1 TB/s (0.001 ns/byte) and 10 MB/s (100 ns/byte).
  const LinearCost& largest = p.S < kMaxSize ? p.syncSend : p.sendOverhead;
  EXPECT_GT(largest.b, 0.001);
  EXPECT_LT(largest.b, 100.0);
  // And the measured time of the largest message is positive under the model too.
  EXPECT_GT(largest.at(kMaxSize), 0);
}

TEST(CalibrateOpenMpi, RefusesOneRank) {
  const auto dir = freshDir("openmpi_one_rank");
  const CommandResult r = runCommand(mpirunCommand(1, "-o '" + (dir / "m.json").string() + "'"), dir);
  EXPECT_NE(r.status, 0) << r.command;
  EXPECT_NE(r.err.find("needs 2 MPI ranks"), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(dir / "m.json"));
}

TEST(CalibrateOpenMpi, RefusesAnExistingOutput) {
  const auto dir = freshDir("openmpi_existing");
  const auto model = dir / "taken.json";
  writeFile(model, "precious\n");
  const CommandResult r = runCommand(mpirunCommand(2, "-o '" + model.string() + "'"), dir);
  EXPECT_NE(r.status, 0) << r.command;
  EXPECT_NE(r.err.find(model.string() + ": file exists; use --force"), std::string::npos) << r.err;
  EXPECT_EQ(readFile(model), "precious\n");
}

}  // namespace
