// IR structure: use lists, replace-all-uses-with, insertion and erasure while walking,
// cloning, structural identity and attribute equality.
#include "ir/ir.h"

#include <gtest/gtest.h>

#include "ir/builder.h"
#include "ir/module.h"
#include "ir/ops/stablehlo.h"
#include "ir/verifier.h"

namespace kiln {
namespace {

Type f32x2() { return Type::tensor(DType::F32, {2}); }

TEST(IrTest, UsesFollowOperands) {
  Function fn("f", {f32x2(), f32x2()}, {f32x2()});
  Builder b(fn.body());
  Value* x = fn.param(0);
  Value* y = fn.param(1);
  Value* s = b.binary(ops::Add, x, y);
  Value* p = b.binary(ops::Multiply, s, x);
  b.ret({p}, ops::FuncReturn);
  EXPECT_EQ(x->uses().size(), 2u);
  EXPECT_EQ(s->uses().size(), 1u);
  s->replaceAllUsesWith(y);
  EXPECT_FALSE(s->hasUses());
  EXPECT_EQ(p->definingOp()->operand(0), y);
  EXPECT_EQ(y->uses().size(), 2u);
  fn.body().erase(s->definingOp());  // now dead
  EXPECT_EQ(fn.body().size(), 2u);
  EXPECT_EQ(y->uses().size(), 1u);
}

TEST(IrTest, ErasingAnOpInUseIsAnError) {
  Function fn("f", {f32x2()}, {f32x2()});
  Builder b(fn.body());
  Value* n = b.unary(ops::Negate, fn.param(0));
  b.ret({n}, ops::FuncReturn);
  EXPECT_THROW(fn.body().erase(n->definingOp()), Error);
}

TEST(IrTest, InsertWhileWalking) {
  Function fn("f", {f32x2()}, {f32x2()});
  Builder b(fn.body());
  Value* n = b.unary(ops::Negate, fn.param(0));
  Value* m = b.unary(ops::Negate, n);
  b.ret({m}, ops::FuncReturn);
  // Put an abs before every negate.
  for (auto& op : fn.body().ops()) {
    if (!op->is(ops::Negate)) continue;
    Builder before = Builder::before(*op);
    Value* a = before.unary(ops::Abs, op->operand(0));
    op->setOperand(0, a);
  }
  std::vector<OpCode> codes;
  for (auto& op : fn.body().ops()) codes.push_back(op->code());
  EXPECT_EQ(codes, (std::vector<OpCode>{ops::Abs, ops::Negate, ops::Abs, ops::Negate,
                                        ops::FuncReturn}));
  Module m2;
  m2.addFunction(fn.clone("g"));
  EXPECT_NO_THROW(verifyModule(m2));
}

TEST(IrTest, CloneMapsValuesAndRegions) {
  Module module;
  Function* fn = module.addFunction(std::make_unique<Function>("f", TypeList{f32x2()}, TypeList{f32x2()}));
  Builder b(fn->body());
  Value* n = b.unary(ops::Negate, fn->param(0));
  b.ret({n}, ops::FuncReturn);
  std::unique_ptr<Function> copy = fn->clone("g");
  EXPECT_EQ(copy->name(), "g");
  const Op* neg = copy->body().front();
  EXPECT_EQ(neg->operand(0), copy->param(0));  // remapped, not the original parameter
  EXPECT_NE(neg, fn->body().front());
  EXPECT_TRUE(neg->structurallyEqual(*neg));
}

TEST(IrTest, StructuralIdentityForCse) {
  Function fn("f", {f32x2(), f32x2()}, {f32x2()});
  Builder b(fn.body());
  Value* a = b.binary(ops::Add, fn.param(0), fn.param(1));
  Value* c = b.binary(ops::Add, fn.param(0), fn.param(1));
  Value* d = b.binary(ops::Add, fn.param(1), fn.param(0));
  EXPECT_TRUE(a->definingOp()->structurallyEqual(*c->definingOp()));
  EXPECT_EQ(a->definingOp()->structuralHash(), c->definingOp()->structuralHash());
  EXPECT_FALSE(a->definingOp()->structurallyEqual(*d->definingOp()));
  Value* lt = b.compare(fn.param(0), fn.param(1), ComparisonDirection::LT);
  Value* gt = b.compare(fn.param(0), fn.param(1), ComparisonDirection::GT);
  EXPECT_FALSE(lt->definingOp()->structurallyEqual(*gt->definingOp()));
}

TEST(IrTest, AttributesCompareStructurally) {
  EXPECT_EQ(Attribute::i64Array({1, 2}), Attribute::i64Array({1, 2}));
  EXPECT_NE(Attribute::i64Array({1, 2}), Attribute::i64Array({2, 1}));
  EXPECT_NE(Attribute::integer(1, DType::I32), Attribute::integer(1, DType::I64));
  EXPECT_NE(Attribute::floating(0.0), Attribute::floating(-0.0));
  EXPECT_EQ(Attribute::floating(std::nan("")), Attribute::floating(std::nan("")));
  EXPECT_EQ(Attribute::dictionary({{"b", Attribute::unit()}, {"a", Attribute::boolean(true)}}),
            Attribute::dictionary({{"a", Attribute::boolean(true)}, {"b", Attribute::unit()}}));
}

TEST(IrTest, LocationsMerge) {
  Location a = Location::file("m.py", 3, 1), b = Location::file("m.py", 4, 1);
  EXPECT_EQ(mergeLocations({a, Location(), a}), a);
  Location fused = mergeLocations({a, b});
  EXPECT_EQ(fused.kind(), Location::Kind::Fused);
  EXPECT_EQ(fused.str(), "fused[\"m.py\":3:1, \"m.py\":4:1]");
  EXPECT_EQ(Location::name("mul", a).fileLocation(), a);
}

}  // namespace
}  // namespace kiln
