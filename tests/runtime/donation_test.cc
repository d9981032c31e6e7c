// Donation, the PJRT way: the program marks the parameters it takes over (jax.buffer_donor)
// and a call may keep some (non_donatable_input_indices). The execution takes a donated
// buffer over, an output of its type takes over its device memory, the handle can no
// longer be used, and a call that fails donates nothing.
#include "runtime_test_util.h"

namespace kiln::runtime::testing {
namespace {

class DonationTest : public ::testing::TestWithParam<const char*> {
 protected:
  // A client whose device holds exactly one f32[4] buffer (16 bytes), or `limit`.
  void open(int64_t limit) {
    client_.emplace(Plugin::load(GetParam()), ClientOptions{1, limit});
    addOne_.emplace(client_->compile(donating(kAddOne, {0})));
  }
  Device device() const { return client_->devices()[0]; }
  std::vector<float> values(const Buffer& b) const {
    Literal lit = b.toLiteral();
    std::vector<float> v;
    for (int64_t i = 0; i < lit.numElements(); ++i) v.push_back(static_cast<float>(lit.floatAt(i)));
    return v;
  }

  std::optional<Client> client_;
  std::optional<Executable> addOne_;
};

TEST_P(DonationTest, TheOutputTakesOverTheDonatedMemory) {
  open(0);
  Buffer x = client_->bufferFromHost(f32({4}, {1, 2, 3, 4}), device());
  x.readyEvent().await();
  Executable::Execution run = addOne_->execute({&x}, device());
  EXPECT_EQ(values(run.outputs[0]), (std::vector<float>{2, 3, 4, 5}));
  Device::MemoryStats stats = device().memoryStats();
  EXPECT_EQ(stats.bytesInUse, 16);  // one buffer: the output in the donated memory
  EXPECT_EQ(stats.numBuffers, 1);
  EXPECT_EQ(stats.peakBytesInUse, 16);
}

TEST_P(DonationTest, AStepThatReplacesItsStateRunsInTheMemoryOfOneCopy) {
  open(16);
  Buffer x = client_->bufferFromHost(f32({4}, {0, 0, 0, 0}), device());
  // Without donation the output needs memory of its own, which the limit does not have.
  expectError([&] { addOne_->execute({&x}, device(), keeping({0})); }, ErrorKind::ResourceExhausted,
              "out of device memory");
  for (int step = 0; step < 10; ++step) {
    Executable::Execution run = addOne_->execute({&x}, device());
    x = run.outputs[0];  // the donated handle goes with the assignment
  }
  EXPECT_EQ(values(x), (std::vector<float>{10, 10, 10, 10}));
  EXPECT_EQ(device().memoryStats().peakBytesInUse, 16);
}

TEST_P(DonationTest, ADonatedHandleCanOnlyBeDestroyed) {
  open(0);
  Buffer x = client_->bufferFromHost(f32({4}, {1, 2, 3, 4}), device());
  Executable::Execution run = addOne_->execute({&x}, device());
  expectError([&] { addOne_->execute({&x}, device(), keeping({0})); }, ErrorKind::Usage,
              "argument 0: the buffer was donated");
  expectError([&] { x.toLiteral(); }, ErrorKind::Usage, "donated");
  expectError([&] { x.copyTo(device()); }, ErrorKind::Usage, "donated");
  x.remove();  // deleting a donated buffer does nothing: the execution owns it
  EXPECT_EQ(values(run.outputs[0]), (std::vector<float>{2, 3, 4, 5}));
}

TEST_P(DonationTest, ReadsQueuedBeforeTheDonationStillRead) {
  open(0);
  Executable slow = client_->compile(donating(kSlowProgram, {1}));
  Buffer n = client_->bufferFromHost(i64Scalar(20000), device());
  Buffer x = client_->bufferFromHost(ramp256(), device());
  Executable::Execution first = slow.execute({&n, &x}, device(), keeping({1}));
  Executable::Execution second = slow.execute({&n, &x}, device());
  EXPECT_TRUE(first.outputs[0].toLiteral() == second.outputs[0].toLiteral());
}

TEST_P(DonationTest, BadDonationsAreErrorsThatDonateNothing) {
  open(0);
  const std::string addText = R"(
func.func @main(%x: tensor<4xf32>, %y: tensor<4xf32>) -> tensor<4xf32> {
  %z = stablehlo.add %x, %y : tensor<4xf32>
  return %z : tensor<4xf32>
})";
  Executable add = client_->compile(addText);
  Executable addIntoX = client_->compile(donating(addText, {0})), addIntoY = client_->compile(donating(addText, {1}));
  Buffer x = client_->bufferFromHost(f32({4}, {1, 2, 3, 4}), device());
  Buffer y = client_->bufferFromHost(f32({4}, {1, 1, 1, 1}), device());
  expectError([&] { addIntoY.execute({&x, &x}, device()); }, ErrorKind::Usage,
              "argument 0 and argument 1 are the same buffer, and one is donated");
  y.remove();
  expectError([&] { addIntoX.execute({&x, &y}, device()); }, ErrorKind::Usage, "argument 1: the buffer was deleted");
  // None of them took x.
  EXPECT_EQ(values(x), (std::vector<float>{1, 2, 3, 4}));
  Executable::Execution run = addOne_->execute({&x}, device(), keeping({0}));
  EXPECT_EQ(values(run.outputs[0]), (std::vector<float>{2, 3, 4, 5}));
  // Reading a buffer twice without donating it is fine.
  Buffer one = client_->bufferFromHost(f32({4}, {1, 1, 1, 1}), device());
  Executable::Execution twice = add.execute({&one, &one}, device());
  EXPECT_EQ(values(twice.outputs[0]), (std::vector<float>{2, 2, 2, 2}));
}

INSTANTIATE_TEST_SUITE_P(Plugins, DonationTest, ::testing::ValuesIn(kPlugins));

// The cpu plugin writes a result into a donated argument's storage (its statistic
// "results_in_donated_buffers" counts them) when nothing reads the argument after the
// result's kernel and nothing else holds its storage; otherwise into a buffer of its own.
class CpuDonationTest : public ::testing::Test {
 protected:
  void SetUp() override { client_.emplace(Plugin::load("cpu"), ClientOptions{1, 0}); }
  Device device() const { return client_->devices()[0]; }
  static double inDonated(const Executable& exe) {
    for (const auto& [name, value] : exe.statistics())
      if (name == "results_in_donated_buffers") return value;
    ADD_FAILURE() << "no statistic results_in_donated_buffers";
    return -1;
  }
  Literal ramp(float scale) const {
    Literal lit(Type::tensor(DType::F32, {1024}));
    for (int64_t i = 0; i < 1024; ++i) lit.setFloat(i, scale * static_cast<float>(i));
    return lit;
  }
  std::optional<Client> client_;
};

// state * 0.5 + x: one elementwise kernel that reads the state where it writes.
constexpr const char* kDecay = R"(
func.func @main(%state: tensor<1024xf32>, %x: tensor<1024xf32>) -> tensor<1024xf32> {
  %half = stablehlo.constant dense<0.5> : tensor<1024xf32>
  %h = stablehlo.multiply %state, %half : tensor<1024xf32>
  %s = stablehlo.add %h, %x : tensor<1024xf32>
  return %s : tensor<1024xf32>
})";

TEST_F(CpuDonationTest, AStepWritesItsNewStateIntoTheDonatedOne) {
  Executable exe = client_->compile(donating(kDecay, {0}));
  Buffer x = client_->bufferFromHost(ramp(1), device());
  Buffer state = client_->bufferFromHost(ramp(4), device());
  for (int step = 0; step < 10; ++step) state = exe.execute({&state, &x}, device()).outputs[0];
  // s_{n+1} = s_n / 2 + x from s_0 = 4x: s_10 = x (2 + 2 / 1024).
  Literal got = state.toLiteral();
  for (int64_t i = 0; i < 1024; i += 97)
    EXPECT_FLOAT_EQ(static_cast<float>(got.floatAt(i)), static_cast<float>(i) * (2.0f + 2.0f / 1024.0f)) << i;
  EXPECT_EQ(inDonated(exe), 10);  // every step, the first (from the host) and those from the last output
  // Not donated: a buffer of its own, and the argument is intact.
  Buffer kept = exe.execute({&state, &x}, device(), keeping({0})).outputs[0];
  kept.readyEvent().await();
  EXPECT_EQ(inDonated(exe), 10);
  EXPECT_TRUE(state.toLiteral() == got);
}

TEST_F(CpuDonationTest, AnArgumentReadLaterOrSharedIsNotWrittenInto) {
  // The state is returned as it is too: writing the new one into it would change it.
  Executable returned = client_->compile(donating(R"(
func.func @main(%state: tensor<1024xf32>) -> (tensor<1024xf32>, tensor<1024xf32>) {
  %two = stablehlo.constant dense<2.0> : tensor<1024xf32>
  %s = stablehlo.multiply %state, %two : tensor<1024xf32>
  return %s, %state : tensor<1024xf32>, tensor<1024xf32>
})", {0}));
  Buffer state = client_->bufferFromHost(ramp(1), device());
  Executable::Execution run = returned.execute({&state}, device());
  EXPECT_TRUE(run.outputs[0].toLiteral() == ramp(2));
  EXPECT_TRUE(run.outputs[1].toLiteral() == ramp(1));
  EXPECT_EQ(inDonated(returned), 0);
  // A buffer whose storage another buffer shares (a copy on the same device) is copied
  // from, not written into: the copy keeps its values.
  Executable decay = client_->compile(donating(kDecay, {0}));
  Buffer x = client_->bufferFromHost(ramp(1), device());
  Buffer original = client_->bufferFromHost(ramp(4), device());
  Buffer copy = original.copyTo(device());
  copy.readyEvent().await();
  Buffer next = decay.execute({&original, &x}, device()).outputs[0];
  EXPECT_TRUE(next.toLiteral() == ramp(3));
  EXPECT_TRUE(copy.toLiteral() == ramp(4));
  EXPECT_EQ(inDonated(decay), 0);
}

TEST_F(CpuDonationTest, AnArgumentACollectiveReadsIsNotWrittenInto) {
  // collective_permute hands the other device this device's p as it is: writing q into p
  // would change the other device's y.
  client_.emplace(Plugin::load("cpu"), ClientOptions{2, 0});
  CompileOptions options;
  options.replicas = 2;
  Executable exe = client_->compile(donating(R"(
func.func @main(%p: tensor<1024xf32>) -> (tensor<1024xf32>, tensor<1024xf32>) {
  %y = "stablehlo.collective_permute"(%p) {source_target_pairs = dense<[[0, 1], [1, 0]]> : tensor<2x2xi64>}
      : (tensor<1024xf32>) -> tensor<1024xf32>
  %q = stablehlo.add %p, %p : tensor<1024xf32>
  return %y, %q : tensor<1024xf32>, tensor<1024xf32>
})", {0}), options);
  std::vector<Device> devices = client_->devices();
  Buffer p0 = client_->bufferFromHost(ramp(1), devices[0]);
  Buffer p1 = client_->bufferFromHost(ramp(3), devices[1]);
  std::vector<Executable::Execution> runs = exe.execute({{&p0}, {&p1}}, devices);
  EXPECT_TRUE(runs[0].outputs[0].toLiteral() == ramp(3));
  EXPECT_TRUE(runs[1].outputs[0].toLiteral() == ramp(1));
  EXPECT_TRUE(runs[0].outputs[1].toLiteral() == ramp(2));
  EXPECT_TRUE(runs[1].outputs[1].toLiteral() == ramp(6));
  EXPECT_EQ(inDonated(exe), 0);
}

// A kernel with several results computes all of them at an index before it stores any:
// s may go into a, although p reads a at that index (the ops in either order, since the
// kernel stores its results in an order of its own).
TEST_F(CpuDonationTest, AKernelWritesOneResultOverAnArgumentAnotherResultReads) {
  const std::string s = "  %s = stablehlo.multiply %x, %b : tensor<1024xf32>\n";
  const std::string p = "  %p = stablehlo.multiply %a, %b : tensor<1024xf32>\n";
  for (const std::string& ops : {s + p, p + s}) {
    SCOPED_TRACE(ops);
    Executable exe = client_->compile(donating(
        "func.func @main(%a: tensor<1024xf32>, %b: tensor<1024xf32>, %x: tensor<1024xf32>)"
        " -> (tensor<1024xf32>, tensor<1024xf32>) {\n" + ops +
        "  return %s, %p : tensor<1024xf32>, tensor<1024xf32>\n}", {0}));
    const std::string report = exe.text("report");
    EXPECT_NE(report.find("kiln.fusion (multi_output)"), std::string::npos) << report;
    Buffer a = client_->bufferFromHost(ramp(1), device());
    Buffer b = client_->bufferFromHost(ramp(2), device());
    Buffer x = client_->bufferFromHost(ramp(3), device());
    Executable::Execution run = exe.execute({&a, &b, &x}, device());
    const Literal sum = run.outputs[0].toLiteral(), product = run.outputs[1].toLiteral();
    for (int64_t i = 0; i < 1024; ++i) {
      ASSERT_EQ(sum.floatAt(i), 6.0 * static_cast<double>(i * i)) << i;      // 3i * 2i
      ASSERT_EQ(product.floatAt(i), 2.0 * static_cast<double>(i * i)) << i;  // i * 2i
    }
    EXPECT_EQ(inDonated(exe), 1);
  }
}

// Each kind of step writes a result into a donated argument only where that is safe: a
// GEMM, a row group and an if write into one they do not read, never into one they read
// (a GEMM reads it whole as it writes, an if may copy a result into it before copying
// out the argument itself); a GEMM's epilogue kernel into one it reads at the index it
// writes (the bias), not into one the GEMM reads; a while may read it anywhere, since
// its results leave the loop's carries once the loop has ended.
TEST_F(CpuDonationTest, EachKindOfStepWritesIntoADonatedArgumentOnlyWhereSafe) {
  auto literal = [](const Type& type, double scale) {
    Literal lit(type);
    for (int64_t i = 0; i < lit.numElements(); ++i)
      isBool(type.dtype()) ? lit.setInt(i, 1) : lit.setFloat(i, scale * static_cast<double>(i % 61 - 30));
    return lit;
  };
  struct Case {
    const char* text;
    const char* kind;  // what the cpu plugin's report shows (an if or a while: the one step)
    std::vector<size_t> donated;
    bool inPlace;      // whether the result goes into one of them
  };
  const char* gemm = R"(
func.func @main(%x: tensor<16x16xf32>, %w: tensor<16x16xf32>, %old: tensor<16x16xf32>) -> tensor<16x16xf32> {
  %y = stablehlo.dot_general %x, %w, contracting_dims = [1] x [0] : (tensor<16x16xf32>, tensor<16x16xf32>) -> tensor<16x16xf32>
  return %y : tensor<16x16xf32>
})";
  const char* epilogue = R"(
func.func @main(%x: tensor<16x16xf32>, %w: tensor<16x16xf32>, %bias: tensor<16x16xf32>, %old: tensor<16x16xf32>) -> tensor<16x16xf32> {
  %y = stablehlo.dot_general %x, %w, contracting_dims = [1] x [0] : (tensor<16x16xf32>, tensor<16x16xf32>) -> tensor<16x16xf32>
  %z = stablehlo.add %y, %bias : tensor<16x16xf32>
  return %z : tensor<16x16xf32>
})";
  // max, exp and sum over each row, then the quotient: a row group of three kernels.
  const char* softmax = R"(
func.func @main(%x: tensor<256x512xf32>, %old: tensor<256x512xf32>) -> tensor<256x512xf32> {
  %ninf = stablehlo.constant dense<0xFF800000> : tensor<f32>
  %zero = stablehlo.constant dense<0.0> : tensor<f32>
  %m = stablehlo.reduce(%x init: %ninf) applies stablehlo.maximum across dimensions = [1] : (tensor<256x512xf32>, tensor<f32>) -> tensor<256xf32>
  %mb = stablehlo.broadcast_in_dim %m, dims = [0] : (tensor<256xf32>) -> tensor<256x512xf32>
  %d = stablehlo.subtract %x, %mb : tensor<256x512xf32>
  %e = stablehlo.exponential %d : tensor<256x512xf32>
  %s = stablehlo.reduce(%e init: %zero) applies stablehlo.add across dimensions = [1] : (tensor<256x512xf32>, tensor<f32>) -> tensor<256xf32>
  %sb = stablehlo.broadcast_in_dim %s, dims = [0] : (tensor<256xf32>) -> tensor<256x512xf32>
  %y = stablehlo.divide %e, %sb : tensor<256x512xf32>
  return %y : tensor<256x512xf32>
})";
  // The maxima of x's columns (its first member reads x through a transpose, across its
  // rows), then z minus them: written into a donated x, one block's result would change
  // columns another block still reads.
  const char* columns = R"(
func.func @main(%x: tensor<64x64xf32>, %z: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %ninf = stablehlo.constant dense<0xFF800000> : tensor<f32>
  %t = stablehlo.transpose %x, dims = [1, 0] : (tensor<64x64xf32>) -> tensor<64x64xf32>
  %m = stablehlo.reduce(%t init: %ninf) applies stablehlo.maximum across dimensions = [1] : (tensor<64x64xf32>, tensor<f32>) -> tensor<64xf32>
  %mb = stablehlo.broadcast_in_dim %m, dims = [0] : (tensor<64xf32>) -> tensor<64x64xf32>
  %y = stablehlo.subtract %z, %mb : tensor<64x64xf32>
  return %y : tensor<64x64xf32>
})";
  // The taken branch yields w + x, then w itself: w + x written into w first would be
  // copied out again as the second result.
  const char* conditional = R"(
func.func @main(%c: tensor<i1>, %w: tensor<1024xf32>, %x: tensor<1024xf32>, %old: tensor<1024xf32>)
    -> (tensor<1024xf32>, tensor<1024xf32>) {
  %r:2 = "stablehlo.if"(%c) ({
    %s = stablehlo.add %w, %x : tensor<1024xf32>
    stablehlo.return %s, %w : tensor<1024xf32>, tensor<1024xf32>
  }, {
    stablehlo.return %x, %w : tensor<1024xf32>, tensor<1024xf32>
  }) : (tensor<i1>) -> (tensor<1024xf32>, tensor<1024xf32>)
  return %r#0, %r#1 : tensor<1024xf32>, tensor<1024xf32>
})";
  // Ten steps of w = w / 2 + x.
  const char* loop = R"(
func.func @main(%w: tensor<1024xf32>, %x: tensor<1024xf32>) -> tensor<1024xf32> {
  %c0 = stablehlo.constant dense<0> : tensor<i32>
  %r:2 = stablehlo.while(%i = %c0, %v = %w) : tensor<i32>, tensor<1024xf32>
    cond {
      %n = stablehlo.constant dense<10> : tensor<i32>
      %lt = stablehlo.compare LT, %i, %n : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %lt : tensor<i1>
    } do {
      %one = stablehlo.constant dense<1> : tensor<i32>
      %half = stablehlo.constant dense<0.5> : tensor<1024xf32>
      %h = stablehlo.multiply %v, %half : tensor<1024xf32>
      %s = stablehlo.add %h, %x : tensor<1024xf32>
      %j = stablehlo.add %i, %one : tensor<i32>
      stablehlo.return %j, %s : tensor<i32>, tensor<1024xf32>
    }
  return %r#1 : tensor<1024xf32>
})";
  for (const Case& c : {Case{gemm, "BLAS: stablehlo.dot_general", {2}, true},
                        Case{gemm, "BLAS: stablehlo.dot_general", {0, 1}, false},
                        Case{epilogue, "dot_epilogue", {3}, true}, Case{epilogue, "dot_epilogue", {2}, true},
                        Case{epilogue, "dot_epilogue", {0, 1}, false},
                        Case{softmax, "row group: 3 kernels", {1}, true}, Case{softmax, "row group: 3 kernels", {0}, false},
                        Case{columns, "row group: 2 kernels", {0}, false}, Case{columns, "row group: 2 kernels", {1}, false},
                        Case{conditional, "@main: 1 steps", {3}, true}, Case{conditional, "@main: 1 steps", {1}, false},
                        Case{loop, "@main: 1 steps", {0}, true}, Case{loop, "@main: 1 steps", {1}, true}}) {
    SCOPED_TRACE(std::string(c.kind) + ", donating argument " + std::to_string(c.donated.back()));
    Executable exe = client_->compile(donating(c.text, c.donated));
    const std::string report = exe.text("report");
    EXPECT_NE(report.find(c.kind), std::string::npos) << report;
    std::vector<Buffer> args;
    std::vector<const Buffer*> pointers;
    for (size_t i = 0; i < exe.info().parameters.size(); ++i)
      args.push_back(client_->bufferFromHost(literal(exe.info().parameters[i], 0.01 * static_cast<double>(i + 1)), device()));
    for (const Buffer& b : args) pointers.push_back(&b);
    std::vector<Literal> expected;
    const std::vector<int64_t> all(c.donated.begin(), c.donated.end());
    for (const Buffer& out : exe.execute(pointers, device(), keeping(all)).outputs) expected.push_back(out.toLiteral());
    EXPECT_EQ(inDonated(exe), 0);
    std::vector<Buffer> outputs = exe.execute(pointers, device()).outputs;
    ASSERT_EQ(outputs.size(), expected.size());
    for (size_t r = 0; r < outputs.size(); ++r) {
      const Literal got = outputs[r].toLiteral();
      for (int64_t i = 0; i < got.numElements(); ++i)
        ASSERT_EQ(got.bitsAt(i), expected[r].bitsAt(i)) << "result " << r << " element " << i;
    }
    EXPECT_EQ(inDonated(exe), c.inPlace ? 1 : 0);
  }
}

}  // namespace
}  // namespace kiln::runtime::testing
