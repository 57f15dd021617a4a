// Giving a container's memory back (not only its elements).
//
// `v = {}` does not do it: for std::vector (and the unordered containers) it picks the
// initializer_list assignment, which empties the container and keeps its capacity (checked in
// tests/test_release.cpp). `v.clear()` keeps it too, and shrink_to_fit() is only a request.
// Swapping with a fresh container frees the storage at once.
#pragma once

namespace perwiz {

template <class Container>
void releaseMemory(Container& c) {
  Container().swap(c);
}

}  // namespace perwiz
