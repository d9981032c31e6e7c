// Cancellation (execution_cancel): a running execution stops at its next loop iteration,
// a queued one never runs, a completed one is unaffected, and what depended on a
// cancelled execution fails with it.
#include <chrono>
#include <cmath>
#include <thread>

#include "runtime_test_util.h"

namespace kiln::runtime::testing {
namespace {

using Clock = std::chrono::steady_clock;

double secondsSince(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

class CancellationTest : public ::testing::TestWithParam<const char*> {
 protected:
  void SetUp() override {
    client_.emplace(Plugin::load(GetParam()), ClientOptions{2, 0});
    slow_.emplace(client_->compile(kSlowProgram));
    iterationsPerSecond_ = slowIterations(*client_, *slow_, 0.2) / 0.2;
  }
  Device device(int i) const { return client_->devices()[static_cast<size_t>(i)]; }
  Buffer iterations(double seconds, int d = 0) const {
    return client_->bufferFromHost(i64Scalar(static_cast<int64_t>(iterationsPerSecond_ * seconds)), device(d));
  }

  std::optional<Client> client_;
  std::optional<Executable> slow_;
  double iterationsPerSecond_ = 0;
};

TEST_P(CancellationTest, ARunningExecutionStopsAtItsNextIteration) {
  Buffer n = iterations(20);  // twenty seconds of work
  Buffer x = client_->bufferFromHost(ramp256(), device(0));
  x.readyEvent().await();
  Clock::time_point start = Clock::now();
  Executable::Execution run = slow_->execute({&n, &x}, device(0));
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  run.cancel();
  expectError([&] { run.done.await(); }, ErrorKind::Runtime, "the execution was cancelled");
  expectError([&] { run.outputs[0].toLiteral(); }, ErrorKind::Runtime, "the execution was cancelled");
  EXPECT_LT(secondsSince(start), 5.0);
  // What read the cancelled output fails with it; the device goes on working.
  Executable::Execution after = slow_->execute({&n, &run.outputs[0]}, device(0));
  expectError([&] { after.done.await(); }, ErrorKind::Runtime, "an argument of the execution failed");
  Buffer few = client_->bufferFromHost(i64Scalar(3), device(0));
  slow_->execute({&few, &x}, device(0)).done.await();
}

TEST_P(CancellationTest, AQueuedExecutionNeverStarts) {
  Buffer n = iterations(0.5);
  Buffer x = client_->bufferFromHost(ramp256(), device(0));
  Executable::Execution first = slow_->execute({&n, &x}, device(0));
  Executable::Execution second = slow_->execute({&n, &x}, device(0));  // behind it on the queue
  second.cancel();
  expectError([&] { second.done.await(); }, ErrorKind::Runtime, "cancelled before it started");
  first.done.await();  // the one ahead is not touched
  EXPECT_EQ(first.outputs[0].toLiteral().numElements(), 256);
}

TEST_P(CancellationTest, AnExecutionWaitingForItsArgumentsFailsAtOnce) {
  Buffer n = iterations(20);
  Buffer x = client_->bufferFromHost(ramp256(), device(0));
  Executable::Execution producer = slow_->execute({&n, &x}, device(0));
  Buffer few = client_->bufferFromHost(i64Scalar(3), device(0));
  // Not queued yet: waiting for the producer's output.
  Executable::Execution waiting = slow_->execute({&few, &producer.outputs[0]}, device(0));
  Clock::time_point start = Clock::now();
  waiting.cancel();
  expectError([&] { waiting.done.await(); }, ErrorKind::Runtime, "the execution was cancelled before it started");
  EXPECT_LT(secondsSince(start), 5.0);  // not after the producer's twenty seconds
  EXPECT_FALSE(producer.done.ready());
  producer.cancel();
  expectError([&] { producer.done.await(); }, ErrorKind::Runtime, "cancelled");
}

TEST_P(CancellationTest, ACompletedExecutionIsUnaffected) {
  Buffer n = client_->bufferFromHost(i64Scalar(10), device(0));
  Buffer x = client_->bufferFromHost(ramp256(), device(0));
  Executable::Execution run = slow_->execute({&n, &x}, device(0));
  run.done.await();
  run.cancel();
  run.cancel();  // twice is harmless
  run.done.await();
  double expected = 1.0;  // ramp256()[100], through ten sines
  for (int i = 0; i < 10; ++i) expected = std::sin(expected);
  EXPECT_NEAR(run.outputs[0].toLiteral().floatAt(100), expected, 1e-5);
}

TEST_P(CancellationTest, EveryDeviceOfAMultiDeviceExecutionStops) {
  CompileOptions options;
  options.replicas = 2;
  Executable slow2 = client_->compile(kSlowProgram, options);
  Buffer n0 = iterations(20, 0), n1 = iterations(20, 1);
  Buffer x0 = client_->bufferFromHost(ramp256(), device(0)), x1 = client_->bufferFromHost(ramp256(), device(1));
  Clock::time_point start = Clock::now();
  std::vector<Executable::Execution> runs = slow2.execute({{&n0, &x0}, {&n1, &x1}}, client_->devices());
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  runs[1].cancel();  // either device's event names the whole execution
  for (const Executable::Execution& run : runs)
    expectError([&] { run.done.await(); }, ErrorKind::Runtime, "cancelled");
  EXPECT_LT(secondsSince(start), 5.0);
}

TEST_P(CancellationTest, OnlyAnExecutionsEventCancels) {
  Buffer x = client_->bufferFromHost(ramp256(), device(0));
  Executable::Execution notAnExecution{{}, x.readyEvent()};
  expectError([&] { notAnExecution.cancel(); }, ErrorKind::Usage, "the event is not an execution's completion event");
}

INSTANTIATE_TEST_SUITE_P(Plugins, CancellationTest, ::testing::ValuesIn(kPlugins));

}  // namespace
}  // namespace kiln::runtime::testing
