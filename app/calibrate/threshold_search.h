// The search for the synchronous threshold S between the two ranks of a PairBench, shared by the
// LogGPS and LogGPO modes (docs/calibrate.md, "The threshold S"). Compiled by each MPI wrapper.
#pragma once

#include "pair_bench.h"
#include "threshold.h"

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace perwiz::calibrate {

struct ThresholdResult {
  std::uint64_t S = 0;  // the largest eager size (see ThresholdStatus for the edge cases)
  ThresholdStatus status = ThresholdStatus::Found;
};

// Collective over the pair. Probes the sizes of `list` (ascending) in order for the first
// synchronous one, then bisects between it and the last eager one down to the byte.
// `delaySeconds(k)` is how long the receiver stays away in the probe of k bytes; `progress`
// (may be empty) is told what is going on.
ThresholdResult findSynchronousThreshold(PairBench& bench, const std::vector<std::uint64_t>& list,
                                         const std::function<double(std::uint64_t)>& delaySeconds,
                                         const std::function<void(const std::string&)>& progress);

}  // namespace perwiz::calibrate
