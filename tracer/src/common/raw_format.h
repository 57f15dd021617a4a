// The tracer's raw per-rank files: what each rank writes while the program runs, and what
// perwiz-trace-convert reads to produce the OTF2 archive or ALOG file.
//
// A trace directory DIR/NAME holds, during the run, perwiz-raw/rank-<r>.evt (binary: a header,
// then 16- or 40-byte records in time order, appended whenever a rank's buffer fills) and
// perwiz-raw/rank-<r>.def (text: one definition per line, appended as soon as it is known).
// Writing definitions at once and events in whole records means that a run that aborts or is
// killed still leaves files the converter can read up to the last flush.
//
// Used by the library (compiled by mpicxx and by smpicxx) and by the converter (plain C++), so
// it depends on nothing but the C++ standard library.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>

namespace perwiz::trace {

inline constexpr char kRawMagic[8] = {'P', 'W', 'Z', 'R', 'A', 'W', '0', '1'};
inline constexpr std::uint32_t kRawVersion = 2;
inline constexpr const char* kRawDirName = "perwiz-raw";

enum class RecordKind : std::uint8_t {
  Enter = 1,      // region
  Leave,          // region
  Send,           // blocking send: comm, peer (comm-local), tag, bytes
  Recv,           // blocking receive (source and tag from the status)
  Isend,          // comm, peer, tag, bytes, request
  IsendComplete,  // request
  IrecvRequest,   // request
  Irecv,          // completion of an Irecv: comm, peer, tag, bytes, request
  Collective,     // region (the call), comm, peer = root (comm-local, -1 none), bytes = sent,
                  // request = received
  Parameter,      // region = parameter id, bytes = value
  Cancelled,      // request: a request that completed as cancelled (its post is dropped)
};

// A record: a 16-byte head, and for every kind but Enter and Leave (the bulk of a trace) a
// 24-byte tail, so 16 or 40 bytes on disk, no padding. Written as is (same machine reads it).
struct RawHead {
  std::uint64_t time;  // the rank's clock, ns (not yet aligned to rank 0)
  RecordKind kind;
  std::uint8_t unused;
  std::uint16_t region;
  std::uint32_t comm;  // the rank's communicator id (0 = MPI_COMM_WORLD, 1 = MPI_COMM_SELF)
};
static_assert(sizeof(RawHead) == 16, "raw records are written to disk as they are");

struct RawRecord : RawHead {
  std::int32_t peer;
  std::int32_t tag;
  std::uint64_t bytes;
  std::uint64_t request;
};
static_assert(sizeof(RawRecord) == 40, "raw records are written to disk as they are");

inline constexpr std::size_t kMaxRecordSize = sizeof(RawRecord);

// Bytes a record of this kind takes.
inline constexpr std::size_t recordSize(RecordKind kind) {
  return kind == RecordKind::Enter || kind == RecordKind::Leave ? sizeof(RawHead) : sizeof(RawRecord);
}

struct RawHeader {
  char magic[8];
  std::uint32_t version;
  std::uint32_t recordSize;  // of a full record (the largest)
  std::int32_t rank;
  std::uint32_t reserved;
};
static_assert(sizeof(RawHeader) == 24, "raw header is written to disk as it is");

inline RawHeader makeRawHeader(int rank) {
  RawHeader h{};
  std::memcpy(h.magic, kRawMagic, sizeof h.magic);
  h.version = kRawVersion;
  h.recordSize = sizeof(RawRecord);
  h.rank = rank;
  return h;
}

// Communicator ids every rank has.
inline constexpr std::uint32_t kCommWorld = 0;
inline constexpr std::uint32_t kCommSelf = 1;

// Region ids: MPI functions (regions.h) below kFirstUserRegion, regions and parameters the
// rank defines at run time (PRGN markers, buffer flushes, the overhead parameter) from there.
inline constexpr std::uint16_t kFirstUserRegion = 1024;

// Definition lines (rank-<r>.def), one per line, fields separated by single blanks; a name is
// the rest of its line:
//   perwiz-trace <version>
//   rank <r> size <P>
//   host <name>
//   program <name>
//   clock <init|final> <local ns> <offset ns>      offset: add to the local clock to get rank 0's
//   region <id> <name>                             a USER-paradigm region
//   parameter <id> <name>                          an unsigned-integer parameter
//   comm <id> <creator> <n> <w0> ... <w(n-1)>      comm-local rank i is world rank wi
//   comm-inter <id>                                an intercommunicator (its records are skipped)
//   finalized <records>                            MPI_Finalize reached, all records written
//   aborted <errorcode>                            MPI_Abort called by this rank
//   signal <number>                                killed by a signal after a last flush
//   exit                                           the process exited without MPI_Finalize
inline std::string rawFileName(int rank, const char* extension) {
  return "rank-" + std::to_string(rank) + extension;
}

// The parameter carrying the tracer's measured cost of one recorded event (ns), written once per
// rank at the end of MPI_Init. The converter turns it into core's overhead point event
// (perwiz::kEventOverheadPoint, read back by perwiz::recordedEventOverhead in perwiz/trace.h).
inline constexpr std::uint16_t kOverheadParameterId = kFirstUserRegion - 1;

}  // namespace perwiz::trace
