// Collectives of a replay program: the members of each instance in communicator order, the
// gather nodes and trees that say who waits for whom, and the network model's prices.
#include "program_builder.h"

#include "perwiz/checked_time.h"
#include "perwiz/release.h"

#include <numeric>

namespace perwiz {
namespace {

// Which members of a collective wait for whom (docs/model.md, "Collectives").
enum class CollectiveRule { AllWaitForAll, MembersWaitForRoot, RootWaitsForMembers, Prefix };

CollectiveRule collectiveRule(MpiOp op, bool rootKnown) {
  switch (op) {
    case MpiOp::Bcast:
    case MpiOp::Scatter:
    case MpiOp::Scatterv: return rootKnown ? CollectiveRule::MembersWaitForRoot : CollectiveRule::AllWaitForAll;
    case MpiOp::Reduce:
    case MpiOp::Gather:
    case MpiOp::Gatherv: return rootKnown ? CollectiveRule::RootWaitsForMembers : CollectiveRule::AllWaitForAll;
    case MpiOp::Scan:
    case MpiOp::Exscan: return CollectiveRule::Prefix;
    default: return CollectiveRule::AllWaitForAll;
  }
}

}  // namespace

std::size_t ProgramBuilder::collectiveMembers() const {
  std::size_t n = 0;
  for (const RankTrace& rt : trace_.ranks) n += rt.collectives.size();
  return n;
}

void ProgramBuilder::buildCollectives() {
  const std::size_t I = trace_.collectives.size();
  std::vector<std::uint32_t> instBegin;
  std::vector<Member> members;
  collectMembers(instBegin, members);
  // Position of each world rank in a communicator (ranks outside it after the members, in
  // rank order), built once per communicator that has collectives.
  std::vector<std::vector<std::uint32_t>> commPos(trace_.comms.size());
  auto positions = [&](std::uint32_t comm) -> const std::vector<std::uint32_t>& {
    auto& pos = commPos[comm];
    if (pos.empty()) pos = communicatorPositions(trace_.comms[comm], p_.ranks);
    return pos;
  };

  p_.nodeBegin.assign(1, 0);
  // The model's price of each member's call: cost mode "model" only (measured costs keep the
  // measurement; 8 bytes per unit saved at the builder's peak).
  if (costs_ == CostMode::Model) collectiveCost_.assign(p_.units, -1);
  LastCost lastCost;
  collDeps_.assign(p_.ranks, {});
  collDepOffs_.assign(p_.ranks, {});
  // Most participations add one dependency (a gather node, the root): no growth by doubling,
  // whose copies would each be fresh memory.
  for (std::uint32_t r = 0; r < p_.ranks; ++r) collDeps_[r].reserve(trace_.ranks[r].collectives.size());
  std::vector<CollectiveTreeDep> tree;  // one member's ancestors (collectiveTree)
  p_.nodeMembers.reserve(members.size());
  for (std::uint32_t i = 0; i < I; ++i) {
    const auto first = members.begin() + instBegin[i], last = members.begin() + instBegin[i + 1];
    if (first == last) continue;
    const CollectiveInstance& ci = trace_.collectives[i];
    // Comm order: position of the member's world rank in the communicator.
    if (ci.comm < trace_.comms.size()) {
      const auto& pos = positions(ci.comm);
      auto before = [&](const Member& a, const Member& b) { return pos[a.rank] < pos[b.rank]; };
      if (!std::is_sorted(first, last, before)) std::stable_sort(first, last, before);
    }
    addInstance(ci, std::span<const Member>(&*first, static_cast<std::size_t>(last - first)), lastCost, tree);
  }
  if (!p_.nodeQueue.empty()) {
    p_.nodeQueue.resize(p_.nodes(), 0);
    p_.nodeRoot.resize(p_.nodes(), kNone32);
  }
}

// The members of every instance, flat (CSR by instance: instBegin), in rank order. Each rank's
// collective calls are matched to their units once, per rank in parallel (4 B per call); the
// instances are read again from the ranks' tables in the two passes that count and place the
// members (no array of the calls' whole records: at 10^8 events it was 0.5 GB of fresh memory).
void ProgramBuilder::collectMembers(std::vector<std::uint32_t>& instBegin, std::vector<Member>& members) {
  const std::uint32_t R = p_.ranks;
  const std::size_t I = trace_.collectives.size();
  std::vector<std::uint32_t> unitOf(collectiveMembers());  // kNone32: not a member of a known instance
  std::vector<std::size_t> collBase(R + 1, 0);
  for (std::uint32_t r = 0; r < R; ++r) collBase[r + 1] = collBase[r] + trace_.ranks[r].collectives.size();
  eachRank(R, [&](std::uint32_t r) {
    const RankTrace& rt = trace_.ranks[r];
    std::uint32_t hint = 0;
    for (std::size_t j = 0; j < rt.collectives.size(); ++j) {
      const CollectiveCall c = rt.collectives[j];
      const std::uint32_t unit = unitOfCall(r, findCall(rt.mpiCalls, c.event, hint));
      const bool valid = c.instance != kNone32 && c.instance < I;
      unitOf[collBase[r] + j] = valid ? unit : kNone32;
    }
  });
  instBegin.assign(I + 1, 0);
  for (std::uint32_t r = 0; r < R; ++r) {
    const auto& calls = trace_.ranks[r].collectives;
    for (std::size_t j = 0; j < calls.size(); ++j)
      if (unitOf[collBase[r] + j] != kNone32) ++instBegin[calls[j].instance + 1];
  }
  std::partial_sum(instBegin.begin(), instBegin.end(), instBegin.begin());
  members.resize(instBegin[I]);
  std::vector<std::uint32_t> fill(instBegin.begin(), instBegin.end() - 1);
  for (std::uint32_t r = 0; r < R; ++r) {
    const auto& calls = trace_.ranks[r].collectives;
    for (std::size_t j = 0; j < calls.size(); ++j)
      if (const std::uint32_t unit = unitOf[collBase[r] + j]; unit != kNone32)
        members[fill[calls[j].instance]++] = {r, unit, static_cast<std::uint32_t>(j)};
  }
}

// Cost mode "model": the network model's price of each member's call (collectiveCost_).
void ProgramBuilder::priceMembers(const CollectiveInstance& ci, std::span<const Member> ms, const Member* rootMember,
                                  LastCost& lastCost) {
  if (costs_ != CostMode::Model) return;
  const std::uint32_t P = static_cast<std::uint32_t>(ms.size());
  if (model_->collectiveCostPerMember()) {
    // Each member's own price: its position relative to the root (members are in
    // communicator order; the first one where the operation has no root).
    const std::uint32_t rootAt = rootMember ? static_cast<std::uint32_t>(rootMember - ms.data()) : 0;
    for (std::uint32_t j = 0; j < P; ++j)
      collectiveCost_[ms[j].unit] = model_->memberCost(ci.op, memberBytes(ms[j]), P, (j + P - rootAt) % P);
    return;
  }
  for (const Member& m : ms) {  // the model's price, asked once per (operation, size, members)
    const std::uint64_t bytes = memberBytes(m);
    if (bytes != lastCost.bytes || ci.op != lastCost.op || P != lastCost.members)
      lastCost = {ci.op, bytes, P, model_->collectiveCost(ci.op, bytes, P)};
    collectiveCost_[m.unit] = lastCost.cost;
  }
}

// One instance, its members in communicator order: their prices, and who waits for whom.
void ProgramBuilder::addInstance(const CollectiveInstance& ci, std::span<const Member> ms, LastCost& lastCost,
                                 std::vector<CollectiveTreeDep>& tree) {
  const bool priced = costs_ == CostMode::Model;
  const std::uint32_t P = static_cast<std::uint32_t>(ms.size());
  const std::int32_t root = memberRoot(ms.front());
  const Member* rootMember = nullptr;
  for (const Member& m : ms)
    if (static_cast<std::int32_t>(m.rank) == root) rootMember = &m;
  priceMembers(ci, ms, rootMember, lastCost);
  // A linear collective into a known root (Allreduce's Reduce and the Barrier's gather go
  // to communicator rank 0):
  // the root's link carries the members' messages as they arrive (a queue node), and each
  // member that waits for the node is priced without the (P − 1)·q its link then carries.
  const std::uint32_t queueRoot =
      rootMember ? rootMember->unit
                 : (ci.op == MpiOp::Allreduce || ci.op == MpiOp::Barrier ? ms.front().unit : kNone32);
  const TimeNs q = priced && queueRoot != kNone32
                       ? model_->collectiveQueue(ci.op, memberBytes(rootMember ? *rootMember : ms.front()), P)
                       : 0;
  auto queueAt = [&](std::uint32_t node) {
    if (q > 0) setQueue(node - p_.units, q, queueRoot);
  };
  auto withoutLink = [&](const Member& waiter) {  // a waiter of a queue node
    if (q <= 0) return;                           // unpriced: collectiveCost_ is empty
    TimeNs& c = collectiveCost_[waiter.unit];
    c = std::max<TimeNs>(0, c - static_cast<TimeNs>(P - 1) * q);
  };
  switch (collectiveRule(ci.op, rootMember != nullptr)) {
    case CollectiveRule::AllWaitForAll: {
      const std::uint32_t node = addNode(ms);
      queueAt(node);
      for (const Member& m : ms) {
        addCollDep(m.rank, m.unit, node);
        withoutLink(m);
      }
      break;
    }
    case CollectiveRule::MembersWaitForRoot: {
      // In cost mode "model" a tree algorithm (SMPI's binomial Bcast) makes each member wait
      // for its ancestors along the tree, each with its path's offset; otherwise for the root.
      const std::uint32_t rootAt = static_cast<std::uint32_t>(rootMember - ms.data());
      for (std::uint32_t j = 0; j < P; ++j) {
        const Member& m = ms[j];
        if (&m == rootMember) continue;
        TimeNs local = 0;
        if (priced && model_->collectiveTree(ci.op, memberBytes(m), P, (j + P - rootAt) % P, tree, local)) {
          collectiveCost_[m.unit] = local;
          for (const CollectiveTreeDep& t : tree)
            addCollDep(m.rank, m.unit, ms[(t.relative + rootAt) % P].unit, t.offset);
        } else {
          addCollDep(m.rank, m.unit, rootMember->unit);
        }
      }
      break;
    }
    case CollectiveRule::RootWaitsForMembers: {
      const std::uint32_t node = addNode(ms);
      addCollDep(rootMember->rank, rootMember->unit, node);
      queueAt(node);
      withoutLink(*rootMember);
      break;
    }
    case CollectiveRule::Prefix:
      for (std::uint32_t a = 1; a < P; ++a)
        for (std::uint32_t b = 0; b < a; ++b) addCollDep(ms[a].rank, ms[a].unit, ms[b].unit);
      break;
  }
}

// Node n is a queue (Program::nodeValue): the arrays are made on the first one.
void ProgramBuilder::setQueue(std::uint32_t n, TimeNs q, std::uint32_t rootUnit) {
  if (p_.nodeQueue.size() <= n) {
    p_.nodeQueue.resize(n + 1, 0);
    p_.nodeRoot.resize(n + 1, kNone32);
  }
  p_.nodeQueue[n] = q;
  p_.nodeRoot[n] = rootUnit;
}

void ProgramBuilder::addCollDep(std::uint32_t rank, std::uint32_t unit, std::uint32_t src, TimeNs off) {
  std::vector<TimeNs>& offs = collDepOffs_[rank];
  if (off != 0 || !offs.empty()) {
    offs.resize(collDeps_[rank].size(), 0);  // the zeros of the entries before the first offset
    offs.push_back(off);
  }
  collDeps_[rank].push_back({unit, src});
}

}  // namespace perwiz
