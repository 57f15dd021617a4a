// LogGP and LogGPO network models and their parameter files (docs/model.md §4).

#include "perwiz/loggp_models.h"

#include "model_json.h"
#include "transfer_rules.h"

#include <algorithm>
#include <functional>
#include <limits>

namespace perwiz {

using namespace model_detail;

namespace {

double bytesMinusOne(std::uint64_t k) { return k > 0 ? static_cast<double>(k - 1) : 0.0; }

}  // namespace

// ---- LogGP ----------------------------------------------------------------------------------

TimeNs LogGpModel::arrivalDelay(std::uint64_t bytes) const {
  return roundNs(p_.o + p_.G * bytesMinusOne(bytes) + p_.L);
}

TimeNs LogGpModel::messageTime(std::uint64_t bytes) const {
  return roundNs(2 * p_.o + p_.G * bytesMinusOne(bytes) + p_.L);
}

TimeNs LogGpModel::roleCost(CommRole role, std::uint64_t) const {
  // The processor is busy o at each end; the wire time G·(k−1) overlaps (LogGP's assumption of
  // full overlap), and consecutive sends are at least g apart.
  switch (role) {
    case CommRole::BlockingSend:
    case CommRole::IsendPost:
      return roundNs(std::max(p_.o, p_.g));
    case CommRole::BlockingRecv:
    case CommRole::IrecvComplete:
      return roundNs(p_.o);
    case CommRole::IsendComplete:
    case CommRole::IrecvPost:
      return 0;
  }
  return 0;
}

TimeNs LogGpModel::collectiveCost(MpiOp op, std::uint64_t bytes, std::uint32_t members) const {
  return treeCollectiveCost(op, bytes, members,
                            [&](std::uint64_t k) { return 2 * p_.o + p_.G * bytesMinusOne(k) + p_.L; });
}

std::string LogGpModel::toJson() const {
  nlohmann::ordered_json j;
  j["model"] = "LogGP";
  j["version"] = kModelFileVersion;
  j["name"] = p_.name;
  j["L_us"] = nsToUs(p_.L);
  j["o_us"] = nsToUs(p_.o);
  j["g_us"] = nsToUs(p_.g);
  j["G_us_per_byte"] = nsToUs(p_.G);
  j["P"] = p_.P;
  return j.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
}

std::unique_ptr<NetworkModel> LogGpModel::clone() const { return std::make_unique<LogGpModel>(*this); }

// ---- LogGPO ---------------------------------------------------------------------------------

namespace {

// O_i(k) of the message's protocol: the rendezvous line where one is given.
double initOverhead(const LogGpoParams& p, std::uint64_t bytes) {
  return eval(bytes > p.S && p.OiRendezvous ? *p.OiRendezvous : p.Oi, bytes);
}
double initPerByte(const LogGpoParams& p, std::uint64_t bytes) {
  return (bytes > p.S && p.OiRendezvous ? p.OiRendezvous->b : p.Oi.b) * static_cast<double>(bytes);
}

// LogGPO's role costs in the shared rules' terms (transfer_rules.h), with the partner in time.
class LogGpoRoles final : public TransferCosts {
 public:
  explicit LogGpoRoles(const LogGpoParams& p) : p_(p) {}

  bool synchronous(std::uint64_t bytes) const override { return bytes > p_.S; }

  CostParts roleParts(CommRole role, std::uint64_t bytes) const override {
    const double k = static_cast<double>(bytes);
    const double Oi = initOverhead(p_, bytes), Oc = eval(p_.Oc, bytes), O1 = p_.Octrl;
    const double GK = p_.G * bytesMinusOne(bytes);
    const CostParts rdma{Oi + GK, initPerByte(p_, bytes) + GK};  // O_i(k) + G(k − 1)
    auto plus = [](double fixed, CostParts x) { return CostParts{fixed + x.cost, x.perByte}; };
    const bool dcp = p_.progress == ProgressStrategy::Dependent;
    if (!synchronous(bytes)) {
      // §2.2.1: O_s = O_i (nothing left for the Wait), O_r = O_c paid where the message is
      // copied out of the library's buffer — the receive's Wait.
      switch (role) {
        case CommRole::BlockingSend:
        case CommRole::IsendPost:
          return {Oi, initPerByte(p_, bytes)};
        case CommRole::BlockingRecv:
        case CommRole::IrecvComplete:
          if (p_.eagerAtReceive) return {p_.L + GK + Oc, GK + p_.Oc.b * k};
          return {Oc, p_.Oc.b * k};
        case CommRole::IsendComplete:
        case CommRole::IrecvPost:
          return {};
      }
      return {};
    }
    // §2.2.2 with the partner in time (its lateness is the replay's wait, not a cost):
    switch (role) {
      case CommRole::BlockingSend:
        // REQ (O'), the receiver answers after L (2O'), the ACK flies L, then the RDMA write.
        return plus(3 * O1 + 2 * p_.L, rdma);
      case CommRole::IsendPost:
        return {O1, 0};  // the REQ
      case CommRole::IsendComplete:
        // DCP: the handshake advances only in this Wait, O_sw = 2O' + L + O_i + G(k−1);
        // ICP: it ran in the background and so does the write: the Wait waits for the write's
        // end through sendDelay and has nothing left to do.
        return dcp ? plus(2 * O1 + p_.L, rdma) : CostParts{};
      case CommRole::IrecvPost:
        return {};  // case (b): the REQ has not arrived; the Irecv returns at once
      case CommRole::BlockingRecv:
        // After the REQ arrives: answer (2O'), ACK flight L, RDMA write, data flight L.
        return plus(2 * O1 + 2 * p_.L, rdma);
      case CommRole::IrecvComplete:
        // DCP: O_r = O' + O_rw with O_rw = 2O' + L + O_i + G(k−1), from the REQ's arrival;
        // ICP: the data is waited for through receiveDelay, nothing is left to do.
        return dcp ? plus(3 * O1 + p_.L, rdma) : CostParts{};
    }
    return {};
  }

  CostParts hop(std::uint64_t bytes) const override {
    // Rendezvous: the longer side, the blocking send (3O' + 2L + O_i + G(k − 1)). Eager, the
    // receiver waiting: O_i(k) + L + G(k − 1) + O_c(k) wherever the data moves.
    if (synchronous(bytes)) return roleParts(CommRole::BlockingSend, bytes);
    const double GK = p_.G * bytesMinusOne(bytes);
    return {initOverhead(p_, bytes) + p_.L + GK + eval(p_.Oc, bytes),
            initPerByte(p_, bytes) + GK + p_.Oc.b * static_cast<double>(bytes)};
  }

  double perMessage(bool in) const override { return in ? p_.Oc.a : p_.Oi.a; }
  double gap() const override { return p_.g; }

  // The part of a rendezvous transfer that grows with the bytes: O_i's slope and G(k − 1).
  double rdmaPerByte(std::uint64_t bytes) const { return initPerByte(p_, bytes) + p_.G * bytesMinusOne(bytes); }

 private:
  const LogGpoParams& p_;
};

}  // namespace

TimeNs LogGpoModel::arrivalDelay(std::uint64_t bytes) const {
  if (synchronous(bytes)) return roundNs(p_.Octrl + p_.L);  // the REQ
  return roundNs(initOverhead(p_, bytes) + p_.G * bytesMinusOne(bytes) + p_.L);
}

TimeNs LogGpoModel::receiveDelay(CommRole role, std::uint64_t bytes) const {
  // Independent progress, rendezvous, a posted non-blocking receive: REQ (O' + L), answered at
  // once (2O' + L back to the sender as the ACK), the RDMA write (O_i + G(k−1)) and its
  // flight L — the data is there without the receiver's Wait having to do anything.
  if (synchronous(bytes) && role == CommRole::IrecvComplete && p_.progress == ProgressStrategy::Independent)
    return roundNs(3 * p_.Octrl + 3 * p_.L + initOverhead(p_, bytes) + p_.G * bytesMinusOne(bytes));
  // Eager data that moves once its receive is posted: from the send's call plus O_i(k); the
  // flight is the receive's own cost (roleCost).
  if (p_.eagerAtReceive && !synchronous(bytes)) return roundNs(initOverhead(p_, bytes));
  return arrivalDelay(bytes);
}

TimeNs LogGpoModel::roleCost(CommRole role, std::uint64_t bytes) const {
  return roundNs(LogGpoRoles(p_).roleParts(role, bytes).cost);
}

TimeNs LogGpoModel::sendDelay(CommRole role, std::uint64_t bytes) const {
  // Independent progress, rendezvous, an Isend's Wait: the REQ was answered at the receive's
  // post (or on its arrival, if later: the Isend's own time, which the Wait follows anyway),
  // the ACK flew back (2O' + L) and the RDMA write ran (O_i + G(k−1)) in the background.
  if (synchronous(bytes) && role == CommRole::IsendComplete && p_.progress == ProgressStrategy::Independent)
    return roundNs(2 * p_.Octrl + p_.L + initOverhead(p_, bytes) + p_.G * bytesMinusOne(bytes));
  return -arrivalDelay(bytes);
}

TimeNs LogGpoModel::callCost(std::span<const RoleUse> roles) const {
  const LogGpoRoles m(p_);
  const double cross = p_.halfDuplex ? 1.0 : p_.crossTraffic;
  double cost = overlappedCallCost(m, roles, cross);
  if (p_.progress == ProgressStrategy::Independent) {
    // Under ICP a completed rendezvous transfer is the Wait's dependency (the write's end, the
    // data's arrival), each priced as if alone. The transfers one call completes share its
    // host's links: a side adds what its flows' bytes take beyond the largest one's, and the
    // cross traffic of the other side's (docs/model.md §4).
    double sum[2] = {0, 0}, largest[2] = {0, 0};
    for (const RoleUse& r : roles) {
      if (!synchronous(r.bytes) || (r.role != CommRole::IsendComplete && r.role != CommRole::IrecvComplete)) continue;
      const int side = r.role == CommRole::IsendComplete && !p_.halfDuplex ? 0 : 1;
      const double x = m.rdmaPerByte(r.bytes);
      sum[side] += x;
      largest[side] = std::max(largest[side], x);
    }
    cost += std::max(sum[0] - largest[0] + cross * sum[1], sum[1] - largest[1] + cross * sum[0]);
  }
  return roundNs(cost);
}

TimeNs LogGpoModel::memberCost(MpiOp op, std::uint64_t bytes, std::uint32_t members, std::uint32_t relative) const {
  if (p_.smpiCollectives)
    if (const double c = smpiCollective(LogGpoRoles(p_), op, bytes, members, relative % std::max<std::uint32_t>(members, 1)); c >= 0)
      return roundNs(c);
  return collectiveCost(op, bytes, members);
}

bool LogGpoModel::collectiveTree(MpiOp op, std::uint64_t bytes, std::uint32_t members, std::uint32_t relative,
                              std::vector<CollectiveTreeDep>& deps, TimeNs& local) const {
  deps.clear();
  return p_.smpiCollectives && smpiCollectiveTree(LogGpoRoles(p_), op, bytes, members, relative, deps, local);
}

TimeNs LogGpoModel::collectiveQueue(MpiOp op, std::uint64_t bytes, std::uint32_t members) const {
  return p_.smpiCollectives ? roundNs(smpiCollectiveQueue(LogGpoRoles(p_), op, bytes, members)) : 0;
}

TimeNs LogGpoModel::collectiveCost(MpiOp op, std::uint64_t bytes, std::uint32_t members) const {
  if (p_.smpiCollectives)
    if (const double worst = smpiCollectiveWorst(LogGpoRoles(p_), op, bytes, members); worst >= 0) return roundNs(worst);
  return treeCollectiveCost(op, bytes, members, [&](std::uint64_t k) {
    const LogGpoCosts c = costs(k, 0, 0, 0, 0);
    return c.Tc;
  });
}

LogGpoCosts LogGpoModel::costs(std::uint64_t bytes, double Ts, double Tr, double Tsw, double Trw) const {
  LogGpoCosts c;
  const double Oi = initOverhead(p_, bytes), Oc = eval(p_.Oc, bytes), O1 = p_.Octrl, L = p_.L;
  const double GK = p_.G * bytesMinusOne(bytes);
  if (!synchronous(bytes)) {
    // §2.2.1: O_s = O_i + O_sw = O_i, O_r = O_c, T_c = O_i + G(K−1) + L + O_c.
    c.Os = Oi;
    c.Osw = 0;
    c.Or = Oc;
    c.Orw = Oc;
    c.Tc = Oi + GK + L + Oc;
    return c;
  }
  c.rendezvous = true;
  c.lateReceiver = Tr > Ts + O1 + L;
  if (p_.progress == ProgressStrategy::Dependent) {
    if (c.lateReceiver) {
      // Case (a): the Irecv finds the REQ and answers it.
      c.Osw = (Tr - Tsw) + 2 * O1 + L + Oi + GK;
      c.Os = O1 + c.Osw;
      c.Orw = 0;
      c.Or = 2 * O1 + c.Orw;
      c.Tc = 4 * O1 + 3 * L + (Tr - Tsw) + Oi + GK;
    } else {
      // Case (b): the REQ is answered only in the receiver's Wait.
      c.Osw = (Trw - Tsw) + 2 * O1 + L + Oi + GK;
      c.Os = O1 + c.Osw;
      c.Orw = 2 * O1 + L + Oi + GK;
      c.Or = O1 + c.Orw;
      c.Tc = 4 * O1 + 3 * L + (Trw - Tsw) + Oi + GK;
    }
  } else {
    // Independent progress: the REQ is answered at Tx = max(T_r, T_s + O' + L) whatever the
    // receiver computes, and the ACK starts the RDMA write whatever the sender computes (what
    // the calibration's progress probe calls "overlaps": a Wait after time away finds the
    // transfer done); the sender's Wait and the receiver's Wait only wait for what is left.
    const double Tx = std::max(Tr, Ts + O1 + L);
    const double ackAt = Tx + 2 * O1 + L;  // the write starts
    const double sentAt = ackAt + Oi + GK;
    c.Osw = std::max(0.0, sentAt - Tsw);
    c.Os = O1 + c.Osw;
    c.Orw = std::max(0.0, sentAt + L - Trw);
    c.Or = 2 * O1 + c.Orw;
    c.Tc = sentAt + L - Ts;
  }
  return c;
}

double LogGpoModel::overlapRatio(double comp, double overhead) {
  return comp + overhead > 0 ? comp / (comp + overhead) : 1.0;
}

std::string LogGpoModel::toJson() const {
  nlohmann::ordered_json j;
  j["model"] = "LogGPO";
  j["version"] = kModelFileVersion;
  j["name"] = p_.name;
  j["L_us"] = nsToUs(p_.L);
  j["G_us_per_byte"] = nsToUs(p_.G);
  if (p_.g > 0) j["g_us"] = nsToUs(p_.g);
  j["O_ctrl_us"] = nsToUs(p_.Octrl);
  j["O_i_us"] = linearJson(p_.Oi);
  j["O_c_us"] = linearJson(p_.Oc);
  if (p_.OiRendezvous) j["O_i_rendezvous_us"] = linearJson(*p_.OiRendezvous);
  j["S_bytes"] = p_.S;
  j["P"] = p_.P;
  j["progress"] = p_.progress == ProgressStrategy::Dependent ? "dependent" : "independent";
  j["transfer"] = "RAT";
  if (p_.eagerAtReceive) j["eager_transfer"] = "at-receive";
  if (p_.halfDuplex) j["duplex"] = "half";
  if (p_.crossTraffic > 0) j["cross_traffic"] = p_.crossTraffic;
  if (p_.smpiCollectives) j["collectives"] = "smpi";
  return j.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
}

std::unique_ptr<NetworkModel> LogGpoModel::clone() const { return std::make_unique<LogGpoModel>(*this); }

// ---- files and presets ----------------------------------------------------------------------

namespace model_detail {

namespace {

// Walks a model file's keys: checks the required ones, skips "model", reads "name", and hands
// every other key to `key`, which returns false with `problem` set for a bad or unknown key.
bool walkModelKeys(const nlohmann::json& j, const std::string& source, std::initializer_list<const char*> required,
                   std::string* name,
                   const std::function<bool(const std::string&, const nlohmann::json&, std::string*)>& key,
                   std::string* error) {
  for (const char* r : required)
    if (!j.contains(r)) {
      setError(error, source + ": missing required key '" + r + "'");
      return false;
    }
  std::string problem;
  for (auto it = j.begin(); it != j.end(); ++it) {
    const std::string& k = it.key();
    const nlohmann::json& v = it.value();
    bool ok = true;
    if (k == "model") continue;
    if (k == "version") {
      std::uint64_t version = 0;
      ok = readCount(v, k, kModelFileVersion, &version, &problem);
    } else if (k == "name") {
      ok = v.is_string() && !v.get<std::string>().empty();
      if (ok) *name = v.get<std::string>();
      else problem = "key 'name' must be a non-empty string";
    } else {
      ok = key(k, v, &problem);
    }
    if (!ok) {
      setError(error, source + ": " + problem);
      return false;
    }
  }
  return true;
}

bool readProcessors(const nlohmann::json& v, const std::string& k, std::uint32_t* P, std::string* problem) {
  std::uint64_t count = 0;
  if (!readCount(v, k, std::numeric_limits<std::uint32_t>::max(), &count, problem)) return false;
  *P = static_cast<std::uint32_t>(count);
  return true;
}

}  // namespace

std::unique_ptr<NetworkModel> parseLogGp(const nlohmann::json& j, const std::string& source,
                                         const std::string& defaultName, std::string* error) {
  LogGpParams p;
  p.name = defaultName;
  auto key = [&](const std::string& k, const nlohmann::json& v, std::string* problem) {
    if (k == "L_us") return readMicros(v, k, &p.L, problem);
    if (k == "o_us") return readMicros(v, k, &p.o, problem);
    if (k == "g_us") return readMicros(v, k, &p.g, problem);
    if (k == "G_us_per_byte") return readMicros(v, k, &p.G, problem);
    if (k == "P") return readProcessors(v, k, &p.P, problem);
    *problem = "unknown key '" + k + "' (LogGP keys: L_us, o_us, g_us, G_us_per_byte, P, name)";
    return false;
  };
  if (!walkModelKeys(j, source, {"L_us", "o_us"}, &p.name, key, error)) return nullptr;
  return std::make_unique<LogGpModel>(std::move(p));
}

std::unique_ptr<NetworkModel> parseLogGpo(const nlohmann::json& j, const std::string& source,
                                          const std::string& defaultName, std::string* error) {
  LogGpoParams p;
  p.name = defaultName;
  auto key = [&](const std::string& k, const nlohmann::json& v, std::string* problem) {
    if (k == "L_us") return readMicros(v, k, &p.L, problem);
    if (k == "G_us_per_byte") return readMicros(v, k, &p.G, problem);
    if (k == "O_ctrl_us") return readMicros(v, k, &p.Octrl, problem);
    if (k == "g_us") return readMicros(v, k, &p.g, problem);
    if (k == "O_i_us") return readLinear(v, k, &p.Oi, problem);
    if (k == "O_c_us") return readLinear(v, k, &p.Oc, problem);
    if (k == "O_i_rendezvous_us") return readLinear(v, k, &p.OiRendezvous.emplace(), problem);
    if (k == "duplex") return readChoice(v, k, "full", "half", &p.halfDuplex, problem);
    if (k == "cross_traffic") return readFraction(v, k, &p.crossTraffic, problem);
    if (k == "collectives") return readChoice(v, k, "binomial", "smpi", &p.smpiCollectives, problem);
    if (k == "S_bytes") return readCount(v, k, std::numeric_limits<std::uint64_t>::max(), &p.S, problem);
    if (k == "P") return readProcessors(v, k, &p.P, problem);
    if (k == "progress") {
      const std::string s = v.is_string() ? v.get<std::string>() : std::string();
      if (s == "dependent" || s == "DCP") p.progress = ProgressStrategy::Dependent;
      else if (s == "independent" || s == "ICP") p.progress = ProgressStrategy::Independent;
      else *problem = "key 'progress' must be \"dependent\" or \"independent\"";
      return problem->empty();
    }
    if (k == "eager_transfer") return readChoice(v, k, "at-send", "at-receive", &p.eagerAtReceive, problem);
    if (k == "transfer") {
      if (v.is_string() && v.get<std::string>() == "RAT") return true;
      *problem = "key 'transfer': only \"RAT\" (REQ, ACK, RDMA write) is modelled";
      return false;
    }
    *problem = "unknown key '" + k +
               "' (LogGPO keys: L_us, G_us_per_byte, g_us, O_ctrl_us, O_i_us, O_c_us, O_i_rendezvous_us, S_bytes, P, progress, transfer, eager_transfer, duplex, cross_traffic, collectives, name)";
    return false;
  };
  if (!walkModelKeys(j, source, {"L_us", "O_ctrl_us", "S_bytes"}, &p.name, key, error)) return nullptr;
  if (std::string why = olderCalibration(j, {"G_us_per_byte", "O_i_us", "O_c_us", "P", "progress", "transfer"}, p.L, p.G,
                                         "loggpo");
      !why.empty()) {
    setError(error, source + ": " + why);
    return nullptr;
  }
  return std::make_unique<LogGpoModel>(std::move(p));
}

LogGpParams loggpMyrinet() {
  // LogGP on the English paper's Myrinet numbers (§5): L = 9.11 µs, o = 2.15 µs, no per-byte
  // term — the LogGPS preset myrinet-score without the synchronous mode, for comparisons.
  LogGpParams p;
  p.name = "loggp-myrinet";
  p.L = usToNs(9.11);
  p.o = usToNs(2.15);
  return p;
}

LogGpoParams loggpoMyrinet() {
  // LogGPO on the same machine: O_i = o, O_c = o, O' = o, S as in myrinet-score, dependent
  // progress (what SCore PM and most MPI libraries of the paper's time did).
  LogGpoParams p;
  p.name = "loggpo-myrinet";
  p.L = usToNs(9.11);
  p.Octrl = usToNs(2.15);
  p.Oi = LinearCost{usToNs(2.15), 0};
  p.Oc = LinearCost{usToNs(2.15), 0};
  p.S = 16383;
  return p;
}

}  // namespace model_detail
}  // namespace perwiz
