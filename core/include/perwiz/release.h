// Giving a container's memory back (not only its elements).
//
// `v = {}` does not do it: for std::vector (and the unordered containers) it picks the
// initializer_list assignment, which empties the container and keeps its capacity (checked in
// tests/test_release.cpp). `v.clear()` keeps it too, and shrink_to_fit() is only a request.
// Swapping with a fresh container frees the storage at once.
#pragma once

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace perwiz {

// Gives the heap's free pages back to the system (glibc's malloc_trim): after many small
// blocks were freed, so that the resident set shrinks before a phase that allocates large
// arrays (which glibc maps afresh instead of reusing those pages). No-op elsewhere.
// Not under AddressSanitizer: its allocator replaces glibc's, and glibc's malloc_trim then
// walks an arena it never set up (SEGV in mtrim, found by the CI's sanitizer run).
#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define PERWIZ_ASAN 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__)
#define PERWIZ_ASAN 1
#endif
inline void releaseFreedHeap() {
#if defined(__GLIBC__) && !defined(PERWIZ_ASAN)
  malloc_trim(0);
#endif
}

template <class Container>
void releaseMemory(Container& c) {
  Container().swap(c);
}

}  // namespace perwiz
