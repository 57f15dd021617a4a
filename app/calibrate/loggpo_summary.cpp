// Summaries of a LogGPO calibration (see loggpo_summary.h). Times in µs, as in the model file.
#include "loggpo_summary.h"

#include "model_json.h"
#include "summary_format.h"

#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdio>
#include <sstream>

namespace perwiz::calibrate {
namespace {

using Json = nlohmann::ordered_json;

bool isEager(const LogGpoMeasurement& m, std::uint64_t bytes) { return isEagerSize(m.threshold, m.S, bytes); }


const char* side(bool overlaps) { return overlaps ? "overlaps" : "does not overlap"; }

}  // namespace

std::string loggpoSummaryJson(const CalibrateOptions& o, const RunInfo& run,
                              const LogGpoMeasurement& m, const LogGpoFit& fit,
                              const std::string& modelText) {
  Json sizes = Json::array();
  for (const LogGpoSizeTimes& s : m.sizes)
    sizes.push_back(Json{{"bytes", s.bytes},
                         {"protocol", isEager(m, s.bytes) ? "eager" : "rendezvous"},
                         {"pingpong_half_us", usOrNull(s.pingPongHalf)},
                         {"isend_us", usOrNull(s.isendPost)},
                         {"isend_wait_us", usOrNull(s.isendTotal)},
                         {"irecv_wait_us", usOrNull(s.recvTotal)}});
  const ProgressProbe& p = m.progress;
  Json progress{{"measured", p.measured}};
  if (p.measured) {
    progress["bytes"] = p.bytes;
    progress["away_us"] = usOrNull(p.awaySeconds);
    progress["sender_wait_alone_us"] = usOrNull(p.senderAlone);
    progress["sender_wait_after_away_us"] = usOrNull(p.senderAfterAway);
    progress["receiver_wait_alone_us"] = usOrNull(p.receiverAlone);
    progress["receiver_wait_after_away_us"] = usOrNull(p.receiverAfterAway);
    progress["sender_overlaps"] = fit.senderOverlaps;
    progress["receiver_overlaps"] = fit.receiverOverlaps;
  }
  progress["strategy"] = fit.independentProgress ? "independent" : "dependent";
  Json j;
  j["mode"] = o.mode;
  j["ranks"] = Json{{"world", run.worldSize}, {"measured", Json::array({0, 1})}};
  j["statistic"] = statisticName(o.statistic);
  j["repetitions"] = o.repetitions;
  j["warmup"] = o.warmup;
  j["wtick_s"] = run.wtick;
  j["threshold"] = Json{{"S_bytes", m.S},
                        {"status", thresholdName(m.threshold)}};
  j["fits"] = Json{{"O_i", lineJson(fit.Oi)},
                   {"O_c", lineJson(fit.Oc)},
                   {"O_i_rendezvous", lineJson(fit.OiRendezvous)},
                   {"wire", lineJson(fit.wire)},
                   {"O_ctrl_us", roundSignificant(fit.Octrl / 1000)},
                   {"O_ctrl_sizes", fit.rendezvousSizes}};
  j["progress"] = progress;
  j["sizes"] = sizes;
  j["model"] = Json::parse(modelText);
  j["output"] = o.output.empty() ? Json(nullptr) : Json(o.output);
  j["warnings"] = fit.warnings;
  j["eager_transfer"] = fit.receiverDriven ? "at-receive" : "at-send";
  j["degenerate"] = fit.degenerate;
  return j.dump(2, ' ', false, Json::error_handler_t::replace);
}

std::string loggpoSummaryText(const CalibrateOptions& o, const RunInfo& run,
                              const LogGpoMeasurement& m, const LogGpoFit& fit) {
  std::ostringstream out;
  out << "perwiz-calibrate: LogGPO between ranks 0 and 1 of " << run.worldSize << ", "
      << statisticName(o.statistic) << " of " << o.repetitions << " repetitions (+" << o.warmup
      << " warm-up)\n\n";
  out << "     bytes  protocol    ping-pong/2        Isend  Isend+Wait  Irecv+Wait   (µs)\n";
  for (const LogGpoSizeTimes& s : m.sizes) {
    char row[160];
    std::snprintf(row, sizeof row, "%10llu  %-10s %12.3f %12.3f %11.3f %11.3f\n",
                  static_cast<unsigned long long>(s.bytes),
                  isEager(m, s.bytes) ? "eager" : "rendezvous", s.pingPongHalf * 1e6,
                  s.isendPost * 1e6, s.isendTotal * 1e6, s.recvTotal * 1e6);
    out << row;
  }
  out << "\nS (largest eager message) = " << m.S << " bytes\n";
  out << "eager data moves " << (fit.receiverDriven ? "once the receive is posted (eager_transfer: at-receive)"
                                                     : "from the sender (eager_transfer: at-send)")
      << "; the wire's share of a one-way time: " << fixed(100 * fit.wireShare, 1) << " %\n";
  out << "L = " << fixed(fit.L / 1000, 3) << " µs, G = " << gapText(fit.G) << ", g = " << fixed(fit.g / 1000, 3)
      << " µs, O' = " << fixed(fit.Octrl / 1000, 3) << " µs\n";
  out << "O_i(k) = " << lineText(fit.Oi) << "\n";
  out << "O_c(k) = " << lineText(fit.Oc) << "\n";
  if (fit.OiRendezvous.valid()) out << "O_i(k), k > S = " << lineText(fit.OiRendezvous) << "\n";
  out << "duplex: " << (fit.halfDuplex ? "half" : "full, cross traffic " + fixed(fit.crossTraffic, 3)) << ", collectives: " << (fit.smpiCollectives ? "smpi" : "binomial") << "\n";
  const ProgressProbe& p = m.progress;
  if (p.measured)
    out << "progress (" << p.bytes << " bytes, " << fixed(p.awaySeconds * 1e6, 1)
        << " µs away from MPI): sender Wait " << fixed(p.senderAlone * 1e6, 3) << " → "
        << fixed(p.senderAfterAway * 1e6, 3) << " µs (" << side(fit.senderOverlaps)
        << "), receiver Wait " << fixed(p.receiverAlone * 1e6, 3) << " → "
        << fixed(p.receiverAfterAway * 1e6, 3) << " µs (" << side(fit.receiverOverlaps) << ")\n";
  out << "progress strategy: " << (fit.independentProgress ? "independent (ICP)" : "dependent (DCP)")
      << "\n";
  for (const std::string& w : fit.warnings) out << "warning: " << w << "\n";
  for (const std::string& d : fit.degenerate) out << "degenerate: " << d << "\n";
  if (!o.output.empty()) out << "model written to " << o.output << "\n";
  return out.str();
}

}  // namespace perwiz::calibrate
