// Completions, and how a failure becomes a plugin error code.
#include "runtime/completion.h"

#include <algorithm>
#include <new>

#include "runtime/spin_wait.h"
#include "support/error.h"

namespace kiln::runtime {

namespace {

FailureCode codeOf(ErrorKind kind) {
  switch (kind) {
    case ErrorKind::Parse:
    case ErrorKind::Verify:
    case ErrorKind::Shape:
    case ErrorKind::Type:
    case ErrorKind::Usage:
      return FailureCode::InvalidArgument;
    case ErrorKind::Unsupported:
      return FailureCode::Unimplemented;
    case ErrorKind::Io:
      return FailureCode::Io;
    case ErrorKind::Runtime:
      return FailureCode::Runtime;
    case ErrorKind::ResourceExhausted:
      return FailureCode::ResourceExhausted;
    case ErrorKind::Internal:
      return FailureCode::Internal;
  }
  return FailureCode::Unknown;
}

}  // namespace

Failure currentFailure() {
  try {
    throw;
  } catch (const ApiFailure& e) {
    return e.failure();
  } catch (const Error& e) {
    // With a position, the diagnostic a user acts on: `file:line:col: error: ...` and
    // the line with a caret; without one, just the message (a host adds "error: ").
    return {codeOf(e.kind()), e.pos().known() ? e.format() : e.message()};
  } catch (const std::bad_alloc&) {
    return {FailureCode::ResourceExhausted, "out of memory"};
  } catch (const std::exception& e) {
    return {FailureCode::Internal, std::string("internal error: ") + e.what()};
  } catch (...) {
    return {FailureCode::Unknown, "unknown exception"};
  }
}

void Completion::set(std::optional<Failure> failure) {
  std::vector<Callback> callbacks;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (ready_) return;
    failure_ = std::move(failure);
    ready_ = true;
    callbacks.swap(callbacks_);
  }
  cv_.notify_all();
  // failure_ no longer changes once ready_ is set, so reading it unlocked is safe.
  for (Callback& callback : callbacks) callback(failure_);
}

bool Completion::isReady() const { return ready_.load(std::memory_order_acquire); }

// failure_ no longer changes once ready_ is set (acquired here).
bool Completion::succeeded() const { return ready_.load(std::memory_order_acquire) && !failure_; }

std::optional<Failure> Completion::await() const {
  spinUntil([&] { return ready_.load(std::memory_order_acquire); });
  std::unique_lock<std::mutex> lock(mutex_);
  cv_.wait(lock, [&] { return ready_.load(); });
  return failure_;
}

void Completion::onReady(Callback callback) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!ready_) {
      callbacks_.push_back(std::move(callback));
      return;
    }
  }
  callback(failure_);
}

void whenAll(const std::vector<EventRef>& events, std::function<void(const std::optional<Failure>&)> then) {
  // Events that are all ready already (the common case: arguments that were computed
  // or copied in earlier) need no bookkeeping.
  if (std::all_of(events.begin(), events.end(), [](const EventRef& e) { return e->isReady(); })) {
    for (const EventRef& e : events)
      if (std::optional<Failure> failure = e->await()) return then(failure);
    return then(std::nullopt);
  }
  struct Pending {
    std::mutex mutex;
    size_t left;
    std::vector<std::optional<Failure>> failures;
    std::function<void(const std::optional<Failure>&)> then;
  };
  auto pending = std::make_shared<Pending>();
  pending->left = events.size();
  pending->failures.resize(events.size());
  pending->then = std::move(then);
  for (size_t i = 0; i < events.size(); ++i) {
    events[i]->onReady([pending, i](const std::optional<Failure>& failure) {
      {
        std::lock_guard<std::mutex> lock(pending->mutex);
        pending->failures[i] = failure;
        if (--pending->left != 0) return;
      }
      for (const std::optional<Failure>& f : pending->failures)
        if (f) return pending->then(f);
      pending->then(std::nullopt);
    });
  }
}

}  // namespace kiln::runtime
