// mergeShareWarnings (perwiz/distributed.h): a trace's warnings from the warnings of its shares.
#include "perwiz/distributed.h"

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>

namespace perwiz {
namespace {

constexpr std::string_view kRepeated = "records in total: ";

struct Summary {
  std::uint64_t count = 0;
  std::string rest;  // the message after "N "
};

// "N rest" with no line and no position: a count the reader or builder gives once per load.
std::optional<Summary> asSummary(const Diagnostic& d) {
  if (d.line != -1 || !d.position.empty()) return std::nullopt;
  std::size_t i = 0;
  std::uint64_t n = 0;
  while (i < d.message.size() && d.message[i] >= '0' && d.message[i] <= '9') {
    if (i == 19) return std::nullopt;  // more digits than a count of records can have
    n = n * 10 + static_cast<std::uint64_t>(d.message[i] - '0');
    ++i;
  }
  if (i == 0 || i + 1 >= d.message.size() || d.message[i] != ' ') return std::nullopt;
  return Summary{n, d.message.substr(i + 1)};
}

}  // namespace

std::vector<Diagnostic> mergeShareWarnings(const std::vector<std::vector<Diagnostic>>& perShare,
                                           bool readWhole) {
  if (perShare.empty()) return {};
  if (readWhole) return perShare.front();
  // The messages of repeated anomalies: their first occurrence is kept once.
  std::set<std::string> repeated;
  for (const auto& share : perShare)
    for (const Diagnostic& d : share)
      if (auto s = asSummary(d); s && s->rest.starts_with(kRepeated))
        repeated.insert(s->rest.substr(kRepeated.size()));

  std::vector<Diagnostic> out;
  std::set<std::string> seen;             // toString() of what is in `out`
  std::set<std::string> firstOccurrence;  // repeated anomalies already kept
  std::vector<std::pair<std::string, std::string>> summaryOrder;  // (file, rest)
  std::map<std::pair<std::string, std::string>, std::uint64_t> totals;
  for (const auto& share : perShare) {
    std::set<std::pair<std::string, std::string>> inThisShare;
    for (const Diagnostic& d : share) {
      if (auto s = asSummary(d)) {
        auto key = std::make_pair(d.file, s->rest);
        // A share gives each summary once; a second copy would be a file it read twice.
        if (!inThisShare.insert(key).second) continue;
        auto [it, fresh] = totals.emplace(key, 0);
        if (fresh) summaryOrder.push_back(key);
        it->second += s->count;
        continue;
      }
      if (repeated.count(d.message) && !firstOccurrence.insert(d.file + '\n' + d.message).second) continue;
      if (seen.insert(d.toString()).second) out.push_back(d);
    }
  }
  for (const auto& key : summaryOrder) {
    const std::uint64_t n = totals[key];
    if (key.second.starts_with(kRepeated) && n < 2) continue;  // the whole load says it from 2 on
    out.push_back(Diagnostic{key.first, -1, "", std::to_string(n) + " " + key.second});
  }
  return out;
}

}  // namespace perwiz
