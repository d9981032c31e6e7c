// Type rules: ops with regions — reductions (reduce, reduce_window,
// select_and_scatter), sort, map, chlo.scan and control flow (while, if, case). The
// rules check each region's signature against the op's operands, and the regions decide
// the result element types; the reducer check is shared with scatter and the collectives.
#include "ir/attr_records.h"
#include "ir/ops/chlo.h"
#include "ir/ops/compiler.h"
#include "ir/ops/stablehlo.h"
#include "ir/verify/rules.h"

namespace kiln {
namespace {

std::string scalarOf(DType t) {
  return Type::scalar(t).str();
}

// Fails unless region `i` yields exactly `expected` (the op's result types).
void checkYields(const InferContext& v, size_t i, const TypeList& expected,
                 const std::string& regionName, const std::string& expectedName) {
  TypeList got = v.regionResultTypes(i);
  v.check(got == expected, [&] {
    return regionName + " returns (" + str(got) + "), but " + expectedName + " are (" +
           str(expected) + ")";
  });
}

void checkTakes(const InferContext& v, size_t i, const TypeList& expected,
                const std::string& regionName) {
  TypeList got = v.regionArgTypes(i);
  v.check(got == expected, [&] {
    return regionName + " takes (" + str(got) + "), expected (" + str(expected) + ")";
  });
}

// reduce and reduce_window: N inputs then N init values, N results; C1-C3 of both.
size_t checkInputsAndInits(const InferContext& v) {
  size_t numOperands = v.numOperands();
  v.check(numOperands % 2 == 0, [&] {
    return "takes N inputs and N init values, but has " + std::to_string(numOperands) + " operands";
  });
  size_t n = numOperands / 2;
  const Type& first = v.tensorOperand(0);
  for (size_t i = 0; i < n; ++i) {
    const Type& in = v.tensorOperand(i);
    const Type& init = v.tensorOperand(n + i);
    v.check(in.shape() == first.shape(), [&] {
      return "input " + std::to_string(i) + " shape " + shapeStr(in.shape()) + " differs from input 0 shape " +
             shapeStr(first.shape());
    });
    v.check(init == Type::scalar(in.dtype()), [&] {
      return "init value " + std::to_string(i) + " has type " + init.str() + ", expected " +
             scalarOf(in.dtype()) + " (a 0-d tensor of input " + std::to_string(i) + "'s element type)";
    });
  }
  return n;
}

std::vector<DType> inputElementTypes(const InferContext& v, size_t n) {
  std::vector<DType> types;
  for (size_t i = 0; i < n; ++i) types.push_back(v.operandType(i).dtype());
  return types;
}

void reduceRule(InferContext& v) {
  size_t n = checkInputsAndInits(v);
  const Type& input = v.operandType(0);
  std::vector<int64_t> dims = v.ints("dimensions");
  checkDimensions(v, "dimensions", dims, input.rank(), "inputs");
  std::vector<DType> acc = checkReducer(v, 0, inputElementTypes(v, n));
  Shape expected;
  for (int64_t d = 0; d < input.rank(); ++d)
    if (!contains(dims, d)) expected.push_back(input.dim(d));
  for (size_t i = 0; i < n; ++i)
    v.infer(i, Type::tensor(acc[i], expected), [&] {
      return "input " + shapeStr(input.shape()) + " reduced over " + shapeStr(dims) +
             ", with the body's element type";
    });
}

// The window of reduce_window and select_and_scatter, checked: one positive entry per
// input dimension in each list, and a [rank, 2] padding.
Window checkedWindow(const InferContext& v, int64_t rank) {
  Window w = reduceWindowOf(v.parts().attrs, rank);
  checkWindowList(v, "window_dimensions", w.dimensions, rank, "input dimension");
  checkWindowList(v, "window_strides", w.strides, rank, "input dimension");
  checkWindowList(v, "base_dilations", w.baseDilations, rank, "input dimension");
  checkWindowList(v, "window_dilations", w.windowDilations, rank, "input dimension");
  checkWindowPadding(v, w, rank);
  return w;
}

void reduceWindowRule(InferContext& v) {
  size_t n = checkInputsAndInits(v);
  const Type& input = v.operandType(0);
  int64_t rank = input.rank();
  Window w = checkedWindow(v, rank);
  const Dims& window = w.dimensions;
  const Dims& strides = w.strides;
  const auto& padding = w.padding;
  std::vector<DType> acc = checkReducer(v, 0, inputElementTypes(v, n));
  Shape expected;
  for (size_t d = 0; d < static_cast<size_t>(rank); ++d)
    expected.push_back(windowPositions(input.shape()[d], window[d], strides[d], padding[d].first,
                                       padding[d].second, w.baseDilations[d], w.windowDilations[d]));
  for (size_t i = 0; i < n; ++i)
    v.infer(i, Type::tensor(acc[i], expected), [&] {
      return "the number of windows " + shapeStr(window) + " with strides " + shapeStr(strides) +
             " over input " + shapeStr(input.shape()) + ", with the body's element type";
    });
}

void selectAndScatterRule(InferContext& v) {
  const Type& operand = v.tensorOperand(0);
  const Type& source = v.tensorOperand(1);
  const Type& init = v.tensorOperand(2);
  std::string elem(name(operand.dtype()));
  v.check(source.dtype() == operand.dtype(), [&] {
    return "source element type " + std::string(name(source.dtype())) +
           " differs from the operand's " + elem;
  });
  v.check(init == Type::scalar(operand.dtype()), [&] {
    return "init_value has type " + init.str() + ", expected " + scalarOf(operand.dtype());
  });
  int64_t rank = operand.rank();
  Window w = checkedWindow(v, rank);
  const Dims& window = w.dimensions;
  const Dims& strides = w.strides;
  const auto& padding = w.padding;
  Shape expected;
  for (size_t d = 0; d < static_cast<size_t>(rank); ++d)
    expected.push_back(windowPositions(operand.shape()[d], window[d], strides[d], padding[d].first,
                                       padding[d].second));
  v.check(source.shape() == expected, [&] {
    return "source shape " + shapeStr(source.shape()) + " does not match the number of windows " +
           shapeStr(expected) + " (window " + shapeStr(window) + ", strides " + shapeStr(strides) +
           " over operand " + shapeStr(operand.shape()) + ")";
  });
  Type scalar = Type::scalar(operand.dtype());
  checkTakes(v, 0, {scalar, scalar}, "select");
  checkYields(v, 0, {Type::scalar(DType::I1)}, "select", "the expected results");
  DType acc = checkReducer(v, 1, {operand.dtype()})[0];
  v.infer(0, Type::tensor(acc, operand.shape()),
          [] { return "the operand shape with the scatter region's element type"; });
}

void sortRule(InferContext& v) {
  size_t n = v.numOperands();
  const Type& first = v.tensorOperand(0);
  TypeList comparatorArgs;
  for (size_t i = 0; i < n; ++i) {
    const Type& in = v.tensorOperand(i);
    v.check(in.shape() == first.shape(), [&] {
      return "input " + std::to_string(i) + " shape " + shapeStr(in.shape()) + " differs from input 0 shape " +
             shapeStr(first.shape());
    });
    v.infer(i, in, [] { return "the input's type"; });
    comparatorArgs.push_back(Type::scalar(in.dtype()));
    comparatorArgs.push_back(Type::scalar(in.dtype()));
  }
  int64_t dim = v.integer("dimension");
  int64_t rank = first.rank();
  v.check(dim >= -rank && dim < rank, [&] {
    return "dimension " + std::to_string(dim) + " is outside [" + std::to_string(-rank) + ", " + std::to_string(rank) +
           ") for inputs of rank " + std::to_string(rank);
  });
  checkTakes(v, 0, comparatorArgs, "comparator");
  checkYields(v, 0, {Type::scalar(DType::I1)}, "comparator", "the expected results");
}

void mapRule(InferContext& v) {
  const Type& first = v.tensorOperand(0);
  TypeList args;
  for (size_t i = 0; i < v.numOperands(); ++i) {
    const Type& in = v.tensorOperand(i);
    v.check(in.shape() == first.shape(), [&] {
      return "input " + std::to_string(i) + " shape " + shapeStr(in.shape()) + " differs from input 0 shape " +
             shapeStr(first.shape());
    });
    args.push_back(Type::scalar(in.dtype()));
  }
  std::vector<int64_t> dims = v.ints("dimensions");
  std::vector<int64_t> all;
  for (int64_t d = 0; d < first.rank(); ++d) all.push_back(d);
  v.check(dims == all, [&] {
    return "dimensions " + shapeStr(dims) + " must be " + shapeStr(all) +
           " (every dimension, in order)";
  });
  checkTakes(v, 0, args, "computation");
  TypeList yields = v.regionResultTypes(0);
  v.check(yields.size() == 1 && yields[0].isTensor() && yields[0].rank() == 0, [&] {
    return "computation returns (" + str(yields) + "), expected one 0-d tensor";
  });
  v.infer(0, first.withDType(yields[0].dtype()),
          [] { return "the input shape with the computation's element type"; });
}

void whileRule(InferContext& v) {
  TypeList operands = v.operandTypes();
  checkTakes(v, 0, operands, "cond");
  checkYields(v, 0, {Type::scalar(DType::I1)}, "cond", "the expected results");
  checkTakes(v, 1, operands, "body");
  checkYields(v, 1, operands, "body", "the operand types");
  for (size_t i = 0; i < operands.size(); ++i)
    v.infer(i, operands[i], [] { return "results have the operand types"; });
}

// if and case: branches take nothing and all yield the op's result types.
void checkBranches(InferContext& v, size_t first) {
  TypeList results = v.regionResultTypes(first);
  for (size_t i = first; i < v.numRegions(); ++i) {
    std::string branch = "branch " + std::to_string(i - first);
    v.check(v.region(i).numArguments() == 0,
            [&] { return branch + " must not take arguments"; });
    checkYields(v, i, results, branch, "branch 0's results");
  }
  for (size_t i = 0; i < results.size(); ++i)
    v.infer(i, results[i], [] { return "the types the branches yield"; });
}

void ifRule(InferContext& v) {
  const Type& pred = v.operandType(0);
  v.check(pred == Type::scalar(DType::I1),
          [&] { return "pred must be tensor<i1>, got " + pred.str(); });
  checkBranches(v, 0);
}

void caseRule(InferContext& v) {
  const Type& index = v.operandType(0);
  v.check(index == Type::scalar(DType::I32),
          [&] { return "index must be tensor<i32>, got " + index.str(); });
  checkBranches(v, 0);
}

// chlo.scan: inputs are scanned along `dimension` with carries; the body takes one slice
// of each input then the carries, and yields one slice of each output then the carries.
void scanRule(InferContext& v) {
  Attribute segments = v.attr("operandSegmentSizes");
  v.check(segments.is(Attribute::Kind::DenseArray) && !isFloat(segments.dtype()) &&
              segments.asInts().size() == 2,
          [&] { return "operandSegmentSizes must be [inputs, inits]"; });
  int64_t n = segments.asInts()[0];
  int64_t m = segments.asInts()[1];
  v.check(n >= 1 && m >= 0 && static_cast<size_t>(n + m) == v.numOperands(), [&] {
    return "operandSegmentSizes [" + std::to_string(n) + ", " + std::to_string(m) + "] does not split its " +
           std::to_string(v.numOperands()) + " operands";
  });
  const Type& first = v.tensorOperand(0);
  int64_t dim = v.integer("dimension");
  v.check(dim >= 0 && dim < first.rank(), [&] {
    return "dimension " + std::to_string(dim) + " is outside [0, " + std::to_string(first.rank()) + ") for input " +
           first.str();
  });
  int64_t length = first.dim(dim);
  TypeList args;
  for (int64_t i = 0; i < n; ++i) {
    const Type& in = v.tensorOperand(static_cast<size_t>(i));
    v.check(in.rank() > dim && in.dim(dim) == length, [&] {
      return "input " + std::to_string(i) + " " + in.str() + " must have size " + std::to_string(length) +
             " in dimension " + std::to_string(dim);
    });
    Shape slice = in.shape();
    slice.erase(slice.begin() + dim);
    args.push_back(Type::tensor(in.dtype(), slice));
  }
  TypeList carries;
  for (int64_t j = 0; j < m; ++j) carries.push_back(v.operandType(static_cast<size_t>(n + j)));
  args.insert(args.end(), carries.begin(), carries.end());
  checkTakes(v, 0, args, "body");
  TypeList yields = v.regionResultTypes(0);
  int64_t k = static_cast<int64_t>(yields.size()) - m;
  v.check(k >= 0, [&] {
    return "body returns " + std::to_string(static_cast<int64_t>(yields.size())) + " values, fewer than the " +
           std::to_string(m) + " carries";
  });
  for (int64_t i = 0; i < k; ++i) {
    const Type& slice = yields[static_cast<size_t>(i)];
    v.check(slice.isTensor(),
            [&] { return "body output " + std::to_string(i) + " must be a tensor, got " + slice.str(); });
    Shape full = slice.shape();
    v.check(dim <= slice.rank(), [&] {
      return "body output " + std::to_string(i) + " " + slice.str() + " has too few dimensions";
    });
    full.insert(full.begin() + dim, length);
    v.infer(static_cast<size_t>(i), Type::tensor(slice.dtype(), full), [&] {
      return "the body's output slices stacked along dimension " + std::to_string(dim);
    });
  }
  for (int64_t j = 0; j < m; ++j) {
    const Type& carry = carries[static_cast<size_t>(j)];
    v.check(yields[static_cast<size_t>(k + j)] == carry, [&] {
      return "body returns carry " + std::to_string(j) + " as " + yields[static_cast<size_t>(k + j)].str() +
             ", but its init is " + carry.str();
    });
    v.infer(static_cast<size_t>(k + j), carry, [&] { return "the type of carry " + std::to_string(j); });
  }
}

}  // namespace

std::vector<DType> checkReducer(const InferContext& v, size_t region,
                                const std::vector<DType>& inputs) {
  size_t n = inputs.size();
  std::string which = v.numRegions() > 1 ? "region " + std::to_string(region) : "the body";
  TypeList args = v.regionArgTypes(region);
  TypeList yields = v.regionResultTypes(region);
  v.check(args.size() == 2 * n, [&] {
    return which + " takes " + std::to_string(args.size()) + " arguments, expected " + std::to_string(2 * n) +
           " (two per input)";
  });
  v.check(yields.size() == n,
          [&] { return which + " returns " + std::to_string(yields.size()) + " values, expected " + std::to_string(n); });
  std::vector<DType> acc;
  for (size_t i = 0; i < n; ++i) {
    const Type& y = yields[i];
    v.check(y.isTensor() && y.rank() == 0, [&] {
      return which + " must return 0-d tensors, but result " + std::to_string(i) + " is " + y.str();
    });
    v.check(args[i] == y && args[n + i] == y, [&] {
      return which + " arguments " + std::to_string(i) + " and " + std::to_string(n + i) + " have types " +
             args[i].str() + " and " + args[n + i].str() + ", but it returns " + y.str() +
             " (all three must be one type)";
    });
    v.check(isPromotable(inputs[i], y.dtype()), [&] {
      return which + " works on " + y.str() + ", which input element type " +
             std::string(name(inputs[i])) + " cannot be promoted to";
    });
    acc.push_back(y.dtype());
  }
  return acc;
}

// kiln.fusion: the region takes the operands and yields the results, and is isolated
// (a backend compiles it as a kernel that sees only its operands).
void fusionRule(InferContext& v) {
  const std::string& kind = v.attr("kind").asString();
  v.check(fusionKindOf(kind).has_value(),
          [&] { return "unknown fusion kind '" + kind + "' (loop, input, multi_output, dot_epilogue)"; });
  checkTakes(v, 0, v.operandTypes(), "fusion region");
  TypeList results = v.regionResultTypes(0);
  for (size_t i = 0; i < results.size(); ++i)
    v.infer(i, results[i], [] { return "the types the fusion region yields"; });
}

void addRegionOpRules(RuleTable& table) {
  table.set(ops::Fusion, &fusionRule);
  namespace O = ops;
  table.set(O::Reduce, &reduceRule);
  table.set(O::ReduceWindow, &reduceWindowRule);
  table.set(O::SelectAndScatter, &selectAndScatterRule);
  table.set(O::Sort, &sortRule);
  table.set(O::Map, &mapRule);
  table.set(O::While, &whileRule);
  table.set(O::If, &ifRule);
  table.set(O::Case, &caseRule);
  table.set(O::ChloScan, &scanRule);
}

}  // namespace kiln
