// LogGPO parameters from per-size times (see loggpo_fit.h and docs/calibrate.md).
#include "loggpo_fit.h"

#include "line_checks.h"
#include "wire_fit.h"
#include "model_json.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>

namespace perwiz::calibrate {

bool sideOverlaps(double waitAlone, double waitAfterAway) {
  return std::isfinite(waitAlone) && std::isfinite(waitAfterAway) && waitAfterAway < waitAlone / 2;
}

LogGpoFit fitLogGpo(const LogGpoMeasurement& m) {
  LogGpoFit f;
  f.S = m.S;
  const bool allSync = m.threshold == ThresholdStatus::AllSynchronous;
  auto eager = [&](std::uint64_t k) { return !allSync && k <= m.S; };
  if (m.threshold == ThresholdStatus::NoneSynchronous)
    f.warnings.push_back("no rendezvous send up to the largest size; S is set to it");
  if (allSync)
    f.warnings.push_back("even the smallest size is sent with the rendezvous protocol; S is set below it");

  // Eager messages: the sender's total overhead is O_i(k).
  f.Oi = fitSizes(m.sizes, eager, [](const LogGpoSizeTimes& s) { return s.isendTotal; });
  // What the ping-pong half leaves after both overheads (the summary shows it).
  f.wire = fitSizes(m.sizes, eager, [](const LogGpoSizeTimes& s) {
    return s.pingPongHalf - s.isendTotal - s.recvTotal;
  });
  // L, G and who moves eager data as in the LogGPS mode (wire_fit.h): T_c = O_i + G(k − 1) +
  // L + O_c is the same eager message; O_c is the receive's overhead (beyond the wire where the
  // receive moves the data).
  std::vector<WireSample> samples;
  for (const LogGpoSizeTimes& s : m.sizes) {
    WireSample w;
    w.bytes = s.bytes;
    w.eager = eager(s.bytes);
    w.pingPongHalf = s.pingPongHalf;
    w.send = s.isendTotal;
    w.recv = s.recvTotal;
    w.streamGap = s.streamGap;
    w.exchange = s.exchange;
    w.pingPongSpread = s.pingPongSpread;
    samples.push_back(w);
  }
  static_cast<WireFit&>(f) = fitWire(samples);
  f.Oc = f.recvOverhead;
  requirePoints(f.Oi, "initialisation overhead O_i(k)", "left 0", f.warnings);
  requirePoints(f.Oc, "copy overhead O_c(k)", "left 0", f.warnings);
  clampLine(f.Oi, "initialisation overhead O_i(k)", f.warnings);
  clampLine(f.Oc, "copy overhead O_c(k)", f.warnings);

  // O' is a constant of the library (the paper: "normally, it has a constant value"): the
  // median over the rendezvous sizes of the MPI_Isend that sends the REQ.
  std::vector<double> posts;
  for (const LogGpoSizeTimes& s : m.sizes)
    if (!eager(s.bytes) && std::isfinite(s.isendPost)) posts.push_back(s.isendPost * kNsPerSecond);
  f.rendezvousSizes = posts.size();
  if (posts.empty()) {
    f.Octrl = f.Oi.a;
    f.warnings.push_back("control-message overhead O': no rendezvous size measured; set to O_i(0)");
  } else {
    f.Octrl = std::max(median(posts), 0.0);
  }

  // The rendezvous transfer with the receiver in time costs the sender 3O' + 2L + O_i(k) +
  // G(k − 1) (REQ, the answer, the ACK's flight, the RDMA write): O_i(k) of the rendezvous sizes
  // is what their Isend + Wait leaves. Under SMPI it carries the larger latency factor of big
  // messages (docs/calibrate.md); on a real MPI the registration of the buffer.
  f.OiRendezvous = fitSizes(m.sizes, [&](std::uint64_t k) { return !eager(k); }, [&](const LogGpoSizeTimes& s) {
    const double k = s.bytes > 0 ? static_cast<double>(s.bytes - 1) : 0.0;
    return s.isendTotal - (3 * f.Octrl + 2 * f.L + f.G * k) / kNsPerSecond;
  });
  if (f.OiRendezvous.valid()) clampLine(f.OiRendezvous, "rendezvous initialisation overhead O_i(k), k > S", f.warnings);

  const ProgressProbe& p = m.progress;
  if (!p.measured) {
    f.warnings.push_back("progress strategy: no rendezvous size to probe; assumed dependent");
  } else {
    f.senderOverlaps = sideOverlaps(p.senderAlone, p.senderAfterAway);
    f.receiverOverlaps = sideOverlaps(p.receiverAlone, p.receiverAfterAway);
    f.independentProgress = f.senderOverlaps && f.receiverOverlaps;
  }
  return f;
}

namespace {

double us(double ns) { return roundSignificant(ns / 1000.0); }

nlohmann::ordered_json line(const LineFit& f) {
  return nlohmann::ordered_json{{"a", us(f.a)}, {"b_per_byte", us(f.b)}};
}

}  // namespace

std::string loggpoModelJson(const LogGpoFit& fit, const std::string& name) {
  nlohmann::ordered_json j;
  j["model"] = "LogGPO";
  j["version"] = 2;  // perwiz::model_detail::kModelFileVersion: not an older calibration
  j["name"] = name;
  j["L_us"] = us(fit.L);
  j["G_us_per_byte"] = us(fit.G);
  if (fit.g > 0) j["g_us"] = us(fit.g);
  j["O_ctrl_us"] = us(fit.Octrl);
  j["O_i_us"] = line(fit.Oi);
  j["O_c_us"] = line(fit.Oc);
  if (fit.OiRendezvous.valid()) j["O_i_rendezvous_us"] = line(fit.OiRendezvous);
  j["S_bytes"] = fit.S;
  j["P"] = 0;  // 0: the replay takes the trace's rank count
  j["progress"] = fit.independentProgress ? "independent" : "dependent";
  j["transfer"] = "RAT";  // the only transfer mechanism the model implements (not measured)
  if (fit.receiverDriven) j["eager_transfer"] = "at-receive";
  if (fit.halfDuplex) j["duplex"] = "half";
  if (fit.crossTraffic > 0) j["cross_traffic"] = roundSignificant(fit.crossTraffic, 3);
  if (fit.smpiCollectives) j["collectives"] = "smpi";
  return j.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
}

}  // namespace perwiz::calibrate
