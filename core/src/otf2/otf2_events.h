// Turns OTF2 event records (from the global, time-merged event reader) into TraceSink
// records: locations -> world ranks, ticks -> ns, comm-local ranks -> world ranks, regions and
// parameters -> function indexes. Records PerWiz does not model are counted and reported
// once per record type.
#pragma once

#include "otf2_definitions.h"
#include "perwiz/trace_sink.h"

#include <otf2/otf2.h>

#include <array>
#include <cstdint>
#include <exception>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

namespace perwiz::otf2 {

// Record types we recognise but do not model (plus Unknown for everything else).
#define PERWIZ_OTF2_SKIPPED_RECORDS(X)                                          \
  X(BufferFlush, "BUFFER_FLUSH")                                                \
  X(MeasurementOnOff, "MEASUREMENT_ON_OFF")                                     \
  X(Metric, "METRIC")                                                           \
  X(ProgramBegin, "PROGRAM_BEGIN")                                              \
  X(ProgramEnd, "PROGRAM_END")                                                  \
  X(MpiRequestTest, "MPI_REQUEST_TEST")                                         \
  X(MpiRequestCancelled, "MPI_REQUEST_CANCELLED")                               \
  X(NonBlockingCollectiveRequest, "NON_BLOCKING_COLLECTIVE_REQUEST")            \
  X(NonBlockingCollectiveComplete, "NON_BLOCKING_COLLECTIVE_COMPLETE")          \
  X(CommCreate, "COMM_CREATE")                                                  \
  X(CommDestroy, "COMM_DESTROY")                                                \
  X(RmaWinCreate, "RMA_WIN_CREATE")                                             \
  X(RmaWinDestroy, "RMA_WIN_DESTROY")                                           \
  X(RmaCollectiveBegin, "RMA_COLLECTIVE_BEGIN")                                 \
  X(RmaCollectiveEnd, "RMA_COLLECTIVE_END")                                     \
  X(RmaGroupSync, "RMA_GROUP_SYNC")                                             \
  X(RmaRequestLock, "RMA_REQUEST_LOCK")                                         \
  X(RmaAcquireLock, "RMA_ACQUIRE_LOCK")                                         \
  X(RmaTryLock, "RMA_TRY_LOCK")                                                 \
  X(RmaReleaseLock, "RMA_RELEASE_LOCK")                                         \
  X(RmaSync, "RMA_SYNC")                                                        \
  X(RmaWaitChange, "RMA_WAIT_CHANGE")                                           \
  X(RmaPut, "RMA_PUT")                                                          \
  X(RmaGet, "RMA_GET")                                                          \
  X(RmaAtomic, "RMA_ATOMIC")                                                    \
  X(RmaOpCompleteBlocking, "RMA_OP_COMPLETE_BLOCKING")                          \
  X(RmaOpCompleteNonBlocking, "RMA_OP_COMPLETE_NON_BLOCKING")                   \
  X(RmaOpTest, "RMA_OP_TEST")                                                   \
  X(RmaOpCompleteRemote, "RMA_OP_COMPLETE_REMOTE")                              \
  X(ThreadFork, "THREAD_FORK")                                                  \
  X(ThreadJoin, "THREAD_JOIN")                                                  \
  X(ThreadTeamBegin, "THREAD_TEAM_BEGIN")                                       \
  X(ThreadTeamEnd, "THREAD_TEAM_END")                                           \
  X(ThreadAcquireLock, "THREAD_ACQUIRE_LOCK")                                   \
  X(ThreadReleaseLock, "THREAD_RELEASE_LOCK")                                   \
  X(ThreadTaskCreate, "THREAD_TASK_CREATE")                                     \
  X(ThreadTaskSwitch, "THREAD_TASK_SWITCH")                                     \
  X(ThreadTaskComplete, "THREAD_TASK_COMPLETE")                                 \
  X(ThreadCreate, "THREAD_CREATE")                                              \
  X(ThreadBegin, "THREAD_BEGIN")                                                \
  X(ThreadWait, "THREAD_WAIT")                                                  \
  X(ThreadEnd, "THREAD_END")                                                    \
  X(OmpFork, "OMP_FORK")                                                        \
  X(OmpJoin, "OMP_JOIN")                                                        \
  X(OmpAcquireLock, "OMP_ACQUIRE_LOCK")                                         \
  X(OmpReleaseLock, "OMP_RELEASE_LOCK")                                         \
  X(OmpTaskCreate, "OMP_TASK_CREATE")                                           \
  X(OmpTaskSwitch, "OMP_TASK_SWITCH")                                           \
  X(OmpTaskComplete, "OMP_TASK_COMPLETE")                                       \
  X(CallingContextEnter, "CALLING_CONTEXT_ENTER")                               \
  X(CallingContextLeave, "CALLING_CONTEXT_LEAVE")                               \
  X(CallingContextSample, "CALLING_CONTEXT_SAMPLE")

enum class SkippedRecord : int {
#define PERWIZ_X(name, text) name,
  PERWIZ_OTF2_SKIPPED_RECORDS(PERWIZ_X)
#undef PERWIZ_X
  Unknown,  // any record type without a callback (I/O, ...)
  Count
};

class EventHandler {
 public:
  // What the model knows about one OTF2 communicator.
  struct CommInfo {
    std::uint32_t model = 0;  // model comm index
    bool isSelf = false;
    std::vector<std::int32_t> worldRanks;
  };

  EventHandler(TraceSink& sink, std::string file, const GlobalDefinitions& defs,
               const RankLayout& ranks);
  // A handler for another thread, feeding `sink` (a part of the first handler's sink): it
  // shares the first's tables (map them all before) and its record of anomalies, and keeps its
  // own counts, which absorb() adds to the first's when its thread is done.
  EventHandler(const EventHandler& first, TraceSink& sink);
  void absorb(const EventHandler& other);

  void mapRegion(OTF2_RegionRef region, std::uint32_t function) {
    if (region >= kDenseRegions) {
      shared_->sparseRegionFn[region] = function;
      return;
    }
    if (region >= regionFn_.size()) regionFn_.resize(region + 1, kNone32);
    regionFn_[region] = function;
  }
  std::uint32_t functionOfRegion(OTF2_RegionRef region) const {
    if (region < regionFn_.size()) return regionFn_[region];
    auto it = shared_->sparseRegionFn.find(region);
    return it == shared_->sparseRegionFn.end() ? kNone32 : it->second;
  }
  void mapParameter(OTF2_ParameterRef p, std::uint32_t function) { shared_->parameterFn[p] = function; }
  void mapComm(OTF2_CommRef comm, CommInfo info) { shared_->comms.emplace(comm, std::move(info)); }
  void markUnusableComm(OTF2_CommRef comm, std::string why) {
    shared_->unusable.emplace(comm, std::move(why));
  }

  // Sets every callback on `cb`; userData must be this handler.
  static void installCallbacks(OTF2_EvtReaderCallbacks* cb);

  // A callback caught an exception and interrupted reading: rethrow it now.
  void rethrowPending();
  // Reports what was skipped (once per record type / location) and repeated anomalies.
  // A share (wholeTrace false) reports no skipped location (it read none of their files) and
  // repeated anomalies from one occurrence on, for mergeShareWarnings() to add up.
  void reportSummary(bool wholeTrace = true);

  // --- called by the libotf2 callbacks ---------------------------------------------------
  // Rank of a location, or -1 (then the event is counted against that skipped location); a
  // thread location (RankLayout::threads) gives its rank count + thread index.
  int beginRecord(OTF2_LocationRef loc, OTF2_TimeStamp t, TimeNs& ns);
  void skipped(OTF2_LocationRef loc, SkippedRecord kind);
  void enter(OTF2_LocationRef loc, OTF2_TimeStamp t, OTF2_RegionRef region, bool isEnter);
  void message(OTF2_LocationRef loc, OTF2_TimeStamp t, bool isSend, std::uint32_t peer,
               OTF2_CommRef comm, std::uint32_t tag, std::uint64_t bytes, std::uint64_t request);
  void request(OTF2_LocationRef loc, OTF2_TimeStamp t, bool isendComplete, std::uint64_t request);
  void collectiveEnd(OTF2_LocationRef loc, OTF2_TimeStamp t, OTF2_CollectiveOp op,
                     OTF2_CommRef comm, std::uint32_t root, std::uint64_t sent,
                     std::uint64_t received);
  void parameter(OTF2_LocationRef loc, OTF2_TimeStamp t, OTF2_ParameterRef p,
                 const std::string& label);
  const std::string& string(OTF2_StringRef ref) const { return defs_.str(ref); }

  std::exception_ptr error;  // set by a callback that caught an exception

 private:
  // Comm-local rank -> world rank; -1 (with a warning) if it cannot be translated.
  std::int32_t worldRank(int caller, OTF2_CommRef comm, std::uint32_t local, std::uint32_t& model);
  // "undefined communicator 4" / "communicator 3 (unusable: <why>)" for messages.
  std::string describeComm(OTF2_CommRef comm) const;
  // First occurrence: a warning at the current position; later ones are only counted.
  void anomaly(const std::string& message);

  TraceSink& sink_;
  std::string file_;
  const GlobalDefinitions& defs_;
  const RankLayout& ranks_;

  // What the handlers of one read share: tables read-only once events are read, and the
  // anomalies seen, under their mutex (rare: at most once per bad record).
  struct Shared {
    std::unordered_map<OTF2_RegionRef, std::uint32_t> sparseRegionFn;
    std::unordered_map<OTF2_ParameterRef, std::uint32_t> parameterFn;
    std::unordered_map<OTF2_CommRef, CommInfo> comms;
    std::unordered_map<OTF2_CommRef, std::string> unusable;
    std::vector<std::string> positions;  // per rank: "location <id>"
    std::mutex anomalyMutex;
    std::map<std::string, std::uint64_t> anomalies;
  };
  std::shared_ptr<Shared> shared_;

  // Region ref -> function (kNone32: undefined). Tracers number regions densely, so a vector
  // (each handler's own copy) serves the hot Enter/Leave path; absurdly large refs go to a
  // map instead of a huge vector.
  static constexpr OTF2_RegionRef kDenseRegions = 1u << 20;
  std::vector<std::uint32_t> regionFn_;

  std::vector<TimeNs> lastTime_;             // per rank, to keep each rank's times monotonic
  int positionRank_ = -1;                    // rank whose position the sink has now
  // Location -> rank on the hot path. The global reader switches location on nearly every
  // record, so a one-entry cache misses; rank locations of MPI traces have small ids (Score-P:
  // the rank; threads and devices get k<<32|rank), which index this vector directly.
  static constexpr OTF2_LocationRef kDenseLocations = 1u << 20;
  std::vector<int> denseRank_;  // -1: not a rank location
  OTF2_LocationRef cachedLoc_ = OTF2_UNDEFINED_LOCATION;  // last rankOf lookup beyond the vector
  int cachedRank_ = -1;
  // Nanosecond clock with no offset issues: ticks convert by one subtraction.
  bool nanosecondClock_ = false;

  std::array<std::uint64_t, static_cast<int>(SkippedRecord::Count)> skippedCount_{};
  std::uint64_t threadMpiRecords_ = 0;  // message and collective records of threads (not modelled)
  // A location index (beginRecord) that is a thread's: counted when the record is one only
  // ranks hold.
  bool threadOnly(int loc) {
    if (static_cast<std::size_t>(loc) < ranks_.rankLocation.size()) return false;
    ++threadMpiRecords_;
    return true;
  }
  std::map<OTF2_LocationRef, std::uint64_t> skippedLocationEvents_;
};

}  // namespace perwiz::otf2
