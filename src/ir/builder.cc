// The builder: every op goes through result-type inference before it is created.
#include "ir/builder.h"

#include <algorithm>

#include "ir/infer.h"
#include "ir/ops/compiler.h"
#include "ir/ops/stablehlo.h"
#include "support/error.h"

namespace kiln {
namespace {

TypeList typesOf(const std::vector<Value*>& values) {
  TypeList types;
  for (const Value* v : values) types.push_back(v->type());
  return types;
}

// The scalar argument types of a reducer over `inputs`: (E0..En-1, E0..En-1).
TypeList reducerArgs(const std::vector<Value*>& inputs) {
  TypeList args;
  for (int pass = 0; pass < 2; ++pass)
    for (const Value* v : inputs) args.push_back(Type::scalar(v->type().dtype()));
  return args;
}

std::vector<Value*> concatValues(std::vector<Value*> a, const std::vector<Value*>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

}  // namespace

Builder Builder::before(Op& op, const Module* module) {
  Region* region = op.parentRegion();
  if (!region) throw Error(ErrorKind::Internal, "Builder::before: the op is not in a region");
  Builder b(*region, module);
  b.pos_ = region->positionOf(&op);
  b.loc_ = op.loc;
  return b;
}

Op* Builder::insert(std::unique_ptr<Op> op) { return region_->insert(pos_, std::move(op)); }

std::unique_ptr<Op> makeOp(OpCode code, const std::vector<Value*>& operands, NamedAttrList attrs,
                           std::vector<std::unique_ptr<Region>> regions, const TypeList& given,
                           Location loc, const Module* module) {
  // Attribute lists are sorted by name (what Op::create does too), so lookups work.
  std::sort(attrs.begin(), attrs.end(),
            [](const NamedAttribute& x, const NamedAttribute& y) { return x.name < y.name; });
  OpParts parts{code, operands, attrs};
  for (const auto& r : regions) parts.regions.push_back(r.get());
  parts.given = given.empty() ? nullptr : &given;
  parts.module = module;
  parts.loc = loc;
  TypeList types = inferResultTypes(parts);
  return Op::create(code, operands, types, std::move(attrs), std::move(regions), std::move(loc));
}

Op* Builder::create(OpCode code, const std::vector<Value*>& operands, NamedAttrList attrs,
                    std::vector<std::unique_ptr<Region>> regions, const TypeList& given) {
  return insert(makeOp(code, operands, std::move(attrs), std::move(regions), given, loc_, module_));
}

std::unique_ptr<Region> Builder::buildRegion(const TypeList& argTypes, const BodyFn& body) const {
  auto region = std::make_unique<Region>();
  for (const Type& t : argTypes) region->addArgument(t);
  Builder inner(*region, module_);
  inner.setLocation(loc_);
  inner.ret(body(inner, region->arguments()));
  return region;
}

void Builder::ret(const std::vector<Value*>& values, OpCode code) { create(code, values); }

// ---- constants and elementwise ----

Value* Builder::constant(Literal value) {
  return create1(ops::Constant, {}, {{"value", Attribute::dense(std::move(value))}});
}

Value* Builder::splat(const Type& type, double value) {
  Literal one(Type::scalar(type.dtype()));
  if (isFloat(type.dtype()))
    one.setFloat(0, value);
  else if (isComplex(type.dtype()))
    one.setComplex(0, {value, 0.0});
  else
    one.setInt(0, static_cast<int64_t>(value));
  return constant(Literal::splat(type, one.storage()));
}

Value* Builder::iota(const Type& type, int64_t dimension) {
  return create1(ops::Iota, {}, {{"iota_dimension", Attribute::integer(dimension)}}, {type});
}

Value* Builder::unary(OpCode code, Value* x) { return create1(code, {x}); }
Value* Builder::binary(OpCode code, Value* lhs, Value* rhs) { return create1(code, {lhs, rhs}); }

Value* Builder::compare(Value* lhs, Value* rhs, ComparisonDirection dir,
                        std::optional<ComparisonType> type) {
  NamedAttrList attrs = {{"comparison_direction", toAttr(dir)}};
  if (type) setAttr(attrs, "compare_type", toAttr(*type));
  return create1(ops::Compare, {lhs, rhs}, std::move(attrs));
}

Value* Builder::select(Value* pred, Value* onTrue, Value* onFalse) {
  return create1(ops::Select, {pred, onTrue, onFalse});
}
Value* Builder::clamp(Value* min, Value* x, Value* max) { return create1(ops::Clamp, {min, x, max}); }

Value* Builder::convert(Value* x, DType dtype) {
  return create1(ops::Convert, {x}, {}, {x->type().withDType(dtype)});
}
Value* Builder::bitcastConvert(Value* x, DType dtype) {
  return create1(ops::BitcastConvert, {x}, {}, {x->type().withDType(dtype)});
}

// ---- data movement ----

Value* Builder::reshape(Value* x, const Shape& shape) {
  return create1(ops::Reshape, {x}, {}, {Type::tensor(x->type().dtype(), shape)});
}

Value* Builder::broadcastInDim(Value* x, const Shape& shape, const Dims& dims) {
  return create1(ops::BroadcastInDim, {x}, {{"broadcast_dimensions", Attribute::i64Array(dims)}},
                 {Type::tensor(x->type().dtype(), shape)});
}

Value* Builder::transpose(Value* x, const Dims& permutation) {
  return create1(ops::Transpose, {x}, {{"permutation", Attribute::i64Array(permutation)}});
}
Value* Builder::reverse(Value* x, const Dims& dims) {
  return create1(ops::Reverse, {x}, {{"dimensions", Attribute::i64Array(dims)}});
}

Value* Builder::slice(Value* x, const Dims& start, const Dims& limit, const Dims& strides) {
  return create1(ops::Slice, {x},
                 {{"limit_indices", Attribute::i64Array(limit)},
                  {"start_indices", Attribute::i64Array(start)},
                  {"strides", Attribute::i64Array(strides)}});
}

Value* Builder::dynamicSlice(Value* x, const std::vector<Value*>& starts, const Dims& sizes) {
  return create1(ops::DynamicSlice, concatValues({x}, starts),
                 {{"slice_sizes", Attribute::i64Array(sizes)}});
}

Value* Builder::dynamicUpdateSlice(Value* x, Value* update, const std::vector<Value*>& starts) {
  return create1(ops::DynamicUpdateSlice, concatValues({x, update}, starts));
}

Value* Builder::concatenate(const std::vector<Value*>& inputs, int64_t dimension) {
  return create1(ops::Concatenate, inputs, {{"dimension", Attribute::integer(dimension)}});
}

Value* Builder::pad(Value* x, Value* padding, const Dims& low, const Dims& high, const Dims& interior) {
  return create1(ops::Pad, {x, padding},
                 {{"edge_padding_high", Attribute::i64Array(high)},
                  {"edge_padding_low", Attribute::i64Array(low)},
                  {"interior_padding", Attribute::i64Array(interior)}});
}

Value* Builder::gather(Value* operand, Value* indices, const GatherDims& dims, const Dims& sliceSizes,
                       bool indicesAreSorted) {
  NamedAttrList attrs = {{"dimension_numbers", dims.toAttr()},
                         {"slice_sizes", Attribute::i64Array(sliceSizes)}};
  if (indicesAreSorted) setAttr(attrs, "indices_are_sorted", Attribute::boolean(true));
  return create1(ops::Gather, {operand, indices}, std::move(attrs));
}

std::vector<Value*> Builder::scatter(const std::vector<Value*>& inputs, Value* indices,
                                     const std::vector<Value*>& updates, const ScatterDims& dims,
                                     const BodyFn& update, bool indicesAreSorted, bool uniqueIndices) {
  NamedAttrList attrs = {{"scatter_dimension_numbers", dims.toAttr()}};
  if (indicesAreSorted) setAttr(attrs, "indices_are_sorted", Attribute::boolean(true));
  if (uniqueIndices) setAttr(attrs, "unique_indices", Attribute::boolean(true));
  std::vector<std::unique_ptr<Region>> regions;
  regions.push_back(buildRegion(reducerArgs(inputs), update));
  return create(ops::Scatter, concatValues(concatValues(inputs, {indices}), updates), std::move(attrs),
                std::move(regions))
      ->results();
}

Value* Builder::tuple(const std::vector<Value*>& elements) { return create1(ops::Tuple, elements); }

Value* Builder::getTupleElement(Value* tuple, int64_t index) {
  return create1(ops::GetTupleElement, {tuple}, {{"index", Attribute::integer(index, DType::I32)}});
}

// ---- linear algebra ----

namespace {
void setPrecision(NamedAttrList& attrs, const std::vector<Precision>& precision) {
  if (!precision.empty()) setAttr(attrs, "precision_config", toAttr(precision));
}
}  // namespace

Value* Builder::dotGeneral(Value* lhs, Value* rhs, const DotDims& dims, std::optional<DType> resultType,
                           const std::vector<Precision>& precision) {
  NamedAttrList attrs = {{"dot_dimension_numbers", dims.toAttr()}};
  setPrecision(attrs, precision);
  // Only the element type of the given result is read: dot_general infers the shape.
  Type given = Type::scalar(resultType.value_or(lhs->type().dtype()));
  return create1(ops::DotGeneral, {lhs, rhs}, std::move(attrs), {given});
}

Value* Builder::convolution(Value* lhs, Value* rhs, const ConvDims& dims, const Window& window,
                            int64_t featureGroupCount, int64_t batchGroupCount,
                            std::optional<DType> resultType, const std::vector<Precision>& precision) {
  NamedAttrList attrs = {{"batch_group_count", Attribute::integer(batchGroupCount)},
                         {"dimension_numbers", dims.toAttr()},
                         {"feature_group_count", Attribute::integer(featureGroupCount)}};
  setConvolutionWindowAttrs(attrs, window);
  setPrecision(attrs, precision);
  // The rank of the given type is checked; its shape is inferred.
  Shape anyShape(static_cast<size_t>(lhs->type().rank()), 1);
  Type given = Type::tensor(resultType.value_or(lhs->type().dtype()), anyShape);
  return create1(ops::Convolution, {lhs, rhs}, std::move(attrs), {given});
}

// ---- reductions and control flow ----

std::vector<Value*> Builder::reduce(const std::vector<Value*>& inputs, const std::vector<Value*>& inits,
                                    const Dims& dims, const BodyFn& body) {
  std::vector<std::unique_ptr<Region>> regions;
  regions.push_back(buildRegion(reducerArgs(inputs), body));
  return create(ops::Reduce, concatValues(inputs, inits), {{"dimensions", Attribute::i64Array(dims)}},
                std::move(regions))
      ->results();
}

std::vector<Value*> Builder::reduceWindow(const std::vector<Value*>& inputs,
                                          const std::vector<Value*>& inits, const Window& window,
                                          const BodyFn& body) {
  NamedAttrList attrs;
  setReduceWindowAttrs(attrs, window);
  std::vector<std::unique_ptr<Region>> regions;
  regions.push_back(buildRegion(reducerArgs(inputs), body));
  return create(ops::ReduceWindow, concatValues(inputs, inits), std::move(attrs), std::move(regions))
      ->results();
}

std::vector<Value*> Builder::sort(const std::vector<Value*>& inputs, int64_t dimension, bool stable,
                                  const BodyFn& comparator) {
  TypeList args;
  for (const Value* v : inputs) {
    args.push_back(Type::scalar(v->type().dtype()));
    args.push_back(Type::scalar(v->type().dtype()));
  }
  std::vector<std::unique_ptr<Region>> regions;
  regions.push_back(buildRegion(args, comparator));
  NamedAttrList attrs = {{"dimension", Attribute::integer(dimension)},
                         {"is_stable", Attribute::boolean(stable)}};
  return create(ops::Sort, inputs, std::move(attrs), std::move(regions))->results();
}

std::vector<Value*> Builder::inlineRegion(const Region& region, const std::vector<Value*>& args) {
  if (args.size() != region.numArguments())
    throw Error(ErrorKind::Verify, "inlining a region of " + std::to_string(region.numArguments()) +
                                       " arguments with " + std::to_string(args.size()));
  ValueMap map;
  for (size_t i = 0; i < args.size(); ++i) map[region.argument(i)] = args[i];
  std::vector<Value*> yielded;
  for (const auto& op : region.ops()) {
    if (op->info().isTerminator()) {
      for (Value* v : op->operands()) yielded.push_back(map.count(v) ? map[v] : v);
      break;
    }
    insert(op->clone(map));
  }
  return yielded;
}

Value* Builder::fft(Value* x, FftType type, const Dims& lengths) {
  return create1(ops::Fft, {x}, {{"fft_length", Attribute::i64Array(lengths)}, {"fft_type", toAttr(type)}});
}

Value* Builder::rng(Value* a, Value* b, const Dims& shape, RngDistribution distribution) {
  Literal dims(Type::tensor(DType::I64, {static_cast<int64_t>(shape.size())}));
  for (size_t i = 0; i < shape.size(); ++i) dims.setInt(static_cast<int64_t>(i), shape[i]);
  return create1(ops::Rng, {a, b, constant(dims)}, {{"rng_distribution", toAttr(distribution)}},
                 {Type::tensor(a->type().dtype(), shape)});
}

std::vector<Value*> Builder::rngBitGenerator(Value* state, RngAlgorithm algorithm, const Type& output) {
  return create(ops::RngBitGenerator, {state}, {{"rng_algorithm", toAttr(algorithm)}}, {},
                {state->type(), output})
      ->results();
}

namespace {

NamedAttrList batchNormAttrs(double epsilon, int64_t featureIndex) {
  return {{"epsilon", Attribute::floating(epsilon, DType::F32)}, {"feature_index", Attribute::integer(featureIndex)}};
}

// A rectangular table of ids as the dense i64 attribute collectives take.
Attribute idTable(const std::vector<Dims>& rows, size_t width) {
  Literal table(Type::tensor(DType::I64, {static_cast<int64_t>(rows.size()), static_cast<int64_t>(width)}));
  for (size_t r = 0; r < rows.size(); ++r) {
    if (rows[r].size() != width)
      throw Error(ErrorKind::Verify, "collective: every row of ids must have " + std::to_string(width) + " entries");
    for (size_t c = 0; c < width; ++c) table.setInt(static_cast<int64_t>(r * width + c), rows[r][c]);
  }
  return Attribute::dense(std::move(table));
}

}  // namespace

Attribute replicaGroups(const std::vector<Dims>& groups) { return idTable(groups, groups.empty() ? 0 : groups[0].size()); }

Value* Builder::batchNormInference(Value* x, Value* scale, Value* offset, Value* mean, Value* variance,
                                   double epsilon, int64_t featureIndex) {
  return create1(ops::BatchNormInference, {x, scale, offset, mean, variance}, batchNormAttrs(epsilon, featureIndex));
}

std::vector<Value*> Builder::batchNormTraining(Value* x, Value* scale, Value* offset, double epsilon,
                                               int64_t featureIndex) {
  return create(ops::BatchNormTraining, {x, scale, offset}, batchNormAttrs(epsilon, featureIndex))->results();
}

std::vector<Value*> Builder::batchNormGrad(Value* x, Value* scale, Value* mean, Value* variance, Value* gradOutput,
                                           double epsilon, int64_t featureIndex) {
  return create(ops::BatchNormGrad, {x, scale, mean, variance, gradOutput}, batchNormAttrs(epsilon, featureIndex))
      ->results();
}

std::vector<Value*> Builder::allReduce(const std::vector<Value*>& inputs, const std::vector<Dims>& groups,
                                       const BodyFn& reducer) {
  // One binary computation (E, E) -> E serves every input (the spec's C5).
  if (inputs.empty()) throw Error(ErrorKind::Verify, "stablehlo.all_reduce: no inputs");
  Type e = Type::scalar(inputs[0]->type().dtype());
  std::vector<std::unique_ptr<Region>> regions;
  regions.push_back(buildRegion({e, e}, reducer));
  return create(ops::AllReduce, inputs, {{"replica_groups", replicaGroups(groups)}}, std::move(regions))->results();
}

Value* Builder::allGather(Value* x, int64_t dimension, const std::vector<Dims>& groups) {
  Shape shape = x->type().shape();
  if (dimension < 0 || dimension >= static_cast<int64_t>(shape.size()))
    throw Error(ErrorKind::Verify, "all_gather: dimension " + std::to_string(dimension) + " is out of range for " +
                                       x->type().str());
  shape[static_cast<size_t>(dimension)] *= groups.empty() ? 1 : static_cast<int64_t>(groups[0].size());
  return create1(ops::AllGather, {x},
                 {{"all_gather_dim", Attribute::integer(dimension)}, {"replica_groups", replicaGroups(groups)}},
                 {Type::tensor(x->type().dtype(), shape)});
}

Value* Builder::collectivePermute(Value* x, const std::vector<std::pair<int64_t, int64_t>>& pairs) {
  std::vector<Dims> rows;
  for (const auto& [source, target] : pairs) rows.push_back({source, target});
  return create1(ops::CollectivePermute, {x}, {{"source_target_pairs", idTable(rows, 2)}});
}

std::vector<Value*> Builder::while_(const std::vector<Value*>& carries, const BodyFn& cond,
                                    const BodyFn& body) {
  TypeList types = typesOf(carries);
  std::vector<std::unique_ptr<Region>> regions;
  regions.push_back(buildRegion(types, cond));
  regions.push_back(buildRegion(types, body));
  return create(ops::While, carries, {}, std::move(regions))->results();
}

std::vector<Value*> Builder::if_(Value* pred, const BodyFn& onTrue, const BodyFn& onFalse) {
  std::vector<std::unique_ptr<Region>> regions;
  regions.push_back(buildRegion({}, onTrue));
  regions.push_back(buildRegion({}, onFalse));
  return create(ops::If, {pred}, {}, std::move(regions))->results();
}

std::vector<Value*> Builder::case_(Value* index, const std::vector<BodyFn>& branches) {
  std::vector<std::unique_ptr<Region>> regions;
  for (const BodyFn& branch : branches) regions.push_back(buildRegion({}, branch));
  return create(ops::Case, {index}, {}, std::move(regions))->results();
}

// ---- functions ----

std::vector<Value*> Builder::call(const Function& callee, const std::vector<Value*>& args) {
  // Without a module the callee's declared results are the given ones.
  return create(ops::FuncCall, args, {{"callee", Attribute::symbol(callee.name())}}, {},
                callee.resultTypes())
      ->results();
}

std::vector<Value*> Builder::customJvp(const Function& primal, const Function& jvp, const std::vector<Value*>& args) {
  NamedAttrList attrs = {{"jvp", Attribute::symbol(jvp.name())}, {"primal", Attribute::symbol(primal.name())}};
  return create(ops::CustomJvp, args, std::move(attrs), {}, primal.resultTypes())->results();
}

std::vector<Value*> Builder::customVjp(const Function& primal, const Function& fwd, const Function& bwd,
                                       const std::vector<Value*>& args) {
  NamedAttrList attrs = {{"bwd", Attribute::symbol(bwd.name())},
                         {"fwd", Attribute::symbol(fwd.name())},
                         {"primal", Attribute::symbol(primal.name())}};
  return create(ops::CustomVjp, args, std::move(attrs), {}, primal.resultTypes())->results();
}

std::vector<Value*> Builder::checkpoint(const std::vector<Value*>& args, const std::string& policy,
                                        const BodyFn& body) {
  TypeList types;
  for (Value* v : args) types.push_back(v->type());
  std::vector<std::unique_ptr<Region>> regions;
  regions.push_back(buildRegion(types, body));
  return create(ops::Checkpoint, args, {{"policy", Attribute::string(policy)}}, std::move(regions))->results();
}

std::vector<Value*> Builder::customCall(const std::string& target, const std::vector<Value*>& operands,
                                        const TypeList& resultTypes, bool hasSideEffect) {
  NamedAttrList attrs = {{"call_target_name", Attribute::string(target)}};
  if (hasSideEffect) setAttr(attrs, "has_side_effect", Attribute::boolean(true));
  return create(ops::CustomCall, operands, std::move(attrs), {}, resultTypes)->results();
}

Function* buildFunction(Module& module, const std::string& name, const TypeList& paramTypes,
                        const BodyFn& body, Visibility visibility) {
  auto fn = std::make_unique<Function>(name, paramTypes, TypeList{});
  fn->visibility = visibility;
  Builder b(fn->body(), &module);
  std::vector<Value*> results = body(b, fn->body().arguments());
  fn->setResultTypes(typesOf(results));
  b.ret(results, ops::FuncReturn);
  return module.addFunction(std::move(fn));
}

}  // namespace kiln
