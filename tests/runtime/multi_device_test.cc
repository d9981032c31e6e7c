// Multi-device executions through both plugins: an executable compiled for replicas x
// partitions runs one process per device, its collectives exchange between them, a
// device assignment pins the processes, the placement survives serialization, misuse is
// an error, and a process that fails fails the others instead of hanging them.
#include <cstring>

#include "runtime_test_util.h"

namespace kiln::runtime::testing {
namespace {

// Each process adds its replica id to x, sums the results across all replicas and
// returns the sum and its own (replica, partition) pair.
constexpr const char* kSumOfReplicas = R"(
func.func @main(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<2xui32>) {
  %r = stablehlo.replica_id : tensor<ui32>
  %p = stablehlo.partition_id : tensor<ui32>
  %rf = stablehlo.convert %r : (tensor<ui32>) -> tensor<f32>
  %rb = stablehlo.broadcast_in_dim %rf, dims = [] : (tensor<f32>) -> tensor<4xf32>
  %y = stablehlo.add %x, %rb : tensor<4xf32>
  %sum = "stablehlo.all_reduce"(%y) ({
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      %s = stablehlo.add %a, %b : tensor<f32>
      stablehlo.return %s : tensor<f32>
  }) {replica_groups = dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>} : (tensor<4xf32>) -> tensor<4xf32>
  %r1 = stablehlo.reshape %r : (tensor<ui32>) -> tensor<1xui32>
  %p1 = stablehlo.reshape %p : (tensor<ui32>) -> tensor<1xui32>
  %ids = stablehlo.concatenate %r1, %p1, dim = 0 : (tensor<1xui32>, tensor<1xui32>) -> tensor<2xui32>
  return %sum, %ids : tensor<4xf32>, tensor<2xui32>
})";

// The (replica, partition) of each process of a 2 x 2 grid, and an all_gather across
// the replicas of each partition.
constexpr const char* kGatherReplicas = R"(
func.func @main(%x: tensor<2xi64>) -> (tensor<4xi64>, tensor<2xui32>) {
  %g = "stablehlo.all_gather"(%x) {
    all_gather_dim = 0 : i64,
    replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>
  } : (tensor<2xi64>) -> tensor<4xi64>
  %r = stablehlo.replica_id : tensor<ui32>
  %p = stablehlo.partition_id : tensor<ui32>
  %r1 = stablehlo.reshape %r : (tensor<ui32>) -> tensor<1xui32>
  %p1 = stablehlo.reshape %p : (tensor<ui32>) -> tensor<1xui32>
  %ids = stablehlo.concatenate %r1, %p1, dim = 0 : (tensor<1xui32>, tensor<1xui32>) -> tensor<2xui32>
  return %g, %ids : tensor<4xi64>, tensor<2xui32>
})";

Literal i64s(Shape dims, const std::vector<int64_t>& values) {
  Literal lit(Type::tensor(DType::I64, std::move(dims)));
  for (size_t i = 0; i < values.size(); ++i) lit.setInt(static_cast<int64_t>(i), values[i]);
  return lit;
}

class MultiDeviceTest : public ::testing::TestWithParam<const char*> {
 protected:
  Plugin plugin_ = Plugin::load(GetParam());
  Client client_{plugin_, ClientOptions{4, 0}};
  std::vector<Device> devices_ = client_.devices();

  // Runs `exe` with one argument per process on `devices`; the executions' outputs.
  std::vector<Executable::Execution> run(const Executable& exe, const std::vector<Literal>& inputs,
                                         const std::vector<Device>& devices) {
    std::vector<Buffer> buffers;
    for (size_t d = 0; d < devices.size(); ++d) buffers.push_back(client_.bufferFromHost(inputs[d], devices[d]));
    std::vector<std::vector<const Buffer*>> args;
    for (const Buffer& b : buffers) args.push_back({&b});
    return exe.execute(args, devices);
  }
};

TEST_P(MultiDeviceTest, AllReduceAcrossFourReplicas) {
  CompileOptions options;
  options.replicas = 4;
  Executable exe = client_.compile(kSumOfReplicas, options);
  EXPECT_EQ(exe.info().replicas, 4);
  EXPECT_EQ(exe.info().partitions, 1);
  std::vector<Literal> inputs;
  for (int d = 0; d < 4; ++d) inputs.push_back(f32({4}, {1.0f * d, 1, 2, 3}));
  std::vector<Executable::Execution> runs = run(exe, inputs, devices_);
  ASSERT_EQ(runs.size(), 4u);
  for (size_t d = 0; d < 4; ++d) {
    runs[d].done.await();
    // sum over d of (x_d + d): element 0 is 2 * (0+1+2+3), the others 4x + 6.
    Literal sum = runs[d].outputs[0].toLiteral();
    EXPECT_EQ(sum.floatAt(0), 12);
    EXPECT_EQ(sum.floatAt(1), 10);
    EXPECT_EQ(sum.floatAt(3), 18);
    Literal ids = runs[d].outputs[1].toLiteral();
    EXPECT_EQ(ids.intAt(0), static_cast<int64_t>(d));
    EXPECT_EQ(ids.intAt(1), 0);
    EXPECT_EQ(runs[d].outputs[0].device().id(), devices_[d].id());
  }
}

TEST_P(MultiDeviceTest, ReplicasAndPartitions) {
  CompileOptions options;
  options.replicas = 2;
  options.partitions = 2;
  Executable exe = client_.compile(kGatherReplicas, options);
  std::vector<Literal> inputs;
  for (int64_t d = 0; d < 4; ++d) inputs.push_back(i64s({2}, {10 * d, 10 * d + 1}));
  std::vector<Executable::Execution> runs = run(exe, inputs, devices_);
  for (int64_t d = 0; d < 4; ++d) {
    runs[static_cast<size_t>(d)].done.await();
    // Process d = 2r + p gathers the inputs of (0, p) and (1, p): devices p and 2 + p.
    int64_t p = d % 2;
    Literal g = runs[static_cast<size_t>(d)].outputs[0].toLiteral();
    EXPECT_EQ(g.intAt(0), 10 * p);
    EXPECT_EQ(g.intAt(1), 10 * p + 1);
    EXPECT_EQ(g.intAt(2), 10 * (2 + p));
    EXPECT_EQ(g.intAt(3), 10 * (2 + p) + 1);
    Literal ids = runs[static_cast<size_t>(d)].outputs[1].toLiteral();
    EXPECT_EQ(ids.intAt(0), d / 2);
    EXPECT_EQ(ids.intAt(1), d % 2);
  }
}

TEST_P(MultiDeviceTest, DeviceAssignmentPinsProcesses) {
  constexpr const char* kTwo = R"(
func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %sum = "stablehlo.all_reduce"(%x) ({
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      %s = stablehlo.add %a, %b : tensor<f32>
      stablehlo.return %s : tensor<f32>
  }) {replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<4xf32>) -> tensor<4xf32>
  return %sum : tensor<4xf32>
})";
  CompileOptions options;
  options.replicas = 2;
  options.deviceAssignment = {3, 1};
  Executable exe = client_.compile(kTwo, options);
  std::vector<Literal> inputs = {f32({4}, {1, 2, 3, 4}), f32({4}, {10, 20, 30, 40})};
  expectError([&] { run(exe, inputs, {devices_[0], devices_[1]}); }, ErrorKind::Usage,
              "the executable runs on devices [3, 1] in that order (its device assignment)");
  std::vector<Executable::Execution> runs = run(exe, inputs, {devices_[3], devices_[1]});
  for (auto& r : runs) {
    r.done.await();
    Literal sum = r.outputs[0].toLiteral();
    EXPECT_EQ(sum.floatAt(0), 11);
    EXPECT_EQ(sum.floatAt(3), 44);
  }
  EXPECT_EQ(runs[0].outputs[0].device().id(), 3);

  // The placement survives serialization.
  Executable back = client_.deserialize(exe.serialize());
  EXPECT_EQ(back.info().replicas, 2);
  expectError([&] { run(back, inputs, {devices_[1], devices_[3]}); }, ErrorKind::Usage, "device assignment");
  std::vector<Executable::Execution> again = run(back, inputs, {devices_[3], devices_[1]});
  again[1].done.await();
  EXPECT_EQ(again[1].outputs[0].toLiteral().floatAt(1), 22);
}

TEST_P(MultiDeviceTest, Misuse) {
  CompileOptions options;
  options.replicas = 2;
  Executable exe = client_.compile(kSumOfReplicas, options);
  std::vector<Literal> inputs(2, f32({4}, {1, 2, 3, 4}));
  expectError([&] { run(exe, inputs, {devices_[0]}); }, ErrorKind::Usage, "the executable runs on 2 devices, not 1");
  expectError([&] { run(exe, inputs, {devices_[2], devices_[2]}); }, ErrorKind::Usage,
              "the executable runs on devices [0, 1] in that order");
  options.deviceAssignment = {0, 7};
  expectError([&] { client_.compile(kSumOfReplicas, options); }, ErrorKind::Usage,
              "the device assignment names device 7, which the client does not have (4 devices)");
  options.deviceAssignment = {1, 1};
  expectError([&] { client_.compile(kSumOfReplicas, options); }, ErrorKind::Usage, "names device 1 twice");
  options.deviceAssignment = {1};
  expectError([&] { client_.compile(kSumOfReplicas, options); }, ErrorKind::Usage, "names 1 devices for 2 x 1");
  options.deviceAssignment.clear();
  options.entry = "nope";
  expectError([&] { client_.compile(kSumOfReplicas, options); }, ErrorKind::Usage, "no function @nope");
  // A collective outside a multi-device execution is a clear error.
  Executable single = client_.compile(kSumOfReplicas);
  auto one = run(single, {f32({4}, {1, 2, 3, 4})}, {devices_[0]});
  expectError([&] { one[0].done.await(); }, ErrorKind::Runtime, "replica_id");
}

// An all_gather whose result type does not fit the grid's group size is an error, not a
// buffer overrun (with a channel, the group spans the partitions too: 4 members).
TEST_P(MultiDeviceTest, GroupSizeThatMisfitsTheResultType) {
  CompileOptions options;
  options.replicas = 2;
  options.partitions = 2;
  std::string text = kGatherReplicas;
  text.replace(text.find("tensor<1x2xi64>"), std::strlen("tensor<1x2xi64>"),
               "tensor<1x2xi64>, channel_handle = #stablehlo.channel_handle<handle = 1, type = 0>");
  Executable exe = client_.compile(text, options);
  std::vector<Literal> inputs(4, i64s({2}, {1, 2}));
  std::vector<Executable::Execution> runs = run(exe, inputs, devices_);
  for (auto& r : runs) expectError([&] { r.done.await(); }, ErrorKind::Runtime, "tensor<8xi64> with the process group");
}

// A process whose argument failed (an execution past its time limit made it) fails,
// and so do the processes that would meet it in the all_reduce, with that failure,
// instead of waiting for ever (the processes start together once every argument is
// ready, and fail together when one fails).
TEST_P(MultiDeviceTest, AFailedArgumentFailsEveryProcess) {
  Executable slow = client_.compile(kSlowProgram);
  CompileOptions options;
  options.replicas = 4;
  Executable exe = client_.compile(kSumOfReplicas, options);
  Buffer n = client_.bufferFromHost(i64Scalar(int64_t{1} << 40), devices_[1]);  // hours of work
  Buffer x = client_.bufferFromHost(ramp256(), devices_[1]);
  ExecuteOptions limited;
  limited.timeLimit = std::chrono::milliseconds(50);
  Executable::Execution pending = slow.execute({&n, &x}, devices_[1], limited);
  // The argument of process 1 is computed from that execution's output.
  constexpr const char* kFirstFour = R"(
func.func @main(%x: tensor<256xf32>) -> tensor<4xf32> {
  %s = stablehlo.slice %x [0:4] : (tensor<256xf32>) -> tensor<4xf32>
  return %s : tensor<4xf32>
})";
  Executable firstFour = client_.compile(kFirstFour);
  Executable::Execution cut = firstFour.execute({&pending.outputs[0]}, devices_[1]);
  std::vector<Buffer> buffers;
  for (int d = 0; d < 4; ++d)
    buffers.push_back(d == 1 ? cut.outputs[0] : client_.bufferFromHost(f32({4}, {1, 2, 3, 4}), devices_[d]));
  std::vector<std::vector<const Buffer*>> args;
  for (const Buffer& b : buffers) args.push_back({&b});
  std::vector<Executable::Execution> runs = exe.execute(args, devices_);
  for (const Executable::Execution& r : runs)
    expectError([&] { r.done.await(); }, ErrorKind::Runtime, "an argument of the execution failed: ");
  expectError([&] { runs[2].outputs[0].toLiteral(); }, ErrorKind::Runtime, "time limit exceeded");
}

// A process that fails while it runs (replica 1's check does not hold) makes the
// processes waiting for it in the all_reduce fail too, naming it, instead of hanging.
TEST_P(MultiDeviceTest, AFailedProcessFailsTheOthers) {
  CompileOptions options;
  options.replicas = 4;
  Executable exe = client_.compile(R"(
func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %r = stablehlo.replica_id : tensor<ui32>
  %one = stablehlo.constant dense<1> : tensor<ui32>
  %not_one = stablehlo.compare NE, %r, %one : (tensor<ui32>, tensor<ui32>) -> tensor<i1>
  check.expect_eq_const %not_one, dense<true> : tensor<i1>
  %sum = "stablehlo.all_reduce"(%x) ({
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      %s = stablehlo.add %a, %b : tensor<f32>
      stablehlo.return %s : tensor<f32>
  }) {replica_groups = dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>} : (tensor<4xf32>) -> tensor<4xf32>
  return %sum : tensor<4xf32>
})",
                                   options);
  std::vector<Buffer> buffers;
  for (int d = 0; d < 4; ++d) buffers.push_back(client_.bufferFromHost(f32({4}, {1, 2, 3, 4}), devices_[d]));
  std::vector<std::vector<const Buffer*>> args;
  for (const Buffer& b : buffers) args.push_back({&b});
  std::vector<Executable::Execution> runs = exe.execute(args, devices_);
  expectError([&] { runs[1].done.await(); }, ErrorKind::Runtime, "check.expect_eq_const");
  for (int d : {0, 2, 3}) {
    try {
      runs[static_cast<size_t>(d)].done.await();
      ADD_FAILURE() << "process " << d << " did not fail";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("process (1, 0) failed"), std::string::npos) << e.what();
    }
  }
}

// Two processes running different functions: @producer sends x * 10 on channel 1 and
// returns its token; @consumer, with no tensor parameter, receives it and adds 1.
constexpr const char* kSendRecv = R"(
func.func @producer(%x: tensor<3xi64>, %t: !stablehlo.token) -> !stablehlo.token {
  %ten = stablehlo.constant dense<10> : tensor<3xi64>
  %y = stablehlo.multiply %x, %ten : tensor<3xi64>
  %done = "stablehlo.send"(%y, %t) {
    channel_handle = #stablehlo.channel_handle<handle = 1, type = 2>, is_host_transfer = true
  } : (tensor<3xi64>, !stablehlo.token) -> !stablehlo.token
  return %done : !stablehlo.token
}
func.func @consumer(%t: !stablehlo.token) -> (tensor<3xi64>, !stablehlo.token) {
  %v, %done = "stablehlo.recv"(%t) {
    channel_handle = #stablehlo.channel_handle<handle = 1, type = 3>, is_host_transfer = true
  } : (!stablehlo.token) -> (tensor<3xi64>, !stablehlo.token)
  %one = stablehlo.constant dense<1> : tensor<3xi64>
  %w = stablehlo.add %v, %one : tensor<3xi64>
  return %w, %done : tensor<3xi64>, !stablehlo.token
}
)";

TEST_P(MultiDeviceTest, ProcessesRunDifferentFunctionsAndMeetThroughSendRecv) {
  ASSERT_NE(plugin_.extension(), nullptr);
  CompileOptions options;
  options.replicas = 2;
  options.processEntries = {"producer", "consumer"};
  Executable exe = client_.compile(kSendRecv, options);
  EXPECT_EQ(exe.info(0).name, "producer");
  EXPECT_EQ(exe.info(1).name, "consumer");
  EXPECT_EQ(exe.info(0).parameters.size(), 2u);
  EXPECT_EQ(exe.info(1).parameters, (std::vector<Type>{Type::token()}));
  EXPECT_EQ(exe.info(1).results, (std::vector<Type>{Type::tensor(DType::I64, {3}), Type::token()}));
  // Serialized, the processes keep their functions.
  for (const Executable& e : {exe, client_.deserialize(exe.serialize())}) {
    Buffer x = client_.bufferFromHost(i64s({3}, {1, 2, 3}), devices_[0]);
    Buffer t0 = client_.token(devices_[0]), t1 = client_.token(devices_[1]);
    EXPECT_TRUE(t0.type().isToken());
    EXPECT_EQ(t0.onDeviceSize(), 0);
    std::vector<Executable::Execution> runs = e.execute({{&x, &t0}, {&t1}}, {devices_[0], devices_[1]});
    ASSERT_EQ(runs[0].outputs.size(), 1u);
    ASSERT_EQ(runs[1].outputs.size(), 2u);
    for (const auto& r : runs) r.done.await();
    EXPECT_TRUE(runs[0].outputs[0].type().isToken());
    EXPECT_TRUE(runs[1].outputs[0].toLiteral() == i64s({3}, {11, 21, 31}));
    expectError([&] { runs[1].outputs[1].toLiteral(); }, ErrorKind::Usage, "a buffer of !stablehlo.token holds no literal");
  }
}

TEST_P(MultiDeviceTest, ProcessEntriesMisuse) {
  CompileOptions options;
  options.replicas = 2;
  options.processEntries = {"producer"};
  expectError([&] { client_.compile(kSendRecv, options); }, ErrorKind::Usage,
              "num_process_entries is 1; 2 replicas x 1 partitions need 2");
  options.processEntries = {"producer", "nowhere"};
  expectError([&] { client_.compile(kSendRecv, options); }, ErrorKind::Usage, "nowhere");
  options.processEntries = {"producer", "consumer"};
  Executable exe = client_.compile(kSendRecv, options);
  Buffer x = client_.bufferFromHost(i64s({3}, {1, 2, 3}), devices_[0]);
  Buffer t = client_.token(devices_[1]);
  expectError([&] { exe.execute({{&x}, {&t}}, {devices_[0], devices_[1]}); }, ErrorKind::Usage,
              "device 0 runs @producer, which takes 2 argument(s); 1 given");
  expectError([&] { exe.info(2); }, ErrorKind::Usage, "process 2 does not exist (the executable runs 2)");
}

INSTANTIATE_TEST_SUITE_P(Plugins, MultiDeviceTest, ::testing::ValuesIn(kPlugins));

}  // namespace
}  // namespace kiln::runtime::testing
