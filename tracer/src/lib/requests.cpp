#include "requests.h"

#include "comm_table.h"

#include <cstdlib>

namespace perwiz::trace {

HandleMap<RequestInfo> gRequests;

namespace {

std::uint64_t* gKeys = nullptr;
int gKeysSize = 0;
MPI_Status* gStatuses = nullptr;
int gStatusesSize = 0;

template <class T>
T* growTo(T*& array, int& size, int count) {
  if (count <= size) return array;
  auto* bigger = static_cast<T*>(std::realloc(array, sizeof(T) * static_cast<std::size_t>(count)));
  if (!bigger) return nullptr;
  array = bigger;
  size = count;
  return array;
}

}  // namespace

std::uint64_t trackRequest(MPI_Request request, RequestKind kind, std::uint32_t comm) {
  RequestInfo* info = gRequests.insert(handleKey(request));
  if (!info) return 0;
  info->id = g.nextRequest++;
  info->comm = comm;
  info->kind = kind;
  info->cancelRequested = false;
  return info->id;
}

std::uint64_t receivedBytes(const MPI_Status& status) {
  int count = 0;
  if (PMPI_Get_count(&status, MPI_BYTE, &count) != MPI_SUCCESS || count < 0) return 0;
  return static_cast<std::uint64_t>(count);
}

void requestCompleted(std::uint64_t key, const MPI_Status& status, std::uint64_t time) {
  RequestInfo* info = gRequests.find(key);
  if (!info) return;
  const RequestInfo r = *info;
  gRequests.erase(key);
  if (r.cancelRequested) {
    int cancelled = 0;
    PMPI_Test_cancelled(&status, &cancelled);
    if (cancelled) {
      append(RecordKind::Cancelled, time, 0, r.comm, 0, 0, 0, r.id);
      return;
    }
  }
  if (r.kind == RequestKind::Isend) {
    append(RecordKind::IsendComplete, time, 0, r.comm, 0, 0, 0, r.id);
  } else if (status.MPI_SOURCE != MPI_PROC_NULL) {
    append(RecordKind::Irecv, time, 0, r.comm, status.MPI_SOURCE, status.MPI_TAG,
           receivedBytes(status), r.id);
  }
}

std::uint64_t* scratchKeys(int count) { return growTo(gKeys, gKeysSize, count); }
MPI_Status* scratchStatuses(int count) { return growTo(gStatuses, gStatusesSize, count); }

}  // namespace perwiz::trace
