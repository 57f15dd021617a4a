#include "clock_sync.h"

#include "def_file.h"
#include "recorder.h"
#include "state.h"

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace perwiz::trace {

namespace {

constexpr int kRounds = 16;
constexpr int kTag = 7300;
std::vector<char> gNeedsSync;  // per rank, decided at MPI_Init
bool gAnySync = false;

void decide() {
  char host[MPI_MAX_PROCESSOR_NAME + 1] = {};
  int length = 0;
  PMPI_Get_processor_name(host, &length);
  defLine("host %s", host);
  gNeedsSync.assign(static_cast<std::size_t>(g.size), 0);
#ifdef PERWIZ_TRACE_SMPI
  return;  // one simulated clock: no exchange that would cost simulated time
#endif
  const char* mode = std::getenv("PERWIZ_CLOCK_SYNC");
  const bool always = mode && std::strcmp(mode, "always") == 0;
  const bool never = mode && std::strcmp(mode, "never") == 0;
  std::vector<char> hosts(static_cast<std::size_t>(g.size) * sizeof host);
  const std::uint64_t enter = now();
  PMPI_Allgather(host, sizeof host, MPI_CHAR, hosts.data(), sizeof host, MPI_CHAR, MPI_COMM_WORLD);
  recordOwnCollective(Region::Allgather, enter, now(), -1, sizeof host, hosts.size());
  for (int r = 1; r < g.size; ++r) {
    const bool otherHost = std::strncmp(&hosts[r * sizeof host], hosts.data(), sizeof host) != 0;
    gNeedsSync[static_cast<std::size_t>(r)] = !never && (always || otherHost);
    gAnySync = gAnySync || gNeedsSync[static_cast<std::size_t>(r)];
  }
}

#ifndef PERWIZ_TRACE_SMPI
void measureFromRankZero(int peer) {
  std::uint64_t bestRtt = UINT64_MAX;
  std::int64_t result[2] = {0, 0};  // offset, the peer's local time of the best round
  for (int i = 0; i < kRounds; ++i) {
    const std::uint64_t sent = now();
    std::uint64_t reply = 0;
    PMPI_Send(&sent, 1, MPI_UINT64_T, peer, kTag, MPI_COMM_WORLD);
    PMPI_Recv(&reply, 1, MPI_UINT64_T, peer, kTag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    const std::uint64_t received = now();
    if (received - sent < bestRtt) {
      bestRtt = received - sent;
      const std::uint64_t midpoint = sent + (received - sent) / 2;
      result[0] = static_cast<std::int64_t>(midpoint - reply);
      result[1] = static_cast<std::int64_t>(reply);
    }
  }
  PMPI_Send(result, 2, MPI_INT64_T, peer, kTag, MPI_COMM_WORLD);
}

void answerRankZero(const char* when) {
  for (int i = 0; i < kRounds; ++i) {
    std::uint64_t ping = 0;
    PMPI_Recv(&ping, 1, MPI_UINT64_T, 0, kTag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    const std::uint64_t reply = now();
    PMPI_Send(&reply, 1, MPI_UINT64_T, 0, kTag, MPI_COMM_WORLD);
  }
  std::int64_t result[2] = {0, 0};
  PMPI_Recv(result, 2, MPI_INT64_T, 0, kTag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  defLine("clock %s %lld %lld", when, static_cast<long long>(result[1]),
          static_cast<long long>(result[0]));
}
#endif

}  // namespace

void syncClocks(const char* when) {
  if (gNeedsSync.empty()) decide();
#ifdef PERWIZ_TRACE_SMPI
  (void)when;
  return;
#else
  if (!gAnySync) return;
  if (g.rank == 0) {
    for (int r = 1; r < g.size; ++r)
      if (gNeedsSync[static_cast<std::size_t>(r)]) measureFromRankZero(r);
  } else if (gNeedsSync[static_cast<std::size_t>(g.rank)]) {
    answerRankZero(when);
  }
#endif
}

}  // namespace perwiz::trace
