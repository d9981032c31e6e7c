// The op registry: every op has a consistent row and a well-formed pretty syntax.
#include "ir/op_registry.h"

#include <gtest/gtest.h>

#include <set>

#include "ir/attr_schema.h"
#include "ir/infer.h"
#include "ir/ops/compiler.h"
#include "ir/ops/stablehlo.h"
#include "stablehlo/op_syntax.h"

namespace kiln {
namespace {

TEST(OpRegistryTest, RowsAreConsistent) {
  std::set<std::string_view> names;
  for (const OpInfo& info : allOps()) {
    EXPECT_TRUE(names.insert(info.name).second) << info.name;
    EXPECT_EQ(lookupOp(info.name), info.code) << info.name;
    EXPECT_LE(info.operands.min, info.operands.max < 0 ? info.operands.min : info.operands.max);
    if (info.category == OpCategory::Chlo) {  // each says how it lowers, and lowers
      EXPECT_FALSE(info.decomposition.empty()) << info.name;
      EXPECT_NE(info.decompose, nullptr) << info.name;
    }
    // Compiling the syntax checks it names only attributes of the op.
    EXPECT_NO_THROW(stablehlo::opSyntax(info.code)) << info.name;
    for (const AttrSpec& spec : info.attrs) {
      if (spec.defaultValue()) {
        EXPECT_FALSE(spec.required) << info.name << "." << spec.name;
      }
    }
  }
  EXPECT_EQ(lookupOp("return"), ops::FuncReturn);
  EXPECT_FALSE(lookupOp("stablehlo.nope").has_value());
}

// The VHLO column: every StableHLO op has its VHLO name (but the ops StableHLO keeps out of
// portable artifacts and kiln's own stablehlo.dot-like helpers), names are unique, and each
// VHLO attribute lands somewhere: an attribute of the op, a field of one of its records,
// or a channel (channel_id and channel_type make a channel_handle).
TEST(OpRegistryTest, VhloNamesCoverStablehlo) {
  const std::set<std::string_view> withoutVhlo = {"stablehlo.return", "stablehlo.collective_reduce"};
  std::set<std::string_view> vhloNames;
  for (const OpInfo& info : allOps()) {
    if (info.vhlo.empty()) {
      EXPECT_TRUE(!info.name.starts_with("stablehlo.") || withoutVhlo.count(info.name)) << info.name << " has no VHLO name";
      continue;
    }
    EXPECT_TRUE(vhloNames.insert(info.vhlo).second) << info.vhlo;
    std::string_view attrs = info.vhloAttrs;
    while (!attrs.empty()) {
      const size_t end = std::min(attrs.find(' '), attrs.size());
      const std::string_view name = attrs.substr(0, end);
      attrs.remove_prefix(std::min(end + 1, attrs.size()));
      bool lands = info.findAttr(name) || name == "channel_id" || name == "channel_type";
      for (const AttrSpec& spec : info.attrs)
        if (spec.kind == AttrKind::Record && recordSchema(spec.type) && recordSchema(spec.type)->find(name)) lands = true;
      EXPECT_TRUE(lands) << info.vhlo << "'s " << name << " lands nowhere in " << info.name;
    }
  }
}

TEST(OpRegistryTest, CoversTheSpec) {
  // Every op with a `### name` heading in the spec's op list is registered.
  for (const char* op : {"abs", "add", "after_all", "all_gather", "all_reduce", "all_to_all", "and",
                         "atan2", "batch_norm_grad", "batch_norm_inference", "batch_norm_training",
                         "bitcast_convert", "broadcast_in_dim", "case", "cbrt", "ceil", "cholesky",
                         "clamp", "collective_broadcast", "collective_permute", "compare", "complex",
                         "composite", "concatenate", "constant", "convert", "convolution", "cosine",
                         "count_leading_zeros", "custom_call", "divide", "dot_general",
                         "dynamic_slice", "dynamic_update_slice", "exponential",
                         "exponential_minus_one", "fft", "floor", "gather", "get_dimension_size",
                         "get_tuple_element", "if", "imag", "infeed", "iota", "is_finite", "log",
                         "log_plus_one", "logistic", "map", "maximum", "minimum", "multiply",
                         "negate", "not", "optimization_barrier", "or", "outfeed", "pad",
                         "partition_id", "popcnt", "power", "real", "recv", "reduce",
                         "reduce_precision", "reduce_scatter", "reduce_window", "remainder",
                         "replica_id", "reshape", "reverse", "rng", "rng_bit_generator",
                         "round_nearest_afz", "round_nearest_even", "rsqrt", "scatter", "select",
                         "select_and_scatter", "send", "shift_left", "shift_right_arithmetic",
                         "shift_right_logical", "sign", "sine", "slice", "sort", "sqrt", "subtract",
                         "tan", "tanh", "transpose", "triangular_solve", "tuple",
                         "uniform_dequantize", "uniform_quantize", "while", "xor"}) {
    EXPECT_TRUE(lookupOp(std::string("stablehlo.") + op).has_value()) << op;
  }
}

TEST(OpRegistryTest, DefaultsAreReadThroughOps) {
  const OpInfo& sort = opInfo(ops::Sort);
  ASSERT_NE(sort.findAttr("dimension"), nullptr);
  EXPECT_EQ(sort.findAttr("dimension")->defaultValue(), Attribute::integer(-1));
  EXPECT_TRUE(opInfo(ops::Add).has(kCommutative));
  EXPECT_FALSE(opInfo(ops::Subtract).has(kCommutative));
  EXPECT_TRUE(opInfo(ops::Return).isTerminator());
}

// Composite ops are numbered after the last primitive of ops.def, and each carries the
// decomposition every layer runs it by.
TEST(OpRegistryTest, CompositeOpsFollowThePrimitives) {
  std::span<const OpInfo> ops = allOps();
  for (size_t i = 0; i < ops.size(); ++i) EXPECT_EQ(static_cast<size_t>(ops[i].code), i) << ops[i].name;
  std::optional<OpCode> add = lookupOp("chlo.broadcast_add");
  ASSERT_TRUE(add.has_value());
  EXPECT_GT(static_cast<size_t>(*add), static_cast<size_t>(ops::Fusion));
  EXPECT_NE(opInfo(*add).decompose, nullptr);
  EXPECT_TRUE(opInfo(*add).has(kBroadcasting));
  for (const OpInfo& info : ops) {
    if (info.category == OpCategory::Composite) {
      EXPECT_NE(info.decompose, nullptr) << info.name;
    }
  }
}

// Every op of the registry has a type rule: the builder and the verifier can type it.
TEST(OpRegistryTest, EveryOpHasATypeRule) {
  for (const OpInfo& info : allOps()) EXPECT_TRUE(hasTypeRule(info.code)) << info.name;
}

}  // namespace
}  // namespace kiln
