// The eager/rendezvous switch S as a pair mode finds it (threshold_search.h) and the fits use it.
// Plain C++ (no MPI).
#pragma once

namespace perwiz::calibrate {

// Where the send time jumps from eager to synchronous (rendezvous).
enum class ThresholdStatus {
  Found,           // S < maxSize: sizes ≤ S are eager, S + 1 is synchronous
  NoneSynchronous, // every size up to maxSize is eager: S is set to maxSize
  AllSynchronous,  // even the smallest size is synchronous: S is set below it
};

}  // namespace perwiz::calibrate
