// The numpy-like ops through the public API: values, NumPy broadcasting, JAX's type
// promotion, axes and keepdims, and the errors for operands that do not fit. CTest runs
// this binary once per plugin (KILN_BACKEND=cpu and interp).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>

#include <kiln/kiln.h>

#include "frontend_test_util.h"

namespace {

using kiln::Array;
using kiln_test::f32;
using kiln_test::values;
using ::testing::ElementsAre;
using ::testing::ElementsAreArray;
using ::testing::HasSubstr;

Array i32(std::vector<int32_t> v, std::vector<int64_t> shape) { return Array::from_vector(v, shape); }

TEST(ArrayTest, HostRoundTripAndDescription) {
  Array a = f32({1, 2, 3, 4, 5, 6}, {2, 3});
  EXPECT_EQ(a.dtype(), kiln::float32);
  EXPECT_THAT(a.shape(), ElementsAre(2, 3));
  EXPECT_EQ(a.size(), 6);
  EXPECT_EQ(a.type_string(), "f32[2,3]");
  EXPECT_THAT(values(a), ElementsAre(1, 2, 3, 4, 5, 6));
  EXPECT_EQ(a.str(), "[[1. 2. 3.]\n [4. 5. 6.]]");
  EXPECT_FALSE(a.is_tracer());
  EXPECT_THROW(f32({1, 2, 3}, {2, 2}), kiln::ApiError);
  Array empty;
  EXPECT_THROW(empty.shape(), kiln::ApiError);
}

TEST(ArrayTest, SpansInAndOut) {
  const int32_t data[6] = {1, 2, 3, 4, 5, 6};
  Array a = Array::from_span(std::span<const int32_t>(data), {3, 2});
  EXPECT_EQ(a.dtype(), kiln::int32);
  EXPECT_THAT(a.shape(), ElementsAre(3, 2));
  float out[6] = {};
  (a * 2).copy_to(std::span<float>(out));
  EXPECT_THAT(out, ElementsAre(2, 4, 6, 8, 10, 12));
  float small[2];
  EXPECT_THROW(a.copy_to(std::span<float>(small)), kiln::ApiError);
}

TEST(ArrayTest, CreationFunctions) {
  EXPECT_THAT(values(kiln::zeros({2, 2})), ElementsAre(0, 0, 0, 0));
  EXPECT_THAT(values(kiln::full({3}, 2.5)), ElementsAre(2.5, 2.5, 2.5));
  EXPECT_EQ(kiln::arange(5).dtype(), kiln::int32);
  EXPECT_THAT(kiln::arange(5).to_vector<int>(), ElementsAre(0, 1, 2, 3, 4));
  EXPECT_THAT(values(kiln::arange(1.0, 2.0, 0.25)), ElementsAre(1, 1.25, 1.5, 1.75));
  EXPECT_THAT(values(kiln::linspace(0, 1, 5)), ElementsAre(0, 0.25, 0.5, 0.75, 1));
  EXPECT_THAT(values(kiln::eye(2)), ElementsAre(1, 0, 0, 1));
  EXPECT_THAT(kiln::array({1, 2, 3, 4}, {2, 2}).shape(), ElementsAre(2, 2));
}

TEST(ElementwiseTest, BroadcastsLikeNumPy) {
  Array a = f32({1, 2, 3, 4, 5, 6}, {2, 3});
  Array row = f32({10, 20, 30}, {3});
  Array col = f32({100, 200}, {2, 1});
  EXPECT_THAT(values(a + row), ElementsAre(11, 22, 33, 14, 25, 36));
  EXPECT_THAT(values(a * col), ElementsAre(100, 200, 300, 800, 1000, 1200));
  EXPECT_THAT((row + col).shape(), ElementsAre(2, 3));
  EXPECT_THAT(values(a - 1), ElementsAre(0, 1, 2, 3, 4, 5));
  EXPECT_THAT(values(2.0 / f32({1, 4}, {2})), ElementsAre(2, 0.5));
  try {
    (void)(a + f32({1, 2}, {2}));
    FAIL() << "expected a shape error";
  } catch (const kiln::ApiError& e) {
    EXPECT_EQ(e.kind(), "shape");
    EXPECT_THAT(e.what(), HasSubstr("(2, 3) and (2,) do not broadcast"));
  }
}

TEST(ElementwiseTest, PromotesTypesLikeJax) {
  Array i8 = Array::from_vector(std::vector<int8_t>{1, 2}, {2});
  Array u8 = Array::from_vector(std::vector<uint8_t>{1, 2}, {2});
  Array i64 = Array::from_vector(std::vector<int64_t>{1, 2}, {2});
  Array x = f32({1, 2}, {2});
  EXPECT_EQ((i8 + 1).dtype(), kiln::int8);            // a weak int keeps the array's int8
  EXPECT_EQ((i8 + 1.5).dtype(), kiln::float32);       // a weak float makes the default float
  EXPECT_EQ((u8 + i8).dtype(), kiln::int16);          // the smallest type holding both
  EXPECT_EQ((i64 + x).dtype(), kiln::float32);        // ints join floats at the float
  EXPECT_EQ((x + Array::from_vector(std::vector<double>{1, 2}, {2})).dtype(), kiln::float64);
  EXPECT_EQ((i8 / i8).dtype(), kiln::float32);        // true division
  EXPECT_EQ(kiln::exp(i8).dtype(), kiln::float32);
  EXPECT_EQ((x == 1).dtype(), kiln::bool_);
  Array weak = Array(2) * 3;                          // weak scalars stay weak
  EXPECT_TRUE(weak.weak());
  EXPECT_EQ(weak.item<int>(), 6);
}

TEST(ElementwiseTest, MathWhereAndClip) {
  Array x = f32({-1, 0, 2}, {3});
  EXPECT_THAT(values(kiln::abs(x)), ElementsAre(1, 0, 2));
  EXPECT_THAT(values(kiln::maximum(x, 0)), ElementsAre(0, 0, 2));
  EXPECT_THAT(values(kiln::where(x > 0, x, -x)), ElementsAre(1, 0, 2));
  EXPECT_THAT(values(kiln::clip(x, -0.5, 1)), ElementsAre(-0.5, 0, 1));
  std::vector<float> e = values(kiln::exp(x));
  EXPECT_NEAR(e[0], std::exp(-1.0), 1e-6);
  EXPECT_NEAR(e[2], std::exp(2.0), 1e-5);
  EXPECT_THAT(kiln::astype(f32({1.7f, -1.7f}, {2}), kiln::int32).to_vector<int>(), ElementsAre(1, -1));
  EXPECT_THAT(values(kiln::round(f32({0.5, 1.5, 2.5}, {3}))), ElementsAre(0, 2, 2));  // half to even
}

TEST(ReductionTest, AxesAndKeepdims) {
  Array a = f32({1, 2, 3, 4, 5, 6}, {2, 3});
  EXPECT_EQ(kiln::sum(a).item<float>(), 21);
  EXPECT_THAT(values(kiln::sum(a, 0)), ElementsAre(5, 7, 9));
  EXPECT_THAT(values(kiln::sum(a, -1)), ElementsAre(6, 15));
  EXPECT_THAT(kiln::sum(a, 1, true).shape(), ElementsAre(2, 1));
  EXPECT_THAT(values(kiln::mean(a, 0)), ElementsAre(2.5, 3.5, 4.5));
  EXPECT_THAT(values(kiln::max(a, 1)), ElementsAre(3, 6));
  EXPECT_THAT(values(kiln::min(a, {0, 1})), ElementsAre(1));
  EXPECT_THAT(values(kiln::prod(a, 1)), ElementsAre(6, 120));
  EXPECT_NEAR(kiln::var(a).item<float>(), 35.0 / 12, 1e-6);
  EXPECT_NEAR(kiln::logsumexp(a).item<float>(), std::log(std::exp(1) + std::exp(2) + std::exp(3) + std::exp(4) +
                                                          std::exp(5) + std::exp(6)), 1e-5);
  Array t = f32({1, 5, 5, 0, 2, 9}, {2, 3});
  EXPECT_THAT(kiln::argmax(t, 1).to_vector<int>(), ElementsAre(1, 2));  // the first of ties
  EXPECT_THAT(kiln::argmin(t, 0).to_vector<int>(), ElementsAre(1, 1, 0));
  EXPECT_EQ(kiln::argmax(t).item<int>(), 5);
  EXPECT_EQ(kiln::sum(Array::from_vector(std::vector<int8_t>{100, 100}, {2})).dtype(), kiln::int32);
  EXPECT_THROW(kiln::sum(a, 2), kiln::ApiError);
}

TEST(ShapeTest, ReshapeTransposeConcatenate) {
  Array a = kiln::arange(6);
  EXPECT_THAT(kiln::reshape(a, {2, -1}).shape(), ElementsAre(2, 3));
  EXPECT_THROW(kiln::reshape(a, {4, -1}), kiln::ApiError);
  Array m = kiln::reshape(a, {2, 3});
  EXPECT_THAT(kiln::transpose(m).to_vector<int>(), ElementsAre(0, 3, 1, 4, 2, 5));
  EXPECT_THAT(kiln::concatenate({m, m}, 1).shape(), ElementsAre(2, 6));
  EXPECT_THAT(kiln::stack({a, a}, 1).shape(), ElementsAre(6, 2));
  EXPECT_THAT(kiln::expand_dims(a, -1).shape(), ElementsAre(6, 1));
  EXPECT_THAT(kiln::squeeze(kiln::reshape(a, {1, 6, 1})).shape(), ElementsAre(6));
  EXPECT_THAT(kiln::slice(m, {0, 1}, {2, 3}).to_vector<int>(), ElementsAre(1, 2, 4, 5));
  EXPECT_THAT(kiln::slice(a, {-4}, {100}, {2}).to_vector<int>(), ElementsAre(2, 4));
  EXPECT_THAT(kiln::broadcast_to(kiln::arange(2), {2, 2}).to_vector<int>(), ElementsAre(0, 1, 0, 1));
}

TEST(ShapeTest, TakePadOneHot) {
  Array table = f32({0, 1, 10, 11, 20, 21}, {3, 2});
  Array rows = kiln::take(table, i32({2, 0, -1}, {3}));
  EXPECT_THAT(rows.shape(), ElementsAre(3, 2));
  EXPECT_THAT(values(rows), ElementsAre(20, 21, 0, 1, 20, 21));
  EXPECT_THAT(values(kiln::take(table, i32({1}, {1}), 1)), ElementsAre(1, 11, 21));
  EXPECT_THAT(values(kiln::pad(f32({1, 2}, {2}), {{1, 2}}, 9)), ElementsAre(9, 1, 2, 9, 9));
  EXPECT_THAT(values(kiln::one_hot(i32({2, 0}, {2}), 3)), ElementsAre(0, 0, 1, 1, 0, 0));
}

TEST(ShapeTest, SortCumsumSplit) {
  Array a = f32({3, 1, 2, 1, -5, 0}, {2, 3});
  EXPECT_THAT(values(kiln::sort(a)), ElementsAre(1, 2, 3, -5, 0, 1));
  EXPECT_THAT(kiln::argsort(a).to_vector<int>(), ElementsAre(1, 2, 0, 1, 2, 0));
  EXPECT_THAT(kiln::argsort(f32({2, 1, 2, 1}, {4})).to_vector<int>(), ElementsAre(1, 3, 0, 2));  // stable
  EXPECT_THAT(values(kiln::sort(a, 0)), ElementsAre(1, -5, 0, 3, 1, 2));
  EXPECT_THAT(values(kiln::cumsum(a, 1)), ElementsAre(3, 4, 6, 1, -4, -4));
  EXPECT_THAT(kiln::cumsum(kiln::arange(4)).to_vector<int>(), ElementsAre(0, 1, 3, 6));
  std::vector<Array> halves = kiln::split(kiln::arange(6), 2);
  ASSERT_EQ(halves.size(), 2u);
  EXPECT_THAT(halves[1].to_vector<int>(), ElementsAre(3, 4, 5));
  std::vector<Array> parts = kiln::split(a, std::vector<int64_t>{1}, 1);
  EXPECT_THAT(parts[0].shape(), ElementsAre(2, 1));
  EXPECT_THAT(parts[1].shape(), ElementsAre(2, 2));
  EXPECT_THROW(kiln::split(kiln::arange(5), 2), kiln::ApiError);
}

TEST(ArrayTest, NpyRoundTrip) {
  std::string path = ::testing::TempDir() + "/kiln_frontend_test.npy";
  Array a = f32({1, 2, 3, 4, 5, 6}, {3, 2});
  kiln::save(path, a);
  Array b = kiln::load(path);
  EXPECT_EQ(b.type_string(), "f32[3,2]");
  EXPECT_THAT(values(b), ElementsAre(1, 2, 3, 4, 5, 6));
  EXPECT_THROW(kiln::load(path + ".missing"), kiln::ApiError);
}

TEST(LinalgTest, Einsum) {
  Array a = f32({1, 2, 3, 4, 5, 6}, {2, 3});
  Array b = f32({1, 0, 0, 1, 1, 1}, {3, 2});
  EXPECT_THAT(values(kiln::einsum("ij,jk->ik", {a, b})), ElementsAre(4, 5, 10, 11));
  EXPECT_THAT(values(kiln::einsum("ij,jk", {a, b})), ElementsAre(4, 5, 10, 11));  // implicit output
  EXPECT_THAT(values(kiln::einsum("ij,jk->ki", {a, b})), ElementsAre(4, 10, 5, 11));
  EXPECT_THAT(values(kiln::einsum("ij->ji", {a})), ElementsAre(1, 4, 2, 5, 3, 6));
  EXPECT_THAT(values(kiln::einsum("ij->", {a})), ElementsAre(21));
  EXPECT_THAT(values(kiln::einsum("ij->j", {a})), ElementsAre(5, 7, 9));
  EXPECT_THAT(values(kiln::einsum("i,i->", {f32({1, 2}, {2}), f32({3, 4}, {2})})), ElementsAre(11));
  Array batch = kiln::reshape(kiln::astype(kiln::arange(12), kiln::float32), {2, 2, 3});
  EXPECT_THAT(kiln::einsum("bij,jk->bik", {batch, b}).shape(), ElementsAre(2, 2, 2));
  EXPECT_THAT(values(kiln::einsum("bij,bij->b", {batch, batch})), ElementsAre(55, 451));
  EXPECT_THROW(kiln::einsum("ii->i", {kiln::eye(2)}), kiln::ApiError);
}

TEST(LinalgTest, MatmulShapesAndValues) {
  Array a = f32({1, 2, 3, 4, 5, 6}, {2, 3});
  Array b = f32({1, 0, 0, 1, 1, 1}, {3, 2});
  EXPECT_THAT(values(kiln::matmul(a, b)), ElementsAre(4, 5, 10, 11));
  EXPECT_THAT(values(kiln::matmul(a, f32({1, 1, 1}, {3}))), ElementsAre(6, 15));
  EXPECT_THAT(values(kiln::matmul(f32({1, 1}, {2}), a)), ElementsAre(5, 7, 9));
  Array batch = kiln::reshape(kiln::astype(kiln::arange(12), kiln::float32), {2, 2, 3});
  EXPECT_THAT(kiln::matmul(batch, b).shape(), ElementsAre(2, 2, 2));
  EXPECT_THAT(kiln::matmul(batch, kiln::reshape(kiln::astype(kiln::arange(12), kiln::float32), {2, 3, 2})).shape(),
              ElementsAre(2, 2, 2));
  try {
    (void)kiln::matmul(a, a);
    FAIL() << "expected a shape error";
  } catch (const kiln::ApiError& e) {
    EXPECT_THAT(e.what(), HasSubstr("f32[2,3] and f32[2,3]"));
  }
}

TEST(NnTest, SoftmaxAndActivations) {
  Array x = f32({1, 2, 3, 1, 1, 1}, {2, 3});
  std::vector<float> s = values(kiln::nn::softmax(x));
  EXPECT_NEAR(s[0] + s[1] + s[2], 1, 1e-6);
  EXPECT_NEAR(s[3], 1.0 / 3, 1e-6);
  std::vector<float> ls = values(kiln::nn::log_softmax(x));
  EXPECT_NEAR(ls[2], std::log(s[2]), 1e-5);
  EXPECT_THAT(values(kiln::nn::relu(f32({-1, 2}, {2}))), ElementsAre(0, 2));
  EXPECT_NEAR(values(kiln::nn::sigmoid(f32({0}, {1})))[0], 0.5, 1e-7);
  EXPECT_NEAR(values(kiln::nn::gelu(f32({1}, {1}), false))[0], 0.8413447, 1e-5);
  EXPECT_NEAR(values(kiln::nn::gelu(f32({1}, {1})))[0], 0.8411920, 1e-5);
}

// conv against a direct loop: x [1, 4, 4, 2], w [3, 3, 2, 3], SAME and VALID, stride 2.
TEST(NnTest, ConvMatchesADirectLoop) {
  std::vector<float> xs(32), ws(54);
  for (size_t i = 0; i < xs.size(); ++i) xs[i] = static_cast<float>((i * 7) % 11) - 5;
  for (size_t i = 0; i < ws.size(); ++i) ws[i] = static_cast<float>((i * 5) % 7) - 3;
  Array x = f32(xs, {1, 4, 4, 2}), w = f32(ws, {3, 3, 2, 3});
  auto reference = [&](int stride, int pad, int out) {
    std::vector<float> y;
    for (int i = 0; i < out; ++i)
      for (int j = 0; j < out; ++j)
        for (int o = 0; o < 3; ++o) {
          float acc = 0;
          for (int ki = 0; ki < 3; ++ki)
            for (int kj = 0; kj < 3; ++kj)
              for (int c = 0; c < 2; ++c) {
                int r = i * stride + ki - pad, q = j * stride + kj - pad;
                if (r < 0 || r >= 4 || q < 0 || q >= 4) continue;
                acc += xs[static_cast<size_t>((r * 4 + q) * 2 + c)] * ws[static_cast<size_t>(((ki * 3 + kj) * 2 + c) * 3 + o)];
              }
          y.push_back(acc);
        }
    return y;
  };
  EXPECT_THAT(values(kiln::nn::conv(x, w)), ElementsAreArray(reference(1, 1, 4)));
  EXPECT_THAT(values(kiln::nn::conv(x, w, {.padding = "VALID"})), ElementsAreArray(reference(1, 0, 2)));
  Array strided = kiln::nn::conv(x, w, {.strides = {2, 2}});
  EXPECT_THAT(strided.shape(), ElementsAre(1, 2, 2, 3));
}

TEST(NnTest, Pooling) {
  Array x = kiln::reshape(kiln::astype(kiln::arange(16), kiln::float32), {1, 4, 4, 1});
  EXPECT_THAT(values(kiln::nn::max_pool(x, {.window = {2, 2}})), ElementsAre(5, 7, 13, 15));
  EXPECT_THAT(values(kiln::nn::avg_pool(x, {.window = {2, 2}})), ElementsAre(2.5, 4.5, 10.5, 12.5));
  EXPECT_THAT(kiln::nn::max_pool(x, {.window = {3, 3}, .strides = {1, 1}, .padding = "SAME"}).shape(),
              ElementsAre(1, 4, 4, 1));
}

}  // namespace
namespace {

// Values are futures: an op whose computation fails returns at once, as do the ops that
// use its result; the error surfaces where a value is read, naming the line of the op
// that failed.
TEST(ArrayTest, ErrorsSurfaceWhenReadWithTheFailingOpsLine) {
  const int line = __LINE__ + 1;
  Array huge = kiln::ones({int64_t{1} << 24, int64_t{1} << 24});  // 1 PiB: more than any address space
  Array total = kiln::sum(huge * 2.0f);  // returns at once too
  try {
    total.block_until_ready();
    FAIL() << "expected the computation to fail";
  } catch (const kiln::ApiError& e) {
    EXPECT_EQ(e.kind(), "resource exhausted");
    EXPECT_THAT(e.what(), HasSubstr("numpy_test.cc:" + std::to_string(line) + ":"));
    EXPECT_THAT(e.what(), HasSubstr("out of memory"));
  }
  EXPECT_THROW(huge.item<float>(), kiln::ApiError);
}

}  // namespace
