// The timed patterns of pair_bench.h. Every loop is written so that both ranks run the same
// number of matching calls whatever the timings: nothing here can deadlock on a slow machine.
#include "pair_bench.h"

#include <time.h>

#include <cerrno>
#include <cmath>
#include <stdexcept>

namespace perwiz::calibrate {
namespace {

// Distinct tags per pattern: a stray message can never be taken for another pattern's.
enum Tag : int { kTagPingPong = 11, kTagReady = 12, kTagLate = 13, kTagProbe = 14, kTagAck = 15,
                 kTagSamples = 16, kTagGo = 17, kTagStream = 18, kTagExchange = 19 };

}  // namespace

MPI_Comm measuringPair(MPI_Comm world, int& worldRank, int& worldSize, double& wtick) {
  MPI_Comm_rank(world, &worldRank);
  MPI_Comm_size(world, &worldSize);
  wtick = MPI_Wtick();
  MPI_Comm pair = MPI_COMM_NULL;
  MPI_Comm_split(world, worldRank < 2 ? 0 : MPI_UNDEFINED, worldRank, &pair);
  return pair;
}

void sleepSeconds(double seconds) {
  if (!(seconds > 0)) return;
  timespec t;
  t.tv_sec = static_cast<time_t>(seconds);
  t.tv_nsec = static_cast<long>(std::lround((seconds - static_cast<double>(t.tv_sec)) * 1e9));
  if (t.tv_nsec >= 1000000000L) {
    t.tv_sec += 1;
    t.tv_nsec -= 1000000000L;
  }
  // Interrupted sleeps are resumed: the pause must be at least this long.
  timespec rest;
  while (nanosleep(&t, &rest) != 0 && errno == EINTR) t = rest;
}

PairBench::PairBench(MPI_Comm comm, std::uint64_t maxBytes)
    : comm_(comm), buffer_(static_cast<std::size_t>(maxBytes + 1), 0) {
  MPI_Comm_rank(comm_, &rank_);
}

int PairBench::count(std::uint64_t bytes) const {
  if (bytes >= buffer_.size()) throw std::logic_error("message larger than the benchmark buffer");
  return static_cast<int>(bytes);
}

std::vector<double> PairBench::collectOnRank0(std::vector<double> rank1Samples) {
  int n = static_cast<int>(rank1Samples.size());
  if (rank_ == 1) {
    MPI_Send(&n, 1, MPI_INT, 0, kTagSamples, comm_);
    MPI_Send(rank1Samples.data(), n, MPI_DOUBLE, 0, kTagSamples, comm_);
    return {};
  }
  MPI_Recv(&n, 1, MPI_INT, 1, kTagSamples, comm_, MPI_STATUS_IGNORE);
  std::vector<double> samples(static_cast<std::size_t>(n));
  MPI_Recv(samples.data(), n, MPI_DOUBLE, 1, kTagSamples, comm_, MPI_STATUS_IGNORE);
  return samples;
}

std::vector<double> PairBench::pingPongHalf(std::uint64_t bytes, int warmup, int reps) {
  const int n = count(bytes);
  std::vector<double> samples;
  for (int i = 0; i < warmup + reps; ++i) {
    if (rank_ == 0) {
      const double t0 = MPI_Wtime();
      MPI_Send(buffer_.data(), n, MPI_BYTE, 1, kTagPingPong, comm_);
      MPI_Recv(buffer_.data(), n, MPI_BYTE, 1, kTagPingPong, comm_, MPI_STATUS_IGNORE);
      const double t1 = MPI_Wtime();
      if (i >= warmup) samples.push_back((t1 - t0) / 2);
    } else {
      MPI_Recv(buffer_.data(), n, MPI_BYTE, 0, kTagPingPong, comm_, MPI_STATUS_IGNORE);
      MPI_Send(buffer_.data(), n, MPI_BYTE, 0, kTagPingPong, comm_);
    }
  }
  return samples;
}

std::vector<double> PairBench::sendReceiverReady(std::uint64_t bytes, int warmup, int reps) {
  const int n = count(bytes);
  std::vector<double> samples;
  // Rank 1 posts the next receive before it acknowledges: when rank 0 has the acknowledgement,
  // the receive is surely waiting, and rank 0 sends at once (no pause that would let its CPU
  // and caches go cold).
  MPI_Request posted = MPI_REQUEST_NULL;
  if (rank_ == 1) MPI_Irecv(buffer_.data(), n, MPI_BYTE, 0, kTagReady, comm_, &posted);
  for (int i = 0; i < warmup + reps; ++i) {
    if (rank_ == 0) {
      if (i == 0) MPI_Recv(nullptr, 0, MPI_BYTE, 1, kTagAck, comm_, MPI_STATUS_IGNORE);
      const double t0 = MPI_Wtime();
      MPI_Send(buffer_.data(), n, MPI_BYTE, 1, kTagReady, comm_);
      const double t1 = MPI_Wtime();
      MPI_Recv(nullptr, 0, MPI_BYTE, 1, kTagAck, comm_, MPI_STATUS_IGNORE);
      if (i >= warmup) samples.push_back(t1 - t0);
    } else {
      if (i == 0) MPI_Send(nullptr, 0, MPI_BYTE, 0, kTagAck, comm_);
      MPI_Wait(&posted, MPI_STATUS_IGNORE);
      if (i + 1 < warmup + reps)
        MPI_Irecv(buffer_.data(), n, MPI_BYTE, 0, kTagReady, comm_, &posted);
      MPI_Send(nullptr, 0, MPI_BYTE, 0, kTagAck, comm_);
    }
  }
  return samples;
}

std::vector<double> PairBench::recvAfterArrival(std::uint64_t bytes, int warmup, int reps) {
  const int n = count(bytes);
  std::vector<double> samples;
  for (int i = 0; i < warmup + reps; ++i) {
    if (rank_ == 0) {
      MPI_Send(buffer_.data(), n, MPI_BYTE, 1, kTagLate, comm_);
      MPI_Recv(nullptr, 0, MPI_BYTE, 1, kTagAck, comm_, MPI_STATUS_IGNORE);
    } else {
      // Poll until the message (or its rendezvous request) is there, so that the timed receive
      // never waits for it. Polling, not sleeping, keeps the CPU as warm as in the ping-pong.
      int arrived = 0;
      while (MPI_Iprobe(0, kTagLate, comm_, &arrived, MPI_STATUS_IGNORE), !arrived) {
      }
      const double t0 = MPI_Wtime();
      MPI_Recv(buffer_.data(), n, MPI_BYTE, 0, kTagLate, comm_, MPI_STATUS_IGNORE);
      const double t1 = MPI_Wtime();
      MPI_Send(nullptr, 0, MPI_BYTE, 0, kTagAck, comm_);
      if (i >= warmup) samples.push_back(t1 - t0);
    }
  }
  return collectOnRank0(std::move(samples));
}

std::vector<double> PairBench::stream(std::uint64_t bytes, int messages, int warmup, int reps) {
  const int n = count(bytes);
  std::vector<double> samples;
  std::vector<MPI_Request> requests;
  if (rank_ == 1) {
    streamBuffer_.resize(static_cast<std::size_t>(bytes) * static_cast<std::size_t>(messages) + 1);
    requests.resize(static_cast<std::size_t>(messages));
  }
  for (int i = 0; i < warmup + reps; ++i) {
    if (rank_ == 0) {
      MPI_Recv(nullptr, 0, MPI_BYTE, 1, kTagAck, comm_, MPI_STATUS_IGNORE);
      const double t0 = MPI_Wtime();
      for (int m = 0; m < messages; ++m) MPI_Send(buffer_.data(), n, MPI_BYTE, 1, kTagStream, comm_);
      MPI_Recv(nullptr, 0, MPI_BYTE, 1, kTagAck, comm_, MPI_STATUS_IGNORE);
      const double t1 = MPI_Wtime();
      if (i >= warmup) samples.push_back(t1 - t0);
    } else {
      for (int m = 0; m < messages; ++m)
        MPI_Irecv(streamBuffer_.data() + static_cast<std::size_t>(m) * static_cast<std::size_t>(bytes), n, MPI_BYTE, 0,
                  kTagStream, comm_, &requests[static_cast<std::size_t>(m)]);
      MPI_Send(nullptr, 0, MPI_BYTE, 0, kTagAck, comm_);
      MPI_Waitall(messages, requests.data(), MPI_STATUSES_IGNORE);
      MPI_Send(nullptr, 0, MPI_BYTE, 0, kTagAck, comm_);
    }
  }
  return samples;
}

std::vector<double> PairBench::exchange(std::uint64_t bytes, int warmup, int reps) {
  const int n = count(bytes);
  std::vector<double> samples;
  if (reply_.size() < buffer_.size()) reply_.resize(buffer_.size());
  const int partner = 1 - rank_;
  for (int i = 0; i < warmup + reps; ++i) {
    MPI_Request req[2];
    MPI_Irecv(reply_.data(), n, MPI_BYTE, partner, kTagExchange, comm_, &req[0]);
    // Both receives are posted before either send starts: each rank tells the other.
    MPI_Sendrecv(nullptr, 0, MPI_BYTE, partner, kTagAck, nullptr, 0, MPI_BYTE, partner, kTagAck, comm_,
                 MPI_STATUS_IGNORE);
    const double t0 = MPI_Wtime();
    MPI_Isend(buffer_.data(), n, MPI_BYTE, partner, kTagExchange, comm_, &req[1]);
    MPI_Waitall(2, req, MPI_STATUSES_IGNORE);
    const double t1 = MPI_Wtime();
    if (rank_ == 0 && i >= warmup) samples.push_back(t1 - t0);
  }
  return samples;
}

double PairBench::streamGap(std::uint64_t bytes, int warmup, int reps, Statistic statistic) {
  const double many = summarize(stream(bytes, kStreamMessages, warmup, reps), statistic);
  const double one = summarize(stream(bytes, 1, warmup, reps), statistic);
  return (many - one) / (kStreamMessages - 1);
}

bool PairBench::sendIsSynchronous(std::uint64_t bytes, double delay, int votes) {
  const int n = count(bytes);
  int synchronous = 0;
  for (int i = 0; i < votes; ++i) {
    if (rank_ == 0) {
      // "go" tells rank 1 that the timed send starts now; rank 1 then stays away `delay`. Timing
      // from here (not from the last acknowledgement) keeps a descheduled rank 0 from shrinking
      // the wait of a synchronous send below the criterion.
      MPI_Send(nullptr, 0, MPI_BYTE, 1, kTagGo, comm_);
      const double t0 = MPI_Wtime();
      MPI_Send(buffer_.data(), n, MPI_BYTE, 1, kTagProbe, comm_);
      const double t1 = MPI_Wtime();
      MPI_Recv(nullptr, 0, MPI_BYTE, 1, kTagAck, comm_, MPI_STATUS_IGNORE);
      // An eager send's time does not depend on the delay; a synchronous one lasts about it.
      if (t1 - t0 > delay / 2) ++synchronous;
    } else {
      MPI_Recv(nullptr, 0, MPI_BYTE, 0, kTagGo, comm_, MPI_STATUS_IGNORE);
      sleepSeconds(delay);  // not in MPI: nothing progresses the message meanwhile
      MPI_Recv(buffer_.data(), n, MPI_BYTE, 0, kTagProbe, comm_, MPI_STATUS_IGNORE);
      MPI_Send(nullptr, 0, MPI_BYTE, 0, kTagAck, comm_);
    }
  }
  int verdict = 2 * synchronous > votes ? 1 : 0;
  MPI_Bcast(&verdict, 1, MPI_INT, 0, comm_);
  return verdict != 0;
}

double PairBench::shareFromRank0(double value) {
  MPI_Bcast(&value, 1, MPI_DOUBLE, 0, comm_);
  return value;
}

}  // namespace perwiz::calibrate
