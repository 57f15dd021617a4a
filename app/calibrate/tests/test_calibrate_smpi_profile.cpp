// perwiz-calibrate-smpi --mode profile on a simulated platform whose network is known exactly:
// the minimum of every sample (t_min of each base point) must be what SimGrid's SMPI model
// implies, derived below by hand, for the point-to-point calls (MPI_Send, MPI_Recv, MPI_Sendrecv)
// at every p and b, and for MPI_Allreduce with its algorithm pinned. The profile it writes loads
// and drives `perwiz-cli overhead --profile`.
//
// How SMPI 3.32 prices messages (src/smpi/mpi/smpi_request.cpp, as in test_calibrate_smpi.cpp):
//   * a send of k < smpi/send-is-detached-thresh bytes is eager ("detached"); MPI_Send sleeps
//     smpi/os(k) and returns, MPI_Isend (and the isend inside MPI_Sendrecv) sleeps smpi/ois(k);
//     a larger blocking send sleeps nothing and lasts until its transfer is over;
//   * the receive of an eager message sleeps smpi/or(k) once the data is in; a rendezvous one
//     ends with the transfer;
//   * a transfer of k bytes carries k + 16 (the envelope): route latency, then (k + 16) bytes at
//     the bandwidth; flows that share a link share its bandwidth equally (max-min fairness).
// The platform gives every host a private link split into an up and a down direction
// (SPLITDUPLEX), so a message from host i to host j crosses i's up-link and j's down-link, and
// flows in opposite directions never share. perwiz-calibrate starts every round at the same
// instant on all ranks (aligned_rounds.h), so every formula below starts all ranks at time 0.
#include "calibrate_test_support.h"

#include "perwiz/overhead_profile.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <string>

using namespace perwiz;
using namespace perwiz::calibrate::test;

namespace {

// ---- the configuration ------------------------------------------------------------------------
constexpr double kLinkLatencyNs = 5000;  // lat="5us" per link
constexpr double kBytesPerNs = 1.0;      // bw="1GBps"
constexpr std::uint64_t kEagerLimit = 20000;  // send-is-detached-thresh = async-small-thresh
constexpr double kEnvelopeBytes = 16;
constexpr std::uint64_t kMaxBytes = 30000;    // --max-bytes: base sizes 1 … 30000, both protocols

const char* kPlatform = R"(<?xml version='1.0'?>
<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">
<platform version="4.1">
  <cluster id="calib" prefix="node-" suffix="" radical="0-3" speed="1Gf" bw="1GBps" lat="5us"
           sharing_policy="SPLITDUPLEX"/>
</platform>
)";

// Overheads (ns): smpi/os:0:3e-6:2e-10, smpi/ois:0:4e-6:3e-10, smpi/or:0:5e-6:1e-10.
double os(double k) { return 3000 + 0.2 * k; }
double ois(double k) { return 4000 + 0.3 * k; }
double orecv(double k) { return 5000 + 0.1 * k; }
bool eager(double k) { return k < static_cast<double>(kEagerLimit); }

std::vector<std::string> smpiConfig() {
  return {"smpi/simulate-computation:no", "smpi/wtime:0", "smpi/bw-factor:0:1",
          "smpi/lat-factor:0:1", "network/crosstraffic:0", "smpi/os:0:3e-6:2e-10",
          "smpi/ois:0:4e-6:3e-10", "smpi/or:0:5e-6:1e-10",
          "smpi/send-is-detached-thresh:" + std::to_string(kEagerLimit),
          "smpi/async-small-thresh:" + std::to_string(kEagerLimit),
          // Collective algorithms pinned (the default selector may change between versions);
          // MPI_Allreduce's is the one derived below.
          "smpi/allreduce:rdb", "smpi/bcast:binomial_tree", "smpi/reduce:binomial",
          "smpi/barrier:ompi_recursivedoubling", "smpi/alltoall:basic_linear"};
}

std::string command(const std::filesystem::path& dir, int ranks, const std::string& args) {
  return smpirunCommand(PERWIZ_SMPIRUN, dir, kPlatform, "node-0\nnode-1\nnode-2\nnode-3\n", ranks,
                        PERWIZ_CALIBRATE_SMPI, smpiConfig(), "--mode profile " + args);
}

// ---- what the model implies, by hand (ns) ---------------------------------------------------
// One message of k bytes on an idle route: latency of two links, then k + 16 bytes.
//   T(k) = 2·5 µs + (k + 16) / (1 B/ns)
double wire(double k) { return 2 * kLinkLatencyNs + (k + kEnvelopeBytes) / kBytesPerNs; }

// Ping-pong round: the sender's MPI_Send and the receiver's MPI_Recv start together.
//   MPI_Send  eager: os(k)                       rendezvous: T(k) (waits for the transfer)
//   MPI_Recv  eager: os(k) + T(k) + or(k)        rendezvous: T(k)
double sendMin(double b) { return eager(b) ? os(b) : wire(b); }
double recvMin(double b) { return eager(b) ? os(b) + wire(b) + orecv(b) : wire(b); }

// MPI_Sendrecv in a ring, k = ⌈b/2⌉ bytes each way (profile_points.h). SMPI posts the isend
// (sleeping ois(k)) and then the receive; the neighbour's message left at the same moment:
//   eager: ois(k) + T(k) + or(k)        rendezvous: ois(k) + T(k)
// Every host sends on its up-link and receives on its down-link: the same for every p.
double sendrecvMin(double b) {
  const double k = std::ceil(b / 2);
  return ois(k) + wire(k) + (eager(k) ? orecv(k) : 0);
}

// MPI_Allreduce, smpi/allreduce:rdb (src/smpi/colls/allreduce/allreduce-rdb.cpp): recursive
// doubling with MPI-level sendrecv exchanges; for p not a power of two, the even ranks below
// 2·(p − 2^⌊log p⌋) first send to the next rank and get the result back at the end.
double exchange(double b) { return ois(b) + wire(b) + (eager(b) ? orecv(b) : 0); }
double allreduceMin(std::uint32_t p, double b) {
  // p = 2: one exchange; p = 4: two, on disjoint links, all ranks alike.
  if (p == 2) return exchange(b);
  if (p == 4) return 2 * exchange(b);
  // p = 3: rank 0 sends to rank 1 (MPI_Send), ranks 1 and 2 exchange, rank 1 sends the result
  // to rank 0. The fastest rank is rank 2 for rendezvous sizes: rank 1 receives rank 0's data
  // after T(b); the exchange's isends sleep ois(b) and their transfers start when both are
  // posted, so rank 2 ends at T + ois + T.
  if (!eager(b)) return 2 * wire(b) + ois(b);
  // Eager sizes: rank 0's message A (leaving at os(b)) and rank 2's B (leaving at ois(b),
  // before rank 1 asked for it: it is eager) both enter rank 1's down-link. After the latency
  // each needs s = b + 16 ns of the link; while both flow they get half of it each.
  const double s = (b + kEnvelopeBytes) / kBytesPerNs, d = ois(b) - os(b), lat = 2 * kLinkLatencyNs;
  double aEnd = os(b) + lat + s, bEnd = ois(b) + lat + s;  // no overlap if s ≤ d
  if (s > d) {
    // A alone for d, both at half speed until A is done (2·(s − d)), then B alone for the
    // d bytes it still lacks.
    aEnd = ois(b) + lat + 2 * (s - d);
    bEnd = aEnd + d;
  }
  // Rank 1 (the fastest for eager sizes): A in, or(b); then the exchange — its isend sleeps
  // ois(b), B is in already or arrives, or(b); then its eager send of the result, os(b).
  const double received = aEnd + orecv(b);
  const double exchanged = std::max(received + ois(b), bEnd) + orecv(b);
  return exchanged + os(b);
}

// smpirun's surf/precision is 1 ns, and the profile stores whole ns.
constexpr double kTolNs = 1.0;

const std::vector<std::string> kFunctions{"MPI_Allreduce", "MPI_Alltoall", "MPI_Barrier",
                                          "MPI_Bcast",     "MPI_Recv",     "MPI_Reduce",
                                          "MPI_Send",      "MPI_Sendrecv"};

TEST(CalibrateSmpiProfile, MinimaAreWhatThePlatformImplies) {
  const auto dir = freshDir("smpi_profile");
  const auto file = dir / "profile.json";
  const CommandResult r = runCommand(
      command(dir, 4, "--max-bytes " + std::to_string(kMaxBytes) + " -r 3 --warmup 1 --json -o '" +
                          file.string() + "'"),
      dir);
  ASSERT_EQ(r.status, 0) << r.command << "\n" << r.err;
  std::string error;
  const auto profile = loadOverheadProfile(file.string(), &error);
  ASSERT_TRUE(profile) << error;

  std::vector<std::string> names;
  for (const ProfileFunction& f : profile->functions) names.push_back(f.name);
  EXPECT_EQ(names, kFunctions);
  const std::vector<std::uint64_t> sizes = profileBaseMessageSizes(kMaxBytes);
  for (const ProfileFunction& f : profile->functions) {
    // p: the base points 2, 3 (= 1.5·2) and 4 of a 4-rank world; b: the base sizes (Barrier: 0).
    EXPECT_EQ(f.processes, (std::vector<std::uint32_t>{2, 3, 4})) << f.name;
    EXPECT_EQ(f.bytes, f.name == "MPI_Barrier" ? std::vector<std::uint64_t>{0} : sizes) << f.name;
  }

  int checked = 0;
  for (const ProfileFunction& f : profile->functions)
    for (const ProfilePoint& pt : f.points) {
      ASSERT_TRUE(pt.fit) << f.name;
      const double b = static_cast<double>(pt.bytes), tMin = static_cast<double>(pt.fit->minNs);
      const std::string where = f.name + " p=" + std::to_string(pt.processes) + " b=" + std::to_string(pt.bytes);
      // Every rank of a pair sends 3 times and receives 3 times per point with -r 3 (odd p: one
      // rank sits out); collectives: 3 calls per member.
      const std::uint64_t pairs = pt.processes / 2;
      if (f.name == "MPI_Send" || f.name == "MPI_Recv") EXPECT_EQ(pt.fit->samples, 3 * pairs) << where;
      else EXPECT_EQ(pt.fit->samples, 3u * pt.processes) << where;
      if (f.name == "MPI_Send") EXPECT_NEAR(tMin, sendMin(b), kTolNs) << where;
      else if (f.name == "MPI_Recv") EXPECT_NEAR(tMin, recvMin(b), kTolNs) << where;
      else if (f.name == "MPI_Sendrecv") EXPECT_NEAR(tMin, sendrecvMin(b), kTolNs) << where;
      else if (f.name == "MPI_Allreduce") EXPECT_NEAR(tMin, allreduceMin(pt.processes, b), kTolNs) << where;
      else continue;
      ++checked;
      EXPECT_GE(pt.tMaxNs, pt.fit->minNs) << where;
    }
  EXPECT_EQ(checked, 4 * 3 * static_cast<int>(sizes.size()));

  // Deterministic simulation: no round can start late.
  const nlohmann::json summary = nlohmann::json::parse(r.out);
  EXPECT_TRUE(summary["warnings"].empty()) << summary["warnings"].dump();
  EXPECT_EQ(summary["clock"]["global"], true);  // SMPI's MPI_Wtime is MPI_WTIME_IS_GLOBAL
}

TEST(CalibrateSmpiProfile, TheProfileDrivesPerwizCliOverhead) {
  const auto dir = freshDir("smpi_profile_cli");
  const auto file = dir / "profile.json";
  CommandResult r = runCommand(
      command(dir, 4, "--max-bytes 10000 -r 3 --warmup 1 --functions pingpong,allreduce -o '" +
                          file.string() + "'"),
      dir);
  ASSERT_EQ(r.status, 0) << r.command << "\n" << r.err;
  std::string error;
  const auto profile = loadOverheadProfile(file.string(), &error);
  ASSERT_TRUE(profile) << error;

  r = runCommand(std::string(PERWIZ_CLI) + " overhead '" + PERWIZ_SAMPLE_TRACE + "' --profile '" +
                     file.string() + "' --json",
                 dir);
  ASSERT_EQ(r.status, 0) << r.command << "\n" << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["profile"]["file"], file.string());
  EXPECT_EQ(j["profile"]["description"], profile->description);
  // ring4 has MPI_Send, MPI_Recv and MPI_Allreduce on 4 ranks: every class takes its t_max from
  // the profile, at the value the profile gives for its (p, b).
  int fromProfile = 0;
  for (const auto& c : j["classes"]) {
    const ProfileFunction* f = profile->find(c["function"].get<std::string>());
    ASSERT_NE(f, nullptr) << c.dump();
    EXPECT_EQ(c["source"], "profile") << c.dump();
    const ProfileValue v = evaluateProfile(*f, c["p"].get<double>(), c["b"].get<double>());
    EXPECT_EQ(c["t_max_ns"].get<TimeNs>(), v.tMaxNs) << c.dump();
    ++fromProfile;
  }
  EXPECT_EQ(fromProfile, 3);
}

TEST(CalibrateSmpiProfile, RefusesOneRank) {
  const auto dir = freshDir("smpi_profile_one_rank");
  const CommandResult r = runCommand(command(dir, 1, "-o '" + (dir / "p.json").string() + "'"), dir);
  EXPECT_EQ(r.status, 2) << r.command;
  EXPECT_NE(r.err.find("needs 2 MPI ranks"), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(dir / "p.json"));
}

TEST(CalibrateSmpiProfile, RefusesAnExistingOutputUnlessForced) {
  const auto dir = freshDir("smpi_profile_existing");
  const auto file = dir / "taken.json";
  writeFile(file, "precious\n");
  const std::string args = "--max-bytes 10 -r 2 --functions barrier ";
  CommandResult r = runCommand(command(dir, 2, args + "-o '" + file.string() + "'"), dir);
  EXPECT_EQ(r.status, 2) << r.command;
  EXPECT_NE(r.err.find(file.string() + ": file exists; use --force"), std::string::npos) << r.err;
  EXPECT_EQ(readFile(file), "precious\n");

  r = runCommand(command(dir, 2, args + "--force -o '" + file.string() + "'"), dir);
  ASSERT_EQ(r.status, 0) << r.command << "\n" << r.err;
  std::string error;
  const auto profile = loadOverheadProfile(file.string(), &error);
  ASSERT_TRUE(profile) << error;
  ASSERT_EQ(profile->functions.size(), 1u);
  EXPECT_EQ(profile->functions[0].name, "MPI_Barrier");
}

}  // namespace
