// jvp/vjp consistency (adjoint_check.h).
#include "testing/adjoint_check.h"

#include <algorithm>
#include <cmath>
#include <random>

#include "interp/interpreter.h"
#include "ir/ops/stablehlo.h"
#include "transforms/promote_floats.h"

namespace kiln::testing {
namespace {

using interp::HostValues;

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

// The Euclidean norm of all the elements of `values`.
double norm(const HostValues& values) {
  double sum = 0;
  for (const auto& v : values) {
    const Literal& l = v.tensor();
    for (int64_t i = 0; i < l.numElements(); ++i) sum += std::norm(isComplex(l.dtype()) ? l.complexAt(i) : l.floatAt(i));
  }
  return std::sqrt(sum);
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
      if (op.is(ops::ReducePrecision))
        rounds |= op.attr("exponent_bits").asInt() < 11 || op.attr("mantissa_bits").asInt() < 52;
    });
  return rounds;
}

// `value` at `type` (a promoted float type: the same numbers, wider).
Literal widened(const Literal& value, const Type& type) {
  if (value.type() == type) return value;
  Literal out(type);
  for (int64_t e = 0; e < out.numElements(); ++e) {
    if (isComplex(type.dtype())) out.setComplex(e, value.complexAt(e));
    else out.setFloat(e, value.floatAt(e));
  }
  return out;
}

AdjointCheck skipped(std::string why) { return {AdjointCheck::Outcome::Skipped, std::move(why)}; }

}  // namespace

AdjointCheck checkAdjoint(Module& module, const std::string& fnName, const HostValues& inputs, uint64_t seed,
                          const transforms::VjpOptions& vjpOptions) {
  transforms::promoteFloatsToF64(module);
  Function* f = module.lookup(fnName);
  TypeList tangentTypes, cotangentTypes;
  for (const Type& t : f->paramTypes())
    if (transforms::hasTangent(t)) tangentTypes.push_back(t);
  for (const Type& t : f->resultTypes())
    if (transforms::hasTangent(t)) cotangentTypes.push_back(t);
  if (tangentTypes.empty()) return skipped("no float inputs");
  if (cotangentTypes.empty()) return skipped("no float results");
  if (roundsBelowF64(module)) return skipped("reduce_precision rounds below f64");
  transforms::jvp(module, *f, fnName + ".jvp");
  transforms::vjp(module, *f, fnName + ".vjp", vjpOptions);
  HostValues x;
  for (size_t i = 0; i < inputs.size(); ++i) x.push_back(widened(inputs[i].tensor(), f->param(i)->type()));
  std::mt19937_64 rng(seed);
  HostValues v = randomValues(tangentTypes, rng), u = randomValues(cotangentTypes, rng);
  interp::Interpreter in(module);
  const auto numResults = static_cast<std::ptrdiff_t>(f->resultTypes().size());
  HostValues forwardArgs = x;
  forwardArgs.insert(forwardArgs.end(), v.begin(), v.end());
  HostValues jv = in.call(fnName + ".jvp", forwardArgs);
  jv.erase(jv.begin(), jv.begin() + numResults);
  HostValues backwardArgs = x;
  backwardArgs.insert(backwardArgs.end(), u.begin(), u.end());
  HostValues jtu = in.call(fnName + ".vjp", backwardArgs);
  jtu.erase(jtu.begin(), jtu.begin() + numResults);
  if (!finite(jv) || !finite(jtu)) return skipped("non-finite derivatives at the inputs");
  auto [forward, forwardScale] = pairing(u, jv);
  auto [reverse, reverseScale] = pairing(jtu, v);
  // Relative to the terms of the inner products; and where J's entries are themselves
  // differences of terms that cancel (x/x), their rounding is of the size of the
  // tangents, not of J: an absolute floor.
  const double tolerance = 1e-9 * std::max(forwardScale, reverseScale) + 1e-12 * norm(u) * norm(v);
  if (std::abs(forward - reverse) > tolerance)
    return {AdjointCheck::Outcome::Inconsistent,
            "<u,Jv> = " + std::to_string(forward) + ", <J^T u,v> = " + std::to_string(reverse)};
  return {AdjointCheck::Outcome::Consistent, ""};
}

}  // namespace kiln::testing
