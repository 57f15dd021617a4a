// Ghost ranks: what a process of perwiz-mpi needs of the ranks other processes hold.
//
// Each process reads its share of the ranks (LoadOptions::shareIndex). The replay of its ranks
// also reads, of every other rank, the MPI calls that send to or receive from its ranks and the
// collective calls on communicators with one of its ranks: their measured times (a dependency's
// offset is judged against them, docs/model.md §2.7), their sizes (the model's delays) and their
// order (messages match by channel order, collectives by their order per communicator). Those
// calls, with the message endpoints and collective participations they hold towards the
// receiving process, form a *ghost rank* in the receiving process's trace. The serial replay
// program built over the local ranks plus the ghost ranks then holds every local unit with the
// dependencies, offsets and costs the whole trace would give it (the ghosts' own values are not
// used: their predicted enters arrive from their owners during the distributed sweep).
//
// A ghost rank holds, of its rank's calls, the selected ones and the top-level call each
// selected nested call lies in, so that its units are its rank's units: the owner numbers them
// in the same order (ghostUnitsFor).
#pragma once

#include "perwiz/trace.h"
#include "perwiz/trace_io.h"

#include <cstdint>
#include <string>
#include <vector>

namespace perwiz {

// The MPI calls (indices into RankTrace::mpiCalls, ascending) of rank r that process `dest`
// needs as ghosts: those posting or completing an endpoint whose peer is in `destRanks`, those
// making a collective call on a communicator with a member in `destRanks`, and the top-level
// call holding any nested one of those. `topLevel` (if given) receives, per returned call,
// whether it is a top-level call (a replay unit) of the rank.
std::vector<std::uint32_t> ghostCalls(const Trace& trace, std::uint32_t r, RankRange destRanks,
                                      std::vector<std::uint8_t>* topLevel = nullptr);

// The ghost ranks of this process's `own` ranks that process `dest` (holding `destRanks`)
// needs, serialised (the buffer ends up in importGhosts on that process).
std::string exportGhosts(const Trace& trace, RankRange own, RankRange destRanks);

// Adds the ghost ranks received from every other process (`buffers[q]` from process q; the own
// entry is ignored) to `trace`, whose ranks outside `own` must be empty, then matches messages
// and collectives afresh over the whole. Throws std::runtime_error on a malformed buffer.
void importGhosts(Trace& trace, RankRange own, const std::vector<std::string>& buffers);

}  // namespace perwiz
