// The completion of asynchronous work inside a plugin (what PJRT's events report): set
// once, with the failure of the work or none; awaited, polled, or given callbacks.
// Buffers carry one (their contents are there), executions and copies return one, and a
// failure passes from the completions an execution waited for to those of what it
// produces.
#pragma once

#include <atomic>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace kiln::runtime {

// What kind of failure, as a plugin's error objects report it (pjrt/errors.cc maps each
// to PJRT's code).
enum class FailureCode {
  Unknown,
  InvalidArgument,     // the caller's mistake, or a program that does not parse or verify
  Unimplemented,       // what the plugin does not do ("unsupported: ...")
  FailedPrecondition,  // a handle in a state that forbids it (deleted, donated)
  ResourceExhausted,   // device memory, or the host's
  Io,                  // damaged files and serialized executables
  Runtime,             // a program's own run failed
  Internal,            // a bug of the plugin
  Cancelled,
};

// What went wrong, as a plugin reports it.
struct Failure {
  FailureCode code = FailureCode::Unknown;
  std::string message;
};

// Thrown inside a plugin for failures that have a code but no kiln::ErrorKind
// (a deleted buffer, the memory limit); the API boundary turns it into an error object.
class ApiFailure : public std::exception {
 public:
  ApiFailure(FailureCode code, std::string message) : failure_{code, std::move(message)} {}
  const char* what() const noexcept override { return failure_.message.c_str(); }
  const Failure& failure() const { return failure_; }

 private:
  Failure failure_;
};

// The failure of the exception being handled (call inside a catch block): kiln::Error
// by its kind (with its position and source line when it has one), ApiFailure by its
// code, std::bad_alloc as RESOURCE_EXHAUSTED, anything else as INTERNAL.
Failure currentFailure();

class Completion {
 public:
  using Callback = std::function<void(const std::optional<Failure>&)>;

  // Marks the event ready and runs its callbacks (on this thread, outside the lock).
  // Only the first call counts.
  void set(std::optional<Failure> failure = std::nullopt);
  bool isReady() const;
  // Ready, and without a failure (no waiting, no lock).
  bool succeeded() const;
  // Blocks until ready; returns the failure, if any.
  std::optional<Failure> await() const;
  // Runs `callback` once when ready: now, on this thread, if it already is.
  void onReady(Callback callback);

 private:
  mutable std::mutex mutex_;
  mutable std::condition_variable cv_;
  std::atomic<bool> ready_{false};  // written under mutex_; read without it by await's spin
  std::optional<Failure> failure_;
  std::vector<Callback> callbacks_;
};

using EventRef = std::shared_ptr<Completion>;

// Calls `then` once every event of `events` is ready, with the failure of the first
// (in order) that failed, if any; at once when there are none.
void whenAll(const std::vector<EventRef>& events, std::function<void(const std::optional<Failure>&)> then);

}  // namespace kiln::runtime
