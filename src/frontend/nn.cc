// jax.nn's activations and normalizations (from numpy ops, as JAX writes them), and
// convolution and pooling as one convolution / reduce_window op on channels-last
// layouts.
#include <cmath>
#include <numbers>

#include "frontend/broadcasting.h"
#include "frontend/dispatch.h"
#include "frontend/promotion.h"
#include "ir/op_registry.h"
#include "ir/ops/chlo.h"
#include "ir/ops/stablehlo.h"
#include "kiln/nn.h"

namespace kiln::nn {

using namespace kiln::detail;

Array relu(const Array& x, Site site) {
  return composite1({x}, "relu", [&](const std::vector<Array>& in) { return maximum(in[0], 0, site); });
}

Array sigmoid(const Array& x, Site site) {
  return translated([&] {
    DType t = implOf(x).type.dtype();
    if (!isFloat(t)) throw Error(ErrorKind::Type, "sigmoid of " + x.type_string() + ": needs floats");
    return emit1({x}, site, [&](Builder& b, const std::vector<Value*>& v) {
      return std::vector<Value*>{b.unary(ops::Logistic, v[0])};
    });
  });
}

Array gelu(const Array& x, bool approximate, Site site) {
  return composite1({x}, "gelu", [&](const std::vector<Array>& in) {
    const Array& v = in[0];
    if (approximate) {
      double c = std::sqrt(2.0 / std::numbers::pi);
      Array inner = multiply(add(v, multiply(multiply(multiply(v, v, site), v, site), 0.044715, site), site), c, site);
      return multiply(multiply(v, 0.5, site), add(tanh(inner, site), 1.0, site), site);
    }
    Array scaled = multiply(v, 1.0 / std::numbers::sqrt2, site);
    Array erf = emit1({scaled}, site, [&](Builder& b, const std::vector<Value*>& s) {
      return std::vector<Value*>{b.create1(ops::ChloErf, {s[0]})};
    });
    return multiply(multiply(v, 0.5, site), add(erf, 1.0, site), site);
  });
}

Array softmax(const Array& x, int64_t axis, Site site) {
  return composite1({x}, "softmax", [&](const std::vector<Array>& in) {
    Array shifted = subtract(in[0], stop_gradient(max(in[0], axis, true, site), site), site);
    Array e = exp(shifted, site);
    return divide(e, sum(e, axis, true, site), site);
  });
}

Array log_softmax(const Array& x, int64_t axis, Site site) {
  return composite1({x}, "log_softmax", [&](const std::vector<Array>& in) {
    Array shifted = subtract(in[0], stop_gradient(max(in[0], axis, true, site), site), site);
    return subtract(shifted, log(sum(exp(shifted, site), axis, true, site), site), site);
  });
}

Array layer_norm(const Array& x, const Array& scale, const Array& bias, double eps, Site site) {
  return composite1({x, scale, bias}, "layer_norm", [&](const std::vector<Array>& in) {
    Array m = mean(in[0], -1, true, site);
    Array centered = subtract(in[0], m, site);
    Array v = mean(multiply(centered, centered, site), -1, true, site);
    return add(multiply(multiply(centered, rsqrt(add(v, eps, site), site), site), in[1], site), in[2], site);
  });
}

namespace {

// Per spatial dimension: (low, high) padding for sizes `in`, windows `window` (already
// dilated), strides.
std::vector<std::pair<int64_t, int64_t>> paddingOf(const Padding& padding, const Shape& in, const Dims& window,
                                                   const Dims& strides, const char* op) {
  size_t n = in.size();
  if (!padding.explicitPairs.empty() || padding.mode.empty()) {
    if (padding.explicitPairs.size() != n)
      throw Error(ErrorKind::Shape, std::string(op) + ": " + std::to_string(padding.explicitPairs.size()) +
                                        " padding pairs for " + std::to_string(n) + " spatial dimensions");
    return padding.explicitPairs;
  }
  std::vector<std::pair<int64_t, int64_t>> pairs(n, {0, 0});
  if (padding.mode == "VALID") return pairs;
  if (padding.mode != "SAME")
    throw Error(ErrorKind::Usage, std::string(op) + ": padding '" + padding.mode + "' (use SAME, VALID or pairs)");
  for (size_t i = 0; i < n; ++i) {
    int64_t out = (in[i] + strides[i] - 1) / strides[i];
    int64_t total = std::max<int64_t>((out - 1) * strides[i] + window[i] - in[i], 0);
    pairs[i] = {total / 2, total - total / 2};
  }
  return pairs;
}

Dims orOnes(const std::vector<int64_t>& given, size_t n, const char* what, const char* op) {
  if (given.empty()) return Dims(n, 1);
  if (given.size() != n)
    throw Error(ErrorKind::Shape, std::string(op) + ": " + std::to_string(given.size()) + " " + what + " for " +
                                      std::to_string(n) + " spatial dimensions");
  return given;
}

}  // namespace

Array conv(const Array& x, const Array& w, const ConvOptions& options, Site site) {
  return translated([&] {
    int64_t rank = x.ndim();
    if (rank < 3 || w.ndim() != rank)
      throw Error(ErrorKind::Shape, "conv: input " + x.type_string() + " and kernel " + w.type_string() +
                                        " (expected [batch, spatial..., in] and [spatial..., in/groups, out])");
    size_t s = static_cast<size_t>(rank - 2);
    Window window;
    window.strides = orOnes(options.strides, s, "strides", "conv");
    window.windowDilations = orOnes(options.dilation, s, "dilations", "conv");
    window.baseDilations = Dims(s, 1);
    Shape in(x.shape().begin() + 1, x.shape().end() - 1);
    Dims dilated;
    for (size_t i = 0; i < s; ++i) dilated.push_back((w.shape()[i] - 1) * window.windowDilations[i] + 1);
    window.padding = paddingOf(options.padding, in, dilated, window.strides, "conv");
    window.reversal = std::vector<bool>(s, false);
    ConvDims dims;
    dims.inputBatch = dims.outputBatch = 0;
    dims.inputFeature = dims.outputFeature = rank - 1;
    for (int64_t i = 0; i < static_cast<int64_t>(s); ++i) {
      dims.inputSpatial.push_back(i + 1);
      dims.outputSpatial.push_back(i + 1);
      dims.kernelSpatial.push_back(i);
    }
    dims.kernelInputFeature = rank - 2;
    dims.kernelOutputFeature = rank - 1;
    DType t = promote({implOf(x).type.dtype(), false}, {implOf(w).type.dtype(), false}).dtype;
    return emit1({x, w}, site, [&](Builder& b, const std::vector<Value*>& v) {
      return std::vector<Value*>{b.convolution(convertValue(b, v[0], t), convertValue(b, v[1], t), dims, window,
                                               options.groups)};
    });
  });
}

namespace {

Array pool(OpCode code, const Array& x, const PoolOptions& options, const Site& site, const char* op) {
  int64_t rank = x.ndim();
  if (rank < 3) throw Error(ErrorKind::Shape, std::string(op) + ": input " + x.type_string() + " (expected [batch, spatial..., channels])");
  size_t s = static_cast<size_t>(rank - 2);
  if (options.window.size() != s)
    throw Error(ErrorKind::Shape, std::string(op) + ": a window of " + std::to_string(options.window.size()) +
                                      " dimensions for " + std::to_string(s) + " spatial dimensions");
  Dims strides = options.strides.empty() ? Dims(options.window) : orOnes(options.strides, s, "strides", op);
  Shape in(x.shape().begin() + 1, x.shape().end() - 1);
  std::vector<std::pair<int64_t, int64_t>> pads = paddingOf(options.padding, in, options.window, strides, op);
  Window window;
  window.dimensions = {1};
  window.strides = {1};
  window.padding = {{0, 0}};
  for (size_t i = 0; i < s; ++i) {
    window.dimensions.push_back(options.window[i]);
    window.strides.push_back(strides[i]);
    window.padding.push_back(pads[i]);
  }
  window.dimensions.push_back(1);
  window.strides.push_back(1);
  window.padding.push_back({0, 0});
  return emit1({x}, site, [&](Builder& b, const std::vector<Value*>& v) {
    DType t = v[0]->type().dtype();
    Value* init = b.constant(*reducerIdentity(code, t));
    return b.reduceWindow({v[0]}, {init}, window, [&](Builder& rb, const std::vector<Value*>& args) {
      return std::vector<Value*>{rb.binary(code, args[0], args[1])};
    });
  });
}

}  // namespace

Array max_pool(const Array& x, const PoolOptions& options, Site site) {
  return translated([&] { return pool(ops::Maximum, x, options, site, "max_pool"); });
}

Array avg_pool(const Array& x, const PoolOptions& options, Site site) {
  return composite1({x}, "avg_pool", [&](const std::vector<Array>& in) {
    int64_t size = 1;
    for (int64_t d : options.window) size *= d;
    return divide(pool(ops::Add, in[0], options, site, "avg_pool"), static_cast<double>(size), site);
  });
}

}  // namespace kiln::nn
