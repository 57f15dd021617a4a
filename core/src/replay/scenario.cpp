// Hypotheses and scenarios: names, event references and the canonical JSON form.
#include "perwiz/scenario.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <charconv>
#include <fstream>
#include <iterator>
#include <sstream>

namespace perwiz {
namespace {

bool parseU32(std::string_view s, std::uint32_t& out) {
  if (s.empty()) return false;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  return ec == std::errc() && ptr == s.data() + s.size();
}

constexpr const char* kKindNames[] = {"zero-wait", "zero-event", "balance-compute", "balance-volume", "compensate"};
constexpr int kKinds = static_cast<int>(std::size(kKindNames));

}  // namespace

std::string EventRef::toString() const {
  return std::to_string(rank) + (computation ? ":c" : ":") + std::to_string(index);
}

bool parseEventRef(const std::string& text, EventRef& out) {
  const auto colon = text.find(':');
  if (colon == std::string::npos) return false;
  std::string_view rest = std::string_view(text).substr(colon + 1);
  EventRef e;
  e.computation = !rest.empty() && rest.front() == 'c';
  if (e.computation) rest.remove_prefix(1);
  if (!parseU32(std::string_view(text).substr(0, colon), e.rank) || !parseU32(rest, e.index)) return false;
  out = e;
  return true;
}

const char* hypothesisKindName(HypothesisKind k) { return kKindNames[static_cast<int>(k)]; }

bool parseHypothesisKind(const std::string& name, HypothesisKind& out) {
  for (int i = 0; i < kKinds; ++i)
    if (name == kKindNames[i]) {
      out = static_cast<HypothesisKind>(i);
      return true;
    }
  return false;
}

Hypothesis Hypothesis::compensate(std::int64_t overheadNsPerEvent) {
  Hypothesis h;
  h.kind = HypothesisKind::Compensate;
  h.overheadNs = overheadNsPerEvent;
  return h;
}

Hypothesis Hypothesis::compensateFromTrace() { return compensate(kOverheadFromTrace); }

std::string Hypothesis::toString() const {
  std::string s = hypothesisKindName(kind);
  if (targetsEvent()) return s + " " + event.toString();
  if (kind == HypothesisKind::Compensate)
    return overheadFromTrace() ? s + " overhead recorded in the trace" : s + " " + std::to_string(overheadNs) + " ns/event";
  return s + " step " + std::to_string(step);
}

const char* costModeName(CostMode m) { return m == CostMode::Measured ? "measured" : "model"; }

bool parseCostMode(const std::string& name, CostMode& out) {
  if (name == "measured") out = CostMode::Measured;
  else if (name == "model") out = CostMode::Model;
  else return false;
  return true;
}

Hypothesis Hypothesis::canonical() const {
  Hypothesis h = *this;
  if (!h.targetsEvent()) h.event = EventRef{};
  if (!h.targetsStep()) h.step = 0;
  if (h.kind != HypothesisKind::Compensate) h.overheadNs = 0;
  return h;
}

void Scenario::normalize() {
  for (Hypothesis& h : hypotheses) h = h.canonical();
  std::sort(hypotheses.begin(), hypotheses.end());
  hypotheses.erase(std::unique(hypotheses.begin(), hypotheses.end()), hypotheses.end());
}

std::string Scenario::toJson() const {
  Scenario s = *this;
  s.normalize();
  nlohmann::ordered_json j;
  j["perwiz_scenario"] = 1;
  const auto m = s.model ? s.model->clone() : defaultNetworkModel();
  j["model"] = nlohmann::ordered_json::parse(m->toJson());
  j["costs"] = costModeName(s.costs);
  j["hypotheses"] = nlohmann::ordered_json::array();
  for (const Hypothesis& h : s.hypotheses) {
    nlohmann::ordered_json e;
    e["kind"] = hypothesisKindName(h.kind);
    if (h.targetsEvent()) e["event"] = h.event.toString();
    else if (h.targetsStep()) e["step"] = h.step;
    else if (h.overheadFromTrace()) e["overhead_ns"] = "trace";
    else e["overhead_ns"] = h.overheadNs;
    j["hypotheses"].push_back(std::move(e));
  }
  return j.dump(2);
}

bool scenarioFromJson(const std::string& text, const std::string& source, Scenario& out, std::string* error) {
  auto fail = [&](const std::string& problem) {
    if (error) *error = source + ": " + problem;
    return false;
  };
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& e) {
    return fail(std::string("not valid JSON (") + e.what() + ")");
  }
  if (!j.is_object()) return fail("a scenario must be a JSON object");
  for (const auto& [key, value] : j.items()) {
    (void)value;
    if (key != "perwiz_scenario" && key != "model" && key != "costs" && key != "hypotheses")
      return fail("unknown key '" + key + "'");
  }
  if (!j.contains("perwiz_scenario") || !j["perwiz_scenario"].is_number_integer() || j["perwiz_scenario"] != 1)
    return fail("key 'perwiz_scenario' must be 1 (the scenario format version)");
  Scenario s;
  if (j.contains("model")) {
    std::string modelError;
    if (j["model"].is_string()) {
      s.model = loadNetworkModel(j["model"].get<std::string>(), &modelError);
      // The model file's problem, said of the scenario that names it.
      if (!s.model) modelError = source + ": " + modelError;
    } else {
      s.model = networkModelFromJson(j["model"].dump(), source + " (model)", &modelError);
    }
    if (!s.model) {
      if (error) *error = modelError;
      return false;
    }
  }
  if (j.contains("costs")) {
    if (!j["costs"].is_string() || !parseCostMode(j["costs"].get<std::string>(), s.costs))
      return fail("key 'costs' must be \"measured\" or \"model\"");
  }
  if (j.contains("hypotheses")) {
    if (!j["hypotheses"].is_array()) return fail("key 'hypotheses' must be an array");
    std::size_t i = 0;
    for (const auto& e : j["hypotheses"]) {
      const std::string where = "hypothesis " + std::to_string(i++) + ": ";
      if (!e.is_object() || !e.contains("kind") || !e["kind"].is_string())
        return fail(where + "needs a string 'kind'");
      Hypothesis h;
      if (!parseHypothesisKind(e["kind"].get<std::string>(), h.kind))
        return fail(where + "unknown kind '" + e["kind"].get<std::string>() +
                    "' (zero-wait, zero-event, balance-compute, balance-volume, compensate)");
      if (h.targetsEvent()) {
        if (!e.contains("event") || !e["event"].is_string() || !parseEventRef(e["event"].get<std::string>(), h.event))
          return fail(where + "needs 'event' as \"RANK:INDEX\" (or \"RANK:cINDEX\" for computation)");
        if (h.kind == HypothesisKind::ZeroWait && h.event.computation)
          return fail(where + "zero-wait applies to MPI calls, not computation");
      } else if (h.targetsStep()) {
        if (!e.contains("step") || !e["step"].is_number_unsigned())
          return fail(where + "needs 'step' as a non-negative integer");
        h.step = e["step"].get<std::uint32_t>();
      } else {  // compensate: nanoseconds per event, or "trace" for the tracer's own record
        const auto* v = e.contains("overhead_ns") ? &e["overhead_ns"] : nullptr;
        if (v && v->is_string() && v->get<std::string>() == "trace") h.overheadNs = kOverheadFromTrace;
        else if (v && v->is_number_unsigned()) h.overheadNs = v->get<std::int64_t>();
        else return fail(where + "compensate needs 'overhead_ns' as nanoseconds per event (an integer >= 0) or \"trace\"");
      }
      s.hypotheses.push_back(h);
    }
  }
  s.normalize();
  if (const std::string twice = compensationConflict(s.hypotheses); !twice.empty()) return fail(twice);
  out = std::move(s);
  return true;
}

std::string compensationConflict(const std::vector<Hypothesis>& hypotheses) {
  const Hypothesis* first = nullptr;
  for (const Hypothesis& h : hypotheses) {
    if (h.kind != HypothesisKind::Compensate) continue;
    if (first && !(h.canonical() == first->canonical()))
      return "two compensations ('" + first->toString() + "' and '" + h.toString() +
             "'): a scenario removes the instrumentation overhead once";
    first = &h;
  }
  return "";
}

bool loadScenario(const std::string& path, Scenario& out, std::string* error) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    if (error) *error = path + ": cannot open scenario file";
    return false;
  }
  std::ostringstream ss;
  ss << in.rdbuf();
  return scenarioFromJson(ss.str(), path, out, error);
}

}  // namespace perwiz
