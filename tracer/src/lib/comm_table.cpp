#include "comm_table.h"

#include "def_file.h"
#include "handle_map.h"
#include "state.h"

#include <string>
#include <vector>

namespace perwiz::trace {

CommInfo gWorldComm;

namespace {

HandleMap<CommInfo> gComms;
std::uint32_t gNextComm = kCommSelf + 1;
MPI_Group gWorldGroup = MPI_GROUP_NULL;

const CommInfo* define(MPI_Comm comm, const char* creator) {
  CommInfo* info = gComms.insert(handleKey(comm));
  if (!info) return nullptr;
  info->id = gNextComm++;
  int inter = 0;
  PMPI_Comm_test_inter(comm, &inter);
  if (inter) {
    info->inter = true;
    defLine("comm-inter %u", info->id);
    return info;
  }
  PMPI_Comm_size(comm, &info->size);
  PMPI_Comm_rank(comm, &info->rank);
  // Comm-local rank i -> world rank, through the groups.
  std::vector<int> local(static_cast<std::size_t>(info->size)), world(local.size());
  for (int i = 0; i < info->size; ++i) local[static_cast<std::size_t>(i)] = i;
  MPI_Group group = MPI_GROUP_NULL;
  PMPI_Comm_group(comm, &group);
  PMPI_Group_translate_ranks(group, info->size, local.data(), gWorldGroup, world.data());
  PMPI_Group_free(&group);
  std::string line = "comm " + std::to_string(info->id) + " " + creator + " " +
                     std::to_string(info->size);
  for (int w : world) line += " " + std::to_string(w);
  writeDefLine(line);
  return info;
}

}  // namespace

void commTableStart() {
  PMPI_Comm_group(MPI_COMM_WORLD, &gWorldGroup);
  gWorldComm.id = kCommWorld;
  gWorldComm.size = g.size;
  gWorldComm.rank = g.rank;
  if (CommInfo* self = gComms.insert(handleKey(MPI_COMM_SELF))) {
    self->id = kCommSelf;
    self->size = 1;
    self->rank = 0;
  }
}

void commTableStop() {
  if (gWorldGroup != MPI_GROUP_NULL) PMPI_Group_free(&gWorldGroup);
}

const CommInfo* commLookup(MPI_Comm comm) {
  if (comm == MPI_COMM_NULL) return nullptr;
  if (const CommInfo* info = gComms.find(handleKey(comm))) return info;
  if (!g.active) return nullptr;
  return define(comm, "first-use");
}

void commCreated(MPI_Comm comm, Region creator) {
  if (!g.active || comm == MPI_COMM_NULL) return;
  // "MPI_Comm_split" -> "Comm_split": one word for the definition line.
  define(comm, kRegionNames[static_cast<int>(creator)] + 4);
}

void commFreed(MPI_Comm comm) {
  if (comm == MPI_COMM_NULL || comm == MPI_COMM_WORLD || comm == MPI_COMM_SELF) return;
  gComms.erase(handleKey(comm));
}

}  // namespace perwiz::trace
