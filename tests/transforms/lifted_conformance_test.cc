// The consistency of jvp and vjp on programs nobody wrote for them: every program of the
// stablehlo `testdata/` suite, its input constants lifted into parameters
// (testing/lift_constants.h) and promoted to f64, must satisfy <u, J·v> = <Jᵀ·u, v> at
// its own inputs for random u and v. Programs that use an op without a rule are counted
// by op (the list shrinks as rules land); a floor keeps the number checked from falling.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <map>
#include <random>

#include "interp/interpreter.h"
#include "stablehlo/parser.h"
#include "support/error.h"
#include "test_paths.h"
#include "testing/lift_constants.h"
#include "transforms/autodiff.h"
#include "transforms/promote_floats.h"

namespace kiln::transforms {
namespace {

namespace fs = std::filesystem;
using interp::HostValues;

// Programs checked today; raise it as rules land.
constexpr int kCheckedFloor = 741;

HostValues randomValues(const TypeList& types, std::mt19937_64& rng) {
  std::uniform_real_distribution<double> real(-1, 1);
  HostValues out;
  for (const Type& t : types) {
    Literal lit(t);
    for (int64_t i = 0; i < t.numElements(); ++i) {
      if (isComplex(t.dtype())) lit.setComplex(i, {real(rng), real(rng)});
      else lit.setFloat(i, real(rng));
    }
    out.push_back(std::move(lit));
  }
  return out;
}

// Σ a·b over matching tensors (complex: the real part of the bilinear product, the
// pairing vjp's transposition preserves), and Σ |a·b| for the tolerance.
std::pair<double, double> pairing(const HostValues& a, const HostValues& b) {
  double s = 0, scale = 0;
  for (size_t k = 0; k < a.size(); ++k) {
    const Literal& x = a[k].tensor();
    const Literal& y = b[k].tensor();
    for (int64_t i = 0; i < x.numElements(); ++i) {
      double p = isComplex(x.dtype()) ? (x.complexAt(i) * y.complexAt(i)).real() : x.floatAt(i) * y.floatAt(i);
      s += p;
      scale += std::abs(p);
    }
  }
  return {s, scale};
}

bool finite(const HostValues& values) {
  for (const auto& v : values) {
    const Literal& l = v.tensor();
    if (!isFloat(l.dtype()) && !isComplex(l.dtype())) continue;
    for (int64_t i = 0; i < l.numElements(); ++i) {
      if (isComplex(l.dtype())) {
        std::complex<double> c = l.complexAt(i);
        if (!std::isfinite(c.real()) || !std::isfinite(c.imag())) return false;
      } else if (!std::isfinite(l.floatAt(i))) {
        return false;
      }
    }
  }
  return true;
}

// Whether a reduce_precision rounds to fewer bits than f64 has. JAX treats it as linear
// (tangents and cotangents are rounded like the values), but rounding is not linear:
// <u, R(v)> and <R(u), v> differ by the rounding, so such programs cannot be checked.
bool roundsBelowF64(const Module& module) {
  bool rounds = false;
  for (const auto& fn : module.functions())
    walk(fn->body(), [&](Op& op) {
      if (op.is(OpCode::ReducePrecision))
        rounds |= op.attr("exponent_bits").asInt() < 11 || op.attr("mantissa_bits").asInt() < 52;
    });
  return rounds;
}

// "checked", "mismatch ...", or why the program was not checked.
std::string checkProgram(const fs::path& path) {
  auto module = stablehlo::parseModule(SourceBuffer::fromFile(path.string()));
  Function* f = module->lookup("main");
  if (!f) return "skipped: no @main";
  std::vector<Literal> inputs = kiln::testing::liftConstants(*module, *f);
  if (inputs.empty()) return "skipped: no float inputs";
  promoteFloatsToF64(*module);
  bool anyResult = false;
  for (const Type& t : f->resultTypes()) anyResult |= hasTangent(t);
  if (!anyResult) return "skipped: no float results";
  if (roundsBelowF64(*module)) return "skipped: reduce_precision rounds below f64";
  jvp(*module, *f, "ad.jvp");
  vjp(*module, *f, "ad.vjp", {2048});  // bounds the convergence loops (igamma: 2000 at most)
  interp::Interpreter in(*module);
  // The lifted inputs, promoted like the program.
  HostValues x;
  for (size_t i = 0; i < inputs.size(); ++i) {
    Literal p(f->param(i)->type());
    for (int64_t e = 0; e < p.numElements(); ++e) {
      if (isComplex(p.dtype())) p.setComplex(e, inputs[i].complexAt(e));
      else p.setFloat(e, inputs[i].floatAt(e));
    }
    x.push_back(std::move(p));
  }
  std::mt19937_64 rng(3);
  TypeList floatParams, floatResults;
  for (const Type& t : f->paramTypes()) floatParams.push_back(t);  // every lifted one is float
  for (const Type& t : f->resultTypes())
    if (hasTangent(t)) floatResults.push_back(t);
  HostValues v = randomValues(floatParams, rng), u = randomValues(floatResults, rng);
  HostValues args = x;
  args.insert(args.end(), v.begin(), v.end());
  HostValues j = in.call("ad.jvp", args);
  const size_t nr = f->resultTypes().size();
  HostValues tangents(j.begin() + static_cast<ptrdiff_t>(nr), j.end());
  HostValues back = x;
  back.insert(back.end(), u.begin(), u.end());
  HostValues g = in.call("ad.vjp", back);
  HostValues cts(g.begin() + static_cast<ptrdiff_t>(nr), g.end());
  if (!finite(tangents) || !finite(cts)) return "skipped: non-finite derivatives at the inputs";
  auto [forward, fscale] = pairing(u, tangents);
  auto [reverse, rscale] = pairing(cts, v);
  double tolerance = 1e-9 * std::max({fscale, rscale, 1e-300});
  if (std::abs(forward - reverse) > tolerance)
    return "mismatch: <u,Jv> = " + std::to_string(forward) + ", <J^T u,v> = " + std::to_string(reverse);
  return "checked";
}

TEST(LiftedConformanceTest, JvpAndVjpAgreeOnEveryTestdataProgram) {
  fs::path dir = kiln::testing::sharedDir() / "conformance" / "stablehlo" / "testdata";
  if (kiln::testing::sharedDir().empty() || !fs::exists(dir)) GTEST_SKIP() << "../shared/conformance is absent";
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(dir))
    if (entry.path().extension() == ".mlir") files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  std::map<std::string, int> outcomes;
  int checked = 0;
  for (const fs::path& file : files) {
    std::string outcome;
    try {
      outcome = checkProgram(file);
    } catch (const Error& e) {
      outcome = e.message();
      // "unsupported: jvp of stablehlo.sort (line 3)" is counted as "...stablehlo.sort".
      if (size_t at = outcome.find(" ("); at != std::string::npos && outcome.starts_with("unsupported"))
        outcome = outcome.substr(0, at);
    }
    if (outcome.starts_with("mismatch")) ADD_FAILURE() << file.filename() << ": " << outcome;
    if (std::getenv("KILN_LIFTED_VERBOSE")) std::printf("%s: %s\n", file.filename().c_str(), outcome.c_str());
    checked += outcome == "checked";
    outcomes[outcome.starts_with("mismatch") ? "mismatch" : outcome]++;
  }
  for (const auto& [what, n] : outcomes) std::printf("[ measured ] %5d  %s\n", n, what.c_str());
  std::printf("[ measured ] %d of %zu programs checked\n", checked, files.size());
  EXPECT_GE(checked, kCheckedFloor);
}

}  // namespace
}  // namespace kiln::transforms
