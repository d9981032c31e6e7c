// The public API through include/kiln/kiln.h alone: parse, verify, run with host arrays,
// optimize, print, and errors with their kinds and full diagnostics.
#include <kiln/kiln.h>

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <thread>
#include <vector>

namespace {

using kiln::ApiError;
using kiln::HostArray;
using kiln::Program;

const char* kProgram = R"(
func.func private @sq(%a: tensor<3xf32>) -> tensor<3xf32> {
  %m = stablehlo.multiply %a, %a : tensor<3xf32>
  return %m : tensor<3xf32>
}
func.func @main(%x: tensor<3xf32>, %n: tensor<i64>) -> (tensor<3xf32>, tensor<i64>) {
  %p = func.call @sq(%x) : (tensor<3xf32>) -> tensor<3xf32>
  %one = stablehlo.constant dense<1> : tensor<i64>
  %m = stablehlo.add %n, %one : tensor<i64>
  return %p, %m : tensor<3xf32>, tensor<i64>
}
)";

// Runs `f` and returns the kind of the ApiError it throws ("" when it throws none).
template <class F>
std::string kindOf(F&& f, std::string* message = nullptr) {
  try {
    f();
  } catch (const ApiError& e) {
    if (message) *message = e.what();
    return e.kind();
  }
  return "";
}

TEST(ApiTest, ParsesVerifiesRunsAndListsFunctions) {
  Program p = Program::parse(kProgram);
  EXPECT_NO_THROW(p.verify());
  EXPECT_EQ(p.functions(), (std::vector<std::string>{"sq", "main"}));
  std::vector<HostArray> r =
      p.run({HostArray::of<float>({3}, {1.5f, -2.0f, 3.0f}), HostArray::of<int64_t>({}, {41})});
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(r[0].dtype(), "f32");
  EXPECT_EQ(r[0].dims(), (std::vector<int64_t>{3}));
  EXPECT_EQ(r[0].values<float>(), (std::vector<float>{2.25f, 4.0f, 9.0f}));
  EXPECT_EQ(r[1].dtype(), "i64");
  EXPECT_TRUE(r[1].dims().empty());
  EXPECT_EQ(r[1].values<int64_t>(), std::vector<int64_t>{42});
  std::vector<HostArray> sq = p.run({HostArray::of<float>({3}, {1, 2, 3})}, "sq");
  EXPECT_EQ(sq.at(0).values<float>(), (std::vector<float>{1, 4, 9}));
}

TEST(ApiTest, OptimizeKeepsTheResultsAndReportsThePasses) {
  Program p = Program::parse(kProgram);
  std::vector<HostArray> in = {HostArray::of<float>({3}, {0.5f, -1.0f, 7.0f}), HostArray::of<int64_t>({}, {-3})};
  std::vector<HostArray> before = p.run(in);
  std::string report = p.optimize();
  EXPECT_NE(report.find("fixpoint(simplify,fold)"), std::string::npos) << report;
  EXPECT_NE(report.find("inline"), std::string::npos) << report;
  std::string text = p.print();
  EXPECT_EQ(text.find("call @sq"), std::string::npos) << "inlined:\n" << text;
  EXPECT_EQ(p.functions(), std::vector<std::string>{"main"}) << "the private callee is gone";
  std::vector<HostArray> after = p.run(in);
  ASSERT_EQ(after.size(), before.size());
  for (size_t i = 0; i < after.size(); ++i) EXPECT_EQ(after[i].bytes(), before[i].bytes()) << i;

  Program q = Program::parse(kProgram);
  q.optimize("inline");
  EXPECT_EQ(q.functions(), std::vector<std::string>{"main"});
}

TEST(ApiTest, PrintedTextParsesBackToTheSameProgram) {
  Program p = Program::parse(kProgram);
  for (bool generic : {false, true}) {
    std::string text = p.print(generic);
    Program back = Program::parse(text);
    EXPECT_EQ(back.print(generic), text);
  }
  EXPECT_NE(p.print(true).find("\"stablehlo.add\""), std::string::npos);
}

TEST(ApiTest, ErrorsHaveKindsAndFullDiagnostics) {
  std::string message;
  EXPECT_EQ(kindOf([] { Program::parse("func.func @f() {\n  %0 = stablehlo.add %x, %x : tensor<f32>\n}", "bad.mlir"); },
                   &message),
            "parse");
  EXPECT_NE(message.find("bad.mlir:2:"), std::string::npos) << message;
  EXPECT_NE(message.find("^"), std::string::npos) << "the caret line: " << message;

  // Parses, but the add's declared result type is wrong: verify() finds it, and run()
  // verifies first instead of evaluating bad IR.
  const char* wrong = "func.func @main(%a: tensor<2xf32>) -> tensor<3xf32> {\n"
                      "  %0 = stablehlo.add %a, %a : (tensor<2xf32>, tensor<2xf32>) -> tensor<3xf32>\n"
                      "  return %0 : tensor<3xf32>\n}";
  Program bad = Program::parse(wrong);
  std::string verifyKind = kindOf([&] { bad.verify(); });
  EXPECT_FALSE(verifyKind.empty());
  EXPECT_NE(verifyKind, "parse");
  EXPECT_EQ(kindOf([&] { bad.run({HostArray::of<float>({2}, {1, 2})}); }), verifyKind);

  Program p = Program::parse(kProgram);
  HostArray x = HostArray::of<float>({3}, {1, 2, 3});
  HostArray n = HostArray::of<int64_t>({}, {1});
  EXPECT_EQ(kindOf([&] { p.run({x, n}, "nope"); }, &message), "usage");
  EXPECT_NE(message.find("@nope"), std::string::npos) << message;
  EXPECT_EQ(kindOf([&] { p.run({x}); }), "usage") << "too few inputs";
  EXPECT_EQ(kindOf([&] { p.run({n, x}); }), "type") << "inputs swapped";
  EXPECT_EQ(kindOf([&] { p.run({HostArray("f32", {3}, {1, 2}), n}); }), "usage") << "bytes do not fit";
  EXPECT_EQ(kindOf([&] { p.optimize("inline,bogus"); }, &message), "usage");
  EXPECT_NE(message.find("unknown pass 'bogus'"), std::string::npos) << message;
  EXPECT_NE(p.print().find("call @sq"), std::string::npos) << "a bad pass list changes nothing";
  EXPECT_EQ(kindOf([] { Program::load("/nonexistent/kiln/program.mlir"); }), "io");
  EXPECT_EQ(kindOf([] { Program::parse("func.func @a() {\n  return\n}\n// -----\nfunc.func @b() {\n  return\n}"); }),
            "usage");
  EXPECT_EQ(kindOf([] { HostArray::of<float>({2, 2}, {1, 2, 3}); }), "usage");
  EXPECT_EQ(kindOf([] { HostArray::of<float>({1}, {1}).values<double>(); }), "usage");
}

TEST(ApiTest, LoadsFilesAndRunsFromSeveralThreads) {
  Program p = Program::load(std::string(KILN_SOURCE_DIR) + "/examples/softmax.mlir");
  std::vector<float> values(32);
  for (size_t i = 0; i < values.size(); ++i) values[i] = static_cast<float>(i % 5);
  HostArray x = HostArray::of<float>({4, 8}, values);
  std::vector<HostArray> expected = p.run({x});
  std::vector<std::vector<HostArray>> got(4);
  std::vector<std::thread> threads;
  for (auto& g : got) threads.emplace_back([&p, &x, &g] { g = p.run({x}); });
  for (auto& t : threads) t.join();
  for (const auto& g : got) EXPECT_EQ(g.at(0).bytes(), expected.at(0).bytes());
  // Each row of a softmax sums to 1.
  std::vector<float> y = expected.at(0).values<float>();
  for (int row = 0; row < 4; ++row) {
    float sum = 0;
    for (int c = 0; c < 8; ++c) sum += y[static_cast<size_t>(row * 8 + c)];
    EXPECT_NEAR(sum, 1.0f, 1e-5f) << row;
  }
}

}  // namespace
