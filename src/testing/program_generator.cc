// Random programs (program_generator.h).
#include "testing/program_generator.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <optional>
#include <set>

#include "ir/builder.h"
#include "ir/op_registry.h"
#include "ir/ops/stablehlo.h"
#include "support/error.h"

namespace kiln::testing {
namespace {

const DType kDTypes[] = {DType::F32, DType::F64, DType::F16, DType::BF16, DType::I32, DType::I64,
                         DType::I8,  DType::U8,  DType::U32, DType::I1,   DType::C64, DType::C128};

// Ops whose result jumps where their operand crosses a point (a rounding boundary, zero,
// a comparison): drawn only on values without rounding differences, since there an
// executor's last-bit difference would become a different answer.
bool isDiscontinuous(OpCode op) {
  switch (op) {
    case ops::Ceil:
    case ops::Floor:
    case ops::RoundNearestAfz:
    case ops::RoundNearestEven:
    case ops::Sign:
    case ops::IsFinite:
    case ops::Remainder: return true;
    default: return false;
  }
}

class Generator {
 public:
  Generator(uint64_t seed, const GeneratorOptions& o) : rng_(seed), o_(o) {}

  std::unique_ptr<Module> program() {
    auto module = std::make_unique<Module>();
    TypeList params;
    const int numParams = 1 + below(3);
    for (int i = 0; i < numParams; ++i) params.push_back(randomType());
    buildFunction(*module, "main", params, [&](Builder& b, const std::vector<Value*>& args) {
      pool_ = args;
      const int ops = 1 + below(o_.maxOps);
      for (int made = 0, tries = 0; made < ops && tries < 20 * o_.maxOps; ++tries) {
        inexactStep_ = false;
        try {
          if (Value* v = step(b)) {
            pool_.push_back(v);
            if (inexactStep_) inexact_.insert(v);
            ++made;
          }
        } catch (const Error&) {
          // The op did not fit its operands (the builder checked before inserting
          // it; values built for it stay behind, unused): draw another.
        }
      }
      // One or two results, the latest values first (earlier ones are often read).
      std::vector<Value*> results = {pool_.back()};
      if (pool_.size() > 1 && coin()) results.push_back(pool_[static_cast<size_t>(below(pool_.size() - 1))]);
      return results;
    });
    return module;
  }

 private:
  int below(size_t n) { return n == 0 ? 0 : static_cast<int>(rng_() % n); }
  bool coin() { return rng_() % 2 == 0; }
  template <class T>
  const T& pick(const std::vector<T>& v) { return v[static_cast<size_t>(below(v.size()))]; }

  Shape randomShape() {
    Shape s(static_cast<size_t>(below(static_cast<size_t>(o_.maxRank) + 1)));
    // Sizes 0 and 1 are rare and special: one in eight dimensions is either.
    for (int64_t& d : s) d = rng_() % 8 == 0 ? below(2) : 1 + below(static_cast<size_t>(o_.maxDim));
    return s;
  }
  Type randomType() { return Type::tensor(kDTypes[below(std::size(kDTypes))], randomShape()); }

  // Every read of the pool goes through here: an op that reads a value with rounding
  // differences has them too.
  Value* use(Value* v) {
    if (inexact_.count(v)) inexactStep_ = true;
    return v;
  }
  bool exact(const Value* v) const { return !inexact_.count(v); }
  // The op being built has rounding differences when `op` may round its results of
  // element type `t` each executor's own way (the registry's kRoundsFreely).
  void rounds(const OpInfo& op, DType t) {
    if (roundsFreely(op, t)) inexactStep_ = true;
  }
  Value* any() { return use(pick(pool_)); }

  // An op of the registry of category `c` that accepts `t` and rounds as the spec says
  // (no transcendental math: transcendental() draws those), continuous unless `x` is exact.
  std::optional<OpCode> elementwiseOp(OpCategory c, DType t, bool xIsExact) {
    std::vector<OpCode> codes;
    for (const OpInfo& info : allOps()) {
      if (info.category != c || !acceptsElement(info.elements, t)) continue;
      if (info.has(kRoundsFreely)) continue;
      if (!xIsExact && isDiscontinuous(info.code)) continue;
      // Undefined for a zero divisor.
      if (isInteger(t) && (info.code == ops::Divide || info.code == ops::Remainder)) continue;
      if (info.code == ops::Convert || info.code == ops::BitcastConvert || info.code == ops::Complex ||
          info.code == ops::ReducePrecision)
        continue;
      codes.push_back(info.code);
    }
    if (codes.empty()) return std::nullopt;
    return pick(codes);
  }

  // A value of `type`: one from the pool (an exact one, if asked), or a splat constant.
  Value* operandOfType(Builder& b, const Type& type, bool exactOnly = false) {
    std::vector<Value*> same;
    for (Value* v : pool_)
      if (v->type() == type && (!exactOnly || exact(v))) same.push_back(v);
    if (!same.empty() && rng_() % 4 != 0) return use(pick(same));
    return b.splat(type, isFloat(type.dtype()) || isComplex(type.dtype()) ? 0.5 * (below(9) - 4) : below(5) - 2);
  }

  // An operand with rounding differences must not sit where the op jumps, leaves its
  // domain or grows fast, or the executors' last-bit differences would become different
  // answers: there a real one becomes |v| + 1/2 (log, sqrt, rsqrt, a power's base, a
  // divisor, atan2's x) or is clamped (an exponent, tan's argument). A complex one is
  // not drawn there (null).
  Value* tame(Builder& b, OpCode op, Value* v, int position) {
    if (exact(v)) return v;
    const bool domain = op == ops::Log || op == ops::LogPlusOne || op == ops::Sqrt || op == ops::Rsqrt ||
                        (op == ops::Power && position == 0) ||
                        ((op == ops::Atan2 || op == ops::Divide) && position == 1);
    double bound = 0;
    if (op == ops::Exponential || op == ops::ExponentialMinusOne || (op == ops::Power && position == 1))
      bound = 8;
    if (op == ops::Tan) bound = 1.5;
    if (!domain && bound == 0) return v;
    const DType e = v->type().dtype();
    if (isComplex(e)) return nullptr;
    if (domain) return b.binary(ops::Add, b.unary(ops::Abs, v), b.splat(v->type(), 0.5));
    return b.clamp(b.splat(Type::tensor(e, {}), -bound), v, b.splat(Type::tensor(e, {}), bound));
  }

  Value* step(Builder& b) {
    Value* x = any();
    const Type& t = x->type();
    const DType e = t.dtype();
    const Shape& s = t.shape();
    switch (below(19)) {
      case 0:
      case 1:
      case 2:
      case 3: return elementwise(b, x);
      case 4: return compareOrSelect(b, x);
      case 5: {
        // Conversions that are defined for every value: not from a float to an integer,
        // not from complex to real.
        DType to = kDTypes[below(std::size(kDTypes))];
        if (isFloat(e) && (isInteger(to) || isBool(to))) return nullptr;
        if (isComplex(e) && !isComplex(to)) return nullptr;
        return b.convert(x, to);
      }
      case 6: {
        Shape out = s;
        out.insert(out.begin(), 1 + below(3));
        Dims dims(s.size());
        std::iota(dims.begin(), dims.end(), 1);
        return b.broadcastInDim(x, out, dims);
      }
      case 7: {
        const int64_t n = t.numElements();
        if (s.size() != 1 || n < 2) return b.reshape(x, {n});
        std::vector<int64_t> divisors;
        for (int64_t d = 1; d <= n; ++d)
          if (n % d == 0) divisors.push_back(d);
        const int64_t a = pick(divisors);
        return b.reshape(x, {a, n / a});
      }
      case 8: {
        Dims perm(s.size());
        std::iota(perm.begin(), perm.end(), 0);
        std::shuffle(perm.begin(), perm.end(), rng_);
        return coin() ? b.transpose(x, perm) : b.reverse(x, Dims(perm.begin(), perm.begin() + below(s.size() + 1)));
      }
      case 9: {
        Dims start(s.size()), limit(s.size()), strides(s.size());
        for (size_t d = 0; d < s.size(); ++d) {
          start[d] = below(static_cast<size_t>(s[d]) + 1);
          limit[d] = start[d] + below(static_cast<size_t>(s[d] - start[d]) + 1);
          strides[d] = 1 + below(2);
        }
        return b.slice(x, start, limit, strides);
      }
      case 10: {
        if (s.empty()) return nullptr;
        if (coin()) return b.concatenate({x, operandOfType(b, t)}, below(s.size()));
        Dims low(s.size()), high(s.size()), interior(s.size());
        for (size_t d = 0; d < s.size(); ++d) {
          low[d] = below(4) - 1;  // -1 crops
          high[d] = below(3);
          interior[d] = below(2);
        }
        return b.pad(x, operandOfType(b, Type::tensor(e, {})), low, high, interior);
      }
      case 11: return reduce(b, x);
      case 12: return coin() ? dot(b, x) : b.iota(randomType(), 0);
      case 13:
      case 14: return transcendental(b, x);
      case 15: return convolution(b, x);
      case 16: return coin() ? gather(b, x) : scatter(b, x);
      case 17: return sort(b, x);
      default: return coin() ? loop(b, x) : branch(b, x);
    }
  }

  // A unary or binary elementwise op on x (and a second value of its type).
  Value* elementwise(Builder& b, Value* x) {
    const bool unary = coin();
    std::optional<OpCode> op =
        elementwiseOp(unary ? OpCategory::ElementwiseUnary : OpCategory::ElementwiseBinary, x->type().dtype(), exact(x));
    if (!op) return nullptr;
    if (unary) return b.unary(*op, x);
    Value* lhs = tame(b, *op, x, 0);
    Value* rhs = tame(b, *op, operandOfType(b, x->type()), 1);
    return lhs && rhs ? b.binary(*op, lhs, rhs) : nullptr;
  }

  // Transcendental math (exp, log, sine, tanh, atan2, ...), which each executor may
  // round in its own way.
  Value* transcendental(Builder& b, Value* x) {
    const DType e = x->type().dtype();
    std::vector<const OpInfo*> candidates;
    for (const OpInfo& info : allOps())
      if ((info.category == OpCategory::ElementwiseUnary || info.category == OpCategory::ElementwiseBinary) &&
          roundsFreely(info, e) && acceptsElement(info.elements, e))
        candidates.push_back(&info);
    if (candidates.empty()) return nullptr;
    const OpInfo& op = *pick(candidates);
    rounds(op, e);
    Value* lhs = tame(b, op.code, x, 0);
    if (!lhs) return nullptr;
    if (op.category == OpCategory::ElementwiseUnary) return b.unary(op.code, lhs);
    Value* rhs = tame(b, op.code, operandOfType(b, x->type()), 1);
    return rhs ? b.binary(op.code, lhs, rhs) : nullptr;
  }

  // compare, or select between x and another value by a comparison of exact values (a
  // comparison of values with rounding differences could flip).
  Value* compareOrSelect(Builder& b, Value* x) {
    static const ComparisonDirection dirs[] = {ComparisonDirection::EQ, ComparisonDirection::NE,
                                               ComparisonDirection::GE, ComparisonDirection::GT,
                                               ComparisonDirection::LE, ComparisonDirection::LT};
    const Type& t = x->type();
    Value* key = x;
    if (!exact(x)) {
      std::vector<Value*> keys;
      for (Value* v : pool_)
        if (exact(v) && v->type().shape() == t.shape() && !isComplex(v->type().dtype())) keys.push_back(v);
      if (keys.empty()) return nullptr;
      key = pick(keys);
    }
    Value* pred = b.compare(key, operandOfType(b, key->type(), true), dirs[below(6)]);
    if (key == x && coin()) return pred;
    return b.select(pred, x, operandOfType(b, t));
  }

  Value* reduce(Builder& b, Value* x) {
    const DType e = x->type().dtype();
    const size_t rank = x->type().shape().size();
    Dims dims;
    for (size_t d = 0; d < rank; ++d)
      if (coin()) dims.push_back(static_cast<int64_t>(d));
    OpCode op = isBool(e) ? (coin() ? ops::And : ops::Or)
                          : std::vector<OpCode>{ops::Add, ops::Multiply, ops::Maximum, ops::Minimum}[below(4)];
    double init = 0;
    const double inf = std::numeric_limits<double>::infinity();
    if (op == ops::Multiply || op == ops::And) init = 1;
    if (isComplex(e) && (op == ops::Maximum || op == ops::Minimum)) return nullptr;
    if (op == ops::Maximum) init = isFloat(e) ? -inf : (isUnsignedInt(e) ? 0 : -std::ldexp(1.0, bitWidth(e) - 1));
    if (op == ops::Minimum) init = isFloat(e) ? inf : (isUnsignedInt(e) ? std::ldexp(1.0, bitWidth(e)) - 1 : std::ldexp(1.0, bitWidth(e) - 1) - 1);
    Value* start = b.splat(Type::tensor(e, {}), init);
    return b.reduce({x}, {start}, dims, [op](Builder& body, const std::vector<Value*>& a) {
      return std::vector<Value*>{body.binary(op, a[0], a[1])};
    })[0];
  }

  // A constant of `type` with small whole values (halves for floats).
  Value* smallConstant(Builder& b, const Type& type) {
    Literal c(type);
    for (int64_t i = 0; i < c.numElements(); ++i) {
      const int v = below(7) - 3;
      if (isFloat(type.dtype())) c.setFloat(i, 0.5 * v);
      else if (isComplex(type.dtype())) c.setComplex(i, {0.5 * v, 0.5 * (below(7) - 3)});
      else if (isBool(type.dtype())) c.setInt(i, v > 0);
      else c.setInt(i, isUnsignedInt(type.dtype()) ? v + 3 : v);
    }
    return b.constant(std::move(c));
  }

  // x · y over x's last dimension, y a new constant. Float sums round by the order of
  // their terms, which the executors choose (BLAS blocks them).
  Value* dot(Builder& b, Value* x) {
    const Type& t = x->type();
    if (isBool(t.dtype()) || t.shape().empty()) return nullptr;
    rounds(opInfo(ops::DotGeneral), t.dtype());
    const int64_t k = t.shape().back();
    DotDims dims;
    dims.lhsContracting = {static_cast<int64_t>(t.shape().size()) - 1};
    dims.rhsContracting = {0};
    return b.dotGeneral(x, smallConstant(b, Type::tensor(t.dtype(), {k, 1 + below(4)})), dims);
  }

  // x's elements as one image of one channel through a kernel of 1-2 output channels and
  // width 1-3, with random strides, padding and dilations.
  Value* convolution(Builder& b, Value* x) {
    const Type& t = x->type();
    if (isBool(t.dtype())) return nullptr;
    rounds(opInfo(ops::Convolution), t.dtype());
    Value* image = b.reshape(x, {1, 1, t.numElements()});
    Value* kernel = smallConstant(b, Type::tensor(t.dtype(), {1 + below(2), 1, 1 + below(3)}));
    const ConvDims dims{0, 1, {2}, 1, 0, {2}, 0, 1, {2}};
    Window window;
    window.strides = {1 + below(2)};
    window.baseDilations = {1 + below(2)};
    window.windowDilations = {1 + below(2)};
    window.padding = {{below(3), below(3)}};
    window.reversal = {false};
    return b.convolution(image, kernel, dims, window);
  }

  // Rows of x at constant indices, some out of range (gather clamps them).
  Value* gather(Builder& b, Value* x) {
    const Shape& s = x->type().shape();
    if (s.empty()) return nullptr;
    Literal indices(Type::tensor(DType::I32, {below(4), 1}));
    for (int64_t i = 0; i < indices.numElements(); ++i) indices.setInt(i, below(static_cast<size_t>(s[0]) + 2) - 1);
    GatherDims dims;
    for (size_t d = 1; d < s.size(); ++d) dims.offsetDims.push_back(static_cast<int64_t>(d));
    dims.collapsedSliceDims = {0};
    dims.startIndexMap = {0};
    dims.indexVectorDim = 1;
    Dims sizes = s;
    sizes[0] = 1;
    return b.gather(x, b.constant(std::move(indices)), dims, sizes);
  }

  // Rows of x at distinct constant indices combined with updates (replaced, added, or
  // the maximum or minimum): distinct, so no order between updates matters.
  Value* scatter(Builder& b, Value* x) {
    const Type& t = x->type();
    const Shape& s = t.shape();
    if (s.empty() || s[0] == 0) return nullptr;
    std::vector<int64_t> rows(static_cast<size_t>(s[0]));
    std::iota(rows.begin(), rows.end(), 0);
    std::shuffle(rows.begin(), rows.end(), rng_);
    const int64_t k = below(std::min<size_t>(rows.size(), 3) + 1);
    Literal indices(Type::tensor(DType::I32, {k, 1}));
    for (int64_t i = 0; i < k; ++i) indices.setInt(i, rows[static_cast<size_t>(i)]);
    Shape updateShape = s;
    updateShape[0] = k;
    Value* updates = operandOfType(b, Type::tensor(t.dtype(), updateShape));
    ScatterDims dims;
    for (size_t d = 1; d < s.size(); ++d) dims.updateWindowDims.push_back(static_cast<int64_t>(d));
    dims.insertedWindowDims = {0};
    dims.scatterDimsToOperandDims = {0};
    dims.indexVectorDim = 1;
    const int combiner = below(4);
    return b.scatter({x}, b.constant(std::move(indices)), {updates}, dims,
                     [combiner](Builder& c, const std::vector<Value*>& a) {
                       static const OpCode combiners[] = {ops::Add, ops::Maximum, ops::Minimum};
                       return std::vector<Value*>{combiner == 3 ? a[1] : c.binary(combiners[combiner], a[0], a[1])};
                     },
                     false, true)[0];
  }

  // A stable sort along one dimension by x, sometimes carrying a second value of x's
  // shape along. Float keys compare in total order after JAX's canonicalization (every
  // NaN one NaN, -0 as +0): the sign of a NaN that an op makes is the executor's choice.
  Value* sort(Builder& b, Value* x) {
    const Type& t = x->type();
    if (t.shape().empty() || isComplex(t.dtype())) return nullptr;
    std::vector<Value*> inputs = {x};
    if (exact(x) && coin()) {
      // (a key with rounding differences could order the carried values differently)
      std::vector<Value*> carried;
      for (Value* v : pool_)
        if (v->type().shape() == t.shape()) carried.push_back(v);
      inputs.push_back(use(pick(carried)));
    }
    const bool descending = coin();
    const bool isFloatKey = isFloat(t.dtype());
    std::vector<Value*> sorted = b.sort(inputs, below(t.shape().size()), true,
                                        [&](Builder& c, const std::vector<Value*>& a) {
                                          Value* lhs = isFloatKey ? canonicalKey(c, a[0]) : a[0];
                                          Value* rhs = isFloatKey ? canonicalKey(c, a[1]) : a[1];
                                          return std::vector<Value*>{c.compare(
                                              lhs, rhs, descending ? ComparisonDirection::GT : ComparisonDirection::LT,
                                              isFloatKey ? std::optional(ComparisonType::TotalOrder) : std::nullopt)};
                                        });
    return sorted.back();
  }

  static Value* canonicalKey(Builder& c, Value* key) {
    Value* isNaN = c.compare(key, key, ComparisonDirection::NE);
    Value* noNegativeZero = c.binary(ops::Add, key, c.splat(key->type(), 0.0));
    return c.select(isNaN, c.splat(key->type(), std::numeric_limits<double>::quiet_NaN()), noNegativeZero);
  }

  // A loop of 0-3 iterations (a counter against a constant) whose body applies an
  // elementwise op to a carried x.
  Value* loop(Builder& b, Value* x) {
    const Type counter = Type::tensor(DType::I32, {});
    const int trips = below(4);
    return b.while_(
        {b.splat(counter, 0), x},
        [&](Builder& c, const std::vector<Value*>& a) {
          return std::vector<Value*>{c.compare(a[0], c.splat(counter, trips), ComparisonDirection::LT)};
        },
        [&](Builder& c, const std::vector<Value*>& a) {
          if (!exact(x)) inexact_.insert(a[1]);
          Value* next = elementwise(c, a[1]);
          if (!next) throw Error(ErrorKind::Usage, "no elementwise op fits");  // (draw again)
          return std::vector<Value*>{c.binary(ops::Add, a[0], c.splat(counter, 1)), next};
        })[1];
  }

  // if on a comparison of an exact value's first element, each branch an elementwise op
  // of x.
  Value* branch(Builder& b, Value* x) {
    std::vector<Value*> keys;
    for (Value* v : pool_)
      if (exact(v) && v->type().numElements() > 0 && !isComplex(v->type().dtype())) keys.push_back(v);
    if (keys.empty()) return nullptr;
    Value* key = pick(keys);
    const Shape& s = key->type().shape();
    Value* first = b.reshape(b.slice(key, Dims(s.size(), 0), Dims(s.size(), 1), Dims(s.size(), 1)), {});
    Value* pred = b.compare(first, b.splat(first->type(), 0), coin() ? ComparisonDirection::GT : ComparisonDirection::LE);
    auto arm = [&](Builder& c, const std::vector<Value*>&) {
      Value* v = elementwise(c, x);
      if (!v) throw Error(ErrorKind::Usage, "no elementwise op fits");  // (draw again)
      return std::vector<Value*>{v};
    };
    return b.if_(pred, arm, arm)[0];
  }

  std::mt19937_64 rng_;
  GeneratorOptions o_;
  std::vector<Value*> pool_;
  // Values that carry rounding the executors may do differently (differential.h), and
  // whether the op being built reads one or rounds that way itself.
  std::set<const Value*> inexact_;
  bool inexactStep_ = false;
};

}  // namespace

std::unique_ptr<Module> generateProgram(uint64_t seed, const GeneratorOptions& options) {
  return Generator(seed, options).program();
}

interp::HostValues generateInputs(const Function& fn, uint64_t seed) {
  std::mt19937_64 rng(seed);
  interp::HostValues inputs;
  // One in eight is 0, 1 or 0.5; the rest uniform in [-4, 4].
  auto real = [](uint64_t r) {
    return r % 8 == 0 ? std::vector<double>{0, 1, 0.5}[(r >> 3) % 3]
                      : -4 + 8 * static_cast<double>(r >> 11) / static_cast<double>(uint64_t{1} << 53);
  };
  for (const Type& t : fn.paramTypes()) {
    Literal v(t);
    for (int64_t i = 0; i < v.numElements(); ++i) {
      const uint64_t r = rng();
      if (isFloat(t.dtype())) {
        v.setFloat(i, real(r));
      } else if (isComplex(t.dtype())) {
        v.setComplex(i, {real(r), real(rng())});
      } else if (isBool(t.dtype())) {
        v.setInt(i, static_cast<int64_t>(r & 1));
      } else {
        v.setInt(i, isUnsignedInt(t.dtype()) ? static_cast<int64_t>(r % 17) : static_cast<int64_t>(r % 17) - 8);
      }
    }
    inputs.push_back(std::move(v));
  }
  return inputs;
}

}  // namespace kiln::testing
