// The typed builder: programs built with it verify by construction, print and parse back,
// and compute what they should on the interpreter; ops whose operands do not fit are
// refused before anything is inserted, with the op named. Fingerprints ignore SSA names
// and locations and see every constant element.
#include "ir/builder.h"

#include <gtest/gtest.h>

#include "interp/interpreter.h"
#include "ir/fingerprint.h"
#include "ir/ops/stablehlo.h"
#include "ir/verifier.h"
#include "stablehlo/parser.h"
#include "stablehlo/printer.h"
#include "support/error.h"

namespace kiln {
namespace {

Type f32(Shape s) { return Type::tensor(DType::F32, std::move(s)); }

// Adds the two scalar arguments of a reducer.
std::vector<Value*> addBody(Builder& b, const std::vector<Value*>& a) {
  return {b.binary(ops::Add, a[0], a[1])};
}

// Verifies, checks the printed module reads back to the same text, and runs @main.
interp::HostValues check(Module& m, const interp::HostValues& args) {
  EXPECT_NO_THROW(verifyModule(m));
  std::string text = stablehlo::printModule(m);
  auto again = stablehlo::parseModule(text);
  EXPECT_EQ(stablehlo::printModule(*again), text);
  interp::Interpreter interp(m, {});
  return interp.call("main", args);
}

Literal iotaLiteral(const Type& t) {
  Literal lit(t);
  for (int64_t i = 0; i < lit.numElements(); ++i) lit.setFloat(i, static_cast<double>(i));
  return lit;
}

TEST(BuilderTest, MlpLayerInfersEveryShape) {
  Module m;
  buildFunction(m, "main", {f32({4, 3}), f32({3, 2})}, [](Builder& b, const std::vector<Value*>& p) {
    Value* y = b.dotGeneral(p[0], p[1], DotDims{{}, {}, {1}, {0}});
    EXPECT_EQ(y->type(), f32({4, 2}));
    Value* bias = b.broadcastInDim(b.splat(f32({2}), 0.5), {4, 2}, {1});
    Value* z = b.binary(ops::Maximum, b.binary(ops::Add, y, bias), b.splat(f32({4, 2}), 0));
    Value* sum = b.reduce({z}, {b.splat(f32({}), 0)}, {1}, addBody)[0];
    EXPECT_EQ(sum->type(), f32({4}));
    return std::vector<Value*>{b.transpose(z, {1, 0}), sum};
  });
  EXPECT_EQ(m.lookup("main")->resultTypes(), (TypeList{f32({2, 4}), f32({4})}));
  interp::HostValues out = check(m, {iotaLiteral(f32({4, 3})), iotaLiteral(f32({3, 2}))});
  // Row 0 of x is [0, 1, 2]; w = [[0, 1], [2, 3], [4, 5]]: x0·w = [10, 13], +0.5, relu.
  EXPECT_DOUBLE_EQ(out[0].tensor().floatAt(0), 10.5);
  EXPECT_DOUBLE_EQ(out[0].tensor().floatAt(4), 13.5);
  EXPECT_DOUBLE_EQ(out[1].tensor().floatAt(0), 24.0);
}

TEST(BuilderTest, ControlFlowAndRegions) {
  Module m;
  Type i32 = Type::scalar(DType::I32);
  buildFunction(m, "main", {i32}, [&](Builder& b, const std::vector<Value*>& p) {
    Value* zero = b.splat(i32, 0);
    // Sum 0..n-1 with a while loop over (i, acc).
    std::vector<Value*> loop = b.while_(
        {zero, zero},
        [&](Builder& c, const std::vector<Value*>& s) {
          return std::vector<Value*>{c.compare(s[0], p[0], ComparisonDirection::LT)};
        },
        [&](Builder& c, const std::vector<Value*>& s) {
          Value* next = c.binary(ops::Add, s[0], c.splat(i32, 1));
          return std::vector<Value*>{next, c.binary(ops::Add, s[1], s[0])};
        });
    Value* big = b.compare(loop[1], b.splat(i32, 10), ComparisonDirection::GT);
    std::vector<Value*> chosen = b.if_(
        big, [&](Builder& c, const std::vector<Value*>&) { return std::vector<Value*>{c.splat(i32, 1)}; },
        [&](Builder& c, const std::vector<Value*>&) { return std::vector<Value*>{c.splat(i32, 2)}; });
    return std::vector<Value*>{loop[1], chosen[0]};
  });
  Literal n(i32);
  n.setInt(0, 6);
  interp::HostValues out = check(m, {n});
  EXPECT_EQ(out[0].tensor().intAt(0), 15);
  EXPECT_EQ(out[1].tensor().intAt(0), 1);
}

TEST(BuilderTest, GatherSortConvolutionAndCalls) {
  Module m;
  Function* twice = buildFunction(
      m, "twice", {f32({3})},
      [](Builder& b, const std::vector<Value*>& p) {
        return std::vector<Value*>{b.binary(ops::Add, p[0], p[0])};
      },
      Visibility::Private);
  buildFunction(m, "main", {f32({3})}, [&](Builder& b, const std::vector<Value*>& p) {
    // Gather elements 2 and 0.
    Literal idx(Type::tensor(DType::I32, {2, 1}));
    idx.setInt(0, 2);
    idx.setInt(1, 0);
    Value* g = b.gather(p[0], b.constant(idx), GatherDims{{}, {0}, {}, {}, {0}, 1}, {1});
    EXPECT_EQ(g->type(), f32({2}));
    Value* sorted = b.sort({b.call(*twice, {p[0]})[0]}, 0, true,
                           [](Builder& c, const std::vector<Value*>& a) {
                             return std::vector<Value*>{c.compare(a[0], a[1], ComparisonDirection::GT)};
                           })[0];
    // A 1-D convolution with a [1, 1] kernel: the sum of neighbours.
    Value* x = b.reshape(p[0], {1, 3, 1});
    Value* k = b.splat(f32({2, 1, 1}), 1);
    ConvDims dims{0, 2, {1}, 1, 2, {0}, 0, 2, {1}};
    Window window;
    window.strides = {1};
    window.baseDilations = {1};
    window.windowDilations = {1};
    window.padding = {{0, 0}};
    window.reversal = {false};
    Value* conv = b.convolution(x, k, dims, window);
    EXPECT_EQ(conv->type(), f32({1, 2, 1}));
    return std::vector<Value*>{g, sorted, conv};
  });
  Literal x(f32({3}));
  for (int64_t i = 0; i < 3; ++i) x.setFloat(i, static_cast<double>(i + 1));  // [1, 2, 3]
  interp::HostValues out = check(m, {x});
  EXPECT_DOUBLE_EQ(out[0].tensor().floatAt(0), 3);
  EXPECT_DOUBLE_EQ(out[0].tensor().floatAt(1), 1);
  EXPECT_DOUBLE_EQ(out[1].tensor().floatAt(0), 6);  // descending: [6, 4, 2]
  EXPECT_DOUBLE_EQ(out[2].tensor().floatAt(0), 3);  // 1 + 2
  EXPECT_DOUBLE_EQ(out[2].tensor().floatAt(1), 5);  // 2 + 3
}

TEST(BuilderTest, FftRandomBatchNormAndCollectives) {
  Module m;
  // Collectives only run inside interpreter.run_parallel: built and verified, not run.
  buildFunction(m, "spmd", {f32({4})}, [](Builder& b, const std::vector<Value*>& p) {
    Value* sum = b.allReduce({p[0]}, {{0, 1}}, addBody)[0];
    // Two inputs: one binary reducer serves both (the spec's C5), not two arguments per input.
    std::vector<Value*> both = b.allReduce({p[0], b.iota(f32({2, 3}), 1)}, {{0, 1}}, addBody);
    EXPECT_EQ(both[1]->type(), f32({2, 3}));
    Value* gathered = b.allGather(sum, 0, {{0, 1}});
    EXPECT_EQ(gathered->type(), f32({8}));
    return std::vector<Value*>{gathered, b.collectivePermute(p[0], {{0, 1}, {1, 0}})};
  });
  buildFunction(m, "main", {f32({2, 3})}, [](Builder& b, const std::vector<Value*>& p) {
    Value* spectrum = b.fft(b.reshape(p[0], {6}), FftType::Rfft, {6});
    EXPECT_EQ(spectrum->type(), Type::tensor(DType::C64, {4}));
    Value* u = b.rng(b.splat(f32({}), 0), b.splat(f32({}), 1), {2, 3}, RngDistribution::Uniform);
    EXPECT_EQ(u->type(), f32({2, 3}));
    Literal seed(Type::tensor(DType::U64, {2}));
    std::vector<Value*> bits = b.rngBitGenerator(b.constant(seed), RngAlgorithm::ThreeFry,
                                                 Type::tensor(DType::U32, {2, 2}));
    EXPECT_EQ(bits[1]->type(), Type::tensor(DType::U32, {2, 2}));
    Value* one = b.splat(f32({3}), 1), *zero = b.splat(f32({3}), 0);
    Value* same = b.batchNormInference(p[0], one, zero, zero, one, 0.0, 1);
    std::vector<Value*> stats = b.batchNormTraining(p[0], one, zero, 0.0, 1);
    std::vector<Value*> grads = b.batchNormGrad(p[0], one, stats[1], stats[2], p[0], 0.0, 1);
    EXPECT_EQ(grads[1]->type(), f32({3}));
    return std::vector<Value*>{spectrum, same, stats[1], u};
  });
  Literal x(f32({2, 3}));
  for (int64_t i = 0; i < 6; ++i) x.setFloat(i, static_cast<double>(i + 1));  // [[1, 2, 3], [4, 5, 6]]
  interp::HostValues out = check(m, {x});
  EXPECT_DOUBLE_EQ(out[0].tensor().complexAt(0).real(), 21);  // the DC term: the sum
  EXPECT_DOUBLE_EQ(out[1].tensor().floatAt(4), 5);            // (x - 0) / sqrt(1 + 0)
  EXPECT_DOUBLE_EQ(out[2].tensor().floatAt(0), 2.5);          // mean of feature 0: (1 + 4) / 2
  for (int64_t i = 0; i < 6; ++i) {
    double v = out[3].tensor().floatAt(i);
    EXPECT_TRUE(v >= 0 && v < 1) << v;
  }
}

TEST(BuilderTest, RefusesOperandsThatDoNotFit) {
  Function fn("f", {f32({2, 3}), f32({4, 5})}, {});
  Builder b(fn.body());
  b.setLocation(Location::file("model.py", 12, 3));
  try {
    b.dotGeneral(fn.param(0), fn.param(1), DotDims{{}, {}, {1}, {0}});
    FAIL() << "a 2x3 times 4x5 product was accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Verify);
    EXPECT_NE(e.message().find("stablehlo.dot_general: contracting_dimensions"), std::string::npos)
        << e.message();
    EXPECT_NE(e.message().find("model.py:12:3"), std::string::npos) << e.message();
  }
  EXPECT_THROW(b.reshape(fn.param(0), {5}), Error);
  EXPECT_THROW(b.broadcastInDim(fn.param(0), {2, 4}, {0, 1}), Error);
  EXPECT_THROW(b.binary(ops::Add, fn.param(0), fn.param(1)), Error);
  // A result type that is a parameter of the op must be given.
  try {
    b.create1(ops::Reshape, {fn.param(0)});
    FAIL() << "a reshape without its result type was accepted";
  } catch (const Error& e) {
    EXPECT_NE(e.message().find("is a parameter of the op, and it was not given"), std::string::npos)
        << e.message();
  }
  EXPECT_TRUE(fn.body().empty());  // nothing was inserted
}

TEST(BuilderTest, NestedBuildersInheritTheLocation) {
  Module m;
  Location where = Location::file("train.cc", 40, 7);
  buildFunction(m, "main", {f32({4})}, [&](Builder& b, const std::vector<Value*>& p) {
    b.setLocation(where);
    return b.reduce({p[0]}, {b.splat(f32({}), 0)}, {0}, addBody);
  });
  walk(m.lookup("main")->body(), [&](Op& op) {
    if (!op.is(ops::FuncReturn)) {
      EXPECT_EQ(op.loc, where) << op.name();
    }
  });
}

const char* kProgram = R"(
func.func @main(%x: tensor<3xf32>) -> tensor<3xf32> {
  %c = stablehlo.constant dense<[1.0, 2.0, 3.0]> : tensor<3xf32> loc("a.py":1:1)
  %s = stablehlo.add %x, %c : tensor<3xf32> loc("a.py":2:1)
  return %s : tensor<3xf32>
}
)";

TEST(FingerprintTest, IgnoresNamesAndLocationsButSeesEveryElement) {
  Fingerprint base = fingerprint(*stablehlo::parseModule(kProgram));
  std::string renamed = R"(
func.func @main(%arg0: tensor<3xf32>) -> tensor<3xf32> {
  %0 = stablehlo.constant dense<[1.0, 2.0, 3.0]> : tensor<3xf32> loc("b.py":9:9)
  %1 = stablehlo.add %arg0, %0 : tensor<3xf32>
  return %1 : tensor<3xf32>
}
)";
  EXPECT_EQ(fingerprint(*stablehlo::parseModule(renamed)), base);
  std::string middle = kProgram;
  middle.replace(middle.find("2.0"), 3, "2.5");
  EXPECT_NE(fingerprint(*stablehlo::parseModule(middle)), base);
  std::string op = kProgram;
  op.replace(op.find("stablehlo.add"), 13, "stablehlo.multiply");
  EXPECT_NE(fingerprint(*stablehlo::parseModule(op)), base);
  // The same in every process and run: a digest of content only, never of addresses.
  EXPECT_EQ(base.hex().size(), 32u);
  EXPECT_EQ(base.hex(), fingerprint(*stablehlo::parseModule(kProgram)).hex());
}

// An op's code fingerprint: the same for ops that differ in names and lines only; not
// for one that reads an operand twice where the other reads two operands, nor for other
// operand types; none for an op whose region reads a value from outside.
TEST(FingerprintTest, OfAnOpAsCodeSeesOperandsReadTwice) {
  auto m = stablehlo::parseModule(R"(
func.func @main(%x: tensor<3xf32>, %y: tensor<3xf32>, %z: tensor<3xf64>) -> tensor<3xf32> {
  %a = stablehlo.add %x, %y : tensor<3xf32> loc("a.py":1:1)
  %b = stablehlo.add %y, %x : tensor<3xf32> loc("a.py":2:1)
  %c = stablehlo.add %x, %x : tensor<3xf32>
  %d = stablehlo.add %z, %z : tensor<3xf64>
  %e = stablehlo.add %y, %y : tensor<3xf32>
  %zero = stablehlo.constant dense<0.0> : tensor<f32>
  %one = stablehlo.constant dense<1.0> : tensor<f32>
  %f = "stablehlo.reduce"(%a, %zero) ({
    ^bb0(%p: tensor<f32>, %q: tensor<f32>):
      %s = stablehlo.add %p, %one : tensor<f32>
      stablehlo.return %s : tensor<f32>
  }) {dimensions = array<i64: 0>} : (tensor<3xf32>, tensor<f32>) -> tensor<f32>
  return %a : tensor<3xf32>
}
)");
  std::vector<const Op*> ops;
  for (const auto& op : m->lookup("main")->body().ops()) ops.push_back(op.get());
  auto code = [&](size_t i) { return codeFingerprint(*ops[i]); };
  ASSERT_TRUE(code(0) && code(1) && code(2) && code(3) && code(4));
  EXPECT_EQ(*code(0), *code(1));  // the same code on other operands, from other lines
  EXPECT_EQ(*code(2), *code(4));
  EXPECT_NE(*code(0), *code(2));  // one operand read twice
  EXPECT_NE(*code(2), *code(3));  // other types
  EXPECT_FALSE(code(7).has_value());  // its reducer reads %one, not an operand
}

TEST(FingerprintTest, IsStableAcrossProcesses) {
  // A golden value: it changes only when the serialization in fingerprint.cc does (then
  // update it, knowing every cache key changes with it).
  EXPECT_EQ(fingerprint(*stablehlo::parseModule(kProgram)).hex(), "fb4f93da8d0d97ab480207fdbee31386");
}

}  // namespace
}  // namespace kiln
