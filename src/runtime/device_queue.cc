// A device's queue: a plain thread and a deque (the work on it is coarse, whole
// executions and copies, and each device must make progress on its own; a shared pool
// would let one device's long execution hold back another's).
#include "runtime/device_queue.h"

#include "runtime/completion.h"
#include "runtime/spin_wait.h"

namespace kiln::runtime {

DeviceQueue::DeviceQueue() : thread_([this] { loop(); }) {}

DeviceQueue::~DeviceQueue() { stop(); }

void DeviceQueue::push(std::function<void()> task) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (stopping_) throw ApiFailure(FailureCode::FailedPrecondition, "the device's client was destroyed");
    tasks_.push_back(std::move(task));
    pending_.fetch_add(1, std::memory_order_acq_rel);
    queued_.fetch_add(1, std::memory_order_release);
  }
  cv_.notify_one();
}

void DeviceQueue::stop() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  cv_.notify_one();
  if (thread_.joinable()) thread_.join();
}

void DeviceQueue::loop() {
  for (;;) {
    std::function<void()> task;
    spinUntil([&] { return queued_.load(std::memory_order_acquire) > 0; });
    {
      std::unique_lock<std::mutex> lock(mutex_);
      cv_.wait(lock, [&] { return stopping_ || !tasks_.empty(); });
      if (tasks_.empty()) return;  // stopping, and nothing left
      task = std::move(tasks_.front());
      tasks_.pop_front();
      queued_.fetch_sub(1, std::memory_order_relaxed);
    }
    {
      std::lock_guard<std::mutex> device(running_);
      task();
    }
    pending_.fetch_sub(1, std::memory_order_release);
  }
}

}  // namespace kiln::runtime
