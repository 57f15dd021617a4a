// The non-blocking patterns of pair_bench.h (LogGPO, docs/calibrate.md "LogGPO"). As in
// pair_bench.cpp, both ranks run the same number of matching calls whatever the timings, and no
// timed call follows a sleep except the Wait of the progress probe, whose point is the sleep.
#include "pair_bench.h"

namespace perwiz::calibrate {
namespace {

enum Tag : int { kTagNbPingPong = 21, kTagNbReady = 22, kTagNbLate = 23, kTagNbProbe = 24,
                 kTagNbAck = 25 };

}  // namespace

std::vector<double> PairBench::nonblockingPingPongHalf(std::uint64_t bytes, int warmup, int reps) {
  const int n = count(bytes);
  const int partner = 1 - rank_;
  if (reply_.size() < buffer_.size()) reply_.resize(buffer_.size());
  std::vector<double> samples;
  MPI_Request send = MPI_REQUEST_NULL, recv = MPI_REQUEST_NULL;
  for (int i = 0; i < warmup + reps; ++i) {
    if (rank_ == 0) {
      const double t0 = MPI_Wtime();
      MPI_Irecv(reply_.data(), n, MPI_BYTE, partner, kTagNbPingPong, comm_, &recv);
      MPI_Isend(buffer_.data(), n, MPI_BYTE, partner, kTagNbPingPong, comm_, &send);
      MPI_Wait(&send, MPI_STATUS_IGNORE);
      MPI_Wait(&recv, MPI_STATUS_IGNORE);
      const double t1 = MPI_Wtime();
      if (i >= warmup) samples.push_back((t1 - t0) / 2);
    } else {
      MPI_Irecv(buffer_.data(), n, MPI_BYTE, partner, kTagNbPingPong, comm_, &recv);
      MPI_Wait(&recv, MPI_STATUS_IGNORE);
      MPI_Isend(buffer_.data(), n, MPI_BYTE, partner, kTagNbPingPong, comm_, &send);
      MPI_Wait(&send, MPI_STATUS_IGNORE);
    }
  }
  return samples;
}

PairBench::IsendTimes PairBench::isendReceiverReady(std::uint64_t bytes, int warmup, int reps) {
  const int n = count(bytes);
  IsendTimes times;
  // As in sendReceiverReady: rank 1 posts the next receive before it acknowledges, so rank 0
  // sends as soon as it has the acknowledgement, into a posted receive.
  MPI_Request posted = MPI_REQUEST_NULL;
  if (rank_ == 1) MPI_Irecv(buffer_.data(), n, MPI_BYTE, 0, kTagNbReady, comm_, &posted);
  for (int i = 0; i < warmup + reps; ++i) {
    if (rank_ == 0) {
      if (i == 0) MPI_Recv(nullptr, 0, MPI_BYTE, 1, kTagNbAck, comm_, MPI_STATUS_IGNORE);
      MPI_Request request = MPI_REQUEST_NULL;
      const double t0 = MPI_Wtime();
      MPI_Isend(buffer_.data(), n, MPI_BYTE, 1, kTagNbReady, comm_, &request);
      const double t1 = MPI_Wtime();
      MPI_Wait(&request, MPI_STATUS_IGNORE);
      const double t2 = MPI_Wtime();
      MPI_Recv(nullptr, 0, MPI_BYTE, 1, kTagNbAck, comm_, MPI_STATUS_IGNORE);
      if (i >= warmup) {
        times.post.push_back(t1 - t0);
        times.total.push_back(t2 - t0);
      }
    } else {
      if (i == 0) MPI_Send(nullptr, 0, MPI_BYTE, 0, kTagNbAck, comm_);
      MPI_Wait(&posted, MPI_STATUS_IGNORE);
      if (i + 1 < warmup + reps)
        MPI_Irecv(buffer_.data(), n, MPI_BYTE, 0, kTagNbReady, comm_, &posted);
      MPI_Send(nullptr, 0, MPI_BYTE, 0, kTagNbAck, comm_);
    }
  }
  return times;
}

std::vector<double> PairBench::irecvAfterArrival(std::uint64_t bytes, int warmup, int reps) {
  const int n = count(bytes);
  std::vector<double> samples;
  for (int i = 0; i < warmup + reps; ++i) {
    if (rank_ == 0) {
      MPI_Send(buffer_.data(), n, MPI_BYTE, 1, kTagNbLate, comm_);
      MPI_Recv(nullptr, 0, MPI_BYTE, 1, kTagNbAck, comm_, MPI_STATUS_IGNORE);
    } else {
      int arrived = 0;
      while (MPI_Iprobe(0, kTagNbLate, comm_, &arrived, MPI_STATUS_IGNORE), !arrived) {
      }
      MPI_Request request = MPI_REQUEST_NULL;
      const double t0 = MPI_Wtime();
      MPI_Irecv(buffer_.data(), n, MPI_BYTE, 0, kTagNbLate, comm_, &request);
      MPI_Wait(&request, MPI_STATUS_IGNORE);
      const double t1 = MPI_Wtime();
      MPI_Send(nullptr, 0, MPI_BYTE, 0, kTagNbAck, comm_);
      if (i >= warmup) samples.push_back(t1 - t0);
    }
  }
  return collectOnRank0(std::move(samples));
}

std::vector<double> PairBench::waitAfterAway(std::uint64_t bytes, int side, double awaySeconds,
                                             int warmup, int reps) {
  const int n = count(bytes);
  std::vector<double> samples;
  for (int i = 0; i < warmup + reps; ++i) {
    // Rank 1 posts its receive, then lets rank 0 send: the receive is always posted first.
    MPI_Request request = MPI_REQUEST_NULL;
    const bool probed = rank_ == side;
    if (rank_ == 1) {
      MPI_Irecv(buffer_.data(), n, MPI_BYTE, 0, kTagNbProbe, comm_, &request);
      MPI_Send(nullptr, 0, MPI_BYTE, 0, kTagNbAck, comm_);
    } else {
      MPI_Recv(nullptr, 0, MPI_BYTE, 1, kTagNbAck, comm_, MPI_STATUS_IGNORE);
      MPI_Isend(buffer_.data(), n, MPI_BYTE, 1, kTagNbProbe, comm_, &request);
    }
    if (probed) {
      sleepSeconds(awaySeconds);  // away from MPI: only independent progress moves the message
      const double t0 = MPI_Wtime();
      MPI_Wait(&request, MPI_STATUS_IGNORE);
      const double t1 = MPI_Wtime();
      if (i >= warmup) samples.push_back(t1 - t0);
    } else {
      MPI_Wait(&request, MPI_STATUS_IGNORE);
    }
    // Both sides are done before the next trial: no trial's message overlaps the next one.
    MPI_Barrier(comm_);
  }
  if (side == 0) return rank_ == 0 ? samples : std::vector<double>{};
  return collectOnRank0(std::move(samples));
}

}  // namespace perwiz::calibrate
