// Error agreement between the processes of a parallel replay: every phase that can fail on one
// process ends with agree(), so that all of them learn of it at the same point and report it
// (instead of the others waiting in the next collective operation for a process that is gone).
#pragma once

#include "perwiz/process_group.h"

#include <exception>
#include <new>
#include <string>
#include <vector>

namespace perwiz {

// The end of a phase: every process learns whether any failed. The first failing process's
// problem is raised on all of them (GroupError), so that every process reports it and exits.
inline void agree(ProcessGroup& group, const std::string& problem) {
  const std::vector<std::string> all = group.allGather(problem);
  for (std::uint32_t q = 0; q < all.size(); ++q)
    if (!all[q].empty()) throw GroupError("process " + std::to_string(q) + ": " + all[q]);
}

// Runs `fn`; its exception's message (or "") for agree().
template <class Fn>
std::string attempt(Fn&& fn) {
  try {
    fn();
  } catch (const GroupError&) {
    throw;  // already raised on every process
  } catch (const std::bad_alloc&) {
    return "out of memory";
  } catch (const std::exception& e) {
    return e.what()[0] ? e.what() : "unknown error";
  }
  return "";
}

}  // namespace perwiz
