#include "prediction_pool.h"

#include "perwiz/process_group.h"
#include "perwiz/release.h"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <thread>

namespace perwiz {

PredictionPool::PredictionPool(const Replayer& base, const AdvisorOptions& options)
    : base_(base), options_(options), present_(base.scenario().hypotheses) {
  threads_ = options.threads ? options.threads : std::max(1u, std::thread::hardware_concurrency());
  if (options.lentBase == &base) lent_ = options.lentBase;
}

Replayer& PredictionPool::spareFork() {
  // Never the lent base: the caller keeps what it adds here.
  if (forks_.empty()) {
    releaseFreedHeap();  // (see run)
    forks_.push_back(base_.fork());
  }
  return *forks_[0];
}

bool PredictionPool::cancelled() const { return options_.cancel && options_.cancel->load(); }

TimeNs PredictionPool::predictOn(Replayer& r, const std::vector<Hypothesis>& job) {
  // Hypotheses already in the base scenario stay; only the job's own are added and withdrawn.
  // The last new one is evaluated without being kept (Replayer::predictWith: no shift after the
  // clean cut, no second replay to withdraw it); the others are added and withdrawn.
  std::vector<Hypothesis> fresh;
  for (const Hypothesis& h : job) {
    if (std::binary_search(present_.begin(), present_.end(), h)) continue;
    if (std::find(fresh.begin(), fresh.end(), h) != fresh.end()) continue;
    if (r.validate(h).empty()) fresh.push_back(h);
  }
  if (fresh.empty()) return r.predictedTime();
  for (std::size_t i = 0; i + 1 < fresh.size(); ++i) r.add(fresh[i]);
  const TimeNs t = r.predictWith(fresh.back());
  for (std::size_t i = fresh.size() - 1; i-- > 0;) r.remove(fresh[i]);
  // The job's hypotheses are withdrawn: its copies of gaps and costs go (hundreds of jobs, each
  // touching other chunks, would otherwise leave a copy of every one per thread).
  r.releaseUnchangedCopies();
  return t;
}

bool PredictionPool::run(const std::vector<std::vector<Hypothesis>>& jobs, std::vector<TimeNs>& out,
                         const std::string& stage, double progressFrom, double progressTo) {
  ProcessGroup* group = options_.group;
  if (!group || group->size() <= 1) return runHere(jobs, out, stage, progressFrom, progressTo);
  const std::uint32_t P = group->size(), me = group->rank();
  std::vector<std::vector<Hypothesis>> mine;
  for (std::size_t i = me; i < jobs.size(); i += P) mine.push_back(jobs[i]);
  std::vector<TimeNs> t;
  const std::uint64_t before = predictions_;
  runHere(mine, t, stage, progressFrom, progressTo);
  // Every process's results (8 B each, in its jobs' order), to every process.
  std::string bytes(t.size() * sizeof(TimeNs), '\0');
  if (!t.empty()) std::memcpy(bytes.data(), t.data(), bytes.size());
  const std::vector<std::string> all = group->allGather(bytes);
  out.assign(jobs.size(), -1);
  predictions_ = before;
  for (std::uint32_t q = 0; q < P; ++q) {
    const std::size_t n = all[q].size() / sizeof(TimeNs);
    for (std::size_t k = 0; k < n; ++k) {
      const std::size_t i = q + k * P;
      if (i >= jobs.size()) throw GroupError("advise: process " + std::to_string(q) + " sent more results than jobs");
      std::memcpy(&out[i], all[q].data() + k * sizeof(TimeNs), sizeof(TimeNs));
      predictions_ += out[i] >= 0;  // as if this process had run them all
    }
  }
  return !cancelled();
}

bool PredictionPool::runHere(const std::vector<std::vector<Hypothesis>>& jobs, std::vector<TimeNs>& out,
                             const std::string& stage, double progressFrom, double progressTo) {
  out.assign(jobs.size(), -1);
  if (jobs.empty()) return !cancelled();
  std::atomic<std::size_t> next{0}, done{0};
  auto work = [&](Replayer& r) {
    for (;;) {
      if (cancelled()) return;
      const std::size_t i = next.fetch_add(1);
      if (i >= jobs.size()) return;
      out[i] = predictOn(r, jobs[i]);
      done.fetch_add(1);
    }
  };
  std::size_t helpers = std::min(threads_, jobs.size()) - 1;
  if (options_.threads == 0) {
    // All cores, when worth it: a helper thread costs its start and, on a busy machine, the
    // wait until the scheduler runs it (up to 8 ms measured on 2 shared vCPUs, while the whole
    // batch of a 5,000-event trace takes 1 ms on one core). A replay visits each call at most
    // twice, so jobs × calls bounds the batch's work; give each helper at least 2^18 of it.
    const std::uint64_t work = jobs.size() * std::max<std::uint64_t>(1, base_.callCount());
    helpers = static_cast<std::size_t>(std::min<std::uint64_t>(helpers, work >> 18));
  }
  const std::size_t needed = helpers + (lent_ ? 0 : 1);
  // The searches before the first batch freed their arrays into the heap, where a fork's large
  // ones cannot reuse them: give those pages back first (60 MB at 10^7 events, issue #42).
  if (forks_.size() < needed) releaseFreedHeap();
  while (forks_.size() < needed) forks_.push_back(base_.fork());
  std::vector<std::thread> threads;
  for (std::size_t t = 0; t < helpers; ++t) threads.emplace_back(work, std::ref(worker(t + 1)));
  // The calling thread works too, and reports progress between its jobs.
  for (;;) {
    if (cancelled()) break;
    const std::size_t i = next.fetch_add(1);
    if (i >= jobs.size()) break;
    out[i] = predictOn(worker(0), jobs[i]);
    done.fetch_add(1);
    if (options_.progress)
      options_.progress(progressFrom + (progressTo - progressFrom) * static_cast<double>(done.load()) /
                                           static_cast<double>(jobs.size()),
                        stage);
  }
  for (auto& t : threads) t.join();
  predictions_ += done.load();
  return !cancelled();
}

}  // namespace perwiz
