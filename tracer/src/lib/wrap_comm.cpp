// Communicator management: creations define the new communicator (its members as world ranks,
// comm_table.cpp) so that messages and collectives on it translate to world ranks; MPI_Comm_free
// forgets the handle, which MPI may reuse for the next communicator.
#include "call.h"
#include "comm_table.h"

using namespace perwiz::trace;

extern "C" {

int MPI_Comm_split(MPI_Comm comm, int color, int key, MPI_Comm* newcomm) {
  Call call(Region::Comm_split);
  const int rc = PMPI_Comm_split(comm, color, key, newcomm);
  if (rc == MPI_SUCCESS) commCreated(*newcomm, Region::Comm_split);
  return rc;
}

int MPI_Comm_dup(MPI_Comm comm, MPI_Comm* newcomm) {
  Call call(Region::Comm_dup);
  const int rc = PMPI_Comm_dup(comm, newcomm);
  if (rc == MPI_SUCCESS) commCreated(*newcomm, Region::Comm_dup);
  return rc;
}

int MPI_Comm_create(MPI_Comm comm, MPI_Group group, MPI_Comm* newcomm) {
  Call call(Region::Comm_create);
  const int rc = PMPI_Comm_create(comm, group, newcomm);
  if (rc == MPI_SUCCESS) commCreated(*newcomm, Region::Comm_create);
  return rc;
}

int MPI_Comm_split_type(MPI_Comm comm, int split_type, int key, MPI_Info info,
                        MPI_Comm* newcomm) {
  Call call(Region::Comm_split_type);
  const int rc = PMPI_Comm_split_type(comm, split_type, key, info, newcomm);
  if (rc == MPI_SUCCESS) commCreated(*newcomm, Region::Comm_split_type);
  return rc;
}

int MPI_Cart_create(MPI_Comm comm, int ndims, const int dims[], const int periods[],
                    int reorder, MPI_Comm* newcomm) {
  Call call(Region::Cart_create);
  const int rc = PMPI_Cart_create(comm, ndims, dims, periods, reorder, newcomm);
  if (rc == MPI_SUCCESS) commCreated(*newcomm, Region::Cart_create);
  return rc;
}

int MPI_Cart_sub(MPI_Comm comm, const int remain_dims[], MPI_Comm* newcomm) {
  Call call(Region::Cart_sub);
  const int rc = PMPI_Cart_sub(comm, remain_dims, newcomm);
  if (rc == MPI_SUCCESS) commCreated(*newcomm, Region::Cart_sub);
  return rc;
}

int MPI_Comm_free(MPI_Comm* comm) {
  Call call(Region::Comm_free);
  commFreed(*comm);
  return PMPI_Comm_free(comm);
}

}  // extern "C"
