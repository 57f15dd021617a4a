// Synthetic traces of a chosen shape, deterministic from a seed.
//
// Used by `perwiz-cli generate`, the benchmarks and the tests. The generator streams records
// into a TraceSink (an OTF2 writer for 10^8-event traces, a TraceBuilder for in-memory use), so
// its memory does not grow with the trace.
//
// The traces are causally consistent under the default network model (defaultNetworkModel(),
// "myrinet-score"): every dependency the replay derives (docs/model.md §2) holds on the
// measured times, so a replay with that model finds no clock skew and no rendezvous cycle, and
// with no hypothesis it reproduces the trace exactly. Receives are placed no earlier than the
// model's delivery (the partner's posting call plus its receive delay λ(k)), rendezvous sends
// (k > S) return only after their receiver has posted the receive, and collectives end after
// their last member enters. Other models (e.g. ethernet-table5, whose λ is larger) may see skew.
#pragma once

#include "perwiz/trace_sink.h"

#include <cstdint>
#include <string>

namespace perwiz {

enum class P2PPattern { None, Ring, Pairs, MasterWorker, Random };

// The calls of a blocking exchange on Ring, Pairs and Random (MasterWorker always uses
// MPI_Send on the workers and MPI_Recv on the master; non-blocking exchanges use
// Isend/Irecv/Waitall whatever this says):
//   Sendrecv:     one MPI_Sendrecv per rank and exchange;
//   SendThenRecv: MPI_Send to the destination, then MPI_Recv from the source. Only for eager
//                 messages (k <= S of the default model): a cycle of rendezvous sends that all
//                 send first deadlocks, so generatorSpecProblem() refuses it.
enum class BlockingCalls { Sendrecv, SendThenRecv };

struct GeneratorSpec {
  std::uint32_t ranks = 4;
  std::uint32_t steps = 10;            // parallel steps (each wrapped in a PRGN_step state)
  std::uint64_t seed = 1;
  TimeNs computeNs = 100000;           // mean computation per rank per step
  double imbalance = 0.0;              // relative spread of computation across ranks (0..1)
  std::uint64_t messageBytes = 1024;   // p2p message size
  std::uint32_t messagesPerStep = 1;   // p2p exchanges per rank per step
  P2PPattern pattern = P2PPattern::Ring;
  bool nonBlocking = false;            // Isend/Irecv/Waitall instead of blocking calls
  BlockingCalls blockingCalls = BlockingCalls::Sendrecv;  // blocking Ring, Pairs, Random
  MpiOp collective = MpiOp::Allreduce; // per step; MpiOp::None for none
  std::uint64_t collectiveBytes = 8;
  // A receive is placed at the later of (send record + latencyNs + bytes / bandwidth) and
  // (the send's posting call enter + the default model's receive delay), so these two can make
  // messages slower than the model, never faster.
  TimeNs latencyNs = 5000;             // network latency used to place receives
  double bandwidthBytesPerNs = 1.0;    // 1 byte/ns = 1 GB/s
  // Variants of one run, for comparisons (perwiz-cli compare, issue #41): a zero-length user
  // state "inserted" right before every MPI call whose number on its rank (0-based) plus
  // insertPhase is a multiple of insertEvery (0: none). No other event or time changes, so
  // two phases give two traces that differ in exactly those states.
  std::uint64_t insertEvery = 0;
  std::uint64_t insertPhase = 0;
};

// Why generateTrace() would refuse `spec` ("" if it accepts it): today only SendThenRecv with
// rendezvous messages on a pattern where ranks both send and receive (it would deadlock).
std::string generatorSpecProblem(const GeneratorSpec& spec);

// Number of model events (calls, states) the spec produces; used to size a spec for a target.
std::uint64_t generatedEventCount(const GeneratorSpec& spec);
// Steps needed so that generatedEventCount() >= events (other fields kept).
GeneratorSpec specForEventCount(GeneratorSpec spec, std::uint64_t events);

// Throws std::invalid_argument with generatorSpecProblem() when that is not empty.
void generateTrace(const GeneratorSpec& spec, TraceSink& sink);

P2PPattern parsePattern(const std::string& name, bool* ok = nullptr);
const char* patternName(P2PPattern p);
// "sendrecv", "send-recv" (the CLI's --p2p values); parsing ignores case and reads '_' as '-'.
BlockingCalls parseBlockingCalls(const std::string& name, bool* ok = nullptr);
const char* blockingCallsName(BlockingCalls c);

}  // namespace perwiz
