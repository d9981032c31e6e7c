// Helpers the pass tests share: inputs full of special values, bit-for-bit comparison of
// interpreter results, op counting, and "run these passes, verify, and check that @main
// still computes the same bits".
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "interp/interpreter.h"
#include "ir/verifier.h"
#include "passes/passes.h"
#include "stablehlo/parser.h"
#include "stablehlo/printer.h"

namespace kiln::passes::test_util {

// Inputs: element i of parameter p cycles through special values, shifted by p so that
// two parameters meet in many combinations.
inline Literal specialValues(const Type& t, size_t param) {
  static const double kFloats[] = {NAN,  -0.0, 0.0,   INFINITY, -INFINITY, 1.0,   -1.0,
                                   2.5,  -3.75, 1e30, -1e-30,  65504.0,   7.0,   1e-40,
                                   -NAN, 0.5,  -2.0};
  constexpr size_t kNumFloats = std::size(kFloats);
  Literal lit(t);
  DType d = t.dtype();
  int w = bitWidth(d);
  int64_t smin = w >= 64 ? INT64_MIN : -(int64_t{1} << (w - 1));
  int64_t smax = w >= 64 ? INT64_MAX : (int64_t{1} << (w - 1)) - 1;
  uint64_t umax = w >= 64 ? UINT64_MAX : (uint64_t{1} << w) - 1;
  const int64_t ints[] = {smin, smax, -1, 0, 1, 7, -100, smin + 1, 2, 100, 0};
  const uint64_t uints[] = {0, umax, 1, 7, umax - 1, 128, 2, umax / 2, 0};
  for (int64_t i = 0; i < t.numElements(); ++i) {
    size_t k = static_cast<size_t>(i) + param * 5;
    if (isFloat(d)) lit.setFloat(i, kFloats[k % kNumFloats]);
    else if (isComplex(d)) lit.setComplex(i, {kFloats[k % kNumFloats], kFloats[(k * 7 + 3) % kNumFloats]});
    else if (isBool(d)) lit.setInt(i, static_cast<int64_t>((k + k / 2) % 2));
    else if (isSignedInt(d)) lit.setInt(i, ints[k % std::size(ints)]);
    else lit.setBits(i, uints[k % std::size(uints)] & umax);  // as stored: within the width
  }
  return lit;
}

// Ordinary finite inputs (for programs whose interesting behaviour NaN would hide, such
// as reductions): small values that vary with the index and the parameter.
inline Literal ordinaryValues(const Type& t, size_t param) {
  Literal lit(t);
  DType d = t.dtype();
  for (int64_t i = 0; i < t.numElements(); ++i) {
    int64_t k = (i * 7 + static_cast<int64_t>(param) * 13) % 23 - 11;
    if (isFloat(d)) lit.setFloat(i, static_cast<double>(k) / 8.0);
    else if (isBool(d)) lit.setInt(i, k & 1);
    else if (isSignedInt(d)) lit.setInt(i, k);
    else lit.setBits(i, static_cast<uint64_t>(k + 11));
  }
  return lit;
}

// How NaNs compare: by their bits, or any NaN equal to any NaN (where the hardware picks
// which NaN a sum propagates: a vectorized dot adds in an order the compiler chose).
enum class NaNs { Exact, AnyPayload };

inline void expectBitIdentical(const interp::HostValues& a, const interp::HostValues& b, const std::string& text,
                               NaNs nans = NaNs::Exact) {
  ASSERT_EQ(a.size(), b.size());
  for (size_t r = 0; r < a.size(); ++r) {
    const Literal& x = a[r].tensor();
    const Literal& y = b[r].tensor();
    ASSERT_EQ(x.type(), y.type()) << "result " << r;
    for (int64_t i = 0; i < x.numElements(); ++i) {
      if (nans == NaNs::AnyPayload && isFloat(x.dtype()) && std::isnan(x.floatAt(i)) &&
          std::isnan(y.floatAt(i)))
        continue;
      // Whole elements: bitsAt reads at most 8 bytes, half of a complex<f64>.
      const size_t width = static_cast<size_t>(storageBytes(x.dtype()));
      const uint8_t* xs = x.storage() + (x.isSplat() ? 0 : static_cast<size_t>(i) * width);
      const uint8_t* ys = y.storage() + (y.isSplat() ? 0 : static_cast<size_t>(i) * width);
      bool same = std::equal(xs, xs + width, ys);
      if (!same && nans == NaNs::AnyPayload && isComplex(x.dtype())) {
        // Part by part: any NaN matches any NaN.
        std::complex<double> u = x.complexAt(i), v = y.complexAt(i);
        const size_t half = width / 2;
        auto partSame = [&](double a, double b, size_t at) {
          return (std::isnan(a) && std::isnan(b)) || std::equal(xs + at, xs + at + half, ys + at);
        };
        same = partSame(u.real(), v.real(), 0) && partSame(u.imag(), v.imag(), half);
      }
      ASSERT_TRUE(same) << "result " << r << " element " << i << " of\n"
                                                  << a[r].summary(32) << "\nvs\n"
                                                  << b[r].summary(32) << "\nafter the passes:\n"
                                                  << text;
    }
  }
}

// Every op of the module (nested ones included) with this opcode.
inline int count(const Module& m, OpCode code) {
  int n = 0;
  for (const auto& fn : m.functions()) walk(fn->body(), [&](Op& op) { n += op.is(code); });
  return n;
}

// The ops of function `fn` other than its return (nested ones included).
inline int numOps(const Module& m, const std::string& fn = "main") {
  int n = 0;
  walk(m.lookup(fn)->body(), [&](Op& op) { n += !op.info().isTerminator(); });
  return n;
}

// The value @main returns as its result `i`.
inline const Value* returned(const Module& m, size_t i = 0) {
  return m.lookup("main")->body().terminator()->operand(i);
}

// The ops of `m` with this opcode, nested ones included, in walk order.
inline std::vector<Op*> opsOf(const Module& m, OpCode code) {
  std::vector<Op*> ops;
  for (const auto& fn : m.functions()) walk(fn->body(), [&](Op& op) {
      if (op.is(code)) ops.push_back(&op);
    });
  return ops;
}

enum class Inputs { Special, Ordinary };

// Parses `text`, runs the named passes on it in order (sharing `ctx`), verifies the
// result, and checks that @main computes the same bits before and after. Returns the
// transformed module.
inline std::unique_ptr<Module> runAndCompare(const std::string& text, const std::vector<std::string>& passNames,
                                             PassContext& ctx, Inputs inputs = Inputs::Special,
                                             NaNs nans = NaNs::Exact) {
  auto before = stablehlo::parseModule(text);
  auto after = stablehlo::parseModule(text);
  for (const std::string& name : passNames) createPass(name)->run(*after, ctx);
  std::string printed = stablehlo::printModule(*after);
  EXPECT_NO_THROW(verifyModule(*after)) << printed;
  const Function* fn = before->lookup("main");
  EXPECT_NE(fn, nullptr);
  if (!fn) return after;
  interp::HostValues args;
  for (size_t i = 0; i < fn->numParams(); ++i)
    args.push_back(inputs == Inputs::Special ? specialValues(fn->param(i)->type(), i)
                                             : ordinaryValues(fn->param(i)->type(), i));
  interp::HostValues expected = interp::Interpreter(*before).call("main", args);
  interp::HostValues got = interp::Interpreter(*after).call("main", args);
  expectBitIdentical(expected, got, printed, nans);
  return after;
}

inline std::unique_ptr<Module> runAndCompare(const std::string& text, const std::vector<std::string>& passNames,
                                             Inputs inputs = Inputs::Special, NaNs nans = NaNs::Exact) {
  PassContext ctx;
  return runAndCompare(text, passNames, ctx, inputs, nans);
}

}  // namespace kiln::passes::test_util
