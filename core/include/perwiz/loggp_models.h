// LogGP and LogGPO beside LogGPS behind the NetworkModel interface (docs/model.md §4).
//
// * LogGP (Alexandrov et al., SPAA'95): L, o, g, G, P. Every message is sent like an eager
//   one; the processor is busy o at each end, the wire G per byte.
// * LogGPO (Chen, Zhai, Zhang, Zheng, Sci China 2009): LogGP's parameters with the overheads
//   redefined where an MPI library really spends them: O_i(k) to start a transfer, O_c(k) to
//   copy a received eager message out of the library's buffer (in the receive's Wait), O' per
//   control message of the rendezvous handshake, the eager/rendezvous switch S, and the
//   strategy of communication progress (dependent: the handshake only advances inside MPI
//   calls; independent: a progress engine answers it at once). g is disregarded, as the paper
//   does. The transfer mechanism is RAT (REQ, ACK, RDMA write), the one the paper analyses.
#pragma once

#include "perwiz/network_model.h"

#include <optional>

namespace perwiz {

struct LogGpParams {
  std::string name = "custom";
  double L = 0;         // ns
  double o = 0;         // ns, at each end
  double g = 0;         // ns between consecutive messages
  double G = 0;         // ns per byte
  std::uint32_t P = 0;  // 0 = the trace's rank count
  bool operator==(const LogGpParams&) const = default;
};

class LogGpModel final : public NetworkModel {
 public:
  explicit LogGpModel(LogGpParams p) : p_(std::move(p)) {}
  const LogGpParams& params() const { return p_; }
  std::string kind() const override { return "LogGP"; }
  std::string name() const override { return p_.name; }
  bool synchronous(std::uint64_t) const override { return false; }
  // o + G·(k−1) + L: the whole message reaches the receiver.
  TimeNs arrivalDelay(std::uint64_t bytes) const override;
  TimeNs roleCost(CommRole role, std::uint64_t bytes) const override;
  TimeNs collectiveCost(MpiOp op, std::uint64_t bytes, std::uint32_t members) const override;
  std::string toJson() const override;
  std::unique_ptr<NetworkModel> clone() const override;
  // The end-to-end time of one k-byte message: 2o + G·(k−1) + L.
  TimeNs messageTime(std::uint64_t bytes) const;

 private:
  LogGpParams p_;
};

enum class ProgressStrategy : std::uint8_t { Dependent, Independent };  // DCP, ICP

struct LogGpoParams {
  std::string name = "custom";
  double L = 0;             // ns
  double G = 0;             // ns per byte
  double Octrl = 0;         // O': processing one control message (REQ or ACK), ns
  // LogGP's gap ("g_us", optional, absent = 0): what a link takes per message beyond its
  // bytes; only the shared-link rules of SMPI's collectives use it (docs/model.md §3).
  double g = 0;             // ns
  LinearCost Oi;            // O_i(k): initialising a transfer of k bytes
  LinearCost Oc;            // O_c(k): copying a received eager message to the user buffer
  std::uint64_t S = 0;      // messages longer than S bytes use the rendezvous protocol
  std::uint32_t P = 0;
  ProgressStrategy progress = ProgressStrategy::Dependent;
  // Eager data moves only once its receive is posted ("eager_transfer": "at-receive", issue
  // #20; docs/model.md §2.2): the receive costs L + G·(k − 1) + O_c(k) from the later of its
  // call and the send's call + O_i(k).
  bool eagerAtReceive = false;
  // O_i(k) of a rendezvous transfer ("O_i_rendezvous_us"; absent: O_i(k) for every size).
  // Registering a buffer for the RDMA write is another path than an eager copy's set-up; under
  // SMPI it carries the larger latency of its big messages (docs/calibrate.md, "LogGPO").
  std::optional<LinearCost> OiRendezvous;
  // As in LogGPS ("duplex", "collectives"; docs/model.md §3): whether a host's two directions
  // share one link, and binomial trees or SMPI's default collective algorithms.
  bool halfDuplex = false;
  double crossTraffic = 0;  // "cross_traffic", as in LogGPS
  bool smpiCollectives = false;
  bool operator==(const LogGpoParams&) const = default;
};

// The paper's §2.2 quantities for one message, given when each side calls: T_s (Isend),
// T_r (Irecv), T_sw and T_rw (the Waits). All in ns.
struct LogGpoCosts {
  double Os = 0, Or = 0;    // total overhead at the sending and the receiving end
  double Osw = 0, Orw = 0;  // of which in the sending and the receiving MPI_Wait
  double Tc = 0;            // total communication cost of the transmission
  bool rendezvous = false;
  bool lateReceiver = false;  // rendezvous case (a): T_r > T_s + O' + L
};

class LogGpoModel final : public NetworkModel {
 public:
  explicit LogGpoModel(LogGpoParams p) : p_(std::move(p)) {}
  const LogGpoParams& params() const { return p_; }
  std::string kind() const override { return "LogGPO"; }
  std::string name() const override { return p_.name; }
  bool synchronous(std::uint64_t bytes) const override { return bytes > p_.S; }
  // Eager: O_i(k) + G·(k−1) + L (the data); rendezvous: O' + L (the REQ).
  TimeNs arrivalDelay(std::uint64_t bytes) const override;
  TimeNs receiveDelay(CommRole role, std::uint64_t bytes) const override;
  TimeNs sendDelay(CommRole role, std::uint64_t bytes) const override;
  TimeNs roleCost(CommRole role, std::uint64_t bytes) const override;
  // The transfers of one call overlap as in LogGPS (docs/model.md §3).
  TimeNs callCost(std::span<const RoleUse> roles) const override;
  TimeNs collectiveCost(MpiOp op, std::uint64_t bytes, std::uint32_t members) const override;
  TimeNs memberCost(MpiOp op, std::uint64_t bytes, std::uint32_t members, std::uint32_t relative) const override;
  bool collectiveCostPerMember() const override { return p_.smpiCollectives; }
  TimeNs collectiveQueue(MpiOp op, std::uint64_t bytes, std::uint32_t members) const override;
  bool collectiveTree(MpiOp op, std::uint64_t bytes, std::uint32_t members, std::uint32_t relative,
                      std::vector<CollectiveTreeDep>& deps, TimeNs& local) const override;
  std::string toJson() const override;
  std::unique_ptr<NetworkModel> clone() const override;

  // The paper's formulas (§2.2.1 eager, §2.2.2 rendezvous with DCP and RAT, both cases; with
  // ICP the REQ is answered when it arrives or when the receive is posted, whichever is later).
  LogGpoCosts costs(std::uint64_t bytes, double Ts, double Tr, double Tsw, double Trw) const;
  // R_o = comp / (comp + O): the share of the computation that overlaps the communication.
  static double overlapRatio(double comp, double overhead);

 private:
  LogGpoParams p_;
};

}  // namespace perwiz
