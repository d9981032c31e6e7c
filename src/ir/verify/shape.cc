// Type rules: data movement ops (broadcast, reshape, transpose, slice, pad, concatenate,
// iota, tuples, constants and the dynamic_* forms). Each rule computes the result shape
// the spec's formula gives, with the inputs of the formula for the message; where the
// shape is a parameter (reshape, broadcast_in_dim, iota) it checks the given one.
#include "ir/ops/stablehlo.h"
#include "ir/ops/testing.h"
#include "ir/verify/rules.h"

namespace kiln {
namespace {

std::string elemName(const Type& t) {
  return std::string(name(t.dtype()));
}

void checkSameElement(const InferContext& v, const Type& a, const std::string& aName, const Type& b,
                      const std::string& bName) {
  v.check(a.dtype() == b.dtype(), [&] {
    return aName + " element type " + elemName(a) + " differs from the " + bName +
           " element type " + elemName(b);
  });
}

// A shape operand of a dynamic op: a 1-D integer tensor of `n` entries; when a constant
// defines it, its values must be the static shape `expected`.
void checkShapeOperand(const InferContext& v, size_t index, const std::string& label,
                       const Shape& expected) {
  const Type& t = v.tensorOperand(index);
  v.check(t.rank() == 1 && isInteger(t.dtype()),
          [&] { return label + " must be a 1-D integer tensor, got " + t.str(); });
  v.check(t.dim(0) == static_cast<int64_t>(expected.size()), [&] {
    return label + " " + t.str() + " must have " + std::to_string(expected.size()) + " entries";
  });
  if (auto values = constantInts(v.operand(index)))
    v.check(*values == expected, [&] {
      return label + " is the constant " + shapeStr(*values) + ", expected " + shapeStr(expected);
    });
}

// broadcast_in_dim and dynamic_broadcast_in_dim share C1-C5.
void checkBroadcastInDim(InferContext& v, const Type& x) {
  const Type& r = v.givenTensor(0);
  v.inferDType(0, x.dtype(), [] { return "the operand element type"; });
  std::vector<int64_t> dims = v.ints("broadcast_dimensions");
  v.check(static_cast<int64_t>(dims.size()) == x.rank(), [&] {
    return "broadcast_dimensions " + shapeStr(dims) +
           " must have one entry per operand dimension (rank " + std::to_string(x.rank()) + ")";
  });
  checkDimensions(v, "broadcast_dimensions", dims, r.rank(), "result");
  for (int64_t d = 0; d < x.rank(); ++d) {
    int64_t to = r.dim(dims[static_cast<size_t>(d)]);
    v.check(x.dim(d) == 1 || x.dim(d) == to, [&] {
      return "operand dimension " + std::to_string(d) + " of size " + std::to_string(x.dim(d)) +
             " cannot broadcast to result dimension " +
             std::to_string(dims[static_cast<size_t>(d)]) + " of size " + std::to_string(to) +
             " (operand " + shapeStr(x.shape()) + ", result " + shapeStr(r.shape()) + ", dims " +
             shapeStr(dims) + ")";
    });
  }
}

void broadcastInDimRule(InferContext& v) {
  checkBroadcastInDim(v, v.tensorOperand(0));
}

void dynamicBroadcastInDimRule(InferContext& v) {
  const Type& x = v.tensorOperand(0);
  checkBroadcastInDim(v, x);
  const Type& r = v.givenTensor(0);
  checkShapeOperand(v, 1, "output_dimensions", r.shape());
  checkDimensions(v, "known_expanding_dimensions + known_nonexpanding_dimensions",
                  concat(v.ints("known_expanding_dimensions"), v.ints("known_nonexpanding_dimensions")),
                  x.rank());
}

// The legacy broadcast: the sizes are prepended to the operand shape.
void broadcastRule(InferContext& v) {
  const Type& x = v.tensorOperand(0);
  Shape expected = v.ints("broadcast_sizes");
  for (int64_t s : expected)
    v.check(s >= 0,
            [&] { return "broadcast_sizes " + shapeStr(expected) + " holds a negative size"; });
  expected.insert(expected.end(), x.shape().begin(), x.shape().end());
  v.infer(0, Type::tensor(x.dtype(), expected), [&] {
    return "broadcast_sizes " + shapeStr(v.ints("broadcast_sizes")) +
           " followed by the operand shape " + shapeStr(x.shape());
  });
}

// Saturating, so absurd shapes in the text cannot overflow the count.
int64_t elementCount(const Type& t) {
  int64_t n = 1;
  for (int64_t d : t.shape()) n = satMul(n, d);
  return n;
}

void checkSameSize(InferContext& v, const Type& x) {
  const Type& r = v.givenTensor(0);
  v.inferDType(0, x.dtype(), [] { return "the operand element type"; });
  int64_t from = elementCount(x);
  int64_t to = elementCount(r);
  v.check(from == to, [&] {
    return "cannot reshape " + x.str() + " (" + std::to_string(from) + " elements) to " + r.str() +
           " (" + std::to_string(to) + " elements)";
  });
}

void reshapeRule(InferContext& v) {
  checkSameSize(v, v.tensorOperand(0));
}

void dynamicReshapeRule(InferContext& v) {
  checkSameSize(v, v.tensorOperand(0));
  checkShapeOperand(v, 1, "output_shape", v.givenTensor(0).shape());
}

void transposeRule(InferContext& v) {
  const Type& x = v.tensorOperand(0);
  std::vector<int64_t> perm = v.ints("permutation");
  v.check(isPermutation(perm, x.rank()), [&] {
    return "permutation " + shapeStr(perm) + " is not a permutation of [0, " +
           std::to_string(x.rank()) + ")";
  });
  Shape expected;
  for (int64_t p : perm) expected.push_back(x.dim(p));
  v.infer(0, Type::tensor(x.dtype(), expected), [&] {
    return "operand " + shapeStr(x.shape()) + " permuted by " + shapeStr(perm);
  });
}

void reverseRule(InferContext& v) {
  const Type& x = v.tensorOperand(0);
  checkDimensions(v, "dimensions", v.ints("dimensions"), x.rank());
  v.infer(0, x, [] { return "the operand type"; });
}

void sliceRule(InferContext& v) {
  const Type& x = v.tensorOperand(0);
  std::vector<int64_t> start = v.ints("start_indices");
  std::vector<int64_t> limit = v.ints("limit_indices");
  std::vector<int64_t> strides = v.ints("strides");
  size_t rank = static_cast<size_t>(x.rank());
  v.check(start.size() == rank && limit.size() == rank && strides.size() == rank, [&] {
    return "start_indices " + shapeStr(start) + ", limit_indices " + shapeStr(limit) +
           " and strides " + shapeStr(strides) +
           " must each have one entry per operand dimension (rank " + std::to_string(rank) + ")";
  });
  Shape expected;
  for (size_t d = 0; d < rank; ++d) {
    v.check(0 <= start[d] && start[d] <= limit[d] && limit[d] <= x.shape()[d], [&] {
      return "dimension " + std::to_string(d) + " slices [" + std::to_string(start[d]) + ", " +
             std::to_string(limit[d]) + "), which is not within [0, " +
             std::to_string(x.shape()[d]) + "]";
    });
    v.check(strides[d] > 0, [&] { return "strides " + shapeStr(strides) + " must be positive"; });
    int64_t length = limit[d] - start[d];
    expected.push_back(length == 0 ? 0 : (length - 1) / strides[d] + 1);
  }
  v.infer(0, Type::tensor(x.dtype(), expected), [&] {
    return "ceil((limit - start) / stride) with start " + shapeStr(start) + ", limit " +
           shapeStr(limit) + ", strides " + shapeStr(strides);
  });
}

// The start indices of dynamic_slice/dynamic_update_slice: one 0-d integer tensor per
// operand dimension, all of one type.
void checkStartIndices(const InferContext& v, size_t first, int64_t rank) {
  size_t n = v.numOperands() - first;
  v.check(static_cast<int64_t>(n) == rank, [&] {
    return "takes " + std::to_string(n) + " start indices for an operand of rank " +
           std::to_string(rank) + " (one per dimension)";
  });
  for (size_t i = first; i < v.numOperands(); ++i) {
    const Type& t = v.tensorOperand(i);
    v.check(t.rank() == 0 && isInteger(t.dtype()), [&] {
      return "start index " + std::to_string(i - first) + " must be a 0-d integer tensor, got " +
             t.str();
    });
    v.check(t == v.operandType(first), [&] {
      return "start indices have different types: " + v.operandType(first).str() + " and " +
             t.str();
    });
  }
}

void dynamicSliceRule(InferContext& v) {
  const Type& x = v.tensorOperand(0);
  std::vector<int64_t> sizes = v.ints("slice_sizes");
  v.check(static_cast<int64_t>(sizes.size()) == x.rank(), [&] {
    return "slice_sizes " + shapeStr(sizes) + " must have one entry per operand dimension (rank " +
           std::to_string(x.rank()) + ")";
  });
  checkStartIndices(v, 1, x.rank());
  for (int64_t d = 0; d < x.rank(); ++d)
    v.check(sizes[static_cast<size_t>(d)] >= 0 && sizes[static_cast<size_t>(d)] <= x.dim(d), [&] {
      return "slice_sizes " + shapeStr(sizes) + " exceed the operand shape " + shapeStr(x.shape()) +
             " (or are negative)";
    });
  v.infer(0, Type::tensor(x.dtype(), sizes), [&] { return "slice_sizes"; });
}

void dynamicUpdateSliceRule(InferContext& v) {
  const Type& x = v.tensorOperand(0);
  const Type& update = v.tensorOperand(1);
  checkSameElement(v, update, "update", x, "operand");
  v.check(update.rank() == x.rank(), [&] {
    return "update " + update.str() + " must have the operand's rank " + std::to_string(x.rank());
  });
  for (int64_t d = 0; d < x.rank(); ++d)
    v.check(update.dim(d) <= x.dim(d), [&] {
      return "update shape " + shapeStr(update.shape()) + " does not fit in the operand shape " +
             shapeStr(x.shape());
    });
  checkStartIndices(v, 2, x.rank());
  v.infer(0, x, [] { return "the operand type"; });
}

void concatenateRule(InferContext& v) {
  const Type& first = v.tensorOperand(0);
  int64_t dim = v.integer("dimension");
  v.check(dim >= 0 && dim < first.rank(), [&] {
    return "dimension " + std::to_string(dim) + " is outside [0, " + std::to_string(first.rank()) +
           ") for inputs of rank " + std::to_string(first.rank());
  });
  Shape expected = first.shape();
  for (size_t i = 1; i < v.numOperands(); ++i) {
    const Type& t = v.tensorOperand(i);
    checkSameElement(v, t, "input " + std::to_string(i), first, "input 0");
    bool fits = t.rank() == first.rank();
    for (int64_t d = 0; fits && d < t.rank(); ++d) fits = d == dim || t.dim(d) == first.dim(d);
    v.check(fits, [&] {
      return "input " + std::to_string(i) + " shape " + shapeStr(t.shape()) +
             " must match input 0 shape " + shapeStr(first.shape()) + " except in dimension " +
             std::to_string(dim);
    });
    expected[static_cast<size_t>(dim)] = satAdd(expected[static_cast<size_t>(dim)], t.dim(dim));
  }
  v.infer(0, Type::tensor(first.dtype(), expected),
          [&] { return "the inputs joined along dimension " + std::to_string(dim); });
}

// pad and dynamic_pad: C1-C4 given the three padding lists.
// Returns the padded shape.
Shape checkPad(const InferContext& v, const std::vector<int64_t>& low,
               const std::vector<int64_t>& high, const std::vector<int64_t>& interior) {
  const Type& x = v.tensorOperand(0);
  const Type& value = v.tensorOperand(1);
  checkSameElement(v, value, "padding_value", x, "operand");
  v.check(value.rank() == 0,
          [&] { return "padding_value must be a 0-d tensor, got " + value.str(); });
  size_t rank = static_cast<size_t>(x.rank());
  v.check(low.size() == rank && high.size() == rank && interior.size() == rank, [&] {
    return "edge_padding_low " + shapeStr(low) + ", edge_padding_high " + shapeStr(high) +
           " and interior_padding " + shapeStr(interior) +
           " must each have one entry per operand dimension (rank " + std::to_string(rank) + ")";
  });
  Shape expected;
  for (size_t d = 0; d < rank; ++d) {
    v.check(interior[d] >= 0,
            [&] { return "interior_padding " + shapeStr(interior) + " must be non-negative"; });
    int64_t n = x.shape()[d];
    expected.push_back(satAdd(
        satAdd(satAdd(n, low[d]), satMul(std::max<int64_t>(n - 1, 0), interior[d])), high[d]));
    // (negative padding crops, but not past nothing)
    v.check(expected.back() >= 0, [&] {
      return "the padding makes dimension " + std::to_string(d) + " of size " + std::to_string(expected.back()) +
             ": operand " + shapeStr(x.shape()) + ", low " + shapeStr(low) + ", high " + shapeStr(high) +
             ", interior " + shapeStr(interior);
    });
  }
  return expected;
}

std::string padText(const Type& x, const std::vector<int64_t>& low,
                    const std::vector<int64_t>& high, const std::vector<int64_t>& interior) {
  return "operand " + shapeStr(x.shape()) + " padded with low " + shapeStr(low) + ", high " +
         shapeStr(high) + ", interior " + shapeStr(interior);
}

void padRule(InferContext& v) {
  std::vector<int64_t> low = v.ints("edge_padding_low");
  std::vector<int64_t> high = v.ints("edge_padding_high");
  std::vector<int64_t> interior = v.ints("interior_padding");
  const Type& x = v.tensorOperand(0);
  Shape shape = checkPad(v, low, high, interior);
  v.infer(0, Type::tensor(x.dtype(), shape), [&] { return padText(x, low, high, interior); });
}

void dynamicPadRule(InferContext& v) {
  const Type& x = v.tensorOperand(0);
  const Type& value = v.tensorOperand(1);
  checkSameElement(v, value, "padding_value", x, "operand");
  v.inferDType(0, x.dtype(), [] { return "the operand element type"; });
  const Type& r = v.givenTensor(0);
  v.check(r.rank() == x.rank(), [&] {
    return "result rank " + std::to_string(r.rank()) + " differs from the operand rank " +
           std::to_string(x.rank());
  });
  const char* labels[] = {"edge_padding_low", "edge_padding_high", "interior_padding"};
  std::vector<int64_t> lists[3];
  bool constant = true;
  for (size_t i = 0; i < 3; ++i) {
    const Type& t = v.tensorOperand(2 + i);
    v.check(t.rank() == 1 && isInteger(t.dtype()) && t.dim(0) == x.rank(), [&] {
      return std::string(labels[i]) +
             " must be a 1-D integer tensor with one entry per operand dimension, got " + t.str();
    });
    auto values = constantInts(v.operand(2 + i));
    constant = constant && values.has_value();
    if (values) lists[i] = *values;
  }
  // With constant paddings the static result shape is determined like pad's; otherwise
  // only its rank and element type are.
  if (constant) {
    Shape shape = checkPad(v, lists[0], lists[1], lists[2]);
    v.infer(0, Type::tensor(x.dtype(), shape),
            [&] { return padText(x, lists[0], lists[1], lists[2]); });
  }
}

void iotaRule(InferContext& v) {
  const Type& r = v.givenTensor(0);
  v.check(!isBool(r.dtype()), [&] {
    return "result must have an integer, floating-point or complex element type, got " + r.str();
  });
  int64_t dim = v.integer("iota_dimension");
  v.check(dim >= 0 && dim < r.rank(), [&] {
    return "iota_dimension " + std::to_string(dim) + " is outside [0, " + std::to_string(r.rank()) +
           ") for the result " + r.str();
  });
}

void dynamicIotaRule(InferContext& v) {
  iotaRule(v);
  checkShapeOperand(v, 0, "output_shape", v.givenTensor(0).shape());
}

void getTupleElementRule(InferContext& v) {
  const Type& t = v.operandType(0);
  v.check(t.isTuple(), [&] { return "operand must be a tuple, got " + t.str(); });
  int64_t index = v.integer("index");
  int64_t size = static_cast<int64_t>(t.elements().size());
  v.check(index >= 0 && index < size, [&] {
    return "index " + std::to_string(index) + " is outside [0, " + std::to_string(size) + ") for " +
           t.str();
  });
  const Type& element = t.elements()[static_cast<size_t>(index)];
  v.infer(0, element, [&] { return "element " + std::to_string(index) + " of the tuple"; });
}

void tupleRule(InferContext& v) {
  v.infer(0, Type::tuple(v.operandTypes()), [] { return "the tuple of the operand types"; });
}

void constantRule(InferContext& v) {
  v.infer(0, v.attr("value").asDense().type(), [] { return "the value's type"; });
}

// Legacy torch_index_select: gathers along `dim` with the index tensor, the first
// `batch_dims` dimensions shared by operand and index.
void torchIndexSelectRule(InferContext& v) {
  const Type& x = v.tensorOperand(0);
  const Type& index = v.tensorOperand(1);
  v.check(isInteger(index.dtype()),
          [&] { return "index must be an integer tensor, got " + index.str(); });
  int64_t dim = v.integer("dim");
  int64_t batch = v.integer("batch_dims");
  v.check(dim >= 0 && dim < x.rank(), [&] {
    return "dim " + std::to_string(dim) + " is outside [0, " + std::to_string(x.rank()) +
           ") for the operand " + x.str();
  });
  v.check(batch >= 0 && batch <= dim && batch <= index.rank(), [&] {
    return "batch_dims " + std::to_string(batch) + " must lie in [0, min(dim, rank(index))]";
  });
  for (int64_t d = 0; d < batch; ++d)
    v.check(x.dim(d) == index.dim(d), [&] {
      return "batch dimension " + std::to_string(d) + " differs: operand " + shapeStr(x.shape()) +
             ", index " + shapeStr(index.shape());
    });
  Shape expected(x.shape().begin(), x.shape().begin() + dim);
  expected.insert(expected.end(), index.shape().begin() + batch, index.shape().end());
  expected.insert(expected.end(), x.shape().begin() + dim + 1, x.shape().end());
  v.infer(0, Type::tensor(x.dtype(), expected), [&] {
    return "operand " + shapeStr(x.shape()) + " with dimension " + std::to_string(dim) +
           " replaced by the index shape " + shapeStr(index.shape());
  });
}

}  // namespace

void addShapeRules(RuleTable& table) {
  namespace O = ops;
  table.set(O::BroadcastInDim, &broadcastInDimRule);
  table.set(O::DynamicBroadcastInDim, &dynamicBroadcastInDimRule);
  table.set(O::Broadcast, &broadcastRule);
  table.set(O::Reshape, &reshapeRule);
  table.set(O::DynamicReshape, &dynamicReshapeRule);
  table.set(O::Transpose, &transposeRule);
  table.set(O::Reverse, &reverseRule);
  table.set(O::Slice, &sliceRule);
  table.set(O::DynamicSlice, &dynamicSliceRule);
  table.set(O::DynamicUpdateSlice, &dynamicUpdateSliceRule);
  table.set(O::Concatenate, &concatenateRule);
  table.set(O::Pad, &padRule);
  table.set(O::DynamicPad, &dynamicPadRule);
  table.set(O::Iota, &iotaRule);
  table.set(O::DynamicIota, &dynamicIotaRule);
  table.set(O::GetTupleElement, &getTupleElementRule);
  table.set(O::Tuple, &tupleRule);
  table.set(O::Constant, &constantRule);
  table.set(O::ArithConstant, &constantRule);
  table.set(O::UtilUnfoldableConstant, &constantRule);
  table.set(O::TorchIndexSelect, &torchIndexSelectRule);
}

}  // namespace kiln
