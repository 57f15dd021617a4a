// What the profile mode measures (docs/calibrate.md, "Overhead profile"): the timed patterns,
// the MPI functions each one times, and the base points (p, b) of Kluge et al. §8 that fit a
// run. Plain C++: shared by both MPI builds and unit-tested alone.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace perwiz::calibrate {

// One timed pattern. Every member of a p-rank communicator runs it at the same instant.
enum class ProfilePattern {
  PingPong,   // pairs (0,1), (2,3) …: one sends, the other receives, the direction alternating
  Sendrecv,   // a ring shift: send to rank + 1, receive from rank − 1
  Bcast,      // root 0
  Reduce,     // root 0, MPI_UNSIGNED_CHAR with MPI_MAX
  Allreduce,  // MPI_UNSIGNED_CHAR with MPI_MAX
  Barrier,
  Alltoall,
};

// All patterns, in the order they are measured.
const std::vector<ProfilePattern>& profilePatterns();
// The --functions name of a pattern ("pingpong", "sendrecv", "bcast" …) and back.
std::string profilePatternName(ProfilePattern pattern);
ProfilePattern profilePatternFromName(const std::string& name);  // throws std::invalid_argument
std::vector<std::string> profileFunctionNames();
std::string joinedProfileFunctions();  // "pingpong, sendrecv, …" for the help text

// The MPI functions a pattern times, by the canonical names overhead detection uses for trace
// calls: the ping-pong gives MPI_Send and MPI_Recv, every other pattern its one function.
std::vector<std::string> patternFunctions(ProfilePattern pattern);

// The base process counts that fit a world of `worldSize` ranks (2, 3, 4, 6, 8, 12 … ≤ it).
std::vector<std::uint32_t> profileProcessCounts(std::uint32_t worldSize);
// The base sizes b of a pattern: the paper's 1, 10, 20 … 100, 200 … up to maxBytes (plus
// maxBytes itself); MPI_Barrier moves no data, so its only b is 0 (what a trace records).
std::vector<std::uint64_t> profileSizes(ProfilePattern pattern, std::uint64_t maxBytes);

// How many bytes one message carries at base point (p, b), so that the trace of the call
// records b (docs/overhead.md: the class's b is every byte the call moves): the whole b for the
// ping-pong, Bcast, Reduce and Allreduce; ⌈b/2⌉ per direction for Sendrecv (a trace counts
// both directions); ⌈b/p⌉ per destination for Alltoall (a trace counts all parts sent).
// Rounding up keeps every message non-empty; the measured b is then b rounded up to a multiple
// of 2 or p, a difference that only matters for the smallest sizes.
std::uint64_t patternPartBytes(ProfilePattern pattern, std::uint32_t processes, std::uint64_t b);
// The bytes one buffer must hold at (p, b): the part, times p for Alltoall.
std::uint64_t patternBufferBytes(ProfilePattern pattern, std::uint32_t processes, std::uint64_t b);

}  // namespace perwiz::calibrate
