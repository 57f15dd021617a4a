// One round of each timed pattern of the profile mode (profile_points.h): every member of the
// communicator calls its MPI function once and times it with MPI_Wtime. Compiled by each MPI
// wrapper.
#pragma once

#include "aligned_rounds.h"
#include "profile_points.h"

#include <mpi.h>

#include <cstdint>
#include <vector>

namespace perwiz::calibrate {

class PatternRunner {
 public:
  // `comm` holds the p ranks of the base point; buffers for messages up to `maxBufferBytes`.
  PatternRunner(MPI_Comm comm, std::uint64_t maxBufferBytes);

  // Collective over the communicator: round `round` of `pattern` with messages of `partBytes`
  // (patternPartBytes). Appends this rank's timed calls to `out` (TimedCall::function indexes
  // patternFunctions(pattern)).
  void round(ProfilePattern pattern, std::uint64_t partBytes, int round, std::vector<TimedCall>& out);

 private:
  int count(std::uint64_t bytes) const;

  MPI_Comm comm_;
  int rank_ = 0, size_ = 0;
  std::vector<unsigned char> send_, recv_;
};

}  // namespace perwiz::calibrate
