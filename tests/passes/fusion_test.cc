// The fusion pass, rule by rule: what must become one kiln.fusion kernel (and of which
// kind), and what must not. Every case also verifies the fused module and checks that
// @main computes the same bits as before.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <sstream>

#include "ir/fingerprint.h"
#include "ir/ops/compiler.h"
#include "ir/ops/stablehlo.h"
#include "ir/ops/testing.h"
#include "passes/op_facts.h"
#include "passes/pass_test_util.h"

namespace kiln::passes {
namespace {

using test_util::count;
using test_util::Inputs;
using test_util::opsOf;
using test_util::runAndCompare;

struct Fused {
  std::unique_ptr<Module> module;
  PassContext ctx;
  std::vector<Op*> fusions;  // every kiln.fusion, in walk order
};

Fused fuse(const std::string& text, Inputs inputs = Inputs::Special) {
  Fused f;
  f.module = runAndCompare(text, {"fusion"}, f.ctx, inputs);
  f.fusions = opsOf(*f.module, ops::Fusion);
  return f;
}

std::string kindOf(const Op& fusion) { return fusion.attr("kind").asString(); }

// Ops with this opcode inside the fusion's region.
int inside(const Op& fusion, OpCode code) {
  int n = 0;
  walk(fusion.region(0), [&](Op& op) { n += op.is(code); });
  return n;
}

// The fusion holding an op with this opcode, or null.
const Op* fusionHolding(const Fused& f, OpCode code) {
  for (const Op* fusion : f.fusions)
    if (inside(*fusion, code)) return fusion;
  return nullptr;
}

// Whether an op with this opcode sits directly in @main's body (not in a kernel).
bool atTopLevel(const Module& m, OpCode code) {
  for (const auto& op : m.lookup("main")->body().ops())
    if (op->is(code)) return true;
  return false;
}

// The decisions whose description and reason contain these texts.
std::vector<FusionDecision> decisions(const Fused& f, bool fused, const std::string& what,
                                      const std::string& why = "") {
  std::vector<FusionDecision> found;
  for (const FusionDecision& d : f.ctx.fusionPlan.decisions)
    if (d.fused == fused && d.what.find(what) != std::string::npos && d.why.find(why) != std::string::npos)
      found.push_back(d);
  return found;
}

std::string planText(const Fused& f) { return f.ctx.fusionPlan.str() + stablehlo::printModule(*f.module); }

TEST(FusionTest, ElementwiseChainBecomesOneLoopKernel) {
  Fused f = fuse(R"(
    func.func @main(%x: tensor<16x8xf32>, %y: tensor<16x8xf32>) -> tensor<16x8xf32> {
      %a = stablehlo.add %x, %y : tensor<16x8xf32>
      %b = stablehlo.multiply %a, %x : tensor<16x8xf32>
      %c = stablehlo.negate %b : tensor<16x8xf32>
      %d = stablehlo.abs %c : tensor<16x8xf32>
      return %d : tensor<16x8xf32>
    })");
  ASSERT_EQ(f.fusions.size(), 1u) << planText(f);
  const Op& k = *f.fusions[0];
  EXPECT_EQ(kindOf(k), "loop");
  EXPECT_EQ(inside(k, ops::Add) + inside(k, ops::Multiply) + inside(k, ops::Negate) + inside(k, ops::Abs), 4);
  EXPECT_EQ(k.numOperands(), 2u);
  EXPECT_EQ(k.numResults(), 1u);
  EXPECT_EQ(f.module->lookup("main")->body().size(), 2u) << "the kernel and the return";
  EXPECT_EQ(f.ctx.fusionPlan.kernelsBefore, 4);
  EXPECT_EQ(f.ctx.fusionPlan.kernelsAfter, 1);
  ASSERT_EQ(f.ctx.fusionPlan.kernels.size(), 1u);
  EXPECT_EQ(f.ctx.fusionPlan.kernels[0].kind, "loop");
  EXPECT_EQ(f.ctx.fusionPlan.kernels[0].members.size(), 4u);
}

TEST(FusionTest, ElementwiseProducersFuseIntoRowAndColumnReductions) {
  for (const char* dims : {"[1]", "[0]"}) {
    std::string result = std::string(dims) == "[1]" ? "tensor<64xf32>" : "tensor<32xf32>";
    Fused f = fuse(std::string(R"(
    func.func @main(%x: tensor<64x32xf32>, %y: tensor<64x32xf32>) -> )") +
                       result + R"( {
      %zero = stablehlo.constant dense<0.0> : tensor<f32>
      %d = stablehlo.subtract %x, %y : tensor<64x32xf32>
      %e = stablehlo.multiply %d, %d : tensor<64x32xf32>
      %r = stablehlo.reduce(%e init: %zero) applies stablehlo.add across dimensions = )" +
                       dims + " : (tensor<64x32xf32>, tensor<f32>) -> " + result + R"(
      return %r : )" + result + R"(
    })",
                   Inputs::Ordinary);
    ASSERT_EQ(f.fusions.size(), 1u) << dims << "\n" << planText(f);
    const Op& k = *f.fusions[0];
    EXPECT_EQ(kindOf(k), "input") << dims;
    EXPECT_EQ(inside(k, ops::Reduce), 1);
    EXPECT_EQ(inside(k, ops::Subtract), 1);
    EXPECT_EQ(inside(k, ops::Multiply), 1);
    EXPECT_EQ(count(*f.module, ops::Subtract), 1);
    EXPECT_EQ(f.ctx.fusionPlan.kernelsAfter, 1);
  }
}

TEST(FusionTest, ExpensiveProducerWithTwoKernelsIsNotDuplicated) {
  // exp(x) feeds an elementwise kernel and a reduction: it must be computed once (as a
  // second output of one kernel, or as a kernel of its own), never copied into both.
  Fused f = fuse(R"(
    func.func @main(%x: tensor<64x32xf32>, %y: tensor<64x32xf32>) -> (tensor<64x32xf32>, tensor<64xf32>) {
      %zero = stablehlo.constant dense<0.0> : tensor<f32>
      %e = stablehlo.exponential %x : tensor<64x32xf32>
      %a = stablehlo.add %e, %y : tensor<64x32xf32>
      %b = stablehlo.abs %a : tensor<64x32xf32>
      %r = stablehlo.reduce(%e init: %zero) applies stablehlo.add across dimensions = [1]
          : (tensor<64x32xf32>, tensor<f32>) -> tensor<64xf32>
      return %b, %r : tensor<64x32xf32>, tensor<64xf32>
    })",
                 Inputs::Ordinary);
  EXPECT_EQ(count(*f.module, ops::Exponential), 1) << planText(f);
  const Op* holder = fusionHolding(f, ops::Exponential);
  if (holder) {
    EXPECT_GE(holder->numResults(), 2u) << "a kernel that takes exp in also writes it out for the other";
  } else {
    EXPECT_TRUE(atTopLevel(*f.module, ops::Exponential));
  }
}

TEST(FusionTest, ExpensiveProducerReadByADependentKernelIsRefused) {
  // softmax's exp: its other reader (the sum) feeds the kernel that wants it, so it can
  // be neither copied nor an extra output of that kernel.
  Fused f = fuse(R"(
    func.func @main(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
      %zero = stablehlo.constant dense<0.0> : tensor<f32>
      %e = stablehlo.exponential %x : tensor<4x8xf32>
      %sum = stablehlo.reduce(%e init: %zero) applies stablehlo.add across dimensions = [1]
          : (tensor<4x8xf32>, tensor<f32>) -> tensor<4xf32>
      %sum_b = stablehlo.broadcast_in_dim %sum, dims = [0] : (tensor<4xf32>) -> tensor<4x8xf32>
      %y = stablehlo.divide %e, %sum_b : tensor<4x8xf32>
      return %y : tensor<4x8xf32>
    })",
                 Inputs::Ordinary);
  EXPECT_EQ(count(*f.module, ops::Exponential), 1) << planText(f);
  EXPECT_FALSE(decisions(f, false, "stablehlo.exponential", "by an op this kernel depends on").empty()) << planText(f);
}

// Layer norm's x - mean feeds the variance's reduce and the output, which depends on
// that reduce: the output kernel computes it again from x rather than have the reduce
// kernel write it out (it reads as many bytes either way). Small results, and ops whose
// copy would read more than their result (x - y), are left to the rules above.
std::string centered(const std::string& shape, const std::string& rhs) {
  const std::string t = "tensor<" + shape + "xf32>", rows = "tensor<" + shape.substr(0, shape.find('x')) + "xf32>";
  return "func.func @main(%x: " + t + ", %y: " + t + ") -> " + t + R"( {
      %zero = stablehlo.constant dense<0.0> : tensor<f32>
      %sum = stablehlo.reduce(%x init: %zero) applies stablehlo.add across dimensions = [1] : ()" + t + ", tensor<f32>) -> " + rows + R"(
      %mean = stablehlo.broadcast_in_dim %sum, dims = [0] : ()" + rows + ") -> " + t + R"(
      %d = stablehlo.subtract %x, )" + rhs + " : " + t + R"(
      %sq = stablehlo.multiply %d, %d : )" + t + R"(
      %var = stablehlo.reduce(%sq init: %zero) applies stablehlo.add across dimensions = [1] : ()" + t + ", tensor<f32>) -> " + rows + R"(
      %var_b = stablehlo.broadcast_in_dim %var, dims = [0] : ()" + rows + ") -> " + t + R"(
      %r = stablehlo.multiply %d, %var_b : )" + t + R"(
      return %r : )" + t + R"(
    })";
}

TEST(FusionTest, CheapLargeOpReadByADependentKernelIsComputedAgainThere) {
  Fused f = fuse(centered("256x512", "%mean"), Inputs::Ordinary);
  EXPECT_EQ(count(*f.module, ops::Subtract), 2) << planText(f);
  for (const Op* fusion : f.fusions) EXPECT_EQ(fusion->numResults(), 1u) << planText(f);
  EXPECT_FALSE(decisions(f, true, "stablehlo.subtract", "where writing it out for other kernels moves").empty())
      << planText(f);
  for (const char* shape : {"64x32", "256x512"}) {
    Fused g = fuse(centered(shape, std::string(shape) == "64x32" ? "%mean" : "%y"), Inputs::Ordinary);
    EXPECT_EQ(count(*g.module, ops::Subtract), 1) << planText(g);
  }
}

// A chain of such ops, each also read by a reduce: copies stay bounded (a few per op),
// not one per link below each op.
TEST(FusionTest, CopiesOfACheapChainStayBounded) {
  const std::string t = "tensor<256x512xf32>", rows = "tensor<256xf32>";
  std::string body = "  %zero = stablehlo.constant dense<0.0> : tensor<f32>\n  %one = stablehlo.constant dense<1.0> : " + t +
                     "\n  %x0 = stablehlo.add %x, %one : " + t + "\n";
  std::string results, types;
  const int links = 24;
  for (int i = 1; i <= links; ++i) {
    const std::string prev = "%x" + std::to_string(i - 1), cur = "%x" + std::to_string(i), sum = "%s" + std::to_string(i);
    body += "  " + cur + " = stablehlo.negate " + prev + " : " + t + "\n";
    body += "  " + sum + " = stablehlo.reduce(" + prev + " init: %zero) applies stablehlo.add across dimensions = [1] : (" +
            t + ", tensor<f32>) -> " + rows + "\n";
    results += sum + ", ";
    types += rows + ", ";
  }
  Fused f = fuse("func.func @main(%x: " + t + ") -> (" + types + t + ") {\n" + body + "  return " + results + "%x" +
                     std::to_string(links) + " : " + types + t + "\n}",
                 Inputs::Ordinary);
  EXPECT_LE(count(*f.module, ops::Negate), 5 * links) << planText(f);
}

// The same computation written with its ops in another program order becomes the same
// kernel: its inputs in the order the computation reads them, not the order the program
// defined them (the cpu backend compiles the code of such kernels once).
TEST(FusionTest, KernelsThatComputeTheSameThingHaveTheSameCode) {
  Fused f = fuse(R"(
    func.func @main(%x1: tensor<16x8xf32>, %s1: tensor<8xf32>, %b1: tensor<8xf32>,
                    %x2: tensor<16x8xf32>, %s2: tensor<8xf32>, %b2: tensor<8xf32>)
        -> (tensor<16x8xf32>, tensor<16x8xf32>) {
      %bs1 = stablehlo.broadcast_in_dim %s1, dims = [1] : (tensor<8xf32>) -> tensor<16x8xf32>
      %bb1 = stablehlo.broadcast_in_dim %b1, dims = [1] : (tensor<8xf32>) -> tensor<16x8xf32>
      %m1 = stablehlo.multiply %x1, %bs1 : tensor<16x8xf32>
      %a1 = stablehlo.add %m1, %bb1 : tensor<16x8xf32>
      %bb2 = stablehlo.broadcast_in_dim %b2, dims = [1] : (tensor<8xf32>) -> tensor<16x8xf32>
      %bs2 = stablehlo.broadcast_in_dim %s2, dims = [1] : (tensor<8xf32>) -> tensor<16x8xf32>
      %m2 = stablehlo.multiply %x2, %bs2 : tensor<16x8xf32>
      %a2 = stablehlo.add %m2, %bb2 : tensor<16x8xf32>
      return %a1, %a2 : tensor<16x8xf32>, tensor<16x8xf32>
    })",
                 Inputs::Ordinary);
  ASSERT_EQ(f.fusions.size(), 2u) << planText(f);
  std::optional<Fingerprint> first = codeFingerprint(*f.fusions[0]), second = codeFingerprint(*f.fusions[1]);
  ASSERT_TRUE(first && second);
  EXPECT_EQ(*first, *second) << planText(f);
  // Both kernels' inputs in the order their ops read them, each op after its operands'
  // (the scale's broadcast, the multiply, the bias's broadcast, the add): scale, x, bias.
  for (size_t k = 0; k < 2; ++k) {
    const Op& fusion = *f.fusions[k];
    ASSERT_EQ(fusion.numOperands(), 3u) << planText(f);
    const unsigned x = k == 0 ? 0 : 3, expected[] = {x + 1, x, x + 2};
    for (unsigned i = 0; i < 3; ++i) {
      ASSERT_TRUE(fusion.operand(i)->isArgument()) << planText(f);
      EXPECT_EQ(fusion.operand(i)->index(), expected[i]) << i << "\n" << planText(f);
    }
  }
}

// Two epilogues of dots of different inner sizes: with the dots computed elsewhere (on
// BLAS, `marked`) the kernels' code is the same, as the dots' operands are never read.
TEST(FusionTest, EpiloguesOfDifferentDotsHaveTheSameCode) {
  Fused f = fuse(R"(
    func.func @main(%a1: tensor<16x32xf32>, %w1: tensor<32x8xf32>, %a2: tensor<16x64xf32>, %w2: tensor<64x8xf32>,
                    %b: tensor<8xf32>) -> (tensor<16x8xf32>, tensor<16x8xf32>) {
      %zero = stablehlo.constant dense<0.0> : tensor<16x8xf32>
      %bb = stablehlo.broadcast_in_dim %b, dims = [1] : (tensor<8xf32>) -> tensor<16x8xf32>
      %d1 = stablehlo.dot_general %a1, %w1, contracting_dims = [1] x [0] : (tensor<16x32xf32>, tensor<32x8xf32>) -> tensor<16x8xf32>
      %s1 = stablehlo.add %d1, %bb : tensor<16x8xf32>
      %r1 = stablehlo.maximum %s1, %zero : tensor<16x8xf32>
      %d2 = stablehlo.dot_general %a2, %w2, contracting_dims = [1] x [0] : (tensor<16x64xf32>, tensor<64x8xf32>) -> tensor<16x8xf32>
      %s2 = stablehlo.add %d2, %bb : tensor<16x8xf32>
      %r2 = stablehlo.maximum %s2, %zero : tensor<16x8xf32>
      return %r1, %r2 : tensor<16x8xf32>, tensor<16x8xf32>
    })",
                 Inputs::Ordinary);
  ASSERT_EQ(f.fusions.size(), 2u) << planText(f);
  auto code = [&](const Op& fusion, bool dotElsewhere) {
    std::vector<const Value*> marked;
    for (const auto& op : fusion.region(0).ops())
      if (op->is(ops::DotGeneral) && dotElsewhere) marked.push_back(op->result());
    EXPECT_EQ(marked.size(), dotElsewhere ? 1u : 0u) << planText(f);
    return codeFingerprint(fusion, marked);
  };
  EXPECT_EQ(code(*f.fusions[0], true), code(*f.fusions[1], true)) << planText(f);
  EXPECT_NE(code(*f.fusions[0], false), code(*f.fusions[1], false)) << planText(f);
}

TEST(FusionTest, CheapBroadcastIsCopiedIntoEveryKernelThatReadsIt) {
  Fused f = fuse(R"(
    func.func @main(%x: tensor<16x8xf32>, %y: tensor<16x8xf32>, %p: tensor<16xf32>) -> (tensor<16x8xf32>, tensor<16xf32>) {
      %zero = stablehlo.constant dense<0.0> : tensor<f32>
      %b = stablehlo.broadcast_in_dim %p, dims = [0] : (tensor<16xf32>) -> tensor<16x8xf32>
      %a = stablehlo.add %x, %b : tensor<16x8xf32>
      %a2 = stablehlo.abs %a : tensor<16x8xf32>
      %c = stablehlo.multiply %y, %b : tensor<16x8xf32>
      %r = stablehlo.reduce(%c init: %zero) applies stablehlo.add across dimensions = [1]
          : (tensor<16x8xf32>, tensor<f32>) -> tensor<16xf32>
      return %a2, %r : tensor<16x8xf32>, tensor<16xf32>
    })");
  ASSERT_EQ(f.fusions.size(), 2u) << planText(f);
  for (const Op* k : f.fusions) EXPECT_EQ(inside(*k, ops::BroadcastInDim), 1) << kindOf(*k);
  EXPECT_FALSE(atTopLevel(*f.module, ops::BroadcastInDim)) << "the original has no readers left";
  EXPECT_EQ(count(*f.module, ops::BroadcastInDim), 2);
  EXPECT_FALSE(decisions(f, true, "stablehlo.broadcast_in_dim", "cheap: copied").empty()) << planText(f);
}

// A broadcast of a value another kernel computes (an optimizer's step size, computed
// once from the step count, broadcast over every parameter) is copied too: each kernel
// reads the scalar, and no kernel writes the broadcast out whole for the other.
TEST(FusionTest, BroadcastOfAComputedScalarIsCopiedNotWrittenOut) {
  Fused f = fuse(R"(
    func.func @main(%t: tensor<f32>, %x: tensor<16x8xf32>, %y: tensor<16x8xf32>) -> (tensor<16x8xf32>, tensor<16x8xf32>) {
      %e = stablehlo.exponential %t : tensor<f32>
      %s = stablehlo.sqrt %e : tensor<f32>
      %b = stablehlo.broadcast_in_dim %s, dims = [] : (tensor<f32>) -> tensor<16x8xf32>
      %a = stablehlo.multiply %x, %b : tensor<16x8xf32>
      %a2 = stablehlo.abs %a : tensor<16x8xf32>
      %c = stablehlo.multiply %y, %b : tensor<16x8xf32>
      %c2 = stablehlo.negate %c : tensor<16x8xf32>
      return %a2, %c2 : tensor<16x8xf32>, tensor<16x8xf32>
    })");
  ASSERT_EQ(f.fusions.size(), 3u) << planText(f);  // the scalar's kernel and the two readers
  int withBroadcast = 0;
  for (const Op* k : f.fusions)
    if (inside(*k, ops::BroadcastInDim)) {
      ++withBroadcast;
      EXPECT_EQ(k->numResults(), 1u) << "the broadcast is no extra output\n" << planText(f);
    }
  EXPECT_EQ(withBroadcast, 2) << planText(f);
  EXPECT_FALSE(atTopLevel(*f.module, ops::BroadcastInDim)) << "the original has no readers left";
  EXPECT_EQ(decisions(f, true, "stablehlo.broadcast_in_dim", "cheap: copied").size(), 2u) << planText(f);
}

TEST(FusionTest, ExpensiveOpBehindABroadcastIsNotRecomputed) {
  Fused f = fuse(R"(
    func.func @main(%x: tensor<16x8xf32>, %p: tensor<16xf32>) -> tensor<16x8xf32> {
      %e = stablehlo.exponential %p : tensor<16xf32>
      %b = stablehlo.broadcast_in_dim %e, dims = [0] : (tensor<16xf32>) -> tensor<16x8xf32>
      %a = stablehlo.add %x, %b : tensor<16x8xf32>
      return %a : tensor<16x8xf32>
    })");
  EXPECT_TRUE(atTopLevel(*f.module, ops::Exponential)) << planText(f);
  EXPECT_EQ(count(*f.module, ops::Exponential), 1);
  auto refused = decisions(f, false, "stablehlo.exponential", "would recompute");
  ASSERT_EQ(refused.size(), 1u) << planText(f);
  EXPECT_NE(refused[0].why.find("8x"), std::string::npos) << refused[0].why;
  // The broadcast itself still fuses with the add.
  ASSERT_EQ(f.fusions.size(), 1u) << planText(f);
  EXPECT_EQ(inside(*f.fusions[0], ops::BroadcastInDim), 1);
}

TEST(FusionTest, LargeTransposeIsRefusedSmallOneFuses) {
  Fused big = fuse(R"(
    func.func @main(%x: tensor<1024x512xf32>, %y: tensor<512x1024xf32>) -> tensor<512x1024xf32> {
      %t = stablehlo.transpose %x, dims = [1, 0] : (tensor<1024x512xf32>) -> tensor<512x1024xf32>
      %a = stablehlo.add %t, %y : tensor<512x1024xf32>
      return %a : tensor<512x1024xf32>
    })",
                   Inputs::Ordinary);
  EXPECT_TRUE(atTopLevel(*big.module, ops::Transpose)) << planText(big);
  EXPECT_EQ(fusionHolding(big, ops::Transpose), nullptr);
  EXPECT_EQ(decisions(big, false, "stablehlo.transpose", "stride").size(), 1u) << planText(big);

  Fused small = fuse(R"(
    func.func @main(%x: tensor<16x8xf32>, %y: tensor<8x16xf32>) -> tensor<8x16xf32> {
      %t = stablehlo.transpose %x, dims = [1, 0] : (tensor<16x8xf32>) -> tensor<8x16xf32>
      %a = stablehlo.add %t, %y : tensor<8x16xf32>
      return %a : tensor<8x16xf32>
    })");
  ASSERT_EQ(small.fusions.size(), 1u) << planText(small);
  EXPECT_EQ(kindOf(*small.fusions[0]), "loop");
  EXPECT_EQ(inside(*small.fusions[0], ops::Transpose), 1);
  EXPECT_FALSE(atTopLevel(*small.module, ops::Transpose));
}

TEST(FusionTest, SiblingReductionsOfOneLargeOperandMerge) {
  // Layer norm's statistics: the mean and the mean of squares both read x (1 MiB).
  Fused f = fuse(R"(
    func.func @main(%x: tensor<256x1024xf32>) -> (tensor<256xf32>, tensor<256xf32>) {
      %zero = stablehlo.constant dense<0.0> : tensor<f32>
      %n = stablehlo.constant dense<1024.0> : tensor<256xf32>
      %s = stablehlo.reduce(%x init: %zero) applies stablehlo.add across dimensions = [1]
          : (tensor<256x1024xf32>, tensor<f32>) -> tensor<256xf32>
      %sq = stablehlo.multiply %x, %x : tensor<256x1024xf32>
      %s2 = stablehlo.reduce(%sq init: %zero) applies stablehlo.add across dimensions = [1]
          : (tensor<256x1024xf32>, tensor<f32>) -> tensor<256xf32>
      %mean = stablehlo.divide %s, %n : tensor<256xf32>
      %meansq = stablehlo.divide %s2, %n : tensor<256xf32>
      return %mean, %meansq : tensor<256xf32>, tensor<256xf32>
    })",
                 Inputs::Ordinary);
  const Op* k = fusionHolding(f, ops::Reduce);
  ASSERT_NE(k, nullptr) << planText(f);
  EXPECT_EQ(inside(*k, ops::Reduce), 2) << planText(f);
  EXPECT_EQ(inside(*k, ops::Multiply), 1);
  EXPECT_EQ(k->numResults(), 2u);
  EXPECT_EQ(k->numOperands(), 1u) << "x is read once";
  EXPECT_EQ(count(*f.module, ops::Reduce), 2);
  EXPECT_FALSE(decisions(f, true, "stablehlo.reduce", "sibling multi-output").empty()) << planText(f);
}

TEST(FusionTest, DependentSiblingsDoNotMerge) {
  // The variance reads the mean: both read x, but one kernel needs the other's result.
  Fused f = fuse(R"(
    func.func @main(%x: tensor<256x1024xf32>) -> tensor<256xf32> {
      %zero = stablehlo.constant dense<0.0> : tensor<f32>
      %s = stablehlo.reduce(%x init: %zero) applies stablehlo.add across dimensions = [1]
          : (tensor<256x1024xf32>, tensor<f32>) -> tensor<256xf32>
      %sb = stablehlo.broadcast_in_dim %s, dims = [0] : (tensor<256xf32>) -> tensor<256x1024xf32>
      %c = stablehlo.subtract %x, %sb : tensor<256x1024xf32>
      %v = stablehlo.multiply %c, %c : tensor<256x1024xf32>
      %s2 = stablehlo.reduce(%v init: %zero) applies stablehlo.add across dimensions = [1]
          : (tensor<256x1024xf32>, tensor<f32>) -> tensor<256xf32>
      return %s2 : tensor<256xf32>
    })",
                 Inputs::Ordinary);
  EXPECT_EQ(count(*f.module, ops::Reduce), 2);
  for (const Op* k : f.fusions) EXPECT_LE(inside(*k, ops::Reduce), 1) << planText(f);
  EXPECT_TRUE(atTopLevel(*f.module, ops::Reduce)) << planText(f);
  EXPECT_FALSE(decisions(f, false, "", "one reads what the other computes").empty()) << planText(f);
  EXPECT_TRUE(decisions(f, true, "", "sibling multi-output").empty()) << planText(f);
}

TEST(FusionTest, DotWithBiasAndReluBecomesADotEpilogue) {
  Fused f = fuse(R"(
    func.func @main(%a: tensor<16x32xf32>, %w: tensor<32x8xf32>, %bias: tensor<8xf32>) -> tensor<16x8xf32> {
      %d = stablehlo.dot_general %a, %w, contracting_dims = [1] x [0] : (tensor<16x32xf32>, tensor<32x8xf32>) -> tensor<16x8xf32>
      %bb = stablehlo.broadcast_in_dim %bias, dims = [1] : (tensor<8xf32>) -> tensor<16x8xf32>
      %s = stablehlo.add %d, %bb : tensor<16x8xf32>
      %z = stablehlo.constant dense<0.0> : tensor<16x8xf32>
      %r = stablehlo.maximum %s, %z : tensor<16x8xf32>
      return %r : tensor<16x8xf32>
    })",
                 Inputs::Ordinary);
  const Op* k = fusionHolding(f, ops::DotGeneral);
  ASSERT_NE(k, nullptr) << planText(f);
  EXPECT_EQ(kindOf(*k), "dot_epilogue");
  EXPECT_EQ(inside(*k, ops::Add), 1);
  EXPECT_EQ(inside(*k, ops::Maximum), 1);
  EXPECT_FALSE(atTopLevel(*f.module, ops::DotGeneral));
  EXPECT_EQ(count(*f.module, ops::DotGeneral), 1);
  EXPECT_EQ(decisions(f, true, "stablehlo.dot_general", "dot epilogue").size(), 1u) << planText(f);
}

TEST(FusionTest, DotWithTwoReadersStaysOutOfEpilogues) {
  Fused f = fuse(R"(
    func.func @main(%a: tensor<16x32xf32>, %w: tensor<32x8xf32>, %x: tensor<16x8xf32>) -> (tensor<16x8xf32>, tensor<16x8xf32>) {
      %d = stablehlo.dot_general %a, %w, contracting_dims = [1] x [0] : (tensor<16x32xf32>, tensor<32x8xf32>) -> tensor<16x8xf32>
      %p = stablehlo.add %d, %x : tensor<16x8xf32>
      %p2 = stablehlo.abs %p : tensor<16x8xf32>
      %q = stablehlo.multiply %d, %x : tensor<16x8xf32>
      %q2 = stablehlo.negate %q : tensor<16x8xf32>
      return %p2, %q2 : tensor<16x8xf32>, tensor<16x8xf32>
    })",
                 Inputs::Ordinary);
  EXPECT_TRUE(atTopLevel(*f.module, ops::DotGeneral)) << planText(f);
  EXPECT_EQ(count(*f.module, ops::DotGeneral), 1);
  EXPECT_EQ(fusionHolding(f, ops::DotGeneral), nullptr);
  for (const Op* k : f.fusions) EXPECT_NE(kindOf(*k), "dot_epilogue");
  EXPECT_FALSE(decisions(f, false, "stablehlo.dot_general", "other readers").empty()) << planText(f);
}

void expectNoEffectsInKernels(const Fused& f) {
  for (const Op* k : f.fusions)
    walk(k->region(0), [&](Op& op) { EXPECT_FALSE(hasSideEffects(op)) << op.name() << " in\n" << planText(f); });
}

TEST(FusionTest, OpsWithEffectsNeverJoinAKernel) {
  Fused f = fuse(R"(
    func.func @main(%x: tensor<16xf32>, %s: tensor<2xui64>) -> (tensor<16xf32>, tensor<16xui64>) {
      %a = stablehlo.add %x, %x : tensor<16xf32>
      %b = stablehlo.multiply %a, %a : tensor<16xf32>
      check.expect_eq %b, %b : tensor<16xf32>
      %c = stablehlo.negate %b : tensor<16xf32>
      %d = stablehlo.abs %c : tensor<16xf32>
      %s1, %bits = stablehlo.rng_bit_generator %s, algorithm = THREE_FRY : (tensor<2xui64>) -> (tensor<2xui64>, tensor<16xui64>)
      %n = stablehlo.not %bits : tensor<16xui64>
      %m = stablehlo.and %n, %bits : tensor<16xui64>
      return %d, %m : tensor<16xf32>, tensor<16xui64>
    })",
                 Inputs::Ordinary);
  EXPECT_FALSE(f.fusions.empty()) << planText(f);
  expectNoEffectsInKernels(f);
  EXPECT_EQ(count(*f.module, ops::CheckExpectEq), 1);
  EXPECT_TRUE(atTopLevel(*f.module, ops::RngBitGenerator));

  // Custom calls, with or without has_side_effect, and loops that hold one.
  auto m = stablehlo::parseModule(R"(
    func.func @main(%x: tensor<16xf32>) -> tensor<16xf32> {
      %a = stablehlo.add %x, %x : tensor<16xf32>
      %b = stablehlo.custom_call @effect(%a) {has_side_effect = true} : (tensor<16xf32>) -> tensor<16xf32>
      %c = stablehlo.custom_call @opaque(%b) : (tensor<16xf32>) -> tensor<16xf32>
      %d = stablehlo.negate %c : tensor<16xf32>
      %e = stablehlo.abs %d : tensor<16xf32>
      return %e : tensor<16xf32>
    })");
  Fused g;
  createFusionPass()->run(*m, g.ctx);
  EXPECT_NO_THROW(verifyModule(*m));
  g.module = std::move(m);
  g.fusions = opsOf(*g.module, ops::Fusion);
  EXPECT_EQ(g.fusions.size(), 1u) << planText(g);
  expectNoEffectsInKernels(g);
  EXPECT_EQ(count(*g.module, ops::CustomCall), 2);
}

TEST(FusionTest, LoopBodiesThatCaptureOuterValuesFuse) {
  Fused f = fuse(R"(
    func.func @main(%x: tensor<16xf32>, %y: tensor<16xf32>) -> tensor<16xf32> {
      %zero = stablehlo.constant dense<0> : tensor<i32>
      %one = stablehlo.constant dense<1> : tensor<i32>
      %three = stablehlo.constant dense<3> : tensor<i32>
      %k = stablehlo.multiply %x, %x : tensor<16xf32>
      %out:2 = stablehlo.while(%i = %zero, %v = %x) : tensor<i32>, tensor<16xf32>
        cond {
          %c = stablehlo.compare LT, %i, %three : (tensor<i32>, tensor<i32>) -> tensor<i1>
          stablehlo.return %c : tensor<i1>
        } do {
          %a = stablehlo.add %v, %k : tensor<16xf32>
          %b = stablehlo.multiply %a, %y : tensor<16xf32>
          %c = stablehlo.sine %b : tensor<16xf32>
          %j = stablehlo.add %i, %one : tensor<i32>
          stablehlo.return %j, %c : tensor<i32>, tensor<16xf32>
        }
      return %out#1 : tensor<16xf32>
    })",
                 Inputs::Ordinary);
  ASSERT_EQ(f.fusions.size(), 1u) << planText(f);
  const Op& k = *f.fusions[0];
  EXPECT_EQ(k.parentOp()->code(), ops::While);
  EXPECT_EQ(inside(k, ops::Sine), 1);
  // It takes the captured values as operands: its region stays isolated.
  std::vector<const Value*> operands(k.operands().begin(), k.operands().end());
  const Function* main = f.module->lookup("main");
  EXPECT_NE(std::find(operands.begin(), operands.end(), main->param(1)), operands.end());
  EXPECT_EQ(k.numOperands(), 3u);
}

TEST(FusionTest, SoftmaxPlan) {
  std::ifstream in(std::string(KILN_SOURCE_DIR) + "/examples/softmax.mlir");
  ASSERT_TRUE(in) << "examples/softmax.mlir";
  std::stringstream text;
  text << in.rdbuf();
  Fused f = fuse(text.str(), Inputs::Ordinary);
  const FusionPlan& plan = f.ctx.fusionPlan;
  EXPECT_EQ(plan.kernelsBefore, 7);
  EXPECT_EQ(plan.kernelsAfter, 3) << planText(f);
  EXPECT_EQ(plan.kernels.size(), 2u);
  EXPECT_EQ(count(*f.module, ops::Exponential), 1);
  // One line per decision, each naming the op and giving a reason.
  ASSERT_FALSE(plan.decisions.empty());
  for (const FusionDecision& d : plan.decisions) {
    EXPECT_EQ(d.what.find('\n'), std::string::npos) << d.what;
    EXPECT_EQ(d.why.find('\n'), std::string::npos) << d.why;
    EXPECT_FALSE(d.why.empty()) << d.what;
    EXPECT_NE(d.what.find("stablehlo."), std::string::npos) << d.what;
    EXPECT_EQ(d.function, "main");
    if (d.fused) {
      EXPECT_NE(d.what.find(" into fusion."), std::string::npos) << d.what;  // names its kernel
    }
  }
  std::string s = plan.str();
  size_t at = s.find("decisions:\n");
  ASSERT_NE(at, std::string::npos) << s;
  std::string tail = s.substr(at + std::string("decisions:\n").size());
  EXPECT_EQ(static_cast<size_t>(std::count(tail.begin(), tail.end(), '\n')), plan.decisions.size()) << s;
  EXPECT_NE(s.find("7 kernels before, 3 after"), std::string::npos) << s;
}

TEST(FusionTest, KernelLocationsMergeTheMembers) {
  Fused f = fuse(R"(
    func.func @main(%x: tensor<16xf32>) -> tensor<16xf32> {
      %a = stablehlo.negate %x : tensor<16xf32> loc("model.py":3:1)
      %b = stablehlo.abs %a : tensor<16xf32> loc("model.py":4:1)
      %c = stablehlo.exponential %b : tensor<16xf32>
      return %c : tensor<16xf32>
    })");
  ASSERT_EQ(f.fusions.size(), 1u) << planText(f);
  const Location& loc = f.fusions[0]->loc;
  ASSERT_EQ(loc.kind(), Location::Kind::Fused) << loc.str();
  std::vector<Location> parts = loc.children();
  EXPECT_EQ(parts.size(), 2u) << loc.str() << " (unknown locations are dropped)";
  for (const Location& want : {Location::file("model.py", 3, 1), Location::file("model.py", 4, 1)})
    EXPECT_NE(std::find(parts.begin(), parts.end(), want), parts.end()) << want.str() << " in " << loc.str();
  ASSERT_EQ(f.ctx.fusionPlan.kernels.size(), 1u);
  EXPECT_EQ(f.ctx.fusionPlan.kernels[0].loc, loc);
  // Decisions name the user's line.
  EXPECT_FALSE(decisions(f, true, "model.py\":3:1", "").empty()) << planText(f);
}

}  // namespace
}  // namespace kiln::passes
