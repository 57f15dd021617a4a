// Ghost ranks (ghosts.h).
#include "ghosts.h"

#include "perwiz/internal/message_matching.h"
#include "perwiz/internal/wire.h"

#include <algorithm>
#include <array>
#include <map>
#include <tuple>
#include <stdexcept>
#include <unordered_map>

namespace perwiz {
namespace {

// Index of `event` in the sorted MPI call list, kNone32 if it is not an MPI call.
std::uint32_t callOfEvent(const std::vector<std::uint32_t>& calls, std::uint32_t event) {
  const auto it = std::lower_bound(calls.begin(), calls.end(), event);
  return it != calls.end() && *it == event ? static_cast<std::uint32_t>(it - calls.begin()) : kNone32;
}

// Whether communicator c has a member in `ranks`.
bool reaches(const Communicator& c, RankRange ranks) {
  if (c.isSelf) return false;  // only the caller itself
  for (std::int32_t w : c.worldRanks)
    if (w >= 0 && ranks.contains(static_cast<std::uint32_t>(w))) return true;
  return false;
}

// Whether a collective call is sent one by one (ghosts.h): every one in cost mode "model", else a
// rooted collective's root and Scan/Exscan's members; the others go into proxies.
bool sentAlone(const CollectiveCall& c, std::uint32_t r, bool everyMember) {
  return everyMember || c.op == MpiOp::Scan || c.op == MpiOp::Exscan || c.root == static_cast<std::int32_t>(r);
}
bool inProxy(const CollectiveCall& c, bool everyMember) {
  return !everyMember && c.op != MpiOp::Scan && c.op != MpiOp::Exscan;
}

}  // namespace

std::vector<std::uint32_t> ghostCalls(const Trace& trace, std::uint32_t r, RankRange destRanks, bool everyMember,
                                      std::vector<std::uint8_t>* topLevel) {
  const RankTrace& rt = trace.ranks[r];
  const std::uint32_t n = static_cast<std::uint32_t>(rt.mpiCalls.size());
  std::vector<std::uint8_t> want(n, 0);
  for (std::size_t i = 0; i < rt.messages.size(); ++i) {
    const MessageEndpoint m = rt.messages[i];
    if (m.peer < 0 || !destRanks.contains(static_cast<std::uint32_t>(m.peer))) continue;
    for (std::uint32_t e : {m.postEvent, m.event})
      if (e != kNone32)
        if (const std::uint32_t c = callOfEvent(rt.mpiCalls, e); c != kNone32) want[c] = 1;
  }
  std::vector<std::int8_t> commReaches(trace.comms.size(), -1);
  for (std::size_t i = 0; i < rt.collectives.size(); ++i) {
    const CollectiveCall c = rt.collectives[i];
    if (c.comm >= trace.comms.size()) continue;
    if (commReaches[c.comm] < 0) commReaches[c.comm] = reaches(trace.comms[c.comm], destRanks) ? 1 : 0;
    if (!commReaches[c.comm] || !sentAlone(c, r, everyMember)) continue;
    if (const std::uint32_t k = callOfEvent(rt.mpiCalls, c.event); k != kNone32) want[k] = 1;
  }
  // Top-level calls, by the replay's rule (replay_program.cpp, buildUnits): a call entered
  // before the previous top-level call returned lies inside it.
  std::vector<std::uint32_t> out;
  TimeNs lastLeave = 0;
  std::uint32_t parent = kNone32;  // the last top-level call
  bool parentTaken = false;
  for (std::uint32_t i = 0; i < n; ++i) {
    const std::uint32_t e = rt.mpiCalls[i];
    const bool nested = parent != kNone32 && rt.enter[e] < lastLeave;
    if (!nested) {
      parent = i;
      parentTaken = false;
      lastLeave = rt.leave[e];
    }
    if (!want[i]) continue;
    if (nested && !parentTaken) {
      out.push_back(parent);
      if (topLevel) topLevel->push_back(1);
      parentTaken = true;
    }
    if (!nested) parentTaken = true;
    out.push_back(i);
    if (topLevel) topLevel->push_back(nested ? 0 : 1);
  }
  return out;
}

bool collectiveInProxy(const CollectiveCall& c, bool everyMember) { return inProxy(c, everyMember); }

std::uint32_t mpiCallOfEvent(const RankTrace& rt, std::uint32_t event) { return callOfEvent(rt.mpiCalls, event); }

std::vector<Proxy> ghostProxies(const Trace& trace, RankRange own, RankRange destRanks, bool everyMember) {
  std::vector<Proxy> out;
  if (everyMember) return out;
  std::vector<std::uint32_t> at(trace.collectives.size(), kNone32);  // instance -> its proxy in `out`
  std::vector<std::int8_t> commReaches(trace.comms.size(), -1);
  for (std::uint32_t r = own.first; r < own.last && r < trace.ranks.size(); ++r) {
    const RankTrace& rt = trace.ranks[r];
    for (std::size_t i = 0; i < rt.collectives.size(); ++i) {
      const CollectiveCall c = rt.collectives[i];
      if (!inProxy(c, everyMember) || c.instance >= trace.collectives.size() || c.comm >= trace.comms.size()) continue;
      if (commReaches[c.comm] < 0) commReaches[c.comm] = reaches(trace.comms[c.comm], destRanks) ? 1 : 0;
      if (!commReaches[c.comm]) continue;
      const std::uint32_t k = callOfEvent(rt.mpiCalls, c.event);
      if (k == kNone32) continue;
      const std::uint32_t e = rt.mpiCalls[k];
      if (at[c.instance] == kNone32) {
        at[c.instance] = static_cast<std::uint32_t>(out.size());
        const CollectiveInstance& inst = trace.collectives[c.instance];
        out.push_back(Proxy{c.instance, inst.comm, inst.sequence, rt.enter[e], rt.function[e]});
      }
      Proxy& p = out[at[c.instance]];
      p.measured = std::max(p.measured, rt.enter[e]);
    }
  }
  // The receiver's proxy rank holds them in time order (a rank's events are).
  std::sort(out.begin(), out.end(), [](const Proxy& a, const Proxy& b) {
    return std::tie(a.measured, a.comm, a.sequence) < std::tie(b.measured, b.comm, b.sequence);
  });
  return out;
}

namespace {
// Per call of `calls` (ascending MPI call indices of rank r): the parallel step holding its
// event, kNone32 outside every step.
std::vector<std::uint32_t> stepsOfCalls(const Trace& trace, std::uint32_t r, const std::vector<std::uint32_t>& calls) {
  std::vector<std::array<std::uint32_t, 3>> spans;  // (first event, end event, step), by first event
  for (std::uint32_t k = 0; k < trace.steps.size(); ++k)
    if (r < trace.steps[k].ranks.size() && trace.steps[k].ranks[r].present())
      spans.push_back({trace.steps[k].ranks[r].firstEvent(), trace.steps[k].ranks[r].lastEvent, k});
  std::sort(spans.begin(), spans.end());
  std::vector<std::uint32_t> out(calls.size(), kNone32);
  const RankTrace& rt = trace.ranks[r];
  for (std::size_t i = 0; i < calls.size(); ++i) {
    const std::uint32_t e = rt.mpiCalls[calls[i]];
    auto it = std::upper_bound(spans.begin(), spans.end(), std::array<std::uint32_t, 3>{e, kNone32, kNone32});
    if (it == spans.begin()) continue;
    --it;
    if ((*it)[0] <= e && e < (*it)[1]) out[i] = (*it)[2];
  }
  return out;
}
}  // namespace

std::string exportGhosts(const Trace& trace, RankRange own, RankRange destRanks, bool everyMember, bool steps) {
  wire::Writer w;
  std::vector<std::string> names;  // functions used, by first use
  std::unordered_map<std::uint32_t, std::uint32_t> nameOf;
  auto nameIndex = [&](std::uint32_t f) {
    auto [it, fresh] = nameOf.emplace(f, static_cast<std::uint32_t>(names.size()));
    if (fresh) names.push_back(trace.functions[f].name);
    return it->second;
  };
  wire::Writer body;
  std::uint32_t ranks = 0;
  for (std::uint32_t r = own.first; r < own.last && r < trace.ranks.size(); ++r) {
    const std::vector<std::uint32_t> calls = ghostCalls(trace, r, destRanks, everyMember);
    if (calls.empty()) continue;
    ++ranks;
    const RankTrace& rt = trace.ranks[r];
    body.u32(r);
    body.u32(static_cast<std::uint32_t>(calls.size()));
    const std::vector<std::uint32_t> step = steps ? stepsOfCalls(trace, r, calls) : std::vector<std::uint32_t>{};
    for (std::size_t ci = 0; ci < calls.size(); ++ci) {
      const std::uint32_t c = calls[ci];
      const std::uint32_t e = rt.mpiCalls[c];
      body.i64(rt.enter[e]);
      body.i64(rt.leave[e]);
      body.u32(nameIndex(rt.function[e]));
      body.u8(rt.depth[e]);
      body.u32(c);  // its index on its rank (the critical path names it by that)
      if (steps) body.u32(step[ci]);
    }
    // The ghost's event index of a call's event: its position in `calls`.
    auto ghostEvent = [&](std::uint32_t event) -> std::uint32_t {
      if (event == kNone32) return kNone32;
      const std::uint32_t c = callOfEvent(rt.mpiCalls, event);
      const auto it = std::lower_bound(calls.begin(), calls.end(), c);
      return c != kNone32 && it != calls.end() && *it == c ? static_cast<std::uint32_t>(it - calls.begin()) : kNone32;
    };
    std::uint32_t endpoints = 0;
    wire::Writer eps;
    for (std::size_t i = 0; i < rt.messages.size(); ++i) {
      const MessageEndpoint m = rt.messages[i];
      if (m.peer < 0 || !destRanks.contains(static_cast<std::uint32_t>(m.peer))) continue;
      ++endpoints;
      eps.i64(m.time);
      eps.u32(ghostEvent(m.event));
      eps.u32(ghostEvent(m.postEvent));
      eps.i32(m.peer);
      eps.i32(m.tag);
      eps.u32(m.comm);
      eps.u64(m.bytes);
      eps.u8(static_cast<std::uint8_t>((m.isSend ? 1 : 0) | (m.nonBlocking() ? 2 : 0)));
    }
    body.u32(endpoints);
    body.append(eps);
    std::uint32_t colls = 0;
    wire::Writer cs;
    for (std::size_t i = 0; i < rt.collectives.size(); ++i) {
      const CollectiveCall c = rt.collectives[i];
      const std::uint32_t g = ghostEvent(c.event);
      if (g == kNone32 || !sentAlone(c, r, everyMember)) continue;  // in a proxy, or not for the destination
      if (c.comm >= trace.comms.size() || !reaches(trace.comms[c.comm], destRanks)) continue;
      if (c.instance >= trace.collectives.size()) continue;
      ++colls;
      cs.u32(g);
      cs.u8(static_cast<std::uint8_t>(c.op));
      cs.u32(c.comm);
      cs.u32(trace.collectives[c.instance].sequence);
      cs.i32(c.root);
      cs.u64(c.bytesSent);
      cs.u64(c.bytesReceived);
    }
    body.u32(colls);
    body.append(cs);
  }
  const std::vector<Proxy> px = ghostProxies(trace, own, destRanks, everyMember);
  wire::Writer proxies;
  proxies.u32(static_cast<std::uint32_t>(px.size()));
  for (const Proxy& p : px) {
    proxies.i64(p.measured);
    proxies.u32(nameIndex(p.function));
    proxies.u32(p.comm);
    proxies.u32(p.sequence);
  }
  w.u32(static_cast<std::uint32_t>(names.size()));
  for (std::uint32_t f = 0; f < names.size(); ++f) w.str(names[f]);
  w.u32(ranks);
  w.append(body);
  w.append(proxies);
  return w.take();
}

namespace {

// importGhosts' state: the trace it fills, the local instances, the merged proxies.
class GhostImporter {
 public:
  GhostImporter(Trace& trace, RankRange own, bool steps, std::size_t processes)
      : trace_(trace), own_(own), steps_(steps), R_(static_cast<std::uint32_t>(trace.ranks.size())) {
    // The local instances by (communicator, sequence): the local ranks' matching stands.
    for (std::uint32_t i = 0; i < trace.collectives.size(); ++i)
      instanceOf_.emplace(std::make_pair(trace.collectives[i].comm, trace.collectives[i].sequence), i);
    for (std::uint32_t f = 0; f < trace.functions.size(); ++f) fnByName_.emplace(trace.functions[f].name, f);
    result_.proxyCall.assign(processes, {});
    result_.callIndex.assign(R_, {});
  }

  // One process's buffer: its function names, its ranks that reach here, its proxies.
  void read(std::uint32_t q, const std::string& buffer) {
    wire::Reader in(buffer, "ghost ranks");
    std::vector<std::uint32_t> fn(in.u32());
    for (std::uint32_t& f : fn) f = functionNamed(in.str());
    for (std::uint32_t k = in.u32(); k > 0; --k) readRank(in, fn);
    readProxies(in, fn, q);
    in.finish();
  }

  ImportedGhosts finish() {
    addProxyRank();
    // Matches afresh: the local ranks' endpoints towards other processes now find their partners.
    for (RankTrace& rt : trace_.ranks)
      for (std::size_t i = 0; i < rt.messages.size(); ++i) rt.messages.setMatch(i, kNone32, kNone32);
    trace_.messageStats = matchMessages(trace_).stats;
    for (RankTrace& rt : trace_.ranks) rt.messages.seal();
    return std::move(result_);
  }

 private:
  std::uint32_t instance(std::uint32_t comm, std::uint32_t seq) const {
    const auto it = instanceOf_.find({comm, seq});
    return it == instanceOf_.end() ? kNone32 : it->second;  // no local member: nothing waits for it here
  }

  std::uint32_t functionNamed(const std::string& name) {
    auto [it, fresh] = fnByName_.emplace(name, static_cast<std::uint32_t>(trace_.functions.size()));
    if (fresh) {
      Function f;
      f.name = name;
      f.kind = EventKind::MpiCall;
      f.op = classifyMpiName(name);
      if (f.op == MpiOp::None) f.op = MpiOp::OtherMpi;
      trace_.functions.push_back(std::move(f));
    }
    return it->second;
  }

  // A ghost rank's span of step k: from its first call in k to after its last (its calls keep
  // their rank's order, and a step's events are contiguous on a rank).
  void addToStep(std::uint32_t r, std::uint32_t call, std::uint32_t k) {
    if (k == kNone32) return;
    if (k > (1u << 30)) throw std::runtime_error("ghost ranks: step index out of range");
    if (trace_.steps.size() <= k) trace_.steps.resize(k + 1);
    auto& spans = trace_.steps[k].ranks;
    if (spans.size() < R_) spans.resize(R_);
    StepSpan& s = spans[r];
    if (!s.present()) s.marker = call;
    s.lastEvent = call + 1;
  }

  void readRank(wire::Reader& in, const std::vector<std::uint32_t>& fn) {
    const std::uint32_t r = in.u32();
    if (r >= R_ || own_.contains(r))
      throw std::runtime_error("ghost ranks: rank " + std::to_string(r) + " is not another process's");
    RankTrace& rt = trace_.ranks[r];
    if (!rt.enter.empty()) throw std::runtime_error("ghost ranks: rank " + std::to_string(r) + " arrived twice");
    const std::uint32_t calls = in.u32();
    std::vector<TimeNs> enter(calls), leave(calls);
    rt.function.resize(calls);
    rt.depth.resize(calls);
    rt.mpiCalls.resize(calls);
    std::vector<std::uint32_t>& index = result_.callIndex[r];
    index.resize(calls);
    for (std::uint32_t i = 0; i < calls; ++i) {
      enter[i] = in.i64();
      leave[i] = in.i64();
      const std::uint32_t f = in.u32();
      if (f >= fn.size()) throw std::runtime_error("ghost ranks: function index out of range");
      rt.function[i] = fn[f];
      rt.depth[i] = in.u8();
      rt.mpiCalls[i] = i;
      index[i] = in.u32();
      if (i > 0 && index[i] <= index[i - 1]) throw std::runtime_error("ghost ranks: call indices out of order");
      if (steps_) addToStep(r, i, in.u32());
    }
    rt.enter = enter;
    rt.leave = leave;
    auto event = [&](std::uint32_t e) {
      if (e != kNone32 && e >= calls) throw std::runtime_error("ghost ranks: event index out of range");
      return e;
    };
    std::vector<MessageEndpoint> msgs(in.u32());
    for (std::size_t i = 0; i < msgs.size(); ++i) {
      MessageEndpoint& m = msgs[i];
      m.time = in.i64();
      m.event = event(in.u32());
      m.postEvent = event(in.u32());
      m.peer = in.i32();
      m.tag = in.i32();
      m.comm = in.u32();
      m.bytes = in.u64();
      const std::uint8_t flags = in.u8();
      m.isSend = flags & 1;
      m.request = (flags & 2) ? i + 1 : 0;
    }
    rt.messages = msgs;
    std::vector<CollectiveCall> colls(in.u32());
    for (CollectiveCall& c : colls) {
      c.event = event(in.u32());
      c.op = static_cast<MpiOp>(in.u8());
      c.comm = in.u32();
      const std::uint32_t seq = in.u32();
      c.root = in.i32();
      c.bytesSent = in.u64();
      c.bytesReceived = in.u64();
      c.instance = instance(c.comm, seq);
    }
    rt.collectives = colls;
  }

  // The proxies of every process, merged by (communicator, sequence): the latest measured enter
  // and a function of one of them (into the one proxy rank, addProxyRank).
  void readProxies(wire::Reader& in, const std::vector<std::uint32_t>& fn, std::uint32_t q) {
    const std::uint32_t proxies = in.u32();
    result_.proxyCall[q].reserve(proxies);
    for (std::uint32_t i = 0; i < proxies; ++i) {
      const TimeNs measured = in.i64();
      const std::uint32_t f = in.u32();
      if (f >= fn.size()) throw std::runtime_error("ghost ranks: function index out of range");
      const std::uint32_t comm = in.u32(), seq = in.u32();
      auto [it, fresh] = mergedOf_.emplace(std::make_pair(comm, seq), static_cast<std::uint32_t>(merged_.size()));
      if (fresh) merged_.push_back({measured, fn[f], comm, seq});
      Merged& m = merged_[it->second];
      m.measured = std::max(m.measured, measured);
      result_.proxyCall[q].push_back(it->second);  // renumbered to the call index in addProxyRank
    }
  }

  // The proxy rank: one call per instance, in time order (then communicator and sequence).
  void addProxyRank() {
    if (merged_.empty()) return;
    std::vector<std::uint32_t> order(merged_.size());
    for (std::uint32_t i = 0; i < order.size(); ++i) order[i] = i;
    std::sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) {
      return std::tie(merged_[a].measured, merged_[a].comm, merged_[a].sequence) <
             std::tie(merged_[b].measured, merged_[b].comm, merged_[b].sequence);
    });
    std::vector<std::uint32_t> callOf(merged_.size());
    RankTrace rt;
    rt.name = "proxies of the other processes";
    const std::uint32_t n = static_cast<std::uint32_t>(merged_.size());
    std::vector<TimeNs> times(n);
    std::vector<CollectiveCall> colls(n);
    rt.function.resize(n);
    rt.depth.assign(n, 0);
    rt.mpiCalls.resize(n);
    for (std::uint32_t i = 0; i < n; ++i) {
      const Merged& m = merged_[order[i]];
      callOf[order[i]] = i;
      times[i] = m.measured;
      rt.function[i] = m.function;
      rt.mpiCalls[i] = i;
      CollectiveCall& c = colls[i];
      c.event = i;
      c.comm = m.comm;
      c.instance = instance(m.comm, m.sequence);
      c.op = c.instance != kNone32 ? trace_.collectives[c.instance].op : MpiOp::OtherMpi;
    }
    rt.enter = times;
    rt.leave = times;
    rt.collectives = colls;
    for (auto& calls : result_.proxyCall)
      for (std::uint32_t& c : calls) c = callOf[c];
    result_.proxyRank = static_cast<std::uint32_t>(trace_.ranks.size());
    trace_.ranks.push_back(std::move(rt));
  }

  struct Merged {
    TimeNs measured;
    std::uint32_t function, comm, sequence;
  };
  Trace& trace_;
  RankRange own_;
  bool steps_;
  std::uint32_t R_;
  std::map<std::pair<std::uint32_t, std::uint32_t>, std::uint32_t> instanceOf_, mergedOf_;
  std::unordered_map<std::string, std::uint32_t> fnByName_;
  std::vector<Merged> merged_;
  ImportedGhosts result_;
};

}  // namespace

ImportedGhosts importGhosts(Trace& trace, RankRange own, const std::vector<std::string>& buffers, bool steps) {
  GhostImporter importer(trace, own, steps, buffers.size());
  for (std::uint32_t q = 0; q < buffers.size(); ++q)
    if (!buffers[q].empty()) importer.read(q, buffers[q]);
  return importer.finish();
}

}  // namespace perwiz
