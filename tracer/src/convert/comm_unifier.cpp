#include "comm_unifier.h"

namespace perwiz::trace {

CommUnifier::CommUnifier(const std::vector<RankDefs>& defs, int worldSize) {
  local_.resize(static_cast<std::size_t>(worldSize));
  members_.emplace_back();  // model 0: MPI_COMM_WORLD
  for (int r = 0; r < worldSize; ++r) members_[0].push_back(r);
  std::map<std::pair<std::vector<std::int32_t>, int>, std::uint32_t> byKey;
  for (int r = 0; r < worldSize; ++r) {
    auto& table = local_[static_cast<std::size_t>(r)];
    table[kCommWorld] = {0, false};
    if (defs[static_cast<std::size_t>(r)].rank < 0) continue;
    std::map<std::vector<std::int32_t>, int> seen;  // members -> how many so far on this rank
    for (const RawComm& c : defs[static_cast<std::size_t>(r)].comms) {
      if (c.inter) continue;
      const int ordinal = seen[c.members]++;
      auto [it, fresh] = byKey.try_emplace({c.members, ordinal}, 0);
      if (fresh) {
        Communicator comm;
        it->second = static_cast<std::uint32_t>(members_.size());
        comm.name = "comm " + std::to_string(it->second) + " (MPI_" + c.creator + ")";
        comm.worldRanks = c.members;
        comms_.push_back(std::move(comm));
        members_.push_back(c.members);
      }
      table[c.id] = {it->second, false};
    }
  }
  // MPI_COMM_SELF: one model communicator whose rank 0 is the caller, shared by all ranks.
  Communicator self;
  self.name = "MPI_COMM_SELF";
  self.isSelf = true;
  const auto selfIndex = static_cast<std::uint32_t>(members_.size());
  comms_.push_back(self);
  members_.emplace_back();
  for (auto& table : local_) table[kCommSelf] = {selfIndex, true};
}

std::optional<CommUnifier::Local> CommUnifier::lookup(int rank, std::uint32_t id) const {
  if (rank < 0 || static_cast<std::size_t>(rank) >= local_.size()) return std::nullopt;
  const auto& table = local_[static_cast<std::size_t>(rank)];
  auto it = table.find(id);
  if (it == table.end()) return std::nullopt;
  Local l;
  l.model = it->second.first;
  l.members = it->second.second ? nullptr : &members_[it->second.first];
  return l;
}

std::int32_t CommUnifier::worldRank(const Local& c, int rank, std::int32_t peer) {
  if (!c.members) return peer == 0 ? rank : -1;
  if (peer < 0 || static_cast<std::size_t>(peer) >= c.members->size()) return -1;
  return (*c.members)[static_cast<std::size_t>(peer)];
}

}  // namespace perwiz::trace
