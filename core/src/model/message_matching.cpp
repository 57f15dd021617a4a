// Message matching (message_matching.h): in parallel per rank when every endpoint finds its
// partner, in one thread (which words every problem in a fixed order) otherwise.
#include "perwiz/internal/message_matching.h"

#include "perwiz/rank_parallel.h"

#include <atomic>
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

// One rank's endpoints by channel: its signatures' channels (peer, communicator, tag and
// direction; signatures differing in size or blocking share one) and its sends grouped by
// channel in posting order, for the receivers to find their k-th send.
struct RankChannels {
  struct Slot {
    std::int32_t peer;
    std::uint32_t comm;
    std::int32_t tag;
    bool isSend;
    std::uint32_t first = 0, count = 0;  // sends: the range of `sends` holding the slot's
  };
  std::vector<Slot> slots;
  std::vector<std::uint32_t> slotOfSig;  // kNone32: the signature's peer is no rank
  std::vector<std::uint32_t> sends;      // send indexes, by slot, each slot in posting order
  std::uint64_t unknownPeer = 0;

  std::uint32_t findSend(std::int32_t peer, std::uint32_t comm, std::int32_t tag) const {
    for (std::uint32_t k = 0; k < slots.size(); ++k)
      if (slots[k].isSend && slots[k].peer == peer && slots[k].comm == comm && slots[k].tag == tag) return k;
    return kNone32;
  }
};

// Phase 1 on rank r (its own table only): clears its matches, groups its sends by channel.
void groupByChannel(MessageTable& msgs, std::size_t ranks, RankChannels& c) {
  c.slotOfSig.assign(msgs.signatures(), kNone32);
  std::unordered_map<ChannelKey, std::uint32_t, ChannelHash> slotOf;
  for (std::uint32_t s = 0; s < msgs.signatures(); ++s) {
    const MessageSignature& sig = msgs.signatureAt(s);
    if (sig.peer < 0 || static_cast<std::size_t>(sig.peer) >= ranks) continue;
    // The direction in the key's sender field: 1 for a send, 0 for a receive.
    const auto [it, fresh] = slotOf.try_emplace(ChannelKey{sig.isSend ? 1 : 0, sig.peer, sig.comm, sig.tag},
                                                static_cast<std::uint32_t>(c.slots.size()));
    if (fresh) c.slots.push_back({sig.peer, sig.comm, sig.tag, sig.isSend});
    c.slotOfSig[s] = it->second;
  }
  for (std::size_t i = 0; i < msgs.size(); ++i) {
    MessageRow& row = msgs.mutableRow(i);
    row.matchIndex = kNone32;
    const std::uint32_t slot = c.slotOfSig[MessageCodec::sigOf(row)];
    if (slot == kNone32)
      ++c.unknownPeer;
    else if (c.slots[slot].isSend)
      ++c.slots[slot].count;
  }
  std::uint32_t next = 0;
  for (RankChannels::Slot& s : c.slots) s.first = next, next += s.count, s.count = 0;
  c.sends.resize(next);
  for (std::size_t i = 0; i < msgs.size(); ++i) {
    const std::uint32_t slot = c.slotOfSig[MessageCodec::sigOf(msgs.row(i))];
    if (slot != kNone32 && c.slots[slot].isSend) {
      RankChannels::Slot& s = c.slots[slot];
      c.sends[s.first + s.count++] = static_cast<std::uint32_t>(i);
    }
  }
}

// Phase 2 on receiving rank r: the k-th receive of each channel takes the sender's k-th send
// (it writes the sender's rows of those sends only, each matched once). False as soon as a
// receive finds no send, completes before its send or differs in size: what only the one-thread
// matching words.
bool matchReceives(Trace& trace, std::uint32_t r, const std::vector<RankChannels>& channels, std::uint64_t& matched,
                   const std::atomic<bool>& failed) {
  MessageTable& recvs = trace.ranks[r].messages;
  const RankChannels& mine = channels[r];
  std::vector<std::uint32_t> senderSlot(mine.slots.size(), kNone32), taken(mine.slots.size(), 0);
  for (std::uint32_t k = 0; k < mine.slots.size(); ++k)
    if (!mine.slots[k].isSend)
      senderSlot[k] = channels[static_cast<std::size_t>(mine.slots[k].peer)].findSend(
          static_cast<std::int32_t>(r), mine.slots[k].comm, mine.slots[k].tag);
  for (std::size_t i = 0; i < recvs.size(); ++i) {
    if ((i & 4095) == 0 && failed.load(std::memory_order_relaxed)) return false;
    MessageRow& row = recvs.mutableRow(i);
    const std::uint32_t slot = mine.slotOfSig[MessageCodec::sigOf(row)];
    if (slot == kNone32 || mine.slots[slot].isSend) continue;
    const auto peer = static_cast<std::uint32_t>(mine.slots[slot].peer);
    const RankChannels& theirs = channels[peer];
    const std::uint32_t from = senderSlot[slot];
    if (from == kNone32 || taken[slot] == theirs.slots[from].count) return false;  // unmatched receive
    const std::uint32_t j = theirs.sends[theirs.slots[from].first + taken[slot]++];
    MessageTable& sends = trace.ranks[peer].messages;
    MessageRow& send = sends.mutableRow(j);
    if (row.time < send.time || recvs.signatureAt(row.sig).bytes != sends.signatureAt(send.sig).bytes) return false;
    row.matchIndex = j;
    send.matchIndex = static_cast<std::uint32_t>(i);
    ++matched;
  }
  return true;
}

}  // namespace

MatchReport matchMessages(Trace& trace) {
  const auto ranks = static_cast<std::uint32_t>(trace.ranks.size());
  std::vector<RankChannels> channels(ranks);
  forEachRank(ranks, trace.eventCount(),
              [&](std::uint32_t r) { groupByChannel(trace.ranks[r].messages, ranks, channels[r]); });
  std::atomic<bool> failed{false};
  std::atomic<std::uint64_t> matched{0};
  bool unknown = false;
  for (const RankChannels& c : channels) unknown = unknown || c.unknownPeer > 0;
  if (!unknown)
    forEachRank(ranks, trace.eventCount(), [&](std::uint32_t r) {
      std::uint64_t n = 0;
      if (!matchReceives(trace, r, channels, n, failed)) failed = true;
      matched += n;
    });
  std::uint64_t sends = 0;
  for (const RankChannels& c : channels) sends += c.sends.size();
  // A problem anywhere (an unknown peer, a receive without its send, a send left over, a
  // receive before its send, a size mismatch): the one-thread matching, which starts afresh.
  if (unknown || failed || matched != sends) {
    channels.clear();
    channels.shrink_to_fit();
    return matchMessagesInOneThread(trace);
  }
  MatchReport report;
  report.stats.matched = matched;
  return report;
}

MatchReport matchMessagesInOneThread(Trace& trace) {
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
