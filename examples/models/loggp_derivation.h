// LogGP parameters from a LogGPS calibration (docs/validation-models.md, "The three models").
//
// perwiz-calibrate measures LogGPS; LogGP (Alexandrov et al.) has one overhead o at each end and
// one per-byte term G, and no rendezvous mode. From the same measurement we take the LogGP
// machine whose end-to-end message time 2o + L + G·(k − 1) equals the calibrated eager
// ping-pong half o_s(k) + L + G·(k − 1) + o_r(k) at every size k (the line the calibration
// inverts, docs/calibrate.md): the overheads' intercepts are split evenly between the two ends,
// their per-byte slopes go into G (LogGP's only per-byte term), and L absorbs the one byte that
// G·(k − 1) leaves out.
#pragma once

#include <nlohmann/json.hpp>

#include <string>

namespace perwiz::models {

// LOGGPS is a LogGPS model file (docs/model.md §4; an overhead left at zero means o, as the
// loader reads it). Returns the LogGP model file {"model": "LogGP", name, L_us, o_us, g_us: 0,
// G_us_per_byte, P: 0}. Throws std::runtime_error if LOGGPS is not a LogGPS file.
nlohmann::ordered_json loggpFromLoggps(const nlohmann::json& loggps, const std::string& name);

}  // namespace perwiz::models
