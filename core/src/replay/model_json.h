// Helpers shared by the network models (internal): nanosecond rounding, linear costs, the µs
// JSON parameter format, and the collective cost from a point-to-point hop.
#pragma once

#include "perwiz/loggp_models.h"
#include "perwiz/network_model.h"

#include <nlohmann/json.hpp>

#include <functional>
#include <initializer_list>
#include <memory>
#include <string>

namespace perwiz::model_detail {

TimeNs roundNs(double ns);  // nearest ns, never negative
double eval(const LinearCost& c, std::uint64_t bytes);
double usToNs(double us);  // exact decimal scaling (9.11 µs -> 9110 ns)
double nsToUs(double ns);
void setError(std::string* error, std::string message);
nlohmann::ordered_json linearJson(const LinearCost& c);
bool readMicros(const nlohmann::json& v, const std::string& key, double* ns, std::string* problem);
bool readCount(const nlohmann::json& v, const std::string& key, std::uint64_t max,
               std::uint64_t* out, std::string* problem);
// A number in [0, 1].
bool readFraction(const nlohmann::json& v, const std::string& key, double* out, std::string* problem);
bool readLinear(const nlohmann::json& v, const std::string& key, LinearCost* out, std::string* problem);
// A key with two string values: *second = (v == b); anything else is a problem naming both.
bool readChoice(const nlohmann::json& v, const std::string& key, const char* a, const char* b, bool* second,
                std::string* problem);
// The "version" every model file written since issue #20 carries (absent: older files).
inline constexpr std::uint64_t kModelFileVersion = 2;
// A calibration file of perwiz-calibrate before issue #20 (docs/model.md, "Parameter files"):
// all of `calibrateKeys` present and L = G = 0. The problem (without the source), or "".
std::string olderCalibration(const nlohmann::json& j, std::initializer_list<const char*> calibrateKeys, double L,
                             double G, const char* mode);
TimeNs treeCollectiveCost(MpiOp op, std::uint64_t bytes, std::uint32_t members,
                          const std::function<double(std::uint64_t)>& hop);

// The LogGP and LogGPO parameter files (the "model" key already checked).
std::unique_ptr<NetworkModel> parseLogGp(const nlohmann::json& j, const std::string& source,
                                         const std::string& defaultName, std::string* error);
std::unique_ptr<NetworkModel> parseLogGpo(const nlohmann::json& j, const std::string& source,
                                          const std::string& defaultName, std::string* error);
LogGpParams loggpMyrinet();
LogGpoParams loggpoMyrinet();

}  // namespace perwiz::model_detail
