// Summaries of a LogGPS calibration (see summary.h). Times in µs, as in the model file.
#include "summary.h"

#include "model_json.h"
#include "summary_format.h"

#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdio>
#include <sstream>

namespace perwiz::calibrate {
namespace {

using Json = nlohmann::ordered_json;

bool isEager(const LogGpsMeasurement& m, std::uint64_t bytes) { return isEagerSize(m.threshold, m.S, bytes); }


}  // namespace

std::string summaryJson(const CalibrateOptions& o, const RunInfo& run, const LogGpsMeasurement& m,
                        const LogGpsFit& fit, const std::string& modelText) {
  Json sizes = Json::array();
  for (const SizeTimes& s : m.sizes)
    sizes.push_back(Json{{"bytes", s.bytes},
                         {"protocol", isEager(m, s.bytes) ? "eager" : "synchronous"},
                         {"pingpong_half_us", usOrNull(s.pingPongHalf)},
                         {"send_us", usOrNull(s.sendReady)},
                         {"recv_us", usOrNull(s.recvLate)},
                         {"stream_per_message_us", usOrNull(s.streamGap)},
                         {"exchange_us", usOrNull(s.exchange)}});
  Json j;
  j["mode"] = o.mode;
  j["ranks"] = Json{{"world", run.worldSize}, {"measured", Json::array({0, 1})}};
  j["statistic"] = statisticName(o.statistic);
  j["repetitions"] = o.repetitions;
  j["warmup"] = o.warmup;
  j["wtick_s"] = run.wtick;
  j["threshold"] = Json{{"S_bytes", m.S}, {"status", thresholdName(m.threshold)}};
  j["fits"] = Json{{"send_overhead", lineJson(fit.sendOverhead)},
                   {"recv_overhead", lineJson(fit.recvOverhead)},
                   {"sync_send", lineJson(fit.syncSend)},
                   {"sync_recv", lineJson(fit.syncRecv)},
                   {"wire", lineJson(fit.wire)},
                   {"stream_gap", lineJson(fit.gap)}};
  j["eager_transfer"] = fit.receiverDriven ? "at-receive" : "at-send";
  j["wire_share"] = fit.wireShare;
  j["duplex"] = fit.halfDuplex ? "half" : "full";
  j["duplex_ratio"] = fit.duplexRatio;
  j["degenerate"] = fit.degenerate;
  j["sizes"] = sizes;
  j["model"] = Json::parse(modelText);
  j["output"] = o.output.empty() ? Json(nullptr) : Json(o.output);
  j["warnings"] = fit.warnings;
  return j.dump(2, ' ', false, Json::error_handler_t::replace);
}

std::string summaryText(const CalibrateOptions& o, const RunInfo& run, const LogGpsMeasurement& m,
                        const LogGpsFit& fit) {
  std::ostringstream out;
  out << "perwiz-calibrate: LogGPS between ranks 0 and 1 of " << run.worldSize << ", "
      << statisticName(o.statistic) << " of " << o.repetitions << " repetitions (+" << o.warmup
      << " warm-up), MPI_Wtick " << run.wtick * 1e9 << " ns\n\n";
  out << "     bytes  protocol     ping-pong/2      send         recv   stream/msg   (µs)\n";
  for (const SizeTimes& s : m.sizes) {
    char row[160];
    std::snprintf(row, sizeof row, "%10llu  %-11s %12.3f %12.3f %12.3f %12.3f\n",
                  static_cast<unsigned long long>(s.bytes),
                  isEager(m, s.bytes) ? "eager" : "synchronous", s.pingPongHalf * 1e6,
                  s.sendReady * 1e6, s.recvLate * 1e6, s.streamGap * 1e6);
    out << row;
  }
  out << "\nS (largest eager message) = " << m.S << " bytes (" << thresholdName(m.threshold) << ")\n";
  out << "L = " << fixed(fit.L / 1000, 3) << " µs, G = " << gapText(fit.G) << ", o = " << fixed(fit.o / 1000, 3)
      << " µs, g = " << fixed(fit.g / 1000, 3) << " µs\n";
  out << "eager data moves " << (fit.receiverDriven ? "once the receive is posted (eager_transfer: at-receive)"
                                                     : "from the sender (eager_transfer: at-send)")
      << "; the wire's share of a one-way time: " << fixed(100 * fit.wireShare, 1) << " %\n";
  out << "an exchange's bytes take " << fixed(fit.duplexRatio, 2) << " × G: "
      << (fit.halfDuplex ? "the two directions share a host's link (duplex: half)"
                         : "full duplex, cross traffic " + fixed(fit.crossTraffic, 3))
      << "\n";
  out << "o_s(k)  = " << lineText(fit.sendOverhead) << "\n";
  out << "o_r(k)  = " << lineText(fit.recvOverhead) << "\n";
  out << "t_ss(k) = " << lineText(fit.syncSend) << "\n";
  out << "t_sr(k) = " << lineText(fit.syncRecv) << "\n";
  for (const std::string& w : fit.warnings) out << "warning: " << w << "\n";
  for (const std::string& d : fit.degenerate) out << "degenerate: " << d << "\n";
  if (!o.output.empty()) out << "model written to " << o.output << "\n";
  return out.str();
}

}  // namespace perwiz::calibrate
