// The MPI functions the tracer records, as region ids shared by the library (which writes the
// ids) and the converter (which names the regions "MPI_<name>").
#pragma once

#include <cstdint>

namespace perwiz::trace {

// X(name): region "MPI_" #name. Append only (ids are positions).
#define PERWIZ_TRACE_MPI_REGIONS(X)                                                       \
  X(Init) X(Init_thread) X(Finalize) X(Abort)                                             \
  X(Send) X(Ssend) X(Bsend) X(Rsend) X(Recv) X(Sendrecv) X(Sendrecv_replace)              \
  X(Isend) X(Issend) X(Ibsend) X(Irsend) X(Irecv)                                         \
  X(Wait) X(Waitall) X(Waitany) X(Waitsome) X(Test) X(Testall) X(Testany) X(Testsome)     \
  X(Probe) X(Iprobe) X(Request_free) X(Cancel)                                            \
  X(Barrier) X(Bcast) X(Reduce) X(Allreduce) X(Gather) X(Gatherv) X(Scatter) X(Scatterv)  \
  X(Allgather) X(Allgatherv) X(Alltoall) X(Alltoallv) X(Reduce_scatter) X(Scan) X(Exscan) \
  X(Comm_split) X(Comm_dup) X(Comm_create) X(Comm_split_type) X(Cart_create) X(Cart_sub)  \
  X(Comm_free)

enum class Region : std::uint16_t {
#define PERWIZ_X(name) name,
  PERWIZ_TRACE_MPI_REGIONS(PERWIZ_X)
#undef PERWIZ_X
  Count
};

inline constexpr const char* kRegionNames[] = {
#define PERWIZ_X(name) "MPI_" #name,
    PERWIZ_TRACE_MPI_REGIONS(PERWIZ_X)
#undef PERWIZ_X
};
static_assert(sizeof(kRegionNames) / sizeof(kRegionNames[0]) ==
              static_cast<std::size_t>(Region::Count));

}  // namespace perwiz::trace
