// Kernels: batch_norm_inference, batch_norm_training and batch_norm_grad, following the
// spec's decompositions step by step: every intermediate is an element of the operand's
// type (rounded to it), and the per-feature sums fold in row-major order from zero.
#include <cmath>

#include "interp/ops/fold.h"
#include "interp/ops/linalg.h"
#include "ir/ops/stablehlo.h"

namespace kiln::interp {
namespace {

// Where each element's feature is: feature(i) = (i / inner) % count.
struct Features {
  int64_t count, inner, perFeature;
  Features(const Shape& shape, int64_t featureIndex) {
    count = shape[static_cast<size_t>(featureIndex)];
    inner = 1;
    for (size_t d = static_cast<size_t>(featureIndex) + 1; d < shape.size(); ++d) inner *= shape[d];
    perFeature = count == 0 ? 0 : numElements(shape) / count;
  }
  size_t of(int64_t i) const { return static_cast<size_t>((i / inner) % count); }
};

// The compute-type arithmetic of one float dtype, rounding every result to the dtype.
template <class T>
struct Arith {
  DType t;
  T r(T x) const { return roundToStorage(x, t); }
  T add(T a, T b) const { return r(a + b); }
  T sub(T a, T b) const { return r(a - b); }
  T mul(T a, T b) const { return r(a * b); }
  T div(T a, T b) const { return r(a / b); }
  T sqrt(T a) const { return r(std::sqrt(a)); }
};

template <class T>
std::vector<T> values(const Literal& lit) {
  Reader<T> r(lit);
  std::vector<T> out(static_cast<size_t>(lit.numElements()));
  for (size_t i = 0; i < out.size(); ++i) out[i] = r[static_cast<int64_t>(i)];
  return out;
}

template <class T>
Literal literalOf(const Type& type, const std::vector<T>& v) {
  Literal out(type);
  Writer<T> w(out);
  for (size_t i = 0; i < v.size(); ++i) w.set(static_cast<int64_t>(i), v[i]);
  return out;
}

// compute_sum: per-feature sums of f(i) over the elements, in row-major order.
template <class T, class F>
std::vector<T> featureSums(const Arith<T>& A, const Features& fs, int64_t n, F&& f) {
  std::vector<T> sum(static_cast<size_t>(fs.count), T(0));
  for (int64_t i = 0; i < n; ++i) sum[fs.of(i)] = A.add(sum[fs.of(i)], f(i));
  return sum;
}

template <class T>
std::vector<T> normalize(const Arith<T>& A, const Features& fs, const std::vector<T>& x,
                         const std::vector<T>& scale, const std::vector<T>& offset, const std::vector<T>& mean,
                         const std::vector<T>& variance, T epsilon) {
  std::vector<T> out(x.size());
  for (size_t i = 0; i < x.size(); ++i) {
    size_t c = fs.of(static_cast<int64_t>(i));
    T normalized = A.div(A.sub(x[i], mean[c]), A.sqrt(A.add(variance[c], epsilon)));
    out[i] = A.add(A.mul(scale[c], normalized), offset[c]);
  }
  return out;
}

// Runs f(Arith<T>, epsilon) with the float compute type of the op's operand.
template <class F>
HostValues withArith(const Op& op, const Literal& operand, F&& f) {
  HostValues out;
  visitDType(operand.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_floating_point_v<T>) {
      Arith<T> A{operand.dtype()};
      out = f(A, A.r(static_cast<T>(op.attr("epsilon").asFloat())));
    } else {
      unsupportedOp(op, "non-float operands");
    }
  });
  return out;
}

HostValues batchNormInference(const Op& op, const HostValues& v, EvalContext&) {
  const Literal& operand = v[0].tensor();
  Features fs(operand.shape(), op.attr("feature_index").asInt());
  return withArith(op, operand, [&](const auto& A, auto eps) -> HostValues {
    using T = decltype(eps);
    return {literalOf(operand.type(), normalize<T>(A, fs, values<T>(operand), values<T>(v[1].tensor()),
                                                   values<T>(v[2].tensor()), values<T>(v[3].tensor()),
                                                   values<T>(v[4].tensor()), eps))};
  });
}

HostValues batchNormTraining(const Op& op, const HostValues& v, EvalContext&) {
  const Literal& operand = v[0].tensor();
  Features fs(operand.shape(), op.attr("feature_index").asInt());
  return withArith(op, operand, [&](const auto& A, auto eps) -> HostValues {
    using T = decltype(eps);
    std::vector<T> x = values<T>(operand);
    const int64_t n = static_cast<int64_t>(x.size());
    const T divisor = A.r(static_cast<T>(fs.perFeature));
    std::vector<T> mean = featureSums(A, fs, n, [&](int64_t i) { return x[static_cast<size_t>(i)]; });
    for (T& m : mean) m = A.div(m, divisor);
    std::vector<T> variance = featureSums(A, fs, n, [&](int64_t i) {
      T centered = A.sub(x[static_cast<size_t>(i)], mean[fs.of(i)]);
      return A.mul(centered, centered);
    });
    for (T& s : variance) s = A.div(s, divisor);
    Type featureType = op.result(1)->type();
    return {literalOf(operand.type(),
                      normalize<T>(A, fs, x, values<T>(v[1].tensor()), values<T>(v[2].tensor()), mean, variance, eps)),
            literalOf(featureType, mean), literalOf(featureType, variance)};
  });
}

// The spec's batch_norm_grad (XLA's batchnorm_expander), with its temporaries' names.
HostValues batchNormGrad(const Op& op, const HostValues& v, EvalContext&) {
  const Literal& operand = v[0].tensor();
  Features fs(operand.shape(), op.attr("feature_index").asInt());
  return withArith(op, operand, [&](const auto& A, auto eps) -> HostValues {
    using T = decltype(eps);
    std::vector<T> x = values<T>(operand), scale = values<T>(v[1].tensor()), mean = values<T>(v[2].tensor());
    std::vector<T> variance = values<T>(v[3].tensor()), dy = values<T>(v[4].tensor());
    const int64_t n = static_cast<int64_t>(x.size());
    std::vector<T> centered(x.size()), normalized(x.size()), stddev(static_cast<size_t>(fs.count));
    for (size_t c = 0; c < stddev.size(); ++c) stddev[c] = A.sqrt(A.add(variance[c], eps));
    for (size_t i = 0; i < x.size(); ++i) {
      size_t c = fs.of(static_cast<int64_t>(i));
      centered[i] = A.sub(x[i], mean[c]);
      normalized[i] = A.div(centered[i], stddev[c]);
    }
    const T elementsPerFeature = A.r(static_cast<T>(fs.perFeature));
    auto at = [](const std::vector<T>& a, int64_t i) { return a[static_cast<size_t>(i)]; };
    std::vector<T> i2 = featureSums(A, fs, n, [&](int64_t i) { return at(dy, i); });
    std::vector<T> i3 = featureSums(A, fs, n, [&](int64_t i) { return A.mul(at(dy, i), at(centered, i)); });
    std::vector<T> gradOperand(x.size());
    for (size_t i = 0; i < x.size(); ++i) {
      size_t c = fs.of(static_cast<int64_t>(i));
      T i1 = A.mul(dy[i], elementsPerFeature);
      T i4 = A.mul(i3[c], centered[i]);
      T i5 = A.div(i4, A.add(variance[c], eps));
      T i6 = A.sub(A.sub(i1, i2[c]), i5);
      gradOperand[i] = A.mul(A.div(A.div(scale[c], stddev[c]), elementsPerFeature), i6);
    }
    std::vector<T> gradScale = featureSums(A, fs, n, [&](int64_t i) { return A.mul(at(dy, i), at(normalized, i)); });
    Type featureType = op.result(1)->type();
    return {literalOf(operand.type(), gradOperand), literalOf(featureType, gradScale), literalOf(featureType, i2)};
  });
}

}  // namespace

void addBatchNormKernels(KernelTable& t) {
  t.set(ops::BatchNormInference, &batchNormInference);
  t.set(ops::BatchNormTraining, &batchNormTraining);
  t.set(ops::BatchNormGrad, &batchNormGrad);
}

}  // namespace kiln::interp
