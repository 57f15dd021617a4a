// The schedule of a replay program: every rank runs until a source it needs is not yet
// available; a waits-for cycle (a run that must have buffered) is cut at one dependency.
#include "program_builder.h"

#include "perwiz/checked_time.h"
#include "perwiz/release.h"

#include <stdexcept>

namespace perwiz {

// A unit's enter is known once the unit before it on its rank is scheduled; a rank's first
// unit's at once. `entered_` has bit u - 1 set when unit u's enter is known: the sentinels'
// bits from the start (the unit after a sentinel is the next rank's first), the other units'
// when they are scheduled.
bool ProgramBuilder::available(std::uint32_t src) const {
  if (src >= p_.units) return nodeMissing_[src - p_.units] == 0;
  return src == 0 || ((entered_[(src - 1) >> 6] >> ((src - 1) & 63)) & 1);
}

// Unit `u` of rank `r`'s enter time became available: count it for the nodes it belongs to.
// A rank's units become available in order, so a cursor walks its (unit, node) list.
void ProgramBuilder::enterAvailable(std::uint32_t r, std::uint32_t u) {
  if (memberOf_.empty()) return;
  const auto& list = memberOf_[r];
  std::uint32_t& at = memberCursor_[r];
  for (; at < list.size() && list[at].first == u; ++at) {
    const std::uint32_t c = p_.units + list[at].second;
    if (--nodeMissing_[c - p_.units] == 0) {
      p_.schedule[scheduled_++] = c;
      for (std::uint32_t r : nodeWaiters_[c - p_.units]) wake(r);
      nodeWaiters_[c - p_.units].clear();
    }
  }
}

void ProgramBuilder::wake(std::uint32_t r) {
  if (!queued_[r] && !finished(r)) {
    queued_[r] = 1;
    queue_.push_back(r);
  }
}

void ProgramBuilder::runRank(std::uint32_t r) {
  const std::uint32_t base = p_.rankBegin[r], end = p_.rankBegin[r + 1];
  const CompactOffsets& depBegin = p_.depBegin;
  const std::uint32_t* const depSrc = p_.depSrc.data();
  const std::uint8_t* const flags = p_.depFlags0.data();
  std::uint32_t u = base + cursor_[r], d = depCursor_[r];
  while (u < end) {
    for (const std::uint32_t last = depBegin[u + 1]; d < last; ++d) {
      if (!(flags[d] & dep::kScheduled)) continue;
      const std::uint32_t s = depSrc[d];
      if (available(s)) continue;
      cursor_[r] = u - base;
      depCursor_[r] = d;
      blocked_[r] = d;
      if (s >= p_.units)
        nodeWaiters_[s - p_.units].push_back(r);
      else
        rankWaiters_[p_.rankOf(s)].push_back(r);
      return;
    }
    p_.schedule[scheduled_++] = u;
    entered_[u >> 6] |= std::uint64_t{1} << (u & 63);
    ++u;
    cursor_[r] = u - base;
    if (u < end) enterAvailable(r, u);
    if (!rankWaiters_[r].empty()) {
      waking_.swap(rankWaiters_[r]);
      for (std::uint32_t w : waking_) wake(w);
      waking_.clear();
    }
  }
  depCursor_[r] = d;
  blocked_[r] = kNone32;
}

// The rank that must progress before `r` can: owner of the unavailable source.
std::uint32_t ProgramBuilder::blocker(std::uint32_t r) const {
  const std::uint32_t s = p_.depSrc[blocked_[r]];
  if (s < p_.units) return p_.rankOf(s);
  const std::uint32_t n = s - p_.units;
  for (std::uint32_t i = p_.nodeBegin[n]; i < p_.nodeBegin[n + 1]; ++i)
    if (!available(p_.nodeMembers[i])) return p_.rankOf(p_.nodeMembers[i]);
  return r;
}

// Every unfinished rank waits: the waits-for graph has a cycle. Cut one dependency on it,
// preferring one the current protocol does not use, then a rendezvous send's.
void ProgramBuilder::breakCycle() {
  std::uint32_t start = kNone32;
  for (std::uint32_t r = 0; r < p_.ranks && start == kNone32; ++r)
    if (!finished(r)) start = r;
  const std::uint32_t victim = cycleVictim(
      p_.ranks, start, [&](std::uint32_t r) { return blocker(r); },
      [&](std::uint32_t r) { return p_.depFlags0[blocked_[r]]; });
  const std::uint32_t d = blocked_[victim];
  if (p_.depFlags0[d] & dep::kActive) ++report_.brokenCycles;
  p_.depFlags0[d] = static_cast<std::uint8_t>(p_.depFlags0[d] & ~dep::kScheduled);
  // Remove the victim from the waiter list it sits in; waking it re-checks anyway.
  wake(victim);
}

void ProgramBuilder::buildSchedule() {
  const std::uint32_t R = p_.ranks;
  cursor_.assign(R, 0);
  depCursor_.resize(R);
  blocked_.assign(R, kNone32);
  queued_.assign(R, 0);
  rankWaiters_.assign(R, {});
  nodeWaiters_.assign(p_.nodes(), {});
  nodeMissing_.resize(p_.nodes());
  for (std::uint32_t n = 0; n < p_.nodes(); ++n) nodeMissing_[n] = p_.nodeBegin[n + 1] - p_.nodeBegin[n];
  // The gathers each unit is a member of: per rank, (unit, node) by unit (for the schedule
  // only; memory per membership, not per unit).
  if (!p_.nodeMembers.empty()) {
    memberOf_.assign(R, {});
    memberCursor_.assign(R, 0);
    for (std::uint32_t n = 0; n < p_.nodes(); ++n)
      for (std::uint32_t i = p_.nodeBegin[n]; i < p_.nodeBegin[n + 1]; ++i)
        memberOf_[p_.rankOf(p_.nodeMembers[i])].emplace_back(p_.nodeMembers[i], n);
    eachRank(R, [&](std::uint32_t r) {
      if (!std::is_sorted(memberOf_[r].begin(), memberOf_[r].end()))
        std::sort(memberOf_[r].begin(), memberOf_[r].end());
    });
  }
  p_.schedule.assign(p_.items(), 0);
  scheduled_ = 0;
  entered_ = p_.sentinelBits;
  for (std::uint32_t r = 0; r < R; ++r) {
    depCursor_[r] = p_.depBegin[p_.rankBegin[r]];
    enterAvailable(r, p_.rankBegin[r]);
  }
  for (std::uint32_t r = 0; r < R; ++r) wake(r);
  std::uint32_t done = 0;
  std::uint32_t runs = 0;
  for (;;) {
    while (!queue_.empty()) {
      const std::uint32_t r = queue_.front();
      queue_.pop_front();
      queued_[r] = 0;
      runRank(r);
      if ((++runs & 255) == 0) {
        raiseProgress(phaseRanks_, static_cast<std::uint32_t>(std::uint64_t{scheduled_} * p_.ranks /
                                                              std::max<std::uint32_t>(1, p_.items())));
        checkpoint();
      }
    }
    done = 0;
    for (std::uint32_t r = 0; r < R; ++r) done += finished(r);
    if (done == R) break;
    breakCycle();
  }
  if (scheduled_ != p_.items()) throw std::logic_error("replay schedule incomplete");
  releaseMemory(memberOf_);
  releaseMemory(memberCursor_);
  releaseMemory(entered_);
}

}  // namespace perwiz
