// numpy-like operations on kiln::Array, with NumPy's broadcasting and JAX's type
// promotion (docs/guides/cpp-api.md). Outside a trace each runs at once on the
// device (asynchronously, through a cache of compiled one-op programs); inside one
// (jit, grad, vmap) it adds its ops to the program being traced. Names and arguments
// follow jax.numpy; axes may be negative. Every function takes the caller's source
// position (a defaulted argument), which the op keeps: errors name the user's line.
//
// Errors: operands that do not fit (shapes that do not broadcast, an axis out of range,
// a dtype the op does not take) throw ApiError "shape" or "type" naming the op and both
// operands' types.
#pragma once

#include <initializer_list>
#include <optional>
#include <source_location>
#include <string>
#include <vector>

#include "kiln/array.h"

namespace kiln {

using Site = std::source_location;

// Which axes a reduction folds: all (the default), one, or several.
struct Axes {
  Axes() = default;
  Axes(int axis) : all(false), list{axis} {}
  Axes(int64_t axis) : all(false), list{axis} {}
  Axes(std::initializer_list<int64_t> axes) : all(false), list(axes) {}
  Axes(std::vector<int64_t> axes) : all(false), list(std::move(axes)) {}
  bool all = true;
  std::vector<int64_t> list;
};

// ---- creation ----
Array zeros(const std::vector<int64_t>& shape, Dtype dtype = float32, Site site = Site::current());
Array ones(const std::vector<int64_t>& shape, Dtype dtype = float32, Site site = Site::current());
// `value` converted to `dtype` (default: the value's own dtype, as a strongly typed array).
Array full(const std::vector<int64_t>& shape, const Array& value, std::optional<Dtype> dtype = std::nullopt,
           Site site = Site::current());
Array zeros_like(const Array& a, Site site = Site::current());
Array ones_like(const Array& a, Site site = Site::current());
// start, start + step, ... below stop (int32 unless a dtype is given).
Array arange(int64_t stop, Dtype dtype = int32, Site site = Site::current());
Array arange(double start, double stop, double step = 1, Dtype dtype = float32, Site site = Site::current());
Array linspace(double start, double stop, int64_t num, Dtype dtype = float32, Site site = Site::current());
Array eye(int64_t n, Dtype dtype = float32, Site site = Site::current());
// A strongly typed array from C values: array({1.f, 2.f}), array({1, 2, 3, 4}, {2, 2}).
template <class T>
Array array(std::initializer_list<T> values, std::vector<int64_t> shape = {}) {
  if (shape.empty() && values.size() != 1) shape = {static_cast<int64_t>(values.size())};
  return Array::from_vector(std::vector<T>(values), shape);
}

// ---- elementwise ----
Array add(const Array& a, const Array& b, Site site = Site::current());
Array subtract(const Array& a, const Array& b, Site site = Site::current());
Array multiply(const Array& a, const Array& b, Site site = Site::current());
// True division: integers are promoted to float first, as in NumPy.
Array divide(const Array& a, const Array& b, Site site = Site::current());
Array power(const Array& a, const Array& b, Site site = Site::current());
Array maximum(const Array& a, const Array& b, Site site = Site::current());
Array minimum(const Array& a, const Array& b, Site site = Site::current());
Array equal(const Array& a, const Array& b, Site site = Site::current());
Array not_equal(const Array& a, const Array& b, Site site = Site::current());
Array less(const Array& a, const Array& b, Site site = Site::current());
Array less_equal(const Array& a, const Array& b, Site site = Site::current());
Array greater(const Array& a, const Array& b, Site site = Site::current());
Array greater_equal(const Array& a, const Array& b, Site site = Site::current());
Array logical_and(const Array& a, const Array& b, Site site = Site::current());
Array logical_or(const Array& a, const Array& b, Site site = Site::current());
Array logical_not(const Array& a, Site site = Site::current());
Array negative(const Array& a, Site site = Site::current());
Array abs(const Array& a, Site site = Site::current());
Array sign(const Array& a, Site site = Site::current());
Array square(const Array& a, Site site = Site::current());
Array sqrt(const Array& a, Site site = Site::current());
Array rsqrt(const Array& a, Site site = Site::current());
Array exp(const Array& a, Site site = Site::current());
Array expm1(const Array& a, Site site = Site::current());
Array log(const Array& a, Site site = Site::current());
Array log1p(const Array& a, Site site = Site::current());
Array sin(const Array& a, Site site = Site::current());
Array cos(const Array& a, Site site = Site::current());
Array tanh(const Array& a, Site site = Site::current());
Array floor(const Array& a, Site site = Site::current());
Array ceil(const Array& a, Site site = Site::current());
Array round(const Array& a, Site site = Site::current());
// Picks a where cond is true, else b (cond is converted to bool; all three broadcast).
Array where(const Array& cond, const Array& a, const Array& b, Site site = Site::current());
Array clip(const Array& a, const Array& lo, const Array& hi, Site site = Site::current());
Array astype(const Array& a, Dtype dtype, Site site = Site::current());
// A value the gradient does not flow through (jax.lax.stop_gradient).
Array stop_gradient(const Array& a, Site site = Site::current());

Array operator+(const Array& a, const Array& b);
Array operator-(const Array& a, const Array& b);
Array operator*(const Array& a, const Array& b);
Array operator/(const Array& a, const Array& b);
Array operator-(const Array& a);
Array operator==(const Array& a, const Array& b);
Array operator!=(const Array& a, const Array& b);
Array operator<(const Array& a, const Array& b);
Array operator<=(const Array& a, const Array& b);
Array operator>(const Array& a, const Array& b);
Array operator>=(const Array& a, const Array& b);
Array operator&&(const Array& a, const Array& b);
Array operator||(const Array& a, const Array& b);
Array operator!(const Array& a);

// ---- reductions (keepdims keeps the folded axes with size 1) ----
Array sum(const Array& a, Axes axes = {}, bool keepdims = false, Site site = Site::current());
Array mean(const Array& a, Axes axes = {}, bool keepdims = false, Site site = Site::current());
Array prod(const Array& a, Axes axes = {}, bool keepdims = false, Site site = Site::current());
Array max(const Array& a, Axes axes = {}, bool keepdims = false, Site site = Site::current());
Array min(const Array& a, Axes axes = {}, bool keepdims = false, Site site = Site::current());
// Population variance and standard deviation (ddof 0), as NumPy's defaults.
Array var(const Array& a, Axes axes = {}, bool keepdims = false, Site site = Site::current());
Array std(const Array& a, Axes axes = {}, bool keepdims = false, Site site = Site::current());
Array logsumexp(const Array& a, Axes axes = {}, bool keepdims = false, Site site = Site::current());
// The index (int32) of the first maximum / minimum along `axis` (all axes flattened when
// none is given).
Array argmax(const Array& a, std::optional<int64_t> axis = std::nullopt, bool keepdims = false,
             Site site = Site::current());
Array argmin(const Array& a, std::optional<int64_t> axis = std::nullopt, bool keepdims = false,
             Site site = Site::current());

// ---- shapes ----
// One dimension of `shape` may be -1: whatever makes the sizes agree.
Array reshape(const Array& a, std::vector<int64_t> shape, Site site = Site::current());
// No permutation: the axes reversed.
Array transpose(const Array& a, std::vector<int64_t> axes = {}, Site site = Site::current());
Array broadcast_to(const Array& a, const std::vector<int64_t>& shape, Site site = Site::current());
Array expand_dims(const Array& a, int64_t axis, Site site = Site::current());
// No axes: every size-1 axis.
Array squeeze(const Array& a, std::vector<int64_t> axes = {}, Site site = Site::current());
Array concatenate(const std::vector<Array>& arrays, int64_t axis = 0, Site site = Site::current());
Array stack(const std::vector<Array>& arrays, int64_t axis = 0, Site site = Site::current());
// a[start:stop:step] along each axis (stop clamps; missing trailing axes are whole).
Array slice(const Array& a, const std::vector<int64_t>& start, const std::vector<int64_t>& stop,
            std::vector<int64_t> step = {}, Site site = Site::current());
// Rows `indices` (integer array, any shape) of `a` along `axis`: jnp.take, the
// embedding lookup; out-of-range indices are clamped, as jnp.take does by default.
Array take(const Array& a, const Array& indices, int64_t axis = 0, Site site = Site::current());
// Pads with `value`: widths[i] = {before, after} per axis.
Array pad(const Array& a, const std::vector<std::pair<int64_t, int64_t>>& widths, const Array& value = 0,
          Site site = Site::current());
// 1 at `labels` (integers) along a new last axis of size `classes`.
Array one_hot(const Array& labels, int64_t classes, Dtype dtype = float32, Site site = Site::current());

// Stable sorts along `axis` (floats in IEEE total order: -NaN < -inf < ... < inf < NaN).
Array sort(const Array& a, int64_t axis = -1, Site site = Site::current());
Array argsort(const Array& a, int64_t axis = -1, Site site = Site::current());
// Running sums along `axis` (jnp.cumsum; small integers accumulate as sum does).
Array cumsum(const Array& a, int64_t axis = 0, Site site = Site::current());
// `sections` equal parts along `axis` (which must divide it), as jnp.split(a, n).
std::vector<Array> split(const Array& a, int64_t sections, int64_t axis = 0, Site site = Site::current());
// The parts between `indices` along `axis`, as jnp.split(a, [i, j, ...]).
std::vector<Array> split(const Array& a, const std::vector<int64_t>& indices, int64_t axis = 0,
                         Site site = Site::current());

// ---- files ----
// NumPy's .npy format (written to a temporary name and renamed).
void save(const std::string& path, const Array& a);
Array load(const std::string& path);

// ---- linear algebra ----
// NumPy's matmul: 1-d operands are vectors, leading dimensions broadcast as a batch.
Array matmul(const Array& a, const Array& b, Site site = Site::current());
Array dot(const Array& a, const Array& b, Site site = Site::current());
// Einstein summation of one or two operands ("ij,jk->ik", "bij,bjk->bik", "ij->ji",
// "ij->", "i,i->"): one letter per axis, no repeated letter within one operand; an
// implicit output ("ij,jk") is the letters that appear once, sorted.
Array einsum(const std::string& spec, const std::vector<Array>& operands, Site site = Site::current());

}  // namespace kiln
