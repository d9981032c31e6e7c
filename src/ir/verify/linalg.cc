// Type rules: linear algebra — dot_general, dot, convolution, dynamic_conv, fft,
// triangular_solve, cholesky and chlo.ragged_dot. Dimension numbers are checked for
// range and uniqueness, paired dimensions for equal sizes, and the result shape is
// rebuilt from them.
#include "ir/verify/rules.h"

#include <algorithm>

#include "ir/attr_records.h"
#include "ir/attr_schema.h"
#include "ir/ops/chlo.h"
#include "ir/ops/stablehlo.h"

namespace kiln {
namespace {

// The dimensions of `t` that are in none of the lists, in order (dot's free dimensions).
std::vector<int64_t> freeDims(const Type& t, const std::vector<int64_t>& used) {
  std::vector<int64_t> out;
  for (int64_t d = 0; d < t.rank(); ++d)
    if (!contains(used, d)) out.push_back(d);
  return out;
}

void appendSizes(Shape& out, const Type& t, const std::vector<int64_t>& dims) {
  for (int64_t d : dims) out.push_back(t.dim(d));
}

// Paired dimensions of lhs and rhs have equal sizes (dot_general C9/C10, ragged_dot).
void checkPairedSizes(const InferContext& v, const Type& lhs, const std::vector<int64_t>& lhsDims,
                      const Type& rhs, const std::vector<int64_t>& rhsDims,
                      const std::string& what) {
  v.check(lhsDims.size() == rhsDims.size(), [&] {
    return "lhs_" + what + " " + shapeStr(lhsDims) + " and rhs_" + what + " " + shapeStr(rhsDims) +
           " have different lengths";
  });
  for (size_t i = 0; i < lhsDims.size(); ++i)
    v.check(lhs.dim(lhsDims[i]) == rhs.dim(rhsDims[i]), [&] {
      return what + ": lhs dimension " + std::to_string(lhsDims[i]) + " has size " + std::to_string(lhs.dim(lhsDims[i])) +
             " but rhs dimension " + std::to_string(rhsDims[i]) + " has size " + std::to_string(rhs.dim(rhsDims[i])) +
             " (lhs " + shapeStr(lhs.shape()) + ", rhs " + shapeStr(rhs.shape()) + ")";
    });
}

// The spec asks for two precision_config entries; MLIR also accepts none or one (a
// shorthand for both operands), which exported programs use.
void checkPrecision(const InferContext& v) {
  if (Attribute p = v.attr("precision_config"))
    v.check(p.asArray().size() <= 2, [&] {
      return "precision_config has " + std::to_string(static_cast<int64_t>(p.asArray().size())) +
             " entries, expected at most 2 (one per operand)";
    });
}

// Element types are deliberately not compared, and the result element type is a
// parameter. The spec asks for equal lhs and rhs element types (dot_general C13,
// convolution C27), but XLA and MLIR's verifier accept mixed operands and widened results
// (i8 x i8 -> i32, bf16 -> f32 with JAX's preferred_element_type), and the StableHLO
// maintainers agree the constraint is too strict (openxla/stablehlo#1439); kiln accepts
// what the exporters produce.

void dotGeneralRule(InferContext& v) {
  const Type& lhs = v.tensorOperand(0);
  const Type& rhs = v.tensorOperand(1);
  DotDims dn = DotDims::fromAttr(v.attr("dot_dimension_numbers"));
  const Dims& lb = dn.lhsBatch;
  const Dims& rb = dn.rhsBatch;
  const Dims& lc = dn.lhsContracting;
  const Dims& rc = dn.rhsContracting;
  checkDimensions(v, "lhs_batching_dimensions + lhs_contracting_dimensions", concat(lb, lc),
                  lhs.rank(), "lhs");
  checkDimensions(v, "rhs_batching_dimensions + rhs_contracting_dimensions", concat(rb, rc),
                  rhs.rank(), "rhs");
  checkPairedSizes(v, lhs, lb, rhs, rb, "batching_dimensions");
  checkPairedSizes(v, lhs, lc, rhs, rc, "contracting_dimensions");
  checkPrecision(v);
  if (Attribute algorithm = v.attr("algorithm")) {
    for (Precision p : precisionsOf(v.attr("precision_config")))
      v.check(p == Precision::Default,
              [&] { return "precision_config must be DEFAULT when an algorithm is given"; });
    for (const char* field :
         {"lhs_component_count", "rhs_component_count", "num_primitive_operations"})
      v.check(recordInt(algorithm, field) > 0,
              [&] { return std::string("algorithm ") + field + " must be positive"; });
  }
  Shape expected;
  appendSizes(expected, lhs, lb);
  appendSizes(expected, lhs, freeDims(lhs, concat(lb, lc)));
  appendSizes(expected, rhs, freeDims(rhs, concat(rb, rc)));
  v.inferShape(0, expected, [&] {
    return "batch dimensions, then the free dimensions of lhs " + shapeStr(lhs.shape()) +
           " and rhs " + shapeStr(rhs.shape());
  });
}

// The legacy dot: vector or matrix operands, contracting lhs's last dimension with rhs's first.
void dotRule(InferContext& v) {
  const Type& lhs = v.tensorOperand(0);
  const Type& rhs = v.tensorOperand(1);
  v.check(lhs.rank() == 1 || lhs.rank() == 2,
          [&] { return "lhs must be a vector or a matrix, got " + lhs.str(); });
  v.check(rhs.rank() == 1 || rhs.rank() == 2,
          [&] { return "rhs must be a vector or a matrix, got " + rhs.str(); });
  v.check(lhs.dim(lhs.rank() - 1) == rhs.dim(0), [&] {
    return "contracting dimensions differ: lhs " + shapeStr(lhs.shape()) + ", rhs " +
           shapeStr(rhs.shape());
  });
  checkPrecision(v);
  Shape expected;
  if (lhs.rank() == 2) expected.push_back(lhs.dim(0));
  if (rhs.rank() == 2) expected.push_back(rhs.dim(1));
  v.inferShape(0, expected, [&] {
    return "lhs " + shapeStr(lhs.shape()) + " times rhs " + shapeStr(rhs.shape());
  });
}


// convolution and dynamic_conv; `padding` is empty when dynamic_conv's padding operand
// is not a constant, so the spatial sizes of the result cannot be known.
void checkConvolution(InferContext& v,
                      std::optional<std::vector<std::pair<int64_t, int64_t>>> padding) {
  const Type& lhs = v.tensorOperand(0);
  const Type& rhs = v.tensorOperand(1);
  const Type& result = v.givenTensor(0);  // its element type is the parameter
  int64_t n = lhs.rank();
  v.check(rhs.rank() == n && n >= 2, [&] {
    return "lhs " + lhs.str() + " and rhs " + rhs.str() + " must have one rank of at least 2";
  });
  v.check(result.rank() == n,
          [&] { return "result " + result.str() + " must have rank " + std::to_string(n); });
  int64_t spatial = n - 2;
  Window w = convolutionWindowOf(v.parts().attrs, spatial);
  const Dims& strides = w.strides;
  const Dims& lhsDilation = w.baseDilations;
  const Dims& rhsDilation = w.windowDilations;
  checkWindowList(v, "window_strides", strides, spatial, "spatial dimension");
  checkWindowList(v, "lhs_dilation", lhsDilation, spatial, "spatial dimension");
  checkWindowList(v, "rhs_dilation", rhsDilation, spatial, "spatial dimension");
  if (v.has("window_reversal")) {
    size_t size = w.reversal.size();
    v.check(static_cast<int64_t>(size) == spatial, [&] {
      return "window_reversal has " + std::to_string(static_cast<int64_t>(size)) +
             " entries, expected one per spatial dimension (" + std::to_string(spatial) + ")";
    });
  }

  ConvDims dn = ConvDims::fromAttr(v.attr("dimension_numbers"));
  int64_t ib = dn.inputBatch;
  int64_t ifeat = dn.inputFeature;
  const Dims& is = dn.inputSpatial;
  int64_t kif = dn.kernelInputFeature;
  int64_t kof = dn.kernelOutputFeature;
  const Dims& ks = dn.kernelSpatial;
  int64_t ob = dn.outputBatch;
  int64_t of = dn.outputFeature;
  const Dims& os = dn.outputSpatial;
  for (const auto& [dims, label] :
       {std::pair{&is, "input_spatial_dimensions"}, std::pair{&ks, "kernel_spatial_dimensions"},
        std::pair{&os, "output_spatial_dimensions"}})
    v.check(static_cast<int64_t>(dims->size()) == spatial, [&] {
      return std::string(label) + " " + shapeStr(*dims) + " must have " + std::to_string(spatial) +
             " entries (rank - 2)";
    });
  checkDimensions(v, "input dimensions [batch, spatial..., feature]",
                  concat(concat({ib}, is), {ifeat}), n, "lhs");
  checkDimensions(v, "kernel dimensions [spatial..., input feature, output feature]",
                  concat(ks, {kif, kof}), n, "rhs");
  checkDimensions(v, "output dimensions [batch, spatial..., feature]",
                  concat(concat({ob}, os), {of}), n, "result");

  int64_t fgc = v.integer("feature_group_count");
  int64_t bgc = v.integer("batch_group_count");
  v.check(fgc > 0, [&] { return "feature_group_count must be positive, got " + std::to_string(fgc); });
  v.check(bgc > 0, [&] { return "batch_group_count must be positive, got " + std::to_string(bgc); });
  v.check(fgc == 1 || bgc == 1, [&] {
    return "feature_group_count " + std::to_string(fgc) + " and batch_group_count " + std::to_string(bgc) +
           " cannot both exceed 1";
  });
  int64_t batch = lhs.dim(ib);
  int64_t features = lhs.dim(ifeat);
  int64_t outFeatures = rhs.dim(kof);
  v.check(batch % bgc == 0, [&] {
    return "input batch size " + std::to_string(batch) + " is not divisible by batch_group_count " + std::to_string(bgc);
  });
  v.check(features % fgc == 0, [&] {
    return "input feature size " + std::to_string(features) + " is not divisible by feature_group_count " +
           std::to_string(fgc);
  });
  v.check(rhs.dim(kif) == features / fgc, [&] {
    return "kernel input feature size " + std::to_string(rhs.dim(kif)) + " must be the input feature size " +
           std::to_string(features) + " / feature_group_count " + std::to_string(fgc);
  });
  v.check(outFeatures % bgc == 0, [&] {
    return "kernel output feature size " + std::to_string(outFeatures) +
           " is not divisible by batch_group_count " + std::to_string(bgc);
  });
  v.check(outFeatures % fgc == 0, [&] {
    return "kernel output feature size " + std::to_string(outFeatures) +
           " is not divisible by feature_group_count " + std::to_string(fgc);
  });
  checkPrecision(v);

  Shape expected(static_cast<size_t>(n), -1);
  auto because = [&] {
    return "batch " + std::to_string(batch) + " / batch_group_count " + std::to_string(bgc) + ", output features " +
           std::to_string(outFeatures) + ", and the window positions of each spatial dimension";
  };
  expected[static_cast<size_t>(ob)] = batch / bgc;
  expected[static_cast<size_t>(of)] = outFeatures;
  for (size_t s = 0; s < static_cast<size_t>(spatial); ++s) {
    if (!padding) {
      expected[static_cast<size_t>(os[s])] = result.dim(os[s]);  // unknown without constant padding
      continue;
    }
    const auto& [low, high] = (*padding)[s];
    expected[static_cast<size_t>(os[s])] = windowPositions(
        lhs.dim(is[s]), rhs.dim(ks[s]), strides[s], low, high, lhsDilation[s], rhsDilation[s]);
  }
  if (padding) {
    v.inferShape(0, expected, because);
    return;
  }
  // Without constant padding only the batch and feature sizes are known.
  v.check(result.shape() == expected, [&] {
    return "result shape " + shapeStr(result.shape()) + " does not match the expected " +
           shapeStr(expected) + " (" + because() + ")";
  });
}

void convolutionRule(InferContext& v) {
  int64_t spatial = std::max<int64_t>(v.tensorOperand(0).rank() - 2, 0);
  Window w = convolutionWindowOf(v.parts().attrs, spatial);
  checkWindowPadding(v, w, spatial);
  checkConvolution(v, w.padding);
}

void dynamicConvRule(InferContext& v) {
  const Type& padding = v.tensorOperand(2);
  int64_t spatial = std::max<int64_t>(v.tensorOperand(0).rank() - 2, 0);
  v.check(isInteger(padding.dtype()) && padding.shape() == Shape{spatial, 2}, [&] {
    return "padding must be an integer tensor of shape [" + std::to_string(spatial) + ", 2], got " +
           padding.str();
  });
  std::optional<std::vector<std::pair<int64_t, int64_t>>> pairs;
  if (auto values = constantInts(v.operand(2))) {
    pairs.emplace();
    for (int64_t s = 0; s < spatial; ++s)
      pairs->emplace_back((*values)[2 * s], (*values)[2 * s + 1]);
  }
  checkConvolution(v, pairs);
}

void fftRule(InferContext& v) {
  const Type& x = v.tensorOperand(0);
  std::vector<int64_t> length = v.ints("fft_length");
  int64_t l = static_cast<int64_t>(length.size());
  v.check(l >= 1 && l <= 3,
          [&] { return "fft_length " + shapeStr(length) + " must have 1 to 3 entries"; });
  v.check(l <= x.rank(), [&] {
    return "fft_length " + shapeStr(length) + " has more entries than the operand " + x.str() +
           " has dimensions";
  });
  FftType kind = fftTypeOf(v.attr("fft_type"));
  const std::string& type = v.attr("fft_type").enumValueName();  // for messages
  DType in = x.dtype();
  Shape expected = x.shape();
  DType out = in;
  auto trailing = [&](const Type& real) {
    Shape tail(real.shape().end() - l, real.shape().end());
    v.check(tail == length, [&] {
      return "the trailing dimensions " + shapeStr(tail) + " of the real tensor " + real.str() +
             " must equal fft_length " + shapeStr(length);
    });
  };
  auto half = [](int64_t d) { return d == 0 ? 0 : d / 2 + 1; };
  if (kind == FftType::Fft || kind == FftType::Ifft) {
    v.check(isComplex(in),
            [&] { return type + " needs a complex element type, got " + x.str(); });
  } else if (kind == FftType::Rfft) {
    v.check(isFloat(in) && complexOf(in),
            [&] { return "RFFT takes f32 or f64 (to the matching complex type), got " + x.str(); });
    trailing(x);
    expected.back() = half(x.shape().back());
    out = *complexOf(in);
  } else {
    v.check(isComplex(in),
            [&] { return "IRFFT takes a complex type (to its part type), got " + x.str(); });
    // The result's trailing dimensions are fft_length; the operand's are the same but
    // for the minor one, which holds only the non-redundant half.
    std::copy(length.begin(), length.end(), expected.end() - l);
    Shape operandTail(x.shape().end() - l, x.shape().end());
    Shape wantTail = length;
    wantTail.back() = half(length.back());
    v.check(operandTail == wantTail, [&] {
      return "the trailing dimensions " + shapeStr(operandTail) + " of the operand " + x.str() +
             " must be " + shapeStr(wantTail) + " (fft_length " + shapeStr(length) +
             " with the minor dimension n / 2 + 1)";
    });
    out = complexPart(in);
  }
  v.infer(0, Type::tensor(out, expected), [&] { return type + " of " + x.str(); });
}

void checkFloatOrComplex(const InferContext& v, const Type& t, const std::string& label) {
  v.check(isFloat(t.dtype()) || isComplex(t.dtype()), [&] {
    return label + " must have a floating-point or complex element type, got " + t.str();
  });
}

void triangularSolveRule(InferContext& v) {
  const Type& a = v.tensorOperand(0);
  const Type& b = v.tensorOperand(1);
  checkFloatOrComplex(v, a, "a");
  v.check(a.dtype() == b.dtype(),
          [&] { return "a " + a.str() + " and b " + b.str() + " have different element types"; });
  v.check(a.rank() >= 2 && a.rank() == b.rank(), [&] {
    return "a " + a.str() + " and b " + b.str() + " must have one rank of at least 2";
  });
  int64_t rank = a.rank();
  // The spec writes shape(a)[:-3] = shape(b)[:-3]; the batch dimensions are all but the
  // last two (as MLIR checks), so [:-2] is meant.
  Shape batchA(a.shape().begin(), a.shape().end() - 2);
  Shape batchB(b.shape().begin(), b.shape().end() - 2);
  v.check(batchA == batchB, [&] {
    return "batch dimensions differ: a " + shapeStr(a.shape()) + ", b " + shapeStr(b.shape());
  });
  bool left = v.attr("left_side").asBool();
  int64_t m = a.dim(rank - 1);
  int64_t shared = b.dim(left ? rank - 2 : rank - 1);
  v.check(a.dim(rank - 2) == m, [&] {
    return "a must be square in its last two dimensions, got " + shapeStr(a.shape());
  });
  v.check(shared == m, [&] {
    return "b " + shapeStr(b.shape()) + " must have size " + std::to_string(m) + " in dimension " +
           std::to_string(left ? rank - 2 : rank - 1) +
           " to match a (left_side = " + (left ? "true" : "false") + ")";
  });
  v.check(transposeKindOf(v.attr("transpose_a")) != TransposeKind::Invalid,
          [&] { return "transpose_a must be NO_TRANSPOSE, TRANSPOSE or ADJOINT"; });
  v.infer(0, b, [] { return "the type of b"; });
}

void choleskyRule(InferContext& v) {
  const Type& a = v.tensorOperand(0);
  checkFloatOrComplex(v, a, "a");
  v.check(a.rank() >= 2 && a.dim(a.rank() - 1) == a.dim(a.rank() - 2),
          [&] { return "a must be square in its last two dimensions, got " + a.str(); });
  v.infer(0, a, [] { return "the type of a"; });
}

// chlo.ragged_dot: a dot_general whose lhs has one ragged dimension split into groups by
// group_sizes. Ragged in a free lhs dimension: rhs has a group dimension, dropped from
// the result. Ragged in a contracting dimension: the result gains a leading group
// dimension. Ragged in a batch dimension: the result is a plain dot_general's.
void raggedDotRule(InferContext& v) {
  const Type& lhs = v.tensorOperand(0);
  const Type& rhs = v.tensorOperand(1);
  const Type& groups = v.tensorOperand(2);
  v.check(isInteger(groups.dtype()) && groups.rank() >= 1,
          [&] { return "group_sizes must be an integer tensor, got " + groups.str(); });
  RaggedDotDims dn = RaggedDotDims::fromAttr(v.attr("ragged_dot_dimension_numbers"));
  const Dims& lb = dn.dot.lhsBatch;
  const Dims& rb = dn.dot.rhsBatch;
  const Dims& lc = dn.dot.lhsContracting;
  const Dims& rc = dn.dot.rhsContracting;
  const Dims& ragged = dn.lhsRagged;
  const Dims& group = dn.rhsGroup;
  checkDimensions(v, "lhs_batching_dimensions + lhs_contracting_dimensions", concat(lb, lc),
                  lhs.rank(), "lhs");
  checkDimensions(v, "rhs_batching_dimensions + rhs_contracting_dimensions + rhs_group_dimensions",
                  concat(concat(rb, rc), group), rhs.rank(), "rhs");
  checkPairedSizes(v, lhs, lb, rhs, rb, "batching_dimensions");
  checkPairedSizes(v, lhs, lc, rhs, rc, "contracting_dimensions");
  checkPrecision(v);
  v.check(ragged.size() == 1, [&] {
    return "lhs_ragged_dimensions " + shapeStr(ragged) + " must name exactly one dimension";
  });
  checkDimensions(v, "lhs_ragged_dimensions", ragged, lhs.rank(), "lhs");
  bool raggedFree = !contains(lb, ragged[0]) && !contains(lc, ragged[0]);
  v.check(group.size() == (raggedFree ? 1u : 0u), [&] {
    return "rhs_group_dimensions " + shapeStr(group) +
           (raggedFree ? " must name one dimension when the ragged "
                         "dimension is a free lhs dimension"
                       : " must be empty when the ragged dimension "
                         "is a batching or contracting dimension");
  });
  int64_t numGroups = raggedFree ? rhs.dim(group[0]) : groups.dim(groups.rank() - 1);
  v.check(groups.dim(groups.rank() - 1) == numGroups, [&] {
    return "group_sizes " + groups.str() + " must end in the number of groups " + std::to_string(numGroups);
  });
  Shape expected;
  if (contains(lc, ragged[0])) expected.push_back(numGroups);
  appendSizes(expected, lhs, lb);
  appendSizes(expected, lhs, freeDims(lhs, concat(lb, lc)));
  appendSizes(expected, rhs, freeDims(rhs, concat(concat(rb, rc), group)));
  v.inferShape(0, expected, [&] {
    return "lhs " + shapeStr(lhs.shape()) + ", rhs " + shapeStr(rhs.shape()) +
           " with lhs ragged dimension " + std::to_string(ragged[0]);
  });
}

}  // namespace

void addLinalgRules(RuleTable& table) {
  namespace O = ops;
  table.set(O::DotGeneral, &dotGeneralRule);
  table.set(O::Dot, &dotRule);
  table.set(O::Convolution, &convolutionRule);
  table.set(O::DynamicConv, &dynamicConvRule);
  table.set(O::Fft, &fftRule);
  table.set(O::TriangularSolve, &triangularSolveRule);
  table.set(O::Cholesky, &choleskyRule);
  table.set(O::ChloRaggedDot, &raggedDotRule);
}

}  // namespace kiln
