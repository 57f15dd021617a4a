// Network models that price communication for the replay (paper §2.2, docs/model.md).
//
// The replay asks a model four things: is a k-byte message sent synchronously (rendezvous),
// how long after its send is called does a message (or the rendezvous request REQ) reach the
// receiver, and what does each communication role cost the processor locally. LogGPS is the
// model of the papers; LogGP and LogGPO (perwiz/loggp_models.h) implement the same interface.
#pragma once

#include "perwiz/mpi_ops.h"

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

namespace perwiz {

using TimeNs = std::int64_t;

// a + b·k, in nanoseconds and nanoseconds per byte.
struct LinearCost {
  double a = 0;
  double b = 0;
  TimeNs at(std::uint64_t bytes) const;  // rounded to the nearest nanosecond, never negative
  bool operator==(const LinearCost&) const = default;
};

// What one message endpoint makes its call do (see docs/model.md, "Local costs").
enum class CommRole : std::uint8_t {
  BlockingSend,    // MPI_Send family, the send half of MPI_Sendrecv
  BlockingRecv,    // MPI_Recv, the receive half of MPI_Sendrecv
  IsendPost,       // MPI_Isend family
  IsendComplete,   // the Wait/Test call that completes an Isend
  IrecvPost,       // MPI_Irecv
  IrecvComplete,   // the Wait/Test call that completes an Irecv
};

// One communication role of a call and the size of its message.
struct RoleUse {
  CommRole role = CommRole::BlockingSend;
  std::uint64_t bytes = 0;
};

// A member's dependency on an ancestor in a collective's tree (NetworkModel::collectiveTree):
// the ancestor's position relative to the root (0 = the root) and the offset from its call.
struct CollectiveTreeDep {
  std::uint32_t relative = 0;
  TimeNs offset = 0;
};

class NetworkModel {
 public:
  virtual ~NetworkModel() = default;
  virtual std::string kind() const = 0;  // "LogGPS"
  virtual std::string name() const = 0;  // preset or user name
  // k > S: the message is sent in synchronous (rendezvous) mode.
  virtual bool synchronous(std::uint64_t bytes) const = 0;
  // λ(k): time from the call of the send until the message (eager) or its request REQ
  // (rendezvous) reaches the receiver. The paper's o + L.
  virtual TimeNs arrivalDelay(std::uint64_t bytes) const = 0;
  // The receiving call's dependency on its sender: from the send's call until the receive can
  // proceed. λ(k) for every role of LogGPS; LogGPO with independent progress lets a posted
  // non-blocking receive wait for the data itself (the handshake ran in the background).
  virtual TimeNs receiveDelay(CommRole role, std::uint64_t bytes) const {
    (void)role;
    return arrivalDelay(bytes);
  }
  // A rendezvous send's dependency on its receiver: from the receive's posting call until the
  // send can proceed (signed). −λ(k) for every role of LogGPS (the sender waits from its REQ's
  // arrival until the receive is called); LogGPO with independent progress lets an Isend's Wait
  // wait for the end of its RDMA write, which the receive's post started (docs/model.md §4).
  virtual TimeNs sendDelay(CommRole role, std::uint64_t bytes) const {
    (void)role;
    return -arrivalDelay(bytes);
  }
  // Local cost of one communication role for a k-byte message (cost mode "model").
  virtual TimeNs roleCost(CommRole role, std::uint64_t bytes) const = 0;
  // Local cost of a call whose communication roles are `roles` (cost mode "model"): the sum of
  // the roles' costs here (LogGP); LogGPS and LogGPO overlap the transfers of one call (docs/model.md,
  // "Concurrency within a call"). One role: roleCost.
  virtual TimeNs callCost(std::span<const RoleUse> roles) const;
  // Local cost of a collective call moving `bytes` per member among `members` ranks.
  virtual TimeNs collectiveCost(MpiOp op, std::uint64_t bytes, std::uint32_t members) const = 0;
  // The same for the member at `relative` = its communicator rank less the root's, modulo
  // `members` (rank 0 is the root; the communicator rank where the operation has no root).
  // Algorithms whose members finish at different times (a broadcast tree) override it and
  // return true from collectiveCostPerMember(); the default is the same for every member.
  virtual TimeNs memberCost(MpiOp op, std::uint64_t bytes, std::uint32_t members, std::uint32_t relative) const {
    (void)relative;
    return collectiveCost(op, bytes, members);
  }
  virtual bool collectiveCostPerMember() const { return false; }
  // Linear collectives whose members' messages all cross the root's link one after another
  // (SMPI's Reduce, Gather and Allreduce's Reduce): the time q one member's message holds that
  // link; 0 for every other operation. memberCost assumes that every member arrives at once
  // and includes (members − 1)·q; the replay instead lets the link carry each message from its
  // member's arrival (a queue at the instance's gather, docs/model.md §3).
  virtual TimeNs collectiveQueue(MpiOp op, std::uint64_t bytes, std::uint32_t members) const {
    (void)op, (void)bytes, (void)members;
    return 0;
  }
  // Rooted collectives whose data travels down a tree (SMPI's binomial Bcast): a non-root
  // member's data comes through its ancestors, each of which may call late. Fills `deps` with
  // one dependency per ancestor (the root included) and `local` with the member's cost from the
  // later of its own call and those, and returns true; false (the default) where the member
  // simply waits for the root and costs memberCost (docs/model.md §3).
  virtual bool collectiveTree(MpiOp op, std::uint64_t bytes, std::uint32_t members, std::uint32_t relative,
                              std::vector<CollectiveTreeDep>& deps, TimeNs& local) const {
    (void)op, (void)bytes, (void)members, (void)relative, (void)deps, (void)local;
    return false;
  }
  // The model's JSON form (docs/model.md, "Parameter files"); loadable by networkModelFromJson.
  virtual std::string toJson() const = 0;
  virtual std::unique_ptr<NetworkModel> clone() const = 0;
};

// LogGPS (Ino, Fujimoto, Hagihara, PPoPP'01): seven parameters, with the send and receive
// overheads distinct and linear in message length, and the synchronous-mode send and receive
// times given separately (the Japanese paper's Table 5).
struct LogGpsParams {
  std::string name = "custom";
  double L = 0;           // latency, ns
  double o = 0;           // overhead, ns (used where the linear overheads are not given)
  double g = 0;           // gap between consecutive messages (and packets), ns
  double G = 0;           // gap per byte, ns/byte
  std::uint32_t P = 0;    // processors (0 = take the trace's rank count)
  std::uint64_t S = 0;    // messages longer than S bytes are synchronous
  std::uint64_t s = 0;    // messages longer than s bytes travel in several packets (0 = one)
  LinearCost sendOverhead;  // o_s(k): asynchronous send time
  LinearCost recvOverhead;  // o_r(k): asynchronous receive time
  LinearCost syncSend;      // synchronous send time (k > S)
  LinearCost syncRecv;      // synchronous receive time (k > S)
  // Where eager data moves (docs/model.md, "Eager transfer"): false (file "at-send", the
  // papers' LogGPS) — the sender's library moves it, and it arrives o_s(k) + L + G·(k − 1)
  // after the send's call whatever the receiver does; true ("at-receive", SMPI's default and
  // receiver-driven copies) — it moves only once its receive is posted, so the receive costs
  // L + G·(k − 1) + o_r(k) from max(its own call, the send's call + o_s(k)).
  bool eagerAtReceive = false;
  // Whether a host sends and receives at once ("duplex": "full", default) or its two
  // directions share one link ("half"): how the transfers of one call overlap (callCost).
  bool halfDuplex = false;
  // Full duplex only ("cross_traffic", 0 to 1, absent = 0): the share of a transfer's bytes
  // that the opposite direction of its hosts' links carries at the same time (SimGrid's
  // acknowledgements: 0.05). A call's send side then also pays that share of its receive
  // side's per-byte parts, and the other way round; 1 is half duplex (callCost).
  double crossTraffic = 0;
  // The collective algorithms (docs/model.md §3, "Collectives"): false ("collectives":
  // "binomial") — binomial trees of hops for every operation; true ("smpi") — SimGrid SMPI
  // 3.32's default selector: linear Reduce, Gather, Scatter, Allgather and Barrier, a
  // binomial Bcast, Allreduce = Reduce then Bcast.
  bool smpiCollectives = false;
  bool operator==(const LogGpsParams&) const = default;
};

class LogGpsModel final : public NetworkModel {
 public:
  explicit LogGpsModel(LogGpsParams p) : p_(std::move(p)) {}
  const LogGpsParams& params() const { return p_; }
  std::string kind() const override { return "LogGPS"; }
  std::string name() const override { return p_.name; }
  bool synchronous(std::uint64_t bytes) const override;
  TimeNs arrivalDelay(std::uint64_t bytes) const override;
  TimeNs receiveDelay(CommRole role, std::uint64_t bytes) const override;
  TimeNs roleCost(CommRole role, std::uint64_t bytes) const override;
  TimeNs callCost(std::span<const RoleUse> roles) const override;
  TimeNs collectiveCost(MpiOp op, std::uint64_t bytes, std::uint32_t members) const override;
  TimeNs memberCost(MpiOp op, std::uint64_t bytes, std::uint32_t members, std::uint32_t relative) const override;
  bool collectiveCostPerMember() const override { return p_.smpiCollectives; }
  TimeNs collectiveQueue(MpiOp op, std::uint64_t bytes, std::uint32_t members) const override;
  bool collectiveTree(MpiOp op, std::uint64_t bytes, std::uint32_t members, std::uint32_t relative,
                      std::vector<CollectiveTreeDep>& deps, TimeNs& local) const override;
  std::string toJson() const override;
  std::unique_ptr<NetworkModel> clone() const override;

 private:
  LogGpsParams p_;
};

// Presets: "myrinet-score" (English paper §5: L = 9.11 µs, o = 2.15 µs, S = 16383 B),
// "myrinet-table5" and "ethernet-table5" (Japanese paper, Table 5).
std::vector<std::string> networkPresetNames();
std::unique_ptr<NetworkModel> networkPreset(const std::string& name);  // nullptr if unknown
// The default model of a replay when none is given: "myrinet-score".
std::unique_ptr<NetworkModel> defaultNetworkModel();

// Parses a model's JSON form. On error returns nullptr and sets *error to a message naming
// `source` (the file) and the problem.
std::unique_ptr<NetworkModel> networkModelFromJson(const std::string& json,
                                                   const std::string& source, std::string* error);
// A preset name or a JSON file path.
std::unique_ptr<NetworkModel> loadNetworkModel(const std::string& presetOrFile, std::string* error);
// Writes the model's JSON to `path`; refuses to overwrite an existing file.
bool saveNetworkModel(const NetworkModel& model, const std::string& path, std::string* error);

}  // namespace perwiz
