#include "loggp_derivation.h"

#include <stdexcept>

namespace perwiz::models {
namespace {

struct Line {
  double a = 0, b = 0;  // µs, µs per byte
};

// A linear overhead as the LogGPS loader reads it: absent or all zero means "o, constant".
Line overhead(const nlohmann::json& m, const char* key, double o) {
  Line l;
  if (m.contains(key)) {
    l.a = m[key].value("a", 0.0);
    l.b = m[key].value("b_per_byte", 0.0);
  }
  if (l.a == 0 && l.b == 0) l.a = o;
  return l;
}

}  // namespace

nlohmann::ordered_json loggpFromLoggps(const nlohmann::json& loggps, const std::string& name) {
  if (!loggps.is_object() || loggps.value("model", "") != "LogGPS")
    throw std::runtime_error("loggpFromLoggps: not a LogGPS model file");
  const double L = loggps.at("L_us").get<double>(), o = loggps.at("o_us").get<double>();
  const double G = loggps.value("G_us_per_byte", 0.0);
  const Line send = overhead(loggps, "send_overhead_us", o), recv = overhead(loggps, "recv_overhead_us", o);
  // 2o + L' + G'·(k − 1) = (a_s + b_s·k) + L + G·(k − 1) + (a_r + b_r·k) for every k:
  const double perByte = send.b + recv.b;
  nlohmann::ordered_json j;
  j["model"] = "LogGP";
  j["name"] = name;
  j["L_us"] = L + perByte;
  j["o_us"] = (send.a + recv.a) / 2;
  j["g_us"] = 0;
  j["G_us_per_byte"] = G + perByte;
  j["P"] = 0;
  return j;
}

}  // namespace perwiz::models
