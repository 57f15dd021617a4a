// OTF2 global definitions as PerWiz needs them, and their interpretation: which locations are
// MPI ranks (and in which order), and what each OTF2 communicator is in world ranks.
//
// Definitions are collected raw first and interpreted afterwards, because some writers
// (EZTrace) emit them out of order (a comm before its group) or with duplicate ids.
#pragma once

#include "perwiz/trace.h"
#include "perwiz/trace_sink.h"

#include <otf2/otf2.h>

#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace perwiz::otf2 {

struct GlobalDefinitions {
  bool haveClock = false;
  std::uint64_t timerResolution = 0;
  std::uint64_t globalOffset = 0;

  std::unordered_map<OTF2_StringRef, std::string> strings;

  struct Region {
    OTF2_StringRef name = OTF2_UNDEFINED_STRING;
    OTF2_StringRef description = OTF2_UNDEFINED_STRING;
    OTF2_Paradigm paradigm = OTF2_PARADIGM_UNKNOWN;
  };
  struct Parameter {
    OTF2_StringRef name = OTF2_UNDEFINED_STRING;
  };
  // Regions and parameters in the order they were defined: that order becomes the model's
  // function order, so a trace written by our writer (which interleaves them in model
  // order) reads back with the same function indexes.
  struct FunctionDef {
    bool isParameter = false;
    std::uint32_t id = 0;
  };
  std::unordered_map<OTF2_RegionRef, Region> regions;
  std::unordered_map<OTF2_ParameterRef, Parameter> parameters;
  std::vector<FunctionDef> functionOrder;

  struct LocationGroup {
    OTF2_LocationGroupRef id = 0;
    OTF2_StringRef name = OTF2_UNDEFINED_STRING;
    OTF2_LocationGroupType type = OTF2_LOCATION_GROUP_TYPE_UNKNOWN;
  };
  struct Location {
    OTF2_LocationRef id = 0;
    OTF2_StringRef name = OTF2_UNDEFINED_STRING;
    OTF2_LocationType type = OTF2_LOCATION_TYPE_UNKNOWN;
    std::uint64_t events = 0;
    OTF2_LocationGroupRef group = OTF2_UNDEFINED_LOCATION_GROUP;
  };
  struct Group {
    OTF2_GroupRef id = 0;
    OTF2_StringRef name = OTF2_UNDEFINED_STRING;
    OTF2_GroupType type = OTF2_GROUP_TYPE_UNKNOWN;
    OTF2_Paradigm paradigm = OTF2_PARADIGM_UNKNOWN;
    OTF2_GroupFlag flags = OTF2_GROUP_FLAG_NONE;
    std::vector<std::uint64_t> members;
  };
  struct Comm {
    OTF2_CommRef id = 0;
    OTF2_StringRef name = OTF2_UNDEFINED_STRING;
    OTF2_GroupRef group = OTF2_UNDEFINED_GROUP;
  };
  // In definition order; ids may repeat (EZTrace), lookups below cope with that.
  std::vector<LocationGroup> locationGroups;
  std::vector<Location> locations;
  std::vector<Group> groups;
  std::vector<Comm> comms;

  // "" for undefined references.
  const std::string& str(OTF2_StringRef ref) const;
  const LocationGroup* locationGroup(OTF2_LocationGroupRef id) const;
  const Location* location(OTF2_LocationRef id) const;
  // The group a comm refers to; among duplicate ids prefers a COMM_GROUP / COMM_SELF one.
  const Group* commGroup(OTF2_GroupRef id) const;
  // The COMM_LOCATIONS group of a paradigm (its members are location ids), or null.
  const Group* commLocations(OTF2_Paradigm paradigm) const;
};

// Reads all global definitions; throws TraceError on libotf2 failures.
void readGlobalDefinitions(OTF2_Reader* reader, const std::string& file,
                           GlobalDefinitions& defs);

// Which locations are MPI ranks.
struct RankLayout {
  std::vector<OTF2_LocationRef> rankLocation;  // world rank -> location
  std::vector<std::string> rankNames;          // location group names
  std::unordered_map<OTF2_LocationRef, std::uint32_t> rankOf;
  struct Skipped {
    OTF2_LocationRef id = 0;
    std::string description;  // e.g. "'CUDA[0:13]' (accelerator stream)"
  };
  // With threads (layoutRanks' withThreads): the CPU threads that are not ranks, in definition
  // order: a process's other threads under its rank, threads outside an MPI process under
  // none. A trace without any MPI definition whose CPU threads (more than one) all belong to
  // one process has no rank: its CPU threads are all threads (noMpi).
  std::vector<OTF2_LocationRef> threadLocation;  // thread -> location
  std::vector<ThreadHeader> threads;
  std::unordered_map<OTF2_LocationRef, std::uint32_t> threadOf;
  bool noMpi = false;
  std::vector<Skipped> skipped;    // every other location, in definition order
  std::vector<std::string> notes;  // anomalies worth a warning
};
RankLayout layoutRanks(const GlobalDefinitions& defs, bool withThreads = false);

// An OTF2 communicator in world ranks; nullopt communicator when its members are not all
// ranks (CUDA streams, threads) or its group is missing.
struct ResolvedComm {
  OTF2_CommRef id = 0;
  std::optional<Communicator> comm;
  bool mpiParadigm = false;
  std::string problem;  // why comm is nullopt, e.g. "group 3 is not defined"
};
std::vector<ResolvedComm> resolveComms(const GlobalDefinitions& defs, const RankLayout& ranks);
// World-rank entries resolveComms() would build over all communicators (before checking them):
// a comm record of a few bytes copies its whole group, so this can exceed the file by far.
std::uint64_t commMemberCount(const GlobalDefinitions& defs);
// Index into `comms` of the one that is MPI_COMM_WORLD (all ranks in order, named like
// WORLD; failing a name, the first such MPI comm), or -1.
int findWorld(const std::vector<ResolvedComm>& comms, std::uint32_t rankCount);

}  // namespace perwiz::otf2
