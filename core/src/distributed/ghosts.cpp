// Ghost ranks (ghosts.h).
#include "ghosts.h"

#include "../model/collective_matching.h"
#include "../model/message_matching.h"
#include "wire.h"

#include <algorithm>
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

}  // namespace

std::vector<std::uint32_t> ghostCalls(const Trace& trace, std::uint32_t r, RankRange destRanks,
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
    if (!commReaches[c.comm]) continue;
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

std::string exportGhosts(const Trace& trace, RankRange own, RankRange destRanks) {
  wire::Writer w;
  std::vector<std::string> names;  // functions used, by first use
  std::unordered_map<std::uint32_t, std::uint32_t> nameOf;
  wire::Writer body;
  std::uint32_t ranks = 0;
  for (std::uint32_t r = own.first; r < own.last && r < trace.ranks.size(); ++r) {
    const std::vector<std::uint32_t> calls = ghostCalls(trace, r, destRanks);
    if (calls.empty()) continue;
    ++ranks;
    const RankTrace& rt = trace.ranks[r];
    body.u32(r);
    body.u32(static_cast<std::uint32_t>(calls.size()));
    for (std::uint32_t c : calls) {
      const std::uint32_t e = rt.mpiCalls[c];
      const std::uint32_t f = rt.function[e];
      auto [it, fresh] = nameOf.emplace(f, static_cast<std::uint32_t>(names.size()));
      if (fresh) names.push_back(trace.functions[f].name);
      body.i64(rt.enter[e]);
      body.i64(rt.leave[e]);
      body.u32(it->second);
      body.u8(rt.depth[e]);
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
      if (g == kNone32) continue;  // not on a communicator reaching the destination
      if (c.comm >= trace.comms.size() || !reaches(trace.comms[c.comm], destRanks)) continue;
      ++colls;
      cs.u32(g);
      cs.u8(static_cast<std::uint8_t>(c.op));
      cs.u32(c.comm);
      cs.i32(c.root);
      cs.u64(c.bytesSent);
      cs.u64(c.bytesReceived);
    }
    body.u32(colls);
    body.append(cs);
  }
  w.u32(static_cast<std::uint32_t>(names.size()));
  for (std::uint32_t f = 0; f < names.size(); ++f) w.str(names[f]);
  w.u32(ranks);
  w.append(body);
  return w.take();
}

void importGhosts(Trace& trace, RankRange own, const std::vector<std::string>& buffers) {
  std::unordered_map<std::string, std::uint32_t> fnByName;
  for (std::uint32_t f = 0; f < trace.functions.size(); ++f) fnByName.emplace(trace.functions[f].name, f);
  auto functionNamed = [&](const std::string& name) {
    auto [it, fresh] = fnByName.emplace(name, static_cast<std::uint32_t>(trace.functions.size()));
    if (fresh) {
      Function f;
      f.name = name;
      f.kind = EventKind::MpiCall;
      f.op = classifyMpiName(name);
      if (f.op == MpiOp::None) f.op = MpiOp::OtherMpi;
      trace.functions.push_back(std::move(f));
    }
    return it->second;
  };
  for (const std::string& buffer : buffers) {
    if (buffer.empty()) continue;
    wire::Reader in(buffer, "ghost ranks");
    std::vector<std::uint32_t> fn(in.u32());
    for (std::uint32_t& f : fn) f = functionNamed(in.str());
    const std::uint32_t ranks = in.u32();
    for (std::uint32_t k = 0; k < ranks; ++k) {
      const std::uint32_t r = in.u32();
      if (r >= trace.ranks.size() || own.contains(r))
        throw std::runtime_error("ghost ranks: rank " + std::to_string(r) + " is not another process's");
      RankTrace& rt = trace.ranks[r];
      if (!rt.enter.empty()) throw std::runtime_error("ghost ranks: rank " + std::to_string(r) + " arrived twice");
      const std::uint32_t calls = in.u32();
      std::vector<TimeNs> enter(calls), leave(calls);
      rt.function.resize(calls);
      rt.depth.resize(calls);
      rt.mpiCalls.resize(calls);
      for (std::uint32_t i = 0; i < calls; ++i) {
        enter[i] = in.i64();
        leave[i] = in.i64();
        const std::uint32_t f = in.u32();
        if (f >= fn.size()) throw std::runtime_error("ghost ranks: function index out of range");
        rt.function[i] = fn[f];
        rt.depth[i] = in.u8();
        rt.mpiCalls[i] = i;
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
        c.root = in.i32();
        c.bytesSent = in.u64();
        c.bytesReceived = in.u64();
      }
      rt.collectives = colls;
    }
    in.finish();
  }
  // Matches afresh: the local ranks' endpoints towards other processes now find their partners.
  for (RankTrace& rt : trace.ranks)
    for (std::size_t i = 0; i < rt.messages.size(); ++i) rt.messages.setMatch(i, kNone32, kNone32);
  trace.messageStats = matchMessages(trace).stats;
  matchCollectives(trace);
}

}  // namespace perwiz
