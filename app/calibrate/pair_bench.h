// Timed point-to-point patterns between the two ranks of a pair (docs/calibrate.md, "What is
// measured"). Compiled with mpicxx for Open MPI and with smpicxx for SMPI, where sleeping and
// MPI_Wtime run on the simulated clock.
#pragma once

#include "stats.h"

#include <mpi.h>

#include <cstdint>
#include <vector>

namespace perwiz::calibrate {

// Sleeps `seconds`. Under SMPI, nanosleep is SimGrid's (smpi_helpers.h): simulated time passes.
void sleepSeconds(double seconds);

// Ranks 0 and 1 of `world` as a communicator of their own; MPI_COMM_NULL on every other rank,
// which has nothing to do and must not poll the network meanwhile (it would steal the CPU the
// pair is timed on), so it leaves at once. Also fills the run's facts.
MPI_Comm measuringPair(MPI_Comm world, int& worldRank, int& worldSize, double& wtick);

class PairBench {
 public:
  // `comm` holds exactly the two ranks (0 = the "sender" side, 1 = the "receiver" side).
  PairBench(MPI_Comm comm, std::uint64_t maxBytes);
  int rank() const { return rank_; }

  // Every call is collective over the pair. Rank 0 returns the timed repetitions (seconds),
  // rank 1 an empty vector; `warmup` untimed repetitions come first.

  // Round trip / 2: rank 0 sends k bytes, rank 1 receives and sends them back.
  std::vector<double> pingPongHalf(std::uint64_t bytes, int warmup, int reps);
  // Duration of rank 0's MPI_Send while rank 1's matching receive is already posted.
  std::vector<double> sendReceiverReady(std::uint64_t bytes, int warmup, int reps);
  // Duration of rank 1's MPI_Recv of a message that has arrived: called only once MPI_Iprobe
  // sees the message, so an eager message, or a rendezvous request, is there.
  std::vector<double> recvAfterArrival(std::uint64_t bytes, int warmup, int reps);
  // A stream: rank 1 posts `messages` receives (each into its own part of a buffer) and
  // acknowledges; rank 0 then sends `messages` k-byte messages back to back and times until
  // rank 1's acknowledgement that all arrived (the classic LogGP measurement of the gap: the
  // time per message of a long stream is the larger of g and G·k). Rank 0 returns the timed
  // repetitions of the whole stream.
  std::vector<double> stream(std::uint64_t bytes, int messages, int warmup, int reps);
  // The time per message of a long stream (G's measurement, wire_fit.h): a stream of
  // kStreamMessages against one, each summarised with `statistic`, on rank 0 (NaN elsewhere).
  static constexpr int kStreamMessages = 8;
  double streamGap(std::uint64_t bytes, int warmup, int reps, Statistic statistic);
  // Both ranks send k bytes to each other at once (MPI_Irecv, MPI_Isend, MPI_Waitall), after
  // an acknowledgement that the partner's receive is posted; rank 0 times its exchange. Against
  // a one-way transfer it tells whether the two directions share the hosts' links (half
  // duplex: the exchange's bytes take twice as long) or not (full duplex).
  std::vector<double> exchange(std::uint64_t bytes, int warmup, int reps);
  // Is a k-byte MPI_Send synchronous? Rank 1 calls the receive `delay` seconds after rank 0
  // started the send: an eager send returns long before, a synchronous one waits for it.
  // Majority of `votes` trials; both ranks get the verdict.
  bool sendIsSynchronous(std::uint64_t bytes, double delay, int votes);
  // Rank 0's value on both ranks.
  double shareFromRank0(double value);

  // ---- non-blocking patterns for LogGPO (pair_bench_nonblocking.cpp) ----

  // Round trip / 2 with MPI_Isend + MPI_Wait and MPI_Irecv + MPI_Wait: each side posts its
  // receive before it sends, so every message finds its receiver waiting.
  std::vector<double> nonblockingPingPongHalf(std::uint64_t bytes, int warmup, int reps);
  // Rank 1 has posted the matching MPI_Irecv (and waits in MPI_Wait); rank 0 times its MPI_Isend
  // alone (`post`) and MPI_Isend + the MPI_Wait right after it (`total`).
  struct IsendTimes {
    std::vector<double> post, total;
  };
  IsendTimes isendReceiverReady(std::uint64_t bytes, int warmup, int reps);
  // MPI_Irecv + MPI_Wait on rank 1 of a message that has arrived (polled with MPI_Iprobe, as in
  // recvAfterArrival); returned on rank 0.
  std::vector<double> irecvAfterArrival(std::uint64_t bytes, int warmup, int reps);
  // The progress probe: rank `side` posts its half of a k-byte exchange (Isend on rank 0, Irecv
  // on rank 1), stays away from MPI for `awaySeconds`, then times its MPI_Wait; the partner
  // posts and waits at once. Returned on rank 0.
  std::vector<double> waitAfterAway(std::uint64_t bytes, int side, double awaySeconds, int warmup,
                                    int reps);

 private:
  int count(std::uint64_t bytes) const;
  std::vector<double> collectOnRank0(std::vector<double> rank1Samples);

  MPI_Comm comm_;
  int rank_ = 0;
  std::vector<char> buffer_;
  // A second buffer for a receive posted while buffer_ is being sent; allocated by the one
  // pattern that needs it (the LogGPS mode does not pay for it).
  std::vector<char> reply_;
  std::vector<char> streamBuffer_;  // the stream's receives (rank 1 only)
};

}  // namespace perwiz::calibrate
