// Counter-based random numbers, bit-identical to jax.random with the threefry2x32 PRNG:
// a key is a uint32[2] array (jax.random.PRNGKey's legacy form); functions of a key are
// pure, so the same key always gives the same numbers, in and out of jit.
//
// Two streams, as in JAX: the default is JAX's since 0.5
// (jax_threefry_partitionable=True); set_threefry_partitionable(false), or
// KILN_THREEFRY_PARTITIONABLE=0, gives the older one. The mode is read when an op is
// traced: choose it before tracing.
#pragma once

#include <cstdint>
#include <vector>

#include "kiln/numpy.h"

namespace kiln::random {

void set_threefry_partitionable(bool on);
bool threefry_partitionable();

// jax.random.PRNGKey(seed): [seed >> 32, seed & 0xffffffff] as uint32.
Array key(uint64_t seed, Site site = Site::current());
// `num` new keys (jax.random.split).
std::vector<Array> split(const Array& key, int64_t num = 2, Site site = Site::current());
Array fold_in(const Array& key, uint32_t data, Site site = Site::current());
// Raw uint32 bits (jax.random.bits).
Array bits(const Array& key, const std::vector<int64_t>& shape = {}, Site site = Site::current());
// In [minval, maxval); float32 or float64.
Array uniform(const Array& key, const std::vector<int64_t>& shape = {}, Dtype dtype = float32, double minval = 0,
              double maxval = 1, Site site = Site::current());
// Standard normal (float32 or float64).
Array normal(const Array& key, const std::vector<int64_t>& shape = {}, Dtype dtype = float32,
             Site site = Site::current());
// True with probability p (broadcast to `shape`).
Array bernoulli(const Array& key, const Array& p, const std::vector<int64_t>& shape = {}, Site site = Site::current());
// Indices drawn with probabilities softmax(logits) along `axis` (int32).
Array categorical(const Array& key, const Array& logits, int64_t axis = -1, Site site = Site::current());
// A random permutation of 0..n-1 (int32).
Array permutation(const Array& key, int64_t n, Site site = Site::current());

}  // namespace kiln::random
