#include "comm_events.h"

#include <algorithm>

namespace perwiz::cli {

const char* roleName(EndpointRole role) {
  switch (role) {
    case EndpointRole::Send: return "send";
    case EndpointRole::Isend: return "isend";
    case EndpointRole::SendComplete: return "send-complete";
    case EndpointRole::Recv: return "recv";
    case EndpointRole::Irecv: return "irecv";
    case EndpointRole::RecvComplete: return "recv-complete";
  }
  return "?";
}

bool ownsMessage(EndpointRole role) {
  return role == EndpointRole::Send || role == EndpointRole::Isend ||
         role == EndpointRole::Recv || role == EndpointRole::RecvComplete;
}

std::uint64_t CommEvent::bytes() const {
  std::uint64_t sum = 0;
  for (const EndpointView& v : endpoints)
    if (ownsMessage(v.role)) sum += v.endpoint.bytes;
  if (collective) sum += collective->bytesSent + collective->bytesReceived;
  return sum;
}

std::uint32_t owningEvent(const MessageEndpoint& m) {
  if (m.isSend) return m.postEvent != kNone32 ? m.postEvent : m.event;
  return m.event != kNone32 ? m.event : m.postEvent;
}

std::optional<std::string> callId(const Trace& trace, std::uint32_t rank, std::uint32_t event) {
  if (rank >= trace.rankCount() || event == kNone32) return std::nullopt;
  const auto& calls = trace.ranks[rank].mpiCalls;
  auto it = std::lower_bound(calls.begin(), calls.end(), event);
  if (it == calls.end() || *it != event) return std::nullopt;
  return eventId(rank, static_cast<std::uint32_t>(it - calls.begin()));
}

namespace {

struct Touch {
  std::uint32_t event;
  std::uint32_t message;
  EndpointRole role;
};

// Every (call event, endpoint) pair, sorted by event so that one sweep over mpiCalls finds them.
std::vector<Touch> touches(const RankTrace& r) {
  std::vector<Touch> out;
  out.reserve(r.messages.size() * 2);
  for (std::uint32_t i = 0; i < r.messages.size(); ++i) {
    const MessageEndpoint& m = r.messages[i];
    const bool posted = m.postEvent != kNone32 && m.postEvent != m.event;
    if (m.isSend) {
      if (posted) {
        out.push_back({m.postEvent, i, EndpointRole::Isend});
        if (m.event != kNone32) out.push_back({m.event, i, EndpointRole::SendComplete});
      } else if (m.event != kNone32) {
        out.push_back({m.event, i, m.request != 0 ? EndpointRole::Isend : EndpointRole::Send});
      }
    } else {
      if (posted) {
        out.push_back({m.postEvent, i, EndpointRole::Irecv});
        if (m.event != kNone32) out.push_back({m.event, i, EndpointRole::RecvComplete});
      } else if (m.event != kNone32) {
        out.push_back({m.event, i, EndpointRole::Recv});
      }
    }
  }
  std::stable_sort(out.begin(), out.end(),
                   [](const Touch& a, const Touch& b) { return a.event < b.event; });
  return out;
}

bool listedClass(MpiOp op) {
  CallClass c = callClass(op);
  return c != CallClass::None && c != CallClass::Other;
}

}  // namespace

std::vector<CommEvent> commEvents(const Trace& trace, std::uint32_t rank) {
  const RankTrace& r = trace.ranks[rank];
  const std::vector<Touch> byEvent = touches(r);
  std::vector<CommEvent> out;
  std::size_t t = 0, c = 0;  // cursors into byEvent and r.collectives (both in event order)
  for (std::uint32_t idx = 0; idx < r.mpiCalls.size(); ++idx) {
    const std::uint32_t e = r.mpiCalls[idx];
    CommEvent ev;
    ev.rank = rank;
    ev.mpiIndex = idx;
    ev.event = e;
    while (t < byEvent.size() && byEvent[t].event < e) ++t;
    for (; t < byEvent.size() && byEvent[t].event == e; ++t) {
      const MessageEndpoint& m = r.messages[byEvent[t].message];
      EndpointView v{m, byEvent[t].role, std::nullopt};
      if (m.matched()) {
        const MessageEndpoint& other = trace.ranks[m.matchRank].messages[m.matchIndex];
        v.match = callId(trace, m.matchRank, owningEvent(other));
      }
      ev.endpoints.push_back(v);
    }
    while (c < r.collectives.size() && r.collectives[c].event < e) ++c;
    if (c < r.collectives.size() && r.collectives[c].event == e) ev.collective = r.collectives[c];
    if (ev.endpoints.empty() && !ev.collective && !listedClass(trace.fn(rank, e).op)) continue;
    out.push_back(std::move(ev));
  }
  return out;
}

}  // namespace perwiz::cli
