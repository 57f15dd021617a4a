// The model-mode rules LogGPS and LogGPO share (internal; docs/model.md §3, "Concurrency within
// a call" and "Collectives"): how the transfers of one call overlap, and SimGrid SMPI's default
// collective algorithms priced from a model's point-to-point costs. A model supplies its role
// costs split into a fixed and a per-byte part; the rules here know nothing of its parameters.
#pragma once

#include "perwiz/mpi_ops.h"
#include "perwiz/network_model.h"

#include <cstdint>
#include <span>
#include <utility>
#include <vector>

namespace perwiz::model_detail {

// A cost in ns and the part of it that grows with the bytes (G·(k − 1), per-byte overheads):
// the part that shares a link with other transfers; the rest (overheads, latencies) overlaps.
struct CostParts {
  double cost = 0, perByte = 0;
  double fixed() const { return cost - perByte; }
};

// What the shared rules ask of a model, before rounding.
class TransferCosts {
 public:
  virtual ~TransferCosts() = default;
  virtual bool synchronous(std::uint64_t bytes) const = 0;
  virtual CostParts roleParts(CommRole role, std::uint64_t bytes) const = 0;
  // One k-byte message with its receiver ready: eager, from the send's call to the receive's
  // end; rendezvous, the longer side of the transfer.
  virtual CostParts hop(std::uint64_t bytes) const = 0;
  // The fixed processor cost of one more message at the root of a linear collective (in:
  // receiving, out: sending).
  virtual double perMessage(bool in) const = 0;
  // LogGP's gap g: what a link takes per message beyond its bytes (a header, a frame), so that
  // consecutive messages through one link are g + their per-byte parts apart.
  virtual double gap() const = 0;
};

// Concurrency within a call: per side (sends on the outgoing link, receives on the incoming
// one) the largest fixed part plus the sum of the per-byte parts plus `cross` times the other
// side's sum (the opposite direction's cross traffic; 1 = half duplex: both directions on one
// link); the call costs the larger side.
double overlappedCallCost(const TransferCosts& m, std::span<const RoleUse> roles, double cross);

// SMPI 3.32's default algorithm for `op` at the member `relative` to the root (0 = root); < 0
// when `op` is not one of the family (the caller then uses its binomial formula).
double smpiCollective(const TransferCosts& m, MpiOp op, std::uint64_t bytes, std::uint32_t members,
                      std::uint32_t relative);
// The time one member's message holds the root's link in SMPI's linear collectives (Reduce,
// Gather, Allreduce's Reduce; eager sizes), 0 for the others: the replay lets that link carry
// the messages as the members arrive (NetworkModel::collectiveQueue).
double smpiCollectiveQueue(const TransferCosts& m, MpiOp op, std::uint64_t bytes, std::uint32_t members);
// SMPI's binomial Bcast seen from a non-root member (NetworkModel::collectiveTree, rounded to
// ns): fills `deps` and `local`; false for every other operation and for the root.
bool smpiCollectiveTree(const TransferCosts& m, MpiOp op, std::uint64_t bytes, std::uint32_t members,
                        std::uint32_t relative, std::vector<CollectiveTreeDep>& deps, TimeNs& local);
// The member that finishes last (< 0 as above).
double smpiCollectiveWorst(const TransferCosts& m, MpiOp op, std::uint64_t bytes, std::uint32_t members);

}  // namespace perwiz::model_detail
