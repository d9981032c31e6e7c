// The op table: one row per opcode of ops.def. The pretty-form syntax strings use the
// format language documented in stablehlo/op_syntax.h.
#include "ir/op_registry.h"

#include <cmath>
#include <unordered_map>

#include "ir/batch_norm_decompositions.h"
#include "ir/chlo_decompositions.h"
#include "ir/composite_ops.h"
#include "ir/float_format.h"
#include "ir/region_decompositions.h"
#include "ir/stablehlo_decompositions.h"
#include "support/error.h"

namespace kiln {
namespace {

using A = AttrKind;
using C = OpCategory;

constexpr Arity exactly(int n) { return {n, n}; }
constexpr Arity atLeast(int n) { return {n, -1}; }
constexpr Arity between(int lo, int hi) { return {lo, hi}; }

// ---- attribute specs ----
AttrSpec req(std::string_view name, AttrKind kind, std::string_view type = {}) {
  return {name, kind, type, DType::I64, true, {}};
}
AttrSpec opt(std::string_view name, AttrKind kind, std::string_view type = {}) {
  return {name, kind, type, DType::I64, false, {}};
}
AttrSpec reqInt(std::string_view name, DType t = DType::I64) {
  return {name, A::Int, {}, t, true, {}};
}
AttrSpec intOr(std::string_view name, int64_t dflt, DType t = DType::I64) {
  return {name, A::Int, {}, t, false, Attribute::integer(dflt, t)};
}
AttrSpec boolOr(std::string_view name, bool dflt) {
  return {name, A::Bool, {}, DType::I1, false, Attribute::boolean(dflt)};
}
AttrSpec floatOr(std::string_view name, double dflt, DType t) {
  return {name, A::Float, {}, t, false, Attribute::floating(dflt, t)};
}
AttrSpec stringOr(std::string_view name, std::string dflt) {
  return {name, A::String, {}, DType::I64, false, Attribute::string(std::move(dflt))};
}
AttrSpec precision(std::string_view dialect = "stablehlo") {
  return opt("precision_config", A::EnumArray,
             dialect == "chlo" ? "chlo.precision" : "stablehlo.precision");
}
AttrSpec resultAccuracy() { return opt("result_accuracy", A::Record, "stablehlo.result_accuracy"); }
AttrSpec channelHandle(bool required = false) {
  return {"channel_handle", A::Record, "stablehlo.channel_handle", DType::I64, required, {}};
}
AttrSpec replicaGroups() { return req("replica_groups", A::DenseI64); }
AttrSpec globalIds() { return opt("use_global_device_ids", A::Unit); }

// ---- syntax strings shared by families ----
constexpr std::string_view kSame = "operands attr-dict : type(same)";
constexpr std::string_view kFn = "operands attr-dict : type(fn)";
constexpr std::string_view kArrow = "operands attr-dict : type(arrow)";
constexpr std::string_view kReturn = "operands attr-dict [[ : type(operands) ]]";

class TableBuilder {
 public:
  std::vector<OpInfo> rows;

  OpInfo& op(OpCode code, C category, Arity operands, Arity results, std::string_view syntax = {},
             uint32_t traits = kNoTraits) {
    OpInfo info;
    info.code = code;
    info.category = category;
    info.operands = operands;
    info.results = results;
    info.regions = exactly(0);
    info.syntax = syntax;
    info.traits = traits;
    if (traits & kElementwise) info.fusion = FusionRole::Loop;
    rows.push_back(std::move(info));
    return rows.back();
  }
  OpInfo& row(OpCode code) { return rows[static_cast<size_t>(code)]; }
  OpInfo& unary(OpCode code, uint32_t traits = kNoTraits) {
    return op(code, C::ElementwiseUnary, exactly(1), exactly(1), kSame, traits | kElementwise);
  }
  // Transcendental unary ops carry an optional result_accuracy.
  OpInfo& math(OpCode code) {
    OpInfo& info = unary(code);
    info.attrs = {resultAccuracy()};
    return info;
  }
  OpInfo& binary(OpCode code, uint32_t traits = kNoTraits) {
    return op(code, C::ElementwiseBinary, exactly(2), exactly(1), kSame, traits | kElementwise);
  }
  OpInfo& chloUnary(OpCode code, std::string_view decomposition) {
    OpInfo& info = op(code, C::Chlo, exactly(1), exactly(1), kArrow, kElementwise);
    info.decomposition = decomposition;
    return info;
  }
};

std::vector<OpInfo> buildTable() {
  TableBuilder t;
  using O = OpCode;
  constexpr uint32_t kComm = kCommutative;

  // func dialect
  t.op(O::FuncCall, C::ControlFlow, atLeast(0), atLeast(0), "$callee ^( operands ) attr-dict : type(fn)")
      .attrs = {req("callee", A::Symbol)};
  t.op(O::FuncReturn, C::ControlFlow, atLeast(0), exactly(0), kReturn, kTerminator);

  // StableHLO, alphabetical as in ops.def
  t.unary(O::Abs);
  t.binary(O::Add, kComm);
  t.op(O::AfterAll, C::Communication, atLeast(0), exactly(1), kSame);
  t.op(O::AllGather, C::Collective, atLeast(1), atLeast(1), {}, kSideEffect).attrs = {
      req("all_gather_dim", A::Int), replicaGroups(), channelHandle(), globalIds()};
  t.op(O::AllReduce, C::Collective, atLeast(1), atLeast(1), {}, kSideEffect).attrs = {
      replicaGroups(), channelHandle(), globalIds()};
  t.rows.back().regions = exactly(1);
  t.op(O::AllToAll, C::Collective, atLeast(1), atLeast(1), {}, kSideEffect).attrs = {
      req("split_dimension", A::Int), req("concat_dimension", A::Int),
      req("split_count", A::Int), replicaGroups(), channelHandle()};
  t.binary(O::And, kComm);
  t.op(O::AsyncDone, C::Misc, exactly(1), atLeast(0));
  t.op(O::AsyncStart, C::Misc, atLeast(0), atLeast(0)).regions = exactly(1);
  t.binary(O::Atan2);
  t.op(O::BatchNormGrad, C::Normalization, exactly(5), exactly(3)).attrs = {
      req("epsilon", A::Float), req("feature_index", A::Int)};
  t.rows.back().attrs[0].dtype = DType::F32;
  t.rows.back().decompose = &decomposeBatchNormGrad;
  t.op(O::BatchNormInference, C::Normalization, exactly(5), exactly(1)).attrs = {
      req("epsilon", A::Float), req("feature_index", A::Int)};
  t.rows.back().attrs[0].dtype = DType::F32;
  t.rows.back().decompose = &decomposeBatchNormInference;
  t.op(O::BatchNormTraining, C::Normalization, exactly(3), exactly(3)).attrs = {
      req("epsilon", A::Float), req("feature_index", A::Int)};
  t.rows.back().attrs[0].dtype = DType::F32;
  t.rows.back().decompose = &decomposeBatchNormTraining;
  t.op(O::BitcastConvert, C::ElementwiseUnary, exactly(1), exactly(1), kFn);
  t.op(O::Broadcast, C::DataMovement, exactly(1), exactly(1),
       "operands , sizes = $broadcast_sizes attr-dict : type(fn)")
      .attrs = {req("broadcast_sizes", A::I64Array)};
  t.rows.back().decompose = &decomposeBroadcast;
  t.op(O::BroadcastInDim, C::DataMovement, exactly(1), exactly(1),
       "operands , dims = $broadcast_dimensions attr-dict : type(fn)")
      .attrs = {req("broadcast_dimensions", A::I64Array)};
  t.op(O::Case, C::ControlFlow, exactly(1), atLeast(0)).regions = atLeast(1);
  t.math(O::Cbrt);
  t.unary(O::Ceil);
  t.op(O::Cholesky, C::Linalg, exactly(1), exactly(1),
       "operands [[ , lower = $lower ]] attr-dict : type(same)")
      .attrs = {boolOr("lower", false)};
  t.op(O::Clamp, C::ElementwiseOther, exactly(3), exactly(1), kSame);
  // With has_dynamic_root, a last operand gives the root of each data operand.
  t.op(O::CollectiveBroadcast, C::Collective, atLeast(1), atLeast(1), {}, kSideEffect).attrs = {
      replicaGroups(), channelHandle(), opt("has_dynamic_root", A::Unit)};
  t.op(O::CollectivePermute, C::Collective, exactly(1), exactly(1), {}, kSideEffect).attrs = {
      req("source_target_pairs", A::DenseI64), channelHandle()};
  t.op(O::CollectiveReduce, C::Collective, exactly(1), exactly(1), {}, kSideEffect).attrs = {
      replicaGroups(), channelHandle()};
  t.rows.back().regions = exactly(1);
  t.op(O::Compare, C::ElementwiseOther, exactly(2), exactly(1),
       "$comparison_direction , operands [[ , $compare_type ]] attr-dict : type(fn)", kElementwise)
      .attrs = {req("comparison_direction", A::Enum, "stablehlo.comparison_direction"),
                opt("compare_type", A::Enum, "stablehlo.comparison_type")};
  t.op(O::Complex, C::ElementwiseBinary, exactly(2), exactly(1),
       "operands attr-dict : type(complex)", kElementwise);
  t.op(O::Composite, C::Misc, atLeast(0), atLeast(0), "$name operands attr-dict : type(fn)",
       kSideEffect)
      .attrs = {req("name", A::String),
                {"composite_attributes", A::Any, {}, DType::I64, false, Attribute::dictionary({})},
                req("decomposition", A::Symbol), intOr("version", 0, DType::I32)};
  t.rows.back().decompose = &decomposeComposite;
  t.op(O::Concatenate, C::DataMovement, atLeast(1), exactly(1),
       "operands , dim = $dimension attr-dict : type(fn)")
      .attrs = {reqInt("dimension")};
  t.op(O::Constant, C::Constant, exactly(0), exactly(1), "!constant").attrs = {
      req("value", A::Dense)};
  t.op(O::Convert, C::ElementwiseUnary, exactly(1), exactly(1), kSame, kElementwise);
  t.op(O::Convolution, C::Linalg, exactly(2), exactly(1),
       "^( operands ) dim_numbers = $dimension_numbers , window = custom(window) attr-dict : type(fn)")
      .attrs = {opt("window_strides", A::I64Array), opt("padding", A::DenseI64),
                opt("lhs_dilation", A::I64Array), opt("rhs_dilation", A::I64Array),
                opt("window_reversal", A::BoolArray),
                req("dimension_numbers", A::Record, "stablehlo.conv"),
                reqInt("feature_group_count"), reqInt("batch_group_count"), precision()};
  t.math(O::Cosine);
  t.unary(O::CountLeadingZeros);
  t.op(O::CustomCall, C::Misc, atLeast(0), atLeast(0),
       "custom(target) ^( operands ) attr-dict : type(fn)")
      .attrs = {req("call_target_name", A::String), boolOr("has_side_effect", false),
                opt("backend_config", A::Any), intOr("api_version", 1, DType::I32),
                {"called_computations", A::SymbolArray, {}, DType::I64, false, Attribute::array({})},
                opt("operand_layouts", A::Any), opt("result_layouts", A::Any),
                {"output_operand_aliases", A::RecordArray, "stablehlo.output_operand_alias",
                 DType::I64, false, Attribute::array({})}};
  t.binary(O::Divide);
  t.op(O::Dot, C::Linalg, exactly(2), exactly(1),
       "operands [[ , precision = $precision_config ]] attr-dict : type(fn)")
      .attrs = {precision()};
  t.op(O::DotGeneral, C::Linalg, exactly(2), exactly(1),
       "operands , custom(dot-dims) [[ , precision = $precision_config ]] "
       "[[ , algorithm = $algorithm ]] attr-dict : type(fn)")
      .attrs = {req("dot_dimension_numbers", A::Record, "stablehlo.dot"), precision(),
                opt("algorithm", A::Record, "stablehlo.dot_algorithm")};
  t.op(O::DynamicBroadcastInDim, C::DataMovement, exactly(2), exactly(1),
       "operands , dims = $broadcast_dimensions attr-dict : type(fn)")
      .attrs = {req("broadcast_dimensions", A::I64Array),
                opt("known_expanding_dimensions", A::I64Array),
                opt("known_nonexpanding_dimensions", A::I64Array)};
  t.rows.back().decompose = &decomposeDynamicBroadcastInDim;
  t.op(O::DynamicConv, C::Linalg, exactly(3), exactly(1)).attrs = {
      opt("window_strides", A::I64Array), opt("lhs_dilation", A::I64Array),
      opt("rhs_dilation", A::I64Array), opt("window_reversal", A::BoolArray),
      req("dimension_numbers", A::Record, "stablehlo.conv"), reqInt("feature_group_count"),
      reqInt("batch_group_count"), precision()};
  t.rows.back().decompose = &decomposeDynamicConv;
  t.op(O::DynamicGather, C::DataMovement, exactly(3), exactly(1)).attrs = {
      req("dimension_numbers", A::Record, "stablehlo.gather"), boolOr("indices_are_sorted", false)};
  t.rows.back().decompose = &decomposeDynamicGather;
  t.op(O::DynamicIota, C::DataMovement, exactly(1), exactly(1),
       "operands , dim = $iota_dimension attr-dict : type(fn)")
      .attrs = {reqInt("iota_dimension")};
  t.rows.back().decompose = &decomposeDynamicIota;
  t.op(O::DynamicPad, C::DataMovement, exactly(5), exactly(1), kFn);
  t.rows.back().decompose = &decomposeDynamicPad;
  t.op(O::DynamicReshape, C::DataMovement, exactly(2), exactly(1), kFn);
  t.rows.back().decompose = &decomposeDynamicReshape;
  t.op(O::DynamicSlice, C::DataMovement, atLeast(1), exactly(1),
       "operands , sizes = $slice_sizes attr-dict : type(fn)")
      .attrs = {req("slice_sizes", A::I64Array)};
  t.op(O::DynamicUpdateSlice, C::DataMovement, atLeast(2), exactly(1), kFn);
  t.math(O::Exponential);
  t.math(O::ExponentialMinusOne);
  t.op(O::Fft, C::Linalg, exactly(1), exactly(1),
       "operands , type = $fft_type , length = $fft_length attr-dict : type(fn)")
      .attrs = {req("fft_type", A::Enum, "stablehlo.fft_type"), req("fft_length", A::I64Array)};
  t.unary(O::Floor);
  t.op(O::Gather, C::DataMovement, exactly(2), exactly(1)).attrs = {
      req("dimension_numbers", A::Record, "stablehlo.gather"), req("slice_sizes", A::I64Array),
      boolOr("indices_are_sorted", false)};
  t.op(O::GetDimensionSize, C::Misc, exactly(1), exactly(1),
       "operands , dim = $dimension attr-dict : type(fn)")
      .attrs = {reqInt("dimension")};
  t.op(O::GetTupleElement, C::Tuple, exactly(1), exactly(1),
       "operands ^[ $index ] attr-dict : type(fn)")
      .attrs = {reqInt("index", DType::I32)};
  t.op(O::If, C::ControlFlow, exactly(1), atLeast(0)).regions = exactly(2);
  t.unary(O::Imag);
  t.op(O::Infeed, C::Communication, exactly(1), atLeast(1), {}, kSideEffect).attrs = {
      stringOr("infeed_config", ""), opt("layout", A::Any)};
  t.op(O::Iota, C::DataMovement, exactly(0), exactly(1),
       "dim = $iota_dimension attr-dict : type(result)")
      .attrs = {reqInt("iota_dimension")};
  t.op(O::IsFinite, C::ElementwiseUnary, exactly(1), exactly(1), kFn, kElementwise);
  t.math(O::Log);
  t.math(O::LogPlusOne);
  t.math(O::Logistic);
  t.op(O::Map, C::Reduction, atLeast(1), exactly(1)).attrs = {req("dimensions", A::I64Array)};
  t.rows.back().decompose = &decomposeMap;
  t.rows.back().regions = exactly(1);
  t.binary(O::Maximum, kComm);
  t.binary(O::Minimum, kComm);
  t.binary(O::Multiply, kComm);
  t.unary(O::Negate);
  t.unary(O::Not);
  t.op(O::OptimizationBarrier, C::Misc, atLeast(0), atLeast(0),
       "attr-dict operands [[ : type(operands) ]]");
  t.binary(O::Or, kComm);
  t.op(O::Outfeed, C::Communication, atLeast(1), exactly(1), {}, kSideEffect).attrs = {
      stringOr("outfeed_config", "")};
  t.op(O::Pad, C::DataMovement, exactly(2), exactly(1),
       "operands , low = $edge_padding_low , high = $edge_padding_high , "
       "interior = $interior_padding attr-dict : type(fn)")
      .attrs = {req("edge_padding_low", A::I64Array), req("edge_padding_high", A::I64Array),
                req("interior_padding", A::I64Array)};
  t.op(O::PartitionId, C::Collective, exactly(0), exactly(1), "attr-dict : type(result)");
  t.unary(O::Popcnt);
  t.binary(O::Power);
  t.unary(O::Real);
  t.op(O::Recv, C::Communication, exactly(1), atLeast(1), {}, kSideEffect).attrs = {
      channelHandle(true), boolOr("is_host_transfer", false), opt("source_target_pairs", A::DenseI64)};
  t.op(O::Reduce, C::Reduction, atLeast(2), atLeast(1), "!reduce").attrs = {
      req("dimensions", A::I64Array)};
  t.rows.back().regions = exactly(1);
  t.op(O::ReducePrecision, C::ElementwiseUnary, exactly(1), exactly(1),
       "operands , format = custom(exponent-mantissa) attr-dict : type(same)", kElementwise)
      .attrs = {reqInt("exponent_bits", DType::I32), reqInt("mantissa_bits", DType::I32)};
  t.op(O::ReduceScatter, C::Collective, exactly(1), exactly(1), {}, kSideEffect).attrs = {
      req("scatter_dimension", A::Int), replicaGroups(), channelHandle(), globalIds()};
  t.rows.back().regions = exactly(1);
  t.op(O::ReduceWindow, C::Reduction, atLeast(2), atLeast(1)).attrs = {
      req("window_dimensions", A::I64Array), opt("window_strides", A::I64Array),
      opt("base_dilations", A::I64Array), opt("window_dilations", A::I64Array),
      opt("padding", A::DenseI64)};
  t.rows.back().regions = exactly(1);
  t.rows.back().decompose = &decomposeReduceWindow;
  t.binary(O::Remainder);
  t.op(O::ReplicaId, C::Collective, exactly(0), exactly(1), "attr-dict : type(result)");
  t.op(O::Reshape, C::DataMovement, exactly(1), exactly(1), kFn);
  t.op(O::Return, C::ControlFlow, atLeast(0), exactly(0), kReturn, kTerminator);
  t.op(O::Reverse, C::DataMovement, exactly(1), exactly(1),
       "operands , dims = $dimensions attr-dict : type(same)")
      .attrs = {req("dimensions", A::I64Array)};
  t.op(O::Rng, C::Random, exactly(3), exactly(1),
       "operands , distribution = $rng_distribution attr-dict : type(fn)")
      .attrs = {req("rng_distribution", A::Enum, "stablehlo.rng_distribution")};
  t.op(O::RngBitGenerator, C::Random, exactly(1), exactly(2),
       "operands , algorithm = $rng_algorithm attr-dict : type(fn)")
      .attrs = {req("rng_algorithm", A::Enum, "stablehlo.rng_algorithm")};
  t.unary(O::RoundNearestAfz);
  t.unary(O::RoundNearestEven);
  t.math(O::Rsqrt);
  t.op(O::Scatter, C::Reduction, atLeast(3), atLeast(1)).attrs = {
      req("scatter_dimension_numbers", A::Record, "stablehlo.scatter"),
      boolOr("indices_are_sorted", false), boolOr("unique_indices", false)};
  t.rows.back().regions = exactly(1);
  t.op(O::Select, C::ElementwiseOther, exactly(3), exactly(1),
       "operands attr-dict : type(select)");
  t.op(O::SelectAndScatter, C::Reduction, exactly(3), exactly(1)).attrs = {
      opt("window_dimensions", A::I64Array), opt("window_strides", A::I64Array),
      opt("padding", A::DenseI64)};
  t.rows.back().regions = exactly(2);
  t.op(O::Send, C::Communication, atLeast(1), exactly(1), {}, kSideEffect).attrs = {
      channelHandle(true), boolOr("is_host_transfer", false), opt("source_target_pairs", A::DenseI64)};
  t.binary(O::ShiftLeft);
  t.binary(O::ShiftRightArithmetic);
  t.binary(O::ShiftRightLogical);
  t.unary(O::Sign);
  t.math(O::Sine);
  t.op(O::Slice, C::DataMovement, exactly(1), exactly(1),
       "operands custom(slice) attr-dict : type(fn)")
      .attrs = {req("start_indices", A::I64Array), req("limit_indices", A::I64Array),
                req("strides", A::I64Array)};
  t.op(O::Sort, C::Reduction, atLeast(1), atLeast(1)).attrs = {intOr("dimension", -1),
                                                              boolOr("is_stable", false)};
  t.rows.back().regions = exactly(1);
  t.math(O::Sqrt);
  t.binary(O::Subtract);
  t.math(O::Tan);
  t.math(O::Tanh);
  t.op(O::TorchIndexSelect, C::DataMovement, exactly(2), exactly(1)).attrs = {
      reqInt("dim"), reqInt("batch_dims")};
  t.rows.back().decompose = &decomposeTorchIndexSelect;
  t.op(O::Transpose, C::DataMovement, exactly(1), exactly(1),
       "operands , dims = $permutation attr-dict : type(fn)")
      .attrs = {req("permutation", A::I64Array)};
  t.op(O::TriangularSolve, C::Linalg, exactly(2), exactly(1)).attrs = {
      req("left_side", A::Bool), req("lower", A::Bool), req("unit_diagonal", A::Bool),
      req("transpose_a", A::Enum, "stablehlo.transpose")};
  t.op(O::Tuple, C::Tuple, atLeast(0), exactly(1), "operands attr-dict : type(tuple)");
  t.op(O::UniformDequantize, C::Quantization, exactly(1), exactly(1), kFn);
  t.op(O::UniformQuantize, C::Quantization, exactly(1), exactly(1), kFn);
  t.op(O::While, C::ControlFlow, atLeast(0), atLeast(0), "!while").regions = exactly(2);
  t.binary(O::Xor, kComm);

  // CHLO
  t.chloUnary(O::ChloAcos,
              "acos(x) = 2·atan2(sqrt((1 - x)(1 + x)), 1 + x), π at -1; complex: Hull et al. over "
              "the parts, atan2(d, x) - i·log1p(a - 1 + sqrt((a - 1)(a + 1))), log(2a) when huge")
      .decompose = &decomposeAcos;
  t.chloUnary(O::ChloAcosh,
              "acosh(x) = log1p(t + sqrt(t(x + 1))), t = x - 1; log(x) + log 2 for large x; NaN "
              "below 1; complex: ±i·acos(z) (Hull et al.), real part non-negative")
      .decompose = &decomposeAcosh;
  t.chloUnary(O::ChloAsin,
              "asin(x) = 2·atan2(x, 1 + sqrt((1 - x)(1 + x))), x itself when tiny; complex: Hull "
              "et al. over the parts, atan2(x, d) + i·log1p(a - 1 + sqrt((a - 1)(a + 1)))")
      .decompose = &decomposeAsin;
  t.chloUnary(O::ChloAsinh,
              "asinh(x) = sign(x)·log1p(|x| + x²/(1 + sqrt(1 + x²))); log|x| + log 2 for large "
              "|x|; complex: -i·asin(iz) (Hull et al.)")
      .decompose = &decomposeAsinh;
  t.chloUnary(O::ChloAtan, "atan(x) = atan2(x, 1); complex: -i·atanh(iz)").decompose =
      &decomposeAtan;
  t.chloUnary(O::ChloAtanh,
              "atanh(x) = (log1p(x) - log1p(-x)) / 2: ±inf at ±1, NaN beyond; complex: "
              "log1p(4|x|/((1 - |x|)² + y²))/4 + i·atan2(2y, (1 - x)(1 + x) - y²)/2, 1/z when "
              "huge")
      .decompose = &decomposeAtanh;
  t.chloUnary(O::ChloBesselI1e,
              "Cephes' Chebyshev series (Clenshaw) for exp(-|x|)·I1(x): |x|·A(|x|/2 - 2) up to 8, "
              "B(32/|x| - 2)/sqrt|x| beyond; odd")
      .decompose = &decomposeBesselI1e;
  t.chloUnary(O::ChloCosh,
              "cosh(x) = exp(x + log ½) + exp(-x + log ½) below f64; f64: (e + 1/e)/2, e = exp|x|, "
              "then (exp(|x|/2)/2)·exp(|x|/2) from 20; complex: cosh x·cos y + i·sinh x·sin y (the "
              "f64 forms)")
      .decompose = &decomposeCosh;
  t.chloUnary(O::ChloDigamma,
              "ψ(x + 10) - Σ 1/(x + k) and the asymptotic series; Taylor series around the root on "
              "[1, 2]; reflection below 0; -inf at ±0, NaN at the poles")
      .decompose = &decomposeDigamma;
  t.chloUnary(O::ChloErf,
              "Cephes: x·T(x²)/U(x²) for |x| < 1, else ±(1 - erfc|x|), erfc = exp(-x²)·P/Q (R/S "
              "from 8), exp(-x²) split so that x² is exact")
      .decompose = &decomposeErf;
  t.chloUnary(O::ChloErfInv,
              "Giles' single-precision polynomials in w = -log((1 - x)(1 + x)); f64: three Halley "
              "steps on erf/erfc from there; ±inf at ±1")
      .decompose = &decomposeErfInv;
  t.chloUnary(O::ChloErfc,
              "1 - erf(x) for |x| < 1, else the Cephes rational forms exp(-x²)·P/Q, R/S (2 - "
              "erfc(-x) for x < 0)")
      .decompose = &decomposeErfc;
  t.chloUnary(O::ChloLgamma,
              "Lanczos (g = 7, 9 terms), less log x below 1; reflection log π - log|sin πx| - "
              "lgamma(1 - x) below 0; +inf at the poles and ±inf")
      .decompose = &decomposeLgamma;
  t.op(O::ChloMulhi, C::Chlo, exactly(2), exactly(1), {}, kElementwise).decomposition =
      "high half of the double-width product: convert to 2N bits, multiply, shift right N; 64 "
      "bits: schoolbook from 32-bit halves in u64, signed less (x < 0 ? y : 0) + (y < 0 ? x : 0)";
  t.rows.back().decompose = &decomposeMulhi;
  t.op(O::ChloNextAfter, C::Chlo, exactly(2), exactly(1), kArrow, kElementwise).decomposition =
      "bitcast to integers, step by ±1 ulp toward y; NaN and ±0 handled separately";
  t.rows.back().decompose = &decomposeNextAfter;
  t.op(O::ChloRaggedDot, C::Chlo, exactly(3), exactly(1)).attrs = {
      req("ragged_dot_dimension_numbers", A::Record, "chlo.ragged_dot"), precision("chlo")};
  t.rows.back().decomposition =
      "dense dot_generals masked by the group of each ragged coordinate: free, every group then "
      "a sum over the group dimension keeping each row's own; contracting, a leading group "
      "batch dimension zeroed outside each group; batch, batches past the groups zeroed";
  t.rows.back().decompose = &decomposeRaggedDot;
  t.op(O::ChloScan, C::Chlo, atLeast(1), atLeast(1), "!scan").attrs = {
      reqInt("dimension"), boolOr("is_reverse", false), opt("is_associative", A::Bool),
      req("operandSegmentSizes", A::Any)};  // [inputs, inits], as MLIR stores the split
  t.rows.back().regions = exactly(1);
  t.rows.back().decomposition = "a while loop over the scan dimension with dynamic_slice and "
                                "dynamic_update_slice";
  t.rows.back().decompose = &decomposeScan;
  t.chloUnary(O::ChloSinh,
              "sinh(x) from expm1 below |x| = 1, else exp(x + log ½) - exp(-x + log ½); f64: expm1 "
              "up to 20, then (exp(|x|/2)/2)·exp(|x|/2); complex: sinh x·cos y + i·cosh x·sin y "
              "(the f64 forms)")
      .decompose = &decomposeSinh;
  t.chloUnary(O::ChloSquare,
              "square(x) = x·x; complex: ((re - im)(re + im), 2·(re·im)) in f64, +0 where "
              "|re| = |im|")
      .decompose = &decomposeSquare;
  t.chloUnary(O::ChloTan, "stablehlo.tan (complex too)").decompose = &decomposeTan;
  t.op(O::ChloTopK, C::Chlo, exactly(1), exactly(2), "^( operands , k = $k ) attr-dict : type(arrow)")
      .attrs = {reqInt("k")};
  t.rows.back().decomposition = "stable sort along the last dimension (descending, with an iota "
                                "for indices), then slice the first k";
  t.rows.back().decompose = &decomposeTopK;

  // check dialect
  t.op(O::CheckExpectAlmostEq, C::Check, exactly(2), exactly(0),
       "operands [[ , tolerance = $tolerance ]] attr-dict : type(same)", kSideEffect)
      .attrs = {floatOr("tolerance", 1e-4, DType::F64)};
  t.op(O::CheckExpectAlmostEqConst, C::Check, exactly(1), exactly(0),
       "operands , $value [[ , tolerance = $tolerance ]] attr-dict", kSideEffect)
      .attrs = {req("value", A::Dense), floatOr("tolerance", 1e-4, DType::F64)};
  t.op(O::CheckExpectClose, C::Check, exactly(2), exactly(0),
       "operands , max_ulp_difference = $max_ulp_difference "
       "[[ , min_ulp_difference = $min_ulp_difference ]] attr-dict : type(operands)",
       kSideEffect)
      .attrs = {intOr("max_ulp_difference", 1, DType::U64), intOr("min_ulp_difference", 0, DType::U64)};
  t.op(O::CheckExpectEq, C::Check, exactly(2), exactly(0), "operands attr-dict : type(same)",
       kSideEffect);
  t.op(O::CheckExpectEqConst, C::Check, exactly(1), exactly(0), "operands , $value attr-dict",
       kSideEffect)
      .attrs = {req("value", A::Dense)};
  t.op(O::CheckExpectSerializedEq, C::Check, exactly(1), exactly(0),
       "operands , probe_id = $probe_id [[ , iter = $iteration ]] attr-dict : type(same)",
       kSideEffect)
      .attrs = {req("probe_id", A::String), intOr("iteration", 0, DType::U32)};

  // interpreter harness and IREE test constants
  t.op(O::InterpreterRunParallel, C::Interpreter, atLeast(0), atLeast(0), {}, kSideEffect).attrs = {
      req("programs", A::Any), opt("infeed", A::Any)};
  t.op(O::InterpreterProbe, C::Interpreter, exactly(1), exactly(1),
       "operands , probe_id = $probe_id attr-dict : type(same)", kSideEffect)
      .attrs = {req("probe_id", A::String)};
  t.op(O::InterpreterPrint, C::Interpreter, exactly(1), exactly(0), kSame, kSideEffect);
  t.op(O::UtilUnfoldableConstant, C::Constant, exactly(0), exactly(1), "!constant").attrs = {
      req("value", A::Dense)};
  t.op(O::ArithConstant, C::Constant, exactly(0), exactly(1), "!constant").attrs = {
      req("value", A::Dense)};

  // kiln.fusion: its region takes the operands and returns the results; `kind` is the
  // fusion rule that formed it (loop, input, multi_output, dot_epilogue).
  t.op(O::Fusion, C::Fusion, atLeast(0), atLeast(1), {}, kIsolated).attrs = {req("kind", A::String)};
  t.rows.back().regions = exactly(1);

  // The autodiff constructs (transforms/rules/custom_derivatives.cc, checkpoint.cc). To
  // an executor each is what it wraps: custom_jvp and custom_vjp call `primal` (the
  // inliner inlines it once the transforms, which run first, are done with the rules);
  // checkpoint runs its region, which takes the operands and yields the results.
  // custom_jvp: @jvp(primals..., tangents...) -> (results..., result tangents...).
  t.op(O::CustomJvp, C::ControlFlow, atLeast(0), atLeast(0), kFn).attrs = {req("primal", A::Symbol),
                                                                           req("jvp", A::Symbol)};
  // custom_vjp: @fwd(primals...) -> (results..., residuals...) and
  // @bwd(residuals..., result cotangents...) -> (parameter cotangents...).
  t.op(O::CustomVjp, C::ControlFlow, atLeast(0), atLeast(0), kFn).attrs = {
      req("primal", A::Symbol), req("fwd", A::Symbol), req("bwd", A::Symbol)};
  // custom_lin(residuals..., parameter tangents...) -> result tangents: what a custom_vjp
  // is in a jvp program, linear in the tangents; only its transpose (a call of @bwd) runs,
  // so it exists only inside vjp (JAX's custom_lin).
  t.op(O::CustomLin, C::Misc, atLeast(0), atLeast(0), kFn).attrs = {req("bwd", A::Symbol),
                                                                    reqInt("num_residuals")};
  // checkpoint: what reverse mode keeps of the region for the backward pass (policy:
  // jax.checkpoint's nothing_saveable, dots_saveable, everything_saveable); the rest it
  // recomputes there.
  t.op(O::Checkpoint, C::ControlFlow, atLeast(0), atLeast(0), {}, kIsolated).attrs = {
      stringOr("policy", "nothing_saveable")};
  t.rows.back().regions = exactly(1);

  // ---- facts across rows ----
  using E = ElementClass;
  // Element classes of the elementwise ops (the spec's Inputs tables; CHLO's op definitions).
  for (O op : {O::And, O::Or, O::Xor, O::Not}) t.row(op).elements = E::IntOrBool;
  for (O op : {O::ShiftLeft, O::ShiftRightArithmetic, O::ShiftRightLogical, O::Popcnt,
               O::CountLeadingZeros, O::ChloMulhi})
    t.row(op).elements = E::Int;
  for (O op : {O::Ceil, O::Floor, O::RoundNearestAfz, O::RoundNearestEven, O::ChloNextAfter,
               O::IsFinite, O::ReducePrecision, O::ChloDigamma, O::ChloErf, O::ChloErfInv,
               O::ChloErfc, O::ChloLgamma})
    t.row(op).elements = E::Float;
  for (O op : {O::Atan2, O::Cbrt, O::Cosine, O::Sine, O::Tan, O::Tanh, O::Exponential,
               O::ExponentialMinusOne, O::Log, O::LogPlusOne, O::Logistic, O::Rsqrt, O::Sqrt,
               O::Real, O::Imag, O::ChloAcos, O::ChloAcosh, O::ChloAsin, O::ChloAsinh,
               O::ChloAtan, O::ChloAtanh, O::ChloCosh, O::ChloSinh, O::ChloTan, O::ChloBesselI1e})
    t.row(op).elements = E::FloatOrComplex;
  for (O op : {O::Subtract, O::Divide, O::Remainder, O::Power, O::Negate, O::ChloSquare})
    t.row(op).elements = E::Numeric;
  for (O op : {O::Sign, O::Abs}) t.row(op).elements = E::SignedFloatOrComplex;
  // Expensive: transcendental functions and division (and every CHLO function).
  for (O op : {O::Exponential, O::ExponentialMinusOne, O::Log, O::LogPlusOne, O::Logistic,
               O::Tanh, O::Sine, O::Cosine, O::Tan, O::Atan2, O::Power, O::Sqrt, O::Rsqrt,
               O::Cbrt, O::Divide, O::Remainder})
    t.row(op).traits |= kExpensive;
  for (OpInfo& info : t.rows)
    if (info.category == C::Chlo) info.traits |= kExpensive;
  // Fusion: data movement that is an index map (each output element reads one known
  // element) fuses into loops like elementwise work; reductions and dots root kernels.
  for (O op : {O::Broadcast, O::BroadcastInDim, O::Reshape, O::Transpose, O::Slice,
               O::Concatenate, O::Pad, O::Iota, O::Reverse, O::Convert, O::Select, O::Clamp,
               O::Compare})
    t.row(op).fusion = FusionRole::Loop;
  t.row(O::Reduce).fusion = FusionRole::Reduce;
  for (O op : {O::DotGeneral, O::Dot, O::Convolution}) t.row(op).fusion = FusionRole::Dot;
  // Reducer identities.
  t.row(O::Add).identity = Identity::Zero;
  t.row(O::Multiply).identity = Identity::One;
  t.row(O::Maximum).identity = Identity::Lowest;
  t.row(O::Minimum).identity = Identity::Highest;
  t.row(O::And).identity = Identity::AllOnes;
  t.row(O::Or).identity = Identity::Zero;
  t.row(O::Xor).identity = Identity::Zero;

  // Names come from ops.def, in OpCode order; rows were written in the same order.
  static constexpr std::string_view kNames[] = {
#define KILN_OP(id, name) name,
#include "ir/ops.def"
#undef KILN_OP
  };
  if (t.rows.size() != std::size(kNames))
    throw Error(ErrorKind::Internal, "op table has " + std::to_string(t.rows.size()) +
                                         " rows for " + std::to_string(std::size(kNames)) + " ops");
  for (size_t i = 0; i < t.rows.size(); ++i) {
    if (static_cast<size_t>(t.rows[i].code) != i)
      throw Error(ErrorKind::Internal, "op table row " + std::to_string(i) + " (" +
                                           std::string(kNames[i]) + ") is out of order");
    t.rows[i].name = kNames[i];
  }
  for (OpInfo& info : compositeOps(t.rows)) {
    info.code = static_cast<OpCode>(t.rows.size());
    t.rows.push_back(std::move(info));
  }
  return t.rows;
}

const std::vector<OpInfo>& table() {
  static const std::vector<OpInfo> kTable = buildTable();
  return kTable;
}

}  // namespace

const char* categoryName(OpCategory c) {
  switch (c) {
    case C::ElementwiseUnary: return "elementwise-unary";
    case C::ElementwiseBinary: return "elementwise-binary";
    case C::ElementwiseOther: return "elementwise-other";
    case C::Constant: return "constant";
    case C::DataMovement: return "data-movement";
    case C::Reduction: return "reduction";
    case C::Linalg: return "linalg";
    case C::ControlFlow: return "control-flow";
    case C::Collective: return "collective";
    case C::Communication: return "communication";
    case C::Random: return "random";
    case C::Tuple: return "tuple";
    case C::Quantization: return "quantization";
    case C::Normalization: return "normalization";
    case C::Misc: return "misc";
    case C::Chlo: return "chlo";
    case C::Composite: return "composite";
    case C::Check: return "check";
    case C::Interpreter: return "interpreter";
    case C::Fusion: return "fusion";
  }
  return "?";
}

bool acceptsElement(ElementClass c, DType t) {
  switch (c) {
    case ElementClass::Any: return true;
    case ElementClass::IntOrBool: return isInteger(t) || isBool(t);
    case ElementClass::Int: return isInteger(t);
    case ElementClass::Float: return isFloat(t);
    case ElementClass::FloatOrComplex: return isFloat(t) || isComplex(t);
    case ElementClass::Numeric: return isInteger(t) || isFloat(t) || isComplex(t);
    case ElementClass::SignedFloatOrComplex: return isSignedInt(t) || isFloat(t) || isComplex(t);
  }
  return false;
}

const char* describe(ElementClass c) {
  switch (c) {
    case ElementClass::Any: return "any";
    case ElementClass::IntOrBool: return "boolean or integer";
    case ElementClass::Int: return "integer";
    case ElementClass::Float: return "floating-point";
    case ElementClass::FloatOrComplex: return "floating-point or complex";
    case ElementClass::Numeric: return "integer, floating-point or complex";
    case ElementClass::SignedFloatOrComplex: return "signed integer, floating-point or complex";
  }
  return "?";
}

std::optional<Literal> reducerIdentity(OpCode code, DType dtype) {
  Literal out(Type::scalar(dtype));
  bool floating = isFloat(dtype) || isComplex(dtype);
  switch (opInfo(code).identity) {
    case Identity::None: return std::nullopt;
    case Identity::Zero:
      // -0.0 is the identity of IEEE addition (+0.0 + -0.0 = +0.0 loses the sign of -0).
      if (code == OpCode::Add && isFloat(dtype)) out.setFloat(0, -0.0);
      else if (code == OpCode::Add && isComplex(dtype)) out.setComplex(0, {-0.0, -0.0});
      return out;  // zero-filled
    case Identity::One:
      // Not for complex: (1 + 0i)(a + bi) has real part a·1 - 0·b, which turns a = -0 into +0.
      if (isComplex(dtype)) return std::nullopt;
      if (isFloat(dtype)) out.setFloat(0, 1.0);
      else out.setInt(0, 1);
      return out;
    case Identity::AllOnes:
      if (floating) return std::nullopt;
      out.setInt(0, -1);  // wraps to every bit set (true for i1)
      return out;
    case Identity::Lowest:
    case Identity::Highest: {
      bool lowest = opInfo(code).identity == Identity::Lowest;
      if (isComplex(dtype)) return std::nullopt;
      if (isFloat(dtype)) {
        // Formats without infinities (f8e4m3fn, ...) have no identity here.
        if (!std::isinf(bitsToFloat(floatToBits(INFINITY, dtype), dtype))) return std::nullopt;
        out.setFloat(0, lowest ? -INFINITY : INFINITY);
      } else if (isBool(dtype)) {
        out.setInt(0, lowest ? 0 : 1);
      } else if (isUnsignedInt(dtype)) {
        out.setInt(0, lowest ? 0 : -1);  // -1 wraps to the largest value
      } else {
        int w = bitWidth(dtype);
        int64_t min = w == 64 ? INT64_MIN : -(int64_t{1} << (w - 1));
        int64_t max = w == 64 ? INT64_MAX : (int64_t{1} << (w - 1)) - 1;
        out.setInt(0, lowest ? min : max);
      }
      return out;
    }
  }
  return std::nullopt;
}

const AttrSpec* OpInfo::findAttr(std::string_view attrName) const {
  for (const AttrSpec& spec : attrs)
    if (spec.name == attrName) return &spec;
  return nullptr;
}

const OpInfo& opInfo(OpCode code) { return table()[static_cast<size_t>(code)]; }

std::span<const OpInfo> allOps() { return table(); }

std::optional<OpCode> checkOpOfCustomCall(std::string_view target) {
  // Only the two-operand checks have a custom_call form: the *_const ones carry an
  // attribute that custom_call cannot express.
  for (OpCode code : {OpCode::CheckExpectEq, OpCode::CheckExpectAlmostEq, OpCode::CheckExpectClose})
    if (opInfo(code).name == target) return code;
  return std::nullopt;
}

std::optional<OpCode> lookupOp(std::string_view name) {
  static const std::unordered_map<std::string_view, OpCode> kByName = [] {
    std::unordered_map<std::string_view, OpCode> m;
    for (const OpInfo& info : table()) m.emplace(info.name, info.code);
    // Inside func.func bodies MLIR prints the func dialect's ops without their prefix.
    m.emplace("return", OpCode::FuncReturn);
    m.emplace("call", OpCode::FuncCall);
    return m;
  }();
  auto it = kByName.find(name);
  if (it == kByName.end()) return std::nullopt;
  return it->second;
}

}  // namespace kiln
