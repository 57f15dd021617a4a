#include "crash_guard.h"

#include "def_file.h"
#include "state.h"

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <unistd.h>

namespace perwiz::trace {

#ifndef PERWIZ_TRACE_SMPI
namespace {

constexpr int kSignals[] = {SIGTERM, SIGINT, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2,
                            SIGSEGV, SIGBUS,  SIGFPE, SIGILL,  SIGABRT};
constexpr int kSignalCount = sizeof kSignals / sizeof kSignals[0];
struct sigaction gPrevious[kSignalCount];
bool gInstalled = false;
bool gAtexitRegistered = false;

// Buffer to file with write(2) only; skipped if the signal interrupted a flush in progress.
void flushFromHandler() {
  Recorder& r = g.rec;
  if (r.flushing || r.evtFd < 0 || !r.buffer) return;
  const char* p = reinterpret_cast<const char*>(r.buffer);
  std::size_t size = r.used;
  while (size > 0) {
    const ssize_t n = ::write(r.evtFd, p, size);
    if (n <= 0) break;
    p += n;
    size -= static_cast<std::size_t>(n);
  }
  r.used = 0;
}

void onSignal(int signo) {
  int index = 0;
  while (index < kSignalCount && kSignals[index] != signo) ++index;
  if (g.active) {
    g.active = false;
    flushFromHandler();
    defLineSignalSafe("signal", signo);
  }
  if (index < kSignalCount) ::sigaction(signo, &gPrevious[index], nullptr);
  // Faults re-execute the faulting instruction on return and reach the previous handler (or
  // the default action) with their real siginfo; other signals are raised again.
  if (signo != SIGSEGV && signo != SIGBUS && signo != SIGFPE && signo != SIGILL) ::raise(signo);
}

void onExit() {
  if (!g.active) return;
  g.active = false;
  defLine("exit");
  std::fprintf(stderr,
               "perwiz-trace: rank %d exited without MPI_Finalize; its records so far are in "
               "%s/perwiz-raw; make a trace of what the ranks wrote with: perwiz-trace-convert %s\n",
               g.rank, g.traceDir, g.traceDir);
  flushBuffer();
}

}  // namespace

void installCrashGuard() {
  struct sigaction action = {};
  action.sa_handler = &onSignal;
  sigemptyset(&action.sa_mask);
  action.sa_flags = SA_RESTART;
  for (int i = 0; i < kSignalCount; ++i) {
    // A signal the program ignores stays ignored.
    struct sigaction current;
    if (::sigaction(kSignals[i], nullptr, &current) == 0 && current.sa_handler == SIG_IGN) {
      gPrevious[i] = current;
      continue;
    }
    ::sigaction(kSignals[i], &action, &gPrevious[i]);
  }
  gInstalled = true;
  if (!gAtexitRegistered) gAtexitRegistered = std::atexit(&onExit) == 0;
}

void removeCrashGuard() {
  if (!gInstalled) return;
  for (int i = 0; i < kSignalCount; ++i) ::sigaction(kSignals[i], &gPrevious[i], nullptr);
  gInstalled = false;
}
#else
void installCrashGuard() {}
void removeCrashGuard() {}
#endif

}  // namespace perwiz::trace
