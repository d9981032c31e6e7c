// jvp and vjp of the whole programs of ../shared/models, promoted to f64: at random
// inputs where every output is finite and not constant, the jvp agrees with central
// finite differences along a random direction, and <u, J·v> = <Jᵀ·u, v>. The large
// models (BERT: 31 s, searchless_chess_9m: 72 s, 136M: longer, all on the f64
// interpreter) run only with KILN_SLOW_MODELS=1 (KILN_MODEL=file picks one); the models
// that use ops without rules yet are listed with the error they give, so the list
// shrinks as rules land.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <cmath>
#include <filesystem>
#include <map>
#include <random>

#include "interp/interpreter.h"
#include "stablehlo/parser.h"
#include "support/error.h"
#include "test_paths.h"
#include "transforms/autodiff.h"
#include "transforms/promote_floats.h"

namespace kiln::transforms {
namespace {

namespace fs = std::filesystem;
using interp::HostValues;

const Function* entryOf(const Module& module) {
  const Function* fn = module.lookup("main");
  for (const auto& f : module.functions())
    if (!fn && f->visibility == Visibility::Public) fn = f.get();
  return fn;
}

// Floats uniform in [-scale, scale); integers 0 or 1 (valid indices of every table the
// models look up).
HostValues randomValues(const TypeList& types, std::mt19937_64& rng, double scale) {
  std::uniform_real_distribution<double> real(-scale, scale);
  HostValues out;
  for (const Type& t : types) {
    Literal lit(t);
    for (int64_t i = 0; i < t.numElements(); ++i) {
      if (isFloat(t.dtype())) lit.setFloat(i, real(rng));
      else lit.setInt(i, static_cast<int64_t>(rng() % 2));
    }
    out.push_back(std::move(lit));
  }
  return out;
}

HostValues floatsOf(const HostValues& values) {
  HostValues out;
  for (const auto& v : values)
    if (isFloat(v.tensor().dtype())) out.push_back(v);
  return out;
}

double inner(const HostValues& a, const HostValues& b) {
  double s = 0;
  for (size_t k = 0; k < a.size(); ++k)
    for (int64_t i = 0; i < a[k].tensor().numElements(); ++i) s += a[k].tensor().floatAt(i) * b[k].tensor().floatAt(i);
  return s;
}

bool informative(const HostValues& results) {
  for (const auto& r : results) {
    const Literal& lit = r.tensor();
    if (!isFloat(lit.dtype())) continue;
    for (int64_t i = 0; i < lit.numElements(); ++i)
      if (!std::isfinite(lit.floatAt(i))) return false;
    if (lit.numElements() > 1 && lit.allElementsEqual()) return false;
  }
  return true;
}

// What happens for one model: "checked", or the error that stops the checks.
// `constantByDesign`: a model whose output is the same for every input
// (mnist_fake_weights: every weight is one byte pattern, its softmax is uniform), whose
// derivative is zero.
std::string checkModel(const fs::path& path, bool constantByDesign) {
  auto module = stablehlo::parseModule(SourceBuffer::fromFile(path.string()));
  promoteFloatsToF64(*module);
  const Function* f = entryOf(*module);
  if (!f) return "no entry";
  bool anyFloat = false;
  for (const Type& t : f->paramTypes()) anyFloat |= hasTangent(t);
  if (!anyFloat) return "nothing to differentiate: no floating-point parameters";
  std::string reverseError;
  try {
    jvp(*module, *f, "ad.jvp");
  } catch (const Error& e) {
    return e.message();
  }
  try {
    vjp(*module, *f, "ad.vjp", {64});  // the LSTM's loop runs over its 5 steps
  } catch (const Error& e) {
    reverseError = e.message();
  }
  interp::Interpreter in(*module);
  std::mt19937_64 rng(5);
  HostValues x;
  for (double scale : {1.0, 0.5, 0.1}) {
    rng.seed(5);
    x = randomValues(f->paramTypes(), rng, scale);
    // The LSTM's first parameter holds sequence marks whose zeros end each sequence
    // (random values have none, and the loop computes nothing): its RUN line's marks.
    if (path.filename() == "unidirectional_lstm.mlir") {
      Literal marks = x[0].tensor();
      const double given[] = {0, 1, 0, 3, 4};
      for (int64_t i = 0; i < 5; ++i) marks.setFloat(i, given[i]);
      x[0] = marks;
    }
    if (informative(in.call(f->name(), x))) break;
  }
  TypeList floatParams, floatResults;
  for (const Type& t : f->paramTypes())
    if (hasTangent(t)) floatParams.push_back(t);
  for (const Type& t : f->resultTypes())
    if (hasTangent(t)) floatResults.push_back(t);
  HostValues v = randomValues(floatParams, rng, 1), u = randomValues(floatResults, rng, 1);
  // The marks are compared with zero: differences across them would step over the
  // discontinuity they sit on, so the direction leaves them alone.
  if (path.filename() == "unidirectional_lstm.mlir") v[0] = Literal(v[0].tensor().type());
  HostValues args = x;
  args.insert(args.end(), v.begin(), v.end());
  HostValues j = in.call("ad.jvp", args);
  const size_t nr = f->resultTypes().size();
  HostValues tangents(j.begin() + static_cast<ptrdiff_t>(nr), j.end());

  // Central differences along v.
  const double h = 1e-6;
  auto at = [&](double s) {
    HostValues shifted = x;
    size_t k = 0;
    for (size_t i = 0; i < x.size(); ++i) {
      if (!hasTangent(f->param(i)->type())) continue;
      Literal p = x[i].tensor();
      for (int64_t e = 0; e < p.numElements(); ++e) p.setFloat(e, p.floatAt(e) + s * v[k].tensor().floatAt(e));
      shifted[i] = p;
      ++k;
    }
    return floatsOf(in.call(f->name(), shifted));
  };
  HostValues plus = at(h), minus = at(-h);
  double largest = 0, worst = 0;
  for (size_t r = 0; r < tangents.size(); ++r)
    for (int64_t e = 0; e < tangents[r].tensor().numElements(); ++e) {
      double t = tangents[r].tensor().floatAt(e);
      double fd = (plus[r].tensor().floatAt(e) - minus[r].tensor().floatAt(e)) / (2 * h);
      largest = std::max(largest, std::abs(t));
      worst = std::max(worst, std::abs(t - fd));
    }
  if (!constantByDesign) {
    EXPECT_GT(largest, 0) << path << ": the directional derivative is zero everywhere";
  }
  EXPECT_LE(worst, 1e-5 * (1 + largest)) << path << ": jvp against finite differences";

  if (!reverseError.empty()) return "jvp checked; " + reverseError;
  HostValues back = x;
  back.insert(back.end(), u.begin(), u.end());
  HostValues g = in.call("ad.vjp", back);
  HostValues cts(g.begin() + static_cast<ptrdiff_t>(nr), g.end());
  double forward = inner(u, tangents), reverse = inner(cts, v);
  EXPECT_NEAR(forward, reverse, 1e-9 * (1 + std::abs(forward))) << path << ": <u, Jv> against <J^T u, v>";
  std::printf("[ measured ] %s: max |jvp - fd| %.3g (max |jvp| %.3g); <u,Jv> %.17g, <J^T u,v> %.17g\n",
              path.filename().c_str(), worst, largest, forward, reverse);
  return "checked";
}

TEST(ModelsAutodiffTest, JvpAndVjpOfEveryModel) {
  fs::path dir = kiln::testing::sharedDir() / "models";
  if (kiln::testing::sharedDir().empty() || !fs::exists(dir)) GTEST_SKIP() << "../shared/models is absent";
  // What each model gives today: "checked", or the error of the first op without a rule.
  const std::map<std::string, std::string> expected = {
      {"kan1.mlir", "checked"},
      {"kan2.mlir", "checked"},
      {"pt_bert.mlir", "checked"},
      {"searchless_chess_9m.mlir", "checked"},
      {"searchless_chess_136m.mlir", "checked"},
      {"collatz.mlir", "nothing to differentiate: no floating-point parameters"},
      {"edge_detection.mlir", "checked"},
      {"fragment_000.mlir", "nothing to differentiate: no floating-point parameters"},
      {"fullyconnected.mlir", "checked"},
      {"mnist.mlir", "checked"},
      {"mnist_fake_weights.mlir", "checked"},
      {"unidirectional_lstm.mlir", "checked"},
  };
  for (const auto& entry : fs::recursive_directory_iterator(dir)) {
    if (entry.path().extension() != ".mlir") continue;
    std::string file = entry.path().filename().string();
    bool slow = file == "pt_bert.mlir" || file.starts_with("searchless_chess");
    if (slow && !std::getenv("KILN_SLOW_MODELS")) continue;
    if (const char* only = std::getenv("KILN_MODEL"); only && file != only) continue;  // one model
    SCOPED_TRACE(file);
    auto want = expected.find(file);
    ASSERT_NE(want, expected.end()) << "a new model: add it to the list";
    auto start = std::chrono::steady_clock::now();
    std::string outcome;
    try {
      outcome = checkModel(entry.path(), file == "mnist_fake_weights.mlir");
    } catch (const Error& e) {
      outcome = e.message();
    }
    EXPECT_EQ(outcome, want->second);
    std::printf("[ measured ] %s: %s in %.1f s\n", file.c_str(), outcome.c_str(),
                std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
}

}  // namespace
}  // namespace kiln::transforms
