// Synthetic traces of a chosen shape, deterministic from a seed.
//
// Used by `perwiz-cli generate`, the benchmarks and the tests. The generator streams records
// into a TraceSink (an OTF2 writer for 10^8-event traces, a TraceBuilder for in-memory use), so
// its memory does not grow with the trace.
#pragma once

#include "perwiz/trace_sink.h"

#include <cstdint>
#include <string>

namespace perwiz {

enum class P2PPattern { None, Ring, Pairs, MasterWorker, Random };

struct GeneratorSpec {
  std::uint32_t ranks = 4;
  std::uint32_t steps = 10;            // parallel steps (each wrapped in a PRGN_step state)
  std::uint64_t seed = 1;
  TimeNs computeNs = 100000;           // mean computation per rank per step
  double imbalance = 0.0;              // relative spread of computation across ranks (0..1)
  std::uint64_t messageBytes = 1024;   // p2p message size
  std::uint32_t messagesPerStep = 1;   // p2p exchanges per rank per step
  P2PPattern pattern = P2PPattern::Ring;
  bool nonBlocking = false;            // Isend/Irecv/Waitall instead of Sendrecv
  MpiOp collective = MpiOp::Allreduce; // per step; MpiOp::None for none
  std::uint64_t collectiveBytes = 8;
  TimeNs latencyNs = 5000;             // network latency used to place receives
  double bandwidthBytesPerNs = 1.0;    // 1 byte/ns = 1 GB/s
};

// Number of model events (calls, states) the spec produces; used to size a spec for a target.
std::uint64_t generatedEventCount(const GeneratorSpec& spec);
// Steps needed so that generatedEventCount() >= events (other fields kept).
GeneratorSpec specForEventCount(GeneratorSpec spec, std::uint64_t events);

void generateTrace(const GeneratorSpec& spec, TraceSink& sink);

P2PPattern parsePattern(const std::string& name, bool* ok = nullptr);
const char* patternName(P2PPattern p);

}  // namespace perwiz
