// Collective matching (collective_matching.h).
#include "collective_matching.h"

#include <algorithm>
#include <numeric>
#include <tuple>

namespace perwiz {

// Collectives match by their order on each communicator (every member calls them in the same
// order, MPI's rule).
std::vector<std::pair<std::string, std::string>> matchCollectives(Trace& t) {
  std::vector<std::pair<std::string, std::string>> out;
  auto diag = [&](const char* kind, std::string m) { out.emplace_back(kind, std::move(m)); };
  t.collectives.clear();
  // instanceOf[comm][k]: instance index of the k-th collective on comm.
  std::vector<std::vector<std::uint32_t>> instanceOf(t.comms.size());
  std::vector<std::uint32_t> seq(t.comms.size());
  for (std::uint32_t r = 0; r < t.ranks.size(); ++r) {
    std::fill(seq.begin(), seq.end(), 0);
    auto& colls = t.ranks[r].collectives;
    for (std::size_t ci = 0; ci < colls.size(); ++ci) {
      const CollectiveCall c = colls[ci];
      std::uint32_t k = seq[c.comm]++;
      auto& slots = instanceOf[c.comm];
      // A self communicator (MPI_COMM_SELF, Score-P's COMM_SELF groups: one id shared by every
      // rank) has the calling rank alone: each call is its own instance.
      if (t.comms[c.comm].isSelf) {
        colls.setInstance(ci, static_cast<std::uint32_t>(t.collectives.size()));
        t.collectives.push_back(CollectiveInstance{c.op, c.comm, k, 1});
        continue;
      }
      if (k == slots.size()) {
        slots.push_back(static_cast<std::uint32_t>(t.collectives.size()));
        t.collectives.push_back(CollectiveInstance{c.op, c.comm, k, 0});
      }
      CollectiveInstance& inst = t.collectives[slots[k]];
      if (inst.op != c.op)
        diag("collective", "rank " + std::to_string(r) + ": collective #" + std::to_string(k) +
                               " on communicator '" + t.comms[c.comm].name + "' is " +
                               std::string(mpiOpName(c.op)) + " but other ranks call " +
                               std::string(mpiOpName(inst.op)));
      ++inst.participants;
      colls.setInstance(ci, slots[k]);
    }
  }
  // Instances are numbered by first appearance; order them by (comm, sequence) for stability.
  std::vector<std::uint32_t> order(t.collectives.size());
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) {
    // Ties (one sequence number on a self communicator, once per rank) keep rank order.
    return std::tie(t.collectives[a].comm, t.collectives[a].sequence, a) <
           std::tie(t.collectives[b].comm, t.collectives[b].sequence, b);
  });
  std::vector<std::uint32_t> newIndex(order.size());
  std::vector<CollectiveInstance> sorted;
  sorted.reserve(order.size());
  for (std::uint32_t i = 0; i < order.size(); ++i) {
    newIndex[order[i]] = i;
    sorted.push_back(t.collectives[order[i]]);
  }
  t.collectives = std::move(sorted);
  for (auto& rt : t.ranks)
    for (std::size_t i = 0; i < rt.collectives.size(); ++i)
      rt.collectives.setInstance(i, newIndex[rt.collectives.row(i).instance]);
  for (const auto& inst : t.collectives) {
    std::size_t members = t.comms[inst.comm].isSelf ? 1 : t.comms[inst.comm].worldRanks.size();
    if (inst.participants != members)
      diag("collective-size", "collective #" + std::to_string(inst.sequence) + " (" +
                                  std::string(mpiOpName(inst.op)) + ") on communicator '" +
                                  t.comms[inst.comm].name + "' has " +
                                  std::to_string(inst.participants) + " of " +
                                  std::to_string(members) + " members");
  }
  return out;
}

}  // namespace perwiz
