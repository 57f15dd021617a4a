// Threshold search (see threshold_search.h). The protocol switch is monotone in the size, so a
// scan for the first synchronous size and a bisection below it find S with few probes.
#include "threshold_search.h"

namespace perwiz::calibrate {
namespace {

constexpr int kVotes = 3;  // trials per threshold probe (majority)

}  // namespace

ThresholdResult findSynchronousThreshold(PairBench& bench, const std::vector<std::uint64_t>& list,
                                         const std::function<double(std::uint64_t)>& delaySeconds,
                                         const std::function<void(const std::string&)>& progress) {
  if (progress) progress("searching the synchronous threshold S");
  auto synchronous = [&](std::uint64_t k) { return bench.sendIsSynchronous(k, delaySeconds(k), kVotes); };
  ThresholdResult r;
  std::size_t first = list.size();
  for (std::size_t i = 0; i < list.size(); ++i)
    if (synchronous(list[i])) {
      first = i;
      break;
    }
  if (first == list.size()) {
    r.status = ThresholdStatus::NoneSynchronous;
    r.S = list.back();
    return r;
  }
  if (first == 0) {
    r.status = ThresholdStatus::AllSynchronous;
    r.S = list[0] > 0 ? list[0] - 1 : 0;
    return r;
  }
  // Bisection: lo is eager, hi synchronous.
  std::uint64_t lo = list[first - 1], hi = list[first];
  while (hi - lo > 1) {
    const std::uint64_t mid = lo + (hi - lo) / 2;
    (synchronous(mid) ? hi : lo) = mid;
  }
  r.status = ThresholdStatus::Found;
  r.S = lo;
  return r;
}

}  // namespace perwiz::calibrate
