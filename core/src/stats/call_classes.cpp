// Classes and call sites of MPI calls (Kluge et al. §10: the (p, b) pair from the call's
// arguments and the number of processes taking part; the site from the caller).
#include "call_classes.h"

#include "perwiz/overhead_detection.h"

#include <algorithm>
#include <unordered_map>

namespace perwiz {

bool isCommunicationCall(MpiOp op) {
  switch (callClass(op)) {
    case CallClass::Send:
    case CallClass::Recv:
    case CallClass::SendRecv:
    case CallClass::Isend:
    case CallClass::Irecv:
    case CallClass::Completion:
    case CallClass::Collective:
      return true;
    case CallClass::None:
    case CallClass::Other:
      return false;
  }
  return false;
}

std::string overheadFunctionName(const Function& function) {
  if (function.op != MpiOp::None && function.op != MpiOp::OtherMpi) return std::string(mpiOpName(function.op));
  return function.name;
}

namespace stats_detail {

namespace {

std::uint32_t communicatorSize(const Trace& t, std::uint32_t comm) {
  if (comm >= t.comms.size()) return static_cast<std::uint32_t>(t.rankCount());
  const Communicator& c = t.comms[comm];
  if (c.isSelf) return 1;
  return c.worldRanks.empty() ? static_cast<std::uint32_t>(t.rankCount())
                              : static_cast<std::uint32_t>(c.worldRanks.size());
}

}  // namespace

CallTable describeCalls(const Trace& t) {
  CallTable table;
  // Function index -> name index (kNone32: not a communication call).
  std::vector<std::uint32_t> nameOf(t.functions.size(), kNone32);
  std::unordered_map<std::string, std::uint32_t> nameIds;
  for (std::size_t f = 0; f < t.functions.size(); ++f) {
    const Function& fn = t.functions[f];
    if (fn.kind != EventKind::MpiCall || !isCommunicationCall(fn.op)) continue;
    const std::string name = overheadFunctionName(fn);
    auto [it, added] = nameIds.emplace(name, static_cast<std::uint32_t>(table.names.size()));
    if (added) table.names.push_back(name);
    nameOf[f] = it->second;
  }

  const auto worldSize = static_cast<std::uint32_t>(t.rankCount());
  table.calls.resize(t.rankCount());
  for (std::uint32_t r = 0; r < t.rankCount(); ++r) {
    const RankTrace& rank = t.ranks[r];
    std::vector<CallDescription>& calls = table.calls[r];
    calls.resize(rank.mpiCalls.size());
    std::vector<std::uint32_t> callOf(rank.size(), kNone32);  // event -> MPI call index
    for (std::uint32_t i = 0; i < rank.mpiCalls.size(); ++i) {
      callOf[rank.mpiCalls[i]] = i;
      calls[i].name = nameOf[rank.function[rank.mpiCalls[i]]];
      calls[i].processes = worldSize;  // a call without messages or collective record
    }
    // b: the bytes of every message the call posts or completes (Sendrecv: both; an Isend's
    // Wait completes the Isend's message); p: the size of the message's communicator.
    auto addMessage = [&](std::uint32_t event, const MessageEndpoint& m) {
      if (event == kNone32 || event >= callOf.size() || callOf[event] == kNone32) return;
      CallDescription& d = calls[callOf[event]];
      d.bytes += m.bytes;
      d.processes = communicatorSize(t, m.comm);
    };
    for (const MessageEndpoint& m : rank.messages) {
      addMessage(m.event, m);
      if (m.postEvent != m.event) addMessage(m.postEvent, m);
    }
    // Collectives: the processes taking part and the larger of bytes sent and received (a
    // Bcast's root sends what the others receive).
    for (const CollectiveCall& c : rank.collectives) {
      if (c.event >= callOf.size() || callOf[c.event] == kNone32) continue;
      CallDescription& d = calls[callOf[c.event]];
      d.bytes = std::max(c.bytesSent, c.bytesReceived);
      d.processes = c.instance < t.collectives.size() && t.collectives[c.instance].participants > 0
                        ? t.collectives[c.instance].participants
                        : communicatorSize(t, c.comm);
    }
    // Sites: the innermost user state open around the call. openAt[d] is the last event entered
    // at depth d; an event's ancestors are openAt[0 … depth−1].
    std::vector<std::uint32_t> openAt(256, kNone32);
    for (std::uint32_t e = 0; e < rank.size(); ++e) {
      const std::uint8_t depth = rank.depth[e];
      openAt[depth] = e;
      if (callOf[e] == kNone32) continue;
      for (int d = static_cast<int>(depth) - 1; d >= 0; --d) {
        const std::uint32_t a = openAt[static_cast<std::size_t>(d)];
        if (a != kNone32 && t.functions[rank.function[a]].kind == EventKind::UserState) {
          calls[callOf[e]].region = rank.function[a];
          break;
        }
      }
    }
  }
  return table;
}

}  // namespace stats_detail
}  // namespace perwiz
