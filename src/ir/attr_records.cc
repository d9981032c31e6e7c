// Converting the typed attribute views to and from generic Attributes: records field by
// field in schema order (the order the parser produces, so built and parsed records are
// equal), enums by their position in the schema's value list.
#include "ir/attr_records.h"

#include <algorithm>

#include "ir/attr_schema.h"
#include "ir/ir.h"
#include "ir/ops/stablehlo.h"
#include "support/error.h"

namespace kiln {
namespace {

Attribute ints(const Dims& d) { return Attribute::i64Array(d); }
Attribute integer(int64_t v) { return Attribute::integer(v); }

// Records are optional in some places (channel_handle); an absent one reads as defaults.
void expectRecord(const Attribute& a, std::string_view name) {
  if (a && !(a.is(Attribute::Kind::Record) && a.asString() == name))
    throw Error(ErrorKind::Internal, "expected a #" + std::string(name) + " record");
}

Dims fieldInts(const Attribute& record, std::string_view field) {
  return record ? recordInts(record, field) : Dims{};
}
int64_t fieldInt(const Attribute& record, std::string_view field) {
  return record ? recordInt(record, field) : 0;
}

template <class E>
E enumOf(const Attribute& a, std::string_view enumName) {
  std::span<const std::string_view> values = enumValues(enumName);
  if (a && a.is(Attribute::Kind::Enum))
    for (size_t i = 0; i < values.size(); ++i)
      if (values[i] == a.enumValueName()) return static_cast<E>(i);
  throw Error(ErrorKind::Internal, "expected a " + std::string(enumName) + " value");
}

template <class E>
Attribute enumAttr(E e, std::string_view enumName) {
  std::span<const std::string_view> values = enumValues(enumName);
  return Attribute::enumValue(std::string(enumName),
                              std::string(values[static_cast<size_t>(e)]));
}

Dims listOr(const NamedAttrList& attrs, std::string_view name, int64_t n, int64_t fill) {
  Attribute a = findAttr(attrs, name);
  if (a && a.is(Attribute::Kind::DenseArray)) return a.asInts();
  return Dims(static_cast<size_t>(std::max<int64_t>(n, 0)), fill);
}

void readPadding(const NamedAttrList& attrs, int64_t n, Window& w) {
  Attribute a = findAttr(attrs, "padding");
  if (!a || !a.is(Attribute::Kind::Dense)) {
    w.padding.assign(static_cast<size_t>(std::max<int64_t>(n, 0)), {0, 0});
    return;
  }
  const Literal& lit = a.asDense();
  w.paddingShapeOk = (n == 0 && lit.numElements() == 0) || lit.shape() == Shape{n, 2};
  if (!w.paddingShapeOk) return;
  for (int64_t i = 0; i < n; ++i) w.padding.emplace_back(lit.intAt(2 * i), lit.intAt(2 * i + 1));
}

void setList(NamedAttrList& attrs, const char* name, const Dims& d, int64_t fill) {
  bool allFill = true;
  for (int64_t x : d) allFill = allFill && x == fill;
  if (allFill)
    removeAttr(attrs, name);
  else
    setAttr(attrs, name, Attribute::i64Array(d));
}

void setPadding(NamedAttrList& attrs, const Window& w) {
  bool zero = true;
  std::vector<int64_t> flat;
  for (auto [lo, hi] : w.padding) {
    zero = zero && lo == 0 && hi == 0;
    flat.push_back(lo);
    flat.push_back(hi);
  }
  if (zero) {
    removeAttr(attrs, "padding");
    return;
  }
  Literal lit(Type::tensor(DType::I64, {static_cast<int64_t>(w.padding.size()), 2}));
  for (size_t i = 0; i < flat.size(); ++i) lit.setInt(static_cast<int64_t>(i), flat[i]);
  setAttr(attrs, "padding", Attribute::dense(std::move(lit)));
}

constexpr std::string_view kFusionKinds[] = {"loop", "input", "multi_output", "dot_epilogue"};

}  // namespace

// ---- records ---------------------------------------------------------------------------------

DotDims DotDims::fromAttr(const Attribute& r) {
  expectRecord(r, "stablehlo.dot");
  return {fieldInts(r, "lhs_batching_dimensions"), fieldInts(r, "rhs_batching_dimensions"),
          fieldInts(r, "lhs_contracting_dimensions"), fieldInts(r, "rhs_contracting_dimensions")};
}
Attribute DotDims::toAttr() const {
  return makeRecord("stablehlo.dot", {{"lhs_batching_dimensions", ints(lhsBatch)},
                                      {"rhs_batching_dimensions", ints(rhsBatch)},
                                      {"lhs_contracting_dimensions", ints(lhsContracting)},
                                      {"rhs_contracting_dimensions", ints(rhsContracting)}});
}

RaggedDotDims RaggedDotDims::fromAttr(const Attribute& r) {
  expectRecord(r, "chlo.ragged_dot");
  return {{fieldInts(r, "lhs_batching_dimensions"), fieldInts(r, "rhs_batching_dimensions"),
           fieldInts(r, "lhs_contracting_dimensions"), fieldInts(r, "rhs_contracting_dimensions")},
          fieldInts(r, "lhs_ragged_dimensions"),
          fieldInts(r, "rhs_group_dimensions")};
}
Attribute RaggedDotDims::toAttr() const {
  return makeRecord("chlo.ragged_dot", {{"lhs_batching_dimensions", ints(dot.lhsBatch)},
                                        {"rhs_batching_dimensions", ints(dot.rhsBatch)},
                                        {"lhs_contracting_dimensions", ints(dot.lhsContracting)},
                                        {"rhs_contracting_dimensions", ints(dot.rhsContracting)},
                                        {"lhs_ragged_dimensions", ints(lhsRagged)},
                                        {"rhs_group_dimensions", ints(rhsGroup)}});
}

ConvDims ConvDims::fromAttr(const Attribute& r) {
  expectRecord(r, "stablehlo.conv");
  ConvDims d;
  d.inputBatch = fieldInt(r, "input_batch_dimension");
  d.inputFeature = fieldInt(r, "input_feature_dimension");
  d.inputSpatial = fieldInts(r, "input_spatial_dimensions");
  d.kernelInputFeature = fieldInt(r, "kernel_input_feature_dimension");
  d.kernelOutputFeature = fieldInt(r, "kernel_output_feature_dimension");
  d.kernelSpatial = fieldInts(r, "kernel_spatial_dimensions");
  d.outputBatch = fieldInt(r, "output_batch_dimension");
  d.outputFeature = fieldInt(r, "output_feature_dimension");
  d.outputSpatial = fieldInts(r, "output_spatial_dimensions");
  return d;
}
Attribute ConvDims::toAttr() const {
  return makeRecord("stablehlo.conv",
                    {{"input_batch_dimension", integer(inputBatch)},
                     {"input_feature_dimension", integer(inputFeature)},
                     {"input_spatial_dimensions", ints(inputSpatial)},
                     {"kernel_input_feature_dimension", integer(kernelInputFeature)},
                     {"kernel_output_feature_dimension", integer(kernelOutputFeature)},
                     {"kernel_spatial_dimensions", ints(kernelSpatial)},
                     {"output_batch_dimension", integer(outputBatch)},
                     {"output_feature_dimension", integer(outputFeature)},
                     {"output_spatial_dimensions", ints(outputSpatial)}});
}

GatherDims GatherDims::fromAttr(const Attribute& r) {
  expectRecord(r, "stablehlo.gather");
  return {fieldInts(r, "offset_dims"),           fieldInts(r, "collapsed_slice_dims"),
          fieldInts(r, "operand_batching_dims"), fieldInts(r, "start_indices_batching_dims"),
          fieldInts(r, "start_index_map"),       fieldInt(r, "index_vector_dim")};
}
Attribute GatherDims::toAttr() const {
  return makeRecord("stablehlo.gather", {{"offset_dims", ints(offsetDims)},
                                         {"collapsed_slice_dims", ints(collapsedSliceDims)},
                                         {"operand_batching_dims", ints(operandBatchingDims)},
                                         {"start_indices_batching_dims", ints(startIndicesBatchingDims)},
                                         {"start_index_map", ints(startIndexMap)},
                                         {"index_vector_dim", integer(indexVectorDim)}});
}

ScatterDims ScatterDims::fromAttr(const Attribute& r) {
  expectRecord(r, "stablehlo.scatter");
  return {fieldInts(r, "update_window_dims"),  fieldInts(r, "inserted_window_dims"),
          fieldInts(r, "input_batching_dims"), fieldInts(r, "scatter_indices_batching_dims"),
          fieldInts(r, "scatter_dims_to_operand_dims"), fieldInt(r, "index_vector_dim")};
}
Attribute ScatterDims::toAttr() const {
  return makeRecord("stablehlo.scatter",
                    {{"update_window_dims", ints(updateWindowDims)},
                     {"inserted_window_dims", ints(insertedWindowDims)},
                     {"input_batching_dims", ints(inputBatchingDims)},
                     {"scatter_indices_batching_dims", ints(scatterIndicesBatchingDims)},
                     {"scatter_dims_to_operand_dims", ints(scatterDimsToOperandDims)},
                     {"index_vector_dim", integer(indexVectorDim)}});
}

ChannelHandle ChannelHandle::fromAttr(const Attribute& r) {
  expectRecord(r, "stablehlo.channel_handle");
  return {fieldInt(r, "handle"), fieldInt(r, "type")};
}
Attribute ChannelHandle::toAttr() const {
  return makeRecord("stablehlo.channel_handle", {{"handle", integer(handle)}, {"type", integer(type)}});
}

OutputOperandAlias OutputOperandAlias::fromAttr(const Attribute& r) {
  expectRecord(r, "stablehlo.output_operand_alias");
  return {fieldInts(r, "output_tuple_indices"), fieldInt(r, "operand_index"),
          fieldInts(r, "operand_tuple_indices")};
}
Attribute OutputOperandAlias::toAttr() const {
  return makeRecord("stablehlo.output_operand_alias",
                    {{"output_tuple_indices", ints(outputTupleIndices)},
                     {"operand_index", integer(operandIndex)},
                     {"operand_tuple_indices", ints(operandTupleIndices)}});
}

// ---- windows ---------------------------------------------------------------------------------

Window reduceWindowOf(const NamedAttrList& attrs, int64_t rank) {
  Window w;
  w.dimensions = listOr(attrs, "window_dimensions", rank, 1);
  w.strides = listOr(attrs, "window_strides", rank, 1);
  w.baseDilations = listOr(attrs, "base_dilations", rank, 1);
  w.windowDilations = listOr(attrs, "window_dilations", rank, 1);
  readPadding(attrs, rank, w);
  w.reversal.assign(static_cast<size_t>(std::max<int64_t>(rank, 0)), false);
  return w;
}

Window convolutionWindowOf(const NamedAttrList& attrs, int64_t spatial) {
  Window w;
  w.strides = listOr(attrs, "window_strides", spatial, 1);
  w.baseDilations = listOr(attrs, "lhs_dilation", spatial, 1);
  w.windowDilations = listOr(attrs, "rhs_dilation", spatial, 1);
  readPadding(attrs, spatial, w);
  Attribute rev = findAttr(attrs, "window_reversal");
  if (rev && rev.is(Attribute::Kind::DenseArray))
    for (int64_t x : rev.asInts()) w.reversal.push_back(x != 0);
  else
    w.reversal.assign(static_cast<size_t>(std::max<int64_t>(spatial, 0)), false);
  return w;
}

DotDims DotDims::of(const Op& op) {
  if (op.is(ops::Dot)) return DotDims{{}, {}, {op.operand(0)->type().rank() - 1}, {0}};
  return fromAttr(op.attr("dot_dimension_numbers"));
}

namespace {
Dims freeOf(int64_t rank, const Dims& batch, const Dims& contracting) {
  Dims out;
  for (int64_t d = 0; d < rank; ++d)
    if (std::find(batch.begin(), batch.end(), d) == batch.end() &&
        std::find(contracting.begin(), contracting.end(), d) == contracting.end())
      out.push_back(d);
  return out;
}
}  // namespace
ScatterDims GatherDims::asScatter() const {
  ScatterDims s;
  s.updateWindowDims = offsetDims;
  s.insertedWindowDims = collapsedSliceDims;
  s.inputBatchingDims = operandBatchingDims;
  s.scatterIndicesBatchingDims = startIndicesBatchingDims;
  s.scatterDimsToOperandDims = startIndexMap;
  s.indexVectorDim = indexVectorDim;
  return s;
}

GatherDims ScatterDims::asGather() const {
  GatherDims g;
  g.offsetDims = updateWindowDims;
  g.collapsedSliceDims = insertedWindowDims;
  g.operandBatchingDims = inputBatchingDims;
  g.startIndicesBatchingDims = scatterIndicesBatchingDims;
  g.startIndexMap = scatterDimsToOperandDims;
  g.indexVectorDim = indexVectorDim;
  return g;
}

Dims ScatterDims::windowSizes(const Shape& operand, const Shape& updates) const {
  auto has = [](const Dims& dims, int64_t d) { return std::find(dims.begin(), dims.end(), d) != dims.end(); };
  Dims sizes;
  size_t window = 0;
  for (int64_t d = 0; d < static_cast<int64_t>(operand.size()); ++d) {
    bool collapsed = has(insertedWindowDims, d) || has(inputBatchingDims, d);
    sizes.push_back(collapsed ? 1 : updates[static_cast<size_t>(updateWindowDims[window++])]);
  }
  return sizes;
}

Dims DotDims::lhsFree(int64_t rank) const { return freeOf(rank, lhsBatch, lhsContracting); }
Dims DotDims::rhsFree(int64_t rank) const { return freeOf(rank, rhsBatch, rhsContracting); }

Window Window::ofReduceWindow(const Op& op, int64_t rank) { return reduceWindowOf(op.attrs(), rank); }
Window Window::ofConvolution(const Op& op, int64_t spatial) {
  return convolutionWindowOf(op.attrs(), spatial);
}

std::optional<int64_t> windowAttrFill(std::string_view name) {
  if (name == "window_strides" || name == "lhs_dilation" || name == "rhs_dilation" || name == "base_dilations" ||
      name == "window_dilations")
    return 1;
  if (name == "padding" || name == "window_reversal") return 0;
  return std::nullopt;
}

void setReduceWindowAttrs(NamedAttrList& attrs, const Window& w) {
  setAttr(attrs, "window_dimensions", Attribute::i64Array(w.dimensions));
  setList(attrs, "window_strides", w.strides, 1);
  setList(attrs, "base_dilations", w.baseDilations, 1);
  setList(attrs, "window_dilations", w.windowDilations, 1);
  setPadding(attrs, w);
}

void setConvolutionWindowAttrs(NamedAttrList& attrs, const Window& w) {
  setList(attrs, "window_strides", w.strides, 1);
  setList(attrs, "lhs_dilation", w.baseDilations, 1);
  setList(attrs, "rhs_dilation", w.windowDilations, 1);
  setPadding(attrs, w);
  bool reversed = false;
  for (bool r : w.reversal) reversed = reversed || r;
  if (reversed)
    setAttr(attrs, "window_reversal", Attribute::boolArray(w.reversal));
  else
    removeAttr(attrs, "window_reversal");
}

// ---- enums -----------------------------------------------------------------------------------

ComparisonDirection comparisonDirectionOf(const Attribute& a) {
  return enumOf<ComparisonDirection>(a, a.is(Attribute::Kind::Enum) ? a.enumName()
                                                                     : "stablehlo.comparison_direction");
}
Attribute toAttr(ComparisonDirection d) { return enumAttr(d, "stablehlo.comparison_direction"); }
std::string_view enumName(ComparisonDirection d) {
  return enumValues("stablehlo.comparison_direction")[static_cast<size_t>(d)];
}

std::optional<ComparisonType> comparisonTypeOf(const Attribute& a) {
  if (!a) return std::nullopt;
  auto t = enumOf<ComparisonType>(a, a.is(Attribute::Kind::Enum) ? a.enumName()
                                                                 : "stablehlo.comparison_type");
  if (t == ComparisonType::NoType) return std::nullopt;
  return t;
}
Attribute toAttr(ComparisonType t) { return enumAttr(t, "stablehlo.comparison_type"); }

std::vector<Precision> precisionsOf(const Attribute& a) {
  std::vector<Precision> out;
  if (!a) return out;
  for (const Attribute& e : a.asArray()) out.push_back(enumOf<Precision>(e, e.enumName()));
  return out;
}
Attribute toAttr(const std::vector<Precision>& p) {
  std::vector<Attribute> elements;
  for (Precision x : p) elements.push_back(enumAttr(x, "stablehlo.precision"));
  return Attribute::array(std::move(elements));
}

FftType fftTypeOf(const Attribute& a) { return enumOf<FftType>(a, "stablehlo.fft_type"); }
Attribute toAttr(FftType t) { return enumAttr(t, "stablehlo.fft_type"); }
RngDistribution rngDistributionOf(const Attribute& a) {
  return enumOf<RngDistribution>(a, "stablehlo.rng_distribution");
}
Attribute toAttr(RngDistribution d) { return enumAttr(d, "stablehlo.rng_distribution"); }
RngAlgorithm rngAlgorithmOf(const Attribute& a) {
  return enumOf<RngAlgorithm>(a, "stablehlo.rng_algorithm");
}
Attribute toAttr(RngAlgorithm a) { return enumAttr(a, "stablehlo.rng_algorithm"); }
TransposeKind transposeKindOf(const Attribute& a) {
  return enumOf<TransposeKind>(a, "stablehlo.transpose");
}
Attribute toAttr(TransposeKind t) { return enumAttr(t, "stablehlo.transpose"); }

std::optional<FusionKind> fusionKindOf(std::string_view name) {
  for (size_t i = 0; i < std::size(kFusionKinds); ++i)
    if (kFusionKinds[i] == name) return static_cast<FusionKind>(i);
  return std::nullopt;
}
std::string_view fusionKindName(FusionKind k) { return kFusionKinds[static_cast<size_t>(k)]; }
Attribute toAttr(FusionKind k) { return Attribute::string(std::string(fusionKindName(k))); }

}  // namespace kiln
