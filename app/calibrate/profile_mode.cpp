// The profile mode's measurement plan (see profile_mode.h):
//   for p in the base process counts ≤ world size:
//     the first p ranks: for each pattern, for each base size b: aligned rounds, samples to rank 0
//     everyone: a barrier that does not spin, so idle ranks leave the CPU to the measuring ones
//   rank 0: buildOverheadProfile, saveOverheadProfile, summary.
#include "profile_mode.h"

#include "aligned_rounds.h"
#include "global_clock.h"
#include "output_file.h"
#include "pair_bench.h"
#include "profile_output.h"
#include "profile_patterns.h"
#include "profile_points.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <string>

namespace perwiz::calibrate {
namespace {

// A barrier that sleeps between polls: MPI implementations spin in blocking calls, and an idle
// rank spinning on a shared core would slow down the ranks being measured.
void quietBarrier(MPI_Comm comm) {
  MPI_Request request = MPI_REQUEST_NULL;
  MPI_Ibarrier(comm, &request);
  int done = 0;
  while (MPI_Test(&request, &done, MPI_STATUS_IGNORE), !done) sleepSeconds(200e-6);
}

std::vector<ProfilePattern> selectedPatterns(const CalibrateOptions& o) {
  if (o.functions.empty()) return profilePatterns();
  std::vector<ProfilePattern> out;
  for (ProfilePattern p : profilePatterns())  // in the standard order, each once
    if (std::find(o.functions.begin(), o.functions.end(), profilePatternName(p)) != o.functions.end())
      out.push_back(p);
  return out;
}

// Machine, MPI library, date: what a reader of the profile needs to know where it holds.
std::string describeRun(int worldSize, const CalibrateOptions& o) {
  char library[MPI_MAX_LIBRARY_VERSION_STRING] = "";
  int length = 0;
  MPI_Get_library_version(library, &length);
  std::string lib(library, static_cast<std::size_t>(std::max(length, 0)));
  lib = lib.substr(0, lib.find_first_of("\r\n,"));
  char host[MPI_MAX_PROCESSOR_NAME] = "";
  MPI_Get_processor_name(host, &length);
  char date[32] = "";
  const std::time_t now = std::time(nullptr);
  std::strftime(date, sizeof date, "%Y-%m-%d", std::gmtime(&now));
  return "perwiz-calibrate --mode profile on " + std::string(host) + " (rank 0), " + lib + ", " +
         std::to_string(worldSize) + " ranks, " + std::to_string(o.repetitions) +
         " rounds per point, " + date;
}

class ProfilePlan {
 public:
  ProfilePlan(MPI_Comm world, const CalibrateOptions& o) : world_(world), o_(o), clock_(world) {
    MPI_Comm_rank(world_, &rank_);
    MPI_Comm_size(world_, &size_);
    run_.worldSize = size_;
    run_.wtick = MPI_Wtick();
    run_.globalClock = clock_.isGlobal();
    run_.maxOffsetUs = clock_.maxAbsOffset() * 1e6;
    run_.processCounts = profileProcessCounts(static_cast<std::uint32_t>(size_));
    patterns_ = selectedPatterns(o);
  }

  ProfileRun run() {
    std::uint64_t buffer = 0;
    for (ProfilePattern pattern : patterns_)
      for (std::uint32_t p : run_.processCounts)
        for (std::uint64_t b : profileSizes(pattern, o_.maxBytes))
          buffer = std::max(buffer, patternBufferBytes(pattern, p, b));
    for (std::uint32_t p : run_.processCounts) {
      MPI_Comm sub = MPI_COMM_NULL;
      MPI_Comm_split(world_, rank_ < static_cast<int>(p) ? 0 : MPI_UNDEFINED, rank_, &sub);
      if (sub != MPI_COMM_NULL) {
        measureOn(sub, p, buffer);
        MPI_Comm_free(&sub);
      }
      quietBarrier(world_);
    }
    if (rank_ == 0) run_.description = describeRun(size_, o_);
    return run_;
  }

 private:
  void measureOn(MPI_Comm comm, std::uint32_t p, std::uint64_t buffer) {
    AlignedRounds rounds(comm, clock_);
    PatternRunner runner(comm, buffer);
    for (ProfilePattern pattern : patterns_) {
      progress(profilePatternName(pattern) + " on " + std::to_string(p) + " ranks");
      for (std::uint64_t b : profileSizes(pattern, o_.maxBytes)) {
        const std::uint64_t part = patternPartBytes(pattern, p, b);
        std::vector<TimedCall> kept;
        const RoundsResult r = rounds.run(
            o_.warmup, o_.repetitions,
            [&](int i, std::vector<TimedCall>& out) { runner.round(pattern, part, i, out); }, kept);
        collect(comm, pattern, p, b, kept);
        if (rank_ == 0)
          run_.rounds.push_back(PointRounds{profilePatternName(pattern), p, b, part, r.kept, r.late});
      }
    }
  }

  // Gathers every member's kept durations of each of the pattern's functions on rank 0.
  void collect(MPI_Comm comm, ProfilePattern pattern, std::uint32_t p, std::uint64_t b,
               const std::vector<TimedCall>& kept) {
    const std::vector<std::string> functions = patternFunctions(pattern);
    for (std::size_t f = 0; f < functions.size(); ++f) {
      std::vector<double> mine;
      for (const TimedCall& c : kept)
        if (c.function == static_cast<int>(f)) mine.push_back(c.seconds);
      int n = static_cast<int>(mine.size());
      std::vector<int> counts(rank_ == 0 ? p : 0), displs(rank_ == 0 ? p : 0);
      MPI_Gather(&n, 1, MPI_INT, counts.data(), 1, MPI_INT, 0, comm);
      int total = 0;
      for (std::size_t i = 0; i < counts.size(); ++i) {
        displs[i] = total;
        total += counts[i];
      }
      std::vector<double> all(static_cast<std::size_t>(total));
      MPI_Gatherv(mine.data(), n, MPI_DOUBLE, all.data(), counts.data(), displs.data(), MPI_DOUBLE,
                  0, comm);
      if (rank_ != 0) continue;
      ProfileSample sample{functions[f], p, b, {}};
      for (double s : all) sample.durations.push_back(static_cast<TimeNs>(std::llround(s * 1e9)));
      run_.samples.push_back(std::move(sample));
    }
  }

  void progress(const std::string& what) const {
    if (o_.verbose && rank_ == 0) std::fprintf(stderr, "perwiz-calibrate: profile: %s\n", what.c_str());
  }

  MPI_Comm world_;
  const CalibrateOptions& o_;
  GlobalClock clock_;
  int rank_ = 0, size_ = 0;
  std::vector<ProfilePattern> patterns_;
  ProfileRun run_;
};

}  // namespace

int runProfileMode(MPI_Comm world, const CalibrateOptions& o) {
  const ProfileRun run = ProfilePlan(world, o).run();
  int rank = 0;
  MPI_Comm_rank(world, &rank);
  if (rank != 0) return kExitOk;

  // A point without a single on-time round has no sample; say why rather than letting the
  // profile builder report an empty sample.
  for (const PointRounds& r : run.rounds)
    if (r.kept == 0) {
      std::fprintf(stderr,
                   "perwiz-calibrate: %s p=%u b=%llu: no round started on time on every rank "
                   "(%d late): the machine is too busy for aligned rounds; retry, or use fewer "
                   "ranks\n",
                   r.pattern.c_str(), r.processes, static_cast<unsigned long long>(r.bytes), r.late);
      return kExitFailure;
    }
  const OverheadProfile profile = buildProfile(run, o);
  int status = kExitOk;
  if (!o.output.empty()) {
    try {
      writeProfile(profile, o.output, o.force);
    } catch (const OutputError& e) {
      std::fprintf(stderr, "perwiz-calibrate: %s\n", e.what());
      status = kExitFailure;
    }
  }
  CalibrateOptions shown = o;
  if (status != kExitOk) shown.output.clear();  // nothing was written
  const std::string summary = o.json ? profileSummaryJson(shown, run, profile) + "\n"
                                     : profileSummaryText(shown, run, profile);
  std::fputs(summary.c_str(), stdout);
  std::fflush(stdout);
  return status;
}

}  // namespace perwiz::calibrate
