// One more hypothesis over shares (distributed_evaluate.h).
#include "distributed_evaluate.h"

#include "perwiz/checked_time.h"

#include <algorithm>
#include <bit>
#include <limits>
#include <string>

namespace perwiz {

DistributedEvaluation::DistributedEvaluation(Replayer& replayer, const Trace& trace, const SweepLinks& links,
                                             ProcessGroup& group, TimeNs t0)
    : rp_(replayer), p_(internal::ReplayerAccess::program(replayer)), links_(links), group_(group), t0_(t0) {
  rf_ = std::min(links.own.first, p_.ranks);
  rl_ = std::min(links.own.last, p_.ranks);
  U0_ = p_.rankBegin[rf_];
  U1_ = p_.rankBegin[rl_];
  cuts_ = findSharedCuts(replayer, trace, links, group);
  stats_.cuts = cuts_.count;
  buildReaders();
  baseProxies();
  const std::uint32_t n = rl_ - rf_;
  dirty_.assign((std::size_t{U1_ - U0_} + 63) / 64, 0);
  touched_.assign(dirty_.size(), 0);
  lo_.assign(n, 0);
  limit_.assign(n, 0);
  before_.assign(n, 0);
  queued_.assign(n, 0);
  waiters_.assign(n, {});
}

// Per local item the own units reading it (every dependency, used or not: a hypothesis may
// change which are), and per unit the gather nodes holding it that an own unit reads.
void DistributedEvaluation::buildReaders() {
  const std::uint32_t U = p_.units, N = p_.nodes();
  std::vector<std::uint8_t> nodeRead(N, 0);
  readBegin_.assign(std::size_t{U} + N + 1, 0);
  for (std::uint32_t u = U0_; u < U1_; ++u)
    for (std::uint32_t d = p_.depBegin[u]; d < p_.depBegin[u + 1]; ++d) {
      const std::uint32_t s = p_.depSrc[d];
      ++readBegin_[s + 1];
      if (s >= U) nodeRead[s - U] = 1;
    }
  for (std::uint32_t n = 0; n < N; ++n)
    if (nodeRead[n])
      for (std::uint32_t j = p_.nodeBegin[n]; j < p_.nodeBegin[n + 1]; ++j) ++readBegin_[p_.nodeMembers[j] + 1];
  for (std::size_t x = 0; x + 1 < readBegin_.size(); ++x) readBegin_[x + 1] += readBegin_[x];
  readers_.assign(readBegin_.back(), 0);
  std::vector<std::uint32_t> fill(readBegin_.begin(), readBegin_.end() - 1);
  for (std::uint32_t u = U0_; u < U1_; ++u)
    for (std::uint32_t d = p_.depBegin[u]; d < p_.depBegin[u + 1]; ++d) readers_[fill[p_.depSrc[d]]++] = u;
  for (std::uint32_t n = 0; n < N; ++n)
    if (nodeRead[n])
      for (std::uint32_t j = p_.nodeBegin[n]; j < p_.nodeBegin[n + 1]; ++j) readers_[fill[p_.nodeMembers[j]]++] = U + n;
}

// The proxies this process sends (their own members, where each goes) and, as the base sweep
// left them, the latest each other process sent for the proxies it receives.
void DistributedEvaluation::baseProxies() {
  const std::uint32_t P = group_.size();
  links_.proxyMemberLists(memberBegin_, members_);
  proxyDestBegin_.assign(links_.proxies() + 1, 0);
  for (const auto& d : links_.proxyDests) ++proxyDestBegin_[d.proxy + 1];
  for (std::uint32_t x = 0; x < links_.proxies(); ++x) proxyDestBegin_[x + 1] += proxyDestBegin_[x];
  v_.emplace(internal::ReplayerAccess::effective(rp_));
  std::vector<wire::Writer> out(P);
  for (std::uint32_t x = 0; x < links_.proxies(); ++x) {
    TimeNs latest = 0;  // as the sweep takes it
    for (std::uint32_t m = memberBegin_[x]; m < memberBegin_[x + 1]; ++m)
      latest = std::max(latest, enterOf(members_[m]));
    for (std::uint32_t k = proxyDestBegin_[x]; k < proxyDestBegin_[x + 1]; ++k) {
      out[links_.proxyDests[k].process].u32(links_.proxyDests[k].index);
      out[links_.proxyDests[k].process].i64(latest);
    }
  }
  v_.reset();
  std::vector<std::string> bufs(P);
  for (std::uint32_t q = 0; q < P; ++q) bufs[q] = out[q].take();
  const std::vector<std::string> in = group_.exchange(std::move(bufs));
  proxySources_.assign(links_.proxySenders.size(), {});
  latest_.assign(P, {});
  for (std::uint32_t q = 0; q < P; ++q) {
    if (q == group_.rank()) continue;
    latest_[q].assign(links_.imports[q].size(), 0);
    for (std::uint32_t i = 0; i < links_.imports[q].size(); ++i)
      if (links_.imports[q][i] & SweepLinks::kProxy)
        proxySources_[links_.imports[q][i] & ~SweepLinks::kProxy].emplace_back(q, i);
    wire::Reader rd(in[q], "evaluation proxies");
    while (!rd.done()) {
      const std::uint32_t i = rd.u32();
      const TimeNs t = rd.i64();
      if (i >= latest_[q].size())
        throw GroupError("evaluation: process " + std::to_string(q) + " sent a proxy out of range");
      latest_[q][i] = t;
    }
  }
}

TimeNs DistributedEvaluation::enterOf(std::uint32_t u) const {
  const std::vector<TimeNs>& leave = rp_.predictedLeaves();
  if (!own(u)) return leave[u];  // a ghost's or proxy's leave slot holds its enter
  return p_.isFirst(u) ? v_->gap[u] : satAdd(leave[u - 1], v_->gap[u]);
}

TimeNs DistributedEvaluation::srcValue(std::uint32_t s) const {
  if (s < p_.units) return enterOf(s);
  return p_.nodeValue(s - p_.units, [&](std::uint32_t u) { return enterOf(u); });
}

std::uint32_t DistributedEvaluation::firstDirty(std::uint32_t i, std::uint32_t last) {
  std::uint32_t u = std::max(lo_[i], p_.rankBegin[rf_ + i]);
  while (u <= last) {
    const std::uint32_t b = u - U0_;
    const std::uint64_t w = dirty_[b >> 6] >> (b & 63);
    if (w) {
      const std::uint32_t f = u + static_cast<std::uint32_t>(std::countr_zero(w));
      if (f <= last) return lo_[i] = f;
      break;
    }
    u += 64 - (b & 63);
  }
  lo_[i] = std::max(lo_[i], last + 1);
  return kNone32;
}

// Whether source s's time is final here: an own unit's enter once no unit before it on its rank
// is left to recompute (else *blocker: that rank), a node's once its own members' are; a
// ghost's or proxy's as it stands (a later change is sent and recomputed).
bool DistributedEvaluation::final(std::uint32_t s, std::uint32_t* blocker) {
  if (s >= p_.units) {
    const std::uint32_t n = s - p_.units;
    for (std::uint32_t j = p_.nodeBegin[n]; j < p_.nodeBegin[n + 1]; ++j)
      if (!final(p_.nodeMembers[j], blocker)) return false;
    return true;
  }
  if (!own(s) || p_.isFirst(s)) return true;
  const std::uint32_t i = p_.rankOf(s) - rf_;
  if (firstDirty(i, s - 1) == kNone32) return true;
  *blocker = i;
  return false;
}

void DistributedEvaluation::markDirty(std::uint32_t u) {
  const std::uint32_t b = u - U0_;
  if ((dirty_[b >> 6] >> (b & 63)) & 1) return;
  dirty_[b >> 6] |= std::uint64_t{1} << (b & 63);
  marked_.push_back(u);
  const std::uint32_t i = p_.rankOf(u) - rf_;
  lo_[i] = std::min(lo_[i], u);
  if (u <= limit_[i] && !queued_[i]) {
    queued_[i] = 1;
    queue_.push_back(i);
  }
}

void DistributedEvaluation::markReaders(std::uint32_t x) {
  for (std::uint32_t k = readBegin_[x]; k < readBegin_[x + 1]; ++k) {
    const std::uint32_t v = readers_[k];
    if (v < p_.units) {
      markDirty(v);
      continue;
    }
    for (std::uint32_t j = readBegin_[v]; j < readBegin_[v + 1]; ++j) markDirty(readers_[j]);
  }
}

// Own unit u's enter changed: u and its readers are recomputed, the processes reading it
// (as a ghost, or through a proxy) get the new value.
void DistributedEvaluation::enterChanged(std::uint32_t u) {
  markDirty(u);
  markReaders(u);
  const TimeNs enter = enterOf(u);
  const auto byUnit = [](const SweepLinks::Export& e, std::uint32_t x) { return e.unit < x; };
  for (auto e = std::lower_bound(links_.exports.begin(), links_.exports.end(), u, byUnit);
       e != links_.exports.end() && e->unit == u; ++e) {
    out_[e->process].u32(e->index);
    out_[e->process].i64(enter);
    ++sent_;
  }
  const auto& list = links_.memberships[p_.rankOf(u) - rf_];
  for (auto m = std::lower_bound(list.begin(), list.end(), std::make_pair(u, std::uint32_t{0}));
       m != list.end() && m->first == u; ++m) {
    const std::uint32_t x = m->second;
    TimeNs latest = 0;
    for (std::uint32_t j = memberBegin_[x]; j < memberBegin_[x + 1]; ++j)
      latest = std::max(latest, enterOf(members_[j]));
    for (std::uint32_t k = proxyDestBegin_[x]; k < proxyDestBegin_[x + 1]; ++k) {
      out_[links_.proxyDests[k].process].u32(links_.proxyDests[k].index);
      out_[links_.proxyDests[k].process].i64(latest);
      ++sent_;
    }
  }
}

void DistributedEvaluation::setLeave(std::uint32_t u, TimeNs t) {
  std::vector<TimeNs>& leave = internal::ReplayerAccess::resultsForWriting(rp_).leave;
  leaveLog_.emplace_back(u, leave[u]);
  leave[u] = t;
}

// Own rank i's units left to recompute, in order, up to its limit or a source not final yet.
void DistributedEvaluation::walk(std::uint32_t i) {
  for (;;) {
    const std::uint32_t u = firstDirty(i, limit_[i]);
    if (u == kNone32) return;
    const bool noWait = v_->noWait[u] != 0;
    if (!noWait)
      for (std::uint32_t d = p_.depBegin[u]; d < p_.depBegin[u + 1]; ++d) {
        if ((v_->depFlags[d] & dep::kUse) != dep::kUse) continue;
        std::uint32_t j = 0;
        if (!final(p_.depSrc[d], &j) && j != i) {
          waiters_[j].push_back(i);
          return;
        }
      }
    const TimeNs t = leaveRule(p_, u, enterOf(u), noWait, *v_, [&](std::uint32_t s) { return srcValue(s); });
    const std::uint32_t b = u - U0_;
    dirty_[b >> 6] &= ~(std::uint64_t{1} << (b & 63));
    ++stats_.recomputed;
    const bool changed = t != rp_.predictedLeaves()[u];
    if (changed) setLeave(u, t);
    // u + 1's enter changed with u's leave, or (once) with its own gap.
    const std::uint32_t n = b + 1;
    const bool gapChanged = !p_.isSentinel(u) && ((touched_[n >> 6] >> (n & 63)) & 1);
    if (gapChanged) touched_[n >> 6] &= ~(std::uint64_t{1} << (n & 63));
    if (!p_.isSentinel(u) && (changed || gapChanged)) enterChanged(u + 1);
    if (!waiters_[i].empty()) {
      std::vector<std::uint32_t> w;
      w.swap(waiters_[i]);
      for (std::uint32_t x : w)
        if (!queued_[x]) queued_[x] = 1, queue_.push_back(x);
    }
  }
}

void DistributedEvaluation::setLimits(std::uint32_t k) {
  cut_ = k;
  const std::vector<TimeNs>& leave = rp_.predictedLeaves();
  for (std::uint32_t i = 0; i < rl_ - rf_; ++i) {
    if (k < cuts_.count) {
      limit_[i] = cuts_.member[std::size_t{i} * cuts_.count + k];
      before_[i] = leave[limit_[i]];
    } else {
      limit_[i] = p_.rankBegin[rf_ + i + 1] - 1;
    }
    if (!queued_[i] && firstDirty(i, limit_[i]) != kNone32) queued_[i] = 1, queue_.push_back(i);
  }
}

void DistributedEvaluation::receive(std::uint32_t q, std::uint32_t index, TimeNs value) {
  if (q == group_.rank() || index >= links_.imports[q].size())
    throw GroupError("evaluation: process " + std::to_string(q) + " sent an enter for unknown ghost " +
                     std::to_string(index));
  const std::uint32_t entry = links_.imports[q][index];
  const std::vector<TimeNs>& leave = rp_.predictedLeaves();
  if (!(entry & SweepLinks::kProxy)) {
    if (value != leave[entry]) setLeave(entry, value), markReaders(entry);
    return;
  }
  if (latest_[q][index] == value) return;
  latestLog_.push_back({q, index, latest_[q][index]});
  latest_[q][index] = value;
  const std::uint32_t c = entry & ~SweepLinks::kProxy;
  TimeNs g = 0;  // the latest of every process's, as the sweep takes it
  for (const auto& [from, i] : proxySources_[c]) g = std::max(g, latest_[from][i]);
  const std::uint32_t u = p_.rankBegin[links_.proxyRank] + c;
  if (g != leave[u]) setLeave(u, g), markReaders(u);
}

// One round: every rank as far as it can go, then the new enters exchanged. True when no
// process had anything left to recompute below its limits and none sent anything.
bool DistributedEvaluation::round() {
  const std::uint32_t P = group_.size();
  while (!queue_.empty()) {
    const std::uint32_t i = queue_.front();
    queue_.pop_front();
    queued_[i] = 0;
    walk(i);
  }
  bool work = false;
  for (std::uint32_t i = 0; i < rl_ - rf_ && !work; ++i) work = firstDirty(i, limit_[i]) != kNone32;
  const bool did = stats_.recomputed != computedBefore_;
  computedBefore_ = stats_.recomputed;
  std::vector<std::string> bufs(P);
  for (std::uint32_t q = 0; q < P; ++q) {
    out_[q].bytes()[0] = static_cast<char>((work ? 1 : 0) | (sent_ > 0 ? 2 : 0) | (did ? 4 : 0));
    bufs[q] = out_[q].take();
    out_[q] = wire::Writer();
    out_[q].u8(0);
  }
  sent_ = 0;
  const std::vector<std::string> in = group_.exchange(std::move(bufs));
  ++stats_.rounds;
  bool idle = true, moved = false;
  for (std::uint32_t q = 0; q < P; ++q) {
    wire::Reader rd(in[q], "evaluation");
    const std::uint8_t status = rd.u8();
    idle = idle && (status & 3) == 0;
    moved = moved || (status & 6) != 0;
    while (!rd.done()) {
      const std::uint32_t index = rd.u32();
      receive(q, index, rd.i64());
    }
  }
  // Work left that no process could do (a rank waiting past another's limit): never expected
  // (the cuts are closed), raised on every process alike rather than waiting forever.
  if (!idle && !moved)
    throw GroupError("distributed evaluation: stalled after " + std::to_string(stats_.rounds) + " rounds");
  return idle;
}

// Whether every rank's member of the current cut moved by the same Δ (none saturated).
bool DistributedEvaluation::uniformAtCut(TimeNs* delta) {
  const std::vector<TimeNs>& leave = rp_.predictedLeaves();
  bool ok = true, any = false;
  TimeNs lo = std::numeric_limits<TimeNs>::max(), hi = std::numeric_limits<TimeNs>::min();
  for (std::uint32_t i = 0; i < rl_ - rf_; ++i) {
    const TimeNs was = before_[i], now = leave[limit_[i]];
    if (overflowed(was) || overflowed(now)) {
      ok = false;
      continue;
    }
    any = true;
    lo = std::min(lo, now - was);
    hi = std::max(hi, now - was);
  }
  wire::Writer w;
  w.u8(ok ? 1 : 0);
  w.u8(any ? 1 : 0);
  w.i64(lo);
  w.i64(hi);
  bool anyAll = false;
  for (const std::string& b : group_.allGather(w.take())) {
    wire::Reader rd(b, "evaluation cut");
    ok = ok && rd.u8() != 0;
    const bool has = rd.u8() != 0;
    const TimeNs l = rd.i64(), h = rd.i64();
    if (!has) continue;
    anyAll = true;
    lo = std::min(lo, l);
    hi = std::max(hi, h);
  }
  *delta = lo;
  return ok && anyAll && lo == hi;
}

TimeNs DistributedEvaluation::latestEnd() {
  const std::vector<TimeNs>& leave = rp_.predictedLeaves();
  TimeNs t = 0;
  for (std::uint32_t r = rf_; r < rl_; ++r) t = std::max(t, leave[p_.rankBegin[r + 1] - 1]);
  wire::Writer w;
  w.i64(t);
  for (const std::string& b : group_.allGather(w.take())) {
    wire::Reader rd(b, "evaluation end");
    t = std::max(t, rd.i64());
  }
  return t;
}

void DistributedEvaluation::restore() {
  std::vector<TimeNs>& leave = internal::ReplayerAccess::resultsForWriting(rp_).leave;
  for (auto it = leaveLog_.rbegin(); it != leaveLog_.rend(); ++it) leave[it->first] = it->second;
  for (auto it = latestLog_.rbegin(); it != latestLog_.rend(); ++it) latest_[it->q][it->index] = it->was;
  leaveLog_.clear();
  latestLog_.clear();
  for (std::uint32_t u : marked_) dirty_[(u - U0_) >> 6] = 0;
  marked_.clear();
  std::fill(touched_.begin(), touched_.end(), 0);
  std::fill(lo_.begin(), lo_.end(), 0);
  std::fill(queued_.begin(), queued_.end(), 0);
  for (auto& w : waiters_) w.clear();
  queue_.clear();
  v_.reset();
}

TimeNs DistributedEvaluation::evaluate(const std::vector<std::uint32_t>& touched) {
  const std::uint32_t P = group_.size();
  v_.emplace(internal::ReplayerAccess::effective(rp_));
  ++stats_.evaluations;
  out_.assign(P, wire::Writer());
  for (auto& w : out_) w.u8(0);
  // The first cut whose B_k holds every changed unit of every process.
  std::uint32_t k = 0;
  for (std::uint32_t u : touched)
    if (own(u)) k = std::max(k, cuts_.level(p_.rankOf(u) - rf_, u));
  wire::Writer w;
  w.u32(k);
  for (const std::string& b : group_.allGather(w.take())) {
    wire::Reader rd(b, "evaluation start");
    k = std::max(k, rd.u32());
  }
  for (std::uint32_t u : touched)
    if (own(u)) touched_[(u - U0_) >> 6] |= std::uint64_t{1} << ((u - U0_) & 63);
  setLimits(std::min(k, cuts_.count));
  for (std::uint32_t u : touched) {
    if (!own(u)) continue;
    markDirty(u);
    if (p_.isFirst(u))
      enterChanged(u);
    else
      markDirty(u - 1);  // its recomputation passes the changed enter on
  }
  TimeNs t = 0;
  for (;;) {
    if (!round()) continue;
    if (cut_ < cuts_.count) {
      TimeNs delta = 0;
      if (uniformAtCut(&delta)) {
        t = satAdd(t0_, delta);
        ++stats_.atCut;
        break;
      }
      setLimits(cut_ + 1);
      continue;
    }
    t = latestEnd();
    break;
  }
  restore();
  return t;
}

}  // namespace perwiz
