#include "otf2_definitions.h"

#include "otf2_common.h"

#include <algorithm>
#include <cctype>
#include <exception>
#include <unordered_map>
#include <unordered_set>

namespace perwiz::otf2 {

// ---------------------------------------------------------------------------------------
// Lookups

const std::string& GlobalDefinitions::str(OTF2_StringRef ref) const {
  static const std::string empty;
  auto it = strings.find(ref);
  return it == strings.end() ? empty : it->second;
}

const GlobalDefinitions::LocationGroup* GlobalDefinitions::locationGroup(
    OTF2_LocationGroupRef id) const {
  for (const auto& g : locationGroups)
    if (g.id == id) return &g;
  return nullptr;
}

const GlobalDefinitions::Location* GlobalDefinitions::location(OTF2_LocationRef id) const {
  for (const auto& l : locations)
    if (l.id == id) return &l;
  return nullptr;
}

const GlobalDefinitions::Group* GlobalDefinitions::commGroup(OTF2_GroupRef id) const {
  const Group* any = nullptr;
  for (const auto& g : groups) {
    if (g.id != id) continue;
    if (g.type == OTF2_GROUP_TYPE_COMM_GROUP || g.type == OTF2_GROUP_TYPE_COMM_SELF) return &g;
    if (!any) any = &g;
  }
  return any;
}

const GlobalDefinitions::Group* GlobalDefinitions::commLocations(OTF2_Paradigm paradigm) const {
  for (const auto& g : groups)
    if (g.type == OTF2_GROUP_TYPE_COMM_LOCATIONS && g.paradigm == paradigm) return &g;
  return nullptr;
}

// ---------------------------------------------------------------------------------------
// Reading

namespace {

// Callbacks run inside libotf2 (C): nothing may unwind through it, so they catch and ask
// the reader to stop; the exception is rethrown after the read call returns.
struct DefReadState {
  GlobalDefinitions* defs;
  std::exception_ptr error;
};

template <class F>
OTF2_CallbackCode guarded(void* ud, F&& f) {
  auto* s = static_cast<DefReadState*>(ud);
  try {
    f(*s->defs);
    return OTF2_CALLBACK_SUCCESS;
  } catch (...) {
    s->error = std::current_exception();
    return OTF2_CALLBACK_INTERRUPT;
  }
}

OTF2_CallbackCode onClock(void* ud, uint64_t resolution, uint64_t offset, uint64_t, uint64_t) {
  return guarded(ud, [&](GlobalDefinitions& d) {
    d.haveClock = true;
    d.timerResolution = resolution;
    d.globalOffset = offset;
  });
}

OTF2_CallbackCode onString(void* ud, OTF2_StringRef self, const char* text) {
  return guarded(ud, [&](GlobalDefinitions& d) { d.strings.emplace(self, text ? text : ""); });
}

OTF2_CallbackCode onRegion(void* ud, OTF2_RegionRef self, OTF2_StringRef name, OTF2_StringRef,
                           OTF2_StringRef description, OTF2_RegionRole, OTF2_Paradigm paradigm,
                           OTF2_RegionFlag, OTF2_StringRef, uint32_t, uint32_t) {
  return guarded(ud, [&](GlobalDefinitions& d) {
    if (d.regions.emplace(self, GlobalDefinitions::Region{name, description, paradigm}).second)
      d.functionOrder.push_back({false, self});
  });
}

OTF2_CallbackCode onParameter(void* ud, OTF2_ParameterRef self, OTF2_StringRef name,
                              OTF2_ParameterType) {
  return guarded(ud, [&](GlobalDefinitions& d) {
    if (d.parameters.emplace(self, GlobalDefinitions::Parameter{name}).second)
      d.functionOrder.push_back({true, self});
  });
}

OTF2_CallbackCode onLocationGroup(void* ud, OTF2_LocationGroupRef self, OTF2_StringRef name,
                                  OTF2_LocationGroupType type, OTF2_SystemTreeNodeRef,
                                  OTF2_LocationGroupRef) {
  return guarded(ud, [&](GlobalDefinitions& d) { d.locationGroups.push_back({self, name, type}); });
}

OTF2_CallbackCode onLocation(void* ud, OTF2_LocationRef self, OTF2_StringRef name,
                             OTF2_LocationType type, uint64_t events,
                             OTF2_LocationGroupRef group) {
  return guarded(ud,
                 [&](GlobalDefinitions& d) { d.locations.push_back({self, name, type, events, group}); });
}

OTF2_CallbackCode onGroup(void* ud, OTF2_GroupRef self, OTF2_StringRef name, OTF2_GroupType type,
                          OTF2_Paradigm paradigm, OTF2_GroupFlag flags, uint32_t n,
                          const uint64_t* members) {
  return guarded(ud, [&](GlobalDefinitions& d) {
    GlobalDefinitions::Group g{self, name, type, paradigm, flags, {}};
    if (members) g.members.assign(members, members + n);
    d.groups.push_back(std::move(g));
  });
}

OTF2_CallbackCode onComm(void* ud, OTF2_CommRef self, OTF2_StringRef name, OTF2_GroupRef group,
                         OTF2_CommRef, OTF2_CommFlag) {
  return guarded(ud, [&](GlobalDefinitions& d) { d.comms.push_back({self, name, group}); });
}

}  // namespace

void readGlobalDefinitions(OTF2_Reader* reader, const std::string& file,
                           GlobalDefinitions& defs) {
  OTF2_GlobalDefReader* gdr = OTF2_Reader_GetGlobalDefReader(reader);
  if (!gdr) fail(OTF2_ERROR_FILE_CAN_NOT_OPEN, file, "cannot open the global definitions");

  OTF2_GlobalDefReaderCallbacks* cb = OTF2_GlobalDefReaderCallbacks_New();
  OTF2_GlobalDefReaderCallbacks_SetClockPropertiesCallback(cb, &onClock);
  OTF2_GlobalDefReaderCallbacks_SetStringCallback(cb, &onString);
  OTF2_GlobalDefReaderCallbacks_SetRegionCallback(cb, &onRegion);
  OTF2_GlobalDefReaderCallbacks_SetParameterCallback(cb, &onParameter);
  OTF2_GlobalDefReaderCallbacks_SetLocationGroupCallback(cb, &onLocationGroup);
  OTF2_GlobalDefReaderCallbacks_SetLocationCallback(cb, &onLocation);
  OTF2_GlobalDefReaderCallbacks_SetGroupCallback(cb, &onGroup);
  OTF2_GlobalDefReaderCallbacks_SetCommCallback(cb, &onComm);
  DefReadState state{&defs, nullptr};
  OTF2_ErrorCode rc = OTF2_Reader_RegisterGlobalDefCallbacks(reader, gdr, cb, &state);
  OTF2_GlobalDefReaderCallbacks_Delete(cb);
  check(rc, file, "cannot register definition callbacks");

  uint64_t n = 0;
  rc = OTF2_Reader_ReadAllGlobalDefinitions(reader, gdr, &n);
  if (state.error) std::rethrow_exception(state.error);
  check(rc, file, "cannot read the global definitions");
  OTF2_Reader_CloseGlobalDefReader(reader, gdr);
}

// ---------------------------------------------------------------------------------------
// Ranks

namespace {

std::string describeLocation(const GlobalDefinitions& defs, const GlobalDefinitions::Location& l,
                             const char* why) {
  return "'" + defs.str(l.name) + "' (" + why + ")";
}

const char* locationTypeName(OTF2_LocationType t) {
  switch (t) {
    case OTF2_LOCATION_TYPE_CPU_THREAD: return "CPU thread";
    case OTF2_LOCATION_TYPE_ACCELERATOR_STREAM: return "accelerator stream";
    case OTF2_LOCATION_TYPE_METRIC: return "metric location";
    default: return "location of unknown type";
  }
}

}  // namespace

namespace {
// Whether the definitions name anything of MPI: its locations group, a communicator group, a
// region.
bool definesMpi(const GlobalDefinitions& defs) {
  for (const auto& g : defs.groups)
    if (g.paradigm == OTF2_PARADIGM_MPI) return true;
  for (const auto& [id, r] : defs.regions)
    if (r.paradigm == OTF2_PARADIGM_MPI || hasMpiPrefix(defs.str(r.name))) return true;
  return false;
}

std::string threadName(const GlobalDefinitions& defs, const GlobalDefinitions::Location& l) {
  const std::string& name = defs.str(l.name);
  return name.empty() ? "thread " + std::to_string(l.id) : name;
}
}  // namespace

RankLayout layoutRanks(const GlobalDefinitions& defs, bool withThreads) {
  RankLayout out;
  auto addThread = [&](const GlobalDefinitions::Location& l, std::int32_t rank) {
    out.threadOf.emplace(l.id, static_cast<std::uint32_t>(out.threadLocation.size()));
    out.threadLocation.push_back(l.id);
    out.threads.push_back({threadName(defs, l), rank});
  };
  if (withThreads && !definesMpi(defs)) {
    // One process (location group) holding several CPU threads, and nothing of MPI: a
    // threaded program without MPI. (Several processes without MPI stay ranks.)
    std::size_t cpuThreads = 0;
    std::unordered_set<OTF2_LocationGroupRef> processes;
    for (const auto& l : defs.locations)
      if (l.type == OTF2_LOCATION_TYPE_CPU_THREAD) {
        ++cpuThreads;
        processes.insert(l.group);
      }
    if (cpuThreads > 1 && processes.size() == 1) {
      out.noMpi = true;
      std::unordered_set<OTF2_LocationRef> seen;
      for (const auto& l : defs.locations) {
        if (l.type == OTF2_LOCATION_TYPE_CPU_THREAD && seen.insert(l.id).second) addThread(l, -1);
        else if (l.type != OTF2_LOCATION_TYPE_CPU_THREAD)
          out.skipped.push_back({l.id, describeLocation(defs, l, locationTypeName(l.type))});
      }
      return out;
    }
  }

  // A rank is a CPU thread of a process; one per process (its master thread).
  auto isCandidate = [&](const GlobalDefinitions::Location& l) {
    if (l.type != OTF2_LOCATION_TYPE_CPU_THREAD) return false;
    const auto* g = defs.locationGroup(l.group);
    return g && g->type == OTF2_LOCATION_GROUP_TYPE_PROCESS;
  };
  std::unordered_set<OTF2_LocationGroupRef> groupsTaken;
  auto addRank = [&](const GlobalDefinitions::Location& l) {
    const auto* g = defs.locationGroup(l.group);
    out.rankOf.emplace(l.id, static_cast<std::uint32_t>(out.rankLocation.size()));
    out.rankLocation.push_back(l.id);
    out.rankNames.push_back(g ? defs.str(g->name) : std::string());
    groupsTaken.insert(l.group);
  };

  // The MPI COMM_LOCATIONS group lists the locations in MPI_COMM_WORLD rank order. Use it
  // only if every member is a distinct process's CPU thread; otherwise the rank numbers
  // would be guesses anyway and we fall back to location-group order.
  if (const auto* world = defs.commLocations(OTF2_PARADIGM_MPI)) {
    bool usable = !world->members.empty();
    std::unordered_set<OTF2_LocationGroupRef> seen;
    for (std::uint64_t id : world->members) {
      const auto* l = defs.location(id);
      if (!l || !isCandidate(*l) || !seen.insert(l->group).second) {
        usable = false;
        break;
      }
    }
    if (usable) {
      for (std::uint64_t id : world->members) addRank(*defs.location(id));
    } else {
      out.notes.push_back(
          "the MPI locations group does not list one CPU thread per process; ranks are "
          "numbered in location-group order");
    }
  }

  // Processes not listed there (or all of them, without that group): one rank each, in
  // location-group id order, represented by their lowest-id CPU thread (Score-P gives the
  // master thread id = rank and other threads (k<<32)|rank).
  std::vector<const GlobalDefinitions::LocationGroup*> groups;
  for (const auto& g : defs.locationGroups)
    if (g.type == OTF2_LOCATION_GROUP_TYPE_PROCESS && !groupsTaken.count(g.id)) groups.push_back(&g);
  std::stable_sort(groups.begin(), groups.end(),
                   [](const auto* a, const auto* b) { return a->id < b->id; });
  const bool hadWorldOrder = !out.rankLocation.empty();
  for (const auto* g : groups) {
    if (groupsTaken.count(g->id)) continue;  // duplicate location-group id
    const GlobalDefinitions::Location* master = nullptr;
    for (const auto& l : defs.locations)
      if (l.group == g->id && isCandidate(l) && (!master || l.id < master->id)) master = &l;
    if (!master) continue;
    if (hadWorldOrder)
      out.notes.push_back("process '" + defs.str(g->name) +
                          "' is not in the MPI locations group; it becomes rank " +
                          std::to_string(out.rankLocation.size()));
    addRank(*master);
  }

  std::unordered_map<OTF2_LocationGroupRef, std::int32_t> rankOfGroup;
  for (std::uint32_t r = 0; r < out.rankLocation.size(); ++r)
    rankOfGroup.emplace(defs.location(out.rankLocation[r])->group, static_cast<std::int32_t>(r));
  for (const auto& l : defs.locations) {
    if (out.rankOf.count(l.id) || out.threadOf.count(l.id)) continue;
    if (withThreads && l.type == OTF2_LOCATION_TYPE_CPU_THREAD) {
      const auto it = rankOfGroup.find(l.group);
      addThread(l, it == rankOfGroup.end() ? -1 : it->second);
      continue;
    }
    std::string why;
    if (isCandidate(l))
      why = "not the master thread of its process";
    else if (l.type == OTF2_LOCATION_TYPE_CPU_THREAD)
      why = "CPU thread outside an MPI process";
    else
      why = locationTypeName(l.type);
    out.skipped.push_back({l.id, describeLocation(defs, l, why.c_str())});
  }
  return out;
}

// ---------------------------------------------------------------------------------------
// Communicators

namespace {

// commGroup() and commLocations() by table: they scan all groups, which per communicator made
// resolving 10^5 communicators among 10^5 groups 10^10 steps.
struct CommGroups {
  std::unordered_map<OTF2_GroupRef, const GlobalDefinitions::Group*> byId;
  std::unordered_map<OTF2_Paradigm, const GlobalDefinitions::Group*> locations;

  explicit CommGroups(const GlobalDefinitions& defs) {
    for (const auto& g : defs.groups) {
      // Same preference as commGroup(): the first COMM_GROUP / COMM_SELF of an id, else the first.
      auto [it, added] = byId.emplace(g.id, &g);
      const bool isComm = g.type == OTF2_GROUP_TYPE_COMM_GROUP || g.type == OTF2_GROUP_TYPE_COMM_SELF;
      const bool hadComm = it->second->type == OTF2_GROUP_TYPE_COMM_GROUP ||
                           it->second->type == OTF2_GROUP_TYPE_COMM_SELF;
      if (!added && isComm && !hadComm) it->second = &g;
      if (g.type == OTF2_GROUP_TYPE_COMM_LOCATIONS) locations.emplace(g.paradigm, &g);
    }
  }
  const GlobalDefinitions::Group* group(OTF2_GroupRef id) const {
    auto it = byId.find(id);
    return it == byId.end() ? nullptr : it->second;
  }
  const GlobalDefinitions::Group* locationsOf(OTF2_Paradigm paradigm) const {
    auto it = locations.find(paradigm);
    return it == locations.end() ? nullptr : it->second;
  }
};

}  // namespace

std::uint64_t commMemberCount(const GlobalDefinitions& defs) {
  const CommGroups groups(defs);
  std::unordered_set<OTF2_CommRef> seen;
  std::uint64_t total = 0;
  for (const auto& c : defs.comms) {
    if (!seen.insert(c.id).second) continue;
    const auto* g = groups.group(c.group);
    if (!g || g->type != OTF2_GROUP_TYPE_COMM_GROUP) continue;
    if (g->flags & OTF2_GROUP_FLAG_GLOBAL_MEMBERS) {
      if (const auto* locs = groups.locationsOf(g->paradigm)) total += locs->members.size();
    } else {
      total += g->members.size();
    }
  }
  return total;
}

std::vector<ResolvedComm> resolveComms(const GlobalDefinitions& defs, const RankLayout& ranks) {
  const CommGroups groups(defs);
  std::vector<ResolvedComm> out;
  std::unordered_set<OTF2_CommRef> seen;
  for (const auto& c : defs.comms) {
    if (!seen.insert(c.id).second) continue;  // duplicate id: the first definition wins
    ResolvedComm r;
    r.id = c.id;
    const auto* g = groups.group(c.group);
    if (!g) {
      r.problem = "group " + std::to_string(c.group) + " is not defined";
      out.push_back(std::move(r));
      continue;
    }
    r.mpiParadigm = g->paradigm == OTF2_PARADIGM_MPI;
    Communicator comm;
    comm.name = defs.str(c.name);
    // A COMM_SELF group, or a COMM_GROUP without members (not GLOBAL_MEMBERS): a communicator
    // of the caller alone, one collective instance per call.
    // (Without ranks, a trace of threads only, the empty group is the empty MPI_COMM_WORLD.)
    const bool emptyGroup = g->type == OTF2_GROUP_TYPE_COMM_GROUP && g->members.empty() &&
                            !(g->flags & OTF2_GROUP_FLAG_GLOBAL_MEMBERS) && !ranks.rankLocation.empty();
    if (g->type == OTF2_GROUP_TYPE_COMM_SELF || emptyGroup) {
      comm.isSelf = true;
      r.comm = std::move(comm);
      out.push_back(std::move(r));
      continue;
    }
    if (g->type != OTF2_GROUP_TYPE_COMM_GROUP) {
      r.problem = "its group is not a communicator group";
      out.push_back(std::move(r));
      continue;
    }
    // Comm-local rank i -> index into the paradigm's COMM_LOCATIONS -> location -> world rank.
    const auto* locs = groups.locationsOf(g->paradigm);
    if (!locs) {
      r.problem = "no locations group for its paradigm";
      out.push_back(std::move(r));
      continue;
    }
    std::vector<std::uint64_t> indexes;
    if (g->flags & OTF2_GROUP_FLAG_GLOBAL_MEMBERS) {
      for (std::uint64_t i = 0; i < locs->members.size(); ++i) indexes.push_back(i);
    } else {
      indexes = g->members;
    }
    bool ok = true;
    for (std::uint64_t idx : indexes) {
      if (idx >= locs->members.size()) {
        r.problem = "member index " + std::to_string(idx) + " is outside its locations group";
        ok = false;
        break;
      }
      auto it = ranks.rankOf.find(locs->members[idx]);
      if (it == ranks.rankOf.end()) {
        r.problem = "location " + std::to_string(locs->members[idx]) + " is not an MPI rank";
        ok = false;
        break;
      }
      comm.worldRanks.push_back(static_cast<std::int32_t>(it->second));
    }
    if (ok) r.comm = std::move(comm);
    out.push_back(std::move(r));
  }
  return out;
}

int findWorld(const std::vector<ResolvedComm>& comms, std::uint32_t rankCount) {
  auto isIdentity = [&](const ResolvedComm& r) {
    if (!r.comm || r.comm->isSelf || r.comm->worldRanks.size() != rankCount) return false;
    for (std::uint32_t i = 0; i < rankCount; ++i)
      if (r.comm->worldRanks[i] != static_cast<std::int32_t>(i)) return false;
    return true;
  };
  auto namedLikeWorld = [](const std::string& name) {
    std::string u = name;
    for (char& ch : u) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
    return u.find("WORLD") != std::string::npos;
  };
  for (std::size_t i = 0; i < comms.size(); ++i)
    if (isIdentity(comms[i]) && comms[i].comm->name == "MPI_COMM_WORLD") return static_cast<int>(i);
  for (std::size_t i = 0; i < comms.size(); ++i)
    if (isIdentity(comms[i]) && namedLikeWorld(comms[i].comm->name)) return static_cast<int>(i);
  for (std::size_t i = 0; i < comms.size(); ++i)
    if (isIdentity(comms[i]) && comms[i].mpiParadigm) return static_cast<int>(i);
  return -1;
}

}  // namespace perwiz::otf2
