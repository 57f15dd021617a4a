// The communication events of a rank as `perwiz-cli events` lists them: every MPI call that
// sends, receives, posts or completes a request, or takes part in a collective, with its
// message endpoints and the ids ("RANK:INDEX") of the calls they matched.
#pragma once

#include "perwiz/trace.h"

#include <optional>
#include <string>
#include <vector>

namespace perwiz::cli {

// How an endpoint relates to the call that lists it. A message belongs to the call where the
// data leaves (send, isend) or arrives (recv, recv-complete); the posting Irecv and the
// completing Wait of an Isend list it too, but only for information.
enum class EndpointRole { Send, Isend, SendComplete, Recv, Irecv, RecvComplete };
const char* roleName(EndpointRole role);
bool ownsMessage(EndpointRole role);

struct EndpointView {
  MessageEndpoint endpoint;  // a copy: the model's tables decode on read
  EndpointRole role = EndpointRole::Send;
  std::optional<std::string> match;  // id of the call owning the matched endpoint
};

struct CommEvent {
  std::uint32_t rank = 0;
  std::uint32_t mpiIndex = 0;  // INDEX of RANK:INDEX
  std::uint32_t event = 0;     // event index in the rank
  std::vector<EndpointView> endpoints;
  std::optional<CollectiveCall> collective;

  std::uint64_t bytes() const;  // owned endpoints plus collective bytes sent and received
};

// Event index -> RANK:INDEX id, or nothing if that event is not an MPI call.
std::optional<std::string> callId(const Trace& trace, std::uint32_t rank, std::uint32_t event);

// The call an endpoint belongs to (see EndpointRole).
std::uint32_t owningEvent(const MessageEndpoint& m);

std::vector<CommEvent> commEvents(const Trace& trace, std::uint32_t rank);

}  // namespace perwiz::cli
