// Replays a built Trace as a record stream (for writers and round trips).
//
// The model keeps what matters for analysis, not every record's timestamp: an MpiIrecvRequest
// is emitted at the enter of its Irecv call, an MpiIsendComplete at the enter of the completing
// call, a collective record at the leave of its call. Reading the emitted stream back gives
// the same model (TraceBuilder attaches each record to the innermost open call, and the nesting
// is rebuilt from the stored depths).
//
// The stream keeps the sink contract: each rank's records in non-decreasing time order, for
// everything the builder accepts. Nesting comes from the stored depths (a depth of 255, the
// most a byte holds, may be a saturated one in a model built without the builder's nesting
// limit: there the times decide which open states enclose the event). Where the model itself is not nested in time
// (improper nesting, a rank re-sorted because its clock went backwards), closing states
// stack-wise would put a leave after later records: such a rank's records are buffered and
// stably sorted by time (ties keep the structural order), so writers never see time decrease.
#include "perwiz/trace_sink.h"

#include <algorithm>
#include <limits>
#include <tuple>

namespace perwiz {
namespace {

// Records that live inside a call, emitted in time order before the call (or its children)
// continue. `order` breaks ties the way tracers write them.
struct InnerRecord {
  TimeNs time;
  std::uint32_t event;
  std::uint8_t order;  // 0 irecvRequest, 1 send, 2 isendComplete, 3 recv, 4 collective
  std::uint32_t index; // endpoint or collective index
};

// The deepest nesting a depth byte holds.
constexpr std::uint8_t kDepthCap = std::numeric_limits<std::uint8_t>::max();

// One record of the stream before it reaches the sink (16 bytes; buffered only for a rank
// whose structural order is not time order).
struct StreamRecord {
  enum Kind : std::uint8_t { Enter, Leave, Point, Inner };
  TimeNs time;
  std::uint32_t index;  // Enter/Leave/Point: event; Inner: index into the rank's inner records
  Kind kind;
};

// Emits one rank's records in structural order (enters in event order, each call's inner
// records before its next child, leaves when the nesting says the state is closed) to `out`.
template <class Out>
void walkRank(const Trace& trace, const RankTrace& rt, const std::vector<InnerRecord>& inner,
              const std::vector<std::size_t>& begin, Out&& out) {
  std::vector<std::size_t> cursor(begin.begin(), begin.end() - 1);
  auto emitInner = [&](std::uint32_t e, TimeNs upTo, bool all) {
    while (cursor[e] < begin[e + 1] && (all || inner[cursor[e]].time <= upTo)) {
      const std::size_t i = cursor[e]++;
      out(StreamRecord{inner[i].time, static_cast<std::uint32_t>(i), StreamRecord::Inner});
    }
  };
  std::vector<std::uint32_t> stack;
  auto closeTop = [&]() {
    std::uint32_t top = stack.back();
    stack.pop_back();
    emitInner(top, 0, true);
    out(StreamRecord{rt.leave[top], top, StreamRecord::Leave});
  };
  // An open state `top` still encloses event e by time: it ends after e starts, or at the
  // same instant as a zero-length e.
  auto encloses = [&](std::uint32_t top, std::uint32_t e) {
    return rt.leave[top] > rt.enter[e] ||
           (rt.leave[top] == rt.enter[e] && rt.leave[e] == rt.enter[e]);
  };
  for (std::uint32_t e = 0; e < rt.size(); ++e) {
    while (stack.size() > rt.depth[e]) {
      if (rt.depth[e] == kDepthCap && encloses(stack.back(), e)) break;
      closeTop();
    }
    if (!stack.empty()) emitInner(stack.back(), rt.enter[e], false);
    if (trace.functions[rt.function[e]].kind == EventKind::Point) {
      out(StreamRecord{rt.enter[e], e, StreamRecord::Point});
      emitInner(e, 0, true);  // records attached to a point (none normally)
      continue;
    }
    out(StreamRecord{rt.enter[e], e, StreamRecord::Enter});
    stack.push_back(e);
  }
  while (!stack.empty()) closeTop();
}

// The label of point event e ("" for none).
std::string_view labelOf(const RankTrace& rt, std::uint32_t e) {
  auto label = std::lower_bound(rt.labels.begin(), rt.labels.end(), e,
                                [](const PointLabel& l, std::uint32_t ev) { return l.event < ev; });
  return label != rt.labels.end() && label->event == e ? std::string_view(label->text) : std::string_view();
}

// Walks the records and hands them to `deliver` in time order. Usually the structural order is
// time order and records go straight on; a dry run finds out without buffering anything.
template <class Deliver>
void emitInTimeOrder(const Trace& trace, const RankTrace& rt, const std::vector<InnerRecord>& inner,
                     const std::vector<std::size_t>& begin, Deliver&& deliver) {
  bool inOrder = true;
  TimeNs last = std::numeric_limits<TimeNs>::min();
  walkRank(trace, rt, inner, begin, [&](const StreamRecord& s) {
    if (s.time < last) inOrder = false;
    last = std::max(last, s.time);
  });
  if (inOrder) {
    walkRank(trace, rt, inner, begin, deliver);
    return;
  }
  std::vector<StreamRecord> buffered;
  walkRank(trace, rt, inner, begin, [&](const StreamRecord& s) { buffered.push_back(s); });
  std::stable_sort(buffered.begin(), buffered.end(),
                   [](const StreamRecord& a, const StreamRecord& b) { return a.time < b.time; });
  for (const StreamRecord& s : buffered) deliver(s);
}

}  // namespace

void emitRank(const Trace& trace, std::uint32_t r, TraceSink& sink) {
  const RankTrace& rt = trace.ranks[r];
  std::vector<InnerRecord> inner;
  inner.reserve(rt.messages.size() + rt.collectives.size());
  // A record inside a call is written inside it: at most at the call's leave. (A clock
  // that went backwards can leave an endpoint after its call's clamped leave; written at its
  // own time it would fall outside the call and come back as another call.)
  auto within = [&](TimeNs t, std::uint32_t call) { return std::min(t, rt.leave[call]); };
  for (std::uint32_t i = 0; i < rt.messages.size(); ++i) {
    const MessageEndpoint& m = rt.messages[i];
    // A half-recorded request (post and completion in one call) gets both records in that call.
    if (m.isSend) {
      inner.push_back({within(m.time, m.postEvent), m.postEvent, 1, i});
      if (m.request)
        inner.push_back({m.event != m.postEvent ? rt.enter[m.event] : within(m.time, m.event), m.event, 2, i});
    } else {
      if (m.request)
        inner.push_back({m.event != m.postEvent ? rt.enter[m.postEvent] : within(m.time, m.event), m.postEvent, 0, i});
      inner.push_back({within(m.time, m.event), m.event, 3, i});
    }
  }
  for (std::uint32_t i = 0; i < rt.collectives.size(); ++i)
    inner.push_back({rt.leave[rt.collectives[i].event], rt.collectives[i].event, 4, i});
  std::stable_sort(inner.begin(), inner.end(), [](const InnerRecord& a, const InnerRecord& b) {
    return std::tie(a.event, a.time, a.order) < std::tie(b.event, b.time, b.order);
  });

  // inner records of event e are inner[begin[e] .. begin[e+1])
  std::vector<std::size_t> begin(rt.size() + 1, 0);
  for (const auto& rec : inner) ++begin[rec.event + 1];
  for (std::size_t e = 0; e < rt.size(); ++e) begin[e + 1] += begin[e];

  auto deliver = [&](const StreamRecord& s) {
    switch (s.kind) {
      case StreamRecord::Enter: sink.enter(r, s.time, rt.function[s.index]); return;
      case StreamRecord::Leave: sink.leave(r, s.time, rt.function[s.index]); return;
      case StreamRecord::Point: sink.point(r, s.time, rt.function[s.index], labelOf(rt, s.index)); return;
      case StreamRecord::Inner: break;
    }
    const InnerRecord& rec = inner[s.index];
    switch (rec.order) {
      case 0: sink.irecvRequest(r, rec.time, rt.messages[rec.index].request); break;
      case 1: {
        const auto& m = rt.messages[rec.index];
        sink.send(r, rec.time, m.peer, m.comm, m.tag, m.bytes, m.request);
        break;
      }
      case 2: sink.isendComplete(r, rec.time, rt.messages[rec.index].request); break;
      case 3: {
        const auto& m = rt.messages[rec.index];
        sink.recv(r, rec.time, m.peer, m.comm, m.tag, m.bytes, m.request);
        break;
      }
      default: {
        const auto& c = rt.collectives[rec.index];
        sink.collective(r, rec.time, c.op, c.comm, c.root, c.bytesSent, c.bytesReceived);
      }
    }
  };

  emitInTimeOrder(trace, rt, inner, begin, deliver);
}

void emitThread(const Trace& trace, std::uint32_t thread, TraceSink& sink) {
  const RankTrace& rt = trace.threads[thread].events;
  const std::vector<InnerRecord> inner;  // a thread holds no message or collective records
  const std::vector<std::size_t> begin(rt.size() + 1, 0);
  emitInTimeOrder(trace, rt, inner, begin, [&](const StreamRecord& s) {
    switch (s.kind) {
      case StreamRecord::Enter: sink.threadEnter(thread, s.time, rt.function[s.index]); return;
      case StreamRecord::Leave: sink.threadLeave(thread, s.time, rt.function[s.index]); return;
      case StreamRecord::Point: sink.threadPoint(thread, s.time, rt.function[s.index], labelOf(rt, s.index)); return;
      case StreamRecord::Inner: return;
    }
  });
}

void emitTrace(const Trace& trace, TraceSink& sink) {
  TraceHeader header;
  header.ranks = static_cast<std::uint32_t>(trace.ranks.size());
  for (const auto& r : trace.ranks) header.rankNames.push_back(r.name);
  for (const auto& t : trace.threads) header.threads.push_back({t.events.name, t.rank});
  sink.begin(header);
  for (const auto& f : trace.functions) sink.defineFunction(f);
  for (std::size_t c = 1; c < trace.comms.size(); ++c) sink.defineComm(trace.comms[c]);

  for (std::uint32_t r = 0; r < trace.ranks.size(); ++r) emitRank(trace, r, sink);
  for (std::uint32_t t = 0; t < trace.threads.size(); ++t) emitThread(trace, t, sink);
  sink.end();
}

}  // namespace perwiz
