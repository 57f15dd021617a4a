#include "summary_format.h"

#include "model_json.h"

#include <cmath>
#include <cstdio>

namespace perwiz::calibrate {

nlohmann::ordered_json usOrNull(double seconds) {
  if (!std::isfinite(seconds)) return nullptr;
  return roundSignificant(seconds * 1e6);
}

nlohmann::ordered_json lineJson(const LineFit& f) {
  return {{"a_us", roundSignificant(f.a / 1000)},
          {"b_us_per_byte", roundSignificant(f.b / 1000)},
          {"points", f.points},
          {"max_residual_us", roundSignificant(f.maxResidual / 1000)}};
}

std::string fixed(double v, int decimals) {
  char text[64];
  std::snprintf(text, sizeof text, "%.*f", decimals, v);
  return text;
}

std::string lineText(const LineFit& f) {
  return fixed(f.a / 1000, 3) + " + " + fixed(f.b / 1000, 6) + "·k µs  (" +
         std::to_string(f.points) + " sizes, max residual " + fixed(f.maxResidual / 1000, 3) + " µs)";
}

std::string gapText(double nsPerByte) {
  if (!(nsPerByte > 0)) return "0 ns/byte (no per-byte cost)";
  const double bytesPerSecond = 1e9 / nsPerByte;
  char text[96];
  const bool giga = bytesPerSecond >= 1e9;
  std::snprintf(text, sizeof text, "%.4g ns/byte (%.1f %s)", nsPerByte, giga ? bytesPerSecond / 1e9 : bytesPerSecond / 1e6,
                giga ? "GB/s" : "MB/s");
  return text;
}

bool isEagerSize(ThresholdStatus status, std::uint64_t S, std::uint64_t bytes) {
  return status != ThresholdStatus::AllSynchronous && bytes <= S;
}

const char* thresholdName(ThresholdStatus t) {
  switch (t) {
    case ThresholdStatus::Found: return "found";
    case ThresholdStatus::NoneSynchronous: return "none-synchronous";
    case ThresholdStatus::AllSynchronous: return "all-synchronous";
  }
  return "found";
}

}  // namespace perwiz::calibrate
