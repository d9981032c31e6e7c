// kiln's autodiff constructs, the IR that JAX's stop_gradient, custom_jvp, custom_vjp,
// checkpoint and has_aux lower to: each round-trips through the text form and runs as
// what it wraps; the transforms take its rules. Custom rules here deliberately differ
// from the true derivative, so a test passes only when the rule was taken; where a rule
// is the true derivative the finite differences check it, and the two modes must agree
// (<u, J·v> = <Jᵀ·u, v>) wherever both exist.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <random>

#include "interp/interpreter.h"
#include "ir/builder.h"
#include "ir/ops/compiler.h"
#include "ir/ops/stablehlo.h"
#include "ir/verifier.h"
#include "passes/pass_manager.h"
#include "passes/passes.h"
#include "stablehlo/parser.h"
#include "stablehlo/printer.h"
#include "transforms/autodiff.h"
#include "transforms/transform_test_util.h"
#include "transforms/vmap.h"

namespace kiln::transforms {
namespace {

using interp::HostValues;
using test_util::checkDerivatives;
using test_util::errorOf;
using test_util::f64;
using test_util::Modes;
using test_util::randomLiteral;

Literal vec(std::initializer_list<double> values) {
  Literal lit(Type::tensor(DType::F64, {static_cast<int64_t>(values.size())}));
  int64_t i = 0;
  for (double v : values) lit.setFloat(i++, v);
  return lit;
}

int count(const Function& f, OpCode code) {
  int n = 0;
  walk(f.body(), [&](Op& op) { n += op.is(code); });
  return n;
}

// The module after the cleanup the CLI runs on transformed programs.
void cleanUp(Module& m) {
  passes::PassContext context;
  passes::runPipeline(m, passes::parsePassList("inline,fixpoint(simplify),cse,dce"), context);
}

// sin, with a jvp rule that says its derivative is 3 (not cos): the rule calls a helper,
// which the jvp inlines so that vjp can transpose it.
const char* kCustomJvp = R"(
func.func private @f(%x: tensor<3xf64>) -> tensor<3xf64> {
  %s = stablehlo.sine %x : tensor<3xf64>
  return %s : tensor<3xf64>
}
func.func private @triple(%t: tensor<3xf64>) -> tensor<3xf64> {
  %c = stablehlo.constant dense<3.0> : tensor<3xf64>
  %m = stablehlo.multiply %t, %c : tensor<3xf64>
  return %m : tensor<3xf64>
}
func.func private @f_jvp(%x: tensor<3xf64>, %t: tensor<3xf64>) -> (tensor<3xf64>, tensor<3xf64>) {
  %s = stablehlo.sine %x : tensor<3xf64>
  %m = func.call @triple(%t) : (tensor<3xf64>) -> tensor<3xf64>
  return %s, %m : tensor<3xf64>, tensor<3xf64>
}
func.func @main(%x: tensor<3xf64>) -> tensor<3xf64> {
  %y = "kiln.custom_jvp"(%x) {primal = @f, jvp = @f_jvp} : (tensor<3xf64>) -> tensor<3xf64>
  %e = stablehlo.exponential %y : tensor<3xf64>
  return %e : tensor<3xf64>
}
)";

// sin, with fwd keeping cos(x) and a bwd that returns twice the true cotangent.
const char* kCustomVjp = R"(
func.func private @f(%x: tensor<3xf64>) -> tensor<3xf64> {
  %s = stablehlo.sine %x : tensor<3xf64>
  return %s : tensor<3xf64>
}
func.func private @f_fwd(%x: tensor<3xf64>) -> (tensor<3xf64>, tensor<3xf64>) {
  %s = stablehlo.sine %x : tensor<3xf64>
  %c = stablehlo.cosine %x : tensor<3xf64>
  return %s, %c : tensor<3xf64>, tensor<3xf64>
}
func.func private @f_bwd(%c: tensor<3xf64>, %g: tensor<3xf64>) -> tensor<3xf64> {
  %two = stablehlo.constant dense<2.0> : tensor<3xf64>
  %a = stablehlo.multiply %g, %c : tensor<3xf64>
  %b = stablehlo.multiply %a, %two : tensor<3xf64>
  return %b : tensor<3xf64>
}
func.func @main(%x: tensor<3xf64>) -> tensor<3xf64> {
  %y = "kiln.custom_vjp"(%x) {primal = @f, fwd = @f_fwd, bwd = @f_bwd} : (tensor<3xf64>) -> tensor<3xf64>
  return %y : tensor<3xf64>
}
)";

// loss(x, w) = sum(exp(tanh(x·w))) with the layer in a checkpoint of policy POLICY.
std::string checkpointProgram(const std::string& policy) {
  return R"(
func.func @main(%x: tensor<4x3xf64>, %w: tensor<3x5xf64>) -> tensor<f64> {
  %e = "kiln.checkpoint"(%x, %w) ({
  ^bb0(%a: tensor<4x3xf64>, %b: tensor<3x5xf64>):
    %d = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : (tensor<4x3xf64>, tensor<3x5xf64>) -> tensor<4x5xf64>
    %t = stablehlo.tanh %d : tensor<4x5xf64>
    %x2 = stablehlo.exponential %t : tensor<4x5xf64>
    stablehlo.return %x2 : tensor<4x5xf64>
  }) {policy = ")" + policy + R"("} : (tensor<4x3xf64>, tensor<3x5xf64>) -> tensor<4x5xf64>
  %zero = stablehlo.constant dense<0.0> : tensor<f64>
  %l = stablehlo.reduce(%e init: %zero) applies stablehlo.add across dimensions = [0, 1] : (tensor<4x5xf64>, tensor<f64>) -> tensor<f64>
  return %l : tensor<f64>
}
)";
}

// The same loss without the checkpoint: the inliner replaces it by its region.
std::unique_ptr<Module> plainLoss() {
  auto m = stablehlo::parseModule(checkpointProgram("nothing_saveable"));
  passes::PassContext context;
  passes::runPipeline(*m, {"inline"}, context);
  EXPECT_EQ(count(*m->lookup("main"), ops::Checkpoint), 0);
  return m;
}

// ---- text form and executors ----

// Every construct prints back as it was parsed, and the printed module parses again.
TEST(AdConstructsTest, TextRoundTrip) {
  for (const std::string& text : {std::string(kCustomJvp), std::string(kCustomVjp), checkpointProgram("dots_saveable")}) {
    auto m = stablehlo::parseModule(text);
    ASSERT_NO_THROW(verifyModule(*m));
    std::string printed = stablehlo::printModule(*m);
    auto again = stablehlo::parseModule(printed);
    ASSERT_NO_THROW(verifyModule(*again));
    EXPECT_EQ(stablehlo::printModule(*again), printed);
  }
  auto m = stablehlo::parseModule(R"(
    func.func @main(%x: tensor<2xf32>) -> tensor<2xf32> {
      %s = "kiln.stop_gradient"(%x) : (tensor<2xf32>) -> tensor<2xf32>
      return %s : tensor<2xf32>
    })");
  std::string printed = stablehlo::printModule(*m);
  EXPECT_NE(printed.find("kiln.stop_gradient"), std::string::npos);
  EXPECT_EQ(stablehlo::printModule(*stablehlo::parseModule(printed)), printed);
}

// The interpreter runs what each construct wraps, and the inliner (the optimizer's first
// pass, and so the cpu backend's) replaces them by it with the same results.
TEST(AdConstructsTest, ExecutorsRunWhatTheConstructsWrap) {
  Literal x = vec({0.5, -1.25, 2.0});
  for (const char* text : {kCustomJvp, kCustomVjp}) {
    auto m = stablehlo::parseModule(text);
    HostValues before = interp::Interpreter(*m).call("main", {x});
    cleanUp(*m);
    EXPECT_EQ(count(*m->lookup("main"), ops::CustomJvp) + count(*m->lookup("main"), ops::CustomVjp), 0);
    HostValues after = interp::Interpreter(*m).call("main", {x});
    EXPECT_EQ(before[0].tensor(), after[0].tensor());
    for (int64_t i = 0; i < 3; ++i) {
      double expected = text == kCustomJvp ? std::exp(std::sin(x.floatAt(i))) : std::sin(x.floatAt(i));
      EXPECT_EQ(before[0].tensor().floatAt(i), expected) << i;
    }
  }
  auto c = stablehlo::parseModule(checkpointProgram("nothing_saveable"));
  std::mt19937_64 rng(3);
  HostValues args = {randomLiteral(Type::tensor(DType::F64, {4, 3}), rng, {-1, 1}),
                     randomLiteral(Type::tensor(DType::F64, {3, 5}), rng, {-1, 1})};
  EXPECT_EQ(interp::Interpreter(*c).call("main", args)[0].tensor(),
            interp::Interpreter(*plainLoss()).call("main", args)[0].tensor());
}

// The parser checks each op as it builds it, so a bad rule signature is an error at the
// op's line.
TEST(AdConstructsTest, VerifierChecksTheRuleSignatures) {
  // The message and the line it points at.
  auto errorParsing = [](const std::string& text) -> std::string {
    try {
      verifyModule(*stablehlo::parseModule(text));
    } catch (const Error& e) {
      return e.message() + " (line " + std::to_string(e.pos().line) + ")";
    }
    return "no error";
  };
  std::string badRule = kCustomJvp;
  badRule.replace(badRule.find("@f_jvp(%x: tensor<3xf64>, %t: tensor<3xf64>)"), 44, "@f_jvp(%x: tensor<3xf64>)");
  badRule.replace(badRule.find("%m = func.call @triple(%t)"), 26, "%m = func.call @triple(%x)");
  std::string error = errorParsing(badRule);
  EXPECT_NE(error.find("@f_jvp takes (tensor<3xf64>), but it must take (tensor<3xf64>, tensor<3xf64>): the primal's "
                       "parameters, then a tangent of each"),
            std::string::npos)
      << error;
  EXPECT_NE(error.find("(line 17)"), std::string::npos) << error;
  std::string badBwd = kCustomVjp;
  badBwd.replace(badBwd.find("bwd = @f_bwd"), 12, "bwd = @f_fwd");
  error = errorParsing(badBwd);
  EXPECT_NE(error.find("@f_fwd takes (tensor<3xf64>), but it must take (tensor<3xf64>, tensor<3xf64>)"), std::string::npos)
      << error;
  std::string missing = kCustomVjp;
  missing.replace(missing.find("fwd = @f_fwd"), 12, "fwd = @nope");
  error = errorParsing(missing);
  EXPECT_NE(error.find("@nope"), std::string::npos) << error;
  error = errorParsing(checkpointProgram("sometimes_saveable"));
  EXPECT_NE(error.find("unknown policy 'sometimes_saveable' (nothing_saveable, dots_saveable, everything_saveable)"),
            std::string::npos)
      << error;
  EXPECT_NE(error.find("(line 3)"), std::string::npos) << error;
}

// ---- stop_gradient ----

// d/dx (x · stop_gradient(x)) is x in both modes (the finite difference would say 2x).
TEST(AdConstructsTest, StopGradientHasAZeroTangent) {
  const char* text = R"(
    func.func @main(%x: tensor<3xf64>) -> tensor<3xf64> {
      %s = "kiln.stop_gradient"(%x) : (tensor<3xf64>) -> tensor<3xf64>
      %p = stablehlo.multiply %x, %s : tensor<3xf64>
      return %p : tensor<3xf64>
    })";
  checkDerivatives(text, {}, 3, Modes::ConsistencyOnly);
  auto m = stablehlo::parseModule(text);
  jvp(*m, *m->lookup("main"), "j");
  Literal x = vec({1.5, -2.0, 0.25}), v = vec({1, 1, 1});
  Literal t = interp::Interpreter(*m).call("j", {x, v})[1].tensor();
  for (int64_t i = 0; i < 3; ++i) EXPECT_EQ(t.floatAt(i), x.floatAt(i));
  // Of the stopped value alone, the gradient is zero.
  auto s = stablehlo::parseModule(R"(
    func.func @main(%x: tensor<f64>) -> tensor<f64> {
      %s = "kiln.stop_gradient"(%x) : (tensor<f64>) -> tensor<f64>
      %e = stablehlo.exponential %s : tensor<f64>
      return %e : tensor<f64>
    })");
  grad(*s, *s->lookup("main"), {}, "g");
  EXPECT_EQ(interp::Interpreter(*s).call("g", {f64(0.7)})[0].tensor().floatAt(0), 0.0);
}

// ---- custom_jvp ----

// The rule, not the primal, decides the tangent in both modes: d/dx exp(f(x)) with f's
// rule saying f' = 3 is 3·exp(sin x), and the vjp transposes the rule.
TEST(AdConstructsTest, CustomJvpRuleIsUsed) {
  checkDerivatives(kCustomJvp, {}, 3, Modes::ConsistencyOnly);
  auto m = stablehlo::parseModule(kCustomJvp);
  Function& j = jvp(*m, *m->lookup("main"), "j");
  Function& v = vjp(*m, *m->lookup("main"), "v");
  ASSERT_NO_THROW(verifyModule(*m));
  EXPECT_EQ(count(j, ops::FuncCall) + count(v, ops::FuncCall), 0);  // the rule's call was inlined
  interp::Interpreter in(*m);
  Literal x = vec({0.5, -1.25, 2.0}), ones = vec({1, 1, 1});
  HostValues tangent = in.call("j", {x, ones});
  HostValues cotangent = in.call("v", {x, ones});
  for (int64_t i = 0; i < 3; ++i) {
    double expected = 3 * std::exp(std::sin(x.floatAt(i)));
    EXPECT_NEAR(tangent[1].tensor().floatAt(i), expected, 1e-14) << i;
    EXPECT_NEAR(cotangent[1].tensor().floatAt(i), expected, 1e-14) << i;
    EXPECT_EQ(tangent[0].tensor().floatAt(i), std::exp(std::sin(x.floatAt(i))));
  }
}

// A custom_jvp whose rule is the true derivative (softplus, rule logistic(x)·t) agrees
// with finite differences; grad of grad differentiates through the rule.
TEST(AdConstructsTest, CustomJvpWithTheTrueRuleMatchesFiniteDifferences) {
  const char* text = R"(
    func.func private @softplus(%x: tensor<4xf64>) -> tensor<4xf64> {
      %e = stablehlo.exponential %x : tensor<4xf64>
      %l = stablehlo.log_plus_one %e : tensor<4xf64>
      return %l : tensor<4xf64>
    }
    func.func private @softplus_jvp(%x: tensor<4xf64>, %t: tensor<4xf64>) -> (tensor<4xf64>, tensor<4xf64>) {
      %y = func.call @softplus(%x) : (tensor<4xf64>) -> tensor<4xf64>
      %s = stablehlo.logistic %x : tensor<4xf64>
      %d = stablehlo.multiply %s, %t : tensor<4xf64>
      return %y, %d : tensor<4xf64>, tensor<4xf64>
    }
    func.func @main(%x: tensor<4xf64>, %w: tensor<4xf64>) -> tensor<4xf64> {
      %p = stablehlo.multiply %x, %w : tensor<4xf64>
      %y = "kiln.custom_jvp"(%p) {primal = @softplus, jvp = @softplus_jvp} : (tensor<4xf64>) -> tensor<4xf64>
      %q = stablehlo.multiply %y, %w : tensor<4xf64>
      return %q : tensor<4xf64>
    })";
  checkDerivatives(text);
  auto m = stablehlo::parseModule(R"(
    func.func private @square(%x: tensor<f64>) -> tensor<f64> {
      %y = stablehlo.multiply %x, %x : tensor<f64>
      return %y : tensor<f64>
    }
    func.func private @square_jvp(%x: tensor<f64>, %t: tensor<f64>) -> (tensor<f64>, tensor<f64>) {
      %y = stablehlo.multiply %x, %x : tensor<f64>
      %c = stablehlo.constant dense<5.0> : tensor<f64>
      %k = stablehlo.multiply %c, %x : tensor<f64>
      %d = stablehlo.multiply %k, %t : tensor<f64>
      return %y, %d : tensor<f64>, tensor<f64>
    }
    func.func @main(%x: tensor<f64>) -> tensor<f64> {
      %y = "kiln.custom_jvp"(%x) {primal = @square, jvp = @square_jvp} : (tensor<f64>) -> tensor<f64>
      return %y : tensor<f64>
    })");
  // The rule says d/dx x² = 5x: grad is 5x and grad of grad 5.
  Function& g = grad(*m, *m->lookup("main"), {}, "g");
  Function& h = grad(*m, g, {}, "h");
  interp::Interpreter in(*m);
  EXPECT_EQ(in.call(g.name(), {f64(1.5)})[0].tensor().floatAt(0), 7.5);
  EXPECT_EQ(in.call(h.name(), {f64(1.5)})[0].tensor().floatAt(0), 5.0);
}

// vmap keeps the rule: the batched op calls batched rule functions, so jvp of the
// vmapped program still says 3; and the batched program equals a loop over the batch.
TEST(AdConstructsTest, VmapOfCustomJvpKeepsTheRule) {
  auto m = stablehlo::parseModule(kCustomJvp);
  Function& b = vmap(*m, *m->lookup("main"), {{0}, {0}, 2}, "b");
  Function& j = jvp(*m, b, "bj");
  ASSERT_NO_THROW(verifyModule(*m));
  EXPECT_EQ(count(b, ops::CustomJvp), 1);
  interp::Interpreter in(*m);
  Literal xs(Type::tensor(DType::F64, {2, 3}));
  Literal ones(Type::tensor(DType::F64, {2, 3}));
  for (int64_t i = 0; i < 6; ++i) {
    xs.setFloat(i, 0.3 * static_cast<double>(i) - 0.8);
    ones.setFloat(i, 1);
  }
  HostValues out = in.call(j.name(), {xs, ones});
  for (int64_t r = 0; r < 2; ++r) {
    Literal row = test_util::sliceAt(xs, 0, r);
    test_util::expectSameBits(test_util::sliceAt(out[0].tensor(), 0, r), in.call("main", {row})[0].tensor(), "row");
    for (int64_t i = 0; i < 3; ++i)
      EXPECT_NEAR(out[1].tensor().floatAt(r * 3 + i), 3 * std::exp(std::sin(row.floatAt(i))), 1e-14);
  }
}

// ---- custom_vjp ----

// grad runs fwd in the forward phase (bwd reads its residual cos x) and bwd in the
// backward one: the gradient is bwd's 2·cos(x)·u, not cos(x)·u.
TEST(AdConstructsTest, CustomVjpRulesAreUsed) {
  auto m = stablehlo::parseModule(kCustomVjp);
  Function& v = vjp(*m, *m->lookup("main"), "v");
  ASSERT_NO_THROW(verifyModule(*m));
  EXPECT_EQ(count(v, ops::CustomLin) + count(v, ops::CustomVjp), 0);
  Literal x = vec({0.5, -1.25, 2.0}), u = vec({1.0, -0.5, 0.25});
  HostValues out = interp::Interpreter(*m).call("v", {x, u});
  for (int64_t i = 0; i < 3; ++i) {
    EXPECT_EQ(out[0].tensor().floatAt(i), std::sin(x.floatAt(i)));
    EXPECT_EQ(out[1].tensor().floatAt(i), u.floatAt(i) * std::cos(x.floatAt(i)) * 2);
  }
  // Forward mode has no derivative of a custom_vjp, as in JAX.
  EXPECT_EQ(errorOf([&] { jvp(*m, *m->lookup("main"), "j"); }),
            "unsupported: unsupported: jvp of kiln.custom_vjp (a custom_vjp function has no forward-mode derivative, "
            "as in JAX; give it a custom_jvp rule, line 18)");
  // Nor does the interpreter run its linearization.
  auto lin = stablehlo::parseModule(std::string(kCustomVjp) + R"(
func.func @lin(%c: tensor<3xf64>, %t: tensor<3xf64>) -> tensor<3xf64> {
  %y = "kiln.custom_lin"(%c, %t) {bwd = @f_bwd, num_residuals = 1 : i64} : (tensor<3xf64>, tensor<3xf64>) -> tensor<3xf64>
  return %y : tensor<3xf64>
}
)");
  ASSERT_NO_THROW(verifyModule(*lin));
  EXPECT_NE(errorOf([&] { interp::Interpreter(*lin).call("lin", {x, u}); }).find("unsupported: kiln.custom_lin"),
            std::string::npos);
}

// A custom_vjp whose bwd is the true derivative (of x·y, residuals x and y) agrees with
// finite differences: <u, (f(x+hv) - f(x-hv)) / 2h> = <vjp(u), v>; inside a counted loop
// and under vmap (per-example gradients) too.
TEST(AdConstructsTest, CustomVjpWithTheTrueRuleMatchesFiniteDifferences) {
  const char* text = R"(
    func.func private @mul(%x: tensor<3xf64>, %y: tensor<3xf64>) -> tensor<3xf64> {
      %p = stablehlo.multiply %x, %y : tensor<3xf64>
      return %p : tensor<3xf64>
    }
    func.func private @mul_fwd(%x: tensor<3xf64>, %y: tensor<3xf64>) -> (tensor<3xf64>, tensor<3xf64>, tensor<3xf64>) {
      %p = stablehlo.multiply %x, %y : tensor<3xf64>
      return %p, %x, %y : tensor<3xf64>, tensor<3xf64>, tensor<3xf64>
    }
    func.func private @mul_bwd(%x: tensor<3xf64>, %y: tensor<3xf64>, %g: tensor<3xf64>) -> (tensor<3xf64>, tensor<3xf64>) {
      %gx = stablehlo.multiply %g, %y : tensor<3xf64>
      %gy = stablehlo.multiply %g, %x : tensor<3xf64>
      return %gx, %gy : tensor<3xf64>, tensor<3xf64>
    }
    func.func @main(%x: tensor<3xf64>, %y: tensor<3xf64>) -> tensor<3xf64> {
      %s = stablehlo.sine %x : tensor<3xf64>
      %zero = stablehlo.constant dense<0> : tensor<i64>
      %r:3 = stablehlo.while(%i = %zero, %a = %s, %b = %y) : tensor<i64>, tensor<3xf64>, tensor<3xf64>
      cond {
        %n = stablehlo.constant dense<3> : tensor<i64>
        %c = stablehlo.compare LT, %i, %n : (tensor<i64>, tensor<i64>) -> tensor<i1>
        stablehlo.return %c : tensor<i1>
      } do {
        %one = stablehlo.constant dense<1> : tensor<i64>
        %j = stablehlo.add %i, %one : tensor<i64>
        %p = "kiln.custom_vjp"(%a, %b) {primal = @mul, fwd = @mul_fwd, bwd = @mul_bwd} : (tensor<3xf64>, tensor<3xf64>) -> tensor<3xf64>
        stablehlo.return %j, %p, %b : tensor<i64>, tensor<3xf64>, tensor<3xf64>
      }
      return %r#1 : tensor<3xf64>
    })";
  auto m = stablehlo::parseModule(text);
  Function& f = *m->lookup("main");
  Function& v = vjp(*m, f, "v");
  ASSERT_NO_THROW(verifyModule(*m));
  interp::Interpreter in(*m);
  std::mt19937_64 rng(5);
  for (int point = 0; point < 3; ++point) {
    HostValues x, dir;
    for (int k = 0; k < 2; ++k) x.push_back(randomLiteral(f.param(0)->type(), rng, {-1, 1}));
    for (int k = 0; k < 2; ++k) dir.push_back(randomLiteral(f.param(0)->type(), rng, {-1, 1}));
    Literal u = randomLiteral(f.resultTypes()[0], rng, {-1, 1});
    const double h = 1e-5;
    HostValues plus = test_util::shifted(in, "main", x, dir, h), minus = test_util::shifted(in, "main", x, dir, -h);
    double fd = 0;
    for (int64_t i = 0; i < 3; ++i) fd += u.floatAt(i) * (plus[0].tensor().floatAt(i) - minus[0].tensor().floatAt(i)) / (2 * h);
    HostValues args = x;
    args.push_back(u);
    HostValues g = in.call(v.name(), args);
    double reverse = test_util::dotProduct(g, dir, 1, 0, 2);
    EXPECT_NEAR(reverse, fd, 1e-8 * (1 + std::abs(fd)));
  }
}

// Per-example gradients through a custom_vjp: vmap of grad batches the op with batched
// fwd and bwd, and grad of the vmapped program uses them too.
TEST(AdConstructsTest, VmapOfCustomVjpKeepsTheRules) {
  auto m = stablehlo::parseModule(std::string(kCustomVjp) + R"(
func.func @loss(%x: tensor<3xf64>) -> tensor<f64> {
  %y = "kiln.custom_vjp"(%x) {primal = @f, fwd = @f_fwd, bwd = @f_bwd} : (tensor<3xf64>) -> tensor<3xf64>
  %zero = stablehlo.constant dense<0.0> : tensor<f64>
  %l = stablehlo.reduce(%y init: %zero) applies stablehlo.add across dimensions = [0] : (tensor<3xf64>, tensor<f64>) -> tensor<f64>
  return %l : tensor<f64>
}
)");
  Function& g = grad(*m, *m->lookup("loss"), {}, "g");
  Function& perExample = vmap(*m, g, {{0}, {0}, 2}, "pe");
  Function& batchedLoss = vmap(*m, *m->lookup("loss"), {{0}, {0}, 2}, "bl");
  EXPECT_EQ(count(batchedLoss, ops::CustomVjp), 1);
  // The summed batched loss, differentiated after vmap.
  auto& sum = *buildFunction(*m, "sum", {Type::tensor(DType::F64, {2, 3})}, [&](Builder& b, const std::vector<Value*>& a) {
    Value* l = b.call(batchedLoss, a)[0];
    Value* zero = b.splat(Type::scalar(DType::F64), 0);
    return b.reduce({l}, {zero}, {0}, [](Builder& r, const std::vector<Value*>& v) {
      return std::vector<Value*>{r.binary(ops::Add, v[0], v[1])};
    });
  });
  Function& gs = grad(*m, sum, {}, "gs");
  ASSERT_NO_THROW(verifyModule(*m));
  interp::Interpreter in(*m);
  Literal xs(Type::tensor(DType::F64, {2, 3}));
  for (int64_t i = 0; i < 6; ++i) xs.setFloat(i, 0.4 * static_cast<double>(i) - 1.1);
  Literal a = in.call(perExample.name(), {xs})[0].tensor();
  Literal c = in.call(gs.name(), {xs})[0].tensor();
  for (int64_t i = 0; i < 6; ++i) {
    EXPECT_EQ(a.floatAt(i), 2 * std::cos(xs.floatAt(i))) << i;
    EXPECT_EQ(c.floatAt(i), 2 * std::cos(xs.floatAt(i))) << i;
  }
}

// ---- checkpoint ----

// Every policy gives the gradient of the plain program, bit for bit, and passes the
// derivative checks; the less a policy saves, the more the cleaned-up gradient program
// recomputes (CSE cannot merge the recomputation back: it starts from barriers).
TEST(AdConstructsTest, CheckpointRecomputesWhatItsPolicyDoesNotSave) {
  auto plain = plainLoss();
  GradOptions o;
  o.wrt = {0, 1};
  o.withValue = true;  // so that the forward computation stays beside the recomputation
  grad(*plain, *plain->lookup("main"), o, "g");
  cleanUp(*plain);
  std::mt19937_64 rng(11);
  HostValues args = {randomLiteral(Type::tensor(DType::F64, {4, 3}), rng, {-1, 1}),
                     randomLiteral(Type::tensor(DType::F64, {3, 5}), rng, {-1, 1})};
  HostValues expected = interp::Interpreter(*plain).call("g", args);
  const int plainTanh = count(*plain->lookup("g"), ops::Tanh), plainDots = count(*plain->lookup("g"), ops::DotGeneral);
  std::map<std::string, std::pair<int, int>> counts;
  for (const char* policy : {"everything_saveable", "dots_saveable", "nothing_saveable"}) {
    SCOPED_TRACE(policy);
    checkDerivatives(checkpointProgram(policy));
    auto m = stablehlo::parseModule(checkpointProgram(policy));
    grad(*m, *m->lookup("main"), o, "g");
    ASSERT_NO_THROW(verifyModule(*m));
    cleanUp(*m);
    HostValues got = interp::Interpreter(*m).call("g", args);
    for (size_t r = 0; r < 3; ++r) EXPECT_EQ(got[r].tensor(), expected[r].tensor()) << r;
    counts[policy] = {count(*m->lookup("g"), ops::Tanh), count(*m->lookup("g"), ops::DotGeneral)};
  }
  // Saving everything is the plain gradient program; saving dots recomputes tanh in the
  // backward pass; saving nothing recomputes the dot too.
  EXPECT_EQ(counts["everything_saveable"], std::make_pair(plainTanh, plainDots));
  EXPECT_EQ(counts["dots_saveable"], std::make_pair(plainTanh + 1, plainDots));
  EXPECT_EQ(counts["nothing_saveable"], std::make_pair(plainTanh + 1, plainDots + 1));
}

// A checkpoint in a loop body, and one that returns an operand and an integer: the
// modes agree with finite differences and with each other.
TEST(AdConstructsTest, CheckpointInsideALoop) {
  checkDerivatives(R"(
    func.func @main(%x: tensor<3xf64>, %w: tensor<3xf64>) -> tensor<3xf64> {
      %zero = stablehlo.constant dense<0> : tensor<i64>
      %r:2 = stablehlo.while(%i = %zero, %a = %x) : tensor<i64>, tensor<3xf64>
      cond {
        %n = stablehlo.constant dense<3> : tensor<i64>
        %c = stablehlo.compare LT, %i, %n : (tensor<i64>, tensor<i64>) -> tensor<i1>
        stablehlo.return %c : tensor<i1>
      } do {
        %k:3 = "kiln.checkpoint"(%i, %a, %w) ({
        ^bb0(%j: tensor<i64>, %b: tensor<3xf64>, %v: tensor<3xf64>):
          %p = stablehlo.multiply %b, %v : tensor<3xf64>
          %s = stablehlo.sine %p : tensor<3xf64>
          %twice = stablehlo.add %j, %j : tensor<i64>
          stablehlo.return %twice, %s, %v : tensor<i64>, tensor<3xf64>, tensor<3xf64>
        }) {policy = "nothing_saveable"} : (tensor<i64>, tensor<3xf64>, tensor<3xf64>) -> (tensor<i64>, tensor<3xf64>, tensor<3xf64>)
        %t = stablehlo.add %k#1, %k#2 : tensor<3xf64>
        %one = stablehlo.constant dense<1> : tensor<i64>
        %next = stablehlo.add %i, %one : tensor<i64>
        stablehlo.return %next, %t : tensor<i64>, tensor<3xf64>
      }
      return %r#1 : tensor<3xf64>
    })");
}

// vmap of a checkpoint is the checkpoint of the batched region: equal to a loop over the
// batch, bit for bit, with the batched operand and a shared one.
TEST(AdConstructsTest, VmapOfCheckpoint) {
  auto m = stablehlo::parseModule(checkpointProgram("dots_saveable"));
  Function& b = vmap(*m, *m->lookup("main"), {{0, std::nullopt}, {0}, 3}, "b");
  ASSERT_NO_THROW(verifyModule(*m));
  EXPECT_EQ(count(b, ops::Checkpoint), 1);
  std::mt19937_64 rng(2);
  Literal xs = randomLiteral(Type::tensor(DType::F64, {3, 4, 3}), rng, {-1, 1});
  Literal w = randomLiteral(Type::tensor(DType::F64, {3, 5}), rng, {-1, 1});
  interp::Interpreter in(*m);
  Literal out = in.call("b", {xs, w})[0].tensor();
  for (int64_t r = 0; r < 3; ++r)
    test_util::expectSameBits(test_util::sliceAt(out, 0, r), in.call("main", {test_util::sliceAt(xs, 0, r), w})[0].tensor(),
                              "slice " + std::to_string(r));
}

// ---- has_aux ----

// grad with auxiliary outputs: the gradients of the loss alone, then the auxiliary
// outputs as the function computes them (a float and an integer one); value first
// with withValue.
TEST(AdConstructsTest, GradWithAuxiliaryOutputs) {
  const char* text = R"(
    func.func @main(%x: tensor<3xf64>, %n: tensor<3xi32>) -> (tensor<f64>, tensor<3xf64>, tensor<3xi32>) {
      %s = stablehlo.sine %x : tensor<3xf64>
      %q = stablehlo.multiply %s, %s : tensor<3xf64>
      %zero = stablehlo.constant dense<0.0> : tensor<f64>
      %l = stablehlo.reduce(%q init: %zero) applies stablehlo.add across dimensions = [0] : (tensor<3xf64>, tensor<f64>) -> tensor<f64>
      %e = stablehlo.exponential %x : tensor<3xf64>
      %m = stablehlo.add %n, %n : tensor<3xi32>
      return %l, %e, %m : tensor<f64>, tensor<3xf64>, tensor<3xi32>
    })";
  auto m = stablehlo::parseModule(text);
  GradOptions o;
  o.hasAux = true;
  o.withValue = true;
  grad(*m, *m->lookup("main"), o, "g");
  ASSERT_NO_THROW(verifyModule(*m));
  // Nothing differentiates the auxiliary exp: its only exponential is the forward one.
  cleanUp(*m);
  EXPECT_EQ(count(*m->lookup("g"), ops::Exponential), 1);
  Literal x = vec({0.5, -1.25, 2.0});
  Literal n(Type::tensor(DType::I32, {3}));
  for (int64_t i = 0; i < 3; ++i) n.setInt(i, i - 1);
  interp::Interpreter in(*m);
  HostValues f = in.call("main", {x, n});
  HostValues out = in.call("g", {x, n});
  ASSERT_EQ(out.size(), 4u);  // value, gradient w.r.t. x, the two auxiliary outputs
  EXPECT_EQ(out[0].tensor(), f[0].tensor());
  for (int64_t i = 0; i < 3; ++i)
    EXPECT_NEAR(out[1].tensor().floatAt(i), 2 * std::sin(x.floatAt(i)) * std::cos(x.floatAt(i)), 1e-15);
  EXPECT_EQ(out[2].tensor(), f[1].tensor());
  EXPECT_EQ(out[3].tensor(), f[2].tensor());
  // Errors: no auxiliary output to return, or auxiliary outputs without has_aux.
  auto one = stablehlo::parseModule(R"(
    func.func @main(%x: tensor<f64>) -> tensor<f64> {
      return %x : tensor<f64>
    })");
  EXPECT_EQ(errorOf([&] { grad(*one, *one->lookup("main"), o, "g"); }),
            "usage: grad of @main with auxiliary outputs: the function must return a floating-point scalar (the "
            "loss), then the auxiliary outputs, not (tensor<f64>)");
  auto again = stablehlo::parseModule(text);
  EXPECT_EQ(errorOf([&] { grad(*again, *again->lookup("main"), {}, "g"); }),
            "usage: grad of @main: the function must return one floating-point scalar, not (tensor<f64>, "
            "tensor<3xf64>, tensor<3xi32>) (with auxiliary outputs after the loss, use has_aux: --has-aux)");
}

}  // namespace
}  // namespace kiln::transforms
