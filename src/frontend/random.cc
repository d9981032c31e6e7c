// jax.random's threefry2x32 PRNG, op for op as JAX lowers it, so that the same key gives
// the same bits: the Threefry-2x32 hash (20 rounds, Random123's rotations), the two ways
// JAX feeds it counters (the partitionable default, and the original mode), and the
// float constructions of uniform and normal.
#include "kiln/random.h"

#include <cmath>
#include <cstdlib>
#include <limits>

#include "frontend/dispatch.h"
#include "ir/ops/chlo.h"
#include "ir/ops/stablehlo.h"

namespace kiln::random {

using namespace kiln::detail;

namespace {

int partitionableSetting = -1;  // -1: not set (the environment decides)

Value* u32(Builder& b, const Shape& shape, uint64_t v) { return b.splat(Type::tensor(DType::U32, shape), static_cast<double>(v)); }

// Threefry-2x32 of counters (x0, x1) under `key` (uint32[2]).
std::pair<Value*, Value*> threefry2x32(Builder& b, Value* key, Value* x0, Value* x1) {
  Shape shape = x0->type().shape();
  auto word = [&](int64_t i) {
    return b.broadcastInDim(b.reshape(b.slice(key, {i}, {i + 1}, {1}), {}), shape, {});
  };
  auto add = [&](Value* a, Value* c) { return b.binary(ops::Add, a, c); };
  Value* k0 = word(0);
  Value* k1 = word(1);
  Value* ks[3] = {k0, k1, b.binary(ops::Xor, b.binary(ops::Xor, k0, k1), u32(b, shape, 0x1BD11BDA))};
  const int rotations[2][4] = {{13, 15, 26, 6}, {17, 29, 16, 24}};
  auto rotl = [&](Value* v, int r) {
    return b.binary(ops::Or, b.binary(ops::ShiftLeft, v, u32(b, shape, static_cast<uint64_t>(r))),
                    b.binary(ops::ShiftRightLogical, v, u32(b, shape, static_cast<uint64_t>(32 - r))));
  };
  x0 = add(x0, ks[0]);
  x1 = add(x1, ks[1]);
  for (int i = 0; i < 5; ++i) {
    for (int r : rotations[i % 2]) {
      x0 = add(x0, x1);
      x1 = b.binary(ops::Xor, rotl(x1, r), x0);
    }
    x0 = add(x0, ks[(i + 1) % 3]);
    x1 = add(add(x1, ks[(i + 2) % 3]), u32(b, shape, static_cast<uint64_t>(i + 1)));
  }
  return {x0, x1};
}

// The original mode's threefry_2x32(key, count): the counts (uint32[m]) split in halves
// (padded with a 0 when m is odd), hashed as pairs, and joined again.
Value* hashCounts(Builder& b, Value* key, Value* counts) {
  int64_t m = counts->type().dim(0);
  if (m % 2) counts = b.concatenate({counts, u32(b, {1}, 0)}, 0);
  int64_t half = (m + 1) / 2;
  Value* x0 = b.slice(counts, {0}, {half}, {1});
  Value* x1 = b.slice(counts, {half}, {2 * half}, {1});
  auto [y0, y1] = threefry2x32(b, key, x0, x1);
  Value* out = b.concatenate({y0, y1}, 0);
  return m % 2 ? b.slice(out, {0}, {m}, {1}) : out;
}

Value* iotaU32(Builder& b, int64_t n) { return b.iota(Type::tensor(DType::U32, {n}), 0); }

// `n` 32-bit (or 64-bit) random words, flat.
Value* randomBits(Builder& b, Value* key, int64_t n, int bits) {
  bool partitionable = threefry_partitionable();
  if (partitionable) {
    auto [y0, y1] = threefry2x32(b, key, u32(b, {n}, 0), iotaU32(b, n));
    if (bits == 32) return b.binary(ops::Xor, y0, y1);
    Value* hi = b.convert(y0, DType::U64);
    Value* lo = b.convert(y1, DType::U64);
    return b.binary(ops::Or, b.binary(ops::ShiftLeft, hi, b.splat(hi->type(), 32)), lo);
  }
  if (bits == 32) return hashCounts(b, key, iotaU32(b, n));
  Value* words = hashCounts(b, key, iotaU32(b, 2 * n));
  Value* hi = b.convert(b.slice(words, {0}, {n}, {1}), DType::U64);
  Value* lo = b.convert(b.slice(words, {n}, {2 * n}, {1}), DType::U64);
  return b.binary(ops::Or, b.binary(ops::ShiftLeft, hi, b.splat(hi->type(), 32)), lo);
}

// `num` keys from `key`, as rows of a uint32[num, 2].
Value* splitKeys(Builder& b, Value* key, int64_t num) {
  if (threefry_partitionable()) {
    auto [y0, y1] = threefry2x32(b, key, u32(b, {num}, 0), iotaU32(b, num));
    return b.concatenate({b.reshape(y0, {num, 1}), b.reshape(y1, {num, 1})}, 1);
  }
  return b.reshape(hashCounts(b, key, iotaU32(b, 2 * num)), {num, 2});
}

void checkKey(const Array& key, const char* op) {
  const Type& t = implOf(key).type;
  if (t.dtype() != DType::U32 || t.shape() != Shape{2})
    throw Error(ErrorKind::Type, std::string(op) + ": the key is " + t.str() +
                                     "; a key is a uint32[2] from kiln::random::key or split");
}

DType floatDtype(Dtype dtype, const char* op) {
  DType t = toDType(dtype);
  if (t != DType::F32 && t != DType::F64)
    throw Error(ErrorKind::Unsupported, std::string("unsupported: ") + op + " of " + dtype_name(dtype) +
                                            " (float32 and float64 are; convert with astype)");
  return t;
}

// Uniform floats in [minval, maxval) of `shape`, as jax.random.uniform builds them: the
// top mantissa bits of random words under the exponent of 1.0, minus 1.
Value* uniformValues(Builder& b, Value* key, const Shape& shape, DType t, double minval, double maxval) {
  int64_t n = numElements(shape);
  int bits = t == DType::F64 ? 64 : 32;
  int mantissa = t == DType::F64 ? 52 : 23;
  DType word = t == DType::F64 ? DType::U64 : DType::U32;
  Value* r = randomBits(b, key, n, bits);
  Type wordType = Type::tensor(word, {n});
  Value* one = b.splat(wordType, t == DType::F64 ? 4607182418800017408.0 /* 0x3FF0000000000000 */ : 1065353216.0 /* 0x3F800000 */);
  Value* fraction = b.binary(ops::Or, b.binary(ops::ShiftRightLogical, r, b.splat(wordType, bits - mantissa)), one);
  Type floatType = Type::tensor(t, {n});
  Value* floats = b.binary(ops::Subtract, b.bitcastConvert(fraction, t), b.splat(floatType, 1));
  Value* lo = b.splat(floatType, minval);
  Value* scale = b.binary(ops::Subtract, b.splat(floatType, maxval), lo);
  Value* out = b.binary(ops::Maximum, lo, b.binary(ops::Add, b.binary(ops::Multiply, floats, scale), lo));
  return b.reshape(out, shape);
}

}  // namespace

void set_threefry_partitionable(bool on) { partitionableSetting = on ? 1 : 0; }

bool threefry_partitionable() {
  if (partitionableSetting >= 0) return partitionableSetting == 1;
  const char* env = std::getenv("KILN_THREEFRY_PARTITIONABLE");
  return !(env && std::string(env) == "0");
}

Array key(uint64_t seed, Site site) {
  Literal words(Type::tensor(DType::U32, {2}));
  words.setInt(0, static_cast<int64_t>(seed >> 32));
  words.setInt(1, static_cast<int64_t>(seed & 0xffffffffu));
  return constantArray(std::move(words), site);
}

std::vector<Array> split(const Array& key, int64_t num, Site site) {
  return translated([&] {
    checkKey(key, "split");
    if (num < 1) throw Error(ErrorKind::Usage, "split: num " + std::to_string(num) + " (must be at least 1)");
    return emit({key}, site, [&](Builder& b, const std::vector<Value*>& v) {
      Value* keys = splitKeys(b, v[0], num);
      std::vector<Value*> rows;
      for (int64_t i = 0; i < num; ++i) rows.push_back(b.reshape(b.slice(keys, {i, 0}, {i + 1, 2}, {1, 1}), {2}));
      return rows;
    });
  });
}

Array fold_in(const Array& key, uint32_t data, Site site) {
  return translated([&] {
    checkKey(key, "fold_in");
    return emit1({key}, site, [&](Builder& b, const std::vector<Value*>& v) {
      auto [y0, y1] = threefry2x32(b, v[0], u32(b, {1}, 0), u32(b, {1}, data));
      return std::vector<Value*>{b.concatenate({y0, y1}, 0)};
    });
  });
}

Array bits(const Array& key, const std::vector<int64_t>& shape, Site site) {
  return translated([&] {
    checkKey(key, "bits");
    return emit1({key}, site, [&](Builder& b, const std::vector<Value*>& v) {
      return std::vector<Value*>{b.reshape(randomBits(b, v[0], numElements(shape), 32), shape)};
    });
  });
}

Array uniform(const Array& key, const std::vector<int64_t>& shape, Dtype dtype, double minval, double maxval, Site site) {
  return translated([&] {
    checkKey(key, "uniform");
    DType t = floatDtype(dtype, "uniform");
    return emit1({key}, site, [&](Builder& b, const std::vector<Value*>& v) {
      return std::vector<Value*>{uniformValues(b, v[0], shape, t, minval, maxval)};
    });
  });
}

Array normal(const Array& key, const std::vector<int64_t>& shape, Dtype dtype, Site site) {
  return translated([&] {
    checkKey(key, "normal");
    DType t = floatDtype(dtype, "normal");
    // JAX: sqrt(2) * erf_inv(u), u uniform in (-1, 1) (just above -1).
    double lo = t == DType::F64 ? std::nextafter(-1.0, 1.0) : static_cast<double>(std::nextafter(-1.0f, 1.0f));
    return emit1({key}, site, [&](Builder& b, const std::vector<Value*>& v) {
      Value* u = uniformValues(b, v[0], shape, t, lo, 1);
      Value* e = b.create1(ops::ChloErfInv, {u});
      return std::vector<Value*>{b.binary(ops::Multiply, b.splat(e->type(), std::sqrt(2.0)), e)};
    });
  });
}

Array bernoulli(const Array& key, const Array& p, const std::vector<int64_t>& shape, Site site) {
  return composite1({key, p}, "bernoulli", [&](const std::vector<Array>& in) {
    std::vector<int64_t> s = shape.empty() ? in[1].shape() : shape;
    return less(uniform(in[0], s, float32, 0, 1, site), in[1], site);
  });
}

Array categorical(const Array& key, const Array& logits, int64_t axis, Site site) {
  return composite1({key, logits}, "categorical", [&](const std::vector<Array>& in) {
    Dtype dtype = in[1].dtype() == float64 ? float64 : float32;
    double tiny = dtype == float64 ? std::numeric_limits<double>::min() : std::numeric_limits<float>::min();
    Array u = uniform(in[0], in[1].shape(), dtype, tiny, 1, site);
    Array gumbel = negative(log(negative(log(u, site), site), site), site);
    return argmax(add(gumbel, in[1], site), axis, false, site);
  });
}

Array permutation(const Array& key, int64_t n, Site site) {
  return translated([&] {
    checkKey(key, "permutation");
    if (n < 0) throw Error(ErrorKind::Usage, "permutation: n " + std::to_string(n));
    // JAX sorts by fresh random words for ceil(3 ln(n) / ln(2^32 - 1)) rounds.
    int rounds = static_cast<int>(std::ceil(3 * std::log(std::max<double>(1, static_cast<double>(n))) /
                                            std::log(static_cast<double>(std::numeric_limits<uint32_t>::max()))));
    return emit1({key}, site, [&](Builder& b, const std::vector<Value*>& v) {
      Value* k = v[0];
      Value* x = b.iota(Type::tensor(DType::I32, {n}), 0);
      for (int r = 0; r < rounds; ++r) {
        Value* keys = splitKeys(b, k, 2);
        k = b.reshape(b.slice(keys, {0, 0}, {1, 2}, {1, 1}), {2});
        Value* subkey = b.reshape(b.slice(keys, {1, 0}, {2, 2}, {1, 1}), {2});
        Value* sortKeys = randomBits(b, subkey, n, 32);
        x = b.sort({sortKeys, x}, 0, true, [](Builder& sb, const std::vector<Value*>& a) {
          return std::vector<Value*>{sb.compare(a[0], a[1], ComparisonDirection::LT)};
        })[1];
      }
      return std::vector<Value*>{x};
    });
  });
}

}  // namespace kiln::random
