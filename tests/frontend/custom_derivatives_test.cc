// custom_jvp, custom_vjp and checkpoint from C++: the user's rules replace the
// derivative (checked with rules that differ from the true derivative, so a transform
// that ignored them would fail), under grad, jvp, vmap and jit; checkpoint keeps the
// gradient and recomputes in the backward pass; misuse is reported.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>

#include <kiln/kiln.h>

#include "frontend/frontend_test_util.h"

namespace {

using kiln::Array;
using namespace kiln_test;
using ::testing::ElementsAre;
using ::testing::HasSubstr;


// JAX's example: log(1 + e^x) with a stable derivative. Differentiated naively, at
// x = 100 e^x overflows float32 and the gradient is inf / inf = NaN.
auto softplus = kiln::custom_jvp([](const Array& x) { return kiln::log(1.0 + kiln::exp(x)); },
                                 [](const std::tuple<Array>& primals, const std::tuple<Array>& tangents) {
                                   const Array& x = std::get<0>(primals);
                                   Array y = kiln::log(1.0 + kiln::exp(x));
                                   return std::pair{y, std::get<0>(tangents) * kiln::nn::sigmoid(x)};
                                 });

TEST(CustomJvpTest, TheRuleGivesTheDerivative) {
  auto naive = [](const Array& x) { return kiln::sum(kiln::log(1.0 + kiln::exp(x))); };
  auto stable = [](const Array& x) { return kiln::sum(softplus(x)); };
  Array x = f32({0, 100}, {2});
  std::vector<float> bad = values(kiln::grad(naive)(x));
  EXPECT_TRUE(std::isnan(bad[1]));
  EXPECT_THAT(values(kiln::grad(stable)(x)), ElementsAre(0.5f, 1.0f));
  EXPECT_THAT(values(kiln::jit(kiln::grad(stable))(x)), ElementsAre(0.5f, 1.0f));
  // Forward mode runs the rule itself.
  auto [y, ty] = kiln::jvp([](const Array& v) { return softplus(v); }, std::tuple{x}, std::tuple{f32({2, 2}, {2})});
  EXPECT_THAT(values(ty), ElementsAre(1.0f, 2.0f));
  // Outside a transformation the call is the function.
  EXPECT_NEAR(values(softplus(x))[0], std::log(2.0f), 1e-6);
}

TEST(CustomJvpTest, AWrongRuleIsObeyedUnderGradAndVmap) {
  // A rule three times the true derivative: the transforms must use it.
  auto tripled = kiln::custom_jvp([](const Array& x, const Array& y) { return x * y; },
                                  [](const std::tuple<Array, Array>& p, const std::tuple<Array, Array>& t) {
                                    auto [x, y] = p;
                                    auto [tx, ty] = t;
                                    return std::pair{x * y, 3.0 * (tx * y + x * ty)};
                                  });
  auto loss = [&](const Array& x, const Array& y) { return kiln::sum(tripled(x, y)); };
  Array x = f32({1, 2}, {2}), y = f32({5, 7}, {2});
  EXPECT_THAT(values(kiln::grad<0>(loss)(x, y)), ElementsAre(15, 21));
  EXPECT_THAT(values(kiln::grad<1>(loss)(x, y)), ElementsAre(3, 6));
  // Per-example gradients: vmap of grad keeps the rule.
  auto perExample = kiln::vmap(kiln::grad<0>(loss), {0, 0});
  Array xs = f32({1, 2, 3, 4}, {2, 2}), ys = f32({1, 1, 2, 2}, {2, 2});
  EXPECT_THAT(values(perExample(xs, ys)), ElementsAre(3, 3, 6, 6));
}

// Gradient clipping, JAX's custom_vjp example: the identity whose backward pass clips.
auto clipGradient = kiln::custom_vjp([](const Array& x) { return x; },
                                     [](const Array& x) { return std::pair{x, Array(0.0f)}; },
                                     [](const Array&, const Array& g) { return kiln::clip(g, -1.0, 1.0); });

TEST(CustomVjpTest, TheBackwardRuleGivesTheGradient) {
  auto loss = [](const Array& x) { return kiln::sum(clipGradient(x) * f32({10, 0.5, -3}, {3})); };
  Array x = f32({1, 2, 3}, {3});
  EXPECT_THAT(values(kiln::grad(loss)(x)), ElementsAre(1, 0.5, -1));
  EXPECT_THAT(values(kiln::jit(kiln::grad(loss))(x)), ElementsAre(1, 0.5, -1));
  EXPECT_THAT(values(clipGradient(x)), ElementsAre(1, 2, 3));
}

TEST(CustomVjpTest, ResidualsTreesAndClosedOverConstants) {
  // sin with its cosine as the residual; bwd scaled by a closed-over constant array (a
  // constant to the rule), for two arguments returned as a tuple.
  Array scale = f32({1, 10}, {2});
  auto f = kiln::custom_vjp(
      [](const Array& x, const Array& y) { return kiln::sin(x) * y; },
      [](const Array& x, const Array& y) {
        return std::pair{kiln::sin(x) * y, std::tuple{kiln::cos(x), kiln::sin(x), y}};
      },
      [scale](const std::tuple<Array, Array, Array>& res, const Array& g) {
        auto [cosx, sinx, y] = res;
        return std::tuple{g * cosx * y * scale, g * sinx};
      });
  auto loss = [&](const Array& x, const Array& y) { return kiln::sum(f(x, y)); };
  Array x = f32({0.5, 1.5}, {2}), y = f32({2, 3}, {2});
  std::vector<float> gx = values(kiln::grad<0>(loss)(x, y)), gy = values(kiln::grad<1>(loss)(x, y));
  EXPECT_NEAR(gx[0], std::cos(0.5f) * 2 * 1, 1e-6);
  EXPECT_NEAR(gx[1], std::cos(1.5f) * 3 * 10, 1e-5);
  EXPECT_NEAR(gy[0], std::sin(0.5f), 1e-6);
  EXPECT_NEAR(gy[1], std::sin(1.5f), 1e-6);
}

TEST(CustomVjpTest, MisuseIsReported) {
  Array x = f32({1, 2}, {2});
  // Forward mode of a custom_vjp function: JAX refuses it too.
  EXPECT_THAT(errorMessage([&] { kiln::jvp([](const Array& v) { return clipGradient(v); }, std::tuple{x}, std::tuple{x}); }),
              HasSubstr("custom_vjp function has no forward-mode derivative"));
  // bwd returning the wrong type.
  auto wrong = kiln::custom_vjp([](const Array& v) { return v; },
                                [](const Array& v) { return std::pair{v, v}; },
                                [](const Array&, const Array& g) { return kiln::sum(g); });
  EXPECT_THAT(errorMessage([&] { kiln::grad([&](const Array& v) { return kiln::sum(wrong(v)); })(x); }),
              HasSubstr("custom_vjp: bwd returns (tensor<f32>), but it must be (tensor<2xf32>)"));
  // A rule closing over a traced value (w, an argument of the enclosing grad).
  auto closes = [&](const Array& w) {
    auto g = kiln::custom_vjp([&](const Array& v) { return v * w; },
                              [&](const Array& v) { return std::pair{v * w, v}; },
                              [&](const Array&, const Array& ct) { return ct * w; });
    return kiln::sum(g(x));
  };
  EXPECT_THAT(errorMessage([&] { kiln::grad(closes)(x); }), HasSubstr("closes over a traced value"));
  EXPECT_THAT(errorMessage([&] { kiln::grad([](const Array& v) { return kiln::sum(kiln::checkpoint([](const Array& a) { return a; }, "sometimes")(v)); })(x); }),
              HasSubstr("unknown policy 'sometimes'"));
}

TEST(CheckpointTest, SameGradientAndTheBackwardPassRecomputes) {
  auto block = [](const Array& x, const Array& w) { return kiln::sin(kiln::matmul(x, w)); };
  auto plain = [&](const Array& x, const Array& w) { return kiln::sum(block(block(x, w), w)); };
  auto remat = [&](const Array& x, const Array& w) {
    auto b = kiln::checkpoint(block);
    return kiln::sum(b(b(x, w), w));
  };
  Array x = f32({0.1, 0.2, 0.3, 0.4}, {2, 2}), w = f32({1, -1, 0.5, 2}, {2, 2});
  std::vector<float> expected = values(kiln::grad<1>(plain)(x, w));
  for (const char* policy : {"nothing_saveable", "dots_saveable", "everything_saveable"}) {
    auto withPolicy = [&](const Array& a, const Array& b) {
      auto c = kiln::checkpoint(block, policy);
      return kiln::sum(c(c(a, b), b));
    };
    std::vector<float> got = values(kiln::jit(kiln::grad<1>(withPolicy))(x, w));
    for (size_t i = 0; i < expected.size(); ++i) EXPECT_NEAR(got[i], expected[i], 1e-6) << policy;
  }
  // The gradient program recomputes the sines (and their matmuls) in the backward pass:
  // more of them than the plain gradient program has.
  auto count = [](const std::string& text, const std::string& op) {
    size_t n = 0;
    for (size_t at = text.find(op); at != std::string::npos; at = text.find(op, at + 1)) ++n;
    return n;
  };
  std::string plainText = kiln::export_stablehlo(kiln::grad<1>(plain), x, w);
  std::string rematText = kiln::export_stablehlo(kiln::grad<1>(remat), x, w);
  EXPECT_THAT(rematText, HasSubstr("kiln.checkpoint"));
  EXPECT_EQ(values(remat(x, w)), values(plain(x, w)));
  EXPECT_EQ(count(plainText, "optimization_barrier"), 0u);
  EXPECT_GT(count(rematText, "optimization_barrier"), 0u);  // the recomputation's inputs, as JAX marks them
  EXPECT_GT(count(rematText, "stablehlo.dot_general"), count(plainText, "stablehlo.dot_general"));
}

}  // namespace
