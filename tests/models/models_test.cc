// Whole programs from ../shared/models: every one runs on the interpreter, and the IREE
// models that give inputs in their `// RUN:` lines reproduce the values their
// `// CHECK:` lines expect (a small FileCheck: CHECK, CHECK-SAME and {{regex}}).
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>
#include <regex>
#include <sstream>

#include "backends/cpu/executable.h"
#include "interp/interpreter.h"
#include "passes/pass_manager.h"
#include "stablehlo/parser.h"
#include "test_paths.h"

namespace kiln {
namespace {

namespace fs = std::filesystem;

std::vector<std::string> lines(const std::string& path) {
  std::ifstream in(path);
  std::vector<std::string> out;
  for (std::string l; std::getline(in, l);) out.push_back(l);
  return out;
}

std::string after(const std::string& line, const std::string& marker) {
  size_t at = line.find(marker);
  return at == std::string::npos ? std::string() : line.substr(at + marker.size());
}

// An IREE input spec: "1x5xf32=1,-2,-3" or "1x5xf32=[0,1]" or "1x28x28x1xf32" (zeros).
Literal parseInputSpec(std::string spec) {
  std::string values;
  if (size_t eq = spec.find('='); eq != std::string::npos) {
    values = spec.substr(eq + 1);
    spec = spec.substr(0, eq);
  }
  Shape shape;
  size_t pos = 0;
  for (size_t x; (x = spec.find('x', pos)) != std::string::npos && std::isdigit(static_cast<unsigned char>(spec[pos]));) {
    shape.push_back(std::stoll(spec.substr(pos, x - pos)));
    pos = x + 1;
  }
  std::optional<DType> dtype = parseDType(spec.substr(pos));
  if (!dtype) throw std::runtime_error("bad input spec " + spec);
  Literal lit(Type::tensor(*dtype, shape));
  for (char& c : values) if (c == '[' || c == ']' || c == ',') c = ' ';
  std::istringstream in(values);
  double v;
  for (int64_t i = 0; in >> v; ++i) lit.setFloat(i, v);
  return lit;
}

// IREE's result text: "5x5xf32=[0 1 2 3 4][5 6 ...]..." (the outer dimension without
// brackets), numbers as %g.
std::string ireeText(const Literal& lit) {
  std::string s;
  for (int64_t d : lit.shape()) s += std::to_string(d) + "x";
  s += std::string(name(lit.dtype())) + "=";
  auto element = [&](int64_t i) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%g", lit.floatAt(i));
    return std::string(buf);
  };
  if (lit.type().rank() == 0) return s + element(0);
  std::function<void(size_t, int64_t&)> nested = [&](size_t dim, int64_t& i) {
    s += "[";
    for (int64_t k = 0; k < lit.shape()[dim]; ++k) {
      if (dim + 1 == lit.shape().size()) s += (k ? " " : "") + element(i++);
      else nested(dim + 1, i);
    }
    s += "]";
  };
  int64_t i = 0;
  if (lit.type().rank() == 1) {
    nested(0, i);
  } else {
    for (int64_t k = 0; k < lit.shape()[0]; ++k) nested(1, i);
  }
  return s;
}

// A FileCheck pattern as a regex: literal text, {{regex}} blocks, whitespace runs
// matching any horizontal whitespace.
std::regex patternRegex(std::string pattern) {
  pattern.erase(0, pattern.find_first_not_of(" \t"));
  pattern.erase(pattern.find_last_not_of(" \t") + 1);
  std::string re;
  for (size_t i = 0; i < pattern.size();) {
    if (pattern.compare(i, 2, "{{") == 0) {
      size_t end = pattern.find("}}", i + 2);
      re += "(" + pattern.substr(i + 2, end - i - 2) + ")";
      i = end + 2;
    } else if (pattern[i] == ' ') {
      re += "[ \\t]+";
      while (i < pattern.size() && pattern[i] == ' ') ++i;
    } else {
      if (std::string("\\^$.|?*+()[]{}").find(pattern[i]) != std::string::npos) re += '\\';
      re += pattern[i++];
    }
  }
  return std::regex(re);
}

// The inputs of the first `// RUN:` line (--input=SPEC each), or nothing without one.
std::optional<std::vector<Literal>> runLineInputs(const std::vector<std::string>& text) {
  for (const std::string& l : text) {
    if (l.find("// RUN:") == std::string::npos) continue;
    std::vector<Literal> inputs;
    std::istringstream words(l);
    for (std::string w; words >> w;) {
      if (w.rfind("--input=", 0) != 0) continue;
      std::string spec = w.substr(8);
      spec.erase(std::remove(spec.begin(), spec.end(), '"'), spec.end());
      inputs.push_back(parseInputSpec(spec));
    }
    return inputs;
  }
  return std::nullopt;
}

TEST(ModelsTest, IreeModelsReproduceTheirCheckLines) {
  fs::path dir = kiln::testing::sharedDir() / "models/iree";
  if (kiln::testing::sharedDir().empty() || !fs::exists(dir)) GTEST_SKIP() << "../shared/models is absent";
  size_t checked = 0;
  for (const auto& entry : fs::directory_iterator(dir)) {
    if (entry.path().extension() != ".mlir") continue;
    std::vector<std::string> text = lines(entry.path().string());
    std::vector<Literal> inputs;
    std::string entryName;
    std::vector<std::pair<bool, std::string>> checks;  // (same line?, pattern)
    std::optional<std::vector<Literal>> run = runLineInputs(text);
    bool sawRun = run.has_value();
    if (run) inputs = std::move(*run);
    for (const std::string& l : text) {
      if (std::string label = after(l, "CHECK-LABEL: EXEC @"); !label.empty()) entryName = label;
      else if (std::string p = after(l, "// CHECK-SAME:"); !p.empty()) checks.emplace_back(true, p);
      else if (std::string p2 = after(l, "// CHECK:"); !p2.empty()) checks.emplace_back(false, p2);
    }
    if (!sawRun || checks.empty()) continue;
    SCOPED_TRACE(entry.path().string());
    auto module = stablehlo::parseModule(SourceBuffer::fromFile(entry.path().string()));
    // Without an EXEC label, iree-run-mlir runs the module's exported function.
    if (entryName.empty()) {
      for (const auto& f : module->functions())
        if (f->visibility == Visibility::Public && entryName.empty()) entryName = f->name();
    }
    interp::Interpreter interp(*module);
    interp::HostValues args(inputs.begin(), inputs.end());
    interp::HostValues results = interp.call(entryName, args);
    std::string output;
    for (const interp::HostValue& r : results) output += ireeText(r.tensor()) + "\n";
    // CHECK finds its pattern from where the last match ended; CHECK-SAME must match
    // on the same line.
    size_t pos = 0;
    for (const auto& [sameLine, pattern] : checks) {
      std::smatch m;
      std::string rest = output.substr(pos);
      bool found = std::regex_search(rest, m, patternRegex(pattern));
      bool ok = found && (!sameLine || rest.substr(0, static_cast<size_t>(m.position())).find('\n') == std::string::npos);
      ASSERT_TRUE(ok) << "pattern '" << pattern << "' not found in:\n" << output;
      pos += static_cast<size_t>(m.position() + m.length());
    }
    ++checked;
  }
  EXPECT_EQ(checked, 6u);  // collatz, edge_detection, fragment_000, fullyconnected, mnist_fake_weights, lstm
}

TEST(ModelsTest, EveryModelRunsOnRandomInputs) {
  fs::path dir = kiln::testing::sharedDir() / "models";
  if (kiln::testing::sharedDir().empty() || !fs::exists(dir)) GTEST_SKIP() << "../shared/models is absent";
  for (const auto& entry : fs::recursive_directory_iterator(dir)) {
    if (entry.path().extension() != ".mlir") continue;
    SCOPED_TRACE(entry.path().string());
    auto module = stablehlo::parseModule(SourceBuffer::fromFile(entry.path().string()));
    // The entry: @main, else the first public function.
    const Function* fn = module->lookup("main");
    for (const auto& f : module->functions())
      if (!fn && f->visibility == Visibility::Public) fn = f.get();
    ASSERT_NE(fn, nullptr);
    std::mt19937_64 rng(7);
    std::uniform_real_distribution<double> real(-1, 1);
    interp::HostValues args;
    for (const Type& t : fn->paramTypes()) {
      Literal lit(t);
      for (int64_t i = 0; i < t.numElements(); ++i) {
        if (isFloat(t.dtype())) lit.setFloat(i, real(rng));
        else lit.setInt(i, static_cast<int64_t>(rng() % 4));
      }
      args.push_back(std::move(lit));
    }
    interp::Interpreter interp(*module);
    interp::HostValues results = interp.call(*fn, args);
    ASSERT_EQ(results.size(), fn->resultTypes().size());
    for (size_t i = 0; i < results.size(); ++i) EXPECT_EQ(results[i].type(), fn->resultTypes()[i]);
  }
}

// The entry of a model: @main, else the first public function.
const Function* entryOf(const Module& module) {
  const Function* fn = module.lookup("main");
  for (const auto& f : module.functions())
    if (!fn && f->visibility == Visibility::Public) fn = f.get();
  return fn;
}

// Seeded inputs: floats uniform in [low, high), integers 0 or 1 (valid indices into
// every table the models look up: BERT's token-type table has two rows, and its gathers
// fill NaN out of range).
interp::HostValues randomInputs(const Function& fn, double low, double high) {
  std::mt19937_64 rng(11);
  std::uniform_real_distribution<double> real(low, high);
  interp::HostValues args;
  for (const Type& t : fn.paramTypes()) {
    Literal lit(t);
    for (int64_t i = 0; i < t.numElements(); ++i) {
      if (isFloat(t.dtype())) lit.setFloat(i, real(rng));
      else lit.setInt(i, static_cast<int64_t>(rng() % 2));
    }
    args.push_back(std::move(lit));
  }
  return args;
}

// Every float result finite and not constant (all-NaN or constant outputs would agree
// between backends without saying anything). `constantByDesign`: a model whose output
// is the same for every input (mnist_fake_weights: every weight is one byte pattern, so
// its softmax is uniform) needs only finite outputs.
bool informative(const interp::HostValues& results, bool constantByDesign = false) {
  for (const interp::HostValue& r : results) {
    const Literal& lit = r.tensor();
    if (!isFloat(lit.dtype())) continue;
    for (int64_t i = 0; i < lit.numElements(); ++i)
      if (!std::isfinite(lit.floatAt(i))) return false;
    if (!constantByDesign && lit.numElements() > 1 && lit.allElementsEqual()) return false;
  }
  return true;
}

// The cpu backend, with no interpreter fallback, against the interpreter on every model but the largest (136M
// parameters: 40 s on the interpreter), with the first input range (of a few) that makes
// the reference output informative. BLAS sums in its own order, so floats agree within a tolerance
// relative to the output's magnitude (1e-4 of the largest |value|, and at least 1e-5).
TEST(ModelsTest, CpuAgreesWithTheInterpreter) {
  fs::path dir = kiln::testing::sharedDir() / "models";
  if (kiln::testing::sharedDir().empty() || !fs::exists(dir)) GTEST_SKIP() << "../shared/models is absent";
  size_t compared = 0;
  for (const auto& entry : fs::recursive_directory_iterator(dir)) {
    if (entry.path().extension() != ".mlir" || entry.path().filename() == "searchless_chess_136m.mlir") continue;
    SCOPED_TRACE(entry.path().string());
    auto reference = stablehlo::parseModule(SourceBuffer::fromFile(entry.path().string()));
    const Function* fn = entryOf(*reference);
    ASSERT_NE(fn, nullptr);
    bool constantByDesign = entry.path().filename() == "mnist_fake_weights.mlir";
    interp::HostValues args, expected;
    // Symmetric ranges first, then positive ones; last, the inputs of the model's RUN
    // line (the LSTM's sequence masks zero its output on random values).
    for (auto [low, high] : {std::pair{-1.0, 1.0}, {-0.1, 0.1}, {0.0, 1.0}, {0.0, 0.1}}) {
      args = randomInputs(*fn, low, high);
      expected = interp::Interpreter(*reference).call(*fn, args);
      if (informative(expected, constantByDesign)) break;
    }
    if (auto run = runLineInputs(lines(entry.path().string())); run && !informative(expected, constantByDesign)) {
      args.assign(run->begin(), run->end());
      expected = interp::Interpreter(*reference).call(*fn, args);
    }
    ASSERT_TRUE(informative(expected, constantByDesign)) << "no input range gives finite, varying outputs";
    auto module = stablehlo::parseModule(SourceBuffer::fromFile(entry.path().string()));
    passes::PassContext context;
    passes::runPipeline(*module, cpu::cpuPipeline(), context);
    cpu::Executable exe(*module);
    // No op of a model is left to the interpreter, and its kernels ran.
    for (const auto& [reason, n] : exe.declinedReasons()) ADD_FAILURE() << "declined: " << reason;
    interp::HostValues got = exe.call(*module->lookup(fn->name()), args);
    EXPECT_GT(exe.nativeRuns(), 0u);
    ASSERT_EQ(got.size(), expected.size());
    for (size_t r = 0; r < got.size(); ++r) {
      const Literal& want = expected[r].tensor();
      const Literal& have = got[r].tensor();
      ASSERT_EQ(have.type(), want.type());
      if (!isFloat(want.dtype())) {
        EXPECT_TRUE(have == want) << "result " << r;
        continue;
      }
      double largest = 0;
      for (int64_t i = 0; i < want.numElements(); ++i) largest = std::max(largest, std::abs(want.floatAt(i)));
      double tolerance = std::max(1e-5, 1e-4 * largest);
      for (int64_t i = 0; i < want.numElements(); ++i)
        ASSERT_NEAR(have.floatAt(i), want.floatAt(i), tolerance) << "result " << r << " element " << i;
    }
    ++compared;
  }
  EXPECT_EQ(compared, 11u);
}

}  // namespace
}  // namespace kiln
