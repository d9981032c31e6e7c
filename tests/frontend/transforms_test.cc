// jit, grad, value_and_grad and vmap on C++ functions of trees: compile counts, the
// recompile explanation, gradients against finite differences and closed forms,
// composition (grad of grad, vmap of grad, jit of grad), and the misuse errors.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <map>

#include <kiln/kiln.h>

#include "frontend/frontend_test_util.h"

namespace {

using kiln::Array;
using namespace kiln_test;
using ::testing::ElementsAre;
using ::testing::HasSubstr;


struct Layer {
  Array w, b;
  KILN_TREE(w, b)
};

TEST(JitTest, CompilesOncePerSignature) {
  auto f = kiln::jit([](const Array& x, const Array& y) { return kiln::sum(x * y + 1.0); }, {.name = "f"});
  EXPECT_EQ(f(f32({1, 2}, {2}), f32({3, 4}, {2})).item<float>(), 13);
  EXPECT_EQ(f(f32({0, 1}, {2}), f32({1, 1}, {2})).item<float>(), 3);
  EXPECT_EQ(f.compiles(), 1);
  EXPECT_EQ(f(f32({1, 2, 3}, {3}), f32({1, 1, 1}, {3})).item<float>(), 9);
  EXPECT_EQ(f.compiles(), 2);
  EXPECT_THAT(f.lastRecompileExplanation(), HasSubstr("argument 0 was *f32[2];, now *f32[3];"));
  EXPECT_THAT(f.lastRecompileExplanation(), HasSubstr("argument 1"));
}

TEST(JitTest, TreesAndStaticScalarsInAndOut) {
  auto f = kiln::jit([](const std::map<std::string, Array>& p, int power) {
    Array y = p.at("x");
    for (int i = 1; i < power; ++i) y = y * p.at("x");
    return std::pair<Array, Array>{y, p.at("x") + 1};
  });
  std::map<std::string, Array> p{{"x", f32({2, 3}, {2})}};
  auto [cube, plus] = f(p, 3);
  EXPECT_THAT(values(cube), ElementsAre(8, 27));
  EXPECT_THAT(values(plus), ElementsAre(3, 4));
  f(p, 3);
  EXPECT_EQ(f.compiles(), 1);
  f(p, 2);  // a static scalar is part of the signature
  EXPECT_EQ(f.compiles(), 2);
}

TEST(JitTest, ClosedOverArraysAreCapturedWhenTraced) {
  Array scale = f32({10}, {1});
  auto f = kiln::jit([&](const Array& x) { return x * scale; });
  EXPECT_THAT(values(f(f32({1, 2}, {2}))), ElementsAre(10, 20));
}

TEST(GradTest, ClosedFormsAndFiniteDifferences) {
  auto cube = [](const Array& x) { return kiln::sum(x * x * x); };
  EXPECT_THAT(values(kiln::grad(cube)(f32({1, 2}, {2}))), ElementsAre(3, 12));
  // grad of grad: d/dx sum(3 x^2) = 6x
  auto second = kiln::grad([&](const Array& x) { return kiln::sum(kiln::grad(cube)(x)); });
  EXPECT_THAT(values(second(f32({1, 2}, {2}))), ElementsAre(6, 12));

  // A two-layer network's loss against central differences in float64.
  auto loss = [](const Layer& l1, const Layer& l2, const Array& x) {
    Array h = kiln::tanh(kiln::matmul(x, l1.w) + l1.b);
    return kiln::mean(kiln::square(kiln::nn::softmax(kiln::matmul(h, l2.w) + l2.b) - 0.25));
  };
  auto d64 = [](std::vector<double> v, std::vector<int64_t> s) { return Array::from_vector(v, s); };
  Layer l1{d64({0.1, -0.2, 0.3, 0.4, -0.5, 0.6}, {2, 3}), d64({0.01, 0.02, 0.03}, {3})};
  Layer l2{d64({0.3, -0.1, 0.2, 0.5, -0.4, 0.1}, {3, 2}), d64({0, 0.1}, {2})};
  Array x = d64({1, 2, -1, 0.5}, {2, 2});
  auto [value, g] = kiln::value_and_grad(loss)(l1, l2, x);
  EXPECT_NEAR(value.item<double>(), loss(l1, l2, x).item<double>(), 1e-12);
  std::vector<double> w = l1.w.to_vector<double>(), analytic = g.w.to_vector<double>();
  for (size_t i = 0; i < w.size(); ++i) {
    std::vector<double> plus = w, minus = w;
    plus[i] += 1e-6;
    minus[i] -= 1e-6;
    double fd = (loss({d64(plus, {2, 3}), l1.b}, l2, x).item<double>() -
                 loss({d64(minus, {2, 3}), l1.b}, l2, x).item<double>()) / 2e-6;
    EXPECT_NEAR(analytic[i], fd, 1e-7) << "w[" << i << "]";
  }
  // grad with respect to the second argument.
  Layer g2 = kiln::grad<1>(loss)(l1, l2, x);
  EXPECT_THAT(g2.b.shape(), ElementsAre(2));
}

// Several argnums: a tuple of gradients, in the order asked for (JAX's argnums=(1, 0)).
TEST(GradTest, SeveralArgnumsGiveATuple) {
  auto f = [](const Array& x, const Layer& l, const Array& y) { return kiln::sum(x * l.w * y + l.b); };
  Array x = f32({1, 2}, {2}), y = f32({5, 7}, {2});
  Layer l{f32({3, 4}, {2}), f32({0, 0}, {2})};
  auto [gx, gl] = kiln::grad<0, 1>(f)(x, l, y);
  EXPECT_THAT(values(gx), ElementsAre(15, 28));
  EXPECT_THAT(values(gl.w), ElementsAre(5, 14));
  EXPECT_THAT(values(gl.b), ElementsAre(1, 1));
  auto [value, grads] = kiln::value_and_grad<2, 0>(f)(x, l, y);
  EXPECT_EQ(value.item<float>(), 3 * 5 + 8 * 7);
  EXPECT_THAT(values(std::get<0>(grads)), ElementsAre(3, 8));
  EXPECT_THAT(values(std::get<1>(grads)), ElementsAre(15, 28));
}

TEST(GradTest, HasAuxAndStopGradient) {
  auto f = [](const Array& x) {
    Array loss = kiln::sum(x * kiln::stop_gradient(x));
    return std::pair<Array, Array>{loss, x * 2};
  };
  auto [g, aux] = kiln::grad(f)(f32({1, 3}, {2}));
  EXPECT_THAT(values(g), ElementsAre(1, 3));  // the stopped factor is a constant
  EXPECT_THAT(values(aux), ElementsAre(2, 6));
  auto [va, g2] = kiln::value_and_grad(f)(f32({1, 3}, {2}));
  EXPECT_EQ(va.first.item<float>(), 10);
}

TEST(VmapTest, MatchesALoopAndComposesWithGrad) {
  Array xs = f32({1, 2, 3, 4, 5, 6}, {3, 2});
  Array w = f32({1, -1}, {2});
  auto dotw = [](const Array& x, const Array& w) { return kiln::sum(x * w); };
  Array batched = kiln::vmap(dotw, {0, std::nullopt})(xs, w);
  EXPECT_THAT(values(batched), ElementsAre(-1, -1, -1));
  // Per-example gradients with respect to x: each is w.
  Array perExample = kiln::vmap(kiln::grad(dotw), {0, std::nullopt})(xs, w);
  EXPECT_THAT(perExample.shape(), ElementsAre(3, 2));
  EXPECT_THAT(values(perExample), ElementsAre(1, -1, 1, -1, 1, -1));
  // in_axes 1 and out_axis 1.
  Array t = kiln::vmap([](const Array& c) { return c * 2; }, {1}, 1)(xs);
  EXPECT_THAT(values(t), ElementsAre(2, 4, 6, 8, 10, 12));
  EXPECT_THROW(kiln::vmap(dotw)(xs, f32({1, 2}, {2})), kiln::ApiError);  // sizes 3 and 2
}

TEST(JitTest, JitOfValueAndGradTrainsALinearModel) {
  auto loss = [](const Layer& p, const Array& x, const Array& y) {
    return kiln::mean(kiln::square(kiln::matmul(x, p.w) + p.b - y));
  };
  kiln::optim::Sgd opt{.learning_rate = 0.1};
  auto step = kiln::jit([&](const Layer& p, const Array& x, const Array& y) {
    auto [l, g] = kiln::value_and_grad(loss)(p, x, y);
    auto [u, s] = opt.update(g, opt.init(p), p);
    return std::pair<Layer, Array>{kiln::optim::apply_updates(p, u), l};
  });
  Layer p{kiln::zeros({2, 1}), kiln::zeros({1})};
  Array x = f32({1, 0, 0, 1, 1, 1, 2, 1}, {4, 2});
  Array y = f32({3, -1, 2, 5}, {4, 1});  // y = 3 x0 - x1
  float first = 0, last = 0;
  for (int i = 0; i < 300; ++i) {
    auto [next, l] = step(p, x, y);
    p = next;
    (i == 0 ? first : last) = l.item<float>();
  }
  EXPECT_EQ(step.compiles(), 1);
  EXPECT_LT(last, first * 1e-3);
  EXPECT_NEAR(values(p.w)[0], 3, 1e-2);
  EXPECT_NEAR(values(p.w)[1], -1, 1e-2);
}

// donate_argnums: the step gives its parameters' buffers to the call (the new ones may
// be written into them), computes what the step without donation computes, and the
// donated arrays can no longer be used.
TEST(JitTest, DonatedArgumentsGiveTheirBuffersToTheCall) {
  auto loss = [](const Layer& p, const Array& x, const Array& y) {
    return kiln::mean(kiln::square(kiln::matmul(x, p.w) + p.b - y));
  };
  kiln::optim::Sgd opt{.learning_rate = 0.1};
  auto body = [&](const Layer& p, const Array& x, const Array& y) {
    auto [l, g] = kiln::value_and_grad(loss)(p, x, y);
    auto [u, s] = opt.update(g, opt.init(p), p);
    return std::pair<Layer, Array>{kiln::optim::apply_updates(p, u), l};
  };
  auto kept = kiln::jit(body, {.name = "kept"});
  auto donating = kiln::jit(body, {.name = "step", .donateArgnums = {0}});
  Array x = f32({1, 0, 0, 1, 1, 1, 2, 1}, {4, 2});
  Array y = f32({3, -1, 2, 5}, {4, 1});
  Layer p{f32({0.5, -0.5}, {2, 1}), f32({0.25}, {1})}, q{f32({0.5, -0.5}, {2, 1}), f32({0.25}, {1})};
  Layer first = p;
  for (int i = 0; i < 20; ++i) {
    p = donating(p, x, y).first;
    q = kept(q, x, y).first;
  }
  EXPECT_EQ(values(p.w), values(q.w));
  EXPECT_EQ(values(p.b), values(q.b));
  // The arrays given up, and every copy of them, are the call's; x and y were not donated.
  EXPECT_THAT(errorMessage([&] { values(first.w); }),
              HasSubstr("this array (tensor<2x1xf32>) was donated to step (donate_argnums) and can no longer be used"));
  EXPECT_THAT(errorMessage([&] { donating(first, x, y); }), HasSubstr("was donated to step"));
  EXPECT_THAT(values(x), ElementsAre(1, 0, 0, 1, 1, 1, 2, 1));
  // Misuse.
  auto wrong = kiln::jit(body, {.name = "wrong", .donateArgnums = {3}});
  EXPECT_THAT(errorMessage([&] { wrong(q, x, y); }),
              HasSubstr("donate_argnums names argument 3, but wrong was called with 3 arguments"));
  auto twice = kiln::jit([](const Array& a, const Array& b) { return a + b; }, {.name = "twice", .donateArgnums = {0}});
  EXPECT_THAT(errorMessage([&] { twice(x, x); }), HasSubstr("the same buffer, and one is donated"));
  EXPECT_THAT(values(x), ElementsAre(1, 0, 0, 1, 1, 1, 2, 1));  // (a call that fails donates nothing)
}

TEST(ForwardModeTest, JvpJacobiansAndHessians) {
  Array x = f32({0.5, -1, 2}, {3});
  auto [y, dy] = kiln::jvp([](const Array& v) { return kiln::sin(v); }, std::tuple<Array>{x},
                           std::tuple<Array>{kiln::ones({3})});
  std::vector<float> d = values(dy);
  EXPECT_NEAR(d[0], std::cos(0.5), 1e-6);
  EXPECT_NEAR(d[2], std::cos(2.0), 1e-6);
  EXPECT_NEAR(values(y)[1], std::sin(-1.0), 1e-6);
  // A linear map's Jacobian is its matrix, both ways.
  Array m = f32({1, 2, 3, 4, 5, 6}, {2, 3});
  auto linear = [&](const Array& v) { return kiln::matmul(m, v); };
  EXPECT_THAT(values(kiln::jacfwd(linear)(x)), ElementsAre(1, 2, 3, 4, 5, 6));
  EXPECT_THAT(values(kiln::jacrev(linear)(x)), ElementsAre(1, 2, 3, 4, 5, 6));
  EXPECT_THAT(kiln::jacfwd(linear)(x).shape(), ElementsAre(2, 3));
  // The Hessian of sum(v^3) is diag(6 v).
  Array h = kiln::hessian([](const Array& v) { return kiln::sum(v * v * v); })(x);
  EXPECT_THAT(values(h), ElementsAre(3, 0, 0, 0, -6, 0, 0, 0, 12));
  auto [value, pullback] = kiln::vjp([](const Array& v) { return v * v; }, x);
  EXPECT_THAT(values(pullback(f32({1, 1, 0}, {3}))), ElementsAre(1, -2, 0));
  EXPECT_THAT(values(value), ElementsAre(0.25, 1, 4));
}

TEST(TransformErrorsTest, MisuseIsReportedClearly) {
  // A non-scalar loss.
  try {
    kiln::grad([](const Array& x) { return x * 2; })(f32({1, 2}, {2}));
    FAIL();
  } catch (const kiln::ApiError& e) {
    EXPECT_EQ(e.kind(), "usage");
    EXPECT_THAT(e.what(), HasSubstr("needs a float scalar"));
  }
  // A tracer kept past its trace.
  Array leaked;
  auto f = kiln::jit([&](const Array& x) {
    leaked = x * 2;
    return x;
  });
  f(f32({1}, {1}));
  try {
    (void)(leaked + 1);
    FAIL();
  } catch (const kiln::ApiError& e) {
    EXPECT_THAT(e.what(), HasSubstr("tracer leak"));
  }
  // Reading a tracer's value while tracing.
  EXPECT_THROW(kiln::jit([](const Array& x) { return x * x.item<float>(); })(f32({1}, {1})), kiln::ApiError);
  // Differentiating with respect to integers.
  EXPECT_THROW(kiln::grad([](const Array& x) { return kiln::sum(kiln::astype(x, kiln::float32)); })(kiln::arange(3)),
               kiln::ApiError);
}

// grad of a traced function equals `kiln grad` of the function's exported StableHLO:
// the frontend and the CLI reach the same IR transform from two ends.
TEST(ExportTest, GradMatchesKilnGradOfTheExportedProgram) {
  Array x = f32({0.5, -1, 2, 0.25, 1, -0.5}, {3, 2});
  auto loss = [&](const Array& w) { return kiln::sum(kiln::tanh(kiln::matmul(x, w)) * kiln::exp(w[0])); };
  Array w = f32({0.1, 0.2, -0.3, 0.4}, {2, 2});
  const std::string dir = testing::TempDir();
  {
    std::ofstream(dir + "/loss.mlir") << kiln::export_stablehlo(loss, w);
  }
  const std::string command = std::string(KILN_TOOL) + " grad " + dir + "/loss.mlir -o " + dir + "/loss_grad.mlir";
  ASSERT_EQ(std::system(command.c_str()), 0) << command;
  kiln::Program program = kiln::Program::load(dir + "/loss_grad.mlir");
  std::vector<kiln::HostArray> out = program.run({kiln::HostArray::of<float>({2, 2}, values(w))});
  std::vector<float> fromCli = out.at(0).values<float>(), fromFrontend = values(kiln::grad(loss)(w));
  ASSERT_EQ(fromCli.size(), 4u);
  for (size_t i = 0; i < 4; ++i) EXPECT_NEAR(fromCli[i], fromFrontend[i], 1e-6) << i;
}

TEST(ExportTest, ExportedTextRunsAsAProgram) {
  auto f = [](const Array& x) { return kiln::nn::relu(x) * 2; };
  std::string text = kiln::export_stablehlo(f, f32({-1, 1}, {2}));
  EXPECT_THAT(text, HasSubstr("func.func @main"));
  kiln::Program program = kiln::Program::parse(text);
  std::vector<kiln::HostArray> out = program.run({kiln::HostArray::of<float>({2}, {-3, 4})});
  EXPECT_THAT(out.at(0).values<float>(), ElementsAre(0, 8));
}

}  // namespace

namespace {

TEST(MakeJaxprTest, PrintsTheTracedProgramInJaxNotation) {
  Array bias = f32({1, 2, 3}, {3});
  auto f = [&](const Array& x, const Array& y) { return kiln::sum(kiln::sin(x) * y + bias); };
  std::string text = kiln::make_jaxpr(f)(f32({0, 0, 0}, {3}), Array(2.0f));
  // The closed-over array is the constant; x and y the parameters.
  EXPECT_THAT(text, HasSubstr("{ lambda a:f32[3]; b:f32[3] c:f32[]. let"));
  EXPECT_THAT(text, HasSubstr("d:f32[3] = sine b"));
  EXPECT_THAT(text, HasSubstr("reduce[dimensions=(0,)"));
  EXPECT_THAT(text, HasSubstr("in ("));
  // Scalar constants are written inline, and a gradient's program is nested where it is called.
  std::string g = kiln::make_jaxpr(kiln::grad([](const Array& x) { return kiln::sum(x * 3.0f); }))(f32({1, 2}, {2}));
  EXPECT_THAT(g, HasSubstr("jaxpr={ lambda ; "));
  EXPECT_THAT(g, HasSubstr("= broadcast_in_dim[broadcast_dimensions=()] 3.0:f32[]"));
}

}  // namespace
