// The parser: generic and pretty forms, literals, attributes, locations, result groups
// and file splitting. Most checks go through the printer, which must reproduce the
// canonical text.
#include "stablehlo/parser.h"

#include <gtest/gtest.h>

#include "ir/attr_schema.h"
#include "ir/ops/stablehlo.h"
#include "ir/ops/testing.h"
#include "stablehlo/printer.h"
#include "support/error.h"

namespace kiln::stablehlo {
namespace {

std::string fmt(const std::string& text) { return printModule(*parseModule(text)); }

// The single op in @main's body before the return.
const Op& firstOp(const Module& m) { return *m.functions()[0]->body().front(); }

TEST(ParserTest, GenericAndPrettyFormsAreTheSameOp) {
  std::string pretty = fmt(R"(
    func.func @main(%a: tensor<2x3xf32>) -> tensor<3x2xf32> {
      %0 = stablehlo.transpose %a, dims = [1, 0] : (tensor<2x3xf32>) -> tensor<3x2xf32>
      return %0 : tensor<3x2xf32>
    })");
  std::string generic = fmt(R"(
    func.func @main(%a: tensor<2x3xf32>) -> tensor<3x2xf32> {
      %0 = "stablehlo.transpose"(%a) {permutation = dense<[1, 0]> : tensor<2xi64>} : (tensor<2x3xf32>) -> tensor<3x2xf32>
      "func.return"(%0) : (tensor<3x2xf32>) -> ()
    })");
  EXPECT_EQ(pretty, generic);
  EXPECT_NE(pretty.find("stablehlo.transpose %arg0, dims = [1, 0]"), std::string::npos) << pretty;
}

// Custom calls that stand for ops (what JAX and torch_xla serialize CHLO/MHLO ops as)
// import as those ops, their attributes from mhlo.attributes; sharding markers are
// identities on one device (printed back as they were: sharding_syntax_test.cc); other
// targets stay custom calls.
TEST(ParserTest, CustomCallsThatStandForOpsImportAsThoseOps) {
  std::string printed = fmt(R"(
    func.func @main(%x: tensor<2x5xf32>) -> (tensor<2x5xf32>, tensor<2x3xf32>, tensor<2x3xi32>, tensor<2x5xf32>, tensor<2x5xf32>) {
      %e = stablehlo.custom_call @mhlo.erf(%x) {mhlo.attributes = {}, mhlo.version = 1 : i64} : (tensor<2x5xf32>) -> tensor<2x5xf32>
      %v, %i = stablehlo.custom_call @mhlo.topk(%x) {mhlo.attributes = {k = 3 : i64, largest = true}, mhlo.version = 1 : i64} : (tensor<2x5xf32>) -> (tensor<2x3xf32>, tensor<2x3xi32>)
      %s = stablehlo.custom_call @Sharding(%e) {mhlo.sharding = "{replicated}"} : (tensor<2x5xf32>) -> tensor<2x5xf32>
      %o = stablehlo.custom_call @my_kernel(%x) : (tensor<2x5xf32>) -> tensor<2x5xf32>
      return %e, %v, %i, %s, %o : tensor<2x5xf32>, tensor<2x3xf32>, tensor<2x3xi32>, tensor<2x5xf32>, tensor<2x5xf32>
    })");
  EXPECT_NE(printed.find("chlo.erf %arg0"), std::string::npos) << printed;
  EXPECT_NE(printed.find("chlo.top_k(%arg0, k = 3)"), std::string::npos) << printed;
  EXPECT_NE(printed.find("stablehlo.custom_call @Sharding(%0) {mhlo.sharding = \"{replicated}\"}"), std::string::npos) << printed;
  PrintOptions generic;
  generic.generic = true;
  EXPECT_NE(printModule(*parseModule(printed), generic).find("\"stablehlo.reshape\"(%0) {mhlo.sharding = \"{replicated}\"}"), std::string::npos);
  EXPECT_NE(printed.find("stablehlo.custom_call @my_kernel"), std::string::npos) << printed;
  // What the ops cannot mean is an error at the op.
  auto errorOf = [](const std::string& body) {
    try {
      parseModule("func.func @main(%x: tensor<2x4xf32>) -> tensor<2x2xf32> {\n" + body +
                  "  return %r : tensor<2x2xf32>\n}\n");
    } catch (const Error& e) {
      return e.format();
    }
    return std::string("no error");
  };
  EXPECT_NE(errorOf("  %r, %i = stablehlo.custom_call @mhlo.topk(%x) {mhlo.attributes = {k = 2 : i64, largest = false}} "
                    ": (tensor<2x4xf32>) -> (tensor<2x2xf32>, tensor<2x2xi32>)\n")
                .find("2:12: error: unsupported: custom_call @mhlo.topk with largest = false"),
            std::string::npos);
  EXPECT_NE(errorOf("  %r = stablehlo.custom_call @Sharding(%x) : (tensor<2x4xf32>) -> tensor<2x2xf32>\n")
                .find("unsupported: custom_call @Sharding that changes the shape"),
            std::string::npos);
}

TEST(ParserTest, PropertiesAndAttributesAreBothAccepted) {
  auto a = parseModule(R"(
    func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
      %0 = "stablehlo.sort"(%x) <{dimension = 0 : i64, is_stable = true}> ({
      ^bb0(%p: tensor<f32>, %q: tensor<f32>):
        %c = stablehlo.compare GT, %p, %q : (tensor<f32>, tensor<f32>) -> tensor<i1>
        stablehlo.return %c : tensor<i1>
      }) {mhlo.frontend_attributes = {x = "y"}} : (tensor<4xf32>) -> tensor<4xf32>
      return %0 : tensor<4xf32>
    })");
  const Op& sort = firstOp(*a);
  EXPECT_EQ(sort.attr("dimension"), Attribute::integer(0));
  EXPECT_EQ(sort.attr("is_stable"), Attribute::boolean(true));
  EXPECT_TRUE(sort.attr("mhlo.frontend_attributes").is(Attribute::Kind::Dictionary));
  EXPECT_EQ(sort.region(0).numArguments(), 2u);
  std::string printed = printModule(*a);
  EXPECT_NE(printed.find("<{dimension = 0 : i64, is_stable = true}>"), std::string::npos) << printed;
  EXPECT_NE(printed.find("{mhlo.frontend_attributes = {x = \"y\"}}"), std::string::npos) << printed;
}

TEST(ParserTest, DenseLiterals) {
  auto m = parseModule(R"(
    func.func @main() {
      %0 = stablehlo.constant dense<[[1, -2], [3, 4]]> : tensor<2x2xi32>
      %1 = stablehlo.constant dense<"0x0000803F00000040"> : tensor<2xf32>
      %2 = stablehlo.constant dense<"0x0000C03F"> : tensor<1000xf32>
      %3 = stablehlo.constant dense<[(1.0, -2.0), (0.5, 0x7FC00000)]> : tensor<2xcomplex<f32>>
      %4 = stablehlo.constant dense<[0x7F800000, -0.0, 1]> : tensor<3xf32>
      %5 = stablehlo.constant dense<[true, false, 1]> : tensor<3xi1>
      %6 = stablehlo.constant dense<18446744073709551615> : tensor<ui64>
      %7 = stablehlo.constant dense<> : tensor<0x3xf32>
      %8 = stablehlo.constant dense<"0x05"> : tensor<3xi1>
      %9 = stablehlo.constant dense<[-8, 7]> : tensor<2xi4>
      %10 = stablehlo.constant dense<"0x0F08"> : tensor<2xi4>
      %11 = stablehlo.constant dense<0.1> : tensor<f16>
      func.return
    })");
  std::vector<Literal> lits;
  for (const auto& op : m->functions()[0]->body().ops())
    if (op->is(ops::Constant)) lits.push_back(op->attr("value").asDense());
  ASSERT_EQ(lits.size(), 12u);
  EXPECT_EQ(lits[0].intAt(1), -2);
  EXPECT_EQ(lits[1].floatAt(1), 2.0);
  EXPECT_TRUE(lits[2].isSplat());
  EXPECT_EQ(lits[2].floatAt(999), 1.5);
  EXPECT_EQ(lits[3].complexAt(0), std::complex<double>(1.0, -2.0));
  EXPECT_TRUE(std::isnan(lits[3].complexAt(1).imag()));
  EXPECT_TRUE(std::isinf(lits[4].floatAt(0)));
  EXPECT_TRUE(std::signbit(lits[4].floatAt(1)));
  EXPECT_EQ(lits[4].floatAt(2), 1.0);
  EXPECT_EQ(lits[5].intAt(0), 1);
  EXPECT_EQ(lits[5].intAt(2), 1);
  EXPECT_EQ(lits[6].uintAt(0), UINT64_MAX);
  EXPECT_EQ(lits[7].numElements(), 0);
  // Bit-packed booleans (older MLIR): 0x05 = 1, 0, 1.
  EXPECT_EQ(lits[8].intAt(0), 1);
  EXPECT_EQ(lits[8].intAt(1), 0);
  EXPECT_EQ(lits[8].intAt(2), 1);
  EXPECT_EQ(lits[9].intAt(0), -8);
  EXPECT_EQ(lits[10].intAt(0), -1);  // 0xF in i4
  EXPECT_EQ(lits[10].intAt(1), -8);
  EXPECT_EQ(lits[11].bitsAt(0), 0x2E66u);
}

TEST(ParserTest, LocationsAreKeptIncludingAliasesDefinedLater) {
  auto m = parseModule(R"(#loc1 = loc("model.py":3:5)
    module @m {
      func.func @main(%x: tensor<f32> loc("x")) -> tensor<f32> {
        %0 = stablehlo.negate %x : tensor<f32> loc(#loc2)
        %1 = stablehlo.abs %0 : tensor<f32> loc(callsite("f"("a.py":1:2) at fused["b.py":3:4, #loc1]))
        return %1 : tensor<f32>
      } loc(#loc1)
    }
    #loc2 = loc("jit(f)/neg"(#loc1))
  )");
  const Function& fn = *m->functions()[0];
  EXPECT_EQ(fn.argLocs[0], Location::name("x"));
  EXPECT_EQ(fn.loc, Location::file("model.py", 3, 5));
  const Op& neg = *fn.body().front();
  EXPECT_EQ(neg.loc, Location::name("jit(f)/neg", Location::file("model.py", 3, 5)));
  EXPECT_EQ(neg.loc.fileLocation(), Location::file("model.py", 3, 5));
  EXPECT_EQ(neg.pos, (SourcePos{4, 14}));  // where the op is in the text
  std::string printed = printModule(*m);
  EXPECT_NE(printed.find("loc(\"jit(f)/neg\"(\"model.py\":3:5))"), std::string::npos) << printed;
  EXPECT_NE(printed.find("loc(callsite(\"f\"(\"a.py\":1:2) at fused[\"b.py\":3:4, \"model.py\":3:5]))"),
            std::string::npos)
      << printed;
  EXPECT_EQ(printModule(*parseModule(printed)), printed);
  PrintOptions noLocs;
  noLocs.locations = false;
  EXPECT_EQ(printModule(*m, noLocs).find("loc("), std::string::npos);
}

TEST(ParserTest, ResultGroups) {
  auto m = parseModule(R"(
    func.func @main(%s: tensor<2xui64>) -> tensor<2x2xui64> {
      %state, %bits = stablehlo.rng_bit_generator %s, algorithm = THREE_FRY : (tensor<2xui64>) -> (tensor<2xui64>, tensor<2x2xui64>)
      %0:2 = stablehlo.optimization_barrier %state, %bits : tensor<2xui64>, tensor<2x2xui64>
      return %0#1 : tensor<2x2xui64>
    })");
  const Function& fn = *m->functions()[0];
  const Op& ret = *fn.body().back();
  EXPECT_EQ(ret.operand(0)->index(), 1u);
  EXPECT_TRUE(ret.operand(0)->definingOp()->is(ops::OptimizationBarrier));
  EXPECT_NE(printModule(*m).find("%1:2 = stablehlo.optimization_barrier %0#0, %0#1"), std::string::npos);
}

TEST(ParserTest, SplitFiles) {
  auto source = SourceBuffer::fromString("split.mlir", R"(func.func @a() {
  func.return
}
// -----
func.func @b() {
  func.return
}
  // -----
func.func @c() {
  func.return
})");
  auto modules = parseFile(source);
  ASSERT_EQ(modules.size(), 3u);
  EXPECT_EQ(modules[2]->functions()[0]->name(), "c");
  EXPECT_EQ(modules[2]->functions()[0]->pos, (SourcePos{9, 1}));  // positions stay file-wide
}

TEST(ParserTest, ModuleFunctionAndDialectAttributesAreKept) {
  std::string text = R"(module @jit_f attributes {mhlo.num_partitions = 1 : i32, sdy.mesh = #sdy.mesh<["x"=2]>} {
  func.func public @main(%arg0: tensor<2xf32> {jax.buffer_donor = true, mhlo.sharding = "{replicated}"}) -> (tensor<2xf32> {jax.result_info = "y"}) attributes {jax.uses_shape_polymorphism = false} {
    %0 = stablehlo.custom_call @foo(%arg0) {api_version = 4 : i32, backend_config = {k = 42 : i32}, has_side_effect = true, operand_layouts = [dense<0> : tensor<1xindex>]} : (tensor<2xf32>) -> tensor<2xf32>
    return %0 : tensor<2xf32>
  }
}
)";
  auto m = parseModule(text);
  EXPECT_EQ(m->name, "jit_f");
  EXPECT_EQ(findAttr(m->attrs, "sdy.mesh"), Attribute::opaque("#sdy.mesh<[\"x\"=2]>"));
  const Function& fn = *m->functions()[0];
  EXPECT_EQ(findAttr(fn.argAttrs[0], "jax.buffer_donor"), Attribute::boolean(true));
  EXPECT_EQ(findAttr(fn.resultAttrs[0], "jax.result_info"), Attribute::string("y"));
  EXPECT_EQ(firstOp(*m).attr("call_target_name"), Attribute::string("foo"));
  std::string printed = printModule(*m);
  EXPECT_EQ(printModule(*parseModule(printed)), printed);
  EXPECT_NE(printed.find("#sdy.mesh<[\"x\"=2]>"), std::string::npos);
}

TEST(ParserTest, AttributesAreCanonicalized) {
  auto m = parseModule(R"(
    func.func @main(%a: tensor<2xf32>, %b: tensor<3xf32>) -> tensor<5xf32> {
      %0 = "stablehlo.concatenate"(%a, %b) {dimension = 0} : (tensor<2xf32>, tensor<3xf32>) -> tensor<5xf32>
      return %0 : tensor<5xf32>
    })");
  EXPECT_EQ(firstOp(*m).attr("dimension"), Attribute::integer(0, DType::I64));
}

TEST(ParserTest, DimensionNumbersAndRegions) {
  std::string text = R"(module {
  func.func @main(%arg0: tensor<1x4x4x2xf32>, %arg1: tensor<3x3x2x8xf32>, %arg2: tensor<2x3x4xf32>, %arg3: tensor<2x4x5xf32>) -> (tensor<1x4x4x8xf32>, tensor<2x3x5xf32>) {
    %0 = stablehlo.convolution(%arg0, %arg1) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [1, 1], pad = [[1, 1], [1, 1]], rhs_dilate = [1, 1], reverse = [false, false]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x4x4x2xf32>, tensor<3x3x2x8xf32>) -> tensor<1x4x4x8xf32>
    %1 = stablehlo.dot_general %arg2, %arg3, batching_dims = [0] x [0], contracting_dims = [2] x [1], precision = [DEFAULT, HIGHEST] : (tensor<2x3x4xf32>, tensor<2x4x5xf32>) -> tensor<2x3x5xf32>
    return %0, %1 : tensor<1x4x4x8xf32>, tensor<2x3x5xf32>
  }
}
)";
  auto m = parseModule(text);
  EXPECT_EQ(printModule(*m), text);
  const Op& conv = firstOp(*m);
  Attribute dims = conv.attr("dimension_numbers");
  EXPECT_EQ(recordInt(dims, "input_feature_dimension"), 3);
  EXPECT_EQ(recordInts(dims, "kernel_spatial_dimensions"), (std::vector<int64_t>{0, 1}));
  EXPECT_EQ(conv.attr("padding").asDense().intAt(2), 1);
  EXPECT_EQ(conv.attr("window_reversal"), Attribute::boolArray({false, false}));
}

TEST(ParserTest, ReduceWhileAndChloForms) {
  std::string text = R"(module {
  func.func @main(%arg0: tensor<4x6xbf16>, %arg1: tensor<4x6xi32>, %arg2: tensor<bf16>, %arg3: tensor<i32>) -> (tensor<6xbf16>, tensor<6xi32>, tensor<i32>) {
    %0:2 = stablehlo.reduce(%arg0 init: %arg2), (%arg1 init: %arg3) across dimensions = [0] : (tensor<4x6xbf16>, tensor<4x6xi32>, tensor<bf16>, tensor<i32>) -> (tensor<6xbf16>, tensor<6xi32>)
      reducer(%arg4: tensor<bf16>, %arg6: tensor<bf16>) (%arg5: tensor<i32>, %arg7: tensor<i32>) {
      %1 = stablehlo.maximum %arg4, %arg6 : tensor<bf16>
      %2 = stablehlo.minimum %arg5, %arg7 : tensor<i32>
      stablehlo.return %1, %2 : tensor<bf16>, tensor<i32>
    }
    %1 = stablehlo.while(%arg8 = %arg3) : tensor<i32>
      cond {
      %2 = stablehlo.compare LT, %arg8, %arg3 : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %2 : tensor<i1>
    } do {
      %2 = stablehlo.add %arg8, %arg8 : tensor<i32>
      stablehlo.return %2 : tensor<i32>
    }
    %2 = chlo.lgamma %arg0 : tensor<4x6xbf16> -> tensor<4x6xbf16>
    %3:2 = chlo.top_k(%arg1, k = 2) : tensor<4x6xi32> -> (tensor<4x2xi32>, tensor<4x2xi32>)
    return %0#0, %0#1, %1 : tensor<6xbf16>, tensor<6xi32>, tensor<i32>
  }
}
)";
  auto m = parseModule(text);
  EXPECT_EQ(printModule(*m), text);
  const Op& reduce = firstOp(*m);
  // Reducer pairs are (arg i, arg i + N): the body takes (bf16, i32, bf16, i32).
  EXPECT_EQ(reduce.region(0).argument(1)->type(), Type::scalar(DType::I32));
  EXPECT_EQ(reduce.region(0).argument(2)->type(), Type::scalar(DType::BF16));
}

TEST(ParserTest, CheckOpsInBothDialects) {
  auto stablehloForm = parseModule(R"(
    func.func @main() {
      %0 = stablehlo.constant dense<[1.0, 2.0]> : tensor<2xf32>
      check.expect_almost_eq_const %0, dense<[1.0, 2.0]> : tensor<2xf32> {tolerance = 0.1 : f64}
      check.expect_close %0, %0, max_ulp_difference = 3 : tensor<2xf32>, tensor<2xf32>
      func.return
    })");
  auto ireeForm = parseModule(R"(
    func.func @main() {
      %0 = stablehlo.constant dense<[1.0, 2.0]> : tensor<2xf32>
      check.expect_almost_eq_const(%0, dense<[1.0, 2.0]> : tensor<2xf32>) : tensor<2xf32>
      check.expect_eq(%0, %0) : tensor<2xf32>
      return
    })");
  const Op& withTolerance = *std::next(stablehloForm->functions()[0]->body().ops().begin())->get();
  EXPECT_EQ(withTolerance.attr("tolerance"), Attribute::floating(0.1, DType::F64));
  const Op& iree = *std::next(ireeForm->functions()[0]->body().ops().begin())->get();
  EXPECT_TRUE(iree.is(ops::CheckExpectAlmostEqConst));
  EXPECT_EQ(iree.attrOrDefault("tolerance"), Attribute::floating(1e-4, DType::F64));
}

}  // namespace
}  // namespace kiln::stablehlo

namespace kiln::stablehlo {
namespace {

TEST(ParserImportTest, ImmutableGlobalsBecomeConstants) {
  auto m = parseModule(R"(module {
  util.global private @"w.0" = dense<[1.0, 2.0]> : tensor<2xf32>
  util.global private @b {inlining_policy = #util.inline.never} = #util.byte_pattern<1> : tensor<2xi8>
  func.func @main() -> (tensor<2xf32>, tensor<2xi8>) {
    %p = util.global.address @"w.0" : !util.ptr<tensor<2xf32>>
    %0 = util.global.load.indirect %p : !util.ptr<tensor<2xf32>> -> tensor<2xf32>
    %1 = util.global.load @b : tensor<2xi8>
    return %0, %1 : tensor<2xf32>, tensor<2xi8>
  }
})");
  const Function& fn = *m->functions()[0];
  const Op& w = *fn.body().front();
  ASSERT_TRUE(w.is(ops::Constant));
  EXPECT_EQ(w.attr("value").asDense().floatAt(1), 2.0);
  const Op& b = **std::next(fn.body().ops().begin());
  EXPECT_EQ(b.attr("value").asDense().intAt(0), 1);  // every byte holds the pattern
  EXPECT_THROW(parseModule("module {\n  util.global private mutable @x : tensor<f32>\n}"), Error);
}

TEST(ParserImportTest, ControlFlowGraphsAreLiftedToWhileAndCase) {
  // collatz-like: count the steps of a loop with an if/else inside.
  auto m = parseModule(R"(func.func @steps(%n: tensor<i32>) -> tensor<i32> {
  %zero = stablehlo.constant dense<0> : tensor<i32>
  %one = stablehlo.constant dense<1> : tensor<i32>
  cf.br ^bb1(%zero, %n : tensor<i32>, tensor<i32>)
^bb1(%count: tensor<i32>, %x: tensor<i32>):
  %more = stablehlo.compare GT, %x, %one : (tensor<i32>, tensor<i32>) -> tensor<i1>
  %c = tensor.extract %more[] : tensor<i1>
  cf.cond_br %c, ^bb2, ^bb3(%count : tensor<i32>)
^bb2:
  %next = stablehlo.subtract %x, %one : tensor<i32>
  %count1 = stablehlo.add %count, %one : tensor<i32>
  cf.br ^bb1(%count1, %next : tensor<i32>, tensor<i32>)
^bb3(%result: tensor<i32>):
  return %result : tensor<i32>
})");
  const Function& fn = *m->functions()[0];
  bool hasWhile = false, hasCase = false;
  walk(fn.body(), [&](Op& op) {
    hasWhile = hasWhile || op.is(ops::While);
    hasCase = hasCase || op.is(ops::Case);
  });
  EXPECT_TRUE(hasWhile);
  EXPECT_TRUE(hasCase);
  std::string printed = printModule(*m);
  EXPECT_EQ(printModule(*parseModule(printed)), printed);
  EXPECT_THROW(parseModule("func.func @f() {\n  cf.br ^nowhere\n}"), Error);
}

// Locations are resolved at the end of the file (aliases come last), so IR read and then
// rewritten keeps them: the ops a control-flow graph's blocks lift into, and a manual
// computation whose sdy.return has one (its body is dropped once inlined; the pending
// location once pointed into freed memory, which crashed now and then).
TEST(ParserImportTest, LocationsSurviveWhatTheImportRewrites) {
  auto m = parseModule(R"(func.func @f(%x: tensor<i32>) -> tensor<i32> {
  cf.br ^bb1(%x : tensor<i32>)
^bb1(%y: tensor<i32>):
  %z = stablehlo.negate %y : tensor<i32> loc(#neg)
  return %z : tensor<i32> loc(#ret)
}
#neg = loc("user.py":7:3)
#ret = loc("user.py":8:3))");
  bool found = false;
  walk(m->functions()[0]->body(), [&](Op& op) {
    if (op.is(ops::Negate)) found = op.loc.fileLocation().line() == 7;
  });
  EXPECT_TRUE(found) << printModule(*m);

  auto manual = parseModule(R"(module @manual {
  sdy.mesh @mesh = <["x"=2]>
  func.func @main(%x: tensor<8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}]>}) -> tensor<8xf32> {
    %0 = sdy.manual_computation(%x) in_shardings=[<@mesh, [{"x"}]>] out_shardings=[<@mesh, [{"x"}]>]
        manual_axes={"x"} (%piece: tensor<4xf32>) {
      %d = stablehlo.multiply %piece, %piece : tensor<4xf32> loc(#mul)
      sdy.return %d : tensor<4xf32> loc(#ret)
    } : (tensor<8xf32>) -> tensor<8xf32> loc(#mc)
    return %0 : tensor<8xf32>
  }
}
#mul = loc("user.py":3:5)
#ret = loc("user.py":4:5)
#mc = loc("user.py":2:5))");
  found = false;
  walk(manual->functions()[0]->body(), [&](Op& op) {
    if (op.is(ops::Multiply)) found = op.loc.fileLocation().line() == 3;
  });
  EXPECT_TRUE(found) << printModule(*manual);
}

}  // namespace
}  // namespace kiln::stablehlo
