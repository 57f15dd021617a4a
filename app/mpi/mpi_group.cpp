// ProcessGroup over MPI_COMM_WORLD (mpi_group.h).
#include "mpi_group.h"

#include <mpi.h>

#include <algorithm>
#include <climits>
#include <cstring>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>

namespace perwiz::mpi {

MpiGroup::MpiGroup() {
  int n = 1, r = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  size_ = static_cast<std::uint32_t>(n);
  rank_ = static_cast<std::uint32_t>(r);
  if (const char* f = std::getenv("PERWIZ_MPI_INJECT_FAILURE")) {
    unsigned long q = 0, at = 0;
    if (std::sscanf(f, "%lu:%lu", &q, &at) == 2 && q == rank_) failAt_ = at;
  }
}

std::vector<std::string> MpiGroup::exchange(std::vector<std::string> out) {
  if (++exchanges_ == failAt_)
    throw std::runtime_error("injected failure at exchange " + std::to_string(failAt_) + " (PERWIZ_MPI_INJECT_FAILURE)");
  const int P = static_cast<int>(size_);
  out.resize(size_);
  std::vector<int> sendCounts(size_), sendDispls(size_), recvCounts(size_), recvDispls(size_);
  long long total = 0;
  for (int q = 0; q < P; ++q) {
    if (out[q].size() > static_cast<std::size_t>(INT_MAX) || total + static_cast<long long>(out[q].size()) > INT_MAX)
      throw std::runtime_error("perwiz-mpi: " + std::to_string(out[q].size()) +
                               " bytes to one process in one exchange: more than MPI's int counts hold");
    sendCounts[q] = static_cast<int>(out[q].size());
    sendDispls[q] = static_cast<int>(total);
    total += sendCounts[q];
  }
  std::string send;
  send.reserve(static_cast<std::size_t>(total));
  for (const std::string& b : out) send += b;
  MPI_Alltoall(sendCounts.data(), 1, MPI_INT, recvCounts.data(), 1, MPI_INT, MPI_COMM_WORLD);
  long long rtotal = 0;
  for (int q = 0; q < P; ++q) {
    recvDispls[q] = static_cast<int>(rtotal);
    rtotal += recvCounts[q];
    if (rtotal > INT_MAX) throw std::runtime_error("perwiz-mpi: more than 2 GiB to receive in one exchange");
  }
  std::string recv(static_cast<std::size_t>(rtotal), '\0');
  MPI_Alltoallv(send.data(), sendCounts.data(), sendDispls.data(), MPI_BYTE, recv.data(), recvCounts.data(),
                recvDispls.data(), MPI_BYTE, MPI_COMM_WORLD);
  std::vector<std::string> in(size_);
  for (int q = 0; q < P; ++q) in[q] = recv.substr(static_cast<std::size_t>(recvDispls[q]), static_cast<std::size_t>(recvCounts[q]));
  return in;
}

std::string MpiGroup::broadcast(std::uint32_t root, std::string data) {
  if (++exchanges_ == failAt_)
    throw std::runtime_error("injected failure at exchange " + std::to_string(failAt_) + " (PERWIZ_MPI_INJECT_FAILURE)");
  constexpr std::size_t kShort = 120;
  char head[8 + kShort] = {};
  std::uint64_t n = data.size();
  if (rank_ == root) {
    std::memcpy(head, &n, 8);
    std::memcpy(head + 8, data.data(), std::min<std::size_t>(n, kShort));
  }
  MPI_Bcast(head, sizeof head, MPI_BYTE, static_cast<int>(root), MPI_COMM_WORLD);
  std::memcpy(&n, head, 8);
  if (n > INT_MAX) throw std::runtime_error("perwiz-mpi: a broadcast of more than 2 GiB");
  std::string in(head + 8, std::min<std::size_t>(n, kShort));
  if (n > kShort) {
    std::string rest = rank_ == root ? data.substr(kShort) : std::string(n - kShort, '\0');
    MPI_Bcast(rest.data(), static_cast<int>(n - kShort), MPI_BYTE, static_cast<int>(root), MPI_COMM_WORLD);
    in += rest;
  }
  return in;
}

}  // namespace perwiz::mpi
