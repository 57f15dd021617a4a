#include "trace_metrics.h"

#include <algorithm>
#include <map>
#include <stdexcept>
#include <string>

namespace perwiz::models {

std::int64_t timedPartNs(const nlohmann::json& events) {
  std::map<std::string, int> barriersSeen;  // per rank
  std::int64_t start = 0, end = 0;
  for (const nlohmann::json& e : events) {
    if (e.at("function") != "MPI_Barrier") continue;
    const std::string id = e.at("id").get<std::string>(), rank = id.substr(0, id.find(':'));
    const int n = ++barriersSeen[rank];
    const std::int64_t leave = e.at("leave_ns").get<std::int64_t>();
    if (n == 1) start = std::max(start, leave);
    if (n == 2) end = std::max(end, leave);
  }
  if (barriersSeen.empty()) throw std::runtime_error("the trace has no MPI_Barrier (the programs time between two)");
  for (const auto& [rank, n] : barriersSeen)
    if (n < 2) throw std::runtime_error("rank " + rank + " has " + std::to_string(n) + " MPI_Barrier, expected 2");
  return end - start;
}

std::int64_t communicationNs(const nlohmann::json& events) {
  std::int64_t sum = 0;
  for (const nlohmann::json& e : events) sum += e.at("leave_ns").get<std::int64_t>() - e.at("enter_ns").get<std::int64_t>();
  return sum;
}

}  // namespace perwiz::models
