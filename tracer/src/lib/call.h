// Call: the Enter and Leave of one wrapped MPI call.
//
//   Call call(Region::Send);          // Enter at call.begin()
//   if (call) append(Send, call.begin(), ...);
//   int rc = PMPI_Send(...);
//   call.end();                       // takes the Leave time; records after the PMPI call use it
//   if (call) append(Recv, call.endTime(), ...);
//   return rc;                        // Leave written by the destructor
//
// Only the outermost call is recorded (an MPI library calling MPI_ functions internally, or a
// Fortran wrapper calling the C wrapper, must not nest records), and nothing is recorded
// outside MPI_Init..MPI_Finalize.
#pragma once

#include "state.h"

namespace perwiz::trace {

class Call {
 public:
  explicit Call(Region region) : region_(regionId(region)) {
    recording_ = g.active && g.depth == 0;
    ++g.depth;
    if (!recording_) return;
    if (g.rec.used + kCallReserve > g.rec.capacity) flushBufferRecorded();
    begin_ = now();
    appendMark(RecordKind::Enter, begin_, region_);
  }
  Call(const Call&) = delete;
  Call& operator=(const Call&) = delete;
  ~Call() {
    --g.depth;
    if (!recording_ || !g.active) return;
    appendMark(RecordKind::Leave, endTime(), region_);
  }

  explicit operator bool() const { return recording_; }
  std::uint64_t begin() const { return begin_; }
  void end() {
    if (recording_ && !ended_) {
      end_ = now();
      ended_ = true;
    }
  }
  std::uint64_t endTime() {
    end();
    return end_;
  }

 private:
  std::uint16_t region_;
  bool recording_ = false;
  std::uint64_t begin_ = 0;
  std::uint64_t end_ = 0;
  bool ended_ = false;
};

}  // namespace perwiz::trace
