// From measured times to LogGPS parameters (docs/calibrate.md, "From times to parameters").
// Plain C++ (no MPI): the arithmetic is unit-tested on synthetic measurements.
#pragma once

#include "stats.h"
#include "threshold.h"

#include <cstdint>
#include <string>
#include <vector>

namespace perwiz::calibrate {

// One message size, each benchmark's repetitions already summarised (seconds; NaN = not run).
struct SizeTimes {
  std::uint64_t bytes = 0;
  double pingPongHalf = 0;  // round trip / 2: send call to return of the receive, receiver waiting
  double sendReady = 0;     // MPI_Send duration, the matching receive already posted
  double recvLate = 0;      // MPI_Recv duration, the message (eager) or its REQ already arrived
};

struct LogGpsMeasurement {
  std::vector<SizeTimes> sizes;  // ascending bytes
  std::uint64_t S = 0;
  ThresholdStatus threshold = ThresholdStatus::Found;
};

// The fitted parameters in nanoseconds (per-byte terms in ns/byte), as perwiz::LogGpsParams.
struct LogGpsFit {
  double L = 0, G = 0, o = 0;
  std::uint64_t S = 0;
  LineFit sendOverhead, recvOverhead, syncSend, syncRecv;  // o_s(k), o_r(k), t_ss(k), t_sr(k)
  LineFit wire;  // L + G·(k − 1) = pingPongHalf − sendReady − recvLate, before the L shift
  std::vector<std::string> warnings;
};

// Fits every line on the sizes of its protocol (eager: bytes ≤ S; synchronous: bytes > S),
// converts seconds to nanoseconds, and clamps negative intercepts and slopes to 0 (the model
// file allows no negative number) with a warning each.
LogGpsFit fitLogGps(const LogGpsMeasurement& m);

}  // namespace perwiz::calibrate
