// Completion wrappers: Wait*, Test*, MPI_Request_free and MPI_Cancel.
//
// A completed request's handle is reset to MPI_REQUEST_NULL by MPI, so the handles are saved
// before the PMPI call (into scratch space, no allocation per call) and looked up afterwards.
// When the caller ignores statuses, the wrapper passes its own: a receive's source, tag and
// size are only known from the status. Nothing is copied while no request is being followed.
#include "call.h"
#include "p2p_records.h"

#include <algorithm>

using namespace perwiz::trace;

namespace {

// The caller's status, or `own` when it passed MPI_STATUS_IGNORE.
MPI_Status* statusOr(MPI_Status* status, MPI_Status* own) {
  return status == MPI_STATUS_IGNORE ? own : status;
}

bool saveKeys(const MPI_Request requests[], int count, std::uint64_t*& keys) {
  if (count <= 0 || !requestsOutstanding()) return false;
  keys = scratchKeys(count);
  if (!keys) return false;
  for (int i = 0; i < count; ++i) keys[i] = handleKey(requests[i]);
  return true;
}

// Statuses array for `count` requests: the caller's, or scratch space if it ignores them.
MPI_Status* statusesOr(MPI_Status statuses[], int count) {
  return statuses == MPI_STATUSES_IGNORE ? scratchStatuses(count) : statuses;
}

// With MPI_ERR_IN_STATUS, only the statuses without an error are completions.
bool completedOk(int rc, const MPI_Status& status) {
  return rc == MPI_SUCCESS || (rc == MPI_ERR_IN_STATUS && status.MPI_ERROR == MPI_SUCCESS);
}

}  // namespace

extern "C" {

int MPI_Wait(MPI_Request* request, MPI_Status* status) {
  Call call(Region::Wait);
  if (!call || !requestsOutstanding()) return PMPI_Wait(request, status);
  const std::uint64_t key = handleKey(*request);
  MPI_Status own;
  MPI_Status* st = statusOr(status, &own);
  const int rc = PMPI_Wait(request, st);
  if (rc == MPI_SUCCESS) requestCompleted(key, *st, call.endTime());
  return rc;
}

int MPI_Test(MPI_Request* request, int* flag, MPI_Status* status) {
  Call call(Region::Test);
  if (!call || !requestsOutstanding()) return PMPI_Test(request, flag, status);
  const std::uint64_t key = handleKey(*request);
  MPI_Status own;
  MPI_Status* st = statusOr(status, &own);
  const int rc = PMPI_Test(request, flag, st);
  if (rc == MPI_SUCCESS && *flag) requestCompleted(key, *st, call.endTime());
  return rc;
}

int MPI_Waitall(int count, MPI_Request requests[], MPI_Status statuses[]) {
  Call call(Region::Waitall);
  std::uint64_t* keys = nullptr;
  MPI_Status* st = nullptr;
  if (!call || !saveKeys(requests, count, keys) || !(st = statusesOr(statuses, count)))
    return PMPI_Waitall(count, requests, statuses);
  const int rc = PMPI_Waitall(count, requests, st);
  const std::uint64_t t = call.endTime();
  for (int i = 0; i < count; ++i)
    if (completedOk(rc, st[i])) requestCompleted(keys[i], st[i], t);
  return rc;
}

int MPI_Testall(int count, MPI_Request requests[], int* flag, MPI_Status statuses[]) {
  Call call(Region::Testall);
  std::uint64_t* keys = nullptr;
  MPI_Status* st = nullptr;
  if (!call || !saveKeys(requests, count, keys) || !(st = statusesOr(statuses, count)))
    return PMPI_Testall(count, requests, flag, statuses);
  const int rc = PMPI_Testall(count, requests, flag, st);
  const std::uint64_t t = call.endTime();
  if (*flag) {
    for (int i = 0; i < count; ++i)
      if (completedOk(rc, st[i])) requestCompleted(keys[i], st[i], t);
  } else {
    // MPI leaves every handle as it was when Testall says "not all done", but SMPI (3.32)
    // completes and frees the requests that are done and sets their handles to
    // MPI_REQUEST_NULL anyway: a handle that went null here completed here (its status is
    // filled), or its completion would be lost for good.
    const std::uint64_t nullKey = handleKey(MPI_REQUEST_NULL);
    for (int i = 0; i < count; ++i)
      if (keys[i] != nullKey && requests[i] == MPI_REQUEST_NULL && completedOk(rc, st[i]))
        requestCompleted(keys[i], st[i], t);
  }
  return rc;
}

int MPI_Waitany(int count, MPI_Request requests[], int* index, MPI_Status* status) {
  Call call(Region::Waitany);
  std::uint64_t* keys = nullptr;
  if (!call || !saveKeys(requests, count, keys))
    return PMPI_Waitany(count, requests, index, status);
  MPI_Status own;
  MPI_Status* st = statusOr(status, &own);
  const int rc = PMPI_Waitany(count, requests, index, st);
  if (rc == MPI_SUCCESS && *index != MPI_UNDEFINED && *index >= 0 && *index < count)
    requestCompleted(keys[*index], *st, call.endTime());
  return rc;
}

int MPI_Testany(int count, MPI_Request requests[], int* index, int* flag, MPI_Status* status) {
  Call call(Region::Testany);
  std::uint64_t* keys = nullptr;
  if (!call || !saveKeys(requests, count, keys))
    return PMPI_Testany(count, requests, index, flag, status);
  MPI_Status own;
  MPI_Status* st = statusOr(status, &own);
  const int rc = PMPI_Testany(count, requests, index, flag, st);
  if (rc == MPI_SUCCESS && *flag && *index != MPI_UNDEFINED && *index >= 0 && *index < count)
    requestCompleted(keys[*index], *st, call.endTime());
  return rc;
}

int MPI_Waitsome(int incount, MPI_Request requests[], int* outcount, int indices[],
                 MPI_Status statuses[]) {
  Call call(Region::Waitsome);
  std::uint64_t* keys = nullptr;
  MPI_Status* st = nullptr;
  if (!call || !saveKeys(requests, incount, keys) || !(st = statusesOr(statuses, incount)))
    return PMPI_Waitsome(incount, requests, outcount, indices, statuses);
  const int rc = PMPI_Waitsome(incount, requests, outcount, indices, st);
  if ((rc == MPI_SUCCESS || rc == MPI_ERR_IN_STATUS) && *outcount != MPI_UNDEFINED) {
    const std::uint64_t t = call.endTime();
    for (int k = 0; k < *outcount; ++k)
      if (indices[k] >= 0 && indices[k] < incount && completedOk(rc, st[k]))
        requestCompleted(keys[indices[k]], st[k], t);
  }
  return rc;
}

int MPI_Testsome(int incount, MPI_Request requests[], int* outcount, int indices[],
                 MPI_Status statuses[]) {
  Call call(Region::Testsome);
  std::uint64_t* keys = nullptr;
  MPI_Status* st = nullptr;
  if (!call || !saveKeys(requests, incount, keys) || !(st = statusesOr(statuses, incount)))
    return PMPI_Testsome(incount, requests, outcount, indices, statuses);
  const int rc = PMPI_Testsome(incount, requests, outcount, indices, st);
  if ((rc == MPI_SUCCESS || rc == MPI_ERR_IN_STATUS) && *outcount != MPI_UNDEFINED) {
    const std::uint64_t t = call.endTime();
    for (int k = 0; k < *outcount; ++k)
      if (indices[k] >= 0 && indices[k] < incount && completedOk(rc, st[k]))
        requestCompleted(keys[indices[k]], st[k], t);
  }
  return rc;
}

// A freed send still completes (MPI says so), at a time nobody observes: the model gets its
// completion here. A freed receive cannot be completed in the model (its source is unknown):
// it stays posted and the reader reports it as never completed.
int MPI_Request_free(MPI_Request* request) {
  Call call(Region::Request_free);
  RequestInfo info;
  if (call && takeRequest(handleKey(*request), info) && info.kind == RequestKind::Isend)
    append(RecordKind::IsendComplete, call.begin(), 0, info.comm, 0, 0, 0, info.id);
  return PMPI_Request_free(request);
}

// The request completes later (Wait/Test), where its status says whether it was cancelled.
int MPI_Cancel(MPI_Request* request) {
  Call call(Region::Cancel);
  if (call)
    if (RequestInfo* info = findRequest(handleKey(*request))) info->cancelRequested = true;
  return PMPI_Cancel(request);
}

}  // extern "C"
