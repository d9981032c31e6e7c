// Kernels: compare, select and clamp.
#include "interp/elementwise.h"
#include "interp/kernels.h"
#include "ir/attr_records.h"
#include "ir/ops/stablehlo.h"
#include "kernels/scalar_math.h"

namespace kiln::interp {
using namespace kernels;  // NOLINT: the shared element functions (kernels/)
namespace {

using Dir = ComparisonDirection;

// Compares with the operators of T (IEEE quiet comparisons for floats).
template <class T>
bool compareValues(Dir d, const T& a, const T& b) {
  switch (d) {
    case Dir::EQ: return a == b;
    case Dir::NE: return a != b;
    case Dir::GE: return a >= b;
    case Dir::GT: return a > b;
    case Dir::LE: return a <= b;
    case Dir::LT: return a < b;
  }
  return false;
}

HostValues compare(const Op& op, const HostValues& v, EvalContext&) {
  Dir dir = comparisonDirectionOf(op.attr("comparison_direction"));
  bool totalOrder = comparisonTypeOf(op.attr("compare_type")) == ComparisonType::TotalOrder;
  return {mapToBool(v[0].tensor(), v[1].tensor(), [&](auto a, auto b) {
    using T = decltype(a);
    if constexpr (kIsComplex<T>) {
      // Lexicographic on (real, imag); EQ/NE compare both parts.
      if (dir == Dir::EQ) return a == b;
      if (dir == Dir::NE) return a != b;
      if (a.real() != b.real()) return compareValues(dir, a.real(), b.real());
      return compareValues(dir, a.imag(), b.imag());
    } else if constexpr (std::is_floating_point_v<T>) {
      if (totalOrder) return compareValues(dir, totalOrderKey(a), totalOrderKey(b));
      return compareValues(dir, a, b);
    } else {
      return compareValues(dir, a, b);
    }
  })};
}

// select(pred, on_true, on_false); pred is a scalar or has the operands' shape.
HostValues select(const Op&, const HostValues& v, EvalContext&) {
  const Literal& pred = v[0].tensor();
  const Literal& t = v[1].tensor();
  const Literal& f = v[2].tensor();
  if (pred.type().rank() == 0) return {pred.boolAt(0) ? t : f};
  Literal out(t.type());
  size_t width = static_cast<size_t>(storageBytes(t.dtype()));
  uint8_t* dst = out.mutableStorage();
  for (int64_t i = 0, n = t.numElements(); i < n; ++i) {
    const Literal& src = pred.boolAt(i) ? t : f;
    std::memcpy(dst + static_cast<size_t>(i) * width, src.storage() + (src.isSplat() ? 0 : static_cast<size_t>(i) * width), width);
  }
  return {std::move(out)};
}

// clamp(min, x, max) = minimum(maximum(x, min), max); min and max may be scalars.
HostValues clamp(const Op&, const HostValues& v, EvalContext&) {
  const Literal& lo = v[0].tensor();
  const Literal& x = v[1].tensor();
  const Literal& hi = v[2].tensor();
  Literal out(x.type());
  visitDType(x.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    Reader<T> rlo(lo), rx(x), rhi(hi);
    Writer<T> w(out);
    bool scalarLo = lo.type().rank() == 0, scalarHi = hi.type().rank() == 0;
    for (int64_t i = 0, n = x.numElements(); i < n; ++i) {
      T a = rx[i], l = rlo[scalarLo ? 0 : i], h = rhi[scalarHi ? 0 : i];
      if constexpr (std::is_floating_point_v<T>) {
        w.set(i, ieeeMinimum(ieeeMaximum(a, l), h));
      } else if constexpr (kIsComplex<T>) {
        auto less = [](const T& p, const T& q) {
          return p.real() < q.real() || (p.real() == q.real() && p.imag() < q.imag());
        };
        T m = less(a, l) ? l : a;
        w.set(i, less(h, m) ? h : m);
      } else {
        w.set(i, std::min(std::max(a, l), h));
      }
    }
  });
  return {std::move(out)};
}

}  // namespace

void addCompareSelectKernels(KernelTable& t) {
  t.set(ops::Compare, &compare);
  t.set(ops::Select, &select);
  t.set(ops::Clamp, &clamp);
}

}  // namespace kiln::interp
