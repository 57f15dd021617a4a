// perwiz-calibrate's profile and LogGPO modes under Open MPI on this machine. Timings are noisy
// here (2 shared cores, ranks oversubscribed), so nothing is compared with an exact value: the
// runs must succeed, write files that perwiz::core loads, and the values must be plausible.
// docs/calibrate.md records what this machine measured.
#include "calibrate_test_support.h"

#include "perwiz/overhead_profile.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cstdlib>
#include <filesystem>
#include <string>

using namespace perwiz;
using namespace perwiz::calibrate::test;

namespace {

std::string mpirunCommand(int ranks, const std::string& args) {
  // As root (CI, containers) Open MPI refuses to start without these.
  setenv("OMPI_ALLOW_RUN_AS_ROOT", "1", 0);
  setenv("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1", 0);
  return std::string(PERWIZ_MPIEXEC) + " -np " + std::to_string(ranks) + " --oversubscribe '" +
         PERWIZ_CALIBRATE_BIN + "' " + args;
}

constexpr TimeNs kSecondNs = 1000000000;

TEST(CalibrateOpenMpiModes, ProfileOnThreeRanksLoadsAndDrivesOverhead) {
  const auto dir = freshDir("openmpi_profile");
  const auto file = dir / "profile.json";
  // 3 ranks: base points p = 2 and 3; sizes 1 … 100; few rounds to stay quick.
  const CommandResult r = runCommand(
      mpirunCommand(3, "--mode profile --max-bytes 100 -r 10 --warmup 1 --json -o '" + file.string() + "'"),
      dir);
  ASSERT_EQ(r.status, 0) << r.command << "\n" << r.err;
  std::string error;
  const auto profile = loadOverheadProfile(file.string(), &error);
  ASSERT_TRUE(profile) << error;
  EXPECT_EQ(profile->functions.size(), 8u);  // Send and Recv from the ping-pong, 6 others
  for (const ProfileFunction& f : profile->functions) {
    EXPECT_EQ(f.processes, (std::vector<std::uint32_t>{2, 3})) << f.name;
    for (const ProfilePoint& pt : f.points) {
      ASSERT_TRUE(pt.fit) << f.name;
      // A real call takes time, less than a second even on a busy machine, and t_max is no
      // shorter than the shortest call.
      EXPECT_GT(pt.fit->minNs, 0) << f.name << " p=" << pt.processes << " b=" << pt.bytes;
      EXPECT_LT(pt.fit->minNs, kSecondNs) << f.name;
      EXPECT_GE(pt.tMaxNs, pt.fit->minNs) << f.name;
      EXPECT_GE(pt.fit->samples, 1u) << f.name;
    }
  }
  EXPECT_NE(profile->description.find("Open MPI"), std::string::npos) << profile->description;

  const nlohmann::json summary = nlohmann::json::parse(r.out);
  EXPECT_EQ(summary["clock"]["global"], false);  // offsets estimated

  const CommandResult o = runCommand(std::string(PERWIZ_CLI) + " overhead '" + PERWIZ_SAMPLE_TRACE +
                                         "' --profile '" + file.string() + "' --json",
                                     dir);
  ASSERT_EQ(o.status, 0) << o.command << "\n" << o.err;
  const nlohmann::json j = nlohmann::json::parse(o.out);
  EXPECT_EQ(j["profile"]["file"], file.string());
  for (const auto& c : j["classes"]) EXPECT_EQ(c["source"], "profile") << c.dump();
}

TEST(CalibrateOpenMpiModes, LogGpoWritesAPlausibleModel) {
  const auto dir = freshDir("openmpi_loggpo");
  const auto model = dir / "this-machine-loggpo.json";
  constexpr std::uint64_t kMaxSize = 1 << 20;
  const CommandResult r = runCommand(
      // --allow-degenerate: a stream's time per message on this shared-memory VM is not one line
      // from a few hundred bytes to kMaxSize (copies in and out of cache; docs/calibrate.md).
      mpirunCommand(2, "--mode loggpo --allow-degenerate --max-size " + std::to_string(kMaxSize) + " --json -o '" +
                           model.string() + "'"),
      dir);
  ASSERT_EQ(r.status, 0) << r.command << "\n" << r.err;
  const LogGpoParams p = loadLogGpo(model);
  EXPECT_EQ(p.name, "this-machine-loggpo");
  EXPECT_LE(p.S, kMaxSize);
  // Sub-millisecond latency and overheads on any machine this runs on.
  constexpr double kMillisecondNs = 1e6;
  EXPECT_LT(p.L, kMillisecondNs);
  EXPECT_LT(p.Octrl, kMillisecondNs);
  EXPECT_LT(p.Oi.a, kMillisecondNs);
  EXPECT_LT(p.Oc.a, kMillisecondNs);

  const nlohmann::json summary = nlohmann::json::parse(r.out);
  for (const auto& s : summary["sizes"])
    for (const char* key : {"pingpong_half_us", "isend_us", "isend_wait_us", "irecv_wait_us"}) {
      ASSERT_TRUE(s[key].is_number()) << s.dump();
      EXPECT_GT(s[key].get<double>(), 0) << key << " of " << s.dump();
    }
  // 1 MiB is far above Open MPI's eager limit: the progress probe ran, and a 1 MiB transfer
  // takes time when the Wait has to do it (between 10 MB/s and 1 TB/s: 1 µs … 100 ms).
  ASSERT_EQ(summary["progress"]["measured"], true);
  const double alone = summary["progress"]["sender_wait_alone_us"].get<double>();
  EXPECT_GT(alone, 1.0);
  EXPECT_LT(alone, 100000.0);
  EXPECT_EQ(summary["model"]["progress"], summary["progress"]["strategy"]);
}

TEST(CalibrateOpenMpiModes, RefuseOneRankAndAnExistingProfile) {
  const auto dir = freshDir("openmpi_modes_usage");
  for (const char* mode : {"profile", "loggpo"}) {
    const CommandResult r =
        runCommand(mpirunCommand(1, std::string("--mode ") + mode + " -o '" + (dir / "m.json").string() + "'"), dir);
    EXPECT_NE(r.status, 0) << r.command;
    EXPECT_NE(r.err.find("needs 2 MPI ranks"), std::string::npos) << r.err;
    EXPECT_FALSE(std::filesystem::exists(dir / "m.json"));
  }
  const auto taken = dir / "taken.json";
  writeFile(taken, "precious\n");
  const CommandResult r = runCommand(mpirunCommand(2, "--mode profile -o '" + taken.string() + "'"), dir);
  EXPECT_NE(r.status, 0) << r.command;
  EXPECT_NE(r.err.find(taken.string() + ": file exists; use --force"), std::string::npos) << r.err;
  EXPECT_EQ(readFile(taken), "precious\n");
}

}  // namespace
