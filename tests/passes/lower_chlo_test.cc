// lower-chlo: every CHLO op with a decomposition becomes StableHLO primitives: the
// structural ones computing the same bits on special inputs (NaN, ±0, ±inf, extremes), the
// math functions within a stated ULP bound of the kernels over every binade and a sweep
// of their interesting interval (special values exactly), and on complex operands within
// a stated relative bound over a grid of the plane (special values part by part); the
// keep set and element types a decomposition does not cover leave the op in place.
#include <gtest/gtest.h>

#include <algorithm>
#include <complex>
#include <cstdio>
#include <cstring>
#include <random>

#include "ir/ops/chlo.h"
#include "ir/ops/stablehlo.h"
#include "passes/pass_test_util.h"

namespace kiln::passes {
namespace {

using test_util::count;
using test_util::runAndCompare;

std::string unaryOpProgram(const std::string& op, const std::string& type) {
  return "func.func @main(%x: " + type + ") -> " + type + " {\n  %0 = " + op + " %x : " + type +
         " -> " + type + "\n  return %0 : " + type + "\n}\n";
}

// A binary op over two values of `type`, written in the generic form (every op has one).
std::string binaryOpProgram(const std::string& op, const std::string& type) {
  return "func.func @main(%x: " + type + ", %y: " + type + ") -> " + type + " {\n  %0 = \"" + op +
         "\"(%x, %y) : (" + type + ", " + type + ") -> " + type + "\n  return %0 : " + type + "\n}\n";
}

TEST(LowerChloTest, SquareOfRealsAndIntegers) {
  for (const char* t : {"tensor<8xf32>", "tensor<8xf16>", "tensor<8xbf16>", "tensor<8xf64>",
                        "tensor<8xi32>", "tensor<8xi8>"}) {
    auto m = runAndCompare(unaryOpProgram("chlo.square", t), {"lower-chlo"});
    EXPECT_EQ(count(*m, ops::ChloSquare), 0) << t;
    EXPECT_EQ(count(*m, ops::Multiply), 1) << t;
  }
}

TEST(LowerChloTest, MulhiUpTo32Bits) {
  for (const char* t : {"tensor<8xi32>", "tensor<8xui32>", "tensor<8xi16>", "tensor<8xui8>"}) {
    auto m = runAndCompare(binaryOpProgram("chlo.mulhi", t), {"lower-chlo"});
    EXPECT_EQ(count(*m, ops::ChloMulhi), 0) << t;
  }
}

// 64 bits, from 32-bit halves: every pair of edge values (0, ±1, the extremes and their
// neighbours, the halves' boundaries 2^32 ± 1) and random pairs, bit for bit.
TEST(LowerChloTest, Mulhi64BitsFromHalves) {
  std::vector<uint64_t> edges = {0,
                                 1,
                                 2,
                                 3,
                                 0xffffffffu,
                                 0x100000000u,
                                 0x100000001u,
                                 0x7fffffffffffffffu,
                                 0x8000000000000000u,
                                 0x8000000000000001u,
                                 0xfffffffeffffffffu,
                                 0xffffffff00000000u,
                                 0xfffffffffffffffeu,
                                 0xffffffffffffffffu};
  std::vector<std::pair<uint64_t, uint64_t>> pairs;
  for (uint64_t a : edges)
    for (uint64_t b : edges) pairs.push_back({a, b});
  std::mt19937_64 random(42);
  for (int i = 0; i < 500; ++i) pairs.push_back({random(), random()});
  // Small and mixed-sign magnitudes, where the signed correction decides the result.
  for (int i = 0; i < 100; ++i)
    pairs.push_back({random() >> (random() % 64), ~(random() >> (random() % 64))});
  for (const char* e : {"i64", "ui64"}) {
    std::string t = "tensor<" + std::to_string(pairs.size()) + "x" + e + ">";
    std::string text = binaryOpProgram("chlo.mulhi", t);
    auto before = stablehlo::parseModule(text);
    auto after = stablehlo::parseModule(text);
    PassContext ctx;
    createPass("lower-chlo")->run(*after, ctx);
    EXPECT_NO_THROW(verifyModule(*after));
    EXPECT_EQ(count(*after, ops::ChloMulhi), 0) << e;
    const Type& pt = before->lookup("main")->param(0)->type();
    Literal x(pt), y(pt);
    for (size_t i = 0; i < pairs.size(); ++i) {
      x.setBits(static_cast<int64_t>(i), pairs[i].first);
      y.setBits(static_cast<int64_t>(i), pairs[i].second);
    }
    test_util::expectBitIdentical(interp::Interpreter(*before).call("main", {x, y}),
                                  interp::Interpreter(*after).call("main", {x, y}), text);
  }
}

TEST(LowerChloTest, NextAfterOnTheBits) {
  // Special values on both sides: NaN, ±0, ±inf, the largest and smallest numbers.
  for (const char* t : {"tensor<16xf32>", "tensor<16xf64>", "tensor<16xf16>", "tensor<16xbf16>"}) {
    auto m = runAndCompare(binaryOpProgram("chlo.next_after", t), {"lower-chlo"});
    EXPECT_EQ(count(*m, ops::ChloNextAfter), 0) << t;
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
    EXPECT_EQ(count(*m, ops::ChloScan), 0) << reverse;
    EXPECT_EQ(count(*m, ops::While), 1) << reverse;
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
        EXPECT_EQ(count(*m, ops::ChloRaggedDot), 0) << c.name << " " << sizes;
        EXPECT_GE(count(*m, ops::DotGeneral), 1) << c.name << " " << sizes;
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
    EXPECT_EQ(count(*m, ops::ChloTopK), 0) << t;
    EXPECT_EQ(count(*m, ops::Sort), 1) << t;
  }
}

TEST(LowerChloTest, KeepsWhatTheBackendAsksToKeep) {
  PassContext ctx;
  ctx.options.keepChlo = {"chlo.square"};
  auto m = runAndCompare(unaryOpProgram("chlo.square", "tensor<8xf32>"), {"lower-chlo"}, ctx);
  EXPECT_EQ(count(*m, ops::ChloSquare), 1);
  // Ops whose decomposition declines stay too (next_after on a 4-bit float: no unsigned
  // type of its width to step the bits in).
  auto c = runAndCompare(binaryOpProgram("chlo.next_after", "tensor<8xf4E2M1FN>"), {"lower-chlo"});
  EXPECT_EQ(count(*c, ops::ChloNextAfter), 1);
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
  std::string text = unaryOpProgram(op, t);
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
  auto m = test_util::runAndCompare(unaryOpProgram("chlo.tan", "tensor<8xcomplex<f64>>"), {"lower-chlo"});
  EXPECT_EQ(count(*m, ops::ChloTan), 0);
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

// ---- complex operands ----

using Complex = std::complex<double>;

// The results of the unary `op` on `zs` (complex<`part`>) before and after lower-chlo,
// which must have removed the op.
struct ComplexRun {
  Literal in, want, got;
};

ComplexRun runComplex(const std::string& op, const std::string& part,
                      const std::vector<Complex>& zs) {
  std::string t = "tensor<" + std::to_string(zs.size()) + "xcomplex<" + part + ">>";
  std::string text = unaryOpProgram(op, t);
  auto before = stablehlo::parseModule(text);
  auto after = stablehlo::parseModule(text);
  PassContext ctx;
  createPass("lower-chlo")->run(*after, ctx);
  EXPECT_NO_THROW(verifyModule(*after));
  OpCode code = before->lookup("main")->body().front()->code();
  EXPECT_EQ(count(*after, code), 0) << op << " on complex<" << part << "> was not lowered";
  Literal in(before->lookup("main")->param(0)->type());
  for (size_t i = 0; i < zs.size(); ++i) in.setComplex(static_cast<int64_t>(i), zs[i]);
  Literal want = interp::Interpreter(*before).call("main", {in})[0].tensor();
  Literal got = interp::Interpreter(*after).call("main", {in})[0].tensor();
  return {in, want, got};
}

// The bits of element i's real and imaginary parts.
std::pair<uint64_t, uint64_t> partBits(const Literal& l, int64_t i) {
  size_t bytes = static_cast<size_t>(storageBytes(l.dtype()));
  const uint8_t* p = l.storage() + (l.isSplat() ? 0 : static_cast<size_t>(i) * bytes);
  uint64_t re = 0, im = 0;
  std::memcpy(&re, p, bytes / 2);
  std::memcpy(&im, p + bytes / 2, bytes / 2);
  return {re, im};
}

std::string show(Complex z) {
  return "(" + stablehlo::printFloat(z.real(), DType::F64) + ", " +
         stablehlo::printFloat(z.imag(), DType::F64) + ")";
}

// Every (re, im) pair of `parts`.
std::vector<Complex> plane(const std::vector<double>& parts) {
  std::vector<Complex> zs;
  for (double re : parts)
    for (double im : parts) zs.push_back({re, im});
  return zs;
}

// The special values of test_util (NaN, ±0, ±inf, extremes) and the format's own extremes
// on both sides, with magnitudes where x + y overflows and where |x| = |y|.
std::vector<double> specialParts(bool f64) {
  double max = f64 ? std::numeric_limits<double>::max() : std::numeric_limits<float>::max();
  double tiny = f64 ? std::numeric_limits<double>::denorm_min()
                    : std::numeric_limits<float>::denorm_min();
  return {NAN,  -NAN, -0.0,  0.0,    INFINITY, -INFINITY, 1.0,  -1.0, 2.5,  -3.75,
          1e30, -1e-30, 65504, 1e-40, 0.5,      -2.0,      max,  -max, tiny, -tiny,
          1.0 / 3, -0.1, 1e19, -1e20};
}

// Complex square is the kernel's computation, bit for bit: on special values and their
// combinations, and on random parts (where complex<f32> rounds from f64 once). Up to the
// sign of a NaN: x·y of two NaNs keeps the one the compiled host code puts first, which
// the kernel's C++ and the interpreter's multiply need not agree on.
TEST(LowerChloTest, SquareOfComplexBitForBit) {
  for (const char* part : {"f32", "f64"}) {
    std::vector<Complex> zs = plane(specialParts(std::string(part) == "f64"));
    std::mt19937_64 random(7);
    std::uniform_real_distribution<double> mantissa(-2, 2);
    std::uniform_int_distribution<int> exponent(-60, 60);
    for (int i = 0; i < 400; ++i)
      zs.push_back({std::ldexp(mantissa(random), exponent(random)),
                    std::ldexp(mantissa(random), exponent(random))});
    ComplexRun r = runComplex("chlo.square", part, zs);
    for (int64_t i = 0; i < r.in.numElements(); ++i) {
      Complex w = r.want.complexAt(i), g = r.got.complexAt(i);
      auto [wre, wim] = partBits(r.want, i);
      auto [gre, gim] = partBits(r.got, i);
      bool same = (wre == gre || (std::isnan(w.real()) && std::isnan(g.real()))) &&
                  (wim == gim || (std::isnan(w.imag()) && std::isnan(g.imag())));
      EXPECT_TRUE(same) << "square on complex<" << part << "> at " << show(r.in.complexAt(i))
                        << ": kernel " << show(w) << ", lowered " << show(g);
    }
  }
}

// Points of the plane for the relative error: every pair of parts from the magnitudes
// below (both signs), which hold 0, tiny and huge values and points next to the branch
// points ±1 and ±i (1 ± 2⁻¹⁰, 1 ± ulp), plus random points of [-4, 4]².
std::vector<Complex> complexGrid(bool f64) {
  double eps = f64 ? 0x1p-52 : 0x1p-23;
  std::vector<double> magnitudes = {0,   1e-30,   1e-7, 0.3, 0.5,  1 - 0x1p-10, 1 - eps / 2,
                                    1,   1 + eps, 1 + 0x1p-10,   1.5,  3,         1e4,
                                    1e8, 1e15,    1e30};
  // Around the switch of cosh and sinh to e^|x|/2 (20), and near where e^|x| overflows
  // while e^|x|/2 does not (89 for f32, 710 for f64).
  for (double m : {19.9, 20.0, 25.0, 88.0, 89.0}) magnitudes.push_back(m);
  // 1e-20 (f32) and 1e-160 (f64): their squares are subnormal.
  magnitudes.push_back(1e-20);
  if (f64)
    for (double m : {1e-300, 1e-160, 1e-100, 1e100, 1e300, 700.0, 710.0}) magnitudes.push_back(m);
  std::vector<double> parts;
  for (double m : magnitudes) {
    parts.push_back(m);
    parts.push_back(-m);
  }
  std::vector<Complex> zs = plane(parts);
  std::mt19937_64 random(11);
  std::uniform_real_distribution<double> uniform(-4, 4);
  for (int i = 0; i < 1000; ++i) zs.push_back({uniform(random), uniform(random)});
  return zs;
}

// The largest |lowered - kernel| / |kernel| of `op` over the grid in complex<`part`>,
// which must be at most `bound`. Where the kernel's result is 0 the
// lowered one must be 0 too; where it is not finite, the lowered one must not be finite
// either (the special values are checked separately).
double complexRelativeError(const std::string& op, const std::string& part, double bound) {
  ComplexRun r = runComplex(op, part, complexGrid(part == "f64"));
  double worst = 0;
  Complex worstAt = 0;
  int failures = 0;
  for (int64_t i = 0; i < r.in.numElements(); ++i) {
    Complex z = r.in.complexAt(i), w = r.want.complexAt(i), g = r.got.complexAt(i);
    bool finite = std::isfinite(w.real()) && std::isfinite(w.imag());
    double err;
    if (!finite) err = std::isfinite(g.real()) && std::isfinite(g.imag()) ? INFINITY : 0;
    else if (w == Complex(0)) err = g == Complex(0) ? 0 : INFINITY;
    else err = std::abs(g - w) / std::abs(w);
    if (!(err <= bound) && ++failures <= 5)
      ADD_FAILURE() << op << " on complex<" << part << "> at " << show(z) << ": kernel " << show(w)
                    << ", lowered " << show(g) << " (relative error " << err << ", bound "
                    << bound << ")";
    if (err > worst || std::isnan(err)) {
      worst = err;
      worstAt = z;
    }
  }
  std::printf("[ measured ] %s on complex<%s>: relative error %g at %s (bound %g)\n", op.c_str(),
              part.c_str(), worst, show(worstAt).c_str(), bound);
  return worst;
}

// The bounds, relative to the kernel's result (computed in double, rounded once): 2.5e-7
// for complex<f32> (about 4 f32 ULP of the modulus; the formulas work in f32) and 6e-16
// for complex<f64> (about 5 f64 ULP). Measured worst: complex<f32> asin 1.26e-7, acos
// 1.18e-7, atan 1.33e-7, asinh 1.18e-7, acosh 1.18e-7, atanh 1.17e-7, cosh 1.48e-7, sinh
// 1.61e-7; complex<f64> asin 3.26e-16, acos 2.36e-16, atan 2.06e-16, asinh 2.64e-16, acosh
// 2.36e-16, atanh 2.07e-16, cosh and sinh 4.00e-16 (at x = 710, where e^|x|/2 is formed
// as (e^(|x|/2)/2)·e^(|x|/2)).
void checkComplex(const char* op) {
  complexRelativeError(op, "f32", 2.5e-7);
  complexRelativeError(op, "f64", 6e-16);
}

TEST(LowerChloMathTest, ComplexInverseTrigonometric) {
  checkComplex("chlo.asin");
  checkComplex("chlo.acos");
  checkComplex("chlo.atan");
}

TEST(LowerChloMathTest, ComplexInverseHyperbolic) {
  checkComplex("chlo.asinh");
  checkComplex("chlo.acosh");
  checkComplex("chlo.atanh");
}

TEST(LowerChloMathTest, ComplexHyperbolic) {
  checkComplex("chlo.cosh");
  checkComplex("chlo.sinh");
}

// Special values and their combinations (NaN, ±0, ±inf, the extremes, subnormals): each
// part as the kernel's, NaN for NaN and infinities and zeros with their signs, finite
// parts within 3 ULP of the part type (stablehlo-math's bound), with two exceptions:
// - a zero or an infinity beside a NaN may differ in sign (Annex G leaves those signs
//   open: cosh(-NaN + i0)'s imaginary zero, for one);
// - asin, acos, asinh and acosh on complex<f64> at ±1 ± i·subnormal (the real and
//   imaginary parts swapped for asinh): the kernel's a - 1 = y/2 underflows in double
//   and gives 0 where √y (about 2e-162) is right; the lowering gives √y. (complex<f32>
//   kernels compute in double, where it does not underflow, and agree.)
TEST(LowerChloMathTest, ComplexSpecialValues) {
  for (const char* op : {"chlo.asin", "chlo.acos", "chlo.atan", "chlo.asinh", "chlo.acosh",
                         "chlo.atanh", "chlo.cosh", "chlo.sinh"}) {
    std::string name = op;
    bool asinFamily =
        name == "chlo.asin" || name == "chlo.acos" || name == "chlo.asinh" || name == "chlo.acosh";
    for (const char* part : {"f32", "f64"}) {
      bool f64 = std::string(part) == "f64";
      DType pt = f64 ? DType::F64 : DType::F32;
      ComplexRun r = runComplex(op, part, plane(specialParts(f64)));
      uint64_t worst = 0;
      int failures = 0;
      for (int64_t i = 0; i < r.in.numElements(); ++i) {
        Complex z = r.in.complexAt(i), w = r.want.complexAt(i), g = r.got.complexAt(i);
        auto [wre, wim] = partBits(r.want, i);
        auto [gre, gim] = partBits(r.got, i);
        // Whether a part agrees, `beside` the kernel's other part.
        auto agrees = [&](double wv, double gv, uint64_t wb, uint64_t gb, double beside) {
          if (std::isnan(wv) || std::isnan(gv)) return std::isnan(wv) && std::isnan(gv);
          if (std::isnan(beside) && (wv == 0 || std::isinf(wv)))
            return std::fabs(wv) == std::fabs(gv);
          if (!std::isfinite(wv) || !std::isfinite(gv) || (wv == 0 && gv == 0)) return wb == gb;
          uint64_t d = ulpDistance(wb, gb, pt);
          worst = std::max(worst, d);
          return d <= 3;
        };
        double tiny = std::numeric_limits<double>::denorm_min();
        bool unitAndSubnormal = name == "chlo.asinh"
                                    ? std::fabs(z.imag()) == 1 && std::fabs(z.real()) == tiny
                                    : std::fabs(z.real()) == 1 && std::fabs(z.imag()) == tiny;
        if (f64 && asinFamily && unitAndSubnormal) continue;
        bool ok = agrees(w.real(), g.real(), wre, gre, w.imag()) &&
                  agrees(w.imag(), g.imag(), wim, gim, w.real());
        if (!ok && ++failures <= 5)
          ADD_FAILURE() << op << " on complex<" << part << "> at " << show(z) << ": kernel "
                        << show(w) << ", lowered " << show(g);
      }
      std::printf("[ measured ] %s on complex<%s>, special values: %llu ULP (bound 3)\n", op, part,
                  static_cast<unsigned long long>(worst));
    }
  }
}

}  // namespace
}  // namespace kiln::passes
