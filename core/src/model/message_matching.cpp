#include "perwiz/internal/message_matching.h"

#include <unordered_map>

namespace perwiz {
namespace {

struct ChannelKey {
  std::int32_t sender;
  std::int32_t receiver;
  std::uint32_t comm;
  std::int32_t tag;
  bool operator==(const ChannelKey&) const = default;
};

struct ChannelHash {
  std::size_t operator()(const ChannelKey& k) const {
    std::uint64_t h = static_cast<std::uint32_t>(k.sender);
    h = h * 0x9E3779B97F4A7C15ull ^ static_cast<std::uint32_t>(k.receiver);
    h = h * 0x9E3779B97F4A7C15ull ^ k.comm;
    h = h * 0x9E3779B97F4A7C15ull ^ static_cast<std::uint32_t>(k.tag);
    return static_cast<std::size_t>(h ^ (h >> 29));
  }
};

struct EndpointRef {
  std::uint32_t rank;
  std::uint32_t index;
};

struct Channel {
  std::vector<EndpointRef> sends;
  std::vector<EndpointRef> recvs;
};

}  // namespace

MatchReport matchMessages(Trace& trace) {
  MatchReport report;
  // Channels in order of first appearance, so that diagnostics come out deterministically.
  std::unordered_map<ChannelKey, std::uint32_t, ChannelHash> channelIndex;
  std::vector<Channel> channels;
  std::uint64_t unknownPeer = 0;
  // Ranks in order and each rank's endpoints in posting order: every queue is in posting order.
  for (std::uint32_t r = 0; r < trace.ranks.size(); ++r) {
    auto& msgs = trace.ranks[r].messages;
    for (std::uint32_t i = 0; i < msgs.size(); ++i) {
      msgs.setMatch(i, kNone32, kNone32);
      const MessageEndpoint m = msgs[i];
      if (m.peer < 0 || static_cast<std::size_t>(m.peer) >= trace.ranks.size()) {
        ++unknownPeer;
        continue;
      }
      auto self = static_cast<std::int32_t>(r);
      ChannelKey key = m.isSend ? ChannelKey{self, m.peer, m.comm, m.tag}
                                : ChannelKey{m.peer, self, m.comm, m.tag};
      auto [it, fresh] = channelIndex.try_emplace(key, static_cast<std::uint32_t>(channels.size()));
      if (fresh) channels.emplace_back();
      Channel& c = channels[it->second];
      (m.isSend ? c.sends : c.recvs).push_back({r, i});
    }
  }
  auto describe = [&](const EndpointRef& e) {
    const MessageEndpoint& m = trace.ranks[e.rank].messages[e.index];
    return std::string(m.isSend ? "send" : "receive") + " on rank " + std::to_string(e.rank) +
           (m.isSend ? " to " : " from ") + "rank " + std::to_string(m.peer) + " (tag " +
           std::to_string(m.tag) + ", communicator '" + trace.comms[m.comm].name + "', " +
           std::to_string(m.bytes) + " bytes) at " + std::to_string(m.time) + " ns";
  };
  for (auto& c : channels) {
    std::size_t n = std::min(c.sends.size(), c.recvs.size());
    for (std::size_t i = 0; i < n; ++i) {
      auto& sends = trace.ranks[c.sends[i].rank].messages;
      auto& recvs = trace.ranks[c.recvs[i].rank].messages;
      sends.setMatch(c.sends[i].index, c.recvs[i].rank, c.recvs[i].index);
      recvs.setMatch(c.recvs[i].index, c.sends[i].rank, c.sends[i].index);
      const MessageEndpoint s = sends[c.sends[i].index];
      const MessageEndpoint rcv = recvs[c.recvs[i].index];
      ++report.stats.matched;
      if (rcv.time < s.time) {
        ++report.stats.receiveBeforeSend;
        report.diagnostics.emplace_back(
            "receive-before-send", describe(c.recvs[i]) + " completes before its send (" +
                                       std::to_string(s.time - rcv.time) +
                                       " ns earlier; clock skew?)");
      }
      if (s.bytes != rcv.bytes)
        report.diagnostics.emplace_back("size", describe(c.sends[i]) + " is received as " +
                                                    std::to_string(rcv.bytes) + " bytes");
    }
    for (std::size_t i = n; i < c.sends.size(); ++i) {
      ++report.stats.unmatchedSends;
      report.diagnostics.emplace_back("unmatched", "unmatched " + describe(c.sends[i]));
    }
    for (std::size_t i = n; i < c.recvs.size(); ++i) {
      ++report.stats.unmatchedReceives;
      report.diagnostics.emplace_back("unmatched", "unmatched " + describe(c.recvs[i]));
    }
  }
  // Endpoints with an unknown partner cannot be matched; count them as unmatched.
  if (unknownPeer) {
    for (const auto& rt : trace.ranks)
      for (const auto& m : rt.messages)
        if (m.peer < 0 || static_cast<std::size_t>(m.peer) >= trace.ranks.size())
          (m.isSend ? report.stats.unmatchedSends : report.stats.unmatchedReceives)++;
    report.diagnostics.emplace_back("unmatched", std::to_string(unknownPeer) +
                                                     " message record(s) name a partner that is "
                                                     "not a rank of the trace");
  }
  return report;
}

}  // namespace perwiz
