// Random programs (program_generator.h).
#include "testing/program_generator.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include "ir/builder.h"
#include "ir/op_registry.h"
#include "support/error.h"

namespace kiln::testing {
namespace {

const DType kDTypes[] = {DType::F32, DType::F64, DType::F16, DType::BF16, DType::I32,
                         DType::I64, DType::I8,  DType::U8,  DType::U32,  DType::I1};

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
        try {
          if (Value* v = step(b)) {
            pool_.push_back(v);
            ++made;
          }
        } catch (const Error&) {
          // The op did not fit its operands (the builder checked before inserting
          // anything): draw another.
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
  Value* any() { return pick(pool_); }

  // An op of the registry of category `c` that accepts `t`, outside the excluded kinds.
  std::optional<OpCode> elementwiseOp(OpCategory c, DType t) {
    std::vector<OpCode> codes;
    for (const OpInfo& info : allOps()) {
      if (info.category != c || !acceptsElement(info.elements, t)) continue;
      // Inline transcendental math rounds differently per backend (program_generator.h).
      if (info.elements == ElementClass::FloatOrComplex) continue;
      if (isInteger(t) && (info.code == OpCode::Divide || info.code == OpCode::Remainder)) continue;
      if (info.code == OpCode::Convert || info.code == OpCode::BitcastConvert || info.code == OpCode::Complex ||
          info.code == OpCode::ReducePrecision)
        continue;
      codes.push_back(info.code);
    }
    if (codes.empty()) return std::nullopt;
    return pick(codes);
  }

  // A value of `type`: one from the pool, or a splat constant.
  Value* operandOfType(Builder& b, const Type& type) {
    std::vector<Value*> same;
    for (Value* v : pool_)
      if (v->type() == type) same.push_back(v);
    if (!same.empty() && rng_() % 4 != 0) return pick(same);
    return b.splat(type, isFloat(type.dtype()) ? 0.5 * (below(9) - 4) : below(5) - 2);
  }

  Value* step(Builder& b) {
    Value* x = any();
    const Type& t = x->type();
    const DType e = t.dtype();
    const Shape& s = t.shape();
    switch (below(13)) {
      case 0:
      case 1: {
        std::optional<OpCode> op = elementwiseOp(OpCategory::ElementwiseUnary, e);
        return op ? b.unary(*op, x) : nullptr;
      }
      case 2:
      case 3: {
        std::optional<OpCode> op = elementwiseOp(OpCategory::ElementwiseBinary, e);
        return op ? b.binary(*op, x, operandOfType(b, t)) : nullptr;
      }
      case 4: {
        static const ComparisonDirection dirs[] = {ComparisonDirection::EQ, ComparisonDirection::NE,
                                                   ComparisonDirection::GE, ComparisonDirection::GT,
                                                   ComparisonDirection::LE, ComparisonDirection::LT};
        Value* y = operandOfType(b, t);
        Value* pred = b.compare(x, y, dirs[below(6)]);
        return coin() ? pred : b.select(pred, x, y);
      }
      case 5: {
        // Conversions that are defined for every value: not from a float to an integer.
        DType to = kDTypes[below(std::size(kDTypes))];
        if (isFloat(e) && (isInteger(to) || isBool(to))) return nullptr;
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
      default: return coin() ? integerDot(b, x) : b.iota(randomType(), 0);
    }
  }

  Value* reduce(Builder& b, Value* x) {
    const DType e = x->type().dtype();
    const size_t rank = x->type().shape().size();
    Dims dims;
    for (size_t d = 0; d < rank; ++d)
      if (coin()) dims.push_back(static_cast<int64_t>(d));
    OpCode op = isBool(e) ? (coin() ? OpCode::And : OpCode::Or)
                          : std::vector<OpCode>{OpCode::Add, OpCode::Multiply, OpCode::Maximum, OpCode::Minimum}[below(4)];
    double init = 0;
    const double inf = std::numeric_limits<double>::infinity();
    if (op == OpCode::Multiply || op == OpCode::And) init = 1;
    if (op == OpCode::Maximum) init = isFloat(e) ? -inf : (isUnsignedInt(e) ? 0 : -std::ldexp(1.0, bitWidth(e) - 1));
    if (op == OpCode::Minimum) init = isFloat(e) ? inf : (isUnsignedInt(e) ? std::ldexp(1.0, bitWidth(e)) - 1 : std::ldexp(1.0, bitWidth(e) - 1) - 1);
    Value* start = b.splat(Type::tensor(e, {}), init);
    return b.reduce({x}, {start}, dims, [op](Builder& body, const std::vector<Value*>& a) {
      return std::vector<Value*>{body.binary(op, a[0], a[1])};
    })[0];
  }

  // x · y over x's last dimension, y a new constant: integers only (float dots run on
  // BLAS, whose summation order differs).
  Value* integerDot(Builder& b, Value* x) {
    const Type& t = x->type();
    if (!isInteger(t.dtype()) || t.shape().empty()) return nullptr;
    const int64_t k = t.shape().back();
    const int64_t n = 1 + below(4);
    Literal y(Type::tensor(t.dtype(), {k, n}));
    for (int64_t i = 0; i < y.numElements(); ++i) y.setInt(i, below(7) - 3);
    DotDims dims;
    dims.lhsContracting = {static_cast<int64_t>(t.shape().size()) - 1};
    dims.rhsContracting = {0};
    return b.dotGeneral(x, b.constant(std::move(y)), dims);
  }

  std::mt19937_64 rng_;
  GeneratorOptions o_;
  std::vector<Value*> pool_;
};

}  // namespace

std::unique_ptr<Module> generateProgram(uint64_t seed, const GeneratorOptions& options) {
  return Generator(seed, options).program();
}

interp::HostValues generateInputs(const Function& fn, uint64_t seed) {
  std::mt19937_64 rng(seed);
  interp::HostValues inputs;
  for (const Type& t : fn.paramTypes()) {
    Literal v(t);
    for (int64_t i = 0; i < v.numElements(); ++i) {
      const uint64_t r = rng();
      if (isFloat(t.dtype())) {
        // One in eight is 0, 1 or 0.5; the rest uniform in [-4, 4].
        v.setFloat(i, r % 8 == 0 ? std::vector<double>{0, 1, 0.5}[(r >> 3) % 3]
                                 : -4 + 8 * static_cast<double>(r >> 11) / static_cast<double>(uint64_t{1} << 53));
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
