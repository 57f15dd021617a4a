// Happened-before DAG with Boost.Graph: acyclicity and the critical path (execution_dag.h).
#include "perwiz/execution_dag.h"

#include "perwiz/internal/replay_program.h"

#include "perwiz/checked_time.h"

#include <boost/graph/compressed_sparse_row_graph.hpp>
#include <boost/graph/exception.hpp>
#include <boost/graph/topological_sort.hpp>

#include <algorithm>
#include <bit>
#include <limits>
#include <set>

namespace perwiz {
namespace {

enum EdgeKind : std::uint8_t { kGap, kLocal, kDep, kMember };

struct EdgeInfo {
  TimeNs weight = 0;
  std::uint32_t aux = 0;  // kGap/kLocal: unit; kDep: dependency index; kMember: unit
  EdgeKind kind = kGap;
};

using Graph = boost::compressed_sparse_row_graph<boost::directedS, boost::no_property, EdgeInfo, boost::no_property,
                                                 std::uint32_t, std::uint32_t>;

}  // namespace

struct ExecutionDag::Impl {
  Graph g;
  std::uint32_t units = 0, nodes = 0, source = 0;
};

ExecutionDag::ExecutionDag(const Replayer& replayer) : d(std::make_unique<Impl>()), replayer_(replayer) {
  const auto& p = internal::ReplayerAccess::program(replayer);
  const auto eff = internal::ReplayerAccess::effective(replayer);
  d->units = p.units;
  d->nodes = p.nodes();
  d->source = 2 * p.units + p.nodes();
  std::vector<std::pair<std::uint32_t, std::uint32_t>> edges;
  std::vector<EdgeInfo> info;
  edges.reserve(3 * std::size_t{p.units} + p.depSrc.size() + p.nodeMembers.size());
  info.reserve(edges.capacity());
  auto add = [&](std::uint32_t from, std::uint32_t to, EdgeInfo e) {
    edges.emplace_back(from, to);
    info.push_back(e);
  };
  auto vertexOf = [&](std::uint32_t src) { return src < p.units ? 2 * src : 2 * p.units + (src - p.units); };
  for (std::uint32_t u = 0; u < p.units; ++u) {
    add(p.isFirst(u) ? d->source : 2 * u - 1, 2 * u, {eff.gap[u], u, kGap});
    add(2 * u, 2 * u + 1, {eff.local[u], u, kLocal});
    if (eff.noWait[u]) continue;
    for (std::uint32_t k = p.depBegin[u]; k < p.depBegin[u + 1]; ++k)
      if ((eff.depFlags[k] & dep::kUse) == dep::kUse)
        add(vertexOf(p.depSrc[k]), 2 * u + 1, {satAdd(eff.depOff[k], eff.local[u]), k, kDep});
  }
  std::vector<TimeNs> weight;  // a queue node's member edges (Program::nodeMemberWeights)
  auto predictedEnter = [&](std::uint32_t u) { return replayer.predictedEnter(u); };
  for (std::uint32_t n = 0; n < p.nodes(); ++n) {
    p.nodeMemberWeights(n, predictedEnter, weight);
    for (std::uint32_t i = p.nodeBegin[n]; i < p.nodeBegin[n + 1]; ++i)
      add(2 * p.nodeMembers[i], 2 * p.units + n, {weight[i - p.nodeBegin[n]], p.nodeMembers[i], kMember});
  }
  d->g = Graph(boost::edges_are_unsorted_multi_pass, edges.begin(), edges.end(), info.begin(), d->source + 1);
}

ExecutionDag::~ExecutionDag() = default;

std::size_t ExecutionDag::vertexCount() const { return boost::num_vertices(d->g); }
std::size_t ExecutionDag::edgeCount() const { return boost::num_edges(d->g); }

bool ExecutionDag::acyclic() const {
  std::vector<std::uint32_t> order;
  try {
    boost::topological_sort(d->g, std::back_inserter(order));
  } catch (const boost::not_a_dag&) {
    return false;
  }
  return true;
}

CriticalPath ExecutionDag::criticalPath() const {
  const auto& p = internal::ReplayerAccess::program(replayer_);
  const Graph& g = d->g;
  std::vector<std::uint32_t> order;
  order.reserve(boost::num_vertices(g));
  boost::topological_sort(g, std::back_inserter(order));  // reverse topological order
  constexpr TimeNs kUnreached = std::numeric_limits<TimeNs>::min();
  std::vector<TimeNs> dist(boost::num_vertices(g), kUnreached);
  using Edge = boost::graph_traits<Graph>::edge_descriptor;
  std::vector<Edge> pred(boost::num_vertices(g));
  std::vector<std::uint8_t> hasPred(boost::num_vertices(g), 0);
  dist[d->source] = 0;
  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    const std::uint32_t v = *it;
    if (dist[v] == kUnreached) continue;
    for (auto [e, end] = boost::out_edges(v, g); e != end; ++e) {
      const std::uint32_t t = static_cast<std::uint32_t>(boost::target(*e, g));
      const TimeNs cand = satAdd(dist[v], g[*e].weight);  // saturates like the replay's sweep
      // On a tie the rank's own work (program order) explains the time, not a message.
      if (cand > dist[t] || (cand == dist[t] && g[*e].kind == kLocal)) {
        dist[t] = cand;
        pred[t] = *e;
        hasPred[t] = 1;
      }
    }
  }
  CriticalPath cp;
  std::uint32_t endVertex = d->source;
  for (std::uint32_t r = 0; r < p.ranks; ++r) {
    const std::uint32_t v = 2 * (p.rankBegin[r + 1] - 1) + 1;
    if (endVertex == d->source || dist[v] > dist[endVertex]) endVertex = v;
  }
  if (endVertex == d->source) return cp;
  cp.length = dist[endVertex];
  auto callIndex = [&](std::uint32_t u) { return p.indexIn(p.rankOf(u), u); };
  std::vector<CriticalSegment> rev;
  for (std::uint32_t v = endVertex; v != d->source && hasPred[v];) {
    const Edge e = pred[v];
    const std::uint32_t from = static_cast<std::uint32_t>(boost::source(e, g));
    const EdgeInfo& info = g[e];
    CriticalSegment s;
    s.begin = dist[from];
    s.end = dist[v];
    switch (info.kind) {
      case kGap:
        s.kind = CriticalSegment::Kind::Computation;
        s.rank = p.rankOf(info.aux);
        s.index = callIndex(info.aux);
        if (s.end > s.begin) rev.push_back(s);
        break;
      case kLocal:
        if (!p.isSentinel(info.aux)) {
          s.kind = CriticalSegment::Kind::Call;
          s.rank = p.rankOf(info.aux);
          s.index = callIndex(info.aux);
          rev.push_back(s);
        }
        break;
      case kDep: {
        const std::uint32_t u = (v - 1) / 2;
        s.kind = CriticalSegment::Kind::Message;
        s.rank = p.rankOf(u);
        s.index = callIndex(u);
        const std::uint32_t src = p.depSrc[info.aux];
        std::uint32_t fromUnit = src;
        if (src >= p.units && hasPred[from] && g[pred[from]].kind == kMember) {
          fromUnit = g[pred[from]].aux;  // the member that arrived last
          // (from its enter: a queue node's time lies after it by what the root's link carries)
          s.begin = dist[boost::source(pred[from], g)];
        }
        if (fromUnit < p.units) {
          s.fromRank = p.rankOf(fromUnit);
          s.fromIndex = callIndex(fromUnit);
        }
        s.kind = waitOrSkew(s.begin, s.end);
        rev.push_back(s);
        break;
      }
      case kMember: break;  // a gather vertex takes the time of its latest member: continue there
    }
    v = from;
  }
  cp.segments.assign(rev.rbegin(), rev.rend());
  std::set<std::string> seen;
  auto note = [&](const std::string& id) {
    if (seen.insert(id).second) cp.callIds.push_back(id);
  };
  for (const CriticalSegment& s : cp.segments) {
    if (s.kind == CriticalSegment::Kind::Computation) continue;
    if ((s.kind == CriticalSegment::Kind::Message || s.kind == CriticalSegment::Kind::Skew) && s.fromRank != kNone32)
      note(std::to_string(s.fromRank) + ":" + std::to_string(s.fromIndex));
    note(s.id());
  }
  return cp;
}

namespace {

// zeroWaitTimes' passes over the DAG (docs/model.md): its vertices in topological order, the
// longest distances to the end, and for every query the longest path jumping over it.
class ZeroWaitPaths {
 public:
  explicit ZeroWaitPaths(const Replayer& replayer)
      : replayer_(replayer), p(internal::ReplayerAccess::program(replayer)),
        eff(internal::ReplayerAccess::effective(replayer)), U(p.units), N(p.nodes()) {}

  // T' for each query unit (sorted by posL, each once), in that order.
  void solve(std::vector<std::uint32_t>& units) {
    // Longest distances from the start: the replay's own results (a gather node is the latest
    // enter of its members).
    nodeDist.assign(N, 0);
    for (std::uint32_t n = 0; n < N; ++n) nodeDist[n] = p.nodeValue(n, [&](std::uint32_t u) { return enter(u); });
    order();
    tails();
    std::sort(units.begin(), units.end(), [&](std::uint32_t a, std::uint32_t b) { return posL[a] < posL[b]; });
    units.erase(std::unique(units.begin(), units.end()), units.end());
    jumps(units);
  }

  // T' = the longer of: through L(u) by its local cost only, and around L(u).
  TimeNs zeroWaitTime(std::uint32_t u) const {
    const std::size_t q = below(posL[u]);  // u's place among the sorted queries
    return std::max(satAdd(satAdd(enter(u), eff.local[u]), tailL(u)), table[0][q]);
  }

 private:
  static constexpr TimeNs kNo = std::numeric_limits<TimeNs>::min();
  static void relax(TimeNs& t, TimeNs v) { t = std::max(t, v); }
  TimeNs enter(std::uint32_t u) const { return replayer_.predictedEnter(u); }  // derived on demand
  bool isLast(std::uint32_t u) const { return p.isSentinel(u); }               // a rank ends with its sentinel
  bool used(std::uint32_t k) const { return (eff.depFlags[k] & dep::kUse) == dep::kUse; }
  // E(u) comes right after L(u − 1) (order()); a rank's first enter before every return (any
  // position below the first return's serves: no query lies there).
  std::uint32_t posE(std::uint32_t u) const { return p.isFirst(u) ? 0 : posL[u - 1] + 1; }
  std::uint32_t posOf(std::uint32_t src) const { return src < U ? posE(src) : posN[src - U]; }
  // The only edge out of L(u) is the gap edge to E(u + 1) (dependencies leave enters and nodes),
  // so L(u)'s longest distance to the end follows from E(u + 1)'s (0 at a rank's end).
  TimeNs tailL(std::uint32_t u) const {
    if (isLast(u)) return 0;
    return tailE[u + 1] == kNo ? kNo : satAdd(eff.gap[u + 1], tailE[u + 1]);
  }
  // Queries at positions before x: a rank query over one bit per position (the query bits,
  // and per 64 positions the count before them; ~0.19 B per position).
  std::size_t below(std::size_t x) const {
    const std::size_t w = x >> 6;
    const std::uint64_t mask = (std::uint64_t{1} << (x & 63)) - 1;
    return queryBefore[w] + static_cast<std::size_t>(std::popcount(queryBits[w] & mask));
  }
  // A queue node's member edges weigh what its root's link carries after each member
  // (Program::nodeMemberWeights); every other node's weigh 0.
  const std::vector<TimeNs>& memberWeights(std::uint32_t n) {
    p.nodeMemberWeights(
        n, [&](std::uint32_t u) { return enter(u); }, weight);
    return weight;
  }

  // A topological order of the DAG's vertices: the order in which a forward sweep fixes them
  // (first enters; then per schedule item a unit's return and its successor's enter, or a
  // node). The sweep only reads fixed values, so every edge points forward in it.
  // Only the returns' and the nodes' positions are kept (posE derives an enter's).
  void order() {
    posL.assign(U, 0);
    posN.assign(N, 0);
    next = p.ranks;  // the ranks' first enters
    for (const std::uint32_t item : p.schedule) {
      if (item < U) {
        posL[item] = next++;
        if (!isLast(item)) ++next;  // E(item + 1)
      } else {
        posN[item - U] = next++;
      }
    }
  }

  // Longest distances to the end (a rank's last return), in reverse of that order: E(u + 1)'s
  // is final before L(u)'s is read (u + 1 comes after u in the schedule).
  void tails() {
    tailE.assign(U, kNo);
    tailN.assign(N, kNo);
    for (std::size_t i = p.schedule.size(); i-- > 0;) {
      const std::uint32_t item = p.schedule[i];
      if (item < U) {
        const std::uint32_t u = item;
        const TimeNs tl = tailL(u);
        if (tl == kNo) continue;
        relax(tailE[u], satAdd(eff.local[u], tl));
        if (eff.noWait[u]) continue;
        for (std::uint32_t k = p.depBegin[u]; k < p.depBegin[u + 1]; ++k) {
          if (!used(k)) continue;
          const std::uint32_t s = p.depSrc[k];
          relax(s < U ? tailE[s] : tailN[s - U], satAdd(satAdd(eff.depOff[k], eff.local[u]), tl));
        }
      } else {
        const std::uint32_t n = item - U;
        if (tailN[n] == kNo) continue;
        const std::vector<TimeNs>& w = memberWeights(n);
        for (std::uint32_t j = p.nodeBegin[n]; j < p.nodeBegin[n + 1]; ++j)
          relax(tailE[p.nodeMembers[j]], satAdd(w[j - p.nodeBegin[n]], tailN[n]));
      }
    }
  }

  // Longest path jumping over each query position: every edge (x, y) raises the maximum of the
  // queries strictly between x and y (a range update of a sparse table, pushed down at the end).
  // below(x) = number of queries before position x.
  void jumps(const std::vector<std::uint32_t>& units) {
    const std::size_t K = units.size();
    const std::size_t words = (std::size_t{next} + 1) / 64 + 1;
    queryBits.assign(words, 0);
    for (std::uint32_t u : units) queryBits[posL[u] >> 6] |= std::uint64_t{1} << (posL[u] & 63);
    queryBefore.assign(words, 0);
    for (std::size_t w = 1; w < words; ++w)
      queryBefore[w] = queryBefore[w - 1] + static_cast<std::uint32_t>(std::popcount(queryBits[w - 1]));
    std::size_t levels = 1;
    while ((std::size_t{1} << levels) <= K) ++levels;
    table.assign(levels, std::vector<TimeNs>(K, kNo));
    auto jump = [&](std::uint32_t from, std::uint32_t to, TimeNs length) {  // to == next: the end
      const std::size_t lo = below(std::size_t{from} + 1);
      const std::size_t hi = to == next ? K : below(to);
      if (lo >= hi) return;
      const std::size_t level = static_cast<std::size_t>(std::bit_width(hi - lo)) - 1;
      relax(table[level][lo], length);
      relax(table[level][hi - (std::size_t{1} << level)], length);
    };
    for (std::uint32_t u = 0; u < U; ++u) {
      const TimeNs tl = tailL(u);
      if (tl == kNo) continue;
      // (The gap edge into E(u) joins neighbouring positions and jumps over nothing.)
      jump(posE(u), posL[u], satAdd(satAdd(enter(u), eff.local[u]), tl));
      if (!eff.noWait[u])
        for (std::uint32_t k = p.depBegin[u]; k < p.depBegin[u + 1]; ++k) {
          if (!used(k)) continue;
          const std::uint32_t s = p.depSrc[k];
          const TimeNs from = s < U ? enter(s) : nodeDist[s - U];
          jump(posOf(s), posL[u], satAdd(satAdd(satAdd(from, eff.depOff[k]), eff.local[u]), tl));
        }
    }
    for (std::uint32_t n = 0; n < N; ++n) {
      if (tailN[n] == kNo) continue;
      const std::vector<TimeNs>& w = memberWeights(n);
      for (std::uint32_t j = p.nodeBegin[n]; j < p.nodeBegin[n + 1]; ++j) {
        const std::uint32_t m = p.nodeMembers[j];
        jump(posE(m), posN[n], satAdd(satAdd(enter(m), w[j - p.nodeBegin[n]]), tailN[n]));
      }
    }
    const std::vector<TimeNs>& leave = replayer_.predictedLeaves();
    for (std::uint32_t r = 0; r < p.ranks; ++r) {
      const std::uint32_t last = p.rankBegin[r + 1] - 1;
      jump(posL[last], next, leave[last]);
    }
    for (std::size_t level = levels - 1; level > 0; --level) {
      const std::size_t half = std::size_t{1} << (level - 1);
      for (std::size_t i = 0; i + (std::size_t{1} << level) <= K; ++i) {
        relax(table[level - 1][i], table[level][i]);
        relax(table[level - 1][i + half], table[level][i]);
      }
    }
  }

  const Replayer& replayer_;
  const ReplayProgram& p;
  const EffectiveProgram eff;
  const std::uint32_t U, N;
  std::vector<TimeNs> nodeDist, weight;
  // Per unit 12 B (its return's position and its enter's distance to the end): an enter's
  // position and a return's distance are derived (posE, tailL).
  std::vector<std::uint32_t> posL, posN;
  std::uint32_t next = 0;
  std::vector<TimeNs> tailE, tailN;
  std::vector<std::uint64_t> queryBits;
  std::vector<std::uint32_t> queryBefore;
  std::vector<std::vector<TimeNs>> table;
};

}  // namespace

std::vector<TimeNs> zeroWaitTimes(const Replayer& replayer, const std::vector<EventRef>& calls) {
  const auto& p = internal::ReplayerAccess::program(replayer);
  std::vector<TimeNs> out(calls.size(), replayer.predictedTime());
  // The replayed units in question, each once.
  std::vector<std::uint32_t> callUnit(calls.size(), kNone32);
  std::vector<std::uint32_t> units;
  for (std::size_t i = 0; i < calls.size(); ++i) {
    const EventRef& e = calls[i];
    if (e.computation || e.rank >= p.ranks || e.index >= p.callCount(e.rank) || p.isNested(e.rank, e.index)) continue;
    callUnit[i] = p.unitOfCall(e.rank, e.index);
    units.push_back(callUnit[i]);
  }
  if (units.empty()) return out;
  ZeroWaitPaths paths(replayer);
  paths.solve(units);
  for (std::size_t i = 0; i < calls.size(); ++i)
    if (callUnit[i] != kNone32) out[i] = paths.zeroWaitTime(callUnit[i]);
  return out;
}

}  // namespace perwiz
