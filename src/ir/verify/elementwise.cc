// Type rules: elementwise ops. Most of them only ask for equal types and an element
// type of the right class (../shared/reference/stablehlo-spec.md); the class of each op
// is a template argument, so the table below reads like the spec's Inputs sections.
#include "ir/attr_records.h"
#include "ir/ops/stablehlo.h"
#include "ir/verify/rules.h"

namespace kiln {
namespace {

void checkClass(const InferContext& v, ElementClass c, const Type& t, const std::string& what) {
  v.check(acceptsElement(c, t.dtype()), [&] {
    return what + " has element type " + std::string(name(t.dtype())) + ", expected " +
           describe(c) + " (" + t.str() + ")";
  });
}

// Every operand and the result have one type, of the op's element class.
void sameType(InferContext& v) {
  const Type& first = v.tensorOperand(0);
  checkClass(v, v.info().elements, first, "operand 0");
  for (size_t i = 1; i < v.numOperands(); ++i) {
    const Type& t = v.tensorOperand(i);
    v.check(t == first, [&] {
      return "operand " + std::to_string(i) + " has type " + t.str() + ", but operand 0 has " +
             first.str() + " (the operands must have one type)";
    });
  }
  v.infer(0, first, [] { return "the operand type"; });
}

// The operand's shape with the element type `dtype`, which `why` explains.
void inferKeptShape(InferContext& v, const Type& operand, DType dtype, const std::string& why) {
  v.infer(0, operand.withDType(dtype), [&] { return "the operand shape with " + why; });
}

// abs, real, imag: a complex operand gives its part type; others keep the type.
void partOfComplex(InferContext& v) {
  const Type& x = v.tensorOperand(0);
  checkClass(v, v.info().elements, x, "operand");
  if (isComplex(x.dtype()))
    inferKeptShape(v, x, complexPart(x.dtype()), "the part type of " + std::string(name(x.dtype())));
  else
    inferKeptShape(v, x, x.dtype(), "the operand element type");
}

void complexRule(InferContext& v) {
  const Type& lhs = v.tensorOperand(0);
  const Type& rhs = v.tensorOperand(1);
  v.check(lhs.dtype() == DType::F32 || lhs.dtype() == DType::F64,
          [&] { return "operands must be f32 or f64 tensors, got " + lhs.str(); });
  v.check(lhs == rhs,
          [&] { return "operand types " + lhs.str() + " and " + rhs.str() + " differ"; });
  inferKeptShape(v, lhs, *complexOf(lhs.dtype()), "the complex of the operand element type");
}

void isFiniteRule(InferContext& v) {
  const Type& x = v.tensorOperand(0);
  checkClass(v, v.info().elements, x, "operand");
  inferKeptShape(v, x, DType::I1, "i1: is_finite yields booleans");
}

// The element type is the parameter; any element type converts to any other.
void convertRule(InferContext& v) {
  v.inferShape(0, v.tensorOperand(0).shape(), [] { return "the operand shape"; });
}

void bitcastConvertRule(InferContext& v) {
  const Type& x = v.tensorOperand(0);
  const Type& r = v.givenTensor(0);  // its element type is the parameter
  int from = bitWidth(x.dtype());
  int to = bitWidth(r.dtype());
  v.check(isComplex(x.dtype()) == isComplex(r.dtype()), [&] {
    return "cannot bitcast between complex and non-complex element types (" + x.str() + " to " +
           r.str() + ")";
  });
  Shape expected = x.shape();
  std::string how;
  if (to < from) {
    // Each element splits into a new minor dimension of from/to elements.
    v.check(from % to == 0, [&] {
      return "element width " + std::to_string(from) + " is not a multiple of " +
             std::to_string(to);
    });
    expected.push_back(from / to);
    how = " (" + std::to_string(from) + "-bit elements split into " + std::to_string(from / to) +
          " along a new minor dimension)";
  } else if (to > from) {
    // The minor dimension holds the narrow elements that form one wide element.
    v.check(to % from == 0 && x.rank() > 0 && x.dim(x.rank() - 1) == to / from, [&] {
      return "operand " + x.str() + " needs a minor dimension of " +
             std::to_string(to / std::max(from, 1)) + " to bitcast to " +
             std::string(name(r.dtype()));
    });
    expected.pop_back();
    how = " (the minor dimension of " + std::to_string(to / from) + " joined into one element)";
  }
  v.inferShape(0, expected, [&] { return "bitcast of " + x.str() + how; });
}

// The compare_type the spec requires for an element type; FLOAT also admits TOTALORDER.
ComparisonType compareTypeFor(DType t) {
  if (isSignedInt(t)) return ComparisonType::Signed;
  if (isUnsignedInt(t) || isBool(t)) return ComparisonType::Unsigned;
  return ComparisonType::Float;
}

void compareRule(InferContext& v) {
  const Type& lhs = v.tensorOperand(0);
  const Type& rhs = v.tensorOperand(1);
  v.check(lhs == rhs,
          [&] { return "operand types " + lhs.str() + " and " + rhs.str() + " differ"; });
  inferKeptShape(v, lhs, DType::I1, "i1: compare yields booleans");
  std::optional<ComparisonType> given = comparisonTypeOf(v.attr("compare_type"));
  if (!given) return;  // absent, or NOTYPE: MLIR's spelling of "not given"
  ComparisonType expected = compareTypeFor(lhs.dtype());
  bool ok = *given == expected || (isFloat(lhs.dtype()) && *given == ComparisonType::TotalOrder);
  v.check(ok, [&] {
    return "compare_type " + toAttr(*given).enumValueName() + " does not fit element type " +
           std::string(name(lhs.dtype())) + " (expected " + toAttr(expected).enumValueName() +
           (isFloat(lhs.dtype()) ? " or TOTALORDER)" : ")");
  });
}

void selectRule(InferContext& v) {
  const Type& pred = v.tensorOperand(0);
  const Type& onTrue = v.tensorOperand(1);
  const Type& onFalse = v.tensorOperand(2);
  v.check(pred.dtype() == DType::I1,
          [&] { return "pred must have element type i1, got " + pred.str(); });
  v.check(pred.rank() == 0 || pred.shape() == onTrue.shape(), [&] {
    return "pred shape " + shapeStr(pred.shape()) + " must be scalar or match on_true " +
           shapeStr(onTrue.shape());
  });
  v.check(onTrue == onFalse,
          [&] { return "on_true " + onTrue.str() + " and on_false " + onFalse.str() + " differ"; });
  v.infer(0, onTrue, [] { return "the type of on_true"; });
}

void clampRule(InferContext& v) {
  const Type& min = v.tensorOperand(0);
  const Type& x = v.tensorOperand(1);
  const Type& max = v.tensorOperand(2);
  for (const auto& [bound, label] : {std::pair{&min, "min"}, std::pair{&max, "max"}}) {
    v.check(bound->rank() == 0 || bound->shape() == x.shape(), [&] {
      return std::string(label) + " shape " + shapeStr(bound->shape()) +
             " must be scalar or match the operand " + shapeStr(x.shape());
    });
    v.check(bound->dtype() == x.dtype(), [&] {
      return std::string(label) + " element type " + std::string(name(bound->dtype())) +
             " differs from the operand's " + std::string(name(x.dtype()));
    });
  }
  v.infer(0, x, [] { return "the operand type"; });
}

void reducePrecisionRule(InferContext& v) {
  sameType(v);
  v.check(v.integer("exponent_bits") >= 1, [&] {
    return "exponent_bits must be at least 1, got " + std::to_string(v.integer("exponent_bits"));
  });
  v.check(v.integer("mantissa_bits") >= 0, [&] {
    return "mantissa_bits must be non-negative, got " + std::to_string(v.integer("mantissa_bits"));
  });
}

// chlo.broadcast_*: numpy broadcasting of the two operands (or, with
// broadcast_dimensions, the lower-rank operand mapped into the higher-rank one).
void broadcastingRule(InferContext& v) {
  const Type& lhs = v.tensorOperand(0);
  const Type& rhs = v.tensorOperand(1);
  checkClass(v, v.info().elements, lhs, "operand 0");
  v.check(lhs.dtype() == rhs.dtype(),
          [&] { return "element types differ: " + lhs.str() + ", " + rhs.str(); });
  const Type& big = lhs.rank() >= rhs.rank() ? lhs : rhs;
  const Type& small = lhs.rank() >= rhs.rank() ? rhs : lhs;
  std::vector<int64_t> map;
  if (v.has("broadcast_dimensions") && lhs.rank() != rhs.rank()) {
    map = v.ints("broadcast_dimensions");
    v.check(static_cast<int64_t>(map.size()) == small.rank(), [&] {
      return "broadcast_dimensions " + shapeStr(map) +
             " must name one dimension per dimension of " + small.str();
    });
    checkDimensions(v, "broadcast_dimensions", map, big.rank(), "larger operand");
  } else {
    for (int64_t i = 0; i < small.rank(); ++i) map.push_back(big.rank() - small.rank() + i);
  }
  Shape expected = big.shape();
  for (size_t i = 0; i < map.size(); ++i) {
    int64_t s = small.dim(static_cast<int64_t>(i));
    int64_t& b = expected[static_cast<size_t>(map[i])];
    v.check(s == b || s == 1 || b == 1, [&] {
      return "operand shapes " + shapeStr(lhs.shape()) + " and " + shapeStr(rhs.shape()) +
             " do not broadcast";
    });
    if (b == 1) b = s;
  }
  v.infer(0, Type::tensor(lhs.dtype(), expected), [&] {
    return "the broadcast of " + shapeStr(lhs.shape()) + " and " + shapeStr(rhs.shape());
  });
}

}  // namespace

void addElementwiseRules(RuleTable& table) {
  namespace O = ops;
  // The elementwise ops whose operands and result share one type, of the element class
  // the registry gives (ElementClass).
  for (const OpInfo& info : allOps())
    if (info.has(kElementwise) && info.operands.min == info.operands.max &&
        info.results.min == 1 && info.results.max == 1)
      table.set(info.code, &sameType);
  for (const OpInfo& info : allOps())
    if (info.has(kBroadcasting)) table.set(info.code, &broadcastingRule);
  table.set(O::Abs, &partOfComplex);
  table.set(O::Real, &partOfComplex);
  table.set(O::Imag, &partOfComplex);
  table.set(O::Complex, &complexRule);
  table.set(O::IsFinite, &isFiniteRule);
  table.set(O::Convert, &convertRule);
  table.set(O::BitcastConvert, &bitcastConvertRule);
  table.set(O::Compare, &compareRule);
  table.set(O::Select, &selectRule);
  table.set(O::Clamp, &clampRule);
  table.set(O::ReducePrecision, &reducePrecisionRule);
}

}  // namespace kiln
