// ProcessGroup over MPI_COMM_WORLD (perwiz-mpi).
#pragma once

#include "perwiz/process_group.h"

namespace perwiz::mpi {

class MpiGroup final : public ProcessGroup {
 public:
  MpiGroup();
  std::uint32_t size() const override { return size_; }
  std::uint32_t rank() const override { return rank_; }
  // MPI_Alltoall of the sizes, then MPI_Alltoallv of the bytes. A buffer of 2 GiB or more to
  // one process (MPI's int counts) is an error naming the sizes.
  std::vector<std::string> exchange(std::vector<std::string> out) override;
  // MPI_Bcast of a short buffer (its size in front), a second one for what does not fit.
  std::string broadcast(std::uint32_t root, std::string data) override;

 private:
  std::uint32_t size_ = 1, rank_ = 0;
  // PERWIZ_MPI_INJECT_FAILURE=Q:N: process Q throws at its N-th exchange (the tests' failing
  // process, tests/mpi/check_perwiz_mpi.sh); 0 = never.
  std::uint64_t exchanges_ = 0, failAt_ = 0;
};

}  // namespace perwiz::mpi
