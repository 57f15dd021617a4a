// Generated benchmark inputs, cached under the build tree (generation is not what we measure).
#pragma once

#include "perwiz/generator.h"

#include <cstdint>
#include <string>

namespace perwiz::bench {

// The spec of every generated input: 64 ranks, ring Isend/Irecv/Waitall, an Allreduce and a
// PRGN_step state per step, 20 % compute imbalance, seed 42; sized to ~`events` model events.
GeneratorSpec benchSpec(std::uint64_t events);

// Issue #42's ring: 1024 ranks x 1000 steps of computation, a blocking MPI_Send of 1 KiB to the
// next rank and an MPI_Recv from the previous one (3,072,000 events, 8,192,000 records; the
// 4,096,000 events of LogGOPSim's schedule of it; `perwiz-cli generate ring.alog --ranks 1024
// --steps 1000 --p2p send-recv --bytes 1024 --collective none`).
GeneratorSpec ringSpec();
// That ring as an ALOG file (made if missing).
std::string alogRing();

// Model events in the generated traces; override with PERWIZ_BENCH_EVENTS.
std::uint64_t targetEvents(std::uint64_t fallback);
// Path of an OTF2 anchor / ALOG file generated with ~`events` model events (made if missing).
std::string otf2Archive(std::uint64_t events);
std::string alogFile(std::uint64_t events);
// A variant of otf2Archive(events) with GeneratorSpec::insertEvery / insertPhase set (two
// phases: two runs that differ in those states only; perwiz-cli compare).
std::string otf2Variant(std::uint64_t events, std::uint64_t insertEvery, std::uint64_t insertPhase);
// OTF (version 1) trace X.otf with its streams, uncompressed.
std::string otfTrace(std::uint64_t events);
// The same trace with every stream zlib-compressed by otfcompress (X.n.events.z); "" when
// otfcompress is not installed.
std::string otfTraceCompressed(std::uint64_t events);
// Resident set size of this process in bytes (/proc/self/statm).
std::uint64_t residentSetBytes();

}  // namespace perwiz::bench
