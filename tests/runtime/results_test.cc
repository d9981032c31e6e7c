// Both plugins compute what the reference interpreter computes (in this process, with no
// plugin), on elementwise, dot, reduce and while programs; executables describe
// themselves and survive serialize -> deserialize.
#include <cmath>

#include "interp/interpreter.h"
#include "runtime_test_util.h"
#include "stablehlo/parser.h"

namespace kiln::runtime::testing {
namespace {

struct Case {
  const char* name;
  const char* text;
};

const Case kCases[] = {
    {"elementwise", R"(
func.func @main(%a: tensor<2x3xf32>, %b: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xi32>) {
  %m = stablehlo.multiply %a, %b : tensor<2x3xf32>
  %e = stablehlo.exponential %m : tensor<2x3xf32>
  %s = stablehlo.subtract %e, %a : tensor<2x3xf32>
  %i = stablehlo.convert %m : (tensor<2x3xf32>) -> tensor<2x3xi32>
  return %s, %i : tensor<2x3xf32>, tensor<2x3xi32>
})"},
    {"dot", R"(
func.func @main(%x: tensor<8x16xf32>, %w: tensor<16x4xf32>) -> tensor<8x4xf32> {
  %d = stablehlo.dot_general %x, %w, contracting_dims = [1] x [0] : (tensor<8x16xf32>, tensor<16x4xf32>) -> tensor<8x4xf32>
  return %d : tensor<8x4xf32>
})"},
    {"reduce", R"(
func.func @main(%x: tensor<4x8xf32>) -> (tensor<4xf32>, tensor<8xf32>) {
  %zero = stablehlo.constant dense<0.0> : tensor<f32>
  %ninf = stablehlo.constant dense<0xFF800000> : tensor<f32>
  %s = stablehlo.reduce(%x init: %zero) applies stablehlo.add across dimensions = [1] : (tensor<4x8xf32>, tensor<f32>) -> tensor<4xf32>
  %m = stablehlo.reduce(%x init: %ninf) applies stablehlo.maximum across dimensions = [0] : (tensor<4x8xf32>, tensor<f32>) -> tensor<8xf32>
  return %s, %m : tensor<4xf32>, tensor<8xf32>
})"},
    {"while", kSlowProgram},
};

// Deterministic inputs for `type`: floats in [-1, 1), the while loop's count small.
Literal inputFor(const Type& type, int salt) {
  Literal lit(type);
  for (int64_t i = 0; i < lit.numElements(); ++i) {
    if (type.dtype() == DType::I64) lit.setInt(i, 17);
    else lit.setFloat(i, std::sin(0.37 * static_cast<double>(i + 1) * (salt + 1)));
  }
  return lit;
}

void expectClose(const Literal& got, const Literal& want, const std::string& what) {
  ASSERT_EQ(got.type(), want.type()) << what;
  for (int64_t i = 0; i < got.numElements(); ++i) {
    if (isFloat(got.dtype())) {
      double g = got.floatAt(i), w = want.floatAt(i);
      // cpu: BLAS and vectorized sums add in another order than the interpreter.
      EXPECT_NEAR(g, w, 1e-5 * std::max(1.0, std::fabs(w))) << what << " element " << i;
    } else {
      EXPECT_EQ(got.intAt(i), want.intAt(i)) << what << " element " << i;
    }
  }
}

class ResultsTest : public ::testing::TestWithParam<const char*> {};

TEST_P(ResultsTest, SameAsTheInterpreter) {
  Client client(Plugin::load(GetParam()));
  Device device = client.devices()[0];
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.name);
    std::unique_ptr<Module> module = stablehlo::parseModule(std::string(c.text));
    const Function& fn = *module->lookup("main");
    interp::HostValues args;
    std::vector<Buffer> buffers;
    int salt = 0;
    for (const Type& t : fn.paramTypes()) {
      args.push_back(inputFor(t, salt++));
      buffers.push_back(client.bufferFromHost(args.back().tensor(), device));
    }
    interp::Interpreter interpreter(*module);
    interp::HostValues want = interpreter.call(fn, args);

    Executable exe = client.compile(c.text);
    std::vector<const Buffer*> argPtrs;
    for (const Buffer& b : buffers) argPtrs.push_back(&b);
    Executable::Execution run = exe.execute(argPtrs, device);
    run.done.await();
    ASSERT_EQ(run.outputs.size(), want.size());
    for (size_t r = 0; r < want.size(); ++r)
      expectClose(run.outputs[r].toLiteral(), want[r].tensor(), std::string(c.name) + " result " + std::to_string(r));
  }
}

TEST_P(ResultsTest, ExecutableDescribesItself) {
  Client client(Plugin::load(GetParam()));
  Executable exe = client.compile(kCases[1].text);  // the dot
  ExecutableInfo info = exe.info();
  EXPECT_EQ(info.name, "main");
  ASSERT_EQ(info.parameters.size(), 2u);
  EXPECT_EQ(info.parameters[0], Type::tensor(DType::F32, {8, 16}));
  EXPECT_EQ(info.parameters[1], Type::tensor(DType::F32, {16, 4}));
  ASSERT_EQ(info.results.size(), 1u);
  EXPECT_EQ(info.results[0], Type::tensor(DType::F32, {8, 4}));
  EXPECT_EQ(info.flops, 2.0 * 8 * 4 * 16);  // passes::costOf: 2 per multiply-add
  EXPECT_EQ(info.bytesAccessed, 4.0 * (8 * 16 + 16 * 4 + 8 * 4));
  EXPECT_GE(info.peakLiveBytes, 4 * (8 * 16 + 16 * 4));
}

TEST_P(ResultsTest, SerializedExecutableRunsAfterDeserialize) {
  Client client(Plugin::load(GetParam()));
  Device device = client.devices()[0];
  std::string bytes = client.compile(kAddOne).serialize();
  Executable back = client.deserialize(bytes);
  EXPECT_EQ(back.info().parameters[0], Type::tensor(DType::F32, {4}));
  Buffer x = client.bufferFromHost(f32({4}, {1, 2, 3, 4}), device);
  Executable::Execution run = back.execute({&x}, device);
  EXPECT_EQ(run.outputs[0].toLiteral(), f32({4}, {2, 3, 4, 5}));
}

INSTANTIATE_TEST_SUITE_P(Plugins, ResultsTest, ::testing::ValuesIn(kPlugins));

}  // namespace
}  // namespace kiln::runtime::testing
