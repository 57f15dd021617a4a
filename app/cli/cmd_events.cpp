// `perwiz-cli events TRACE [--rank R] [--json]`: one line (or JSON object) per communication
// event, with its message partners and the ids of the calls its messages matched.
#include "cli_common.h"
#include "comm_events.h"

#include "perwiz/trace_io.h"

#include <nlohmann/json.hpp>

#include <iostream>
#include <memory>

namespace perwiz::cli {
namespace {

// Keys keep their insertion order: the output is read by people as well as scripts.
using Json = nlohmann::ordered_json;

struct EventsOptions {
  std::string path;
  std::uint32_t rank = 0;
  CLI::Option* rankOption = nullptr;
  bool json = false;
};

Json peerJson(std::int32_t peer) {
  return peer >= 0 ? Json(peer) : Json(nullptr);
}

Json matchJson(const std::optional<std::string>& id) {
  return id ? Json(*id) : Json(nullptr);
}

// partner[i] and match[i] describe the i-th message the call owns (null: unknown/unmatched).
Json eventJson(const Trace& t, const CommEvent& ev) {
  const RankTrace& r = t.ranks[ev.rank];
  Json partners = Json::array(), matches = Json::array();
  Json endpoints = Json::array();
  for (const EndpointView& v : ev.endpoints) {
    const MessageEndpoint& m = v.endpoint;
    if (ownsMessage(v.role)) {
      partners.push_back(peerJson(m.peer));
      matches.push_back(matchJson(v.match));
    }
    endpoints.push_back({{"role", roleName(v.role)},
                         {"peer", peerJson(m.peer)},
                         {"tag", m.tag},
                         {"comm", m.comm},
                         {"bytes", m.bytes},
                         {"time_ns", m.time},
                         {"request", m.request},
                         {"match", matchJson(v.match)}});
  }
  Json j = {{"id", eventId(ev.rank, ev.mpiIndex)},
                      {"function", t.fn(ev.rank, ev.event).name},
                      {"enter_ns", r.enter[ev.event]},
                      {"leave_ns", r.leave[ev.event]},
                      {"bytes", ev.bytes()},
                      {"partner", partners},
                      {"match", matches},
                      {"endpoints", endpoints}};
  if (const CollectiveCall* c = ev.collective ? &*ev.collective : nullptr) {
    j["collective"] = {{"op", std::string(mpiOpName(c->op))},
                       {"comm", c->comm},
                       {"root", peerJson(c->root)},
                       {"bytes_sent", c->bytesSent},
                       {"bytes_received", c->bytesReceived},
                       {"instance", c->instance == kNone32 ? Json(nullptr)
                                                           : Json(c->instance)}};
  }
  return j;
}

// RANK:INDEX FUNCTION enter=NS leave=NS bytes=N partner=P[,P] match=ID[,ID] [extras]
void printEventLine(std::ostream& out, const Trace& t, const CommEvent& ev) {
  const RankTrace& r = t.ranks[ev.rank];
  std::string partners, matches, extras;
  for (const EndpointView& v : ev.endpoints) {
    const std::string peer = v.endpoint.peer >= 0 ? std::to_string(v.endpoint.peer) : "?";
    if (ownsMessage(v.role)) {
      partners += (partners.empty() ? "" : ",") + peer;
      matches += (matches.empty() ? "" : ",") + v.match.value_or("-");
    } else {
      extras += std::string(" ") + roleName(v.role) + "=" + peer;
    }
  }
  out << eventId(ev.rank, ev.mpiIndex) << ' ' << t.fn(ev.rank, ev.event).name
      << " enter=" << r.enter[ev.event] << " leave=" << r.leave[ev.event]
      << " bytes=" << ev.bytes() << " partner=" << (partners.empty() ? "-" : partners)
      << " match=" << (matches.empty() ? "-" : matches) << extras;
  if (const CollectiveCall* c = ev.collective ? &*ev.collective : nullptr) {
    out << " collective=";
    if (c->instance == kNone32) out << '-';
    else out << c->instance;
    if (c->root >= 0) out << " root=" << c->root;
  }
  out << '\n';
}

int runEvents(const EventsOptions& opts) {
  Trace trace = loadReported(opts.path);
  std::uint32_t first = 0, last = static_cast<std::uint32_t>(trace.rankCount());
  if (opts.rankOption->count() > 0) {
    if (opts.rank >= trace.rankCount())
      throw UsageError("--rank " + std::to_string(opts.rank) + " is out of range: " +
                       opts.path + " has " + std::to_string(trace.rankCount()) + " ranks");
    first = opts.rank;
    last = opts.rank + 1;
  }
  // JSON is built rank by rank and streamed, so only one rank's list is held at a time.
  if (opts.json) std::cout << "[";
  bool firstObject = true;
  for (std::uint32_t r = first; r < last; ++r) {
    for (const CommEvent& ev : commEvents(trace, r)) {
      if (opts.json) {
        std::cout << (firstObject ? "\n  " : ",\n  ") << jsonText(eventJson(trace, ev), -1);
        firstObject = false;
      } else {
        printEventLine(std::cout, trace, ev);
      }
    }
  }
  if (opts.json) std::cout << (firstObject ? "]\n" : "\n]\n");
  return kExitOk;
}

}  // namespace

Command addEventsCommand(CLI::App& parent) {
  auto opts = std::make_shared<EventsOptions>();
  CLI::App* app = parent.add_subcommand(
      "events", "List communication events (id RANK:INDEX, times, bytes, partners, matches)");
  app->add_option("TRACE", opts->path, "trace file, OTF2 anchor or archive directory")
      ->required();
  opts->rankOption = app->add_option("--rank", opts->rank, "only this rank (world rank)");
  app->add_flag("--json", opts->json, "print a JSON array instead of text lines");
  return {app, [opts] { return runEvents(*opts); }};
}

}  // namespace perwiz::cli
