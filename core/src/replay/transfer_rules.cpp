// The model-mode rules LogGPS and LogGPO share (see transfer_rules.h, docs/model.md §3).
#include "transfer_rules.h"

#include "model_json.h"

#include <algorithm>

namespace perwiz::model_detail {

namespace {

// The send side of a call (its host's outgoing link) or the receive side (the incoming one).
bool sendSide(CommRole r) { return r == CommRole::BlockingSend || r == CommRole::IsendPost || r == CommRole::IsendComplete; }

// One edge of the path from the root of SMPI's binomial Bcast to a member: the parent (its
// position relative to the root), e = the time from the parent's receive to the child's,
// h = the part of e after the child's message left (its flight and receive).
struct BcastEdge {
  std::uint32_t parent;
  double e, h;
};

// SMPI's bcast__binomial_tree (MPICH's): relative rank r receives from r − lowbit(r); every
// rank then sends to r + m for the masks m below lowbit(r) (below 2^d at the root), largest
// first, with blocking sends. An eager send costs the sender s (its BlockingSend role) and
// returns; the c messages of a parent then travel at once and share its link, so each arrives
// after the hop's fixed part and c times its per-byte part (SMPI: the flows share the link's
// bandwidth and end together). A rendezvous send lasts the transfer T (the hop), and its
// receiver has the data when it ends. So, walking the path from the root:
//   receive(child) = receive(parent) + i·s + fixed(hop) + c·perByte(hop)   (eager; i sends
//                    before it, c = the parent's children)
//                  = receive(parent) + (i + 1)·T                            (rendezvous)
//   leave(r) = receive(r) + children(r)·(s or T).
// Returns the edges from the root down to `relative` and sets *children and *step.
std::vector<BcastEdge> bcastPath(const TransferCosts& m, std::uint64_t bytes, std::uint32_t members,
                                 std::uint32_t relative, std::uint32_t* childCount, double* step) {
  const bool sync = m.synchronous(bytes);
  const CostParts h = m.hop(bytes);
  *step = sync ? h.cost : m.roleParts(CommRole::BlockingSend, bytes).cost;
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
  std::vector<BcastEdge> path;
  std::uint32_t node = 0, limit = top;  // walk from the root down to `relative`
  while (node != relative) {
    // The next hop: the highest set bit of relative − node below `limit`.
    std::uint32_t mask = limit >> 1;
    while (mask && !((relative - node) & mask)) mask >>= 1;
    const std::uint32_t before = childrenBefore(node, limit, mask);
    const double flight = sync ? *step : h.fixed() + children(node, limit) * h.perByte;
    path.push_back({node, before * *step + flight, flight});
    node += mask;
    limit = mask;
  }
  *childCount = children(node, limit);
  return path;
}

// The size of one message of a linear Gather or Scatter whose root has `bytes` (every part: the
// trace's larger of sent and received), the mean part for the v variants.
std::uint64_t onePart(std::uint64_t bytes, std::uint32_t members) { return bytes / std::max<std::uint32_t>(members, 1); }

double binomialBcastLeave(const TransferCosts& m, std::uint64_t bytes, std::uint32_t members, std::uint32_t relative) {
  std::uint32_t children = 0;
  double step = 0, t = 0;
  for (const BcastEdge& e : bcastPath(m, bytes, members, relative, &children, &step)) t += e.e;
  return t + children * step;
}

}  // namespace

double overlappedCallCost(const TransferCosts& m, std::span<const RoleUse> roles, double cross) {
  // The transfers of one call overlap. Its sends share the host's outgoing link and its
  // receives the incoming one, so per side the per-byte parts add up and the fixed parts
  // (overheads, latencies) overlap: side = the largest fixed part + the sum of the per-byte
  // parts + cross · the other side's sum (a link carries the opposite direction's cross
  // traffic; cross = 1, half duplex, puts both directions on one link). The two sides run at
  // once: the call costs the larger. One role: its own cost.
  double fixed[2] = {0, 0}, perByte[2] = {0, 0};
  bool any[2] = {false, false};
  for (const RoleUse& r : roles) {
    const CostParts x = m.roleParts(r.role, r.bytes);
    const int side = sendSide(r.role) ? 0 : 1;
    fixed[side] = std::max(fixed[side], x.fixed());
    perByte[side] += x.perByte;
    any[side] = true;
  }
  double cost = 0;
  for (int side = 0; side < 2; ++side)
    if (any[side]) cost = std::max(cost, fixed[side] + perByte[side] + cross * perByte[1 - side]);
  return cost;
}

double smpiCollective(const TransferCosts& m, MpiOp op, std::uint64_t bytes, std::uint32_t members,
                      std::uint32_t relative) {
  const double P = std::max<std::uint32_t>(members, 1);
  if (members <= 1) return 0;
  // Linear: P − 1 messages of `bytes` into (or out of) one rank at once. Their latencies and
  // the first message's fixed costs overlap; the bytes share the root's link, and each further
  // message takes the root LogGP's max(g, o): the gap g (a link's time per message beyond its
  // bytes, or the slower end's per-message cost, as the calibration's stream measures it) or
  // the fixed part of the root's overhead, whichever is longer:
  // fixed(hop) + (P − 1)·perByte(hop) + (P − 2)·max(g, perMessage).
  auto linear = [&](std::uint64_t k, bool in) {
    const CostParts h = m.hop(k);
    return h.fixed() + (P - 1) * h.perByte + (P - 2) * std::max(m.gap(), m.perMessage(in));
  };
  // A non-root member of a linear Reduce or Gather: its send (eager: the send's cost;
  // rendezvous: it lasts until the root's link has carried every member's bytes).
  auto linearSender = [&](std::uint64_t k) {
    return m.synchronous(k) ? linear(k, true) : m.roleParts(CommRole::BlockingSend, k).cost;
  };
  const std::uint64_t part = onePart(bytes, members);  // a Gather's or Scatter's root
  switch (op) {
    case MpiOp::Bcast:
      return binomialBcastLeave(m, bytes, members, relative);
    case MpiOp::Reduce:
      return relative == 0 ? linear(bytes, true) : linearSender(bytes);
    case MpiOp::Gather:
    case MpiOp::Gatherv:
      return relative == 0 ? linear(part, true) : linearSender(bytes);
    case MpiOp::Scatter:
    case MpiOp::Scatterv:  // every member waits for the root's P − 1 messages to be out
      return linear(relative == 0 ? part : bytes, false);
    case MpiOp::Allreduce:  // Reduce to rank 0 (everyone waits for it), then Bcast from it
      return linear(bytes, true) + binomialBcastLeave(m, bytes, members, relative);
    case MpiOp::Barrier:  // ompi_basic_linear: all to rank 0 (which then leaves: its eager
                          // sends return at once), then rank 0 to all
      return relative == 0 ? linear(0, true) : linear(0, true) + linear(0, false);
    case MpiOp::Allgather:
    case MpiOp::Allgatherv:  // everyone to everyone at once: P − 1 parts in and out per rank
      return linear(bytes / std::max<std::uint64_t>(1, members), true);
    default:
      return -1;  // the binomial family's formula
  }
}

double smpiCollectiveQueue(const TransferCosts& m, MpiOp op, std::uint64_t bytes, std::uint32_t members) {
  // `bytes`: the root's (a Gather's root has every part; each message carries one).
  if (op == MpiOp::Gather || op == MpiOp::Gatherv) bytes = onePart(bytes, members);
  // Eager messages into the root of SMPI's linear (non-blocking) Reduce and Gather, of
  // Allreduce's Reduce and of the linear Barrier's gather: each holds the root's link for the
  // hop's per-byte part and the gap.
  if (members <= 1 || m.synchronous(bytes)) return 0;
  switch (op) {
    case MpiOp::Reduce:
    case MpiOp::Gather:
    case MpiOp::Gatherv:
    case MpiOp::Allreduce:
      return m.hop(bytes).perByte + m.gap();
    case MpiOp::Barrier:  // empty messages, whatever sizes a trace gives it
      return m.hop(0).perByte + m.gap();
    default:
      return 0;
  }
}

bool smpiCollectiveTree(const TransferCosts& m, MpiOp op, std::uint64_t bytes, std::uint32_t members,
                        std::uint32_t relative, std::vector<CollectiveTreeDep>& deps, TimeNs& local) {
  deps.clear();
  if (op != MpiOp::Bcast || members <= 1 || relative == 0 || relative >= members) return false;
  // receive(r) = max(E_r + h_r, receive(parent) + i·s + h_r), receive(root) = E_root, unrolls
  // to max(E_r + h_r, max over ancestors a of E_a + h_a + (the e's of the path below a)), with
  // h_root = 0 (an ancestor that calls late receives h_a after its call): a dependency on each
  // ancestor with offset h_a + Σ e − h_r, and the local cost h_r + children(r)·s.
  std::uint32_t children = 0;
  double step = 0;
  const std::vector<BcastEdge> path = bcastPath(m, bytes, members, relative, &children, &step);
  const double hr = path.back().h;
  double below = 0;  // Σ e of the path below the ancestor
  for (std::size_t j = path.size(); j-- > 0;) {
    below += path[j].e;
    const double ha = j > 0 ? path[j - 1].h : 0.0;  // path[j].parent's own flight
    deps.push_back({path[j].parent, roundNs(ha + below - hr)});
  }
  local = roundNs(hr + children * step);
  return true;
}

double smpiCollectiveWorst(const TransferCosts& m, MpiOp op, std::uint64_t bytes, std::uint32_t members) {
  double worst = -1;
  for (std::uint32_t r = 0; r < std::max<std::uint32_t>(members, 1); ++r)
    worst = std::max(worst, smpiCollective(m, op, bytes, members, r));
  return worst;
}

}  // namespace perwiz::model_detail
