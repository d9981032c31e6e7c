// Asynchronous execution: execute returns before the program has run, events await and
// call back once, an execution waits for arguments still being computed, a failure
// reaches everything that depended on it, and two devices run at the same time.
#include <algorithm>
#include <atomic>
#include <mutex>
#include <thread>

#include "runtime_test_util.h"

namespace kiln::runtime::testing {
namespace {

class AsyncTest : public ::testing::TestWithParam<const char*> {
 protected:
  void SetUp() override {
    client_.emplace(Plugin::load(GetParam()), ClientOptions{2, 0});
    slow_.emplace(client_->compile(kSlowProgram));
    quick_.emplace(client_->compile(kAddOne));
    iterations_ = slowIterations(*client_, *slow_, 0.5);
  }
  Device device(int i) const { return client_->devices()[static_cast<size_t>(i)]; }

  std::optional<Client> client_;
  std::optional<Executable> slow_, quick_;
  int64_t iterations_ = 0;
};

TEST_P(AsyncTest, ExecuteReturnsBeforeTheProgramFinishes) {
  Buffer n = client_->bufferFromHost(i64Scalar(iterations_), device(0));
  Buffer x = client_->bufferFromHost(ramp256(), device(0));
  Executable::Execution run = slow_->execute({&n, &x}, device(0));
  EXPECT_FALSE(run.done.ready());
  EXPECT_FALSE(run.outputs[0].readyEvent().ready());
  run.done.await();
  EXPECT_TRUE(run.done.ready());
  EXPECT_TRUE(run.outputs[0].readyEvent().ready());
}

TEST_P(AsyncTest, OnReadyCallbacksRunOnce) {
  Buffer n = client_->bufferFromHost(i64Scalar(iterations_ / 4), device(0));
  Buffer x = client_->bufferFromHost(ramp256(), device(0));
  Executable::Execution run = slow_->execute({&n, &x}, device(0));
  // Shared with the callbacks, which may still run on the device's thread when await
  // returns (await and callbacks are woken by the same event, in no set order).
  auto calls = std::make_shared<std::atomic<int>>(0), failures = std::make_shared<std::atomic<int>>(0);
  auto count = [calls, failures](const std::optional<Error>& e) {
    ++*calls;
    if (e) ++*failures;
  };
  run.done.onReady(count);  // registered while running (most likely)
  run.done.await();
  run.done.onReady(count);  // registered when ready: runs at once
  for (int i = 0; i < 1000 && calls->load() < 2; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  EXPECT_EQ(calls->load(), 2);
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_EQ(calls->load(), 2);  // and never again
  EXPECT_EQ(failures->load(), 0);
}

TEST_P(AsyncTest, ExecutionWaitsForAnArgumentInFlight) {
  Buffer n = client_->bufferFromHost(i64Scalar(iterations_), device(0));
  Buffer n1 = client_->bufferFromHost(i64Scalar(iterations_), device(1));
  Buffer ramp = client_->bufferFromHost(ramp256(), device(0));
  Executable::Execution first = slow_->execute({&n, &ramp}, device(0));
  // The second execution takes the first one's output (still being computed) on
  // device 0, copied to device 1 once it is there.
  Buffer moved = first.outputs[0].copyTo(device(1));
  Executable::Execution second = slow_->execute({&n1, &moved}, device(1));
  EXPECT_FALSE(second.done.ready());
  second.done.await();
  EXPECT_TRUE(first.done.ready());  // it could not have finished first
  // The same computation in one run of twice the iterations.
  Buffer n2 = client_->bufferFromHost(i64Scalar(2 * iterations_), device(0));
  Executable::Execution once = slow_->execute({&n2, &ramp}, device(0));
  EXPECT_EQ(second.outputs[0].toLiteral(), once.outputs[0].toLiteral());
}

TEST_P(AsyncTest, AFailureReachesDependentExecutions) {
  // check.expect_eq_const fails while running: x is not [1, 3].
  Executable check = client_->compile(R"(
func.func @main(%x: tensor<2xi32>) -> tensor<2xi32> {
  check.expect_eq_const %x, dense<[1, 3]> : tensor<2xi32>
  return %x : tensor<2xi32>
})");
  Literal bad(Type::tensor(DType::I32, {2}));
  bad.setInt(0, 5);
  Buffer x = client_->bufferFromHost(bad, device(0));
  Executable::Execution failed = check.execute({&x}, device(0));
  Executable::Execution dependent = check.execute({&failed.outputs[0]}, device(0));
  for (const Event* e : {&failed.done, &dependent.done}) {
    try {
      e->await();
      ADD_FAILURE() << "the execution should have failed";
    } catch (const Error& error) {
      EXPECT_EQ(error.kind(), ErrorKind::Runtime);
      EXPECT_NE(std::string(error.what()).find("expect_eq_const"), std::string::npos) << error.what();
    }
  }
  // The output's event has failed already (the execution's did): its callback runs at once.
  int failures = 0;
  dependent.outputs[0].readyEvent().onReady([&](const std::optional<Error>& e) { failures += e ? 1 : 0; });
  EXPECT_EQ(failures, 1);
  EXPECT_THROW(dependent.outputs[0].toLiteral(), Error);
}

TEST_P(AsyncTest, TwoDevicesRunAtOnce) {
  // Device 0 runs a long program; device 1, with a queue of its own, finishes a short
  // one meanwhile (one shared queue would make it wait).
  Buffer n = client_->bufferFromHost(i64Scalar(4 * iterations_), device(0));
  Buffer ramp = client_->bufferFromHost(ramp256(), device(0));
  Executable::Execution longRun = slow_->execute({&n, &ramp}, device(0));
  Buffer x = client_->bufferFromHost(f32({4}, {1, 2, 3, 4}), device(1));
  Executable::Execution shortRun = quick_->execute({&x}, device(1));
  shortRun.done.await();
  EXPECT_FALSE(longRun.done.ready());
  EXPECT_EQ(shortRun.outputs[0].toLiteral(), f32({4}, {2, 3, 4, 5}));
  longRun.done.await();
}

TEST_P(AsyncTest, ASmallProgramRunsOnTheCallersThreadWhenItsDeviceIsIdle) {
  Buffer x = client_->bufferFromHost(f32({4}, {1, 2, 3, 4}), device(0));
  x.readyEvent().await();
  // The copy's event is set before its task has left the device's thread: once that
  // thread is idle (at once, as a rule; tries 10 ms apart allow for a slow machine), a
  // run of the small program is over when execute returns.
  std::optional<Executable::Execution> run;
  for (int attempt = 0; attempt < 50; ++attempt) {
    std::this_thread::sleep_for(std::chrono::milliseconds(attempt == 0 ? 1 : 10));
    run = quick_->execute({&x}, device(0));
    if (run->done.ready()) break;
    run->done.await();
  }
  EXPECT_TRUE(run->done.ready());  // ran inside execute
  EXPECT_EQ(run->outputs[0].toLiteral(), f32({4}, {2, 3, 4, 5}));
  Executable::Execution later = quick_->execute({&run->outputs[0]}, device(0));
  EXPECT_EQ(later.outputs[0].toLiteral(), f32({4}, {3, 4, 5, 6}));
}

TEST_P(AsyncTest, ASmallProgramWaitsBehindWorkQueuedOnItsDevice) {
  // Device 0 is busy with a long program: a small one queued after it runs after it, not
  // on the caller's thread ahead of it; device 1, idle, runs one at once.
  Buffer n = client_->bufferFromHost(i64Scalar(iterations_), device(0));
  Buffer ramp = client_->bufferFromHost(ramp256(), device(0));
  Buffer x0 = client_->bufferFromHost(f32({4}, {1, 2, 3, 4}), device(0));
  Buffer x1 = client_->bufferFromHost(f32({4}, {1, 2, 3, 4}), device(1));
  x0.readyEvent().await();
  x1.readyEvent().await();
  std::this_thread::sleep_for(std::chrono::milliseconds(20));  // the copies' tasks have left
  Executable::Execution longRun = slow_->execute({&n, &ramp}, device(0));
  Executable::Execution behind = quick_->execute({&x0}, device(0));
  EXPECT_FALSE(behind.done.ready());
  Executable::Execution beside = quick_->execute({&x1}, device(1));
  EXPECT_TRUE(beside.done.ready());
  behind.done.await();
  EXPECT_TRUE(longRun.done.ready());
  EXPECT_EQ(behind.outputs[0].toLiteral(), f32({4}, {2, 3, 4, 5}));
}

// A program's prints reach the host's callback (API 0.7), from every device that runs it;
// the plugin lets go of the callback once the execution is over and its handles gone.
TEST_P(AsyncTest, PrintsReachTheHostsCallback) {
  constexpr const char* kPrinting = R"(
func.func @main(%x: tensor<2xf32>) -> tensor<2xf32> {
  "interpreter.print"(%x) : (tensor<2xf32>) -> ()
  %y = stablehlo.add %x, %x : tensor<2xf32>
  return %y : tensor<2xf32>
})";
  auto printed = std::make_shared<std::vector<std::string>>();
  auto mutex = std::make_shared<std::mutex>();
  {
    ExecuteOptions options;
    options.print = [printed, mutex](std::string_view text) {
      std::lock_guard<std::mutex> lock(*mutex);
      printed->emplace_back(text);
    };
    Executable one = client_->compile(kPrinting);
    Buffer x = client_->bufferFromHost(f32({2}, {1, 2}), device(0));
    Executable::Execution run = one.execute({&x}, device(0), options);
    EXPECT_EQ(run.outputs[0].toLiteral(), f32({2}, {2, 4}));
    CompileOptions twice;
    twice.replicas = 2;
    Executable both = client_->compile(kPrinting, twice);
    Buffer y = client_->bufferFromHost(f32({2}, {3, 4}), device(1));
    std::vector<Executable::Execution> runs = both.execute({{&x}, {&y}}, {device(0), device(1)}, options);
    for (auto& r : runs) r.done.await();
  }
  ASSERT_EQ(printed->size(), 3u);
  EXPECT_NE((*printed)[0].find("tensor<2xf32>"), std::string::npos) << (*printed)[0];
  EXPECT_NE((*printed)[0].find("1.0"), std::string::npos) << (*printed)[0];
  std::vector<std::string> replicas = {(*printed)[1], (*printed)[2]};
  std::sort(replicas.begin(), replicas.end());
  EXPECT_NE(replicas[0].find("1.0"), std::string::npos) << replicas[0];
  EXPECT_NE(replicas[1].find("3.0"), std::string::npos) << replicas[1];
  // Released: the callbacks' copies of `printed` are gone (the plugin's last release
  // may still be running on a device's thread for a moment).
  for (int i = 0; i < 500 && printed.use_count() > 1; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(2));
  EXPECT_EQ(printed.use_count(), 1);
}

// 8 threads each chain 100 executions, every one taking the previous one's output before
// it exists, on alternating devices (so half the links cross devices); small programs
// run on the callers' threads whenever their argument is there and the device idle.
void chainExecutions(const Client& client, const Executable& quick) {
  constexpr int kThreads = 8, kLinks = 100;
  std::vector<std::thread> threads;
  std::vector<Literal> results(kThreads);
  std::atomic<int> errors{0};
  auto device = [&](int i) { return client.devices()[static_cast<size_t>(i)]; };
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      try {
        Buffer current = client.bufferFromHost(f32({4}, {float(t), 0, 1, 2}), device(t % 2));
        for (int i = 0; i < kLinks; ++i) {
          Executable::Execution run = quick.execute({&current}, current.device());
          current = (i % 2 == 0) ? run.outputs[0].copyTo(device((t + 1) % 2)) : run.outputs[0];
        }
        results[t] = current.toLiteral();
      } catch (const Error& e) {
        ++errors;
        ADD_FAILURE() << e.what();
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  ASSERT_EQ(errors.load(), 0);
  for (int t = 0; t < kThreads; ++t)
    EXPECT_EQ(results[t], f32({4}, {float(t + kLinks), kLinks, kLinks + 1, kLinks + 2})) << "thread " << t;
}

TEST_P(AsyncTest, ThreadsChainExecutionsWithoutWaiting) { chainExecutions(*client_, *quick_); }

TEST_P(AsyncTest, ThreadsChainExecutionsOnTheDevicesThreads) {
  ClientOptions options{2, 0};
  options.inlineExecution = false;
  Client handing(Plugin::load(GetParam()), options);
  chainExecutions(handing, handing.compile(kAddOne));
}

INSTANTIATE_TEST_SUITE_P(Plugins, AsyncTest, ::testing::ValuesIn(kPlugins));

}  // namespace
}  // namespace kiln::runtime::testing
