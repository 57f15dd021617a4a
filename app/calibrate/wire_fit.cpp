// L, G and who moves eager data (see wire_fit.h and docs/calibrate.md).
#include "wire_fit.h"

#include "line_checks.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace perwiz::calibrate {

std::string nsText(double ns) {
  char out[64];
  if (std::abs(ns) >= 1000)
    std::snprintf(out, sizeof out, "%.3f µs", ns / 1000);
  else
    std::snprintf(out, sizeof out, "%.3f ns", ns);
  return out;
}

namespace {

// The bytes' share G·(k − 1) of a message of k bytes.
double perByteOf(const WireFit& f, std::uint64_t k) { return f.G * (k > 0 ? static_cast<double>(k - 1) : 0.0); }

// Where the receive moves eager data: its overhead beyond L + G·(k − 1).
void fitReceiverOverhead(const std::vector<WireSample>& m, WireFit& f) {
  auto perByte = [&](std::uint64_t k) { return perByteOf(f, k); };
  // o_r(0) = 0 (L holds the constant part): the slope of a line through the origin over
  // what the receive takes beyond L + G·(k − 1), fitted on relative errors (weights 1/T_r²):
  // b = Σ w·k·y / Σ w·k². Plain least squares would follow the largest eager sizes only
  // (powers of two), and a free intercept would catch the middle sizes' bumps (SMPI's
  // piecewise factors) and charge them to every message: 33 µs per receive on the
  // Ethernet-like platform.
  const double L = f.L;
  double sxy = 0, sxx = 0, worst = 0, largest = 0;
  std::size_t points = 0;
  for (const WireSample& s : m) {
    if (!s.eager || !std::isfinite(s.recv) || !(s.recv > 0)) continue;
    const double k = static_cast<double>(s.bytes), y = s.recv * kNsPerSecond - (L + perByte(s.bytes));
    const double w = 1.0 / (s.recv * kNsPerSecond * s.recv * kNsPerSecond);
    sxy += w * k * y;
    sxx += w * k * k;
    ++points;
  }
  f.recvOverhead.points = points;
  f.recvOverhead.b = sxx > 0 ? sxy / sxx : 0;
  for (const WireSample& s : m) {
    if (!s.eager || !std::isfinite(s.recv)) continue;
    const double k = static_cast<double>(s.bytes), y = s.recv * kNsPerSecond - (L + perByte(s.bytes));
    worst = std::max(worst, std::abs(y - f.recvOverhead.b * k));
    largest = std::max(largest, std::abs(y));
  }
  f.recvOverhead.maxResidual = worst;
  f.recvOverhead.maxValue = largest;
}

// Degenerate results: a model with them would not describe the machine. `isSmall`: the sizes
// L was fitted on.
template <class IsSmall>
void findDegenerate(const std::vector<WireSample>& m, IsSmall&& isSmall, WireFit& f) {
  if (f.gap.points < 2)
    f.degenerate.push_back("gap per byte G: the stream was timed on " + std::to_string(f.gap.points) +
                           " message size(s); measure at least two (--min-size, --max-size)");
  else if (!(f.G > 0))
    f.degenerate.push_back("gap per byte G = " + nsText(f.G) +
                           "/byte ≤ 0: a longer stream of larger messages did not take longer per message "
                           "(the measurement is noise: use larger --max-size or more --reps)");
  else if (f.gap.maxResidual > 0.1 * f.gap.maxValue)
    f.degenerate.push_back("gap per byte G: the stream's time per message misses a line by " +
                           nsText(f.gap.maxResidual) + ", more than 10 % of its largest value " +
                           nsText(f.gap.maxValue) + " (not one bandwidth over the sizes)");
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
    for (const WireSample& s : m)
      if (isSmall(s.bytes)) noise = std::max(noise, 3 * s.pingPongSpread * kNsPerSecond);
    if (spread > 0.1 * f.L + noise)
      f.degenerate.push_back("latency L: the small sizes give values " + nsText(spread) + " apart from their median " +
                             nsText(f.L) + ", more than 10 % beyond the ping-pong's noise " + nsText(noise) +
                             " (not one latency)");
  }
}

}  // namespace

WireFit fitWire(const std::vector<WireSample>& m) {
  WireFit f;
  auto eagerAt = [&](std::uint64_t k) {
    for (const WireSample& s : m)
      if (s.bytes == k) return s.eager;
    return false;
  };
  auto eager = [&](std::uint64_t k) { return eagerAt(k); };
  auto sync = [&](std::uint64_t k) { return !eagerAt(k); };

  // G: the time per byte of a long stream (LogGP's measurement of the gap), on the largest
  // sizes, where the bytes dominate: the synchronous ones (each send lasts its transfer), else
  // the eager ones from 4 KiB, else every size with a stream. One protocol only: the time per
  // message jumps at S.
  auto streamOn = [&](auto pick) { return fitSizes(m, pick, [](const WireSample& s) { return s.streamGap; }); };
  f.gap = streamOn(sync);
  if (f.gap.points < 2) f.gap = streamOn([&](std::uint64_t k) { return eager(k) && k >= 4096; });
  if (f.gap.points < 2) f.gap = streamOn([](std::uint64_t) { return true; });
  f.G = f.gap.b;
  // g: LogGP's measurement, the time per message of a stream of the smallest messages.
  const WireSample* smallest = nullptr;
  for (const WireSample& s : m)
    if (s.eager && std::isfinite(s.streamGap) && (!smallest || s.bytes < smallest->bytes)) smallest = &s;
  if (smallest) f.g = std::max(0.0, smallest->streamGap * kNsPerSecond - f.G * static_cast<double>(smallest->bytes));
  // Duplex: the exchange's per-byte slope on the same kind of sizes as G.
  auto exchangeOn = [&](auto pick) { return fitSizes(m, pick, [](const WireSample& s) { return s.exchange; }); };
  f.exchangeLine = exchangeOn(sync);
  if (f.exchangeLine.points < 2) f.exchangeLine = exchangeOn([&](std::uint64_t k) { return eager(k) && k >= 4096; });
  if (f.exchangeLine.points < 2) f.exchangeLine = exchangeOn([](std::uint64_t) { return true; });
  f.duplexRatio = f.G > 0 && f.exchangeLine.points >= 2 ? f.exchangeLine.b / f.G : 0;
  f.halfDuplex = f.duplexRatio > 1.5;
  f.crossTraffic = f.halfDuplex ? 0 : std::clamp(f.duplexRatio - 1, 0.0, 1.0);

  // Who moves eager data. Where the sender's library moves it, a receive of a message that has
  // arrived costs only its overhead, well below the one-way time P − T_s; where the data moves
  // only once the receive is posted, that receive lasts the whole transfer (P − T_s − T_r ≈ 0).
  std::vector<double> share;
  for (const WireSample& s : m) {
    if (!s.eager) continue;
    const double oneWay = s.pingPongHalf - s.send;
    if (oneWay > 0 && std::isfinite(s.recv)) share.push_back((oneWay - s.recv) / oneWay);
  }
  f.wireShare = share.empty() ? 1.0 : median(share);
  f.receiverDriven = !share.empty() && f.wireShare < 0.1;

  // L from the small eager sizes (≤ 64 bytes, else the smallest eager one), where the bytes
  // are a small part of the time: the one-way time less the overheads and the bytes' G·(k − 1).
  // Where the sender moves the data: L = P − o_s − o_r − G·(k − 1), o_r = T_r. Where the
  // receive moves it, the receive's time T_r is L + G·(k − 1) + o_r, which a pair cannot split:
  // L takes its constant part (o_r(0) = 0) and o_r what grows beyond G·k.
  std::vector<std::uint64_t> small;
  for (const WireSample& s : m)
    if (s.eager && (s.bytes <= 64 || small.empty())) small.push_back(s.bytes);
  auto isSmall = [&](std::uint64_t k) { return std::find(small.begin(), small.end(), k) != small.end(); };
  auto perByte = [&](std::uint64_t k) { return perByteOf(f, k); };
  for (const WireSample& s : m) {
    if (!isSmall(s.bytes)) continue;
    const double ns = f.receiverDriven ? s.recv * kNsPerSecond : (s.pingPongHalf - s.send - s.recv) * kNsPerSecond;
    if (std::isfinite(ns)) f.latencyPoints.push_back(ns - perByte(s.bytes));
  }
  f.L = f.latencyPoints.empty() ? 0 : median(f.latencyPoints);
  if (f.receiverDriven)
    fitReceiverOverhead(m, f);
  else
    f.recvOverhead = fitSizes(m, eager, [](const WireSample& s) { return s.recv; });

  findDegenerate(m, isSmall, f);
  if (f.G < 0) f.G = 0;
  if (f.L < 0) f.L = 0;
  return f;
}

}  // namespace perwiz::calibrate
