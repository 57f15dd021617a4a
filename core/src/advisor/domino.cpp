// Domino paths (paper §3.1, Fig. 3) and the ranking of single wait zeroings.
//
// Pruning: zeroing a wait removes edges from the DAG, so T can only stay or shrink, and it can
// only shrink if one of the removed edges lies on the critical path (otherwise that path is
// still there with its length). So only the waits on the critical path are simulated; every
// other event's predicted T is exactly the base T. For the waits on the critical path,
// zeroWaitTimes() (execution_dag.h) gives T' from the happened-before DAG in one pass over it
// (the longest path that survives the removal of the call's dependency edges); it bounds the
// search for minima: candidates are tried smallest bound first and the search stops once the
// next bound cannot reach the best found (or the keepBest-th best). The bound is exact, so
// only the candidates that make the result are replayed; a bound equal to T means another
// path of length T survives, so T' = T without a replay (zeroing never lengthens a run).
// The weaker bound T' ≥ T − wait (moving one call earlier by at most its wait moves nothing
// by more) pruned almost nothing on large traces, where single zeroings gain microseconds.
#include "prediction_pool.h"

#include "perwiz/critical_path.h"
#include "perwiz/execution_dag.h"
#include "perwiz/process_group.h"

#include <algorithm>
#include <functional>
#include <cstring>
#include <limits>
#include <map>
#include <queue>
#include <set>

namespace perwiz {
namespace {

using CpWait = CriticalWait;

// The `top` best candidates under a total order (the lower T, then the longer wait, then the
// earlier call), kept in a heap whose top is the worst kept: the same head as sorting every
// candidate, without a list of every call with a wait (32 B per call: advise's peak at 10^7
// events held 134 MB of it; issue #42). The best of a union is the best of its parts' best.
class TopCandidates {
 public:
  explicit TopCandidates(std::size_t top) : top_(top) {}
  static bool better(const WaitCandidate& a, const WaitCandidate& b) {
    if (a.predictedNs != b.predictedNs) return a.predictedNs < b.predictedNs;
    if (a.waitNs != b.waitNs) return a.waitNs > b.waitNs;
    return a.event < b.event;
  }
  void offer(const WaitCandidate& c) {
    if (top_ == 0) return;
    if (out_.size() < top_) {
      out_.push_back(c);
      std::push_heap(out_.begin(), out_.end(), better);
    } else if (better(c, out_.front())) {
      std::pop_heap(out_.begin(), out_.end(), better);
      out_.back() = c;
      std::push_heap(out_.begin(), out_.end(), better);
    }
  }
  std::vector<WaitCandidate> take() {  // best first
    std::sort_heap(out_.begin(), out_.end(), better);
    return std::move(out_);
  }

 private:
  std::size_t top_;
  std::vector<WaitCandidate> out_;
};

// The `top` best calls of `ranks` that wait (TopCandidates' order), but those `excluded`, each
// at T = t0.
std::vector<WaitCandidate> otherWaitsIn(const Replayer& base, RankRange ranks, std::size_t top,
                                        const std::function<bool(const EventRef&)>& excluded, TimeNs t0) {
  const Trace& tr = base.trace();
  TopCandidates best(top);
  for (std::uint32_t r = ranks.first; r < ranks.last; ++r)
    for (std::uint32_t i = 0; i < tr.ranks[r].mpiCalls.size(); ++i) {
      const TimeNs w = base.predicted(r, i).wait;
      if (w <= 0) continue;
      const EventRef e{r, i, false};
      if (!excluded(e)) best.offer({e, w, t0});
    }
  return best.take();
}

class DominoSearch {
 public:
  DominoSearch(AdvisorBase& base, const AdvisorOptions& o) : base_(base), o_(o), t0_(base.predictedTime()) {
    collectWaits();  // the path freed before the DAG's passes
    std::vector<EventRef> events;
    events.reserve(waits_.size());
    for (const CpWait& w : waits_) events.push_back(w.event);
    bound_ = base.zeroWaitTimes(events);
    perRank_.resize(base.rankCount());
    for (std::size_t i = 0; i < waits_.size(); ++i) perRank_[waits_[i].event.rank].push_back(i);
    for (auto& v : perRank_) std::sort(v.begin(), v.end(), [&](std::size_t a, std::size_t b) { return byWait(a, b); });
  }

  // The critical path's waits (message and skew segments with a positive wait), each once.
  void collectWaits() {
    waits_ = base_.criticalWaits();
    for (std::size_t i = 0; i < waits_.size(); ++i) index_.emplace(waits_[i].event, i);
  }

  TimeNs baseT() const { return t0_; }
  const std::vector<CpWait>& waits() const { return waits_; }

  // T if `e`'s wait alone is zeroed: simulated for critical-path waits, T0 for all others.
  TimeNs predicted(const EventRef& e) {
    auto it = index_.find(e);
    if (it == index_.end()) return t0_;
    evaluate({it->second});
    return cache_.at(it->second);
  }

  // Planning: a dry run of the search and of the ranking with every replay replaced by its
  // bound (exact), which finds the candidates they will need; those are then replayed in one
  // parallel batch (progress 0 to kPlanShare), and the real run finds them cached. Without
  // it the search replays one candidate at a time (each rank's minimum decides where the
  // path goes next), and speculative batches waste replays.
  static constexpr double kPlanShare = 0.9;

  void prefetch(bool withRanking, std::size_t top) {
    planning_ = true;
    run();
    if (withRanking) ranking(top);
    planning_ = false;
    leaves_.clear();
    for (std::size_t i : planned_) cache_.erase(i);
    evaluate(planned_, 0, kPlanShare);
    planned_.clear();
  }

  // Evaluates the waits (indexes into waits_) that are not cached yet, in parallel.
  bool evaluate(const std::vector<std::size_t>& which) { return evaluate(which, progress_, progress_); }
  bool evaluate(const std::vector<std::size_t>& which, double progressFrom, double progressTo) {
    std::vector<std::size_t> todo;
    std::vector<std::vector<Hypothesis>> jobs;
    for (std::size_t i : which)
      if (!cache_.count(i)) {
        if (bound_[i] >= t0_) {  // T' <= T always, so T' = T: no replay needed
          cache_[i] = t0_;
          continue;
        }
        todo.push_back(i);
        jobs.push_back({Hypothesis{HypothesisKind::ZeroWait, waits_[i].event, 0}});
      }
    if (todo.empty()) return true;
    if (planning_) {
      for (std::size_t i : todo) cache_[i] = bound_[i];
      planned_.insert(planned_.end(), todo.begin(), todo.end());
      return true;
    }
    std::vector<TimeNs> t;
    const bool ok = base_.predict(jobs, t, "domino paths", progressFrom, progressTo);
    for (std::size_t k = 0; k < todo.size(); ++k)
      if (t[k] >= 0) cache_[todo[k]] = t[k];
    return ok;
  }

  // Branch and bound over `order` (sorted by wait, longest first): the minimum T and every
  // candidate reaching it (in `order`'s order). With keepBest > 1, the keepBest smallest are
  // all evaluated. Candidates are evaluated smallest bound first, in parallel batches.
  TimeNs minimum(const std::vector<std::size_t>& order, std::size_t keepBest, std::vector<std::size_t>* argmin) {
    std::vector<std::size_t> byBound = order;
    std::stable_sort(byBound.begin(), byBound.end(),
                     [&](std::size_t a, std::size_t b) { return bound_[a] < bound_[b]; });
    std::priority_queue<TimeNs> kept;  // the keepBest smallest T's found, largest on top
    std::size_t found = 0;
    TimeNs best = t0_;
    auto take = [&](TimeNs t) {
      ++found;
      best = std::min(best, t);
      kept.push(t);
      if (kept.size() > keepBest) kept.pop();
    };
    // A candidate whose bound exceeds the keepBest-th best found cannot make the result.
    auto bar = [&] { return kept.size() < keepBest ? t0_ : kept.top(); };
    for (std::size_t i = 0; i < byBound.size();) {
      if (base_.cancelled()) break;
      // A batch for every thread, or for all of the keepBest still missing; known values
      // (cached, or T' = T from the bound) are taken on the way and lower the bar at once.
      const std::size_t want = planning_ ? 1 : std::max(base_.batch(), keepBest > found ? keepBest - found : 0);
      std::vector<std::size_t> chunk;
      for (; i < byBound.size(); ++i) {
        const std::size_t c = byBound[i];
        if (bound_[c] > bar()) break;
        if (!cache_.count(c) && bound_[c] >= t0_) cache_[c] = t0_;  // T' <= T always: T' = T
        if (auto it = cache_.find(c); it != cache_.end()) {
          take(it->second);
          continue;
        }
        if (chunk.size() == want) break;
        chunk.push_back(c);
      }
      if (chunk.empty()) break;
      evaluate(chunk);
      for (std::size_t c : chunk)
        if (auto it = cache_.find(c); it != cache_.end()) take(it->second);
    }
    if (argmin) {
      argmin->clear();
      if (best < t0_)
        for (std::size_t c : order) {
          auto it = cache_.find(c);
          if (it != cache_.end() && it->second == best) argmin->push_back(c);
        }
    }
    return best;
  }

  DominoResult run() {
    DominoResult out;
    const std::uint32_t R = base_.rankCount();
    for (std::uint32_t p = 0; p < R && !base_.cancelled(); ++p) {
      progress_ = kPlanShare + (1 - kPlanShare) * (R ? static_cast<double>(p) / R : 0);
      if (o_.progress && !planning_) o_.progress(progress_, "domino paths");
      const std::uint32_t calls = base_.callCount(p);
      Path path;
      path.fromRank = p;
      search(p, calls, kInfinite, path, out.truncated);
    }
    TimeNs best = t0_;
    for (const Leaf& l : leaves_) best = std::min(best, l.weight);
    out.predictedNs = best;
    if (best >= t0_) return out;
    // One path per starting rank (the paper's D_p): among its leaves of minimum weight, the
    // fullest domino (most events), then the one whose zeroed event comes first.
    std::vector<const Leaf*> chosen(R, nullptr);
    // The predicted times of the chosen paths' events, at once (a collective over shares).
    std::vector<EventRef> asked;
    for (const Leaf& l : leaves_)
      if (l.weight == best) {
        asked.push_back(l.path.zeroed);
        asked.insert(asked.end(), l.path.events.begin(), l.path.events.end());
      }
    std::sort(asked.begin(), asked.end());
    asked.erase(std::unique(asked.begin(), asked.end()), asked.end());
    const std::vector<AdvisorBase::Times> times = base_.times(asked);
    auto timesOf = [&](const EventRef& e) {
      return times[static_cast<std::size_t>(std::lower_bound(asked.begin(), asked.end(), e) - asked.begin())];
    };
    auto zeroedTime = [&](const Leaf& l) { return timesOf(l.path.zeroed).enter; };
    for (const Leaf& l : leaves_) {
      if (l.weight != best) continue;
      const Leaf*& c = chosen[l.path.fromRank];
      if (!c || l.path.events.size() > c->path.events.size() ||
          (l.path.events.size() == c->path.events.size() && zeroedTime(l) < zeroedTime(*c)))
        c = &l;
    }
    std::set<std::vector<EventRef>> seen;
    for (const Leaf* l : chosen) {
      if (!l) continue;
      DominoPath d;
      d.events = l->path.events;
      // Cause before effect: by return time (a receive returns after the send it waited for,
      // even when it was posted long before), then by call time.
      std::sort(d.events.begin(), d.events.end(), [&](const EventRef& a, const EventRef& b) {
        const AdvisorBase::Times pa = timesOf(a), pb = timesOf(b);
        if (pa.leave != pb.leave) return pa.leave < pb.leave;
        if (pa.enter != pb.enter) return pa.enter < pb.enter;
        return a < b;
      });
      d.events.erase(std::unique(d.events.begin(), d.events.end()), d.events.end());
      if (!seen.insert(d.events).second) continue;
      d.zeroed = l->path.zeroed;
      d.predictedNs = l->weight;
      d.fromRank = l->path.fromRank;
      out.paths.push_back(std::move(d));
    }
    // Fullest domino first: a rank whose end lies inside another rank's domino (Fig. 4:
    // q inside r's path) yields the same zeroing as a shorter path; listing by starting rank put
    // that fragment before the full path. Stable, so equal sizes keep the starting rank's order.
    std::stable_sort(out.paths.begin(), out.paths.end(), [](const DominoPath& a, const DominoPath& b) {
      return a.events.size() > b.events.size();
    });
    return out;
  }

  std::vector<WaitCandidate> ranking(std::size_t top) {
    std::vector<std::size_t> order(waits_.size());
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return byWait(a, b); });
    minimum(order, std::max<std::size_t>(top, 1), nullptr);
    if (planning_) return {};  // the dry run only needs to know what minimum() replays
    TopCandidates best(top);
    for (const auto& [i, t] : cache_) best.offer({waits_[i].event, waits_[i].wait, t});
    // Every other call with a wait: zeroing it leaves T unchanged (see the file comment).
    for (const WaitCandidate& c : base_.otherWaits(top, waits_)) best.offer(c);
    return best.take();
  }

 private:
  static constexpr TimeNs kInfinite = std::numeric_limits<TimeNs>::max();
  struct Path {
    std::vector<EventRef> events;
    EventRef zeroed;
    std::uint32_t fromRank = 0;
  };
  struct Leaf {
    Path path;
    TimeNs weight;
  };

  bool byWait(std::size_t a, std::size_t b) const {
    if (waits_[a].wait != waits_[b].wait) return waits_[a].wait > waits_[b].wait;
    return waits_[a].event < waits_[b].event;
  }

  void record(const Path& path, TimeNs weight) {
    if (path.events.empty() || weight == kInfinite) return;
    leaves_.push_back({path, weight});
  }

  // ComputingForEachProcs(G, e_{p,i}, T_p) of Fig. 3, with round robin over every minimum.
  void search(std::uint32_t p, std::uint32_t i, TimeNs tp, const Path& path, bool& truncated) {
    if (base_.cancelled()) return;
    if (leaves_.size() >= o_.maxDominoPaths) {
      truncated = true;
      return;
    }
    std::vector<std::size_t> order;
    for (std::size_t c : perRank_[p])
      if (waits_[c].event.index <= i) order.push_back(c);
    std::vector<std::size_t> ms;
    const TimeNs tm = minimum(order, 1, &ms);
    if (ms.empty() || tm > tp) {  // nothing on p improves on what the path already gives
      record(path, tp);
      return;
    }
    for (std::size_t m : ms) {
      const CpWait& w = waits_[m];
      const bool inPath = std::find(path.events.begin(), path.events.end(), w.event) != path.events.end();
      if (w.event.index == i || inPath) {
        record(path, tp);
        continue;
      }
      Path next = path;
      next.events.push_back(w.event);
      next.zeroed = w.event;
      if (!w.hasPartner || w.partner.rank == p) {
        record(next, tm);
        continue;
      }
      next.events.push_back(w.partner);
      search(w.partner.rank, w.partner.index, tm, next, truncated);
      if (truncated) return;
    }
  }

  AdvisorBase& base_;
  const AdvisorOptions& o_;
  TimeNs t0_;
  std::vector<CpWait> waits_;
  std::vector<TimeNs> bound_;  // per wait: T' from the DAG (zeroWaitTimes), T' >= bound_ (equal in fact)
  std::map<EventRef, std::size_t> index_;
  std::vector<std::vector<std::size_t>> perRank_;
  std::map<std::size_t, TimeNs> cache_;
  std::vector<Leaf> leaves_;
  double progress_ = 0;
  bool planning_ = false;
  std::vector<std::size_t> planned_;  // candidates the dry run needed
};

}  // namespace

std::vector<CriticalWait> keepWaiting(const std::vector<CriticalWait>& segments) {
  std::vector<CriticalWait> out;
  std::set<EventRef> seen;
  for (const CriticalWait& w : segments)
    if (w.wait > 0 && seen.insert(w.event).second) out.push_back(w);
  return out;
}

std::vector<CriticalWait> criticalWaits(const CriticalPath& cp, const Replayer& base) {
  std::vector<CriticalWait> all;
  for (const CriticalSegment& s : cp.segments) {
    // A skewed dependency still names a call and its partner; its wait decides (keepWaiting).
    if (s.kind != CriticalSegment::Kind::Message && s.kind != CriticalSegment::Kind::Skew) continue;
    CriticalWait w;
    w.event = EventRef{s.rank, s.index, false};
    w.wait = base.predicted(s.rank, s.index).wait;
    if (w.wait <= 0) continue;  // (keepWaiting drops it too: not kept meanwhile)
    if (s.fromRank != kNone32) {
      w.partner = EventRef{s.fromRank, s.fromIndex, false};
      w.hasPartner = true;
    }
    all.push_back(w);
  }
  return keepWaiting(all);
}

namespace {

// The longest predicted wait of `ranks`, the first in rank and call order among equals (-1:
// no call).
WaitCandidate longestWaitIn(const Replayer& base, RankRange ranks) {
  const Trace& tr = base.trace();
  WaitCandidate best;
  best.waitNs = -1;
  for (std::uint32_t r = ranks.first; r < ranks.last; ++r)
    for (std::uint32_t i = 0; i < tr.ranks[r].mpiCalls.size(); ++i) {
      const TimeNs w = base.predicted(r, i).wait;
      if (w > best.waitNs) best = {EventRef{r, i, false}, w, 0};
    }
  return best;
}

}  // namespace

WaitCandidate longestWait(const Replayer& share, RankRange own, ProcessGroup& group) {
  const WaitCandidate mine = longestWaitIn(share, own);
  std::string bytes(sizeof(TimeNs) + 8, '\0');
  std::memcpy(bytes.data(), &mine.waitNs, sizeof(TimeNs));
  std::memcpy(bytes.data() + sizeof(TimeNs), &mine.event.rank, 4);
  std::memcpy(bytes.data() + sizeof(TimeNs) + 4, &mine.event.index, 4);
  // Processes hold ranks in increasing order: the first of the longest is the serial one.
  WaitCandidate best;
  best.waitNs = -1;
  for (const std::string& b : group.allGather(bytes)) {
    if (b.size() != bytes.size())
      throw GroupError("longest wait: a process sent " + std::to_string(b.size()) + " bytes");
    WaitCandidate c;
    std::memcpy(&c.waitNs, b.data(), sizeof(TimeNs));
    std::memcpy(&c.event.rank, b.data() + sizeof(TimeNs), 4);
    std::memcpy(&c.event.index, b.data() + sizeof(TimeNs) + 4, 4);
    if (c.waitNs > best.waitNs) best = c;
  }
  return best.waitNs > 0 ? best : WaitCandidate{};
}

std::vector<WaitCandidate> otherWaits(const Replayer& share, RankRange own, ProcessGroup& group, std::size_t top,
                                      const std::vector<CriticalWait>& excluded, TimeNs t0) {
  std::set<EventRef> skip;
  for (const CriticalWait& w : excluded) skip.insert(w.event);
  const std::vector<WaitCandidate> mine = otherWaitsIn(
      share, own, top, [&](const EventRef& e) { return skip.count(e) > 0; }, t0);
  std::string bytes(mine.size() * (8 + sizeof(TimeNs)), '\0');
  for (std::size_t k = 0; k < mine.size(); ++k) {
    char* w = bytes.data() + k * (8 + sizeof(TimeNs));
    std::memcpy(w, &mine[k].event.rank, 4);
    std::memcpy(w + 4, &mine[k].event.index, 4);
    std::memcpy(w + 8, &mine[k].waitNs, sizeof(TimeNs));
  }
  TopCandidates best(top);
  for (const std::string& b : group.allGather(bytes)) {
    if (b.size() % (8 + sizeof(TimeNs)) != 0)
      throw GroupError("other waits: a process sent " + std::to_string(b.size()) + " bytes");
    for (std::size_t at = 0; at < b.size(); at += 8 + sizeof(TimeNs)) {
      WaitCandidate c;
      std::memcpy(&c.event.rank, b.data() + at, 4);
      std::memcpy(&c.event.index, b.data() + at + 4, 4);
      std::memcpy(&c.waitNs, b.data() + at + 8, sizeof(TimeNs));
      c.predictedNs = t0;
      best.offer(c);
    }
  }
  return best.take();
}

DominoResult dominoPaths(AdvisorBase& base, const AdvisorOptions& options, std::vector<WaitCandidate>* candidates,
                         WaitCandidate* longestWait, std::uint64_t* predictions) {
  const std::uint64_t before = base.predictions();
  DominoSearch search(base, options);
  search.prefetch(candidates != nullptr, options.topCandidates);
  DominoResult result = search.run();
  if (candidates) *candidates = search.ranking(options.topCandidates);
  if (longestWait) {
    WaitCandidate best = base.longestWait();
    if (best.waitNs > 0) {
      // Simulated outright (not through the pruning) so the comparison rests on a replay.
      std::vector<TimeNs> t;
      base.predict({{Hypothesis{HypothesisKind::ZeroWait, best.event, 0}}}, t, "longest wait", 0, 1);
      best.predictedNs = t.empty() || t[0] < 0 ? base.predictedTime() : t[0];
      *longestWait = best;
    } else {
      *longestWait = WaitCandidate{};
    }
  }
  if (predictions) *predictions += base.predictions() - before;
  return result;
}

DominoResult dominoPaths(const Replayer& base, const AdvisorOptions& options, std::vector<WaitCandidate>* candidates,
                         WaitCandidate* longestWait, std::uint64_t* predictions) {
  ReplayerBase b(base, options);
  return dominoPaths(b, options, candidates, longestWait, predictions);
}

// ---- the base of one process's Replayer ----

std::vector<CriticalWait> ReplayerBase::criticalWaits() {
  return perwiz::criticalWaits(criticalPath(base_, CriticalPathListing::Segments), base_);
}

std::vector<TimeNs> ReplayerBase::zeroWaitTimes(const std::vector<EventRef>& calls) {
  return perwiz::zeroWaitTimes(base_, calls);
}

std::vector<AdvisorBase::Times> ReplayerBase::times(const std::vector<EventRef>& calls) {
  std::vector<Times> out;
  out.reserve(calls.size());
  for (const EventRef& e : calls) {
    const PredictedCall c = base_.predicted(e.rank, e.index);
    out.push_back({c.enter, c.leave});
  }
  return out;
}

WaitCandidate ReplayerBase::longestWait() { return longestWaitIn(base_, RankRange{0, rankCount()}); }

std::vector<WaitCandidate> ReplayerBase::otherWaits(std::size_t top, const std::vector<CriticalWait>& excluded) {
  std::set<EventRef> skip;
  for (const CriticalWait& w : excluded) skip.insert(w.event);
  return otherWaitsIn(
      base_, RankRange{0, rankCount()}, top, [&](const EventRef& e) { return skip.count(e) > 0; },
      base_.predictedTime());
}

}  // namespace perwiz
