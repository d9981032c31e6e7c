// lower-chlo: every CHLO op with a decomposition becomes StableHLO primitives: the
// structural ones computing the same bits on special inputs (NaN, ±0, ±inf, extremes), the
// math functions within a stated ULP bound of the kernels over every binade and a sweep
// of their interesting interval (special values exactly); the keep set and element types
// a decomposition does not cover leave the op in place.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>

#include "passes/pass_test_util.h"

namespace kiln::passes {
namespace {

using test_util::count;
using test_util::runAndCompare;

std::string unary(const std::string& op, const std::string& type) {
  return "func.func @main(%x: " + type + ") -> " + type + " {\n  %0 = " + op + " %x : " + type +
         " -> " + type + "\n  return %0 : " + type + "\n}\n";
}

// A binary op over two values of `type`, written in the generic form (every op has one).
std::string binary(const std::string& op, const std::string& type) {
  return "func.func @main(%x: " + type + ", %y: " + type + ") -> " + type + " {\n  %0 = \"" + op +
         "\"(%x, %y) : (" + type + ", " + type + ") -> " + type + "\n  return %0 : " + type + "\n}\n";
}

TEST(LowerChloTest, SquareOfRealsAndIntegers) {
  for (const char* t : {"tensor<8xf32>", "tensor<8xf16>", "tensor<8xbf16>", "tensor<8xf64>",
                        "tensor<8xi32>", "tensor<8xi8>"}) {
    auto m = runAndCompare(unary("chlo.square", t), {"lower-chlo"});
    EXPECT_EQ(count(*m, OpCode::ChloSquare), 0) << t;
    EXPECT_EQ(count(*m, OpCode::Multiply), 1) << t;
  }
  // Complex square stays: the kernel's accurate form is not a product of parts.
  auto m = runAndCompare(unary("chlo.square", "tensor<4xcomplex<f32>>"), {"lower-chlo"});
  EXPECT_EQ(count(*m, OpCode::ChloSquare), 1);
}

TEST(LowerChloTest, MulhiUpTo32Bits) {
  for (const char* t : {"tensor<8xi32>", "tensor<8xui32>", "tensor<8xi16>", "tensor<8xui8>"}) {
    auto m = runAndCompare(binary("chlo.mulhi", t), {"lower-chlo"});
    EXPECT_EQ(count(*m, OpCode::ChloMulhi), 0) << t;
  }
  auto wide = runAndCompare(binary("chlo.mulhi", "tensor<4xi64>"), {"lower-chlo"});
  EXPECT_EQ(count(*wide, OpCode::ChloMulhi), 1);
}

TEST(LowerChloTest, NextAfterOnTheBits) {
  // Special values on both sides: NaN, ±0, ±inf, the largest and smallest numbers.
  for (const char* t : {"tensor<16xf32>", "tensor<16xf64>", "tensor<16xf16>", "tensor<16xbf16>"}) {
    auto m = runAndCompare(binary("chlo.next_after", t), {"lower-chlo"});
    EXPECT_EQ(count(*m, OpCode::ChloNextAfter), 0) << t;
  }
}

// Every composite chlo.broadcast_* op lowers to broadcasts and its primitive, and
// computes what the explicit program does (written here by hand, not by the pass).
TEST(LowerChloTest, BroadcastingCompositesMatchExplicitBroadcasts) {
  int tested = 0;
  for (const OpInfo& info : allOps()) {
    if (!info.has(kBroadcasting)) continue;
    ++tested;
    std::string primitive = "stablehlo." + std::string(info.name.substr(info.name.find('_') + 1));
    ASSERT_TRUE(lookupOp(primitive)) << primitive;
    bool ints = info.elements == ElementClass::Int || info.elements == ElementClass::IntOrBool;
    std::string e = ints ? "i32" : "f32";
    std::string x = "tensor<3x1x" + e + ">", y = "tensor<4x" + e + ">", out = "tensor<3x4x" + e + ">";
    std::string head = "func.func @main(%x: " + x + ", %y: " + y + ") -> " + out + " {\n";
    std::string composite = head + "  %0 = \"" + std::string(info.name) + "\"(%x, %y) : (" + x + ", " + y +
                            ") -> " + out + "\n  return %0 : " + out + "\n}\n";
    std::string explicitForm =
        head + "  %a = stablehlo.broadcast_in_dim %x, dims = [0, 1] : (" + x + ") -> " + out + "\n" +
        "  %b = stablehlo.broadcast_in_dim %y, dims = [1] : (" + y + ") -> " + out + "\n" +
        "  %0 = \"" + primitive + "\"(%a, %b) : (" + out + ", " + out + ") -> " + out + "\n" +
        "  return %0 : " + out + "\n}\n";
    auto m = runAndCompare(composite, {"lower-chlo"});
    EXPECT_EQ(count(*m, info.code), 0) << info.name;
    EXPECT_EQ(count(*m, *lookupOp(primitive)), 1) << info.name;
    auto a = stablehlo::parseModule(composite);
    auto b = stablehlo::parseModule(explicitForm);
    interp::HostValues args = {test_util::specialValues(Type::tensor(ints ? DType::I32 : DType::F32, {3, 1}), 0),
                               test_util::specialValues(Type::tensor(ints ? DType::I32 : DType::F32, {4}), 1)};
    test_util::expectBitIdentical(interp::Interpreter(*b).call("main", args),
                                  interp::Interpreter(*a).call("main", args), composite);
  }
  EXPECT_EQ(tested, 15);
}

// chlo.scan becomes a while loop; forwards and backwards, along an inner dimension, with
// an output per step and a carry, it computes what the kernel computes.
TEST(LowerChloTest, ScanBecomesAWhileLoop) {
  for (const char* reverse : {"false", "true"}) {
    std::string text =
        std::string("func.func @main(%x: tensor<3x5xf32>, %c: tensor<3xf32>) -> (tensor<3x5xf32>, tensor<3xf32>) {\n") +
        "  %0:2 = chlo.scan(%x) inits(%c) dimension=1 attributes {is_reverse = " + reverse + "} {\n"
        "  ^bb0(%e: tensor<3xf32>, %acc: tensor<3xf32>):\n"
        "    %s = stablehlo.add %e, %acc : tensor<3xf32>\n"
        "    %m = stablehlo.multiply %s, %e : tensor<3xf32>\n"
        "    stablehlo.return %m, %s : tensor<3xf32>, tensor<3xf32>\n"
        "  } : (tensor<3x5xf32>, tensor<3xf32>) -> (tensor<3x5xf32>, tensor<3xf32>)\n"
        "  return %0#0, %0#1 : tensor<3x5xf32>, tensor<3xf32>\n}\n";
    auto m = runAndCompare(text, {"lower-chlo"}, test_util::Inputs::Ordinary);
    EXPECT_EQ(count(*m, OpCode::ChloScan), 0) << reverse;
    EXPECT_EQ(count(*m, OpCode::While), 1) << reverse;
  }
}

// chlo.ragged_dot with the ragged dimension free, contracting and batch; group sizes that
// stop short of the ragged dimension, overrun it, are zero, or are negative (so that a
// later group overlaps an earlier one: the later wins). Special inputs put NaN, ±inf and
// ±0 into the operands, so any term the kernel skips but the lowering multiplies shows
// (as a NaN where there was a number; which NaN a dot propagates is the hardware's pick).
TEST(LowerChloTest, RaggedDotAsMaskedDenseDots) {
  struct Case {
    const char* name;
    std::string lhs, rhs, result, dims;
  };
  auto dims = [](const char* lb, const char* rb, const char* lc, const char* rc, const char* ragged,
                 const char* group) {
    return std::string("#chlo.ragged_dot<lhs_batching_dimensions = [") + lb +
           "], rhs_batching_dimensions = [" + rb + "], lhs_contracting_dimensions = [" + lc +
           "], rhs_contracting_dimensions = [" + rc + "], lhs_ragged_dimensions = [" + ragged +
           "], rhs_group_dimensions = [" + group + "]>";
  };
  std::vector<Case> cases = {
      // [m=7, k=3] x [g=3, k=3, n=2]: rows split among the groups.
      {"free", "tensor<7x3xf32>", "tensor<3x3x2xf32>", "tensor<7x2xf32>", dims("", "", "1", "1", "0", "0")},
      // The group dimension last in rhs, after its free dimension, and a batch dimension.
      {"free, batched", "tensor<2x7x3xf32>", "tensor<2x3x4x3xf32>", "tensor<2x7x4xf32>",
       dims("0", "0", "2", "1", "1", "3")},
      {"contracting", "tensor<2x7xf32>", "tensor<7x4xf32>", "tensor<3x2x4xf32>", dims("", "", "1", "0", "1", "")},
      {"batch", "tensor<7x2x3xf32>", "tensor<7x3x2xf32>", "tensor<7x2x2xf32>", dims("0", "0", "2", "1", "0", "")},
      {"integers", "tensor<7x3xi32>", "tensor<3x3x2xi32>", "tensor<7x2xi32>", dims("", "", "1", "1", "0", "0")},
  };
  for (const char* sizes : {"[2, 4, 1]", "[1, 2, 1]", "[3, 0, 9]", "[5, -3, 2]"}) {
    for (const Case& c : cases) {
      std::string text = "func.func @main(%l: " + c.lhs + ", %r: " + c.rhs + ") -> " + c.result + " {\n" +
                         "  %g = stablehlo.constant dense<" + sizes + "> : tensor<3xi64>\n" +
                         "  %d = \"chlo.ragged_dot\"(%l, %r, %g) {ragged_dot_dimension_numbers = " + c.dims +
                         "} : (" + c.lhs + ", " + c.rhs + ", tensor<3xi64>) -> " + c.result + "\n" +
                         "  return %d : " + c.result + "\n}\n";
      for (auto inputs : {test_util::Inputs::Special, test_util::Inputs::Ordinary}) {
        auto m = runAndCompare(text, {"lower-chlo"}, inputs, test_util::NaNs::AnyPayload);
        EXPECT_EQ(count(*m, OpCode::ChloRaggedDot), 0) << c.name << " " << sizes;
        EXPECT_GE(count(*m, OpCode::DotGeneral), 1) << c.name << " " << sizes;
      }
    }
  }
}

TEST(LowerChloTest, TopKWithTiesAndNaN) {
  // Special inputs hold NaN, ±inf, ±0 and repeats: the sort must rank them as the kernel.
  for (const char* t : {"f32", "i32", "ui8"}) {
    std::string x = std::string("tensor<3x8x") + t + ">";
    std::string v = std::string("tensor<3x3x") + t + ">";
    std::string text = "func.func @main(%x: " + x + ") -> (" + v + ", tensor<3x3xi32>) {\n" +
                       "  %0:2 = chlo.top_k(%x, k = 3) : " + x + " -> (" + v + ", tensor<3x3xi32>)\n" +
                       "  return %0#0, %0#1 : " + v + ", tensor<3x3xi32>\n}\n";
    auto m = runAndCompare(text, {"lower-chlo"});
    EXPECT_EQ(count(*m, OpCode::ChloTopK), 0) << t;
    EXPECT_EQ(count(*m, OpCode::Sort), 1) << t;
  }
}

TEST(LowerChloTest, KeepsWhatTheBackendAsksToKeep) {
  PassContext ctx;
  ctx.options.keepChlo = {"chlo.square"};
  auto m = runAndCompare(unary("chlo.square", "tensor<8xf32>"), {"lower-chlo"}, ctx);
  EXPECT_EQ(count(*m, OpCode::ChloSquare), 1);
  // Ops whose decomposition declines stay too (complex acos: the kernel's algorithm).
  auto c = runAndCompare(unary("chlo.acos", "tensor<8xcomplex<f32>>"), {"lower-chlo"});
  EXPECT_EQ(count(*c, OpCode::ChloAcos), 1);
}

// ---- the math functions ----

// Inputs for a unary function on `dtype`: the special values, a few mantissas in every
// binade of the format (subnormals to the largest finite, both signs), and `sweep` points
// spread evenly over [lo, hi] (rounded to the format).
std::vector<double> mathSamples(DType dtype, double lo, double hi, int sweep = 4001) {
  std::vector<double> xs = {NAN, -0.0, 0.0, INFINITY, -INFINITY, 1.0, -1.0, 0.5, -0.5, 2.0, -2.0};
  const FloatFormat& f = info(dtype).format;
  int minExp = 1 - f.bias - f.mantissaBits;  // the smallest subnormal
  int maxExp = (1 << f.exponentBits) - 2 - f.bias;
  int step = dtype == DType::F64 ? 3 : 1;
  for (int e = minExp; e <= maxExp; e += step)
    for (double m : {1.0, 1.3, 1.7, 1.999})
      for (double sign : {1.0, -1.0}) xs.push_back(sign * std::ldexp(m, e));
  for (int i = 0; i <= sweep; ++i) xs.push_back(lo + (hi - lo) * i / sweep);
  return xs;
}

// The distance in ULP between two values of a float format with these bits (the
// checker's count: sign cleared, summed across zero).
uint64_t ulpDistance(uint64_t a, uint64_t b, DType t) {
  uint64_t sign = uint64_t{1} << (bitWidth(t) - 1);
  uint64_t ma = a & (sign - 1), mb = b & (sign - 1);
  if ((a & sign) != (b & sign)) return ma + mb;
  return ma > mb ? ma - mb : mb - ma;
}

// Runs the unary `op` on `xs` in `type` before and after lower-chlo and returns the
// largest ULP distance between the results. The op must be gone after lowering; at NaN,
// ±0 and ±inf inputs, wherever either result is NaN or ±inf and where both are ±0, the
// bits must agree (any NaN with any NaN); elsewhere the distance must be at most `maxUlp`, or the
// absolute error at most absTol·max(1, |x|).
uint64_t ulpAfterLowering(const std::string& op, const std::string& type,
                          const std::vector<double>& xs, uint64_t maxUlp, double absTol = 0) {
  std::string t = "tensor<" + std::to_string(xs.size()) + "x" + type + ">";
  std::string text = unary(op, t);
  auto before = stablehlo::parseModule(text);
  auto after = stablehlo::parseModule(text);
  PassContext ctx;
  createPass("lower-chlo")->run(*after, ctx);
  EXPECT_NO_THROW(verifyModule(*after));
  OpCode code = before->lookup("main")->body().front()->code();
  EXPECT_EQ(count(*after, code), 0) << op << " on " << type << " was not lowered";
  const Type& pt = before->lookup("main")->param(0)->type();
  Literal in(pt);
  for (size_t i = 0; i < xs.size(); ++i) in.setFloat(static_cast<int64_t>(i), xs[i]);
  const Literal want = interp::Interpreter(*before).call("main", {in})[0].tensor();
  const Literal got = interp::Interpreter(*after).call("main", {in})[0].tensor();
  DType d = pt.dtype();
  auto show = [](double v) { return stablehlo::printFloat(v, DType::F64); };
  uint64_t worst = 0;
  double worstAt = 0, worstAbs = 0;
  int failures = 0;
  for (int64_t i = 0; i < want.numElements(); ++i) {
    double x = in.floatAt(i), w = want.floatAt(i), g = got.floatAt(i);
    // A zero against the smallest subnormals is a rounding difference, left to the ULP count.
    bool special =
        !std::isfinite(x) || x == 0 || !std::isfinite(w) || !std::isfinite(g) || (w == 0 && g == 0);
    bool ok;
    uint64_t dist = 0;
    if (std::isnan(w) || std::isnan(g)) {
      ok = std::isnan(w) && std::isnan(g);
    } else if (special) {
      ok = want.bitsAt(i) == got.bitsAt(i);
    } else {
      dist = ulpDistance(want.bitsAt(i), got.bitsAt(i), d);
      bool byUlp = dist <= maxUlp || std::fabs(g - w) > absTol * std::max(1.0, std::fabs(x));
      ok = !byUlp || dist <= maxUlp;
      if (byUlp && dist > worst) {
        worst = dist;
        worstAt = x;
      }
      if (!byUlp) worstAbs = std::max(worstAbs, std::fabs(g - w) / std::max(1.0, std::fabs(x)));
    }
    if (!ok && ++failures <= 5)
      ADD_FAILURE() << op << " on " << type << " at " << show(x) << ": kernel " << show(w)
                    << ", lowered " << show(g) << " (" << dist << " ULP, bound " << maxUlp << ")";
  }
  std::printf(
      "[ measured ] %s on %s: %llu ULP at %s (bound %llu); elsewhere %g absolute (bound %g)\n",
      op.c_str(), type.c_str(), static_cast<unsigned long long>(worst), show(worstAt).c_str(),
      static_cast<unsigned long long>(maxUlp), worstAbs, absTol);
  return worst;
}

struct MathCase {
  const char* op;
  double lo, hi;    // the interval swept evenly besides every binade
  uint64_t f32Ulp;  // bounds against the kernel (which rounds the exact result once)
  uint64_t f64Ulp;
  uint64_t narrowUlp = 1;  // f16 and bf16 (computed in f32 and rounded once)
  // Where the result nears a root, relative error grows without bound for any formula
  // that cancels (lgamma, digamma): there an absolute bound, per type, applies instead,
  // scaled by max(1, |x|) as the terms that cancel grow with |x|.
  double f32Abs = 0, f64Abs = 0;
};

void checkMath(const MathCase& c) {
  ulpAfterLowering(c.op, "f32", mathSamples(DType::F32, c.lo, c.hi), c.f32Ulp, c.f32Abs);
  ulpAfterLowering(c.op, "f64", mathSamples(DType::F64, c.lo, c.hi), c.f64Ulp, c.f64Abs);
  ulpAfterLowering(c.op, "f16", mathSamples(DType::F16, c.lo, c.hi, 1001), c.narrowUlp, c.f32Abs);
  ulpAfterLowering(c.op, "bf16", mathSamples(DType::BF16, c.lo, c.hi, 1001), c.narrowUlp, c.f32Abs);
}

TEST(LowerChloMathTest, InverseTrigonometric) {
  checkMath({"chlo.acos", -1, 1, 3, 3});
  checkMath({"chlo.asin", -1, 1, 3, 3});
  checkMath({"chlo.atan", -8, 8, 3, 3});
}

TEST(LowerChloMathTest, InverseHyperbolic) {
  checkMath({"chlo.acosh", 0.5, 20, 3, 3});
  checkMath({"chlo.asinh", -20, 20, 3, 3});
  checkMath({"chlo.atanh", -1, 1, 3, 3});
}

TEST(LowerChloMathTest, Hyperbolic) {
  // Below f64 the kernel evaluates the decomposition's own formula: bit for bit.
  checkMath({"chlo.cosh", -90, 90, 0, 3, 0});
  checkMath({"chlo.sinh", -90, 90, 0, 3, 0});
}

TEST(LowerChloMathTest, Tan) {
  checkMath({"chlo.tan", -10, 10, 1, 1});
  // Complex tan is stablehlo.tan too.
  auto m = test_util::runAndCompare(unary("chlo.tan", "tensor<8xcomplex<f64>>"), {"lower-chlo"});
  EXPECT_EQ(count(*m, OpCode::ChloTan), 0);
}

TEST(LowerChloMathTest, ErrorFunctions) {
  checkMath({"chlo.erf", -6, 6, 3, 3});
  checkMath({"chlo.erfc", -6, 30, 8, 8});
  checkMath({"chlo.erf_inv", -1, 1, 3, 6});
}

TEST(LowerChloMathTest, GammaFunctions) {
  // Lanczos' sum and the reflection cancel near the roots (1, 2 and one in each interval
  // between the negative poles), so there the bound is absolute.
  checkMath({"chlo.lgamma", -20, 20, 32, 32, 1, 2e-6, 2e-15});
  checkMath({"chlo.digamma", -20, 20, 8, 8, 1, 1e-6, 2e-15});
}

TEST(LowerChloMathTest, BesselI1e) {
  checkMath({"chlo.bessel_i1e", -20, 20, 10, 0});
}

// Complex operands of the inverse functions and of cosh and sinh stay with the kernel.
TEST(LowerChloMathTest, ComplexStays) {
  for (const char* op : {"chlo.acos", "chlo.acosh", "chlo.asin", "chlo.asinh", "chlo.atan",
                         "chlo.atanh", "chlo.cosh", "chlo.sinh"}) {
    auto m = test_util::runAndCompare(unary(op, "tensor<4xcomplex<f32>>"), {"lower-chlo"});
    EXPECT_EQ(count(*m, m->lookup("main")->body().front()->code()), 1) << op;
  }
}

}  // namespace
}  // namespace kiln::passes
