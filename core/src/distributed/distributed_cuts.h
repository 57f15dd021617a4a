// Clean cuts over shares: where the distributed evaluation (distributed_evaluate.h) stops (the
// serial ones: core/src/replay/clean_cuts.h, docs/model.md "Uniform shifts").
//
// A cut here is an instance of the first communicator that holds every rank of the trace (its
// collectives are met in one order on every rank): B_k holds every unit up to the instance's
// member on every rank. A cut is usable when
// - nothing outside B_k reads a time of B_k but a rank's next enter reads its member's leave
//   (clean: if every member moved by the same Δ, and nothing outside B_k changed, everything
//   outside moved by Δ), and
// - nothing in B_k reads a time outside it (closed: B_k's times are final once every rank's
//   units up to its member are, whatever lies beyond).
// Only the dependencies the base uses count: the hypotheses evaluated (zero-wait, zero-event,
// balance-compute) activate none. Each process counts the reads of its own units and of the
// gather nodes they read, with the
// levels (how many cuts a unit lies after) of ghosts and proxies from their owners; the counts
// per cut are summed over the processes. A cut the serial program would call clean may be left
// out here (a member inside a nested call, a second all-rank communicator): cuts only save work.
#pragma once

#include "distributed_sweep.h"

#include "perwiz/process_group.h"
#include "perwiz/replay.h"

#include <cstdint>
#include <vector>

namespace perwiz {

struct SharedCuts {
  std::uint32_t count = 0;  // usable cuts, in order
  // member[i * count + k]: the unit of own rank i (links.own.first + i) in cut k, ascending in k.
  std::vector<std::uint32_t> member;
  // How many cuts' members on own rank i lie before unit u (u lies in B_k iff level <= k).
  std::uint32_t level(std::uint32_t i, std::uint32_t u) const;
};

// Every process of `group` calls it (a collective operation). `replayer` is this process's share
// with its ghosts (built over `trace`), `links` the sweep's. 4 B per own rank and cut.
SharedCuts findSharedCuts(Replayer& replayer, const Trace& trace, const SweepLinks& links, ProcessGroup& group);

}  // namespace perwiz
