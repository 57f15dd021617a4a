// The differences of two aligned traces (perwiz/compare.h): per rank, per step, per function,
// and the events that changed or were missed most. Ranks in parallel; each rank's events read
// once, a block of times at a time; what grows with the trace is never kept (bounded lists).
#include "perwiz/compare.h"

#include "perwiz/rank_parallel.h"

#include <algorithm>
#include <cstdlib>
#include <limits>
#include <mutex>
#include <string_view>
#include <unordered_map>

namespace perwiz {
namespace {

constexpr std::size_t kBlock = 4096;

// Enter and leave times of one rank's events, a block at a time: the measured ones of a trace
// or the predicted ones of A′.
class TimeBlocks {
 public:
  TimeBlocks(const RankTrace& r) : enter_(&r.enter), leave_(&r.leave) {}
  TimeBlocks(const PredictedRank& p) : p_(&p) {}
  // Times of events [first, first + n), n <= kBlock.
  void read(std::size_t first, std::size_t n) {
    if (!p_) {
      enter_->decode(first, n, enter);
      leave_->decode(first, n, leave);
      return;
    }
    for (std::size_t k = 0; k < n; ++k) {  // a prediction may share a shifted tail (PredictedRank)
      enter[k] = p_->enter(first + k);
      leave[k] = p_->leave(first + k);
    }
  }
  TimeNs enter[kBlock], leave[kBlock];

 private:
  const TimeColumn* enter_ = nullptr;
  const TimeColumn* leave_ = nullptr;
  const PredictedRank* p_ = nullptr;
};

// Keeps the `k` largest by `key` (a min-heap on it).
template <class T, class Key>
class Largest {
 public:
  Largest(std::size_t k, Key key) : k_(k), key_(key) {}
  void offer(const T& v) {
    if (k_ == 0) return;
    auto smaller = [&](const T& x, const T& y) { return key_(x) > key_(y); };
    if (heap_.size() < k_) {
      heap_.push_back(v);
      std::push_heap(heap_.begin(), heap_.end(), smaller);
    } else if (key_(v) > key_(heap_.front())) {
      std::pop_heap(heap_.begin(), heap_.end(), smaller);
      heap_.back() = v;
      std::push_heap(heap_.begin(), heap_.end(), smaller);
    }
  }
  // Largest first; ties by the order of `before`.
  template <class Before>
  std::vector<T> sorted(Before before) && {
    std::sort(heap_.begin(), heap_.end(),
              [&](const T& x, const T& y) { return key_(x) != key_(y) ? key_(x) > key_(y) : before(x, y); });
    return std::move(heap_);
  }
  std::vector<T>& items() { return heap_; }

 private:
  std::size_t k_;
  Key key_;
  std::vector<T> heap_;
};

TimeNs absDiff(TimeNs x, TimeNs y) { return x > y ? x - y : y - x; }
auto byChange = [](const EventDifference& e) { return absDiff(e.durationB, e.durationA); };
auto byMiss = [](const EventDifference& e) { return absDiff(e.durationB, e.durationPredicted); };
auto byFunctionChange = [](const FunctionDifference& f) { return absDiff(f.b, f.a); };
bool eventOrder(const EventDifference& x, const EventDifference& y) {
  return std::pair(x.rankA, x.eventA) < std::pair(y.rankA, y.eventA);
}

// Both traces' functions by name: the union's index of each function of A and of B.
struct FunctionUnion {
  std::vector<std::string> names;
  std::vector<std::uint32_t> ofA, ofB;
  FunctionUnion(const Trace& a, const Trace& b) {
    std::unordered_map<std::string_view, std::uint32_t> index;
    auto add = [&](const std::string& name) {
      const auto [it, fresh] = index.emplace(name, std::uint32_t(names.size()));
      if (fresh) names.push_back(name);
      return it->second;
    };
    for (const Function& f : a.functions) ofA.push_back(add(f.name));
    for (const Function& f : b.functions) ofB.push_back(add(f.name));
  }
};

// One rank pair's sums and lists, merged into the comparison under a lock.
struct RankSums {
  std::vector<TimeNs> a, b, p;
  std::vector<std::uint64_t> countA, countB;
  explicit RankSums(std::size_t functions)
      : a(functions, 0), b(functions, 0), p(functions, 0), countA(functions, 0), countB(functions, 0) {}
};

class Comparer {
 public:
  Comparer(const Trace& a, const Trace& b, const TraceAlignment& al, const PredictedTimes* p, const CompareOptions& o)
      : a_(a), b_(b), al_(al), p_(p), o_(o), fu_(a, b), totals_(fu_.names.size()), changed_(o.top, byChange),
        missed_(o.top, byMiss), functionRanks_(o.top, byFunctionChange) {}

  Comparison run() {
    Comparison c;
    for (const RankTrace& r : a_.ranks) c.measuredA = std::max(c.measuredA, r.leave.maxValue());
    for (const RankTrace& r : b_.ranks) c.measuredB = std::max(c.measuredB, r.leave.maxValue());
    if (p_) c.predicted = p_->end;
    c.ranks.resize(al_.ranks.size());
    std::vector<std::vector<EventEdit>> edits(al_.ranks.size());
    std::vector<std::vector<EventPair>> marked(al_.ranks.size());
    std::vector<std::uint64_t> markedCount(al_.ranks.size(), 0);
    forEachRank(std::uint32_t(al_.ranks.size()), al_.eventsA + al_.eventsB,
                [&](std::uint32_t k) { c.ranks[k] = rankPair(al_.ranks[k], edits[k], marked[k], markedCount[k]); });
    for (std::size_t k = 0; k < marked.size(); ++k) {
      c.markedCount += markedCount[k];
      for (const EventPair& m : marked[k])
        if (c.marked.size() < o_.markLimit) c.marked.push_back(m);
    }
    for (auto& e : edits)
      for (auto& x : e)
        if (c.edits.size() < o_.top) c.edits.push_back(std::move(x));
    for (std::uint32_t f = 0; f < fu_.names.size(); ++f)
      if (totals_.countA[f] + totals_.countB[f] > 0)
        c.functions.push_back({fu_.names[f], totals_.a[f], totals_.b[f], totals_.p[f], totals_.countA[f],
                               totals_.countB[f], kNone32, kNone32});
    std::stable_sort(c.functions.begin(), c.functions.end(),
                     [](const auto& x, const auto& y) { return absDiff(x.b, x.a) > absDiff(y.b, y.a); });
    c.functionRanks = std::move(functionRanks_).sorted([](const auto& x, const auto& y) {
      return std::pair(x.rankA, x.name) < std::pair(y.rankA, y.name);
    });
    c.changed = std::move(changed_).sorted(eventOrder);
    c.missed = std::move(missed_).sorted(eventOrder);
    for (auto* list : {&c.changed, &c.missed})
      for (EventDifference& e : *list) describe(e);
    c.stepsA = std::uint32_t(a_.steps.size());
    c.stepsB = std::uint32_t(b_.steps.size());
    c.steps = steps();
    return c;
  }

 private:
  RankDifference rankPair(const RankAlignment& ra, std::vector<EventEdit>& edits, std::vector<EventPair>& marked,
                          std::uint64_t& markedCount) {
    const RankTrace& x = a_.ranks[ra.rankA];
    const RankTrace& y = b_.ranks[ra.rankB];
    const PredictedRank* pr = p_ && ra.rankA < p_->ranks.size() ? p_->ranks[ra.rankA].get() : nullptr;
    RankDifference d{ra.rankA,
                     ra.rankB,
                     std::max<TimeNs>(0, x.leave.maxValue()),
                     std::max<TimeNs>(0, y.leave.maxValue()),
                     pr ? pr->end : 0,
                     ra.onlyA,
                     ra.onlyB};
    RankSums sums(fu_.names.size());
    Largest<EventDifference, decltype(byChange)> changed(o_.top, byChange);
    Largest<EventDifference, decltype(byMiss)> missed(pr ? o_.top : 0, byMiss);
    // B's times are read a block at a time too: its partners rise with A's events.
    auto ta = std::make_unique<TimeBlocks>(x);
    auto tb = std::make_unique<TimeBlocks>(y);
    std::unique_ptr<TimeBlocks> tp = pr ? std::make_unique<TimeBlocks>(*pr) : nullptr;
    std::size_t bFirst = 0, bCount = 0;
    auto bTimes = [&](std::uint32_t j, TimeNs& en, TimeNs& le) {
      if (j < bFirst || j >= bFirst + bCount) {
        bFirst = j;
        bCount = std::min<std::size_t>(kBlock, y.size() - j);
        tb->read(bFirst, bCount);
      }
      en = tb->enter[j - bFirst];
      le = tb->leave[j - bFirst];
    };
    for (std::size_t first = 0; first < x.size(); first += kBlock) {
      const std::size_t n = std::min(kBlock, x.size() - first);
      ta->read(first, n);
      if (tp) tp->read(first, n);
      for (std::size_t k = 0; k < n; ++k) {
        const std::uint32_t i = std::uint32_t(first + k);
        const std::uint32_t f = fu_.ofA[x.function[i]];
        const TimeNs durA = ta->leave[k] - ta->enter[k];
        sums.a[f] += durA;
        ++sums.countA[f];
        const TimeNs durP = tp ? tp->leave[k] - tp->enter[k] : 0;
        sums.p[f] += durP;
        const std::uint32_t j = ra.toB[i];
        if (j == kNone32) {
          if (edits.size() < o_.top) edits.push_back({false, ra.rankA, i, fu_.names[f], ta->enter[k], durA});
          continue;
        }
        TimeNs enB, leB;
        bTimes(j, enB, leB);
        EventDifference e{
            ra.rankA, i, ra.rankB, j, {}, kNone32, kNone32, ta->enter[k], durA, enB, leB - enB, tp ? tp->enter[k] : 0,
            durP};
        if (e.durationB != e.durationA) changed.offer(e);  // only what changed is listed
        if (o_.markAbove >= 0 && absDiff(e.durationB, e.durationA) > o_.markAbove) {
          ++markedCount;
          if (marked.size() < o_.markLimit) marked.push_back({ra.rankA, i, ra.rankB, j});
        }
        if (tp && e.durationB != e.durationPredicted) missed.offer(e);
      }
    }
    // B's side: every event's function total (paired or not), and the events of B only.
    for (std::size_t first = 0; first < y.size(); first += kBlock) {
      const std::size_t n = std::min(kBlock, y.size() - first);
      tb->read(first, n);
      for (std::size_t k = 0; k < n; ++k) {
        const std::uint32_t f = fu_.ofB[y.function[first + k]];
        sums.b[f] += tb->leave[k] - tb->enter[k];
        ++sums.countB[f];
      }
    }
    std::size_t shownB = 0;
    for (const std::uint32_t j : ra.onlyInB(std::uint32_t(y.size()))) {
      if (shownB++ >= o_.top) break;
      edits.push_back({true, ra.rankB, j, fu_.names[fu_.ofB[y.function[j]]], y.enter[j], y.leave[j] - y.enter[j]});
    }
    std::stable_sort(edits.begin(), edits.end(),
                     [](const EventEdit& u, const EventEdit& v) { return u.enter < v.enter; });
    if (edits.size() > o_.top) edits.resize(o_.top);
    merge(ra, sums, changed, missed);
    return d;
  }

  template <class Changed, class Missed>
  void merge(const RankAlignment& ra, const RankSums& s, Changed& changed, Missed& missed) {
    std::lock_guard lock(mutex_);
    for (std::size_t f = 0; f < s.a.size(); ++f) {
      if (s.countA[f] + s.countB[f] == 0) continue;
      totals_.a[f] += s.a[f];
      totals_.b[f] += s.b[f];
      totals_.p[f] += s.p[f];
      totals_.countA[f] += s.countA[f];
      totals_.countB[f] += s.countB[f];
      functionRanks_.offer({fu_.names[f], s.a[f], s.b[f], s.p[f], s.countA[f], s.countB[f], ra.rankA, ra.rankB});
    }
    for (const auto& e : changed.items()) changed_.offer(e);
    for (const auto& e : missed.items()) missed_.offer(e);
  }

  // A listed event's function, MPI call number and parallel step (A's).
  void describe(EventDifference& e) const {
    const RankTrace& x = a_.ranks[e.rankA];
    e.function = a_.functions[x.function[e.eventA]].name;
    const auto it = std::lower_bound(x.mpiCalls.begin(), x.mpiCalls.end(), e.eventA);
    if (it != x.mpiCalls.end() && *it == e.eventA) e.mpiIndex = std::uint32_t(it - x.mpiCalls.begin());
    for (std::uint32_t k = 0; k < a_.steps.size(); ++k) {
      const auto& ranks = a_.steps[k].ranks;
      if (e.rankA < ranks.size() && ranks[e.rankA].present() && ranks[e.rankA].firstEvent() <= e.eventA &&
          e.eventA < ranks[e.rankA].lastEvent) {
        e.step = k;
        break;
      }
    }
  }

  // The step of B whose marker on rank `rb` is event `marker`, kNone32 if none. B's markers of
  // each rank are indexed on first need (most lookups use the first rank pair).
  std::uint32_t stepOfB(std::uint32_t rb, std::uint32_t marker) {
    auto& index = markersB_[rb];
    if (index.empty()) {
      for (std::uint32_t k = 0; k < b_.steps.size(); ++k)
        if (rb < b_.steps[k].ranks.size() && b_.steps[k].ranks[rb].present())
          index.emplace_back(b_.steps[k].ranks[rb].marker, k);
      std::sort(index.begin(), index.end());
      if (index.empty()) index.emplace_back(kNone32, kNone32);  // indexed, no step
    }
    const auto it = std::lower_bound(index.begin(), index.end(), std::pair(marker, std::uint32_t{0}));
    return it != index.end() && it->first == marker ? it->second : kNone32;
  }

  std::vector<StepDifference> steps() {
    std::vector<StepDifference> out;
    for (std::uint32_t k = 0; k < a_.steps.size(); ++k) {
      std::uint32_t kb = kNone32;
      for (const RankAlignment& ra : al_.ranks) {
        const auto& sr = a_.steps[k].ranks;
        if (ra.rankA >= sr.size() || !sr[ra.rankA].present()) continue;
        const std::uint32_t mb = ra.toB[sr[ra.rankA].marker];
        if (mb != kNone32) kb = stepOfB(ra.rankB, mb);
        break;
      }
      if (kb == kNone32) continue;
      StepDifference s{k, kb, 0, 0, 0};
      TimeNs a0 = std::numeric_limits<TimeNs>::max(), a1 = std::numeric_limits<TimeNs>::min();
      TimeNs b0 = a0, b1 = a1, p0 = a0, p1 = a1;
      for (const RankAlignment& ra : al_.ranks) {
        const auto& sa = a_.steps[k].ranks;
        if (ra.rankA < sa.size() && sa[ra.rankA].present()) {
          const std::uint32_t m = sa[ra.rankA].marker;
          a0 = std::min(a0, a_.ranks[ra.rankA].enter[m]);
          a1 = std::max(a1, a_.ranks[ra.rankA].leave[m]);
          if (p_) {
            const PredictedRank& pr = *p_->ranks[ra.rankA];
            p0 = std::min(p0, pr.enter(m));
            p1 = std::max(p1, pr.leave(m));
          }
        }
        const auto& sb = b_.steps[kb].ranks;
        if (ra.rankB < sb.size() && sb[ra.rankB].present()) {
          const std::uint32_t m = sb[ra.rankB].marker;
          b0 = std::min(b0, b_.ranks[ra.rankB].enter[m]);
          b1 = std::max(b1, b_.ranks[ra.rankB].leave[m]);
        }
      }
      s.a = a1 >= a0 ? a1 - a0 : 0;
      s.b = b1 >= b0 ? b1 - b0 : 0;
      s.predicted = p_ && p1 >= p0 ? p1 - p0 : 0;
      out.push_back(s);
    }
    return out;
  }

  const Trace& a_;
  const Trace& b_;
  const TraceAlignment& al_;
  const PredictedTimes* p_;
  const CompareOptions& o_;
  FunctionUnion fu_;
  std::mutex mutex_;
  RankSums totals_;
  Largest<EventDifference, decltype(byChange)> changed_;
  Largest<EventDifference, decltype(byMiss)> missed_;
  Largest<FunctionDifference, decltype(byFunctionChange)> functionRanks_;
  std::unordered_map<std::uint32_t, std::vector<std::pair<std::uint32_t, std::uint32_t>>> markersB_;
};

}  // namespace

Comparison compareTraces(const Trace& a, const Trace& b, const TraceAlignment& al, const PredictedTimes* predicted,
                         const CompareOptions& options) {
  if (predicted && predicted->ranks.size() != a.rankCount()) predicted = nullptr;
  return Comparison(Comparer(a, b, al, predicted, options).run());
}

}  // namespace perwiz
