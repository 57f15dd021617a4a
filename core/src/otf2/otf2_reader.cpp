// readOtf2: streams an OTF2 archive into a TraceSink through libotf2's global (time-merged)
// event reader.
//
// Order of work, which libotf2 requires: global definitions; then, for every location, its
// local definitions (they carry the clock-offset corrections and the local->global id mapping
// tables the event reader applies) and an event reader; then the global event reader, read in
// batches so progress can be reported and loading cancelled.
//
// Colour convention: a region whose description starts with "color:" has the rest of the
// description as its Function::color. OTF2 has no colour field; our writer stores colours
// there so that they survive a round trip.
#include "otf2_anchor.h"
#include "otf2_def_check.h"
#include "otf2_common.h"
#include "otf2_definitions.h"
#include "otf2_events.h"
#include "perwiz/trace_io.h"

#include <otf2/otf2.h>

#include <algorithm>
#include <filesystem>
#include <memory>
#include <set>
#include <string_view>
#include <unordered_map>

namespace fs = std::filesystem;

namespace perwiz {

namespace {

constexpr std::uint64_t kBatchEvents = 1u << 16;  // ~15 ms of reading: keeps a UI responsive
constexpr std::string_view kColorPrefix = "color:";

struct CloseReader {
  void operator()(OTF2_Reader* r) const { OTF2_Reader_Close(r); }
};
using ReaderPtr = std::unique_ptr<OTF2_Reader, CloseReader>;

// The size of a file the archive must hold. libotf2 opens these itself, so anything but a
// regular file (a FIFO would block it, /dev/zero never ends) is refused here first.
std::uint64_t requireFile(const std::string& path, const fs::path& file, const char* what) {
  std::error_code ec;
  const fs::file_status st = fs::status(file, ec);
  if (ec || !fs::exists(st))
    throw TraceError(path, std::string("missing ") + what + " " + file.string());
  if (!fs::is_regular_file(st))
    throw TraceError(path, std::string(what) + " " + file.string() + ": not a regular file");
  const std::uintmax_t size = fs::file_size(file, ec);
  return ec ? 0 : static_cast<std::uint64_t>(size);
}

// Every OTF2 event record takes at least 2 bytes of its event file (its type byte and its
// length byte; libotf2's writer emits both even for a record without fields).
constexpr std::uint64_t kMinEventRecordBytes = 2;

Function functionOfRegion(const otf2::GlobalDefinitions& defs, OTF2_RegionRef id,
                          const otf2::GlobalDefinitions::Region& r) {
  Function f;
  f.name = defs.str(r.name);
  if (f.name.empty()) f.name = "region " + std::to_string(id);
  // The paradigm says which regions are MPI calls; but EZTrace 2.0 defines its MPI regions
  // (MPI_Send, ...) with another paradigm, and a region with the MPI_ prefix is an MPI call
  // whoever wrote it (what the ALOG reader concludes from the same name, too).
  if (r.paradigm == OTF2_PARADIGM_MPI || hasMpiPrefix(f.name)) {
    f.kind = EventKind::MpiCall;
    f.op = classifyMpiName(f.name);
    if (f.op == MpiOp::None) f.op = MpiOp::OtherMpi;
  } else {
    f.kind = EventKind::UserState;
  }
  const std::string& description = defs.str(r.description);
  if (description.starts_with(kColorPrefix)) f.color = description.substr(kColorPrefix.size());
  return f;
}

void defineFunctions(const otf2::GlobalDefinitions& defs, TraceSink& sink,
                     otf2::EventHandler& events) {
  for (const auto& d : defs.functionOrder) {
    if (d.isParameter) {
      Function f;
      f.name = defs.str(defs.parameters.at(d.id).name);
      if (f.name.empty()) f.name = "parameter " + std::to_string(d.id);
      f.kind = EventKind::Point;
      events.mapParameter(d.id, sink.defineFunction(f));
    } else {
      events.mapRegion(d.id, sink.defineFunction(functionOfRegion(defs, d.id, defs.regions.at(d.id))));
    }
  }
}

void defineComms(const otf2::GlobalDefinitions& defs, const otf2::RankLayout& ranks,
                 TraceSink& sink, otf2::EventHandler& events) {
  std::vector<otf2::ResolvedComm> comms = otf2::resolveComms(defs, ranks);
  const int world = otf2::findWorld(comms, static_cast<std::uint32_t>(ranks.rankLocation.size()));
  for (std::size_t i = 0; i < comms.size(); ++i) {
    auto& c = comms[i];
    if (!c.comm) {
      events.markUnusableComm(c.id, c.problem);
      continue;
    }
    otf2::EventHandler::CommInfo info;
    info.isSelf = c.comm->isSelf;
    info.worldRanks = c.comm->worldRanks;
    info.model = static_cast<int>(i) == world ? 0 : sink.defineComm(*c.comm);
    events.mapComm(c.id, std::move(info));
  }
}

}  // namespace

void readOtf2(const std::string& path, TraceSink& sink, const LoadOptions& opts) {
  otf2::silenceLibrary();
  otf2::takeLastMessage();
  const fs::path anchor = fs::path(resolveOtf2Anchor(path));
  const otf2::ArchivePaths files = otf2::archivePathsOfAnchor(anchor);

  otf2::checkAnchor(path, anchor.string());  // libotf2 trusts the anchor's counts
  ReaderPtr reader(OTF2_Reader_Open(anchor.c_str()));
  if (!reader) otf2::fail(OTF2_ERROR_FILE_CAN_NOT_OPEN, path, "cannot open the OTF2 anchor file");
  OTF2_Reader* r = reader.get();
  otf2::check(OTF2_Reader_SetSerialCollectiveCallbacks(r), path, "cannot set up the reader");
  requireFile(path, files.globalDefs(), "global definition file");
  otf2::checkGlobalDefinitions(path, files.globalDefs().string());  // libotf2 trusts its group sizes

  otf2::GlobalDefinitions defs;
  otf2::readGlobalDefinitions(r, path, defs);
  if (!defs.haveClock || defs.timerResolution == 0)
    throw TraceError(path, "no valid clock properties (timer resolution missing or 0)");
  const otf2::RankLayout ranks = otf2::layoutRanks(defs);
  if (ranks.rankLocation.empty())
    throw TraceError(path, "no MPI process location (CPU thread of a process) defined");

  // Every location's files must be there: libotf2 would otherwise fail deep in the merge
  // with a message that does not say which file is missing.
  // A location's event count is a claim of the definitions; only as many records as its event
  // file can hold are believed (a count of 2^62 in a small archive once made the builder
  // reserve 67 GB). The count only sizes storage and progress: reading goes by the file.
  // With a rank range (LoadOptions::rankFirst/rankLast) only those ranks' locations are read:
  // the other locations' files are neither checked nor opened.
  auto wanted = [&](OTF2_LocationRef loc) {
    if (opts.allRanks()) return true;
    const auto it = ranks.rankOf.find(loc);
    return it != ranks.rankOf.end() && opts.readsRank(it->second, static_cast<std::uint32_t>(ranks.rankLocation.size()));
  };
  std::set<OTF2_LocationRef> locations;
  std::unordered_map<OTF2_LocationRef, std::uint64_t> expected;
  std::uint64_t totalEvents = 0;
  for (const auto& l : defs.locations) {
    if (!wanted(l.id)) continue;
    if (!locations.insert(l.id).second) continue;
    requireFile(path, files.locationFile(l.id, ".def"), "local definition file");
    const std::uint64_t evtBytes = requireFile(path, files.locationFile(l.id, ".evt"), "event file");
    const std::uint64_t records = std::min(l.events, evtBytes / kMinEventRecordBytes);
    expected.emplace(l.id, records);
    totalEvents += records;
  }

  TraceHeader header;
  header.ranks = static_cast<std::uint32_t>(ranks.rankLocation.size());
  header.rankNames = ranks.rankNames;
  sink.begin(header);
  for (std::uint32_t r = 0; r < ranks.rankLocation.size(); ++r)
    if (opts.readsRank(r, header.ranks)) sink.expectRecords(r, expected[ranks.rankLocation[r]]);
  for (const auto& note : ranks.notes) sink.warn(Diagnostic{path, -1, {}, note});

  otf2::EventHandler events(sink, path, defs, ranks);
  defineFunctions(defs, sink, events);
  // Communicators are where a few bytes of definitions expand: each comm record copies its
  // group's members into the model and into the event handler's table (2 x 4 B per member, plus
  // the resolving copy), so 10^5 comms naming one 10^4-member group would take 12 GB from a
  // 1 MB definition file. The file's size does not bound this; the memory available does.
  constexpr std::uint64_t kBytesPerCommMember = 3 * sizeof(std::int32_t);
  const std::uint64_t members = otf2::commMemberCount(defs);
  const std::uint64_t available = opts.memoryAvailable ? opts.memoryAvailable : availableMemory();
  if (members > available / kBytesPerCommMember)
    throw TraceError(path, "its " + std::to_string(defs.comms.size()) + " communicators list " +
                               std::to_string(members) + " members in all, about " +
                               std::to_string(members * kBytesPerCommMember >> 20) + " MB; " +
                               std::to_string(available >> 20) + " MB available");
  defineComms(defs, ranks, sink, events);

  for (OTF2_LocationRef loc : locations)
    otf2::check(OTF2_Reader_SelectLocation(r, loc), path,
                "cannot select location " + std::to_string(loc));
  otf2::check(OTF2_Reader_OpenDefFiles(r), path, "cannot open the local definition files");
  otf2::check(OTF2_Reader_OpenEvtFiles(r), path, "cannot open the event files");
  for (OTF2_LocationRef loc : locations) {
    const std::string where = "location " + std::to_string(loc);
    OTF2_DefReader* dr = OTF2_Reader_GetDefReader(r, loc);
    if (!dr)
      otf2::fail(OTF2_ERROR_FILE_CAN_NOT_OPEN, path,
                 "cannot open " + files.locationFile(loc, ".def").string());
    std::uint64_t n = 0;
    otf2::check(OTF2_Reader_ReadAllLocalDefinitions(r, dr, &n), path,
                "cannot read the local definitions of " + where);
    OTF2_Reader_CloseDefReader(r, dr);
    if (!OTF2_Reader_GetEvtReader(r, loc))
      otf2::fail(OTF2_ERROR_FILE_CAN_NOT_OPEN, path,
                 "cannot open " + files.locationFile(loc, ".evt").string());
  }
  otf2::check(OTF2_Reader_CloseDefFiles(r), path, "cannot close the local definition files");

  // Each location is read on its own, in rank order, instead of through libotf2's global
  // (time-merged) reader: the model needs time order per rank only (matching happens after
  // reading), the merge heap is skipped, and the builder fills one rank's arrays at a time
  // instead of 64 interleaved ones. Non-rank locations are read too, to count what is skipped.
  std::vector<OTF2_LocationRef> order;
  for (OTF2_LocationRef loc : ranks.rankLocation)
    if (locations.count(loc)) order.push_back(loc);
  for (OTF2_LocationRef loc : locations)
    if (!ranks.rankOf.count(loc)) order.push_back(loc);
  std::unique_ptr<OTF2_EvtReaderCallbacks, decltype(&OTF2_EvtReaderCallbacks_Delete)> cb(
      OTF2_EvtReaderCallbacks_New(), &OTF2_EvtReaderCallbacks_Delete);
  otf2::EventHandler::installCallbacks(cb.get());
  std::uint64_t read = 0;
  for (OTF2_LocationRef loc : order) {
    OTF2_EvtReader* er = OTF2_Reader_GetEvtReader(r, loc);
    OTF2_ErrorCode rc = OTF2_Reader_RegisterEvtCallbacks(r, er, cb.get(), &events);
    otf2::check(rc, path, "cannot register event callbacks");
    for (;;) {
      std::uint64_t got = 0;
      rc = OTF2_Reader_ReadLocalEvents(r, er, kBatchEvents, &got);
      events.rethrowPending();
      otf2::check(rc, path, "cannot read the events of location " + std::to_string(loc));
      read += got;
      sink.addSourceRecords(got);
      if (opts.progress) {
        const double fraction =
            totalEvents == 0 ? 1.0 : std::min(1.0, static_cast<double>(read) / totalEvents);
        if (!opts.progress(fraction)) throw TraceError(path, "cancelled");
      }
      if (got < kBatchEvents) break;
    }
    OTF2_Reader_CloseEvtReader(r, er);
  }
  otf2::check(OTF2_Reader_CloseEvtFiles(r), path, "cannot close the event files");

  events.reportSummary();
  sink.end();
}

}  // namespace perwiz
