// Formatting shared by the summaries of the pair modes (summary.cpp, loggpo_summary.cpp):
// times in µs, fitted lines, the eager/rendezvous split and the threshold's status.
#pragma once

#include "stats.h"
#include "threshold.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>

namespace perwiz::calibrate {

// Seconds as µs, 6 significant digits; null when not finite.
nlohmann::ordered_json usOrNull(double seconds);
// A fitted line (ns, ns/byte) as µs: a_us, b_us_per_byte, points, max_residual_us.
nlohmann::ordered_json lineJson(const LineFit& fit);
// "a + b·k µs  (n sizes, max residual r µs)".
std::string lineText(const LineFit& fit);
// v with `decimals` digits after the point.
std::string fixed(double v, int decimals);
// A gap per byte G (ns/byte) for people: "4.252 ns/byte (235.2 MB/s)", the bandwidth in MB/s
// or GB/s; "0 ns/byte (no per-byte cost)" for 0.
std::string gapText(double nsPerByte);
// A message of `bytes` went eagerly in a run whose threshold search ended with `status` and S.
bool isEagerSize(ThresholdStatus status, std::uint64_t S, std::uint64_t bytes);
const char* thresholdName(ThresholdStatus status);  // "found", "none-synchronous", ...

}  // namespace perwiz::calibrate
