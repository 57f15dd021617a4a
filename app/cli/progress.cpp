#include "progress.h"

#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <iostream>

namespace perwiz::cli {

TerminalProgress& TerminalProgress::get() {
  static TerminalProgress p;
  return p;
}

TerminalProgress::~TerminalProgress() {
  {
    std::lock_guard lock(m_);
    stop_ = true;
  }
  wake_.notify_all();
  if (ticker_.joinable()) ticker_.join();
}

void TerminalProgress::addOptions(CLI::App& command) {
  if (!command.get_option_no_throw("--progress"))
    command.add_flag("--progress")->description("progress on stderr even when it is no terminal or the output is JSON");
  if (!command.get_option_no_throw("--quiet"))
    command.add_flag("--quiet")->description("no progress on stderr (it is shown only on a terminal anyway)");
}

void TerminalProgress::configure(const CLI::App& command) {
  const auto given = [&](const char* flag) {
    const CLI::Option* o = command.get_option_no_throw(flag);
    return o && o->count() > 0;
  };
  on_ = !given("--quiet") && (given("--progress") || (!given("--json") && isatty(2)));
  // Tests see every phase, however short (tests/test_cli_progress.cpp).
  if (const char* d = std::getenv("PERWIZ_PROGRESS_DELAY_MS")) delay_ = std::chrono::milliseconds(std::atol(d));
}

void TerminalProgress::phase(const std::string& name, double fraction) {
  if (!on_) return;
  std::lock_guard lock(m_);
  if (!ticker_.joinable()) ticker_ = std::thread([this] { run(); });
  if (active_ && name == name_) {  // the same phase again: new progress only
    fraction_ = fraction;
    return;
  }
  name_ = name;
  fraction_ = fraction;
  permille_ = nullptr;
  active_ = true;
  started_ = std::chrono::steady_clock::now();
  if (delay_.count() == 0) draw();
  wake_.notify_all();
}

void TerminalProgress::fraction(double f) {
  if (!on_) return;
  std::lock_guard lock(m_);
  fraction_ = f;
}

void TerminalProgress::follow(const std::atomic<std::uint32_t>* permille) {
  if (!on_) return;
  std::lock_guard lock(m_);
  permille_ = permille;
}

void TerminalProgress::done() {
  if (!on_) return;
  std::lock_guard lock(m_);
  active_ = false;
  permille_ = nullptr;
  erase();
}

void TerminalProgress::print(const std::function<void()>& write) {
  if (!on_) {
    write();
    return;
  }
  std::lock_guard lock(m_);
  erase();
  write();
  std::cerr << std::flush;
  if (active_ && delay_.count() == 0) draw();
}

void TerminalProgress::run() {
  std::unique_lock lock(m_);
  while (!stop_) {
    wake_.wait_for(lock, std::chrono::milliseconds(100));
    if (stop_) break;
    if (active_ && std::chrono::steady_clock::now() - started_ >= delay_) draw();
  }
}

void TerminalProgress::draw() {
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started_).count();
  double f = fraction_;
  if (permille_) f = static_cast<double>(permille_->load(std::memory_order_relaxed)) / 1000.0;
  char text[64];
  if (f >= 0)
    std::snprintf(text, sizeof text, ": %d %% · %.1f s", static_cast<int>(std::floor(std::min(f, 1.0) * 100)), seconds);
  else
    std::snprintf(text, sizeof text, " · %.1f s", seconds);
  // "\r" to the line's start, "\x1b[K" erases what a longer line left behind.
  std::cerr << '\r' << name_ << text << "\x1b[K" << std::flush;
  drawn_ = true;
}

void TerminalProgress::erase() {
  if (!drawn_) return;
  std::cerr << "\r\x1b[K" << std::flush;
  drawn_ = false;
}

}  // namespace perwiz::cli
