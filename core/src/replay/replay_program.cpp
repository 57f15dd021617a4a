// Compiles a measured trace into a replay program (see replay_program.h, docs/model.md): the
// phases in order, and the parts of a program made on first need. The phases: program_builder.h.
#include "program_builder.h"

#include "clean_cuts.h"
#include "perwiz/release.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <numeric>
#include <string>

namespace perwiz {
namespace {

// With PERWIZ_PHASES set, the builder prints each phase's wall time and the process's resident
// set after it to stderr (how the phase numbers in docs/performance.md were measured).
class PhaseLog {
 public:
  PhaseLog() : on_(std::getenv("PERWIZ_PHASES") != nullptr) {}
  void operator()(const char* phase) {
    if (!on_) return;
    const auto now = std::chrono::steady_clock::now();
    long pages = 0, resident = 0;
    if (std::FILE* f = std::fopen("/proc/self/statm", "r")) {
      if (std::fscanf(f, "%ld %ld", &pages, &resident) != 2) resident = 0;
      std::fclose(f);
    }
    std::fprintf(stderr, "replay program: %-13s %8.1f ms, resident %8.1f MB\n", phase,
                 std::chrono::duration<double, std::milli>(now - last_).count(),
                 static_cast<double>(resident) * 4096 / 1e6);
    last_ = now;
  }

 private:
  bool on_;
  std::chrono::steady_clock::time_point last_ = std::chrono::steady_clock::now();
};

}  // namespace

void ProgramBuilder::run() {
  PhaseLog log;  // PERWIZ_PHASES=1: time and resident memory per phase
  auto phase = [&](const char* name) {
    log(name);
    ++phase_;
    phaseRanks_ = 0;
    checkpoint();
  };
  buildUnits();
  phase("units");
  buildMessages(true, costs_ == CostMode::Model);
  phase("messages");
  buildCollectives();
  phase("collectives");
  finishDeps();
  phase("dependencies");
  buildSchedule();
  phase("schedule");
  decompose();
  phase("decompose");
  p_.gap0.seal();
  p_.local0.seal();
  p_.depOff0.seal();
  p_.messageBytes.seal();
  summarize();
}

// The builder's per-unit measured leaves become the storage of the first replay's results
// (the same size): the results then cost no memory beyond the builder's peak. Freed if not
// wanted.
void ProgramBuilder::giveTimes(std::vector<TimeNs>* leave) {
  if (leave) *leave = std::move(leave_);
  releaseMemory(leave_);
}

void ReplayProgram::prepareIncremental(ReplayControl* control) const {
  // A cancel (ReplayControl) throws out of call_once, which then runs again at the next call.
  // Progress (ReplayControl::permille): the three passes over the units and the schedule take
  // 300 each, the clean cuts the rest.
  auto check = [control](std::uint32_t i, std::uint32_t n, unsigned from, double span = 300) {
    if (!control || (i & 0xFFFF) != 0) return;
    if (control->cancel.load(std::memory_order_relaxed)) throw ReplayCancelled();
    control->permille.store(from + unsigned(span * i / std::max<std::uint32_t>(n, 1)), std::memory_order_relaxed);
  };
  std::call_once(incrementalOnce_, [&] {
    const std::uint32_t n = items();
    // Every (source, consumer) pair: the units' dependencies, then the nodes' members.
    auto forEachEdge = [&](unsigned from, auto&& edge) {
      for (std::uint32_t u = 0; u < units; ++u) {
        check(u, units, from);
        for (std::uint32_t d = depBegin[u]; d < depBegin[u + 1]; ++d) edge(depSrc[d], u);
      }
      for (std::uint32_t k = 0; k < nodes(); ++k)
        for (std::uint32_t i = nodeBegin[k]; i < nodeBegin[k + 1]; ++i) edge(nodeMembers[i], units + k);
    };
    // Consumers per item in 2 B (then the fill cursor): with the compact begin array and the
    // list, no array of 4 B per item at the GUI's peak (at 10^8 events it was 0.15 GB above
    // what stays). An item with 65,535 consumers or more: plain begins as the cursor.
    std::vector<std::uint16_t> count(n, 0);
    bool many = false;
    forEachEdge(0, [&](std::uint32_t s, std::uint32_t) {
      if (count[s] == 0xFFFF)
        many = true;
      else
        ++count[s];
    });
    std::vector<std::uint32_t> list;
    if (!many) {
      consumerBegin.assignCounts(count);
      list.resize(consumerBegin.back());
      std::fill(count.begin(), count.end(), std::uint16_t{0});
      forEachEdge(300, [&](std::uint32_t s, std::uint32_t c) { list[consumerBegin[s] + count[s]++] = c; });
      releaseMemory(count);
    } else {
      releaseMemory(count);
      std::vector<std::uint32_t> begin(std::size_t{n} + 1, 0);
      forEachEdge(0, [&](std::uint32_t s, std::uint32_t) { ++begin[s + 1]; });
      std::partial_sum(begin.begin(), begin.end(), begin.begin());
      list.resize(begin.back());
      // begin[s] serves as s's fill cursor (it moves to s's end, begin[s + 1]) and is shifted back.
      forEachEdge(300, [&](std::uint32_t s, std::uint32_t c) { list[begin[s]++] = c; });
      for (std::uint32_t i = n; i > 0; --i) begin[i] = begin[i - 1];
      begin[0] = 0;
      consumerBegin.assign(begin);
    }
    consumers = std::move(list);
    // Each item's schedule position, compact (CompactIndex: about 2 B per item) and written
    // straight from the schedule (no plain array of them at the GUI's peak).
    std::uint32_t pass = 0;
    position.fill(n, [&](auto&& put) {
      for (std::uint32_t i = 0; i < schedule.size(); ++i) {
        check(i, std::uint32_t(schedule.size()), 600 + 150 * pass, 150);
        put(schedule[i], i);
      }
      ++pass;
    });
    cleanCuts = std::make_shared<const CleanCuts>(findCleanCuts(*this));
    if (control) control->permille.store(1000, std::memory_order_relaxed);
  });
}

void ReplayProgram::prepareLinks() const {
  std::call_once(linksOnce_, [this] {
    // Only the mutable link fields are written (the walk reads the rest).
    ProgramBuilder(*trace, const_cast<ReplayProgram&>(*this)).buildLinks();
  });
}

void ReplayProgram::forEachRole(std::uint32_t rank, const std::function<void(std::uint32_t, CommRole)>& onRole) const {
  // Reads only (the links-only builder writes nothing until buildLinks).
  ProgramBuilder(*trace, const_cast<ReplayProgram&>(*this)).rankRoles(rank, onRole);
}

void buildReplayProgram(const Trace& trace, const NetworkModel& model, CostMode costs, ReplayProgram& program,
                        ReplayReport& report, std::vector<TimeNs>* leave, ReplayControl* control) {
  ProgramBuilder b(trace, model, costs, program, report, control);
  b.run();
  b.giveTimes(leave);
}

}  // namespace perwiz
