// Region-based reductions (reduce, reduce_window, select_and_scatter, ...): a body that
// is a single binary elementwise op of its two arguments is recognized and folded with
// a typed loop that gives the results of running the region per element, bit for bit.
#pragma once

#include <functional>
#include <vector>

#include "interp/kernels.h"
#include "kernels/scalar_math.h"

namespace kiln::interp {
using namespace kernels;  // NOLINT: the shared element functions (kernels/)

enum class FoldKind { None, Add, Mul, Max, Min, And, Or, Xor };

// The op of a body `^bb0(%a, %b): %r = op %a, %b; return %r` whose arguments and result
// are rank-0 tensors of one dtype, or None. `swapped` is set for `op %b, %a`.
FoldKind simpleBinaryBody(const Region& body, bool& swapped);

// What the arithmetic kernels compute for one pair of elements (compute type T).
template <FoldKind K, class T>
T combine(T a, T b) {
  constexpr bool kBool = std::is_same_v<T, bool>;
  constexpr bool kInt = std::is_integral_v<T> && !kBool;
  if constexpr (K == FoldKind::Add) {
    if constexpr (kBool) return a || b;
    else if constexpr (kInt) return wrapAdd(a, b);
    else return T(a + b);
  } else if constexpr (K == FoldKind::Mul) {
    if constexpr (kBool) return a && b;
    else if constexpr (kInt) return wrapMul(a, b);
    else return T(a * b);
  } else if constexpr (K == FoldKind::Max || K == FoldKind::Min) {
    constexpr bool kMax = K == FoldKind::Max;
    if constexpr (kBool) return kMax ? (a || b) : (a && b);
    else if constexpr (kInt) return kMax ? std::max(a, b) : std::min(a, b);
    else if constexpr (std::is_floating_point_v<T>) return kMax ? ieeeMaximum(a, b) : ieeeMinimum(a, b);
    else {  // complex: lexicographic on (real, imag), as the maximum kernel does
      bool aLess = a.real() < b.real() || (a.real() == b.real() && a.imag() < b.imag());
      return kMax ? (aLess ? b : a) : (aLess ? a : b);
    }
  } else {
    if constexpr (kBool) {
      return K == FoldKind::And ? (a && b) : K == FoldKind::Or ? (a || b) : (a != b);
    } else if constexpr (kInt) {
      return static_cast<T>(K == FoldKind::And ? (a & b) : K == FoldKind::Or ? (a | b) : (a ^ b));
    } else {
      return a;  // bitwise ops on floats never pass the verifier
    }
  }
}

// Calls f(std::integral_constant<FoldKind, K>{}) for the runtime kind k (not None).
template <class F>
decltype(auto) visitFoldKind(FoldKind k, F&& f) {
  switch (k) {
    case FoldKind::Add: return f(std::integral_constant<FoldKind, FoldKind::Add>{});
    case FoldKind::Mul: return f(std::integral_constant<FoldKind, FoldKind::Mul>{});
    case FoldKind::Max: return f(std::integral_constant<FoldKind, FoldKind::Max>{});
    case FoldKind::Min: return f(std::integral_constant<FoldKind, FoldKind::Min>{});
    case FoldKind::And: return f(std::integral_constant<FoldKind, FoldKind::And>{});
    case FoldKind::Or: return f(std::integral_constant<FoldKind, FoldKind::Or>{});
    default: return f(std::integral_constant<FoldKind, FoldKind::Xor>{});
  }
}

// Calls f(TypeTag<T>{}, std::integral_constant<FoldKind, K>{}) for a dtype and a fold
// kind, for every pair that makes sense (bitwise kinds only on integers and booleans).
template <class F>
void visitTypedFold(DType dtype, FoldKind kind, F&& f) {
  visitDType(dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    visitFoldKind(kind, [&](auto k) {
      constexpr FoldKind K = decltype(k)::value;
      if constexpr ((K == FoldKind::And || K == FoldKind::Or || K == FoldKind::Xor) && !std::is_integral_v<T>) {
        throw Error(ErrorKind::Internal, "bitwise fold of a non-integer type");
      } else {
        f(tag, k);
      }
    });
  });
}

// Rounds a compute-type value to what storing it in a `t` element keeps (f16, bf16, fp8
// compute in float but each region result is stored, and so rounded, in its format).
template <class T>
T roundToStorage(T v, DType t) {
  if constexpr (std::is_floating_point_v<T>) {
    if (!isNativeStorage(t)) return static_cast<T>(bitsToFloat(floatToBits(static_cast<double>(v), t), t));
  }
  (void)t;
  return v;
}

// Fills `indices` with the input elements one result element folds, in order; -1 stands
// for an init value (reduce_window's padding).
using WindowFn = std::function<void(int64_t out, std::vector<int64_t>& indices)>;

// Sequential: a left fold from the init value. Lanes: the order of ir/reduction_order.h
// where it applies (a one-op body with an identity), else sequential.
enum class FoldOrder { Sequential, Lanes };

// results[k][o] = body(...body(body(inits, x0), x1)..., xn) over the elements of
// inputs[k] that window(o) lists, folded in `order`. Inputs and inits are promoted to
// the body's argument types; results have the op's types.
HostValues foldWindows(const Op& op, EvalContext& ctx, const HostValues& inputs,
                       const HostValues& inits, const WindowFn& window,
                       FoldOrder order = FoldOrder::Sequential);

// Converts a tensor to another dtype of the same kind (the promotion reduce bodies allow).
Literal promoteTo(const Literal& a, DType to);

}  // namespace kiln::interp
