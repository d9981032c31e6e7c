// A short spin before a blocking wait: when the work being waited for is a few
// microseconds away (a tiny execution on another device's thread), waking a sleeping
// thread costs more than the work itself, so a waiter first polls for a bounded time.
#pragma once

#include <chrono>

namespace kiln::runtime {

// How long a waiter polls before it sleeps.
inline constexpr std::chrono::microseconds kSpinBeforeSleep{30};

// Polls `done()` for up to kSpinBeforeSleep; true as soon as it holds.
template <class Done>
bool spinUntil(Done&& done) {
  const auto until = std::chrono::steady_clock::now() + kSpinBeforeSleep;
  for (int i = 0;; ++i) {
    if (done()) return true;
    __builtin_ia32_pause();
    if ((i & 63) == 63 && std::chrono::steady_clock::now() > until) return false;
  }
}

}  // namespace kiln::runtime
