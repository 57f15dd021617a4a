// Replays a built Trace as a record stream (for writers and round trips).
//
// The model keeps what matters for analysis, not every record's timestamp: an MpiIrecvRequest
// is emitted at the enter of its Irecv call, an MpiIsendComplete at the enter of the completing
// call, a collective record at the leave of its call. Reading the emitted stream back gives
// the same model (TraceBuilder attaches each record to the innermost open call, and the nesting
// is rebuilt from the stored depths).
#include "perwiz/trace_sink.h"

#include <algorithm>
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

}  // namespace

void emitTrace(const Trace& trace, TraceSink& sink) {
  TraceHeader header;
  header.ranks = static_cast<std::uint32_t>(trace.ranks.size());
  for (const auto& r : trace.ranks) header.rankNames.push_back(r.name);
  sink.begin(header);
  for (const auto& f : trace.functions) sink.defineFunction(f);
  for (std::size_t c = 1; c < trace.comms.size(); ++c) sink.defineComm(trace.comms[c]);

  for (std::uint32_t r = 0; r < trace.ranks.size(); ++r) {
    const RankTrace& rt = trace.ranks[r];
    std::vector<InnerRecord> inner;
    inner.reserve(rt.messages.size() + rt.collectives.size());
    for (std::uint32_t i = 0; i < rt.messages.size(); ++i) {
      const MessageEndpoint& m = rt.messages[i];
      if (m.isSend) {
        inner.push_back({m.time, m.postEvent, 1, i});
        if (m.request && m.event != m.postEvent)
          inner.push_back({rt.enter[m.event], m.event, 2, i});
      } else {
        if (m.request && m.event != m.postEvent)
          inner.push_back({rt.enter[m.postEvent], m.postEvent, 0, i});
        inner.push_back({m.time, m.event, 3, i});
      }
    }
    for (std::uint32_t i = 0; i < rt.collectives.size(); ++i)
      inner.push_back({rt.leave[rt.collectives[i].event], rt.collectives[i].event, 4, i});
    std::stable_sort(inner.begin(), inner.end(), [](const InnerRecord& a, const InnerRecord& b) {
      return std::tie(a.event, a.time, a.order) < std::tie(b.event, b.time, b.order);
    });

    std::vector<std::size_t> cursor(rt.size(), 0);
    // inner records of event e are inner[begin[e] .. begin[e+1])
    std::vector<std::size_t> begin(rt.size() + 1, 0);
    for (const auto& rec : inner) ++begin[rec.event + 1];
    for (std::size_t e = 0; e < rt.size(); ++e) begin[e + 1] += begin[e];
    for (std::size_t e = 0; e < rt.size(); ++e) cursor[e] = begin[e];

    auto emitInner = [&](std::uint32_t e, TimeNs upTo, bool all) {
      while (cursor[e] < begin[e + 1] && (all || inner[cursor[e]].time <= upTo)) {
        const InnerRecord& rec = inner[cursor[e]++];
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
      }
    };

    std::vector<std::uint32_t> stack;
    auto closeTop = [&]() {
      std::uint32_t top = stack.back();
      stack.pop_back();
      emitInner(top, 0, true);
      sink.leave(r, rt.leave[top], rt.function[top]);
    };
    for (std::uint32_t e = 0; e < rt.size(); ++e) {
      while (stack.size() > rt.depth[e]) closeTop();
      if (!stack.empty()) emitInner(stack.back(), rt.enter[e], false);
      if (trace.functions[rt.function[e]].kind == EventKind::Point) {
        auto label = std::lower_bound(rt.labels.begin(), rt.labels.end(), e,
                                      [](const PointLabel& l, std::uint32_t ev) { return l.event < ev; });
        std::string_view text = label != rt.labels.end() && label->event == e
                                    ? std::string_view(label->text) : std::string_view();
        sink.point(r, rt.enter[e], rt.function[e], text);
        emitInner(e, 0, true);  // records attached to a point (none normally)
        continue;
      }
      sink.enter(r, rt.enter[e], rt.function[e]);
      stack.push_back(e);
    }
    while (!stack.empty()) closeTop();
  }
  sink.end();
}

}  // namespace perwiz
