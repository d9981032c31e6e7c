// One device's execution queue: a thread of its own that runs the device's work (copies
// in, executions) in the order it was queued, so that devices run side by side and a
// caller never waits for a device to start.
#pragma once

#include <atomic>
#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>

namespace kiln::runtime {

class DeviceQueue {
 public:
  DeviceQueue();
  // Runs what is queued, then stops.
  ~DeviceQueue();
  DeviceQueue(const DeviceQueue&) = delete;
  DeviceQueue& operator=(const DeviceQueue&) = delete;

  // Queues `task` (which must not throw). Throws ApiFailure (FAILED_PRECONDITION) once
  // the queue has stopped.
  void push(std::function<void()> task);
  // Runs `task` (which must not throw) on the calling thread, as the device's next
  // work, when the device is idle (nothing queued or running); false, having run
  // nothing, when it is busy. Never waits: a task queued by another thread at the same
  // moment may run first (then this one is not run here). Work queued meanwhile waits
  // for it, so the device still runs one thing at a time. (A tiny program costs less
  // than handing it to the queue's thread and back.)
  template <class Task>
  bool runHereIfIdle(Task&& task) {
    size_t idle = 0;
    if (!pending_.compare_exchange_strong(idle, 1, std::memory_order_acq_rel)) return false;
    if (!running_.try_lock()) {  // the queue's thread took a task pushed just now
      pending_.fetch_sub(1, std::memory_order_release);
      return false;
    }
    task();
    running_.unlock();
    pending_.fetch_sub(1, std::memory_order_release);
    return true;
  }
  // Runs what is queued, then stops the thread (later pushes fail). Idempotent.
  void stop();

 private:
  void loop();

  std::mutex mutex_;
  std::condition_variable cv_;
  std::deque<std::function<void()>> tasks_;
  bool stopping_ = false;
  std::atomic<size_t> queued_{0};  // tasks_.size(), for the spin before the queue sleeps
  // Tasks queued or running, and a runHereIfIdle's: the device is idle at 0.
  std::atomic<size_t> pending_{0};
  std::mutex running_;  // held while a task runs, on the queue's thread or a caller's
  std::thread thread_;
};

}  // namespace kiln::runtime
