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

// Collectives. In cost mode "measured" a gather is the latest of its members' enters, which
// each process can take over its own members first: a process sends, per collective instance it
// shares with another, one *proxy* (the latest measured enter of its members; in the sweep, the
// latest predicted one) instead of every member. The proxies a process receives from process q
// form one more ghost rank (after the trace's ranks), one call per instance. Members are still
// sent one by one where the replay needs them one by one: a rooted collective's root (the rule
// depends on it) and Scan/Exscan's members (each waits for those before it). In cost mode
// "model" (`everyMember`) every member is sent: the model's prices depend on every member's size
// and position, and SMPI's linear collectives queue them one by one (docs/model.md §3).

// The MPI calls (indices into RankTrace::mpiCalls, ascending) of rank r that process `dest`
// needs as ghosts: those posting or completing an endpoint whose peer is in `destRanks`, the
// collective calls on a communicator with a member in `destRanks` that are sent one by one (see
// above), and the top-level call holding any nested one of those. `topLevel` (if given)
// receives, per returned call, whether it is a top-level call (a replay unit) of the rank.
std::vector<std::uint32_t> ghostCalls(const Trace& trace, std::uint32_t r, RankRange destRanks, bool everyMember,
                                      std::vector<std::uint8_t>* topLevel = nullptr);

// The proxies this process (ranks `own`) sends to the process holding `destRanks`, in the order
// of the receiver's proxy rank: by measured time, then communicator and sequence. The members
// of proxy p are this process's calls with collectiveInProxy() of its instance.
struct Proxy {
  std::uint32_t instance = kNone32;  // the local instance (Trace::collectives)
  std::uint32_t comm = 0, sequence = 0;
  TimeNs measured = 0;         // the latest measured enter of the members
  std::uint32_t function = 0;  // of a member's call (for the ghost call's name)
};
std::vector<Proxy> ghostProxies(const Trace& trace, RankRange own, RankRange destRanks, bool everyMember);
// Whether this collective call goes into its process's proxy (not sent one by one, see above).
bool collectiveInProxy(const CollectiveCall& c, bool everyMember);
// The MPI call index of an event of rank `rt`, kNone32 if the event is not an MPI call.
std::uint32_t mpiCallOfEvent(const RankTrace& rt, std::uint32_t event);

// The ghost ranks and the proxies of this process's `own` ranks that process `dest` (holding
// `destRanks`) needs, serialised (the buffer ends up in importGhosts on that process). With
// `steps`, each ghost call carries the parallel step holding it (balance-volume: a message's
// step is its send's).
std::string exportGhosts(const Trace& trace, RankRange own, RankRange destRanks, bool everyMember, bool steps = false);

// Adds the ghost ranks received from every other process (`buffers[q]` from process q; the own
// entry is ignored) to `trace`, whose ranks outside `own` must be empty, and one proxy rank
// (appended after the trace's ranks) with one call per collective instance any process sent a
// proxy for: its value will be the latest of theirs, its measured enter is the latest of theirs.
// Messages are matched afresh over the whole; ghost and proxy collective calls join the instance
// of their (communicator, sequence) among the local ranks'. Throws std::runtime_error on a
// malformed buffer.
struct ImportedGhosts {
  std::uint32_t proxyRank = kNone32;  // kNone32: no proxies
  // Per process q, per proxy it sent (in its order): the call of the proxy rank it joins.
  std::vector<std::vector<std::uint32_t>> proxyCall;
  // Per rank of the trace (empty for own ranks and the proxy rank): the index on its rank, in
  // its owner's trace, of each ghost call (ghost call i is that rank's MPI call callIndex[r][i]).
  std::vector<std::vector<std::uint32_t>> callIndex;
};
// With `steps` (as given to exportGhosts), the ghost ranks get their spans in the parallel
// steps' table (trace.steps grows to the steps the ghosts name).
ImportedGhosts importGhosts(Trace& trace, RankRange own, const std::vector<std::string>& buffers, bool steps = false);

}  // namespace perwiz
