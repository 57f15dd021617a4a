// libotf2's collective callbacks over a ProcessGroup (otf2_group.h).
#include "otf2_group.h"

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace perwiz::otf2 {
namespace {

ProcessGroup& groupOf(void* userData) { return *static_cast<ProcessGroup*>(userData); }

// Bytes per element; libotf2 passes only integer and floating point types (OTF2_Callbacks.h).
std::size_t sizeOf(OTF2_Type type) {
  switch (type) {
    case OTF2_TYPE_UINT8:
    case OTF2_TYPE_INT8: return 1;
    case OTF2_TYPE_UINT16:
    case OTF2_TYPE_INT16: return 2;
    case OTF2_TYPE_UINT32:
    case OTF2_TYPE_INT32:
    case OTF2_TYPE_FLOAT: return 4;
    case OTF2_TYPE_UINT64:
    case OTF2_TYPE_INT64:
    case OTF2_TYPE_DOUBLE: return 8;
    default: return 0;
  }
}

// Runs a collective step; any exception (a failed exchange) becomes OTF2_CALLBACK_ERROR.
template <class Fn>
OTF2_CallbackCode run(Fn&& fn) {
  try {
    return fn() ? OTF2_CALLBACK_SUCCESS : OTF2_CALLBACK_ERROR;
  } catch (...) {
    return OTF2_CALLBACK_ERROR;
  }
}

OTF2_CallbackCode getSize(void* u, OTF2_CollectiveContext*, uint32_t* size) {
  *size = groupOf(u).size();
  return OTF2_CALLBACK_SUCCESS;
}

OTF2_CallbackCode getRank(void* u, OTF2_CollectiveContext*, uint32_t* rank) {
  *rank = groupOf(u).rank();
  return OTF2_CALLBACK_SUCCESS;
}

OTF2_CallbackCode barrier(void* u, OTF2_CollectiveContext*) {
  return run([&] {
    groupOf(u).allGather("");
    return true;
  });
}

OTF2_CallbackCode bcast(void* u, OTF2_CollectiveContext*, void* data, uint32_t n, OTF2_Type type, uint32_t root) {
  return run([&] {
    ProcessGroup& g = groupOf(u);
    const std::size_t bytes = n * sizeOf(type);
    std::string mine;
    if (g.rank() == root) mine.assign(static_cast<const char*>(data), bytes);
    const std::string got = g.broadcast(root, std::move(mine));
    if (got.size() != bytes) return false;
    std::memcpy(data, got.data(), bytes);
    return true;
  });
}

// Every process's `in` (its `inBytes[q]` at process q) to `root`, concatenated in process order.
bool gatherTo(ProcessGroup& g, const void* in, std::size_t bytes, void* out, const std::vector<std::size_t>& expected,
              uint32_t root) {
  std::vector<std::string> send(g.size());
  send.at(root).assign(static_cast<const char*>(in), bytes);
  const std::vector<std::string> got = g.exchange(std::move(send));
  if (g.rank() != root) return true;
  char* o = static_cast<char*>(out);
  for (std::uint32_t q = 0; q < g.size(); ++q) {
    if (got[q].size() != expected[q]) return false;
    std::memcpy(o, got[q].data(), got[q].size());
    o += got[q].size();
  }
  return true;
}

OTF2_CallbackCode gather(void* u, OTF2_CollectiveContext*, const void* in, void* out, uint32_t n, OTF2_Type type,
                         uint32_t root) {
  return run([&] {
    ProcessGroup& g = groupOf(u);
    const std::size_t bytes = n * sizeOf(type);
    return gatherTo(g, in, bytes, out, std::vector<std::size_t>(g.size(), bytes), root);
  });
}

OTF2_CallbackCode gatherv(void* u, OTF2_CollectiveContext*, const void* in, uint32_t inElements, void* out,
                          const uint32_t* outElements, OTF2_Type type, uint32_t root) {
  return run([&] {
    ProcessGroup& g = groupOf(u);
    const std::size_t size = sizeOf(type);
    std::vector<std::size_t> expected(g.size(), 0);
    if (g.rank() == root)
      for (std::uint32_t q = 0; q < g.size(); ++q) expected[q] = outElements[q] * size;
    return gatherTo(g, in, inElements * size, out, expected, root);
  });
}

// `root`'s slices (counts[q] bytes for process q, in process order) to every process's `out`.
bool scatterFrom(ProcessGroup& g, const void* in, const std::vector<std::size_t>& counts, void* out,
                 std::size_t outBytes, uint32_t root) {
  std::vector<std::string> send(g.size());
  if (g.rank() == root) {
    const char* p = static_cast<const char*>(in);
    for (std::uint32_t q = 0; q < g.size(); ++q) {
      send[q].assign(p, counts[q]);
      p += counts[q];
    }
  }
  const std::vector<std::string> got = g.exchange(std::move(send));
  if (got.at(root).size() != outBytes) return false;
  std::memcpy(out, got[root].data(), outBytes);
  return true;
}

OTF2_CallbackCode scatter(void* u, OTF2_CollectiveContext*, const void* in, void* out, uint32_t n, OTF2_Type type,
                          uint32_t root) {
  return run([&] {
    ProcessGroup& g = groupOf(u);
    const std::size_t bytes = n * sizeOf(type);
    return scatterFrom(g, in, std::vector<std::size_t>(g.size(), bytes), out, bytes, root);
  });
}

OTF2_CallbackCode scatterv(void* u, OTF2_CollectiveContext*, const void* in, const uint32_t* inElements, void* out,
                           uint32_t outElements, OTF2_Type type, uint32_t root) {
  return run([&] {
    ProcessGroup& g = groupOf(u);
    const std::size_t size = sizeOf(type);
    std::vector<std::size_t> counts(g.size(), 0);
    if (g.rank() == root)
      for (std::uint32_t q = 0; q < g.size(); ++q) counts[q] = inElements[q] * size;
    return scatterFrom(g, in, counts, out, outElements * size, root);
  });
}

const OTF2_CollectiveCallbacks kCallbacks = {
    nullptr,  // release: nothing to free
    &getSize, &getRank,
    nullptr,  // create/free local comm: ignored when writing (no SION substrate)
    nullptr, &barrier, &bcast, &gather, &gatherv, &scatter, &scatterv,
};

}  // namespace

const OTF2_CollectiveCallbacks* groupCallbacks() { return &kCallbacks; }

}  // namespace perwiz::otf2
