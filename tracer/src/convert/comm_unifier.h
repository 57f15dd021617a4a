// Communicators across ranks. Each rank numbers its communicators itself; the same
// communicator is "the k-th one with these members (in this order)" on every member, because
// members create communicators collectively, hence in the same order. The unifier gives each
// such communicator one model communicator and maps every (rank, local id) to it.
#pragma once

#include "raw_reader.h"
#include "perwiz/trace.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace perwiz::trace {

class CommUnifier {
 public:
  // defs[r] for every rank (absent ranks: rank == -1).
  explicit CommUnifier(const std::vector<RankDefs>& defs, int worldSize);

  // Model communicators to define, in order, after MPI_COMM_WORLD (model index 0): the model
  // index of entry i is i + 1.
  const std::vector<Communicator>& extraComms() const { return comms_; }

  struct Local {
    std::uint32_t model = 0;            // model communicator index
    const std::vector<std::int32_t>* members = nullptr;  // null: MPI_COMM_SELF style
  };
  // The rank's communicator `id`; nullopt for ids it never defined or intercommunicators.
  std::optional<Local> lookup(int rank, std::uint32_t id) const;

  // World rank of comm-local `peer` for `rank`'s communicator; -1 if out of range.
  static std::int32_t worldRank(const Local& c, int rank, std::int32_t peer);

 private:
  std::vector<Communicator> comms_;
  // Per rank: local id -> (model index, is MPI_COMM_SELF).
  std::vector<std::map<std::uint32_t, std::pair<std::uint32_t, bool>>> local_;
  std::vector<std::vector<std::int32_t>> members_;  // per model communicator (index = model)
};

}  // namespace perwiz::trace
