// The model-mode rules LogGPS and LogGPO share (see transfer_rules.h, docs/model.md §3).
#include "transfer_rules.h"

#include <algorithm>

namespace perwiz::model_detail {

namespace {

// The send side of a call (its host's outgoing link) or the receive side (the incoming one).
bool sendSide(CommRole r) { return r == CommRole::BlockingSend || r == CommRole::IsendPost || r == CommRole::IsendComplete; }

double binomialBcastLeave(const TransferCosts& m, std::uint64_t bytes, std::uint32_t members, std::uint32_t relative) {
  // SMPI's bcast__binomial_tree (MPICH's): relative rank r receives from r − lowbit(r); every
  // rank then sends to r + m for the masks m below lowbit(r) (below 2^d at the root), largest
  // first, with blocking sends. An eager send costs the sender s (its BlockingSend role) and its
  // message arrives a hop after the send starts; a rendezvous send lasts the transfer T (the
  // hop), and its receiver has the data when it ends. So, walking the path from the root:
  //   receive(child) = receive(parent) + i·s + hop(k)   (eager; i sends before it)
  //                  = receive(parent) + (i + 1)·T       (rendezvous)
  //   leave(r) = receive(r) + children(r)·(s or T).
  const bool sync = m.synchronous(bytes);
  const double step = sync ? m.hop(bytes).cost : m.roleParts(CommRole::BlockingSend, bytes).cost;
  const double arrive = sync ? 0.0 : m.hop(bytes).cost;  // eager: after the sends before it
  std::uint32_t top = 1;
  while (top < members) top <<= 1;
  auto childrenBefore = [&](std::uint32_t parent, std::uint32_t limit, std::uint32_t mask) {
    std::uint32_t n = 0;  // children of `parent` served before the one at `mask`
    for (std::uint32_t b = limit >> 1; b > mask; b >>= 1)
      if (parent + b < members) ++n;
    return n;
  };
  auto children = [&](std::uint32_t r, std::uint32_t limit) {
    std::uint32_t n = 0;
    for (std::uint32_t b = limit >> 1; b > 0; b >>= 1)
      if (r + b < members) ++n;
    return n;
  };
  double t = 0;
  std::uint32_t node = 0, limit = top;  // walk from the root down to `relative`
  while (node != relative) {
    // The next hop: the highest set bit of relative − node below `limit`.
    std::uint32_t mask = limit >> 1;
    while (mask && !((relative - node) & mask)) mask >>= 1;
    const std::uint32_t before = childrenBefore(node, limit, mask);
    t += sync ? (before + 1) * step : before * step + arrive;
    node += mask;
    limit = mask;
  }
  return t + children(node, limit) * step;
}

}  // namespace

double overlappedCallCost(const TransferCosts& m, std::span<const RoleUse> roles, bool halfDuplex) {
  // The transfers of one call overlap. Its sends share the host's outgoing link and its
  // receives the incoming one, so per side the per-byte parts add up and the fixed parts
  // (overheads, latencies) overlap: side = the largest fixed part + the sum of the per-byte
  // parts. The two sides run at once: the call costs the larger (half duplex: one side for
  // both). One role: its own cost.
  double fixed[2] = {0, 0}, perByte[2] = {0, 0};
  bool any[2] = {false, false};
  for (const RoleUse& r : roles) {
    const CostParts x = m.roleParts(r.role, r.bytes);
    const int side = sendSide(r.role) && !halfDuplex ? 0 : 1;
    fixed[side] = std::max(fixed[side], x.fixed());
    perByte[side] += x.perByte;
    any[side] = true;
  }
  double cost = 0;
  for (int side = 0; side < 2; ++side)
    if (any[side]) cost = std::max(cost, fixed[side] + perByte[side]);
  return cost;
}

double smpiCollective(const TransferCosts& m, MpiOp op, std::uint64_t bytes, std::uint32_t members,
                      std::uint32_t relative) {
  const double P = std::max<std::uint32_t>(members, 1);
  if (members <= 1) return 0;
  // Linear: P − 1 messages of `bytes` into (or out of) one rank at once. Their latencies and
  // the first message's fixed costs overlap; the bytes share the root's link, and the root's
  // processor pays the fixed part of its overhead once per further message:
  // fixed(hop) + (P − 1)·perByte(hop) + (P − 2)·perMessage.
  auto linear = [&](std::uint64_t k, bool in) {
    const CostParts h = m.hop(k);
    return h.fixed() + (P - 1) * h.perByte + (P - 2) * m.perMessage(in);
  };
  // A non-root member of a linear Reduce or Gather: its send (eager: the send's cost;
  // rendezvous: it lasts until the root's link has carried every member's bytes).
  auto linearSender = [&](std::uint64_t k) {
    return m.synchronous(k) ? linear(k, true) : m.roleParts(CommRole::BlockingSend, k).cost;
  };
  switch (op) {
    case MpiOp::Bcast:
      return binomialBcastLeave(m, bytes, members, relative);
    case MpiOp::Reduce:
    case MpiOp::Gather:
    case MpiOp::Gatherv:
      return relative == 0 ? linear(bytes, true) : linearSender(bytes);
    case MpiOp::Scatter:
    case MpiOp::Scatterv:  // every member waits for the root's P − 1 messages to be out
      return linear(bytes, false);
    case MpiOp::Allreduce:  // Reduce to rank 0 (everyone waits for it), then Bcast from it
      return linear(bytes, true) + binomialBcastLeave(m, bytes, members, relative);
    case MpiOp::Barrier:  // ompi_basic_linear: all to rank 0, then rank 0 to all
      return linear(0, true) + linear(0, false);
    case MpiOp::Allgather:
    case MpiOp::Allgatherv:  // everyone to everyone at once: P − 1 parts in and out per rank
      return linear(bytes / std::max<std::uint64_t>(1, members), true);
    default:
      return -1;  // the binomial family's formula
  }
}

double smpiCollectiveWorst(const TransferCosts& m, MpiOp op, std::uint64_t bytes, std::uint32_t members) {
  double worst = -1;
  for (std::uint32_t r = 0; r < std::max<std::uint32_t>(members, 1); ++r)
    worst = std::max(worst, smpiCollective(m, op, bytes, members, r));
  return worst;
}

}  // namespace perwiz::model_detail
