// LogGPS network model, its presets and its JSON parameter files (paper §2.2, docs/model.md).
//
// Internally every time is a double in nanoseconds (per-byte terms in ns/byte); results are
// rounded to the nearest nanosecond only at the end. Parameter files use microseconds, the unit
// of the papers.

#include "perwiz/network_model.h"

#include "perwiz/checked_time.h"
#include "perwiz/output_file.h"
#include "perwiz/trace_io.h"

#include "model_json.h"
#include "transfer_rules.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <functional>
#include <fstream>
#include <initializer_list>
#include <limits>
#include <sstream>
#include <system_error>
#include <utility>

namespace perwiz {
namespace model_detail {

// ---- times ----------------------------------------------------------------------------------

// Rounds nanoseconds to the nearest integer, never negative (NaN -> 0, huge values saturate).
TimeNs roundNs(double ns) {
  if (!(ns > 0)) return 0;
  if (ns >= 9.2e18) return std::numeric_limits<TimeNs>::max();
  return static_cast<TimeNs>(std::llround(ns));
}

double eval(const LinearCost& c, std::uint64_t bytes) {
  return c.a + c.b * static_cast<double>(bytes);
}

}  // namespace model_detail

namespace {

using namespace model_detail;
namespace fs = std::filesystem;

bool isZero(const LinearCost& c) { return c.a == 0 && c.b == 0; }

// The linear costs the model actually uses. Overheads that are not given default to {o, 0};
// synchronous times that are not given default to o_s(k) + 2·(o_s(0) + L): the request REQ
// goes out and the ACK comes back (o + L each) before the data leaves like an eager message.
struct Effective {
  LinearCost send, recv, syncSend, syncRecv;
};

Effective effective(const LogGpsParams& p) {
  Effective e;
  e.send = isZero(p.sendOverhead) ? LinearCost{p.o, 0} : p.sendOverhead;
  e.recv = isZero(p.recvOverhead) ? LinearCost{p.o, 0} : p.recvOverhead;
  e.syncSend = isZero(p.syncSend) ? LinearCost{e.send.a + 2 * (e.send.a + p.L), e.send.b}
                                  : p.syncSend;
  e.syncRecv = isZero(p.syncRecv) ? LinearCost{e.recv.a + 2 * (e.recv.a + p.L), e.recv.b}
                                  : p.syncRecv;
  return e;
}

}  // namespace

namespace model_detail {

// ---- µs <-> ns ------------------------------------------------------------------------------

static std::size_t shortestLength(double v) {
  char buf[64];
  auto r = std::to_chars(buf, buf + sizeof buf, v);
  return r.ec == std::errc() ? static_cast<std::size_t>(r.ptr - buf) : sizeof buf;
}

// Files are written with ns / 1000.0. Reading scales the decimal form by 10^3 exactly, so that
// 9.11 µs is 9110 ns and not 9.11 * 1000 = 9110.000000000002. When that value does not write
// back as the same µs number, the nearest few doubles that do are tried (shortest decimal form
// first), so that a file reads and writes back unchanged and save/load round trips are exact.
double usToNs(double us) {
  if (!std::isfinite(us) || us == 0) return us * 1000;
  char buf[64];
  auto r = std::to_chars(buf, buf + sizeof buf, us, std::chars_format::scientific);
  if (r.ec != std::errc()) return us * 1000;
  std::string text(buf, r.ptr);
  std::size_t e = text.find('e');
  if (e == std::string::npos) return us * 1000;
  int exponent = std::atoi(text.c_str() + e + 1);
  std::string scaled = text.substr(0, e) + "e" + std::to_string(exponent + 3);
  double ns = us * 1000;
  auto parsed = std::from_chars(scaled.data(), scaled.data() + scaled.size(), ns);
  if (parsed.ec != std::errc()) ns = us * 1000;

  double best = ns;
  std::size_t bestLength = ns / 1000.0 == us ? shortestLength(ns) : std::size_t(1000);
  double up = ns, down = ns;
  for (int i = 0; i < 4; ++i) {
    up = std::nextafter(up, std::numeric_limits<double>::infinity());
    down = std::nextafter(down, -std::numeric_limits<double>::infinity());
    for (double c : {down, up}) {
      if (c / 1000.0 != us) continue;
      std::size_t length = shortestLength(c);
      if (length < bestLength) {
        best = c;
        bestLength = length;
      }
    }
  }
  return best;
}

double nsToUs(double ns) { return ns / 1000.0; }

}  // namespace model_detail

namespace {

// ---- presets --------------------------------------------------------------------------------

LinearCost usLinear(double aUs, double bUsPerByte) {
  return LinearCost{usToNs(aUs), usToNs(bUsPerByte)};
}

LogGpsParams myrinetScore() {
  // English paper §5 (SCore PM on Myrinet): L = 9.11 µs, o = 2.15 µs, S = 16383 bytes. The
  // linear overheads are left zero, so they default to {o, 0} and the synchronous times to
  // 3o + 2L.
  LogGpsParams p;
  p.name = "myrinet-score";
  p.L = usToNs(9.11);
  p.o = usToNs(2.15);
  p.S = 16383;
  return p;
}

LogGpsParams myrinetTable5() {
  // Japanese paper, Table 5, Myrinet column (k in bytes, times in µs).
  LogGpsParams p;
  p.name = "myrinet-table5";
  p.L = usToNs(9.11);
  p.o = usToNs(2.15);
  p.S = 16383;
  p.sendOverhead = usLinear(2.15, 0.00188);   // asynchronous send
  p.recvOverhead = usLinear(2.15, 0.000937);  // asynchronous receive
  p.syncSend = usLinear(28.9, 0.00358);       // synchronous send
  p.syncRecv = usLinear(90.3, 0.00485);       // synchronous receive
  return p;
}

LogGpsParams ethernetTable5() {
  // Japanese paper, Table 5, Ethernet column (k in bytes, times in µs).
  // The paper does not print Ethernet's L. It is derived from the synchronous send time at
  // k = 0 under LogGPS, where a synchronous send is REQ out, ACK back, then the data:
  //   t_send_sync(0) = 3o + 2L  =>  L = (175 - 3 * 12.1) / 2 = 69.35 µs.
  LogGpsParams p;
  p.name = "ethernet-table5";
  p.L = usToNs(69.35);
  p.o = usToNs(12.1);
  p.S = 127999;
  p.sendOverhead = usLinear(12.1, 0.0901);
  p.recvOverhead = usLinear(12.1, 0.0568);
  p.syncSend = usLinear(175, 0.0859);
  p.syncRecv = usLinear(264, 0.0900);
  return p;
}

}  // namespace

namespace model_detail {

// ---- JSON -----------------------------------------------------------------------------------

void setError(std::string* error, std::string message) {
  if (error) *error = std::move(message);
}

nlohmann::ordered_json linearJson(const LinearCost& c) {
  nlohmann::ordered_json j;
  j["a"] = nsToUs(c.a);
  j["b_per_byte"] = nsToUs(c.b);
  return j;
}

// Parsing helpers: each returns false and fills `problem` (without the source prefix).
bool readMicros(const nlohmann::json& v, const std::string& key, double* ns,
                std::string* problem) {
  if (!v.is_number() || !(v.get<double>() >= 0) || !std::isfinite(v.get<double>())) {
    *problem = "key '" + key + "' must be a non-negative number";
    return false;
  }
  *ns = usToNs(v.get<double>());
  return true;
}

bool readFraction(const nlohmann::json& v, const std::string& key, double* out, std::string* problem) {
  if (!v.is_number() || !(v.get<double>() >= 0) || !(v.get<double>() <= 1)) {
    *problem = "key '" + key + "' must be a number from 0 to 1";
    return false;
  }
  *out = v.get<double>();
  return true;
}

bool readCount(const nlohmann::json& v, const std::string& key, std::uint64_t max,
               std::uint64_t* out, std::string* problem) {
  bool ok = false;
  if (v.is_number_unsigned()) {
    *out = v.get<std::uint64_t>();
    ok = true;
  } else if (v.is_number_integer()) {
    ok = v.get<std::int64_t>() >= 0;
    if (ok) *out = static_cast<std::uint64_t>(v.get<std::int64_t>());
  } else if (v.is_number_float()) {
    double d = v.get<double>();
    ok = d >= 0 && d < 18446744073709551616.0 && std::floor(d) == d;
    if (ok) *out = static_cast<std::uint64_t>(d);
  }
  if (!ok) {
    *problem = "key '" + key + "' must be a non-negative integer";
    return false;
  }
  if (*out > max) {
    *problem = "key '" + key + "' is too large (at most " + std::to_string(max) + ")";
    return false;
  }
  return true;
}

bool readChoice(const nlohmann::json& v, const std::string& key, const char* a, const char* b, bool* second,
                std::string* problem) {
  if (v.is_string() && (v.get<std::string>() == a || v.get<std::string>() == b)) {
    *second = v.get<std::string>() == b;
    return true;
  }
  *problem = "key '" + key + "' must be \"" + a + "\" or \"" + b + "\", not " + v.dump();
  return false;
}

bool readLinear(const nlohmann::json& v, const std::string& key, LinearCost* out,
                std::string* problem) {
  if (!v.is_object()) {
    *problem = "key '" + key + "' must be an object {\"a\": µs, \"b_per_byte\": µs}";
    return false;
  }
  for (auto it = v.begin(); it != v.end(); ++it) {
    if (it.key() == "a") {
      if (!readMicros(it.value(), key + ".a", &out->a, problem)) return false;
    } else if (it.key() == "b_per_byte") {
      if (!readMicros(it.value(), key + ".b_per_byte", &out->b, problem)) return false;
    } else {
      *problem = "unknown key '" + key + "." + it.key() + "' (expected 'a', 'b_per_byte')";
      return false;
    }
  }
  return true;
}

std::string olderCalibration(const nlohmann::json& j, std::initializer_list<const char*> calibrateKeys, double L,
                             double G, const char* mode) {
  if (L != 0 || G != 0 || j.contains("version")) return {};  // written by a perwiz-calibrate that fits L and G
  for (const char* k : calibrateKeys)
    if (!j.contains(k)) return {};  // not the shape perwiz-calibrate writes: the user's own choice
  return std::string(
             "keys 'L_us' and 'G_us_per_byte' are both 0 in a file of perwiz-calibrate's shape: a calibration "
             "by an older perwiz-calibrate (no \"version\" key), which under SMPI's default settings put the whole "
             "transfer into "
             "the overheads, so that model-cost predictions come out wrong. Calibrate again (perwiz-calibrate "
             "--mode ") +
         mode + "), or give L_us and G_us_per_byte yourself";
}

// Collective cost from the cost of one point-to-point message `hop(k)` (docs/model.md §3).
TimeNs treeCollectiveCost(MpiOp op, std::uint64_t bytes, std::uint32_t members,
                          const std::function<double(std::uint64_t)>& hop) {
  const std::uint32_t P = std::max<std::uint32_t>(members, 1);
  unsigned d = 0;  // ceil(log2(P)): rounds of a binomial tree
  while ((std::uint64_t(1) << d) < P) ++d;
  switch (op) {
    case MpiOp::Barrier:
      return roundNs(d * hop(0));
    case MpiOp::Bcast:
    case MpiOp::Reduce:
    case MpiOp::Gather:
    case MpiOp::Gatherv:
    case MpiOp::Scatter:
    case MpiOp::Scatterv:
    case MpiOp::Scan:
    case MpiOp::Exscan:
      return roundNs(d * hop(bytes));
    case MpiOp::Allreduce:
      return roundNs(2.0 * d * hop(bytes));
    case MpiOp::Allgather:
    case MpiOp::Allgatherv:
    case MpiOp::Alltoall:
    case MpiOp::Alltoallv:
    case MpiOp::Alltoallw:
    case MpiOp::ReduceScatter:
    case MpiOp::ReduceScatterBlock:
      // P - 1 exchange steps, each moving one member's share of the buffer.
      return P <= 1 ? 0 : roundNs(static_cast<double>(P - 1) * hop(bytes / P));
    default:
      return 0;
  }
}

}  // namespace model_detail

namespace {

std::unique_ptr<NetworkModel> parseModel(const std::string& text, const std::string& source,
                                         const std::string& defaultName, std::string* error) {
  auto fail = [&](const std::string& problem) -> std::unique_ptr<NetworkModel> {
    setError(error, source + ": " + problem);
    return nullptr;
  };
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& e) {
    return fail(std::string("invalid JSON: ") + e.what());
  }
  if (!j.is_object()) return fail("expected a JSON object with the model's parameters");

  auto modelIt = j.find("model");
  if (modelIt == j.end()) {
    // An overhead profile (perwiz-calibrate --mode profile) given where a model belongs.
    if (auto f = j.find("format"); f != j.end() && f->is_string() && *f == "perwiz-overhead-profile")
      return fail("this is an overhead profile (key 'format': perwiz-overhead-profile), not a network model; give it "
                  "to perwiz-cli overhead --profile, and here a file of perwiz-calibrate --mode loggps or loggpo");
    return fail("missing required key 'model' (supported: LogGPS, LogGP, LogGPO)");
  }
  std::string kind = modelIt->is_string() ? modelIt->get<std::string>() : modelIt->dump();
  if (kind == "LogGP") return parseLogGp(j, source, defaultName, error);
  if (kind == "LogGPO") return parseLogGpo(j, source, defaultName, error);
  if (kind != "LogGPS") return fail("unsupported model '" + kind + "' (supported: LogGPS, LogGP, LogGPO)");

  for (const char* required : {"L_us", "o_us", "S_bytes"})
    if (!j.contains(required)) return fail(std::string("missing required key '") + required + "'");

  LogGpsParams p;
  p.name = defaultName;
  std::string problem;
  for (auto it = j.begin(); it != j.end(); ++it) {
    const std::string& key = it.key();
    const nlohmann::json& v = it.value();
    bool ok = true;
    std::uint64_t count = 0;
    if (key == "model") {
      continue;
    } else if (key == "name") {
      if (!v.is_string() || v.get<std::string>().empty()) {
        problem = "key 'name' must be a non-empty string";
        ok = false;
      } else {
        p.name = v.get<std::string>();
      }
    } else if (key == "L_us") {
      ok = readMicros(v, key, &p.L, &problem);
    } else if (key == "o_us") {
      ok = readMicros(v, key, &p.o, &problem);
    } else if (key == "g_us") {
      ok = readMicros(v, key, &p.g, &problem);
    } else if (key == "G_us_per_byte") {
      ok = readMicros(v, key, &p.G, &problem);
    } else if (key == "P") {
      ok = readCount(v, key, std::numeric_limits<std::uint32_t>::max(), &count, &problem);
      p.P = static_cast<std::uint32_t>(count);
    } else if (key == "S_bytes") {
      ok = readCount(v, key, std::numeric_limits<std::uint64_t>::max(), &p.S, &problem);
    } else if (key == "s_bytes") {
      ok = readCount(v, key, std::numeric_limits<std::uint64_t>::max(), &p.s, &problem);
    } else if (key == "send_overhead_us") {
      ok = readLinear(v, key, &p.sendOverhead, &problem);
    } else if (key == "recv_overhead_us") {
      ok = readLinear(v, key, &p.recvOverhead, &problem);
    } else if (key == "sync_send_us") {
      ok = readLinear(v, key, &p.syncSend, &problem);
    } else if (key == "sync_recv_us") {
      ok = readLinear(v, key, &p.syncRecv, &problem);
    } else if (key == "version") {
      ok = readCount(v, key, kModelFileVersion, &count, &problem);
    } else if (key == "collectives") {
      ok = readChoice(v, key, "binomial", "smpi", &p.smpiCollectives, &problem);
    } else if (key == "duplex") {
      ok = readChoice(v, key, "full", "half", &p.halfDuplex, &problem);
    } else if (key == "cross_traffic") {
      ok = readFraction(v, key, &p.crossTraffic, &problem);
    } else if (key == "eager_transfer") {
      ok = readChoice(v, key, "at-send", "at-receive", &p.eagerAtReceive, &problem);
    } else {
      problem = "unknown key '" + key + "'";
      ok = false;
    }
    if (!ok) return fail(problem);
  }
  if (std::string why = olderCalibration(j, {"g_us", "s_bytes", "P", "send_overhead_us", "recv_overhead_us",
                                             "sync_send_us", "sync_recv_us"}, p.L, p.G, "loggps");
      !why.empty())
    return fail(why);
  return std::make_unique<LogGpsModel>(std::move(p));
}

std::string presetList() {
  std::string out;
  for (const std::string& n : networkPresetNames()) out += (out.empty() ? "" : ", ") + n;
  return out;
}

}  // namespace

// ---- NetworkModel ---------------------------------------------------------------------------

TimeNs NetworkModel::callCost(std::span<const RoleUse> roles) const {
  TimeNs sum = 0;
  for (const RoleUse& r : roles) sum = satAdd(sum, roleCost(r.role, r.bytes));
  return sum;
}

// ---- LinearCost / LogGpsModel ---------------------------------------------------------------

TimeNs LinearCost::at(std::uint64_t bytes) const { return roundNs(eval(*this, bytes)); }

bool LogGpsModel::synchronous(std::uint64_t bytes) const { return bytes > p_.S; }

namespace {

// LogGPS's costs in the shared rules' terms (transfer_rules.h).
class LogGpsCosts final : public TransferCosts {
 public:
  explicit LogGpsCosts(const LogGpsParams& p) : p_(p), e_(effective(p)) {}

  bool synchronous(std::uint64_t bytes) const override { return bytes > p_.S; }

  // L + G·(k − 1) + (packets − 1)·g
  double wire(std::uint64_t bytes) const {
    std::uint64_t packets = 1;
    if (p_.s != 0 && bytes > p_.s) packets = bytes / p_.s + (bytes % p_.s != 0 ? 1 : 0);
    const double perByte = bytes > 0 ? static_cast<double>(bytes - 1) : 0.0;
    return p_.L + p_.G * perByte + static_cast<double>(packets - 1) * p_.g;
  }

  CostParts roleParts(CommRole role, std::uint64_t bytes) const override {
    const bool sync = synchronous(bytes);
    const double k = static_cast<double>(bytes);
    auto line = [&](const LinearCost& c) { return CostParts{eval(c, bytes), c.b * k}; };
    auto received = [&] {  // an eager receive: o_r(k), plus the wire where the receive moves it
      CostParts r = line(e_.recv);
      if (p_.eagerAtReceive) {
        const double w = wire(bytes);
        r.cost += w;
        r.perByte += w - p_.L;  // G·(k − 1) and the packets' gaps
      }
      return r;
    };
    switch (role) {
      case CommRole::BlockingSend:
        if (sync) return line(e_.syncSend);
        return eval(e_.send, bytes) >= p_.g ? line(e_.send) : CostParts{p_.g, 0};
      case CommRole::BlockingRecv:
        return sync ? line(e_.syncRecv) : received();
      case CommRole::IsendPost:
        if (sync) return {eval(e_.send, 0), 0};
        return eval(e_.send, bytes) >= p_.g ? line(e_.send) : CostParts{p_.g, 0};
      case CommRole::IsendComplete: {
        if (!sync) return {};
        const double c = std::max(eval(e_.syncSend, bytes) - eval(e_.send, 0), 0.0);
        return {c, std::min(c, e_.syncSend.b * k)};
      }
      case CommRole::IrecvPost:
        return {};
      case CommRole::IrecvComplete:
        return sync ? line(e_.syncRecv) : received();
    }
    return {};
  }

  CostParts hop(std::uint64_t bytes) const override {
    if (synchronous(bytes)) {  // a rendezvous transfer: the longer of its two sides
      const CostParts s = roleParts(CommRole::BlockingSend, bytes), r = roleParts(CommRole::BlockingRecv, bytes);
      return s.cost >= r.cost ? s : r;
    }
    // Eager: the send's overhead, the wire, the receive's overhead (with the receiver waiting,
    // where the data moves does not matter).
    const double k = static_cast<double>(bytes);
    const double w = wire(bytes);
    return {eval(e_.send, bytes) + w + eval(e_.recv, bytes), e_.send.b * k + (w - p_.L) + e_.recv.b * k};
  }

  double perMessage(bool in) const override { return in ? e_.recv.a : e_.send.a; }
  double gap() const override { return p_.g; }

 private:
  const LogGpsParams& p_;
  Effective e_;
};

}  // namespace

TimeNs LogGpsModel::arrivalDelay(std::uint64_t bytes) const {
  const Effective e = effective(p_);
  if (synchronous(bytes)) return roundNs(eval(e.send, 0) + p_.L);  // the REQ: o_s(0) + L
  return roundNs(eval(e.send, bytes) + LogGpsCosts(p_).wire(bytes));
}

TimeNs LogGpsModel::receiveDelay(CommRole, std::uint64_t bytes) const {
  // Eager data that moves once its receive is posted: the receive can start moving it as soon
  // as the send has been called and has spent its overhead; the wire is the receive's own cost.
  if (p_.eagerAtReceive && !synchronous(bytes)) return roundNs(eval(effective(p_).send, bytes));
  return arrivalDelay(bytes);
}

TimeNs LogGpsModel::roleCost(CommRole role, std::uint64_t bytes) const {
  return roundNs(LogGpsCosts(p_).roleParts(role, bytes).cost);
}

TimeNs LogGpsModel::callCost(std::span<const RoleUse> roles) const {
  // Concurrency within a call (docs/model.md §3; transfer_rules.h).
  return roundNs(overlappedCallCost(LogGpsCosts(p_), roles, p_.halfDuplex ? 1.0 : p_.crossTraffic));
}

TimeNs LogGpsModel::memberCost(MpiOp op, std::uint64_t bytes, std::uint32_t members, std::uint32_t relative) const {
  if (p_.smpiCollectives)
    if (const double c = smpiCollective(LogGpsCosts(p_), op, bytes, members, relative % std::max<std::uint32_t>(members, 1)); c >= 0)
      return roundNs(c);
  return collectiveCost(op, bytes, members);
}

bool LogGpsModel::collectiveTree(MpiOp op, std::uint64_t bytes, std::uint32_t members, std::uint32_t relative,
                              std::vector<CollectiveTreeDep>& deps, TimeNs& local) const {
  deps.clear();
  return p_.smpiCollectives && smpiCollectiveTree(LogGpsCosts(p_), op, bytes, members, relative, deps, local);
}

TimeNs LogGpsModel::collectiveQueue(MpiOp op, std::uint64_t bytes, std::uint32_t members) const {
  return p_.smpiCollectives ? roundNs(smpiCollectiveQueue(LogGpsCosts(p_), op, bytes, members)) : 0;
}

TimeNs LogGpsModel::collectiveCost(MpiOp op, std::uint64_t bytes, std::uint32_t members) const {
  // SMPI's family: the member that finishes last (the broadcast tree's deepest leaf, ...).
  const LogGpsCosts m(p_);
  if (p_.smpiCollectives)
    if (const double worst = smpiCollectiveWorst(m, op, bytes, members); worst >= 0) return roundNs(worst);
  const Effective e = effective(p_);
  // At-receive: o_r no longer holds the wire, so a hop adds it (o_s + L + G·(k − 1) + o_r).
  // A rendezvous hop is its transfer, the longer of t_ss(k) and t_sr(k) (issue #20: the eager
  // overheads' lines, fitted below S, do not extend to it).
  return treeCollectiveCost(op, bytes, members, [&](std::uint64_t k) {
    if (synchronous(k)) return m.hop(k).cost;
    return p_.eagerAtReceive ? eval(e.send, k) + m.wire(k) + eval(e.recv, k) : eval(e.send, k) + p_.L + eval(e.recv, k);
  });
}

std::string LogGpsModel::toJson() const {
  try {
    nlohmann::ordered_json j;
    j["model"] = "LogGPS";
    j["version"] = kModelFileVersion;
    j["name"] = p_.name;
    j["L_us"] = nsToUs(p_.L);
    j["o_us"] = nsToUs(p_.o);
    j["g_us"] = nsToUs(p_.g);
    j["G_us_per_byte"] = nsToUs(p_.G);
    j["P"] = p_.P;
    j["S_bytes"] = p_.S;
    j["s_bytes"] = p_.s;
    j["send_overhead_us"] = linearJson(p_.sendOverhead);
    j["recv_overhead_us"] = linearJson(p_.recvOverhead);
    j["sync_send_us"] = linearJson(p_.syncSend);
    j["sync_recv_us"] = linearJson(p_.syncRecv);
    if (p_.eagerAtReceive) j["eager_transfer"] = "at-receive";
    if (p_.halfDuplex) j["duplex"] = "half";
    if (p_.crossTraffic > 0) j["cross_traffic"] = p_.crossTraffic;
    if (p_.smpiCollectives) j["collectives"] = "smpi";
    // A name that is not valid UTF-8 is written with replacement characters, not thrown on.
    return j.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
  } catch (const std::exception&) {
    return std::string();
  }
}

std::unique_ptr<NetworkModel> LogGpsModel::clone() const {
  return std::make_unique<LogGpsModel>(*this);
}

// ---- presets, loading, saving ---------------------------------------------------------------

std::vector<std::string> networkPresetNames() {
  return {"myrinet-score", "myrinet-table5", "ethernet-table5", "loggp-myrinet", "loggpo-myrinet"};
}

std::unique_ptr<NetworkModel> networkPreset(const std::string& name) {
  if (name == "myrinet-score") return std::make_unique<LogGpsModel>(myrinetScore());
  if (name == "myrinet-table5") return std::make_unique<LogGpsModel>(myrinetTable5());
  if (name == "ethernet-table5") return std::make_unique<LogGpsModel>(ethernetTable5());
  if (name == "loggp-myrinet") return std::make_unique<LogGpModel>(model_detail::loggpMyrinet());
  if (name == "loggpo-myrinet") return std::make_unique<LogGpoModel>(model_detail::loggpoMyrinet());
  return nullptr;
}

std::unique_ptr<NetworkModel> defaultNetworkModel() { return networkPreset("myrinet-score"); }

std::unique_ptr<NetworkModel> networkModelFromJson(const std::string& json,
                                                   const std::string& source, std::string* error) {
  try {
    // Without a "name", a model read from a .json file is named after the file.
    std::string defaultName = "custom";
    fs::path path(source);
    if (path.extension() == ".json" && !path.stem().empty()) defaultName = path.stem().string();
    return parseModel(json, source, defaultName, error);
  } catch (const std::exception& e) {
    setError(error, source + ": " + e.what());
    return nullptr;
  }
}

std::unique_ptr<NetworkModel> loadNetworkModel(const std::string& presetOrFile,
                                               std::string* error) {
  try {
    if (auto preset = networkPreset(presetOrFile)) return preset;
    std::error_code ec;
    const fs::path path(presetOrFile);
    std::ifstream in;
    if (!fs::is_directory(path, ec)) in.open(path, std::ios::binary);
    if (!in.is_open() || !in) {
      setError(error, presetOrFile + ": cannot open model file (and it is not a preset: " +
                          presetList() + ")");
      return nullptr;
    }
    std::ostringstream text;
    text << in.rdbuf();
    if (in.bad()) {
      setError(error, presetOrFile + ": cannot read model file");
      return nullptr;
    }
    std::string defaultName = path.stem().empty() ? "custom" : path.stem().string();
    return parseModel(text.str(), presetOrFile, defaultName, error);
  } catch (const std::exception& e) {
    setError(error, presetOrFile + ": " + e.what());
    return nullptr;
  }
}

bool saveNetworkModel(const NetworkModel& model, const std::string& path, std::string* error) {
  try {
    std::error_code ec;
    if (fs::exists(fs::symlink_status(path, ec))) {
      setError(error, path + ": file exists; not overwritten");
      return false;
    }
    std::string text = model.toJson();
    if (text.empty()) {
      setError(error, path + ": the model cannot be written as JSON");
      return false;
    }
    text += "\n";
    // The shared output path (output_file.h): complete or absent, a file appearing meanwhile kept.
    writeOutputFile(path, text);
    return true;
  } catch (const TraceError& e) {
    setError(error, e.what());  // names the file and the OS error
    return false;
  } catch (const std::exception& e) {
    setError(error, path + ": " + e.what());
    return false;
  }
}

}  // namespace perwiz
