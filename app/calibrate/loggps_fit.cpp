// LogGPS parameters from per-size times (see loggps_fit.h and docs/calibrate.md).
#include "loggps_fit.h"

#include "line_checks.h"
#include "wire_fit.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
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

  // Eager messages: the send overhead is the send's duration with the receiver waiting.
  f.sendOverhead = fitSizes(m.sizes, eager, [](const SizeTimes& s) { return s.sendReady; });
  // Synchronous messages: the local costs t_ss, t_sr of docs/model.md are the call durations
  // when the partner is in time (its wait is 0).
  f.syncSend = fitSizes(m.sizes, sync, [](const SizeTimes& s) { return s.sendReady; });
  f.syncRecv = fitSizes(m.sizes, sync, [](const SizeTimes& s) { return s.recvLate; });
  // What a ping-pong half leaves after the two measured call times (the summary shows it).
  f.wire = fitSizes(m.sizes, eager, [](const SizeTimes& s) { return s.pingPongHalf - s.sendReady - s.recvLate; });

  // L, G, duplex and who moves eager data (wire_fit.h).
  std::vector<WireSample> samples;
  for (const SizeTimes& s : m.sizes)
    samples.push_back({s.bytes, eager(s.bytes), s.pingPongHalf, s.sendReady, s.recvLate, s.streamGap, s.exchange,
                       s.pingPongSpread});
  static_cast<WireFit&>(f) = fitWire(samples);

  const std::string modelDefault = "left 0 (the model then uses its default)";
  requirePoints(f.sendOverhead, "send overhead o_s(k)", modelDefault, f.warnings);
  requirePoints(f.recvOverhead, "receive overhead o_r(k)", modelDefault, f.warnings);
  requirePoints(f.syncSend, "synchronous send t_ss(k)", modelDefault, f.warnings);
  requirePoints(f.syncRecv, "synchronous receive t_sr(k)", modelDefault, f.warnings);

  clampLine(f.sendOverhead, "send overhead o_s(k)", f.warnings);
  clampLine(f.recvOverhead, "receive overhead o_r(k)", f.warnings);
  clampLine(f.syncSend, "synchronous send t_ss(k)", f.warnings);
  clampLine(f.syncRecv, "synchronous receive t_sr(k)", f.warnings);

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
