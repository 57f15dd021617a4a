// LogGPS parameters from per-size times (see loggps_fit.h and docs/calibrate.md).
#include "loggps_fit.h"

#include "line_checks.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <utility>

namespace perwiz::calibrate {
namespace {

// A duration in ns for a message: "20.15 µs", "4.25 ns".
std::string nsText(double ns) {
  char out[64];
  if (std::abs(ns) >= 1000) std::snprintf(out, sizeof out, "%.3f µs", ns / 1000);
  else std::snprintf(out, sizeof out, "%.3f ns", ns);
  return out;
}

}  // namespace

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

  // G: the time per byte of a long stream (LogGP's measurement of the gap), on the largest
  // sizes, where the bytes dominate: the synchronous ones (each send lasts its transfer), else
  // the eager ones from 4 KiB, else every size with a stream. One protocol only: the time per
  // message jumps at S.
  auto streamOn = [&](auto pick) {
    return fitSizes(m.sizes, pick, [](const SizeTimes& s) { return s.streamGap; });
  };
  f.gap = streamOn(sync);
  if (f.gap.points < 2) f.gap = streamOn([&](std::uint64_t k) { return eager(k) && k >= 4096; });
  if (f.gap.points < 2) f.gap = streamOn([](std::uint64_t) { return true; });
  f.G = f.gap.b;
  // Duplex: the exchange's per-byte slope on the same sizes as G.
  {
    auto exchangeOn = [&](auto pick) {
      return fitSizes(m.sizes, pick, [](const SizeTimes& s) { return s.exchange; });
    };
    f.exchangeLine = exchangeOn(sync);
    if (f.exchangeLine.points < 2) f.exchangeLine = exchangeOn([&](std::uint64_t k) { return eager(k) && k >= 4096; });
    if (f.exchangeLine.points < 2) f.exchangeLine = exchangeOn([](std::uint64_t) { return true; });
    f.duplexRatio = f.G > 0 && f.exchangeLine.points >= 2 ? f.exchangeLine.b / f.G : 0;
    f.halfDuplex = f.duplexRatio > 1.5;
  }

  // Who moves eager data. Where the sender's library moves it, a receive of a message that has
  // arrived costs only its overhead, well below the one-way time P − T_s; where the data moves
  // only once the receive is posted, that receive lasts the whole transfer (P − T_s − T_r ≈ 0).
  std::vector<double> share;
  for (const SizeTimes& s : m.sizes) {
    if (!eager(s.bytes)) continue;
    const double oneWay = s.pingPongHalf - s.sendReady;
    if (oneWay > 0 && std::isfinite(s.recvLate)) share.push_back((oneWay - s.recvLate) / oneWay);
  }
  f.wireShare = share.empty() ? 1.0 : median(share);
  f.receiverDriven = !share.empty() && f.wireShare < 0.1;

  // L from the small eager sizes (≤ 64 bytes, else the smallest eager one), where the bytes
  // are a small part of the time: the one-way time less the overheads and the bytes' G·(k − 1).
  // Where the sender moves the data: L = P − o_s − o_r − G·(k − 1), o_r = T_r. Where the
  // receive moves it, the receive's time T_r is L + G·(k − 1) + o_r, which a pair cannot split:
  // L takes its constant part (o_r(0) = 0) and o_r what grows beyond G·k.
  std::vector<std::uint64_t> small;
  for (const SizeTimes& s : m.sizes)
    if (eager(s.bytes) && (s.bytes <= 64 || small.empty())) small.push_back(s.bytes);
  auto perByte = [&](std::uint64_t k) { return f.G * (k > 0 ? static_cast<double>(k - 1) : 0.0); };
  for (const SizeTimes& s : m.sizes) {
    if (std::find(small.begin(), small.end(), s.bytes) == small.end()) continue;
    const double ns = f.receiverDriven ? s.recvLate * kNsPerSecond
                                       : (s.pingPongHalf - s.sendReady - s.recvLate) * kNsPerSecond;
    if (std::isfinite(ns)) f.latencyPoints.push_back(ns - perByte(s.bytes));
  }
  f.L = f.latencyPoints.empty() ? 0 : median(f.latencyPoints);
  if (f.receiverDriven) {
    // o_r(0) = 0 (L holds the constant part): the slope of a line through the origin over
    // what the receive takes beyond L + G·(k − 1), fitted on relative errors (weights 1/T_r²):
    // b = Σ w·k·y / Σ w·k². Plain least squares would follow the largest eager sizes only
    // (powers of two), and a free intercept would catch the middle sizes' bumps (SMPI's
    // piecewise factors) and charge them to every message: 33 µs per receive on the
    // Ethernet-like platform.
    const double L = f.L;
    double sxy = 0, sxx = 0, worst = 0, largest = 0;
    std::size_t points = 0;
    for (const SizeTimes& s : m.sizes) {
      if (!eager(s.bytes) || !std::isfinite(s.recvLate) || !(s.recvLate > 0)) continue;
      const double k = static_cast<double>(s.bytes), y = s.recvLate * kNsPerSecond - (L + perByte(s.bytes));
      const double w = 1.0 / (s.recvLate * kNsPerSecond * s.recvLate * kNsPerSecond);
      sxy += w * k * y;
      sxx += w * k * k;
      ++points;
    }
    f.recvOverhead = LineFit{};
    f.recvOverhead.points = points;
    f.recvOverhead.b = sxx > 0 ? sxy / sxx : 0;
    for (const SizeTimes& s : m.sizes) {
      if (!eager(s.bytes) || !std::isfinite(s.recvLate)) continue;
      const double k = static_cast<double>(s.bytes), y = s.recvLate * kNsPerSecond - (L + perByte(s.bytes));
      worst = std::max(worst, std::abs(y - f.recvOverhead.b * k));
      largest = std::max(largest, std::abs(y));
    }
    f.recvOverhead.maxResidual = worst;
    f.recvOverhead.maxValue = largest;
  } else {
    f.recvOverhead = fitSizes(m.sizes, eager, [](const SizeTimes& s) { return s.recvLate; });
  }

  const std::string modelDefault = "left 0 (the model then uses its default)";
  requirePoints(f.sendOverhead, "send overhead o_s(k)", modelDefault, f.warnings);
  requirePoints(f.recvOverhead, "receive overhead o_r(k)", modelDefault, f.warnings);
  requirePoints(f.syncSend, "synchronous send t_ss(k)", modelDefault, f.warnings);
  requirePoints(f.syncRecv, "synchronous receive t_sr(k)", modelDefault, f.warnings);

  clampLine(f.sendOverhead, "send overhead o_s(k)", f.warnings);
  clampLine(f.recvOverhead, "receive overhead o_r(k)", f.warnings);
  clampLine(f.syncSend, "synchronous send t_ss(k)", f.warnings);
  clampLine(f.syncRecv, "synchronous receive t_sr(k)", f.warnings);

  // Degenerate results: a model with them would not describe the machine.
  if (f.gap.points < 2)
    f.degenerate.push_back("gap per byte G: the stream was timed on " + std::to_string(f.gap.points) +
                           " message size(s); measure at least two (--min-size, --max-size)");
  else if (!(f.G > 0))
    f.degenerate.push_back("gap per byte G = " + nsText(f.G) + "/byte ≤ 0: a longer stream of larger messages did not take longer per message "
                           "(the measurement is noise: use larger --max-size or more --reps)");
  else if (f.gap.maxResidual > 0.1 * f.gap.maxValue)
    f.degenerate.push_back("gap per byte G: the stream's time per message misses a line by " + nsText(f.gap.maxResidual) +
                           ", more than 10 % of its largest value " + nsText(f.gap.maxValue) + " (not one bandwidth over the sizes)");
  if (f.latencyPoints.empty())
    f.degenerate.push_back("latency L: no eager message size measured (lower --min-size)");
  else if (!(f.L > 0))
    f.degenerate.push_back(std::string("latency L = ") + nsText(f.L) + " ≤ 0: " +
                           (f.receiverDriven ? "the receive of an arrived message is faster than the bytes at G"
                                             : "the ping-pong is faster than the two overheads and the bytes at G"));
  else {
    // The estimates may differ by the measurement's own noise (3 × the largest median absolute
    // deviation of their ping-pongs; 0 under SMPI), and beyond it by 10 % of L.
    double spread = 0, noise = 0;
    for (double x : f.latencyPoints) spread = std::max(spread, std::abs(x - f.L));
    for (const SizeTimes& s : m.sizes)
      if (std::find(small.begin(), small.end(), s.bytes) != small.end()) noise = std::max(noise, 3 * s.pingPongSpread * kNsPerSecond);
    if (spread > 0.1 * f.L + noise)
      f.degenerate.push_back("latency L: the small sizes give values " + nsText(spread) + " apart from their median " + nsText(f.L) +
                             ", more than 10 % beyond the ping-pong's noise " + nsText(noise) + " (not one latency)");
  }
  if (f.G < 0) f.G = 0;
  if (f.L < 0) f.L = 0;
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
