// The conformance kit's harness: what it reports of crashes and hangs, and the names
// and sizes of the API's codes.
#include "testing/plugin_kit.h"

#include <unistd.h>

#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <thread>

namespace kiln::testing::plugin_kit {

namespace {


char runningCheck[256] = "loading the plugin";
std::atomic<int64_t> checkStartedAt{0};  // steady-clock milliseconds; 0: none running

int64_t nowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

void onCrash(int signal) {
  const char* parts[] = {"  CRASH ", runningCheck, ": the plugin raised signal ", strsignal(signal), "\n"};
  for (const char* p : parts) (void)!write(2, p, strlen(p));
  _exit(1);
}

}  // namespace

void installCrashHandlers() {
  for (int signal : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT}) std::signal(signal, onCrash);
}

// Ends the process when a check runs past `seconds` (a plugin that hangs).
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

const char* codeName(int code) {
  switch (code) {
    case KILN_ERROR_INVALID_ARGUMENT: return "INVALID_ARGUMENT";
    case KILN_ERROR_UNIMPLEMENTED: return "UNIMPLEMENTED";
    case KILN_ERROR_FAILED_PRECONDITION: return "FAILED_PRECONDITION";
    case KILN_ERROR_RESOURCE_EXHAUSTED: return "RESOURCE_EXHAUSTED";
    case KILN_ERROR_IO: return "IO";
    case KILN_ERROR_RUNTIME: return "RUNTIME";
    case KILN_ERROR_INTERNAL: return "INTERNAL";
    case KILN_ERROR_UNKNOWN: return "UNKNOWN";
    case KILN_ERROR_CANCELLED: return "CANCELLED";
    default: return "(not a KilnErrorCode)";
  }
}

// The element size of each KilnDType (PRED: one byte).
size_t elementSize(KilnDType t) {
  switch (t) {
    case KILN_DTYPE_PRED:
    case KILN_DTYPE_S8:
    case KILN_DTYPE_U8: return 1;
    case KILN_DTYPE_S16:
    case KILN_DTYPE_U16:
    case KILN_DTYPE_F16:
    case KILN_DTYPE_BF16: return 2;
    case KILN_DTYPE_S32:
    case KILN_DTYPE_U32:
    case KILN_DTYPE_F32: return 4;
    case KILN_DTYPE_S64:
    case KILN_DTYPE_U64:
    case KILN_DTYPE_F64:
    case KILN_DTYPE_C64: return 8;
    case KILN_DTYPE_C128: return 16;
    default: return 0;
  }
}

}  // namespace kiln::testing::plugin_kit
