// InferContext, and the helpers the rule files share.
#include <algorithm>
#include <limits>

#include "ir/ops/stablehlo.h"
#include "ir/ops/testing.h"
#include "ir/verify/rules.h"
#include "support/error.h"

namespace kiln {

// ---- InferContext -----------------------------------------------------------------------------

InferContext::InferContext(const OpParts& parts, bool compare)
    : parts_(parts), info_(opInfo(parts.code)), compare_(compare) {}

void InferContext::fail(const std::string& message) const {
  std::string text = std::string(info_.name) + ": " + message;
  Location user = parts_.loc.fileLocation();
  if (!user.isUnknown())
    text += " (from " + user.text() + ":" + std::to_string(user.line()) + ":" + std::to_string(user.col()) + ")";
  if (parts_.pos.known() && parts_.source) throw Error(ErrorKind::Verify, text, parts_.source, parts_.pos);
  throw Error(ErrorKind::Verify, text);
}

TypeList InferContext::operandTypes() const {
  TypeList types;
  types.reserve(numOperands());
  for (const Value* v : parts_.operands) types.push_back(v->type());
  return types;
}

const Type& InferContext::tensorOperand(size_t i) const {
  const Type& t = operandType(i);
  check(t.isTensor(),
        [&] { return "operand " + std::to_string(i) + " must be a tensor, got " + t.str(); });
  return t;
}

Attribute InferContext::attrOrDefault(std::string_view name) const {
  if (Attribute a = attr(name)) return a;
  if (const AttrSpec* spec = info_.findAttr(name)) return spec->defaultValue();
  return {};
}

std::vector<int64_t> InferContext::ints(std::string_view attr) const {
  Attribute a = attrOrDefault(attr);
  if (!a || !a.is(Attribute::Kind::DenseArray)) return {};
  return a.asInts();
}

int64_t InferContext::integer(std::string_view attr) const {
  Attribute a = attrOrDefault(attr);
  return a && a.is(Attribute::Kind::Integer) ? a.asInt() : 0;
}

std::vector<int64_t> InferContext::intsOr(std::string_view attr, int64_t n, int64_t fill) const {
  if (has(attr)) return ints(attr);
  return std::vector<int64_t>(static_cast<size_t>(std::max<int64_t>(n, 0)), fill);
}

std::vector<std::pair<int64_t, int64_t>> InferContext::pairs(std::string_view attr, int64_t n) const {
  std::vector<std::pair<int64_t, int64_t>> out;
  Attribute a = this->attr(attr);
  if (!a) {
    out.assign(static_cast<size_t>(std::max<int64_t>(n, 0)), {0, 0});
    return out;
  }
  const Literal& lit = a.asDense();
  bool empty = n == 0 && lit.numElements() == 0;
  check(empty || lit.shape() == Shape{n, 2}, [&] {
    return std::string(attr) + " has shape " + shapeStr(lit.shape()) + ", expected [" +
           std::to_string(n) + ", 2] (a [low, high] pair per dimension)";
  });
  for (int64_t i = 0; i < n; ++i) out.emplace_back(lit.intAt(2 * i), lit.intAt(2 * i + 1));
  return out;
}

TypeList InferContext::regionArgTypes(size_t i) const {
  const Region& r = region(i);
  TypeList types;
  for (size_t a = 0; a < r.numArguments(); ++a) types.push_back(r.argument(a)->type());
  return types;
}

TypeList InferContext::regionResultTypes(size_t i) const {
  const Op* ret = region(i).back();
  check(ret && ret->is(ops::Return),
        [&] { return "region " + std::to_string(i) + " must end with stablehlo.return"; });
  return ret->operandTypes();
}

void InferContext::record(size_t i, InferredType t) {
  if (inferred_.size() <= i) {
    inferred_.resize(i + 1);
    recorded_.resize(i + 1, false);
  }
  inferred_[i] = std::move(t);
  recorded_[i] = true;
}

const Type& InferContext::given(size_t i) {
  check(i < givenCount(), [&] {
    if (compare_)  // verifying: the op declares too few results
      return "has " + std::to_string(givenCount()) + " results, expected at least " +
             std::to_string(i + 1);
    return "result " + std::to_string(i) +
           " has a type that is a parameter of the op, and it was not given";
  });
  // A half already inferred stays determined (dynamic_pad infers the element type, then
  // reads the given shape).
  if (i >= recorded_.size() || !recorded_[i]) record(i, {givenType(i), false, false});
  return givenType(i);
}

const Type& InferContext::givenTensor(size_t i) {
  const Type& t = given(i);
  check(t.isTensor(),
        [&] { return "result " + std::to_string(i) + " must be a tensor, got " + t.str(); });
  return t;
}

std::vector<InferredType> InferContext::takeResults() {
  for (size_t i = 0; i < recorded_.size(); ++i)
    if (!recorded_[i])
      throw Error(ErrorKind::Internal, std::string(info_.name) + ": the type rule left result " +
                                           std::to_string(i) + " without a type");
  return std::move(inferred_);
}

void InferContext::mismatch(size_t i, const Type& inferred, const std::string& because) const {
  const Type& declared = givenType(i);
  std::string why = because.empty() ? "" : " (" + because + ")";
  std::string which = parts_.given->size() == 1 ? "result" : "result " + std::to_string(i);
  if (declared.isTensor() && inferred.isTensor() && declared.dtype() == inferred.dtype() &&
      declared.rank() == inferred.rank())
    fail(which + " shape " + shapeStr(declared.shape()) + " does not match the expected " +
         shapeStr(inferred.shape()) + why);
  fail(which + " type " + declared.str() + " does not match the expected " + inferred.str() + why);
}

std::string shapeStr(const Shape& shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + "]";
}

bool isPermutation(const std::vector<int64_t>& v, int64_t n) {
  if (static_cast<int64_t>(v.size()) != n) return false;
  std::vector<bool> seen(static_cast<size_t>(n), false);
  for (int64_t x : v) {
    if (x < 0 || x >= n || seen[static_cast<size_t>(x)]) return false;
    seen[static_cast<size_t>(x)] = true;
  }
  return true;
}

bool allUnique(const std::vector<int64_t>& v) {
  std::vector<int64_t> s = v;
  std::sort(s.begin(), s.end());
  return std::adjacent_find(s.begin(), s.end()) == s.end();
}

bool isSorted(const std::vector<int64_t>& v) {
  return std::is_sorted(v.begin(), v.end());
}

bool contains(const std::vector<int64_t>& v, int64_t x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}

std::vector<int64_t> concat(std::vector<int64_t> a, const std::vector<int64_t>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

int64_t satAdd(int64_t a, int64_t b) {
  int64_t r;
  if (!__builtin_add_overflow(a, b, &r)) return r;
  return b > 0 ? std::numeric_limits<int64_t>::max() : std::numeric_limits<int64_t>::min();
}

int64_t satMul(int64_t a, int64_t b) {
  int64_t r;
  if (!__builtin_mul_overflow(a, b, &r)) return r;
  return (a < 0) != (b < 0) ? std::numeric_limits<int64_t>::min()
                            : std::numeric_limits<int64_t>::max();
}

void checkDimensions(const InferContext& v, std::string_view what, const std::vector<int64_t>& dims,
                     int64_t rank, std::string_view rankOf) {
  for (int64_t d : dims)
    v.check(d >= 0 && d < rank, [&] {
      return std::string(what) + " " + shapeStr(dims) + " holds " + std::to_string(d) +
             ", outside [0, " + std::to_string(rank) + ") for the " + std::string(rankOf) +
             " of rank " + std::to_string(rank);
    });
  v.check(allUnique(dims),
          [&] { return std::string(what) + " " + shapeStr(dims) + " repeats a dimension"; });
}

void checkWindowList(const InferContext& v, std::string_view attr, const std::vector<int64_t>& values,
                     int64_t n, std::string_view each) {
  v.check(static_cast<int64_t>(values.size()) == n, [&] {
    return std::string(attr) + " " + shapeStr(values) + " must have one entry per " +
           std::string(each) + " (" + std::to_string(n) + ")";
  });
  for (int64_t x : values)
    v.check(x > 0, [&] { return std::string(attr) + " " + shapeStr(values) + " must be positive"; });
}

void checkWindowPadding(const InferContext& v, const Window& w, int64_t n) {
  v.check(w.paddingShapeOk, [&] {
    return "padding has shape " + shapeStr(v.attr("padding").asDense().shape()) + ", expected [" +
           std::to_string(n) + ", 2] (a [low, high] pair per dimension)";
  });
}

bool isPromotable(DType from, DType to) {
  // The spec's pseudo-code falls through to `false` for booleans, which would forbid
  // every reduction over i1 (reduce_or, reduce_and); bool -> bool is meant.
  if (isBool(from) || isBool(to)) return isBool(from) && isBool(to);
  if (isInteger(from) && isInteger(to)) return bitWidth(from) <= bitWidth(to);
  if (isFloat(from) && isFloat(to)) return bitWidth(from) <= bitWidth(to);
  if (isComplex(from) && isComplex(to)) return bitWidth(from) <= bitWidth(to);
  return false;
}

int64_t windowPositions(int64_t size, int64_t window, int64_t stride, int64_t padLow,
                        int64_t padHigh, int64_t baseDilation, int64_t windowDilation) {
  auto dilate = [](int64_t n, int64_t d) { return n == 0 ? 0 : satAdd(satMul(n - 1, d), 1); };
  int64_t padded = satAdd(satAdd(padLow, dilate(size, baseDilation)), padHigh);
  int64_t dilatedWindow = dilate(window, windowDilation);
  if (padded <= 0 || dilatedWindow > padded || stride <= 0) return 0;
  return (padded - dilatedWindow) / stride + 1;
}

std::optional<std::vector<int64_t>> constantInts(const Value* value) {
  const Op* def = value->definingOp();
  if (!def || !(def->is(ops::Constant) || def->is(ops::ArithConstant))) return std::nullopt;
  Attribute a = def->attr("value");
  if (!a || !a.is(Attribute::Kind::Dense)) return std::nullopt;
  const Literal& lit = a.asDense();
  if (!isInteger(lit.dtype())) return std::nullopt;
  std::vector<int64_t> out;
  for (int64_t i = 0; i < lit.numElements(); ++i) out.push_back(lit.intAt(i));
  return out;
}

}  // namespace kiln
