// Type rules: the remaining ops — random numbers, batch normalization, calls, custom_call
// (whose results are parameters) and its aliases, composite, get_dimension_size,
// optimization_barrier, chlo.top_k, async and the test harness ops (check.*,
// interpreter.*).
#include "ir/verify/rules.h"

#include "ir/attr_records.h"
#include "ir/ops/chlo.h"
#include "ir/ops/stablehlo.h"
#include "ir/ops/testing.h"

namespace kiln {
namespace {

void rngRule(InferContext& v) {
  const Type& a = v.tensorOperand(0);
  const Type& b = v.tensorOperand(1);
  v.check(a.rank() == 0 && b.rank() == 0,
          [&] { return "a and b must be 0-d tensors, got " + a.str() + " and " + b.str(); });
  v.check(a.dtype() == b.dtype(), [&] {
    return "a and b must share an element type, got " + a.str() + " and " + b.str();
  });
  v.check(!isComplex(a.dtype()), [&] {
    return "a and b must have an integer, boolean or floating-point element type, got " + a.str();
  });
  v.inferDType(0, a.dtype(), [] { return "the element type of a and b"; });
  const Type& r = v.givenTensor(0);
  if (rngDistributionOf(v.attr("rng_distribution")) == RngDistribution::Normal)
    v.check(isFloat(a.dtype()), [&] {
      return "a NORMAL distribution needs a floating-point element type, got " + a.str();
    });
  const Type& shape = v.tensorOperand(2);
  v.check(shape.rank() == 1 && isInteger(shape.dtype()) && shape.dim(0) == r.rank(), [&] {
    return "shape must be a 1-D integer tensor with one entry per result dimension, got " +
           shape.str();
  });
  if (auto values = constantInts(v.operand(2)))
    v.infer(0, Type::tensor(a.dtype(), *values), [] { return "the constant shape operand"; });
}

void rngBitGeneratorRule(InferContext& v) {
  const Type& state = v.tensorOperand(0);
  // The spec asks for ui64 states; IREE's conformance files pass the same 128 bits as
  // tensor<4xi32>, so any integer state is accepted and its size counted in bits.
  v.check(state.rank() == 1 && isInteger(state.dtype()), [&] {
    return "initial_state must be a 1-D integer tensor (ui64 in the spec), got " + state.str();
  });
  v.infer(0, state, [] { return "output_state has the type of initial_state"; });
  RngAlgorithm algorithm = rngAlgorithmOf(v.attr("rng_algorithm"));
  int64_t bits = satMul(state.dim(0), bitWidth(state.dtype()));
  if (algorithm == RngAlgorithm::ThreeFry)
    v.check(bits == 128,
            [&] { return "THREE_FRY needs a 128-bit state (2 x ui64), got " + state.str(); });
  else if (algorithm == RngAlgorithm::Philox)
    v.check(bits == 128 || bits == 192, [&] {
      return "PHILOX needs a 128- or 192-bit state (2 or 3 x ui64), got " + state.str();
    });
  const Type& out = v.givenTensor(1);  // the random output's type is the parameter
  v.check(isInteger(out.dtype()) || isFloat(out.dtype()), [&] {
    return "output must have an integer or floating-point element type, got " + out.str();
  });
}

// batch_norm_*: one feature dimension of the operand, described by 1-D tensors of its size.
struct BatchNorm {
  Type operand;
  Type feature;  // tensor<[dim(operand, feature_index)] x E>
};

BatchNorm checkBatchNormOperand(const InferContext& v) {
  const Type& x = v.tensorOperand(0);
  v.check(isFloat(x.dtype()),
          [&] { return "operand must have a floating-point element type, got " + x.str(); });
  int64_t fi = v.integer("feature_index");
  v.check(fi >= 0 && fi < x.rank(), [&] {
    return "feature_index " + std::to_string(fi) + " is outside [0, " + std::to_string(x.rank()) + ") for " + x.str();
  });
  return {x, Type::tensor(x.dtype(), {x.dim(fi)})};
}

void checkIs(const InferContext& v, const Type& got, const Type& expected, const std::string& label,
             const std::string& why) {
  v.check(got == expected, [&] {
    return label + " has type " + got.str() + ", expected " + expected.str() + " (" + why + ")";
  });
}

constexpr const char* kFeatureWhy = "one entry per feature of the operand";

void batchNormInferenceRule(InferContext& v) {
  BatchNorm bn = checkBatchNormOperand(v);
  const char* names[] = {"scale", "offset", "mean", "variance"};
  for (size_t i = 0; i < 4; ++i)
    checkIs(v, v.tensorOperand(1 + i), bn.feature, names[i], kFeatureWhy);
  v.infer(0, bn.operand, [] { return "the operand type"; });
}

void batchNormTrainingRule(InferContext& v) {
  BatchNorm bn = checkBatchNormOperand(v);
  checkIs(v, v.tensorOperand(1), bn.feature, "scale", kFeatureWhy);
  checkIs(v, v.tensorOperand(2), bn.feature, "offset", kFeatureWhy);
  v.infer(0, bn.operand, [] { return "output: the operand type"; });
  v.infer(1, bn.feature, [] { return std::string("batch_mean: ") + kFeatureWhy; });
  v.infer(2, bn.feature, [] { return std::string("batch_var: ") + kFeatureWhy; });
}

void batchNormGradRule(InferContext& v) {
  BatchNorm bn = checkBatchNormOperand(v);
  checkIs(v, v.tensorOperand(1), bn.feature, "scale", kFeatureWhy);
  checkIs(v, v.tensorOperand(2), bn.feature, "mean", kFeatureWhy);
  checkIs(v, v.tensorOperand(3), bn.feature, "variance", kFeatureWhy);
  checkIs(v, v.tensorOperand(4), bn.operand, "grad_output", "the operand type");
  v.infer(0, bn.operand, [] { return "grad_operand: the operand type"; });
  v.infer(1, bn.feature, [] { return std::string("grad_scale: ") + kFeatureWhy; });
  v.infer(2, bn.feature, [] { return std::string("grad_offset: ") + kFeatureWhy; });
}

// Follows tuple indices into a type; fails naming `what` when an index leads nowhere.
Type followTupleIndices(const InferContext& v, Type t, const std::vector<int64_t>& path,
                        const std::string& what) {
  for (int64_t i : path) {
    v.check(t.isTuple() && i >= 0 && i < static_cast<int64_t>(t.elements().size()), [&] {
      return what + " tuple indices " + shapeStr(path) + " do not lead into " + t.str();
    });
    t = t.elements()[static_cast<size_t>(i)];
  }
  return t;
}

// The results of a custom_call are parameters: only the target knows them.
void customCallRule(InferContext& v) {
  TypeList results;
  for (size_t i = 0; i < v.givenCount(); ++i) results.push_back(v.given(i));
  // A custom_call to a check target is that check: two operands of one type, no results.
  if (std::optional<OpCode> check = checkOpOfCustomCall(v.attr("call_target_name").asString())) {
    const char* target = opInfo(*check).name.data();
    v.check(v.numOperands() == 2 && results.empty(), [&] {
      return std::string("@") + target + " takes two operands (actual, expected) and has no results";
    });
    v.check(v.operandType(0) == v.operandType(1), [&] {
      return std::string("@") + target + " compares values of one type, got " + v.operandType(0).str() +
             " and " + v.operandType(1).str();
    });
  }
  int64_t api = v.integer("api_version");
  v.check(api >= 0 && api <= 4,
          [&] { return "api_version " + std::to_string(api) + " is not one of 0 to 4"; });
  // Aliases pair a part of the results (one result, or the tuple of several) with a
  // part of an operand of the same type.
  Type resultPart = results.size() == 1 ? results[0] : Type::tuple(results);
  for (const Attribute& alias : v.attrOrDefault("output_operand_aliases").asArray()) {
    OutputOperandAlias a = OutputOperandAlias::fromAttr(alias);
    int64_t operand = a.operandIndex;
    v.check(operand >= 0 && operand < static_cast<int64_t>(v.numOperands()), [&] {
      return "output_operand_aliases names operand " + std::to_string(operand) + ", but the op has " +
             std::to_string(static_cast<int64_t>(v.numOperands())) + " operands";
    });
    Type out = followTupleIndices(v, resultPart, a.outputTupleIndices, "output");
    Type in = followTupleIndices(v, v.operandType(static_cast<size_t>(operand)),
                                 a.operandTupleIndices, "operand");
    v.check(out == in, [&] {
      return "output_operand_aliases pairs output " + out.str() + " with operand " + std::to_string(operand) +
             " part " + in.str() + "; aliased parts must have one type";
    });
  }
}

void getDimensionSizeRule(InferContext& v) {
  const Type& x = v.tensorOperand(0);
  int64_t dim = v.integer("dimension");
  v.check(dim >= 0 && dim < x.rank(), [&] {
    return "dimension " + std::to_string(dim) + " is outside [0, " + std::to_string(x.rank()) + ") for " + x.str();
  });
  v.infer(0, Type::scalar(DType::I32), [] { return "a size is a tensor<i32>"; });
}

void optimizationBarrierRule(InferContext& v) {
  for (size_t i = 0; i < v.numOperands(); ++i)
    v.infer(i, v.operandType(i), [] { return "results have the operand types"; });
}

void callRule(InferContext& v) { inferCallResults(v, v.attr("callee")); }

void compositeRule(InferContext& v) {
  const std::string& opName = v.attr("name").asString();
  size_t dot = opName.find('.');
  v.check(dot != std::string::npos && dot > 0 && dot + 1 < opName.size(), [&] {
    return "name \"" + opName + "\" must be a namespaced op name such as \"my_dialect.my_op\"";
  });
  inferCallResults(v, v.attr("decomposition"));
}

void topKRule(InferContext& v) {
  const Type& x = v.tensorOperand(0);
  int64_t k = v.integer("k");
  v.check(x.rank() >= 1,
          [&] { return "operand must have at least one dimension, got " + x.str(); });
  int64_t last = x.dim(x.rank() - 1);
  v.check(k >= 0 && k <= last, [&] {
    return "k = " + std::to_string(k) + " must lie in [0, " + std::to_string(last) + "], the size of the last dimension";
  });
  Shape shape = x.shape();
  shape.back() = k;
  v.infer(0, Type::tensor(x.dtype(), shape), [] { return "the top k along the last dimension"; });
  v.infer(1, Type::tensor(DType::I32, shape), [] { return "i32 positions of the values"; });
}

// check.expect_eq and friends compare two values of one type.
void sameOperandTypesRule(InferContext& v) {
  v.check(v.operandType(0) == v.operandType(1), [&] {
    return "compares values of different types, " + v.operandType(0).str() + " and " +
           v.operandType(1).str();
  });
}

// check.expect_*_const compare a value with a constant of its type.
void constOperandRule(InferContext& v) {
  const Type& expected = v.attr("value").asDense().type();
  v.check(v.operandType(0) == expected, [&] {
    return "operand type " + v.operandType(0).str() + " does not match the constant's type " +
           expected.str();
  });
}

void probeRule(InferContext& v) {
  v.infer(0, v.operandType(0), [] { return "the operand type"; });
}

// Ops without results (terminators, prints): nothing to infer.
void noResultsRule(InferContext&) {}

// Ops whose results are all parameters: async pairs (their types come from the wrapped
// computation, which kiln does not model), run_parallel (the programs' results, one
// process after another), quantization (quantized types are unsupported).
void givenResultsRule(InferContext& v) {
  for (size_t i = 0; i < v.givenCount(); ++i) v.given(i);
}

}  // namespace

void inferCallResults(InferContext& v, const Attribute& symbol) {
  const Function* fn = v.module() && symbol.is(Attribute::Kind::SymbolRef)
                           ? v.module()->lookup(symbol.asString())
                           : nullptr;
  if (!fn) {
    for (size_t i = 0; i < v.givenCount(); ++i) v.given(i);
    return;
  }
  v.check(v.operandTypes() == fn->paramTypes(), [&] {
    return "passes (" + str(v.operandTypes()) + ") to @" + fn->name() + ", which takes (" +
           str(fn->paramTypes()) + ")";
  });
  const TypeList& results = fn->resultTypes();
  for (size_t i = 0; i < results.size(); ++i)
    v.infer(i, results[i], [&] { return "what @" + fn->name() + " returns"; });
}

void addMiscRules(RuleTable& table) {
  namespace O = ops;
  table.set(O::Rng, &rngRule);
  table.set(O::RngBitGenerator, &rngBitGeneratorRule);
  table.set(O::BatchNormInference, &batchNormInferenceRule);
  table.set(O::BatchNormTraining, &batchNormTrainingRule);
  table.set(O::BatchNormGrad, &batchNormGradRule);
  table.set(O::CustomCall, &customCallRule);
  table.set(O::GetDimensionSize, &getDimensionSizeRule);
  table.set(O::OptimizationBarrier, &optimizationBarrierRule);
  table.set(O::Composite, &compositeRule);
  table.set(O::ChloTopK, &topKRule);
  for (OpCode op : {O::CheckExpectEq, O::CheckExpectAlmostEq, O::CheckExpectClose})
    table.set(op, &sameOperandTypesRule);
  for (OpCode op : {O::CheckExpectEqConst, O::CheckExpectAlmostEqConst})
    table.set(op, &constOperandRule);
  table.set(O::InterpreterProbe, &probeRule);
  table.set(O::FuncCall, &callRule);
  for (OpCode op : {O::FuncReturn, O::Return, O::InterpreterPrint, O::CheckExpectSerializedEq})
    table.set(op, &noResultsRule);
  for (OpCode op : {O::AsyncStart, O::AsyncDone, O::InterpreterRunParallel, O::UniformQuantize,
               O::UniformDequantize})
    table.set(op, &givenResultsRule);
}

}  // namespace kiln
