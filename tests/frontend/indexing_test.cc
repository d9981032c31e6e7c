// Indexing and index updates against NumPy's answers (golden/indexing.golden, written by
// golden/make_indexing.py), eagerly and under jit, their gradients, and the errors.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include <kiln/kiln.h>

#include "frontend/frontend_test_util.h"

namespace {

using kiln::Array;
using namespace kiln_test;
using kiln::Index;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

// The entries of a Python index expression ("1,::2,None,...,[[0,1],[2,0]]"), the index
// lists as int32 arrays.
std::vector<Index> parseIndex(const std::string& expr) {
  std::vector<std::string> entries;
  int depth = 0;
  std::string current;
  for (char c : expr) {
    if (c == ',' && depth == 0) {
      entries.push_back(current);
      current.clear();
      continue;
    }
    depth += c == '[' ? 1 : c == ']' ? -1 : 0;
    current += c;
  }
  entries.push_back(current);
  std::vector<Index> index;
  for (const std::string& e : entries) {
    if (e == "...") {
      index.emplace_back(kiln::ellipsis);
    } else if (e == "None") {
      index.emplace_back(kiln::newaxis);
    } else if (e.front() == '[') {
      std::vector<int32_t> values;
      std::vector<int64_t> shape;
      if (e[1] == '[') {
        int64_t rows = 0;
        for (const std::string& row : splitOn(e.substr(2, e.size() - 4), "],[")) {
          for (int64_t v : integers(row)) values.push_back(static_cast<int32_t>(v));
          ++rows;
        }
        shape = {rows, static_cast<int64_t>(values.size()) / rows};
      } else {
        for (int64_t v : integers(e.substr(1, e.size() - 2))) values.push_back(static_cast<int32_t>(v));
        shape = {static_cast<int64_t>(values.size())};
      }
      index.emplace_back(Array::from_vector(values, shape));
    } else if (e.find(':') != std::string::npos) {
      std::vector<std::string> parts = splitOn(e, ":");
      auto part = [&](size_t i) -> std::optional<int64_t> {
        if (i >= parts.size() || parts[i].empty()) return std::nullopt;
        return std::stoll(parts[i]);
      };
      index.emplace_back(kiln::s(part(0), part(1), part(2).value_or(1)));
    } else {
      index.emplace_back(static_cast<int64_t>(std::stoll(e)));
    }
  }
  return index;
}

struct GoldenCase {
  std::string kind, expr, update;
  std::vector<int64_t> shape, resultShape, values;
};

std::vector<GoldenCase> goldenCases() {
  std::ifstream in(std::string(KILN_SOURCE_DIR) + "/tests/frontend/golden/indexing.golden");
  std::vector<GoldenCase> cases;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::vector<std::string> f = splitOn(line, " | ");
    if (f.size() != 6) ADD_FAILURE() << "a golden line of " << f.size() << " fields: " << line;
    if (f.size() != 6) continue;
    cases.push_back({f[0], f[1], f[3], integers(f[2]), integers(f[4]), integers(f[5], " ")});
  }
  return cases;
}

Array applyCase(const GoldenCase& c, const Array& x) {
  std::vector<Index> index = parseIndex(c.expr);
  if (c.kind == "read") return x[index];
  Array v;
  if (c.update == "arange") {
    std::vector<int64_t> picked = x[index].shape();
    int64_t n = 1;
    for (int64_t d : picked) n *= d;
    v = (kiln::arange(n) + 100).reshape(picked);
  } else {
    v = Array(static_cast<int32_t>(std::stoll(c.update)));
  }
  kiln::IndexUpdate at = x.at(index);
  if (c.kind == "set") return at.set(v);
  if (c.kind == "add") return at.add(v);
  if (c.kind == "multiply") return at.multiply(v);
  if (c.kind == "min") return at.min(v);
  if (c.kind == "max") return at.max(v);
  ADD_FAILURE() << "unknown kind " << c.kind;
  return x;
}

Array arangeOf(const std::vector<int64_t>& shape) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return kiln::arange(n).reshape(shape);
}

TEST(IndexingTest, MatchesNumPyEagerly) {
  std::vector<GoldenCase> cases = goldenCases();
  ASSERT_GE(cases.size(), 40u);
  for (const GoldenCase& c : cases) {
    SCOPED_TRACE(c.kind + " [" + c.expr + "] of shape " + std::to_string(c.shape.size()) + "-d");
    Array out = applyCase(c, arangeOf(c.shape));
    EXPECT_EQ(out.shape(), c.resultShape);
    EXPECT_EQ(out.dtype(), kiln::int32);
    EXPECT_EQ(out.to_vector<int64_t>(), c.values);
  }
}

TEST(IndexingTest, MatchesNumPyUnderJit) {
  for (const GoldenCase& c : goldenCases()) {
    SCOPED_TRACE(c.kind + " [" + c.expr + "]");
    auto f = kiln::jit([&](const Array& x) { return applyCase(c, x); });
    Array out = f(arangeOf(c.shape));
    EXPECT_EQ(out.shape(), c.resultShape);
    EXPECT_EQ(out.to_vector<int64_t>(), c.values);
  }
}

TEST(IndexingTest, SingleEntriesAndDtypes) {
  Array x = Array::from_vector<float>({1, 2, 3, 4, 5, 6}, {2, 3});
  EXPECT_THAT(x[1].to_vector<float>(), ElementsAre(4, 5, 6));
  Array column = x[{kiln::all, 2}], element = x[{1, 2}];
  EXPECT_THAT(column.to_vector<float>(), ElementsAre(3, 6));
  EXPECT_EQ(element.item<float>(), 6);
  EXPECT_EQ(element.ndim(), 0);
  // int64 index arrays, and updates converted to the array's dtype (JAX's at[].set).
  Array rows = Array::from_vector<int64_t>({1, 0}, {2});
  EXPECT_THAT(x[rows].to_vector<float>(), ElementsAre(4, 5, 6, 1, 2, 3));
  Array y = x.at({0, 0}).set(Array(7.9));
  EXPECT_EQ(y.dtype(), kiln::float32);
  EXPECT_THAT(y.to_vector<float>(), ElementsAre(7.9f, 2, 3, 4, 5, 6));
  Array z = kiln::arange(4).at(1).add(Array(2.7));  // int32 stays int32: 2.7 -> 2
  EXPECT_EQ(z.dtype(), kiln::int32);
  EXPECT_THAT(z.to_vector<int>(), ElementsAre(0, 3, 2, 3));
  EXPECT_THAT(x.at(1).get().to_vector<float>(), ElementsAre(4, 5, 6));
}

// Out-of-range entries of index arrays: clamped when read, dropped when updated (JAX).
TEST(IndexingTest, OutOfRangeIndexArrays) {
  Array x = kiln::arange(4) * 10;
  Array idx = Array::from_vector<int32_t>({5, -9, 1}, {3});
  EXPECT_THAT(x[idx].to_vector<int>(), ElementsAre(30, 0, 10));
  EXPECT_THAT(x.at(idx).add(1).to_vector<int>(), ElementsAre(0, 11, 20, 30));
}

TEST(IndexingTest, GradientsOfReadsAndUpdates) {
  Array x = Array::from_vector<float>({1, 2, 3, 4}, {4});
  Array idx = Array::from_vector<int32_t>({0, 2, 2}, {3});
  // d/dx sum(x[idx]^2): 2 x at each pick, added up where picked twice.
  auto picked = [&](const Array& a) { return kiln::sum(a[idx] * a[idx]); };
  EXPECT_THAT(kiln::grad(picked)(x).to_vector<float>(), ElementsAre(2, 0, 12, 0));
  // d/dv sum(x.at[1:3].set(v) * w) = w[1:3]; d/dx is w with zeros where v went.
  Array w = Array::from_vector<float>({1, 10, 100, 1000}, {4});
  auto setLoss = [&](const Array& a, const Array& v) { return kiln::sum(a.at(kiln::s(1, 3)).set(v) * w); };
  Array v = Array::from_vector<float>({5, 6}, {2});
  EXPECT_THAT(kiln::grad<1>(setLoss)(x, v).to_vector<float>(), ElementsAre(10, 100));
  EXPECT_THAT(kiln::grad<0>(setLoss)(x, v).to_vector<float>(), ElementsAre(1, 0, 0, 1000));
  // Strided reads differentiate too (through slice and reverse).
  auto strided = [&](const Array& a) { return kiln::sum(a[kiln::s(std::nullopt, std::nullopt, -2)] * w[kiln::s(0, 2)]); };
  EXPECT_THAT(kiln::grad(strided)(x).to_vector<float>(), ElementsAre(0, 10, 0, 1));
}

TEST(IndexingTest, VmapOfAGather) {
  Array table = Array::from_vector<float>({0, 1, 2, 3, 4, 5}, {3, 2});
  Array ids = Array::from_vector<int32_t>({2, 0}, {2});
  auto lookup = [&](const Array& i) { return table[i]; };
  Array rows = kiln::vmap(lookup)(ids);
  EXPECT_THAT(rows.shape(), ElementsAre(2, 2));
  EXPECT_THAT(rows.to_vector<float>(), ElementsAre(4, 5, 0, 1));
}

TEST(IndexingTest, ErrorsNameTheProblem) {
  Array x = kiln::zeros({3, 4});
  EXPECT_THAT(errorMessage([&] { (void)x[3]; }), HasSubstr("index 3 is out of bounds for axis 0 with size 3"));
  EXPECT_THAT(errorMessage([&] { (void)x[{0, -5}]; }), HasSubstr("index -5 is out of bounds for axis 1 with size 4"));
  EXPECT_THAT(errorMessage([&] { (void)x[{0, 0, 0}]; }), HasSubstr("too many indices"));
  EXPECT_THAT(errorMessage([&] { (void)x[{kiln::ellipsis, kiln::ellipsis}]; }), HasSubstr("only one ellipsis"));
  EXPECT_THAT(errorMessage([&] { (void)x[kiln::s(0, 2, 0)]; }), HasSubstr("step cannot be zero"));
  EXPECT_THAT(errorMessage([&] { (void)x[x > 0]; }), HasSubstr("unsupported: indexing with a boolean mask"));
  EXPECT_THAT(errorMessage([&] { (void)x[kiln::zeros({2})]; }), HasSubstr("indices are integers"));
  Array rows = Array::from_vector<int32_t>({0, 1}, {2});
  Array cols = Array::from_vector<int32_t>({0, 1, 2}, {3});
  EXPECT_THAT(errorMessage([&] { (void)x[{rows, cols}]; }), HasSubstr("do not broadcast"));
  EXPECT_THAT(errorMessage([&] { (void)x.at(0).set(kiln::zeros({5})); }), HasSubstr("cannot broadcast"));
}

}  // namespace
