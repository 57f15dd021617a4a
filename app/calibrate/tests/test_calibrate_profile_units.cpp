// The profile mode's MPI-free parts: base points, message parts, options, and the way from
// samples to the profile file (buildOverheadProfile, saveOverheadProfile with and without
// --force) and its summary.
#include "calibrate_test_support.h"

#include "options.h"
#include "output_file.h"
#include "profile_output.h"
#include "profile_points.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <string>
#include <vector>

using namespace perwiz;
using namespace perwiz::calibrate;

namespace {

TEST(CalibrateProfilePoints, ProcessCountsAreTheBasePointsThatFit) {
  // The paper's 2^n and 1.5·2^n (n ≥ 1) up to the world size.
  EXPECT_TRUE(profileProcessCounts(1).empty());
  EXPECT_EQ(profileProcessCounts(2), (std::vector<std::uint32_t>{2}));
  EXPECT_EQ(profileProcessCounts(4), (std::vector<std::uint32_t>{2, 3, 4}));
  EXPECT_EQ(profileProcessCounts(13), (std::vector<std::uint32_t>{2, 3, 4, 6, 8, 12}));
}

TEST(CalibrateProfilePoints, SizesAndMessageParts) {
  // 1, 10, 20 … 90, 100: eleven sizes; 250 is not a base point and ends the list itself.
  EXPECT_EQ(profileSizes(ProfilePattern::PingPong, 100),
            (std::vector<std::uint64_t>{1, 10, 20, 30, 40, 50, 60, 70, 80, 90, 100}));
  EXPECT_EQ(profileSizes(ProfilePattern::Allreduce, 250).back(), 250u);
  EXPECT_EQ(profileSizes(ProfilePattern::Barrier, 100000), (std::vector<std::uint64_t>{0}));

  // A trace counts both directions of a Sendrecv and all parts of an Alltoall (docs/overhead.md),
  // so a point b is measured with parts of ⌈b/2⌉ and ⌈b/p⌉ bytes.
  EXPECT_EQ(patternPartBytes(ProfilePattern::PingPong, 4, 1000), 1000u);
  EXPECT_EQ(patternPartBytes(ProfilePattern::Bcast, 4, 30), 30u);
  EXPECT_EQ(patternPartBytes(ProfilePattern::Sendrecv, 4, 1), 1u);
  EXPECT_EQ(patternPartBytes(ProfilePattern::Sendrecv, 4, 10), 5u);
  EXPECT_EQ(patternPartBytes(ProfilePattern::Sendrecv, 4, 15), 8u);
  EXPECT_EQ(patternPartBytes(ProfilePattern::Alltoall, 3, 10), 4u);   // ⌈10/3⌉
  EXPECT_EQ(patternBufferBytes(ProfilePattern::Alltoall, 3, 10), 12u);  // 3 parts
  EXPECT_EQ(patternPartBytes(ProfilePattern::Alltoall, 4, 1), 1u);
  EXPECT_EQ(patternPartBytes(ProfilePattern::Barrier, 4, 0), 0u);
}

TEST(CalibrateProfilePoints, PatternNamesAndFunctions) {
  for (ProfilePattern p : profilePatterns()) EXPECT_EQ(profilePatternFromName(profilePatternName(p)), p);
  EXPECT_THROW(profilePatternFromName("gather"), std::invalid_argument);
  EXPECT_EQ(patternFunctions(ProfilePattern::PingPong),
            (std::vector<std::string>{"MPI_Send", "MPI_Recv"}));
  EXPECT_EQ(patternFunctions(ProfilePattern::Alltoall), (std::vector<std::string>{"MPI_Alltoall"}));
}

ParseResult parse(std::vector<std::string> args, CalibrateOptions& o) {
  args.insert(args.begin(), "perwiz-calibrate");
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  return parseOptions(static_cast<int>(argv.size()), argv.data(), o);
}

TEST(CalibrateProfileOptions, ModesFunctionsAndDefaults) {
  CalibrateOptions profile;
  ASSERT_TRUE(parse({"--mode", "profile", "--functions", "pingpong,allreduce", "--max-bytes", "300",
                     "--quantile", "0.9"},
                    profile)
                  .run);
  EXPECT_EQ(profile.functions, (std::vector<std::string>{"pingpong", "allreduce"}));
  EXPECT_EQ(profile.maxBytes, 300u);
  EXPECT_DOUBLE_EQ(profile.quantile, 0.9);
  EXPECT_EQ(profile.repetitions, 50);  // the profile's default

  CalibrateOptions loggpo;
  ASSERT_TRUE(parse({"--mode", "loggpo"}, loggpo).run);
  EXPECT_EQ(loggpo.repetitions, 20);
  CalibrateOptions explicitReps;
  ASSERT_TRUE(parse({"--mode", "profile", "-r", "7"}, explicitReps).run);
  EXPECT_EQ(explicitReps.repetitions, 7);

  CalibrateOptions bad;
  EXPECT_EQ(parse({"--mode", "profile", "--functions", "gather"}, bad).status, kExitBadUsage);
  EXPECT_EQ(parse({"--mode", "profile", "--quantile", "0.5"}, bad).status, kExitBadUsage);
  EXPECT_EQ(parse({"--mode", "profile", "--max-bytes", "0"}, bad).status, kExitBadUsage);
}

// Samples of two functions on the grid p ∈ {2, 4} × b ∈ {1, 10}: durations t_min + e with the
// errors 0, 1, 2, 3 ns repeated 10 times, so t_min = 1000·p + b.
ProfileRun twoByTwoRun() {
  ProfileRun run;
  run.worldSize = 4;
  run.processCounts = {2, 4};
  run.description = "unit test";
  for (const char* f : {"MPI_Send", "MPI_Recv"})
    for (std::uint32_t p : {2u, 4u})
      for (std::uint64_t b : {1u, 10u}) {
        ProfileSample s{f, p, b, {}};
        for (int i = 0; i < 40; ++i) s.durations.push_back(static_cast<TimeNs>(1000 * p + b) + i % 4);
        run.samples.push_back(s);
      }
  for (std::uint32_t p : {2u, 4u})
    for (std::uint64_t b : {1u, 10u}) run.rounds.push_back({"pingpong", p, b, b, 40, 2});
  return run;
}

TEST(CalibrateProfileOutput, BuildsWritesAndReplacesOnlyWithForce) {
  CalibrateOptions o;
  o.mode = "profile";
  o.repetitions = 40;
  const ProfileRun run = twoByTwoRun();
  const OverheadProfile profile = buildProfile(run, o);
  ASSERT_EQ(profile.functions.size(), 2u);
  const ProfileFunction* send = profile.find("MPI_Send");
  ASSERT_NE(send, nullptr);
  EXPECT_EQ(send->processes, (std::vector<std::uint32_t>{2, 4}));
  EXPECT_EQ(send->bytes, (std::vector<std::uint64_t>{1, 10}));
  ASSERT_TRUE(send->points[3].fit);
  EXPECT_EQ(send->points[3].fit->minNs, 4010);  // p = 4, b = 10
  EXPECT_GE(send->points[3].tMaxNs, 4010);
  EXPECT_EQ(profile.description, "unit test");

  const auto dir = test::freshDir("profile_output");
  const auto path = dir / "profile.json";
  writeProfile(profile, path.string(), false);
  std::string error;
  const auto loaded = loadOverheadProfile(path.string(), &error);
  ASSERT_TRUE(loaded) << error;
  EXPECT_EQ(*loaded, profile);

  // Without --force an existing file stays as it is, and the message names it.
  test::writeFile(path, "precious\n");
  try {
    writeProfile(profile, path.string(), false);
    ADD_FAILURE() << "an existing profile was overwritten without --force";
  } catch (const OutputError& e) {
    EXPECT_NE(std::string(e.what()).find(path.string()), std::string::npos) << e.what();
  }
  EXPECT_EQ(test::readFile(path), "precious\n");
  // With --force it is replaced, and no temporary file is left.
  writeProfile(profile, path.string(), true);
  ASSERT_TRUE(loadOverheadProfile(path.string(), &error)) << error;
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir), {}), 1);
}

TEST(CalibrateProfileOutput, AnIncompleteGridIsRefusedNamingThePoint) {
  CalibrateOptions o;
  ProfileRun run = twoByTwoRun();
  run.samples.pop_back();  // MPI_Recv at p = 4, b = 10
  try {
    buildProfile(run, o);
    ADD_FAILURE() << "a profile with a missing point was built";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("MPI_Recv: point p=4, b=10 is missing"), std::string::npos)
        << e.what();
  }
}

TEST(CalibrateProfileOutput, SummaryListsEveryPointWithItsRounds) {
  CalibrateOptions o;
  o.mode = "profile";
  o.repetitions = 40;
  o.output = "p.json";
  const ProfileRun run = twoByTwoRun();
  const nlohmann::json j = nlohmann::json::parse(profileSummaryJson(o, run, buildProfile(run, o)));
  EXPECT_EQ(j["mode"], "profile");
  ASSERT_EQ(j["points"].size(), 8u);  // 2 functions × 2 p × 2 b
  for (const auto& pt : j["points"]) {
    EXPECT_EQ(pt["samples"], 40);
    EXPECT_EQ(pt["rounds_kept"], 40);
    EXPECT_EQ(pt["rounds_late"], 2);
    EXPECT_EQ(pt["t_min_ns"], 1000 * pt["p"].get<int>() + pt["b"].get<int>());
  }
  // The late rounds are reported; every point kept all its rounds, so nothing else is.
  ASSERT_EQ(j["warnings"].size(), 1u);
  EXPECT_NE(j["warnings"][0].get<std::string>().find("8 rounds were discarded"), std::string::npos);
  EXPECT_EQ(j["output"], "p.json");
}

}  // namespace
