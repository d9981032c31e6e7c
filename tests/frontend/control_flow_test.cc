// lax control flow: while_loop, fori_loop, cond, switch_ and scan, eagerly and under jit,
// with captured values, and differentiated (grad through fori_loop and scan).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <kiln/kiln.h>

#include "frontend_test_util.h"

namespace {

using kiln::Array;
using kiln_test::f32;
using ::testing::ElementsAre;

TEST(ControlFlowTest, WhileAndForiLoops) {
  Array n = kiln::lax::while_loop([](const Array& i) { return i < 10; }, [](const Array& i) { return i + 3; },
                                  kiln::full({}, 0, kiln::int32));
  EXPECT_EQ(n.item<int>(), 12);
  auto squares = [](const Array& limit) {
    return kiln::lax::fori_loop(0, 5, [&](const Array& i, const Array& s) { return s + kiln::astype(i * i, kiln::float32) * limit; },
                                kiln::zeros({}));
  };
  EXPECT_EQ(squares(kiln::ones({})).item<float>(), 30);          // the body captures `limit`
  EXPECT_EQ(kiln::jit(squares)(kiln::full({}, 2.0)).item<float>(), 60);
  // The carry must keep its type.
  EXPECT_THROW(kiln::lax::while_loop([](const Array& x) { return x < 1; }, [](const Array& x) { return kiln::astype(x, kiln::int32); },
                                     kiln::zeros({})),
               kiln::ApiError);
}

TEST(ControlFlowTest, CondAndSwitch) {
  auto pick = [](const Array& p, const Array& x) {
    return kiln::lax::cond(p, [](const Array& v) { return v * 2; }, [](const Array& v) { return v - 1; }, x);
  };
  EXPECT_THAT(pick(Array(true), f32({1, 2}, {2})).to_vector<float>(), ElementsAre(2, 4));
  EXPECT_THAT(pick(Array(false), f32({1, 2}, {2})).to_vector<float>(), ElementsAre(0, 1));
  auto jitted = kiln::jit(pick);
  EXPECT_THAT(jitted(kiln::array({true}, {}), f32({3}, {1})).to_vector<float>(), ElementsAre(6));
  EXPECT_THAT(jitted(kiln::array({false}, {}), f32({3}, {1})).to_vector<float>(), ElementsAre(2));
  EXPECT_EQ(jitted.compiles(), 1);
  std::vector<std::function<Array(const Array&)>> branches{[](const Array& v) { return v + 10; },
                                                           [](const Array& v) { return v + 20; },
                                                           [](const Array& v) { return v + 30; }};
  EXPECT_EQ(kiln::lax::switch_(Array(1), branches, f32({1}, {1})).item<float>(), 21);
  EXPECT_EQ(kiln::lax::switch_(Array(7), branches, f32({1}, {1})).item<float>(), 31);  // clamped
  EXPECT_EQ(kiln::lax::switch_(Array(-2), branches, f32({1}, {1})).item<float>(), 11);
}

TEST(ControlFlowTest, ScanStacksAndCarries) {
  Array xs = f32({1, 2, 3, 4}, {4});
  auto cumsum = [](const Array& c, const Array& x) { return std::pair<Array, Array>{c + x, c + x}; };
  auto [total, running] = kiln::lax::scan(cumsum, kiln::zeros({}), xs);
  EXPECT_EQ(total.item<float>(), 10);
  EXPECT_THAT(running.to_vector<float>(), ElementsAre(1, 3, 6, 10));
  auto [rtotal, rrunning] = kiln::lax::scan(cumsum, kiln::zeros({}), xs, std::nullopt, true);
  EXPECT_THAT(rrunning.to_vector<float>(), ElementsAre(10, 9, 7, 4));
  // Rows of a matrix, a tree carry.
  Array m = f32({1, 2, 3, 4, 5, 6}, {3, 2});
  auto [acc, rows] = kiln::lax::scan(
      [](const std::pair<Array, Array>& c, const Array& row) {
        return std::pair<std::pair<Array, Array>, Array>{{c.first + row, c.second * 2}, kiln::sum(row)};
      },
      std::pair<Array, Array>{kiln::zeros({2}), kiln::ones({})}, m);
  EXPECT_THAT(acc.first.to_vector<float>(), ElementsAre(9, 12));
  EXPECT_EQ(acc.second.item<float>(), 8);
  EXPECT_THAT(rows.to_vector<float>(), ElementsAre(3, 7, 11));
}

TEST(ControlFlowTest, GradientsFlowThroughLoops) {
  // x^4 by a loop of three multiplications: 4 x^3.
  auto power = [](const Array& x) {
    return kiln::lax::fori_loop(0, 3, [&](const Array&, const Array& c) { return c * x; }, x);
  };
  EXPECT_NEAR(kiln::grad(power)(kiln::full({}, 2.0)).item<float>(), 32, 1e-4);
  // A linear recurrence h = w h + x over xs; d(sum of hs)/dw against central differences.
  Array xs = f32({1, -2, 0.5, 3}, {4});
  auto recurrence = [&](const Array& w) {
    auto [h, hs] = kiln::lax::scan(
        [&](const Array& c, const Array& x) {
          Array next = kiln::tanh(c * w + x);
          return std::pair<Array, Array>{next, next};
        },
        kiln::zeros({}), xs);
    return kiln::sum(hs);
  };
  double w = 0.7, eps = 1e-3;
  double fd = (recurrence(kiln::full({}, w + eps)).item<double>() - recurrence(kiln::full({}, w - eps)).item<double>()) / (2 * eps);
  EXPECT_NEAR(kiln::grad(recurrence)(kiln::full({}, w)).item<double>(), fd, 1e-3);
}

}  // namespace
