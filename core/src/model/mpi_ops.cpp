#include "perwiz/mpi_ops.h"

#include <array>
#include <cctype>
#include <string>

namespace perwiz {
namespace {

struct OpName {
  MpiOp op;
  std::string_view canonical;  // "MPI_Send"
  std::string_view key;        // upper case without prefix: "SEND"
};

// Table order does not matter; lookups compare whole keys (and CLOG-truncated prefixes).
constexpr std::array kOps{
    OpName{MpiOp::Send, "MPI_Send", "SEND"},
    OpName{MpiOp::Bsend, "MPI_Bsend", "BSEND"},
    OpName{MpiOp::Ssend, "MPI_Ssend", "SSEND"},
    OpName{MpiOp::Rsend, "MPI_Rsend", "RSEND"},
    OpName{MpiOp::Recv, "MPI_Recv", "RECV"},
    OpName{MpiOp::Sendrecv, "MPI_Sendrecv", "SENDRECV"},
    OpName{MpiOp::SendrecvReplace, "MPI_Sendrecv_replace", "SENDRECV_REPLACE"},
    OpName{MpiOp::Isend, "MPI_Isend", "ISEND"},
    OpName{MpiOp::Ibsend, "MPI_Ibsend", "IBSEND"},
    OpName{MpiOp::Issend, "MPI_Issend", "ISSEND"},
    OpName{MpiOp::Irsend, "MPI_Irsend", "IRSEND"},
    OpName{MpiOp::Irecv, "MPI_Irecv", "IRECV"},
    OpName{MpiOp::Start, "MPI_Start", "START"},
    OpName{MpiOp::Startall, "MPI_Startall", "STARTALL"},
    OpName{MpiOp::Wait, "MPI_Wait", "WAIT"},
    OpName{MpiOp::Waitall, "MPI_Waitall", "WAITALL"},
    OpName{MpiOp::Waitany, "MPI_Waitany", "WAITANY"},
    OpName{MpiOp::Waitsome, "MPI_Waitsome", "WAITSOME"},
    OpName{MpiOp::Test, "MPI_Test", "TEST"},
    OpName{MpiOp::Testall, "MPI_Testall", "TESTALL"},
    OpName{MpiOp::Testany, "MPI_Testany", "TESTANY"},
    OpName{MpiOp::Testsome, "MPI_Testsome", "TESTSOME"},
    OpName{MpiOp::Probe, "MPI_Probe", "PROBE"},
    OpName{MpiOp::Iprobe, "MPI_Iprobe", "IPROBE"},
    OpName{MpiOp::Barrier, "MPI_Barrier", "BARRIER"},
    OpName{MpiOp::Bcast, "MPI_Bcast", "BCAST"},
    OpName{MpiOp::Gather, "MPI_Gather", "GATHER"},
    OpName{MpiOp::Gatherv, "MPI_Gatherv", "GATHERV"},
    OpName{MpiOp::Scatter, "MPI_Scatter", "SCATTER"},
    OpName{MpiOp::Scatterv, "MPI_Scatterv", "SCATTERV"},
    OpName{MpiOp::Allgather, "MPI_Allgather", "ALLGATHER"},
    OpName{MpiOp::Allgatherv, "MPI_Allgatherv", "ALLGATHERV"},
    OpName{MpiOp::Alltoall, "MPI_Alltoall", "ALLTOALL"},
    OpName{MpiOp::Alltoallv, "MPI_Alltoallv", "ALLTOALLV"},
    OpName{MpiOp::Alltoallw, "MPI_Alltoallw", "ALLTOALLW"},
    OpName{MpiOp::Allreduce, "MPI_Allreduce", "ALLREDUCE"},
    OpName{MpiOp::Reduce, "MPI_Reduce", "REDUCE"},
    OpName{MpiOp::ReduceScatter, "MPI_Reduce_scatter", "REDUCE_SCATTER"},
    OpName{MpiOp::ReduceScatterBlock, "MPI_Reduce_scatter_block", "REDUCE_SCATTER_BLOCK"},
    OpName{MpiOp::Scan, "MPI_Scan", "SCAN"},
    OpName{MpiOp::Exscan, "MPI_Exscan", "EXSCAN"},
    OpName{MpiOp::Init, "MPI_Init", "INIT"},
    OpName{MpiOp::InitThread, "MPI_Init_thread", "INIT_THREAD"},
    OpName{MpiOp::Finalize, "MPI_Finalize", "FINALIZE"},
};

// CLOG keeps state names to 15 characters ("SENDRECV_REPLAC"); accept such a prefix when it
// names exactly one function.
constexpr std::size_t kClogNameLimit = 15;

std::string upperKey(std::string_view name) {
  std::string s;
  s.reserve(name.size());
  for (char c : name) s.push_back(static_cast<char>(std::toupper(static_cast<unsigned char>(c))));
  // Trim trailing blanks (ALOG comments) before comparing.
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.pop_back();
  return s;
}

}  // namespace

MpiOp classifyMpiName(std::string_view name) {
  std::string key = upperKey(name);
  bool prefixed = false;
  for (std::string_view p : {std::string_view("PMPI_"), std::string_view("MPI_")}) {
    if (key.size() > p.size() && key.compare(0, p.size(), p) == 0) {
      key.erase(0, p.size());
      prefixed = true;
      break;
    }
  }
  // MPE's automatic logging writes upper-case names ("SEND"); user code that wraps its MPI
  // calls in states of its own names them in mixed case ("Send" in MPICH's monte example).
  // Mixed-case unprefixed words that are also common user-state names ("Init", "Test", "Scan",
  // ...) stay user states.
  bool upperOnly = true;
  for (char c : name)
    if (std::islower(static_cast<unsigned char>(c))) upperOnly = false;
  auto acceptable = [&](MpiOp op) {
    if (prefixed || upperOnly) return true;
    switch (op) {
      case MpiOp::Init: case MpiOp::InitThread: case MpiOp::Finalize: case MpiOp::Start:
      case MpiOp::Startall: case MpiOp::Test: case MpiOp::Scan: case MpiOp::Probe:
        return false;
      default: return true;
    }
  };
  for (const auto& e : kOps)
    if (key == e.key) return acceptable(e.op) ? e.op : MpiOp::None;
  if (key.size() == kClogNameLimit) {
    const OpName* found = nullptr;
    int hits = 0;
    for (const auto& e : kOps)
      if (e.key.size() > key.size() && e.key.compare(0, key.size(), key) == 0) {
        found = &e;
        ++hits;
      }
    if (hits == 1 && acceptable(found->op)) return found->op;
  }
  return prefixed ? MpiOp::OtherMpi : MpiOp::None;
}

bool hasMpiPrefix(std::string_view name) {
  auto startsWith = [&](std::string_view prefix) {
    if (name.size() <= prefix.size()) return false;  // the prefix alone names nothing
    for (std::size_t i = 0; i < prefix.size(); ++i)
      if (std::toupper(static_cast<unsigned char>(name[i])) != prefix[i]) return false;
    return true;
  };
  return startsWith("MPI_") || startsWith("PMPI_");
}

CallClass callClass(MpiOp op) {
  switch (op) {
    case MpiOp::None: return CallClass::None;
    case MpiOp::Send: case MpiOp::Bsend: case MpiOp::Ssend: case MpiOp::Rsend:
      return CallClass::Send;
    case MpiOp::Recv: return CallClass::Recv;
    case MpiOp::Sendrecv: case MpiOp::SendrecvReplace: return CallClass::SendRecv;
    case MpiOp::Isend: case MpiOp::Ibsend: case MpiOp::Issend: case MpiOp::Irsend:
    case MpiOp::Start: case MpiOp::Startall:
      return CallClass::Isend;
    case MpiOp::Irecv: return CallClass::Irecv;
    case MpiOp::Wait: case MpiOp::Waitall: case MpiOp::Waitany: case MpiOp::Waitsome:
    case MpiOp::Test: case MpiOp::Testall: case MpiOp::Testany: case MpiOp::Testsome:
      return CallClass::Completion;
    default:
      return isCollective(op) ? CallClass::Collective : CallClass::Other;
  }
}

bool isCollective(MpiOp op) { return op >= MpiOp::Barrier && op <= MpiOp::Exscan; }

bool isPointToPoint(MpiOp op) {
  CallClass c = callClass(op);
  return c == CallClass::Send || c == CallClass::Recv || c == CallClass::SendRecv ||
         c == CallClass::Isend || c == CallClass::Irecv || c == CallClass::Completion;
}

std::string_view mpiOpName(MpiOp op) {
  if (op == MpiOp::None) return "";
  for (const auto& e : kOps)
    if (e.op == op) return e.canonical;
  return "MPI_?";
}

// OTF2_CollectiveOp values (OTF2 3.0): BARRIER 0, BCAST 1, GATHER 2, GATHERV 3, SCATTER 4,
// SCATTERV 5, ALLGATHER 6, ALLGATHERV 7, ALLTOALL 8, ALLTOALLV 9, ALLTOALLW 10, ALLREDUCE 11,
// REDUCE 12, REDUCE_SCATTER 13, SCAN 14, EXSCAN 15, REDUCE_SCATTER_BLOCK 16.
namespace {
constexpr std::array<MpiOp, 17> kOtf2Collectives{
    MpiOp::Barrier,   MpiOp::Bcast,      MpiOp::Gather,        MpiOp::Gatherv,
    MpiOp::Scatter,   MpiOp::Scatterv,   MpiOp::Allgather,     MpiOp::Allgatherv,
    MpiOp::Alltoall,  MpiOp::Alltoallv,  MpiOp::Alltoallw,     MpiOp::Allreduce,
    MpiOp::Reduce,    MpiOp::ReduceScatter, MpiOp::Scan,       MpiOp::Exscan,
    MpiOp::ReduceScatterBlock};
}  // namespace

MpiOp mpiOpFromOtf2Collective(int otf2Op) {
  if (otf2Op < 0 || otf2Op >= static_cast<int>(kOtf2Collectives.size())) return MpiOp::None;
  return kOtf2Collectives[static_cast<std::size_t>(otf2Op)];
}

int otf2CollectiveFromMpiOp(MpiOp op) {
  for (std::size_t i = 0; i < kOtf2Collectives.size(); ++i)
    if (kOtf2Collectives[i] == op) return static_cast<int>(i);
  return -1;
}

}  // namespace perwiz
