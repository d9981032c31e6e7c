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
  // Runs what is queued, then stops the thread (later pushes fail). Idempotent.
  void stop();

 private:
  void loop();

  std::mutex mutex_;
  std::condition_variable cv_;
  std::deque<std::function<void()>> tasks_;
  bool stopping_ = false;
  std::atomic<size_t> queued_{0};  // tasks_.size(), for the spin before the queue sleeps
  std::thread thread_;
};

}  // namespace kiln::runtime
