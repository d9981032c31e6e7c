// The frontend's ops against NumPy's answers (golden/ops.golden, written by
// golden/make_ops.py): broadcasting, negative axes, keepdims, empty arrays, ties, NaN.
// CTest runs this on both plugins, so each op is also checked through the runtime on
// the compiler and on the interpreter.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <functional>
#include <map>
#include <sstream>

#include <kiln/kiln.h>

#include "frontend/frontend_test_util.h"

namespace {

using kiln::Array;
using namespace kiln_test;

struct Expected {
  std::string dtype;
  std::vector<int64_t> shape;
  std::vector<double> values;
};

// "f32[2,3]:1.0,2.0,..."
Expected parseArray(const std::string& text) {
  Expected e;
  size_t open = text.find('['), close = text.find(']');
  e.dtype = text.substr(0, open);
  e.shape = integers(text.substr(open + 1, close - open - 1));
  for (const std::string& v : splitOn(text.substr(close + 2), ","))
    if (!v.empty()) e.values.push_back(std::stod(v));
  return e;
}

Array toArray(const Expected& e) {
  if (e.dtype == "f32") return Array::from_vector(std::vector<float>(e.values.begin(), e.values.end()), e.shape);
  if (e.dtype == "i32") return Array::from_vector(std::vector<int32_t>(e.values.begin(), e.values.end()), e.shape);
  std::vector<bool> b;
  for (double v : e.values) b.push_back(v != 0);
  return Array::from_vector(b, e.shape);
}

using Params = std::map<std::string, std::string>;
using OpFn = std::function<Array(const std::vector<Array>&, const Params&)>;

kiln::Axes axesOf(const Params& p) {
  auto it = p.find("axes");
  if (it == p.end()) return {};
  return kiln::Axes(integers(it->second));
}
bool keepdims(const Params& p) { return p.count("keepdims") && p.at("keepdims") == "1"; }
int64_t intParam(const Params& p, const std::string& key) { return std::stoll(p.at(key)); }
double numberParam(const Params& p, const std::string& key) { return std::stod(p.at(key)); }

const std::map<std::string, OpFn>& ops() {
  using V = std::vector<Array>;
  static const std::map<std::string, OpFn> table = [] {
    std::map<std::string, OpFn> t;
    auto binary = [&](const std::string& name, Array (*f)(const Array&, const Array&, kiln::Site)) {
      t[name] = [f](const V& x, const Params&) { return f(x[0], x[1], kiln::Site::current()); };
    };
    auto unary = [&](const std::string& name, Array (*f)(const Array&, kiln::Site)) {
      t[name] = [f](const V& x, const Params&) { return f(x[0], kiln::Site::current()); };
    };
    auto reduction = [&](const std::string& name, Array (*f)(const Array&, kiln::Axes, bool, kiln::Site)) {
      t[name] = [f](const V& x, const Params& p) { return f(x[0], axesOf(p), keepdims(p), kiln::Site::current()); };
    };
    binary("add", kiln::add);
    binary("subtract", kiln::subtract);
    binary("multiply", kiln::multiply);
    binary("divide", kiln::divide);
    binary("power", kiln::power);
    binary("maximum", kiln::maximum);
    binary("minimum", kiln::minimum);
    binary("equal", kiln::equal);
    binary("less", kiln::less);
    binary("greater_equal", kiln::greater_equal);
    binary("logical_and", kiln::logical_and);
    binary("matmul", kiln::matmul);
    binary("dot", kiln::dot);
    unary("negative", kiln::negative);
    unary("abs", kiln::abs);
    unary("sign", kiln::sign);
    unary("square", kiln::square);
    unary("sqrt", kiln::sqrt);
    unary("rsqrt", kiln::rsqrt);
    unary("exp", kiln::exp);
    unary("expm1", kiln::expm1);
    unary("log", kiln::log);
    unary("log1p", kiln::log1p);
    unary("sin", kiln::sin);
    unary("cos", kiln::cos);
    unary("tanh", kiln::tanh);
    unary("floor", kiln::floor);
    unary("ceil", kiln::ceil);
    unary("round", kiln::round);
    reduction("sum", kiln::sum);
    reduction("mean", kiln::mean);
    reduction("prod", kiln::prod);
    reduction("max", kiln::max);
    reduction("min", kiln::min);
    reduction("var", kiln::var);
    reduction("std", kiln::std);
    reduction("logsumexp", kiln::logsumexp);
    t["where"] = [](const V& x, const Params&) { return kiln::where(x[0], x[1], x[2]); };
    t["clip"] = [](const V& x, const Params&) { return kiln::clip(x[0], x[1], x[2]); };
    auto arg = [](bool isMax) {
      return [isMax](const V& x, const Params& p) {
        std::optional<int64_t> axis;
        if (p.count("axis")) axis = intParam(p, "axis");
        return isMax ? kiln::argmax(x[0], axis, keepdims(p)) : kiln::argmin(x[0], axis, keepdims(p));
      };
    };
    t["argmax"] = arg(true);
    t["argmin"] = arg(false);
    t["reshape"] = [](const V& x, const Params& p) { return kiln::reshape(x[0], integers(p.at("shape"))); };
    t["transpose"] = [](const V& x, const Params& p) {
      return kiln::transpose(x[0], p.count("axes") ? integers(p.at("axes")) : std::vector<int64_t>{});
    };
    t["expand_dims"] = [](const V& x, const Params& p) { return kiln::expand_dims(x[0], intParam(p, "axis")); };
    t["squeeze"] = [](const V& x, const Params&) { return kiln::squeeze(x[0]); };
    t["concatenate"] = [](const V& x, const Params& p) { return kiln::concatenate(x, intParam(p, "axis")); };
    t["stack"] = [](const V& x, const Params& p) { return kiln::stack(x, intParam(p, "axis")); };
    t["broadcast_to"] = [](const V& x, const Params& p) { return kiln::broadcast_to(x[0], integers(p.at("shape"))); };
    t["pad"] = [](const V& x, const Params& p) {
      std::vector<int64_t> w = integers(p.at("widths"));
      std::vector<std::pair<int64_t, int64_t>> widths;
      for (size_t i = 0; i + 1 < w.size(); i += 2) widths.push_back({w[i], w[i + 1]});
      return kiln::pad(x[0], widths, Array(numberParam(p, "value")));
    };
    t["take"] = [](const V& x, const Params& p) { return kiln::take(x[0], x[1], intParam(p, "axis")); };
    t["one_hot"] = [](const V& x, const Params& p) { return kiln::one_hot(x[0], intParam(p, "classes")); };
    t["sort"] = [](const V& x, const Params& p) { return kiln::sort(x[0], intParam(p, "axis")); };
    t["argsort"] = [](const V& x, const Params& p) { return kiln::argsort(x[0], intParam(p, "axis")); };
    t["cumsum"] = [](const V& x, const Params& p) { return kiln::cumsum(x[0], intParam(p, "axis")); };
    t["einsum"] = [](const V& x, const Params& p) { return kiln::einsum(p.at("spec"), x); };
    t["linspace"] = [](const V&, const Params& p) {
      return kiln::linspace(numberParam(p, "start"), numberParam(p, "stop"), intParam(p, "num"));
    };
    t["arange"] = [](const V&, const Params& p) {
      return kiln::arange(numberParam(p, "start"), numberParam(p, "stop"), numberParam(p, "step"));
    };
    t["eye"] = [](const V&, const Params& p) { return kiln::eye(intParam(p, "n")); };
    return t;
  }();
  return table;
}

struct Case {
  std::string name, op;
  Params params;
  std::vector<Expected> inputs;
  Expected result;
};

std::vector<Case> cases() {
  std::ifstream in(std::string(KILN_SOURCE_DIR) + "/tests/frontend/golden/ops.golden");
  std::vector<Case> out;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::vector<std::string> f = splitOn(line, " | ");
    if (f.size() != 5) {
      ADD_FAILURE() << "a golden line of " << f.size() << " fields: " << line;
      continue;
    }
    Case c{f[0], f[1], {}, {}, parseArray(f[4])};
    for (const std::string& kv : splitOn(f[2], ";"))
      if (size_t eq = kv.find('='); eq != std::string::npos) c.params[kv.substr(0, eq)] = kv.substr(eq + 1);
    for (const std::string& a : splitOn(f[3], " "))
      if (!a.empty()) c.inputs.push_back(parseArray(a));
    out.push_back(std::move(c));
  }
  return out;
}

// Floats within a few float32 ulps (transcendental functions round differently from
// NumPy's libm by an ulp or two); integers and NaN exactly.
void expectClose(const std::vector<double>& got, const std::vector<double>& want) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    if (std::isnan(want[i])) {
      EXPECT_TRUE(std::isnan(got[i])) << "element " << i << ": " << got[i] << ", not nan";
    } else if (std::isinf(want[i])) {
      EXPECT_EQ(got[i], want[i]) << "element " << i;
    } else {
      EXPECT_NEAR(got[i], want[i], 4e-7 * std::max(1.0, std::abs(want[i])) + 1e-7) << "element " << i;
    }
  }
}

TEST(OpsGoldenTest, EveryOpMatchesNumPy) {
  std::vector<Case> all = cases();
  ASSERT_GE(all.size(), 70u);
  for (const Case& c : all) {
    SCOPED_TRACE(c.name + " (" + c.op + ")");
    auto op = ops().find(c.op);
    ASSERT_NE(op, ops().end()) << "no op " << c.op;
    std::vector<Array> inputs;
    for (const Expected& e : c.inputs) inputs.push_back(toArray(e));
    Array out = op->second(inputs, c.params);
    EXPECT_EQ(out.shape(), c.result.shape);
    expectClose(out.to_doubles(), c.result.values);
  }
}

}  // namespace
