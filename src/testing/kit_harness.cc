// The conformance kits' harness: what they report of crashes and hangs.
#include "testing/kit_harness.h"

#include <unistd.h>

#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <thread>

namespace kiln::testing::kit {

namespace {

char runningCheck[256] = "loading the plugin";
std::atomic<int64_t> checkStartedAt{0};  // steady-clock milliseconds; 0: none running

int64_t nowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// The name of a signal the crash handlers catch, without strsignal (which a signal
// handler may not call).
const char* signalName(int signal) {
  switch (signal) {
    case SIGSEGV: return "Segmentation fault";
    case SIGBUS: return "Bus error";
    case SIGFPE: return "Floating point exception";
    case SIGILL: return "Illegal instruction";
    case SIGABRT: return "Aborted";
    default: return "(another signal)";
  }
}

void onCrash(int signal) {
  const char* parts[] = {"  CRASH ", runningCheck, ": the plugin raised signal ", signalName(signal), "\n"};
  for (const char* p : parts) (void)!write(2, p, strlen(p));
  _exit(1);
}

}  // namespace

void installCrashHandlers() {
  for (int signal : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT}) std::signal(signal, onCrash);
}

void startWatchdog(double seconds) {
  std::thread([seconds] {
    for (;;) {
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
      int64_t started = checkStartedAt.load();
      if (started != 0 && nowMs() - started > static_cast<int64_t>(seconds * 1000)) {
        const std::string line = "  HANG  " + std::string(runningCheck) + ": no answer after " +
                                 std::to_string(static_cast<int>(seconds)) + " s\n";
        (void)!write(2, line.data(), line.size());
        _exit(1);
      }
    }
  }).detach();
}

void beginCheck(const std::string& name) {
  std::snprintf(runningCheck, sizeof runningCheck, "%s", name.c_str());
  checkStartedAt = nowMs();
}

void endCheck() { checkStartedAt = 0; }

}  // namespace kiln::testing::kit
