// LogGPS model file writer (see model_json.h). Units: the fit is in ns and ns/byte, the file in
// µs and µs/byte, as the papers print them.
#include "model_json.h"

#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace perwiz::calibrate {
namespace {

double us(double ns) { return roundSignificant(ns / 1000.0); }

nlohmann::ordered_json line(const LineFit& f) {
  return nlohmann::ordered_json{{"a", us(f.a)}, {"b_per_byte", us(f.b)}};
}

}  // namespace

double roundSignificant(double value, int digits) {
  if (value == 0 || !std::isfinite(value)) return value;
  char text[64];
  std::snprintf(text, sizeof text, "%.*g", digits, value);
  return std::strtod(text, nullptr);
}

std::string modelJson(const LogGpsFit& fit, const std::string& name) {
  nlohmann::ordered_json j;
  j["model"] = "LogGPS";
  j["version"] = 2;  // perwiz::model_detail::kModelFileVersion: not an older calibration
  j["name"] = name;
  j["L_us"] = us(fit.L);
  j["o_us"] = us(fit.o);
  j["g_us"] = us(fit.g);   // the stream of the smallest messages (docs/calibrate.md)
  j["G_us_per_byte"] = us(fit.G);
  j["P"] = 0;              // 0: the replay takes the trace's rank count
  j["S_bytes"] = fit.S;
  j["s_bytes"] = 0;        // one packet: packetisation is folded into G
  j["send_overhead_us"] = line(fit.sendOverhead);
  j["recv_overhead_us"] = line(fit.recvOverhead);
  j["sync_send_us"] = line(fit.syncSend);
  j["sync_recv_us"] = line(fit.syncRecv);
  // Written only where it differs from the loader's default ("at-send"): files of machines
  // whose sender moves eager data stay as before.
  if (fit.receiverDriven) j["eager_transfer"] = "at-receive";
  if (fit.halfDuplex) j["duplex"] = "half";
  if (fit.crossTraffic > 0) j["cross_traffic"] = roundSignificant(fit.crossTraffic, 3);
  if (fit.smpiCollectives) j["collectives"] = "smpi";
  return j.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
}

}  // namespace perwiz::calibrate
