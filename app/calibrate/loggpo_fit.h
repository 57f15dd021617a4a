// From measured times to LogGPO parameters (Chen et al. 2009; docs/calibrate.md, "LogGPO").
// Plain C++ (no MPI): the arithmetic is unit-tested on synthetic measurements.
//
// Each parameter is the duration of the call that the paper's §2.2 equates with it, measured
// with the partner in time:
//   O_i(k)  eager k ≤ S:  O_s = O_i + O_sw, O_sw = 0   → MPI_Isend + MPI_Wait, receive posted
//   O_c(k)  eager:        O_r = O_c                    → MPI_Irecv + MPI_Wait, message arrived
//   L, G    eager:        T_c = O_i + G(k−1) + L + O_c → ping-pong half − O_i(k) − O_c(k)
//   O'      rendezvous:   the MPI_Isend itself sends the REQ, O_s = O' + O_sw → MPI_Isend alone
//   O_i(k) of k > S:      O_s = 3O' + 2L + O_i(k) + G(k−1) → MPI_Isend + MPI_Wait, receive posted
//   S       the largest size whose blocking send does not wait for a late receiver
//   progress  DCP if a Wait after time away from MPI still carries the transfer, ICP if not.
#pragma once

#include "stats.h"
#include "threshold.h"
#include "wire_fit.h"

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace perwiz::calibrate {

// One message size, each pattern's repetitions summarised (seconds; NaN = not run).
struct LogGpoSizeTimes {
  std::uint64_t bytes = 0;
  double pingPongHalf = 0;  // non-blocking ping-pong, round trip / 2
  double isendPost = 0;     // MPI_Isend alone, receive posted
  double isendTotal = 0;    // MPI_Isend + MPI_Wait, receive posted
  double recvTotal = 0;     // MPI_Irecv + MPI_Wait of an arrived message
  double streamGap = std::numeric_limits<double>::quiet_NaN();  // per message of a long stream
  double exchange = std::numeric_limits<double>::quiet_NaN();   // both ranks send k at once
  double pingPongSpread = 0;  // median absolute deviation of the ping-pong halves
};

// The progress probe on one rendezvous size (docs/calibrate.md, "Progress strategy"): the Wait
// of each side right after posting ("alone") and after `awaySeconds` away from MPI.
struct ProgressProbe {
  bool measured = false;  // false when no size above S was measured
  std::uint64_t bytes = 0;
  double awaySeconds = 0;
  double senderAlone = 0, senderAfterAway = 0;
  double receiverAlone = 0, receiverAfterAway = 0;
};

struct LogGpoMeasurement {
  std::vector<LogGpoSizeTimes> sizes;  // ascending bytes
  std::uint64_t S = 0;
  ThresholdStatus threshold = ThresholdStatus::Found;
  ProgressProbe progress;
};

// A side overlaps when its Wait after the time away is shorter than half its Wait alone: the
// transfer advanced while the rank was not in MPI.
bool sideOverlaps(double waitAlone, double waitAfterAway);

// The fitted parameters in nanoseconds (per-byte terms in ns/byte), as perwiz::LogGpoParams.
// The wire part (L, G, who moves eager data, the degenerate reasons) is WireFit's
// (wire_fit.h); O_c(k) is its recvOverhead.
struct LogGpoFit : WireFit {
  double Octrl = 0;  // O'
  std::uint64_t S = 0;
  LineFit Oi, Oc;  // O_i(k), O_c(k)
  // O_i(k) of the rendezvous sizes: what their Isend + Wait (receiver ready, the model's
  // 3O' + 2L + O_i(k) + G(k − 1)) leaves after the handshake and the bytes.
  LineFit OiRendezvous;
  bool smpiCollectives = false;  // "collectives": "smpi" (the MPI's algorithms, not measured)
  LineFit wire;    // pingPongHalf − isendTotal − recvTotal over the eager sizes (the summary's)
  std::size_t rendezvousSizes = 0;  // sizes above S whose MPI_Isend gave O'
  bool independentProgress = false;
  bool senderOverlaps = false, receiverOverlaps = false;
  std::vector<std::string> warnings;
};

// Fits O_i, O_c and the wire line on the eager sizes, takes O' as the median MPI_Isend time of
// the rendezvous sizes, and decides the progress strategy: independent only if both sides
// overlap (dependent progress stalls at least one side's part of the handshake). Negative
// values are clamped to 0 with a warning (the model file allows none).
LogGpoFit fitLogGpo(const LogGpoMeasurement& m);

// The LogGPO model file of docs/model.md §4 (what `perwiz-cli predict --model FILE` loads):
// "model": "LogGPO", name, L_us, G_us_per_byte, O_ctrl_us, O_i_us, O_c_us, S_bytes, P,
// progress, transfer (always "RAT", the only mechanism modelled). µs, 6 significant digits.
std::string loggpoModelJson(const LogGpoFit& fit, const std::string& name);

}  // namespace perwiz::calibrate
