// L, G and who moves eager data, from the pair patterns (docs/calibrate.md, "From times to
// parameters"). Shared by the LogGPS and LogGPO fits: the two models mean the same L and G
// (T = send overhead + L + G·(k − 1) + receive overhead for an eager message). Plain C++.
#pragma once

#include "stats.h"

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace perwiz::calibrate {

// One message size of a pair measurement (seconds; NaN = not measured).
struct WireSample {
  std::uint64_t bytes = 0;
  bool eager = true;          // k ≤ S
  double pingPongHalf = 0;    // round trip / 2, the receiver waiting
  double send = 0;            // the sender's call(s) with the receive posted (its overhead)
  double recv = 0;            // the receiving call(s) of a message that has arrived
  double streamGap = std::numeric_limits<double>::quiet_NaN();  // per message of a long stream
  double exchange = std::numeric_limits<double>::quiet_NaN();   // both ranks send k at once
  double pingPongSpread = 0;  // median absolute deviation of the ping-pong halves
};

// In ns and ns/byte.
struct WireFit {
  double L = 0, G = 0;
  // LogGP's gap g: the stream's time per message at its smallest size less that size's G·k
  // (what the link takes per message beyond the bytes: SMPI's 16-byte header); 0 when no
  // stream was timed or the difference is not positive.
  double g = 0;
  LineFit gap;           // the stream's time per message over the sizes G is taken from
  LineFit exchangeLine;  // an exchange's time over the same sizes
  double duplexRatio = 0;  // exchangeLine's slope over G
  bool halfDuplex = false;   // duplexRatio > 1.5
  // Full duplex: duplexRatio − 1 in [0, 1], what the opposite direction carries of an
  // exchange's bytes at the same time (SimGrid's acknowledgements: 0.05); 0 when half duplex.
  double crossTraffic = 0;
  double wireShare = 1;      // median over eager sizes of (P − send − recv) / (P − send)
  bool receiverDriven = false;  // wireShare < 0.1: the receive moves eager data
  std::vector<double> latencyPoints;  // the small sizes' estimates of L (their median is L)
  // The receive's overhead: T_r (sender-driven), or what T_r takes beyond L + G·(k − 1),
  // through the origin on relative errors (receiver-driven).
  LineFit recvOverhead;
  std::vector<std::string> degenerate;  // why L or G does not describe the machine
};

WireFit fitWire(const std::vector<WireSample>& sizes);

// "20.244 µs", "4.252 ns".
std::string nsText(double ns);

}  // namespace perwiz::calibrate
