#include "otf2_events.h"

#include "otf2_common.h"
#include "perwiz/trace_io.h"

namespace perwiz::otf2 {

namespace {

constexpr const char* kSkippedNames[] = {
#define PERWIZ_X(name, text) text,
    PERWIZ_OTF2_SKIPPED_RECORDS(PERWIZ_X)
#undef PERWIZ_X
    "other (unrecognised)",
};
static_assert(std::size(kSkippedNames) == static_cast<std::size_t>(SkippedRecord::Count));

const char* collectiveOpName(OTF2_CollectiveOp op) {
  switch (op) {
    case OTF2_COLLECTIVE_OP_CREATE_HANDLE: return "CREATE_HANDLE";
    case OTF2_COLLECTIVE_OP_DESTROY_HANDLE: return "DESTROY_HANDLE";
    case OTF2_COLLECTIVE_OP_ALLOCATE: return "ALLOCATE";
    case OTF2_COLLECTIVE_OP_DEALLOCATE: return "DEALLOCATE";
    case OTF2_COLLECTIVE_OP_CREATE_HANDLE_AND_ALLOCATE: return "CREATE_HANDLE_AND_ALLOCATE";
    case OTF2_COLLECTIVE_OP_DESTROY_HANDLE_AND_DEALLOCATE: return "DESTROY_HANDLE_AND_DEALLOCATE";
    default: return nullptr;
  }
}

// libotf2 is C: exceptions must not unwind through it. Every callback runs its body here,
// and on an exception stores it and interrupts the read; readOtf2 rethrows it.
template <class F>
OTF2_CallbackCode guarded(void* ud, F&& f) {
  auto* h = static_cast<EventHandler*>(ud);
  try {
    f(*h);
    return OTF2_CALLBACK_SUCCESS;
  } catch (...) {
    h->error = std::current_exception();
    return OTF2_CALLBACK_INTERRUPT;
  }
}

OTF2_CallbackCode onUnknown(OTF2_LocationRef loc, OTF2_TimeStamp, void* ud, OTF2_AttributeList*) {
  return guarded(ud, [&](EventHandler& h) { h.skipped(loc, SkippedRecord::Unknown); });
}

OTF2_CallbackCode onEnter(OTF2_LocationRef loc, OTF2_TimeStamp t, void* ud, OTF2_AttributeList*,
                          OTF2_RegionRef region) {
  return guarded(ud, [&](EventHandler& h) { h.enter(loc, t, region, true); });
}

OTF2_CallbackCode onLeave(OTF2_LocationRef loc, OTF2_TimeStamp t, void* ud, OTF2_AttributeList*,
                          OTF2_RegionRef region) {
  return guarded(ud, [&](EventHandler& h) { h.enter(loc, t, region, false); });
}

OTF2_CallbackCode onMpiSend(OTF2_LocationRef loc, OTF2_TimeStamp t, void* ud, OTF2_AttributeList*,
                            uint32_t receiver, OTF2_CommRef comm, uint32_t tag, uint64_t bytes) {
  return guarded(ud, [&](EventHandler& h) { h.message(loc, t, true, receiver, comm, tag, bytes, 0); });
}

OTF2_CallbackCode onMpiIsend(OTF2_LocationRef loc, OTF2_TimeStamp t, void* ud,
                             OTF2_AttributeList*, uint32_t receiver, OTF2_CommRef comm,
                             uint32_t tag, uint64_t bytes, uint64_t request) {
  return guarded(ud,
                 [&](EventHandler& h) { h.message(loc, t, true, receiver, comm, tag, bytes, request); });
}

OTF2_CallbackCode onMpiRecv(OTF2_LocationRef loc, OTF2_TimeStamp t, void* ud, OTF2_AttributeList*,
                            uint32_t sender, OTF2_CommRef comm, uint32_t tag, uint64_t bytes) {
  return guarded(ud, [&](EventHandler& h) { h.message(loc, t, false, sender, comm, tag, bytes, 0); });
}

OTF2_CallbackCode onMpiIrecv(OTF2_LocationRef loc, OTF2_TimeStamp t, void* ud,
                             OTF2_AttributeList*, uint32_t sender, OTF2_CommRef comm,
                             uint32_t tag, uint64_t bytes, uint64_t request) {
  return guarded(ud,
                 [&](EventHandler& h) { h.message(loc, t, false, sender, comm, tag, bytes, request); });
}

OTF2_CallbackCode onIsendComplete(OTF2_LocationRef loc, OTF2_TimeStamp t, void* ud,
                                  OTF2_AttributeList*, uint64_t request) {
  return guarded(ud, [&](EventHandler& h) { h.request(loc, t, true, request); });
}

OTF2_CallbackCode onIrecvRequest(OTF2_LocationRef loc, OTF2_TimeStamp t, void* ud,
                                 OTF2_AttributeList*, uint64_t request) {
  return guarded(ud, [&](EventHandler& h) { h.request(loc, t, false, request); });
}

// Score-P writes Begin right after the call's Enter; the call itself already marks that.
OTF2_CallbackCode onCollectiveBegin(OTF2_LocationRef, OTF2_TimeStamp, void*, OTF2_AttributeList*) {
  return OTF2_CALLBACK_SUCCESS;
}

OTF2_CallbackCode onCollectiveEnd(OTF2_LocationRef loc, OTF2_TimeStamp t, void* ud,
                                  OTF2_AttributeList*, OTF2_CollectiveOp op, OTF2_CommRef comm,
                                  uint32_t root, uint64_t sent, uint64_t received) {
  return guarded(ud, [&](EventHandler& h) { h.collectiveEnd(loc, t, op, comm, root, sent, received); });
}

OTF2_CallbackCode onParameterString(OTF2_LocationRef loc, OTF2_TimeStamp t, void* ud,
                                    OTF2_AttributeList*, OTF2_ParameterRef p, OTF2_StringRef s) {
  return guarded(ud, [&](EventHandler& h) { h.parameter(loc, t, p, h.string(s)); });
}

OTF2_CallbackCode onParameterInt(OTF2_LocationRef loc, OTF2_TimeStamp t, void* ud,
                                 OTF2_AttributeList*, OTF2_ParameterRef p, int64_t v) {
  return guarded(ud, [&](EventHandler& h) { h.parameter(loc, t, p, std::to_string(v)); });
}

OTF2_CallbackCode onParameterUnsignedInt(OTF2_LocationRef loc, OTF2_TimeStamp t, void* ud,
                                         OTF2_AttributeList*, OTF2_ParameterRef p, uint64_t v) {
  return guarded(ud, [&](EventHandler& h) { h.parameter(loc, t, p, std::to_string(v)); });
}

// Local (per-location) readers pass the record's position in its location as an extra third
// argument; the callbacks above are written in the shorter global-reader form and adapted
// here. Rest is deduced from the setter.
template <auto Callback, class... Rest>
OTF2_CallbackCode local(OTF2_LocationRef loc, OTF2_TimeStamp t, uint64_t, void* ud,
                        OTF2_AttributeList* attributes, Rest... rest) {
  return Callback(loc, t, ud, attributes, rest...);
}

// One function template serves every record type we skip; the record's own fields (Rest)
// are deduced from the callback type it is assigned to.
template <SkippedRecord K, class... Rest>
OTF2_CallbackCode onSkippedLocal(OTF2_LocationRef loc, OTF2_TimeStamp, uint64_t, void* ud,
                                 OTF2_AttributeList*, Rest...) {
  return guarded(ud, [&](EventHandler& h) { h.skipped(loc, K); });
}

}  // namespace

void EventHandler::installCallbacks(OTF2_EvtReaderCallbacks* cb) {
  OTF2_EvtReaderCallbacks_SetUnknownCallback(cb, &local<onUnknown>);
#define PERWIZ_X(name, text) \
  OTF2_EvtReaderCallbacks_Set##name##Callback(cb, &onSkippedLocal<SkippedRecord::name>);
  PERWIZ_OTF2_SKIPPED_RECORDS(PERWIZ_X)
#undef PERWIZ_X
  OTF2_EvtReaderCallbacks_SetEnterCallback(cb, &local<onEnter>);
  OTF2_EvtReaderCallbacks_SetLeaveCallback(cb, &local<onLeave>);
  OTF2_EvtReaderCallbacks_SetMpiSendCallback(cb, &local<onMpiSend>);
  OTF2_EvtReaderCallbacks_SetMpiIsendCallback(cb, &local<onMpiIsend>);
  OTF2_EvtReaderCallbacks_SetMpiIsendCompleteCallback(cb, &local<onIsendComplete>);
  OTF2_EvtReaderCallbacks_SetMpiIrecvRequestCallback(cb, &local<onIrecvRequest>);
  OTF2_EvtReaderCallbacks_SetMpiRecvCallback(cb, &local<onMpiRecv>);
  OTF2_EvtReaderCallbacks_SetMpiIrecvCallback(cb, &local<onMpiIrecv>);
  OTF2_EvtReaderCallbacks_SetMpiCollectiveBeginCallback(cb, &local<onCollectiveBegin>);
  OTF2_EvtReaderCallbacks_SetMpiCollectiveEndCallback(cb, &local<onCollectiveEnd>);
  OTF2_EvtReaderCallbacks_SetParameterStringCallback(cb, &local<onParameterString>);
  OTF2_EvtReaderCallbacks_SetParameterIntCallback(cb, &local<onParameterInt>);
  OTF2_EvtReaderCallbacks_SetParameterUnsignedIntCallback(cb, &local<onParameterUnsignedInt>);
}

EventHandler::EventHandler(TraceSink& sink, std::string file, const GlobalDefinitions& defs,
                           const RankLayout& ranks)
    : sink_(sink), file_(std::move(file)), defs_(defs), ranks_(ranks),
      shared_(std::make_shared<Shared>()) {
  lastTime_.assign(ranks.rankLocation.size() + ranks.threadLocation.size(), std::numeric_limits<TimeNs>::min());
  for (OTF2_LocationRef loc : ranks.rankLocation)
    shared_->positions.push_back("location " + std::to_string(loc));
  for (OTF2_LocationRef loc : ranks.threadLocation)
    shared_->positions.push_back("location " + std::to_string(loc));
  for (const auto& [loc, rank] : ranks.rankOf)
    if (loc < kDenseLocations) {
      if (loc >= denseRank_.size()) denseRank_.resize(loc + 1, -1);
      denseRank_[loc] = static_cast<int>(rank);
    }
  for (const auto& [loc, thread] : ranks.threadOf)
    if (loc < kDenseLocations) {
      if (loc >= denseRank_.size()) denseRank_.resize(loc + 1, -1);
      denseRank_[loc] = static_cast<int>(ranks.rankLocation.size() + thread);
    }
  nanosecondClock_ = defs.timerResolution == 1'000'000'000 &&
                     defs.globalOffset <= static_cast<std::uint64_t>(INT64_MAX);
}

EventHandler::EventHandler(const EventHandler& first, TraceSink& sink)
    : sink_(sink), file_(first.file_), defs_(first.defs_), ranks_(first.ranks_),
      shared_(first.shared_), regionFn_(first.regionFn_), denseRank_(first.denseRank_),
      nanosecondClock_(first.nanosecondClock_) {
  lastTime_.assign(ranks_.rankLocation.size() + ranks_.threadLocation.size(), std::numeric_limits<TimeNs>::min());
}

void EventHandler::absorb(const EventHandler& other) {
  for (std::size_t k = 0; k < skippedCount_.size(); ++k) skippedCount_[k] += other.skippedCount_[k];
  for (const auto& [loc, n] : other.skippedLocationEvents_) skippedLocationEvents_[loc] += n;
  threadMpiRecords_ += other.threadMpiRecords_;
}

void EventHandler::rethrowPending() {
  if (error) {
    std::exception_ptr e = error;
    error = nullptr;
    std::rethrow_exception(e);
  }
}

int EventHandler::beginRecord(OTF2_LocationRef loc, OTF2_TimeStamp t, TimeNs& ns) {
  int rank = -1;
  if (loc < denseRank_.size()) {
    rank = denseRank_[loc];
  } else if (loc < kDenseLocations) {
    rank = -1;  // below the dense range but not a rank location
  } else {
    if (loc != cachedLoc_) {
      auto it = ranks_.rankOf.find(loc);
      cachedLoc_ = loc;
      cachedRank_ = it == ranks_.rankOf.end() ? -1 : static_cast<int>(it->second);
      if (auto th = ranks_.threadOf.find(loc); th != ranks_.threadOf.end())
        cachedRank_ = static_cast<int>(ranks_.rankLocation.size() + th->second);
    }
    rank = cachedRank_;
  }
  if (rank < 0) {
    ++skippedLocationEvents_[loc];
    return -1;
  }
  // Only remembered for this handler's own diagnostics: the builder names ranks itself, and
  // telling the sink on every location switch would cost a string copy per record.
  positionRank_ = rank;
  if (nanosecondClock_ && t <= static_cast<std::uint64_t>(INT64_MAX)) {
    ns = static_cast<TimeNs>(t) - static_cast<TimeNs>(defs_.globalOffset);
  } else {
    auto converted = ticksToNs(t, defs_.globalOffset, defs_.timerResolution);
    if (!converted)
      throw TraceError(file_, shared_->positions[static_cast<std::size_t>(rank)] + ": timestamp " +
                                  std::to_string(t) + " is out of range");
    ns = *converted;
  }
  TimeNs& last = lastTime_[static_cast<std::size_t>(rank)];
  if (ns < last) {
    anomaly("timestamps go backwards on a location; later records were moved forward");
    ns = last;
  }
  last = ns;
  return rank;
}

void EventHandler::skipped(OTF2_LocationRef loc, SkippedRecord kind) {
  auto it = ranks_.rankOf.find(loc);
  if (it == ranks_.rankOf.end() && !ranks_.threadOf.count(loc))
    ++skippedLocationEvents_[loc];
  else
    ++skippedCount_[static_cast<std::size_t>(kind)];
}

void EventHandler::enter(OTF2_LocationRef loc, OTF2_TimeStamp t, OTF2_RegionRef region,
                         bool isEnter) {
  TimeNs ns;
  const int rank = beginRecord(loc, t, ns);
  if (rank < 0) return;
  const std::uint32_t fn = functionOfRegion(region);
  if (fn == kNone32) {
    anomaly("ENTER/LEAVE of undefined region " + std::to_string(region) + " skipped");
    return;
  }
  const auto r = static_cast<std::uint32_t>(rank);
  const auto R = static_cast<std::uint32_t>(ranks_.rankLocation.size());
  if (r >= R)
    isEnter ? sink_.threadEnter(r - R, ns, fn) : sink_.threadLeave(r - R, ns, fn);
  else if (isEnter)
    sink_.enter(r, ns, fn);
  else
    sink_.leave(r, ns, fn);
}

std::int32_t EventHandler::worldRank(int caller, OTF2_CommRef comm, std::uint32_t local,
                                     std::uint32_t& model) {
  model = 0;
  auto it = shared_->comms.find(comm);
  if (it == shared_->comms.end()) {
    anomaly("record on " + describeComm(comm) + "; peer set to unknown");
    return -1;
  }
  const CommInfo& c = it->second;
  model = c.model;
  if (c.isSelf) {
    if (local == 0) return caller;
  } else if (local < c.worldRanks.size()) {
    return c.worldRanks[local];
  }
  anomaly("rank " + std::to_string(local) + " is outside communicator " + std::to_string(comm) +
          "; peer set to unknown");
  return -1;
}

void EventHandler::message(OTF2_LocationRef loc, OTF2_TimeStamp t, bool isSend,
                           std::uint32_t peer, OTF2_CommRef comm, std::uint32_t tag,
                           std::uint64_t bytes, std::uint64_t request) {
  TimeNs ns;
  const int rank = beginRecord(loc, t, ns);
  if (rank < 0 || threadOnly(rank)) return;
  std::uint32_t model = 0;
  const std::int32_t world = worldRank(rank, comm, peer, model);
  // Tags are int in MPI; OTF2 stores them as uint32, so the cast is the inverse.
  const auto mpiTag = static_cast<std::int32_t>(tag);
  const auto r = static_cast<std::uint32_t>(rank);
  if (isSend)
    sink_.send(r, ns, world, model, mpiTag, bytes, request);
  else
    sink_.recv(r, ns, world, model, mpiTag, bytes, request);
}

void EventHandler::request(OTF2_LocationRef loc, OTF2_TimeStamp t, bool isendComplete,
                           std::uint64_t request) {
  TimeNs ns;
  const int rank = beginRecord(loc, t, ns);
  if (rank < 0 || threadOnly(rank)) return;
  const auto r = static_cast<std::uint32_t>(rank);
  if (isendComplete)
    sink_.isendComplete(r, ns, request);
  else
    sink_.irecvRequest(r, ns, request);
}

void EventHandler::collectiveEnd(OTF2_LocationRef loc, OTF2_TimeStamp t, OTF2_CollectiveOp op,
                                 OTF2_CommRef comm, std::uint32_t root, std::uint64_t sent,
                                 std::uint64_t received) {
  TimeNs ns;
  const int rank = beginRecord(loc, t, ns);
  if (rank < 0 || threadOnly(rank)) return;
  const MpiOp mop = mpiOpFromOtf2Collective(op);
  if (mop == MpiOp::None) {
    const char* name = collectiveOpName(op);
    anomaly(std::string("MPI_COLLECTIVE_END with non-collective operation ") +
            (name ? name : std::to_string(op).c_str()) + " skipped");
    return;
  }
  auto it = shared_->comms.find(comm);
  if (it == shared_->comms.end()) {
    // Attributing it to WORLD would corrupt WORLD's collective matching: drop it.
    anomaly("collective on " + describeComm(comm) + " skipped");
    return;
  }
  std::uint32_t model = it->second.model;
  std::int32_t worldRoot = -1;
  // NONE, SELF and THIS_GROUP (the top three uint32 values) all mean "no rank".
  if (root < OTF2_COLLECTIVE_ROOT_THIS_GROUP) worldRoot = worldRank(rank, comm, root, model);
  sink_.collective(static_cast<std::uint32_t>(rank), ns, mop, model, worldRoot, sent, received);
}

void EventHandler::parameter(OTF2_LocationRef loc, OTF2_TimeStamp t, OTF2_ParameterRef p,
                             const std::string& label) {
  TimeNs ns;
  const int rank = beginRecord(loc, t, ns);
  if (rank < 0) return;
  auto it = shared_->parameterFn.find(p);
  if (it == shared_->parameterFn.end()) {
    anomaly("parameter record of undefined parameter " + std::to_string(p) + " skipped");
    return;
  }
  const auto r = static_cast<std::uint32_t>(rank);
  const auto R = static_cast<std::uint32_t>(ranks_.rankLocation.size());
  if (r >= R)
    sink_.threadPoint(r - R, ns, it->second, label);
  else
    sink_.point(r, ns, it->second, label);
}

std::string EventHandler::describeComm(OTF2_CommRef comm) const {
  auto bad = shared_->unusable.find(comm);
  if (bad == shared_->unusable.end()) return "undefined communicator " + std::to_string(comm);
  return "communicator " + std::to_string(comm) + " (unusable: " + bad->second + ")";
}

void EventHandler::anomaly(const std::string& message) {
  bool first = false;
  {
    std::lock_guard lock(shared_->anomalyMutex);
    first = shared_->anomalies[message]++ == 0;
  }
  if (first)
    sink_.warn(Diagnostic{file_, -1,
                          positionRank_ < 0
                              ? std::string()
                              : shared_->positions[static_cast<std::size_t>(positionRank_)],
                          message});
}

void EventHandler::reportSummary(bool wholeTrace) {
  // A share read no skipped location's file: the whole trace's load counts their records.
  if (wholeTrace)
    for (const auto& s : ranks_.skipped) {
      auto it = skippedLocationEvents_.find(s.id);
      const std::uint64_t n = it == skippedLocationEvents_.end() ? 0 : it->second;
      sink_.warn(
          Diagnostic{file_, -1, "location " + std::to_string(s.id),
                     "location skipped: " + s.description + "; " + std::to_string(n) + " event records ignored"});
    }
  for (const auto& [loc, n] : skippedLocationEvents_) {
    if (defs_.location(loc)) continue;
    sink_.warn(Diagnostic{file_, -1, "location " + std::to_string(loc),
                          std::to_string(n) + " event records of an undefined location ignored"});
  }
  if (ranks_.noMpi)
    sink_.warn(Diagnostic{file_, -1, {},
                          "no MPI definition: the " + std::to_string(ranks_.threads.size()) +
                              " CPU threads are threads of a program without MPI, shown as measured (no MPI rank to predict)"});
  if (threadMpiRecords_ > 0)
    sink_.warn(Diagnostic{file_, -1, {},
                          std::to_string(threadMpiRecords_) + " message or collective record(s) of threads are not "
                          "modelled: the replay predicts MPI ranks, and threads are shown as measured"});
  for (std::size_t k = 0; k < skippedCount_.size(); ++k)
    if (skippedCount_[k] > 0)
      sink_.warn(Diagnostic{file_, -1, {},
                            std::to_string(skippedCount_[k]) + " " + kSkippedNames[k] +
                                " records skipped (not modelled by PerWiz)"});
  // A share says it from 1 on: mergeShareWarnings() adds the shares' counts.
  for (const auto& [message, n] : shared_->anomalies)
    if (n > 1 || (n == 1 && !wholeTrace))
      sink_.warn(Diagnostic{file_, -1, {},
                            std::to_string(n) + " records in total: " + message});
}

}  // namespace perwiz::otf2
