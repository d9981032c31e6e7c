// The cpu backend's kernels against the interpreter, bit for bit: every elementwise op of
// the registry over every element type it takes (inputs full of special values: NaN,
// ±0, ±inf, extremes, integer edge cases), comparisons, conversions and the index maps
// of loop fusions. Each test also asserts that native kernels compiled and ran, so it
// fails if the interpreter silently did the work.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <tuple>

#include "backends/cpu/cpu_test_util.h"
#include "backends/cpu/executable.h"
#include "backends/cpu/narrow_gemm.h"
#include "backends/cpu/onednn_gemm.h"
#include "backends/cpu/threads.h"
#include "ir/ops/stablehlo.h"
#include "passes/pass_manager.h"
#include "passes/pass_test_util.h"

namespace kiln::cpu {
namespace {

using passes::test_util::ordinaryValues;
using passes::test_util::specialValues;

// Bit for bit, except that any NaN matches any NaN: when two NaNs meet, which one an x86
// instruction keeps depends on which operand the compiler put in the destination
// register (both GCC and LLVM treat addition as commutative), so the sign and payload of
// such a NaN are not the program's to fix.
void expectSameBits(const interp::HostValues& a, const interp::HostValues& b) {
  passes::test_util::expectBitIdentical(a, b, "", passes::test_util::NaNs::AnyPayload);
}

// The distance in ulps between two finite floats of a storage width (0 when equal, ±0
// equal): their bits as sign-magnitude integers, made ordered.
int64_t ulpDistance(uint64_t a, uint64_t b, int bytes) {
  const uint64_t sign = uint64_t{1} << (8 * bytes - 1);
  auto key = [&](uint64_t v) { return v & sign ? -static_cast<int64_t>(v & (sign - 1)) : static_cast<int64_t>(v); };
  return std::llabs(key(a) - key(b));
}

int64_t ulpDistance(float a, float b) {
  uint32_t x, y;
  std::memcpy(&x, &a, 4);
  std::memcpy(&y, &b, 4);
  return ulpDistance(x, y, 4);
}

// Results of the inline math (vector_math.h): NaN, ±inf and ±0 as the interpreter has
// them, other values within `ulps` of it in their own type.
void expectWithinUlps(const interp::HostValues& a, const interp::HostValues& b, int64_t ulps) {
  ASSERT_EQ(a.size(), b.size());
  for (size_t r = 0; r < a.size(); ++r) {
    const Literal& x = a[r].tensor();
    const Literal& y = b[r].tensor();
    ASSERT_EQ(x.type(), y.type());
    for (int64_t i = 0; i < x.numElements(); ++i) {
      double u = x.floatAt(i), v = y.floatAt(i);
      if (std::isnan(u) && std::isnan(v)) continue;
      if (!std::isfinite(u) || u == 0) {
        EXPECT_EQ(x.bitsAt(i), y.bitsAt(i)) << "element " << i;
        continue;
      }
      EXPECT_LE(ulpDistance(x.bitsAt(i), y.bitsAt(i), storageBytes(x.dtype())), ulps)
          << "element " << i << ": " << u << " vs " << v;
    }
  }
}

// Runs @main of `text` on the interpreter and on the cpu executable; the results must
// agree (expectSameBits, or within `ulps` where inline math computes them), and at
// least `kernels` kernels must have compiled and run.
void expectSameOnCpu(const std::string& text, size_t kernels = 1, bool special = true, int64_t ulps = 0) {
  SCOPED_TRACE(text);
  auto reference = stablehlo::parseModule(text);
  auto module = stablehlo::parseModule(text);
  passes::PassContext context;
  passes::runPipeline(*module, cpuPipeline(), context);
  Executable exe(*module);
  for (const auto& [reason, n] : exe.declinedReasons()) ADD_FAILURE() << "declined: " << reason;
  EXPECT_GE(exe.numKernels(), kernels);
  const Function* fn = reference->lookup("main");
  ASSERT_NE(fn, nullptr);
  interp::HostValues args;
  for (size_t i = 0; i < fn->numParams(); ++i)
    args.push_back(special ? specialValues(fn->param(i)->type(), i) : ordinaryValues(fn->param(i)->type(), i));
  interp::HostValues expected = interp::Interpreter(*reference).call("main", args);
  interp::HostValues got = exe.call(*module->lookup("main"), args);
  if (ulps > 0) expectWithinUlps(expected, got, ulps);
  else expectSameBits(expected, got);
  // Something ran natively (BLAS calls count too), at least once per kernel asked for.
  EXPECT_GE(exe.numKernels() + exe.numBlasOps(), 1u);
  EXPECT_GE(exe.nativeRuns(), std::max<size_t>(kernels, 1));
}

// Runs @main of a compiled program on the interpreter and on the cpu executable, with
// ordinary inputs: every element of the result within `tolerance` of the largest (BLAS
// and kiln's GEMM kernels sum in their own order).
void expectNearOnCpu(const test_util::Compiled& c, double tolerance) {
  const Function& fn = *c.reference->lookup("main");
  interp::HostValues args;
  for (size_t i = 0; i < fn.numParams(); ++i) args.push_back(ordinaryValues(fn.param(i)->type(), i));
  const Literal want = interp::Interpreter(*c.reference).call("main", args)[0].tensor();
  const Literal have = c.exe->call(*c.module->lookup("main"), args)[0].tensor();
  double largest = 0;
  for (int64_t i = 0; i < want.numElements(); ++i) largest = std::max(largest, std::abs(want.floatAt(i)));
  ASSERT_GT(largest, 0);
  for (int64_t i = 0; i < want.numElements(); ++i)
    ASSERT_NEAR(have.floatAt(i), want.floatAt(i), tolerance * largest) << "element " << i;
}

std::string function(const std::string& params, const std::string& resultType, const std::string& body) {
  return "func.func @main(" + params + ") -> " + resultType + " {\n" + body + "  return %r : " + resultType + "\n}\n";
}

const char* kTypes[] = {"f32", "f64", "f16", "bf16", "i1", "i2", "i4", "i8", "i16", "i32", "i64",
                        "ui2", "ui4", "ui8", "ui16", "ui32", "ui64"};

DType dtypeOf(const std::string& t) { return *parseDType(t); }

// The ops whose f32 (f16, bf16) code is inline math within 2 ulps of glibc, not glibc.
bool inlineMath(OpCode code, const std::string& type) {
  return type != "f64" && (code == ops::Exponential || code == ops::Tanh || code == ops::Logistic ||
                           code == ops::Log || code == ops::LogPlusOne || code == ops::ExponentialMinusOne ||
                           code == ops::Sine || code == ops::Cosine || code == ops::Tan);
}

// Ops that the programs below, one type in and out and no attributes, do not fit:
// reduce_precision takes its format as attributes and complex makes complex numbers of
// floats (completeness_test.cc runs their own samples).
bool notSameTypeOp(OpCode code) { return code == ops::ReducePrecision || code == ops::Complex; }

TEST(CpuKernelsTest, EveryElementwiseUnaryOp) {
  int programs = 0;
  for (const OpInfo& info : allOps()) {
    if (info.category != OpCategory::ElementwiseUnary || !info.has(kElementwise) || notSameTypeOp(info.code)) continue;
    if (info.code == ops::Convert || info.code == ops::IsFinite) continue;  // tested below
    for (const char* t : kTypes) {
      if (!acceptsElement(info.elements, dtypeOf(t))) continue;
      std::string type = std::string("tensor<37x") + t + ">";
      expectSameOnCpu(function("%x: " + type, type,
                               "  %r = \"" + std::string(info.name) + "\"(%x) : (" + type + ") -> " + type + "\n"),
                      1, true, inlineMath(info.code, t) ? 2 : 0);
      ++programs;
    }
  }
  EXPECT_GT(programs, 60);
}

TEST(CpuKernelsTest, EveryElementwiseBinaryOp) {
  int programs = 0;
  for (const OpInfo& info : allOps()) {
    if (info.category != OpCategory::ElementwiseBinary || notSameTypeOp(info.code)) continue;
    for (const char* t : kTypes) {
      DType d = dtypeOf(t);
      if (!acceptsElement(info.elements, d)) continue;
      // The interpreter refuses these at run time; so does the emitter.
      if (isBool(d) && (info.code == ops::Divide || info.code == ops::Remainder || info.code == ops::Power))
        continue;
      std::string type = std::string("tensor<61x") + t + ">";
      expectSameOnCpu(function("%x: " + type + ", %y: " + type, type,
                               "  %r = \"" + std::string(info.name) + "\"(%x, %y) : (" + type + ", " + type + ") -> " +
                                   type + "\n"));
      ++programs;
    }
  }
  EXPECT_GT(programs, 80);
}

TEST(CpuKernelsTest, ComparisonsInEveryDirectionAndOrder) {
  for (const char* t : {"f32", "f64", "i1", "i32", "ui32", "i64"}) {
    for (const char* dir : {"EQ", "NE", "LT", "LE", "GT", "GE"}) {
      std::vector<std::string> orders = {""};
      if (t[0] == 'f') orders = {"FLOAT", "TOTALORDER"};
      for (const std::string& order : orders) {
        std::string type = std::string("tensor<61x") + t + ">";
        std::string how = order.empty() ? "" : ", " + order;
        expectSameOnCpu(function("%x: " + type + ", %y: " + type, "tensor<61xi1>",
                                 "  %r = stablehlo.compare " + std::string(dir) + ", %x, %y" + how + " : (" + type + ", " +
                                     type + ") -> tensor<61xi1>\n"));
      }
    }
  }
}

TEST(CpuKernelsTest, ConversionsBetweenEveryPair) {
  for (const char* from : kTypes) {
    for (const char* to : kTypes) {
      if (std::string(from) == to) continue;  // simplify removes the identity conversion
      std::string in = std::string("tensor<37x") + from + ">", out = std::string("tensor<37x") + to + ">";
      expectSameOnCpu(function("%x: " + in, out, "  %r = stablehlo.convert %x : (" + in + ") -> " + out + "\n"));
    }
  }
  expectSameOnCpu(function("%x: tensor<37xf32>", "tensor<37xi1>",
                           "  %r = stablehlo.is_finite %x : (tensor<37xf32>) -> tensor<37xi1>\n"));
  expectSameOnCpu(function("%x: tensor<37xf32>", "tensor<37xi32>",
                           "  %r = stablehlo.bitcast_convert %x : (tensor<37xf32>) -> tensor<37xi32>\n"));
}

// The one-op program `op` over the f32 vector x, on the interpreter and as one cpu kernel.
std::pair<Literal, Literal> onInterpreterAndCpu(const std::string& op, const Literal& x) {
  std::string type = "tensor<" + std::to_string(x.numElements()) + "xf32>";
  std::string text = function("%x: " + type, type, "  %r = " + op + " %x : " + type + "\n");
  auto module = stablehlo::parseModule(text);
  passes::PassContext context;
  passes::runPipeline(*module, cpuPipeline(), context);
  Executable exe(*module);
  EXPECT_EQ(exe.numKernels(), 1u);
  return {interp::Interpreter(*stablehlo::parseModule(text)).call("main", {x})[0].tensor(),
          exe.call(*module->lookup("main"), {x})[0].tensor()};
}

// exp, tanh, logistic, log, log1p, expm1, sin, cos and tan of f32 are inline code, not glibc:
// within their stated ulps of the interpreter over a dense sweep of their whole range
// (and exact on NaN, ±inf, overflow and underflow, which the special-value tests above
// check bit for bit).
TEST(CpuKernelsTest, VectorMathIsWithinItsUlpBounds) {
  const int64_t n = 1 << 18;
  Literal x(Type::tensor(DType::F32, {n}));
  for (int64_t i = 0; i < n; ++i) {
    double t = static_cast<double>(i) / n;
    // A quarter of the points evenly over [-104, 89], a quarter over magnitudes from 1e-30
    // to 10 of each sign, and a quarter over every binade from the smallest subnormal up.
    switch (i % 4) {
      case 0: x.setFloat(i, -104.0 + 193.0 * t); break;
      case 1: x.setFloat(i, std::pow(10.0, -30.0 + 31.0 * t)); break;
      case 2: x.setFloat(i, -std::pow(10.0, -30.0 + 31.0 * t)); break;
      default: x.setFloat(i, std::ldexp(1.0 + t, static_cast<int>(-149 + 276 * t))); break;
    }
  }
  for (auto [op, bound] : {std::pair{"stablehlo.exponential", 1}, {"stablehlo.tanh", 2}, {"stablehlo.logistic", 2},
                           {"stablehlo.log", 2}, {"stablehlo.log_plus_one", 2}, {"stablehlo.exponential_minus_one", 2},
                           {"stablehlo.sine", 1}, {"stablehlo.cosine", 1}, {"stablehlo.tan", 1}}) {
    auto [want, got] = onInterpreterAndCpu(op, x);
    int64_t worst = 0;
    for (int64_t i = 0; i < n; ++i) {
      float w = static_cast<float>(want.floatAt(i)), g = static_cast<float>(got.floatAt(i));
      ASSERT_EQ(std::isfinite(w), std::isfinite(g)) << op << " of " << x.floatAt(i);
      if (std::isfinite(w)) worst = std::max(worst, ulpDistance(w, g));
    }
    std::printf("measured: %s f32 within %lld ulp of glibc\n", op, static_cast<long long>(worst));
    EXPECT_LE(worst, bound) << op;
  }
}

// sin, cos and tan reduce every f32 exactly: random bit patterns over the whole finite range,
// and the floats nearest to multiples of π/2 (where x - k·π/2 cancels the most), small
// ones through Cody and Waite's reduction and large ones through Payne and Hanek's.
TEST(CpuKernelsTest, SinCosAndTanReduceEveryFloatExactly) {
  const int64_t n = 1 << 17;
  Literal x(Type::tensor(DType::F32, {n}));
  uint64_t state = 12345;
  auto next = [&] { return state = state * 6364136223846793005ull + 1442695040888963407ull; };
  for (int64_t i = 0; i < n; ++i) {
    float v;
    if (i % 2) {
      uint32_t bits = static_cast<uint32_t>(next() >> 32) % 0x7F800000u;  // finite, positive
      std::memcpy(&v, &bits, 4);
    } else {
      // k · π/2 for k up to 2^20 and then 2^(20..100) scaled.
      double k = i % 4 ? static_cast<double>(next() >> 44) : std::ldexp(static_cast<double>(next() >> 40), 20 + static_cast<int>(i % 80));
      v = static_cast<float>(k * 1.5707963267948966);
    }
    x.setFloat(i, i % 3 ? v : -v);
  }
  for (const char* op : {"stablehlo.sine", "stablehlo.cosine", "stablehlo.tan"}) {
    auto [want, got] = onInterpreterAndCpu(op, x);
    int64_t worst = 0, differ = 0;
    for (int64_t i = 0; i < n; ++i) {
      int64_t d = ulpDistance(static_cast<float>(want.floatAt(i)), static_cast<float>(got.floatAt(i)));
      worst = std::max(worst, d);
      differ += d != 0;
      if (d > 1) ADD_FAILURE() << op << " of " << x.floatAt(i) << ": " << want.floatAt(i) << " vs " << got.floatAt(i);
    }
    std::printf("measured: %s f32 within %lld ulp of glibc (%lld of %lld differ)\n", op, static_cast<long long>(worst),
                static_cast<long long>(differ), static_cast<long long>(n));
  }
}

// Complex numbers: sums and differences by parts, products (also in dots) and quotients as libgcc's
// __mulsc3/__divsc3 (what the interpreter's std::complex calls), math functions and abs
// through the interpreter's own algorithms (kernels/complex_ops.h), the parts, comparisons
// (EQ/NE on both parts, the others lexicographic), select, conversions to and from real
// types, dense constants and index maps, on special values (NaN, ±inf, ±0 in either part).
TEST(CpuKernelsTest, ComplexArithmeticComparisonsAndIndexMaps) {
  for (const char* c : {"complex<f32>", "complex<f64>"}) {
    SCOPED_TRACE(c);
    const std::string t = std::string("tensor<37x") + c + ">";
    const std::string part = std::string(c) == "complex<f32>" ? "f32" : "f64";
    const std::string p = "tensor<37x" + part + ">";
    for (const char* op : {"add", "subtract", "multiply", "divide", "power", "atan2"})
      expectSameOnCpu(function("%x: " + t + ", %y: " + t, t,
                               "  %r = stablehlo." + std::string(op) + " %x, %y : " + t + "\n"));
    expectSameOnCpu(function("%x: " + t, t, "  %r = stablehlo.negate %x : " + t + "\n"));
    // The math functions call the interpreter's own complex algorithms.
    for (const char* op : {"exponential", "exponential_minus_one", "log", "log_plus_one", "logistic", "sqrt", "rsqrt",
                           "sine", "cosine", "tan", "tanh", "cbrt", "sign"})
      expectSameOnCpu(function("%x: " + t, t, "  %r = stablehlo." + std::string(op) + " %x : " + t + "\n"));
    expectSameOnCpu(function("%x: " + t, p, "  %r = stablehlo.abs %x : (" + t + ") -> " + p + "\n"));
    expectSameOnCpu(function("%x: " + t + ", %y: " + t, t,
                             "  %a = stablehlo.real %x : (" + t + ") -> " + p + "\n"
                             "  %b = stablehlo.imag %y : (" + t + ") -> " + p + "\n"
                             "  %r = stablehlo.complex %b, %a : " + t + "\n"));
    for (const char* dir : {"EQ", "NE", "LT", "GE"})
      expectSameOnCpu(function("%x: " + t + ", %y: " + t, t,
                               "  %k = stablehlo.compare " + std::string(dir) + ", %x, %y : (" + t + ", " + t +
                                   ") -> tensor<37xi1>\n"
                                   "  %r = stablehlo.select %k, %x, %y : tensor<37xi1>, " + t + "\n"));
    expectSameOnCpu(function("%x: " + t, "tensor<37xi32>",
                             "  %r = stablehlo.convert %x : (" + t + ") -> tensor<37xi32>\n"));
    expectSameOnCpu(function("%x: " + p, t, "  %r = stablehlo.convert %x : (" + p + ") -> " + t + "\n"));
  }
  expectSameOnCpu(function("%x: tensor<37xcomplex<f64>>", "tensor<37xcomplex<f64>>",
                           "  %i = stablehlo.iota dim = 0 : tensor<37xcomplex<f64>>\n"
                           "  %r = stablehlo.add %i, %x : tensor<37xcomplex<f64>>\n"));
  expectSameOnCpu(function("%x: tensor<37xcomplex<f32>>", "tensor<37xcomplex<f64>>",
                           "  %r = stablehlo.convert %x : (tensor<37xcomplex<f32>>) -> tensor<37xcomplex<f64>>\n"));
  // Dots sum their products from zero in the contracting order, as the interpreter's.
  for (const char* c : {"complex<f32>", "complex<f64>"}) {
    const std::string l = std::string("tensor<6x7x") + c + ">", r = std::string("tensor<7x5x") + c + ">",
                      o = std::string("tensor<6x5x") + c + ">";
    expectSameOnCpu(function("%x: " + l + ", %y: " + r, o,
                             "  %r = stablehlo.dot_general %x, %y, contracting_dims = [1] x [0] : (" + l + ", " + r +
                                 ") -> " + o + "\n"));
  }
  // Products fold left to right (complex multiplication has no exact identity), in
  // reduces, windows and scalar bodies; sorts compare lexicographically.
  expectSameOnCpu(function(
      "%x: tensor<5x6xcomplex<f32>>", "tensor<5xcomplex<f32>>",
      "  %one = stablehlo.constant dense<(1.0, 0.5)> : tensor<complex<f32>>\n"
      "  %r = stablehlo.reduce(%x init: %one) applies stablehlo.multiply across dimensions = [1]"
      " : (tensor<5x6xcomplex<f32>>, tensor<complex<f32>>) -> tensor<5xcomplex<f32>>\n"), 1, false);
  expectSameOnCpu(function(
      "%x: tensor<6x5xcomplex<f64>>", "tensor<2x4xcomplex<f64>>",
      "  %one = stablehlo.constant dense<(1.0, 0.0)> : tensor<complex<f64>>\n"
      "  %r = \"stablehlo.reduce_window\"(%x, %one) ({\n"
      "    ^bb0(%a: tensor<complex<f64>>, %b: tensor<complex<f64>>):\n"
      "      %m = stablehlo.multiply %a, %b : tensor<complex<f64>>\n"
      "      stablehlo.return %m : tensor<complex<f64>>\n"
      "    }) {window_dimensions = array<i64: 3, 2>, window_strides = array<i64: 3, 1>}"
      " : (tensor<6x5xcomplex<f64>>, tensor<complex<f64>>) -> tensor<2x4xcomplex<f64>>\n"), 1, false);
  expectSameOnCpu(function(
      "%x: tensor<4x9xcomplex<f32>>", "tensor<4x9xcomplex<f32>>",
      "  %r = \"stablehlo.sort\"(%x) ({\n"
      "    ^bb0(%a: tensor<complex<f32>>, %b: tensor<complex<f32>>):\n"
      "      %lt = stablehlo.compare LT, %a, %b : (tensor<complex<f32>>, tensor<complex<f32>>) -> tensor<i1>\n"
      "      stablehlo.return %lt : tensor<i1>\n"
      "    }) {dimension = 1 : i64, is_stable = true} : (tensor<4x9xcomplex<f32>>) -> tensor<4x9xcomplex<f32>>\n"));
  // Ties of the real parts, which the special values never have: the imaginary parts decide.
  const std::string ties =
      "  %a = stablehlo.constant dense<[(1.0, 2.0), (1.0, -1.0), (0.0, 5.0), (-0.0, 3.0), (2.0, 1.0), (0.0, -3.0)]>"
      " : tensor<6xcomplex<f32>>\n"
      "  %b = stablehlo.constant dense<[(1.0, 1.0), (1.0, 0.0), (0.0, 5.0), (0.0, 4.0), (2.0, -1.0), (-0.0, -4.0)]>"
      " : tensor<6xcomplex<f32>>\n";
  for (const char* dir : {"LT", "LE", "GT", "GE"})
    expectSameOnCpu(function("%x: tensor<6xcomplex<f32>>", "tensor<6xi1>",
                             ties + "  %r = stablehlo.compare " + dir +
                                 ", %a, %b : (tensor<6xcomplex<f32>>, tensor<6xcomplex<f32>>) -> tensor<6xi1>\n"));
  expectSameOnCpu(function(
      "%x: tensor<6xcomplex<f32>>", "tensor<6xcomplex<f32>>",
      ties + "  %r = \"stablehlo.sort\"(%a) ({\n"
             "    ^bb0(%p: tensor<complex<f32>>, %q: tensor<complex<f32>>):\n"
             "      %lt = stablehlo.compare LT, %p, %q : (tensor<complex<f32>>, tensor<complex<f32>>) -> tensor<i1>\n"
             "      stablehlo.return %lt : tensor<i1>\n"
             "    }) {dimension = 0 : i64, is_stable = true} : (tensor<6xcomplex<f32>>) -> tensor<6xcomplex<f32>>\n"));
  // Index maps and dense constants: one loop kernel.
  expectSameOnCpu(function(
      "%x: tensor<2x3xcomplex<f32>>", "tensor<3x4xcomplex<f32>>",
      "  %c = stablehlo.constant dense<[[(1.0, -2.0), (0.5, 3.0)], [(-0.0, 1.0), (2.0, 0.25)], [(4.0, 4.0), (1.0, 0.0)]]>"
      " : tensor<3x2xcomplex<f32>>\n"
      "  %t = stablehlo.transpose %x, dims = [1, 0] : (tensor<2x3xcomplex<f32>>) -> tensor<3x2xcomplex<f32>>\n"
      "  %v = stablehlo.reverse %t, dims = [0] : tensor<3x2xcomplex<f32>>\n"
      "  %s = stablehlo.add %v, %c : tensor<3x2xcomplex<f32>>\n"
      "  %r = stablehlo.concatenate %s, %t, dim = 1 : (tensor<3x2xcomplex<f32>>, tensor<3x2xcomplex<f32>>) -> "
      "tensor<3x4xcomplex<f32>>\n"));
}

// Index maps inside one loop fusion: every movement op the fusion pass fuses, read at
// mapped indices, with scalar operands of select and clamp.
TEST(CpuKernelsTest, IndexMapsInALoopFusion) {
  std::string text = function(
      "%a: tensor<4x3xf32>, %b: tensor<3xf32>, %p: tensor<i1>, %lo: tensor<f32>", "tensor<6x4xf32>",
      "  %0 = stablehlo.broadcast_in_dim %b, dims = [1] : (tensor<3xf32>) -> tensor<4x3xf32>\n"
      "  %1 = stablehlo.add %a, %0 : tensor<4x3xf32>\n"
      "  %2 = stablehlo.transpose %1, dims = [1, 0] : (tensor<4x3xf32>) -> tensor<3x4xf32>\n"
      "  %3 = stablehlo.reverse %2, dims = [1] : tensor<3x4xf32>\n"
      "  %4 = stablehlo.concatenate %2, %3, dim = 0 : (tensor<3x4xf32>, tensor<3x4xf32>) -> tensor<6x4xf32>\n"
      "  %5 = stablehlo.iota dim = 1 : tensor<6x4xf32>\n"
      "  %6 = stablehlo.multiply %4, %5 : tensor<6x4xf32>\n"
      "  %7 = stablehlo.slice %6 [0:6:2, 1:4] : (tensor<6x4xf32>) -> tensor<3x3xf32>\n"
      "  %z = stablehlo.constant dense<-5.0> : tensor<f32>\n"
      "  %8 = stablehlo.pad %7, %z, low = [1, 0], high = [0, 1], interior = [1, 0] : (tensor<3x3xf32>, tensor<f32>) -> tensor<6x4xf32>\n"
      "  %9 = stablehlo.reshape %4 : (tensor<6x4xf32>) -> tensor<6x4xf32>\n"
      "  %10 = stablehlo.select %p, %8, %9 : tensor<i1>, tensor<6x4xf32>\n"
      "  %hi = stablehlo.constant dense<7.0> : tensor<f32>\n"
      "  %r = stablehlo.clamp %lo, %10, %hi : (tensor<f32>, tensor<6x4xf32>, tensor<f32>) -> tensor<6x4xf32>\n");
  expectSameOnCpu(text, 1, /*special=*/false);
}

TEST(CpuKernelsTest, DenseConstantsAndLargeParallelRanges) {
  // 2^18 elements: the kernel runs in chunks on several threads.
  expectSameOnCpu(function("%x: tensor<512x512xf32>", "tensor<512x512xf32>",
                           "  %c = stablehlo.constant dense<[1.0, -2.0]> : tensor<2xf32>\n"
                           "  %b = stablehlo.broadcast_in_dim %c, dims = [1] : (tensor<2xf32>) -> tensor<512x2xf32>\n"
                           "  %t = stablehlo.reshape %b : (tensor<512x2xf32>) -> tensor<1024xf32>\n"
                           "  %s = stablehlo.slice %t [0:512] : (tensor<1024xf32>) -> tensor<512xf32>\n"
                           "  %w = stablehlo.broadcast_in_dim %s, dims = [0] : (tensor<512xf32>) -> tensor<512x512xf32>\n"
                           "  %e = stablehlo.abs %x : tensor<512x512xf32>\n"
                           "  %r = stablehlo.multiply %e, %w : tensor<512x512xf32>\n"),
                  1, /*special=*/false);
}

// dot_general on BLAS in every layout GEMM takes directly, transposed, or after a copy
// into GEMM order. The inputs are small multiples of 1/8, so every product and sum is
// exact and BLAS must agree with the interpreter bit for bit whatever its order.
TEST(CpuKernelsTest, DotsOnBlasInEveryLayout) {
  struct Case {
    std::string lhs, rhs, out, dims;
  };
  for (const char* t : {"f32", "f64"}) {
    std::string e(t);
    for (const Case& c : std::vector<Case>{
             {"7x5", "5x3", "7x3", "contracting_dims = [1] x [0]"},
             {"5x7", "5x3", "7x3", "contracting_dims = [0] x [0]"},            // lhs transposed
             {"7x5", "3x5", "7x3", "contracting_dims = [1] x [1]"},            // rhs transposed
             {"2x7x5", "2x5x3", "2x7x3", "batching_dims = [0] x [0], contracting_dims = [2] x [1]"},
             // Batch dimensions inside: the lhs is read in place, the rhs (no contiguous rows or columns) copied.
             {"7x2x5", "5x3x2", "2x7x3", "batching_dims = [1] x [2], contracting_dims = [2] x [0]"},
             // Attention over (batch, sequence, heads, features): each head's matrix read in place.
             {"1x6x3x4", "1x6x3x4", "1x3x6x6", "batching_dims = [0, 2] x [0, 2], contracting_dims = [3] x [3]"},
             {"1x6x3x4", "1x3x6x6", "1x3x4x6", "batching_dims = [0, 2] x [0, 1], contracting_dims = [1] x [3]"},
             {"7x1x5", "5x1x3", "7x1x1x3", "contracting_dims = [2] x [0]"},  // dimensions of size 1
             {"2x1x5", "2x5x3", "2x1x3", "batching_dims = [0] x [0], contracting_dims = [2] x [1]"},  // one row
             {"3x2x4x5", "2x5x3", "2x3x4x3", "batching_dims = [1] x [0], contracting_dims = [3] x [1]"},  // rows apart
             {"4x7x5", "5x4x3", "7x3", "contracting_dims = [0, 2] x [1, 0]"},  // two contracting dims
             {"7x0", "0x3", "7x3", "contracting_dims = [1] x [0]"}}) {         // an empty sum
      std::string l = "tensor<" + c.lhs + "x" + e + ">", r = "tensor<" + c.rhs + "x" + e + ">",
                  o = "tensor<" + c.out + "x" + e + ">";
      expectSameOnCpu(function("%x: " + l + ", %y: " + r, o,
                               "  %r = stablehlo.dot_general %x, %y, " + c.dims + " : (" + l + ", " + r + ") -> " + o +
                                   "\n"),
                      0, /*special=*/false);
    }
  }
  expectSameOnCpu(function("%x: tensor<6x4xf32>, %y: tensor<4xf32>", "tensor<6xf32>",
                           "  %r = stablehlo.dot %x, %y : (tensor<6x4xf32>, tensor<4xf32>) -> tensor<6xf32>\n"),
                  0, /*special=*/false);
}

// A dense layer: the dot on BLAS, bias and relu as the kernel of its dot_epilogue fusion.
TEST(CpuKernelsTest, DotEpilogueRunsTheDotOnBlasAndTheRestAsAKernel) {
  std::string text = function("%x: tensor<8x16xf32>, %w: tensor<16x4xf32>, %b: tensor<4xf32>", "tensor<8x4xf32>",
                              "  %d = stablehlo.dot_general %x, %w, contracting_dims = [1] x [0] : "
                              "(tensor<8x16xf32>, tensor<16x4xf32>) -> tensor<8x4xf32>\n"
                              "  %bb = stablehlo.broadcast_in_dim %b, dims = [1] : (tensor<4xf32>) -> tensor<8x4xf32>\n"
                              "  %s = stablehlo.add %d, %bb : tensor<8x4xf32>\n"
                              "  %z = stablehlo.constant dense<0.0> : tensor<8x4xf32>\n"
                              "  %r = stablehlo.maximum %s, %z : tensor<8x4xf32>\n");
  expectSameOnCpu(text, 1, /*special=*/false);
  auto module = stablehlo::parseModule(text);
  passes::PassContext context;
  passes::runPipeline(*module, cpuPipeline(), context);
  EXPECT_NE(Executable(*module).report().find("BLAS, then kernel: kiln.fusion (dot_epilogue)"), std::string::npos);
}

// Reductions fold left to right in row-major order, as the interpreter does, so even
// float sums over special values agree bit for bit: rows, columns, everything, nothing,
// several reduces in one input fusion, side outputs, and a body with its arguments swapped.
// Dot shapes for the element-type tests below: plain, with a batch dimension, and with
// two contracting dimensions.
struct DotShape {
  std::string lhs, rhs, out, dims;
};
const DotShape kDotShapes[] = {{"7x5", "5x3", "7x3", "contracting_dims = [1] x [0]"},
                               {"2x7x5", "5x3x2", "2x7x3", "batching_dims = [0] x [2], contracting_dims = [2] x [0]"},
                               {"4x7x5", "5x4x3", "7x3", "contracting_dims = [0, 2] x [1, 0]"}};

// Dots BLAS does not run, as kernels computing the interpreter's sums: integers that
// wrap (i8 x i8 -> i32 widens first) and booleans; with batch dimensions and two
// contracting dimensions.
TEST(CpuKernelsTest, DotsOfOtherTypesSumAsTheInterpreterDoes) {
  for (auto [l, r, o] : std::vector<std::tuple<std::string, std::string, std::string>>{
           {"i8", "i8", "i32"}, {"i32", "i32", "i32"}, {"ui16", "ui16", "ui16"}, {"i1", "i1", "i1"}}) {
    for (const DotShape& c : kDotShapes) {
      std::string lt = "tensor<" + c.lhs + "x" + l + ">", rt = "tensor<" + c.rhs + "x" + r + ">",
                  ot = "tensor<" + c.out + "x" + o + ">";
      expectSameOnCpu(function("%x: " + lt + ", %y: " + rt, ot,
                               "  %r = stablehlo.dot_general %x, %y, " + c.dims + " : (" + lt + ", " + rt + ") -> " + ot +
                                   "\n"),
                      1, false);
    }
  }
}

// f16 and bf16 dots sum in f32 as the interpreter accumulates them, the result rounded
// once: bf16 x bf16 natively on oneDNN where the CPU has its kernels (AVX512-BF16, AMX),
// else (and f16, and mixed with f32) on f32 GEMMs, operands widened (blas_dot.h). The
// inputs are small multiples of 1/8, so every sum is exact whatever BLAS's order and
// the bits must be the interpreter's; for f16/bf16 results also with special values (NaN
// made canonical, inf, extremes).
TEST(CpuKernelsTest, F16AndBf16DotsRunOnF32Gemms) {
  for (auto [l, r, o] : std::vector<std::tuple<std::string, std::string, std::string>>{
           {"bf16", "bf16", "f32"}, {"bf16", "bf16", "bf16"}, {"f16", "f16", "f16"}, {"f16", "f32", "f32"},
           {"f32", "f32", "bf16"}}) {
    for (const DotShape& c : kDotShapes) {
      const std::string lt = "tensor<" + c.lhs + "x" + l + ">", rt = "tensor<" + c.rhs + "x" + r + ">",
                        ot = "tensor<" + c.out + "x" + o + ">";
      const std::string text = function("%x: " + lt + ", %y: " + rt, ot,
                                        "  %r = stablehlo.dot_general %x, %y, " + c.dims + " : (" + lt + ", " + rt +
                                            ") -> " + ot + "\n");
      expectSameOnCpu(text, 0, false);
      const std::string report = test_util::compile(text).exe->report();
      EXPECT_NE(report.find("BLAS: stablehlo.dot_general"), std::string::npos);
      const bool native = l == "bf16" && r == "bf16" && oneDnnGemmTakes(DType::BF16, o == "f32" ? DType::F32 : DType::BF16);
      EXPECT_NE(report.find(native ? "GEMM on oneDNN, bf16 as it is" : "GEMM on OpenBLAS"), std::string::npos) << report;
      if (o != "f32") expectSameOnCpu(text, 0);
    }
  }
  // The sum stays in f32 until the end: 1 + 4 * 2^-9 is 1 + 2^-7 in bf16, while adding
  // each 2^-9 to a bf16 total would round it away every time.
  expectSameOnCpu(function("%y: tensor<5x1xbf16>", "tensor<1x1xbf16>",
                           "  %x = stablehlo.constant dense<[[1.0, 0.001953125, 0.001953125, 0.001953125, 0.001953125]]>"
                           " : tensor<1x5xbf16>\n"
                           "  %one = stablehlo.constant dense<1.0> : tensor<5x1xbf16>\n"
                           "  %r = stablehlo.dot_general %x, %one, contracting_dims = [1] x [0] : (tensor<1x5xbf16>, "
                           "tensor<5x1xbf16>) -> tensor<1x1xbf16>\n"),
                  0, false);
  // bf16 GEMM and a bias: the dot on BLAS (in f32), the bias as its epilogue's kernel.
  expectSameOnCpu(function("%x: tensor<6x5xbf16>, %w: tensor<5x4xbf16>, %b: tensor<6x4xbf16>", "tensor<6x4xbf16>",
                           "  %h = stablehlo.dot_general %x, %w, contracting_dims = [1] x [0] : (tensor<6x5xbf16>, "
                           "tensor<5x4xbf16>) -> tensor<6x4xbf16>\n"
                           "  %r = stablehlo.add %h, %b : tensor<6x4xbf16>\n"),
                  1, false);
}

// A reduce of `fused`(x) (its elements are computed, then folded) or, with no `fused`,
// of x itself (read from the input buffer).
std::string reduceProgram(const std::string& e, const std::string& in, const std::string& out,
                          const std::string& dims, const std::string& body, const std::string& init,
                          const std::string& fused = "stablehlo.exponential %x") {
  std::string x = "tensor<" + in + e + ">", r = "tensor<" + out + e + ">", s = "tensor<" + e + ">";
  return function("%x: " + x, r,
                  "  %z = stablehlo.constant dense<" + init + "> : " + s + "\n" +
                      (fused.empty() ? std::string() : "  %e = " + fused + " : " + x + "\n") +
                      "  %r = stablehlo.reduce(" + (fused.empty() ? "%x" : "%e") + " init: %z) across dimensions = [" + dims +
                      "] : (" + x + ", " + s + ") -> " + r + "\n"
                      "   reducer(%a: " + s + ", %b: " + s + ") {\n"
                      "    %t = " + body + " : " + s + "\n"
                      "    stablehlo.return %t : " + s + "\n"
                      "  }\n");
}

TEST(CpuKernelsTest, ReductionsFoldInTheInterpretersOrder) {
  for (const char* e : {"f32", "f64", "f16", "bf16"}) {
    for (const char* body : {"stablehlo.add %a, %b", "stablehlo.maximum %b, %a", "stablehlo.multiply %a, %b"}) {
      expectSameOnCpu(reduceProgram(e, "9x13x", "9x", "1", body, "0.5"));      // rows
      expectSameOnCpu(reduceProgram(e, "9x13x", "13x", "0", body, "-0.0"));    // columns
      expectSameOnCpu(reduceProgram(e, "3x4x5x", "", "0, 1, 2", body, "1.0"));  // everything
      expectSameOnCpu(reduceProgram(e, "3x0x5x", "3x5x", "1", body, "2.0"));    // nothing: the init
    }
  }
  // Integers wrap as the interpreter's adds do (no exponential for them).
  expectSameOnCpu(function("%x: tensor<7x9xi32>", "tensor<7xi32>",
                           "  %z = stablehlo.constant dense<0> : tensor<i32>\n"
                           "  %r = stablehlo.reduce(%x init: %z) applies stablehlo.add across dimensions = [1]"
                           " : (tensor<7x9xi32>, tensor<i32>) -> tensor<7xi32>\n"));
}

// Long reductions fold in lanes and chunks (ir/reduction_order.h), which round float
// sums differently from a left fold: rows and columns whose lengths leave partial lane
// blocks and partial chunks (the last one shorter than the lanes, too), reductions over
// middle and several dimensions, inputs read directly or computed first, tiles of
// columns with a short last tile, and a body without an identity (a left fold). (The
// inputs are squared, not exponentiated: f32 exp is a polynomial, not glibc's.)
TEST(CpuKernelsTest, LongReductionsFoldInLanesAndChunksAsTheInterpreterDoes) {
  struct Case {
    const char* in;
    const char* out;
    const char* dims;
  };
  const Case cases[] = {{"3x40x", "3x", "1"},         {"2x5000x", "2x", "1"},   {"2x4100x", "2x", "1"},
                        {"2x8192x", "2x", "1"},       {"40x300x", "300x", "0"}, {"4100x20x", "20x", "0"},
                        {"8200x3x", "3x", "0"},       {"3x40x5x", "3x5x", "1"}, {"4x5x6x7x", "4x6x", "1, 3"},
                        {"17x2x3x", "3x", "0, 1"}};
  for (const char* e : {"f32", "f64", "bf16"})
    for (const Case& c : cases)
      for (const char* fused : {"stablehlo.multiply %x, %x", ""})
        for (const char* body : {"stablehlo.add %a, %b", "stablehlo.add %b, %a", "stablehlo.maximum %a, %b"})
          // The swapped and max bodies in f32 only (the sum is the one whose order shows).
          if (std::string(e) == "f32" || std::string(body) == "stablehlo.add %a, %b")
            expectSameOnCpu(reduceProgram(e, c.in, c.out, c.dims, body, "0.5", fused), 1, false);
  // No identity: subtraction folds left to right from the init, in the same loops.
  for (const Case& c : {cases[0], cases[2], cases[4], cases[7]})
    expectSameOnCpu(reduceProgram("f32", c.in, c.out, c.dims, "stablehlo.subtract %a, %b", "0.5", "stablehlo.multiply %x, %x"),
                    1, false);
}

// Large column reductions run in pieces side by side (split_columns_emitter.cc), each
// folding some lanes of one chunk, and are combined after: the bits are still the
// interpreter's. Full chunks and a last one shorter than the lanes, a single short chunk,
// a row reduction of the same input in the same pass (W7), two folds and a side output,
// several folded dimensions, narrow floats.
TEST(CpuKernelsTest, LargeColumnReductionsSplitIntoPiecesAsTheInterpreterFolds) {
  auto splits = [](const std::string& text) {
    test_util::Compiled c = test_util::compile(text);
    return c.exe->report().find("pieces side by side") != std::string::npos;
  };
  struct Case {
    const char* in;
    const char* out;
    const char* dims;
  };
  for (const Case& c : {Case{"8192x40x", "40x", "0"}, Case{"4100x80x", "80x", "0"}, Case{"1000x300x", "300x", "0"},
                        Case{"64x70x80x", "80x", "0, 1"}})
    for (const char* e : {"f32", "f64", "bf16"}) {
      std::string text = reduceProgram(e, c.in, c.out, c.dims, "stablehlo.add %a, %b", "0.5", "stablehlo.multiply %x, %x");
      EXPECT_TRUE(splits(text)) << c.in;
      expectSameOnCpu(text, 1, false);
    }
  // The row and column sums of one matrix.
  for (const char* shape : {"4100x100", "8192x64"}) {
    std::string x = std::string("tensor<") + shape + "xf32>", n = shape;
    std::string rows = n.substr(0, n.find('x')), cols = n.substr(n.find('x') + 1);
    std::string text =
        "func.func @main(%x: " + x + ") -> (tensor<" + rows + "xf32>, tensor<" + cols + "xf32>) {\n"
        "  %z = stablehlo.constant dense<0.0> : tensor<f32>\n"
        "  %e = stablehlo.multiply %x, %x : " + x + "\n"
        "  %r = stablehlo.reduce(%e init: %z) applies stablehlo.add across dimensions = [1] : (" + x +
        ", tensor<f32>) -> tensor<" + rows + "xf32>\n"
        "  %c = stablehlo.reduce(%e init: %z) applies stablehlo.add across dimensions = [0] : (" + x +
        ", tensor<f32>) -> tensor<" + cols + "xf32>\n"
        "  return %r, %c : tensor<" + rows + "xf32>, tensor<" + cols + "xf32>\n}\n";
    EXPECT_TRUE(splits(text)) << shape;
    expectSameOnCpu(text, 1, false);
  }
  // A sum and a maximum of one input, and the input shifted as a side output.
  std::string text =
      "func.func @main(%x: tensor<5000x64xf32>) -> (tensor<64xf32>, tensor<64xf32>, tensor<5000x64xf32>) {\n"
      "  %z = stablehlo.constant dense<0.0> : tensor<f32>\n"
      "  %ninf = stablehlo.constant dense<0xFF800000> : tensor<f32>\n"
      "  %c = stablehlo.constant dense<0.25> : tensor<5000x64xf32>\n"
      "  %s = stablehlo.subtract %x, %c : tensor<5000x64xf32>\n"
      "  %sum = stablehlo.reduce(%s init: %z) applies stablehlo.add across dimensions = [0]"
      " : (tensor<5000x64xf32>, tensor<f32>) -> tensor<64xf32>\n"
      "  %max = stablehlo.reduce(%s init: %ninf) applies stablehlo.maximum across dimensions = [0]"
      " : (tensor<5000x64xf32>, tensor<f32>) -> tensor<64xf32>\n"
      "  return %sum, %max, %s : tensor<64xf32>, tensor<64xf32>, tensor<5000x64xf32>\n}\n";
  EXPECT_TRUE(splits(text));
  expectSameOnCpu(text, 1, false);
}

// Reduces of several inputs (argmax: the value and its index, ties to the smaller
// index) and bodies of several ops fold left to right with the body compiled to scalar
// code, short rows and long ones (chunks), over trailing and leading dimensions.
TEST(CpuKernelsTest, ArgmaxAndMultiOpBodiesFoldLeftToRight) {
  auto argmax = [](const std::string& shape, const std::string& out, int64_t dim) {
    std::string x = "tensor<" + shape + "f32>", i = "tensor<" + shape + "i32>", r = "tensor<" + out + "f32>",
                ri = "tensor<" + out + "i32>";
    return "func.func @main(%x: " + x + ") -> (" + r + ", " + ri + ") {\n"
           "  %i = stablehlo.iota dim = " + std::to_string(dim) + " : " + i + "\n"
           "  %ninf = stablehlo.constant dense<0xFF800000> : tensor<f32>\n"
           "  %zero = stablehlo.constant dense<0> : tensor<i32>\n"
           "  %r:2 = stablehlo.reduce(%x init: %ninf), (%i init: %zero) across dimensions = [" + std::to_string(dim) +
           "] : (" + x + ", " + i + ", tensor<f32>, tensor<i32>) -> (" + r + ", " + ri + ")\n"
           "   reducer(%a: tensor<f32>, %b: tensor<f32>) (%ai: tensor<i32>, %bi: tensor<i32>) {\n"
           "    %gt = stablehlo.compare GT, %a, %b : (tensor<f32>, tensor<f32>) -> tensor<i1>\n"
           "    %eq = stablehlo.compare EQ, %a, %b : (tensor<f32>, tensor<f32>) -> tensor<i1>\n"
           "    %lt = stablehlo.compare LT, %ai, %bi : (tensor<i32>, tensor<i32>) -> tensor<i1>\n"
           "    %tie = stablehlo.and %eq, %lt : tensor<i1>\n"
           "    %keep = stablehlo.or %gt, %tie : tensor<i1>\n"
           "    %v = stablehlo.select %keep, %a, %b : tensor<i1>, tensor<f32>\n"
           "    %k = stablehlo.select %keep, %ai, %bi : tensor<i1>, tensor<i32>\n"
           "    stablehlo.return %v, %k : tensor<f32>, tensor<i32>\n"
           "  }\n"
           "  return %r#0, %r#1 : " + r + ", " + ri + "\n}\n";
  };
  expectSameOnCpu(argmax("5x9x", "5x", 1));
  expectSameOnCpu(argmax("3x5000x", "3x", 1), 1, false);
  expectSameOnCpu(argmax("40x6x", "6x", 0), 1, false);
  // acc + x*x: a sum of squares as one body.
  expectSameOnCpu(function("%x: tensor<4x300xf32>", "tensor<4xf32>",
                           "  %z = stablehlo.constant dense<0.0> : tensor<f32>\n"
                           "  %r = stablehlo.reduce(%x init: %z) across dimensions = [1] : (tensor<4x300xf32>, tensor<f32>)"
                           " -> tensor<4xf32>\n"
                           "   reducer(%a: tensor<f32>, %b: tensor<f32>) {\n"
                           "    %q = stablehlo.multiply %b, %b : tensor<f32>\n"
                           "    %s = stablehlo.add %a, %q : tensor<f32>\n"
                           "    stablehlo.return %s : tensor<f32>\n"
                           "  }\n"),
                  1, false);
}

// Convolutions as the direct kernel computes them, as the interpreter does (the same
// sums in the same order, so f32 agrees bit for bit, NaN and inf included): every
// layout, strides, padding (negative too), lhs and rhs dilation, window reversal,
// feature groups (depthwise too), batch groups, 1-D to 3-D, integer, narrow-float and
// complex elements.
TEST(CpuKernelsTest, ConvolutionsInEveryFormAsTheInterpreterComputesThem) {
  struct Case {
    const char* lhs;
    const char* rhs;
    const char* out;
    const char* attrs;
  };
  const Case cases[] = {
      {"2x3x7x6", "4x3x3x2", "2x4x7x3",
       "dim_numbers = [b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1], window = {stride = [2, 1], pad = [[1, 2], [0, -1]], "
       "lhs_dilate = [2, 1], rhs_dilate = [1, 2]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64}"},
      {"1x5x5x4", "3x3x1x8", "1x5x5x8",
       "dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [1, 1], pad = [[1, 1], [1, 1]]} "
       "{batch_group_count = 1 : i64, feature_group_count = 4 : i64}"},
      {"4x2x5", "4x2x3", "1x4x3",
       "dim_numbers = [b, f, 0]x[o, i, 0]->[b, f, 0], window = {stride = [1]} "
       "{batch_group_count = 4 : i64, feature_group_count = 1 : i64}"},
      {"3x6x2x5", "2x4x3x3", "3x2x4x4",
       "dim_numbers = [f, 0, b, 1]x[1, o, 0, i]->[0, b, 1, f], window = {stride = [2, 1], pad = [[1, 0], [0, 1]], "
       "rhs_dilate = [1, 2]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64}"},
      {"2x5x4", "2x3x6", "6x5x2",
       "dim_numbers = [b, 0, f]x[i, 0, o]->[f, 0, b], window = {pad = [[1, 1]]} "
       "{batch_group_count = 1 : i64, feature_group_count = 2 : i64}"},
      {"1x6x5x2", "3x2x2x3", "1x4x4x3",
       "dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [1, 1], reverse = [true, false]} "
       "{batch_group_count = 1 : i64, feature_group_count = 1 : i64}"},
      {"1x4x5x6x2", "2x2x3x2x3", "1x3x4x4x3",
       "dim_numbers = [b, 0, 1, 2, f]x[0, 1, 2, i, o]->[b, 0, 1, 2, f], window = {stride = [1, 1, 1]} "
       "{batch_group_count = 1 : i64, feature_group_count = 1 : i64}"},
  };
  for (const char* e : {"f32", "f64", "f16", "bf16", "i32", "i8", "complex<f32>"})
    for (const Case& c : cases) {
      if (std::string(e) == "complex<f32>" && &c - cases > 1) continue;  // complex: two cases
      auto t = [&](const char* shape) { return "tensor<" + std::string(shape) + "x" + e + ">"; };
      std::string text = function("%x: " + t(c.lhs) + ", %k: " + t(c.rhs), t(c.out),
                                  "  %r = stablehlo.convolution(%x, %k) " + std::string(c.attrs) + " : (" + t(c.lhs) +
                                      ", " + t(c.rhs) + ") -> " + t(c.out) + "\n");
      // Those the cost model sends to BLAS are checked in the next test.
      if (test_util::compile(text).exe->report().find("BLAS: stablehlo.convolution") == std::string::npos)
        expectSameOnCpu(text);
    }
}

// Whether oneDNN must have its fast kernels for convolutions of `dtype` on this CPU:
// AVX-512 for f32, AVX512-BF16 for bf16. Elsewhere kiln may take either path, and the
// tests check the numbers only.
bool oneDnnConvolutionsExpected(const std::string& dtype) {
  return dtype == "bf16" ? __builtin_cpu_supports("avx512bf16") : __builtin_cpu_supports("avx512f");
}

// Convolutions the cost model gives to one GEMM: as the operands are (1x1 over
// [batch, spatial..., feature]), after im2col (strides, padding, dilation, reversal) or
// its transpose (weight gradients), with the kernel and the result reordered from other layouts, 1-D to 3-D, and with a
// bias and relu after the GEMM; f16 and bf16 staged through f32. BLAS sums in its own
// order: within 1e-5 (f32), 1e-12 (f64), 1e-3 (f16) or 1e-2 (bf16) of the largest output.
TEST(CpuKernelsTest, ConvolutionsOnBlasAgreeWithTheInterpreter) {
  struct Case {
    const char* lhs;
    const char* rhs;
    const char* out;
    const char* attrs;
    const char* path;
  };
  const Case cases[] = {
      {"2x6x5x16", "1x1x16x8", "2x6x5x8",
       "dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [1, 1]}", "1x1: one GEMM"},
      {"2x9x9x3", "3x3x3x8", "2x5x5x8",
       "dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [2, 2], pad = [[1, 1], [1, 1]]}",
       "im2col, then one GEMM"},
      {"2x3x7x6", "8x3x3x2", "2x8x4x8",
       "dim_numbers = [b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1], window = {stride = [2, 1], pad = [[1, 2], [0, -1]], "
       "lhs_dilate = [1, 2], rhs_dilate = [1, 2], reverse = [true, false]}",
       "im2col, then one GEMM (kernel reordered) (result reordered)"},
      {"1x20x4", "5x4x6", "1x16x6", "dim_numbers = [b, 0, f]x[0, i, o]->[b, 0, f], window = {stride = [1]}",
       "im2col, then one GEMM"},
      {"1x4x5x6x2", "2x2x3x2x8", "1x3x4x4x8",
       "dim_numbers = [b, 0, 1, 2, f]x[0, 1, 2, i, o]->[b, 0, 1, 2, f], window = {stride = [1, 1, 1]}",
       "im2col, then one GEMM"},
      // A 3x3 convolution's weight gradient as JAX writes it: the images' batch is the
      // contracted feature, their channels the batch (the lhs's last dimension). GEMM's
      // rows, (position, batch), are the result's own order; in another layout they are
      // reordered.
      {"6x5x5x4", "6x5x5x8", "3x3x4x8",
       "dim_numbers = [f, 0, 1, b]x[i, 0, 1, o]->[0, 1, b, f], window = {stride = [1, 1], pad = [[1, 1], [1, 1]]}",
       "im2col transposed (the batch innermost), then one GEMM (kernel reordered)\n"},
      {"6x5x5x4", "6x5x5x8", "4x3x3x8",
       "dim_numbers = [f, 0, 1, b]x[i, 0, 1, o]->[b, 0, 1, f], window = {stride = [1, 1], pad = [[1, 1], [1, 1]]}",
       "im2col transposed (the batch innermost), then one GEMM (kernel reordered) (result reordered)"},
  };
  auto check = [](const std::string& text, const std::string& path, double tolerance) {
    SCOPED_TRACE(text);
    test_util::Compiled c = test_util::compile(text);
    EXPECT_NE(c.exe->report().find(path), std::string::npos) << c.exe->report();
    expectNearOnCpu(c, tolerance);
  };
  const std::pair<const char*, double> types[] = {{"f32", 1e-5}, {"f64", 1e-12}, {"bf16", 1e-2}, {"f16", 1e-3}};
  for (auto [e, tolerance] : types)
    for (const Case& c : cases) {
      auto t = [&](const char* shape) { return "tensor<" + std::string(shape) + "x" + e + ">"; };
      // bf16 2-D convolutions in JAX's layout run on oneDNN (the next test).
      const bool oneDnn = std::string(e) == "bf16" && std::string(c.attrs).starts_with("dim_numbers = [b, 0, 1, f]x[0, 1, i, o]");
      check(function("%x: " + t(c.lhs) + ", %k: " + t(c.rhs), t(c.out),
                     "  %r = stablehlo.convolution(%x, %k) " + std::string(c.attrs) +
                         " {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (" + t(c.lhs) + ", " +
                         t(c.rhs) + ") -> " + t(c.out) + "\n"),
            !oneDnn ? std::string("BLAS: stablehlo.convolution at line 2, convolution ") + c.path
            : oneDnnConvolutionsExpected(e) ? "BLAS: stablehlo.convolution at line 2, convolution oneDNN "
                                            : "",
            tolerance);
    }
  check(function("%x: tensor<2x9x9x3xf32>, %k: tensor<3x3x3x8xf32>, %b: tensor<8xf32>", "tensor<2x9x9x8xf32>",
                           "  %c = stablehlo.convolution(%x, %k) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], "
                           "window = {stride = [1, 1], pad = [[1, 1], [1, 1]]} {batch_group_count = 1 : i64, "
                           "feature_group_count = 1 : i64} : (tensor<2x9x9x3xf32>, tensor<3x3x3x8xf32>) -> tensor<2x9x9x8xf32>\n"
                           "  %bb = stablehlo.broadcast_in_dim %b, dims = [3] : (tensor<8xf32>) -> tensor<2x9x9x8xf32>\n"
                           "  %s = stablehlo.add %c, %bb : tensor<2x9x9x8xf32>\n"
                           "  %z = stablehlo.constant dense<0.0> : tensor<2x9x9x8xf32>\n"
                           "  %r = stablehlo.maximum %s, %z : tensor<2x9x9x8xf32>\n"),
        "BLAS, then kernel: kiln.fusion (dot_epilogue) at line 6, convolution im2col", 1e-5);
}

// 2-D convolutions in JAX's layout ([b, h, w, f] x [h, w, i, o]) run on oneDNN (on CPUs
// with its fast kernels: oneDnnConvolutionsExpected): f32 ones
// over enough output positions (strides, dilation, asymmetric padding, a bias-and-relu
// epilogue after it, grouped ones), and bf16 ones natively, to a bf16 or an f32 result. oneDNN sums in
// its own order: within 1e-5 (f32) or 1e-2 (bf16) of the largest output. Small f32 images
// and other layouts stay with im2col and GEMM.
TEST(CpuKernelsTest, ConvolutionsOnOneDnnAgreeWithTheInterpreter) {
  auto conv = [](const std::string& lhs, const std::string& rhs, const std::string& out, const std::string& window,
                 const std::string& name = "%r", const std::string& kernel = "[0, 1, i, o]", int groups = 1) {
    return "  " + name + " = stablehlo.convolution(%x, %k) dim_numbers = [b, 0, 1, f]x" + kernel +
           "->[b, 0, 1, f], window = {" + window + "} {batch_group_count = 1 : i64, feature_group_count = " +
           std::to_string(groups) + " : i64} : (" + lhs + ", " + rhs + ") -> " + out + "\n";
  };
  auto check = [](const std::string& text, const std::string& path, double tolerance) {
    SCOPED_TRACE(text);
    test_util::Compiled c = test_util::compile(text);
    EXPECT_NE(c.exe->report().find(path), std::string::npos) << c.exe->report();
    expectNearOnCpu(c, tolerance);
  };
  const std::string onDnn = "BLAS: stablehlo.convolution at line 2, convolution oneDNN ";
  struct Case {
    const char *lhs, *rhs, *out, *window;
  };
  const Case cases[] = {
      {"2x16x16x8", "3x3x8x16", "2x16x16x16", "pad = [[1, 1], [1, 1]]"},
      {"1x33x31x5", "3x3x5x12", "1x16x16x12", "stride = [2, 2], pad = [[1, 0], [1, 2]]"},
      {"1x20x20x6", "3x3x6x8", "1x16x16x8", "rhs_dilate = [2, 2]"},
  };
  for (const char* e : {"f32", "bf16"})
    for (const Case& c : cases) {
      auto t = [&](const char* shape) { return "tensor<" + std::string(shape) + "x" + e + ">"; };
      check(function("%x: " + t(c.lhs) + ", %k: " + t(c.rhs), t(c.out), conv(t(c.lhs), t(c.rhs), t(c.out), c.window)),
            oneDnnConvolutionsExpected(e) ? onDnn : "", std::string(e) == "f32" ? 1e-5 : 1e-2);
    }
  // A kernel stored [h, w, out, in], as JAX's input gradients take it.
  for (const char* e : {"f32", "bf16"}) {
    auto t = [&](const char* shape) { return "tensor<" + std::string(shape) + "x" + e + ">"; };
    check(function("%x: " + t("2x16x16x8") + ", %k: " + t("3x3x16x8"), t("2x16x16x16"),
                   conv(t("2x16x16x8"), t("3x3x16x8"), t("2x16x16x16"), "pad = [[1, 1], [1, 1]]", "%r", "[0, 1, o, i]")),
          oneDnnConvolutionsExpected(e) ? onDnn : "", std::string(e) == "f32" ? 1e-5 : 1e-2);
  }
  // Grouped: depthwise (MobileNet's), two groups of two input and four output features,
  // and four groups with the kernel stored [h, w, out, in].
  struct Grouped {
    const char *lhs, *rhs, *out, *kernel;
    int groups;
  };
  for (const char* e : {"f32", "bf16"})
    for (const Grouped& g : {Grouped{"2x16x16x8", "3x3x1x8", "2x16x16x8", "[0, 1, i, o]", 8},
                             Grouped{"1x16x16x4", "3x3x2x8", "1x16x16x8", "[0, 1, i, o]", 2},
                             Grouped{"2x16x16x8", "3x3x16x2", "2x16x16x16", "[0, 1, o, i]", 4}}) {
      auto t = [&](const char* shape) { return "tensor<" + std::string(shape) + "x" + e + ">"; };
      check(function("%x: " + t(g.lhs) + ", %k: " + t(g.rhs), t(g.out),
                     conv(t(g.lhs), t(g.rhs), t(g.out), "pad = [[1, 1], [1, 1]]", "%r", g.kernel, g.groups)),
            oneDnnConvolutionsExpected(e) ? onDnn : "", std::string(e) == "f32" ? 1e-5 : 1e-2);
    }
  // bf16 operands to an f32 result (preferred_element_type).
  check(function("%x: tensor<2x16x16x8xbf16>, %k: tensor<3x3x8x16xbf16>", "tensor<2x16x16x16xf32>",
                 conv("tensor<2x16x16x8xbf16>", "tensor<3x3x8x16xbf16>", "tensor<2x16x16x16xf32>", "pad = [[1, 1], [1, 1]]")),
        oneDnnConvolutionsExpected("bf16") ? onDnn : "", 1e-5);
  // A bias and relu after it: the dot_epilogue's product comes from oneDNN.
  check(function("%x: tensor<2x16x16x8xf32>, %k: tensor<3x3x8x16xf32>, %b: tensor<16xf32>", "tensor<2x16x16x16xf32>",
                 conv("tensor<2x16x16x8xf32>", "tensor<3x3x8x16xf32>", "tensor<2x16x16x16xf32>", "pad = [[1, 1], [1, 1]]",
                      "%c") +
                     "  %bb = stablehlo.broadcast_in_dim %b, dims = [3] : (tensor<16xf32>) -> tensor<2x16x16x16xf32>\n"
                     "  %s = stablehlo.add %c, %bb : tensor<2x16x16x16xf32>\n"
                     "  %z = stablehlo.constant dense<0.0> : tensor<2x16x16x16xf32>\n"
                     "  %r = stablehlo.maximum %s, %z : tensor<2x16x16x16xf32>\n"),
        oneDnnConvolutionsExpected("f32") ? "kiln.fusion (dot_epilogue) at line 6, convolution oneDNN " : "", 1e-5);
  // A small f32 image stays with GEMM, and the report says why oneDNN was not asked.
  check(function("%x: tensor<1x8x8x8xf32>, %k: tensor<3x3x8x16xf32>", "tensor<1x8x8x16xf32>",
                 conv("tensor<1x8x8x8xf32>", "tensor<3x3x8x16xf32>", "tensor<1x8x8x16xf32>", "pad = [[1, 1], [1, 1]]")),
        "convolution im2col, then one GEMM", 1e-5);
  // An f32 image of one feature is not oneDNN's either (here: few products per output).
  check(function("%x: tensor<4x16x16x1xf32>, %k: tensor<3x3x1x16xf32>", "tensor<4x16x16x16xf32>",
                 conv("tensor<4x16x16x1xf32>", "tensor<3x3x1x16xf32>", "tensor<4x16x16x16xf32>", "pad = [[1, 1], [1, 1]]")),
        "convolution as a direct loop", 1e-5);
}

// A convolution that stays with kiln (f32 over few positions, i32, f64), grouped, with
// an epilogue after it (a bias and relu6): the dot_epilogue kernel
// computes every feature of an output position together, then the epilogue on each,
// exactly as the interpreter does. Its iterations are the output positions, not the
// elements.
TEST(CpuKernelsTest, ConvolutionsWithAnEpilogueRunPositionByPosition) {
  for (const std::string e : {"f32", "i32", "f64"}) {
    const std::string x = "tensor<1x6x5x8x" + e + ">", k = "tensor<3x3x2x8x" + e + ">", b = "tensor<8x" + e + ">";
    const std::string zero = e == "i32" ? "0" : "0.0", six = e == "i32" ? "6" : "6.0";
    const std::string text =
        "func.func @main(%x: " + x + ", %k: " + k + ", %b: " + b + ") -> " + x + " {\n" +
        "  %c = stablehlo.convolution(%x, %k) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {pad = "
        "[[1, 1], [1, 1]]} {batch_group_count = 1 : i64, feature_group_count = 4 : i64} : (" + x + ", " + k + ") -> " +
        x + "\n  %bb = stablehlo.broadcast_in_dim %b, dims = [3] : (" + b + ") -> " + x +
        "\n  %s = stablehlo.add %c, %bb : " + x + "\n  %z = stablehlo.constant dense<" + zero + "> : " + x +
        "\n  %six = stablehlo.constant dense<" + six + "> : " + x + "\n  %r = stablehlo.clamp %z, %s, %six : " + x +
        "\n  return %r : " + x + "\n}\n";
    test_util::Compiled c = test_util::compile(text);
    ASSERT_EQ(c.exe->native().kernels.size(), 1u) << c.exe->report();
    EXPECT_EQ(c.exe->native().kernels.begin()->second.iterations, 30) << c.exe->report();
    expectSameOnCpu(text);
  }
}

// Skinny products C = A·Bᵀ (few rows: a transformer on a short sequence) stream each row
// of B once, summing in 8 lanes over k (gemm.cc): within 1e-5 of the largest output of
// the interpreter's sums, for row counts around the 4-row groups, a k with a tail, a
// bias epilogue, and a batch; and a wide A·B (not skinny) on the same test.
TEST(CpuKernelsTest, SkinnyDotsAgreeWithTheInterpreter) {
  struct Case {
    int m, k, n;
  };
  for (const Case& c : {Case{1, 64, 300}, Case{3, 77, 256}, Case{7, 768, 520}, Case{16, 130, 64}, Case{17, 96, 80}}) {
    const std::string a = "tensor<" + std::to_string(c.m) + "x" + std::to_string(c.k) + "xf32>";
    const std::string b = "tensor<" + std::to_string(c.n) + "x" + std::to_string(c.k) + "xf32>";
    const std::string o = "tensor<" + std::to_string(c.m) + "x" + std::to_string(c.n) + "xf32>";
    const std::string v = "tensor<" + std::to_string(c.n) + "xf32>";
    const std::string text = function("%x: " + a + ", %w: " + b + ", %bias: " + v, o,
                                      "  %d = stablehlo.dot_general %x, %w, contracting_dims = [1] x [1] : (" + a + ", " +
                                          b + ") -> " + o + "\n  %bb = stablehlo.broadcast_in_dim %bias, dims = [1] : (" +
                                          v + ") -> " + o + "\n  %r = stablehlo.add %d, %bb : " + o + "\n");
    SCOPED_TRACE(text);
    expectNearOnCpu(test_util::compile(text), 1e-5);
  }
}

// Narrow products C = A·B (8 to 32 columns: a CNN's convolutions over few channels)
// keep rows of C in registers (narrow_gemm.h): within 1e-5 of the largest output of the
// interpreter's sums, for row counts around the row groups and several pieces of rows,
// every width, a transposed A (a weight gradient's), and a B too large for the kernel
// (back on OpenBLAS). The kernel takes the others (narrowGemmTakes), and on its own
// gives each element's sum over k in order (NarrowGemmSumsEachElementInOrder).
TEST(CpuKernelsTest, NarrowDotsAgreeWithTheInterpreter) {
  struct Case {
    int m, k, n;
    bool transposed;
  };
  for (const Case& c : {Case{1, 9, 8, false}, Case{7, 144, 16, false}, Case{130, 77, 24, false},
                        Case{300, 288, 32, false}, Case{513, 64, 16, true}, Case{5, 3000, 32, true}}) {
    const std::string m = std::to_string(c.m), k = std::to_string(c.k), n = std::to_string(c.n);
    const std::string a = "tensor<" + (c.transposed ? k + "x" + m : m + "x" + k) + "xf32>";
    const std::string b = "tensor<" + k + "x" + n + "xf32>", o = "tensor<" + m + "x" + n + "xf32>";
    const std::string text = function("%x: " + a + ", %w: " + b, o,
                                      "  %r = stablehlo.dot_general %x, %w, contracting_dims = [" +
                                          std::string(c.transposed ? "0" : "1") + "] x [0] : (" + a + ", " + b +
                                          ") -> " + o + "\n");
    SCOPED_TRACE(text);
    EXPECT_EQ(narrowGemmTakes(DType::F32, false, c.n, c.k), c.k * c.n * 4 <= (64 << 10));
    expectNearOnCpu(test_util::compile(text), 1e-5);
  }
}

// The narrow kernel alone (narrow_gemm.h): each element of C is the fused multiply-add
// chain over k in order, bit for bit, for every width, both layouts of A, and row
// ranges that start and end off its row groups.
TEST(CpuKernelsTest, NarrowGemmSumsEachElementInOrder) {
  const int64_t m = 11, k = 37;
  for (int64_t n : {8, 16, 24, 32})
    for (bool transposed : {false, true}) {
      std::vector<float> a(static_cast<size_t>(m * k)), b(static_cast<size_t>(k * n));
      for (size_t i = 0; i < a.size(); ++i) a[i] = static_cast<float>(std::sin(0.7 * static_cast<double>(i)));
      for (size_t i = 0; i < b.size(); ++i) b[i] = static_cast<float>(std::cos(0.3 * static_cast<double>(i)));
      std::vector<float> c(static_cast<size_t>(m * n), -1.0f);
      const int64_t lda = transposed ? m : k;
      narrowGemm(transposed, 1, m, n, k, a.data(), lda, b.data(), n, c.data(), n);
      for (int64_t j = 0; j < n; ++j) EXPECT_EQ(c[static_cast<size_t>(j)], -1.0f) << "row 0 is outside the range";
      for (int64_t i = 1; i < m; ++i)
        for (int64_t j = 0; j < n; ++j) {
          float want = 0.0f;
          for (int64_t p = 0; p < k; ++p)
            want = std::fma(a[static_cast<size_t>(transposed ? p * lda + i : i * lda + p)],
                            b[static_cast<size_t>(p * n + j)], want);
          ASSERT_EQ(c[static_cast<size_t>(i * n + j)], want) << "n " << n << " row " << i << " column " << j;
        }
    }
}

// Layer norm's statistics: two reduces of one input fusion, the shifted input stored as
// a side output while the rows are folded, and the mean computed from the folded sum.
TEST(CpuKernelsTest, AnInputFusionWithTwoReducesAndASideOutput) {
  std::string text =
      "func.func @main(%x: tensor<6x10xf32>) -> (tensor<6xf32>, tensor<6xf32>, tensor<6x10xf32>, tensor<6xf32>) {\n"
      "  %z = stablehlo.constant dense<0.0> : tensor<f32>\n"
      "  %c = stablehlo.constant dense<0.25> : tensor<6x10xf32>\n"
      "  %s = stablehlo.subtract %x, %c : tensor<6x10xf32>\n"
      "  %q = stablehlo.multiply %s, %s : tensor<6x10xf32>\n"
      "  %sum = stablehlo.reduce(%s init: %z) applies stablehlo.add across dimensions = [1]"
      " : (tensor<6x10xf32>, tensor<f32>) -> tensor<6xf32>\n"
      "  %sq = stablehlo.reduce(%q init: %z) applies stablehlo.add across dimensions = [1]"
      " : (tensor<6x10xf32>, tensor<f32>) -> tensor<6xf32>\n"
      "  %n = stablehlo.constant dense<10.0> : tensor<6xf32>\n"
      "  %mean = stablehlo.divide %sum, %n : tensor<6xf32>\n"
      "  return %sum, %sq, %s, %mean : tensor<6xf32>, tensor<6xf32>, tensor<6x10xf32>, tensor<6xf32>\n}\n";
  expectSameOnCpu(text);
}

// Results do not depend on the thread count: softmax over long rows, column sums, an
// MLP (GEMMs with a bias-and-relu epilogue), a convolution on oneDNN (its kernels give
// each output position to one thread) and one through im2col (another layout: blocks of
// rows, each GEMM cut into pieces) and a skinny A·Bᵀ (gemm.cc's row dots, cut into
// pieces of columns), a batch of small products (side by side, each whole on one
// thread), a narrow product (narrow_gemm.h, in pieces of rows), and one kernel that sums a product both along its rows and down
// its columns and writes the product too (two parts of one iteration space: a chunk that misses the column part
// once looped for 2^64 tiles), each large enough to run in chunks, give the same
// bits at 1, 2 and 8 threads. (OpenBLAS alone does not: on Zen 3 its threaded sgemm
// sums in another order at each thread count.)
TEST(CpuKernelsTest, BitwiseTheSameAtOneTwoAndEightThreads) {
  std::string text =
      "func.func @main(%x: tensor<256x1024xf32>, %w: tensor<1024x512xf32>, %b: tensor<512xf32>, "
      "%img: tensor<1x56x56x64xf32>, %k: tensor<3x3x64x64xf32>, %t: tensor<7x512xf32>, %wt: tensor<1000x512xf32>, "
      "%u: tensor<64x16x64xf32>, %v: tensor<64x16x64xf32>, %w3: tensor<64x16x64xf32>) -> "
      "(tensor<256x1024xf32>, tensor<512xf32>, tensor<256x512xf32>, tensor<1x56x56x64xf32>, tensor<7x1000xf32>, "
      "tensor<64xf32>, tensor<64x16xf32>, tensor<64x16x64xf32>, tensor<64x16x16xf32>, tensor<256x16xf32>, "
      "tensor<1x56x56x64xf32>) {\n"
      "  %ninf = stablehlo.constant dense<0xFF800000> : tensor<f32>\n"
      "  %z = stablehlo.constant dense<0.0> : tensor<f32>\n"
      "  %m = stablehlo.reduce(%x init: %ninf) applies stablehlo.maximum across dimensions = [1]"
      " : (tensor<256x1024xf32>, tensor<f32>) -> tensor<256xf32>\n"
      "  %mb = stablehlo.broadcast_in_dim %m, dims = [0] : (tensor<256xf32>) -> tensor<256x1024xf32>\n"
      "  %d = stablehlo.subtract %x, %mb : tensor<256x1024xf32>\n"
      "  %ex = stablehlo.exponential %d : tensor<256x1024xf32>\n"
      "  %s = stablehlo.reduce(%ex init: %z) applies stablehlo.add across dimensions = [1]"
      " : (tensor<256x1024xf32>, tensor<f32>) -> tensor<256xf32>\n"
      "  %sb = stablehlo.broadcast_in_dim %s, dims = [0] : (tensor<256xf32>) -> tensor<256x1024xf32>\n"
      "  %softmax = stablehlo.divide %ex, %sb : tensor<256x1024xf32>\n"
      "  %cols = stablehlo.reduce(%w init: %z) applies stablehlo.add across dimensions = [0]"
      " : (tensor<1024x512xf32>, tensor<f32>) -> tensor<512xf32>\n"
      "  %h = stablehlo.dot_general %x, %w, contracting_dims = [1] x [0] : (tensor<256x1024xf32>, "
      "tensor<1024x512xf32>) -> tensor<256x512xf32>\n"
      "  %bb = stablehlo.broadcast_in_dim %b, dims = [1] : (tensor<512xf32>) -> tensor<256x512xf32>\n"
      "  %hb = stablehlo.add %h, %bb : tensor<256x512xf32>\n"
      "  %zz = stablehlo.constant dense<0.0> : tensor<256x512xf32>\n"
      "  %relu = stablehlo.maximum %hb, %zz : tensor<256x512xf32>\n"
      "  %conv = stablehlo.convolution(%img, %k) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], "
      "window = {pad = [[1, 1], [1, 1]]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : "
      "(tensor<1x56x56x64xf32>, tensor<3x3x64x64xf32>) -> tensor<1x56x56x64xf32>\n"
      "  %conv2 = stablehlo.convolution(%img, %k) dim_numbers = [b, 1, 0, f]x[0, 1, i, o]->[b, 1, 0, f], "
      "window = {pad = [[1, 1], [1, 1]]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : "
      "(tensor<1x56x56x64xf32>, tensor<3x3x64x64xf32>) -> tensor<1x56x56x64xf32>\n"
      "  %skinny = stablehlo.dot_general %t, %wt, contracting_dims = [1] x [1] : (tensor<7x512xf32>, "
      "tensor<1000x512xf32>) -> tensor<7x1000xf32>\n"
      "  %uv = stablehlo.multiply %u, %v : tensor<64x16x64xf32>\n"
      "  %vw = stablehlo.multiply %v, %w3 : tensor<64x16x64xf32>\n"
      "  %uvw = stablehlo.multiply %u, %vw : tensor<64x16x64xf32>\n"
      "  %down = stablehlo.reduce(%uv init: %z) applies stablehlo.add across dimensions = [0, 1]"
      " : (tensor<64x16x64xf32>, tensor<f32>) -> tensor<64xf32>\n"
      "  %along = stablehlo.reduce(%uvw init: %z) applies stablehlo.add across dimensions = [2]"
      " : (tensor<64x16x64xf32>, tensor<f32>) -> tensor<64x16xf32>\n"
      "  %batched = stablehlo.dot_general %u, %v, batching_dims = [0] x [0], contracting_dims = [2] x [2]"
      " : (tensor<64x16x64xf32>, tensor<64x16x64xf32>) -> tensor<64x16x16xf32>\n"
      "  %wn = stablehlo.slice %w [0:1024, 0:16] : (tensor<1024x512xf32>) -> tensor<1024x16xf32>\n"
      "  %narrow = stablehlo.dot_general %x, %wn, contracting_dims = [1] x [0]"
      " : (tensor<256x1024xf32>, tensor<1024x16xf32>) -> tensor<256x16xf32>\n"
      "  return %softmax, %cols, %relu, %conv, %skinny, %down, %along, %vw, %batched, %narrow, %conv2 : "
      "tensor<256x1024xf32>, tensor<512xf32>, tensor<256x512xf32>, tensor<1x56x56x64xf32>, tensor<7x1000xf32>, "
      "tensor<64xf32>, tensor<64x16xf32>, tensor<64x16x64xf32>, tensor<64x16x16xf32>, tensor<256x16xf32>, "
      "tensor<1x56x56x64xf32>\n}\n";
  auto module = stablehlo::parseModule(text);
  passes::PassContext context;
  passes::runPipeline(*module, cpuPipeline(), context);
  Executable exe(*module);
  for (const auto& [reason, n] : exe.declinedReasons()) ADD_FAILURE() << "declined: " << reason;
  const Function& fn = *module->lookup("main");
  interp::HostValues args;
  for (size_t i = 0; i < fn.numParams(); ++i) {
    Literal lit(fn.param(i)->type());
    for (int64_t k = 0; k < lit.numElements(); ++k) lit.setFloat(k, std::sin(0.37 * static_cast<double>(k + 1000 * i)));
    args.push_back(std::move(lit));
  }
  setThreadCount(1);
  interp::HostValues one = exe.call(fn, args);
  for (int threads : {2, 8}) {
    setThreadCount(threads);
    EXPECT_EQ(threadCount(), threads);
    interp::HostValues many = exe.call(fn, args);
    for (size_t r = 0; r < one.size(); ++r) EXPECT_TRUE(one[r].tensor() == many[r].tensor()) << "result " << r << " at " << threads;
  }
  setThreadCount(0);
}

// Result buffers are reused across executions only once nobody holds them: a result
// kept by the caller is not overwritten by the next execution.
TEST(CpuKernelsTest, ResultBuffersAreReusedOnlyWhenFree) {
  auto module = stablehlo::parseModule(function("%x: tensor<1000xf32>", "tensor<1000xf32>",
                                                "  %r = stablehlo.add %x, %x : tensor<1000xf32>\n"));
  passes::PassContext context;
  passes::runPipeline(*module, cpuPipeline(), context);
  Executable exe(*module);
  const Function& fn = *module->lookup("main");
  Literal one = ordinaryValues(Type::tensor(DType::F32, {1000}), 0);
  Literal two = ordinaryValues(Type::tensor(DType::F32, {1000}), 1);
  interp::HostValues first = exe.call(fn, {one});
  Literal kept = first[0].tensor();
  first.clear();
  interp::HostValues second = exe.call(fn, {two});  // must not write into `kept`
  for (int64_t i = 0; i < 1000; ++i) {
    ASSERT_EQ(kept.floatAt(i), 2 * one.floatAt(i));
    ASSERT_EQ(second[0].tensor().floatAt(i), 2 * two.floatAt(i));
  }
  const uint8_t* storage = second[0].tensor().storage();
  second.clear();  // now free: the next execution writes into the same storage
  interp::HostValues third = exe.call(fn, {one});
  EXPECT_EQ(third[0].tensor().storage(), storage);
  EXPECT_EQ(third[0].tensor().floatAt(5), 2 * one.floatAt(5));
}

// bitcast_convert: f16 and bf16 keep their bits through the f32 they are computed in
// (NaN payloads included), and between widths the operand's bytes are read as elements
// of the other width.
TEST(CpuKernelsTest, BitcastsKeepEveryBit) {
  for (auto [from, to] : std::vector<std::pair<std::string, std::string>>{
           {"f16", "i16"}, {"i16", "f16"}, {"bf16", "ui16"}, {"ui16", "bf16"}, {"f16", "bf16"}, {"f32", "i32"}})
    expectSameOnCpu(function("%x: tensor<12x" + from + ">", "tensor<12x" + to + ">",
                             "  %r = stablehlo.bitcast_convert %x : (tensor<12x" + from + ">) -> tensor<12x" + to + ">\n"));
  expectSameOnCpu(function("%x: tensor<3xf32>", "tensor<3x4xi8>",
                           "  %r = stablehlo.bitcast_convert %x : (tensor<3xf32>) -> tensor<3x4xi8>\n"));
  expectSameOnCpu(function("%x: tensor<3x2xi16>", "tensor<3xf32>",
                           "  %r = stablehlo.bitcast_convert %x : (tensor<3x2xi16>) -> tensor<3xf32>\n"));
  expectSameOnCpu(function("%x: tensor<5x2xbf16>", "tensor<5xui32>",
                           "  %r = stablehlo.bitcast_convert %x : (tensor<5x2xbf16>) -> tensor<5xui32>\n"));
}

// reduce_precision on the bits of each format, special values included: rounding to
// fewer mantissa bits, overflow and underflow of a smaller exponent, NaN kept (or inf
// with no mantissa bits left).
TEST(CpuKernelsTest, ReducePrecisionRoundsTheBitsAsTheInterpreterDoes) {
  for (const char* e : {"f32", "f64", "bf16", "f16"})
    for (const char* format : {"e5m2", "e8m7", "e4m0", "e11m52", "e2m1"}) {
      std::string t = "tensor<16x" + std::string(e) + ">";
      expectSameOnCpu(function("%x: " + t, t, "  %r = stablehlo.reduce_precision %x, format = " + std::string(format) +
                                                   " : " + t + "\n"));
    }
}

// Gathers and dynamic slices read indices from tensors: embedding rows, a gather with
// batching dimensions, starts out of range (clamped, as the spec says, for signed and
// unsigned index types), and an update placed by clamped starts.
TEST(CpuKernelsTest, GathersAndDynamicSlicesClampTheirStarts) {
  expectSameOnCpu(function("%x: tensor<10x4xf32>", "tensor<5x4xf32>",
                           "  %i = stablehlo.constant dense<[3, 0, 9, -2, 12]> : tensor<5xi32>\n"
                           "  %r = \"stablehlo.gather\"(%x, %i) {dimension_numbers = #stablehlo.gather<offset_dims = [1],"
                           " collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>,"
                           " slice_sizes = array<i64: 1, 4>} : (tensor<10x4xf32>, tensor<5xi32>) -> tensor<5x4xf32>\n"));
  // Windows of 2x2 at (row, column) pairs along index_vector_dim 0, some past the edge.
  expectSameOnCpu(function("%x: tensor<5x6xbf16>", "tensor<3x2x2xbf16>",
                           "  %i = stablehlo.constant dense<[[0, 4, 9], [1, 5, 2]]> : tensor<2x3xui64>\n"
                           "  %r = \"stablehlo.gather\"(%x, %i) {dimension_numbers = #stablehlo.gather<offset_dims = [1, 2],"
                           " start_index_map = [0, 1], index_vector_dim = 0>,"
                           " slice_sizes = array<i64: 2, 2>} : (tensor<5x6xbf16>, tensor<2x3xui64>) -> tensor<3x2x2xbf16>\n"));
  // Batching: row b of the result gathers from batch b of the operand.
  expectSameOnCpu(function("%x: tensor<3x7xi16>", "tensor<3x2xi16>",
                           "  %i = stablehlo.constant dense<[[6, 0], [2, 3], [-1, 8]]> : tensor<3x2xi64>\n"
                           "  %r = \"stablehlo.gather\"(%x, %i) {dimension_numbers = #stablehlo.gather<"
                           "operand_batching_dims = [0], start_indices_batching_dims = [0], collapsed_slice_dims = [1],"
                           " start_index_map = [1], index_vector_dim = 2>,"
                           " slice_sizes = array<i64: 1, 1>} : (tensor<3x7xi16>, tensor<3x2xi64>) -> tensor<3x2xi16>\n"));
  expectSameOnCpu(function("%x: tensor<6x5xf64>, %s: tensor<i32>", "tensor<3x2xf64>",
                           "  %c = stablehlo.constant dense<7> : tensor<i32>\n"
                           "  %r = stablehlo.dynamic_slice %x, %s, %c, sizes = [3, 2] : (tensor<6x5xf64>, tensor<i32>,"
                           " tensor<i32>) -> tensor<3x2xf64>\n"));
  expectSameOnCpu(function("%x: tensor<6x5xf32>, %u: tensor<2x3xf32>", "tensor<6x5xf32>",
                           "  %a = stablehlo.constant dense<-3> : tensor<i64>\n"
                           "  %b = stablehlo.constant dense<4> : tensor<i64>\n"
                           "  %r = stablehlo.dynamic_update_slice %x, %u, %a, %b : (tensor<6x5xf32>, tensor<2x3xf32>,"
                           " tensor<i64>, tensor<i64>) -> tensor<6x5xf32>\n"));
}

// reduce_window: max pooling with strides and padding (the padding folds the init),
// a sum with base and window dilation, a cumulative sum (a window as long as the row,
// padded in front: what jnp.cumsum lowers to), and NHWC pooling.
TEST(CpuKernelsTest, ReduceWindowsFoldEachWindowInOrder) {
  auto window = [](const std::string& e, const std::string& in, const std::string& out, const std::string& op,
                   const std::string& init, const std::string& attrs) {
    std::string x = "tensor<" + in + e + ">", r = "tensor<" + out + e + ">", s = "tensor<" + e + ">";
    return function("%x: " + x, r,
                    "  %z = stablehlo.constant dense<" + init + "> : " + s + "\n"
                    "  %r = \"stablehlo.reduce_window\"(%x, %z) ({\n"
                    "  ^bb0(%a: " + s + ", %b: " + s + "):\n"
                    "    %t = " + op + " %a, %b : " + s + "\n"
                    "    stablehlo.return %t : " + s + "\n"
                    "  }) {" + attrs + "} : (" + x + ", " + s + ") -> " + r + "\n");
  };
  for (const char* e : {"f32", "bf16", "i32"}) {
    expectSameOnCpu(window(e, "2x7x6x", "2x4x3x", "stablehlo.maximum", "-3",
                           "window_dimensions = array<i64: 1, 3, 2>, window_strides = array<i64: 1, 2, 2>, "
                           "padding = dense<[[0, 0], [1, 1], [0, 0]]> : tensor<3x2xi64>"),
                    1, false);
    expectSameOnCpu(window(e, "5x4x", "9x3x", "stablehlo.add", "0",
                           "window_dimensions = array<i64: 2, 2>, base_dilations = array<i64: 2, 1>, "
                           "window_dilations = array<i64: 1, 2>, padding = dense<[[1, 0], [0, 1]]> : tensor<2x2xi64>"),
                    1, false);
  }
  expectSameOnCpu(window("f32", "3x50x", "3x50x", "stablehlo.add", "0.0",
                         "window_dimensions = array<i64: 1, 50>, padding = dense<[[0, 0], [49, 0]]> : tensor<2x2xi64>"),
                  1, false);
  // NHWC pooling (the window one element wide along the last dimension): folded a row of
  // features at a time; odd widths (the vector loop's tail), special values, a sum, and
  // rows enough to run in chunks on several threads.
  const std::string pool = "window_dimensions = array<i64: 1, 3, 3, 1>, window_strides = array<i64: 1, 2, 2, 1>, "
                           "padding = dense<[[0, 0], [1, 1], [1, 1], [0, 0]]> : tensor<4x2xi64>";
  for (const char* e : {"f32", "bf16", "i32"}) {
    expectSameOnCpu(window(e, "2x9x9x11x", "2x5x5x11x", "stablehlo.maximum", "-3", pool));
    expectSameOnCpu(window(e, "2x9x8x3x", "2x5x4x3x", "stablehlo.add", "0", pool), 1, false);
  }
  expectSameOnCpu(window("f32", "2x112x112x64x", "2x56x56x64x", "stablehlo.maximum", "0xFF800000", pool), 1, false);
}

// select_and_scatter, max pooling's gradient: overlapping windows whose picks coincide
// add up there, ties keep the first element (GE), padding is never picked; and a min
// selection over integers.
TEST(CpuKernelsTest, SelectAndScatterPicksAsTheInterpreterDoes) {
  auto program = [](const std::string& e, const std::string& dir, const std::string& in, const std::string& src,
                    const std::string& attrs) {
    std::string x = "tensor<" + in + e + ">", y = "tensor<" + src + e + ">", s = "tensor<" + e + ">";
    return function("%x: " + x + ", %g: " + y, x,
                    "  %z = stablehlo.constant dense<0> : " + s + "\n"
                    "  %r = \"stablehlo.select_and_scatter\"(%x, %g, %z) ({\n"
                    "  ^bb0(%a: " + s + ", %b: " + s + "):\n"
                    "    %c = stablehlo.compare " + dir + ", %a, %b : (" + s + ", " + s + ") -> tensor<i1>\n"
                    "    stablehlo.return %c : tensor<i1>\n"
                    "  }, {\n"
                    "  ^bb0(%a: " + s + ", %b: " + s + "):\n"
                    "    %t = stablehlo.add %a, %b : " + s + "\n"
                    "    stablehlo.return %t : " + s + "\n"
                    "  }) {" + attrs + "} : (" + x + ", " + y + ", " + s + ") -> " + x + "\n");
  };
  const std::string overlapping = "window_dimensions = array<i64: 3, 3>, window_strides = array<i64: 1, 2>, "
                                  "padding = dense<[[1, 1], [0, 1]]> : tensor<2x2xi64>";
  expectSameOnCpu(program("f32", "GE", "6x7x", "6x3x", overlapping), 1, false);
  expectSameOnCpu(program("bf16", "GE", "6x7x", "6x3x", overlapping), 1, true);
  expectSameOnCpu(program("i32", "LE", "6x7x", "6x3x", overlapping), 1, false);
}

// Scatter: updates to one element apply in the interpreter's order (a float sum of
// repeated indices shows it), a "set" body keeps the last update, windows that run past
// the edge are skipped element by element, and batching dimensions pick the operand's
// batch.
TEST(CpuKernelsTest, ScattersApplyUpdatesInOrderAndSkipOutOfBounds) {
  auto scatter = [](const std::string& type, const std::string& body, const std::string& indices,
                    const std::string& dims, const std::string& operand, const std::string& updates) {
    std::string s = "tensor<" + type + ">";
    return function("%x: tensor<" + operand + type + ">, %u: tensor<" + updates + type + ">",
                    "tensor<" + operand + type + ">",
                    "  %i = stablehlo.constant " + indices + "\n"
                    "  %r = \"stablehlo.scatter\"(%x, %i, %u) ({\n"
                    "  ^bb0(%a: " + s + ", %b: " + s + "):\n" + body +
                    "  }) {scatter_dimension_numbers = #stablehlo.scatter<" + dims + ">} : (tensor<" + operand + type +
                    ">, " + indices.substr(indices.rfind(": ") + 2) + ", tensor<" + updates + type + ">) -> tensor<" +
                    operand + type + ">\n");
  };
  const std::string add = "    %t = stablehlo.add %a, %b : tensor<f32>\n    stablehlo.return %t : tensor<f32>\n";
  const std::string set = "    stablehlo.return %b : tensor<f32>\n";
  const std::string rows = "dense<[[1], [1], [4], [1], [-1], [7]]> : tensor<6x1xi32>";
  const std::string rowDims = "update_window_dims = [1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], "
                              "index_vector_dim = 1";
  expectSameOnCpu(scatter("f32", add, rows, rowDims, "5x3x", "6x3x"), 1, false);
  expectSameOnCpu(scatter("f32", set, rows, rowDims, "5x3x", "6x3x"), 1, false);
  // 2x2 windows at (row, column) starts; those past the edge keep their inside part.
  expectSameOnCpu(scatter("f32", add, "dense<[[0, 0], [3, 4], [4, 1], [1, -1]]> : tensor<4x2xi64>",
                          "update_window_dims = [1, 2], scatter_dims_to_operand_dims = [0, 1], index_vector_dim = 1",
                          "5x5x", "4x2x2x"), 1, false);
  const std::string imax = "    %t = stablehlo.maximum %b, %a : tensor<i32>\n    stablehlo.return %t : tensor<i32>\n";
  expectSameOnCpu(scatter("i32", imax, "dense<[[2, 0], [1, 1], [2, 2]]> : tensor<3x2xui32>",
                          "update_window_dims = [], inserted_window_dims = [1], input_batching_dims = [0], "
                          "scatter_indices_batching_dims = [0], scatter_dims_to_operand_dims = [1], index_vector_dim = 2",
                          "3x4x", "3x2x"));
}

TEST(CpuKernelsTest, DeclinedOpsSayWhyAndStillRun) {
  std::string text = function("%x: tensor<8xcomplex<f32>>", "tensor<8xcomplex<f32>>",
                              "  %r = stablehlo.fft %x, type = FFT, length = [8] : (tensor<8xcomplex<f32>>) -> "
                              "tensor<8xcomplex<f32>>\n");
  auto reference = stablehlo::parseModule(text);
  auto module = stablehlo::parseModule(text);
  passes::PassContext context;
  passes::runPipeline(*module, cpuPipeline(), context);
  Executable exe(*module);
  ASSERT_EQ(exe.declinedReasons().size(), 1u);
  EXPECT_EQ(exe.declinedReasons().begin()->first, "unsupported: stablehlo.fft (no native code yet)");
  interp::HostValues args = {ordinaryValues(Type::tensor(DType::C64, {8}), 0)};
  expectSameBits(interp::Interpreter(*reference).call("main", args), exe.call(*module->lookup("main"), args));
}

// Sort through the runtime kernel with a compiled comparator: several operands permuted
// together (values and their indices), along the last and a leading dimension, the
// total order (NaN and -0 in place), plain LT over NaNs (not a strict weak order: the
// same stable sort makes the same comparisons), and descending integers.
TEST(CpuKernelsTest, SortsPermuteEveryOperandAsTheInterpreterDoes) {
  auto sort = [](const std::string& e, const std::string& shape, int64_t dim, const std::string& dir,
                 const std::string& type = "") {
    std::string x = "tensor<" + shape + e + ">", i = "tensor<" + shape + "i32>", s = "tensor<" + e + ">";
    return "func.func @main(%x: " + x + ") -> (" + x + ", " + i + ") {\n"
           "  %i = stablehlo.iota dim = " + std::to_string(dim) + " : " + i + "\n"
           "  %r:2 = \"stablehlo.sort\"(%x, %i) ({\n"
           "  ^bb0(%a: " + s + ", %b: " + s + ", %ai: tensor<i32>, %bi: tensor<i32>):\n"
           "    %c = stablehlo.compare " + dir + ", %a, %b" + type + " : (" + s + ", " + s + ") -> tensor<i1>\n"
           "    stablehlo.return %c : tensor<i1>\n"
           "  }) {dimension = " + std::to_string(dim) + " : i64, is_stable = true} : (" + x + ", " + i + ") -> (" + x + ", " +
           i + ")\n"
           "  return %r#0, %r#1 : " + x + ", " + i + "\n}\n";
  };
  for (const char* e : {"f32", "bf16", "f64"}) {
    expectSameOnCpu(sort(e, "4x37x", 1, "LT", ", TOTALORDER"));
    expectSameOnCpu(sort(e, "37x3x", 0, "LT", ", TOTALORDER"));
    expectSameOnCpu(sort(e, "4x37x", 1, "LT"));
  }
  expectSameOnCpu(sort("i32", "5x40x", 1, "GT"));
}

}  // namespace
}  // namespace kiln::cpu

namespace kiln::cpu {
namespace {

// rng_bit_generator as a kernel: every algorithm, output widths 8 to 64, shapes whose
// Threefry pairing takes the first even dimension or the largest odd one, a scalar and
// an empty output (the state still advances), states of two and three ui64 words and
// IREE's 4xi32, and outputs of many chunks (the draws are split across threads).
TEST(CpuKernelsTest, RandomBitsDrawAsTheInterpreterDoes) {
  auto rng = [](const std::string& algorithm, const std::string& state, const std::string& out) {
    return "func.func @main(%s: tensor<" + state + ">) -> (tensor<" + state + ">, tensor<" + out + ">) {\n" +
           "  %s2, %bits = stablehlo.rng_bit_generator %s, algorithm = " + algorithm + " : (tensor<" + state +
           ">) -> (tensor<" + state + ">, tensor<" + out + ">)\n" + "  return %s2, %bits : tensor<" + state +
           ">, tensor<" + out + ">\n}\n";
  };
  for (const char* algorithm : {"DEFAULT", "THREE_FRY", "PHILOX"})
    for (const char* out : {"3x5xui32", "5x4xui8", "7x3xi16", "3x7xui64", "ui32", "0x3xui32", "3x2001xui32",
                            "4097xf32", "5x3xf64"})
      expectSameOnCpu(rng(algorithm, "2xui64", out), 1, false);
  expectSameOnCpu(rng("PHILOX", "3xui64", "4x33xui32"), 1, false);
  expectSameOnCpu(rng("PHILOX", "4xi32", "4x33xi32"), 1, false);
}

}  // namespace
}  // namespace kiln::cpu

namespace kiln::cpu {
namespace {

// A multi-output fusion with an empty output (a slice of no elements, also padded):
// the empty part computes nothing. Its row loop divided by a row of no elements, which
// hung at O2 (kiln fuzz, seed 2206).
TEST(CpuKernelsTest, AnEmptyOutputOfAMultiOutputKernelComputesNothing) {
  expectSameOnCpu(R"(
func.func @main(%x: tensor<4x4x3xf64>) -> (tensor<6x1x1xf64>, tensor<2x0x0xf64>) {
  %s = stablehlo.slice %x [2:4, 3:3:2, 3:3:2] : (tensor<4x4x3xf64>) -> tensor<2x0x0xf64>
  %z = stablehlo.constant dense<0.000000e+00> : tensor<f64>
  %p = stablehlo.pad %s, %z, low = [2, -1, 0], high = [1, 2, 1], interior = [1, 0, 1] : (tensor<2x0x0xf64>, tensor<f64>) -> tensor<6x1x1xf64>
  return %p, %s : tensor<6x1x1xf64>, tensor<2x0x0xf64>
})");
}

}  // namespace
}  // namespace kiln::cpu
