// A device's infeed and outfeed (the kiln extension): programs take the values the host
// queued, in order, waiting for those not queued yet; the host reads what they outfeed,
// in order; each device has its own queues; a wrong type, cancellation, a time limit
// and a client destroyed under a waiting program fail cleanly; misuse of the calls gets
// error objects.
#include <chrono>
#include <cstddef>
#include <cstring>
#include <thread>

#include "runtime_test_util.h"

namespace kiln::runtime::testing {
namespace {

// Takes an f32[4] and an i32 from the infeed in one op; returns x + the f32[4], and the i32.
constexpr const char* kTakeTwo = R"(
func.func @main(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<i32>) {
  %t = stablehlo.after_all : !stablehlo.token
  %v:3 = "stablehlo.infeed"(%t) : (!stablehlo.token) -> (tensor<4xf32>, tensor<i32>, !stablehlo.token)
  %s = stablehlo.add %x, %v#0 : tensor<4xf32>
  return %s, %v#1 : tensor<4xf32>, tensor<i32>
})";

// %n times: takes an f32[2] from the infeed and outfeeds twice it and the running sum.
constexpr const char* kFeedLoop = R"(
func.func @main(%n: tensor<i64>) -> tensor<2xf32> {
  %zero = stablehlo.constant dense<0> : tensor<i64>
  %one = stablehlo.constant dense<1> : tensor<i64>
  %sum0 = stablehlo.constant dense<0.0> : tensor<2xf32>
  %t0 = stablehlo.after_all : !stablehlo.token
  %r:3 = stablehlo.while(%i = %zero, %sum = %sum0, %t = %t0) : tensor<i64>, tensor<2xf32>, !stablehlo.token
  cond {
    %c = stablehlo.compare LT, %i, %n : (tensor<i64>, tensor<i64>) -> tensor<i1>
    stablehlo.return %c : tensor<i1>
  } do {
    %v:2 = "stablehlo.infeed"(%t) : (!stablehlo.token) -> (tensor<2xf32>, !stablehlo.token)
    %twice = stablehlo.add %v#0, %v#0 : tensor<2xf32>
    %s = stablehlo.add %sum, %v#0 : tensor<2xf32>
    %t2 = "stablehlo.outfeed"(%twice, %s, %v#1) : (tensor<2xf32>, tensor<2xf32>, !stablehlo.token) -> !stablehlo.token
    %next = stablehlo.add %i, %one : tensor<i64>
    stablehlo.return %next, %s, %t2 : tensor<i64>, tensor<2xf32>, !stablehlo.token
  }
  return %r#1 : tensor<2xf32>
})";

// Each replica returns the f32[4] its device's infeed gives it, plus its replica id.
constexpr const char* kPerReplica = R"(
func.func @main() -> tensor<4xf32> {
  %t = stablehlo.after_all : !stablehlo.token
  %v:2 = "stablehlo.infeed"(%t) : (!stablehlo.token) -> (tensor<4xf32>, !stablehlo.token)
  %id = stablehlo.replica_id : tensor<ui32>
  %f = stablehlo.convert %id : (tensor<ui32>) -> tensor<f32>
  %b = stablehlo.broadcast_in_dim %f, dims = [] : (tensor<f32>) -> tensor<4xf32>
  %s = stablehlo.add %v#0, %b : tensor<4xf32>
  return %s : tensor<4xf32>
})";

Literal i32Scalar(int32_t v) {
  Literal lit(Type::scalar(DType::I32));
  lit.setInt(0, v);
  return lit;
}

const Type kF32x2 = Type::tensor(DType::F32, {2});

class FeedsTest : public ::testing::TestWithParam<const char*> {
 protected:
  // Its programs wait for infeed values the host has not queued yet.
  void SetUp() override {
    ClientOptions options{2, 0};
    options.infeedWaits = true;
    client_.emplace(Plugin::load(GetParam()), options);
  }
  Device device(int i) const { return client_->devices()[static_cast<size_t>(i)]; }

  std::optional<Client> client_;
};

TEST_P(FeedsTest, TheProgramTakesTheValuesQueuedBeforeIt) {
  EXPECT_NE(client_->plugin().extension(), nullptr);
  Executable exe = client_->compile(kTakeTwo);
  device(0).infeed(f32({4}, {10, 20, 30, 40}));
  device(0).infeed(i32Scalar(7));
  Buffer x = client_->bufferFromHost(f32({4}, {1, 2, 3, 4}), device(0));
  Executable::Execution run = exe.execute({&x}, device(0));
  EXPECT_EQ(run.outputs[0].toLiteral(), f32({4}, {11, 22, 33, 44}));
  EXPECT_EQ(run.outputs[1].toLiteral(), i32Scalar(7));
}

TEST_P(FeedsTest, TheProgramWaitsForValuesQueuedLater) {
  Executable exe = client_->compile(kTakeTwo);
  Buffer x = client_->bufferFromHost(f32({4}, {1, 2, 3, 4}), device(0));
  Executable::Execution run = exe.execute({&x}, device(0));
  device(0).infeed(f32({4}, {10, 20, 30, 40}));
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  EXPECT_FALSE(run.done.ready());  // it has one of its two values
  device(0).infeed(i32Scalar(-3));
  run.done.await();
  EXPECT_EQ(run.outputs[0].toLiteral(), f32({4}, {11, 22, 33, 44}));
  EXPECT_EQ(run.outputs[1].toLiteral(), i32Scalar(-3));
}

TEST_P(FeedsTest, ALoopTakesAndOutfeedsInOrder) {
  Executable exe = client_->compile(kFeedLoop);
  // Requests made before the values exist are served as they come.
  std::vector<Literal> got(6, Literal(kF32x2));
  std::vector<Event> outfed;
  for (Literal& lit : got) outfed.push_back(device(0).outfeed(kF32x2, lit.mutableStorage(), 8));
  Buffer n = client_->bufferFromHost(i64Scalar(3), device(0));
  Executable::Execution run = exe.execute({&n}, device(0));
  for (float v : {1.0f, 2.0f, 4.0f}) device(0).infeed(f32({2}, {v, -v}));
  run.done.await();
  EXPECT_EQ(run.outputs[0].toLiteral(), f32({2}, {7, -7}));
  for (const Event& e : outfed) e.await();
  // Per iteration: twice the value, then the sum so far.
  EXPECT_EQ(got[0], f32({2}, {2, -2}));
  EXPECT_EQ(got[1], f32({2}, {1, -1}));
  EXPECT_EQ(got[2], f32({2}, {4, -4}));
  EXPECT_EQ(got[3], f32({2}, {3, -3}));
  EXPECT_EQ(got[4], f32({2}, {8, -8}));
  EXPECT_EQ(got[5], f32({2}, {7, -7}));
  // Values nobody asked for yet wait for a request.
  Buffer one = client_->bufferFromHost(i64Scalar(1), device(0));
  device(0).infeed(f32({2}, {5, 6}));
  exe.execute({&one}, device(0)).done.await();
  EXPECT_EQ(device(0).outfeed(kF32x2), f32({2}, {10, 12}));
  EXPECT_EQ(device(0).outfeed(kF32x2), f32({2}, {5, 6}));
}

TEST_P(FeedsTest, EachDeviceHasItsOwnQueues) {
  CompileOptions options;
  options.replicas = 2;
  Executable exe = client_->compile(kPerReplica, options);
  device(1).infeed(f32({4}, {5, 6, 7, 8}));
  device(0).infeed(f32({4}, {1, 2, 3, 4}));
  std::vector<Executable::Execution> runs = exe.execute({{}, {}}, {device(0), device(1)});
  EXPECT_EQ(runs[0].outputs[0].toLiteral(), f32({4}, {1, 2, 3, 4}));
  EXPECT_EQ(runs[1].outputs[0].toLiteral(), f32({4}, {6, 7, 8, 9}));
  // A value queued on device 1 is not device 0's (whose infeed is empty).
  Client failing(Plugin::load(GetParam()), ClientOptions{2, 0});
  Executable one = failing.compile(kTakeTwo);
  Buffer x = failing.bufferFromHost(f32({4}, {0, 0, 0, 0}), failing.devices()[0]);
  failing.devices()[1].infeed(f32({4}, {1, 1, 1, 1}));
  expectError([&] { one.execute({&x}, failing.devices()[0]).done.await(); }, ErrorKind::Runtime,
              "the device's infeed is empty");
}

TEST_P(FeedsTest, AValueOfAnotherTypeFailsTheExecutionAndIsTaken) {
  Executable exe = client_->compile(kTakeTwo);
  device(0).infeed(f32({4}, {1, 2, 3, 4}));
  device(0).infeed(f32({2}, {1, 2}));  // where the i32 should be
  Buffer x = client_->bufferFromHost(f32({4}, {0, 0, 0, 0}), device(0));
  Executable::Execution bad = exe.execute({&x}, device(0));
  expectError([&] { bad.done.await(); }, ErrorKind::Runtime, "got tensor<2xf32> from the device's infeed for result 1");
  expectError([&] { bad.outputs[1].toLiteral(); }, ErrorKind::Runtime, "stablehlo.infeed");
  // Both values were taken: the next run takes the next two.
  device(0).infeed(f32({4}, {1, 1, 1, 1}));
  device(0).infeed(i32Scalar(2));
  EXPECT_EQ(exe.execute({&x}, device(0)).outputs[1].toLiteral(), i32Scalar(2));
}

TEST_P(FeedsTest, AnOutfeedRequestOfAnotherTypeFailsAndLeavesTheValue) {
  Executable exe = client_->compile(kFeedLoop);
  device(0).infeed(f32({2}, {1, 2}));
  Buffer one = client_->bufferFromHost(i64Scalar(1), device(0));
  exe.execute({&one}, device(0)).done.await();
  expectError([&] { device(0).outfeed(Type::tensor(DType::F32, {3})); }, ErrorKind::Usage,
              "the next outfeed value is tensor<2xf32>, not tensor<3xf32>");
  EXPECT_EQ(device(0).outfeed(kF32x2), f32({2}, {2, 4}));
  EXPECT_EQ(device(0).outfeed(kF32x2), f32({2}, {1, 2}));
}

TEST_P(FeedsTest, AWaitingProgramStopsWhenCancelledOrPastItsTimeLimit) {
  Executable exe = client_->compile(kTakeTwo);
  Buffer x = client_->bufferFromHost(f32({4}, {0, 0, 0, 0}), device(0));
  Executable::Execution run = exe.execute({&x}, device(0));
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_FALSE(run.done.ready());
  run.cancel();
  expectError([&] { run.done.await(); }, ErrorKind::Runtime, "cancelled");
  ExecuteOptions limited;
  limited.timeLimit = std::chrono::milliseconds(100);
  auto start = std::chrono::steady_clock::now();
  Executable::Execution late = exe.execute({&x}, device(0), limited);
  expectError([&] { late.done.await(); }, ErrorKind::Runtime, "time limit exceeded");
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
  // The device goes on working.
  device(0).infeed(f32({4}, {1, 1, 1, 1}));
  device(0).infeed(i32Scalar(1));
  EXPECT_EQ(exe.execute({&x}, device(0)).outputs[1].toLiteral(), i32Scalar(1));
}

TEST_P(FeedsTest, ByDefaultAnEmptyInfeedFailsAtOnce) {
  Client client(Plugin::load(GetParam()), ClientOptions{1, 0});  // infeed_when_empty=fail
  Device d = client.devices()[0];
  Executable exe = client.compile(kTakeTwo);
  Buffer x = client.bufferFromHost(f32({4}, {0, 0, 0, 0}), d);
  d.infeed(f32({4}, {1, 1, 1, 1}));  // one of its two values
  auto start = std::chrono::steady_clock::now();
  expectError([&] { exe.execute({&x}, d).done.await(); }, ErrorKind::Runtime, "the device's infeed is empty");
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
  d.infeed(f32({4}, {1, 1, 1, 1}));
  d.infeed(i32Scalar(4));
  EXPECT_EQ(exe.execute({&x}, d).outputs[1].toLiteral(), i32Scalar(4));
}

TEST_P(FeedsTest, DestroyingTheClientFailsAWaitingProgramAndPendingRequests) {
  std::optional<Event> done, outfed;
  Literal dst(kF32x2);
  {
    ClientOptions options{1, 0};
    options.infeedWaits = true;
    Client client(Plugin::load(GetParam()), options);
    Device d = client.devices()[0];
    Executable exe = client.compile(kTakeTwo);
    Buffer x = client.bufferFromHost(f32({4}, {0, 0, 0, 0}), d);
    done = exe.execute({&x}, d).done;  // its outputs go with this scope
    outfed = d.outfeed(kF32x2, dst.mutableStorage(), 8);
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    EXPECT_FALSE(done->ready());
  }  // the last handle of the client: destroyed (it waits for the program to stop)
  ASSERT_TRUE(done->ready());
  expectError([&] { done->await(); }, ErrorKind::Runtime, "the device's infeed is empty and its client is being destroyed");
  expectError([&] { outfed->await(); }, ErrorKind::Runtime, "the client was destroyed before the device outfed a value");
}

TEST_P(FeedsTest, WorkQueuedBeforeTheClientIsDestroyedStillServesOutfeedRequests) {
  std::optional<Event> outfed;
  Literal dst(kF32x2);
  {
    Client client(Plugin::load(GetParam()), ClientOptions{1, 0});
    Device d = client.devices()[0];
    Executable slow = client.compile(kSlowProgram);
    Executable loop = client.compile(kFeedLoop);
    Buffer n = client.bufferFromHost(i64Scalar(slowIterations(client, slow, 0.2)), d);
    Buffer x = client.bufferFromHost(ramp256(), d);
    Buffer one = client.bufferFromHost(i64Scalar(1), d);
    for (const Buffer* b : {&n, &x, &one}) b->readyEvent().await();  // both executions queued at once
    d.infeed(f32({2}, {3, 4}));
    slow.execute({&n, &x}, d);
    loop.execute({&one}, d);  // queued behind the slow one
    outfed = d.outfeed(kF32x2, dst.mutableStorage(), 8);
  }  // destroyed while the slow program runs: the loop still runs, and outfeeds
  outfed->await();
  EXPECT_EQ(dst, f32({2}, {6, 8}));
}

// The calls through the kiln extension: what a host gets wrong is an error object.
TEST_P(FeedsTest, MisuseGetsErrorObjects) {
  const Plugin& plugin = client_->plugin();
  const int64_t dims[] = {2};
  const float data[2] = {1, 2};
  auto infeed = [&](PJRT_Device* d, int type, const int64_t* dimsPtr, size_t numDims, const void* bytes) {
    KILN_Device_Infeed_Args args{};
    args.device = d;
    std::memcpy(&args.type, &type, sizeof type);
    args.dims = dimsPtr;
    args.num_dims = numDims;
    args.data = bytes;
    plugin.call(&KILN_Extension::device_infeed, args, "KILN_Device_Infeed");
  };
  PJRT_Device* d0 = device(0).handle();
  expectError([&] { infeed(nullptr, PJRT_Buffer_Type_F32, dims, 1, data); }, ErrorKind::Usage,
              "KILN_Device_Infeed: device is null");
  expectError([&] { infeed(d0, PJRT_Buffer_Type_TOKEN, nullptr, 0, nullptr); }, ErrorKind::Unsupported,
              "unsupported: buffer type " + std::to_string(PJRT_Buffer_Type_TOKEN) + " in a feed");
  const int64_t huge[] = {int64_t{1} << 40, int64_t{1} << 40};
  expectError([&] { infeed(d0, PJRT_Buffer_Type_F32, huge, 2, data); }, ErrorKind::Usage, "overflows");
  expectError([&] { infeed(d0, 99, dims, 1, data); }, ErrorKind::Unsupported, "buffer type 99");
  expectError([&] { infeed(d0, PJRT_Buffer_Type_F32, nullptr, 1, data); }, ErrorKind::Usage, "dims is null");
  const int64_t negative[] = {-1};
  expectError([&] { infeed(d0, PJRT_Buffer_Type_F32, negative, 1, data); }, ErrorKind::Usage, "must be >= 0");
  expectError([&] { infeed(d0, PJRT_Buffer_Type_F32, dims, 1, nullptr); }, ErrorKind::Usage, "data is null for 8 bytes");

  auto outfeed = [&](PJRT_Device* d, void* dst, size_t size, bool wantEvent = true) {
    KILN_Device_Outfeed_Args args{};
    args.device = d;
    args.type = PJRT_Buffer_Type_F32;
    args.dims = dims;
    args.num_dims = 1;
    args.dst = dst;
    args.dst_size = size;
    if (!wantEvent) {  // a host whose struct ends before the event it must take
      args.struct_size = offsetof(KILN_Device_Outfeed_Args, event);
      plugin.check(plugin.extension()->device_outfeed(&args));
      return;
    }
    plugin.call(&KILN_Extension::device_outfeed, args, "KILN_Device_Outfeed");
    Event(plugin, args.event);  // destroyed
  };
  float out[2];
  expectError([&] { outfeed(nullptr, out, 8); }, ErrorKind::Usage, "device is null");
  expectError([&] { outfeed(d0, out, 4); }, ErrorKind::Usage, "dst_size is 4, a value of tensor<2xf32> is 8 bytes");
  expectError([&] { outfeed(d0, nullptr, 8); }, ErrorKind::Usage, "dst is null");
  expectError([&] { outfeed(d0, out, 8, false); }, ErrorKind::Usage, "leaves out the output field 'event'");
  // None of these queued anything.
  Executable exe = client_->compile(kFeedLoop);
  device(0).infeed(f32({2}, {3, 4}));
  Buffer one = client_->bufferFromHost(i64Scalar(1), device(0));
  EXPECT_EQ(exe.execute({&one}, device(0)).outputs[0].toLiteral(), f32({2}, {3, 4}));
  EXPECT_EQ(device(0).outfeed(kF32x2), f32({2}, {6, 8}));
}

INSTANTIATE_TEST_SUITE_P(Plugins, FeedsTest, ::testing::ValuesIn(kPlugins));

}  // namespace
}  // namespace kiln::runtime::testing
