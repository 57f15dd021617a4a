// A ProcessGroup of threads in one process, for the tests of the distributed replay: every
// thread is one "process"; exchange() meets the others at a barrier.
#pragma once

#include "perwiz/process_group.h"

#include <barrier>
#include <exception>
#include <functional>
#include <memory>
#include <thread>
#include <vector>

namespace perwiz::test {

class ThreadGroup final : public ProcessGroup {
 public:
  struct Shared {
    explicit Shared(std::uint32_t n) : size(n), slots(n), sync(n) {}
    std::uint32_t size;
    std::vector<std::vector<std::string>> slots;  // slots[q]: what process q sends, per receiver
    std::barrier<> sync;
  };
  ThreadGroup(std::shared_ptr<Shared> s, std::uint32_t rank) : s_(std::move(s)), rank_(rank) {}
  std::uint32_t size() const override { return s_->size; }
  std::uint32_t rank() const override { return rank_; }
  std::vector<std::string> exchange(std::vector<std::string> out) override {
    out.resize(s_->size);
    s_->slots[rank_] = std::move(out);
    s_->sync.arrive_and_wait();  // everyone has written
    std::vector<std::string> in(s_->size);
    for (std::uint32_t q = 0; q < s_->size; ++q) in[q] = s_->slots[q][rank_];
    s_->sync.arrive_and_wait();  // everyone has read: the slots may be written again
    return in;
  }

 private:
  std::shared_ptr<Shared> s_;
  std::uint32_t rank_;
};

// Runs fn(group) on `n` threads, one per process; returns each thread's exception (or null).
// Every error path of the code under test must be collective (GroupError on all threads):
// a thread that leaves early would leave the others waiting at the barrier.
inline std::vector<std::exception_ptr> runGroup(std::uint32_t n, const std::function<void(ProcessGroup&)>& fn) {
  auto shared = std::make_shared<ThreadGroup::Shared>(n);
  std::vector<std::exception_ptr> errors(n);
  std::vector<std::thread> threads;
  for (std::uint32_t q = 0; q < n; ++q)
    threads.emplace_back([&, q] {
      ThreadGroup g(shared, q);
      try {
        fn(g);
      } catch (...) {
        errors[q] = std::current_exception();
      }
    });
  for (auto& t : threads) t.join();
  return errors;
}

}  // namespace perwiz::test
