#include "requests.h"

#include <cstdlib>

namespace perwiz::trace {

namespace {

constexpr std::uint32_t kNil = UINT32_MAX;

// Pending requests live in a pool (grown by doubling, never shrunk) chained per handle.
struct Pending {
  RequestInfo info;
  std::uint32_t next;
};
struct Queue {
  std::uint32_t head;
  std::uint32_t tail;
};

HandleMap<Queue> gQueues;
Pending* gPool = nullptr;
std::uint32_t gPoolSize = 0;
std::uint32_t gFree = kNil;
std::uint64_t gOutstanding = 0;

std::uint32_t allocate() {
  if (gFree == kNil) {
    const std::uint32_t bigger = gPoolSize ? gPoolSize * 2 : 256;
    auto* pool = static_cast<Pending*>(std::realloc(gPool, sizeof(Pending) * bigger));
    if (!pool) return kNil;
    gPool = pool;
    for (std::uint32_t i = gPoolSize; i < bigger; ++i) gPool[i].next = i + 1 < bigger ? i + 1 : gFree;
    gFree = gPoolSize;
    gPoolSize = bigger;
  }
  const std::uint32_t n = gFree;
  gFree = gPool[n].next;
  return n;
}

bool popOldest(std::uint64_t key, RequestInfo& info) {
  Queue* q = gOutstanding ? gQueues.find(key) : nullptr;
  if (!q) return false;
  const std::uint32_t n = q->head;
  info = gPool[n].info;
  q->head = gPool[n].next;
  gPool[n].next = gFree;
  gFree = n;
  --gOutstanding;
  if (q->head == kNil) gQueues.erase(key);
  return true;
}

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

bool requestsOutstanding() { return gOutstanding > 0; }

std::uint64_t trackRequest(MPI_Request request, RequestKind kind, std::uint32_t comm,
                           bool singleRank) {
  const std::uint64_t key = handleKey(request);
  const std::uint32_t n = allocate();
  if (n == kNil) return 0;
  Queue* q = gQueues.find(key);
  if (!q) {
    q = gQueues.insert(key);
    if (!q) {
      gPool[n].next = gFree;
      gFree = n;
      return 0;
    }
    q->head = q->tail = kNil;
  }
  gPool[n].info = RequestInfo{g.nextRequest++, comm, kind, false, singleRank};
  gPool[n].next = kNil;
  if (q->tail == kNil) q->head = n;
  else gPool[q->tail].next = n;
  q->tail = n;
  ++gOutstanding;
  return gPool[n].info.id;
}

RequestInfo* findRequest(std::uint64_t key) {
  Queue* q = gOutstanding ? gQueues.find(key) : nullptr;
  return q ? &gPool[q->head].info : nullptr;
}

bool takeRequest(std::uint64_t key, RequestInfo& info) { return popOldest(key, info); }

std::uint64_t receivedBytes(const MPI_Status& status) {
  int count = 0;
  if (PMPI_Get_count(&status, MPI_BYTE, &count) != MPI_SUCCESS || count < 0) return 0;
  return static_cast<std::uint64_t>(count);
}

void requestCompleted(std::uint64_t key, const MPI_Status& status, std::uint64_t time) {
  RequestInfo r;
  if (!popOldest(key, r)) return;
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
    append(RecordKind::Irecv, time, 0, r.comm, r.singleRank ? 0 : status.MPI_SOURCE,
           status.MPI_TAG, receivedBytes(status), r.id);
  }
}

std::uint64_t* scratchKeys(int count) { return growTo(gKeys, gKeysSize, count); }
MPI_Status* scratchStatuses(int count) { return growTo(gStatuses, gStatusesSize, count); }

}  // namespace perwiz::trace
