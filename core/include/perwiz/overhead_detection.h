// Statistical detection of communication overhead (Kluge et al.): every communication call of
// a trace gets a "usual" maximum time t_max for its class — its MPI function, the number of
// processes p of its communicator and its bytes b — and its overhead t_oh = max(t − t_max, 0).
//
// t_max comes from a fit of the class's own durations in the trace (duration_fit.h) or from a
// measured profile T_f(p, b) (overhead_profile.h). Totals per call site, function and rank say
// where the program loses time in communication. The trace model keeps no source locations
// (OTF2 source-code attributes are not read), so a call site is the innermost user state or
// region enclosing the call (e.g. "PRGN_step" or a Score-P user region) plus the MPI function.
//
// For views: classes[c] has the histogram, both fits and t_max of class c; classOfCall and
// overheadOfCall give every call's class and t_oh, indexed like RankTrace::mpiCalls.
#pragma once

#include "perwiz/duration_fit.h"
#include "perwiz/overhead_profile.h"
#include "perwiz/trace.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace perwiz {

// The communication events of the paper (§4): calls that transmit data or complete
// non-blocking calls, and collectives. Init, Finalize and other MPI calls (Comm_rank, Wtime …)
// are not analysed.
bool isCommunicationCall(MpiOp op);
// The name a call's class and profile entry use: the canonical MPI name ("MPI_Send" for
// "SEND", "PMPI_Send" …), else the function's own name.
std::string overheadFunctionName(const Function& function);

struct OverheadOptions {
  FitOptions fit;
  // When set, classes whose function the profile has take t_max from it; the others are fitted.
  const OverheadProfile* profile = nullptr;
};

enum class ThresholdSource : std::uint8_t { Fit, Profile };
std::string_view thresholdSourceName(ThresholdSource source);  // "fit", "profile"

// What one group of calls took and lost.
struct OverheadTotals {
  std::uint64_t calls = 0;
  TimeNs timeNs = 0;      // Σ t
  TimeNs overheadNs = 0;  // Σ t_oh
};

// One (function, p, b) class.
struct CallClassOverhead {
  std::string function;
  std::uint32_t processes = 0;  // p: collective participants or the message's communicator size
  std::uint64_t bytes = 0;      // b: message bytes of the call; collectives max(sent, received)
  OverheadTotals totals;
  TimeNs minNs = 0;             // min(S)
  TimeNs tMaxNs = 0;            // kUnboundedNs with q_max = 1
  ThresholdSource source = ThresholdSource::Fit;
  std::optional<SampleFit> fit;  // the class's own fit (source == Fit)
  bool outsideProfileGrid = false;  // source == Profile and (p, b) outside its base points
};

struct SiteOverhead {
  std::string region;    // enclosing user state / region, kTopLevelSite when none
  std::string function;  // MPI function
  OverheadTotals totals;
};
inline constexpr const char* kTopLevelSite = "(top level)";

struct FunctionOverhead {
  std::string function;
  OverheadTotals totals;
};

struct RankOverhead {
  std::uint32_t rank = 0;
  OverheadTotals totals;
};

struct OverheadAnalysis {
  double quantile = 0.95;
  std::vector<CallClassOverhead> classes;  // by overhead, largest first
  std::vector<SiteOverhead> sites;         // by overhead, largest first
  std::vector<FunctionOverhead> functions; // by overhead, largest first
  std::vector<RankOverhead> ranks;         // every rank, by overhead, largest first
  OverheadTotals total;
  // [rank][i]: for the i-th MPI call of the rank (event trace.ranks[rank].mpiCalls[i], the
  // INDEX of event id RANK:INDEX): its class in `classes`, kNone32 if not a communication call,
  // and its t_oh (0 when not analysed).
  std::vector<std::vector<std::uint32_t>> classOfCall;
  std::vector<std::vector<TimeNs>> overheadOfCall;

  // t_oh of event `event` (an index into the rank's event columns); 0 for events that are not
  // analysed calls.
  TimeNs overheadAtEvent(const Trace& trace, std::uint32_t rank, std::uint32_t event) const;
};

// Throws std::invalid_argument if options.fit is invalid (validateFitOptions).
OverheadAnalysis analyzeOverhead(const Trace& trace, const OverheadOptions& options = {});

}  // namespace perwiz
