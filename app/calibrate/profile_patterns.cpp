// The timed calls of the profile mode (see profile_patterns.h). Each round calls every function
// once per rank, so the rounds of AlignedRounds always match across ranks.
#include "profile_patterns.h"

#include <stdexcept>

namespace perwiz::calibrate {
namespace {

constexpr int kTagPingPong = 41, kTagRing = 42;

}  // namespace

PatternRunner::PatternRunner(MPI_Comm comm, std::uint64_t maxBufferBytes)
    : comm_(comm),
      send_(static_cast<std::size_t>(maxBufferBytes + 1), 1),
      recv_(static_cast<std::size_t>(maxBufferBytes + 1), 0) {
  MPI_Comm_rank(comm_, &rank_);
  MPI_Comm_size(comm_, &size_);
}

int PatternRunner::count(std::uint64_t bytes) const {
  if (bytes >= send_.size()) throw std::logic_error("message larger than the profile buffers");
  return static_cast<int>(bytes);
}

void PatternRunner::round(ProfilePattern pattern, std::uint64_t partBytes, int round,
                          std::vector<TimedCall>& out) {
  const int n = count(pattern == ProfilePattern::Alltoall ? partBytes * static_cast<std::uint64_t>(size_)
                                                          : partBytes);
  unsigned char* s = send_.data();
  unsigned char* r = recv_.data();
  double t0 = 0, t1 = 0;
  switch (pattern) {
    case ProfilePattern::PingPong: {
      // Pairs (0,1), (2,3) …; with an odd p the last rank has no partner and sits the round out.
      const int partner = rank_ ^ 1;
      if (partner >= size_) return;
      // The lower rank sends in even rounds, the upper one in odd rounds: both ranks get sends
      // and receives, and a send's receiver always calls MPI_Recv at the same instant.
      const bool sends = (rank_ % 2 == 0) == (round % 2 == 0);
      t0 = MPI_Wtime();
      if (sends) MPI_Send(s, n, MPI_BYTE, partner, kTagPingPong, comm_);
      else MPI_Recv(r, n, MPI_BYTE, partner, kTagPingPong, comm_, MPI_STATUS_IGNORE);
      t1 = MPI_Wtime();
      out.push_back({sends ? 0 : 1, t1 - t0});
      return;
    }
    case ProfilePattern::Sendrecv: {
      const int right = (rank_ + 1) % size_, left = (rank_ + size_ - 1) % size_;
      t0 = MPI_Wtime();
      MPI_Sendrecv(s, n, MPI_BYTE, right, kTagRing, r, n, MPI_BYTE, left, kTagRing, comm_,
                   MPI_STATUS_IGNORE);
      t1 = MPI_Wtime();
      break;
    }
    case ProfilePattern::Bcast:
      t0 = MPI_Wtime();
      MPI_Bcast(rank_ == 0 ? s : r, n, MPI_BYTE, 0, comm_);
      t1 = MPI_Wtime();
      break;
    case ProfilePattern::Reduce:
      // MPI_MAX is defined for MPI_UNSIGNED_CHAR (not for MPI_BYTE); a trace records count ×
      // type size = the same b.
      t0 = MPI_Wtime();
      MPI_Reduce(s, r, n, MPI_UNSIGNED_CHAR, MPI_MAX, 0, comm_);
      t1 = MPI_Wtime();
      break;
    case ProfilePattern::Allreduce:
      t0 = MPI_Wtime();
      MPI_Allreduce(s, r, n, MPI_UNSIGNED_CHAR, MPI_MAX, comm_);
      t1 = MPI_Wtime();
      break;
    case ProfilePattern::Barrier:
      t0 = MPI_Wtime();
      MPI_Barrier(comm_);
      t1 = MPI_Wtime();
      break;
    case ProfilePattern::Alltoall: {
      const int part = count(partBytes);
      t0 = MPI_Wtime();
      MPI_Alltoall(s, part, MPI_BYTE, r, part, MPI_BYTE, comm_);
      t1 = MPI_Wtime();
      break;
    }
  }
  out.push_back({0, t1 - t0});
}

}  // namespace perwiz::calibrate
