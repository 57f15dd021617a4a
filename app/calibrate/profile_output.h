// From the samples of the profile mode to the profile file and the summary: a thin layer over
// perwiz::buildOverheadProfile / saveOverheadProfile (docs/overhead.md). Plain C++ (no MPI).
#pragma once

#include "options.h"

#include "perwiz/overhead_profile.h"

#include <cstdint>
#include <string>
#include <vector>

namespace perwiz::calibrate {

// How the rounds of one pattern at one base point went (see aligned_rounds.h).
struct PointRounds {
  std::string pattern;          // profilePatternName
  std::uint32_t processes = 0;  // p
  std::uint64_t bytes = 0;      // b (the base point)
  std::uint64_t partBytes = 0;  // bytes of one message (profile_points.h)
  int kept = 0;                 // rounds that started on time on every rank
  int late = 0;                 // rounds discarded because a rank started late
};

// Everything rank 0 knows after measuring.
struct ProfileRun {
  int worldSize = 0;
  std::vector<std::uint32_t> processCounts;
  bool globalClock = false;  // MPI_WTIME_IS_GLOBAL: no clock offsets needed
  double maxOffsetUs = 0;    // largest |offset| of a rank's clock to rank 0's
  double wtick = 0;          // MPI_Wtick(), seconds
  std::string description;   // the profile's "description"
  std::vector<ProfileSample> samples;
  std::vector<PointRounds> rounds;
};

// The fit options of the run: q_max = --quantile, the smallest window --timer-resolution-ns.
FitOptions profileFitOptions(const CalibrateOptions& options);

// buildOverheadProfile over the samples (throws std::invalid_argument naming a bad point).
OverheadProfile buildProfile(const ProfileRun& run, const CalibrateOptions& options);

// Writes the profile with saveOverheadProfile, which never replaces a file; with `force` it
// saves next to `path` and renames the result over it (atomically). Throws OutputError naming
// the file.
void writeProfile(const OverheadProfile& profile, const std::string& path, bool force);

std::string profileSummaryJson(const CalibrateOptions& options, const ProfileRun& run,
                               const OverheadProfile& profile);
std::string profileSummaryText(const CalibrateOptions& options, const ProfileRun& run,
                               const OverheadProfile& profile);

}  // namespace perwiz::calibrate
