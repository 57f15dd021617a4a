// The processes that replay one trace together (perwiz-mpi): an interface over the two
// collective operations the distributed replay needs, so that core stays free of MPI.
// perwiz-mpi implements it over MPI_COMM_WORLD (app/mpi/mpi_group.cpp); tests run a group of
// threads in one process (ThreadGroup, tests/thread_group.h).
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace perwiz {

class ProcessGroup {
 public:
  virtual ~ProcessGroup() = default;
  virtual std::uint32_t size() const = 0;
  virtual std::uint32_t rank() const = 0;
  // Every process calls it with one buffer per process (its own entry included); each gets
  // back the buffers addressed to it, out[q] from process q. A collective operation.
  virtual std::vector<std::string> exchange(std::vector<std::string> out) = 0;

  // Every process's `mine`, on every process (through exchange()).
  std::vector<std::string> allGather(const std::string& mine) {
    return exchange(std::vector<std::string>(size(), mine));
  }
  // `data` of process `root` on every process (the others' `data` is ignored); every process
  // names the same root. A collective operation, by default through exchange(); perwiz-mpi's
  // group uses MPI_Bcast (the critical path's walk hands over in one per step).
  virtual std::string broadcast(std::uint32_t root, std::string data) {
    std::vector<std::string> out(size());
    if (rank() == root) out.assign(size(), data);
    return exchange(std::move(out))[root];
  }
};

// A group of one: the serial tools call the group code paths with it (perwiz-cli predict -o
// writes L' rank by rank with perwiz-mpi's writer).
class SingleProcess final : public ProcessGroup {
 public:
  std::uint32_t size() const override { return 1; }
  std::uint32_t rank() const override { return 0; }
  std::vector<std::string> exchange(std::vector<std::string> out) override {
    out.resize(1);
    return out;
  }
};

// Raised on every process when one of them reported an error at a phase's end (agree()): the
// message names the process and its problem.
struct GroupError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

}  // namespace perwiz
