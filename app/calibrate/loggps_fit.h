// From measured times to LogGPS parameters (docs/calibrate.md, "From times to parameters").
// Plain C++ (no MPI): the arithmetic is unit-tested on synthetic measurements.
#pragma once

#include "stats.h"
#include "threshold.h"

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
struct LogGpsFit {
  double L = 0, G = 0, o = 0;
  std::uint64_t S = 0;
  LineFit sendOverhead, recvOverhead, syncSend, syncRecv;  // o_s(k), o_r(k), t_ss(k), t_sr(k)
  LineFit wire;  // pingPongHalf − sendReady − recvLate over the eager sizes (the summary's)
  LineFit gap;   // the stream's time per message over the sizes G is taken from: slope = G
  // Eager data moves only once its receive is posted (SMPI's default; docs/calibrate.md): the
  // receive of a message that "has arrived" then lasts the whole transfer, and the model file
  // says "eager_transfer": "at-receive".
  bool receiverDriven = false;
  // The two directions of a host share its link ("duplex": "half"): an exchange's bytes take
  // about twice a one-way transfer's (its per-byte slope over G, `duplexRatio`, above 1.5).
  LineFit exchangeLine;
  double duplexRatio = 0;
  bool halfDuplex = false;
  bool smpiCollectives = false;  // "collectives": "smpi" (the MPI's algorithms, not measured)
  double wireShare = 0;  // median over eager sizes of (P − T_s − T_r) / (P − T_s)
  std::vector<double> latencyPoints;  // the per-size estimates L is the median of
  std::vector<std::string> warnings;
  // Why the parameters do not describe the machine (L or G not positive, fits that miss the
  // measurements by more than 10 %): perwiz-calibrate then exits 1 without writing the file
  // unless --allow-degenerate is given.
  std::vector<std::string> degenerate;
};

// Fits o_s, t_ss, t_sr on the sizes of their protocol (eager: bytes ≤ S; synchronous: bytes >
// S), G as the slope of the stream's time per message, L and o_r from the ping-pong (see
// docs/calibrate.md, "From times to parameters"); converts seconds to nanoseconds, and clamps
// negative intercepts and slopes of the overhead lines to 0 (the model file allows no negative
// number) with a warning each.
LogGpsFit fitLogGps(const LogGpsMeasurement& m);

}  // namespace perwiz::calibrate
