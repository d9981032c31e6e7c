// kiln::random against published values: the Random123 known answer for Threefry-2x32,
// and the first numbers jax.random documents for key 0 in both of JAX's modes.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>

#include <kiln/kiln.h>

namespace {

using kiln::Array;
using ::testing::ElementsAre;

struct Mode {
  explicit Mode(bool partitionable) { kiln::random::set_threefry_partitionable(partitionable); }
  ~Mode() { kiln::random::set_threefry_partitionable(true); }
};

TEST(RandomTest, ThreefryKnownAnswer) {
  // fold_in(key, d) hashes the counter pair (0, d): with key (0, 0) and d = 0 this is
  // Random123's known answer for threefry2x32_20 on zeros.
  Array k = kiln::random::fold_in(kiln::random::key(0), 0);
  EXPECT_THAT(k.to_vector<uint32_t>(), ElementsAre(0x6b200159u, 0x99ba4efeu));
  EXPECT_THAT(kiln::random::key(0x100000002ull).to_vector<uint32_t>(), ElementsAre(1u, 2u));
}

// jax.random's documentation (docs.jax.dev, "jax.random module"): uniform(key(0)) and
// uniform of the second key of split(key(0)).
TEST(RandomTest, MatchesJaxDefaultMode) {
  Array key = kiln::random::key(0);
  EXPECT_NEAR(kiln::random::uniform(key).item<float>(), 0.947667f, 1e-6);
  std::vector<Array> keys = kiln::random::split(key);
  EXPECT_NEAR(kiln::random::uniform(keys[1]).item<float>(), 0.00729382f, 1e-8);
}

// JAX before 0.5 (jax_threefry_partitionable=False): split(PRNGKey(0)) and
// uniform(PRNGKey(0)).
TEST(RandomTest, MatchesJaxOriginalMode) {
  Mode legacy(false);
  std::vector<Array> keys = kiln::random::split(kiln::random::key(0));
  EXPECT_THAT(keys[0].to_vector<uint32_t>(), ElementsAre(4146024105u, 967050713u));
  EXPECT_THAT(keys[1].to_vector<uint32_t>(), ElementsAre(2718843009u, 1272950319u));
  EXPECT_NEAR(kiln::random::uniform(kiln::random::key(0)).item<float>(), 0.41845703f, 1e-7);
}

TEST(RandomTest, DistributionsHaveTheirMoments) {
  Array key = kiln::random::key(42);
  Array u = kiln::random::uniform(key, {20000}, kiln::float32, -2, 2);
  EXPECT_NEAR(kiln::mean(u).item<double>(), 0, 0.05);
  EXPECT_GE(kiln::min(u).item<double>(), -2);
  EXPECT_LT(kiln::max(u).item<double>(), 2);
  Array n = kiln::random::normal(kiln::random::fold_in(key, 1), {20000});
  EXPECT_NEAR(kiln::mean(n).item<double>(), 0, 0.05);
  EXPECT_NEAR(kiln::std(n).item<double>(), 1, 0.05);
  Array b = kiln::random::bernoulli(key, 0.25, {20000});
  EXPECT_NEAR(kiln::mean(b).item<double>(), 0.25, 0.02);
  Array logits = kiln::log(kiln::array({0.1f, 0.6f, 0.3f}));
  Array draws = kiln::random::categorical(key, kiln::broadcast_to(logits, {5000, 3}));
  EXPECT_THAT(draws.shape(), ElementsAre(5000));
  EXPECT_NEAR(kiln::mean(draws == 1).item<double>(), 0.6, 0.04);
  std::vector<int> p = kiln::random::permutation(key, 50).to_vector<int>();
  std::vector<int> sorted = p;
  std::sort(sorted.begin(), sorted.end());
  std::vector<int> expected(50);
  std::iota(expected.begin(), expected.end(), 0);
  EXPECT_EQ(sorted, expected);
  EXPECT_NE(p, expected);
  // The same key gives the same numbers, in and out of jit.
  auto jitted = kiln::jit([](const Array& k) { return kiln::random::normal(k, {4}); });
  EXPECT_EQ(jitted(key).to_vector<float>(), kiln::random::normal(key, {4}).to_vector<float>());
}

}  // namespace
