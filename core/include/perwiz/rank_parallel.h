// Work that runs per rank, in parallel where it pays (the engine, the GUI's worker, the timeline).
//
// forEachRank(ranks, events, fn) calls fn(r) for every rank r in [0, ranks), each exactly once,
// from up to hardware_concurrency() threads that take ranks one at a time. Small inputs (fewer
// than kParallelEvents events in all) run on the calling thread. fn must write only rank r's
// own outputs. The first exception thrown by any call is rethrown after all threads stopped.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace perwiz {

inline constexpr std::uint64_t kParallelEvents = 200'000;

// `maxThreads` (0: no limit) caps the threads, e.g. 1 for work in the background that must
// leave the other cores to the GUI.
template <class Fn>
void forEachRank(std::uint32_t ranks, std::uint64_t events, Fn&& fn, unsigned maxThreads = 0) {
  unsigned cores = std::max(1u, std::thread::hardware_concurrency());
  if (maxThreads > 0) cores = std::min(cores, maxThreads);
  const unsigned threads = events < kParallelEvents ? 1u : std::min<unsigned>(cores, ranks);
  if (threads <= 1) {
    for (std::uint32_t r = 0; r < ranks; ++r) fn(r);
    return;
  }
  std::atomic<std::uint32_t> next{0};
  std::atomic<bool> stop{false};
  std::exception_ptr error;
  std::mutex errorMutex;
  auto work = [&] {
    for (;;) {
      const std::uint32_t r = next.fetch_add(1, std::memory_order_relaxed);
      if (r >= ranks || stop.load(std::memory_order_relaxed)) return;
      try {
        fn(r);
      } catch (...) {
        std::lock_guard<std::mutex> lock(errorMutex);
        if (!error) error = std::current_exception();
        stop = true;
      }
    }
  };
  std::vector<std::thread> pool;
  pool.reserve(threads - 1);
  try {
    for (unsigned t = 1; t < threads; ++t) pool.emplace_back(work);
  } catch (...) {  // no thread could be started: the calling thread does it all
  }
  work();
  for (auto& t : pool) t.join();
  if (error) std::rethrow_exception(error);
}

}  // namespace perwiz
