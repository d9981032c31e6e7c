// Building IR from C++: an insertion point plus one function per op or op family. Each
// takes operands and typed attributes, infers the result types (ir/infer.h) and creates
// the op, so a program built here is verifier-clean by construction and no caller writes
// a shape rule. Ops with regions take body builders: the builder makes the region's
// arguments, the callback builds the body and returns what the region yields.
//
// Errors (operands that do not fit the op) throw kiln::Error (kind Verify) naming the op
// and, when set, the builder's location, before anything is inserted.
#pragma once

#include <functional>
#include <optional>
#include <span>
#include <string>

#include "ir/attr_records.h"
#include "ir/module.h"
#include "ir/ops/stablehlo.h"

namespace kiln {

class Builder;

// A detached op with inferred result types (`given`: those that are parameters of the
// op), for code that places ops itself (the rewriters of the passes). Throws like the
// builder.
std::unique_ptr<Op> makeOp(OpCode code, const std::vector<Value*>& operands, NamedAttrList attrs = {},
                           std::vector<std::unique_ptr<Region>> regions = {}, const TypeList& given = {},
                           Location loc = {}, const Module* module = nullptr);

// The replica_groups attribute of collectives: one row of process ids per group.
Attribute replicaGroups(const std::vector<Dims>& groups);

// Builds a region's body: receives the builder of the region and its arguments, returns
// the values the region yields (the builder adds the stablehlo.return).
using BodyFn = std::function<std::vector<Value*>(Builder&, const std::vector<Value*>& args)>;

class Builder {
 public:
  // Inserts at the end of `region`. `module`, when given, is where calls find callees.
  explicit Builder(Region& region, const Module* module = nullptr)
      : region_(&region), pos_(region.ops().end()), module_(module) {}
  // Inserts before `op` in its region.
  static Builder before(Op& op, const Module* module = nullptr);

  Region& region() const { return *region_; }
  const Module* module() const { return module_; }
  // The location every op created from now on gets (the frontend passes the user's
  // call site); nested region builders inherit it.
  void setLocation(Location loc) { loc_ = std::move(loc); }
  const Location& location() const { return loc_; }

  // ---- the general forms ----
  // Any op: the result types are inferred; `given` supplies the ones that are parameters
  // of the op (reshape's, convert's, custom_call's: see ir/infer.h).
  Op* create(OpCode code, const std::vector<Value*>& operands, NamedAttrList attrs = {},
             std::vector<std::unique_ptr<Region>> regions = {}, const TypeList& given = {});
  Value* create1(OpCode code, const std::vector<Value*>& operands, NamedAttrList attrs = {},
                 const TypeList& given = {}) {
    return create(code, operands, std::move(attrs), {}, given)->result();
  }
  // A region taking `argTypes`, built by `body` with this builder's module and location.
  std::unique_ptr<Region> buildRegion(const TypeList& argTypes, const BodyFn& body) const;
  // Ends the region: stablehlo.return (nested regions) or func.return (function bodies).
  void ret(const std::vector<Value*>& values, OpCode code = ops::Return);

  // ---- constants and elementwise ----
  Value* constant(Literal value);
  // A tensor of `type` with every element `value` (converted to the element type).
  Value* splat(const Type& type, double value);
  Value* iota(const Type& type, int64_t dimension);
  Value* unary(OpCode code, Value* x);
  Value* binary(OpCode code, Value* lhs, Value* rhs);
  Value* compare(Value* lhs, Value* rhs, ComparisonDirection dir,
                 std::optional<ComparisonType> type = std::nullopt);
  Value* select(Value* pred, Value* onTrue, Value* onFalse);
  Value* clamp(Value* min, Value* x, Value* max);
  Value* convert(Value* x, DType dtype);
  Value* bitcastConvert(Value* x, DType dtype);

  // ---- data movement ----
  Value* reshape(Value* x, const Shape& shape);
  Value* broadcastInDim(Value* x, const Shape& shape, const Dims& dims);
  Value* transpose(Value* x, const Dims& permutation);
  Value* reverse(Value* x, const Dims& dims);
  Value* slice(Value* x, const Dims& start, const Dims& limit, const Dims& strides);
  Value* dynamicSlice(Value* x, const std::vector<Value*>& starts, const Dims& sizes);
  Value* dynamicUpdateSlice(Value* x, Value* update, const std::vector<Value*>& starts);
  Value* concatenate(const std::vector<Value*>& inputs, int64_t dimension);
  Value* pad(Value* x, Value* padding, const Dims& low, const Dims& high, const Dims& interior);
  Value* gather(Value* operand, Value* indices, const GatherDims& dims, const Dims& sliceSizes,
                bool indicesAreSorted = false);
  std::vector<Value*> scatter(const std::vector<Value*>& inputs, Value* indices,
                              const std::vector<Value*>& updates, const ScatterDims& dims,
                              const BodyFn& update, bool indicesAreSorted = false,
                              bool uniqueIndices = false);
  Value* tuple(const std::vector<Value*>& elements);
  Value* getTupleElement(Value* tuple, int64_t index);

  // ---- linear algebra ----
  // `resultType` is the element type of the result (JAX's preferred_element_type);
  // by default the lhs element type.
  Value* dotGeneral(Value* lhs, Value* rhs, const DotDims& dims,
                    std::optional<DType> resultType = std::nullopt,
                    const std::vector<Precision>& precision = {});
  Value* convolution(Value* lhs, Value* rhs, const ConvDims& dims, const Window& window,
                     int64_t featureGroupCount = 1, int64_t batchGroupCount = 1,
                     std::optional<DType> resultType = std::nullopt,
                     const std::vector<Precision>& precision = {});

  // ---- reductions and control flow ----
  std::vector<Value*> reduce(const std::vector<Value*>& inputs, const std::vector<Value*>& inits,
                             const Dims& dims, const BodyFn& body);
  std::vector<Value*> reduceWindow(const std::vector<Value*>& inputs,
                                   const std::vector<Value*>& inits, const Window& window,
                                   const BodyFn& body);
  std::vector<Value*> sort(const std::vector<Value*>& inputs, int64_t dimension, bool stable,
                           const BodyFn& comparator);
  std::vector<Value*> while_(const std::vector<Value*>& carries, const BodyFn& cond,
                             const BodyFn& body);
  std::vector<Value*> if_(Value* pred, const BodyFn& onTrue, const BodyFn& onFalse);
  std::vector<Value*> case_(Value* index, const std::vector<BodyFn>& branches);

  // ---- functions ----
  std::vector<Value*> call(const Function& callee, const std::vector<Value*>& args);
  // ---- autodiff constructs (what custom_jvp, custom_vjp and jax.checkpoint lower to) ----
  // `primal` with its jvp rule: jvp(primals..., tangents...) -> (results..., tangents...).
  std::vector<Value*> customJvp(const Function& primal, const Function& jvp, const std::vector<Value*>& args);
  // `primal` with fwd(primals...) -> (results..., residuals...) and
  // bwd(residuals..., result cotangents...) -> (parameter cotangents...).
  std::vector<Value*> customVjp(const Function& primal, const Function& fwd, const Function& bwd,
                                const std::vector<Value*>& args);
  // A region (taking `args`) whose residuals reverse mode recomputes rather than stores,
  // except what `policy` keeps: nothing_saveable, dots_saveable, everything_saveable.
  std::vector<Value*> checkpoint(const std::vector<Value*>& args, const std::string& policy, const BodyFn& body);
  // The results of a custom_call are parameters: only the target knows them.
  // ---- fft, random numbers, batch normalization, collectives ----
  Value* fft(Value* x, FftType type, const Dims& lengths);
  // rng(a, b, shape): `shape` becomes the op's shape operand (a constant).
  Value* rng(Value* a, Value* b, const Dims& shape, RngDistribution distribution);
  // Returns the new state and the random bits, of type `output` (a parameter of the op).
  std::vector<Value*> rngBitGenerator(Value* state, RngAlgorithm algorithm, const Type& output);
  Value* batchNormInference(Value* x, Value* scale, Value* offset, Value* mean, Value* variance,
                            double epsilon, int64_t featureIndex);
  // Returns the output, the batch mean and the batch variance.
  std::vector<Value*> batchNormTraining(Value* x, Value* scale, Value* offset, double epsilon,
                                        int64_t featureIndex);
  // Returns the gradients of x, scale and offset.
  std::vector<Value*> batchNormGrad(Value* x, Value* scale, Value* mean, Value* variance, Value* gradOutput,
                                    double epsilon, int64_t featureIndex);
  // `groups`: the replica groups, one row of process ids per group (all rows equally long).
  // `reducer` combines two scalars of the inputs' element type; it serves every input.
  std::vector<Value*> allReduce(const std::vector<Value*>& inputs, const std::vector<Dims>& groups,
                                const BodyFn& reducer);
  // The result's `dimension` grows by the group size.
  Value* allGather(Value* x, int64_t dimension, const std::vector<Dims>& groups);
  // `pairs`: (source, target) process ids.
  Value* collectivePermute(Value* x, const std::vector<std::pair<int64_t, int64_t>>& pairs);

  // Copies the ops of `region` here, its arguments replaced by `args`, and returns what
  // its terminator yields (the transforms and decompositions inline bodies this way).
  std::vector<Value*> inlineRegion(const Region& region, const std::vector<Value*>& args);
  // Copies `op` here, its operands looked up in `map` (unmapped ones stay), its results
  // and nested values added to it (the transforms copy programs op by op).
  Op* copy(const Op& op, ValueMap& map) { return insert(op.clone(map)); }

  std::vector<Value*> customCall(const std::string& target, const std::vector<Value*>& operands,
                                 const TypeList& resultTypes, bool hasSideEffect = false);

 private:
  Op* insert(std::unique_ptr<Op> op);

  Region* region_;
  Region::iterator pos_;
  const Module* module_;
  Location loc_;
};

// Adds a function `name` taking `paramTypes` to `module`, its body built by `body` (which
// receives the parameters); its result types are those of the values `body` returns.
Function* buildFunction(Module& module, const std::string& name, const TypeList& paramTypes,
                        const BodyFn& body, Visibility visibility = Visibility::Public);

}  // namespace kiln
