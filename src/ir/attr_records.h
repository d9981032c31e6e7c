// Typed views of the dialect attributes: dimension-number records (DotDims, ConvDims,
// GatherDims, ScatterDims, RaggedDotDims), an op's window (strides, dilations, padding),
// and the enums (comparison direction, precision, fft type, ...). Each converts to and
// from the generic Attribute here, once; the parser, printer, verifier, interpreter and
// passes read and build these instead of record fields by name.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <utility>
#include <vector>

#include "ir/attribute.h"

namespace kiln {

class Op;
using Dims = std::vector<int64_t>;

// #stablehlo.dot<...>: dot_general's dimension numbers.
struct DotDims {
  Dims lhsBatch, rhsBatch, lhsContracting, rhsContracting;
  static DotDims fromAttr(const Attribute& record);
  // The dimension numbers of a dot_general, or those stablehlo.dot implies (the last
  // dimension of lhs contracted with the first of rhs, no batch).
  static DotDims of(const Op& op);
  // The free dimensions of an lhs / rhs of rank `rank` (neither batch nor contracting), in
  // order: they follow the batch dimensions in the result, lhs's before rhs's.
  Dims lhsFree(int64_t rank) const;
  Dims rhsFree(int64_t rank) const;
  Attribute toAttr() const;
  bool operator==(const DotDims&) const = default;
};

// #chlo.ragged_dot<...>: a dot's dimension numbers plus the ragged and group dimensions.
struct RaggedDotDims {
  DotDims dot;
  Dims lhsRagged, rhsGroup;
  static RaggedDotDims fromAttr(const Attribute& record);
  Attribute toAttr() const;
  bool operator==(const RaggedDotDims&) const = default;
};

// #stablehlo.conv<...>: which dimension of input, kernel and output is which.
struct ConvDims {
  int64_t inputBatch = 0, inputFeature = 0;
  Dims inputSpatial;
  int64_t kernelInputFeature = 0, kernelOutputFeature = 0;
  Dims kernelSpatial;
  int64_t outputBatch = 0, outputFeature = 0;
  Dims outputSpatial;
  static ConvDims fromAttr(const Attribute& record);
  Attribute toAttr() const;
  bool operator==(const ConvDims&) const = default;
};

// #stablehlo.gather<...>.
struct ScatterDims;
struct GatherDims {
  Dims offsetDims, collapsedSliceDims, operandBatchingDims, startIndicesBatchingDims,
      startIndexMap;
  int64_t indexVectorDim = 0;
  static GatherDims fromAttr(const Attribute& record);
  Attribute toAttr() const;
  // The scatter that writes where this gather reads (each offset dimension an update
  // window dimension, each collapsed one inserted, the same index mapping).
  ScatterDims asScatter() const;
  bool operator==(const GatherDims&) const = default;
};

// #stablehlo.scatter<...>.
struct ScatterDims {
  Dims updateWindowDims, insertedWindowDims, inputBatchingDims, scatterIndicesBatchingDims,
      scatterDimsToOperandDims;
  int64_t indexVectorDim = 0;
  static ScatterDims fromAttr(const Attribute& record);
  Attribute toAttr() const;
  // The gather that reads where this scatter writes.
  GatherDims asGather() const;
  // The window an update writes, per operand dimension: 1 where inserted or batching,
  // else the size of the matching update window dimension.
  Dims windowSizes(const Shape& operand, const Shape& updates) const;
  bool operator==(const ScatterDims&) const = default;
};

// #stablehlo.channel_handle<handle = h, type = t>.
struct ChannelHandle {
  int64_t handle = 0, type = 0;
  static ChannelHandle fromAttr(const Attribute& record);  // absent: {0, 0}
  Attribute toAttr() const;
};

// #stablehlo.output_operand_alias<...> of custom_call.
struct OutputOperandAlias {
  Dims outputTupleIndices;
  int64_t operandIndex = 0;
  Dims operandTupleIndices;
  static OutputOperandAlias fromAttr(const Attribute& record);
  Attribute toAttr() const;
};

// The window of reduce_window, select_and_scatter and convolution (over its spatial
// dimensions): every list has one entry per windowed dimension, absent attributes filled
// with their spec defaults (strides and dilations 1, padding 0, no reversal). Lists of the
// wrong length are kept as they are, for the verifier to report.
struct Window {
  Dims dimensions;  // empty for convolution (the kernel's spatial sizes are the window)
  Dims strides, baseDilations, windowDilations;
  std::vector<std::pair<int64_t, int64_t>> padding;  // (low, high); see paddingShapeOk
  std::vector<bool> reversal;
  bool paddingShapeOk = true;  // the padding attribute was [n, 2] (or absent)
  // reduce_window / select_and_scatter over `rank` dimensions.
  static Window ofReduceWindow(const Op& op, int64_t rank);
  // convolution over `spatial` dimensions: window_strides, lhs_dilation (base),
  // rhs_dilation (window), padding, window_reversal.
  static Window ofConvolution(const Op& op, int64_t spatial);
  // Along dimension d of a convolution (window coordinate k of output coordinate `out`,
  // over an input of `size`): the input coordinate read, or -1 where the position falls
  // in the padding or in a hole of the lhs dilation.
  int64_t convolutionInput(size_t d, int64_t out, int64_t k, int64_t size) const {
    const int64_t dilated = size == 0 ? 0 : (size - 1) * baseDilations[d] + 1;
    const int64_t q = out * strides[d] + k * windowDilations[d] - padding[d].first;
    return q >= 0 && q < dilated && q % baseDilations[d] == 0 ? q / baseDilations[d] : -1;
  }
};
// The same from an attribute list (the builder's and the verifier's view of ops that do
// not exist yet).
Window reduceWindowOf(const NamedAttrList& attrs, int64_t rank);
Window convolutionWindowOf(const NamedAttrList& attrs, int64_t spatial);
// The value every element of an absent window attribute stands for: 1 for strides and
// dilations, 0 for padding and reversal; nullopt for other names.
std::optional<int64_t> windowAttrFill(std::string_view name);
// Writes `w` as attributes (absent where they equal the defaults).
void setReduceWindowAttrs(NamedAttrList& attrs, const Window& w);
void setConvolutionWindowAttrs(NamedAttrList& attrs, const Window& w);

// ---- enums: the values in the order of the schema's lists (attr_schema.cc) ----
enum class ComparisonDirection : uint8_t { EQ, NE, GE, GT, LE, LT };
enum class ComparisonType : uint8_t { NoType, Float, TotalOrder, Signed, Unsigned };
enum class Precision : uint8_t { Default, High, Highest };
enum class FftType : uint8_t { Fft, Ifft, Rfft, Irfft };
enum class RngDistribution : uint8_t { Uniform, Normal };
enum class RngAlgorithm : uint8_t { Default, ThreeFry, Philox };
enum class TransposeKind : uint8_t { Invalid, NoTranspose, Transpose, Adjoint };
// kiln.fusion's kind: the rule that formed the kernel.
enum class FusionKind : uint8_t { Loop, Input, MultiOutput, DotEpilogue };

ComparisonDirection comparisonDirectionOf(const Attribute& a);
Attribute toAttr(ComparisonDirection d);
// Absent or NOTYPE: nullopt.
std::optional<ComparisonType> comparisonTypeOf(const Attribute& a);
Attribute toAttr(ComparisonType t);
std::vector<Precision> precisionsOf(const Attribute& a);  // absent: none
Attribute toAttr(const std::vector<Precision>& p);
FftType fftTypeOf(const Attribute& a);
Attribute toAttr(FftType t);
RngDistribution rngDistributionOf(const Attribute& a);
Attribute toAttr(RngDistribution d);
RngAlgorithm rngAlgorithmOf(const Attribute& a);
Attribute toAttr(RngAlgorithm a);
TransposeKind transposeKindOf(const Attribute& a);
Attribute toAttr(TransposeKind t);
// Fusion kinds are strings in the text ("loop", "input", "multi_output", "dot_epilogue").
std::optional<FusionKind> fusionKindOf(std::string_view name);
std::string_view fusionKindName(FusionKind k);
Attribute toAttr(FusionKind k);

// The spec's names, for messages: "LT", "TOTALORDER", "RFFT", ...
std::string_view enumName(ComparisonDirection d);

}  // namespace kiln
