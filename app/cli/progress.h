// Progress on stderr for a person at a terminal (issue #42): one line, redrawn about ten times a
// second, "loading ring.alog: 42 % · 1.3 s" (phase, percent where known, elapsed time), erased
// when the phase ends and before any other text goes to stderr. Off when stderr is no terminal
// (a pipe, a file) and when the command's output is JSON; --progress forces it on, --quiet off.
// Commands name their phases; the drawing runs on a thread of its own, so phases that report
// nothing (a sweep, a critical path) still show their elapsed time.
#pragma once

#include <CLI/CLI.hpp>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

namespace perwiz::cli {

class TerminalProgress {
 public:
  // The one of this process (perwiz-cli shows one command's progress; perwiz-mpi none: it never
  // calls configure()).
  static TerminalProgress& get();
  ~TerminalProgress();

  // --progress and --quiet on a command (skipped where the command has them already).
  static void addOptions(CLI::App& command);
  // After parsing: on or off for the command about to run (its flags, whether stderr is a
  // terminal, whether it writes JSON: its --json flag).
  void configure(const CLI::App& command);
  bool on() const { return on_; }

  // A phase begins (replacing the last): `fraction` its progress if known (0..1), or -1.
  void phase(const std::string& name, double fraction = -1);
  // Progress within the current phase (0..1).
  void fraction(double f);
  // Progress read by the drawing thread from `permille` (0..1000) until the phase ends: for work
  // that reports into an atomic (ReplayControl).
  void follow(const std::atomic<std::uint32_t>* permille);
  // The phase is over: the line is erased.
  void done();
  // Runs `write` (text for stderr) with the progress line erased first and redrawn after.
  void print(const std::function<void()>& write);

 private:
  TerminalProgress() = default;
  void run();
  void draw();   // with m_ held
  void erase();  // with m_ held

  bool on_ = false;
  std::chrono::milliseconds delay_{400};  // nothing drawn for a phase shorter than this
  std::mutex m_;
  std::condition_variable wake_;
  std::thread ticker_;
  bool stop_ = false;
  bool active_ = false;  // a phase is running
  bool drawn_ = false;   // the line is on the screen
  std::string name_;
  double fraction_ = -1;
  const std::atomic<std::uint32_t>* permille_ = nullptr;
  std::chrono::steady_clock::time_point started_;  // of the phase
};

// The phase lasts while this lives (done() at the end, also on an exception).
class ProgressPhase {
 public:
  explicit ProgressPhase(const std::string& name, double fraction = -1) {
    TerminalProgress::get().phase(name, fraction);
  }
  ~ProgressPhase() { TerminalProgress::get().done(); }
  ProgressPhase(const ProgressPhase&) = delete;
  ProgressPhase& operator=(const ProgressPhase&) = delete;
};

}  // namespace perwiz::cli
