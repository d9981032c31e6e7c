// The clean-up passes: inlining, CSE, DCE and constant folding. Each test checks what the
// pass must change and what it must leave alone; where the program can run, the result
// also verifies and computes the same bits as the input.
#include <gtest/gtest.h>

#include "ir/ops/stablehlo.h"
#include "ir/ops/testing.h"
#include "passes/pass_test_util.h"

namespace kiln::passes {
namespace {

using test_util::count;
using test_util::numOps;
using test_util::returned;
using test_util::opsOf;
using test_util::runAndCompare;

std::unique_ptr<Module> runPasses(const std::string& text, const std::vector<std::string>& names,
                                  PassContext& ctx) {
  auto m = stablehlo::parseModule(text);
  for (const std::string& name : names) createPass(name)->run(*m, ctx);
  EXPECT_NO_THROW(verifyModule(*m)) << stablehlo::printModule(*m);
  return m;
}

std::unique_ptr<Module> runPasses(const std::string& text, const std::vector<std::string>& names) {
  PassContext ctx;
  return runPasses(text, names, ctx);
}


// ---- inline ---------------------------------------------------------------------------

TEST(InlineTest, CallsAreReplacedByTheCalleeBody) {
  auto m = runAndCompare(R"(
    func.func private @sq(%a: tensor<4xf32>) -> tensor<4xf32> {
      %m = stablehlo.multiply %a, %a : tensor<4xf32>
      %n = stablehlo.negate %m : tensor<4xf32>
      return %n : tensor<4xf32>
    }
    func.func @main(%x: tensor<4xf32>, %y: tensor<4xf32>) -> tensor<4xf32> {
      %p = func.call @sq(%x) : (tensor<4xf32>) -> tensor<4xf32>
      %q = func.call @sq(%y) : (tensor<4xf32>) -> tensor<4xf32>
      %r = stablehlo.add %p, %q : tensor<4xf32>
      return %r : tensor<4xf32>
    })",
                         {"inline"});
  EXPECT_EQ(count(*m, ops::FuncCall), 0);
  EXPECT_EQ(m->lookup("sq"), nullptr) << "a private function nobody calls any more is removed";
  EXPECT_EQ(count(*m, ops::Multiply), 2) << "one copy of the body per call";
  EXPECT_EQ(count(*m, ops::Negate), 2);
  // The copies read the call's operands.
  std::vector<Op*> muls = opsOf(*m, ops::Multiply);
  ASSERT_EQ(muls.size(), 2u);
  EXPECT_EQ(muls[0]->operand(0), m->lookup("main")->param(0));
  EXPECT_EQ(muls[1]->operand(0), m->lookup("main")->param(1));
}

TEST(InlineTest, CalleeReturningItsParameter) {
  auto m = runAndCompare(R"(
    func.func private @id(%a: tensor<4xi32>, %b: tensor<4xi32>) -> (tensor<4xi32>, tensor<4xi32>) {
      return %b, %a : tensor<4xi32>, tensor<4xi32>
    }
    func.func @main(%x: tensor<4xi32>, %y: tensor<4xi32>) -> tensor<4xi32> {
      %p:2 = func.call @id(%x, %y) : (tensor<4xi32>, tensor<4xi32>) -> (tensor<4xi32>, tensor<4xi32>)
      %r = stablehlo.subtract %p#0, %p#1 : tensor<4xi32>
      return %r : tensor<4xi32>
    })",
                         {"inline"});
  EXPECT_EQ(count(*m, ops::FuncCall), 0);
  const Op* sub = returned(*m)->definingOp();
  EXPECT_EQ(sub->operand(0), m->lookup("main")->param(1));
  EXPECT_EQ(sub->operand(1), m->lookup("main")->param(0));
}

TEST(InlineTest, NestedCallsAreInlinedCompletely) {
  auto m = runAndCompare(R"(
    func.func private @inner(%a: tensor<4xf32>) -> tensor<4xf32> {
      %e = stablehlo.abs %a : tensor<4xf32>
      return %e : tensor<4xf32>
    }
    func.func private @middle(%a: tensor<4xf32>) -> tensor<4xf32> {
      %b = func.call @inner(%a) : (tensor<4xf32>) -> tensor<4xf32>
      %c = stablehlo.negate %b : tensor<4xf32>
      %d = func.call @inner(%c) : (tensor<4xf32>) -> tensor<4xf32>
      return %d : tensor<4xf32>
    }
    func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
      %r = func.call @middle(%x) : (tensor<4xf32>) -> tensor<4xf32>
      %s = stablehlo.while(%v = %r) : tensor<4xf32>
        cond {
          %t = stablehlo.constant dense<false> : tensor<i1>
          stablehlo.return %t : tensor<i1>
        } do {
          %w = func.call @middle(%v) : (tensor<4xf32>) -> tensor<4xf32>
          stablehlo.return %w : tensor<4xf32>
        }
      return %s : tensor<4xf32>
    })",
                         {"inline"});
  EXPECT_EQ(count(*m, ops::FuncCall), 0) << "calls inside inlined bodies and inside loops are inlined too";
  EXPECT_EQ(m->functions().size(), 1u);
  EXPECT_EQ(count(*m, ops::Abs), 4);
  EXPECT_EQ(count(*m, ops::Negate), 2);
}

TEST(InlineTest, RecursiveCallsStay) {
  // @even and @odd call each other; @self calls itself. None can be inlined away; @leaf
  // can, even when a recursive function calls it.
  auto m = runPasses(R"(
    func.func private @leaf(%a: tensor<i32>) -> tensor<i32> {
      %n = stablehlo.negate %a : tensor<i32>
      return %n : tensor<i32>
    }
    func.func private @even(%a: tensor<i32>) -> tensor<i32> {
      %b = func.call @odd(%a) : (tensor<i32>) -> tensor<i32>
      %c = func.call @leaf(%b) : (tensor<i32>) -> tensor<i32>
      return %c : tensor<i32>
    }
    func.func private @odd(%a: tensor<i32>) -> tensor<i32> {
      %b = func.call @even(%a) : (tensor<i32>) -> tensor<i32>
      return %b : tensor<i32>
    }
    func.func private @self(%a: tensor<i32>) -> tensor<i32> {
      %b = func.call @self(%a) : (tensor<i32>) -> tensor<i32>
      return %b : tensor<i32>
    }
    func.func @main(%x: tensor<i32>) -> (tensor<i32>, tensor<i32>) {
      %r = func.call @even(%x) : (tensor<i32>) -> tensor<i32>
      %s = func.call @self(%x) : (tensor<i32>) -> tensor<i32>
      return %r, %s : tensor<i32>, tensor<i32>
    })",
                     {"inline"});
  EXPECT_NE(m->lookup("even"), nullptr);
  EXPECT_NE(m->lookup("odd"), nullptr);
  EXPECT_NE(m->lookup("self"), nullptr);
  EXPECT_EQ(m->lookup("leaf"), nullptr) << "@leaf is not recursive: inlined into @even, then unreferenced";
  // main: its two calls; even: its call of odd; odd: its call of even; self: its own.
  EXPECT_EQ(count(*m, ops::FuncCall), 5);
  int mainCalls = 0;
  walk(m->lookup("main")->body(), [&](Op& op) { mainCalls += op.is(ops::FuncCall); });
  EXPECT_EQ(mainCalls, 2);
  EXPECT_EQ(count(*m, ops::Negate), 1);
}

TEST(InlineTest, FunctionVisibilityAndSymbolReferences) {
  auto m = runAndCompare(R"(
    func.func @public_helper(%a: tensor<i64>) -> tensor<i64> {
      %n = stablehlo.negate %a : tensor<i64>
      return %n : tensor<i64>
    }
    func.func private @unused(%a: tensor<i64>) -> tensor<i64> {
      return %a : tensor<i64>
    }
    func.func private @impl(%a: tensor<i64>) -> tensor<i64> {
      %m = stablehlo.multiply %a, %a : tensor<i64>
      return %m : tensor<i64>
    }
    func.func @main(%x: tensor<i64>) -> tensor<i64> {
      %p = func.call @public_helper(%x) : (tensor<i64>) -> tensor<i64>
      %c = "stablehlo.composite"(%p) {name = "my.square", decomposition = @impl} : (tensor<i64>) -> tensor<i64>
      return %c : tensor<i64>
    })",
                         {"inline"});
  EXPECT_EQ(count(*m, ops::FuncCall), 0);
  EXPECT_NE(m->lookup("public_helper"), nullptr) << "public functions are entry points: kept";
  EXPECT_EQ(m->lookup("unused"), nullptr) << "an unreferenced private function goes";
  EXPECT_NE(m->lookup("impl"), nullptr) << "the composite's decomposition names it";
  EXPECT_EQ(count(*m, ops::Composite), 1);
}

TEST(InlineTest, PrivateFunctionsOnlyUnreachableCodeRefersToAreRemoved) {
  // @x is named only by @y, which nobody names; @r only calls itself. None of them can
  // run, so none should stay; @kept is reached from @main through a composite.
  auto m = runAndCompare(R"(
    func.func private @x(%a: tensor<i64>) -> tensor<i64> {
      return %a : tensor<i64>
    }
    func.func private @y(%a: tensor<i64>) -> tensor<i64> {
      %0 = "stablehlo.composite"(%a) {name = "my.id", decomposition = @x} : (tensor<i64>) -> tensor<i64>
      return %0 : tensor<i64>
    }
    func.func private @r(%a: tensor<i64>) -> tensor<i64> {
      %0 = func.call @r(%a) : (tensor<i64>) -> tensor<i64>
      return %0 : tensor<i64>
    }
    func.func private @inner(%a: tensor<i64>) -> tensor<i64> {
      %n = stablehlo.negate %a : tensor<i64>
      return %n : tensor<i64>
    }
    func.func private @kept(%a: tensor<i64>) -> tensor<i64> {
      %0 = "stablehlo.composite"(%a) {name = "my.neg", decomposition = @inner} : (tensor<i64>) -> tensor<i64>
      return %0 : tensor<i64>
    }
    func.func @main(%a: tensor<i64>) -> tensor<i64> {
      %0 = "stablehlo.composite"(%a) {name = "my.wrap", decomposition = @kept} : (tensor<i64>) -> tensor<i64>
      return %0 : tensor<i64>
    })",
                         {"inline"});
  EXPECT_EQ(m->lookup("x"), nullptr);
  EXPECT_EQ(m->lookup("y"), nullptr);
  EXPECT_EQ(m->lookup("r"), nullptr);
  EXPECT_NE(m->lookup("kept"), nullptr);
  EXPECT_NE(m->lookup("inner"), nullptr) << "reached from @main through @kept";
  EXPECT_EQ(m->functions().size(), 3u);
}

TEST(InlineTest, InlinedOpsGetCallSiteLocations) {
  auto m = runPasses(R"(
    func.func private @f(%a: tensor<4xf32>) -> tensor<4xf32> {
      %m = stablehlo.multiply %a, %a : tensor<4xf32> loc("lib.py":10:3)
      %n = stablehlo.negate %m : tensor<4xf32>
      return %n : tensor<4xf32>
    }
    func.func @main(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
      %p = func.call @f(%x) : (tensor<4xf32>) -> tensor<4xf32> loc("model.py":3:5)
      %q = func.call @f(%x) : (tensor<4xf32>) -> tensor<4xf32> loc("model.py":4:5)
      return %p, %q : tensor<4xf32>, tensor<4xf32>
    })",
                     {"inline"});
  std::vector<Op*> muls = opsOf(*m, ops::Multiply);
  std::vector<Op*> negs = opsOf(*m, ops::Negate);
  ASSERT_EQ(muls.size(), 2u);
  ASSERT_EQ(negs.size(), 2u);
  Location callee = Location::file("lib.py", 10, 3);
  EXPECT_EQ(muls[0]->loc, Location::callSite(callee, Location::file("model.py", 3, 5))) << muls[0]->loc.str();
  EXPECT_EQ(muls[1]->loc, Location::callSite(callee, Location::file("model.py", 4, 5))) << muls[1]->loc.str();
  // An op without a location of its own takes the call's.
  EXPECT_EQ(negs[0]->loc, Location::file("model.py", 3, 5)) << negs[0]->loc.str();
  EXPECT_EQ(muls[0]->loc.fileLocation(), callee);
}

// ---- CSE ------------------------------------------------------------------------------

TEST(CseTest, DuplicatesAreMerged) {
  auto m = runAndCompare(R"(
    func.func @main(%x: tensor<4xf32>, %y: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
      %a = stablehlo.add %x, %y : tensor<4xf32> loc("m.py":1:1)
      %b = stablehlo.add %x, %y : tensor<4xf32> loc("m.py":2:1)
      %c = stablehlo.exponential %a : tensor<4xf32>
      %d = stablehlo.exponential %b : tensor<4xf32>
      %e = stablehlo.add %y, %x : tensor<4xf32>
      %f = stablehlo.constant dense<2.0> : tensor<4xf32>
      %g = stablehlo.constant dense<2.0> : tensor<4xf32>
      %h = stablehlo.constant dense<3.0> : tensor<4xf32>
      %i = stablehlo.multiply %c, %f : tensor<4xf32>
      %j = stablehlo.multiply %d, %g : tensor<4xf32>
      %k = stablehlo.multiply %d, %h : tensor<4xf32>
      %l = stablehlo.add %i, %e : tensor<4xf32>
      %n = stablehlo.add %j, %k : tensor<4xf32>
      %o = stablehlo.subtract %x, %y : tensor<4xf32>
      %p = stablehlo.subtract %y, %x : tensor<4xf32>
      %q = stablehlo.add %n, %o : tensor<4xf32>
      %r = stablehlo.add %q, %p : tensor<4xf32>
      return %l, %r : tensor<4xf32>, tensor<4xf32>
    })",
                         {"cse"});
  // a = b = e (add takes its operands as a set), c = d, f = g, i = j; h (another value)
  // and p (subtract's operands swapped: another value) stay.
  EXPECT_EQ(count(*m, ops::Exponential), 1);
  EXPECT_EQ(count(*m, ops::Constant), 2);
  EXPECT_EQ(count(*m, ops::Multiply), 2);
  EXPECT_EQ(count(*m, ops::Add), 5);
  EXPECT_EQ(count(*m, ops::Subtract), 2);
  // The survivor stands for both: its location names both lines.
  const Op* exp = opsOf(*m, ops::Exponential).front();
  const Op* add = exp->operand(0)->definingOp();
  EXPECT_EQ(add->loc, mergeLocations({Location::file("m.py", 1, 1), Location::file("m.py", 2, 1)}));
  const Op* l = returned(*m, 0)->definingOp();
  EXPECT_EQ(l->operand(1)->definingOp(), add) << "e became a";
  const Op* n = returned(*m, 1)->definingOp()->operand(0)->definingOp()->operand(0)->definingOp();
  EXPECT_EQ(n->operand(0)->definingOp(), l->operand(0)->definingOp());
}

TEST(CseTest, SideEffectingOpsAreNeverMerged) {
  auto m = runPasses(R"(
    func.func @main(%x: tensor<4xf32>, %s: tensor<2xui64>) -> (tensor<4xf32>, tensor<4xf32>, tensor<2x2xui64>, tensor<2x2xui64>, tensor<4xf32>, tensor<4xf32>) {
      check.expect_eq_const %x, dense<1.0> : tensor<4xf32>
      check.expect_eq_const %x, dense<1.0> : tensor<4xf32>
      %a = stablehlo.custom_call @effect(%x) {has_side_effect = true} : (tensor<4xf32>) -> tensor<4xf32>
      %b = stablehlo.custom_call @effect(%x) {has_side_effect = true} : (tensor<4xf32>) -> tensor<4xf32>
      %s1, %r1 = stablehlo.rng_bit_generator %s, algorithm = THREE_FRY : (tensor<2xui64>) -> (tensor<2xui64>, tensor<2x2xui64>)
      %s2, %r2 = stablehlo.rng_bit_generator %s, algorithm = THREE_FRY : (tensor<2xui64>) -> (tensor<2xui64>, tensor<2x2xui64>)
      %c = stablehlo.custom_call @opaque(%x) : (tensor<4xf32>) -> tensor<4xf32>
      %d = stablehlo.custom_call @opaque(%x) : (tensor<4xf32>) -> tensor<4xf32>
      return %a, %b, %r1, %r2, %c, %d : tensor<4xf32>, tensor<4xf32>, tensor<2x2xui64>, tensor<2x2xui64>, tensor<4xf32>, tensor<4xf32>
    })",
                     {"cse"});
  EXPECT_EQ(count(*m, ops::CheckExpectEqConst), 2);
  EXPECT_EQ(count(*m, ops::CustomCall), 4) << "custom calls are opaque, with or without has_side_effect";
  EXPECT_EQ(count(*m, ops::RngBitGenerator), 2);
  for (size_t i = 0; i < 6; i += 2) EXPECT_NE(returned(*m, i), returned(*m, i + 1)) << "result " << i;
}

TEST(CseTest, LapackCallsArePureUnlessMarkedSoTheyMergeAndDie) {
  // Two identical Cholesky calls become one; an unused QR goes; one marked
  // has_side_effect stays, as does an unknown target (opaque).
  auto m = runPasses(R"(
    func.func @main(%x: tensor<3x3xf32>) -> (tensor<3x3xf32>, tensor<3x3xf32>) {
      %a:2 = stablehlo.custom_call @lapack_spotrf_ffi(%x) {mhlo.backend_config = {uplo = 76 : ui8}} : (tensor<3x3xf32>) -> (tensor<3x3xf32>, tensor<i32>)
      %b:2 = stablehlo.custom_call @lapack_spotrf_ffi(%x) {mhlo.backend_config = {uplo = 76 : ui8}} : (tensor<3x3xf32>) -> (tensor<3x3xf32>, tensor<i32>)
      %q:2 = stablehlo.custom_call @lapack_sgeqrf_ffi(%x) {mhlo.backend_config = {}} : (tensor<3x3xf32>) -> (tensor<3x3xf32>, tensor<3xf32>)
      %e:2 = stablehlo.custom_call @lapack_sgeqrf_ffi(%x) {has_side_effect = true, mhlo.backend_config = {}} : (tensor<3x3xf32>) -> (tensor<3x3xf32>, tensor<3xf32>)
      %o = stablehlo.custom_call @lapack_sgetrf(%x) : (tensor<3x3xf32>) -> tensor<3x3xf32>
      return %a#0, %b#0 : tensor<3x3xf32>, tensor<3x3xf32>
    })",
                     {"cse", "dce"});
  EXPECT_EQ(count(*m, ops::CustomCall), 3) << stablehlo::printModule(*m);
  EXPECT_EQ(returned(*m, 0), returned(*m, 1));
}

TEST(CseTest, LoopBodiesReuseOpsOfTheEnclosingRegion) {
  auto m = runAndCompare(R"(
    func.func @main(%x: tensor<4xi32>) -> (tensor<4xi32>, tensor<4xi32>) {
      %zero = stablehlo.constant dense<0> : tensor<i32>
      %one = stablehlo.constant dense<1> : tensor<i32>
      %three = stablehlo.constant dense<3> : tensor<i32>
      %outer = stablehlo.multiply %x, %x : tensor<4xi32>
      %out:2 = stablehlo.while(%i = %zero, %v = %x) : tensor<i32>, tensor<4xi32>
        cond {
          %c = stablehlo.compare LT, %i, %three : (tensor<i32>, tensor<i32>) -> tensor<i1>
          stablehlo.return %c : tensor<i1>
        } do {
          %inner = stablehlo.multiply %x, %x : tensor<4xi32>
          %w = stablehlo.add %v, %inner : tensor<4xi32>
          %dup = stablehlo.add %v, %inner : tensor<4xi32>
          %w2 = stablehlo.add %w, %dup : tensor<4xi32>
          %j = stablehlo.add %i, %one : tensor<i32>
          stablehlo.return %j, %w2 : tensor<i32>, tensor<4xi32>
        }
      return %out#1, %outer : tensor<4xi32>, tensor<4xi32>
    })",
                         {"cse"});
  EXPECT_EQ(count(*m, ops::Multiply), 1) << "the body's x * x is the one computed before the loop";
  const Op* loop = opsOf(*m, ops::While).front();
  const Op* outer = returned(*m, 1)->definingOp();
  bool readsOuter = false;
  walk(loop->region(1), [&](Op& op) {
    for (const Value* v : op.operands()) readsOuter = readsOuter || (!v->isArgument() && v->definingOp() == outer);
  });
  EXPECT_TRUE(readsOuter);
  int bodyAdds = 0;
  walk(loop->region(1), [&](Op& op) { bodyAdds += op.is(ops::Add); });
  EXPECT_EQ(bodyAdds, 3) << "the duplicate add in the body is merged too";
}

TEST(CseTest, BranchesDoNotShareWhatTheyDefine) {
  auto m = runAndCompare(R"(
    func.func @main(%x: tensor<4xf32>, %p: tensor<i1>) -> tensor<4xf32> {
      %r = "stablehlo.if"(%p) ({
        %a = stablehlo.multiply %x, %x : tensor<4xf32>
        stablehlo.return %a : tensor<4xf32>
      }, {
        %b = stablehlo.multiply %x, %x : tensor<4xf32>
        %c = stablehlo.add %b, %x : tensor<4xf32>
        stablehlo.return %c : tensor<4xf32>
      }) : (tensor<i1>) -> tensor<4xf32>
      %m = stablehlo.multiply %x, %x : tensor<4xf32>
      %s = stablehlo.add %r, %m : tensor<4xf32>
      return %s : tensor<4xf32>
    })",
                         {"cse"});
  EXPECT_EQ(count(*m, ops::Multiply), 3) << "neither the other branch nor the code after the if sees a branch's ops";
  const Op* ifOp = opsOf(*m, ops::If).front();
  for (size_t b = 0; b < 2; ++b) {
    int muls = 0;
    walk(ifOp->region(b), [&](Op& op) { muls += op.is(ops::Multiply); });
    EXPECT_EQ(muls, 1) << "branch " << b;
  }
}

TEST(CseTest, AnOpBeforeTheIfIsSharedByBothBranches) {
  auto m = runAndCompare(R"(
    func.func @main(%x: tensor<4xf32>, %p: tensor<i1>) -> tensor<4xf32> {
      %m = stablehlo.multiply %x, %x : tensor<4xf32>
      %r = "stablehlo.if"(%p) ({
        %a = stablehlo.multiply %x, %x : tensor<4xf32>
        stablehlo.return %a : tensor<4xf32>
      }, {
        %b = stablehlo.multiply %x, %x : tensor<4xf32>
        %c = stablehlo.add %b, %x : tensor<4xf32>
        stablehlo.return %c : tensor<4xf32>
      }) : (tensor<i1>) -> tensor<4xf32>
      %s = stablehlo.add %r, %m : tensor<4xf32>
      return %s : tensor<4xf32>
    })",
                         {"cse"});
  EXPECT_EQ(count(*m, ops::Multiply), 1);
}

// ---- DCE ------------------------------------------------------------------------------

TEST(DceTest, DeadChainsAreRemoved) {
  auto m = runAndCompare(R"(
    func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
      %a = stablehlo.abs %x : tensor<4xf32>
      %b = stablehlo.negate %a : tensor<4xf32>
      %c = stablehlo.exponential %b : tensor<4xf32>
      %d = stablehlo.add %c, %a : tensor<4xf32>
      %k = stablehlo.constant dense<1.0> : tensor<4xf32>
      %live = stablehlo.add %x, %k : tensor<4xf32>
      %zero = stablehlo.constant dense<0> : tensor<i32>
      %w = stablehlo.while(%v = %zero) : tensor<i32>
        cond {
          %t = stablehlo.compare LT, %v, %zero : (tensor<i32>, tensor<i32>) -> tensor<i1>
          stablehlo.return %t : tensor<i1>
        } do {
          %u = stablehlo.add %v, %v : tensor<i32>
          stablehlo.return %u : tensor<i32>
        }
      return %live : tensor<4xf32>
    })",
                         {"dce"});
  EXPECT_EQ(numOps(*m), 2) << stablehlo::printModule(*m);
  EXPECT_EQ(count(*m, ops::While), 0) << "a loop without effects whose results are unused is dead";
}

TEST(DceTest, DeadOpsInsideRegionsAreRemoved) {
  auto m = runAndCompare(R"(
    func.func @main(%x: tensor<i32>) -> tensor<i32> {
      %zero = stablehlo.constant dense<0> : tensor<i32>
      %w = stablehlo.while(%v = %x) : tensor<i32>
        cond {
          %t = stablehlo.compare LT, %v, %zero : (tensor<i32>, tensor<i32>) -> tensor<i1>
          %dead = stablehlo.not %t : tensor<i1>
          stablehlo.return %t : tensor<i1>
        } do {
          %u = stablehlo.add %v, %v : tensor<i32>
          %dead1 = stablehlo.multiply %u, %u : tensor<i32>
          %dead2 = stablehlo.negate %dead1 : tensor<i32>
          stablehlo.return %u : tensor<i32>
        }
      return %w : tensor<i32>
    })",
                         {"dce"});
  EXPECT_EQ(count(*m, ops::Not), 0);
  EXPECT_EQ(count(*m, ops::Multiply), 0);
  EXPECT_EQ(count(*m, ops::Negate), 0);
  EXPECT_EQ(count(*m, ops::While), 1);
}

TEST(DceTest, OpsWithEffectsAreKept) {
  auto m = runPasses(std::string(R"(
    func.func @main(%x: tensor<4xf32>, %s: tensor<2xui64>) -> tensor<4xf32> {
      %a = stablehlo.abs %x : tensor<4xf32>
      check.expect_eq_const %a, dense<1.0> : tensor<4xf32>
      %c = stablehlo.custom_call @effect(%x) {has_side_effect = true} : (tensor<4xf32>) -> tensor<4xf32>
      %s1, %r1 = stablehlo.rng_bit_generator %s, algorithm = THREE_FRY : (tensor<2xui64>) -> (tensor<2xui64>, tensor<2x2xui64>)
      %t = "stablehlo.after_all"() : () -> !stablehlo.token
      %o = "stablehlo.outfeed"(%x, %t) : (tensor<4xf32>, !stablehlo.token) -> !stablehlo.token
      %n = stablehlo.negate %x : tensor<4xf32>
      %ar = "stablehlo.all_reduce"(%n) ({
        ^bb0(%p: tensor<f32>, %q: tensor<f32>):
          %sum = stablehlo.add %p, %q : tensor<f32>
          stablehlo.return %sum : tensor<f32>
      }) {replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<4xf32>) -> tensor<4xf32>
      %zero = stablehlo.constant dense<0> : tensor<i32>
      %w = stablehlo.while(%v = %zero) : tensor<i32>
        cond {
          %lt = stablehlo.compare LT, %v, %zero : (tensor<i32>, tensor<i32>) -> tensor<i1>
          stablehlo.return %lt : tensor<i1>
        } do {
          %tr = stablehlo.constant dense<true> : tensor<i1>
          stablehlo.custom_call @shape_assertion(%tr) {error_message = "x", has_side_effect = true} : (tensor<i1>) -> ()
          stablehlo.return %v : tensor<i32>
        }
      %dead = stablehlo.exponential %x : tensor<4xf32>
      return %x : tensor<4xf32>
    })"),
                     {"dce"});
  EXPECT_EQ(count(*m, ops::CheckExpectEqConst), 1);
  EXPECT_EQ(count(*m, ops::Abs), 1) << "the check reads it";
  EXPECT_EQ(count(*m, ops::CustomCall), 2);
  EXPECT_EQ(count(*m, ops::RngBitGenerator), 1);
  EXPECT_EQ(count(*m, ops::Outfeed), 1);
  EXPECT_EQ(count(*m, ops::AfterAll), 1);
  EXPECT_EQ(count(*m, ops::AllReduce), 1);
  EXPECT_EQ(count(*m, ops::Negate), 1) << "the all_reduce reads it";
  EXPECT_EQ(count(*m, ops::While), 1) << "its body asserts";
  EXPECT_EQ(count(*m, ops::Exponential), 0);
}

TEST(DceTest, CallsOfFunctionsWithEffectsAreKept) {
  // A call's effects are its callee's: with the call unused (or equal to another), the
  // assertion in @assert_positive must still run, once per call.
  auto m = runPasses(R"(
    func.func private @assert_positive(%a: tensor<4xi32>) -> tensor<4xi32> {
      %z = stablehlo.constant dense<0> : tensor<4xi32>
      %p = stablehlo.compare GT, %a, %z : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi1>
      stablehlo.custom_call @shape_assertion(%p) {error_message = "not positive", has_side_effect = true} : (tensor<4xi1>) -> ()
      return %a : tensor<4xi32>
    }
    func.func @main(%x: tensor<4xi32>, %y: tensor<4xi32>) -> tensor<4xi32> {
      %unused = func.call @assert_positive(%y) : (tensor<4xi32>) -> tensor<4xi32>
      %a = func.call @assert_positive(%x) : (tensor<4xi32>) -> tensor<4xi32>
      %b = func.call @assert_positive(%x) : (tensor<4xi32>) -> tensor<4xi32>
      %r = stablehlo.add %a, %b : tensor<4xi32>
      return %r : tensor<4xi32>
    })",
                     {"cse", "dce"});
  EXPECT_EQ(count(*m, ops::FuncCall), 3) << stablehlo::printModule(*m);
}

// ---- constant folding ---------------------------------------------------------------------

TEST(FoldTest, ChainsFoldIntoOneConstant) {
  auto m = runAndCompare(R"(
    func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
      %a = stablehlo.constant dense<[1.0, -2.5, 3.0, 0.1]> : tensor<4xf32>
      %b = stablehlo.constant dense<[2.0, 0.5, -1.0, 3.0]> : tensor<4xf32>
      %c = stablehlo.multiply %a, %b : tensor<4xf32>
      %d = stablehlo.add %c, %a : tensor<4xf32>
      %e = stablehlo.exponential %d : tensor<4xf32>
      %f = stablehlo.reshape %e : (tensor<4xf32>) -> tensor<2x2xf32>
      %g = stablehlo.transpose %f, dims = [1, 0] : (tensor<2x2xf32>) -> tensor<2x2xf32>
      %h = stablehlo.reshape %g : (tensor<2x2xf32>) -> tensor<4xf32>
      %r = stablehlo.add %x, %h : tensor<4xf32>
      return %r : tensor<4xf32>
    })",
                         {"fold", "dce"});
  EXPECT_EQ(numOps(*m), 2) << stablehlo::printModule(*m);
  EXPECT_EQ(count(*m, ops::Constant), 1);
  const Op* add = returned(*m)->definingOp();
  ASSERT_TRUE(add->is(ops::Add));
  EXPECT_TRUE(add->operand(1)->definingOp()->is(ops::Constant));
}

TEST(FoldTest, FoldsInsideRegionsAndIntegerOps) {
  auto m = runAndCompare(R"(
    func.func @main(%x: tensor<i32>) -> tensor<i32> {
      %w = stablehlo.while(%v = %x) : tensor<i32>
        cond {
          %c0 = stablehlo.constant dense<5> : tensor<i32>
          %c1 = stablehlo.constant dense<7> : tensor<i32>
          %lim = stablehlo.multiply %c0, %c1 : tensor<i32>
          %t = stablehlo.compare LT, %v, %lim : (tensor<i32>, tensor<i32>) -> tensor<i1>
          stablehlo.return %t : tensor<i1>
        } do {
          %one = stablehlo.constant dense<1> : tensor<i32>
          %two = stablehlo.add %one, %one : tensor<i32>
          %u = stablehlo.add %v, %two : tensor<i32>
          stablehlo.return %u : tensor<i32>
        }
      return %w : tensor<i32>
    })",
                         {"fold"}, test_util::Inputs::Ordinary);
  EXPECT_EQ(count(*m, ops::Multiply), 0);
  EXPECT_EQ(count(*m, ops::Add), 1);
}

std::string sizedProgram(int n) {
  std::string t = "tensor<" + std::to_string(n) + "xi32>";
  return "func.func @main(%x: " + t + ") -> " + t + " {\n" + "  %a = stablehlo.iota dim = 0 : " + t +
         "\n  %c = stablehlo.constant dense<3> : " + t + "\n  %m = stablehlo.multiply %c, %c : " + t +
         "\n  %r = stablehlo.add %x, %m : " + t + "\n  return %r : " + t + "\n}";
}

TEST(FoldTest, RespectsTheElementLimit) {
  for (int64_t limit : {99, 100, 4096}) {
    PassContext ctx;
    ctx.options.foldElementLimit = limit;
    auto m = runAndCompare(sizedProgram(100), {"fold"}, ctx);
    EXPECT_EQ(count(*m, ops::Multiply), limit >= 100 ? 0 : 1) << "limit " << limit;
    EXPECT_EQ(count(*m, ops::Iota), 1) << "an op without operands is no folding candidate";
  }
  PassContext ctx;  // the default limit: 4096 elements
  auto m = runAndCompare(sizedProgram(5000), {"fold"}, ctx);
  EXPECT_EQ(count(*m, ops::Multiply), 1);
}

TEST(FoldTest, BroadcastsEffectsAndUnfoldableConstantsAreNotFolded) {
  auto m = runPasses(R"(
    func.func @main(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<2x2xui64>, tensor<4xf32>) {
      %c = stablehlo.constant dense<1.5> : tensor<f32>
      %b = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<f32>) -> tensor<4xf32>
      %v = stablehlo.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
      %e = stablehlo.custom_call @effect(%v) {has_side_effect = true} : (tensor<4xf32>) -> tensor<4xf32>
      %o = stablehlo.custom_call @opaque(%v) : (tensor<4xf32>) -> tensor<4xf32>
      %s = stablehlo.constant dense<[1, 2]> : tensor<2xui64>
      %s1, %r1 = stablehlo.rng_bit_generator %s, algorithm = THREE_FRY : (tensor<2xui64>) -> (tensor<2xui64>, tensor<2x2xui64>)
      %u = util.unfoldable_constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
      %n = stablehlo.negate %u : tensor<4xf32>
      return %b, %e, %o, %r1, %n : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<2x2xui64>, tensor<4xf32>
    })",
                     {"fold"});
  EXPECT_EQ(count(*m, ops::BroadcastInDim), 1);
  EXPECT_EQ(count(*m, ops::CustomCall), 2);
  EXPECT_EQ(count(*m, ops::RngBitGenerator), 1);
  EXPECT_EQ(count(*m, ops::Negate), 1);
  EXPECT_EQ(count(*m, ops::UtilUnfoldableConstant), 1);
}

TEST(FoldTest, OpsTheInterpreterRejectsStayAndTheRestStillFolds) {
  // The interpreter has no reduce_precision for f8E4M3FN (no IEEE layout): folding must
  // skip the op, not throw, and go on folding the rest.
  const std::string text = R"(
    func.func @main(%x: tensor<2xi32>) -> (tensor<2xf8E4M3FN>, tensor<2xi32>) {
      %f = stablehlo.constant dense<[4.0, 5.0]> : tensor<2xf8E4M3FN>
      %p = stablehlo.reduce_precision %f, format = e2m1 : tensor<2xf8E4M3FN>
      %c = stablehlo.constant dense<[4, 5]> : tensor<2xi32>
      %n = stablehlo.negate %c : tensor<2xi32>
      %r = stablehlo.add %x, %n : tensor<2xi32>
      return %p, %r : tensor<2xf8E4M3FN>, tensor<2xi32>
    })";
  std::unique_ptr<Module> m;
  PassContext ctx;
  EXPECT_NO_THROW(m = runPasses(text, {"fold"}, ctx));
  ASSERT_TRUE(m);
  EXPECT_EQ(count(*m, ops::ReducePrecision), 1);
  EXPECT_EQ(count(*m, ops::Negate), 0);
}

}  // namespace
}  // namespace kiln::passes
