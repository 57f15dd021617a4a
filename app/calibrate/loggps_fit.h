// From measured times to LogGPS parameters (docs/calibrate.md, "From times to parameters").
// Plain C++ (no MPI): the arithmetic is unit-tested on synthetic measurements.
#pragma once

#include "stats.h"
#include "threshold.h"
#include "wire_fit.h"

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace perwiz::calibrate {

// One message size, each benchmark's repetitions already summarised (seconds; NaN = not run).
struct SizeTimes {
  std::uint64_t bytes = 0;
  double pingPongHalf = 0;  // round trip / 2: send call to return of the receive, receiver waiting
  double sendReady = 0;     // MPI_Send duration, the matching receive already posted
  double recvLate = 0;      // MPI_Recv duration, the message (eager) or its REQ already arrived
  double streamGap = std::numeric_limits<double>::quiet_NaN();  // per message of a long stream
  double pingPongSpread = 0;  // median absolute deviation of the ping-pong halves (noise)
  double exchange = std::numeric_limits<double>::quiet_NaN();  // both ranks send k bytes at once
};

struct LogGpsMeasurement {
  std::vector<SizeTimes> sizes;  // ascending bytes
  std::uint64_t S = 0;
  ThresholdStatus threshold = ThresholdStatus::Found;
};

// The fitted parameters in nanoseconds (per-byte terms in ns/byte), as perwiz::LogGpsParams.
// The wire part (L, G, duplex, who moves eager data, o_r as recvOverhead, the degenerate
// reasons) is WireFit's (wire_fit.h); o_r(k) is its recvOverhead.
struct LogGpsFit : WireFit {
  double o = 0;
  std::uint64_t S = 0;
  LineFit sendOverhead, syncSend, syncRecv;  // o_s(k), t_ss(k), t_sr(k)
  LineFit wire;  // pingPongHalf − sendReady − recvLate over the eager sizes (the summary's)
  bool smpiCollectives = false;  // "collectives": "smpi" (the MPI's algorithms, not measured)
  std::vector<std::string> warnings;
};

// Fits o_s, t_ss, t_sr on the sizes of their protocol (eager: bytes ≤ S; synchronous: bytes >
// S), G as the slope of the stream's time per message, L and o_r from the ping-pong (see
// docs/calibrate.md, "From times to parameters"); converts seconds to nanoseconds, and clamps
// negative intercepts and slopes of the overhead lines to 0 (the model file allows no negative
// number) with a warning each.
LogGpsFit fitLogGps(const LogGpsMeasurement& m);

}  // namespace perwiz::calibrate
