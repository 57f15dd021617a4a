// The tracer's per-rank state and the record buffer: the hot path of every wrapper.
//
// One `g` per copy of the library. Under Open MPI that is one per process, i.e. per rank; under
// SMPI every rank runs in one process, and smpirun's --cfg=smpi/privatize-libs:libperwiz-trace.so
// loads a private copy of the library (and so of `g`) for each rank. session.cpp detects a
// copy shared by two ranks and stops with a message naming that option.
//
// Records go into a preallocated buffer; a full buffer is appended to the rank's raw .evt file
// with write(2). Nothing here allocates. `used` is published after a record is complete, so a
// signal handler flushing the buffer never writes half a record. Enter and Leave, most of a
// trace, take 16 bytes, the others 40 (raw_format.h).
#pragma once

#include "common/raw_format.h"
#include "common/regions.h"
#include "clock.h"

#include <mpi.h>

#include <atomic>
#include <csignal>
#include <cstddef>
#include <cstdint>

namespace perwiz::trace {

struct Recorder {
  unsigned char* buffer = nullptr;          // records of 16 or 40 bytes, back to back
  std::size_t capacity = 0;                 // bytes
  volatile std::size_t used = 0;            // bytes [0, used) hold complete records
  volatile std::sig_atomic_t flushing = 0;  // a write(2) of the buffer is under way
  int evtFd = -1;
  std::uint64_t records = 0;  // records appended since MPI_Init (discarded dummies excepted)
  std::uint64_t flushes = 0;
};

struct State {
  bool started = false;  // every rank set up its files: MPI_Finalize runs the collective end
  bool active = false;   // recording: from the end of MPI_Init to MPI_Finalize (stops early
                         // on this rank alone if its records cannot be written)
  bool initialised = false;  // this copy of the library saw MPI_Init (SMPI sharing check)
  int depth = 0;        // wrapped calls in progress (only the outermost is recorded)
  int rank = -1;
  int size = 0;
  Recorder rec;
  int defFd = -1;
  std::uint64_t nextRequest = 1;
  std::uint16_t flushRegion = 0;  // region id of "perwiz_trace_flush" (0: not yet defined)
  char traceDir[4096] = {};       // DIR/NAME of this run's trace (broadcast whole at MPI_Init)
  char format[32] = {};           // PERWIZ_FORMAT
};

extern State g;

// Room a call keeps free, so that a buffer flush never falls between a call's Enter and its
// Leave (calls completing many requests are the exception; reserve() handles them).
inline constexpr std::size_t kCallReserve = 8 * kMaxRecordSize;

// Writes the whole buffer to the .evt file (unrecorded: used inside a call). Returns false if
// the file cannot be written (tracing then stops with a message).
bool flushBuffer();
// Between calls: writes the buffer and records the time it took as region perwiz_trace_flush,
// so the perturbation is visible in the trace.
void flushBufferRecorded();

inline unsigned char* reserve(std::size_t bytes) {
  if (g.rec.used + bytes > g.rec.capacity) flushBuffer();
  return g.rec.buffer + g.rec.used;
}

// Publishes the record just written: from here on a signal handler may flush it.
inline void publish(std::size_t bytes) {
  std::atomic_signal_fence(std::memory_order_release);
  g.rec.used = g.rec.used + bytes;
  ++g.rec.records;
}

// Enter or Leave: the 16-byte head only.
inline void appendMark(RecordKind kind, std::uint64_t time, std::uint16_t region) {
  auto* h = reinterpret_cast<RawHead*>(reserve(sizeof(RawHead)));
  h->time = time;
  h->kind = kind;
  h->unused = 0;
  h->region = region;
  h->comm = 0;
  publish(sizeof(RawHead));
}

// Every other kind: a full record.
inline void append(RecordKind kind, std::uint64_t time, std::uint16_t region,
                   std::uint32_t comm = 0, std::int32_t peer = 0, std::int32_t tag = 0,
                   std::uint64_t bytes = 0, std::uint64_t request = 0) {
  auto* r = reinterpret_cast<RawRecord*>(reserve(sizeof(RawRecord)));
  r->time = time;
  r->kind = kind;
  r->unused = 0;
  r->region = region;
  r->comm = comm;
  r->peer = peer;
  r->tag = tag;
  r->bytes = bytes;
  r->request = request;
  publish(sizeof(RawRecord));
}

inline std::uint16_t regionId(Region r) { return static_cast<std::uint16_t>(r); }

}  // namespace perwiz::trace
