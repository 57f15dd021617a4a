// PerWiz's additions to ALOG: what the model holds beyond MPE's records, written so that MPE's
// viewers and other ALOG readers still read the file as before (docs/trace-model.md, "ALOG
// extension"). Shared by the writer (formatting) and the reader (parsing).
//
// Header records use types -60 … -63, which no ALOG producer or viewer uses (MPE's ALOG header types
// are -1 … -15 and -16 … -99 are unassigned; nupshot's Alog_Open has no default case for header types, upshot's
// pre-pass acts on -3/-6/-7/-11/-13 only). They sit in the header block, before the first data
// record, and stay far below nupshot's 1024-byte line.
//
//   -60 0 0 1 0 0 PerWiz extension      the file uses the data-record tokens below (version 1)
//   -61 0 <start> 0 0 0 mpi|user        the state started by event <start> is an MPI call / a
//                                       user state, whatever its name suggests
//   -62 0 <comm> <size> 0 0 <name>      communicator <comm> (1, 2, …; 0 is MPI_COMM_WORLD) with
//                                       <size> members; size -1: a COMM_SELF-like communicator
//   -63 0 <comm> <first> 0 0 <w> <w> …  world ranks of its members first, first+1, …
//
// Data-record tokens (only honoured when -60 is present; MPE's readers ignore comments of
// state events and everything after "<tag> <size>" of a message record):
//   -101/-102 comment "<tag> <size> [comm=<c>] [req=<r>]"      communicator, request id
//   start event of an MPI call, comment of tokens:
//       irecv-post=<r>                  the call posts Irecv request r (MpiIrecvRequest)
//       isend-done=<r>                  the call completes Isend request r (MpiIsendComplete)
//       coll=<MPI_Op>:<comm>:<root>:<sent>:<received>   the call's collective record
#pragma once

#include "perwiz/mpi_ops.h"
#include "perwiz/trace.h"

#include <charconv>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace perwiz::alog {

inline constexpr std::int64_t kExtension = -60;
inline constexpr std::int64_t kStateKind = -61;
inline constexpr std::int64_t kCommDef = -62;
inline constexpr std::int64_t kCommMembers = -63;
inline constexpr std::int64_t kExtensionVersion = 1;
inline constexpr std::size_t kMembersPerLine = 32;

inline constexpr std::string_view kKindMpi = "mpi";
inline constexpr std::string_view kKindUser = "user";

// ---- writing ------------------------------------------------------------------------------

inline void appendToken(std::string& out, std::string_view key, std::uint64_t value) {
  if (!out.empty()) out += ' ';
  out += key;
  out += '=';
  out += std::to_string(value);
}

// " comm=<c> req=<r>" for a message record (empty for WORLD and blocking calls).
inline std::string messageTokens(std::uint32_t comm, std::uint64_t request) {
  std::string s;
  if (comm != 0) appendToken(s, "comm", comm);
  if (request != 0) appendToken(s, "req", request);
  return s;
}

inline std::string collectiveToken(MpiOp op, std::uint32_t comm, std::int32_t root,
                                   std::uint64_t sent, std::uint64_t received) {
  return "coll=" + std::string(mpiOpName(op)) + ":" + std::to_string(comm) + ":" +
         std::to_string(root) + ":" + std::to_string(sent) + ":" + std::to_string(received);
}

// ---- reading ------------------------------------------------------------------------------

// Splits a comment into blank-separated tokens: calls f(token) for each.
template <class F>
void forEachToken(std::string_view s, F&& f) {
  std::size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && (s[i] == ' ' || s[i] == '\t')) ++i;
    std::size_t b = i;
    while (i < s.size() && s[i] != ' ' && s[i] != '\t') ++i;
    if (i > b) f(s.substr(b, i - b));
  }
}

template <class T>
bool parseWhole(std::string_view s, T& v) {
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  return ec == std::errc() && p == s.data() + s.size();
}

// "key=value" with an integer value.
template <class T>
bool tokenValue(std::string_view token, std::string_view key, T& v) {
  return token.size() > key.size() + 1 && token.substr(0, key.size()) == key &&
         token[key.size()] == '=' && parseWhole(token.substr(key.size() + 1), v);
}

// The message tokens after "<tag> <size>"; false on a token it does not understand.
inline bool parseMessageTokens(std::string_view comment, std::uint32_t& comm,
                               std::uint64_t& request) {
  comm = 0;
  request = 0;
  bool ok = true;
  int index = 0;
  forEachToken(comment, [&](std::string_view t) {
    if (index++ < 2) return;  // tag and size
    if (!tokenValue(t, "comm", comm) && !tokenValue(t, "req", request)) ok = false;
  });
  return ok;
}

struct CallTokens {
  std::vector<std::uint64_t> irecvPosts, isendDones;
  struct Collective {
    MpiOp op = MpiOp::None;
    std::uint32_t comm = 0;
    std::int32_t root = -1;
    std::uint64_t sent = 0, received = 0;
  };
  std::vector<Collective> collectives;
};

// The tokens of an MPI call's start event; false (and `bad` = the token) on one it does not
// understand.
inline bool parseCallTokens(std::string_view comment, CallTokens& out, std::string& bad) {
  out.irecvPosts.clear();
  out.isendDones.clear();
  out.collectives.clear();
  bool ok = true;
  forEachToken(comment, [&](std::string_view t) {
    if (!ok) return;
    std::uint64_t r = 0;
    if (tokenValue(t, "irecv-post", r)) {
      out.irecvPosts.push_back(r);
      return;
    }
    if (tokenValue(t, "isend-done", r)) {
      out.isendDones.push_back(r);
      return;
    }
    if (t.starts_with("coll=")) {
      std::string_view rest = t.substr(5);
      std::string_view parts[5];
      int n = 0;
      while (n < 5) {
        std::size_t colon = rest.find(':');
        parts[n++] = rest.substr(0, colon);
        if (colon == std::string_view::npos) break;
        rest.remove_prefix(colon + 1);
      }
      CallTokens::Collective c;
      c.op = classifyMpiName(parts[0]);
      if (n == 5 && isCollective(c.op) && parseWhole(parts[1], c.comm) &&
          parseWhole(parts[2], c.root) && parseWhole(parts[3], c.sent) &&
          parseWhole(parts[4], c.received)) {
        out.collectives.push_back(c);
        return;
      }
    }
    ok = false;
    bad.assign(t);
  });
  return ok;
}

}  // namespace perwiz::alog
