// LogGPS parameters from per-size times (see loggps_fit.h and docs/calibrate.md).
#include "loggps_fit.h"

#include "line_checks.h"

#include <algorithm>
#include <cmath>
#include <utility>

namespace perwiz::calibrate {

LogGpsFit fitLogGps(const LogGpsMeasurement& m) {
  LogGpsFit f;
  f.S = m.S;
  const bool allSync = m.threshold == ThresholdStatus::AllSynchronous;
  auto eager = [&](std::uint64_t k) { return !allSync && k <= m.S; };
  auto sync = [&](std::uint64_t k) { return allSync || k > m.S; };

  if (m.threshold == ThresholdStatus::NoneSynchronous)
    f.warnings.push_back("no synchronous (rendezvous) send up to the largest size; S is set to it");
  if (allSync)
    f.warnings.push_back("even the smallest size is sent synchronously; S is set below it");

  // Eager messages: the send and receive overheads are the call durations themselves.
  f.sendOverhead = fitSizes(m.sizes, eager, [](const SizeTimes& s) { return s.sendReady; });
  f.recvOverhead = fitSizes(m.sizes, eager, [](const SizeTimes& s) { return s.recvLate; });
  // Synchronous messages: the local costs t_ss, t_sr of docs/model.md are the call durations
  // when the partner is in time (its wait is 0).
  f.syncSend = fitSizes(m.sizes, sync, [](const SizeTimes& s) { return s.sendReady; });
  f.syncRecv = fitSizes(m.sizes, sync, [](const SizeTimes& s) { return s.recvLate; });
  // The wire: a ping-pong half is o_s(k) + L + G·(k − 1) + o_r(k), so what is left after the
  // two measured overheads is L + G·(k − 1) = (L − G) + G·k.
  f.wire = fitSizes(m.sizes, eager, [](const SizeTimes& s) {
    return s.pingPongHalf - s.sendReady - s.recvLate;
  });

  const std::string modelDefault = "left 0 (the model then uses its default)";
  requirePoints(f.sendOverhead, "send overhead o_s(k)", modelDefault, f.warnings);
  requirePoints(f.recvOverhead, "receive overhead o_r(k)", modelDefault, f.warnings);
  requirePoints(f.syncSend, "synchronous send t_ss(k)", modelDefault, f.warnings);
  requirePoints(f.syncRecv, "synchronous receive t_sr(k)", modelDefault, f.warnings);
  requirePoints(f.wire, "latency and gap L, G", "left 0", f.warnings);

  clampLine(f.sendOverhead, "send overhead o_s(k)", f.warnings);
  clampLine(f.recvOverhead, "receive overhead o_r(k)", f.warnings);
  clampLine(f.syncSend, "synchronous send t_ss(k)", f.warnings);
  clampLine(f.syncRecv, "synchronous receive t_sr(k)", f.warnings);

  f.G = std::max(f.wire.b, 0.0);
  if (f.wire.b < -kNegligible)
    f.warnings.push_back("gap per byte G: slope " + std::to_string(f.wire.b) + " ns/byte < 0, set to 0");
  // L is the one-byte value of the wire line: L + G·(1 − 1).
  f.L = f.wire.a + f.G;
  if (f.L < 0) {
    if (f.L < -kNegligible)
      f.warnings.push_back("latency L: " + std::to_string(f.L) +
                         " ns < 0 (the ping-pong is faster than the two overheads), set to 0");
    f.L = 0;
  }
  // The single o of the paper (λ = o + L): the send overhead of an empty message.
  f.o = f.sendOverhead.a;
  // In the model file a line of zeros means "not given" and is replaced by a default.
  for (auto [line, what] : {std::pair{&f.recvOverhead, "receive overhead o_r(k)"},
                            std::pair{&f.syncSend, "synchronous send t_ss(k)"},
                            std::pair{&f.syncRecv, "synchronous receive t_sr(k)"}})
    if (line->valid() && line->a == 0 && line->b == 0)
      f.warnings.push_back(std::string(what) +
                           " is 0, which the model file reads as 'not given' (default used)");
  return f;
}

}  // namespace perwiz::calibrate
