// Messages of a replay program: one per send and unmatched endpoint, the dependencies each
// adds under the network model, and the links (roles, sizes, steps) that price and name them.
#include "program_builder.h"

#include "perwiz/checked_time.h"
#include "perwiz/release.h"

#include <functional>
#include <numeric>
#include <stdexcept>
#include <tuple>

namespace perwiz {

// Messages: one per send and per unmatched endpoint (a matched receive shares its send's),
// numbered rank after rank in endpoint order: per endpoint the units that post and complete
// it and the message it owns. With `sizes` each message's size (at construction); with
// `steps` each message's parallel step (the links: at construction in cost mode "model",
// else on first need, Program::prepareLinks; the numbering is the same).
void ProgramBuilder::buildMessages(bool sizes, bool steps) {
  const std::uint32_t R = p_.ranks;
  std::vector<std::uint32_t> base(R + 1, 0);
  for (std::uint32_t r = 0; r < R; ++r) {
    const std::uint64_t next = std::uint64_t{base[r]} + trace_.ranks[r].messages.size();
    if (next >= kNone32)
      throw std::length_error("the trace has more than 2^32 - 2 message endpoints: too many for one replay");
    base[r + 1] = static_cast<std::uint32_t>(next);
  }
  std::vector<std::uint32_t> own(R + 1, 0);
  eachRank(R, [&](std::uint32_t r) {
    std::uint32_t n = 0;
    const MessageTable& msgs = trace_.ranks[r].messages;
    MessageTable::Reader read(msgs);
    for (std::size_t j = 0; j < msgs.size(); ++j) n += ownsMessage(read[j]) ? 1 : 0;
    own[r + 1] = n;
  });
  std::partial_sum(own.begin(), own.end(), own.begin());
  if (sizes) p_.messageBytes.assign(own[R], 0);
  if (steps) p_.messages.assign(own[R], ReplayMessage{});
  std::vector<std::vector<std::tuple<std::uint32_t, std::uint32_t, std::uint32_t>>> spans(R);
  for (std::uint32_t k = 0; k < (steps ? trace_.steps.size() : 0); ++k)
    for (std::uint32_t r = 0; r < R && r < trace_.steps[k].ranks.size(); ++r) {
      const StepSpan& s = trace_.steps[k].ranks[r];
      if (s.present()) spans[r].emplace_back(s.firstEvent(), s.lastEvent, k);
    }
  for (auto& v : spans) std::sort(v.begin(), v.end());

  // Per rank, in parallel: the units that post and complete each endpoint, and for the
  // endpoints that own a message its id, size and parallel step (of the send's post call).
  std::vector<std::uint32_t> postUnit(base[R]), doneUnit(base[R]), msgId(base[R], kNone32);
  eachRank(R, [&](std::uint32_t r) {
    const auto& msgs = trace_.ranks[r].messages;
    MessageTable::Reader read(msgs);
    const auto& sp = spans[r];
    std::uint32_t postHint = 0, next = own[r];
    std::size_t span = 0;  // the last span whose first event is at or before the post
    for (std::uint32_t j = 0; j < msgs.size(); ++j) {
      const MessageEndpoint& m = read[j];
      std::tie(postUnit[base[r] + j], doneUnit[base[r] + j]) = endpointUnits(r, m, postHint);
      if (!ownsMessage(m)) continue;
      const std::uint32_t id = next++;
      msgId[base[r] + j] = id;
      if (sizes) p_.messageBytes.set(id, static_cast<TimeNs>(m.bytes));
      if (!steps || !m.isSend || sp.empty() || m.postEvent == kNone32) continue;
      if (span >= sp.size() || std::get<0>(sp[span]) > m.postEvent) span = 0;
      while (span + 1 < sp.size() && std::get<0>(sp[span + 1]) <= m.postEvent) ++span;
      if (std::get<0>(sp[span]) <= m.postEvent && m.postEvent < std::get<1>(sp[span]))
        p_.messages[id].step = std::get<2>(sp[span]);
    }
  });
  msgBase_ = std::move(base);
  msgId_ = std::move(msgId);
  postUnit_ = std::move(postUnit);
  doneUnit_ = std::move(doneUnit);
}

// The network model's delays of a message size, cached: sizes repeat (a direct-mapped table
// per thread; the model's calls are virtual and evaluate its cost lines).
class ProgramBuilder::Delays {
 public:
  explicit Delays(const NetworkModel& m) : m_(m) {}
  struct Entry {
    std::uint64_t bytes = ~std::uint64_t{0};
    TimeNs blockingSend = 0, isendComplete = 0, blockingRecv = 0, irecvComplete = 0;
    bool sync = false;
  };
  const Entry& of(std::uint64_t bytes) {
    Entry& e = table_[(bytes ^ (bytes >> 17)) % kSize];
    if (e.bytes != bytes) {
      e.bytes = bytes;
      e.sync = m_.synchronous(bytes);
      e.blockingSend = m_.sendDelay(CommRole::BlockingSend, bytes);
      e.isendComplete = m_.sendDelay(CommRole::IsendComplete, bytes);
      e.blockingRecv = m_.receiveDelay(CommRole::BlockingRecv, bytes);
      e.irecvComplete = m_.receiveDelay(CommRole::IrecvComplete, bytes);
    }
    return e;
  }

 private:
  static constexpr std::size_t kSize = 61;
  const NetworkModel& m_;
  Entry table_[kSize];
};

namespace {

// The communication roles of endpoint m, posted by unit `post` and completed by unit `done`
// (kNone32: not in the trace): onRole(unit, role, slot), slot 0/1 the send's post/completion,
// 2/3 the receive's. A half-recorded request (docs/trace-model.md): a non-blocking send whose
// completion the trace does not hold (OTF 1: the SendMsg in MPI_Isend) is its post alone, and
// a non-blocking receive whose post it does not hold (the RecvMsg in MPI_Wait) its completion
// alone.
template <class OnRole>
void endpointRoles(const MessageEndpoint& m, std::uint32_t post, std::uint32_t done, OnRole&& onRole) {
  const int slot = m.isSend ? 0 : 2;
  if (m.halfRecorded()) {
    if (m.isSend && post != kNone32) onRole(post, CommRole::IsendPost, slot);
    if (!m.isSend && done != kNone32) onRole(done, CommRole::IrecvComplete, slot + 1);
  } else if (m.event == m.postEvent) {
    if (done != kNone32) onRole(done, m.isSend ? CommRole::BlockingSend : CommRole::BlockingRecv, slot);
  } else {
    if (post != kNone32) onRole(post, m.isSend ? CommRole::IsendPost : CommRole::IrecvPost, slot);
    if (done != kNone32) onRole(done, m.isSend ? CommRole::IsendComplete : CommRole::IrecvComplete, slot + 1);
  }
}

}  // namespace

// Rank r's communication roles straight from its endpoints, in the links' order (walkLinks
// without the message numbering: an endpoint is skipped where the links skip it, a receive
// matched to another receive), kept nowhere: onRole(unit, role).
void ProgramBuilder::rankRoles(std::uint32_t r, const std::function<void(std::uint32_t, CommRole)>& onRole) const {
  const MessageTable& msgs = trace_.ranks[r].messages;
  MessageTable::Reader read(msgs);
  std::uint32_t postHint = 0;
  for (std::uint32_t j = 0; j < msgs.size(); ++j) {
    const MessageEndpoint& m = read[j];
    if (!ownsMessage(m)) {
      // The partner owns the message unless it is a receive matched in turn (no message).
      const MessageTable& other = trace_.ranks[m.matchRank].messages;
      if (!other.signatureOf(m.matchIndex).isSend && partnerExists(other[m.matchIndex])) continue;
    }
    const auto [post, done] = endpointUnits(r, m, postHint);
    endpointRoles(m, post, done, [&](std::uint32_t u, CommRole role, int) { onRole(u, role); });
  }
}

// Walks rank r's endpoints in order and reports each communication role (unit, role,
// message, slot) and each message dependency (unit, source, offset, flags, message): the
// same walk counts them and then fills them in, so both agree by construction.
// Without `delays` (a walk for the links only) every offset is 0.
template <class OnRole, class OnDep>
std::uint64_t ProgramBuilder::walkLinks(std::uint32_t r, Delays* delays, OnRole&& onRole, OnDep&& onDep) const {
  const std::uint32_t R = p_.ranks;
  const auto& msgs = trace_.ranks[r].messages;
  MessageTable::Reader read(msgs);
  std::uint64_t unmatched = 0;
  const Delays::Entry none{};
  for (std::uint32_t j = 0; j < msgs.size(); ++j) {
    const MessageEndpoint& m = read[j];
    const bool matched =
        m.matched() && m.matchRank < R && m.matchIndex < msgBase_[m.matchRank + 1] - msgBase_[m.matchRank];
    const std::uint32_t id =
        (m.isSend || !matched) ? msgId_[msgBase_[r] + j] : msgId_[msgBase_[m.matchRank] + m.matchIndex];
    if (id == kNone32) {  // a receive matched to another receive: not a message (never built)
      ++unmatched;
      continue;
    }
    const std::uint32_t done = doneUnit_[msgBase_[r] + j];
    const std::uint32_t post = postUnit_[msgBase_[r] + j];
    endpointRoles(m, post, done, [&](std::uint32_t u, CommRole role, int slot) { onRole(u, role, id, slot); });
    const bool half = m.halfRecorded();
    if (!matched) {
      ++unmatched;
      continue;
    }
    // Nothing holds a send on its receiver when either side's half is missing: the send's
    // completion (here), or the receive's post (its post unit is none).
    if (m.isSend && half) continue;
    const std::uint32_t src = postUnit_[msgBase_[m.matchRank] + m.matchIndex];
    if (done == kNone32 || src == kNone32) continue;
    // The message's size: the send's own (a receive reads it from the sender's slot).
    const Delays::Entry& d = delays ? delays->of(m.isSend ? m.bytes : p_.bytesOf(id)) : none;
    const bool blocking = m.event == m.postEvent && !half;
    if (m.isSend) {
      onDep(done, src, blocking ? d.blockingSend : d.isendComplete,
            static_cast<std::uint8_t>(dep::kSyncSend | (d.sync ? dep::kActive : 0) | (blocking ? 0 : dep::kLateSend)),
            id);
    } else {
      onDep(done, src, blocking ? d.blockingRecv : d.irecvComplete,
            static_cast<std::uint8_t>(dep::kActive | (blocking ? 0 : dep::kLateRecv)), id);
    }
  }
  return unmatched;
}

// Dependencies in CSR by unit. A unit's dependencies: its message dependencies in endpoint
// order, then its collective ones in instance order. Counted per rank in parallel, then
// filled per rank in parallel (every unit belongs to one rank).
void ProgramBuilder::finishDeps() {
  const std::uint32_t R = p_.ranks, U = p_.units;
  // Built plain, kept compact (p_.depBegin, CompactOffsets).
  std::vector<std::uint32_t> depBegin(std::size_t{U} + 1, 0);
  std::vector<std::uint64_t> unmatched(R, 0);
  eachRank(R, [&](std::uint32_t r) {
    unmatched[r] = walkLinks(
        r, nullptr, [](std::uint32_t, CommRole, std::uint32_t, int) {},
        [&](std::uint32_t u, std::uint32_t, TimeNs, std::uint8_t, std::uint32_t) { ++depBegin[u + 1]; });
    for (const CollDep& c : collDeps_[r]) ++depBegin[c.unit + 1];
  });
  for (std::uint64_t n : unmatched) report_.unmatchedEndpoints += n;
  std::uint64_t deps = 0;
  for (std::uint32_t u = 0; u <= U; ++u) {
    deps += depBegin[u];
    if (deps >= kNone32)
      throw std::length_error("the trace has more than 2^32 - 2 message dependencies: too many for one replay");
    depBegin[u] = static_cast<std::uint32_t>(deps);
  }
  p_.depSrc.resize(deps);
  p_.depOff0.resize(deps);
  p_.depFlags0.resize(deps);
  // The begin array serves as fill cursors (begin[u] moves to u's end, which is begin[u + 1]);
  // shifted back afterwards: no second array of cursors per unit.
  auto putDep = [&](std::uint32_t u, std::uint32_t src, TimeNs off, std::uint8_t flags, std::uint32_t) {
    const std::uint32_t i = depBegin[u]++;
    p_.depSrc[i] = src;
    p_.depOff0.set(i, off);
    p_.depFlags0[i] = static_cast<std::uint8_t>(flags | dep::kScheduled);
  };
  eachRank(R, [&](std::uint32_t r) {
    Delays delays(*model_);
    walkLinks(
        r, &delays, [](std::uint32_t, CommRole, std::uint32_t, int) {}, putDep);
    const std::vector<TimeNs>& offs = collDepOffs_[r];
    for (std::size_t i = 0; i < collDeps_[r].size(); ++i)
      putDep(collDeps_[r][i].unit, collDeps_[r][i].src, offs.empty() ? 0 : offs[i], dep::kActive, kNone32);
    releaseMemory(collDeps_[r]);
    releaseMemory(collDepOffs_[r]);
  });
  for (std::uint32_t u = U; u > 0; --u) depBegin[u] = depBegin[u - 1];
  depBegin[0] = 0;
  p_.depBegin.assign(depBegin);
  releaseMemory(depBegin);
  releaseMemory(collDeps_);
  releaseMemory(collDepOffs_);
  // Cost mode "model" prices each unit's roles in decompose(): the links now (otherwise
  // built on first need, Program::prepareLinks).
  if (costs_ == CostMode::Model) std::call_once(p_.linksOnce_, [&] { buildLinks(); });
  releaseEndpoints();
}

void ProgramBuilder::releaseEndpoints() {
  releaseMemory(msgBase_);
  releaseMemory(msgId_);
  releaseMemory(postUnit_);
  releaseMemory(doneUnit_);
}

// The communication roles of each unit (CSR), the message behind each message dependency
// and each message's units and parallel step, from the same walk over the endpoints as the
// dependencies themselves (so a unit's message dependencies come in the same order).
void ProgramBuilder::buildLinks() {
  const std::uint32_t R = p_.ranks, U = p_.units;
  if (msgBase_.empty()) buildMessages(false, true);  // on first need: the endpoints again
  std::vector<std::uint32_t> roleBegin(std::size_t{U} + 1, 0);
  eachRank(R, [&](std::uint32_t r) {
    walkLinks(
        r, nullptr, [&](std::uint32_t u, CommRole, std::uint32_t, int) { ++roleBegin[u + 1]; },
        [](std::uint32_t, std::uint32_t, TimeNs, std::uint8_t, std::uint32_t) {});
  });
  std::uint64_t roles = 0;
  for (std::uint32_t u = 0; u <= U; ++u) {
    roles += roleBegin[u];
    if (roles >= kNone32)
      throw std::length_error("the trace has more than 2^32 - 2 communication roles: too many for one replay");
    roleBegin[u] = static_cast<std::uint32_t>(roles);
  }
  std::vector<CommRole> roleKind(roles);
  std::vector<std::uint32_t> roleMsg(roles);
  std::vector<std::uint32_t> depMsg(p_.depSrc.size(), kNone32);
  std::vector<std::uint32_t> depFill(p_.units);
  for (std::uint32_t u = 0; u < p_.units; ++u) depFill[u] = p_.depBegin[u];
  eachRank(R, [&](std::uint32_t r) {
    walkLinks(
        r, nullptr,
        [&](std::uint32_t u, CommRole role, std::uint32_t msg, int slot) {
          const std::uint32_t i = roleBegin[u]++;
          roleKind[i] = role;
          roleMsg[i] = msg;
          p_.messages[msg].units[slot] = u;
        },
        [&](std::uint32_t u, std::uint32_t, TimeNs, std::uint8_t, std::uint32_t msg) { depMsg[depFill[u]++] = msg; });
  });
  for (std::uint32_t u = U; u > 0; --u) roleBegin[u] = roleBegin[u - 1];
  roleBegin[0] = 0;
  p_.roleBegin = std::move(roleBegin);
  p_.roleKind = std::move(roleKind);
  p_.roleMsg = std::move(roleMsg);
  p_.depMsg = std::move(depMsg);
  releaseEndpoints();
}

}  // namespace perwiz
