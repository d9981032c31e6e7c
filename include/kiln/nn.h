// Neural-network operations (jax.nn and the convolution / pooling of jax.lax), on
// channels-last layouts as Flax uses them: inputs [batch, spatial..., channels],
// kernels [spatial..., in_channels / groups, out_channels].
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "kiln/numpy.h"

namespace kiln::nn {

Array relu(const Array& x, Site site = Site::current());
// The tanh approximation (jax.nn.gelu's default) unless `approximate` is false.
Array gelu(const Array& x, bool approximate = true, Site site = Site::current());
Array sigmoid(const Array& x, Site site = Site::current());
Array softmax(const Array& x, int64_t axis = -1, Site site = Site::current());
Array log_softmax(const Array& x, int64_t axis = -1, Site site = Site::current());
// Normalizes over the last axis: (x - mean) / sqrt(var + eps) * scale + bias.
Array layer_norm(const Array& x, const Array& scale, const Array& bias, double eps = 1e-5,
                 Site site = Site::current());

// Padding of each spatial dimension: "SAME" (output size = ceil(input / stride)),
// "VALID" (no padding), or explicit {low, high} pairs.
struct Padding {
  Padding(const char* mode) : mode(mode) {}
  Padding(std::string mode) : mode(std::move(mode)) {}
  Padding(std::vector<std::pair<int64_t, int64_t>> pairs) : explicitPairs(std::move(pairs)) {}
  std::string mode;
  std::vector<std::pair<int64_t, int64_t>> explicitPairs;
};

struct ConvOptions {
  std::vector<int64_t> strides;   // per spatial dimension; empty: all 1
  Padding padding = "SAME";
  std::vector<int64_t> dilation;  // of the kernel (rhs_dilation); empty: all 1
  int64_t groups = 1;             // feature_group_count
};
// N-d convolution (cross-correlation, as lax.conv_general_dilated) of x
// [batch, spatial..., in] with w [spatial..., in / groups, out].
Array conv(const Array& x, const Array& w, const ConvOptions& options = {}, Site site = Site::current());

struct PoolOptions {
  std::vector<int64_t> window;   // per spatial dimension
  std::vector<int64_t> strides;  // empty: the window
  Padding padding = "VALID";
};
// Over the spatial dimensions of x [batch, spatial..., channels].
Array max_pool(const Array& x, const PoolOptions& options, Site site = Site::current());
// The mean over each window's elements (padding counts, as flax's avg_pool by default).
Array avg_pool(const Array& x, const PoolOptions& options, Site site = Site::current());

}  // namespace kiln::nn
